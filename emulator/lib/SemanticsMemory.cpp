// Memory semantics: scalar loads (SMEM), global and flat loads, stores and atomics (FLAT/GLOBAL),
// and LDS accesses and lane permutes (DS). Every access is bounds-checked: outside an allocation
// (global) or outside the work-group's LDS it stops the dispatch. Definitions follow the AMD
// "Vega" (GFX9), CDNA3 and RDNA3 instruction set architecture manuals, "Scalar Memory
// Operations", "Flat, Scratch and Global Instructions" and "Data Share Operations"; flat address
// apertures follow AMDGPUUsage, "Address Spaces".
#include "Semantics.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

namespace reptx::emulator::sem {

namespace {

using u16 = uint16_t;
using u32 = uint32_t;
using i32 = int32_t;
using u64 = uint64_t;
using i64 = int64_t;

std::string hex(u64 X) {
  std::string S;
  llvm::raw_string_ostream(S) << llvm::format_hex(X, 18);
  return S;
}

Step globalFault(Wave &W, u64 Address, unsigned Size, bool Write, std::optional<unsigned> Lane) {
  return W.fault(FaultKind::MemoryViolation,
                 std::string(Write ? "write" : "read") + " of " + std::to_string(Size) +
                     " byte(s) at " + hex(Address) + ": " +
                     W.Ctx->Mem->describe(Address, Size, Write),
                 Lane, Address);
}

Step ldsFault(Wave &W, u64 Offset, unsigned Size, bool Write, unsigned Lane) {
  return W.fault(FaultKind::MemoryViolation,
                 std::string("LDS ") + (Write ? "write" : "read") + " of " + std::to_string(Size) +
                     " byte(s) at LDS offset " + std::to_string(Offset) + ": the work-group has " +
                     std::to_string(W.Group->Lds.size()) + " bytes of LDS",
                 Lane, Offset);
}

// A data operand must hold the bytes the instruction moves (guards against decoder surprises).
bool holds(const Operand &O, unsigned Bytes) { return O.Dwords * 4u >= Bytes; }

Step widthFault(Wave &W) {
  return W.fault(FaultKind::UnsupportedInstruction,
                 "a data operand is narrower than the access it takes part in");
}

uint8_t *ldsPtr(Wave &W, u64 Offset, unsigned Size) {
  if (Offset > W.Group->Lds.size() || Size > W.Group->Lds.size() - Offset)
    return nullptr;
  return W.Group->Lds.data() + Offset;
}

enum class Space { Global, Flat };

// Resolves a global or flat address of one lane to host memory, or records a fault. Flat
// addresses in the shared aperture go to the LDS; in the private aperture, to the lane's own
// private segment (the offset is a scratch address, SemanticsScratch.cpp: a generic pointer to a
// local variable holds the same value in every lane and means each lane's own copy).
uint8_t *resolve(Wave &W, Space S, u64 Address, unsigned Size, bool Write, unsigned Lane,
                 Step &Failure) {
  if (S == Space::Flat) {
    if (Address - SharedApertureBase < ApertureSize) {
      u64 Offset = Address - SharedApertureBase;
      if (uint8_t *P = ldsPtr(W, Offset, Size))
        return P;
      Failure = ldsFault(W, Offset, Size, Write, Lane);
      return nullptr;
    }
    if (Address - PrivateApertureBase < ApertureSize) {
      u64 Offset = Address - PrivateApertureBase, Per = W.Ctx->PrivatePerLane;
      if (Offset <= Per && Size <= Per - Offset)
        return W.Private.data() + Lane * Per + Offset;
      Failure = W.fault(FaultKind::MemoryViolation,
                        std::string("flat ") + (Write ? "write" : "read") + " of " +
                            std::to_string(Size) + " byte(s) at " + hex(Address) +
                            ": private offset " + std::to_string(Offset) + " outside the " +
                            std::to_string(Per) + "-byte private segment",
                        Lane, Address);
      return nullptr;
    }
  }
  if (uint8_t *P = W.Ctx->Mem->translate(Address, Size, Write))
    return P;
  Failure = globalFault(W, Address, Size, Write, Lane);
  return nullptr;
}

// Address operands of GLOBAL (vaddr, and saddr or "off" as the last operand) and FLAT (vaddr)
// instructions. With saddr, vaddr is a 32-bit unsigned offset from it.
u64 laneAddress(const Wave &W, const Inst &I, Space S, unsigned VaddrOp, unsigned L) {
  const Operand &Vaddr = I.Ops[VaddrOp];
  const Operand &Saddr = I.Ops[I.NumOps - 1];
  if (S == Space::Global && Saddr.Kind == OperandKind::Sgpr)
    return W.scalar(Saddr, 64) + u32(W.lane(Vaddr, L, 32)) + u64(i64(I.Offset));
  return W.lane(Vaddr, L, 64) + u64(i64(I.Offset));
}

// laneAddress with the operands prepared once per instruction (LaneOperand.h).
class LaneAddresses {
public:
  LaneAddresses(const Wave &W, const Inst &I, Space S, unsigned VaddrOp)
      : W(W), I(I), S(S), VaddrOp(VaddrOp) {
    const Operand &Saddr = I.Ops[I.NumOps - 1];
    WithSaddr = S == Space::Global && Saddr.Kind == OperandKind::Sgpr;
    Fast = Vaddr.prepare(W, I.Ops[VaddrOp], WithSaddr ? 32 : 64, NumKind::Unsigned);
    Base = (WithSaddr ? W.scalar(Saddr, 64) : 0) + u64(i64(I.Offset));
  }
  [[gnu::always_inline]] u64 operator()(unsigned L) const {
    if (!Fast)
      return laneAddress(W, I, S, VaddrOp, L);
    return Base + (WithSaddr ? u64(Vaddr.at32(L)) : Vaddr.at64(L));
  }

private:
  const Wave &W;
  const Inst &I;
  Space S;
  unsigned VaddrOp;
  bool WithSaddr = false, Fast = false;
  u64 Base = 0;
  LaneOperand Vaddr;
};

// Loads of Bytes (1, 2, 4, 8, 12, 16); sub-dword loads extend to 32 bits.
template <Space S, unsigned Bytes, bool SignExtend> Step load(Wave &W, const Inst &I) {
  unsigned Expected = S == Space::Global ? 3 : 2;
  if (I.NumOps != Expected)
    return W.fault(FaultKind::UnsupportedInstruction, "unexpected operand count");
  if (!holds(I.Ops[0], Bytes))
    return widthFault(W);
  Step Failure = Step::Next;
  unsigned Dst = W.vgprIndex(I.Ops[0]);
  LaneAddresses Addr(W, I, S, 1);
  for (u64 M = W.exec(); M; M &= M - 1) {
    unsigned L = unsigned(std::countr_zero(M));
    u64 Address = Addr(L);
    uint8_t *P = resolve(W, S, Address, Bytes, false, L, Failure);
    if (!P)
      return Failure;
    loadLane<Bytes, SignExtend>(W, Dst, L, P);
  }
  return Step::Next;
}

template <Space S, unsigned Bytes, bool SignExtend, bool Hi> Step loadD16(Wave &W, const Inst &I) {
  unsigned Expected = S == Space::Global ? 3 : 2;
  if (I.NumOps != Expected)
    return W.fault(FaultKind::UnsupportedInstruction, "unexpected operand count");
  Step Failure = Step::Next;
  unsigned Dst = W.vgprIndex(I.Ops[0]);
  LaneAddresses Addr(W, I, S, 1);
  for (u64 M = W.exec(); M; M &= M - 1) {
    unsigned L = unsigned(std::countr_zero(M));
    uint8_t *P = resolve(W, S, Addr(L), Bytes, false, L, Failure);
    if (!P)
      return Failure;
    u32 V = 0;
    std::memcpy(&V, P, Bytes);
    W.vcol(Dst)[L] = d16Merge<SignExtend>(W.vcol(Dst)[L], V, Bytes, Hi);
  }
  return Step::Next;
}

// Hi: the *_d16_hi stores, which write the upper half of the data VGPR.
template <Space S, unsigned Bytes, bool Hi = false> Step store(Wave &W, const Inst &I) {
  unsigned Expected = S == Space::Global ? 3 : 2;
  if (I.NumOps != Expected)
    return W.fault(FaultKind::UnsupportedInstruction, "unexpected operand count");
  if (!holds(I.Ops[1], Bytes))
    return widthFault(W);
  Step Failure = Step::Next;
  unsigned Data = W.vgprIndex(I.Ops[1]);
  LaneAddresses Addr(W, I, S, 0);
  for (u64 M = W.exec(); M; M &= M - 1) {
    unsigned L = unsigned(std::countr_zero(M));
    u64 Address = Addr(L);
    uint8_t *P = resolve(W, S, Address, Bytes, true, L, Failure);
    if (!P)
      return Failure;
    storeLane<Bytes, Hi>(W, Data, L, P);
  }
  return Step::Next;
}

// Read-modify-write operations; lanes execute in lane order, which is one of the orders the
// hardware may choose.
enum class Rmw {
  Add,
  Sub,
  SMin,
  UMin,
  SMax,
  UMax,
  And,
  Or,
  Xor,
  Inc,
  Dec,
  Swap,
  AddF64,
  CmpSwap,
  AddF32,
  PkAddF16,
  PkAddBF16
};

// Packed 16-bit float adds of the *_pk_add_f16/bf16 atomics, per half rounded to nearest even
// (through float: its 24 bits make the double rounding exact for sums of f16 or bf16 values).
u32 pkAddF16(u32 A, u32 B) {
  u32 R = 0;
  for (unsigned H = 0; H < 32; H += 16) {
    float X = float(std::bit_cast<_Float16>(uint16_t(A >> H))) +
              float(std::bit_cast<_Float16>(uint16_t(B >> H)));
    R |= u32(std::bit_cast<uint16_t>(_Float16(X))) << H;
  }
  return R;
}
u32 pkAddBF16(u32 A, u32 B) {
  u32 R = 0;
  for (unsigned H = 0; H < 32; H += 16) {
    float X = std::bit_cast<float>((A >> H) << 16) + std::bit_cast<float>((B >> H) << 16);
    u32 U = std::bit_cast<u32>(X);
    u32 Bf = X != X ? (U >> 16) | 0x40 : (U + 0x7fff + ((U >> 16) & 1)) >> 16;
    R |= (Bf & 0xffff) << H;
  }
  return R;
}

template <typename T, Rmw Op> T rmw(T Old, T Data, T Compare) {
  using S = std::make_signed_t<T>;
  switch (Op) {
  case Rmw::Add:
    return Old + Data;
  case Rmw::Sub:
    return Old - Data;
  case Rmw::SMin:
    return T(std::min(S(Old), S(Data)));
  case Rmw::UMin:
    return std::min(Old, Data);
  case Rmw::SMax:
    return T(std::max(S(Old), S(Data)));
  case Rmw::UMax:
    return std::max(Old, Data);
  case Rmw::And:
    return Old & Data;
  case Rmw::Or:
    return Old | Data;
  case Rmw::Xor:
    return Old ^ Data;
  case Rmw::Inc:
    return Old >= Data ? 0 : Old + 1;
  case Rmw::Dec:
    return (Old == 0 || Old > Data) ? Data : Old - 1;
  case Rmw::Swap:
    return Data;
  case Rmw::CmpSwap:
    return Old == Compare ? Data : Old;
  case Rmw::AddF32:
    if constexpr (sizeof(T) == 4)
      return std::bit_cast<T>(std::bit_cast<float>(Old) + std::bit_cast<float>(Data));
    return Old;
  case Rmw::AddF64:
    if constexpr (sizeof(T) == 8)
      return std::bit_cast<T>(std::bit_cast<double>(Old) + std::bit_cast<double>(Data));
    return Old;
  case Rmw::PkAddF16:
    if constexpr (sizeof(T) == 4)
      return pkAddF16(Old, Data);
    return Old;
  case Rmw::PkAddBF16:
    if constexpr (sizeof(T) == 4)
      return pkAddBF16(Old, Data);
    return Old;
  }
  return Old;
}

// Atomic on global/flat memory. Operands: [vdst,] vaddr, vdata[, saddr|off]; the returning form
// has the extra vdst. cmpswap data is {new value, compare value}.
template <Space S, typename T, Rmw Op> Step atomic(Wave &W, const Inst &I) {
  unsigned Base = S == Space::Global ? 3 : 2;
  bool Returns = I.NumOps == Base + 1;
  if (I.NumOps != Base && !Returns)
    return W.fault(FaultKind::UnsupportedInstruction, "unexpected operand count");
  unsigned First = Returns ? 1 : 0;
  constexpr unsigned Dwords = sizeof(T) / 4;
  if (!holds(I.Ops[First + 1], (Op == Rmw::CmpSwap ? 2 : 1) * sizeof(T)) ||
      (Returns && !holds(I.Ops[0], sizeof(T))))
    return widthFault(W);
  unsigned Data = W.vgprIndex(I.Ops[First + 1]);
  Step Failure = Step::Next;
  LaneAddresses Addr(W, I, S, First);
  for (u64 M = W.exec(); M; M &= M - 1) {
    unsigned L = unsigned(std::countr_zero(M));
    u64 Address = Addr(L);
    uint8_t *P = resolve(W, S, Address, sizeof(T), true, L, Failure);
    if (!P)
      return Failure;
    auto Get = [&](unsigned Reg) {
      T V = 0;
      for (unsigned D = 0; D < Dwords; ++D)
        V |= T(W.vcol(Reg + D)[L]) << (32 * D);
      return V;
    };
    T Old, New = Get(Data), Compare = Op == Rmw::CmpSwap ? Get(Data + Dwords) : T(0);
    std::memcpy(&Old, P, sizeof(T));
    T Result = rmw<T, Op>(Old, New, Compare);
    std::memcpy(P, &Result, sizeof(T));
    if (Returns)
      W.writeLane(I.Ops[0], L, u64(Old), sizeof(T) * 8);
  }
  return Step::Next;
}

// ---- LDS

// The LDS address is the 32-bit sum of the address VGPR and the instruction offset (it wraps:
// the compiler folds constant offsets into the instruction even when the VGPR alone would be
// "negative").
u64 ldsAddress(const Wave &W, const Inst &I, unsigned Op, unsigned L, i64 Extra) {
  return u64(u32(u32(W.lane(I.Ops[Op], L, 32)) + u32(Extra)));
}

// ldsAddress with the address operand prepared once per instruction (LaneOperand.h).
class LdsAddresses {
public:
  LdsAddresses(const Wave &W, const Inst &I, unsigned Op) : W(W), I(I), Op(Op) {
    Fast = Addr.prepare(W, I.Ops[Op], 32, NumKind::Unsigned);
  }
  [[gnu::always_inline]] u64 operator()(unsigned L, i64 Extra) const {
    if (!Fast)
      return ldsAddress(W, I, Op, L, Extra);
    return u64(u32(Addr.at32(L) + u32(Extra)));
  }

private:
  const Wave &W;
  const Inst &I;
  unsigned Op;
  bool Fast = false;
  LaneOperand Addr;
};

template <unsigned Bytes, bool SignExtend> Step dsRead(Wave &W, const Inst &I) {
  if (!holds(I.Ops[0], Bytes))
    return widthFault(W);
  unsigned Dst = W.vgprIndex(I.Ops[0]);
  LdsAddresses LdsAddr(W, I, 1);
  for (u64 M = W.exec(); M; M &= M - 1) {
    unsigned L = unsigned(std::countr_zero(M));
    u64 A = LdsAddr(L, u32(I.Offset));
    uint8_t *P = ldsPtr(W, A, Bytes);
    if (!P)
      return ldsFault(W, A, Bytes, false, L);
    loadLane<Bytes, SignExtend>(W, Dst, L, P);
  }
  return Step::Next;
}

template <unsigned Bytes, bool SignExtend, bool Hi> Step dsReadD16(Wave &W, const Inst &I) {
  unsigned Dst = W.vgprIndex(I.Ops[0]);
  LdsAddresses LdsAddr(W, I, 1);
  for (u64 M = W.exec(); M; M &= M - 1) {
    unsigned L = unsigned(std::countr_zero(M));
    u64 A = LdsAddr(L, u32(I.Offset));
    uint8_t *P = ldsPtr(W, A, Bytes);
    if (!P)
      return ldsFault(W, A, Bytes, false, L);
    u32 V = 0;
    std::memcpy(&V, P, Bytes);
    W.vcol(Dst)[L] = d16Merge<SignExtend>(W.vcol(Dst)[L], V, Bytes, Hi);
  }
  return Step::Next;
}

// ds_write_*; HighHalf: the *_d16_hi forms store from bits 16-31 of the data VGPR.
template <unsigned Bytes, bool HighHalf = false> Step dsWrite(Wave &W, const Inst &I) {
  if (!holds(I.Ops[1], Bytes))
    return widthFault(W);
  unsigned Data = W.vgprIndex(I.Ops[1]);
  LdsAddresses LdsAddr(W, I, 0);
  for (u64 M = W.exec(); M; M &= M - 1) {
    unsigned L = unsigned(std::countr_zero(M));
    u64 A = LdsAddr(L, u32(I.Offset));
    uint8_t *P = ldsPtr(W, A, Bytes);
    if (!P)
      return ldsFault(W, A, Bytes, true, L);
    storeLane<Bytes, HighHalf>(W, Data, L, P);
  }
  return Step::Next;
}

// ds_read2/ds_write2: two elements at offset0 and offset1 elements (times 64 for *st64).
template <unsigned ElemBytes, unsigned Stride> Step dsRead2(Wave &W, const Inst &I) {
  if (!holds(I.Ops[0], 2 * ElemBytes))
    return widthFault(W);
  unsigned Dst = W.vgprIndex(I.Ops[0]);
  LdsAddresses LdsAddr(W, I, 1);
  const i64 Off[2] = {i64(u32(I.Offset) & 0xff) * ElemBytes * Stride,
                      i64(u32(I.Offset1) & 0xff) * ElemBytes * Stride};
  constexpr unsigned Dwords = ElemBytes / 4;
  uint32_t *Cols[2 * Dwords];
  for (unsigned C = 0; C < 2 * Dwords; ++C)
    Cols[C] = W.vcol(Dst + C);
  for (u64 M = W.exec(); M; M &= M - 1) {
    unsigned L = unsigned(std::countr_zero(M));
    // Both addresses first: the destination may overlap the address VGPR.
    uint8_t *P[2];
    for (unsigned E = 0; E < 2; ++E) {
      u64 A = LdsAddr(L, Off[E]);
      P[E] = ldsPtr(W, A, ElemBytes);
      if (!P[E])
        return ldsFault(W, A, ElemBytes, false, L);
    }
    for (unsigned E = 0; E < 2; ++E)
      for (unsigned D = 0; D < Dwords; ++D)
        std::memcpy(&Cols[E * Dwords + D][L], P[E] + 4 * D, 4);
  }
  return Step::Next;
}

template <unsigned ElemBytes, unsigned Stride> Step dsWrite2(Wave &W, const Inst &I) {
  if (!holds(I.Ops[1], ElemBytes) || !holds(I.Ops[2], ElemBytes))
    return widthFault(W);
  unsigned Data[2] = {W.vgprIndex(I.Ops[1]), W.vgprIndex(I.Ops[2])};
  LdsAddresses LdsAddr(W, I, 0);
  for (u64 M = W.exec(); M; M &= M - 1) {
    unsigned L = unsigned(std::countr_zero(M));
    for (unsigned E = 0; E < 2; ++E) {
      i64 Off = i64(u32(E ? I.Offset1 : I.Offset) & 0xff) * ElemBytes * Stride;
      u64 A = LdsAddr(L, Off);
      uint8_t *P = ldsPtr(W, A, ElemBytes);
      if (!P)
        return ldsFault(W, A, ElemBytes, true, L);
      for (unsigned D = 0; D < ElemBytes / 4; ++D)
        std::memcpy(P + 4 * D, &W.vcol(Data[E] + D)[L], 4);
    }
  }
  return Step::Next;
}

// ds_bpermute_b32: each active lane reads vdata of lane (vaddr + offset) / 4 modulo the wave
// size; reading an inactive lane gives 0.
Step dsBpermute(Wave &W, const Inst &I) {
  u64 E = W.exec();
  unsigned Src = W.vgprIndex(I.Ops[2]);
  W.forEachActive([&](unsigned L) {
    unsigned From = ((u32(W.lane(I.Ops[1], L, 32)) + u32(I.Offset)) >> 2) & (W.Size - 1);
    W.Out[L] = ((E >> From) & 1) ? W.vcol(Src)[From] : 0;
  });
  W.commit(I.Ops[0], W.Out, 32);
  return Step::Next;
}

// ds_permute_b32: each active lane writes its vdata to lane (vaddr + offset) / 4; the highest
// writing lane wins and lanes nobody writes read 0.
Step dsPermute(Wave &W, const Inst &I) {
  uint64_t Tmp[64] = {};
  unsigned Src = W.vgprIndex(I.Ops[2]);
  W.forEachActive([&](unsigned L) {
    unsigned To = ((u32(W.lane(I.Ops[1], L, 32)) + u32(I.Offset)) >> 2) & (W.Size - 1);
    Tmp[To] = W.vcol(Src)[L];
  });
  W.commit(I.Ops[0], Tmp, 32);
  return Step::Next;
}

// LDS read-modify-write: [vdst,] vaddr, vdata.
template <typename T, Rmw Op> Step dsAtomic(Wave &W, const Inst &I) {
  bool Returns = I.NumOps == 3;
  if (I.NumOps != 2 && !Returns)
    return W.fault(FaultKind::UnsupportedInstruction, "unexpected operand count");
  unsigned First = Returns ? 1 : 0;
  if (!holds(I.Ops[First + 1], sizeof(T)) || (Returns && !holds(I.Ops[0], sizeof(T))))
    return widthFault(W);
  unsigned Data = W.vgprIndex(I.Ops[First + 1]);
  LdsAddresses LdsAddr(W, I, First);
  for (u64 M = W.exec(); M; M &= M - 1) {
    unsigned L = unsigned(std::countr_zero(M));
    u64 A = LdsAddr(L, u32(I.Offset));
    uint8_t *P = ldsPtr(W, A, sizeof(T));
    if (!P)
      return ldsFault(W, A, sizeof(T), true, L);
    T Old, New = T(W.vcol(Data)[L]);
    if constexpr (sizeof(T) == 8)
      New |= T(W.vcol(Data + 1)[L]) << 32;
    std::memcpy(&Old, P, sizeof(T));
    T Result = rmw<T, Op>(Old, New, T(0));
    std::memcpy(P, &Result, sizeof(T));
    if (Returns)
      W.writeLane(I.Ops[0], L, u64(Old), sizeof(T) * 8);
  }
  return Step::Next;
}

// DS compare-and-store: [vdst,] addr, data0, data1 (AMD GFX9 ISA "DS_CMPST_B32": data0 is the
// compare value, data1 the new one; RDNA3 "DS_CMPSTORE_B32": the other way round).
template <typename T, bool NewFirst> Step dsCmpSwap(Wave &W, const Inst &I) {
  bool Returns = I.NumOps == 4;
  if (I.NumOps != 3 && !Returns)
    return W.fault(FaultKind::UnsupportedInstruction, "unexpected operand count");
  unsigned First = Returns ? 1 : 0;
  if (!holds(I.Ops[First + 1], sizeof(T)) || !holds(I.Ops[First + 2], sizeof(T)) ||
      (Returns && !holds(I.Ops[0], sizeof(T))))
    return widthFault(W);
  unsigned D0 = W.vgprIndex(I.Ops[First + 1]), D1 = W.vgprIndex(I.Ops[First + 2]);
  auto Value = [&](unsigned R, unsigned L) {
    T V = T(W.vcol(R)[L]);
    if constexpr (sizeof(T) == 8)
      V |= T(W.vcol(R + 1)[L]) << 32;
    return V;
  };
  LdsAddresses LdsAddr(W, I, First);
  for (u64 M = W.exec(); M; M &= M - 1) {
    unsigned L = unsigned(std::countr_zero(M));
    u64 A = LdsAddr(L, u32(I.Offset));
    uint8_t *P = ldsPtr(W, A, sizeof(T));
    if (!P)
      return ldsFault(W, A, sizeof(T), true, L);
    T Old, New = Value(NewFirst ? D0 : D1, L), Cmp = Value(NewFirst ? D1 : D0, L);
    std::memcpy(&Old, P, sizeof(T));
    if (Old == Cmp)
      std::memcpy(P, &New, sizeof(T));
    if (Returns)
      W.writeLane(I.Ops[0], L, u64(Old), sizeof(T) * 8);
  }
  return Step::Next;
}

// ---- SMEM: [sdst, sbase, offset]; offset is an immediate, an SGPR or null, plus "offset:".
Step smemLoad(Wave &W, const Inst &I) {
  u64 Base = W.scalar(I.Ops[1], 64);
  const Operand &O = I.Ops[2];
  u64 Offset =
      O.Kind == OperandKind::Sgpr ? u64(u32(W.scalar(O, 32))) + u64(i64(I.Offset)) : u64(O.Value);
  // The address is dword-aligned: the low two bits are ignored.
  u64 Address = (Base + Offset) & ~u64(3);
  unsigned Bytes = I.Ops[0].Dwords * 4u;
  const uint8_t *P = W.Ctx->Mem->translate(Address, Bytes, false);
  if (!P)
    return globalFault(W, Address, Bytes, false, std::nullopt);
  for (unsigned D = 0; D < I.Ops[0].Dwords; ++D) {
    unsigned R = I.Ops[0].Reg + D;
    if (R < sreg::FileSize && R != sreg::Null)
      std::memcpy(&W.S[R], P + 4 * D, 4);
  }
  return Step::Next;
}

// GFX12's sub-dword scalar loads (s_load_u8/i8/u16/i16): one byte or short at the byte address
// (a short's low address bit ignored), zero- or sign-extended into one SGPR.
template <unsigned Bytes, bool SignExtend> Step smemLoadSub(Wave &W, const Inst &I) {
  u64 Base = W.scalar(I.Ops[1], 64);
  const Operand &O = I.Ops[2];
  u64 Offset =
      O.Kind == OperandKind::Sgpr ? u64(u32(W.scalar(O, 32))) + u64(i64(I.Offset)) : u64(O.Value);
  u64 Address = (Base + Offset) & ~u64(Bytes - 1);
  const uint8_t *P = W.Ctx->Mem->translate(Address, Bytes, false);
  if (!P)
    return globalFault(W, Address, Bytes, false, std::nullopt);
  u32 V = 0;
  std::memcpy(&V, P, Bytes);
  if (SignExtend)
    V = Bytes == 1 ? u32(i32(int8_t(V))) : u32(i32(int16_t(V)));
  W.writeScalar(I.Ops[0], V);
  return Step::Next;
}

Step memtime(Wave &W, const Inst &I) {
  // A monotonic counter: the wave's instruction count stands in for clock cycles.
  W.writeScalar(I.Ops[0], W.Executed);
  return Step::Next;
}

template <Space S> void addFlatFamily(TableBuilder &T, llvm::StringRef Prefix) {
  auto Name = [&](llvm::StringRef Suffix) { return T.intern((Prefix + Suffix).str()); };
  // GFX9 spellings; GFX10+ spellings are registered as aliases below.
  T.add(custom(Name("load_ubyte"), &load<S, 1, false>));
  T.add(custom(Name("load_sbyte"), &load<S, 1, true>));
  T.add(custom(Name("load_ushort"), &load<S, 2, false>));
  T.add(custom(Name("load_sshort"), &load<S, 2, true>));
  T.add(custom(Name("load_dword"), &load<S, 4, false>));
  T.add(custom(Name("load_dwordx2"), &load<S, 8, false>));
  T.add(custom(Name("load_dwordx3"), &load<S, 12, false>));
  T.add(custom(Name("load_dwordx4"), &load<S, 16, false>));
  T.add(custom(Name("store_byte"), &store<S, 1>));
  T.add(custom(Name("store_short"), &store<S, 2>));
  T.add(custom(Name("store_dword"), &store<S, 4>));
  T.add(custom(Name("store_dwordx2"), &store<S, 8>));
  T.add(custom(Name("store_dwordx3"), &store<S, 12>));
  T.add(custom(Name("store_dwordx4"), &store<S, 16>));
  static const struct {
    const char *Gfx9, *Gfx11;
  } Renames[] = {{"load_ubyte", "load_u8"},      {"load_sbyte", "load_i8"},
                 {"load_ushort", "load_u16"},    {"load_sshort", "load_i16"},
                 {"load_dword", "load_b32"},     {"load_dwordx2", "load_b64"},
                 {"load_dwordx3", "load_b96"},   {"load_dwordx4", "load_b128"},
                 {"store_byte", "store_b8"},     {"store_short", "store_b16"},
                 {"store_dword", "store_b32"},   {"store_dwordx2", "store_b64"},
                 {"store_dwordx3", "store_b96"}, {"store_dwordx4", "store_b128"}};
  for (const auto &R : Renames)
    T.alias(Name(R.Gfx11), Name(R.Gfx9));
  T.add(custom(Name("store_byte_d16_hi"), &store<S, 1, true>));
  T.add(custom(Name("store_short_d16_hi"), &store<S, 2, true>));
  T.alias(Name("store_d16_hi_b8"), Name("store_byte_d16_hi"));
  T.alias(Name("store_d16_hi_b16"), Name("store_short_d16_hi"));
  static const struct {
    const char *Gfx9, *Gfx11;
    Handler H;
  } D16[] = {{"load_ubyte_d16", "load_d16_u8", &loadD16<S, 1, false, false>},
             {"load_ubyte_d16_hi", "load_d16_hi_u8", &loadD16<S, 1, false, true>},
             {"load_sbyte_d16", "load_d16_i8", &loadD16<S, 1, true, false>},
             {"load_sbyte_d16_hi", "load_d16_hi_i8", &loadD16<S, 1, true, true>},
             {"load_short_d16", "load_d16_b16", &loadD16<S, 2, false, false>},
             {"load_short_d16_hi", "load_d16_hi_b16", &loadD16<S, 2, false, true>}};
  for (const auto &R : D16) {
    T.add(custom(Name(R.Gfx9), R.H));
    T.alias(Name(R.Gfx11), Name(R.Gfx9));
  }

  auto Atomic = [&](llvm::StringRef Gfx9, llvm::StringRef Gfx11, Handler H) {
    T.add(custom(Name(Gfx9), H));
    if (!Gfx11.empty())
      T.alias(Name(Gfx11), Name(Gfx9));
  };
  Atomic("atomic_add", "atomic_add_u32", &atomic<S, u32, Rmw::Add>);
  Atomic("atomic_sub", "atomic_sub_u32", &atomic<S, u32, Rmw::Sub>);
  Atomic("atomic_smin", "atomic_min_i32", &atomic<S, u32, Rmw::SMin>);
  Atomic("atomic_umin", "atomic_min_u32", &atomic<S, u32, Rmw::UMin>);
  Atomic("atomic_smax", "atomic_max_i32", &atomic<S, u32, Rmw::SMax>);
  Atomic("atomic_umax", "atomic_max_u32", &atomic<S, u32, Rmw::UMax>);
  Atomic("atomic_and", "atomic_and_b32", &atomic<S, u32, Rmw::And>);
  Atomic("atomic_or", "atomic_or_b32", &atomic<S, u32, Rmw::Or>);
  Atomic("atomic_xor", "atomic_xor_b32", &atomic<S, u32, Rmw::Xor>);
  Atomic("atomic_inc", "atomic_inc_u32", &atomic<S, u32, Rmw::Inc>);
  Atomic("atomic_dec", "atomic_dec_u32", &atomic<S, u32, Rmw::Dec>);
  Atomic("atomic_swap", "atomic_swap_b32", &atomic<S, u32, Rmw::Swap>);
  Atomic("atomic_cmpswap", "atomic_cmpswap_b32", &atomic<S, u32, Rmw::CmpSwap>);
  Atomic("atomic_add_f32", "", &atomic<S, u32, Rmw::AddF32>);
  Atomic("atomic_pk_add_f16", "", &atomic<S, u32, Rmw::PkAddF16>);
  Atomic("atomic_pk_add_bf16", "", &atomic<S, u32, Rmw::PkAddBF16>);
  Atomic("atomic_add_x2", "atomic_add_u64", &atomic<S, u64, Rmw::Add>);
  Atomic("atomic_swap_x2", "atomic_swap_b64", &atomic<S, u64, Rmw::Swap>);
  Atomic("atomic_cmpswap_x2", "atomic_cmpswap_b64", &atomic<S, u64, Rmw::CmpSwap>);
  Atomic("atomic_smin_x2", "atomic_min_i64", &atomic<S, u64, Rmw::SMin>);
  Atomic("atomic_umin_x2", "atomic_min_u64", &atomic<S, u64, Rmw::UMin>);
  Atomic("atomic_smax_x2", "atomic_max_i64", &atomic<S, u64, Rmw::SMax>);
  Atomic("atomic_umax_x2", "atomic_max_u64", &atomic<S, u64, Rmw::UMax>);
  Atomic("atomic_and_x2", "atomic_and_b64", &atomic<S, u64, Rmw::And>);
  Atomic("atomic_or_x2", "atomic_or_b64", &atomic<S, u64, Rmw::Or>);
  Atomic("atomic_xor_x2", "atomic_xor_b64", &atomic<S, u64, Rmw::Xor>);
  Atomic("atomic_add_f64", "", &atomic<S, u64, Rmw::AddF64>);
}

} // namespace

void addMemoryOps(TableBuilder &T) {
  // ---- SMEM
  for (llvm::StringRef Name :
       {"s_load_dword", "s_load_dwordx2", "s_load_dwordx4", "s_load_dwordx8", "s_load_dwordx16",
        "s_load_b32", "s_load_b64", "s_load_b96", "s_load_b128", "s_load_b256", "s_load_b512"})
    T.add(custom(Name, &smemLoad, 3));
  T.add(custom("s_load_u8", &smemLoadSub<1, false>, 3));
  T.add(custom("s_load_i8", &smemLoadSub<1, true>, 3));
  T.add(custom("s_load_u16", &smemLoadSub<2, false>, 3));
  T.add(custom("s_load_i16", &smemLoadSub<2, true>, 3));
  T.add(custom("s_memtime", &memtime, 1));
  T.add(custom("s_memrealtime", &memtime, 1));

  // ---- FLAT / GLOBAL
  addFlatFamily<Space::Global>(T, "global_");
  addFlatFamily<Space::Flat>(T, "flat_");

  // ---- DS (GFX9 names; GFX11 names as aliases)
  T.add(custom("ds_read_u8", &dsRead<1, false>, 2));
  T.add(custom("ds_read_i8", &dsRead<1, true>, 2));
  T.add(custom("ds_read_u16", &dsRead<2, false>, 2));
  T.add(custom("ds_read_i16", &dsRead<2, true>, 2));
  T.add(custom("ds_read_b32", &dsRead<4, false>, 2));
  T.add(custom("ds_read_b64", &dsRead<8, false>, 2));
  T.add(custom("ds_read_b96", &dsRead<12, false>, 2));
  T.add(custom("ds_read_b128", &dsRead<16, false>, 2));
  T.add(custom("ds_read_u8_d16", &dsReadD16<1, false, false>, 2));
  T.add(custom("ds_read_u8_d16_hi", &dsReadD16<1, false, true>, 2));
  T.add(custom("ds_read_i8_d16", &dsReadD16<1, true, false>, 2));
  T.add(custom("ds_read_i8_d16_hi", &dsReadD16<1, true, true>, 2));
  T.add(custom("ds_read_u16_d16", &dsReadD16<2, false, false>, 2));
  T.add(custom("ds_read_u16_d16_hi", &dsReadD16<2, false, true>, 2));
  T.add(custom("ds_write_b8", &dsWrite<1>, 2));
  T.add(custom("ds_write_b16", &dsWrite<2>, 2));
  T.add(custom("ds_write_b8_d16_hi", &dsWrite<1, true>, 2));
  T.add(custom("ds_write_b16_d16_hi", &dsWrite<2, true>, 2));
  T.alias("ds_store_b8_d16_hi", "ds_write_b8_d16_hi");
  T.alias("ds_store_b16_d16_hi", "ds_write_b16_d16_hi");
  T.add(custom("ds_write_b32", &dsWrite<4>, 2));
  T.add(custom("ds_write_b64", &dsWrite<8>, 2));
  T.add(custom("ds_write_b96", &dsWrite<12>, 2));
  T.add(custom("ds_write_b128", &dsWrite<16>, 2));
  T.add(custom("ds_read2_b32", &dsRead2<4, 1>, 2));
  T.add(custom("ds_read2_b64", &dsRead2<8, 1>, 2));
  T.add(custom("ds_read2st64_b32", &dsRead2<4, 64>, 2));
  T.add(custom("ds_read2st64_b64", &dsRead2<8, 64>, 2));
  T.add(custom("ds_write2_b32", &dsWrite2<4, 1>, 3));
  T.add(custom("ds_write2_b64", &dsWrite2<8, 1>, 3));
  T.add(custom("ds_write2st64_b32", &dsWrite2<4, 64>, 3));
  T.add(custom("ds_write2st64_b64", &dsWrite2<8, 64>, 3));
  T.add(custom("ds_bpermute_b32", &dsBpermute, 3));
  T.add(custom("ds_permute_b32", &dsPermute, 3));
  struct DsAtomic {
    const char *Gfx9, *Gfx9Rtn, *Gfx11, *Gfx11Rtn;
    Handler H;
  };
  const DsAtomic Atomics[] = {
      {"ds_add_u32", "ds_add_rtn_u32", nullptr, nullptr, &dsAtomic<u32, Rmw::Add>},
      {"ds_sub_u32", "ds_sub_rtn_u32", nullptr, nullptr, &dsAtomic<u32, Rmw::Sub>},
      {"ds_min_i32", "ds_min_rtn_i32", nullptr, nullptr, &dsAtomic<u32, Rmw::SMin>},
      {"ds_max_i32", "ds_max_rtn_i32", nullptr, nullptr, &dsAtomic<u32, Rmw::SMax>},
      {"ds_min_u32", "ds_min_rtn_u32", nullptr, nullptr, &dsAtomic<u32, Rmw::UMin>},
      {"ds_max_u32", "ds_max_rtn_u32", nullptr, nullptr, &dsAtomic<u32, Rmw::UMax>},
      {"ds_and_b32", "ds_and_rtn_b32", nullptr, nullptr, &dsAtomic<u32, Rmw::And>},
      {"ds_or_b32", "ds_or_rtn_b32", nullptr, nullptr, &dsAtomic<u32, Rmw::Or>},
      {"ds_xor_b32", "ds_xor_rtn_b32", nullptr, nullptr, &dsAtomic<u32, Rmw::Xor>},
      {"ds_inc_u32", "ds_inc_rtn_u32", nullptr, nullptr, &dsAtomic<u32, Rmw::Inc>},
      {"ds_dec_u32", "ds_dec_rtn_u32", nullptr, nullptr, &dsAtomic<u32, Rmw::Dec>},
      {"ds_add_f32", "ds_add_rtn_f32", nullptr, nullptr, &dsAtomic<u32, Rmw::AddF32>},
      {"ds_add_u64", "ds_add_rtn_u64", nullptr, nullptr, &dsAtomic<u64, Rmw::Add>},
      {"ds_min_i64", "ds_min_rtn_i64", nullptr, nullptr, &dsAtomic<u64, Rmw::SMin>},
      {"ds_max_i64", "ds_max_rtn_i64", nullptr, nullptr, &dsAtomic<u64, Rmw::SMax>},
      {"ds_min_u64", "ds_min_rtn_u64", nullptr, nullptr, &dsAtomic<u64, Rmw::UMin>},
      {"ds_max_u64", "ds_max_rtn_u64", nullptr, nullptr, &dsAtomic<u64, Rmw::UMax>},
      {"ds_and_b64", "ds_and_rtn_b64", nullptr, nullptr, &dsAtomic<u64, Rmw::And>},
      {"ds_or_b64", "ds_or_rtn_b64", nullptr, nullptr, &dsAtomic<u64, Rmw::Or>},
      {"ds_xor_b64", "ds_xor_rtn_b64", nullptr, nullptr, &dsAtomic<u64, Rmw::Xor>},
      {"ds_add_f64", "ds_add_rtn_f64", nullptr, nullptr, &dsAtomic<u64, Rmw::AddF64>},
      {"ds_pk_add_f16", "ds_pk_add_rtn_f16", nullptr, nullptr, &dsAtomic<u32, Rmw::PkAddF16>},
      {"ds_pk_add_bf16", "ds_pk_add_rtn_bf16", nullptr, nullptr, &dsAtomic<u32, Rmw::PkAddBF16>},
      {nullptr, "ds_wrxchg_rtn_b32", nullptr, "ds_storexchg_rtn_b32", &dsAtomic<u32, Rmw::Swap>},
      {nullptr, "ds_wrxchg_rtn_b64", nullptr, "ds_storexchg_rtn_b64", &dsAtomic<u64, Rmw::Swap>},
  };
  // Compare-and-store: GFX9 ds_cmpst takes {compare, new}, GFX11 ds_cmpstore {new, compare}.
  T.add(custom("ds_cmpst_b32", &dsCmpSwap<u32, false>));
  T.add(custom("ds_cmpst_rtn_b32", &dsCmpSwap<u32, false>));
  T.add(custom("ds_cmpst_b64", &dsCmpSwap<u64, false>));
  T.add(custom("ds_cmpst_rtn_b64", &dsCmpSwap<u64, false>));
  T.add(custom("ds_cmpstore_b32", &dsCmpSwap<u32, true>));
  T.add(custom("ds_cmpstore_rtn_b32", &dsCmpSwap<u32, true>));
  T.add(custom("ds_cmpstore_b64", &dsCmpSwap<u64, true>));
  T.add(custom("ds_cmpstore_rtn_b64", &dsCmpSwap<u64, true>));
  for (const DsAtomic &A : Atomics) {
    if (A.Gfx9)
      T.add(custom(A.Gfx9, A.H));
    if (A.Gfx9Rtn)
      T.add(custom(A.Gfx9Rtn, A.H));
    if (A.Gfx11Rtn)
      T.alias(A.Gfx11Rtn, A.Gfx9Rtn);
  }
  static const struct {
    const char *Gfx11, *Gfx9;
  } Renames[] = {{"ds_load_u8", "ds_read_u8"},
                 {"ds_load_u8_d16", "ds_read_u8_d16"},
                 {"ds_load_u8_d16_hi", "ds_read_u8_d16_hi"},
                 {"ds_load_i8_d16", "ds_read_i8_d16"},
                 {"ds_load_i8_d16_hi", "ds_read_i8_d16_hi"},
                 {"ds_load_u16_d16", "ds_read_u16_d16"},
                 {"ds_load_u16_d16_hi", "ds_read_u16_d16_hi"},
                 {"ds_load_i8", "ds_read_i8"},
                 {"ds_load_u16", "ds_read_u16"},
                 {"ds_load_i16", "ds_read_i16"},
                 {"ds_load_b32", "ds_read_b32"},
                 {"ds_load_b64", "ds_read_b64"},
                 {"ds_load_b96", "ds_read_b96"},
                 {"ds_load_b128", "ds_read_b128"},
                 {"ds_store_b8", "ds_write_b8"},
                 {"ds_store_b16", "ds_write_b16"},
                 {"ds_store_b32", "ds_write_b32"},
                 {"ds_store_b64", "ds_write_b64"},
                 {"ds_store_b96", "ds_write_b96"},
                 {"ds_store_b128", "ds_write_b128"},
                 {"ds_load_2addr_b32", "ds_read2_b32"},
                 {"ds_load_2addr_b64", "ds_read2_b64"},
                 {"ds_load_2addr_stride64_b32", "ds_read2st64_b32"},
                 {"ds_load_2addr_stride64_b64", "ds_read2st64_b64"},
                 {"ds_store_2addr_b32", "ds_write2_b32"},
                 {"ds_store_2addr_b64", "ds_write2_b64"},
                 {"ds_store_2addr_stride64_b32", "ds_write2st64_b32"},
                 {"ds_store_2addr_stride64_b64", "ds_write2st64_b64"}};
  for (const auto &R : Renames)
    T.alias(R.Gfx11, R.Gfx9);
}

} // namespace reptx::emulator::sem
