// Execution tests of the lifter and the backend: nvcc's PTX for our kernels (kernels/*.cu) and the
// bundled sample's PTX are lifted, compiled for every target (gfx90a, gfx942, gfx1030, gfx1100,
// gfx1201), run in the emulator with odd sizes, and every output is compared bit for bit with a
// host reference that follows the PTX's semantics (float NaN results compare as NaN: AMD hardware
// propagates NaN payloads where NVIDIA's returns a canonical NaN).
#include "LiftTestUtil.h"

#include "reptx/frontend-ptx/Fatbin.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

using namespace reptx;
using namespace reptx::emulator;
using namespace reptx::lifttest;

namespace {

uint32_t bits(float F) { return std::bit_cast<uint32_t>(F); }

// Bitwise equality, except that any NaN matches any NaN.
::testing::AssertionResult sameFloat(float Got, float Want) {
  if ((std::isnan(Got) && std::isnan(Want)) || bits(Got) == bits(Want))
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got " << Got << " (0x" << std::hex << bits(Got)
                                       << "), want " << Want << " (0x" << bits(Want) << ")";
}

// Random floats with the special values mixed in: zeros of both signs, infinities, subnormals,
// NaN, and values near the integer conversion limits.
std::vector<float> testFloats(size_t N, uint32_t Seed, bool WithNaN = true) {
  std::mt19937 Rng(Seed);
  std::uniform_real_distribution<float> Dist(-1000.0f, 1000.0f);
  const float Special[] = {0.0f,
                           -0.0f,
                           std::numeric_limits<float>::infinity(),
                           -std::numeric_limits<float>::infinity(),
                           std::numeric_limits<float>::denorm_min(),
                           -1.5e-39f,
                           2.5f,
                           -2.5f,
                           0.5f,
                           -0.5f,
                           3.0e9f,
                           -3.0e9f,
                           2147483520.0f,
                           4294967040.0f,
                           std::numeric_limits<float>::quiet_NaN()};
  std::vector<float> V(N);
  for (size_t I = 0; I < N; ++I) {
    if (I % 5 == 0) {
      size_t K = (I / 5 + Seed) % std::size(Special);
      V[I] = Special[K];
      if (!WithNaN && std::isnan(V[I]))
        V[I] = 1.0f;
    } else {
      V[I] = Dist(Rng);
    }
  }
  return V;
}

std::vector<uint32_t> testWords(size_t N, uint32_t Seed) {
  std::mt19937 Rng(Seed);
  std::vector<uint32_t> V(N);
  const uint32_t Special[] = {0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 31, 32, 33, 0xff00};
  for (size_t I = 0; I < N; ++I)
    V[I] = I % 4 == 0 ? Special[(I / 4 + Seed) % std::size(Special)] : Rng();
  return V;
}

class LiftExec : public ::testing::TestWithParam<std::string> {
protected:
  const std::string &arch() const { return GetParam(); }

  llvm::Expected<std::unique_ptr<CodeObject>> load(const std::string &Name) {
    auto Text = readKernelPtx(Name);
    if (!Text)
      return Text.takeError();
    auto CO = compileForEmulator(Name + ".ptx", std::move(*Text), arch());
    // Registers are allocas in the lifted IR; after O3 nothing may be left in scratch.
    if (CO)
      for (const Kernel &K : (*CO)->kernels())
        EXPECT_EQ(K.PrivateSegmentFixedSize, 0u) << K.Name << " uses scratch";
    return CO;
  }
};

// The work-group counts of a 1-D launch covering N items.
uint32_t blocksFor(uint32_t N, uint32_t Block) { return (N + Block - 1) / Block; }

TEST_P(LiftExec, VectorAdd) {
  LIFT_ASSERT_OK_AND_ASSIGN(CO, load("vector_add"));
  const int N = 1000;
  auto A = testFloats(N, 1), B = testFloats(N, 2);
  for (uint32_t Block : {256u, 100u, 33u, 1u}) {
    SCOPED_TRACE("block " + std::to_string(Block));
    Device Dev;
    LIFT_ASSERT_OK_AND_ASSIGN(DA, Dev.allocateArray<float>(A, "a"));
    LIFT_ASSERT_OK_AND_ASSIGN(DB, Dev.allocateArray<float>(B, "b"));
    LIFT_ASSERT_OK_AND_ASSIGN(DC, Dev.allocate(N * sizeof(float), "c"));
    auto P = DispatchParams::blocks(
        "vector_add", {blocksFor(N, Block), 1, 1}, {Block, 1, 1},
        KernargBuilder().addPointer(DA).addPointer(DB).addPointer(DC).add(N).take());
    LIFT_ASSERT_OK_AND_ASSIGN(R, Dev.dispatch(*CO, P));
    EXPECT_EQ(R.Workgroups, blocksFor(N, Block));
    LIFT_ASSERT_OK_AND_ASSIGN(C, Dev.readArray<float>(DC, N));
    for (int I = 0; I < N; ++I) {
      float Want = A[I] + B[I];
      ASSERT_TRUE(sameFloat(C[I], Want)) << "element " << I;
    }
  }
}

TEST_P(LiftExec, SampleVecAdd) {
  // The PTX that nvcc embedded in samples/vecadd/vecadd.
  auto F = fatbin::scanFile(REPTX_SAMPLE_VECADD);
  ASSERT_TRUE(static_cast<bool>(F)) << llvm::toString(F.takeError());
  std::string Text;
  for (const fatbin::Container &C : F->containers())
    for (const fatbin::Entry &E : C.Entries)
      if (E.Kind == fatbin::EntryKind::PTX) {
        auto T = F->ptxText(E);
        ASSERT_TRUE(static_cast<bool>(T)) << llvm::toString(T.takeError());
        Text = *T;
      }
  ASSERT_FALSE(Text.empty());
  LIFT_ASSERT_OK_AND_ASSIGN(CO, compileForEmulator("vecadd.ptx", Text, arch()));
  const int N = 777;
  auto A = testFloats(N, 3), B = testFloats(N, 4);
  Device Dev;
  LIFT_ASSERT_OK_AND_ASSIGN(DA, Dev.allocateArray<float>(A, "a"));
  LIFT_ASSERT_OK_AND_ASSIGN(DB, Dev.allocateArray<float>(B, "b"));
  LIFT_ASSERT_OK_AND_ASSIGN(DC, Dev.allocate(N * sizeof(float), "c"));
  auto P = DispatchParams::blocks(
      "_Z6vecAddPKfS0_Pfi", {blocksFor(N, 96), 1, 1}, {96, 1, 1},
      KernargBuilder().addPointer(DA).addPointer(DB).addPointer(DC).add(N).take());
  LIFT_ASSERT_OK_AND_ASSIGN(R, Dev.dispatch(*CO, P));
  (void)R;
  LIFT_ASSERT_OK_AND_ASSIGN(C, Dev.readArray<float>(DC, N));
  for (int I = 0; I < N; ++I) {
    float Want = A[I] + B[I];
    ASSERT_TRUE(sameFloat(C[I], Want)) << "element " << I;
  }
}

TEST_P(LiftExec, SaxpyGridStrideLoop) {
  LIFT_ASSERT_OK_AND_ASSIGN(CO, load("saxpy"));
  const int N = 1001;
  const float A = 1.75f;
  auto X = testFloats(N, 5), Y = testFloats(N, 6);
  // Fewer threads than items: each thread loops (blockDim.x * gridDim.x stride).
  Device Dev;
  LIFT_ASSERT_OK_AND_ASSIGN(DX, Dev.allocateArray<float>(X, "x"));
  LIFT_ASSERT_OK_AND_ASSIGN(DY, Dev.allocateArray<float>(Y, "y"));
  auto P =
      DispatchParams::blocks("saxpy", {3, 1, 1}, {67, 1, 1},
                             KernargBuilder().add(N).add(A).addPointer(DX).addPointer(DY).take());
  LIFT_ASSERT_OK_AND_ASSIGN(R, Dev.dispatch(*CO, P));
  (void)R;
  LIFT_ASSERT_OK_AND_ASSIGN(Out, Dev.readArray<float>(DY, N));
  for (int I = 0; I < N; ++I) {
    float Want = std::fma(A, X[I], Y[I]); // nvcc contracts a*x+y into fma.rn.f32
    ASSERT_TRUE(sameFloat(Out[I], Want)) << "element " << I;
  }
}

TEST_P(LiftExec, Index2DWithBoundsCheck) {
  LIFT_ASSERT_OK_AND_ASSIGN(CO, load("index2d"));
  const int W = 37, H = 23, Stride = 41;
  const uint32_t Seed = 0xa5a5f00d;
  Device Dev;
  // Exactly H rows of Stride elements: a thread outside the bounds check would fault on the last
  // row, and the padding columns must stay untouched.
  LIFT_ASSERT_OK_AND_ASSIGN(DOut, Dev.allocate(H * Stride * sizeof(uint32_t), "out"));
  auto P = DispatchParams::blocks(
      "index2d", {blocksFor(W, 8), blocksFor(H, 5), 1}, {8, 5, 1},
      KernargBuilder().addPointer(DOut).add(W).add(H).add(Stride).add(Seed).take());
  LIFT_ASSERT_OK_AND_ASSIGN(R, Dev.dispatch(*CO, P));
  EXPECT_EQ(R.Workgroups, uint64_t(blocksFor(W, 8)) * blocksFor(H, 5));
  LIFT_ASSERT_OK_AND_ASSIGN(Out, Dev.readArray<uint32_t>(DOut, H * Stride));
  for (int Y = 0; Y < H; ++Y)
    for (int X = 0; X < Stride; ++X)
      ASSERT_EQ(Out[Y * Stride + X], X < W ? uint32_t(X * 1000 + Y) ^ Seed : 0u)
          << "x " << X << " y " << Y;
}

TEST_P(LiftExec, IntegerMix) {
  LIFT_ASSERT_OK_AND_ASSIGN(CO, load("int_mix"));
  const int N = 515;
  auto Aw = testWords(N, 7);
  auto B = testWords(N, 8);
  std::vector<int32_t> A(Aw.begin(), Aw.end());
  Device Dev;
  LIFT_ASSERT_OK_AND_ASSIGN(DA, Dev.allocateArray<int32_t>(A, "a"));
  LIFT_ASSERT_OK_AND_ASSIGN(DB, Dev.allocateArray<uint32_t>(B, "b"));
  LIFT_ASSERT_OK_AND_ASSIGN(DW, Dev.allocate(N * sizeof(int64_t), "wide"));
  LIFT_ASSERT_OK_AND_ASSIGN(DO, Dev.allocate(4 * N * sizeof(uint32_t), "out"));
  auto P = DispatchParams::blocks(
      "int_mix", {blocksFor(N, 64), 1, 1}, {64, 1, 1},
      KernargBuilder().addPointer(DA).addPointer(DB).addPointer(DW).addPointer(DO).add(N).take());
  LIFT_ASSERT_OK_AND_ASSIGN(R, Dev.dispatch(*CO, P));
  (void)R;
  LIFT_ASSERT_OK_AND_ASSIGN(Wide, Dev.readArray<int64_t>(DW, N));
  LIFT_ASSERT_OK_AND_ASSIGN(Out, Dev.readArray<uint32_t>(DO, 4 * N));
  for (int I = 0; I < N; ++I) {
    int32_t X = A[I];
    uint32_t Y = B[I];
    // mul.wide.s32 of the loaded words, plus the sign-extended index.
    ASSERT_EQ(Wide[I], int64_t(X) * int64_t(int32_t(Y)) + I) << "wide " << I;
    uint32_t S = uint32_t(X >> (Y & 31)) + (Y >> (uint32_t(X) & 31)) + (Y << 3);
    uint32_t Hi = uint32_t((uint64_t(Y) * uint32_t(X)) >> 32) ^
                  uint32_t((int64_t(X) * int64_t(int32_t(Y))) >> 32);
    uint32_t M = uint32_t(std::max(X, int32_t(Y))) - uint32_t(std::min(X, 7)) + std::min(Y, 1000u);
    uint32_t Sel = (X & 1) ? uint32_t(X) * 3u + Y : Y * 5u - uint32_t(X);
    ASSERT_EQ(Out[4 * I + 0], S) << "shifts " << I;
    ASSERT_EQ(Out[4 * I + 1], Hi) << "mul.hi " << I;
    ASSERT_EQ(Out[4 * I + 2], M) << "min/max " << I;
    ASSERT_EQ(Out[4 * I + 3], (Sel ^ ~Y) | (Y & 0xff00)) << "selp/logic " << I;
  }
}

TEST_P(LiftExec, IntegerDivisionAndBitCounts) {
  LIFT_ASSERT_OK_AND_ASSIGN(CO, load("int_bits"));
  const int N = 389;
  auto Aw = testWords(N, 16), Bw = testWords(N, 17);
  std::vector<int32_t> A(Aw.begin(), Aw.end()), B(Bw.begin(), Bw.end());
  std::vector<int64_t> C(N);
  std::mt19937_64 Rng(18);
  for (int I = 0; I < N; ++I) {
    // Division by zero and INT_MIN / -1 are machine-specific in PTX: not compared here.
    if (B[I] == 0 || (B[I] == -1 && A[I] == INT32_MIN))
      B[I] = 7;
    // Small and large 64-bit values (both of nvcc's 32-bit fast path and the 64-bit path).
    C[I] = I % 3 == 0 ? int64_t(Rng() % 100000) : int64_t(Rng());
    if (C[I] == INT64_MIN)
      C[I] = 0;
  }
  Device Dev;
  LIFT_ASSERT_OK_AND_ASSIGN(DA, Dev.allocateArray<int32_t>(A, "a"));
  LIFT_ASSERT_OK_AND_ASSIGN(DB, Dev.allocateArray<int32_t>(B, "b"));
  LIFT_ASSERT_OK_AND_ASSIGN(DC, Dev.allocateArray<int64_t>(C, "c"));
  LIFT_ASSERT_OK_AND_ASSIGN(DO, Dev.allocate(5 * N * sizeof(uint32_t), "out"));
  LIFT_ASSERT_OK_AND_ASSIGN(DW, Dev.allocate(2 * N * sizeof(int64_t), "wide"));
  auto P = DispatchParams::blocks("int_bits", {blocksFor(N, 48), 1, 1}, {48, 1, 1},
                                  KernargBuilder()
                                      .addPointer(DA)
                                      .addPointer(DB)
                                      .addPointer(DC)
                                      .addPointer(DO)
                                      .addPointer(DW)
                                      .add(N)
                                      .take());
  LIFT_ASSERT_OK_AND_ASSIGN(R, Dev.dispatch(*CO, P));
  (void)R;
  LIFT_ASSERT_OK_AND_ASSIGN(Out, Dev.readArray<uint32_t>(DO, 5 * N));
  LIFT_ASSERT_OK_AND_ASSIGN(Wide, Dev.readArray<int64_t>(DW, 2 * N));
  auto Brev = [](uint32_t V) {
    uint32_t R = 0;
    for (int K = 0; K < 32; ++K)
      R |= ((V >> K) & 1u) << (31 - K);
    return R;
  };
  for (int I = 0; I < N; ++I) {
    int32_t X = A[I], Y = B[I];
    int64_t Z = C[I];
    uint32_t UX = uint32_t(X), UY = uint32_t(Y);
    uint32_t Want[5] = {uint32_t(X / Y), uint32_t(X % Y), UX / UY + UX % UY,
                        uint32_t(std::popcount(UX) + 100 * std::countl_zero(UY) +
                                 10000 * std::popcount(uint64_t(Z))),
                        Brev(UX) ^ uint32_t(Z >> 7)};
    for (int K = 0; K < 5; ++K)
      ASSERT_EQ(Out[5 * I + K], Want[K]) << "element " << I << " output " << K;
    ASSERT_EQ(Wide[2 * I], Z / int64_t(Y)) << "element " << I;
    ASSERT_EQ(Wide[2 * I + 1], int64_t(uint64_t(Z) % uint64_t(UY))) << "element " << I;
  }
}

TEST_P(LiftExec, MovPackUnpackInNestedScopes) {
  // nvcc writes the unpacking movs inside { .reg .b32 %temp; ... } blocks.
  LIFT_ASSERT_OK_AND_ASSIGN(CO, load("pack"));
  const int N = 211;
  auto Words = testWords(2 * N, 22);
  std::vector<int32_t> A(Words.begin(), Words.end());
  std::vector<double> D(N);
  std::mt19937_64 Rng(23);
  for (double &V : D)
    V = std::bit_cast<double>(Rng());
  Device Dev;
  LIFT_ASSERT_OK_AND_ASSIGN(DA, Dev.allocateArray<int32_t>(A, "a"));
  LIFT_ASSERT_OK_AND_ASSIGN(DD, Dev.allocateArray<double>(D, "d"));
  LIFT_ASSERT_OK_AND_ASSIGN(DP, Dev.allocate(N * sizeof(double), "packed"));
  LIFT_ASSERT_OK_AND_ASSIGN(DH, Dev.allocate(2 * N * sizeof(int32_t), "halves"));
  auto P = DispatchParams::blocks(
      "pack", {blocksFor(N, 32), 1, 1}, {32, 1, 1},
      KernargBuilder().addPointer(DA).addPointer(DD).addPointer(DP).addPointer(DH).add(N).take());
  LIFT_ASSERT_OK_AND_ASSIGN(R, Dev.dispatch(*CO, P));
  (void)R;
  LIFT_ASSERT_OK_AND_ASSIGN(Packed, Dev.readArray<uint64_t>(DP, N));
  LIFT_ASSERT_OK_AND_ASSIGN(Halves, Dev.readArray<uint32_t>(DH, 2 * N));
  for (int I = 0; I < N; ++I) {
    ASSERT_EQ(Packed[I], uint64_t(Words[2 * I + 1]) << 32 | Words[2 * I]) << "element " << I;
    uint64_t Bits = std::bit_cast<uint64_t>(D[I]);
    ASSERT_EQ(Halves[2 * I], uint32_t(Bits >> 32) + 1u) << "element " << I;
    ASSERT_EQ(Halves[2 * I + 1], uint32_t(Bits) * 3u) << "element " << I;
  }
}

TEST_P(LiftExec, InitializedConstAndGlobalTables) {
  LIFT_ASSERT_OK_AND_ASSIGN(CO, load("const_table"));
  const int N = 250;
  auto In = testWords(N, 24);
  Device Dev;
  LIFT_ASSERT_OK_AND_ASSIGN(DI, Dev.allocateArray<uint32_t>(In, "in"));
  LIFT_ASSERT_OK_AND_ASSIGN(DO, Dev.allocate(N * sizeof(int32_t), "out"));
  LIFT_ASSERT_OK_AND_ASSIGN(DF, Dev.allocate(N * sizeof(float), "fout"));
  auto P = DispatchParams::blocks(
      "const_table", {blocksFor(N, 64), 1, 1}, {64, 1, 1},
      KernargBuilder().addPointer(DI).addPointer(DO).addPointer(DF).add(N).take());
  LIFT_ASSERT_OK_AND_ASSIGN(R, Dev.dispatch(*CO, P));
  (void)R;
  LIFT_ASSERT_OK_AND_ASSIGN(Out, Dev.readArray<int32_t>(DO, N));
  LIFT_ASSERT_OK_AND_ASSIGN(FOut, Dev.readArray<float>(DF, N));
  const int32_t Squares[8] = {0, 1, 4, 9, 16, 25, 36, 49};
  const uint16_t Weights[5] = {3, 65535, 7, 0, 1000};
  const float Scales[3] = {0.5f, -2.0f, 1.0e-3f};
  for (int I = 0; I < N; ++I) {
    uint32_t V = In[I];
    ASSERT_EQ(Out[I], Squares[V & 7] * int32_t(Weights[V % 5])) << "element " << I;
    float Want = Scales[V % 3] * float(V & 0xffff);
    ASSERT_TRUE(sameFloat(FOut[I], Want)) << "element " << I;
  }
}

// Forms ptxas 13.0 accepts (this text included) that nvcc does not write, found by the lift fuzzer
// with ptxas as the oracle (tests/fuzz/README.md): an array sized by its initializer, constant
// expressions in initializers and operands (`tab+8`), parameterized variable names (`sm<2>`, PTX
// ISA 5.4.7), and one label name in sibling and nested { } blocks, each branch going to its own
// scope's label.
TEST_P(LiftExec, ConstantExpressionsParameterizedNamesAndScopedLabels) {
  const char *Text = R"(.version 8.0
.target sm_80
.address_size 64
.global .align 4 .b32 tab[] = {10, 20, 30};
.global .align 4 .b32 arr[4] = {1+1, 2*3, -(4), 7>>1};
.shared .align 4 .b32 sm<2>;
.visible .entry forms(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  .reg .pred %p<2>;
  ld.param.u64 %rd1, [out];
  mov.u64 %rd2, tab+8;
  ld.global.u32 %r1, [%rd2];
  st.global.u32 [%rd1], %r1;
  ld.global.u32 %r1, [arr];
  st.global.u32 [%rd1+4], %r1;
  ld.global.u32 %r1, [arr+4];
  st.global.u32 [%rd1+8], %r1;
  ld.global.u32 %r1, [arr+8];
  st.global.u32 [%rd1+12], %r1;
  ld.global.u32 %r1, [arr+12];
  st.global.u32 [%rd1+16], %r1;
  mov.u32 %r2, 77;
  st.shared.u32 [sm1], %r2;
  mov.u32 %r2, 5;
  st.shared.u32 [sm0], %r2;
  ld.shared.u32 %r3, [sm1];
  st.global.u32 [%rd1+20], %r3;
  mov.u32 %r5, 0;
  mov.u32 %r6, 0;
  {
    bra.uni L1;
    mov.u32 %r5, 111;
L1:
    add.u32 %r5, %r5, 1;
  }
  {
    bra.uni L1;
    mov.u32 %r6, 222;
L1:
    add.u32 %r6, %r6, 2;
    {
      bra.uni L1;
      mov.u32 %r6, 333;
L1:
      add.u32 %r6, %r6, 4;
    }
  }
  st.global.u32 [%rd1+24], %r5;
  st.global.u32 [%rd1+28], %r6;
  ret;
}
)";
  LIFT_ASSERT_OK_AND_ASSIGN(CO, compileForEmulator("forms.ptx", Text, arch()));
  Device Dev;
  LIFT_ASSERT_OK_AND_ASSIGN(DO, Dev.allocate(8 * sizeof(int32_t), "out"));
  auto P =
      DispatchParams::blocks("forms", {1, 1, 1}, {1, 1, 1}, KernargBuilder().addPointer(DO).take());
  LIFT_ASSERT_OK_AND_ASSIGN(R, Dev.dispatch(*CO, P));
  (void)R;
  LIFT_ASSERT_OK_AND_ASSIGN(Out, Dev.readArray<int32_t>(DO, 8));
  EXPECT_EQ(Out, (std::vector<int32_t>{30, 2, 6, -4, 3, 77, 1, 6}));
}

// bfind (PTX ISA 9.7.1.16) on the host: most significant 1 bit (0 bit for negative signed
// values), or the left shift amount to it with .shiftamt; 0xffffffff when there is none.
template <typename T> uint32_t hostBfind(T V, bool ShiftAmt) {
  using U = std::make_unsigned_t<T>;
  U X = std::is_signed_v<T> && V < 0 ? U(~V) : U(V);
  if (X == 0)
    return 0xffffffffu;
  uint32_t Lz = std::countl_zero(X);
  return ShiftAmt ? Lz : uint32_t(sizeof(T) * 8 - 1 - Lz);
}

TEST_P(LiftExec, BitFind) {
  std::string Text = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry bfind_k(.param .u64 in, .param .u64 in64, .param .u64 out)
{
.reg .b32 %r<12>;
.reg .b64 %rd<12>;
mov.u32 %r1, %ctaid.x;
mov.u32 %r2, %ntid.x;
mov.u32 %r3, %tid.x;
mad.lo.u32 %r1, %r1, %r2, %r3;
ld.param.u64 %rd1, [in];
ld.param.u64 %rd2, [in64];
ld.param.u64 %rd3, [out];
mul.wide.u32 %rd4, %r1, 4;
add.s64 %rd5, %rd1, %rd4;
ld.global.u32 %r4, [%rd5];
mul.wide.u32 %rd6, %r1, 8;
add.s64 %rd7, %rd2, %rd6;
ld.global.u64 %rd8, [%rd7];
bfind.u32 %r5, %r4;
bfind.s32 %r6, %r4;
bfind.shiftamt.u32 %r7, %r4;
bfind.shiftamt.s32 %r8, %r4;
bfind.u64 %r9, %rd8;
bfind.s64 %r10, %rd8;
bfind.shiftamt.s64 %r11, %rd8;
mul.wide.u32 %rd9, %r1, 28;
add.s64 %rd10, %rd3, %rd9;
st.global.v4.u32 [%rd10], {%r5, %r6, %r7, %r8};
st.global.u32 [%rd10+16], %r9;
st.global.u32 [%rd10+20], %r10;
st.global.u32 [%rd10+24], %r11;
ret;
}
)";
  LIFT_ASSERT_OK_AND_ASSIGN(CO, compileForEmulator("bfind.ptx", Text, arch()));
  const uint32_t Blocks = 4, Block = 64, N = Blocks * Block;
  auto In = testWords(N, 25);
  std::vector<uint64_t> In64(N);
  std::mt19937_64 Rng(26);
  for (uint32_t I = 0; I < N; ++I)
    In64[I] = I % 4 == 0 ? 0 : I % 4 == 1 ? ~uint64_t(0) : Rng() >> (I % 64);
  Device Dev;
  LIFT_ASSERT_OK_AND_ASSIGN(DI, Dev.allocateArray<uint32_t>(In, "in"));
  LIFT_ASSERT_OK_AND_ASSIGN(DI64, Dev.allocateArray<uint64_t>(In64, "in64"));
  LIFT_ASSERT_OK_AND_ASSIGN(DO, Dev.allocate(N * 28, "out"));
  auto P = DispatchParams::blocks(
      "bfind_k", {Blocks, 1, 1}, {Block, 1, 1},
      KernargBuilder().addPointer(DI).addPointer(DI64).addPointer(DO).take());
  LIFT_ASSERT_OK_AND_ASSIGN(R, Dev.dispatch(*CO, P));
  (void)R;
  LIFT_ASSERT_OK_AND_ASSIGN(Out, Dev.readArray<uint32_t>(DO, N * 7));
  for (uint32_t I = 0; I < N; ++I) {
    uint32_t V = In[I];
    uint64_t W = In64[I];
    const uint32_t Want[7] = {hostBfind(V, false),        hostBfind(int32_t(V), false),
                              hostBfind(V, true),         hostBfind(int32_t(V), true),
                              hostBfind(W, false),        hostBfind(int64_t(W), false),
                              hostBfind(int64_t(W), true)};
    for (int K = 0; K < 7; ++K)
      ASSERT_EQ(Out[7 * I + K], Want[K]) << "element " << I << " output " << K;
  }
}

// PTX min/max.f32 (9.7.3.11/12): a NaN operand yields the other; -0.0 is below +0.0.
float ptxMin(float A, float B) {
  if (std::isnan(A))
    return B;
  if (std::isnan(B))
    return A;
  if (A == 0.0f && B == 0.0f)
    return std::signbit(A) ? A : B;
  return A < B ? A : B;
}
float ptxMax(float A, float B) {
  if (std::isnan(A))
    return B;
  if (std::isnan(B))
    return A;
  if (A == 0.0f && B == 0.0f)
    return std::signbit(A) ? B : A;
  return A > B ? A : B;
}

TEST_P(LiftExec, FloatOps) {
  LIFT_ASSERT_OK_AND_ASSIGN(CO, load("float_ops"));
  const int N = 403;
  auto A = testFloats(N, 9), B = testFloats(N, 10), C = testFloats(N, 11);
  Device Dev;
  LIFT_ASSERT_OK_AND_ASSIGN(DA, Dev.allocateArray<float>(A, "a"));
  LIFT_ASSERT_OK_AND_ASSIGN(DB, Dev.allocateArray<float>(B, "b"));
  LIFT_ASSERT_OK_AND_ASSIGN(DC, Dev.allocateArray<float>(C, "c"));
  LIFT_ASSERT_OK_AND_ASSIGN(DO, Dev.allocate(6 * N * sizeof(float), "out"));
  auto P = DispatchParams::blocks(
      "float_ops", {blocksFor(N, 50), 1, 1}, {50, 1, 1},
      KernargBuilder().addPointer(DA).addPointer(DB).addPointer(DC).addPointer(DO).add(N).take());
  LIFT_ASSERT_OK_AND_ASSIGN(R, Dev.dispatch(*CO, P));
  (void)R;
  LIFT_ASSERT_OK_AND_ASSIGN(Out, Dev.readArray<float>(DO, 6 * N));
  for (int I = 0; I < N; ++I) {
    float X = A[I], Y = B[I], Z = C[I];
    float Prod = X * Y;
    float Sq = X * X;
    float Sum = Y + Z;
    float Want[6] = {std::fma(X, Y, Z), -Prod,        std::fabs(X) - Z,
                     ptxMin(X, Y),      ptxMax(Y, Z), Sq - Sum};
    for (int K = 0; K < 6; ++K)
      ASSERT_TRUE(sameFloat(Out[6 * I + K], Want[K])) << "element " << I << " output " << K;
  }
}

// .ftz (PTX ISA 9.7.3): subnormal inputs and results become zeros of the same sign.
float ftz(float V) {
  return std::fabs(V) < std::numeric_limits<float>::min() ? std::copysign(0.0f, V) : V;
}

TEST_P(LiftExec, FlushToZeroAndNonCoherentLoads) {
  LIFT_ASSERT_OK_AND_ASSIGN(CO, load("float_ftz"));
  const int N = 457;
  // Tiny values whose sums and products land in the subnormal range, plus the usual specials.
  auto A = testFloats(N, 19), B = testFloats(N, 20);
  std::mt19937 Rng(21);
  std::uniform_real_distribution<float> Tiny(-4.0e-38f, 4.0e-38f);
  for (int I = 0; I < N; I += 3) {
    A[I] = Tiny(Rng);
    B[I] = I % 2 ? Tiny(Rng) : std::ldexp(1.5f, -70 - I % 50);
  }
  Device Dev;
  LIFT_ASSERT_OK_AND_ASSIGN(DA, Dev.allocateArray<float>(A, "a"));
  LIFT_ASSERT_OK_AND_ASSIGN(DB, Dev.allocateArray<float>(B, "b"));
  LIFT_ASSERT_OK_AND_ASSIGN(DO, Dev.allocate(5 * N * sizeof(float), "out"));
  auto P = DispatchParams::blocks(
      "float_ftz", {blocksFor(N, 64), 1, 1}, {64, 1, 1},
      KernargBuilder().addPointer(DA).addPointer(DB).addPointer(DO).add(N).take());
  LIFT_ASSERT_OK_AND_ASSIGN(R, Dev.dispatch(*CO, P));
  (void)R;
  LIFT_ASSERT_OK_AND_ASSIGN(Out, Dev.readArray<float>(DO, 5 * N));
  unsigned Flushed = 0;
  for (int I = 0; I < N; ++I) {
    float X = ftz(A[I]), Y = ftz(B[I]);
    float Sum = X + Y, Prod = X * Y;
    // The constant 1.0e-38f is itself subnormal and flushed to +0.
    float Fma = std::fma(X, Y, 0.0f);
    float Max = ftz(ptxMax(X, Y));
    float Diff = X - Max;
    float Want[5] = {ftz(Sum), ftz(Prod), ftz(Fma), ftz(ptxMin(X, Y)), ftz(Diff)};
    for (int K = 0; K < 5; ++K) {
      ASSERT_TRUE(sameFloat(Out[5 * I + K], Want[K])) << "element " << I << " output " << K;
      Flushed += Want[K] == 0.0f && (K == 0 ? Sum : K == 1 ? Prod : Fma) != 0.0f && K < 3;
    }
  }
  EXPECT_GT(Flushed, 10u) << "the inputs should exercise flushing";
}

// cvt.rXi.s32.f32 / .u32.f32 (9.7.9.21): round, then saturate to the integer range; NaN is 0.
template <typename Int> Int ptxToInt(float V) {
  if (std::isnan(V))
    return 0;
  double D = V;
  if (D <= double(std::numeric_limits<Int>::min()))
    return std::numeric_limits<Int>::min();
  if (D >= double(std::numeric_limits<Int>::max()))
    return std::numeric_limits<Int>::max();
  return Int(D);
}

TEST_P(LiftExec, ConvertRoundingModes) {
  LIFT_ASSERT_OK_AND_ASSIGN(CO, load("convert"));
  const int N = 301;
  auto F = testFloats(N, 12);
  auto Kw = testWords(N, 13);
  std::vector<int32_t> K(Kw.begin(), Kw.end());
  Device Dev;
  LIFT_ASSERT_OK_AND_ASSIGN(DF, Dev.allocateArray<float>(F, "f"));
  LIFT_ASSERT_OK_AND_ASSIGN(DK, Dev.allocateArray<int32_t>(K, "k"));
  LIFT_ASSERT_OK_AND_ASSIGN(DI, Dev.allocate(6 * N * sizeof(int32_t), "oi"));
  LIFT_ASSERT_OK_AND_ASSIGN(DOF, Dev.allocate(3 * N * sizeof(float), "of"));
  auto P = DispatchParams::blocks(
      "convert", {blocksFor(N, 40), 1, 1}, {40, 1, 1},
      KernargBuilder().addPointer(DF).addPointer(DK).addPointer(DI).addPointer(DOF).add(N).take());
  LIFT_ASSERT_OK_AND_ASSIGN(R, Dev.dispatch(*CO, P));
  (void)R;
  LIFT_ASSERT_OK_AND_ASSIGN(OI, Dev.readArray<int32_t>(DI, 6 * N));
  LIFT_ASSERT_OK_AND_ASSIGN(OF, Dev.readArray<float>(DOF, 3 * N));
  for (int I = 0; I < N; ++I) {
    float X = F[I];
    int32_t V = K[I];
    int32_t WantI[6] = {
        ptxToInt<int32_t>(std::trunc(X)),
        ptxToInt<int32_t>(std::nearbyint(X)), // default mode: to nearest even
        ptxToInt<int32_t>(std::floor(X)),           ptxToInt<int32_t>(std::ceil(X)),
        int32_t(ptxToInt<uint32_t>(std::trunc(X))), int32_t(int8_t(V)) + int32_t(uint16_t(V))};
    for (int J = 0; J < 6; ++J)
      ASSERT_EQ(OI[6 * I + J], WantI[J]) << "element " << I << " int output " << J << " of " << X;
    float FV = float(V);
    float WantF[3] = {FV, float(uint32_t(V)), std::fma(FV, 0.5f, X)};
    for (int J = 0; J < 3; ++J)
      ASSERT_TRUE(sameFloat(OF[3 * I + J], WantF[J])) << "element " << I << " float output " << J;
  }
}

TEST_P(LiftExec, SharedMemoryReverseWithBarrier) {
  LIFT_ASSERT_OK_AND_ASSIGN(CO, load("shared_rev"));
  ASSERT_NE(CO->findKernel("shared_rev"), nullptr);
  const uint32_t Block = 128, Blocks = 5, N = Block * Blocks;
  auto In = testWords(N, 14);
  Device Dev;
  LIFT_ASSERT_OK_AND_ASSIGN(DI, Dev.allocateArray<uint32_t>(In, "in"));
  LIFT_ASSERT_OK_AND_ASSIGN(DO, Dev.allocate(N * sizeof(uint32_t), "out"));
  auto P = DispatchParams::blocks("shared_rev", {Blocks, 1, 1}, {Block, 1, 1},
                                  KernargBuilder().addPointer(DI).addPointer(DO).take());
  LIFT_ASSERT_OK_AND_ASSIGN(R, Dev.dispatch(*CO, P));
  (void)R;
  LIFT_ASSERT_OK_AND_ASSIGN(Out, Dev.readArray<uint32_t>(DO, N));
  for (uint32_t I = 0; I < N; ++I) {
    uint32_t Base = I / Block * Block, T = I % Block;
    ASSERT_EQ(Out[I], In[Base + Block - 1 - T]) << "element " << I;
  }
}

// The quality benchmark's double-buffered block scan (scan_block in bench/quality/kernels.cu,
// run from its committed PTX with the other eleven kernels): the buffer chosen after the loop is
// a merge of the loop's exit and the path that skips it (a block of one thread), whose shift the
// backend moves below the merge (ValuePlacement.h, shiftAfterMerge).
TEST_P(LiftExec, BlockScanThroughSharedMemory) {
  auto Text = llvm::MemoryBuffer::getFile(REPTX_QUALITY_PTX);
  ASSERT_TRUE(static_cast<bool>(Text)) << REPTX_QUALITY_PTX;
  LIFT_ASSERT_OK_AND_ASSIGN(CO,
                            compileForEmulator("kernels.ptx", (*Text)->getBuffer().str(), arch()));
  for (uint32_t Block : {1u, 37u, 256u}) {
    SCOPED_TRACE("block " + std::to_string(Block));
    const uint32_t Blocks = 3, Total = Blocks * Block, N = Total > 5 ? Total - 5 : Total;
    auto Words = testWords(Total, 31);
    std::vector<int32_t> In(Total);
    for (uint32_t I = 0; I < Total; ++I)
      In[I] = int32_t(Words[I] % 2001) - 1000;
    Device Dev;
    LIFT_ASSERT_OK_AND_ASSIGN(DI, Dev.allocateArray<int32_t>(In, "in"));
    std::vector<int32_t> Init(Total, 0x5a5a5a5a);
    LIFT_ASSERT_OK_AND_ASSIGN(DO, Dev.allocateArray<int32_t>(Init, "out"));
    auto P = DispatchParams::blocks(
        "scan_block", {Blocks, 1, 1}, {Block, 1, 1},
        KernargBuilder().addPointer(DI).addPointer(DO).add(int32_t(N)).take());
    LIFT_ASSERT_OK_AND_ASSIGN(R, Dev.dispatch(*CO, P));
    (void)R;
    LIFT_ASSERT_OK_AND_ASSIGN(Out, Dev.readArray<int32_t>(DO, Total));
    int32_t Sum = 0;
    for (uint32_t I = 0; I < Total; ++I) {
      Sum = (I % Block == 0 ? 0 : Sum) + (I < N ? In[I] : 0);
      ASSERT_EQ(Out[I], I < N ? Sum : 0x5a5a5a5a) << "element " << I;
    }
  }
}

// Per-bin spin locks (kernels/spin_lock.cu: atomicCAS to take, atomicExch to release) that
// lanes of one warp, and on gfx942 both warps of a wave, contend for: the lock holder must run on
// and release (backend/lib/SpinLocks.h); each bin's two-word sum and count are updated under the
// lock only, so a lost or torn update shows.
TEST_P(LiftExec, SpinLocksTakenByLanesOfOneWave) {
  LIFT_ASSERT_OK_AND_ASSIGN(CO, load("spin_lock"));
  const uint32_t Bins = 3, Block = 64, Blocks = 2, N = Blocks * Block - 7;
  auto Words = testWords(N, 41);
  std::vector<int32_t> In(N);
  for (uint32_t I = 0; I < N; ++I)
    In[I] = int32_t(Words[I]);
  Device Dev;
  LIFT_ASSERT_OK_AND_ASSIGN(DI, Dev.allocateArray<int32_t>(In, "in"));
  LIFT_ASSERT_OK_AND_ASSIGN(DL, Dev.allocateArray<int32_t>(std::vector<int32_t>(Bins), "locks"));
  LIFT_ASSERT_OK_AND_ASSIGN(DS, Dev.allocateArray<int64_t>(std::vector<int64_t>(Bins), "sum"));
  LIFT_ASSERT_OK_AND_ASSIGN(DC, Dev.allocateArray<int32_t>(std::vector<int32_t>(Bins), "count"));
  auto P = DispatchParams::blocks("locked_bins", {Blocks, 1, 1}, {Block, 1, 1},
                                  KernargBuilder()
                                      .addPointer(DI)
                                      .addPointer(DL)
                                      .addPointer(DS)
                                      .addPointer(DC)
                                      .add(int32_t(N))
                                      .add(int32_t(Bins))
                                      .take());
  LIFT_ASSERT_OK_AND_ASSIGN(R, Dev.dispatch(*CO, P));
  (void)R;
  std::vector<int64_t> Sum(Bins, 0);
  std::vector<int32_t> Count(Bins, 0);
  for (int32_t V : In) {
    uint32_t B = uint32_t(V & 0x7fffffff) % Bins;
    Sum[B] += V;
    ++Count[B];
  }
  LIFT_ASSERT_OK_AND_ASSIGN(Locks, Dev.readArray<int32_t>(DL, Bins));
  LIFT_ASSERT_OK_AND_ASSIGN(GotSum, Dev.readArray<int64_t>(DS, Bins));
  LIFT_ASSERT_OK_AND_ASSIGN(GotCount, Dev.readArray<int32_t>(DC, Bins));
  EXPECT_EQ(Locks, std::vector<int32_t>(Bins, 0));
  EXPECT_EQ(GotSum, Sum);
  EXPECT_EQ(GotCount, Count);
}

TEST_P(LiftExec, DynamicSharedMemory) {
  LIFT_ASSERT_OK_AND_ASSIGN(CO, load("dyn_shared"));
  const emulator::Kernel *K = CO->findKernel("dyn_shared");
  ASSERT_NE(K, nullptr);
  EXPECT_EQ(K->GroupSegmentFixedSize, 0u); // all of it is dynamic
  for (uint32_t Block : {96u, 33u}) {
    SCOPED_TRACE("block " + std::to_string(Block));
    const uint32_t Blocks = 3, N = Blocks * Block;
    auto In = testWords(N, 27);
    Device Dev;
    LIFT_ASSERT_OK_AND_ASSIGN(DI, Dev.allocateArray<uint32_t>(In, "in"));
    LIFT_ASSERT_OK_AND_ASSIGN(DO, Dev.allocate(N * sizeof(uint32_t), "out"));
    auto P = DispatchParams::blocks("dyn_shared", {Blocks, 1, 1}, {Block, 1, 1},
                                    KernargBuilder().addPointer(DI).addPointer(DO).take());
    P.DynamicLdsSize = Block * sizeof(uint32_t); // exactly what the block uses
    LIFT_ASSERT_OK_AND_ASSIGN(R, Dev.dispatch(*CO, P));
    (void)R;
    LIFT_ASSERT_OK_AND_ASSIGN(Out, Dev.readArray<uint32_t>(DO, N));
    for (uint32_t I = 0; I < N; ++I) {
      uint32_t Base = I / Block * Block, T = I % Block;
      ASSERT_EQ(Out[I], In[Base + (T + 1) % Block] * 2u) << "element " << I;
    }
  }
}

TEST_P(LiftExec, AtomicsInGlobalAndSharedMemory) {
  LIFT_ASSERT_OK_AND_ASSIGN(CO, load("atomics"));
  const int N = 701;
  auto In = testWords(N, 28);
  Device Dev;
  const int32_t StatsInit[5] = {INT32_MIN, INT32_MAX, 0, -1, 0};
  const uint32_t CountersInit[4] = {0, 5, 0, 0};
  LIFT_ASSERT_OK_AND_ASSIGN(DI, Dev.allocateArray<uint32_t>(In, "in"));
  LIFT_ASSERT_OK_AND_ASSIGN(DH, Dev.allocate(16 * sizeof(uint32_t), "hist"));
  LIFT_ASSERT_OK_AND_ASSIGN(DS, Dev.allocateArray<int32_t>(StatsInit, "stats"));
  LIFT_ASSERT_OK_AND_ASSIGN(DF, Dev.allocate(sizeof(float), "fsum"));
  LIFT_ASSERT_OK_AND_ASSIGN(DC, Dev.allocateArray<uint32_t>(CountersInit, "counters"));
  auto P = DispatchParams::blocks("atomics", {blocksFor(N, 128), 1, 1}, {128, 1, 1},
                                  KernargBuilder()
                                      .addPointer(DI)
                                      .addPointer(DH)
                                      .addPointer(DS)
                                      .addPointer(DF)
                                      .addPointer(DC)
                                      .add(N)
                                      .take());
  LIFT_ASSERT_OK_AND_ASSIGN(R, Dev.dispatch(*CO, P));
  (void)R;
  LIFT_ASSERT_OK_AND_ASSIGN(Hist, Dev.readArray<uint32_t>(DH, 16));
  LIFT_ASSERT_OK_AND_ASSIGN(Stats, Dev.readArray<int32_t>(DS, 5));
  LIFT_ASSERT_OK_AND_ASSIGN(FSum, Dev.readArray<float>(DF, 1));
  LIFT_ASSERT_OK_AND_ASSIGN(Counters, Dev.readArray<uint32_t>(DC, 4));
  uint32_t WantHist[16] = {};
  int32_t Max = INT32_MIN, Min = INT32_MAX;
  uint32_t Or = 0, And = ~0u, Xor = 0, Inc = 0, Dec = 5;
  float Sum = 0.0f; // integers below 2^24: exact in any order
  for (uint32_t V : In) {
    ++WantHist[V & 15];
    Max = std::max(Max, int32_t(V));
    Min = std::min(Min, int32_t(V));
    Or |= V & 0xf0f0;
    And &= V | 0x0f0f0000u;
    Xor ^= V;
    Sum += float(V & 255);
    Inc = Inc >= 1000 ? 0 : Inc + 1;                     // atom.inc (9.7.13.5)
    Dec = Dec == 0 || Dec > 1000000 ? 1000000 : Dec - 1; // atom.dec
  }
  for (int K = 0; K < 16; ++K)
    EXPECT_EQ(Hist[K], WantHist[K]) << "bin " << K;
  EXPECT_EQ(Stats[0], Max);
  EXPECT_EQ(Stats[1], Min);
  EXPECT_EQ(uint32_t(Stats[2]), Or);
  EXPECT_EQ(uint32_t(Stats[3]), And);
  EXPECT_EQ(uint32_t(Stats[4]), Xor);
  EXPECT_EQ(bits(FSum[0]), bits(Sum));
  EXPECT_EQ(Counters[0], Inc);
  EXPECT_EQ(Counters[1], Dec);
  // Compare-and-swap from 0 succeeds once, with some thread's value; exchange keeps the last.
  bool CasFromInput = false, ExchFromInput = false;
  for (uint32_t V : In) {
    CasFromInput |= Counters[2] == (V | 1u);
    ExchFromInput |= Counters[3] == V;
  }
  EXPECT_TRUE(CasFromInput) << Counters[2];
  EXPECT_TRUE(ExchFromInput) << Counters[3];
}

TEST_P(LiftExec, VectorLoadsAndLoop) {
  LIFT_ASSERT_OK_AND_ASSIGN(CO, load("vec_copy"));
  const int N = 333;
  const float Scale = -0.375f;
  auto In = testFloats(4 * N, 15);
  Device Dev;
  LIFT_ASSERT_OK_AND_ASSIGN(DI, Dev.allocateArray<float>(In, "in"));
  LIFT_ASSERT_OK_AND_ASSIGN(DO, Dev.allocate(4 * N * sizeof(float), "out"));
  auto P = DispatchParams::blocks(
      "vec_copy", {blocksFor(N, 70), 1, 1}, {70, 1, 1},
      KernargBuilder().addPointer(DI).addPointer(DO).add(N).add(Scale).take());
  LIFT_ASSERT_OK_AND_ASSIGN(R, Dev.dispatch(*CO, P));
  (void)R;
  LIFT_ASSERT_OK_AND_ASSIGN(Out, Dev.readArray<float>(DO, 4 * N));
  for (int I = 0; I < N; ++I) {
    const float *V = &In[4 * I];
    float Acc = 0.0f;
    for (int K = 0; K < (I & 7); ++K)
      Acc = V[0] + Acc;
    float Want[4] = {V[3] * Scale, V[2] + Acc, V[1], V[0]};
    for (int K = 0; K < 4; ++K)
      ASSERT_TRUE(sameFloat(Out[4 * I + K], Want[K])) << "element " << I << " lane " << K;
  }
}

TEST_P(LiftExec, KernelArgumentsLoadedWhereUsed) {
  // Parameters of every width with alignment gaps (n at 0, scale at 8, small at 16, out at 24,
  // bias at 32, out2 at 40, k at 48), read only under a bounds check and in a loop under a
  // second one: the backend loads them there from the kernarg segment (ValuePlacement.h),
  // which must find each at the offset the launch put it.
  std::string Text = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry args(.param .u32 n, .param .f64 scale, .param .u16 small, .param .u64 out,
                     .param .f32 bias, .param .u64 out2, .param .u32 k)
{
.reg .pred %p<4>;
.reg .b16 %h<2>;
.reg .b32 %r<8>;
.reg .f32 %f<3>;
.reg .f64 %fd<4>;
.reg .b64 %rd<7>;
mov.u32 %r1, %tid.x;
ld.param.u32 %r2, [n];
setp.ge.u32 %p1, %r1, %r2;
@%p1 bra DONE;
ld.param.f64 %fd1, [scale];
ld.param.u16 %h1, [small];
ld.param.u64 %rd1, [out];
cvta.to.global.u64 %rd1, %rd1;
cvt.rn.f64.u32 %fd2, %r1;
cvt.u32.u16 %r3, %h1;
cvt.rn.f64.u32 %fd3, %r3;
fma.rn.f64 %fd2, %fd2, %fd1, %fd3;
mul.wide.u32 %rd2, %r1, 8;
add.s64 %rd3, %rd1, %rd2;
st.global.f64 [%rd3], %fd2;
and.b32 %r4, %r1, 1;
setp.eq.u32 %p2, %r4, 0;
@%p2 bra DONE;
ld.param.f32 %f1, [bias];
ld.param.u64 %rd4, [out2];
ld.param.u32 %r5, [k];
cvta.to.global.u64 %rd4, %rd4;
mov.f32 %f2, 0f00000000;
mov.u32 %r6, 0;
LOOP:
add.f32 %f2, %f2, %f1;
add.u32 %r6, %r6, 1;
setp.lt.u32 %p3, %r6, %r5;
@%p3 bra LOOP;
mul.wide.u32 %rd5, %r1, 4;
add.s64 %rd6, %rd4, %rd5;
st.global.f32 [%rd6], %f2;
DONE:
ret;
}
)";
  LIFT_ASSERT_OK_AND_ASSIGN(CO, compileForEmulator("args.ptx", Text, arch(), 5));
  const uint32_t N = 45, Block = 64; // one partial work-group: threads 45..63 skip everything
  const double Scale = 0.375;
  const uint16_t Small = 1234;
  const float Bias = 0.25f;
  const uint32_t K = 5;
  Device Dev;
  LIFT_ASSERT_OK_AND_ASSIGN(DOut, Dev.allocate(Block * sizeof(double), "out"));
  LIFT_ASSERT_OK_AND_ASSIGN(DOut2, Dev.allocate(Block * sizeof(float), "out2"));
  auto P = DispatchParams::blocks("args", {1, 1, 1}, {Block, 1, 1},
                                  KernargBuilder()
                                      .add(N)
                                      .add(Scale)
                                      .add(Small)
                                      .addPointer(DOut)
                                      .add(Bias)
                                      .addPointer(DOut2)
                                      .add(K)
                                      .take());
  LIFT_ASSERT_OK_AND_ASSIGN(R, Dev.dispatch(*CO, P));
  (void)R;
  LIFT_ASSERT_OK_AND_ASSIGN(Out, Dev.readArray<double>(DOut, Block));
  LIFT_ASSERT_OK_AND_ASSIGN(Out2, Dev.readArray<float>(DOut2, Block));
  for (uint32_t I = 0; I < Block; ++I) {
    // i * 0.375 + 1234 and 5 * 0.25 are exact in double and float.
    EXPECT_EQ(Out[I], I < N ? double(I) * Scale + Small : 0.0) << "out " << I;
    EXPECT_EQ(Out2[I], I < N && (I & 1) ? 1.25f : 0.0f) << "out2 " << I;
  }
}

TEST_P(LiftExec, SpecialRegistersWithPartialWorkgroups) {
  // Every %tid/%ntid/%ctaid/%nctaid component, written by hand in PTX; the grid is not a multiple
  // of the work-group size, so the last work-groups are partial and %nctaid rounds up.
  std::string Text = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry regs(.param .u64 out)
{
.reg .b32 %r<20>;
.reg .b64 %rd<4>;
ld.param.u64 %rd1, [out];
cvta.to.global.u64 %rd1, %rd1;
mov.u32 %r1, %tid.x;
mov.u32 %r2, %tid.y;
mov.u32 %r3, %tid.z;
mov.u32 %r4, %ntid.x;
mov.u32 %r5, %ntid.y;
mov.u32 %r6, %ntid.z;
mov.u32 %r7, %ctaid.x;
mov.u32 %r8, %ctaid.y;
mov.u32 %r9, %ctaid.z;
mov.u32 %r10, %nctaid.x;
mov.u32 %r11, %nctaid.y;
mov.u32 %r12, %nctaid.z;
// linear id = ((ctaid.z*nctaid.y + ctaid.y)*nctaid.x + ctaid.x) * 16 + (tid.z*ntid.y + tid.y)*ntid.x + tid.x
mad.lo.u32 %r13, %r9, %r11, %r8;
mad.lo.u32 %r13, %r13, %r10, %r7;
mad.lo.u32 %r14, %r3, %r5, %r2;
mad.lo.u32 %r14, %r14, %r4, %r1;
shl.b32 %r13, %r13, 4;
add.u32 %r13, %r13, %r14;
mul.wide.u32 %rd2, %r13, 48;
add.s64 %rd3, %rd1, %rd2;
st.global.v4.u32 [%rd3], {%r1, %r2, %r3, %r4};
st.global.v4.u32 [%rd3+16], {%r5, %r6, %r7, %r8};
st.global.v4.u32 [%rd3+32], {%r9, %r10, %r11, %r12};
ret;
}
)";
  // Code object v5 reads the sizes from the implicit kernel arguments (without the dispatch
  // pointer's two user SGPRs), v4 from the dispatch packet.
  for (unsigned Cov : {4u, 5u}) {
    SCOPED_TRACE("code object v" + std::to_string(Cov));
    LIFT_ASSERT_OK_AND_ASSIGN(CO, compileForEmulator("regs.ptx", Text, arch(), Cov));
    const emulator::Kernel *K = CO->findKernel("regs");
    ASSERT_NE(K, nullptr);
    EXPECT_EQ(K->Descriptor.enableSgprDispatchPtr(), Cov == 4);
    const Dim3 Grid{10, 3, 5}, Wg{4, 2, 2};
    const uint32_t Groups[3] = {3, 2, 3}; // ceil(10/4), ceil(3/2), ceil(5/2)
    const uint32_t Slots = Groups[0] * Groups[1] * Groups[2] * 16;
    Device Dev;
    LIFT_ASSERT_OK_AND_ASSIGN(DOut, Dev.allocate(Slots * 48, "out"));
    DispatchParams P;
    P.KernelName = "regs";
    P.GridSize = Grid;
    P.WorkgroupSize = Wg;
    P.Kernargs = KernargBuilder().addPointer(DOut).take();
    LIFT_ASSERT_OK_AND_ASSIGN(R, Dev.dispatch(*CO, P));
    EXPECT_EQ(R.Workgroups, 18u);
    LIFT_ASSERT_OK_AND_ASSIGN(Out, Dev.readArray<uint32_t>(DOut, Slots * 12));
    unsigned Seen = 0;
    for (uint32_t GZ = 0; GZ < Groups[2]; ++GZ)
      for (uint32_t GY = 0; GY < Groups[1]; ++GY)
        for (uint32_t GX = 0; GX < Groups[0]; ++GX)
          for (uint32_t TZ = 0; TZ < Wg.Z; ++TZ)
            for (uint32_t TY = 0; TY < Wg.Y; ++TY)
              for (uint32_t TX = 0; TX < Wg.X; ++TX) {
                uint32_t Slot =
                    ((GZ * Groups[1] + GY) * Groups[0] + GX) * 16 + (TZ * Wg.Y + TY) * Wg.X + TX;
                const uint32_t *O = &Out[Slot * 12];
                bool Inside =
                    GX * Wg.X + TX < Grid.X && GY * Wg.Y + TY < Grid.Y && GZ * Wg.Z + TZ < Grid.Z;
                if (!Inside) {
                  // Work-items outside the grid do not exist: the slot stays zero.
                  for (int K = 0; K < 12; ++K)
                    ASSERT_EQ(O[K], 0u) << "slot " << Slot;
                  continue;
                }
                ++Seen;
                // %ntid is the work-group size of the dispatch packet, also in partial groups.
                const uint32_t Want[12] = {TX, TY, TZ, Wg.X,      Wg.Y,      Wg.Z,
                                           GX, GY, GZ, Groups[0], Groups[1], Groups[2]};
                for (int K = 0; K < 12; ++K)
                  ASSERT_EQ(O[K], Want[K]) << "slot " << Slot << " value " << K;
              }
    EXPECT_EQ(Seen, Grid.count());
  }
}

// GFX12's own scalar instructions, which lifted PTX gets on gfx1201: a uniform 64-bit multiply
// (s_mul_u64), a uniform loop counter stepped by an immediate (s_addk_co_i32) and uniform
// sub-dword loads of read-only memory (s_load_u16 among them); the same kernel on gfx942 too.
TEST(LiftExecGfx12, UniformMultiplyStepAndSubDwordLoads) {
  const std::string Text = R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry uniform_ops(.param .u64 out, .param .u64 a, .param .u64 b, .param .u64 bytes,
                            .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<10>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [a];
  ld.param.u64 %rd3, [b];
  ld.param.u64 %rd7, [bytes];
  ld.param.u32 %r9, [n];
  mul.lo.u64 %rd4, %rd2, %rd3;
  ld.global.nc.u8 %r1, [%rd7];
  ld.global.nc.s8 %r2, [%rd7+1];
  ld.global.nc.u16 %r3, [%rd7+2];
  ld.global.nc.s16 %r4, [%rd7+4];
  mov.u32 %r10, 0;
  mov.u32 %r11, 0;
$L_loop:
  add.s32 %r11, %r11, %r10;
  add.s32 %r10, %r10, 1280;
  setp.lt.u32 %p1, %r10, %r9;
  @%p1 bra $L_loop;
  mov.u32 %r7, %tid.x;
  mul.wide.u32 %rd5, %r7, 32;
  add.s64 %rd6, %rd1, %rd5;
  st.global.u64 [%rd6], %rd4;
  st.global.u32 [%rd6+8], %r1;
  st.global.u32 [%rd6+12], %r2;
  st.global.u32 [%rd6+16], %r3;
  st.global.u32 [%rd6+20], %r4;
  st.global.u32 [%rd6+24], %r11;
  ret;
}
)";
  const uint64_t A = 0x123456789abcdefull, B = 0xfedcba9876543211ull;
  const uint32_t N = 5000;
  const std::vector<uint8_t> Bytes = {0xf3, 0x85, 0x34, 0xb2, 0xfe, 0x9c, 0, 0};
  uint32_t Sum = 0;
  for (uint32_t I = 0;;) { // the loop as written: its body once at least
    Sum += I;
    I += 1280;
    if (!(I < N))
      break;
  }
  for (const char *Arch : {"gfx1201", "gfx942"}) {
    SCOPED_TRACE(Arch);
    LIFT_ASSERT_OK_AND_ASSIGN(Code,
                              kernelDisassembly("uniform_ops.ptx", Text, "uniform_ops", Arch));
    if (std::string(Arch) == "gfx1201")
      for (const char *Inst : {"s_mul_u64", "s_addk_co_i32", "s_load_u16"})
        EXPECT_NE(Code.find(Inst), std::string::npos) << Inst << " not in\n" << Code;
    LIFT_ASSERT_OK_AND_ASSIGN(CO, compileForEmulator("uniform_ops.ptx", Text, Arch));
    Device Dev;
    const unsigned Threads = 40;
    LIFT_ASSERT_OK_AND_ASSIGN(DBytes, Dev.allocateArray<uint8_t>(Bytes, "bytes"));
    LIFT_ASSERT_OK_AND_ASSIGN(DOut, Dev.allocate(Threads * 32, "out"));
    auto P = DispatchParams::blocks(
        "uniform_ops", {1, 1, 1}, {Threads, 1, 1},
        KernargBuilder().addPointer(DOut).add(A).add(B).addPointer(DBytes).add(N).take());
    LIFT_ASSERT_OK_AND_ASSIGN(R, Dev.dispatch(*CO, P));
    (void)R;
    LIFT_ASSERT_OK_AND_ASSIGN(Out, Dev.readArray<uint32_t>(DOut, Threads * 8));
    for (unsigned T = 0; T < Threads; ++T) {
      const uint32_t *O = Out.data() + T * 8;
      EXPECT_EQ(uint64_t(O[0]) | uint64_t(O[1]) << 32, A * B) << T;
      EXPECT_EQ(O[2], 0xf3u) << T;
      EXPECT_EQ(O[3], uint32_t(int32_t(int8_t(0x85)))) << T;
      EXPECT_EQ(O[4], 0xb234u) << T;
      EXPECT_EQ(O[5], uint32_t(int32_t(int16_t(0x9cfe)))) << T;
      EXPECT_EQ(O[6], Sum) << T;
    }
  }
}

// Private memory the way each target addresses it, and 64-bit division: a kernel keeps an array
// on its stack (read back through a generic pointer too) and calls a recursive function that
// keeps one in each frame. gfx90a and GFX10 address the frames with buffer instructions off the
// frame pointer (s33, a wave-level offset into lane-interleaved memory), GFX10 sets the flat
// scratch base with s_setreg for the generic access, and gfx90a's 64-bit division uses
// v_madmk_f32; the others use scratch instructions and fma. Against the same steps on the host.
TEST(LiftExecTargets, StackFramesCallsAndDivisionOnEveryTarget) {
  const std::string Text = R"(.version 8.0
.target sm_80
.address_size 64
.func (.param .b32 ret) mix(.param .b32 v, .param .b32 k, .param .b32 depth)
{
  .local .align 4 .b8 frame[96];
  .reg .pred %p<2>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  ld.param.u32 %r1, [v];
  ld.param.u32 %r2, [k];
  ld.param.u32 %r12, [depth];
  mov.u64 %rd1, frame;
  mov.u32 %r3, 0;
$L1:
  add.u32 %r4, %r3, 1;
  mad.lo.u32 %r5, %r1, %r4, %r2;
  mul.wide.u32 %rd2, %r3, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.local.u32 [%rd3], %r5;
  add.u32 %r3, %r3, 1;
  setp.lt.u32 %p1, %r3, 24;
  @%p1 bra $L1;
  add.u32 %r6, %r1, %r2;
  rem.u32 %r7, %r6, 24;
  mul.wide.u32 %rd4, %r7, 4;
  add.s64 %rd5, %rd1, %rd4;
  ld.local.u32 %r8, [%rd5];
  rem.u32 %r9, %r2, 24;
  mul.wide.u32 %rd6, %r9, 4;
  add.s64 %rd7, %rd1, %rd6;
  ld.local.u32 %r10, [%rd7];
  xor.b32 %r11, %r8, %r10;
  setp.eq.u32 %p1, %r12, 0;
  @%p1 bra $L_done;
  add.u32 %r13, %r1, 1;
  sub.u32 %r14, %r12, 1;
  {
  .param .b32 q0;
  st.param.b32 [q0], %r13;
  .param .b32 q1;
  st.param.b32 [q1], %r2;
  .param .b32 q2;
  st.param.b32 [q2], %r14;
  .param .b32 s0;
  call (s0), mix, (q0, q1, q2);
  ld.param.b32 %r15, [s0];
  }
  add.u32 %r11, %r11, %r15;
  ld.local.u32 %r15, [%rd5];
  xor.b32 %r11, %r11, %r15;
$L_done:
  st.param.b32 [ret], %r11;
  ret;
}
.visible .entry stack_calls(.param .u64 in, .param .u64 out, .param .u64 fout, .param .u64 qout)
{
  .local .align 4 .b8 buf[64];
  .reg .pred %p<2>;
  .reg .b32 %r<20>;
  .reg .f32 %f<2>;
  .reg .b64 %rd<24>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  ld.param.u64 %rd12, [fout];
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.u32 %r2, [%rd4];
  mov.u64 %rd5, buf;
  mov.u32 %r3, 0;
$L2:
  mad.lo.u32 %r4, %r3, 7, %r2;
  mul.wide.u32 %rd6, %r3, 4;
  add.s64 %rd7, %rd5, %rd6;
  st.local.u32 [%rd7], %r4;
  add.u32 %r3, %r3, 1;
  setp.lt.u32 %p1, %r3, 16;
  @%p1 bra $L2;
  and.b32 %r5, %r2, 15;
  mul.wide.u32 %rd8, %r5, 4;
  add.s64 %rd9, %rd5, %rd8;
  ld.local.u32 %r6, [%rd9];
  {
  .param .b32 p0;
  st.param.b32 [p0], %r6;
  .param .b32 p1;
  st.param.b32 [p1], %r1;
  .param .b32 p2;
  st.param.b32 [p2], 3;
  .param .b32 r0;
  call (r0), mix, (p0, p1, p2);
  ld.param.b32 %r7, [r0];
  }
  shr.u32 %r8, %r2, 4;
  and.b32 %r9, %r8, 15;
  mul.wide.u32 %rd10, %r9, 4;
  cvta.local.u64 %rd22, %rd5;
  add.s64 %rd11, %rd22, %rd10;
  ld.u32 %r10, [%rd11];
  add.u32 %r11, %r7, %r10;
  add.s64 %rd13, %rd2, %rd3;
  st.global.u32 [%rd13], %r11;
  mul.wide.u32 %rd14, %r2, 65537;
  cvt.u64.u32 %rd15, %r1;
  add.s64 %rd14, %rd14, %rd15;
  cvt.rn.f32.u64 %f1, %rd14;
  add.ftz.f32 %f1, %f1, 0f00000000;
  add.s64 %rd13, %rd12, %rd3;
  st.global.f32 [%rd13], %f1;
  ld.param.u64 %rd16, [qout];
  or.b32 %r12, %r2, 1;
  mul.wide.u32 %rd17, %r12, 977;
  add.s64 %rd17, %rd17, 13;
  div.u64 %rd18, %rd14, %rd17;
  rem.u64 %rd19, %rd14, %rd17;
  mul.wide.u32 %rd20, %r1, 16;
  add.s64 %rd21, %rd16, %rd20;
  st.global.u64 [%rd21], %rd18;
  st.global.u64 [%rd21+8], %rd19;
  ret;
}
)";
  auto Mix = [](auto &&Self, uint32_t V, uint32_t K, uint32_t Depth) -> uint32_t {
    uint32_t Frame[24];
    for (uint32_t J = 0; J < 24; ++J)
      Frame[J] = V * (J + 1) + K;
    uint32_t R = Frame[(V + K) % 24] ^ Frame[K % 24];
    if (Depth) {
      R += Self(Self, V + 1, K, Depth - 1);
      R ^= Frame[(V + K) % 24];
    }
    return R;
  };
  const unsigned N = 96;
  std::vector<uint32_t> In(N);
  for (unsigned I = 0; I < N; ++I)
    In[I] = I * 2654435761u + 12345u;
  for (const char *Arch : {"gfx90a", "gfx942", "gfx1030", "gfx1100", "gfx1201"}) {
    SCOPED_TRACE(Arch);
    LIFT_ASSERT_OK_AND_ASSIGN(Code,
                              kernelDisassembly("stack_calls.ptx", Text, "stack_calls", Arch));
    std::string A = Arch;
    if (A == "gfx90a" || A == "gfx1030") // the kernel's own frame (the callee's is not listed)
      EXPECT_NE(Code.find("buffer_store_dword"), std::string::npos) << Code;
    if (A == "gfx90a")
      EXPECT_NE(Code.find("v_madmk_f32"), std::string::npos);
    if (A == "gfx1030")
      EXPECT_NE(Code.find("hwreg(HW_REG_FLAT_SCR_LO)"), std::string::npos);
    LIFT_ASSERT_OK_AND_ASSIGN(CO, compileForEmulator("stack_calls.ptx", Text, Arch));
    Device Dev;
    LIFT_ASSERT_OK_AND_ASSIGN(DIn, Dev.allocateArray<uint32_t>(In, "in"));
    LIFT_ASSERT_OK_AND_ASSIGN(DOut, Dev.allocate(N * 4, "out"));
    LIFT_ASSERT_OK_AND_ASSIGN(DF, Dev.allocate(N * 4, "fout"));
    LIFT_ASSERT_OK_AND_ASSIGN(DQ, Dev.allocate(N * 16, "qout"));
    auto P = DispatchParams::blocks(
        "stack_calls", {1, 1, 1}, {N, 1, 1},
        KernargBuilder().addPointer(DIn).addPointer(DOut).addPointer(DF).addPointer(DQ).take());
    LIFT_ASSERT_OK_AND_ASSIGN(R, Dev.dispatch(*CO, P));
    (void)R;
    LIFT_ASSERT_OK_AND_ASSIGN(Out, Dev.readArray<uint32_t>(DOut, N));
    LIFT_ASSERT_OK_AND_ASSIGN(F, Dev.readArray<float>(DF, N));
    LIFT_ASSERT_OK_AND_ASSIGN(Q, Dev.readArray<uint64_t>(DQ, 2 * N));
    for (unsigned I = 0; I < N; ++I) {
      uint32_t V = In[I], Buf[16];
      for (uint32_t J = 0; J < 16; ++J)
        Buf[J] = V + J * 7;
      EXPECT_EQ(Out[I], Mix(Mix, Buf[V & 15], I, 3) + Buf[(V >> 4) & 15]) << I;
      uint64_t W = uint64_t(V) * 65537u + I, D = uint64_t(V | 1) * 977u + 13;
      EXPECT_EQ(F[I], float(W)) << I;
      EXPECT_EQ(Q[2 * I], W / D) << I;
      EXPECT_EQ(Q[2 * I + 1], W % D) << I;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, LiftExec,
                         ::testing::Values("gfx942", "gfx1100", "gfx90a", "gfx1030", "gfx1201"),
                         [](const auto &Info) { return Info.param; });

} // namespace
