// Building blocks of the instruction semantics table: an operation is written once as a plain
// function over typed values (uint32_t, int32_t, float, uint64_t, double, uint16_t, bool for a
// lane-mask bit, ...), and these templates turn it into a handler for its instruction family
// (VOP1/2/3, VOPC, carry-out VOP, SOP1/2/K/C). Operand widths, literal extension, input modifiers
// (neg/abs), output modifiers (omod/clamp) and denormal flushing follow from the types.
#pragma once

#include "LaneOperand.h"
#include "Wave.h"

#include "llvm/ADT/StringMap.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <deque>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace reptx::emulator::sem {

// ---------------------------------------------------------------------------------------------
// Value types

template <typename T> struct ValueType;
template <> struct ValueType<uint16_t> {
  static constexpr unsigned Bits = 16;
  static constexpr NumKind Kind = NumKind::Unsigned;
};
template <> struct ValueType<int16_t> {
  static constexpr unsigned Bits = 16;
  static constexpr NumKind Kind = NumKind::Signed;
};
template <> struct ValueType<uint32_t> {
  static constexpr unsigned Bits = 32;
  static constexpr NumKind Kind = NumKind::Unsigned;
};
template <> struct ValueType<int32_t> {
  static constexpr unsigned Bits = 32;
  static constexpr NumKind Kind = NumKind::Signed;
};
template <> struct ValueType<uint64_t> {
  static constexpr unsigned Bits = 64;
  static constexpr NumKind Kind = NumKind::Unsigned;
};
template <> struct ValueType<int64_t> {
  static constexpr unsigned Bits = 64;
  static constexpr NumKind Kind = NumKind::Signed;
};
template <> struct ValueType<float> {
  static constexpr unsigned Bits = 32;
  static constexpr NumKind Kind = NumKind::Float;
};
template <> struct ValueType<double> {
  static constexpr unsigned Bits = 64;
  static constexpr NumKind Kind = NumKind::Float;
};
template <> struct ValueType<_Float16> {
  static constexpr unsigned Bits = 16;
  static constexpr NumKind Kind = NumKind::Float;
};
template <> struct ValueType<bool> { // a lane's bit of a mask operand (VCC, an SGPR pair)
  static constexpr unsigned Bits = 1;
  static constexpr NumKind Kind = NumKind::Unsigned;
};

template <typename T> T fromBits(uint64_t X) {
  if constexpr (std::is_same_v<T, float>)
    return std::bit_cast<float>(uint32_t(X));
  else if constexpr (std::is_same_v<T, double>)
    return std::bit_cast<double>(X);
  else if constexpr (std::is_same_v<T, _Float16>)
    return std::bit_cast<_Float16>(uint16_t(X));
  else if constexpr (std::is_same_v<T, bool>)
    return X & 1;
  else
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(X));
}

template <typename T> uint64_t toBits(T V) {
  if constexpr (std::is_same_v<T, float>)
    return std::bit_cast<uint32_t>(V);
  else if constexpr (std::is_same_v<T, double>)
    return std::bit_cast<uint64_t>(V);
  else if constexpr (std::is_same_v<T, _Float16>)
    return std::bit_cast<uint16_t>(V);
  else if constexpr (std::is_same_v<T, bool>)
    return V ? 1 : 0;
  else
    return static_cast<uint64_t>(static_cast<std::make_unsigned_t<T>>(V));
}

template <typename T>
constexpr bool IsFloat = std::is_floating_point_v<T> || std::is_same_v<T, _Float16>;

// Denormal flushing per FLOAT_DENORM_MODE (sign preserved).
template <typename T> T flushDenormal(T V) {
  if constexpr (std::is_same_v<T, _Float16>) {
    uint16_t B = std::bit_cast<uint16_t>(V);
    return (B & 0x7c00) == 0 ? std::bit_cast<_Float16>(uint16_t(B & 0x8000)) : V;
  } else if (std::fpclassify(V) == FP_SUBNORMAL)
    return std::signbit(V) ? T(-0.0) : T(0.0);
  return V;
}
template <typename T> T flushIn(const Wave &W, T V) {
  if constexpr (std::is_same_v<T, float>)
    return W.flushF32In() ? flushDenormal(V) : V;
  else if constexpr (std::is_same_v<T, double> || std::is_same_v<T, _Float16>)
    return W.flushF64In() ? flushDenormal(V) : V;
  else
    return V;
}

// Output modifiers of VOP3 (omod, then clamp to [0, 1]) and denormal flushing of the result.
template <typename T> T finish(const Wave &W, const Inst &I, T V) {
  if constexpr (std::is_same_v<T, _Float16>) {
    // Through float, where every f16 value and the omod products are exact.
    float F = float(V);
    if (I.Omod == 1)
      F *= 2.0f;
    else if (I.Omod == 2)
      F *= 4.0f;
    else if (I.Omod == 3)
      F *= 0.5f;
    if (I.Clamp) {
      if (std::isnan(F)) {
        if (W.dx10Clamp())
          F = 0.0f;
      } else {
        F = F < 0.0f ? 0.0f : F > 1.0f ? 1.0f : F;
      }
    }
    if (I.Omod || I.Clamp)
      V = _Float16(F);
    return W.flushF64Out() ? flushDenormal(V) : V;
  } else if constexpr (IsFloat<T>) {
    if (I.Omod == 1)
      V *= T(2);
    else if (I.Omod == 2)
      V *= T(4);
    else if (I.Omod == 3)
      V *= T(0.5);
    if (I.Clamp) {
      if (std::isnan(V)) {
        if (W.dx10Clamp()) // DX10_CLAMP: NaN clamps to 0; IEEE mode keeps the NaN
          V = T(0);
      } else {
        V = V < T(0) ? T(0) : V > T(1) ? T(1) : V;
      }
    }
    if constexpr (std::is_same_v<T, float>)
      return W.flushF32Out() ? flushDenormal(V) : V;
    else
      return W.flushF64Out() ? flushDenormal(V) : V;
  } else {
    return V;
  }
}

// MODE.FP_ROUND of a result type: f32 in bits [1:0], f64 and f16 in [3:2] (0 nearest even, 1 +inf,
// 2 -inf, 3 zero).
template <typename T> unsigned roundModeFor(const Wave &W) {
  return std::is_same_v<T, float> ? (W.Mode & 3) : ((W.Mode >> 2) & 3);
}
// Sets the host's rounding mode for a MODE.FP_ROUND value other than nearest-even and restores
// round-to-nearest afterwards (SemanticsHalf.cpp).
class HostRounding {
public:
  HostRounding(const Wave &W, unsigned Mode);
  ~HostRounding();
  HostRounding(const HostRounding &) = delete;
  HostRounding &operator=(const HostRounding &) = delete;

private:
  bool Active = false;
};

// ---------------------------------------------------------------------------------------------
// Function traits of the operation functions

template <typename F> struct FnTraits;
template <typename R, typename... A> struct FnTraits<R (*)(A...)> {
  using Ret = R;
  using Args = std::tuple<A...>;
  static constexpr size_t Arity = sizeof...(A);
};

template <typename T> T readLaneArg(const Wave &W, const Operand &O, unsigned L) {
  if constexpr (std::is_same_v<T, bool>) {
    return (W.scalar(O, W.Size) >> L) & 1;
  } else {
    T V = fromBits<T>(W.lane(O, L, ValueType<T>::Bits, ValueType<T>::Kind));
    return flushIn(W, V);
  }
}

template <typename T> T readScalarArg(const Wave &W, const Operand &O) {
  if constexpr (std::is_same_v<T, bool>) {
    return W.scalar(O, 1) & 1;
  } else {
    uint64_t X = W.scalar(O, ValueType<T>::Bits, ValueType<T>::Kind);
    return fromBits<T>(X);
  }
}

// ---------------------------------------------------------------------------------------------
// VALU: one VGPR result per lane. Sources are Ops[1..N]; with Acc the last function argument is
// the destination's old value (v_fmac_f32 and other accumulating forms).

template <auto F, bool Acc = false> constexpr unsigned sourceOperand(size_t K) {
  constexpr size_t N = FnTraits<decltype(F)>::Arity;
  if (Acc && K == N - 1)
    return 0;
  return unsigned(K + 1);
}

template <auto F, bool Acc, size_t... K>
auto callLane(const Wave &W, const Inst &I, unsigned L, std::index_sequence<K...>) {
  using Args = typename FnTraits<decltype(F)>::Args;
  return F(readLaneArg<std::tuple_element_t<K, Args>>(W, I.Ops[sourceOperand<F, Acc>(K)], L)...);
}

// Fast path of the lane loops: every source prepared once (LaneOperand.h), so that a lane reads
// its operands without deciding again what they are; the same values as readLaneArg. False when
// a source needs the general path (then nothing has been computed).
// Plain: the caller found that flushIn would change nothing (plainOperation).
template <typename T, bool Plain = false>
T readPrepared(const Wave &W, const LaneOperand &S, unsigned L) {
  if constexpr (std::is_same_v<T, bool>) {
    return S.maskBit(L);
  } else {
    T V = fromBits<T>(ValueType<T>::Bits > 32 ? S.at64(L) : S.at32(L));
    if constexpr (Plain)
      return V;
    else
      return flushIn(W, V);
  }
}
// Whether flushIn of T and finish of R are the identity in this wave and instruction, so the
// lane loop can leave them out.
template <typename T> bool flushesIn(const Wave &W) {
  if constexpr (std::is_same_v<T, float>)
    return W.flushF32In();
  else if constexpr (std::is_same_v<T, double> || std::is_same_v<T, _Float16>)
    return W.flushF64In();
  else
    return false;
}
template <auto F, size_t... K>
bool plainOperation(const Wave &W, const Inst &I, std::index_sequence<K...>) {
  using Tr = FnTraits<decltype(F)>;
  using R = typename Tr::Ret;
  if constexpr (IsFloat<R>) {
    bool FlushOut = std::is_same_v<R, float> ? W.flushF32Out() : W.flushF64Out();
    if (I.Omod || I.Clamp || FlushOut)
      return false;
  }
  return !(flushesIn<std::tuple_element_t<K, typename Tr::Args>>(W) || ...);
}
template <auto F, unsigned First, bool Acc, size_t... K>
bool prepareSources(const Wave &W, const Inst &I, LaneOperand *Src, std::index_sequence<K...>) {
  using Args = typename FnTraits<decltype(F)>::Args;
  return (Src[K].prepare(W, I.Ops[Acc && K + 1 == sizeof...(K) ? 0 : unsigned(First + K)],
                         ValueType<std::tuple_element_t<K, Args>>::Bits,
                         ValueType<std::tuple_element_t<K, Args>>::Kind) &&
          ...);
}
template <auto F, bool Plain = false, size_t... K>
auto callPrepared(const Wave &W, const LaneOperand *Src, unsigned L, std::index_sequence<K...>) {
  using Args = typename FnTraits<decltype(F)>::Args;
  return F(readPrepared<std::tuple_element_t<K, Args>, Plain>(W, Src[K], L)...);
}
template <auto F, bool Acc> bool vopComputeFast(Wave &W, const Inst &I, uint64_t *Out) {
  using Tr = FnTraits<decltype(F)>;
  LaneOperand Src[Tr::Arity ? Tr::Arity : 1];
  if (!prepareSources<F, 1, Acc>(W, I, Src, std::make_index_sequence<Tr::Arity>()))
    return false;
  if (plainOperation<F>(W, I, std::make_index_sequence<Tr::Arity>())) {
    forEachExecLane(W.exec(), W.Size, [&](unsigned L) {
      Out[L] = toBits(callPrepared<F, true>(W, Src, L, std::make_index_sequence<Tr::Arity>()));
    });
    return true;
  }
  forEachExecLane(W.exec(), W.Size, [&](unsigned L) {
    Out[L] =
        toBits(finish(W, I, callPrepared<F>(W, Src, L, std::make_index_sequence<Tr::Arity>())));
  });
  return true;
}

template <auto F, bool Acc = false> bool vopCompute(Wave &W, const Inst &I, uint64_t *Out) {
  using Tr = FnTraits<decltype(F)>;
  // MODE.FP_ROUND: float results round in the wave's mode, through the host's rounding mode
  // (every lane's operands are read and its result stored between the two mode changes).
  HostRounding Round(W, IsFloat<typename Tr::Ret> ? roundModeFor<typename Tr::Ret>(W) : 0);
  if (vopComputeFast<F, Acc>(W, I, Out))
    return true;
  W.forEachActive([&](unsigned L) {
    Out[L] = toBits(finish(W, I, callLane<F, Acc>(W, I, L, std::make_index_sequence<Tr::Arity>())));
  });
  return true;
}

template <auto F> constexpr unsigned resultBits() {
  return ValueType<typename FnTraits<decltype(F)>::Ret>::Bits;
}

// Integer clamp means saturation, which these operations do not model: refuse rather than guess.
inline Step integerClampFault(Wave &W) {
  return W.fault(FaultKind::UnsupportedInstruction,
                 "clamp (saturating) integer arithmetic is not supported");
}

template <auto F, bool Acc = false> Step vopExec(Wave &W, const Inst &I) {
  if (!IsFloat<typename FnTraits<decltype(F)>::Ret> && I.Clamp)
    return integerClampFault(W);
  vopCompute<F, Acc>(W, I, W.Out);
  W.commitVop(I, I.Ops[0], W.Out, resultBits<F>());
  return Step::Next;
}

// Integer operations whose VOP3 CLAMP bit saturates (V_ADD_U32, V_SUB_U32, V_ADD_I16,
// V_SUB_U16...): F returns the exact result as int64_t; with CLAMP it is clamped to [Lo, Hi],
// else it wraps to Bits bits.
template <auto F, int64_t Lo = 0, int64_t Hi = UINT32_MAX, unsigned Bits = 32>
bool vopSatCompute(Wave &W, const Inst &I, uint64_t *Out) {
  using Tr = FnTraits<decltype(F)>;
  LaneOperand Src[Tr::Arity];
  bool Fast = prepareSources<F, 1, false>(W, I, Src, std::make_index_sequence<Tr::Arity>());
  W.forEachActive([&](unsigned L) {
    int64_t R = Fast ? callPrepared<F>(W, Src, L, std::make_index_sequence<Tr::Arity>())
                     : callLane<F, false>(W, I, L, std::make_index_sequence<Tr::Arity>());
    if (I.Clamp)
      R = R < Lo ? Lo : R > Hi ? Hi : R;
    Out[L] = uint64_t(R) & ((uint64_t(1) << Bits) - 1);
  });
  return true;
}
template <auto F, int64_t Lo, int64_t Hi, unsigned Bits> Step vopSatExec(Wave &W, const Inst &I) {
  vopSatCompute<F, Lo, Hi, Bits>(W, I, W.Out);
  W.commitVop(I, I.Ops[0], W.Out, Bits);
  return Step::Next;
}
template <auto F, int64_t Lo = 0, int64_t Hi = UINT32_MAX, unsigned Bits = 32>
OpDef vopSat(llvm::StringRef Name) {
  OpDef D;
  D.Name = Name;
  D.Exec = &vopSatExec<F, Lo, Hi, Bits>;
  D.Compute = &vopSatCompute<F, Lo, Hi, Bits>;
  D.NumOperands = int8_t(1 + FnTraits<decltype(F)>::Arity);
  D.ResultBits = Bits;
  return D;
}

template <auto F, bool Acc = false> OpDef vop(llvm::StringRef Name) {
  OpDef D;
  D.Name = Name;
  D.Exec = &vopExec<F, Acc>;
  D.Compute = &vopCompute<F, Acc>;
  D.NumOperands = int8_t(1 + FnTraits<decltype(F)>::Arity - (Acc ? 1 : 0));
  D.ResultBits = uint8_t(resultBits<F>());
  return D;
}

// VOPC: Ops are [sdst, src0, src1], or [src0, src1] for GFX10+ v_cmpx, which writes EXEC only.
// Inactive lanes produce 0 bits; v_cmpx writes the result to EXEC as well (AMD ISA manuals,
// "VOPC").
template <auto F, bool Cmpx> Step vopcExec(Wave &W, const Inst &I) {
  using Args = typename FnTraits<decltype(F)>::Args;
  if (I.NumOps != 2 && I.NumOps != 3)
    return W.fault(FaultKind::UnsupportedInstruction, "unexpected operand count");
  unsigned First = I.NumOps == 3 ? 1 : 0;
  uint64_t M = 0;
  LaneOperand Src[2];
  if (Src[0].prepare(W, I.Ops[First], ValueType<std::tuple_element_t<0, Args>>::Bits,
                     ValueType<std::tuple_element_t<0, Args>>::Kind) &&
      Src[1].prepare(W, I.Ops[First + 1], ValueType<std::tuple_element_t<1, Args>>::Bits,
                     ValueType<std::tuple_element_t<1, Args>>::Kind)) {
    forEachExecLane(W.exec(), W.Size, [&](unsigned L) {
      M |= uint64_t(F(readPrepared<std::tuple_element_t<0, Args>>(W, Src[0], L),
                      readPrepared<std::tuple_element_t<1, Args>>(W, Src[1], L)))
           << L;
    });
  } else
    W.forEachActive([&](unsigned L) {
      if (F(readLaneArg<std::tuple_element_t<0, Args>>(W, I.Ops[First], L),
            readLaneArg<std::tuple_element_t<1, Args>>(W, I.Ops[First + 1], L)))
        M |= uint64_t(1) << L;
    });
  if (First)
    W.writeMask(I.Ops[0], M);
  if (Cmpx)
    W.setExec(M);
  return Step::Next;
}

template <auto F, bool Cmpx> OpDef vopc(llvm::StringRef Name) {
  OpDef D;
  D.Name = Name;
  D.Exec = &vopcExec<F, Cmpx>;
  return D;
}

// VALU with a carry/borrow-out lane mask: Ops are [vdst, sdst, sources...]; F returns
// Carry<T>. Sources of type bool read a carry-in mask.
template <typename T> struct Carry {
  T Value;
  bool Out;
};

template <auto F, size_t... K>
auto callCarryLane(const Wave &W, const Inst &I, unsigned L, std::index_sequence<K...>) {
  using Args = typename FnTraits<decltype(F)>::Args;
  return F(readLaneArg<std::tuple_element_t<K, Args>>(W, I.Ops[K + 2], L)...);
}

template <auto F> Step vopCarryExec(Wave &W, const Inst &I) {
  using Tr = FnTraits<decltype(F)>;
  using T = decltype(Tr::Ret::Value);
  if (I.Clamp)
    return integerClampFault(W);
  uint64_t M = 0;
  LaneOperand Src[Tr::Arity];
  bool Fast = prepareSources<F, 2, false>(W, I, Src, std::make_index_sequence<Tr::Arity>());
  W.forEachActive([&](unsigned L) {
    auto R = Fast ? callPrepared<F>(W, Src, L, std::make_index_sequence<Tr::Arity>())
                  : callCarryLane<F>(W, I, L, std::make_index_sequence<Tr::Arity>());
    W.Out[L] = toBits<T>(R.Value);
    if (R.Out)
      M |= uint64_t(1) << L;
  });
  W.commitVop(I, I.Ops[0], W.Out, ValueType<T>::Bits);
  W.writeMask(I.Ops[1], M);
  return Step::Next;
}

template <auto F> OpDef vopCarry(llvm::StringRef Name) {
  OpDef D;
  D.Name = Name;
  D.Exec = &vopCarryExec<F>;
  D.NumOperands = int8_t(2 + FnTraits<decltype(F)>::Arity);
  D.NumDsts = 2;
  return D;
}

// ---------------------------------------------------------------------------------------------
// SALU. Ops are [sdst, sources...]. F returns the result, or WithScc<T> to set SCC itself;
// with SccNonZero the result sets SCC = (result != 0).

template <typename T> struct WithScc {
  T Value;
  bool Scc;
};
template <typename T> struct IsWithScc : std::false_type {};
template <typename T> struct IsWithScc<WithScc<T>> : std::true_type {};

enum class SccMode { Keep, NonZero };

template <auto F, size_t First, size_t... K>
auto callScalar(const Wave &W, const Inst &I, std::index_sequence<K...>) {
  using Args = typename FnTraits<decltype(F)>::Args;
  return F(readScalarArg<std::tuple_element_t<K, Args>>(W, I.Ops[K + First])...);
}

template <auto F, SccMode M> Step sopExec(Wave &W, const Inst &I) {
  using Tr = FnTraits<decltype(F)>;
  auto R = callScalar<F, 1>(W, I, std::make_index_sequence<Tr::Arity>());
  if constexpr (IsWithScc<decltype(R)>::value) {
    W.writeScalar(I.Ops[0], toBits(R.Value));
    W.Scc = R.Scc;
  } else {
    W.writeScalar(I.Ops[0], toBits(R));
    if constexpr (M == SccMode::NonZero)
      W.Scc = R != 0;
  }
  return Step::Next;
}

template <auto F, SccMode M = SccMode::Keep> OpDef sop(llvm::StringRef Name) {
  OpDef D;
  D.Name = Name;
  D.Exec = &sopExec<F, M>;
  D.NumOperands = int8_t(1 + FnTraits<decltype(F)>::Arity);
  return D;
}

// SALU float instructions (GFX12: s_add_f32, s_fmac_f32, s_cvt_f32_f16, s_cmp_lt_f32...) and the
// VOP3 scalar transcendentals (v_s_exp_f32...): sources from SGPRs or constants with their
// neg/abs modifiers, flushed, and the result rounded in the MODE register's mode and flushed, as
// the VALU's are. With Acc the last argument is the destination's old value (s_fmac_f32).
template <typename T> T readSaluFloat(const Wave &W, const Operand &O) {
  uint64_t X = W.scalar(O, ValueType<T>::Bits, ValueType<T>::Kind);
  if constexpr (IsFloat<T>) {
    const uint64_t Sign = uint64_t(1) << (ValueType<T>::Bits - 1);
    if (O.Abs)
      X &= ~Sign;
    if (O.Neg)
      X ^= Sign;
    return flushIn(W, fromBits<T>(X));
  } else {
    return fromBits<T>(X);
  }
}

template <auto F, bool Acc> Step saluFloatExec(Wave &W, const Inst &I) {
  using Tr = FnTraits<decltype(F)>;
  using R = typename Tr::Ret;
  using Args = typename Tr::Args;
  constexpr size_t N = Tr::Arity - (Acc ? 1 : 0);
  HostRounding Round(W, IsFloat<R> ? roundModeFor<R>(W) : 0);
  auto Call = [&]<size_t... K>(std::index_sequence<K...>) {
    if constexpr (Acc)
      return F(readSaluFloat<std::tuple_element_t<K, Args>>(W, I.Ops[K + 1])...,
               readSaluFloat<std::tuple_element_t<N, Args>>(W, I.Ops[0]));
    else
      return F(readSaluFloat<std::tuple_element_t<K, Args>>(W, I.Ops[K + 1])...);
  };
  W.writeScalar(I.Ops[0], toBits(finish(W, I, R(Call(std::make_index_sequence<N>())))));
  return Step::Next;
}

template <auto F, bool Acc = false> OpDef saluFloat(llvm::StringRef Name) {
  OpDef D;
  D.Name = Name;
  D.Exec = &saluFloatExec<F, Acc>;
  D.NumOperands = int8_t(1 + FnTraits<decltype(F)>::Arity - (Acc ? 1 : 0));
  return D;
}

// SOPC float compares: SCC = F(S0, S1), sources as for saluFloat.
template <auto F> Step saluFloatCmpExec(Wave &W, const Inst &I) {
  using Args = typename FnTraits<decltype(F)>::Args;
  W.Scc = F(readSaluFloat<std::tuple_element_t<0, Args>>(W, I.Ops[0]),
            readSaluFloat<std::tuple_element_t<1, Args>>(W, I.Ops[1]));
  return Step::Next;
}

template <auto F> OpDef saluFloatCmp(llvm::StringRef Name) {
  OpDef D;
  D.Name = Name;
  D.Exec = &saluFloatCmpExec<F>;
  D.NumOperands = 2;
  return D;
}

// Comparisons by condition code, for VOPC (v_cmp_<cond>_<type>) and GFX12's SOPC float compares
// (s_cmp_<cond>_f32/f16). On floats, LG is ordered not-equal and the N* conditions are the
// unordered negations (true when either side is NaN); on integers LG is not-equal.
enum class CmpCond { F, LT, EQ, LE, GT, LG, GE, O, U, NGE, NLG, NGT, NLE, NEQ, NLT, TRU };
template <typename T, CmpCond C> bool compare(T AIn, T BIn) {
  // _Float16 through float (every value exact; libstdc++ has no std::isnan for it).
  using V = std::conditional_t<std::is_same_v<T, _Float16>, float, T>;
  V A = V(AIn), B = V(BIn);
  switch (C) {
  case CmpCond::F:
    return false;
  case CmpCond::LT:
    return A < B;
  case CmpCond::EQ:
    return A == B;
  case CmpCond::LE:
    return A <= B;
  case CmpCond::GT:
    return A > B;
  case CmpCond::LG:
    if constexpr (IsFloat<V>)
      return A < B || A > B;
    else
      return A != B;
  case CmpCond::GE:
    return A >= B;
  case CmpCond::O:
    if constexpr (IsFloat<V>)
      return !std::isnan(A) && !std::isnan(B);
    return true;
  case CmpCond::U:
    if constexpr (IsFloat<V>)
      return std::isnan(A) || std::isnan(B);
    return false;
  case CmpCond::NGE:
    return !(A >= B);
  case CmpCond::NLG:
    return !(A < B || A > B);
  case CmpCond::NGT:
    return !(A > B);
  case CmpCond::NLE:
    return !(A <= B);
  case CmpCond::NEQ:
    return !(A == B);
  case CmpCond::NLT:
    return !(A < B);
  case CmpCond::TRU:
    return true;
  }
  return false;
}

// Calls Add.template operator()<C>(name) for each float condition and its mnemonic spelling;
// F ("f") and TRU ("tru") only WithConstant (VOPC has them, SOPC does not).
template <typename Fn> void forEachFloatCond(Fn &&Add, bool WithConstant) {
  using enum CmpCond;
  if (WithConstant)
    Add.template operator()<F>("f");
  Add.template operator()<LT>("lt");
  Add.template operator()<EQ>("eq");
  Add.template operator()<LE>("le");
  Add.template operator()<GT>("gt");
  Add.template operator()<LG>("lg");
  Add.template operator()<GE>("ge");
  Add.template operator()<O>("o");
  Add.template operator()<U>("u");
  Add.template operator()<NGE>("nge");
  Add.template operator()<NLG>("nlg");
  Add.template operator()<NGT>("ngt");
  Add.template operator()<NLE>("nle");
  Add.template operator()<NEQ>("neq");
  Add.template operator()<NLT>("nlt");
  if (WithConstant)
    Add.template operator()<TRU>("tru");
}

// SOPK accumulating forms: D = F(D, simm16).
template <auto F> Step sopAccExec(Wave &W, const Inst &I) {
  using Args = typename FnTraits<decltype(F)>::Args;
  auto R = F(readScalarArg<std::tuple_element_t<0, Args>>(W, I.Ops[0]),
             readScalarArg<std::tuple_element_t<1, Args>>(W, I.Ops[1]));
  if constexpr (IsWithScc<decltype(R)>::value) {
    W.writeScalar(I.Ops[0], toBits(R.Value));
    W.Scc = R.Scc;
  } else {
    W.writeScalar(I.Ops[0], toBits(R));
  }
  return Step::Next;
}

template <auto F> OpDef sopAcc(llvm::StringRef Name) {
  OpDef D;
  D.Name = Name;
  D.Exec = &sopAccExec<F>;
  D.NumOperands = 2;
  return D;
}

// SOPC (and SOPK compares): SCC = F(src0, src1).
template <auto F> Step sopcExec(Wave &W, const Inst &I) {
  W.Scc = callScalar<F, 0>(W, I, std::make_index_sequence<2>());
  return Step::Next;
}

template <auto F> OpDef sopc(llvm::StringRef Name) {
  OpDef D;
  D.Name = Name;
  D.Exec = &sopcExec<F>;
  D.NumOperands = 2;
  return D;
}

inline OpDef custom(llvm::StringRef Name, Handler H, int NumOperands = -1) {
  OpDef D;
  D.Name = Name;
  D.Exec = H;
  D.NumOperands = int8_t(NumOperands);
  return D;
}

// One lane of a memory access between VGPRs and memory at P: Bytes (1, 2, 4, 8, 12, 16) from
// VGPR Reg on; sub-dword loads zero- or sign-extend to 32 bits, sub-dword stores take the low
// bits (the high half with HighHalf: the *_d16_hi stores).
template <unsigned Bytes, bool SignExtend>
void loadLane(Wave &W, unsigned Reg, unsigned L, const uint8_t *P) {
  if constexpr (Bytes < 4) {
    uint32_t V = 0;
    std::memcpy(&V, P, Bytes);
    if (SignExtend)
      V = Bytes == 1 ? uint32_t(int32_t(int8_t(V))) : uint32_t(int32_t(int16_t(V)));
    W.vcol(Reg)[L] = V;
  } else {
    for (unsigned D = 0; D < Bytes / 4; ++D)
      std::memcpy(&W.vcol(Reg + D)[L], P + 4 * D, 4);
  }
}
template <unsigned Bytes, bool HighHalf = false>
void storeLane(Wave &W, unsigned Reg, unsigned L, uint8_t *P) {
  if constexpr (Bytes < 4) {
    uint32_t V = W.vcol(Reg)[L] >> (HighHalf ? 16 : 0);
    std::memcpy(P, &V, Bytes);
  } else {
    for (unsigned D = 0; D < Bytes / 4; ++D)
      std::memcpy(P + 4 * D, &W.vcol(Reg + D)[L], 4);
  }
}

// D16 loads (GFX9 *_d16/_d16_hi, GFX11 load_d16_*): a byte or a short goes to one half of the
// destination VGPR (bytes zero- or sign-extended to 16 bits) and the other half is kept.
template <bool SignExtend> uint32_t d16Merge(uint32_t Old, uint32_t V, unsigned Bytes, bool Hi) {
  if (Bytes == 1)
    V = SignExtend ? uint32_t(uint16_t(int16_t(int8_t(V)))) : (V & 0xff);
  V &= 0xffff;
  return Hi ? (Old & 0xffffu) | (V << 16) : (Old & 0xffff0000u) | V;
}

// Each family adds its operations to the table; aliases give the GFX10+/GFX11+ spellings of the
// same operation.
class TableBuilder {
public:
  void add(OpDef D) { Defs.push_back(std::move(D)); }
  void alias(llvm::StringRef NewName, llvm::StringRef Existing) {
    Aliases.emplace_back(NewName, Existing);
  }
  // Stable storage for generated names (the table lives as long as the process).
  llvm::StringRef intern(std::string Name) { return Names.emplace_back(std::move(Name)); }
  std::vector<OpDef> Defs;
  std::deque<std::string> Names;
  std::vector<std::pair<llvm::StringRef, llvm::StringRef>> Aliases;
};

void addScalarOps(TableBuilder &T);
void addVectorOps(TableBuilder &T);
void addMemoryOps(TableBuilder &T);
void addCrossLaneOps(TableBuilder &T); // SemanticsCrossLane.cpp: DPP, swizzle, permlane
void addGfx12Ops(TableBuilder &T);     // SemanticsGfx12.cpp
// f16/packed f16 VALU, MODE register access and the float division helpers (SemanticsHalf.cpp).
void addHalfOps(TableBuilder &T);
/// SemanticsIntegerExtra.cpp: clamped integer add/sub, v_sad_u32, packed dot products.
void addIntegerExtraOps(TableBuilder &T);
/// SemanticsScratch.cpp: scratch (private) memory and the GFX11 trap messages.
void addScratchOps(TableBuilder &T);

} // namespace reptx::emulator::sem
