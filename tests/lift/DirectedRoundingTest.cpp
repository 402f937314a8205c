// Directed rounding of add, sub, mul, fma, div, rcp and sqrt (PTX ISA 9.7.3: .rz .rm .rp, f32
// with and without .ftz, f64): hand-written PTX, one kernel per instruction, lifted, compiled for
// every target (gfx90a, gfx942, gfx1030, gfx1100, gfx1201), run on the emulator over a few thousand
// inputs each (random bit patterns, subnormals, overflowing and underflowing results, exact
// quotients and squares, cancelling sums and fma residuals, zeros, infinities, NaNs) and compared
// bit for bit with the host's IEEE operations under fesetround (x86 SSE rounds add/sub/mul/div/sqrt
// as MXCSR says; glibc's fma is correctly rounded in every mode). .ftz is applied to the reference
// by hand: subnormal operands and results become zeros of the same sign.
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
  std::string Fn;   // add, sub, mul, fma, div, rcp, sqrt
  bool F64, Ftz;
  int Mode; // FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD
  unsigned sources() const { return Fn == "fma" ? 3 : Fn == "rcp" || Fn == "sqrt" ? 1 : 2; }
};

const char *const Fns[] = {"add", "sub", "mul", "fma", "div", "rcp", "sqrt"};

std::vector<Op> allOps() {
  std::vector<Op> Ops;
  const std::pair<const char *, int> Modes[] = {
      {"rz", FE_TOWARDZERO}, {"rm", FE_DOWNWARD}, {"rp", FE_UPWARD}};
  for (const char *Fn : Fns)
    for (auto [Rnd, Mode] : Modes)
      for (int Kind = 0; Kind < 3; ++Kind) { // f32, f32 .ftz, f64
        std::string Name =
            std::string(Fn) + "." + Rnd + (Kind == 1 ? ".ftz" : "") + (Kind == 2 ? ".f64" : ".f32");
        Ops.push_back({Name, Fn, Kind == 2, Kind == 1, Mode});
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

// d[i] = op(a[i], b[i], c[i]) (with as many operands as op has) for i < n.
std::string kernelPtx(const Op &O) {
  std::string T = O.F64 ? "f64" : "f32", R = O.F64 ? "%fd" : "%f";
  std::string Sz = O.F64 ? "8" : "4";
  std::string Operands = R + "1";
  if (O.sources() >= 2)
    Operands += ", " + R + "2";
  if (O.sources() == 3)
    Operands += ", " + R + "4";
  std::string S = ".visible .entry " + kernelName(O.Name) +
                  "(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd, .param .u32 "
                  "pn)\n{\n"
                  ".reg .pred %p<2>;\n.reg .b32 %r<6>;\n.reg .f32 %f<5>;\n.reg .f64 %fd<5>;\n"
                  ".reg .b64 %rd<12>;\n"
                  "ld.param.u64 %rd1, [pa];\nld.param.u64 %rd2, [pb];\nld.param.u64 %rd3, [pd];\n"
                  "ld.param.u64 %rd8, [pc];\nld.param.u32 %r5, [pn];\n"
                  "mov.u32 %r1, %ctaid.x;\nmov.u32 %r2, %ntid.x;\nmov.u32 %r3, %tid.x;\n"
                  "mad.lo.s32 %r4, %r1, %r2, %r3;\nsetp.ge.u32 %p1, %r4, %r5;\n@%p1 bra DONE;\n"
                  "cvta.to.global.u64 %rd1, %rd1;\ncvta.to.global.u64 %rd2, %rd2;\n"
                  "cvta.to.global.u64 %rd3, %rd3;\ncvta.to.global.u64 %rd8, %rd8;\n"
                  "mul.wide.u32 %rd4, %r4, " +
                  Sz + ";\nadd.s64 %rd5, %rd1, %rd4;\nadd.s64 %rd6, %rd2, %rd4;\n" +
                  "add.s64 %rd7, %rd3, %rd4;\nadd.s64 %rd9, %rd8, %rd4;\n" + "ld.global." + T +
                  " " + R + "1, [%rd5];\n" + "ld.global." + T + " " + R + "2, [%rd6];\n" +
                  "ld.global." + T + " " + R + "4, [%rd9];\n" + O.Name + " " + R + "3, " +
                  Operands + ";\nst.global." + T + " [%rd7], " + R + "3;\nDONE:\nret;\n}\n";
  return S;
}

// Four directed operations on the same operands in one kernel, which must stay four operations:
// d[4i..4i+3] = add.rm, add.rp, add.rz and mul.rp of (a, b). (When they set a mode register,
// LLVM's AMDGPU selection merged them into one addition.)
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
add.rm.f32 %f3, %f1, %f2;
add.rp.f32 %f4, %f1, %f2;
add.rz.f32 %f5, %f1, %f2;
mul.rp.f32 %f6, %f1, %f2;
mul.wide.u32 %rd4, %r4, 16;
add.s64 %rd7, %rd3, %rd4;
st.global.f32 [%rd7], %f3;
st.global.f32 [%rd7+4], %f4;
st.global.f32 [%rd7+8], %f5;
st.global.f32 [%rd7+12], %f6;
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

// Operands of one precision: random bit patterns and the edge cases; C (fma's addend) often
// cancels the product a * b exactly or nearly.
template <typename T, typename U>
void makeInputs(std::vector<T> &A, std::vector<T> &B, std::vector<T> &C) {
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
  C.resize(N);
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
    T Z;
    switch (I % 5) {
    case 0: // fma gives the product's rounding error
      Z = -(X * Y);
      break;
    case 1:
      Z = Special[(I / 5) % NS];
      break;
    case 2:
      Z = Num(Prec, Uniform(-60, 60));
      break;
    case 3:
      Z = std::bit_cast<T>(U(Rng()));
      break;
    default: // nearly cancels
      Z = std::nextafter(-(X * Y), T(0));
      break;
    }
    A[I] = X, B[I] = Y, C[I] = Z;
  }
}

// ---- host references

template <typename T> T ftz(T V) {
  return std::fpclassify(V) == FP_SUBNORMAL ? std::copysign(T(0), V) : V;
}

template <typename T> T reference(const Op &O, T X, T Y, T Z) {
  if (O.Ftz)
    X = ftz(X), Y = ftz(Y), Z = ftz(Z);
  volatile T VX = X, VY = Y, VZ = Z;
  std::fesetround(O.Mode);
  T R = O.Fn == "add"    ? T(VX + VY)
        : O.Fn == "sub"  ? T(VX - VY)
        : O.Fn == "mul"  ? T(VX * VY)
        : O.Fn == "fma"  ? std::fma(T(VX), T(VY), T(VZ))
        : O.Fn == "sqrt" ? std::sqrt(T(VX))
        : O.Fn == "rcp"  ? T(1) / VX
                         : VX / VY;
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

class Directed : public ::testing::TestWithParam<std::string> {};

TEST_P(Directed, MatchesHostRounding) {
  LIFT_ASSERT_OK_AND_ASSIGN(CO, compileForEmulator("directed.ptx", modulePtx(), GetParam()));
  std::vector<float> A, B, C;
  std::vector<double> X, Y, Z;
  makeInputs<float, uint32_t>(A, B, C);
  makeInputs<double, uint64_t>(X, Y, Z);
  Device Dev;
  LIFT_ASSERT_OK_AND_ASSIGN(DA, Dev.allocateArray<float>(A, "a"));
  LIFT_ASSERT_OK_AND_ASSIGN(DB, Dev.allocateArray<float>(B, "b"));
  LIFT_ASSERT_OK_AND_ASSIGN(DC, Dev.allocateArray<float>(C, "c"));
  LIFT_ASSERT_OK_AND_ASSIGN(DX, Dev.allocateArray<double>(X, "x"));
  LIFT_ASSERT_OK_AND_ASSIGN(DY, Dev.allocateArray<double>(Y, "y"));
  LIFT_ASSERT_OK_AND_ASSIGN(DZ, Dev.allocateArray<double>(Z, "z"));
  LIFT_ASSERT_OK_AND_ASSIGN(DO, Dev.allocate(N * 16, "out"));
  unsigned Checked = 0;
  for (const Op &O : allOps()) {
    SCOPED_TRACE(O.Name);
    auto P = DispatchParams::blocks(kernelName(O.Name), {N / 128, 1, 1}, {128, 1, 1},
                                    KernargBuilder()
                                        .addPointer(O.F64 ? DX : DA)
                                        .addPointer(O.F64 ? DY : DB)
                                        .addPointer(O.F64 ? DZ : DC)
                                        .addPointer(DO)
                                        .add(N)
                                        .take());
    LIFT_ASSERT_OK_AND_ASSIGN(R, Dev.dispatch(*CO, P));
    (void)R;
    unsigned Failures = 0;
    auto Check = [&](auto &Out, auto &In0, auto &In1, auto &In2, auto Same) {
      for (uint32_t I = 0; I < N && Failures < 10; ++I) {
        auto Ok = Same(Out[I], reference(O, In0[I], In1[I], In2[I]));
        if (!Ok)
          ++Failures;
        EXPECT_TRUE(Ok) << O.Name << " element " << I << std::hexfloat << ": " << In0[I] << ", "
                        << In1[I] << ", " << In2[I];
      }
    };
    if (O.F64) {
      LIFT_ASSERT_OK_AND_ASSIGN(Out, Dev.readArray<double>(DO, N));
      Check(Out, X, Y, Z, same<double, uint64_t>);
    } else {
      LIFT_ASSERT_OK_AND_ASSIGN(Out, Dev.readArray<float>(DO, N));
      Check(Out, A, B, C, same<float, uint32_t>);
    }
    Checked += N;
  }
  EXPECT_EQ(Checked, 63 * N);

  // Four directed operations on the same operands in one kernel.
  auto P = DispatchParams::blocks(
      "k_mixed", {N / 128, 1, 1}, {128, 1, 1},
      KernargBuilder().addPointer(DA).addPointer(DB).addPointer(DO).add(N).take());
  LIFT_ASSERT_OK_AND_ASSIGN(R, Dev.dispatch(*CO, P));
  (void)R;
  LIFT_ASSERT_OK_AND_ASSIGN(Out, Dev.readArray<float>(DO, 4 * N));
  const Op Mixed[] = {{"add.rm.f32", "add", false, false, FE_DOWNWARD},
                      {"add.rp.f32", "add", false, false, FE_UPWARD},
                      {"add.rz.f32", "add", false, false, FE_TOWARDZERO},
                      {"mul.rp.f32", "mul", false, false, FE_UPWARD}};
  for (uint32_t I = 0; I < N; ++I)
    for (unsigned K = 0; K < 4; ++K)
      ASSERT_TRUE((same<float, uint32_t>(Out[4 * I + K], reference(Mixed[K], A[I], B[I], 0.0f))))
          << Mixed[K].Name << " element " << I;
}

// The lifted form: one call of the helper per instruction with the mode as a constant, the
// operands and the result flushed around it for .ftz, rcp as a division of 1.0.
TEST(DirectedIR, CallsTheHelpers) {
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

// add, sub, mul, fma and mad (fma with a rounding mode) call their helpers too: no mode register,
// no strictfp function, one call per instruction even on the same operands.
TEST(DirectedIR, ArithmeticCallsTheHelpers) {
  std::string Text = ".version 7.0\n.target sm_80\n.address_size 64\n"
                     ".visible .entry k(.param .u64 out)\n{\n.reg .f32 %f<8>;\n.reg .f64 %fd<4>;\n"
                     "add.rm.f32 %f1, %f2, %f3;\nadd.rp.f32 %f4, %f2, %f3;\n"
                     "sub.rz.f64 %fd1, %fd2, %fd3;\nmul.rp.sat.f32 %f5, %f2, %f3;\n"
                     "fma.rm.f64 %fd1, %fd2, %fd3, %fd1;\nmad.rz.ftz.f32 %f6, %f2, %f3, %f4;\n"
                     "ret;\n}\n";
  LIFT_ASSERT_OK_AND_ASSIGN(L, lift("t.ptx", Text));
  ASSERT_TRUE(L->R.Failures.empty()) << L->R.Failures[0].Message;
  std::string S;
  llvm::raw_string_ostream OS(S);
  L->R.M->print(OS, nullptr);
  size_t Adds = 0;
  for (size_t At = S.find("call float @reptx.add.directed.f32("); At != std::string::npos;
       At = S.find("call float @reptx.add.directed.f32(", At + 1))
    ++Adds;
  EXPECT_EQ(Adds, 2u) << S;
  EXPECT_NE(S.find("call double @reptx.sub.directed.f64(double %"), std::string::npos) << S;
  EXPECT_NE(S.find("call float @reptx.mul.directed.f32(float %"), std::string::npos) << S;
  EXPECT_NE(S.find("call double @reptx.fma.directed.f64(double %"), std::string::npos) << S;
  EXPECT_NE(S.find("call float @reptx.fma.directed.f32(float %"), std::string::npos) << S;
  EXPECT_EQ(S.find("llvm.set.rounding"), std::string::npos) << S;
  EXPECT_EQ(S.find("strictfp"), std::string::npos) << S;
  EXPECT_EQ(S.find("constrained"), std::string::npos) << S;
}

INSTANTIATE_TEST_SUITE_P(Targets, Directed,
                         ::testing::Values("gfx942", "gfx1100", "gfx90a", "gfx1030", "gfx1201"),
                         [](const auto &Info) { return Info.param; });

} // namespace
