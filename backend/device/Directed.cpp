// Directed rounding (.rz, .rm, .rp) of f32 and f64 arithmetic (PTX ISA 9.7.3.1 add, 9.7.3.2 sub,
// 9.7.3.3 mul, 9.7.3.4 fma (and mad, which is fma with a rounding mode), 9.7.3.8 div, 9.7.3.9
// rcp, 9.7.3.10 sqrt), correctly rounded in the requested direction for every input, without
// touching the MODE register:
//
//   float  @reptx.{add,sub,mul,div}.directed.f32(float a, float b, i32 mode)
//   double @reptx.{add,sub,mul,div}.directed.f64(double a, double b, i32 mode)
//   float  @reptx.fma.directed.f32(float a, float b, float c, i32 mode)
//   double @reptx.fma.directed.f64(double a, double b, double c, i32 mode)
//   float  @reptx.sqrt.directed.f32(float a, i32 mode)          rcp is div(1.0, a)
//   double @reptx.sqrt.directed.f64(double a, i32 mode)
//
// mode is llvm.set.rounding's encoding: 0 toward zero (.rz), 2 toward +inf (.rp), 3 toward -inf
// (.rm). .ftz is the lifter's business (it flushes the operands and the result).
//
// Method, in integers only: no floating-point instruction, so the result depends neither on the
// MODE register (rounding or denormal mode) nor on how a backend orders mode changes around
// floating-point instructions (LLVM's AMDGPU selection merged two adds of the same operands in
// different modes into one). The operands are split into a 53-bit significand and an exponent.
// add and sub align the smaller magnitude to the larger in 128 bits (leading bit at bit 125), the
// bits shifted out making a sticky bit, and add or subtract; mul multiplies the significands into
// 106 bits; fma adds c to that exact product the same way; div is restoring long division and
// sqrt the digit-by-digit method, with the remainder as sticky bit. The exact result's first 53
// bits and a sticky bit are rounded to the destination format (f32 or f64, normal or subnormal)
// by shifting: the dropped bits and the sticky bit decide whether the truncation is kept or
// stepped one ulp away from zero, and an overflow gives the largest finite value or infinity as
// the direction says (IEEE 754-2019 4.3.2, 7.4). An exact zero sum of operands of opposite signs
// is +0, or -0 toward -inf (6.3). Special operands follow IEEE 754-2019 6.1-6.3 and 7.2-7.3,
// decided on the bits: a NaN operand gives that NaN quieted (the first of a, b, c), an invalid
// operation (inf - inf, 0 * inf, 0/0, inf/inf, sqrt of a negative number) the default NaN (as the
// hardware's .rn forms), x/0 and inf/x infinity, 0/x and x/inf zero, sqrt(+-0) = +-0,
// sqrt(+inf) = +inf.
#include "Device.h"

namespace reptx::device {
namespace {

constexpr u32 ModeTowardZero = 0, ModeUpward = 2, ModeDownward = 3;

u64 bitsOf(double D) { return __builtin_bit_cast(u64, D); }
double doubleOf(u64 U) { return __builtin_bit_cast(double, U); }
u32 bitsOf(float F) { return __builtin_bit_cast(u32, F); }
float floatOf(u32 U) { return __builtin_bit_cast(float, U); }

constexpr u64 Hidden = u64(1) << 52;
constexpr u64 Fraction = Hidden - 1;

/// A finite nonzero magnitude Sig * 2^Exp with Sig in [2^52, 2^53); Sticky: the exact value
/// lies strictly between Sig * 2^Exp and (Sig + 1) * 2^Exp.
struct Parts {
  u64 Sig;
  s32 Exp;
  bool Sticky;
};

/// The magnitude of a finite nonzero double (IEEE 754-2019 3.4: a subnormal is normalized).
Parts split64(u64 Bits) {
  u64 Mag = Bits & ~(u64(1) << 63);
  s32 E = s32(Mag >> 52);
  if (E == 0) {
    s32 Shift = s32(__builtin_clzll(Mag)) - 11;
    return {Mag << Shift, -1074 - Shift, false};
  }
  return {(Mag & Fraction) | Hidden, E - 1075, false};
}

/// The magnitude of a finite nonzero float, with its 24-bit significand widened to 53 bits.
Parts split32(u32 Bits) {
  u32 Mag = Bits & 0x7fffffffu;
  s32 E = s32(Mag >> 23);
  u64 Sig = E == 0 ? u64(Mag) : u64((Mag & 0x7fffffu) | 0x800000u);
  s32 Exp = E == 0 ? -149 : E - 150;
  s32 Shift = s32(__builtin_clzll(Sig)) - 11;
  return {Sig << Shift, Exp - Shift, false};
}

/// The first Prec bits of |a| / |b| (finite, nonzero) by restoring long division, one quotient
/// bit per step, with the remainder as sticky bit.
template <int Prec> Parts quotient(Parts A, Parts B) {
  u64 R = A.Sig, D = B.Sig;
  s32 Exp = A.Exp - B.Exp;
  if (R < D) { // make R / D lie in [1, 2)
    R <<= 1;
    Exp -= 1;
  }
  u64 Q = 0;
  for (int I = 0; I < Prec; ++I) { // R < 2 D < 2^54 throughout
    Q <<= 1;
    if (R >= D) {
      R -= D;
      Q |= 1;
    }
    R <<= 1;
  }
  // Q = floor(R / D * 2^(Prec-1)) in [2^(Prec-1), 2^Prec).
  return {Q << (53 - Prec), Exp - 52, R != 0};
}

/// The first Prec bits of sqrt(a) (finite, a > 0) by the digit-by-digit method, two radicand bits
/// per step, with the remainder as sticky bit.
template <int Prec> Parts root(Parts A) {
  // a = M * 2^K with M = Sig * 2^-52 in [1, 2); an odd K moves one factor 2 into M so that K/2
  // is exact. The root's first Prec bits are isqrt(N) for N = M * 2^(2 Prec - 2), an integer of
  // 2 Prec - 1 or 2 Prec bits: Sig shifted left by S (right by -S).
  s32 K = A.Exp + 52;
  s32 S = 2 * Prec - 54 + (K & 1);
  K -= K & 1;
  bool Dropped = S < 0 && (A.Sig & ((u64(1) << -S) - 1)) != 0;
  u64 Root = 0, Rem = 0;
  for (int I = 0; I < Prec; ++I) {
    s32 Pos = 2 * (Prec - 1 - I) - S; // position in Sig of the pair of N brought down
    u64 Pair = Pos >= 0 ? (A.Sig >> Pos) & 3 : Pos == -1 ? (A.Sig << 1) & 2 : 0;
    Rem = (Rem << 2) | Pair;
    u64 Trial = (Root << 2) | 1; // (2 Root + 1)^2 - (2 Root)^2
    Root <<= 1;
    if (Rem >= Trial) { // Rem < 2 Root + 1 < 2^(Prec+1) throughout
      Rem -= Trial;
      Root |= 1;
    }
  }
  return {Root << (53 - Prec), K / 2 - 52, Rem != 0 || Dropped};
}

using u128 = unsigned __int128;

/// The first 53 bits of the nonzero magnitude M * 2^E (M of up to 127 bits), with the bits below
/// them (and Sticky) as sticky bit.
Parts normalize(u128 M, s32 E, bool Sticky) {
  u64 Hi = u64(M >> 64);
  s32 Lead = Hi ? 127 - s32(__builtin_clzll(Hi)) : 63 - s32(__builtin_clzll(u64(M)));
  s32 Shift = Lead - 52;
  if (Shift <= 0)
    return {u64(M) << -Shift, E + Shift, Sticky};
  return {u64(M >> Shift), E + Shift, Sticky || (M & ((u128(1) << Shift) - 1)) != 0};
}

/// A finite nonzero magnitude M * 2^E with its leading bit at bit 125 of M.
struct Wide {
  u128 M;
  s32 E;
};
Wide widen(Parts P) { return {u128(P.Sig) << 73, P.Exp - 73}; }

/// The exact product of two finite nonzero magnitudes (106 bits) at bit 125.
Wide product(Parts A, Parts B) {
  u128 P = u128(A.Sig) * B.Sig; // in [2^104, 2^106)
  s32 Up = (P >> 105) ? 20 : 21;
  return {P << Up, A.Exp + B.Exp - Up};
}

/// The sign and magnitude of (-1)^NA A + (-1)^NB B, exactly up to a sticky bit; Zero when they
/// cancel exactly. The smaller magnitude is shifted right to the larger's exponent: at most 53
/// (f64) or 106 (product) significant bits below bit 125 leave 20 or more zero bits, so a shift
/// loses bits only when the smaller value lies entirely below the larger's 73rd bit, where a
/// sticky bit is all that matters (a difference then keeps its leading bits at bit 124 or 125).
struct Sum {
  bool Neg, Zero;
  Parts P;
};
Sum sumOf(bool NA, Wide A, bool NB, Wide B) {
  if (A.E < B.E || (A.E == B.E && A.M < B.M)) {
    Wide T = A;
    A = B;
    B = T;
    bool N = NA;
    NA = NB;
    NB = N;
  }
  s32 D = A.E - B.E;
  u128 Bm = D >= 127 ? 0 : B.M >> D;
  bool Sticky = D >= 127 || (D > 0 && (B.M & ((u128(1) << D) - 1)) != 0);
  // A difference with a sticky B is just below A.M - Bm: one less, plus a fraction (sticky).
  u128 R = NA == NB ? A.M + Bm : A.M - Bm - (Sticky ? 1 : 0);
  if (R == 0 && !Sticky)
    return {false, true, {}};
  return {NA, false, normalize(R, A.E, Sticky)};
}

/// The bits of the magnitude P rounded to a binary format with Prec significand bits and
/// exponents EMin..EMax (IEEE 754-2019 3.3), either truncated or, when Away and inexact, one ulp
/// further from zero. An overflow is the largest finite magnitude, or infinity when Away.
template <int Prec, int EMin, int EMax> u64 roundMagnitude(Parts P, bool Away) {
  constexpr u64 InfBits = u64(EMax - EMin + 2) << (Prec - 1);
  s32 E = P.Exp + 52; // exponent of the leading bit
  if (E > EMax)
    return Away ? InfBits : InfBits - 1;
  s32 Shift = 53 - Prec + (E < EMin ? EMin - E : 0);
  u64 Kept = Shift >= 64 ? 0 : P.Sig >> Shift;
  u64 Lost = Shift >= 64 ? P.Sig : P.Sig & ((u64(1) << Shift) - 1);
  // The leading bit of a normal Kept adds one to the biased exponent field E - EMin; a subnormal
  // Kept (E < EMin) has none and the field stays 0. A carry out of the significand, up to
  // infinity, is the next binade.
  u64 Bits = (E > EMin ? u64(E - EMin) << (Prec - 1) : 0) + Kept;
  if (Away && (Lost != 0 || P.Sticky))
    ++Bits;
  return Bits;
}

/// Whether a result of this sign is rounded away from zero when inexact.
bool away(u32 Mode, bool Negative) {
  if (Mode == ModeTowardZero)
    return false;
  return Mode == ModeUpward ? !Negative : Mode == ModeDownward && Negative;
}

constexpr u32 NaN32 = 0x7fc00000u, Inf32 = 0x7f800000u, Sign32 = 0x80000000u;
constexpr u64 NaN64 = 0x7ff8000000000000ull, Inf64 = 0x7ff0000000000000ull,
              Sign64 = 0x8000000000000000ull;

/// The format of a helper: f32 (with its significand widened to 53 bits) or f64.
template <typename T> struct Format;
template <> struct Format<float> {
  using Bits = u32;
  static constexpr Bits SignBit = Sign32, NaN = NaN32, Inf = Inf32, Quiet = 0x400000u;
  static constexpr int Prec = 24;
  static Bits bits(float F) { return bitsOf(F); }
  static float value(Bits B) { return floatOf(B); }
  static Parts split(Bits B) { return split32(B); }
  static Bits round(Parts P, bool Away) { return Bits(roundMagnitude<24, -126, 127>(P, Away)); }
};
template <> struct Format<double> {
  using Bits = u64;
  static constexpr Bits SignBit = Sign64, NaN = NaN64, Inf = Inf64, Quiet = u64(1) << 51;
  static constexpr int Prec = 53;
  static Bits bits(double D) { return bitsOf(D); }
  static double value(Bits B) { return doubleOf(B); }
  static Parts split(Bits B) { return split64(B); }
  static Bits round(Parts P, bool Away) { return roundMagnitude<53, -1022, 1023>(P, Away); }
};

template <typename F> bool isNaN(typename F::Bits B) { return (B & ~F::SignBit) > F::Inf; }
template <typename F> bool isInf(typename F::Bits B) { return (B & ~F::SignBit) == F::Inf; }
template <typename F> bool isZero(typename F::Bits B) { return (B & ~F::SignBit) == 0; }

/// The rounded value of a nonzero exact result, or the zero of an exact cancellation.
template <typename T> T rounded(Sum S, u32 Mode) {
  using F = Format<T>;
  if (S.Zero)
    return F::value(Mode == ModeDownward ? F::SignBit : 0);
  return F::value((S.Neg ? F::SignBit : 0) | F::round(S.P, away(Mode, S.Neg)));
}

/// a + b, or a - b when Sub (b's sign flipped, but a NaN b is returned as it is).
template <typename T> T addDirected(T A, T B, bool Sub, u32 Mode) {
  using F = Format<T>;
  typename F::Bits UA = F::bits(A), UB = F::bits(B);
  if (isNaN<F>(UA) || isNaN<F>(UB))
    return F::value((isNaN<F>(UA) ? UA : UB) | F::Quiet);
  if (Sub)
    UB ^= F::SignBit;
  bool NA = UA & F::SignBit, NB = UB & F::SignBit;
  if (isInf<F>(UA) || isInf<F>(UB)) {
    if (isInf<F>(UA) && isInf<F>(UB) && NA != NB)
      return F::value(F::NaN);
    return F::value(isInf<F>(UA) ? UA : UB);
  }
  if (isZero<F>(UA) && isZero<F>(UB))
    return F::value(NA == NB ? UA : Mode == ModeDownward ? F::SignBit : 0);
  if (isZero<F>(UA) || isZero<F>(UB))
    return F::value(isZero<F>(UA) ? UB : UA);
  return rounded<T>(sumOf(NA, widen(F::split(UA)), NB, widen(F::split(UB))), Mode);
}

template <typename T> T mulDirected(T A, T B, u32 Mode) {
  using F = Format<T>;
  typename F::Bits UA = F::bits(A), UB = F::bits(B);
  if (isNaN<F>(UA) || isNaN<F>(UB))
    return F::value((isNaN<F>(UA) ? UA : UB) | F::Quiet);
  typename F::Bits Sign = (UA ^ UB) & F::SignBit;
  if ((isInf<F>(UA) && isZero<F>(UB)) || (isZero<F>(UA) && isInf<F>(UB)))
    return F::value(F::NaN);
  if (isInf<F>(UA) || isInf<F>(UB))
    return F::value(Sign | F::Inf);
  if (isZero<F>(UA) || isZero<F>(UB))
    return F::value(Sign);
  Wide P = product(F::split(UA), F::split(UB));
  return rounded<T>({Sign != 0, false, normalize(P.M, P.E, false)}, Mode);
}

template <typename T> T fmaDirected(T A, T B, T C, u32 Mode) {
  using F = Format<T>;
  typename F::Bits UA = F::bits(A), UB = F::bits(B), UC = F::bits(C);
  if (isNaN<F>(UA) || isNaN<F>(UB))
    return F::value((isNaN<F>(UA) ? UA : UB) | F::Quiet);
  if ((isInf<F>(UA) && isZero<F>(UB)) || (isZero<F>(UA) && isInf<F>(UB)))
    return F::value(F::NaN);
  if (isNaN<F>(UC))
    return F::value(UC | F::Quiet);
  bool NP = (UA ^ UB) & F::SignBit, NC = UC & F::SignBit;
  if (isInf<F>(UA) || isInf<F>(UB)) {
    if (isInf<F>(UC) && NC != NP)
      return F::value(F::NaN);
    return F::value((NP ? F::SignBit : 0) | F::Inf);
  }
  if (isInf<F>(UC))
    return C;
  bool ZeroP = isZero<F>(UA) || isZero<F>(UB);
  if (ZeroP && isZero<F>(UC))
    return F::value(NP == NC ? UC : Mode == ModeDownward ? F::SignBit : 0);
  if (ZeroP)
    return C;
  Wide P = product(F::split(UA), F::split(UB));
  if (isZero<F>(UC))
    return rounded<T>({NP, false, normalize(P.M, P.E, false)}, Mode);
  return rounded<T>(sumOf(NP, P, NC, widen(F::split(UC))), Mode);
}

template <typename T> T divDirected(T A, T B, u32 Mode) {
  using F = Format<T>;
  typename F::Bits UA = F::bits(A), UB = F::bits(B);
  typename F::Bits Sign = (UA ^ UB) & F::SignBit;
  if (isNaN<F>(UA) || isNaN<F>(UB))
    return F::value((isNaN<F>(UA) ? UA : UB) | F::Quiet);
  if ((isInf<F>(UA) && isInf<F>(UB)) || (isZero<F>(UA) && isZero<F>(UB)))
    return F::value(F::NaN);
  if (isInf<F>(UA) || isZero<F>(UB))
    return F::value(Sign | F::Inf);
  if (isZero<F>(UA) || isInf<F>(UB))
    return F::value(Sign);
  Parts Q = quotient<F::Prec>(F::split(UA), F::split(UB));
  return F::value(Sign | F::round(Q, away(Mode, Sign != 0)));
}

template <typename T> T sqrtDirected(T A, u32 Mode) {
  using F = Format<T>;
  typename F::Bits UA = F::bits(A);
  if (isNaN<F>(UA))
    return F::value(UA | F::Quiet);
  if (isZero<F>(UA))
    return A;
  if (UA & F::SignBit)
    return F::value(F::NaN);
  if (isInf<F>(UA))
    return A;
  return F::value(F::round(root<F::Prec>(F::split(UA)), away(Mode, false)));
}

} // namespace

REPTX_HELPER("reptx.add.directed.f32", float, reptx_add_directed_f32,
             (float A, float B, u32 Mode)) {
  return addDirected(A, B, false, Mode);
}
REPTX_HELPER("reptx.add.directed.f64", double, reptx_add_directed_f64,
             (double A, double B, u32 Mode)) {
  return addDirected(A, B, false, Mode);
}
REPTX_HELPER("reptx.sub.directed.f32", float, reptx_sub_directed_f32,
             (float A, float B, u32 Mode)) {
  return addDirected(A, B, true, Mode);
}
REPTX_HELPER("reptx.sub.directed.f64", double, reptx_sub_directed_f64,
             (double A, double B, u32 Mode)) {
  return addDirected(A, B, true, Mode);
}
REPTX_HELPER("reptx.mul.directed.f32", float, reptx_mul_directed_f32,
             (float A, float B, u32 Mode)) {
  return mulDirected(A, B, Mode);
}
REPTX_HELPER("reptx.mul.directed.f64", double, reptx_mul_directed_f64,
             (double A, double B, u32 Mode)) {
  return mulDirected(A, B, Mode);
}
REPTX_HELPER("reptx.fma.directed.f32", float, reptx_fma_directed_f32,
             (float A, float B, float C, u32 Mode)) {
  return fmaDirected(A, B, C, Mode);
}
REPTX_HELPER("reptx.fma.directed.f64", double, reptx_fma_directed_f64,
             (double A, double B, double C, u32 Mode)) {
  return fmaDirected(A, B, C, Mode);
}

REPTX_HELPER("reptx.div.directed.f32", float, reptx_div_directed_f32,
             (float A, float B, u32 Mode)) {
  return divDirected(A, B, Mode);
}
REPTX_HELPER("reptx.div.directed.f64", double, reptx_div_directed_f64,
             (double A, double B, u32 Mode)) {
  return divDirected(A, B, Mode);
}
REPTX_HELPER("reptx.sqrt.directed.f32", float, reptx_sqrt_directed_f32, (float A, u32 Mode)) {
  return sqrtDirected(A, Mode);
}
REPTX_HELPER("reptx.sqrt.directed.f64", double, reptx_sqrt_directed_f64, (double A, u32 Mode)) {
  return sqrtDirected(A, Mode);
}

} // namespace reptx::device
