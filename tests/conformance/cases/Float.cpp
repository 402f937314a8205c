// Floating-point family f32/f64 (PTX ISA 9.7.3 and 9.7.4): IEEE 754 results from the host with
// the rounding mode set by fesetround (operands through volatile so nothing folds), .ftz by
// flushing subnormal inputs and results to sign-preserving zero, .sat by clamping to [0, 1]
// (NaN -> +0). .approx instructions are checked within the error bound the manual states.
#include "../Conformance.h"

#include <bit>
#include <cfenv>
#include <cmath>
#include <limits>

// The references change the rounding mode: no operation may move across fesetround.
#pragma STDC FENV_ACCESS ON

namespace reptx::conformance {

namespace {

using u64 = uint64_t;

const float Inf = std::numeric_limits<float>::infinity();
const float Den = std::numeric_limits<float>::denorm_min();
const std::vector<u64> F32 = {f32(0.0f), f32(-0.0f),    f32(1.0f),      f32(-1.5f),
                              f32(3.0f), f32(1e-3f),    f32(7.5e37f),   f32(-7.5e37f),
                              f32(Inf),  f32(-Inf),     0x7fc00000,     0x7fa12345,
                              f32(Den),  f32(-Den * 5), f32(1.17e-38f), f32(0.1f)};
const std::vector<u64> F32Small = {f32(0.0f),  f32(-0.0f), f32(1.0f),      f32(-1.5f),
                                   f32(0.1f),  f32(Inf),   0x7fc00000,     f32(Den * 3),
                                   f32(3e38f), f32(1e-3f), f32(-1.17e-38f)};
const double DInf = std::numeric_limits<double>::infinity();
const std::vector<u64> F64 = {
    f64(0.0),      f64(-0.0),   f64(1.0),    f64(-1.5),  f64(0.1),
    f64(1e300),    f64(-1e300), f64(DInf),   f64(-DInf), 0x7ff8000000000000ull,
    f64(4.9e-324), f64(3.0),    f64(1.0 / 3)};

int roundMode(const std::string &Op) {
  if (Op.find(".rz") != std::string::npos)
    return FE_TOWARDZERO;
  if (Op.find(".rm") != std::string::npos)
    return FE_DOWNWARD;
  if (Op.find(".rp") != std::string::npos)
    return FE_UPWARD;
  return FE_TONEAREST;
}

template <typename Fn> auto rounded(int Mode, Fn F) {
  std::fesetround(Mode);
  auto R = F();
  std::fesetround(FE_TONEAREST);
  return R;
}

float ftz(float F) { return std::fpclassify(F) == FP_SUBNORMAL ? std::copysign(0.0f, F) : F; }
float sat(float F) { return std::isnan(F) ? 0.0f : std::fmin(std::fmax(F, 0.0f), 1.0f); }

Case F(std::string Op, std::vector<std::string> In, std::string Out,
       std::vector<std::vector<u64>> Rows, RowFn Fn, double Tol = 0) {
  Case C =
      simple("float", std::move(Op), std::move(In), std::move(Out), std::move(Rows), std::move(Fn));
  C.RelTol = Tol;
  return C;
}

// f32 binary with the rounding mode of its name, optional ftz/sat.
Case bin32(std::string Op, float (*G)(float, float)) {
  int Mode = roundMode(Op);
  bool Ftz = Op.find(".ftz") != std::string::npos, Sat = Op.find(".sat") != std::string::npos;
  return F(Op, {"f32", "f32"}, "f32", rows2(F32, F32Small), [=](auto &R) {
    volatile float A = asF32(R[0]), B = asF32(R[1]);
    float X = Ftz ? ftz(A) : float(A), Y = Ftz ? ftz(B) : float(B);
    float D = rounded(Mode, [&] {
      volatile float VX = X, VY = Y;
      return G(VX, VY);
    });
    if (Ftz)
      D = ftz(D);
    if (Sat)
      D = sat(D);
    return std::vector<u64>{Sat && D == 0 ? AnyZero : f32(D)};
  });
}

Case bin64(std::string Op, double (*G)(double, double)) {
  int Mode = roundMode(Op);
  return F(Op, {"f64", "f64"}, "f64", rows2(F64, F64), [=](auto &R) {
    double D = rounded(Mode, [&] {
      volatile double A = asF64(R[0]), B = asF64(R[1]);
      return G(A, B);
    });
    return std::vector<u64>{f64(D)};
  });
}

Case fma32(std::string Op) {
  int Mode = roundMode(Op);
  bool Ftz = Op.find(".ftz") != std::string::npos, Sat = Op.find(".sat") != std::string::npos;
  return F(Op, {"f32", "f32", "f32"}, "f32",
           rows3(F32Small, {f32(1.0f), f32(-3.0f), f32(1e-30f), f32(Inf)},
                 {f32(0.0f), f32(-1.0f), f32(2e-38f), f32(0.5f)}),
           [=](auto &R) {
             float A = asF32(R[0]), B = asF32(R[1]), C = asF32(R[2]);
             if (Ftz)
               A = ftz(A), B = ftz(B), C = ftz(C);
             float D = rounded(Mode, [&] {
               volatile float VA = A, VB = B, VC = C;
               return std::fma(float(VA), float(VB), float(VC));
             });
             if (Ftz)
               D = ftz(D);
             if (Sat)
               D = sat(D);
             return std::vector<u64>{Sat && D == 0 ? AnyZero : f32(D)};
           });
}

Case un32(std::string Op, float (*G)(float), std::vector<u64> In = F32, double Tol = 0) {
  int Mode = roundMode(Op);
  bool Ftz = Op.find(".ftz") != std::string::npos;
  return F(
      Op, {"f32"}, "f32", rows1(In),
      [=](auto &R) {
        float A = asF32(R[0]);
        if (Ftz)
          A = ftz(A);
        float D = rounded(Mode, [&] {
          volatile float VA = A;
          return G(VA);
        });
        if (Ftz)
          D = ftz(D);
        return std::vector<u64>{f32(D)};
      },
      Tol);
}

Case un64(std::string Op, double (*G)(double), double Tol = 0) {
  int Mode = roundMode(Op);
  return F(
      Op, {"f64"}, "f64", rows1(F64),
      [=](auto &R) {
        double D = rounded(Mode, [&] {
          volatile double VA = asF64(R[0]);
          return G(VA);
        });
        return std::vector<u64>{f64(D)};
      },
      Tol);
}

// PTX min/max (9.7.3.11/12): a NaN operand yields the other one; both NaN -> canonical NaN;
// -0 < +0.
float minMaxRef(float A, float B, bool Min) {
  if (std::isnan(A) && std::isnan(B))
    return std::bit_cast<float>(0x7fffffffu);
  if (std::isnan(A))
    return B;
  if (std::isnan(B))
    return A;
  if (A == 0 && B == 0)
    return std::signbit(A) == Min ? A : B;
  return (Min ? A < B : A > B) ? A : B;
}
float minRef(float A, float B) { return minMaxRef(A, B, true); }
float maxRef(float A, float B) { return minMaxRef(A, B, false); }

const std::vector<u64> Angles = {f32(0.0f), f32(0.5f),   f32(-1.0f),
                                 f32(3.0f), f32(-3.14f), f32(1.5707964f)};
const std::vector<u64> Positive = {f32(1.0f),   f32(2.0f),     f32(0.3f), f32(1e10f),
                                   f32(1e-10f), f32(123.456f), f32(Inf),  f32(0.0f)};

} // namespace

void addFloatCases(CaseList &L) {
  auto Add = [](float A, float B) { return A + B; };
  auto Sub = [](float A, float B) { return A - B; };
  auto Mul = [](float A, float B) { return A * B; };
  auto Div = [](float A, float B) { return A / B; };
  for (const char *Op : {"add.rn.f32", "add.rz.f32", "add.rm.f32", "add.rp.f32", "add.ftz.f32",
                         "add.sat.f32", "add.f32"})
    L.push_back(bin32(Op, Add));
  for (const char *Op : {"sub.rn.f32", "sub.rm.ftz.f32"})
    L.push_back(bin32(Op, Sub));
  for (const char *Op : {"mul.rn.f32", "mul.rz.f32", "mul.rp.f32", "mul.ftz.sat.f32"})
    L.push_back(bin32(Op, Mul));
  for (const char *Op : {"div.rn.f32", "div.rz.f32", "div.rm.f32", "div.rp.f32", "div.rn.ftz.f32"})
    L.push_back(bin32(Op, Div));
  for (const char *Op : {"fma.rn.f32", "fma.rz.f32", "fma.rm.f32", "fma.rp.f32", "fma.rn.ftz.f32",
                         "fma.rn.sat.f32", "mad.rn.f32"})
    L.push_back(fma32(Op));
  // div.full.f32: max error 2 ulp; div.approx.f32: 2 ulp for |b| in [2^-126, 2^126] (9.7.3.8).
  L.push_back(F(
      "div.full.f32", {"f32", "f32"}, "f32",
      rows2({f32(1.0f), f32(-7.0f), f32(1e20f)}, {f32(3.0f), f32(0.7f), f32(-1e5f)}),
      [](auto &R) { return std::vector<u64>{f32(asF32(R[0]) / asF32(R[1]))}; }, 3e-7));
  L.push_back(F(
      "div.approx.f32", {"f32", "f32"}, "f32",
      rows2({f32(1.0f), f32(-7.0f), f32(1e20f)}, {f32(3.0f), f32(0.7f), f32(-1e5f)}),
      [](auto &R) { return std::vector<u64>{f32(asF32(R[0]) / asF32(R[1]))}; }, 3e-7));
  L.push_back(un32("rcp.rn.f32", [](float A) { return 1.0f / A; }));
  L.push_back(un32("rcp.rz.f32", [](float A) { return 1.0f / A; }));
  L.push_back(un32("rcp.rn.ftz.f32", [](float A) { return 1.0f / A; }));
  L.push_back(un32("sqrt.rn.f32", [](float A) { return std::sqrt(A); }));
  L.push_back(un32("sqrt.rp.f32", [](float A) { return std::sqrt(A); }));
  // Approximations: rcp/sqrt/rsqrt max 1 ulp-ish (2^-23 relative), ex2/lg2 2 ulp + 2^-22 abs,
  // sin/cos 2^-20.9 absolute in [-pi, pi], tanh 2^-10.987 relative (9.7.3.13-22).
  L.push_back(un32(
      "rcp.approx.f32", [](float A) { return 1.0f / A; }, Positive, 2.5e-7));
  L.push_back(un32(
      "rcp.approx.ftz.f32", [](float A) { return 1.0f / A; }, Positive, 2.5e-7));
  L.push_back(un32(
      "sqrt.approx.f32", [](float A) { return std::sqrt(A); }, Positive, 2.5e-7));
  L.push_back(un32(
      "rsqrt.approx.f32", [](float A) { return 1.0f / std::sqrt(A); }, Positive, 2.5e-7));
  L.push_back(un32(
      "sin.approx.f32", [](float A) { return float(std::sin(double(A))); }, Angles, 6e-7));
  L.push_back(un32(
      "cos.approx.ftz.f32", [](float A) { return float(std::cos(double(A))); }, Angles, 6e-7));
  L.push_back(un32(
      "lg2.approx.f32", [](float A) { return float(std::log2(double(A))); }, Positive, 5e-7));
  L.push_back(un32(
      "ex2.approx.f32", [](float A) { return float(std::exp2(double(A))); },
      {f32(0.0f), f32(1.0f), f32(-2.5f), f32(10.3f), f32(-Inf), f32(Inf)}, 5e-7));
  L.push_back(un32(
      "tanh.approx.f32", [](float A) { return float(std::tanh(double(A))); },
      {f32(0.0f), f32(0.5f), f32(-1.0f), f32(3.0f), f32(20.0f)}, 5e-4));
  L.push_back(F("min.f32", {"f32", "f32"}, "f32", rows2(F32Small, F32Small),
                [](auto &R) { return std::vector<u64>{f32(minRef(asF32(R[0]), asF32(R[1])))}; }));
  L.push_back(F("max.f32", {"f32", "f32"}, "f32", rows2(F32Small, F32Small),
                [](auto &R) { return std::vector<u64>{f32(maxRef(asF32(R[0]), asF32(R[1])))}; }));
  // A chain of min/max whose inner results feed only the next one (the backend drops their NaN
  // canonicalization, backend/lib/MinMaxNaN.h) and one that is also stored (it keeps it); NaN
  // operands with payloads and either sign.
  {
    const std::vector<u64> Vals = {f32(1.0f),  f32(-2.5f), 0x7fa12345,
                                   0xffc00001, f32(-0.0f), f32(Inf)};
    Case C =
        F("max.min.f32.chain", {"f32", "f32", "f32"}, "f32", rows3(Vals, Vals, Vals), [](auto &R) {
          float A = asF32(R[0]), B = asF32(R[1]), Cv = asF32(R[2]);
          float M = minRef(maxRef(A, B), Cv);
          return std::vector<u64>{f32(maxRef(M, A)), f32(M)};
        });
    C.OutTypes = {"f32", "f32"};
    C.Body = "max.f32 %f1, %a0, %a1;\n min.f32 %f2, %f1, %a2;\n max.f32 %d0, %f2, %a0;\n"
             " mov.f32 %d1, %f2;";
    L.push_back(std::move(C));
  }
  // A chain of four max with only its end observed, as nvcc unrolls a max reduction: InstCombine
  // folds each step's canonical NaN into the next max (backend/lib/MinMaxNaN.h drops what it
  // leaves), and only the last result is PTX's canonical NaN when all operands are NaNs.
  {
    const std::vector<u64> Vals = {f32(1.0f), 0x7fa12345, 0xffc00001, f32(-0.0f), f32(-Inf)};
    Case C =
        F("max.f32.chain4", {"f32", "f32", "f32"}, "f32", rows3(Vals, Vals, Vals), [](auto &R) {
          float A = asF32(R[0]), B = asF32(R[1]), Cv = asF32(R[2]);
          return std::vector<u64>{f32(maxRef(maxRef(maxRef(maxRef(A, B), Cv), A), B))};
        });
    C.Body = "max.f32 %f1, %a0, %a1;\n max.f32 %f2, %f1, %a2;\n max.f32 %f3, %f2, %a0;\n"
             " max.f32 %d0, %f3, %a1;";
    L.push_back(std::move(C));
  }
  L.push_back(F("min.NaN.f32", {"f32", "f32"}, "f32", rows2(F32Small, F32Small), [](auto &R) {
    float A = asF32(R[0]), B = asF32(R[1]);
    if (std::isnan(A) || std::isnan(B))
      return std::vector<u64>{0x7fffffff};
    return std::vector<u64>{f32(minRef(A, B))};
  }));
  // max.xorsign.abs: max(|a|, |b|) with the sign of sign(a) ^ sign(b) (9.7.3.12).
  L.push_back(F("max.xorsign.abs.f32", {"f32", "f32"}, "f32",
                rows2({f32(1.0f), f32(-2.0f), f32(-0.0f), f32(5.5f)},
                      {f32(-3.0f), f32(1.5f), f32(0.0f), f32(-5.5f)}),
                [](auto &R) {
                  float A = asF32(R[0]), B = asF32(R[1]);
                  float M = maxRef(std::fabs(A), std::fabs(B));
                  bool S = std::signbit(A) != std::signbit(B);
                  return std::vector<u64>{f32(std::copysign(M, S ? -1.0f : 1.0f))};
                }));
  // min/max .xorsign.abs with NaN, infinities, zeros and subnormals, following the manual's
  // pseudocode: s = sign(a) ^ sign(b); a = |a|; b = |b|; both NaN (or either with .NaN) -> NaN;
  // one NaN -> the other; else min/max; the sign bit of a non-NaN result is s. .ftz flushes the
  // inputs first (keeping their signs).
  auto XorSign = [&](std::string Op, bool Min, bool NaNMod, bool Ftz) {
    L.push_back(
        F(Op, {"f32", "f32"}, "f32", rows2(F32Small, F32Small), [Min, NaNMod, Ftz](auto &R) {
          float A = asF32(R[0]), B = asF32(R[1]);
          if (Ftz)
            A = ftz(A), B = ftz(B);
          bool S = std::signbit(A) != std::signbit(B);
          A = std::fabs(A), B = std::fabs(B);
          float D;
          if (std::isnan(A) && std::isnan(B))
            D = NAN;
          else if (NaNMod && (std::isnan(A) || std::isnan(B)))
            D = NAN;
          else if (std::isnan(A))
            D = B;
          else if (std::isnan(B))
            D = A;
          else
            D = Min ? (A < B ? A : B) : (A > B ? A : B);
          if (!std::isnan(D))
            D = std::copysign(D, S ? -1.0f : 1.0f);
          return std::vector<u64>{f32(D)};
        }));
  };
  XorSign("min.xorsign.abs.f32", true, false, false);
  XorSign("max.NaN.xorsign.abs.f32", false, true, false);
  XorSign("min.ftz.NaN.xorsign.abs.f32", true, true, true);
  L.push_back(F("abs.f32", {"f32"}, "f32", rows1(F32),
                [](auto &R) { return std::vector<u64>{u64(uint32_t(R[0]) & 0x7fffffffu)}; }));
  L.push_back(F("neg.f32", {"f32"}, "f32", rows1(F32),
                [](auto &R) { return std::vector<u64>{u64(uint32_t(R[0]) ^ 0x80000000u)}; }));
  L.push_back(F("abs.ftz.f32", {"f32"}, "f32", rows1(F32),
                [](auto &R) { return std::vector<u64>{f32(std::fabs(ftz(asF32(R[0]))))}; }));
  // copysign.f32 d, a, b: b's magnitude with a's sign (9.7.3.3).
  L.push_back(F("copysign.f32", {"f32", "f32"}, "f32", rows2(F32Small, F32Small), [](auto &R) {
    return std::vector<u64>{u64((uint32_t(R[1]) & 0x7fffffffu) | (uint32_t(R[0]) & 0x80000000u))};
  }));
  auto Testp = [&](std::string Kind, bool (*P)(float)) {
    L.push_back(F("testp." + Kind + ".f32", {"f32"}, "pred", rows1(F32),
                  [P](auto &R) { return std::vector<u64>{P(asF32(R[0])) ? 1u : 0u}; }));
  };
  Testp("finite", [](float A) { return std::isfinite(A); });
  Testp("infinite", [](float A) { return std::isinf(A); });
  Testp("number", [](float A) { return !std::isnan(A); });
  Testp("notanumber", [](float A) { return std::isnan(A); });
  // "As a special case, positive and negative zero are considered normal numbers" (9.7.3.1).
  Testp("normal", [](float A) { return std::isnormal(A) || A == 0.0f; });
  Testp("subnormal", [](float A) { return std::fpclassify(A) == FP_SUBNORMAL; });

  auto DAdd = [](double A, double B) { return A + B; };
  for (const char *Op : {"add.rn.f64", "add.rz.f64", "add.rm.f64", "add.rp.f64"})
    L.push_back(bin64(Op, DAdd));
  L.push_back(bin64("sub.rn.f64", [](double A, double B) { return A - B; }));
  for (const char *Op : {"mul.rn.f64", "mul.rz.f64", "mul.rp.f64"})
    L.push_back(bin64(Op, [](double A, double B) { return A * B; }));
  for (const char *Op : {"div.rn.f64", "div.rz.f64", "div.rm.f64"})
    L.push_back(bin64(Op, [](double A, double B) { return A / B; }));
  for (const char *Op : {"fma.rn.f64", "fma.rm.f64"}) {
    int Mode = roundMode(Op);
    L.push_back(F(Op, {"f64", "f64", "f64"}, "f64",
                  rows3(F64, {f64(1.0 / 3), f64(-1e10)}, {f64(0.0), f64(-1.0), f64(1e-300)}),
                  [Mode](auto &R) {
                    double D = rounded(Mode, [&] {
                      volatile double A = asF64(R[0]), B = asF64(R[1]), C = asF64(R[2]);
                      return std::fma(double(A), double(B), double(C));
                    });
                    return std::vector<u64>{f64(D)};
                  }));
  }
  L.push_back(un64("rcp.rn.f64", [](double A) { return 1.0 / A; }));
  L.push_back(un64("sqrt.rn.f64", [](double A) { return std::sqrt(A); }));
  L.push_back(un64("sqrt.rz.f64", [](double A) { return std::sqrt(A); }));
  L.push_back(un64("neg.f64", [](double A) { return -A; }));
  L.push_back(un64("abs.f64", [](double A) { return std::fabs(A); }));
  L.push_back(F("min.f64", {"f64", "f64"}, "f64", rows2(F64, F64), [](auto &R) {
    double A = asF64(R[0]), B = asF64(R[1]);
    double D = std::isnan(A)        ? B
               : std::isnan(B)      ? A
               : (A == 0 && B == 0) ? (std::signbit(A) ? A : B)
                                    : std::fmin(A, B);
    return std::vector<u64>{f64(D)};
  }));
  L.push_back(F("max.f64", {"f64", "f64"}, "f64", rows2(F64, F64), [](auto &R) {
    double A = asF64(R[0]), B = asF64(R[1]);
    double D = std::isnan(A)        ? B
               : std::isnan(B)      ? A
               : (A == 0 && B == 0) ? (std::signbit(A) ? B : A)
                                    : std::fmax(A, B);
    return std::vector<u64>{f64(D)};
  }));
  L.push_back(F(
      "rsqrt.approx.f64", {"f64"}, "f64",
      rows1({f64(1.0), f64(4.0), f64(0.3), f64(1e100), f64(DInf)}),
      [](auto &R) { return std::vector<u64>{f64(1.0 / std::sqrt(asF64(R[0])))}; }, 1e-6));
  L.push_back(F("testp.normal.f64", {"f64"}, "pred", rows1(F64), [](auto &R) {
    double A = asF64(R[0]);
    return std::vector<u64>{std::isnormal(A) || A == 0.0 ? 1u : 0u};
  }));
}

} // namespace reptx::conformance
