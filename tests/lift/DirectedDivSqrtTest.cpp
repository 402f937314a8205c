// Directed rounding of div, rcp and sqrt (PTX ISA 9.7.3.8-10: .rz .rm .rp, f32 with and without
// .ftz, f64): hand-written PTX, one kernel per instruction, lifted, compiled for gfx942 and
// gfx1100, run on the emulator over a few thousand inputs each (random bit patterns, subnormals,
// overflowing and underflowing quotients, exact quotients and squares, zeros, infinities, NaNs)
// and compared bit for bit with the host's IEEE division and sqrt under fesetround (x86 SSE
// rounds divss/divsd/sqrtss/sqrtsd as MXCSR says). .ftz is applied to the reference by hand:
// subnormal operands and results become zeros of the same sign.
#include "LiftTestUtil.h"

#include "llvm/Support/raw_ostream.h"

#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

// The references change the rounding mode: nothing may be folded or moved across fesetround.
#pragma STDC FENV_ACCESS ON

using namespace reptx;
using namespace reptx::emulator;
using namespace reptx::lifttest;

namespace {

constexpr uint32_t N = 4096;

struct Op {
  std::string Name; // e.g. "div.rz.ftz.f32"
  bool F64, Ftz, Unary, Rcp, Sqrt;
  int Mode; // FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD
};

std::vector<Op> allOps() {
  std::vector<Op> Ops;
  const std::pair<const char *, int> Modes[] = {
      {"rz", FE_TOWARDZERO}, {"rm", FE_DOWNWARD}, {"rp", FE_UPWARD}};
  for (const char *Fn : {"div", "rcp", "sqrt"})
    for (auto [Rnd, Mode] : Modes)
      for (int Kind = 0; Kind < 3; ++Kind) { // f32, f32 .ftz, f64
        std::string Name =
            std::string(Fn) + "." + Rnd + (Kind == 1 ? ".ftz" : "") + (Kind == 2 ? ".f64" : ".f32");
        std::string F = Fn;
        Ops.push_back({Name, Kind == 2, Kind == 1, F != "div", F == "rcp", F == "sqrt", Mode});
      }
  return Ops;
}

std::string kernelName(const std::string &Op) {
  std::string K = "k_" + Op;
  for (char &C : K)
    if (C == '.')
      C = '_';
  return K;
}

// d[i] = op(a[i], b[i]) (unary: op(a[i])) for i < n.
std::string kernelPtx(const Op &O) {
  std::string T = O.F64 ? "f64" : "f32", R = O.F64 ? "%fd" : "%f";
  std::string Sz = O.F64 ? "8" : "4";
  std::string S = ".visible .entry " + kernelName(O.Name) +
                  "(.param .u64 pa, .param .u64 pb, .param .u64 pd, .param .u32 pn)\n{\n"
                  ".reg .pred %p<2>;\n.reg .b32 %r<6>;\n.reg .f32 %f<4>;\n.reg .f64 %fd<4>;\n"
                  ".reg .b64 %rd<10>;\n"
                  "ld.param.u64 %rd1, [pa];\nld.param.u64 %rd2, [pb];\nld.param.u64 %rd3, [pd];\n"
                  "ld.param.u32 %r5, [pn];\n"
                  "mov.u32 %r1, %ctaid.x;\nmov.u32 %r2, %ntid.x;\nmov.u32 %r3, %tid.x;\n"
                  "mad.lo.s32 %r4, %r1, %r2, %r3;\nsetp.ge.u32 %p1, %r4, %r5;\n@%p1 bra DONE;\n"
                  "cvta.to.global.u64 %rd1, %rd1;\ncvta.to.global.u64 %rd2, %rd2;\n"
                  "cvta.to.global.u64 %rd3, %rd3;\nmul.wide.u32 %rd4, %r4, " +
                  Sz + ";\nadd.s64 %rd5, %rd1, %rd4;\nadd.s64 %rd6, %rd2, %rd4;\n" +
                  "add.s64 %rd7, %rd3, %rd4;\nld.global." + T + " " + R + "1, [%rd5];\n" +
                  "ld.global." + T + " " + R + "2, [%rd6];\n" + O.Name + " " + R + "3, " + R + "1" +
                  (O.Unary ? "" : ", " + R + "2") + ";\nst.global." + T + " [%rd7], " + R +
                  "3;\nDONE:\nret;\n}\n";
  return S;
}

// A kernel that mixes a helper with a mode-register form, so the helper is inlined into a
// strictfp kernel: d[2i] = add.rz(a, b), d[2i+1] = div.rp(a, b).
const char *MixedPtx = R"(.visible .entry k_mixed(.param .u64 pa, .param .u64 pb, .param .u64 pd,
                                  .param .u32 pn)
{
.reg .pred %p<2>;
.reg .b32 %r<6>;
.reg .f32 %f<8>;
.reg .b64 %rd<10>;
ld.param.u64 %rd1, [pa];
ld.param.u64 %rd2, [pb];
ld.param.u64 %rd3, [pd];
ld.param.u32 %r5, [pn];
mov.u32 %r1, %ctaid.x;
mov.u32 %r2, %ntid.x;
mov.u32 %r3, %tid.x;
mad.lo.s32 %r4, %r1, %r2, %r3;
setp.ge.u32 %p1, %r4, %r5;
@%p1 bra DONE;
mul.wide.u32 %rd4, %r4, 4;
add.s64 %rd5, %rd1, %rd4;
add.s64 %rd6, %rd2, %rd4;
ld.global.f32 %f1, [%rd5];
ld.global.f32 %f2, [%rd6];
add.rz.f32 %f3, %f1, %f2;
div.rp.f32 %f4, %f1, %f2;
mul.wide.u32 %rd4, %r4, 8;
add.s64 %rd7, %rd3, %rd4;
st.global.f32 [%rd7], %f3;
st.global.f32 [%rd7+4], %f4;
DONE:
ret;
}
)";

std::string modulePtx() {
  std::string S = ".version 7.0\n.target sm_80\n.address_size 64\n\n";
  for (const Op &O : allOps())
    S += kernelPtx(O) + "\n";
  return S + MixedPtx;
}

// ---- inputs

// Operand pairs of one precision: random bit patterns and the edge cases.
template <typename T, typename U> void makeInputs(std::vector<T> &A, std::vector<T> &B) {
  constexpr bool D = sizeof(T) == 8;
  constexpr int Prec = D ? 53 : 24, EMax = D ? 1023 : 127, EMin = D ? -1022 : -126;
  const T Inf = std::numeric_limits<T>::infinity(), Den = std::numeric_limits<T>::denorm_min();
  const T Max = std::numeric_limits<T>::max(), Tiny = std::numeric_limits<T>::min();
  const T NaN = std::bit_cast<T>(D ? U(0x7ff4000000000123ull) : U(0x7fa12345u));
  const T Special[] = {T(0),    -T(0), Inf,    -Inf,       NaN,      -NaN,           Den,  -Den,
                       Den * 3, Tiny,  -Tiny,  Tiny - Den, Max,      -Max,           T(1), T(-1),
                       T(2),    T(3),  T(0.1), T(-7.5),    T(1) / 3, std::sqrt(T(2))};
  const size_t NS = sizeof(Special) / sizeof(Special[0]);
  std::mt19937_64 Rng(D ? 2024 : 1337);
  auto Uniform = [&](int Lo, int Hi) { return Lo + int(Rng() % uint64_t(Hi - Lo + 1)); };
  // A random significand in [1, 2) with Bits significant bits, times 2^E, random sign.
  auto Num = [&](int Bits, int E) {
    uint64_t M = (Rng() >> (64 - Bits + 1)) | (uint64_t(1) << (Bits - 1));
    T V = std::ldexp(T(M), E - (Bits - 1));
    return Rng() % 2 ? -V : V;
  };
  A.resize(N);
  B.resize(N);
  for (uint32_t I = 0; I < N; ++I) {
    T X, Y;
    switch (I % 10) {
    case 0: // random bit patterns: every class, NaN payloads, subnormals
      X = std::bit_cast<T>(U(Rng())), Y = std::bit_cast<T>(U(Rng()));
      break;
    case 1: // the special values against each other and against random numbers
      X = Special[(I / 10) % NS], Y = Special[(I / 10 / NS + I) % NS];
      if (I % 20 == 1)
        Y = Num(Prec, Uniform(-10, 10));
      break;
    case 2: // overflowing quotients (and, for sqrt/rcp, near-maximum and tiny operands)
      X = Num(Prec, Uniform(EMax - 20, EMax)), Y = Num(Prec, Uniform(EMin - Prec + 1, -5));
      if (I % 20 == 2)
        X = std::copysign(Max, X), Y = std::copysign(std::nextafter(T(1), T(0)), Y);
      break;
    case 3: // subnormal and underflowing quotients, subnormal operands
      X = Num(Prec, Uniform(EMin - Prec + 1, EMin + 5)), Y = Num(Prec, Uniform(-5, EMax));
      if (I % 20 == 3)
        X = Num(Prec, Uniform(EMin - 2, EMin)), Y = Num(Prec, Uniform(0, 3));
      break;
    case 4: { // exact quotients: a = b * k with short significands
      Y = Num(Prec / 2, Uniform(EMin / 2, EMax / 2));
      X = Y * Num(Prec / 2 - 2, Uniform(-20, 20));
      break;
    }
    case 5: { // exact squares (sqrt), and a = b * 2^k (exact quotients, subnormal results too)
      T S = Num(Prec / 2, Uniform(EMin / 2 + 2, EMax / 2 - 2));
      X = S * S, Y = std::ldexp(X, Uniform(-Prec - 10, 30));
      if (I % 20 == 5) { // a square in the subnormal range
        S = Num(Prec / 2 - 1, Uniform((EMin - Prec) / 2, EMin / 2));
        X = S * S;
      }
      break;
    }
    case 6: // quotients near 1 and near powers of two
      X = Num(Prec, 0), Y = std::nextafter(X, Rng() % 2 ? Inf : -Inf);
      if (I % 20 == 6)
        X = std::ldexp(T(1), Uniform(EMin, EMax)), Y = std::nextafter(T(1), T(2));
      break;
    case 7: // smallest subnormals against everything
      X = Den * T(Uniform(1, 9)), Y = Num(Prec, Uniform(-30, 30));
      if (I % 20 == 7)
        std::swap(X, Y);
      break;
    default: // moderate random numbers
      X = Num(Prec, Uniform(-60, 60)), Y = Num(Prec, Uniform(-60, 60));
      break;
    }
    A[I] = X, B[I] = Y;
  }
}

// ---- host references

template <typename T> T ftz(T V) {
  return std::fpclassify(V) == FP_SUBNORMAL ? std::copysign(T(0), V) : V;
}

template <typename T> T reference(const Op &O, T X, T Y) {
  if (O.Ftz)
    X = ftz(X), Y = ftz(Y);
  volatile T VX = X, VY = Y;
  std::fesetround(O.Mode);
  T R = O.Sqrt ? std::sqrt(T(VX)) : O.Rcp ? T(1) / VX : VX / VY;
  std::fesetround(FE_TONEAREST);
  return O.Ftz ? ftz(R) : R;
}

// Bit-exact, except that where the host gives its default NaN (an invalid operation: 0/0,
// inf/inf, sqrt of a negative number) any NaN is accepted: x86's default NaN is negative, and NaN
// payloads of arithmetic results are not specified by PTX (8.4). A NaN operand must come back
// quieted (IEEE 754-2019 6.2.3), as the host gives it.
template <typename T, typename U>::testing::AssertionResult same(T Got, T Want) {
  U G = std::bit_cast<U>(Got), W = std::bit_cast<U>(Want);
  const U DefaultNaN = sizeof(T) == 8 ? U(0xfff8000000000000ull) : U(0xffc00000u);
  if (G == W || (W == DefaultNaN && std::isnan(Got)))
    return ::testing::AssertionSuccess();
  char Buf[160];
  std::snprintf(Buf, sizeof Buf, "got %a (0x%llx), want %a (0x%llx)", double(Got),
                (unsigned long long)G, double(Want), (unsigned long long)W);
  return ::testing::AssertionFailure() << Buf;
}

class DirectedDivSqrt : public ::testing::TestWithParam<std::string> {};

TEST_P(DirectedDivSqrt, MatchesHostRounding) {
  LIFT_ASSERT_OK_AND_ASSIGN(CO,
                            compileForEmulator("directed_div_sqrt.ptx", modulePtx(), GetParam()));
  std::vector<float> A, B;
  std::vector<double> X, Y;
  makeInputs<float, uint32_t>(A, B);
  makeInputs<double, uint64_t>(X, Y);
  Device Dev;
  LIFT_ASSERT_OK_AND_ASSIGN(DA, Dev.allocateArray<float>(A, "a"));
  LIFT_ASSERT_OK_AND_ASSIGN(DB, Dev.allocateArray<float>(B, "b"));
  LIFT_ASSERT_OK_AND_ASSIGN(DX, Dev.allocateArray<double>(X, "x"));
  LIFT_ASSERT_OK_AND_ASSIGN(DY, Dev.allocateArray<double>(Y, "y"));
  LIFT_ASSERT_OK_AND_ASSIGN(DO, Dev.allocate(N * 8, "out"));
  unsigned Checked = 0;
  for (const Op &O : allOps()) {
    SCOPED_TRACE(O.Name);
    auto P = DispatchParams::blocks(kernelName(O.Name), {N / 128, 1, 1}, {128, 1, 1},
                                    KernargBuilder()
                                        .addPointer(O.F64 ? DX : DA)
                                        .addPointer(O.F64 ? DY : DB)
                                        .addPointer(DO)
                                        .add(N)
                                        .take());
    LIFT_ASSERT_OK_AND_ASSIGN(R, Dev.dispatch(*CO, P));
    (void)R;
    unsigned Failures = 0;
    if (O.F64) {
      LIFT_ASSERT_OK_AND_ASSIGN(Out, Dev.readArray<double>(DO, N));
      for (uint32_t I = 0; I < N && Failures < 10; ++I) {
        auto Ok = same<double, uint64_t>(Out[I], reference(O, X[I], Y[I]));
        if (!Ok)
          ++Failures;
        EXPECT_TRUE(Ok) << O.Name << " element " << I << std::hexfloat << ": " << X[I]
                        << (O.Unary ? "" : ", ") << (O.Unary ? 0.0 : Y[I]);
      }
    } else {
      LIFT_ASSERT_OK_AND_ASSIGN(Out, Dev.readArray<float>(DO, N));
      for (uint32_t I = 0; I < N && Failures < 10; ++I) {
        auto Ok = same<float, uint32_t>(Out[I], reference(O, A[I], B[I]));
        if (!Ok)
          ++Failures;
        EXPECT_TRUE(Ok) << O.Name << " element " << I << std::hexfloat << ": " << A[I]
                        << (O.Unary ? "" : ", ") << (O.Unary ? 0.0f : B[I]);
      }
    }
    Checked += N;
  }
  EXPECT_EQ(Checked, 27 * N);

  // The helpers next to a mode-register operation in one (strictfp) kernel.
  auto P = DispatchParams::blocks(
      "k_mixed", {N / 128, 1, 1}, {128, 1, 1},
      KernargBuilder().addPointer(DA).addPointer(DB).addPointer(DO).add(N).take());
  LIFT_ASSERT_OK_AND_ASSIGN(R, Dev.dispatch(*CO, P));
  (void)R;
  LIFT_ASSERT_OK_AND_ASSIGN(Out, Dev.readArray<float>(DO, 2 * N));
  const Op DivRp{"div.rp.f32", false, false, false, false, false, FE_UPWARD};
  for (uint32_t I = 0; I < N; ++I) {
    volatile float VA = A[I], VB = B[I];
    std::fesetround(FE_TOWARDZERO);
    float Sum = VA + VB;
    std::fesetround(FE_TONEAREST);
    ASSERT_TRUE((same<float, uint32_t>(Out[2 * I], Sum))) << "add.rz element " << I;
    ASSERT_TRUE((same<float, uint32_t>(Out[2 * I + 1], reference(DivRp, A[I], B[I]))))
        << "div.rp element " << I;
  }
}

// The lifted form: one call of the helper per instruction with the mode as a constant, the
// operands and the result flushed around it for .ftz, rcp as a division of 1.0.
TEST(DirectedDivSqrtIR, CallsTheHelpers) {
  std::string Text = ".version 7.0\n.target sm_80\n.address_size 64\n"
                     ".visible .entry k(.param .u64 out)\n{\n.reg .f32 %f<4>;\n.reg .f64 %fd<4>;\n"
                     "div.rz.ftz.f32 %f1, %f2, %f3;\nrcp.rm.f64 %fd1, %fd2;\n"
                     "sqrt.rp.f32 %f1, %f2;\nsqrt.rz.f64 %fd1, %fd2;\nret;\n}\n";
  LIFT_ASSERT_OK_AND_ASSIGN(L, lift("t.ptx", Text));
  ASSERT_TRUE(L->R.Failures.empty()) << L->R.Failures[0].Message;
  std::string S;
  llvm::raw_string_ostream OS(S);
  L->R.M->print(OS, nullptr);
  EXPECT_NE(S.find("call float @reptx.div.directed.f32(float %"), std::string::npos) << S;
  EXPECT_NE(S.find(", i32 0)"), std::string::npos) << S;
  EXPECT_NE(S.find("call double @reptx.div.directed.f64(double 1.000000e+00, double %"),
            std::string::npos)
      << S;
  EXPECT_NE(S.find(", i32 3)"), std::string::npos) << S;
  EXPECT_NE(S.find("call float @reptx.sqrt.directed.f32(float %"), std::string::npos) << S;
  EXPECT_NE(S.find(", i32 2)"), std::string::npos) << S;
  EXPECT_NE(S.find("call double @reptx.sqrt.directed.f64(double %"), std::string::npos) << S;
  // .ftz (only div.rz.ftz.f32 here): two flushed operands and a flushed result.
  size_t Flushes = 0;
  for (size_t At = S.find("fcmp olt"); At != std::string::npos; At = S.find("fcmp olt", At + 1))
    ++Flushes;
  EXPECT_EQ(Flushes, 3u) << S;
  EXPECT_EQ(S.find("llvm.set.rounding"), std::string::npos) << S;
}

INSTANTIATE_TEST_SUITE_P(Targets, DirectedDivSqrt, ::testing::Values("gfx942", "gfx1100"),
                         [](const auto &Info) { return Info.param; });

} // namespace
