// Execution tests of the integer bit-manipulation families (LiftBits.cpp: bfe, bfi, prmt, lop3,
// shf, dp4a, dp2a, szext, bmsk, fns), mul24/mad24/sad, min/max.relu, mad.hi.sat, carry chains
// (LiftInteger.cpp) and calls (LiftCall.cpp), on every target (gfx90a, gfx942, gfx1030, gfx1100,
// gfx1201), against host references written from the PTX ISA's pseudocode (kernels/int_ext_ref.h).
#include "LiftTestUtil.h"

#include "kernels/int_ext_ref.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

using namespace reptx;
using namespace reptx::emulator;
using namespace reptx::lifttest;

namespace {

class LiftExecMore : public ::testing::TestWithParam<std::string> {
protected:
  llvm::Expected<std::unique_ptr<CodeObject>> load(const std::string &Name) {
    auto Text = readKernelPtx(Name);
    if (!Text)
      return Text.takeError();
    return compileForEmulator(Name + ".ptx", std::move(*Text), GetParam());
  }
};

// Inputs that reach the edge cases: zero, all ones, sign bits, byte patterns with set top bits,
// positions and lengths at 0, 31, 32, 39 (the kernel takes b % 40 and c % 40) and random words.
std::vector<uint32_t> words(size_t N, uint32_t Seed) {
  std::mt19937 Rng(Seed);
  const uint32_t Special[] = {0,  1,  0xffffffff, 0x80000000, 0x7fffffff, 0x80808080, 0x00ff00ff,
                              31, 32, 39,         71,         72,         0x12345678, 0xfedcba98};
  std::vector<uint32_t> V(N);
  for (size_t I = 0; I < N; ++I)
    V[I] = I % 3 == 0 ? Special[(I / 3 + Seed) % std::size(Special)] : Rng();
  return V;
}

const char *const WordNames[INT_EXT_WORDS] = {"bfe.u32",
                                              "bfe.s32",
                                              "bfi.b32",
                                              "prmt",
                                              "prmt.f4e",
                                              "prmt.b4e",
                                              "prmt.rc8",
                                              "prmt.ecl",
                                              "prmt.ecr",
                                              "prmt.rc16",
                                              "lop3 0xE8",
                                              "lop3 0x96",
                                              "lop3 0x1E",
                                              "shf.l.clamp",
                                              "shf.r.clamp",
                                              "shf.l.wrap",
                                              "shf.r.wrap",
                                              "dp4a.u32.u32",
                                              "dp4a.s32.s32",
                                              "dp4a.s32.u32",
                                              "dp2a.lo.s32.s32",
                                              "dp2a.hi.u32.s32",
                                              "szext.clamp.s32",
                                              "szext.wrap.u32",
                                              "bmsk.clamp",
                                              "bmsk.wrap",
                                              "fns",
                                              "mad24.lo.u32",
                                              "mul24.lo.s32",
                                              "mul24.hi.u32",
                                              "mad24.hi.s32",
                                              "mad24.hi.sat.s32",
                                              "sad.s32",
                                              "sad.u32",
                                              "min.relu.s32",
                                              "max.relu.s32",
                                              "mad.hi.sat.s32",
                                              "add.cc w0",
                                              "addc.cc w1",
                                              "addc.cc w2",
                                              "addc w3",
                                              "sub.cc w0",
                                              "subc.cc w1",
                                              "subc.cc w2",
                                              "subc w3",
                                              "mad.lo.cc",
                                              "madc.hi.cc",
                                              "addc carry out"};
const char *const WideNames[INT_EXT_WIDE] = {"bfe.u64",  "bfe.s64",    "bfi.b64", "add.cc.u64",
                                             "addc.u64", "sub.cc.u64", "subc.u64"};

TEST_P(LiftExecMore, IntegerBitFamiliesAndCarryChains) {
  LIFT_ASSERT_OK_AND_ASSIGN(CO, load("int_ext"));
  const int N = 1500;
  auto A = words(N, 11), B = words(N, 12), C = words(N, 13);
  Device Dev;
  LIFT_ASSERT_OK_AND_ASSIGN(DA, Dev.allocateArray<uint32_t>(A, "a"));
  LIFT_ASSERT_OK_AND_ASSIGN(DB, Dev.allocateArray<uint32_t>(B, "b"));
  LIFT_ASSERT_OK_AND_ASSIGN(DC, Dev.allocateArray<uint32_t>(C, "c"));
  LIFT_ASSERT_OK_AND_ASSIGN(DO, Dev.allocate(N * INT_EXT_WORDS * 4, "out"));
  LIFT_ASSERT_OK_AND_ASSIGN(DW, Dev.allocate(N * INT_EXT_WIDE * 8, "out64"));
  auto P = DispatchParams::blocks("int_ext", {(N + 127) / 128, 1, 1}, {128, 1, 1},
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
  LIFT_ASSERT_OK_AND_ASSIGN(Out, Dev.readArray<uint32_t>(DO, N * INT_EXT_WORDS));
  LIFT_ASSERT_OK_AND_ASSIGN(Out64, Dev.readArray<uint64_t>(DW, N * INT_EXT_WIDE));
  unsigned Failures = 0;
  for (int I = 0; I < N && Failures < 20; ++I) {
    uint32_t Want[INT_EXT_WORDS];
    uint64_t Want64[INT_EXT_WIDE];
    int_ext_ref::compute(A[I], B[I], C[I], Want, Want64);
    for (int K = 0; K < INT_EXT_WORDS; ++K)
      if (Out[I * INT_EXT_WORDS + K] != Want[K]) {
        ++Failures;
        ADD_FAILURE() << WordNames[K] << " a=0x" << std::hex << A[I] << " b=0x" << B[I] << " c=0x"
                      << C[I] << ": got 0x" << Out[I * INT_EXT_WORDS + K] << ", want 0x" << Want[K];
      }
    for (int K = 0; K < INT_EXT_WIDE; ++K)
      if (Out64[I * INT_EXT_WIDE + K] != Want64[K]) {
        ++Failures;
        ADD_FAILURE() << WideNames[K] << " a=0x" << std::hex << A[I] << " b=0x" << B[I] << " c=0x"
                      << C[I] << ": got 0x" << Out64[I * INT_EXT_WIDE + K] << ", want 0x"
                      << Want64[K];
      }
  }
}

// Host reference of calls.cu.
unsigned fib(unsigned N) { return N < 2 ? N : fib(N - 1) + fib(N - 2); }

TEST_P(LiftExecMore, CallsRecursionAndFunctionPointers) {
  LIFT_ASSERT_OK_AND_ASSIGN(CO, load("calls"));
  const int N = 300;
  std::vector<int32_t> A(N);
  std::mt19937 Rng(5);
  for (int I = 0; I < N; ++I)
    A[I] = int32_t(Rng() % 20001) - 10000;
  Device Dev;
  LIFT_ASSERT_OK_AND_ASSIGN(DA, Dev.allocateArray<int32_t>(A, "a"));
  LIFT_ASSERT_OK_AND_ASSIGN(DO, Dev.allocate(N * 4 * 8, "out"));
  auto P = DispatchParams::blocks("calls", {(N + 63) / 64, 1, 1}, {64, 1, 1},
                                  KernargBuilder().addPointer(DA).addPointer(DO).add(N).take());
  LIFT_ASSERT_OK_AND_ASSIGN(R, Dev.dispatch(*CO, P));
  (void)R;
  LIFT_ASSERT_OK_AND_ASSIGN(Out, Dev.readArray<int64_t>(DO, N * 4));
  for (int I = 0; I < N; ++I) {
    int X = A[I];
    int64_t Lo = int64_t(int32_t(uint32_t(X) * uint32_t(I + 1) + uint32_t(int(0.5f * float(I)))));
    int64_t Hi = (int64_t(X) << 20) - (I + 1);
    int Op = I % 3 == 0 ? X + 3 : I % 3 == 1 ? X * 5 : -X;
    ASSERT_EQ(Out[4 * I + 0], Lo) << "mix().lo, element " << I;
    ASSERT_EQ(Out[4 * I + 1], Hi) << "mix().hi, element " << I;
    ASSERT_EQ(Out[4 * I + 2], int64_t(fib(unsigned(X) & 15))) << "fib, element " << I;
    ASSERT_EQ(Out[4 * I + 3], int64_t(Op)) << "ops[i % 3], element " << I;
  }
}

TEST_P(LiftExecMore, FailedAssertTraps) {
  LIFT_ASSERT_OK_AND_ASSIGN(CO, load("calls"));
  std::vector<int32_t> A = {1, 2, -12345, 4};
  Device Dev;
  LIFT_ASSERT_OK_AND_ASSIGN(DA, Dev.allocateArray<int32_t>(A, "a"));
  LIFT_ASSERT_OK_AND_ASSIGN(DO, Dev.allocate(4 * 4 * 8, "out"));
  auto P = DispatchParams::blocks("calls", {1, 1, 1}, {4, 1, 1},
                                  KernargBuilder().addPointer(DA).addPointer(DO).add(4).take());
  auto R = Dev.dispatch(*CO, P);
  ASSERT_FALSE(static_cast<bool>(R)) << "the assert on element 2 must stop the kernel";
  std::string Msg = llvm::toString(R.takeError());
  EXPECT_NE(Msg.find("trap"), std::string::npos) << Msg;
}

INSTANTIATE_TEST_SUITE_P(Targets, LiftExecMore,
                         ::testing::Values("gfx942", "gfx1100", "gfx90a", "gfx1030", "gfx1201"),
                         [](const auto &Info) { return Info.param; });

} // namespace

namespace {

TEST_P(LiftExecMore, SpecialRegisters) {
  LIFT_ASSERT_OK_AND_ASSIGN(CO, load("special_regs"));
  Device Dev;
  const unsigned Threads = 70;
  LIFT_ASSERT_OK_AND_ASSIGN(DO, Dev.allocate(Threads * 64, "out"));
  auto P = DispatchParams::blocks("special_regs", {1, 1, 1}, {Threads, 1, 1},
                                  KernargBuilder().addPointer(DO).take());
  P.DynamicLdsSize = 96;
  LIFT_ASSERT_OK_AND_ASSIGN(R, Dev.dispatch(*CO, P));
  (void)R;
  LIFT_ASSERT_OK_AND_ASSIGN(Out, Dev.readArray<uint8_t>(DO, Threads * 64));
  auto U32 = [&](unsigned T, unsigned Off) {
    uint32_t V;
    std::memcpy(&V, &Out[T * 64 + Off], 4);
    return V;
  };
  auto U64 = [&](unsigned T, unsigned Off) {
    uint64_t V;
    std::memcpy(&V, &Out[T * 64 + Off], 8);
    return V;
  };
  // The static part is what the code object asks for (the optimizer may shrink `stat`).
  uint32_t Static = 0;
  for (const Kernel &K : CO->kernels())
    if (K.Name == "special_regs")
      Static = K.GroupSegmentFixedSize;
  EXPECT_GT(Static, 0u);
  for (unsigned T = 0; T < Threads; ++T) {
    EXPECT_LT(int64_t(U64(T, 0)), int64_t(1) << 40) << "%clock64 goes forward, thread " << T;
    EXPECT_GE(int64_t(U64(T, 0)), 0) << "%clock64 goes forward, thread " << T;
    EXPECT_GE(int64_t(U64(T, 8)), 0) << "%globaltimer goes forward, thread " << T;
    EXPECT_EQ(U32(T, 16), 1u) << "%smid < %nsmid";
    EXPECT_EQ(U64(T, 24), U64(0, 24)) << "%gridid is the same for the whole grid";
    EXPECT_EQ(U32(T, 32), 96u) << "%dynamic_smem_size";
    EXPECT_EQ(U32(T, 36), 96u + Static) << "%total_smem_size: static + 96 dynamic bytes";
    EXPECT_EQ(U32(T, 40), 0u) << "%envreg3";
  }
}

} // namespace

namespace {

TEST_P(LiftExecMore, NamedBarriersAndBarrierReductions) {
  LIFT_ASSERT_OK_AND_ASSIGN(CO, load("named_barriers"));
  const unsigned Blocks = 3, Threads = 128, N = Blocks * Threads;
  std::vector<uint32_t> In(N);
  std::mt19937 Rng(21);
  for (uint32_t &V : In)
    V = Rng() % 1000;
  In[0] = 1; // block 0: not all odd
  for (unsigned T = 0; T < Threads; ++T)
    In[Threads + T] = 2 * T + 1; // block 1: all odd
  Device Dev;
  LIFT_ASSERT_OK_AND_ASSIGN(DI, Dev.allocateArray<uint32_t>(In, "in"));
  LIFT_ASSERT_OK_AND_ASSIGN(DO, Dev.allocate(N * 32, "out"));
  auto P = DispatchParams::blocks("named_barriers", {Blocks, 1, 1}, {Threads, 1, 1},
                                  KernargBuilder().addPointer(DO).addPointer(DI).take());
  LIFT_ASSERT_OK_AND_ASSIGN(R, Dev.dispatch(*CO, P));
  (void)R;
  LIFT_ASSERT_OK_AND_ASSIGN(Out, Dev.readArray<uint32_t>(DO, N * 8));
  for (unsigned B = 0; B < Blocks; ++B) {
    unsigned Odd = 0, OddHigh = 0;
    for (unsigned T = 0; T < Threads; ++T) {
      Odd += In[B * Threads + T] & 1;
      if (T >= 64)
        OddHigh += In[B * Threads + T] & 1;
    }
    for (unsigned T = 0; T < Threads; ++T) {
      const uint32_t *O = &Out[(B * Threads + T) * 8];
      SCOPED_TRACE("block " + std::to_string(B) + " thread " + std::to_string(T));
      EXPECT_EQ(O[0], Odd) << "bar.red.popc";
      EXPECT_EQ(O[1], Odd == Threads ? 1u : 0u) << "bar.red.and";
      EXPECT_EQ(O[2], Odd != Threads ? 1u : 0u) << "barrier.red.or of !p";
      if (T < 64) {
        EXPECT_EQ(O[3], In[B * Threads + 63 - T] * 3) << "after bar.sync 2, 64";
      } else {
        EXPECT_EQ(O[3], In[B * Threads + T - 64] * 3) << "after bar.arrive/bar.sync 1, 128";
        EXPECT_EQ(O[4], OddHigh) << "bar.red.popc 3, 64";
      }
    }
  }
}

} // namespace

namespace {

TEST_P(LiftExecMore, AsyncCopiesAndTanh) {
  LIFT_ASSERT_OK_AND_ASSIGN(CO, load("async_copy"));
  const unsigned Blocks = 2, Threads = 64, N = Blocks * Threads;
  std::vector<uint8_t> Src(N * 32);
  std::mt19937 Rng(8);
  for (uint8_t &B : Src)
    B = uint8_t(Rng() % 255 + 1); // never 0, so that zero fill is visible
  std::vector<float> X(N);
  for (unsigned I = 0; I < N; ++I)
    X[I] = I % 8 == 0 ? (I % 16 == 0 ? 0.0f : -0.0f) : (float(int(Rng() % 4001) - 2000) / 150.0f);
  X[1] = 1e-20f;
  X[2] = -30.0f;
  X[3] = 0.54f;
  X[5] = 0.56f;
  Device Dev;
  LIFT_ASSERT_OK_AND_ASSIGN(DS, Dev.allocateArray<uint8_t>(Src, "src"));
  LIFT_ASSERT_OK_AND_ASSIGN(DO, Dev.allocate(N * 28, "out"));
  LIFT_ASSERT_OK_AND_ASSIGN(DX, Dev.allocateArray<float>(X, "x"));
  LIFT_ASSERT_OK_AND_ASSIGN(DY, Dev.allocate(N * 4, "y"));
  auto P = DispatchParams::blocks("async_copy", {Blocks, 1, 1}, {Threads, 1, 1},
                                  KernargBuilder()
                                      .addPointer(DS)
                                      .addPointer(DO)
                                      .addPointer(DX)
                                      .addPointer(DY)
                                      .add(int(N))
                                      .take());
  LIFT_ASSERT_OK_AND_ASSIGN(R, Dev.dispatch(*CO, P));
  (void)R;
  LIFT_ASSERT_OK_AND_ASSIGN(Out, Dev.readArray<uint8_t>(DO, N * 28));
  LIFT_ASSERT_OK_AND_ASSIGN(Y, Dev.readArray<float>(DY, N));
  for (unsigned I = 0; I < N; ++I) {
    unsigned T = I % Threads, SrcSize = T % 17;
    for (unsigned K = 0; K < 28; ++K) {
      uint8_t Want = K < 16   ? (K < SrcSize ? Src[I * 32 + K] : 0) // cg 16 with src-size
                     : K < 24 ? Src[I * 32 + K]                     // ca 8
                              : ((T & 1) ? 0 : Src[I * 32 + K]);    // ca 4, ignore-src when odd
      ASSERT_EQ(Out[I * 28 + K], Want) << "thread " << I << " byte " << K;
    }
    // tanh.approx.f32: relative error within 2^-11 (PTX ISA 9.7.3.17); tanh(+-0) = +-0.
    double Ref = std::tanh(double(X[I]));
    if (X[I] == 0.0f)
      EXPECT_EQ(std::bit_cast<uint32_t>(Y[I]), std::bit_cast<uint32_t>(X[I]))
          << "tanh(" << X[I] << ")";
    else
      EXPECT_LE(std::fabs(double(Y[I]) - Ref), std::ldexp(std::fabs(Ref), -11))
          << "tanh(" << X[I] << ") = " << Y[I] << ", want " << Ref;
  }
}

} // namespace
