// Execution tests of the integer bit-manipulation families (LiftBits.cpp: bfe, bfi, prmt, lop3,
// shf, dp4a, dp2a, szext, bmsk, fns), mul24/mad24/sad, min/max.relu, mad.hi.sat, carry chains
// (LiftInteger.cpp) and calls (LiftCall.cpp), on gfx942 (wave64) and gfx1100 (wave32), against
// host references written from the PTX ISA's pseudocode (kernels/int_ext_ref.h).
#include "LiftTestUtil.h"

#include "kernels/int_ext_ref.h"

#include <cstdint>
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

INSTANTIATE_TEST_SUITE_P(Targets, LiftExecMore, ::testing::Values("gfx942", "gfx1100"),
                         [](const auto &Info) { return Info.param; });

} // namespace
