// f16 VALU operations (VOP1/VOP2/VOP3 with op_sel, VOPC), packed f16 (VOP3P with op_sel,
// op_sel_hi, neg_lo, neg_hi), the mixed-precision v_fma_mix*, the MODE register (s_getreg_b32,
// s_setreg_b32, s_setreg_imm32_b32 of HW_REG_MODE; s_round_mode and s_denorm_mode on GFX11+), and
// the float division helpers v_div_scale, v_div_fmas and v_div_fixup. Definitions follow the AMD
// "Vega" (GFX9), MI300 (CDNA3) and RDNA3 ISA manuals ("Vector ALU Operations", "MODE").
//
// f16 arithmetic runs on the host's _Float16 through float: sums, differences and products of
// f16 values rounded to float and then to f16 are correctly rounded (float has 2*11+2 bits), and
// fma is computed exactly (rounded to odd in double, then once to f16).
#include "Semantics.h"

#include <algorithm>
#include <bit>
#include <cfenv>
#include <cmath>
#include <limits>
#include <numbers>

namespace reptx::emulator::sem {

HostRounding::HostRounding(const Wave &, unsigned Mode) {
  if (!Mode)
    return;
  static const int Host[] = {FE_TONEAREST, FE_UPWARD, FE_DOWNWARD, FE_TOWARDZERO};
  std::fesetround(Host[Mode & 3]);
  Active = true;
}

HostRounding::~HostRounding() {
  if (Active)
    std::fesetround(FE_TONEAREST);
}

namespace {

using h16 = _Float16;
using u16 = uint16_t;
using i16 = int16_t;
using u32 = uint32_t;
using i32 = int32_t;
using u64 = uint64_t;

bool isNan(h16 X) { return std::isnan(float(X)); }
// libstdc++ has no std::numeric_limits<_Float16> (its members would return 0.0): the quiet NaN
// is spelled out, and a NaN result keeps its payload with the quiet bit set.
h16 quiet(h16 X) { return std::bit_cast<h16>(u16(std::bit_cast<u16>(X) | 0x0200)); }
constexpr u16 QuietNaN16 = 0x7e00;

// a*b + c exactly when the product is exact in double (operands of <= 26 bits), rounded to odd
// in double: the truncated sum with its last bit set when inexact. TwoSum needs round to
// nearest, so a directed host mode is suspended meanwhile.
double fmaOdd(double A, double B, double C) {
  int Saved = std::fegetround();
  if (Saved != FE_TONEAREST)
    std::fesetround(FE_TONEAREST);
  volatile double P = A * B;
  volatile double S = P + C;
  volatile double BB = S - P;
  double E = (P - (S - BB)) + (C - BB);
  double R = S;
  if (E != 0 && std::isfinite(R)) {
    u64 Bits = std::bit_cast<u64>(R);
    if (!(Bits & 1))
      Bits += (std::signbit(R) == std::signbit(E)) ? 1 : u64(-1);
    R = std::bit_cast<double>(Bits);
  }
  if (Saved != FE_TONEAREST)
    std::fesetround(Saved);
  return R;
}

h16 fmaHalf(h16 A, h16 B, h16 C) { return h16(fmaOdd(double(A), double(B), double(C))); }

// Two f32 to a pair of f16, rounded toward zero (V_CVT_PKRTZ_F16_F32, S_CVT_PK_RTZ_F16_F32).
u32 packRtz(float A, float B) {
  int Saved = std::fegetround();
  std::fesetround(FE_TOWARDZERO);
  volatile float VA = A, VB = B;
  u32 R = u32(std::bit_cast<u16>(h16(VA))) | (u32(std::bit_cast<u16>(h16(VB))) << 16);
  std::fesetround(Saved);
  return R;
}

h16 maxIeee(h16 A, h16 B) {
  if (isNan(A))
    return isNan(B) ? quiet(A) : B;
  if (isNan(B))
    return A;
  float X = float(A), Y = float(B);
  if (X == Y)
    return std::signbit(X) ? B : A;
  return X > Y ? A : B;
}
h16 minIeee(h16 A, h16 B) {
  if (isNan(A))
    return isNan(B) ? quiet(A) : B;
  if (isNan(B))
    return A;
  float X = float(A), Y = float(B);
  if (X == Y)
    return std::signbit(X) ? A : B;
  return X < Y ? A : B;
}
h16 med3(h16 A, h16 B, h16 C) { return maxIeee(minIeee(A, B), minIeee(maxIeee(A, B), C)); }

// IEEE 754-2019 minimum/maximum (GFX12's v_minimum/v_maximum/v_pk_minimum): a NaN input yields
// a quiet NaN, -0 orders below +0.
h16 minimum2019(h16 A, h16 B) {
  if (A != A || B != B)
    return h16(__builtin_nanf16(""));
  if (A == B)
    return std::signbit(float(A)) ? A : B;
  return A < B ? A : B;
}
h16 maximum2019(h16 A, h16 B) {
  if (A != A || B != B)
    return h16(__builtin_nanf16(""));
  if (A == B)
    return std::signbit(float(A)) ? B : A;
  return A > B ? A : B;
}

template <typename I> I cvtToInt(h16 X) {
  float F = float(X);
  if (std::isnan(F))
    return 0;
  F = std::trunc(F);
  if (F <= float(std::numeric_limits<I>::min()))
    return std::numeric_limits<I>::min();
  if (F >= float(std::numeric_limits<I>::max()))
    return std::numeric_limits<I>::max();
  return I(F);
}

// --- 16-bit VOP1/VOP2/VOP3 with GFX9 op_sel: source K reads the high half of its register when
// op_sel[K] is set, and op_sel[3] writes the result to the destination's high half.
template <typename T> T readHalfArg(const Wave &W, const Inst &I, unsigned K, unsigned L) {
  const Operand &O = I.Ops[K + 1];
  if constexpr (std::is_same_v<T, bool> || ValueType<T>::Bits != 16) {
    return readLaneArg<T>(W, O, L);
  } else {
    if (((I.OpSel >> K) & 1) && (O.Kind == OperandKind::Vgpr || O.Kind == OperandKind::Sgpr)) {
      Operand Hi = O;
      Hi.Half = 2;
      return flushIn(W, fromBits<T>(W.lane(Hi, L, 16, ValueType<T>::Kind)));
    }
    return readLaneArg<T>(W, O, L);
  }
}

template <auto F, size_t... K>
auto callHalf(const Wave &W, const Inst &I, unsigned L, std::index_sequence<K...>) {
  using Args = typename FnTraits<decltype(F)>::Args;
  return F(readHalfArg<std::tuple_element_t<K, Args>>(W, I, unsigned(K), L)...);
}

template <auto F, bool Acc> Step vop16Exec(Wave &W, const Inst &I) {
  using Tr = FnTraits<decltype(F)>;
  using R = typename Tr::Ret;
  HostRounding Round(W, IsFloat<R> ? roundModeFor<R>(W) : 0);
  constexpr size_t N = Tr::Arity - (Acc ? 1 : 0);
  W.forEachActive([&](unsigned L) {
    if constexpr (Acc) {
      using Args = typename Tr::Args;
      auto Old = readLaneArg<std::tuple_element_t<N, Args>>(W, I.Ops[0], L);
      auto Call = [&]<size_t... K>(std::index_sequence<K...>) {
        return F(readHalfArg<std::tuple_element_t<K, Args>>(W, I, unsigned(K), L)..., Old);
      };
      W.Out[L] = toBits(finish(W, I, Call(std::make_index_sequence<N>())));
    } else {
      W.Out[L] = toBits(finish(W, I, callHalf<F>(W, I, L, std::make_index_sequence<N>())));
    }
  });
  if (ValueType<R>::Bits == 16 && (I.OpSel & 8) && !I.Sdwa) {
    Operand Hi = I.Ops[0];
    Hi.Half = 2;
    W.commit(Hi, W.Out, 16);
  } else {
    W.commitVop(I, I.Ops[0], W.Out, ValueType<R>::Bits);
  }
  return Step::Next;
}

template <auto F, bool Acc = false> OpDef vop16(llvm::StringRef Name) {
  OpDef D;
  D.Name = Name;
  D.Exec = &vop16Exec<F, Acc>;
  D.Compute = &vopCompute<F, Acc>; // VOPD halves carry no op_sel
  D.NumOperands = int8_t(1 + FnTraits<decltype(F)>::Arity - (Acc ? 1 : 0));
  D.ResultBits = uint8_t(ValueType<typename FnTraits<decltype(F)>::Ret>::Bits);
  return D;
}

bool classHalf(h16 X, u32 Mask) {
  u16 B = std::bit_cast<u16>(X);
  bool Neg = B >> 15;
  unsigned Exp = (B >> 10) & 31, Man = B & 0x3ff;
  unsigned Bit;
  if (Exp == 31)
    Bit = Man ? ((Man & 0x200) ? 1 : 0) : (Neg ? 2 : 9);
  else if (Exp)
    Bit = Neg ? 3 : 8;
  else if (Man)
    Bit = Neg ? 4 : 7;
  else
    Bit = Neg ? 5 : 6;
  return (Mask >> Bit) & 1;
}

// --- VOP3P packed f16: op_sel picks the halves feeding the low result, op_sel_hi those feeding
// the high result; neg_lo/neg_hi negate them. Inline constants apply to both halves.
u32 packedSource(const Wave &W, const Operand &O, unsigned L) {
  if (O.Kind == OperandKind::FloatConst || O.Kind == OperandKind::IntConst) {
    u32 C = u32(W.scalar(O, 16)) & 0xffff;
    return C | (C << 16);
  }
  return u32(W.lane(O, L, 32));
}

template <unsigned NumSrc, h16 (*Op)(h16, h16, h16)> Step pkF16(Wave &W, const Inst &I) {
  HostRounding Round(W, roundModeFor<h16>(W));
  W.forEachActive([&](unsigned L) {
    u32 Src[3] = {};
    for (unsigned K = 0; K < NumSrc; ++K)
      Src[K] = packedSource(W, I.Ops[1 + K], L);
    u32 R = 0;
    for (unsigned Half = 0; Half < 2; ++Half) {
      uint8_t Sel = Half ? I.OpSelHi : I.OpSel;
      uint8_t Neg = Half ? I.NegHi : I.NegLo;
      h16 In[3] = {};
      for (unsigned K = 0; K < NumSrc; ++K) {
        u16 Bits = u16(((Sel >> K) & 1) ? Src[K] >> 16 : Src[K]);
        if ((Neg >> K) & 1)
          Bits ^= 0x8000;
        In[K] = flushIn(W, std::bit_cast<h16>(Bits));
      }
      R |= u32(std::bit_cast<u16>(finish(W, I, Op(In[0], In[1], In[2])))) << (16 * Half);
    }
    W.Out[L] = R;
  });
  W.commit(I.Ops[0], W.Out, 32);
  return Step::Next;
}

// VOP3P packed 16-bit integer operations (v_pk_add_u16, v_pk_min_i16, v_pk_mad_u16...): the
// halves chosen as for pkF16, zero- or sign-extended, Op per half (in 64 bits: products do not
// overflow); clamp saturates to the type's range.
template <bool Signed, unsigned NumSrc, int64_t (*Op)(int64_t, int64_t, int64_t)>
Step pkI16(Wave &W, const Inst &I) {
  W.forEachActive([&](unsigned L) {
    u32 Src[3] = {};
    for (unsigned K = 0; K < NumSrc; ++K)
      Src[K] = packedSource(W, I.Ops[1 + K], L);
    u32 R = 0;
    for (unsigned Half = 0; Half < 2; ++Half) {
      uint8_t Sel = Half ? I.OpSelHi : I.OpSel;
      int64_t In[3] = {};
      for (unsigned K = 0; K < NumSrc; ++K) {
        u16 Bits = u16(((Sel >> K) & 1) ? Src[K] >> 16 : Src[K]);
        In[K] = Signed ? int64_t(int16_t(Bits)) : int64_t(Bits);
      }
      int64_t V = Op(In[0], In[1], In[2]);
      if (I.Clamp)
        V = Signed ? std::clamp<int64_t>(V, -32768, 32767) : std::clamp<int64_t>(V, 0, 65535);
      R |= u32(u16(V)) << (16 * Half);
    }
    W.Out[L] = R;
  });
  W.commit(I.Ops[0], W.Out, 32);
  return Step::Next;
}

// v_fma_mix_f32 / v_fma_mixlo_f16 / v_fma_mixhi_f16 (GFX9 "mad/fma mix"): source K is an f16
// (the half op_sel[K] picks) when op_sel_hi[K] is set, an f32 otherwise; neg_lo negates and
// neg_hi takes the absolute value (printed as operand modifiers).
template <int Dst> Step fmaMix(Wave &W, const Inst &I) {
  if (I.NumOps != 4)
    return W.fault(FaultKind::UnsupportedInstruction, "unexpected operand count");
  HostRounding Round(W, Dst == 0 ? roundModeFor<float>(W) : roundModeFor<h16>(W));
  W.forEachActive([&](unsigned L) {
    double In[3];
    for (unsigned K = 0; K < 3; ++K) {
      const Operand &O = I.Ops[1 + K];
      Operand Raw = O;
      Raw.Neg = Raw.Abs = false;
      double V;
      if ((I.OpSelHi >> K) & 1) {
        u32 X = (O.Kind == OperandKind::FloatConst || O.Kind == OperandKind::IntConst)
                    ? u32(W.scalar(O, 16))
                    : u32(W.lane(Raw, L, 32));
        V = double(flushIn(W, std::bit_cast<h16>(u16(((I.OpSel >> K) & 1) ? X >> 16 : X))));
      } else {
        V = double(flushIn(W, std::bit_cast<float>(u32(W.lane(Raw, L, 32, NumKind::Float)))));
      }
      if (O.Abs || ((I.NegHi >> K) & 1))
        V = std::fabs(V);
      if (O.Neg || ((I.NegLo >> K) & 1))
        V = -V;
      In[K] = V;
    }
    double R = fmaOdd(In[0], In[1], In[2]);
    if constexpr (Dst == 0) {
      W.Out[L] = std::bit_cast<u32>(finish(W, I, float(R)));
    } else {
      W.Out[L] = std::bit_cast<u16>(finish(W, I, h16(float(R))));
      (void)0;
    }
  });
  if constexpr (Dst == 0) {
    W.commit(I.Ops[0], W.Out, 32);
  } else {
    Operand D = I.Ops[0];
    D.Half = Dst == 1 ? 1 : 2; // mixlo keeps the high half, mixhi the low half
    W.commit(D, W.Out, 16);
  }
  return Step::Next;
}

// --- MODE register
constexpr unsigned HwRegMode = 1;

Step hwregFault(Wave &W, u32 Enc) {
  return W.fault(FaultKind::UnsupportedInstruction,
                 "hardware register " + std::to_string(Enc & 63) + " is not supported");
}

// GFX10's flat scratch base (HW_REG_FLAT_SCR_LO/HI), which a kernel's prologue sets: the
// emulator addresses each lane's private segment directly, so the base is not needed.
constexpr unsigned HwRegFlatScrLo = 20, HwRegFlatScrHi = 21;

// s_setreg_b32 hwreg, sdata / s_setreg_imm32_b32 hwreg, imm32: MODE bits [off, off+size).
Step setreg(Wave &W, const Inst &I) {
  if (I.NumOps != 2)
    return W.fault(FaultKind::UnsupportedInstruction, "unexpected operand count");
  u32 Enc = u32(I.Ops[0].Value);
  if ((Enc & 63) == HwRegFlatScrLo || (Enc & 63) == HwRegFlatScrHi)
    return Step::Next;
  if ((Enc & 63) != HwRegMode)
    return hwregFault(W, Enc);
  unsigned Off = (Enc >> 6) & 31, Size = ((Enc >> 11) & 31) + 1;
  u32 Mask = u32(((u64(1) << Size) - 1) << Off);
  u32 V = u32(W.scalar(I.Ops[1], 32));
  W.Mode = (W.Mode & ~Mask) | ((V << Off) & Mask);
  return Step::Next;
}

Step getreg(Wave &W, const Inst &I) {
  if (I.NumOps != 2)
    return W.fault(FaultKind::UnsupportedInstruction, "unexpected operand count");
  u32 Enc = u32(I.Ops[1].Value);
  if ((Enc & 63) != HwRegMode)
    return hwregFault(W, Enc);
  unsigned Off = (Enc >> 6) & 31, Size = ((Enc >> 11) & 31) + 1;
  W.writeScalar(I.Ops[0], u32((u64(W.Mode) >> Off) & ((u64(1) << Size) - 1)));
  return Step::Next;
}

// s_round_mode imm4 / s_denorm_mode imm4 (RDNA3): MODE.FP_ROUND and MODE.FP_DENORM.
template <unsigned Shift> Step setModeField(Wave &W, const Inst &I) {
  if (I.NumOps != 1)
    return W.fault(FaultKind::UnsupportedInstruction, "unexpected operand count");
  u32 V = u32(I.Ops[0].Value) & 15;
  W.Mode = (W.Mode & ~(15u << Shift)) | (V << Shift);
  return Step::Next;
}

// --- float division helpers (used by LLVM's AMDGPU backend for IEEE division, SIISelLowering
// LowerFDIV32/LowerFDIV64): v_div_scale scales numerator or denominator by 2^±64 (2^±128 for f64)
// when the quotient or the reciprocal would leave the normal range and reports in VCC that
// v_div_fmas must undo it; v_div_fixup handles NaN, infinities and zeros.
template <typename T> int exponentOf(T X) {
  using U = std::conditional_t<sizeof(T) == 4, u32, u64>;
  constexpr int MBits = std::numeric_limits<T>::digits - 1;
  constexpr U ExpMask = sizeof(T) == 4 ? 0xff : 0x7ff;
  return int((std::bit_cast<U>(X) >> MBits) & ExpMask);
}

template <typename T> bool isDenorm(T X) { return std::fpclassify(X) == FP_SUBNORMAL; }

template <typename T> struct DivScale {
  T Value;
  bool Vcc;
};

// S0: the value to scale (the numerator or the denominator), S1: denominator, S2: numerator.
template <typename T> DivScale<T> divScale(T S0, T S1, T S2) {
  constexpr bool F32 = sizeof(T) == 4;
  constexpr int Scale = F32 ? 64 : 128;
  constexpr int ExpGap = F32 ? 96 : 768;
  constexpr int TinyExp = F32 ? 23 : 53;
  DivScale<T> R{S0, false};
  if (S2 == 0 || S1 == 0) {
    R.Value = std::numeric_limits<T>::quiet_NaN();
  } else if (std::isnan(S1) || std::isnan(S2) || std::isinf(S1) || std::isinf(S2)) {
    // left to v_div_fixup
  } else if (exponentOf(S2) - exponentOf(S1) >= ExpGap) {
    // The quotient is near overflow: the denominator grows, v_div_fmas scales back up.
    R.Vcc = true;
    if (S0 == S1)
      R.Value = std::ldexp(S0, Scale);
  } else if (isDenorm(S1)) {
    R.Value = std::ldexp(S0, Scale); // both operands: the quotient is unchanged
  } else if (isDenorm(T(1) / S1) && isDenorm(S2 / S1)) {
    // A huge denominator and a tiny quotient: the denominator shrinks, v_div_fmas scales back.
    R.Vcc = true;
    if (S0 == S1)
      R.Value = std::ldexp(S0, -Scale);
  } else if (isDenorm(T(1) / S1)) {
    R.Value = std::ldexp(S0, -Scale);
  } else if (isDenorm(S2 / S1)) {
    // A tiny quotient: the numerator grows, v_div_fmas scales back down.
    R.Vcc = true;
    if (S0 == S2)
      R.Value = std::ldexp(S0, Scale);
  } else if (exponentOf(S2) <= TinyExp) {
    R.Value = std::ldexp(S0, Scale); // a tiny numerator: both operands grow
  }
  return R;
}

template <typename T> Step divScaleExec(Wave &W, const Inst &I) {
  if (I.NumOps != 5)
    return W.fault(FaultKind::UnsupportedInstruction, "unexpected operand count");
  u64 M = 0;
  W.forEachActive([&](unsigned L) {
    DivScale<T> R = divScale(readLaneArg<T>(W, I.Ops[2], L), readLaneArg<T>(W, I.Ops[3], L),
                             readLaneArg<T>(W, I.Ops[4], L));
    W.Out[L] = toBits(finish(W, I, R.Value));
    if (R.Vcc)
      M |= u64(1) << L;
  });
  W.commit(I.Ops[0], W.Out, ValueType<T>::Bits);
  W.writeMask(I.Ops[1], M);
  return Step::Next;
}

// v_div_fmas: fma(S0, S1, S2), scaled by 2^±64 (f64: 2^±128) where VCC is set: up when the
// quotient estimate S2 is at least 1 (the denominator was scaled up), down otherwise (the
// numerator was). The scaling happens before the single rounding.
template <typename T> Step divFmasExec(Wave &W, const Inst &I) {
  if (I.NumOps != 4)
    return W.fault(FaultKind::UnsupportedInstruction, "unexpected operand count");
  constexpr bool F32 = sizeof(T) == 4;
  constexpr int Scale = F32 ? 64 : 128;
  u64 Vcc = W.vcc();
  HostRounding Round(W, roundModeFor<T>(W));
  W.forEachActive([&](unsigned L) {
    T A = readLaneArg<T>(W, I.Ops[1], L), B = readLaneArg<T>(W, I.Ops[2], L),
      C = readLaneArg<T>(W, I.Ops[3], L);
    T R;
    if (!((Vcc >> L) & 1)) {
      R = std::fma(A, B, C);
    } else {
      int E = exponentOf(C) >= (F32 ? 127 : 1023) ? Scale : -Scale;
      if constexpr (F32)
        R = float(std::ldexp(fmaOdd(double(A), double(B), double(C)), E));
      else
        R = std::ldexp(std::fma(A, B, C), E);
    }
    W.Out[L] = toBits(finish(W, I, R));
  });
  W.commit(I.Ops[0], W.Out, ValueType<T>::Bits);
  return Step::Next;
}

// v_div_fixup(S0 quotient, S1 denominator, S2 numerator), as the RDNA3 and CDNA3 ISA manuals
// ("V_DIV_FIXUP_F32/F64/F16") define it: NaN operands are quieted (S2 first), 0/0 and inf/inf
// give the negative default NaN, x/0 and inf/y infinity, x/inf and 0/y zero, each with the sign
// of S1 ^ S2; a quotient whose exponents differ by more than the format can hold underflows to
// zero. The manuals then test exponent(S1) == max for overflow, which the infinity cases before
// it make unreachable; LLVM's division expansion (SIISelLowering LowerFDIV32/64) relies on an
// estimate S0 that overflowed in the Newton-Raphson steps (infinity, or NaN from inf - inf)
// becoming the overflowed quotient, so the test is made on S0, the only operand it can concern.
// The f16 form has neither exponent test.
template <typename T, bool Wide = true> T divFixup(T S0, T S1, T S2) {
  using U = std::conditional_t<sizeof(T) == 8, u64, std::conditional_t<sizeof(T) == 4, u32, u16>>;
  constexpr U SignBit = U(1) << (sizeof(T) * 8 - 1);
  constexpr U DefaultNaN = sizeof(T) == 8   ? U(0xfff8000000000000ull)
                           : sizeof(T) == 4 ? U(0xffc00000u)
                                            : U(0xfe00);
  constexpr U QuietBit = sizeof(T) == 8 ? U(1ull << 51) : sizeof(T) == 4 ? U(1u << 22) : U(0x200);
  constexpr int MaxExp = sizeof(T) == 8 ? 2047 : 255;
  constexpr int UnderflowGap = sizeof(T) == 8 ? -1075 : -150;
  auto Bits = [](T X) { return std::bit_cast<U>(X); };
  auto FromBits = [](U X) { return std::bit_cast<T>(X); };
  auto IsNan = [](T X) { return X != X; };
  auto IsInf = [&](T X) { return !IsNan(X) && (X - X) != (X - X); };
  bool Neg = ((Bits(S1) ^ Bits(S2)) & SignBit) != 0;
  U Sign = Neg ? SignBit : 0;
  constexpr U InfBits = sizeof(T) == 8   ? U(0x7ff0000000000000ull)
                        : sizeof(T) == 4 ? U(0x7f800000u)
                                         : U(0x7c00);
  const T Zero = FromBits(0);
  if (IsNan(S2))
    return FromBits(Bits(S2) | QuietBit);
  if (IsNan(S1))
    return FromBits(Bits(S1) | QuietBit);
  if ((S1 == Zero && S2 == Zero) || (IsInf(S1) && IsInf(S2)))
    return FromBits(DefaultNaN);
  if (S1 == Zero || IsInf(S2))
    return FromBits(InfBits | Sign);
  if (IsInf(S1) || S2 == Zero)
    return FromBits(Sign);
  if constexpr (Wide) {
    if (exponentOf(S2) - exponentOf(S1) < UnderflowGap)
      return FromBits(Sign);
    if (exponentOf(S0) == MaxExp)
      return FromBits(InfBits | Sign);
  }
  return FromBits((Bits(S0) & ~SignBit) | Sign);
}

h16 divFixupHalf(h16 S0, h16 S1, h16 S2) { return divFixup<h16, false>(S0, S1, S2); }

} // namespace

void addHalfOps(TableBuilder &T) {
  // ---- f16 arithmetic (VOP2/VOP3)
  T.add(vop16<+[](h16 A, h16 B) { return h16(A + B); }>("v_add_f16"));
  T.add(vop16<+[](h16 A, h16 B) { return h16(A - B); }>("v_sub_f16"));
  T.add(vop16<+[](h16 A, h16 B) { return h16(B - A); }>("v_subrev_f16"));
  T.add(vop16<+[](h16 A, h16 B) { return h16(A * B); }>("v_mul_f16"));
  T.add(vop16<+[](h16 A, h16 B, h16 C) { return fmaHalf(A, B, C); }>("v_fma_f16"));
  T.add(vop16<+[](h16 A, h16 B, h16 D) { return fmaHalf(A, B, D); }, true>("v_fmac_f16"));
  T.add(vop16<+[](h16 A, h16 K, h16 B) { return fmaHalf(A, K, B); }>("v_fmamk_f16"));
  T.add(vop16<+[](h16 A, h16 B, h16 K) { return fmaHalf(A, B, K); }>("v_fmaak_f16"));
  T.add(vop16<+[](h16 A, h16 B) { return maxIeee(A, B); }>("v_max_f16"));
  T.add(vop16<+[](h16 A, h16 B) { return minIeee(A, B); }>("v_min_f16"));
  T.add(vop16<+[](h16 A, h16 B, h16 C) { return maxIeee(maxIeee(A, B), C); }>("v_max3_f16"));
  T.add(vop16<+[](h16 A, h16 B, h16 C) { return minIeee(minIeee(A, B), C); }>("v_min3_f16"));
  T.add(vop16<+[](h16 A, h16 B, h16 C) { return med3(A, B, C); }>("v_med3_f16"));
  T.add(vop16<+[](h16 A, h16 B, h16 C) { return minIeee(maxIeee(A, B), C); }>("v_maxmin_f16"));
  T.add(vop16<+[](h16 A, h16 B, h16 C) { return maxIeee(minIeee(A, B), C); }>("v_minmax_f16"));
  T.add(vop16<+[](h16 A, i32 E) { return h16(std::ldexp(float(A), std::clamp(E, -64, 64))); }>(
      "v_ldexp_f16"));
  T.add(vop16<+[](h16 S0, h16 S1, h16 S2) { return divFixupHalf(S0, S1, S2); }>("v_div_fixup_f16"));
  T.alias("v_fma_legacy_f16", "v_fma_f16"); // GFX9's names for GFX8's encodings (above)
  T.alias("v_div_fixup_legacy_f16", "v_div_fixup_f16");

  // ---- GFX12's SALU f16 forms (saluFloat, Semantics.h; an f16 result fills the SGPR's low half
  // and zeroes the high one) and SALU conversions between f16 and f32
  T.add(saluFloat<+[](h16 A, h16 B) { return h16(A + B); }>("s_add_f16"));
  T.add(saluFloat<+[](h16 A, h16 B) { return h16(A - B); }>("s_sub_f16"));
  T.add(saluFloat<+[](h16 A, h16 B) { return h16(A * B); }>("s_mul_f16"));
  T.add(saluFloat<+[](h16 A, h16 B, h16 D) { return fmaHalf(A, B, D); }, true>("s_fmac_f16"));
  T.add(saluFloat<+[](h16 A, h16 B) { return maxIeee(A, B); }>("s_max_num_f16"));
  T.add(saluFloat<+[](h16 A, h16 B) { return minIeee(A, B); }>("s_min_num_f16"));
  T.add(saluFloat<+[](h16 A) { return h16(std::trunc(float(A))); }>("s_trunc_f16"));
  T.add(saluFloat<+[](h16 A) { return h16(std::ceil(float(A))); }>("s_ceil_f16"));
  T.add(saluFloat<+[](h16 A) { return h16(std::floor(float(A))); }>("s_floor_f16"));
  T.add(saluFloat<+[](h16 A) { return h16(std::nearbyint(float(A))); }>("s_rndne_f16"));
  T.add(saluFloat<+[](h16 A) { return float(A); }>("s_cvt_f32_f16"));
  T.add(saluFloat<+[](u32 A) { return float(std::bit_cast<h16>(u16(A >> 16))); }>(
      "s_cvt_hi_f32_f16"));
  T.add(saluFloat<+[](float A) { return h16(A); }>("s_cvt_f16_f32"));
  T.add(saluFloat<&packRtz>("s_cvt_pk_rtz_f16_f32"));
  T.add(saluFloat<+[](h16 A) { return h16(std::exp2(float(A))); }>("v_s_exp_f16"));
  T.add(saluFloat<+[](h16 A) { return h16(std::log2(float(A))); }>("v_s_log_f16"));
  T.add(saluFloat<+[](h16 A) { return h16(1.0f / float(A)); }>("v_s_rcp_f16"));
  T.add(saluFloat<+[](h16 A) { return h16(1.0f / std::sqrt(float(A))); }>("v_s_rsq_f16"));
  T.add(saluFloat<+[](h16 A) { return h16(std::sqrt(float(A))); }>("v_s_sqrt_f16"));
  forEachFloatCond(
      [&]<CmpCond C>(llvm::StringRef Cond) {
        T.add(saluFloatCmp<&compare<h16, C>>(T.intern("s_cmp_" + Cond.str() + "_f16")));
      },
      /*WithConstant=*/false);

  // ---- f16 VOP1
  T.add(vop16<+[](u16 A) { return h16(A); }>("v_cvt_f16_u16"));
  // Conversions between f32 and f16: on the f16 side, |x| and -x act on bit 15 and op_sel picks
  // (or writes) the high half.
  T.add(vop16<+[](h16 A) { return float(A); }>("v_cvt_f32_f16"));
  T.add(vop16<+[](float A) { return std::bit_cast<u16>(h16(A)); }>("v_cvt_f16_f32"));
  T.add(vop16<+[](i16 A) { return h16(A); }>("v_cvt_f16_i16"));
  T.add(vop16<+[](h16 A) { return cvtToInt<u16>(A); }>("v_cvt_u16_f16"));
  T.add(vop16<+[](h16 A) { return cvtToInt<i16>(A); }>("v_cvt_i16_f16"));
  T.add(vop16<+[](h16 A) { return h16(1.0f / float(A)); }>("v_rcp_f16"));
  T.add(vop16<+[](h16 A) { return h16(std::sqrt(float(A))); }>("v_sqrt_f16"));
  T.add(vop16<+[](h16 A) { return h16(1.0f / std::sqrt(float(A))); }>("v_rsq_f16"));
  T.add(vop16<+[](h16 A) { return h16(std::log2(float(A))); }>("v_log_f16"));
  T.add(vop16<+[](h16 A) { return h16(std::exp2(float(A))); }>("v_exp_f16"));
  T.add(vop16<+[](h16 A) { return h16(std::sin(2.0f * std::numbers::pi_v<float> * float(A))); }>(
      "v_sin_f16"));
  T.add(vop16<+[](h16 A) { return h16(std::cos(2.0f * std::numbers::pi_v<float> * float(A))); }>(
      "v_cos_f16"));
  T.add(vop16<+[](h16 A) { return h16(std::trunc(float(A))); }>("v_trunc_f16"));
  T.add(vop16<+[](h16 A) { return h16(std::ceil(float(A))); }>("v_ceil_f16"));
  T.add(vop16<+[](h16 A) { return h16(std::floor(float(A))); }>("v_floor_f16"));
  T.add(vop16<+[](h16 A) { return h16(std::nearbyint(float(A))); }>("v_rndne_f16"));
  T.add(vop16<+[](h16 A) {
    float F = float(A);
    if (std::isinf(F))
      return std::bit_cast<h16>(QuietNaN16);
    float R = F - std::floor(F);
    return h16(std::min(R, 0x1.ffcp-1f));
  }>("v_fract_f16"));
  T.add(vop16<+[](h16 A) {
    int E;
    float F = float(A);
    return std::isfinite(F) ? h16(std::frexp(F, &E)) : A;
  }>("v_frexp_mant_f16"));
  T.add(vop16<+[](h16 A) {
    int E = 0;
    float F = float(A);
    if (std::isfinite(F))
      std::frexp(F, &E);
    return i16(E);
  }>("v_frexp_exp_i16_f16"));
  T.add(vop<&packRtz>("v_cvt_pkrtz_f16_f32"));
  T.add(vop16<+[](u16 Lo, u16 Hi) { return u32(Lo) | (u32(Hi) << 16); }>("v_pack_b32_f16"));

  // ---- 16-bit bit operations and selects of GFX11 true16 code (RDNA3 ISA: V_AND_B16,
  // V_OR_B16, V_XOR_B16, V_NOT_B16, V_CNDMASK_B16; halves from the .l/.h operand suffixes)
  T.add(vop16<+[](u16 A, u16 B) { return u16(A & B); }>("v_and_b16"));
  T.add(vop16<+[](u16 A, u16 B) { return u16(A | B); }>("v_or_b16"));
  T.add(vop16<+[](u16 A, u16 B) { return u16(A ^ B); }>("v_xor_b16"));
  T.add(vop16<+[](u16 A) { return u16(~A); }>("v_not_b16"));
  T.add(vop16<+[](u16 A, u16 B, bool M) { return M ? B : A; }>("v_cndmask_b16"));

  // ---- VOPC f16
  forEachFloatCond(
      [&]<CmpCond C>(llvm::StringRef Cond) {
        T.add(vopc<&compare<h16, C>, false>(T.intern("v_cmp_" + Cond.str() + "_f16")));
        T.add(vopc<&compare<h16, C>, true>(T.intern("v_cmpx_" + Cond.str() + "_f16")));
      },
      /*WithConstant=*/true);
  T.add(vopc<&classHalf, false>("v_cmp_class_f16"));
  T.add(vopc<&classHalf, true>("v_cmpx_class_f16"));

  // ---- VOP3P packed 16-bit integers, packed f16 and mixed precision
  using i64 = int64_t;
  T.add(custom("v_pk_add_u16", &pkI16<false, 2, +[](i64 A, i64 B, i64) { return A + B; }>, 3));
  T.add(custom("v_pk_add_i16", &pkI16<true, 2, +[](i64 A, i64 B, i64) { return A + B; }>, 3));
  T.add(custom("v_pk_sub_u16", &pkI16<false, 2, +[](i64 A, i64 B, i64) { return A - B; }>, 3));
  T.add(custom("v_pk_sub_i16", &pkI16<true, 2, +[](i64 A, i64 B, i64) { return A - B; }>, 3));
  T.add(custom("v_pk_min_u16", &pkI16<false, 2, +[](i64 A, i64 B, i64) { return std::min(A, B); }>,
               3));
  T.add(custom("v_pk_min_i16", &pkI16<true, 2, +[](i64 A, i64 B, i64) { return std::min(A, B); }>,
               3));
  T.add(custom("v_pk_max_u16", &pkI16<false, 2, +[](i64 A, i64 B, i64) { return std::max(A, B); }>,
               3));
  T.add(custom("v_pk_max_i16", &pkI16<true, 2, +[](i64 A, i64 B, i64) { return std::max(A, B); }>,
               3));
  T.add(custom("v_pk_mul_lo_u16", &pkI16<false, 2, +[](i64 A, i64 B, i64) { return A * B; }>, 3));
  T.add(
      custom("v_pk_mad_u16", &pkI16<false, 3, +[](i64 A, i64 B, i64 C) { return A * B + C; }>, 4));
  T.add(custom("v_pk_mad_i16", &pkI16<true, 3, +[](i64 A, i64 B, i64 C) { return A * B + C; }>, 4));
  // Shifts: the value is the second source, the amount the low 4 bits of the first.
  T.add(custom("v_pk_lshlrev_b16",
               &pkI16<false, 2, +[](i64 S, i64 V, i64) { return V << (S & 15); }>, 3));
  T.add(custom("v_pk_lshrrev_b16",
               &pkI16<false, 2, +[](i64 S, i64 V, i64) { return V >> (S & 15); }>, 3));
  T.add(custom("v_pk_ashrrev_i16",
               &pkI16<true, 2, +[](i64 S, i64 V, i64) { return V >> (S & 15); }>, 3));
  T.add(custom("v_pk_add_f16", &pkF16<2, +[](h16 A, h16 B, h16) { return h16(A + B); }>, 3));
  T.add(custom("v_pk_mul_f16", &pkF16<2, +[](h16 A, h16 B, h16) { return h16(A * B); }>, 3));
  T.add(
      custom("v_pk_fma_f16", &pkF16<3, +[](h16 A, h16 B, h16 C) { return fmaHalf(A, B, C); }>, 4));
  T.add(custom("v_pk_max_f16", &pkF16<2, +[](h16 A, h16 B, h16) { return maxIeee(A, B); }>, 3));
  T.add(custom("v_pk_min_f16", &pkF16<2, +[](h16 A, h16 B, h16) { return minIeee(A, B); }>, 3));
  T.add(custom("v_fma_mix_f32", &fmaMix<0>, 4));
  T.add(custom("v_fma_mixlo_f16", &fmaMix<1>, 4));
  T.add(custom("v_fma_mixhi_f16", &fmaMix<2>, 4));

  // ---- MODE
  T.add(custom("s_setreg_b32", &setreg, 2));
  T.add(custom("s_setreg_imm32_b32", &setreg, 2));
  T.add(custom("s_getreg_b32", &getreg, 2));
  T.add(custom("s_round_mode", &setModeField<0>, 1));
  T.add(custom("s_denorm_mode", &setModeField<4>, 1));

  // ---- division helpers
  T.add(custom("v_div_scale_f32", &divScaleExec<float>, 5));
  T.add(custom("v_div_scale_f64", &divScaleExec<double>, 5));
  T.add(custom("v_div_fmas_f32", &divFmasExec<float>, 4));
  T.add(custom("v_div_fmas_f64", &divFmasExec<double>, 4));
  T.add(vop<+[](float S0, float S1, float S2) { return divFixup(S0, S1, S2); }>("v_div_fixup_f32"));
  T.add(vop<+[](double S0, double S1, double S2) { return divFixup(S0, S1, S2); }>(
      "v_div_fixup_f64"));

  // GFX11+/GFX12 spellings
  T.alias("v_max_num_f16", "v_max_f16");
  T.alias("v_min_num_f16", "v_min_f16");
  T.alias("v_maxmin_num_f16", "v_maxmin_f16");
  T.alias("v_minmax_num_f16", "v_minmax_f16");
  T.alias("v_pk_max_num_f16", "v_pk_max_f16");
  T.alias("v_pk_min_num_f16", "v_pk_min_f16");
  T.add(vop16<+[](h16 A, h16 B) { return minimum2019(A, B); }>("v_minimum_f16"));
  T.add(vop16<+[](h16 A, h16 B) { return maximum2019(A, B); }>("v_maximum_f16"));
  T.add(custom("v_pk_minimum_f16", &pkF16<2, +[](h16 A, h16 B, h16) { return minimum2019(A, B); }>,
               3));
  T.add(custom("v_pk_maximum_f16", &pkF16<2, +[](h16 A, h16 B, h16) { return maximum2019(A, B); }>,
               3));
  T.add(vop16<+[](h16 A, h16 B, h16 C) { return minimum2019(minimum2019(A, B), C); }>(
      "v_minimum3_f16"));
  T.add(vop16<+[](h16 A, h16 B, h16 C) { return maximum2019(maximum2019(A, B), C); }>(
      "v_maximum3_f16"));
}

} // namespace reptx::emulator::sem
