// End-to-end emulator tests: each kernel of kernels/*.cu, compiled by clang-22 for gfx942, gfx1100
// (wave32 and wave64), gfx90a, gfx1030 and gfx1201, runs with odd dispatch sizes and every output
// is compared bit for bit with a host reference; faulting kernels must report where and why they
// stopped.
#include "TestUtil.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <ostream>
#include <random>
#include <vector>

using namespace reptx::emulator;
using namespace reptx::emulator::test;

namespace {

std::vector<float> randomFloats(size_t N, uint32_t Seed) {
  std::mt19937 Rng(Seed);
  std::uniform_real_distribution<float> Dist(-100.0f, 100.0f);
  std::vector<float> V(N);
  for (float &X : V)
    X = Dist(Rng);
  return V;
}

std::vector<uint32_t> randomWords(size_t N, uint32_t Seed) {
  std::mt19937 Rng(Seed);
  std::vector<uint32_t> V(N);
  for (size_t I = 0; I < N; ++I)
    // Mix small values (short Collatz runs) with full-range ones.
    V[I] = (I % 4 == 0) ? Rng() % 100 : Rng();
  return V;
}

uint32_t bits(float F) { return std::bit_cast<uint32_t>(F); }

// A compiled variant of the kernels: processor, file name suffix, wave size.
struct Target {
  std::string Arch;
  std::string Suffix;
  unsigned WaveSize;
};

void PrintTo(const Target &T, std::ostream *OS) { *OS << T.Arch << T.Suffix; }

class KernelTest : public ::testing::TestWithParam<Target> {
protected:
  llvm::Expected<std::unique_ptr<CodeObject>> load(const std::string &Kernel) const {
    return loadKernelObject(Kernel, GetParam().Arch, GetParam().Suffix);
  }
  unsigned waveSize() const { return GetParam().WaveSize; }
};

TEST_P(KernelTest, VectorAddMatchesHostForOddSizes) {
  EMU_ASSERT_OK_AND_ASSIGN(CO, load("vector_add"));
  const int N = 1000;
  std::vector<float> A = randomFloats(N, 1), B = randomFloats(N, 2);
  for (uint32_t Block : {256u, 100u, 33u, 1u}) {
    SCOPED_TRACE("block size " + std::to_string(Block));
    Device Dev;
    EMU_ASSERT_OK_AND_ASSIGN(DA, Dev.allocateArray<float>(A, "A"));
    EMU_ASSERT_OK_AND_ASSIGN(DB, Dev.allocateArray<float>(B, "B"));
    EMU_ASSERT_OK_AND_ASSIGN(DC, Dev.allocate(N * sizeof(float), "C"));
    uint32_t Blocks = (N + Block - 1) / Block;
    auto Params = DispatchParams::blocks(
        "vector_add", {Blocks, 1, 1}, {Block, 1, 1},
        KernargBuilder().addPointer(DA).addPointer(DB).addPointer(DC).add(N).take());
    EMU_ASSERT_OK_AND_ASSIGN(R, Dev.dispatch(*CO, Params));
    EXPECT_EQ(R.Workgroups, Blocks);
    EXPECT_EQ(R.Waves, Blocks * ((Block + waveSize() - 1) / waveSize()));
    EMU_ASSERT_OK_AND_ASSIGN(C, Dev.readArray<float>(DC, N));
    for (int I = 0; I < N; ++I)
      ASSERT_EQ(bits(C[I]), bits(A[I] + B[I])) << "element " << I;
  }
}

TEST_P(KernelTest, SaxpyGridStrideLoopMatchesHost) {
  EMU_ASSERT_OK_AND_ASSIGN(CO, load("saxpy"));
  const int N = 1000;
  const float Alpha = -1.75f;
  std::vector<float> X = randomFloats(N, 3), Y = randomFloats(N, 4);
  Device Dev;
  EMU_ASSERT_OK_AND_ASSIGN(DX, Dev.allocateArray<float>(X, "X"));
  EMU_ASSERT_OK_AND_ASSIGN(DY, Dev.allocateArray<float>(Y, "Y"));
  // 3 blocks of 96 work-items: each work-item handles several elements.
  auto Params = DispatchParams::blocks(
      "saxpy", {3, 1, 1}, {96, 1, 1},
      KernargBuilder().add(Alpha).addPointer(DX).addPointer(DY).add(N).take());
  EMU_ASSERT_OK_AND_ASSIGN(R, Dev.dispatch(*CO, Params));
  EXPECT_EQ(R.Workgroups, 3u);
  EMU_ASSERT_OK_AND_ASSIGN(Out, Dev.readArray<float>(DY, N));
  for (int I = 0; I < N; ++I)
    ASSERT_EQ(bits(Out[I]), bits(std::fma(Alpha, X[I], Y[I]))) << "element " << I;
}

TEST_P(KernelTest, BlockReduceWithSharedMemoryBallotAndBpermute) {
  EMU_ASSERT_OK_AND_ASSIGN(CO, load("block_reduce"));
  const int N = 1000, Block = 256, Blocks = (N + Block - 1) / Block;
  const unsigned WS = waveSize();
  std::vector<float> In = randomFloats(N, 5);
  Device Dev;
  EMU_ASSERT_OK_AND_ASSIGN(DIn, Dev.allocateArray<float>(In, "In"));
  EMU_ASSERT_OK_AND_ASSIGN(DSums, Dev.allocate(Blocks * sizeof(float), "Sums"));
  size_t NumBallots = size_t(Blocks) * Block / WS;
  EMU_ASSERT_OK_AND_ASSIGN(DBallots, Dev.allocate(NumBallots * 8, "Ballots"));
  auto Params = DispatchParams::blocks(
      "block_reduce", {Blocks, 1, 1}, {Block, 1, 1},
      KernargBuilder().addPointer(DIn).addPointer(DSums).addPointer(DBallots).add(N).take());
  EMU_ASSERT_OK_AND_ASSIGN(R, Dev.dispatch(*CO, Params));
  EXPECT_EQ(R.Workgroups, uint64_t(Blocks));
  EMU_ASSERT_OK_AND_ASSIGN(Sums, Dev.readArray<float>(DSums, Blocks));
  EMU_ASSERT_OK_AND_ASSIGN(Ballots, Dev.readArray<uint64_t>(DBallots, NumBallots));

  for (int B = 0; B < Blocks; ++B) {
    // The same tree as the kernel: LDS halving down to 32, then a 32-lane shuffle.
    float P[256];
    for (int T = 0; T < Block; ++T)
      P[T] = B * Block + T < N ? In[B * Block + T] : 0.0f;
    for (unsigned W = 0; W < Block / WS; ++W) {
      uint64_t Mask = 0;
      for (unsigned L = 0; L < WS; ++L)
        if (P[W * WS + L] > 0.0f)
          Mask |= uint64_t(1) << L;
      EXPECT_EQ(Ballots[(B * Block) / WS + W], Mask) << "block " << B << " wave " << W;
    }
    for (int Stride = 128; Stride >= 32; Stride /= 2)
      for (int T = 0; T < Stride; ++T)
        P[T] = P[T] + P[T + Stride];
    float X[32];
    std::memcpy(X, P, sizeof(X));
    for (int D = 16; D > 0; D /= 2) {
      float Next[32];
      for (int L = 0; L < 32; ++L)
        Next[L] = X[L] + (L + D < 32 ? X[L + D] : X[L]);
      std::memcpy(X, Next, sizeof(X));
    }
    EXPECT_EQ(bits(Sums[B]), bits(X[0])) << "block " << B;
  }
}

TEST_P(KernelTest, DivergentLoopsAndBranchesIn2DGrid) {
  EMU_ASSERT_OK_AND_ASSIGN(CO, load("loop_branch"));
  // 16x5 work-groups (80 work-items: not a multiple of either wave size) in a 7x3 grid.
  const uint32_t BX = 16, BY = 5, GX = 7, GY = 3;
  const int N = int(BX * BY * GX * GY) - 17;
  std::vector<uint32_t> In = randomWords(N, 6);
  Device Dev;
  EMU_ASSERT_OK_AND_ASSIGN(DIn, Dev.allocateArray<uint32_t>(In, "In"));
  EMU_ASSERT_OK_AND_ASSIGN(DOut, Dev.allocate(N * 4, "Out"));
  EMU_ASSERT_OK_AND_ASSIGN(DQuot, Dev.allocate(N * 4, "Quot"));
  auto Params = DispatchParams::blocks(
      "loop_branch", {GX, GY, 1}, {BX, BY, 1},
      KernargBuilder().addPointer(DIn).addPointer(DOut).addPointer(DQuot).add(N).take());
  EMU_ASSERT_OK_AND_ASSIGN(R, Dev.dispatch(*CO, Params));
  EXPECT_EQ(R.Workgroups, uint64_t(GX) * GY);
  EMU_ASSERT_OK_AND_ASSIGN(Out, Dev.readArray<uint32_t>(DOut, N));
  EMU_ASSERT_OK_AND_ASSIGN(Quot, Dev.readArray<int32_t>(DQuot, N));
  for (uint32_t By = 0; By < GY; ++By)
    for (uint32_t Bx = 0; Bx < GX; ++Bx)
      for (uint32_t Ty = 0; Ty < BY; ++Ty)
        for (uint32_t Tx = 0; Tx < BX; ++Tx) {
          uint32_t I = (By * GX + Bx) * (BX * BY) + Ty * BX + Tx;
          if (I >= uint32_t(N))
            continue;
          uint32_t X = In[I], Res;
          if (Tx % 3 == 0) {
            uint32_t Steps = 0;
            while (X > 1 && Steps < 500) {
              X = (X & 1) ? 3 * X + 1 : X >> 1;
              ++Steps;
            }
            Res = Steps;
          } else {
            Res = X;
            for (uint32_t K = 0; K < (Tx & 7) + Ty; ++K)
              Res = (Res * 2654435761u) ^ (Res >> 13);
          }
          ASSERT_EQ(Out[I], Res) << "element " << I;
          ASSERT_EQ(Quot[I], int32_t(Res >> 1) / (int32_t(Tx | 1) - 8)) << "element " << I;
        }
}

// Host version of kernels/alu_ops.cu, operation for operation.
void aluOpsReference(uint32_t a, uint32_t b, float f, float g, uint32_t *O, double &D) {
  int32_t sa = int32_t(a), sb = int32_t(b);
  O[0] = a * 3u + b;
  O[1] = uint32_t((uint64_t(a) * b) >> 32);
  O[2] = uint32_t((int64_t(sa) * sb) >> 32);
  O[3] = uint32_t(sa >> (b & 31)) ^ (a << (b & 7));
  O[4] = uint32_t(std::min(sa, sb)) + std::max(a, b);
  O[5] = std::popcount(a) + std::countl_zero(a | 1) * 64 + std::countr_zero(b | 0x80000000u) * 4096;
  O[6] = __builtin_bitreverse32(a) ^ ((a & 0xff00ff) | (b ^ 0x5a5a));
  O[7] = bits(float(a)) ^ bits(float(sb));
  O[8] = uint32_t(int32_t(f)) + uint32_t(int32_t(g * 3.0f));
  O[9] = bits(std::fmin(f, g));
  O[10] = bits(std::fmax(f, g));
  O[11] = bits(std::floor(f)) ^ bits(std::ceil(g));
  O[12] = bits(std::trunc(f)) + bits(std::rint(g));
  O[13] = bits(std::fma(std::fabs(f), g, -f));
  O[14] = f > g ? a : b;
  uint64_t w = uint64_t(a) * b + (uint64_t(b) << 7);
  O[15] = uint32_t(w >> (a & 31)) ^ uint32_t(w >> 32);
  O[16] = uint32_t(sa / 7) + uint32_t(sb % 13);
  O[17] = a % (b | 1u);
  O[18] = bits(std::sqrt(std::fabs(f)));
  O[19] = uint16_t(a * b) | (uint32_t(uint16_t(a >> 16) * 3u) << 16);
  O[20] = (a >> 5) & 0x3ff;
  O[21] = bits(std::ldexp(f, int(b & 15) - 8));
  O[22] = uint32_t(int64_t(sa) * 5 / 3);
  O[23] = bits(std::fma(f, g, (f - g) * 0.25f));
  O[24] = bits(std::fmin(std::fmax(f, g), f * 0.5f));
  O[25] = std::max(std::min(a, b), a ^ b);
  D = std::fma(double(f), double(g), double(sa));
}

TEST_P(KernelTest, AluOperationsMatchHostBitForBit) {
  EMU_ASSERT_OK_AND_ASSIGN(CO, load("alu_ops"));
  const int N = 500, NumOut = 26;
  std::vector<uint32_t> A = randomWords(N, 7), B = randomWords(N, 8);
  std::vector<float> F = randomFloats(N, 9), G = randomFloats(N, 10);
  B[0] = 0;          // division and shift corner cases
  A[1] = 0x80000000; // INT_MIN
  B[2] = 0xffffffff;
  F[3] = -0.5f; // rounding ties
  G[3] = 2.5f;
  Device Dev;
  EMU_ASSERT_OK_AND_ASSIGN(DA, Dev.allocateArray<uint32_t>(A));
  EMU_ASSERT_OK_AND_ASSIGN(DB, Dev.allocateArray<uint32_t>(B));
  EMU_ASSERT_OK_AND_ASSIGN(DF, Dev.allocateArray<float>(F));
  EMU_ASSERT_OK_AND_ASSIGN(DG, Dev.allocateArray<float>(G));
  EMU_ASSERT_OK_AND_ASSIGN(DOut, Dev.allocate(size_t(N) * NumOut * 4, "Out"));
  EMU_ASSERT_OK_AND_ASSIGN(DD, Dev.allocate(size_t(N) * 8, "D"));
  auto Params = DispatchParams::blocks("alu_ops", {4, 1, 1}, {125, 1, 1},
                                       KernargBuilder()
                                           .addPointer(DA)
                                           .addPointer(DB)
                                           .addPointer(DF)
                                           .addPointer(DG)
                                           .addPointer(DOut)
                                           .addPointer(DD)
                                           .add(N)
                                           .take());
  EMU_ASSERT_OK_AND_ASSIGN(R, Dev.dispatch(*CO, Params));
  EXPECT_EQ(R.Workgroups, 4u);
  EMU_ASSERT_OK_AND_ASSIGN(Out, Dev.readArray<uint32_t>(DOut, size_t(N) * NumOut));
  EMU_ASSERT_OK_AND_ASSIGN(D, Dev.readArray<double>(DD, N));
  for (int I = 0; I < N; ++I) {
    uint32_t Expected[NumOut];
    double ExpectedD;
    aluOpsReference(A[I], B[I], F[I], G[I], Expected, ExpectedD);
    for (int K = 0; K < NumOut; ++K)
      ASSERT_EQ(Out[size_t(I) * NumOut + K], Expected[K])
          << "element " << I << ", result " << K << " (a=" << A[I] << " b=" << B[I] << " f=" << F[I]
          << " g=" << G[I] << ")";
    ASSERT_EQ(std::bit_cast<uint64_t>(D[I]), std::bit_cast<uint64_t>(ExpectedD)) << I;
  }
}

// Host version of kernels/int16_ops.cu.
// (Products in uint32_t: uint16_t operands would be promoted to int, which 65535 * 65535
// overflows.)
void int16OpsReference(uint16_t x, uint16_t y, uint16_t z, uint32_t *O) {
  O[0] = uint16_t(uint32_t(x) * y + z);
  O[1] = uint32_t(int32_t(int16_t(int16_t(x) * -9 + int16_t(z))));
  O[2] = uint16_t(uint32_t(x) * 23 + y);
  O[3] = uint16_t(std::max(x, y) - z);
  O[4] = uint16_t(uint16_t(uint32_t(x) * y) >> (z & 15));
}

// 16-bit VALU arithmetic, GFX9's legacy v_mad_legacy_u16 among it (a kernel of cuDNN's Winograd
// convolution stopped at it), with results the compiler widens trusting the high half's zeros.
TEST_P(KernelTest, SixteenBitIntegerOperationsMatchHost) {
  EMU_ASSERT_OK_AND_ASSIGN(CO, load("int16_ops"));
  const int N = 300, NumOut = 5;
  std::vector<uint32_t> Words = randomWords(3 * N, 21);
  std::vector<uint16_t> A(N), B(N), C(N);
  for (int I = 0; I < N; ++I) {
    A[I] = uint16_t(Words[I]);
    B[I] = uint16_t(Words[N + I] >> 7);
    C[I] = uint16_t(Words[2 * N + I] >> 13);
  }
  A[0] = 0xffff, B[0] = 0xffff, C[0] = 0xffff; // wrap-around in every result
  A[1] = 0x8000, B[1] = 0x7fff, C[1] = 0x8000;
  Device Dev;
  EMU_ASSERT_OK_AND_ASSIGN(DA, Dev.allocateArray<uint16_t>(A));
  EMU_ASSERT_OK_AND_ASSIGN(DB, Dev.allocateArray<uint16_t>(B));
  EMU_ASSERT_OK_AND_ASSIGN(DC, Dev.allocateArray<uint16_t>(C));
  EMU_ASSERT_OK_AND_ASSIGN(DOut, Dev.allocate(size_t(N) * NumOut * 4, "Out"));
  auto Params = DispatchParams::blocks(
      "int16_ops", {3, 1, 1}, {100, 1, 1},
      KernargBuilder().addPointer(DA).addPointer(DB).addPointer(DC).addPointer(DOut).add(N).take());
  EMU_ASSERT_OK_AND_ASSIGN(R, Dev.dispatch(*CO, Params));
  EXPECT_EQ(R.Workgroups, 3u);
  EMU_ASSERT_OK_AND_ASSIGN(Out, Dev.readArray<uint32_t>(DOut, size_t(N) * NumOut));
  for (int I = 0; I < N; ++I) {
    uint32_t Expected[NumOut];
    int16OpsReference(A[I], B[I], C[I], Expected);
    for (int K = 0; K < NumOut; ++K)
      ASSERT_EQ(Out[size_t(I) * NumOut + K], Expected[K])
          << "element " << I << ", result " << K << " (x=" << A[I] << " y=" << B[I] << " z=" << C[I]
          << ")";
  }
}

// The packed forms (VOP3P v_pk_mad_u16, v_pk_mul_lo_u16, shifts) of kernels/int16_ops.cu's second
// kernel, pair by pair.
TEST_P(KernelTest, PackedSixteenBitIntegerOperationsMatchHost) {
  EMU_ASSERT_OK_AND_ASSIGN(CO, load("int16_ops"));
  const int Pairs = 200, NumOut = 10;
  std::vector<uint32_t> Words = randomWords(6 * Pairs, 22);
  std::vector<uint16_t> A(2 * Pairs), B(2 * Pairs), C(2 * Pairs);
  for (int I = 0; I < 2 * Pairs; ++I) {
    A[I] = uint16_t(Words[I]);
    B[I] = uint16_t(Words[2 * Pairs + I] >> 5);
    C[I] = uint16_t(Words[4 * Pairs + I] >> 11);
  }
  A[0] = 0xffff, B[0] = 0xffff, C[0] = 0xffff; // wrap-around, shifts by 15
  A[3] = 0x8000, B[3] = 0x8001, C[3] = 0x7ff1; // a negative value shifted right arithmetically
  Device Dev;
  EMU_ASSERT_OK_AND_ASSIGN(DA, Dev.allocateArray<uint16_t>(A));
  EMU_ASSERT_OK_AND_ASSIGN(DB, Dev.allocateArray<uint16_t>(B));
  EMU_ASSERT_OK_AND_ASSIGN(DC, Dev.allocateArray<uint16_t>(C));
  EMU_ASSERT_OK_AND_ASSIGN(DOut, Dev.allocate(size_t(Pairs) * NumOut * 2, "Out"));
  auto Params = DispatchParams::blocks("int16_packed", {2, 1, 1}, {100, 1, 1},
                                       KernargBuilder()
                                           .addPointer(DA)
                                           .addPointer(DB)
                                           .addPointer(DC)
                                           .addPointer(DOut)
                                           .add(Pairs)
                                           .take());
  EMU_ASSERT_OK_AND_ASSIGN(R, Dev.dispatch(*CO, Params));
  EXPECT_EQ(R.Workgroups, 2u);
  EMU_ASSERT_OK_AND_ASSIGN(Out, Dev.readArray<uint16_t>(DOut, size_t(Pairs) * NumOut));
  for (int I = 0; I < Pairs; ++I)
    for (int K = 0; K < 2; ++K) {
      uint16_t x = A[2 * I + K], y = B[2 * I + K], z = C[2 * I + K];
      uint16_t Expected[5] = {uint16_t(uint32_t(x) * y + z), uint16_t(uint32_t(x) * y),
                              uint16_t(uint32_t(y) << (z & 15)), uint16_t(int16_t(y) >> (z & 15)),
                              uint16_t(int32_t(int16_t(x)) * int16_t(y) - int16_t(z))};
      for (int J = 0; J < 5; ++J)
        ASSERT_EQ(Out[size_t(I) * NumOut + 2 * J + K], Expected[J])
            << "pair " << I << ", element " << K << ", result " << J << " (x=" << x << " y=" << y
            << " z=" << z << ")";
    }
}

// Host version of kernels/salu_float.cu.
void saluFloatReference(float A, float B, float C, _Float16 H, uint32_t *O) {
  auto Half = [](double V) { return uint32_t(std::bit_cast<uint16_t>(_Float16(V))); };
  O[0] = bits(std::fma(A, B, C));
  O[1] = bits(std::fma(A, 2.75f, B));
  O[2] = bits(std::trunc(A * 3.5f));
  O[3] = bits(std::floor(B) + std::ceil(C));
  O[4] = bits(float(H) * A);
  O[5] = Half(A + B);
  O[6] = bits(std::fmax(A, B) - std::fmin(B, C));
  O[7] = uint32_t(A < B) | uint32_t(A == C) << 1 | uint32_t(B != C) << 2 | uint32_t(A >= C) << 3 |
         uint32_t(!(A < C)) << 4 | uint32_t(B <= C) << 5 | uint32_t(A > B) << 6;
  O[8] = bits(std::exp2(A));
  O[9] = bits(std::log2(B));
  O[10] = bits(std::sqrt(B));
  O[11] = bits(std::rint(C * 1.5f));
  O[12] = Half(double(H) * double(H) + double(H)); // one rounding: an f16 fma
  O[13] = uint32_t(float(H) < float(_Float16(A))) | uint32_t(float(H) != 1.0f) << 1;
}

// Float arithmetic on kernel arguments only: GFX12's SALU float instructions on gfx1201 (the
// VALU elsewhere), for three sets of arguments that flip each comparison.
TEST_P(KernelTest, UniformFloatArithmeticMatchesHost) {
  EMU_ASSERT_OK_AND_ASSIGN(CO, load("salu_float"));
  const int Threads = 64, NumOut = 14;
  struct Args {
    float A, B, C;
    _Float16 H;
  } Sets[] = {{1.75f, 2.5f, -0.625f, _Float16(0.375f)},
              {-3.25f, 0.1f, -3.25f, _Float16(-2.0f)},
              {7.0f, 1e-3f, 9.5f, _Float16(1.0f)}};
  for (const Args &S : Sets) {
    Device Dev;
    EMU_ASSERT_OK_AND_ASSIGN(DOut, Dev.allocate(size_t(Threads) * NumOut * 4, "Out"));
    auto Params = DispatchParams::blocks(
        "salu_float", {1, 1, 1}, {Threads, 1, 1},
        KernargBuilder().add(S.A).add(S.B).add(S.C).add(S.H).addPointer(DOut).take());
    EMU_ASSERT_OK_AND_ASSIGN(R, Dev.dispatch(*CO, Params));
    EXPECT_EQ(R.Workgroups, 1u);
    EMU_ASSERT_OK_AND_ASSIGN(Out, Dev.readArray<uint32_t>(DOut, size_t(Threads) * NumOut));
    uint32_t Expected[NumOut];
    saluFloatReference(S.A, S.B, S.C, S.H, Expected);
    for (int I = 0; I < Threads; ++I)
      for (int K = 0; K < NumOut; ++K)
        ASSERT_EQ(Out[size_t(I) * NumOut + K], Expected[K])
            << "thread " << I << ", result " << K << " (A=" << S.A << " B=" << S.B << " C=" << S.C
            << " H=" << float(S.H) << ")";
  }
}

TEST_P(KernelTest, OutOfBoundsWriteIsReportedWithLaneAndAddress) {
  EMU_ASSERT_OK_AND_ASSIGN(CO, load("out_of_bounds"));
  const int N = 1000;
  Device Dev;
  EMU_ASSERT_OK_AND_ASSIGN(DOut, Dev.allocate(N * 4, "Out"));
  // Within bounds first: the same code object runs fine.
  auto Good = DispatchParams::blocks("out_of_bounds", {4, 1, 1}, {256, 1, 1},
                                     KernargBuilder().addPointer(DOut).add(N).add(0).take());
  EMU_ASSERT_OK_AND_ASSIGN(R, Dev.dispatch(*CO, Good));
  EXPECT_EQ(R.Workgroups, 4u);
  EMU_ASSERT_OK_AND_ASSIGN(Out, Dev.readArray<uint32_t>(DOut, N));
  for (int I = 0; I < N; ++I)
    ASSERT_EQ(Out[I], uint32_t(I));

  // Work-item 1000 writes the element just past the end.
  auto Bad = DispatchParams::blocks("out_of_bounds", {4, 1, 1}, {256, 1, 1},
                                    KernargBuilder().addPointer(DOut).add(N).add(1).take());
  auto Result = Dev.dispatch(*CO, Bad);
  ASSERT_FALSE(static_cast<bool>(Result));
  std::string Message;
  std::optional<Fault> F = takeFault(Result.takeError(), Message);
  ASSERT_TRUE(F.has_value()) << Message;
  const unsigned Local = 1000 % 256, WS = waveSize();
  EXPECT_EQ(F->Kind, FaultKind::MemoryViolation);
  EXPECT_EQ(F->Kernel, "out_of_bounds");
  EXPECT_EQ(F->Workgroup, (Dim3{3, 0, 0}));
  EXPECT_EQ(F->Wave, Local / WS);
  ASSERT_TRUE(F->Lane.has_value());
  EXPECT_EQ(*F->Lane, Local % WS);
  ASSERT_TRUE(F->Address.has_value());
  EXPECT_EQ(*F->Address, DOut + N * 4);
  EXPECT_TRUE(F->Instruction.starts_with("global_store")) << F->Instruction;
  char Expected[64];
  std::snprintf(Expected, sizeof(Expected), "%#018llx", (unsigned long long)(DOut + N * 4));
  EXPECT_NE(Message.find(Expected), std::string::npos) << Message;
  EXPECT_NE(Message.find("lane " + std::to_string(Local % WS)), std::string::npos) << Message;
  EXPECT_NE(Message.find("work-group (3,0,0)"), std::string::npos) << Message;
  EXPECT_NE(Message.find("'Out'"), std::string::npos) << Message;
  EXPECT_NE(Message.find(F->Instruction), std::string::npos) << Message;
}

// A grid-wide barrier (each work-group waits until every other has arrived) completes only when
// the work-groups are resident together: a cooperative dispatch.
TEST_P(KernelTest, CooperativeDispatchRunsEveryWorkGroupAtOnce) {
  EMU_ASSERT_OK_AND_ASSIGN(CO, load("grid_barrier"));
  const uint32_t Groups = 7, Size = 96;
  Device Dev;
  EMU_ASSERT_OK_AND_ASSIGN(DCounter, Dev.allocateArray<uint32_t>({0}, "Counter"));
  EMU_ASSERT_OK_AND_ASSIGN(DOut, Dev.allocate(Groups * Size * 4, "Out"));
  auto Params =
      DispatchParams::blocks("grid_barrier", {Groups, 1, 1}, {Size, 1, 1},
                             KernargBuilder().addPointer(DCounter).addPointer(DOut).take());
  Params.Cooperative = true;
  EMU_ASSERT_OK_AND_ASSIGN(R, Dev.dispatch(*CO, Params));
  EXPECT_EQ(R.Workgroups, Groups);
  EXPECT_EQ(R.Waves, Groups * ((Size + waveSize() - 1) / waveSize()));
  EMU_ASSERT_OK_AND_ASSIGN(Out, Dev.readArray<uint32_t>(DOut, Groups * Size));
  for (uint32_t I = 0; I < Groups * Size; ++I)
    ASSERT_EQ(Out[I], Groups) << "work-item " << I;

  // One work-group after another: the first spins forever.
  EMU_ASSERT_OK(Dev.write(DCounter, std::vector<uint8_t>(4, 0)));
  Params.Cooperative = false;
  Params.MaxInstructionsPerWave = 1 << 16;
  auto Result = Dev.dispatch(*CO, Params);
  ASSERT_FALSE(static_cast<bool>(Result));
  std::string Message;
  std::optional<Fault> F = takeFault(Result.takeError(), Message);
  ASSERT_TRUE(F.has_value()) << Message;
  EXPECT_EQ(F->Kind, FaultKind::InstructionLimit);
  EXPECT_EQ(F->Workgroup, (Dim3{0, 0, 0}));

  // More work-groups than the emulator holds at once: refused, not run.
  auto Huge = DispatchParams::blocks(
      "grid_barrier", {uint32_t(DispatchParams::MaxCooperativeWaves), 1, 1}, {Size, 1, 1},
      KernargBuilder().addPointer(DCounter).addPointer(DOut).take());
  Huge.Cooperative = true;
  auto TooMany = Dev.dispatch(*CO, Huge);
  ASSERT_FALSE(static_cast<bool>(TooMany));
  EXPECT_NE(llvm::toString(TooMany.takeError()).find("exceed what the emulator holds at once"),
            std::string::npos);
}

// An ordinary dispatch whose first work-group waits for the last one: after StallRounds rounds
// later work-groups join it, interleaved in a growing window, and the last one releases it. The
// other work-groups ran meanwhile and finished, every one exactly once.
TEST_P(KernelTest, WorkGroupWaitingForALaterOneFinishes) {
  EMU_ASSERT_OK_AND_ASSIGN(CO, load("wait_for_later"));
  const uint32_t Groups = 300, Size = 64;
  Device Dev;
  EMU_ASSERT_OK_AND_ASSIGN(DFlag, Dev.allocateArray<uint32_t>({0}, "Flag"));
  EMU_ASSERT_OK_AND_ASSIGN(DOut, Dev.allocate(Groups * Size * 4, "Out"));
  auto Params = DispatchParams::blocks("wait_for_later", {Groups, 1, 1}, {Size, 1, 1},
                                       KernargBuilder().addPointer(DFlag).addPointer(DOut).take());
  EMU_ASSERT_OK_AND_ASSIGN(R, Dev.dispatch(*CO, Params));
  EXPECT_EQ(R.Workgroups, Groups);
  EMU_ASSERT_OK_AND_ASSIGN(Out, Dev.readArray<uint32_t>(DOut, Groups * Size));
  for (uint32_t G = 0; G < Groups; ++G)
    for (uint32_t T = 0; T < Size; ++T) {
      uint32_t V = Out[G * Size + T];
      // The first and last work-groups see the flag set; the others may or may not.
      ASSERT_EQ(V >> 1, G) << "work-item " << T << " of work-group " << G;
      if (G == 0 || G == Groups - 1)
        ASSERT_EQ(V & 1, 1u) << "work-item " << T << " of work-group " << G;
    }
}

// Scratch D16 loads and high-half stores (kernels/scratch_d16.cu) against the bytes each lane
// stored: 0x1111'2222 with its high half loaded, 0x3333'4444 with byte 1 sign-extended into its
// low half, 0x5555'6666 with byte 3 into its high half, 0x7777'8888 with bytes 2-3 into its low
// half; then the word after storing the high byte of X at byte 0 and the high half of Y at 2.
TEST_P(KernelTest, ScratchD16LoadsAndHighHalfStores) {
  EMU_ASSERT_OK_AND_ASSIGN(CO, load("scratch_d16"));
  for (const DisassembledInstruction &D : CO->disassemble(*CO->findKernel("scratch_d16")))
    EXPECT_TRUE(D.Supported) << D.Text;
  const unsigned N = 64;
  std::vector<uint32_t> In(N);
  for (unsigned I = 0; I < N; ++I)
    In[I] = I * 0x9e3779b9u + 0x80c0ff7fu; // bytes with and without their sign bit
  Device Dev;
  EMU_ASSERT_OK_AND_ASSIGN(DIn, Dev.allocateArray<uint32_t>(In, "In"));
  EMU_ASSERT_OK_AND_ASSIGN(DOut, Dev.allocate(N * 5 * sizeof(uint32_t), "Out"));
  auto Params = DispatchParams::blocks("scratch_d16", {1, 1, 1}, {N, 1, 1},
                                       KernargBuilder().addPointer(DIn).addPointer(DOut).take());
  EMU_ASSERT_OK_AND_ASSIGN(R, Dev.dispatch(*CO, Params));
  (void)R;
  EMU_ASSERT_OK_AND_ASSIGN(Out, Dev.readArray<uint32_t>(DOut, N * 5));
  for (unsigned I = 0; I < N; ++I) {
    SCOPED_TRACE("lane " + std::to_string(I));
    uint32_t V = In[I], X = V ^ 0xabcd1234u, Y = V * 7u;
    uint32_t B1 = (V >> 8) & 0xff, B3 = V >> 24;
    EXPECT_EQ(Out[I * 5 + 0], (V & 0xffffu) << 16 | 0x2222u);
    EXPECT_EQ(Out[I * 5 + 1], 0x33330000u | uint16_t(int16_t(int8_t(B1))));
    EXPECT_EQ(Out[I * 5 + 2], B3 << 16 | 0x6666u);
    EXPECT_EQ(Out[I * 5 + 3], 0x77770000u | V >> 16);
    EXPECT_EQ(Out[I * 5 + 4], (Y >> 16) << 16 | (V & 0xff00u) | ((X >> 16) & 0xffu));
  }
}

TEST_P(KernelTest, UnsupportedInstructionIsReportedByNameAndPc) {
  // The code object loads although it holds an instruction without semantics (v_sad_u8).
  EMU_ASSERT_OK_AND_ASSIGN(CO, load("out_of_bounds"));
  const Kernel *K = CO->findKernel("unsupported");
  ASSERT_NE(K, nullptr);
  uint64_t SadPc = 0;
  for (const DisassembledInstruction &D : CO->disassemble(*K))
    if (D.Text.starts_with("v_sad_u8")) {
      EXPECT_FALSE(D.Supported);
      SadPc = D.Address;
    }
  ASSERT_NE(SadPc, 0u);

  Device Dev;
  EMU_ASSERT_OK_AND_ASSIGN(DOut, Dev.allocate(64 * 4, "Out"));
  auto Params = DispatchParams::blocks("unsupported", {1, 1, 1}, {64, 1, 1},
                                       KernargBuilder().addPointer(DOut).take());
  auto Result = Dev.dispatch(*CO, Params);
  ASSERT_FALSE(static_cast<bool>(Result));
  std::string Message;
  std::optional<Fault> F = takeFault(Result.takeError(), Message);
  ASSERT_TRUE(F.has_value()) << Message;
  EXPECT_EQ(F->Kind, FaultKind::UnsupportedInstruction);
  EXPECT_EQ(F->Mnemonic, "v_sad_u8");
  EXPECT_EQ(F->Pc, SadPc);
  EXPECT_EQ(F->KernelOffset, SadPc - K->EntryAddress);
  EXPECT_FALSE(F->Lane.has_value());
  char Pc[32];
  std::snprintf(Pc, sizeof(Pc), "pc %#llx", (unsigned long long)SadPc);
  EXPECT_NE(Message.find(Pc), std::string::npos) << Message;
  EXPECT_NE(Message.find("unsupported instruction 'v_sad_u8'"), std::string::npos) << Message;
}

INSTANTIATE_TEST_SUITE_P(Targets, KernelTest,
                         ::testing::Values(Target{"gfx942", "", 64}, Target{"gfx1100", "", 32},
                                           Target{"gfx1100", ".w64", 64}, Target{"gfx90a", "", 64},
                                           Target{"gfx1030", "", 32}, Target{"gfx1201", "", 32}),
                         [](const auto &Info) {
                           return Info.param.Arch + (Info.param.Suffix.empty() ? "" : "_w64");
                         });

} // namespace
