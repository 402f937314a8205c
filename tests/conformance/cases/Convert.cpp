// Conversions (PTX ISA 9.7.9.21 cvt, cvt.pack; 9.7.9.19 cvta; 9.7.9.20 isspacep): float to
// integer conversions saturate (NaN -> 0), integer rounding modifiers on float results round to
// an integral value, narrowing integer conversions truncate unless .sat, f16/bf16 round to nearest
// even, tf32 .rna rounds to nearest with ties away.
#include "../Conformance.h"

#include <bit>
#include <cfenv>
#include <climits>
#include <cmath>
#include <limits>

// The references change the rounding mode: no operation may move across fesetround.
#pragma STDC FENV_ACCESS ON

namespace reptx::conformance {

namespace {

using u64 = uint64_t;

const float Inf = std::numeric_limits<float>::infinity();
const std::vector<u64> FV = {f32(0.0f),  f32(-0.0f), f32(0.5f),   f32(1.5f),       f32(2.5f),
                             f32(-1.5f), f32(-2.7f), f32(3e9f),   f32(-3e9f),      f32(Inf),
                             f32(-Inf),  0x7fc00000, f32(1e-40f), f32(8388609.0f), f32(123.75f)};

Case Cv(std::string Op, std::vector<std::string> In, std::string Out,
        std::vector<std::vector<u64>> Rows, RowFn F) {
  return simple("convert", std::move(Op), std::move(In), std::move(Out), std::move(Rows),
                std::move(F));
}

template <typename T> T satInt(double D) {
  if (std::isnan(D))
    return 0;
  if (D <= double(std::numeric_limits<T>::min()))
    return std::numeric_limits<T>::min();
  if (D >= double(std::numeric_limits<T>::max()))
    return std::numeric_limits<T>::max();
  return T(D);
}

double roundI(const std::string &M, double D) {
  if (M == "rni")
    return std::nearbyint(D); // host default: nearest even
  if (M == "rzi")
    return std::trunc(D);
  if (M == "rmi")
    return std::floor(D);
  return std::ceil(D);
}

u64 f2h(float F) { return std::bit_cast<uint16_t>(_Float16(F)); }
u64 f2bf(float F) {
  uint32_t U = std::bit_cast<uint32_t>(F);
  if (std::isnan(F))
    return 0x7fff;
  U += 0x7fff + ((U >> 16) & 1);
  return U >> 16;
}

// FP8 (PTX ISA 9.7.9.21; e4m3: bias 7, no infinity, NaN 0x7f/0xff, largest 448; e5m2: bias 15,
// infinity 0x7c, NaN above it, largest 57344). A code's value, by its fields.
double fp8Value(unsigned Code, bool E4) {
  unsigned MBits = E4 ? 3 : 2, Bias = E4 ? 7 : 15;
  unsigned Exp = (Code & 0x7f) >> MBits, Man = Code & ((1u << MBits) - 1);
  double V = Exp == 0 ? std::ldexp(double(Man), 1 - int(Bias) - int(MBits))
                      : std::ldexp(double((1u << MBits) | Man), int(Exp) - int(Bias) - int(MBits));
  return (Code & 0x80) ? -V : V;
}
bool fp8IsNaN(unsigned Code, bool E4) { return E4 ? (Code & 0x7f) == 0x7f : (Code & 0x7f) > 0x7c; }
// The code nearest to X among the finite ones (ties to the even code), saturating at the
// largest (.satfinite, infinities included); NaN -> 0x7f, its sign dropped; .relu: X <= 0 -> 0.
u64 fp8Code(double X, bool E4, bool Relu) {
  if (std::isnan(X))
    return 0x7f;
  if (Relu && X <= 0)
    return 0;
  unsigned Max = E4 ? 0x7e : 0x7b, Best = 0;
  double A = std::fabs(X);
  for (unsigned C = 1; C <= Max; ++C) {
    double D = std::fabs(fp8Value(C, E4) - A), DB = std::fabs(fp8Value(Best, E4) - A);
    if (D < DB || (D == DB && C % 2 == 0))
      Best = C;
  }
  if (A >= fp8Value(Max, E4))
    Best = Max;
  return Best | (std::signbit(X) ? 0x80u : 0u);
}
// An FP8 code as f16 bits: exact; NaN -> 0x7fff; .relu: negative -> +0.
u64 fp8ToHalf(unsigned Code, bool E4, bool Relu) {
  if (fp8IsNaN(Code, E4))
    return 0x7fff;
  bool Negative = Code & 0x80;
  if (Relu && Negative)
    return 0;
  if (!E4 && (Code & 0x7f) == 0x7c)
    return Negative ? 0xfc00 : 0x7c00;
  return std::bit_cast<uint16_t>(_Float16(fp8Value(Code, E4)));
}

} // namespace

void addConvertCases(CaseList &L) {
  for (std::string M : {"rni", "rzi", "rmi", "rpi"})
    L.push_back(Cv("cvt." + M + ".f32.f32", {"f32"}, "f32", rows1(FV), [M](auto &R) {
      float A = asF32(R[0]);
      return std::vector<u64>{f32(std::isnan(A) ? A : float(roundI(M, A)))};
    }));
  L.push_back(Cv("cvt.rni.f64.f64", {"f64"}, "f64",
                 rows1({f64(0.5), f64(1.5), f64(-2.5), f64(1e300), f64(-0.2)}),
                 [](auto &R) { return std::vector<u64>{f64(std::nearbyint(asF64(R[0])))}; }));
  for (std::string M : {"rni", "rzi", "rmi", "rpi"})
    L.push_back(Cv("cvt." + M + ".s32.f32", {"f32"}, "s32", rows1(FV), [M](auto &R) {
      return std::vector<u64>{uint32_t(satInt<int32_t>(roundI(M, asF32(R[0]))))};
    }));
  L.push_back(Cv("cvt.rzi.u32.f32", {"f32"}, "u32", rows1(FV), [](auto &R) {
    return std::vector<u64>{satInt<uint32_t>(std::trunc(asF32(R[0])))};
  }));
  L.push_back(Cv(
      "cvt.rni.s64.f64", {"f64"}, "s64",
      rows1(
          {f64(0.5), f64(-1.5), f64(1e19), f64(-1e19), 0x7ff8000000000000ull, f64(123456789012.5)}),
      [](auto &R) { return std::vector<u64>{u64(satInt<int64_t>(std::nearbyint(asF64(R[0]))))}; }));
  L.push_back(Cv("cvt.rzi.u16.f32", {"f32"}, "u16", rows1(FV), [](auto &R) {
    return std::vector<u64>{satInt<uint16_t>(std::trunc(asF32(R[0])))};
  }));
  L.push_back(Cv("cvt.rzi.s8.f32", {"f32"}, "s8", rows1(FV), [](auto &R) {
    // s8 destinations are 16-bit registers holding the sign-extended value.
    return std::vector<u64>{uint8_t(satInt<int8_t>(std::trunc(asF32(R[0]))))};
  }));
  for (std::string M : {"rn", "rz", "rm", "rp"}) {
    int Mode = M == "rn"   ? FE_TONEAREST
               : M == "rz" ? FE_TOWARDZERO
               : M == "rm" ? FE_DOWNWARD
                           : FE_UPWARD;
    L.push_back(Cv("cvt." + M + ".f32.s32", {"s32"}, "f32",
                   rows1({0, 1, 0x7fffffff, 0x80000000, 16777217, 0xfeffffff}), [Mode](auto &R) {
                     std::fesetround(Mode);
                     volatile int32_t V = int32_t(uint32_t(R[0]));
                     float F = float(V);
                     std::fesetround(FE_TONEAREST);
                     return std::vector<u64>{f32(F)};
                   }));
    L.push_back(Cv(
        "cvt." + M + ".f32.f64", {"f64"}, "f32",
        rows1({f64(0.1), f64(-1.0 / 3), f64(1e39), f64(-1e39), f64(1e-46), 0x7ff8000000000000ull}),
        [Mode](auto &R) {
          std::fesetround(Mode);
          volatile double V = asF64(R[0]);
          float F = float(V);
          std::fesetround(FE_TONEAREST);
          return std::vector<u64>{f32(F)};
        }));
  }
  L.push_back(Cv("cvt.rz.f32.u64", {"u64"}, "f32",
                 rows1({0, 1, 0xffffffffffffffffull, 0x8000008000000001ull}), [](auto &R) {
                   std::fesetround(FE_TOWARDZERO);
                   volatile uint64_t V = R[0];
                   float F = float(V);
                   std::fesetround(FE_TONEAREST);
                   return std::vector<u64>{f32(F)};
                 }));
  L.push_back(Cv("cvt.rn.f64.s64", {"s64"}, "f64",
                 rows1({0, 0x8000000000000000ull, 0x7fffffffffffffffull, 0x20000000000001ull}),
                 [](auto &R) { return std::vector<u64>{f64(double(int64_t(R[0])))}; }));
  L.push_back(Cv("cvt.f64.f32", {"f32"}, "f64", rows1(FV), [](auto &R) {
    float A = asF32(R[0]);
    return std::vector<u64>{std::isnan(A) ? Any : f64(double(A))};
  }));
  L.push_back(Cv("cvt.ftz.f64.f32", {"f32"}, "f64", rows1({f32(1e-40f), f32(-1e-40f), f32(2.0f)}),
                 [](auto &R) {
                   float A = asF32(R[0]);
                   double D = std::fpclassify(A) == FP_SUBNORMAL ? std::copysign(0.0, A) : A;
                   return std::vector<u64>{f64(D)};
                 }));
  L.push_back(Cv("cvt.s8.s32", {"s32"}, "s16", rows1({0, 0x7f, 0x80, 0x1ff, 0xffffff7f}),
                 [](auto &R) { return std::vector<u64>{uint16_t(int16_t(int8_t(R[0])))}; }));
  L.back().Body = "cvt.s8.s32 %d0, %a0;";
  L.push_back(
      Cv("cvt.sat.s8.s32", {"s32"}, "s16", rows1({0, 0x7f, 0x80, 0x1ff, 0xffffff7f}), [](auto &R) {
        int32_t V = std::clamp(int32_t(uint32_t(R[0])), -128, 127);
        return std::vector<u64>{uint16_t(int16_t(V))};
      }));
  L.back().Body = "cvt.sat.s8.s32 %d0, %a0;";
  L.push_back(
      Cv("cvt.sat.u16.s32", {"s32"}, "u16", rows1({0, 0xffff, 0x10000, 0xffffffff}), [](auto &R) {
        return std::vector<u64>{u64(std::clamp(int32_t(uint32_t(R[0])), 0, 65535))};
      }));
  L.push_back(Cv("cvt.u16.u32", {"u32"}, "u16", rows1({0, 0xffff, 0x12345678}),
                 [](auto &R) { return std::vector<u64>{R[0] & 0xffff}; }));
  L.push_back(Cv("cvt.s64.s32", {"s32"}, "s64", rows1({0, 0x7fffffff, 0x80000000, 0xffffffff}),
                 [](auto &R) { return std::vector<u64>{u64(int64_t(int32_t(R[0])))}; }));
  L.push_back(Cv("cvt.u64.u32", {"u32"}, "u64", rows1({0, 0x7fffffff, 0x80000000, 0xffffffff}),
                 [](auto &R) { return std::vector<u64>{R[0] & 0xffffffff}; }));
  L.push_back(Cv("cvt.sat.u32.s64", {"s64"}, "u32",
                 rows1({0, 0x100000000ull, 0xffffffffffffffffull, 0xffffffff}), [](auto &R) {
                   int64_t V = int64_t(R[0]);
                   return std::vector<u64>{u64(std::clamp<int64_t>(V, 0, 0xffffffff))};
                 }));
  L.push_back(Cv("cvt.rn.f16.f32", {"f32"}, "f16", rows1(FV), [](auto &R) {
    float A = asF32(R[0]);
    return std::vector<u64>{std::isnan(A) ? Any : f2h(A)};
  }));
  L.push_back(Cv("cvt.f32.f16", {"f16"}, "f32",
                 rows1({0x0000, 0x8000, 0x3c00, 0x0001, 0x7bff, 0xfc00, 0x3555}), [](auto &R) {
                   return std::vector<u64>{f32(float(std::bit_cast<_Float16>(uint16_t(R[0]))))};
                 }));
  L.push_back(Cv("cvt.rn.bf16.f32", {"f32"}, "bf16", rows1(FV),
                 [](auto &R) { return std::vector<u64>{f2bf(asF32(R[0]))}; }));
  L.push_back(Cv("cvt.f32.bf16", {"bf16"}, "f32", rows1({0x0000, 0x8000, 0x3f80, 0x7f80, 0x0001}),
                 [](auto &R) { return std::vector<u64>{u64(uint32_t(R[0]) << 16)}; }));
  // cvt.rn.f16x2.f32 d, a, b: a to the upper half, b to the lower (9.7.9.21).
  L.push_back(
      Cv("cvt.rn.f16x2.f32", {"f32", "f32"}, "f16x2",
         rows2({f32(1.0f), f32(-2.5f), f32(70000.0f)}, {f32(0.1f), f32(-0.0f)}),
         [](auto &R) { return std::vector<u64>{(f2h(asF32(R[0])) << 16) | f2h(asF32(R[1]))}; }));
  L.push_back(
      Cv("cvt.rn.bf16x2.f32", {"f32", "f32"}, "bf16x2",
         rows2({f32(1.0f), f32(-2.5f), f32(3.14159f)}, {f32(0.1f), f32(-0.0f)}),
         [](auto &R) { return std::vector<u64>{(f2bf(asF32(R[0])) << 16) | f2bf(asF32(R[1]))}; }));
  L.push_back(Cv("cvt.rn.relu.f16.f32", {"f32"}, "f16",
                 rows1({f32(1.0f), f32(-2.5f), f32(0.1f), f32(-0.0f)}), [](auto &R) {
                   u64 H = f2h(asF32(R[0]));
                   return std::vector<u64>{(H & 0x8000) ? 0 : H};
                 }));
  // tf32 .rna: 10 explicit mantissa bits, ties away from zero, kept in a 32-bit container.
  L.push_back(Cv("cvt.rna.tf32.f32", {"f32"}, "b32",
                 rows1({f32(1.0f), 0x3f801000, 0x3f803000, 0x3f800fff, 0xbf801000, f32(Inf)}),
                 [](auto &R) {
                   uint32_t U = uint32_t(R[0]);
                   if (std::isinf(asF32(U)))
                     return std::vector<u64>{U};
                   return std::vector<u64>{u64((U + 0x1000u) & 0xffffe000u)};
                 }));
  // FP8 pairs: from two f32 (a to the upper byte, b to the lower) or an f16x2, with .satfinite
  // (required) and .relu; to f16x2 (9.7.9.21).
  const std::vector<u64> F8In = {
      f32(0.0f),    f32(-0.0f),    f32(1.0f),     f32(-1.5f),     f32(17.0f),
      f32(448.0f),  f32(464.0f),   f32(-500.0f),  f32(57344.0f),  f32(61440.0f),
      f32(1e6f),    f32(Inf),      f32(-Inf),     0x7fc00000,     0xffc00000,
      f32(0x1p-9f), f32(0x1p-10f), f32(0x3p-10f), f32(0x1p-16f),  f32(0x1p-17f),
      f32(0.3f),    f32(-3.3f),    f32(1e-7f),    f32(0x1.3p-7f), f32(-0x1.5p-15f)};
  for (bool E4 : {true, false})
    for (bool Relu : {false, true}) {
      std::string Op = std::string("cvt.rn.satfinite") + (Relu ? ".relu" : "") +
                       (E4 ? ".e4m3x2" : ".e5m2x2") + ".f32";
      L.push_back(
          Cv(Op, {"f32", "f32"}, "b16", rows2(F8In, {f32(2.0f), 0xffc00000}), [E4, Relu](auto &R) {
            return std::vector<u64>{(fp8Code(asF32(R[0]), E4, Relu) << 8) |
                                    fp8Code(asF32(R[1]), E4, Relu)};
          }));
    }
  L.push_back(Cv(
      "cvt.rn.satfinite.e4m3x2.f16x2", {"f16x2"}, "b16",
      rows1({0x3c00bc00, 0x5f005f40, 0x7c00fc00, 0x7e00fe00, 0x00010400, 0x4c40cc50, 0x1c003000}),
      [](auto &R) {
        auto H = [](u64 V) { return double(std::bit_cast<_Float16>(uint16_t(V))); };
        return std::vector<u64>{(fp8Code(H(R[0] >> 16), true, false) << 8) |
                                fp8Code(H(R[0] & 0xffff), true, false)};
      }));
  std::vector<u64> Pairs; // every code, two to a row
  for (unsigned C = 0; C < 256; C += 2)
    Pairs.push_back((C + 1) << 8 | C);
  for (bool E4 : {true, false})
    for (bool Relu : {false, true}) {
      std::string Op =
          std::string("cvt.rn") + (Relu ? ".relu" : "") + ".f16x2" + (E4 ? ".e4m3x2" : ".e5m2x2");
      L.push_back(Cv(Op, {"b16"}, "f16x2", rows1(Pairs), [E4, Relu](auto &R) {
        unsigned Hi = unsigned(R[0] >> 8) & 0xff, Lo = unsigned(R[0]) & 0xff;
        return std::vector<u64>{fp8ToHalf(Hi, E4, Relu) << 16 | fp8ToHalf(Lo, E4, Relu)};
      }));
    }
  // cvt.pack.sat.u8.s32.b32 d, a, b, c: a and b saturated to u8 into bytes 1 and 0, over c's
  // bytes shifted up by 2 (9.7.9.22).
  L.push_back(Cv("cvt.pack.sat.u8.s32.b32", {"s32", "s32", "b32"}, "b32",
                 rows3({5, 300, 0xffffffff}, {0x80, 0xfffffff0}, {0x00001122}), [](auto &R) {
                   auto S = [](u64 V) { return u64(std::clamp(int32_t(uint32_t(V)), 0, 255)); };
                   return std::vector<u64>{((R[2] & 0xffff) << 16) | (S(R[0]) << 8) | S(R[1])};
                 }));
  // The other convertTypes, from the manual's pseudocode: ta/tb = a/b clamped to [MIN, MAX] of
  // the n-bit convertType; bits [n-1:0] of d are tb, [2n-1:n] ta, and for .u8/.s8 bits
  // [31:2n] are c's low bits; .u16/.s16 have no c.
  auto Pack = [](uint64_t A, uint64_t B, uint64_t C, int N, bool Signed) {
    int64_t Lo = Signed ? -(int64_t(1) << (N - 1)) : 0;
    int64_t Hi = Signed ? (int64_t(1) << (N - 1)) - 1 : (int64_t(1) << N) - 1;
    uint32_t Mask = uint32_t((uint64_t(1) << N) - 1);
    uint32_t TA = uint32_t(std::clamp<int64_t>(int32_t(uint32_t(A)), Lo, Hi)) & Mask;
    uint32_t TB = uint32_t(std::clamp<int64_t>(int32_t(uint32_t(B)), Lo, Hi)) & Mask;
    uint32_t D = (TA << N) | TB;
    if (N < 16)
      D |= uint32_t(C) << (2 * N);
    return u64(D);
  };
  const std::vector<u64> PackV = {0,      1,       0x7f,       0x80,       0xffffff80, 0xffffff7f,
                                  0xff,   0x100,   0x7fff,     0x8000,     0xffff8000, 0xffff7fff,
                                  0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xffffffff};
  L.push_back(Cv("cvt.pack.sat.u16.s32", {"s32", "s32"}, "b32", rows2(PackV, {0x8000, 0xffffffff}),
                 [Pack](auto &R) { return std::vector<u64>{Pack(R[0], R[1], 0, 16, false)}; }));
  L.push_back(Cv("cvt.pack.sat.s16.s32", {"s32", "s32"}, "b32", rows2(PackV, {0x7fff, 0xffff8000}),
                 [Pack](auto &R) { return std::vector<u64>{Pack(R[0], R[1], 0, 16, true)}; }));
  L.push_back(Cv("cvt.pack.sat.s8.s32.b32", {"s32", "s32", "b32"}, "b32",
                 rows3(PackV, {0xffffff7f, 0x80}, {0, 0xdeadbeef}),
                 [Pack](auto &R) { return std::vector<u64>{Pack(R[0], R[1], R[2], 8, true)}; }));
  // Four values into one word: the first pack's result is the second's c.
  {
    Case C =
        Cv("cvt.pack.sat.u8.s32.b32.x4", {"s32", "s32", "s32", "s32"}, "b32", {}, [Pack](auto &R) {
          return std::vector<u64>{Pack(R[0], R[1], Pack(R[2], R[3], 0, 8, false), 8, false)};
        });
    C.Body = "cvt.pack.sat.u8.s32.b32 %r1, %a2, %a3, 0;\n"
             "  cvt.pack.sat.u8.s32.b32 %d0, %a0, %a1, %r1;";
    for (u64 V : PackV)
      C.Rows.push_back({V, 0x80000000 - V, V * 7, ~V});
    L.push_back(C);
  }
}

} // namespace reptx::conformance
