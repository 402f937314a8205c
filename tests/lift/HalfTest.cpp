// Half precision, bf16, directed rounding and IEEE division: nvcc's PTX for kernels/half_*.cu and
// kernels/directed.cu lifted, compiled for every target (gfx90a, gfx942, gfx1030, gfx1100,
// gfx1201), run on the emulator and compared bit for bit with host references computed
// independently: f16 through the host's _Float16, bf16 and every fma through a round-to-odd double
// computed with the host's FE_TOWARDZERO mode and inexact flag (then rounded once), directed modes
// with fesetround.
#include "LiftTestUtil.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

// The host references change the rounding mode: nothing may be folded or moved across fesetround
// (a Release build moved the f64->f32 conversion of DirectedRoundingAndDivision out of
// FE_TOWARDZERO).
#pragma STDC FENV_ACCESS ON

using namespace reptx;
using namespace reptx::emulator;
using namespace reptx::lifttest;

namespace {

using h16 = _Float16;

// x*y+z rounded to odd in double: truncated, with the last bit set when inexact (C99 fenv).
double fmaOddRef(double X, double Y, double Z) {
  std::feclearexcept(FE_INEXACT);
  std::fesetround(FE_TOWARDZERO);
  volatile double R = std::fma(X, Y, Z);
  bool Inexact = std::fetestexcept(FE_INEXACT);
  std::fesetround(FE_TONEAREST);
  double V = R;
  if (Inexact && std::isfinite(V))
    V = std::bit_cast<double>(std::bit_cast<uint64_t>(V) | 1);
  return V;
}

// bf16 of a double rounded to odd: to float rounded to odd, then nearest-even on the bits.
uint16_t bf16FromOdd(double D) {
  if (std::isnan(D))
    return 0x7fff;
  std::feclearexcept(FE_INEXACT);
  std::fesetround(FE_TOWARDZERO);
  volatile float F = float(D);
  bool Inexact = std::fetestexcept(FE_INEXACT);
  std::fesetround(FE_TONEAREST);
  uint32_t U = std::bit_cast<uint32_t>(float(F));
  if (Inexact && (U & 0x7fffffff) != 0x7f800000)
    U |= 1;
  // Overflowing truncation gives the largest float; nearest-even then gives infinity.
  return uint16_t((U + 0x7fff + ((U >> 16) & 1)) >> 16);
}
float bf16ToF(uint16_t B) { return std::bit_cast<float>(uint32_t(B) << 16); }

bool nanBits16(uint16_t B, bool Bf) {
  return Bf ? ((B & 0x7f80) == 0x7f80 && (B & 0x7f)) : ((B & 0x7c00) == 0x7c00 && (B & 0x3ff));
}

::testing::AssertionResult same16(uint16_t Got, uint16_t Want, bool Bf = false) {
  if (Got == Want || (nanBits16(Got, Bf) && nanBits16(Want, Bf)))
    return ::testing::AssertionSuccess();
  // Each << of an AssertionResult formats on its own, so the hex digits are spelled out here.
  char Buf[48];
  std::snprintf(Buf, sizeof Buf, "got 0x%04x, want 0x%04x", unsigned(Got), unsigned(Want));
  return ::testing::AssertionFailure() << Buf;
}

template <typename T, typename U>::testing::AssertionResult sameBits(T Got, T Want) {
  if ((std::isnan(Got) && std::isnan(Want)) || std::bit_cast<U>(Got) == std::bit_cast<U>(Want))
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << std::hexfloat << "got " << Got << ", want " << Want;
}

// Random f16/bf16 bit patterns with the edge values mixed in.
std::vector<uint16_t> test16(size_t N, uint32_t Seed, bool Bf) {
  std::mt19937 Rng(Seed);
  const uint16_t SpecialH[] = {0x0000, 0x8000, 0x7c00, 0xfc00, 0x0001, 0x83ff, 0x3c00, 0xbc00,
                               0x7bff, 0xfbff, 0x0400, 0x3800, 0x7e00, 0x3555, 0x4900};
  const uint16_t SpecialB[] = {0x0000, 0x8000, 0x7f80, 0xff80, 0x0001, 0x807f, 0x3f80, 0xbf80,
                               0x7f7f, 0xff7f, 0x0080, 0x3f00, 0x7fc0, 0x3eab, 0x4120};
  std::vector<uint16_t> V(N);
  for (size_t I = 0; I < N; ++I) {
    if (I % 5 == 0) {
      V[I] = Bf ? SpecialB[(I / 5 + Seed) % 15] : SpecialH[(I / 5 + Seed) % 15];
    } else {
      // Mostly moderate exponents so that sums and products stay interesting.
      uint16_t R = uint16_t(Rng());
      if (!Bf)
        V[I] = uint16_t((R & 0x83ff) | ((8 + Rng() % 14) << 10));
      else
        V[I] = uint16_t((R & 0x807f) | ((110 + Rng() % 34) << 7));
    }
  }
  return V;
}

h16 H(uint16_t B) { return std::bit_cast<h16>(B); }
uint16_t Hb(h16 V) { return std::bit_cast<uint16_t>(V); }
uint16_t hOfDouble(double D) { return Hb(h16(D)); }

// PTX min/max on halves: NaN operands yield the other operand, -0 < +0 (minimumNumber).
double minNum(double A, double B) {
  if (std::isnan(A))
    return B;
  if (std::isnan(B))
    return A;
  if (A == B)
    return std::signbit(A) ? A : B;
  return A < B ? A : B;
}
double maxNaN(double A, double B) {
  if (std::isnan(A) || std::isnan(B))
    return std::numeric_limits<double>::quiet_NaN();
  if (A == B)
    return std::signbit(A) ? B : A;
  return A > B ? A : B;
}
double maxNum(double A, double B) {
  if (std::isnan(A))
    return B;
  if (std::isnan(B))
    return A;
  return -minNum(-A, -B);
}
double minNaN(double A, double B) {
  if (std::isnan(A) || std::isnan(B))
    return std::numeric_limits<double>::quiet_NaN();
  return -maxNaN(-A, -B);
}
double relu(double V) { return std::isnan(V) ? V : V > 0 ? V : 0.0; }
double sat(double V) { return std::isnan(V) ? 0.0 : V < 0 ? 0.0 : V > 1 ? 1.0 : V; }

class HalfExec : public ::testing::TestWithParam<std::string> {
protected:
  llvm::Expected<std::unique_ptr<CodeObject>> load(const std::string &Name) {
    auto Text = readKernelPtx(Name);
    if (!Text)
      return Text.takeError();
    return compileForEmulator(Name + ".ptx", std::move(*Text), GetParam());
  }
  uint32_t blocks(uint32_t N, uint32_t B) { return (N + B - 1) / B; }
};

// f16 (9.7.4): add, sub, mul, fma (.rn, .relu, .sat), neg, abs, min, max.NaN, ex2, tanh.
TEST_P(HalfExec, HalfScalarArithmetic) {
  LIFT_ASSERT_OK_AND_ASSIGN(CO, load("half_arith"));
  const int N = 997;
  auto A = test16(N, 1, false), B = test16(N, 2, false), C = test16(N, 3, false);
  Device Dev;
  LIFT_ASSERT_OK_AND_ASSIGN(DA, Dev.allocateArray<uint16_t>(A, "a"));
  LIFT_ASSERT_OK_AND_ASSIGN(DB, Dev.allocateArray<uint16_t>(B, "b"));
  LIFT_ASSERT_OK_AND_ASSIGN(DC, Dev.allocateArray<uint16_t>(C, "c"));
  LIFT_ASSERT_OK_AND_ASSIGN(DO, Dev.allocate(12 * N * 2, "out"));
  auto P = DispatchParams::blocks(
      "half_arith", {blocks(N, 64), 1, 1}, {64, 1, 1},
      KernargBuilder().addPointer(DA).addPointer(DB).addPointer(DC).addPointer(DO).add(N).take());
  LIFT_ASSERT_OK_AND_ASSIGN(R, Dev.dispatch(*CO, P));
  (void)R;
  LIFT_ASSERT_OK_AND_ASSIGN(Out, Dev.readArray<uint16_t>(DO, 12 * N));
  for (int I = 0; I < N; ++I) {
    double X = double(H(A[I])), Y = double(H(B[I])), Z = double(H(C[I]));
    double F = fmaOddRef(X, Y, Z);
    uint16_t Want[10] = {Hb(H(A[I]) + H(B[I])),   Hb(H(A[I]) - H(B[I])),
                         Hb(H(A[I]) * H(B[I])),   hOfDouble(F),
                         hOfDouble(relu(F)),      hOfDouble(sat(F)),
                         uint16_t(A[I] ^ 0x8000), uint16_t(A[I] & 0x7fff),
                         hOfDouble(minNum(X, Y)), hOfDouble(maxNaN(X, Y))};
    for (int K = 0; K < 10; ++K)
      ASSERT_TRUE(same16(Out[12 * I + K], Want[K])) << "element " << I << " output " << K;
    // hexp2 and htanh_approx: within the PTX bounds (2^-9.9 relative for ex2.approx.f16, 2^-10.9
    // absolute for tanh.approx.f16) plus the f16 rounding of the result.
    double E = std::exp2(X), Th = std::tanh(X);
    double GotE = double(H(Out[12 * I + 10])), GotT = double(H(Out[12 * I + 11]));
    if (std::isnan(E))
      EXPECT_TRUE(std::isnan(GotE)) << "ex2 element " << I;
    else if (std::isinf(E) || E > 65504)
      EXPECT_TRUE(GotE > 65000) << "ex2 element " << I;
    else
      EXPECT_LE(std::fabs(GotE - E), std::ldexp(std::fabs(E), -9) + 0x1p-24) << "ex2 " << X;
    if (std::isnan(Th))
      EXPECT_TRUE(std::isnan(GotT));
    else
      EXPECT_LE(std::fabs(GotT - Th), 0x1p-10) << "tanh " << X;
  }
}

// f16x2: the same element-wise on both halves, with op_sel'd packed instructions.
TEST_P(HalfExec, HalfPackedArithmetic) {
  LIFT_ASSERT_OK_AND_ASSIGN(CO, load("half_arith"));
  const int N = 611;
  auto A = test16(2 * N, 4, false), B = test16(2 * N, 5, false), C = test16(2 * N, 6, false);
  Device Dev;
  LIFT_ASSERT_OK_AND_ASSIGN(DA, Dev.allocateArray<uint16_t>(A, "a"));
  LIFT_ASSERT_OK_AND_ASSIGN(DB, Dev.allocateArray<uint16_t>(B, "b"));
  LIFT_ASSERT_OK_AND_ASSIGN(DC, Dev.allocateArray<uint16_t>(C, "c"));
  LIFT_ASSERT_OK_AND_ASSIGN(DO, Dev.allocate(8 * N * 4, "out"));
  auto P = DispatchParams::blocks(
      "half2_arith", {blocks(N, 96), 1, 1}, {96, 1, 1},
      KernargBuilder().addPointer(DA).addPointer(DB).addPointer(DC).addPointer(DO).add(N).take());
  LIFT_ASSERT_OK_AND_ASSIGN(R, Dev.dispatch(*CO, P));
  (void)R;
  LIFT_ASSERT_OK_AND_ASSIGN(Out, Dev.readArray<uint16_t>(DO, 16 * N));
  for (int I = 0; I < 2 * N; ++I) {
    int Elem = I / 2, Half = I % 2;
    double X = double(H(A[I])), Y = double(H(B[I])), Z = double(H(C[I]));
    double F = fmaOddRef(X, Y, Z);
    uint16_t Want[8] = {Hb(H(A[I]) + H(B[I])),   Hb(H(A[I]) - H(B[I])),
                        Hb(H(A[I]) * H(B[I])),   hOfDouble(F),
                        hOfDouble(relu(F)),      hOfDouble(maxNum(X, Y)),
                        hOfDouble(minNaN(X, Y)), uint16_t(A[I] | 0x8000)};
    for (int K = 0; K < 8; ++K)
      ASSERT_TRUE(same16(Out[16 * Elem + 2 * K + Half], Want[K]))
          << "element " << Elem << " half " << Half << " output " << K;
  }
}

// bf16 and bf16x2 (sm_90): every operation rounded once from the exact result.
TEST_P(HalfExec, Bf16Arithmetic) {
  LIFT_ASSERT_OK_AND_ASSIGN(CO, load("half_bf16"));
  const int N = 805;
  auto A = test16(2 * N, 7, true), B = test16(2 * N, 8, true), C = test16(2 * N, 9, true);
  Device Dev;
  LIFT_ASSERT_OK_AND_ASSIGN(DA, Dev.allocateArray<uint16_t>(A, "a"));
  LIFT_ASSERT_OK_AND_ASSIGN(DB, Dev.allocateArray<uint16_t>(B, "b"));
  LIFT_ASSERT_OK_AND_ASSIGN(DC, Dev.allocateArray<uint16_t>(C, "c"));
  LIFT_ASSERT_OK_AND_ASSIGN(DO, Dev.allocate(10 * N * 2, "out"));
  LIFT_ASSERT_OK_AND_ASSIGN(DO2, Dev.allocate(6 * N * 4, "out2"));
  auto Args = [&](uint64_t O) {
    return KernargBuilder()
        .addPointer(DA)
        .addPointer(DB)
        .addPointer(DC)
        .addPointer(O)
        .add(N)
        .take();
  };
  LIFT_ASSERT_OK_AND_ASSIGN(
      R1, Dev.dispatch(*CO, DispatchParams::blocks("bf16_arith", {blocks(N, 64), 1, 1}, {64, 1, 1},
                                                   Args(DO))));
  LIFT_ASSERT_OK_AND_ASSIGN(
      R2, Dev.dispatch(*CO, DispatchParams::blocks("bf162_arith", {blocks(N, 50), 1, 1}, {50, 1, 1},
                                                   Args(DO2))));
  (void)R1;
  (void)R2;
  LIFT_ASSERT_OK_AND_ASSIGN(Out, Dev.readArray<uint16_t>(DO, 10 * N));
  LIFT_ASSERT_OK_AND_ASSIGN(Out2, Dev.readArray<uint16_t>(DO2, 12 * N));
  for (int I = 0; I < N; ++I) {
    double X = bf16ToF(A[I]), Y = bf16ToF(B[I]), Z = bf16ToF(C[I]);
    double F = fmaOddRef(X, Y, Z);
    uint16_t Want[9] = {bf16FromOdd(fmaOddRef(X, 1.0, Y)),
                        bf16FromOdd(fmaOddRef(X, 1.0, -Y)),
                        bf16FromOdd(fmaOddRef(X, Y, -0.0)),
                        bf16FromOdd(F),
                        bf16FromOdd(relu(F)),
                        uint16_t(A[I] ^ 0x8000),
                        uint16_t(A[I] & 0x7fff),
                        bf16FromOdd(minNum(X, Y)),
                        bf16FromOdd(maxNaN(X, Y))};
    for (int K = 0; K < 9; ++K)
      ASSERT_TRUE(same16(Out[10 * I + K], Want[K], true)) << "element " << I << " output " << K;
    double E = std::exp2(X), GotE = bf16ToF(Out[10 * I + 9]);
    if (std::isfinite(E) && E < 1e38 && E > 1e-37)
      EXPECT_LE(std::fabs(GotE - E), std::ldexp(std::fabs(E), -7)) << "ex2 " << X;
  }
  for (int I = 0; I < 2 * N; ++I) {
    int Elem = I / 2, Half = I % 2;
    double X = bf16ToF(A[I]), Y = bf16ToF(B[I]), Z = bf16ToF(C[I]);
    double F = fmaOddRef(X, Y, Z);
    uint16_t Want[6] = {bf16FromOdd(fmaOddRef(X, 1.0, Y)),
                        bf16FromOdd(fmaOddRef(X, Y, -0.0)),
                        bf16FromOdd(F),
                        bf16FromOdd(maxNum(X, Y)),
                        bf16FromOdd(minNaN(X, Y)),
                        bf16FromOdd(relu(F))};
    for (int K = 0; K < 6; ++K)
      ASSERT_TRUE(same16(Out2[12 * Elem + 2 * K + Half], Want[K], true))
          << "element " << Elem << " half " << Half << " output " << K;
  }
}

// Directed rounding of fma/add/cvt (f32) and mul (f64), and div.rn.f64, against fesetround.
TEST_P(HalfExec, DirectedRoundingAndDivision) {
  LIFT_ASSERT_OK_AND_ASSIGN(CO, load("directed"));
  const int N = 733;
  std::mt19937 Rng(42);
  std::vector<float> A(N), B(N), C(N);
  std::vector<double> X(N), Y(N);
  std::vector<int32_t> K(N);
  const double SpecialD[] = {0.0,
                             -0.0,
                             1.0,
                             3.0,
                             -7.0,
                             0x1p-1070,
                             0x1.8p-1022,
                             0x1p1023,
                             std::numeric_limits<double>::infinity(),
                             std::numeric_limits<double>::quiet_NaN(),
                             1e300,
                             1e-300};
  for (int I = 0; I < N; ++I) {
    auto RF = [&] {
      return std::ldexp(float(Rng() % 0x1000000) / 0x1p24f, int(Rng() % 60) - 30) *
             (Rng() % 2 ? -1.0f : 1.0f);
    };
    A[I] = RF();
    B[I] = RF();
    C[I] = I % 7 == 0 ? -A[I] * B[I] : RF(); // cancellation: exact zero and tiny results
    X[I] = I % 6 == 0 ? SpecialD[(I / 6) % 12]
                      : std::ldexp(double(Rng()) / 4294967296.0 + 0.5, int(Rng() % 400) - 200);
    Y[I] = I % 6 == 3 ? SpecialD[(I / 6 + 5) % 12]
                      : std::ldexp(double(Rng()) / 4294967296.0 + 0.5, int(Rng() % 400) - 200);
    if (I % 9 == 1)
      Y[I] = std::ldexp(1.5, 900), X[I] = std::ldexp(1.25, -200); // subnormal quotient
    if (I % 9 == 2)
      X[I] = std::ldexp(1.5, 1000), Y[I] = std::ldexp(1.25, -30); // overflowing quotient
    K[I] = int32_t(Rng());
  }
  A[1] = 0x1p-149f, B[1] = 0.5f, C[1] = 0.0f; // a tie below the smallest subnormal
  A[2] = 3.4e38f, B[2] = 2.0f, C[2] = 0.0f;   // overflow: max finite vs infinity
  Device Dev;
  LIFT_ASSERT_OK_AND_ASSIGN(DA, Dev.allocateArray<float>(A, "a"));
  LIFT_ASSERT_OK_AND_ASSIGN(DB, Dev.allocateArray<float>(B, "b"));
  LIFT_ASSERT_OK_AND_ASSIGN(DC, Dev.allocateArray<float>(C, "c"));
  LIFT_ASSERT_OK_AND_ASSIGN(DX, Dev.allocateArray<double>(X, "x"));
  LIFT_ASSERT_OK_AND_ASSIGN(DY, Dev.allocateArray<double>(Y, "y"));
  LIFT_ASSERT_OK_AND_ASSIGN(DK, Dev.allocateArray<int32_t>(K, "k"));
  LIFT_ASSERT_OK_AND_ASSIGN(DOF, Dev.allocate(5 * N * 4, "outf"));
  LIFT_ASSERT_OK_AND_ASSIGN(DOD, Dev.allocate(2 * N * 8, "outd"));
  auto P = DispatchParams::blocks("directed", {blocks(N, 64), 1, 1}, {64, 1, 1},
                                  KernargBuilder()
                                      .addPointer(DA)
                                      .addPointer(DB)
                                      .addPointer(DC)
                                      .addPointer(DX)
                                      .addPointer(DY)
                                      .addPointer(DK)
                                      .addPointer(DOF)
                                      .addPointer(DOD)
                                      .add(N)
                                      .take());
  LIFT_ASSERT_OK_AND_ASSIGN(R, Dev.dispatch(*CO, P));
  (void)R;
  LIFT_ASSERT_OK_AND_ASSIGN(OF, Dev.readArray<float>(DOF, 5 * N));
  LIFT_ASSERT_OK_AND_ASSIGN(OD, Dev.readArray<double>(DOD, 2 * N));
  for (int I = 0; I < N; ++I) {
    volatile float VA = A[I], VB = B[I], VC = C[I];
    volatile double VX = X[I], VY = Y[I];
    volatile int32_t VK = K[I];
    float Want[5];
    std::fesetround(FE_DOWNWARD);
    Want[0] = std::fma(float(VA), float(VB), float(VC));
    Want[4] = float(VK);
    std::fesetround(FE_UPWARD);
    Want[1] = std::fma(float(VA), float(VB), float(VC));
    double MulUp = VX * VY;
    std::fesetround(FE_TOWARDZERO);
    Want[2] = VA + VB;
    Want[3] = float(VX);
    std::fesetround(FE_TONEAREST);
    double Quot = VX / VY;
    for (int J = 0; J < 5; ++J)
      ASSERT_TRUE((sameBits<float, uint32_t>(OF[5 * I + J], Want[J])))
          << "element " << I << " output " << J;
    ASSERT_TRUE((sameBits<double, uint64_t>(OD[2 * I], MulUp))) << "mul.rp.f64 element " << I;
    ASSERT_TRUE((sameBits<double, uint64_t>(OD[2 * I + 1], Quot)))
        << "div.rn.f64 element " << I << " " << std::hexfloat << X[I] << " / " << Y[I];
  }
}

// div.rn.f32 (kernels/float_div): v_div_scale/fmas/fixup against the IEEE quotient.
TEST_P(HalfExec, FloatDivisionIsIeee) {
  LIFT_ASSERT_OK_AND_ASSIGN(CO, load("float_div"));
  const int N = 1024;
  std::mt19937 Rng(7);
  std::vector<float> A(N), B(N);
  const float Special[] = {0.0f,
                           -0.0f,
                           std::numeric_limits<float>::infinity(),
                           -std::numeric_limits<float>::infinity(),
                           0x1p-149f,
                           0x1.8p-127f,
                           0x1p127f,
                           3.0f,
                           std::numeric_limits<float>::quiet_NaN(),
                           1e-38f};
  for (int I = 0; I < N; ++I) {
    A[I] = std::ldexp(float(Rng() % 0x1000000) / 0x1p24f + 0.5f, int(Rng() % 250) - 125);
    B[I] = std::ldexp(float(Rng() % 0x1000000) / 0x1p24f + 0.5f, int(Rng() % 250) - 125);
    if (I % 8 == 0)
      A[I] = Special[(I / 8) % 10];
    if (I % 8 == 4)
      B[I] = Special[(I / 8 + 3) % 10];
    if (I % 8 == 5)
      A[I] = std::ldexp(1.3f, 100), B[I] = std::ldexp(1.1f, -40); // overflow
    if (I % 8 == 6)
      A[I] = std::ldexp(1.3f, -100), B[I] = std::ldexp(1.7f, 40); // subnormal quotient
    if (I % 8 == 7)
      A[I] = std::ldexp(1.3f, -140), B[I] = std::ldexp(1.7f, -3); // tiny numerator
  }
  Device Dev;
  LIFT_ASSERT_OK_AND_ASSIGN(DA, Dev.allocateArray<float>(A, "a"));
  LIFT_ASSERT_OK_AND_ASSIGN(DB, Dev.allocateArray<float>(B, "b"));
  LIFT_ASSERT_OK_AND_ASSIGN(DO, Dev.allocate(N * 4, "out"));
  auto P = DispatchParams::blocks(
      "float_div", {blocks(N, 128), 1, 1}, {128, 1, 1},
      KernargBuilder().addPointer(DA).addPointer(DB).addPointer(DO).add(N).take());
  LIFT_ASSERT_OK_AND_ASSIGN(R, Dev.dispatch(*CO, P));
  (void)R;
  LIFT_ASSERT_OK_AND_ASSIGN(Out, Dev.readArray<float>(DO, N));
  for (int I = 0; I < N; ++I)
    ASSERT_TRUE((sameBits<float, uint32_t>(Out[I], A[I] / B[I])))
        << "element " << I << std::hexfloat << " " << A[I] << " / " << B[I];
}

// atom.add.noftz on f16, f16x2, bf16 and bf16x2 with one thread per address: the old value comes
// back and the sum is rounded once to nearest even, subnormals kept (kernels/half_atomics.cu).
TEST_P(HalfExec, HalfAtomicAddRounds) {
  LIFT_ASSERT_OK_AND_ASSIGN(CO, load("half_atomics"));
  const int N = 357;
  auto H0 = test16(N, 11, false), A = test16(N, 12, false);
  auto H20 = test16(2 * N, 13, false), A2 = test16(2 * N, 14, false);
  auto B0 = test16(N, 15, true), C = test16(N, 16, true);
  auto B20 = test16(2 * N, 17, true), C2 = test16(2 * N, 18, true);
  Device Dev;
  // A 16-bit atomic works on the dword that holds it (LLVM's expansion, as on the hardware), so
  // the 16-bit arrays end on a dword boundary, as every CUDA allocation does.
  auto Padded = [](std::vector<uint16_t> V) {
    V.resize(V.size() + V.size() % 2, 0);
    return V;
  };
  LIFT_ASSERT_OK_AND_ASSIGN(DH, Dev.allocateArray<uint16_t>(Padded(H0), "h"));
  LIFT_ASSERT_OK_AND_ASSIGN(DA, Dev.allocateArray<uint16_t>(A, "a"));
  LIFT_ASSERT_OK_AND_ASSIGN(DH2, Dev.allocateArray<uint16_t>(H20, "h2"));
  LIFT_ASSERT_OK_AND_ASSIGN(DA2, Dev.allocateArray<uint16_t>(A2, "a2"));
  LIFT_ASSERT_OK_AND_ASSIGN(DB, Dev.allocateArray<uint16_t>(Padded(B0), "b"));
  LIFT_ASSERT_OK_AND_ASSIGN(DC, Dev.allocateArray<uint16_t>(C, "c"));
  LIFT_ASSERT_OK_AND_ASSIGN(DB2, Dev.allocateArray<uint16_t>(B20, "b2"));
  LIFT_ASSERT_OK_AND_ASSIGN(DC2, Dev.allocateArray<uint16_t>(C2, "c2"));
  LIFT_ASSERT_OK_AND_ASSIGN(DO, Dev.allocate(4 * N * 4, "old"));
  auto P = DispatchParams::blocks("half_atomic_round", {blocks(N, 64), 1, 1}, {64, 1, 1},
                                  KernargBuilder()
                                      .addPointer(DH)
                                      .addPointer(DA)
                                      .addPointer(DH2)
                                      .addPointer(DA2)
                                      .addPointer(DB)
                                      .addPointer(DC)
                                      .addPointer(DB2)
                                      .addPointer(DC2)
                                      .addPointer(DO)
                                      .add(N)
                                      .take());
  LIFT_ASSERT_OK_AND_ASSIGN(R, Dev.dispatch(*CO, P));
  (void)R;
  LIFT_ASSERT_OK_AND_ASSIGN(Hv, Dev.readArray<uint16_t>(DH, N));
  LIFT_ASSERT_OK_AND_ASSIGN(H2, Dev.readArray<uint16_t>(DH2, 2 * N));
  LIFT_ASSERT_OK_AND_ASSIGN(Bv, Dev.readArray<uint16_t>(DB, N));
  LIFT_ASSERT_OK_AND_ASSIGN(B2, Dev.readArray<uint16_t>(DB2, 2 * N));
  LIFT_ASSERT_OK_AND_ASSIGN(Old, Dev.readArray<uint32_t>(DO, 4 * N));
  auto BfSum = [](uint16_t X, uint16_t Y) {
    return bf16FromOdd(fmaOddRef(bf16ToF(X), 1.0, bf16ToF(Y)));
  };
  for (int I = 0; I < N; ++I) {
    ASSERT_TRUE(same16(Hv[I], Hb(H(H0[I]) + H(A[I])))) << "f16 element " << I;
    ASSERT_EQ(Old[4 * I], H0[I]) << "f16 old " << I;
    ASSERT_TRUE(same16(Bv[I], BfSum(B0[I], C[I]), true)) << "bf16 element " << I;
    ASSERT_EQ(Old[4 * I + 2], B0[I]) << "bf16 old " << I;
    for (int Half = 0; Half < 2; ++Half) {
      int J = 2 * I + Half;
      ASSERT_TRUE(same16(H2[J], Hb(H(H20[J]) + H(A2[J])))) << "f16x2 element " << I;
      ASSERT_TRUE(same16(B2[J], BfSum(B20[J], C2[J]), true)) << "bf16x2 element " << I;
    }
    ASSERT_EQ(Old[4 * I + 1], H20[2 * I] | uint32_t(H20[2 * I + 1]) << 16) << "f16x2 old " << I;
    ASSERT_EQ(Old[4 * I + 3], B20[2 * I] | uint32_t(B20[2 * I + 1]) << 16) << "bf16x2 old " << I;
  }
}

// Many threads on one address (global and shared): small integers, so every partial sum is exact
// whatever the order; the old values must chain (sorted, each is the previous plus its addend),
// and atom.cas.b16 lets exactly one thread per slot in.
TEST_P(HalfExec, HalfAtomicsUnderContention) {
  LIFT_ASSERT_OK_AND_ASSIGN(CO, load("half_atomics"));
  const int N = 300, Block = 128, Blocks = (N + Block - 1) / Block;
  std::mt19937 Rng(21);
  std::vector<uint16_t> A(N), A2(2 * N), Bf(N);
  for (int I = 0; I < N; ++I) {
    A[I] = Hb(h16(1 + Rng() % 8));
    A2[2 * I] = Hb(h16(1 + Rng() % 8));
    A2[2 * I + 1] = Hb(h16(1 + Rng() % 4));
    Bf[I] = uint16_t(std::bit_cast<uint32_t>(float(1 + Rng() % 2)) >> 16);
  }
  std::vector<uint16_t> Cas(8, 0xffff), Zero(2 * (4 + Blocks), 0);
  Device Dev;
  LIFT_ASSERT_OK_AND_ASSIGN(DA, Dev.allocateArray<uint16_t>(A, "a"));
  LIFT_ASSERT_OK_AND_ASSIGN(DA2, Dev.allocateArray<uint16_t>(A2, "a2"));
  LIFT_ASSERT_OK_AND_ASSIGN(DB, Dev.allocateArray<uint16_t>(Bf, "b"));
  LIFT_ASSERT_OK_AND_ASSIGN(DAcc, Dev.allocateArray<uint16_t>(Zero, "acc"));
  LIFT_ASSERT_OK_AND_ASSIGN(DAcc2, Dev.allocateArray<uint16_t>(Zero, "acc2"));
  LIFT_ASSERT_OK_AND_ASSIGN(DBAcc, Dev.allocateArray<uint16_t>(Zero, "bacc"));
  LIFT_ASSERT_OK_AND_ASSIGN(DCas, Dev.allocateArray<uint16_t>(Cas, "cas"));
  LIFT_ASSERT_OK_AND_ASSIGN(DO, Dev.allocate(4 * N * 4, "old"));
  auto P = DispatchParams::blocks("half_atomic_contend", {uint32_t(Blocks), 1, 1},
                                  {uint32_t(Block), 1, 1},
                                  KernargBuilder()
                                      .addPointer(DA)
                                      .addPointer(DA2)
                                      .addPointer(DB)
                                      .addPointer(DAcc)
                                      .addPointer(DAcc2)
                                      .addPointer(DBAcc)
                                      .addPointer(DCas)
                                      .addPointer(DO)
                                      .add(N)
                                      .take());
  LIFT_ASSERT_OK_AND_ASSIGN(R, Dev.dispatch(*CO, P));
  (void)R;
  LIFT_ASSERT_OK_AND_ASSIGN(Acc, Dev.readArray<uint16_t>(DAcc, 4 + Blocks));
  LIFT_ASSERT_OK_AND_ASSIGN(Acc2, Dev.readArray<uint16_t>(DAcc2, 2 * (4 + Blocks)));
  LIFT_ASSERT_OK_AND_ASSIGN(BAcc, Dev.readArray<uint16_t>(DBAcc, 4));
  LIFT_ASSERT_OK_AND_ASSIGN(CasOut, Dev.readArray<uint16_t>(DCas, 8));
  LIFT_ASSERT_OK_AND_ASSIGN(Old, Dev.readArray<uint32_t>(DO, 4 * N));
  auto F16 = [](uint32_t Bits) { return double(H(uint16_t(Bits))); };
  auto BF = [](uint32_t Bits) { return double(bf16ToF(uint16_t(Bits))); };
  for (int K = 0; K < 4; ++K) {
    // Threads K, K+4, ... sorted by the old value they saw.
    std::vector<int> Ts;
    for (int I = K; I < N; I += 4)
      Ts.push_back(I);
    double Sum = 0, Lo = 0, Hi = 0, BSum = 0;
    auto Chain = [&](auto Key, double &Acc0, auto Addend, const char *What) {
      std::sort(Ts.begin(), Ts.end(), [&](int X, int Y) { return Key(X) < Key(Y); });
      double Run = 0;
      for (int I : Ts) {
        EXPECT_EQ(Key(I), Run) << What << " accumulator " << K << " thread " << I;
        Run += Addend(I);
      }
      Acc0 = Run;
    };
    Chain([&](int I) { return F16(Old[4 * I]); }, Sum, [&](int I) { return F16(A[I]); }, "f16");
    EXPECT_EQ(F16(Acc[K]), Sum) << "f16 accumulator " << K;
    Chain([&](int I) { return F16(Old[4 * I + 1]); }, Lo, [&](int I) { return F16(A2[2 * I]); },
          "f16x2 low");
    Chain([&](int I) { return F16(Old[4 * I + 1] >> 16); }, Hi,
          [&](int I) { return F16(A2[2 * I + 1]); }, "f16x2 high");
    EXPECT_EQ(F16(Acc2[2 * K]), Lo);
    EXPECT_EQ(F16(Acc2[2 * K + 1]), Hi);
    Chain([&](int I) { return BF(Old[4 * I + 2]); }, BSum, [&](int I) { return BF(Bf[I]); },
          "bf16");
    EXPECT_EQ(BF(BAcc[K]), BSum) << "bf16 accumulator " << K;
  }
  for (int Slot = 0; Slot < 8; ++Slot) {
    int Winners = 0;
    for (int I = Slot; I < N; I += 8) {
      if (Old[4 * I + 3] == 0xffff) {
        ++Winners;
        EXPECT_EQ(CasOut[Slot], I) << "cas slot " << Slot;
      } else {
        EXPECT_EQ(Old[4 * I + 3], CasOut[Slot]) << "cas slot " << Slot << " thread " << I;
      }
    }
    EXPECT_EQ(Winners, 1) << "cas slot " << Slot;
  }
  for (int Blk = 0; Blk < Blocks; ++Blk) {
    double S = 0, Lo = 0, Hi = 0;
    for (int I = Blk * Block; I < std::min(N, (Blk + 1) * Block); ++I) {
      S += F16(A[I]);
      Lo += F16(A2[2 * I]);
      Hi += F16(A2[2 * I + 1]);
    }
    EXPECT_EQ(F16(Acc[4 + Blk]), S) << "shared f16 block " << Blk;
    EXPECT_EQ(F16(Acc2[2 * (4 + Blk)]), Lo) << "shared f16x2 low block " << Blk;
    EXPECT_EQ(F16(Acc2[2 * (4 + Blk) + 1]), Hi) << "shared f16x2 high block " << Blk;
  }
}

// Registers declared in nested { } blocks shadow the outer ones only inside the block (PTX ISA
// 5.1.5): a plain register, a %r<N> range of another width whose outer member is live across the
// block, a block nested twice; and a .f16x2-typed register (kernels/scopes.ptx, hand-written).
TEST_P(HalfExec, NestedScopesShadowRegisters) {
  LIFT_ASSERT_OK_AND_ASSIGN(CO, load("scopes"));
  const uint32_t N = 70;
  Device Dev;
  LIFT_ASSERT_OK_AND_ASSIGN(DO, Dev.allocate(5 * N * 4, "out"));
  auto P = DispatchParams::blocks("scopes", {1, 1, 1}, {N, 1, 1},
                                  KernargBuilder().addPointer(DO).take());
  LIFT_ASSERT_OK_AND_ASSIGN(R, Dev.dispatch(*CO, P));
  (void)R;
  LIFT_ASSERT_OK_AND_ASSIGN(Out, Dev.readArray<uint32_t>(DO, 5 * N));
  const uint32_t Two = Hb(h16(1.0) + h16(1.0));
  for (uint32_t T = 0; T < N; ++T) {
    // outer x (7) + outer %r2 (tid + 100); inner x (1000 + 5) through the .f16x2 register; the
    // twice-nested x; the inner 16-bit %r2 (0xfffe) + inner x + 1; 1.0 + 1.0 in both halves.
    const uint32_t Want[5] = {T + 107, 1005, 3, 0xfffe + 1006, Two | (Two << 16)};
    for (int K = 0; K < 5; ++K)
      EXPECT_EQ(Out[5 * T + K], Want[K]) << "thread " << T << " output " << K;
  }
}

// ---- IR-level checks of the lifted half-precision forms

std::string halfIR(const std::string &Body) {
  std::string Text = ".version 8.0\n.target sm_90\n.address_size 64\n"
                     ".visible .entry k(.param .u64 out)\n{\n"
                     ".reg .pred %p<4>;\n.reg .b16 %h<4>;\n.reg .b32 %r<8>;\n.reg .b64 %rd<8>;\n" +
                     Body + "\nret;\n}\n";
  auto L = lift("t.ptx", Text);
  if (!L)
    return "ERROR: " + llvm::toString(L.takeError());
  if (!(*L)->R.Failures.empty())
    return "ERROR: " + (*L)->R.Failures[0].Message;
  std::string S;
  llvm::raw_string_ostream OS(S);
  (*L)->R.M->print(OS, nullptr);
  return S;
}

#define EXPECT_IR_HAS(IR, Needle) EXPECT_NE((IR).find(Needle), std::string::npos) << (IR)

// atom/red .add.noftz on the half types become atomicrmw fadd on half, <2 x half>, bfloat and
// <2 x bfloat> in the instruction's space; atom.cas.b16 a 16-bit cmpxchg; without .noftz (which
// PTX requires for these) the kernel is refused.
TEST(HalfIR, AtomicsOnHalfTypes) {
  std::string S = halfIR("atom.global.add.noftz.f16 %h1, [%rd1], %h2;\n"
                         "atom.add.noftz.f16x2 %r1, [%rd1], %r2;\n"
                         "atom.shared.add.noftz.bf16 %h1, [%rd1], %h2;\n"
                         "red.global.add.noftz.bf16x2 [%rd1], %r2;\n"
                         "atom.global.cas.b16 %h1, [%rd1], %h2, %h3;");
  EXPECT_IR_HAS(S, "atomicrmw fadd ptr addrspace(1) %");
  EXPECT_IR_HAS(S, ", half %");
  EXPECT_IR_HAS(S, "atomicrmw fadd ptr %");
  EXPECT_IR_HAS(S, ", <2 x half> %");
  EXPECT_IR_HAS(S, "atomicrmw fadd ptr addrspace(3) %");
  EXPECT_IR_HAS(S, ", bfloat %");
  EXPECT_IR_HAS(S, ", <2 x bfloat> %");
  EXPECT_IR_HAS(S, "cmpxchg ptr addrspace(1) %");
  EXPECT_IR_HAS(S, ", i16 %");
  EXPECT_IR_HAS(halfIR("atom.global.add.f16 %h1, [%rd1], %h2;"), "ERROR");
}

// .f16x2 registers hold 32 bits; f16 fma is one llvm.fma.f16 (a single rounding), bf16 fma is
// computed in double and rounded once (no bf16 arithmetic in the IR).
TEST(HalfIR, HalfRegistersAndFma) {
  std::string S = halfIR(".reg .f16x2 %x<2>;\nfma.rn.f16x2 %x1, %r1, %r2, %r3;\n"
                         "fma.rn.f16 %h1, %h2, %h3, %h1;\nfma.rn.bf16 %h1, %h2, %h3, %h1;");
  EXPECT_IR_HAS(S, "%x1 = alloca i32");
  EXPECT_IR_HAS(S, "@llvm.fma.v2f16(");
  EXPECT_IR_HAS(S, "@llvm.fma.f16(");
  EXPECT_IR_HAS(S, "fpext float");
  EXPECT_EQ(S.find("bfloat"), std::string::npos) << S;
}

INSTANTIATE_TEST_SUITE_P(Targets, HalfExec,
                         ::testing::Values("gfx942", "gfx1100", "gfx90a", "gfx1030", "gfx1201"),
                         [](const auto &Info) { return Info.param; });

} // namespace
