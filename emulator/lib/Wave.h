// Architectural state of one wave (SGPRs, VGPRs, EXEC, VCC, SCC, M0, PC) and of the work-group and
// dispatch it runs in, with the operand read/write helpers the instruction semantics share.
#pragma once

#include "Memory.h"
#include "Program.h"
#include "reptx/emulator/CodeObject.h"
#include "reptx/emulator/Dispatch.h"

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace reptx::emulator {

// The lanes of EXEC in increasing order; a dense loop (which the compiler can unroll and
// vectorize) when every lane of the wave is active.
template <typename Fn> inline void forEachExecLane(uint64_t Exec, unsigned Size, Fn &&F) {
  uint64_t Full = Size == 64 ? ~uint64_t(0) : (uint64_t(1) << Size) - 1;
  if (Exec == Full) {
    for (unsigned L = 0; L < Size; ++L)
      F(L);
    return;
  }
  for (uint64_t M = Exec; M; M &= M - 1)
    F(unsigned(std::countr_zero(M)));
}

// What a dispatch shares with its waves.
struct DispatchContext {
  Memory *Mem = nullptr;
  const Program *Prog = nullptr;
  const Kernel *K = nullptr;
  TargetInfo Target;
  uint64_t LoadBase = 0; // added to code object virtual addresses
  uint64_t MaxInstructionsPerWave = 0;
  // FLOAT_DENORM_MODE_32 / _16_64 of COMPUTE_PGM_RSRC1: bit 0 keeps denormal results, bit 1
  // keeps denormal inputs (AMDGPUUsage, "Floating Point Denorm Mode Enumeration Values").
  bool FlushF32In = false, FlushF32Out = false;
  bool FlushF64In = false, FlushF64Out = false;
  bool Dx10Clamp = true;
  uint32_t PrivatePerLane = 0; // bytes of scratch memory per work-item
  // Per instruction index: 1 once its register operands were checked against the dispatch's
  // VGPR allocation (the same for every wave), so runWave checks each instruction once per
  // dispatch rather than on every execution. Empty: check every time.
  std::vector<uint8_t> RegistersChecked;
};

struct Workgroup {
  Dim3 Id{0, 0, 0};
  std::vector<uint8_t> Lds;
};

// Fault details recorded by a handler that returns Step::Fault.
struct WaveFault {
  FaultKind Kind = FaultKind::UnsupportedInstruction;
  std::optional<unsigned> Lane;
  std::optional<uint64_t> Address;
  std::string Detail;
};

enum class WaveStatus : uint8_t { Ready, AtBarrier, Ended };

enum class NumKind : uint8_t { Unsigned, Signed, Float };

struct Wave {
  DispatchContext *Ctx = nullptr;
  Workgroup *Group = nullptr;
  unsigned Index = 0; // within the work-group
  unsigned Size = 64; // lanes
  uint32_t S[sreg::FileSize] = {};
  bool Scc = false;
  // V[reg * Size + lane]: the NumVgprs registers the kernel descriptor allocates, then
  // DppScratchVgprs columns (registers NumVgprs...) where a DPP instruction's permuted src0 is
  // read from, so that its other sources still read their own lanes' values.
  std::vector<uint32_t> V;
  static constexpr unsigned DppScratchVgprs = 2;
  // Scratch memory, Ctx->PrivatePerLane bytes per lane: lane L's byte A is
  // Private[L * PrivatePerLane + A] (scratch addresses are per-lane offsets).
  std::vector<uint8_t> Private;
  unsigned NumVgprs = 0;
  unsigned AccOffset = 0; // first AGPR in the unified VGPR file
  uint32_t Pc = 0;        // instruction index
  uint64_t Executed = 0;
  WaveStatus Status = WaveStatus::Ready;
  // HW_REG_MODE (AMD ISA manuals, "MODE"): FP_ROUND [3:0] (f32 in [1:0], f64/f16 in [3:2]; 0
  // nearest even, 1 +inf, 2 -inf, 3 zero), FP_DENORM [7:4] (f32 in [5:4], f64/f16 in [7:6]; bit 0
  // keeps denormal inputs, bit 1 denormal results), DX10_CLAMP [8], IEEE [9]. Set from
  // COMPUTE_PGM_RSRC1 at dispatch; s_setreg/s_round_mode/s_denorm_mode change it.
  uint32_t Mode = 0;
  bool flushF32In() const { return !((Mode >> 4) & 1); }
  bool flushF32Out() const { return !((Mode >> 5) & 1); }
  bool flushF64In() const { return !((Mode >> 6) & 1); }
  bool flushF64Out() const { return !((Mode >> 7) & 1); }
  bool dx10Clamp() const { return (Mode >> 8) & 1; }
  WaveFault Fault;
  uint64_t Out[64] = {}, Out2[64] = {}; // VALU results before they are committed

  // --- masks
  uint64_t exec() const {
    uint64_t E = S[sreg::ExecLo];
    if (Size == 64)
      E |= uint64_t(S[sreg::ExecHi]) << 32;
    return E;
  }
  void setExec(uint64_t E) {
    S[sreg::ExecLo] = uint32_t(E);
    if (Size == 64)
      S[sreg::ExecHi] = uint32_t(E >> 32);
  }
  uint64_t vcc() const {
    uint64_t E = S[sreg::VccLo];
    if (Size == 64)
      E |= uint64_t(S[sreg::VccHi]) << 32;
    return E;
  }
  template <typename Fn> void forEachActive(Fn &&F) const {
    for (uint64_t M = exec(); M; M &= M - 1)
      F(unsigned(std::countr_zero(M)));
  }

  // --- faults
  Step fault(FaultKind Kind, std::string Detail, std::optional<unsigned> Lane = std::nullopt,
             std::optional<uint64_t> Address = std::nullopt) {
    Fault.Kind = Kind;
    Fault.Detail = std::move(Detail);
    Fault.Lane = Lane;
    Fault.Address = Address;
    return Step::Fault;
  }

  // --- VGPR access
  unsigned vgprIndex(const Operand &O) const {
    return O.Kind == OperandKind::Agpr ? AccOffset + O.Reg : O.Reg;
  }
  bool vgprInRange(const Operand &O) const { return vgprIndex(O) + O.Dwords <= NumVgprs; }
  uint32_t *vcol(unsigned Reg) { return V.data() + size_t(Reg) * Size; }
  const uint32_t *vcol(unsigned Reg) const { return V.data() + size_t(Reg) * Size; }

  // --- scalar reads: SGPRs, constants, literals, special sources at a given width.
  uint64_t scalar(const Operand &O, unsigned Bits, NumKind K = NumKind::Unsigned) const;
  // Any source for one lane: VGPRs per lane, everything else broadcast. Applies neg/abs as
  // sign-bit operations at the read width.
  uint64_t lane(const Operand &O, unsigned L, unsigned Bits, NumKind K = NumKind::Unsigned) const {
    uint64_t X;
    if (O.Kind == OperandKind::Vgpr || O.Kind == OperandKind::Agpr) {
      unsigned R = vgprIndex(O);
      X = vcol(R)[L];
      if (Bits > 32 && O.Dwords >= 2)
        X |= uint64_t(vcol(R + 1)[L]) << 32;
      else if (O.Half == 2)
        X >>= 16;
    } else {
      X = scalar(O, Bits, K);
    }
    if (O.Sel)
      X = select(X, O.Sel, O.Sext);
    if (Bits < 64)
      X &= (uint64_t(1) << Bits) - 1;
    return applyMods(O, X, Bits);
  }
  // SDWA operand select: a byte or word of the 32-bit value, zero- or sign-extended.
  static uint64_t select(uint64_t X, uint8_t Sel, bool Sext) {
    unsigned Shift = Sel <= 4 ? 8 * (Sel - 1) : 16 * (Sel - 5);
    unsigned Width = Sel <= 4 ? 8 : 16;
    uint32_t V = uint32_t(X >> Shift) & ((1u << Width) - 1);
    if (Sext && (V >> (Width - 1)))
      V |= ~((1u << Width) - 1);
    return V;
  }
  static uint64_t applyMods(const Operand &O, uint64_t X, unsigned Bits) {
    uint64_t Sign = uint64_t(1) << (Bits - 1);
    if (O.Abs)
      X &= ~Sign;
    if (O.Neg)
      X ^= Sign;
    return X;
  }

  // --- writes
  void writeScalar(const Operand &O, uint64_t X) {
    for (unsigned D = 0; D < O.Dwords; ++D) {
      unsigned R = O.Reg + D;
      if (R < sreg::FileSize && R != sreg::Null)
        S[R] = uint32_t(X >> (32 * D));
    }
  }
  // One lane's VGPR result of Bits bits. 16-bit results go to the selected half for true16
  // operands; otherwise GFX9 zeroes the upper half and GFX10+ preserves it (AMD GFX9 and RDNA
  // ISA manuals, "16-bit VALU instructions").
  void writeLane(const Operand &O, unsigned L, uint64_t X, unsigned Bits) {
    unsigned R = vgprIndex(O);
    uint32_t *C = vcol(R);
    if (Bits == 16) {
      if (O.Half == 2)
        C[L] = (C[L] & 0xffffu) | uint32_t(X << 16);
      else if (O.Half == 1 || Ctx->Target.Family != GfxFamily::GFX9)
        C[L] = (C[L] & 0xffff0000u) | uint32_t(X & 0xffff);
      else
        C[L] = uint32_t(X & 0xffff);
      return;
    }
    C[L] = uint32_t(X);
    for (unsigned D = 1; D < O.Dwords && D < 2; ++D)
      vcol(R + D)[L] = uint32_t(X >> 32);
  }
  void commit(const Operand &Dst, const uint64_t *Results, unsigned Bits) {
    if (Bits == 16) {
      forEachActive([&](unsigned L) { writeLane(Dst, L, Results[L], Bits); });
      return;
    }
    // writeLane's other widths, with the columns looked up once.
    uint32_t *C = vcol(vgprIndex(Dst));
    if (Dst.Dwords >= 2) {
      uint32_t *C1 = vcol(vgprIndex(Dst) + 1);
      forEachExecLane(exec(), Size, [&](unsigned L) {
        C[L] = uint32_t(Results[L]);
        C1[L] = uint32_t(Results[L] >> 32);
      });
    } else {
      forEachExecLane(exec(), Size, [&](unsigned L) { C[L] = uint32_t(Results[L]); });
    }
  }
  // A VALU result, through the SDWA destination select when the instruction has one: the
  // result's low byte or word goes to the selected field and dst_unused says what the other
  // bits become (AMD GFX9 ISA, "SDWA").
  void commitVop(const Inst &I, const Operand &Dst, const uint64_t *Results, unsigned Bits) {
    if (!I.Sdwa || I.DstSel == 0) {
      commit(Dst, Results, Bits);
      return;
    }
    unsigned Shift = I.DstSel <= 4 ? 8 * (I.DstSel - 1) : 16 * (I.DstSel - 5);
    unsigned Width = I.DstSel <= 4 ? 8 : 16;
    uint32_t Field = ((1u << Width) - 1) << Shift;
    uint32_t *C = vcol(vgprIndex(Dst));
    forEachActive([&](unsigned L) {
      uint32_t V = (uint32_t(Results[L]) << Shift) & Field;
      if (I.DstUnused == 2)
        V |= C[L] & ~Field;
      else if (I.DstUnused == 1 && (V >> (Shift + Width - 1)) & 1)
        V |= ~(Field | ((1u << Shift) - 1));
      C[L] = V;
    });
  }
  // A lane mask written by a VALU instruction (compares, carries): inactive lanes read as 0.
  void writeMask(const Operand &Dst, uint64_t M) { writeScalar(Dst, M & exec()); }

  // --- addresses
  uint64_t deviceAddress(uint64_t CodeObjectAddress) const {
    return Ctx->LoadBase + CodeObjectAddress;
  }
};

// Runs a wave until it ends, waits at a barrier, faults or uses up Quantum instructions.
Step runWave(Wave &W, uint64_t Quantum);

} // namespace reptx::emulator
