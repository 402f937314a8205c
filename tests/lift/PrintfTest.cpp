// Device printf (CUDA's vprintf; ir/lib/LiftCall.cpp, backend/device/Printf.cpp): the lifted call,
// and the records that kernels/printf.cu leaves in a printf buffer when it runs in the emulator
// for every target (gfx90a, gfx942, gfx1030, gfx1100, gfx1201), decoded byte by byte and compared
// with the argument values computed on the host and the layout of reptx/backend/PrintfFormat.h.
#include "LiftTestUtil.h"

#include "reptx/backend/PrintfFormat.h"
#include "reptx/ir/Intrinsics.h"

#include "llvm/IR/Instructions.h"

#include <cstdint>
#include <cstring>
#include <map>
#include <vector>

using namespace reptx;
using namespace reptx::emulator;
using namespace reptx::lifttest;

namespace {

namespace pf = reptx::printf_format;

const char *const Formats[3] = {"t=%d u=%u x=%x ld=%ld f=%f s=%s c=%c\n", "no arguments\n",
                                "%*d|%.*f|%hhd|%p|%%\n"};
// Argument bytes and printf's return value (arguments consumed, `*` included) per format.
const uint32_t ArgBytes[3] = {44, 0, 40};
const int32_t Returns[3] = {7, 0, 6};

template <typename T> T get(const std::vector<uint8_t> &B, size_t At) {
  T V;
  std::memcpy(&V, B.data() + At, sizeof(T));
  return V;
}

TEST(PrintfIR, VprintfBecomesReptxVprintf) {
  auto Text = readKernelPtx("printf");
  ASSERT_TRUE(static_cast<bool>(Text)) << llvm::toString(Text.takeError());
  LIFT_ASSERT_OK_AND_ASSIGN(L, lift("printf.ptx", std::move(*Text)));
  ASSERT_TRUE(L->R.Failures.empty()) << L->R.Failures[0].Message;
  llvm::Function *V = L->R.M->getFunction("reptx.vprintf");
  ASSERT_NE(V, nullptr);
  llvm::Type *I64 = llvm::Type::getInt64Ty(*L->Ctx);
  EXPECT_EQ(V->getFunctionType(),
            llvm::FunctionType::get(llvm::Type::getInt32Ty(*L->Ctx), {I64, I64}, false));
  EXPECT_EQ(L->R.M->getFunction("vprintf"), nullptr);
  unsigned Calls = 0, Stored = 0;
  for (llvm::User *U : V->users()) {
    auto *CI = llvm::dyn_cast<llvm::CallInst>(U);
    ASSERT_NE(CI, nullptr);
    ++Calls;
    // The result goes to the call's return parameter (ld.param reads it afterwards).
    for (llvm::User *R : CI->users())
      Stored += llvm::isa<llvm::StoreInst>(R);
  }
  EXPECT_EQ(Calls, 3u);
  EXPECT_EQ(Stored, 3u);
}

TEST(PrintfIR, CallWithoutReturnAndWithoutArguments) {
  // Hand-written: vprintf called without a return parameter, and a malformed call.
  const char *Ptx = R"(.version 8.0
.target sm_80
.address_size 64
.extern .func (.param .b32 func_retval0) vprintf(.param .b64 p0, .param .b64 p1);
.global .align 1 .b8 fmt[4] = {104, 105, 10, 0};
.visible .entry k()
{
  .reg .b64 %rd<3>;
  mov.u64 %rd1, fmt;
  cvta.global.u64 %rd2, %rd1;
  {
  .param .b64 param0;
  st.param.b64 [param0+0], %rd2;
  .param .b64 param1;
  st.param.b64 [param1+0], 0;
  call.uni vprintf, (param0, param1);
  }
  ret;
}
.visible .entry bad()
{
  .reg .b64 %rd<3>;
  {
  .param .b64 param0;
  st.param.b64 [param0+0], 0;
  call.uni vprintf, (param0);
  }
  ret;
}
)";
  LIFT_ASSERT_OK_AND_ASSIGN(L, lift("inline.ptx", Ptx));
  ASSERT_EQ(L->R.Failures.size(), 1u);
  EXPECT_NE(L->R.Failures[0].Message.find("'vprintf' with 0 returns and 1 arguments"),
            std::string::npos)
      << L->R.Failures[0].Message;
  llvm::Function *V = L->R.M->getFunction("reptx.vprintf");
  ASSERT_NE(V, nullptr);
  EXPECT_EQ(V->getNumUses(), 1u);
}

TEST(PrintfFormat, ArgumentBytes) {
  auto Bytes = [](const char *F) { return pf::argumentBytes([F](unsigned I) { return F[I]; }); };
  for (int I = 0; I < 3; ++I)
    EXPECT_EQ(Bytes(Formats[I]), ArgBytes[I]) << Formats[I];
  EXPECT_EQ(Bytes("%c%lld"), 16u);          // 4, pad, 8
  EXPECT_EQ(Bytes("%hd %hhu %zu"), 16u);    // 4, 4, 8
  EXPECT_EQ(Bytes("%-8.3Lf %jd %td"), 24u); // 8, 8, 8
  EXPECT_EQ(Bytes("%s%d"), 12u);            // 8, 4
  EXPECT_EQ(Bytes("%d%n%d"), 20u);          // 4, pad, 8, 4
  EXPECT_EQ(Bytes("%*.*s"), 16u);           // 4, 4, 8
  EXPECT_EQ(Bytes("100%% %lc"), 4u);        // %% takes nothing; wint_t is 4
  EXPECT_EQ(Bytes("%d %y %d"), 4u);         // the scan stops at an unknown conversion
  EXPECT_EQ(Bytes("%5"), 0u);               // and at a truncated one
  EXPECT_EQ(Bytes("%#x %+d % i %'u %lX"), 24u);
}

class PrintfExec : public ::testing::TestWithParam<std::string> {};

struct PrintfRun {
  std::vector<int32_t> Rets;
  std::vector<uint8_t> Buffer; // header + records, as the device left them
  uint64_t StringArg = 0, RetArg = 0;
  std::map<uint64_t, std::string> FormatAt; // format address -> text read from the device
};

/// Runs printf_kernel for N threads (blocks of 48) with a printf buffer of Capacity record bytes
/// (none when Capacity is 0).
void runPrintf(const std::string &Arch, int N, uint64_t Capacity, PrintfRun &Out) {
  auto Text = readKernelPtx("printf");
  ASSERT_TRUE(static_cast<bool>(Text)) << llvm::toString(Text.takeError());
  LIFT_ASSERT_OK_AND_ASSIGN(L, lift("printf.ptx", std::move(*Text)));
  ASSERT_TRUE(L->R.Failures.empty());
  backend::CompileOptions Opts;
  Opts.Arch = Arch;
  LIFT_ASSERT_OK_AND_ASSIGN(Obj, backend::compile(*L->R.M, Opts));
  LIFT_ASSERT_OK_AND_ASSIGN(CO, CodeObject::load(Obj.Bytes));

  // The buffer symbol: a protected global in the dynamic symbol table, 8 bytes.
  LIFT_ASSERT_OK_AND_ASSIGN(Sym, dynamicSymbol(Obj.Bytes, pf::BufferSymbol));
  ASSERT_TRUE(Sym.has_value()) << "no dynamic symbol " << pf::BufferSymbol;
  EXPECT_EQ(Sym->Size, 8u);
  uint64_t SymValue = Sym->Value;

  Device Dev;
  Dev.setCodeObjectsWritable(true);
  LIFT_ASSERT_OK_AND_ASSIGN(Base, Dev.loadCodeObject(*CO));
  uint64_t Buf = 0;
  if (Capacity) {
    LIFT_ASSERT_OK_AND_ASSIGN(B, Dev.allocate(pf::HeaderBytes + Capacity, "printf"));
    Buf = B;
    ASSERT_FALSE(static_cast<bool>(Dev.write(Buf, {reinterpret_cast<uint8_t *>(&Capacity), 8})));
    ASSERT_FALSE(
        static_cast<bool>(Dev.write(Base + SymValue, {reinterpret_cast<uint8_t *>(&Buf), 8})));
  }
  const char Str[] = "hello";
  LIFT_ASSERT_OK_AND_ASSIGN(DStr, Dev.allocateArray<char>(llvm::ArrayRef<char>(Str, 6)));
  LIFT_ASSERT_OK_AND_ASSIGN(DRet, Dev.allocateArray<int32_t>(std::vector<int32_t>(3 * N, 12345)));
  Out.StringArg = DStr;
  Out.RetArg = DRet;
  auto P = DispatchParams::blocks(
      "printf_kernel", {uint32_t((N + 47) / 48), 1, 1}, {48, 1, 1},
      KernargBuilder().addPointer(DStr).addPointer(DRet).add(int32_t(N)).take());
  auto R = Dev.dispatch(*CO, P);
  ASSERT_TRUE(static_cast<bool>(R)) << llvm::toString(R.takeError());
  LIFT_ASSERT_OK_AND_ASSIGN(Rets, Dev.readArray<int32_t>(DRet, 3 * N));
  Out.Rets = Rets;
  if (Capacity) {
    Out.Buffer.resize(pf::HeaderBytes + Capacity);
    ASSERT_FALSE(static_cast<bool>(Dev.read(Buf, Out.Buffer)));
    // The format strings, read back from the device at the addresses the records hold.
    uint64_t Used = std::min<uint64_t>(get<uint64_t>(Out.Buffer, 8), Capacity);
    for (uint64_t At = 0; At + pf::RecordHeaderBytes <= Used;) {
      uint32_t Size = get<uint32_t>(Out.Buffer, pf::HeaderBytes + At);
      if (Size == 0) // a reservation that did not fit: nothing after it was written
        break;
      ASSERT_GE(Size, pf::RecordHeaderBytes);
      uint64_t F = get<uint64_t>(Out.Buffer, pf::HeaderBytes + At + 8);
      if (!Out.FormatAt.count(F)) {
        std::string S;
        for (uint64_t I = 0;; ++I) {
          uint8_t C;
          ASSERT_FALSE(static_cast<bool>(Dev.read(F + I, {&C, 1})));
          if (!C)
            break;
          S.push_back(char(C));
        }
        Out.FormatAt[F] = S;
      }
      At += Size;
    }
  }
}

/// Checks one record's argument bytes against the host's values for thread T and format Which.
void checkArguments(const PrintfRun &Run, int Which, const std::vector<uint8_t> &A, int T) {
  switch (Which) {
  case 0:
    EXPECT_EQ(get<int32_t>(A, 0), T);
    EXPECT_EQ(get<uint32_t>(A, 4), uint32_t(T) * 3u);
    EXPECT_EQ(get<int32_t>(A, 8), T * 17);
    EXPECT_EQ(get<int64_t>(A, 16), int64_t(T) * -100000000000LL);
    EXPECT_EQ(get<double>(A, 24), double(float(T) * 0.5f));
    EXPECT_EQ(get<uint64_t>(A, 32), Run.StringArg);
    EXPECT_EQ(get<int32_t>(A, 40), 'a' + T % 26);
    EXPECT_EQ(get<uint32_t>(A, 44), 0u); // padding
    break;
  case 2:
    EXPECT_EQ(get<int32_t>(A, 0), 5);
    EXPECT_EQ(get<int32_t>(A, 4), T);
    EXPECT_EQ(get<int32_t>(A, 8), 2);
    EXPECT_EQ(get<double>(A, 16), double(T) / 3);
    EXPECT_EQ(get<int32_t>(A, 24), int32_t(int8_t(T - 40)));
    EXPECT_EQ(get<uint64_t>(A, 32), Run.RetArg + 4 * uint64_t(T));
    break;
  }
}

TEST_P(PrintfExec, RecordsPerThread) {
  const int N = 101; // three blocks of 48, the last partial; partial waves on both wave sizes
  const uint64_t Capacity = 64 * 1024;
  PrintfRun Run;
  ASSERT_NO_FATAL_FAILURE(runPrintf(GetParam(), N, Capacity, Run));
  for (int T = 0; T < N; ++T)
    for (int C = 0; C < 3; ++C)
      EXPECT_EQ(Run.Rets[3 * T + C], Returns[C]) << "thread " << T << " call " << C;
  uint64_t Used = get<uint64_t>(Run.Buffer, 8);
  EXPECT_EQ(get<uint64_t>(Run.Buffer, 0), Capacity);
  EXPECT_EQ(Used, uint64_t(N) * (64 + 16 + 56));
  EXPECT_EQ(get<uint32_t>(Run.Buffer, 16), 0u);
  ASSERT_EQ(Run.FormatAt.size(), 3u);
  std::map<uint64_t, int> Which;
  for (auto &[Addr, S] : Run.FormatAt) {
    int W = -1;
    for (int I = 0; I < 3; ++I)
      if (S == Formats[I])
        W = I;
    ASSERT_NE(W, -1) << "unexpected format '" << S << "'";
    Which[Addr] = W;
  }
  // Walk the records: each thread's three calls appear in program order, exactly once each.
  std::vector<int> Next(N, 0);
  int NoArgs = 0, Records = 0;
  for (uint64_t At = pf::HeaderBytes; At < pf::HeaderBytes + Used; ++Records) {
    uint32_t Size = get<uint32_t>(Run.Buffer, At);
    uint32_t Bytes = get<uint32_t>(Run.Buffer, At + 4);
    int W = Which.at(get<uint64_t>(Run.Buffer, At + 8));
    EXPECT_EQ(Bytes, ArgBytes[W]);
    ASSERT_EQ(Size, pf::RecordHeaderBytes + (ArgBytes[W] + 7) / 8 * 8);
    std::vector<uint8_t> A(Run.Buffer.begin() + At + 16, Run.Buffer.begin() + At + Size);
    if (W == 1) {
      ++NoArgs;
    } else {
      int T = get<int32_t>(A, W == 0 ? 0 : 4);
      ASSERT_GE(T, 0);
      ASSERT_LT(T, N);
      // Next[T]: 0 before the thread's first line, 1 after it, 3 after its last.
      EXPECT_EQ(Next[T], W == 0 ? 0 : 1) << "thread " << T;
      Next[T] = W == 0 ? 1 : 3;
      checkArguments(Run, W, A, T);
    }
    At += Size;
  }
  EXPECT_EQ(Records, 3 * N);
  EXPECT_EQ(NoArgs, N);
  for (int T = 0; T < N; ++T)
    EXPECT_EQ(Next[T], 3) << "thread " << T;
}

TEST_P(PrintfExec, OverflowSetsTheFlagAndReturnsMinusOne) {
  const int N = 40;
  const uint64_t Capacity = 1000; // room for a few records only
  PrintfRun Run;
  ASSERT_NO_FATAL_FAILURE(runPrintf(GetParam(), N, Capacity, Run));
  // Every call reserves (and bumps `used`); the ones past the capacity are not written.
  uint64_t Used = get<uint64_t>(Run.Buffer, 8);
  EXPECT_EQ(Used, uint64_t(N) * (64 + 16 + 56));
  EXPECT_EQ(get<uint32_t>(Run.Buffer, 16), 1u);
  uint64_t Written = 0, Failed = 0, Fit = 0;
  for (int I = 0; I < 3 * N; ++I)
    Failed += Run.Rets[I] == -1;
  for (uint64_t At = 0; At + pf::RecordHeaderBytes <= Capacity;) {
    uint32_t Size = get<uint32_t>(Run.Buffer, pf::HeaderBytes + At);
    if (Size == 0 || At + Size > Capacity)
      break;
    Fit += Size;
    ++Written;
    At += Size;
  }
  EXPECT_GT(Written, 0u);
  EXPECT_LE(Fit, Capacity);
  EXPECT_EQ(Written + Failed, uint64_t(3 * N));
}

TEST_P(PrintfExec, NoBufferReturnsMinusOne) {
  PrintfRun Run;
  ASSERT_NO_FATAL_FAILURE(runPrintf(GetParam(), 50, 0, Run));
  for (int32_t R : Run.Rets)
    EXPECT_EQ(R, -1);
}

// __assertfail as nvcc calls it (assert(i != 13) in thread 13 of block 1): the thread records
// CUDA's assertion message through the printf buffer and the kernel stops with a trap.
const char *AssertPtx = R"(.version 8.0
.target sm_80
.address_size 64
.extern .func __assertfail(.param .b64 p0, .param .b64 p1, .param .b32 p2, .param .b64 p3,
                           .param .b64 p4);
.global .align 1 .b8 msg[8] = {105, 32, 33, 61, 32, 49, 51, 0};
.global .align 1 .b8 file[5] = {97, 46, 99, 117, 0};
.global .align 1 .b8 func[2] = {107, 0};
.visible .entry k()
{
  .reg .pred %p<2>;
  .reg .b32 %r<2>;
  .reg .b64 %rd<7>;
  mov.u32 %r1, %tid.x;
  setp.ne.s32 %p1, %r1, 13;
  @%p1 bra DONE;
  mov.u32 %r1, %ctaid.x;
  setp.ne.s32 %p1, %r1, 1;
  @%p1 bra DONE;
  mov.u64 %rd1, msg;
  cvta.global.u64 %rd2, %rd1;
  mov.u64 %rd3, file;
  cvta.global.u64 %rd4, %rd3;
  mov.u64 %rd5, func;
  cvta.global.u64 %rd6, %rd5;
  {
  .param .b64 param0;
  st.param.b64 [param0+0], %rd2;
  .param .b64 param1;
  st.param.b64 [param1+0], %rd4;
  .param .b32 param2;
  st.param.b32 [param2+0], 10;
  .param .b64 param3;
  st.param.b64 [param3+0], %rd6;
  .param .b64 param4;
  st.param.b64 [param4+0], 1;
  call.uni __assertfail, (param0, param1, param2, param3, param4);
  }
DONE:
  ret;
}
)";

TEST_P(PrintfExec, AssertRecordsTheMessageAndTraps) {
  LIFT_ASSERT_OK_AND_ASSIGN(L, lift("assert.ptx", AssertPtx));
  ASSERT_TRUE(L->R.Failures.empty()) << L->R.Failures[0].Message;
  backend::CompileOptions Opts;
  Opts.Arch = GetParam();
  LIFT_ASSERT_OK_AND_ASSIGN(Obj, backend::compile(*L->R.M, Opts));
  LIFT_ASSERT_OK_AND_ASSIGN(CO, CodeObject::load(Obj.Bytes));
  LIFT_ASSERT_OK_AND_ASSIGN(Sym, dynamicSymbol(Obj.Bytes, pf::BufferSymbol));
  ASSERT_TRUE(Sym.has_value());
  uint64_t SymValue = Sym->Value;
  Device Dev;
  Dev.setCodeObjectsWritable(true);
  LIFT_ASSERT_OK_AND_ASSIGN(Base, Dev.loadCodeObject(*CO));
  uint64_t Capacity = 4096;
  LIFT_ASSERT_OK_AND_ASSIGN(Buf, Dev.allocate(pf::HeaderBytes + Capacity, "printf"));
  ASSERT_FALSE(static_cast<bool>(Dev.write(Buf, {reinterpret_cast<uint8_t *>(&Capacity), 8})));
  ASSERT_FALSE(
      static_cast<bool>(Dev.write(Base + SymValue, {reinterpret_cast<uint8_t *>(&Buf), 8})));
  auto R = Dev.dispatch(*CO, DispatchParams::blocks("k", {2, 1, 1}, {32, 1, 1}));
  ASSERT_FALSE(static_cast<bool>(R));
  bool Trapped = false;
  llvm::handleAllErrors(
      R.takeError(), [&](const ExecutionError &E) { Trapped = E.fault().Kind == FaultKind::Trap; });
  EXPECT_TRUE(Trapped);
  std::vector<uint8_t> B(pf::HeaderBytes + Capacity);
  ASSERT_FALSE(static_cast<bool>(Dev.read(Buf, B)));
  ASSERT_EQ(get<uint64_t>(B, 8), 16u + 56u); // one record
  const size_t At = pf::HeaderBytes;
  EXPECT_EQ(get<uint32_t>(B, At), 16u + 56u);
  EXPECT_EQ(get<uint32_t>(B, At + 4), 56u);
  auto ReadString = [&](uint64_t Addr) {
    std::string S;
    for (uint8_t C = 0;; ++Addr) {
      EXPECT_FALSE(static_cast<bool>(Dev.read(Addr, {&C, 1})));
      if (!C)
        return S;
      S.push_back(char(C));
    }
  };
  EXPECT_EQ(ReadString(get<uint64_t>(B, At + 8)), ir::intrinsics::AssertFormat.str());
  const size_t A = At + 16;
  EXPECT_EQ(ReadString(get<uint64_t>(B, A)), "a.cu");
  EXPECT_EQ(get<uint32_t>(B, A + 8), 10u);
  EXPECT_EQ(ReadString(get<uint64_t>(B, A + 16)), "k");
  const uint32_t Ids[6] = {1, 0, 0, 13, 0, 0}; // ctaid, tid
  for (int I = 0; I < 6; ++I)
    EXPECT_EQ(get<uint32_t>(B, A + 24 + 4 * I), Ids[I]) << I;
  EXPECT_EQ(ReadString(get<uint64_t>(B, A + 48)), "i != 13");
}

INSTANTIATE_TEST_SUITE_P(Targets, PrintfExec,
                         ::testing::Values("gfx942", "gfx1100", "gfx90a", "gfx1030", "gfx1201"));

} // namespace
