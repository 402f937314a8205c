// Cross-lane semantics beyond ds_bpermute/ds_permute and v_readlane/v_writelane: DPP source
// permutations of VOP instructions (AMD "Vega" GFX9 ISA and CDNA3 ISA, "Data Parallel
// Primitives"; RDNA3 ISA, "DPP16" and "DPP8"), DS_SWIZZLE_B32 (same manuals, "LDS Instructions",
// swizzle offset modes), V_PERMLANE16_B32, V_PERMLANEX16_B32 (RDNA ISA) and V_PERMLANE64_B32
// (RDNA3 ISA).
#include "CrossLane.h"
#include "Semantics.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>

using namespace llvm;

namespace reptx::emulator {

namespace {

using u32 = uint32_t;
using u64 = uint64_t;

// DPP16 controls (the DPP_CTRL field values).
constexpr unsigned RowShl = 0x100, RowShr = 0x110, RowRor = 0x120, WaveShl1 = 0x130,
                   WaveRol1 = 0x134, WaveShr1 = 0x138, WaveRor1 = 0x13c, RowMirror = 0x140,
                   RowHalfMirror = 0x141, RowBcast15 = 0x142, RowBcast31 = 0x143, RowShare = 0x150,
                   RowXmask = 0x160;

// The lane whose src0 lane L reads, or -1 when the source is out of range.
int dppSource(const Inst &I, unsigned L, unsigned WaveSize) {
  int Lane = int(L), Row = Lane & ~15, InRow = Lane & 15;
  if (I.IsDpp8)
    return (Lane & ~7) | int((I.Dpp8 >> (3 * (Lane & 7))) & 7);
  unsigned C = I.DppCtrl;
  int N = int(C & 15);
  int Src = -1;
  if (C <= 0xff)
    Src = (Lane & ~3) | int((C >> (2 * (Lane & 3))) & 3);
  else if (C > RowShl && C <= RowShl + 15)
    Src = InRow + N < 16 ? Lane + N : -1;
  else if (C > RowShr && C <= RowShr + 15)
    Src = InRow >= N ? Lane - N : -1;
  else if (C > RowRor && C <= RowRor + 15)
    Src = Row | ((InRow - N) & 15);
  else if (C == WaveShl1)
    Src = Lane + 1;
  else if (C == WaveRol1)
    Src = (Lane + 1) % int(WaveSize);
  else if (C == WaveShr1)
    Src = Lane - 1;
  else if (C == WaveRor1)
    Src = (Lane + int(WaveSize) - 1) % int(WaveSize);
  else if (C == RowMirror)
    Src = Row | (15 - InRow);
  else if (C == RowHalfMirror)
    Src = (Lane & ~7) | (7 - (Lane & 7));
  else if (C == RowBcast15)
    Src = Row >= 16 ? Row - 1 : -1; // lane 15 of the previous row
  else if (C == RowBcast31)
    Src = Row >= 32 ? 31 : -1; // lane 31 to rows 2 and 3
  else if (C >= RowShare && C <= RowShare + 15)
    Src = Row | N;
  else if (C >= RowXmask && C <= RowXmask + 15)
    Src = Row | (InRow ^ N);
  return Src >= 0 && Src < int(WaveSize) ? Src : -1;
}

bool knownDppCtrl(unsigned C) {
  return C <= 0xff || (C > RowShl && C <= RowShl + 15) || (C > RowShr && C <= RowShr + 15) ||
         (C > RowRor && C <= RowRor + 15) || C == WaveShl1 || C == WaveRol1 || C == WaveShr1 ||
         C == WaveRor1 || (C >= RowMirror && C <= RowBcast31) ||
         (C >= RowShare && C <= RowXmask + 15);
}

// A DPP instruction: the operation runs on the lanes that the row/bank masks enable and whose
// source is valid (an out-of-range or, without FI, inactive source lane disables the lane, or
// reads 0 with bound_ctrl), with src0 read from the permuted copy in the wave's DPP scratch
// registers; every other source, src1 too when it names src0's register, reads its own lane.
Step dppExec(Wave &W, const Inst &I) {
  const OpDef *Inner = I.DppInner;
  unsigned SrcIdx = Inner ? Inner->NumDsts : 0;
  if (!Inner || SrcIdx >= I.NumOps)
    return W.fault(FaultKind::UnsupportedInstruction, "malformed DPP instruction");
  const Operand &S = I.Ops[SrcIdx];
  if (S.Kind != OperandKind::Vgpr || !W.vgprInRange(S))
    return W.fault(FaultKind::UnsupportedInstruction, "DPP src0 must be a VGPR");
  if (!I.IsDpp8 && !knownDppCtrl(I.DppCtrl))
    return W.fault(FaultKind::UnsupportedInstruction, "unsupported DPP control");
  unsigned R = W.vgprIndex(S), Dwords = std::min<unsigned>(S.Dwords, Wave::DppScratchVgprs);
  u64 Exec = W.exec();
  u64 Enabled = 0;
  for (unsigned L = 0; L < W.Size; ++L) {
    if (!((Exec >> L) & 1))
      continue;
    if (!I.IsDpp8 && (!((I.DppRowMask >> (L / 16)) & 1) || !((I.DppBankMask >> ((L / 4) & 3)) & 1)))
      continue;
    int Src = dppSource(I, L, W.Size);
    bool Valid = Src >= 0 && (I.DppFetchInactive || ((Exec >> Src) & 1));
    if (!Valid && !I.DppBoundCtrl && !I.IsDpp8)
      continue;
    Enabled |= u64(1) << L;
    for (unsigned D = 0; D < Dwords; ++D)
      W.vcol(W.NumVgprs + D)[L] = Valid ? W.vcol(R + D)[Src] : 0;
  }
  W.setExec(Exec & Enabled);
  Inst J = I;
  J.Op = Inner;
  J.DppInner = nullptr;
  J.Ops[SrcIdx].Reg = uint16_t(W.NumVgprs);
  Step St = Inner->Exec(W, J);
  if (W.exec() == (Exec & Enabled))
    W.setExec(Exec);
  return St;
}

const OpDef &dppDef() {
  static const OpDef D = [] {
    OpDef X;
    X.Name = "<dpp>";
    X.Exec = &dppExec;
    return X;
  }();
  return D;
}

// DS_SWIZZLE_B32 vdst, vdata offset:N. Offset bit 15 set: quad permutation, lane 4g+i reads lane
// 4g + offset[2i+1:2i]. Otherwise bit masks within each 32 lanes: and = offset[4:0], or =
// offset[9:5], xor = offset[14:10]. An inactive source lane reads 0.
Step dsSwizzle(Wave &W, const Inst &I) {
  u32 Off = u32(I.Offset) & 0xffff;
  if (!(Off & 0x8000) && Off >= 0xe000)
    return W.fault(FaultKind::UnsupportedInstruction, "ds_swizzle FFT/rotate modes");
  u64 E = W.exec();
  unsigned Src = W.vgprIndex(I.Ops[1]);
  W.forEachActive([&](unsigned L) {
    unsigned From;
    if (Off & 0x8000) {
      From = (L & ~3u) | ((Off >> (2 * (L & 3))) & 3);
    } else {
      unsigned And = Off & 31, Or = (Off >> 5) & 31, Xor = (Off >> 10) & 31;
      From = (L & 32) | ((((L & 31) & And) | Or) ^ Xor);
    }
    W.Out[L] = ((E >> From) & 1) ? W.vcol(Src)[From] : 0;
  });
  W.commit(I.Ops[0], W.Out, 32);
  return Step::Next;
}

// V_PERMLANE16_B32 / V_PERMLANEX16_B32 vdst, src0, src1, src2: lane L of each row of 16 reads
// the lane that nibble L%16 of {src2, src1} selects, in its own row or (X16) in the other row of
// its 32-lane half. op_sel[0] is FI (read inactive lanes), op_sel[1] BOUND_CTRL (an inactive
// source gives 0 instead of leaving vdst unchanged).
template <bool Cross> Step permlane16(Wave &W, const Inst &I) {
  u64 Sel = (W.scalar(I.Ops[3], 32) << 32) | W.scalar(I.Ops[2], 32);
  bool Fi = I.OpSel & 1, BoundCtrl = (I.OpSel >> 1) & 1;
  u64 E = W.exec();
  unsigned Src = W.vgprIndex(I.Ops[1]), Dst = W.vgprIndex(I.Ops[0]);
  W.forEachActive([&](unsigned L) {
    unsigned Row = (L & ~15u) ^ (Cross ? 16u : 0u);
    unsigned From = Row | unsigned((Sel >> (4 * (L & 15))) & 15);
    if (Fi || ((E >> From) & 1)) {
      W.Out[L] = W.vcol(Src)[From];
    } else if (BoundCtrl) {
      W.Out[L] = 0;
    } else {
      W.Out[L] = W.vcol(Dst)[L];
    }
  });
  W.commit(I.Ops[0], W.Out, 32);
  return Step::Next;
}

// V_PERMLANE64_B32 vdst, src0: lane L reads lane L ^ 32 (the other half of a wave64); a copy in
// wave32.
Step permlane64(Wave &W, const Inst &I) {
  unsigned Src = W.vgprIndex(I.Ops[1]);
  W.forEachActive([&](unsigned L) { W.Out[L] = W.vcol(Src)[W.Size == 64 ? L ^ 32 : L]; });
  W.commit(I.Ops[0], W.Out, 32);
  return Step::Next;
}

bool parseIntValue(StringRef V, int64_t &N) { return !V.trim().getAsInteger(0, N); }

} // namespace

bool parseSwizzleOffset(StringRef Value, int64_t &Offset) {
  if (!Value.consume_front("swizzle(") || !Value.consume_back(")"))
    return false;
  SmallVector<StringRef, 5> Args;
  Value.split(Args, ',');
  StringRef Mode = Args[0].trim();
  SmallVector<int64_t, 4> N;
  for (size_t K = 1; K < Args.size(); ++K) {
    int64_t X;
    if (Mode == "BITMASK_PERM")
      break;
    if (!parseIntValue(Args[K], X))
      return false;
    N.push_back(X);
  }
  if (Mode == "QUAD_PERM" && N.size() == 4) {
    Offset = 0x8000;
    for (unsigned K = 0; K < 4; ++K)
      Offset |= (N[K] & 3) << (2 * K);
    return true;
  }
  auto Bitmask = [&](int64_t And, int64_t Or, int64_t Xor) {
    Offset = (And & 31) | ((Or & 31) << 5) | ((Xor & 31) << 10);
    return true;
  };
  if (Mode == "SWAP" && N.size() == 1)
    return Bitmask(31, 0, N[0]);
  if (Mode == "REVERSE" && N.size() == 1)
    return Bitmask(31, 0, N[0] - 1);
  if (Mode == "BROADCAST" && N.size() == 2)
    return Bitmask(31 & ~(N[0] - 1), N[1], 0);
  if (Mode == "BITMASK_PERM" && Args.size() == 2) {
    // Five characters for lane-id bits 4..0: 0 or 1 force the bit, p keeps it, i inverts it.
    StringRef P = Args[1].trim();
    if (!P.consume_front("\"") || !P.consume_back("\"") || P.size() != 5)
      return false;
    int64_t And = 0, Or = 0, Xor = 0;
    for (unsigned K = 0; K < 5; ++K) {
      int64_t Bit = int64_t(1) << (4 - K);
      switch (P[K]) {
      case '0':
        break;
      case '1':
        Or |= Bit;
        break;
      case 'p':
        And |= Bit;
        break;
      case 'i':
        And |= Bit;
        Xor |= Bit;
        break;
      default:
        return false;
      }
    }
    return Bitmask(And, Or, Xor);
  }
  return false;
}

bool parseDppModifier(StringRef T, Inst &I, std::string &Error) {
  auto [Name, Value] = T.split(':');
  int64_t N = 0;
  auto Bad = [&]() {
    Error = "malformed DPP modifier '" + T.str() + "'";
    return true;
  };
  auto List = [&](unsigned Count, unsigned Bits, uint32_t &Out) {
    StringRef V = Value;
    if (!V.consume_front("[") || !V.consume_back("]"))
      return false;
    SmallVector<StringRef, 8> Parts;
    V.split(Parts, ',');
    if (Parts.size() != Count)
      return false;
    Out = 0;
    for (unsigned K = 0; K < Count; ++K) {
      int64_t X;
      if (!parseIntValue(Parts[K], X) || X < 0 || X >= (int64_t(1) << Bits))
        return false;
      Out |= uint32_t(X) << (Bits * K);
    }
    return true;
  };
  uint32_t Bits = 0;
  if (Name == "quad_perm") {
    if (!List(4, 2, Bits))
      return Bad();
    I.DppCtrl = uint16_t(Bits);
    return true;
  }
  if (Name == "dpp8") {
    if (!List(8, 3, Bits))
      return Bad();
    I.IsDpp8 = true;
    I.Dpp8 = Bits;
    return true;
  }
  static const struct {
    StringRef Name;
    unsigned Base;
  } Shifts[] = {{"row_shl", RowShl},
                {"row_shr", RowShr},
                {"row_ror", RowRor},
                {"row_share", RowShare},
                {"row_xmask", RowXmask}};
  for (const auto &S : Shifts)
    if (Name == S.Name) {
      if (!parseIntValue(Value, N) || N < 0 || N > 15)
        return Bad();
      I.DppCtrl = uint16_t(S.Base + N);
      return true;
    }
  if (T == "wave_shl:1" || T == "wave_rol:1" || T == "wave_shr:1" || T == "wave_ror:1") {
    I.DppCtrl = uint16_t(Name == "wave_shl"   ? WaveShl1
                         : Name == "wave_rol" ? WaveRol1
                         : Name == "wave_shr" ? WaveShr1
                                              : WaveRor1);
    return true;
  }
  if (T == "row_mirror" || T == "row_half_mirror") {
    I.DppCtrl = uint16_t(T == "row_mirror" ? RowMirror : RowHalfMirror);
    return true;
  }
  if (Name == "row_bcast") {
    if (Value != "15" && Value != "31")
      return Bad();
    I.DppCtrl = uint16_t(Value == "15" ? RowBcast15 : RowBcast31);
    return true;
  }
  if (Name == "row_mask" || Name == "bank_mask") {
    if (!parseIntValue(Value, N) || N < 0 || N > 15)
      return Bad();
    (Name == "row_mask" ? I.DppRowMask : I.DppBankMask) = uint8_t(N);
    return true;
  }
  if (Name == "bound_ctrl" || Name == "fi") {
    if (!parseIntValue(Value, N) || N < 0 || N > 1)
      return Bad();
    (Name == "fi" ? I.DppFetchInactive : I.DppBoundCtrl) = N != 0;
    return true;
  }
  return false;
}

void wrapDpp(Inst &I) {
  if (!I.Op || I.Op == &dppDef())
    return;
  I.DppInner = I.Op;
  I.Op = &dppDef();
}

namespace sem {

void addCrossLaneOps(TableBuilder &T) {
  T.add(custom("ds_swizzle_b32", &dsSwizzle, 2));
  T.add(custom("v_permlane16_b32", &permlane16<false>, 4));
  T.add(custom("v_permlanex16_b32", &permlane16<true>, 4));
  T.add(custom("v_permlane64_b32", &permlane64, 2));
}

} // namespace sem

} // namespace reptx::emulator
