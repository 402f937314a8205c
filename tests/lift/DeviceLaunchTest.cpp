// Dynamic parallelism (kernels launched from device code; ir/lib/LiftCall.cpp, ir/lib/Lifter.cpp,
// backend/device/DeviceLaunch.cpp): the lifted system calls of the device runtime and kernel
// addresses, and a launching kernel run in the emulator for every target (gfx90a, gfx942, gfx1030,
// gfx1100, gfx1201) against a queue laid out as reptx/backend/LaunchQueue.h says, whose records are
// checked after the grid.
#include "LiftTestUtil.h"

#include "reptx/backend/LaunchQueue.h"
#include "reptx/ir/Intrinsics.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalVariable.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

using namespace reptx;
using namespace reptx::emulator;
using namespace reptx::lifttest;

namespace {

namespace lq = reptx::launch_queue;

// As libcudadevrt's cudaGetParameterBufferV2 and cudaLaunchDeviceV2 call the system calls for
// `child<<<dim3(t + 1, 2), dim3(32, 1, 2), 16 * t>>>(res, t * 3, 2.5)` in thread t of `parent`:
// the launch's result goes to res[t]; thread 5 asks for a block of 2048 threads (an invalid
// configuration), thread 6 launches into cudaStreamTailLaunch. Then each thread stores its last
// error to res[8 + t], clears it and stores it again to res[16 + t], and stores what setting it
// to 100 + t returns (that error) to res[24 + t].
const char *const LaunchPtx = R"(.version 8.0
.target sm_80
.address_size 64
.extern .func (.param .b64 func_retval0) __cuda_syscall_cnpv2GetParameterBufferV2
(
  .param .b64 p0, .param .align 4 .b8 p1[12], .param .align 4 .b8 p2[12], .param .b32 p3
);
.extern .func (.param .b32 func_retval0) __cuda_syscall_cnpv2LaunchDeviceV2
(
  .param .b64 p0, .param .b64 p1
);
.extern .func (.param .b32 func_retval0) __cuda_syscall_cnpv2GetLastError();
.extern .func (.param .b32 func_retval0) __cuda_syscall_cnpv2SetLastError(.param .b32 p0);
.visible .entry child(.param .u64 out, .param .u32 base, .param .f64 scale)
{
  ret;
}
.visible .entry parent(.param .u64 res)
{
  .reg .pred %p<4>;
  .reg .b32 %r<13>;
  .reg .b64 %rd<10>;
  .reg .f64 %fd<2>;
  ld.param.u64 %rd1, [res];
  mov.u32 %r1, %tid.x;
  add.s32 %r2, %r1, 1;
  shl.b32 %r3, %r1, 4;
  mul.lo.s32 %r4, %r1, 3;
  setp.eq.u32 %p1, %r1, 5;
  selp.b32 %r5, 2048, 32, %p1;
  setp.eq.u32 %p2, %r1, 6;
  selp.b64 %rd7, 3, 0, %p2;
  mov.u64 %rd2, child;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd1, %rd3;
  mov.u32 %r10, -1;
  {
  .param .b64 param0;
  st.param.b64 [param0+0], %rd2;
  .param .align 4 .b8 param1[12];
  st.param.b32 [param1+0], %r2;
  st.param.b32 [param1+4], 2;
  st.param.b32 [param1+8], 1;
  .param .align 4 .b8 param2[12];
  st.param.b32 [param2+0], %r5;
  st.param.b32 [param2+4], 1;
  st.param.b32 [param2+8], 2;
  .param .b32 param3;
  st.param.b32 [param3+0], %r3;
  .param .b64 retval0;
  call.uni (retval0), __cuda_syscall_cnpv2GetParameterBufferV2, (param0, param1, param2, param3);
  ld.param.b64 %rd5, [retval0+0];
  }
  setp.eq.s64 %p3, %rd5, 0;
  @%p3 bra $L_store;
  st.u64 [%rd5], %rd1;
  st.u32 [%rd5+8], %r4;
  mov.f64 %fd1, 0d4004000000000000;
  st.f64 [%rd5+16], %fd1;
  {
  .param .b64 param0;
  st.param.b64 [param0+0], %rd5;
  .param .b64 param1;
  st.param.b64 [param1+0], %rd7;
  .param .b32 retval0;
  call.uni (retval0), __cuda_syscall_cnpv2LaunchDeviceV2, (param0, param1);
  ld.param.b32 %r10, [retval0+0];
  }
$L_store:
  st.global.u32 [%rd4], %r10;
  {
  .param .b32 retval0;
  call.uni (retval0), __cuda_syscall_cnpv2GetLastError, ();
  ld.param.b32 %r11, [retval0+0];
  }
  st.global.u32 [%rd4+32], %r11;
  {
  .param .b32 param0;
  st.param.b32 [param0+0], 0;
  .param .b32 retval0;
  call.uni (retval0), __cuda_syscall_cnpv2SetLastError, (param0);
  }
  {
  .param .b32 retval0;
  call.uni (retval0), __cuda_syscall_cnpv2GetLastError, ();
  ld.param.b32 %r11, [retval0+0];
  }
  st.global.u32 [%rd4+64], %r11;
  add.s32 %r12, %r1, 100;
  {
  .param .b32 param0;
  st.param.b32 [param0+0], %r12;
  .param .b32 retval0;
  call.uni (retval0), __cuda_syscall_cnpv2SetLastError, (param0);
  ld.param.b32 %r11, [retval0+0];
  }
  st.global.u32 [%rd4+96], %r11;
  ret;
}
)";

TEST(DeviceLaunchIR, RuntimeCallsBecomeReptxIntrinsicsAndKernelsHaveAddresses) {
  LIFT_ASSERT_OK_AND_ASSIGN(L, lift("launch.ptx", LaunchPtx));
  ASSERT_TRUE(L->R.Failures.empty()) << L->R.Failures[0].Message;
  llvm::Function *Get = L->R.M->getFunction("reptx.cdp.GetParameterBufferV2");
  llvm::Function *Launch = L->R.M->getFunction("reptx.cdp.LaunchDeviceV2");
  ASSERT_NE(Get, nullptr);
  ASSERT_NE(Launch, nullptr);
  // One local-space pointer per return and parameter slot.
  auto Slots = [&](unsigned N) {
    std::vector<llvm::Type *> Ptrs(N, llvm::PointerType::get(*L->Ctx, 5));
    return llvm::FunctionType::get(llvm::Type::getVoidTy(*L->Ctx), Ptrs, false);
  };
  EXPECT_EQ(Get->getFunctionType(), Slots(5));
  EXPECT_EQ(Launch->getFunctionType(), Slots(3));
  EXPECT_EQ(L->R.M->getFunction("__cuda_syscall_cnpv2GetParameterBufferV2"), nullptr);
  ASSERT_NE(L->R.M->getFunction("reptx.cdp.GetLastError"), nullptr);
  EXPECT_EQ(L->R.M->getFunction("reptx.cdp.GetLastError")->getNumUses(), 2u);
  // `mov.u64 %rd2, child`: the address of child's handle string.
  llvm::GlobalVariable *Handle = L->R.M->getNamedGlobal("reptx.kernel.child");
  ASSERT_NE(Handle, nullptr);
  ASSERT_TRUE(Handle->isConstant());
  auto *Text = llvm::dyn_cast<llvm::ConstantDataArray>(Handle->getInitializer());
  ASSERT_NE(Text, nullptr);
  EXPECT_EQ(Text->getAsString(), std::string("\x7freptx.kernel:child", 19) + '\0');
}

// A system call of the device runtime that reptx does not know (one a newer libcudadevrt might
// make; every one of CUDA 13.0's is provided).
TEST(DeviceLaunchIR, UnknownSystemCallIsAnErrorOfItsKernel) {
  const char *Ptx = R"(.version 8.0
.target sm_80
.address_size 64
.extern .func (.param .b32 func_retval0) __cuda_syscall_cnpv2FutureCall
(
  .param .b64 p0, .param .b32 p1, .param .b64 p2
);
.visible .entry bad(.param .u64 out)
{
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  {
  .param .b64 param0;
  st.param.b64 [param0+0], %rd1;
  .param .b32 param1;
  st.param.b32 [param1+0], 1;
  .param .b64 param2;
  st.param.b64 [param2+0], 0;
  .param .b32 retval0;
  call.uni (retval0), __cuda_syscall_cnpv2FutureCall, (param0, param1, param2);
  }
  ret;
}
.visible .entry good()
{
  ret;
}
)";
  LIFT_ASSERT_OK_AND_ASSIGN(L, lift("future.ptx", Ptx));
  ASSERT_EQ(L->R.Failures.size(), 1u);
  const std::string &Message = L->R.Failures[0].Message;
  EXPECT_NE(Message.find("kernel 'bad'"), std::string::npos) << Message;
  EXPECT_NE(Message.find("system call '__cuda_syscall_cnpv2FutureCall' (dynamic "
                         "parallelism), which is not provided"),
            std::string::npos)
      << Message;
  EXPECT_NE(L->R.M->getFunction("good"), nullptr);
}

class DeviceLaunchExec : public ::testing::TestWithParam<std::string> {};

// Eight threads launch with a queue of four records: threads are granted records in the order of
// their atomic increments, so exactly four get one (their launches recorded with every field),
// and the others see NULL, skip, and find cudaErrorLaunchPendingCountExceeded as their last
// error; the overflow flag is set.
TEST_P(DeviceLaunchExec, LaunchesAreRecordedInTheQueue) {
  LIFT_ASSERT_OK_AND_ASSIGN(L, lift("launch.ptx", LaunchPtx));
  ASSERT_TRUE(L->R.Failures.empty());
  backend::CompileOptions Opts;
  Opts.Arch = GetParam();
  LIFT_ASSERT_OK_AND_ASSIGN(Obj, backend::compile(*L->R.M, Opts));
  LIFT_ASSERT_OK_AND_ASSIGN(CO, CodeObject::load(Obj.Bytes));
  LIFT_ASSERT_OK_AND_ASSIGN(Sym, dynamicSymbol(Obj.Bytes, lq::QueueSymbol));
  ASSERT_TRUE(Sym.has_value()) << "no dynamic symbol " << lq::QueueSymbol;

  Device Dev;
  Dev.setCodeObjectsWritable(true);
  LIFT_ASSERT_OK_AND_ASSIGN(Base, Dev.loadCodeObject(*CO));
  const unsigned Capacity = 4, Threads = 8;
  std::vector<uint8_t> Bytes(lq::RecordsOffset + Capacity * lq::RecordBytes, 0xcd);
  std::fill(Bytes.begin(), Bytes.begin() + lq::RecordsOffset, 0); // no errors yet
  const uint32_t Header[5] = {Capacity, 0, 0, 0, 1};              // grid 1
  std::memcpy(Bytes.data(), Header, sizeof(Header));
  LIFT_ASSERT_OK_AND_ASSIGN(Queue, Dev.allocateArray<uint8_t>(Bytes));
  ASSERT_FALSE(static_cast<bool>(
      Dev.write(Base + Sym->Value, {reinterpret_cast<const uint8_t *>(&Queue), 8})));
  LIFT_ASSERT_OK_AND_ASSIGN(Res,
                            Dev.allocateArray<uint32_t>(std::vector<uint32_t>(4 * Threads, 7)));
  auto R = Dev.dispatch(*CO, DispatchParams::blocks("parent", {1, 1, 1}, {Threads, 1, 1},
                                                    KernargBuilder().addPointer(Res).take()));
  ASSERT_TRUE(static_cast<bool>(R)) << llvm::toString(R.takeError());

  LIFT_ASSERT_OK_AND_ASSIGN(Q, Dev.readArray<uint8_t>(Queue, Bytes.size()));
  LIFT_ASSERT_OK_AND_ASSIGN(Results, Dev.readArray<uint32_t>(Res, 4 * Threads));
  auto U32 = [&](size_t At) {
    uint32_t V;
    std::memcpy(&V, Q.data() + At, 4);
    return V;
  };
  auto U64 = [&](size_t At) {
    uint64_t V;
    std::memcpy(&V, Q.data() + At, 8);
    return V;
  };
  EXPECT_EQ(U32(0), Capacity);
  EXPECT_EQ(U32(4), Threads); // every thread asked
  EXPECT_EQ(U32(8), 1u);      // four of them found no room
  std::vector<bool> Recorded(Threads, false);
  for (unsigned I = 0; I < Capacity; ++I) {
    SCOPED_TRACE("record " + std::to_string(I));
    size_t Rec = lq::RecordsOffset + I * lq::RecordBytes, P = Rec + lq::RecordHeaderBytes;
    uint32_t T = U32(P + 8) / 3; // the child's `base` parameter is 3 * the thread's id
    ASSERT_LT(T, Threads);
    EXPECT_FALSE(Recorded[T]) << "thread " << T << " recorded twice";
    Recorded[T] = true;
    // Thread 5's block of 2048 threads is refused: reserved, never launched.
    EXPECT_EQ(U32(Rec), T == 5 ? 0u : lq::Launched);
    EXPECT_EQ(Results[T], T == 5 ? lq::CnpInvalidConfiguration : lq::CnpSuccess);
    EXPECT_EQ(Results[Threads + T], 0u) << "last error of thread " << T;
    LIFT_ASSERT_OK_AND_ASSIGN(Name, Dev.readArray<uint8_t>(U64(Rec + 8), 20));
    EXPECT_EQ(std::string(Name.begin(), Name.end()),
              std::string("\x7freptx.kernel:child", 19) + '\0');
    EXPECT_EQ(U32(Rec + 16), T + 1);
    EXPECT_EQ(U32(Rec + 20), 2u);
    EXPECT_EQ(U32(Rec + 24), 1u);
    EXPECT_EQ(U32(Rec + 28), T == 5 ? 2048u : 32u);
    EXPECT_EQ(U32(Rec + 32), 1u);
    EXPECT_EQ(U32(Rec + 36), 2u);
    EXPECT_EQ(U32(Rec + 40), 16 * T);
    if (T != 5)
      EXPECT_EQ(U64(Rec + 48), T == 6 ? lq::StreamTailLaunch : 0u);
    EXPECT_EQ(U64(P), Res); // the parameters as the parent stored them
    double Scale;
    std::memcpy(&Scale, Q.data() + P + 16, 8);
    EXPECT_EQ(Scale, 2.5);
  }
  for (unsigned T = 0; T < Threads; ++T) {
    if (!Recorded[T]) {
      EXPECT_EQ(Results[T], 0xffffffffu) << "thread " << T << " launched without a record";
      EXPECT_EQ(Results[Threads + T], lq::ErrorLaunchPendingCountExceeded) << "thread " << T;
    }
    EXPECT_EQ(Results[2 * Threads + T], 0u) << "thread " << T << ": the cleared last error";
    EXPECT_EQ(Results[3 * Threads + T], 100 + T) << "thread " << T;
  }
}

// The device runtime's queries: function attributes and occupancy from the code object's kernel
// table, limits from the queue (both laid out as a loader writes them), the fixed cache and
// shared-memory configurations. Each call's result and value go to res[] (below); the values
// the tables hold are the test's own, the occupancy is worked out by hand from the loader's model
// (LaunchQueue.h): 64 threads are 2 warps (24 blocks by warps, 16 at most), 1,200 + 40,000 bytes
// of shared memory per block fit twice in 100 KiB.
std::string queryPtx() {
  std::string Ptx = R"(.version 8.0
.target sm_80
.address_size 64
.extern .func (.param .b32 r) __cuda_syscall_cnpv2FuncGetAttribute
(.param .b64 p0, .param .b32 p1, .param .b64 p2);
.extern .func (.param .b32 r) __cuda_syscall_cnpv2MaxActiveBlocksPerMultiprocessor
(.param .b64 p0, .param .b64 p1, .param .b32 p2, .param .b64 p3);
.extern .func (.param .b32 r) __cuda_syscall_cnpv2MaxActiveBlocksPerMultiprocessorWithFlags
(.param .b64 p0, .param .b64 p1, .param .b32 p2, .param .b64 p3, .param .b32 p4);
.extern .func (.param .b32 r) __cuda_syscall_cnpv2GetLimit (.param .b64 p0, .param .b32 p1);
.extern .func (.param .b32 r) __cuda_syscall_cnpv2GetCacheConfig (.param .b64 p0);
.extern .func (.param .b32 r) __cuda_syscall_cnpv2GetSharedMemConfig (.param .b64 p0);
.visible .entry child() { ret; }
.visible .entry queries(.param .u64 res)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [res];
  mov.u64 %rd2, child;
)";
  // One system call: its result to res[Ret], its parameters (type, value; "@N" is res + 4 * N).
  auto Call = [&](const char *Name, unsigned Ret,
                  std::vector<std::pair<const char *, std::string>> Params) {
    std::string Names;
    Ptx += "  {\n";
    for (unsigned I = 0; I < Params.size(); ++I) {
      auto &[Type, Value] = Params[I];
      std::string P = "p" + std::to_string(I), V = Value;
      if (V[0] == '@') {
        Ptx += "  add.s64 %rd3, %rd1, " + std::to_string(4 * std::stoi(V.substr(1))) + ";\n";
        V = "%rd3";
      }
      Ptx += std::string("  .param .") + Type + " " + P + ";\n  st.param." + Type + " [" + P +
             "], " + V + ";\n";
      Names += (I ? ", " : "") + P;
    }
    Ptx += std::string("  .param .b32 r;\n  call.uni (r), __cuda_syscall_cnpv2") + Name + ", (" +
           Names + ");\n  ld.param.b32 %r1, [r];\n  }\n  st.global.u32 [%rd1+" +
           std::to_string(4 * Ret) + "], %r1;\n";
  };
  Call("FuncGetAttribute", 0, {{"b64", "@1"}, {"b32", "1"}, {"b64", "%rd2"}}); // shared bytes
  Call("FuncGetAttribute", 2, {{"b64", "@3"}, {"b32", "0"}, {"b64", "%rd2"}}); // max threads
  Call("FuncGetAttribute", 4, {{"b64", "@5"}, {"b32", "8"}, {"b64", "%rd2"}}); // no such
  Call("FuncGetAttribute", 6, {{"b64", "@7"}, {"b32", "1"}, {"b64", "%rd1"}}); // not a kernel
  Call("MaxActiveBlocksPerMultiprocessorWithFlags", 8,
       {{"b64", "@9"}, {"b64", "%rd2"}, {"b32", "64"}, {"b64", "40000"}, {"b32", "1"}});
  Call("MaxActiveBlocksPerMultiprocessor", 10,
       {{"b64", "@11"}, {"b64", "%rd2"}, {"b32", "0"}, {"b64", "0"}}); // no threads
  Call("GetLimit", 12, {{"b64", "@14"}, {"b32", "0"}});                // cudaLimitStackSize
  Call("GetLimit", 13, {{"b64", "@16"}, {"b32", "12"}});               // none
  Call("GetCacheConfig", 18, {{"b64", "@19"}});
  Call("GetSharedMemConfig", 20, {{"b64", "@21"}});
  Ptx += "  ret;\n}\n";
  return Ptx;
}

TEST_P(DeviceLaunchExec, QueriesAnswerFromTheLoadersTables) {
  LIFT_ASSERT_OK_AND_ASSIGN(L, lift("queries.ptx", queryPtx()));
  ASSERT_TRUE(L->R.Failures.empty()) << L->R.Failures[0].Message;
  backend::CompileOptions Opts;
  Opts.Arch = GetParam();
  LIFT_ASSERT_OK_AND_ASSIGN(Obj, backend::compile(*L->R.M, Opts));
  LIFT_ASSERT_OK_AND_ASSIGN(CO, CodeObject::load(Obj.Bytes));
  LIFT_ASSERT_OK_AND_ASSIGN(QueueSym, dynamicSymbol(Obj.Bytes, lq::QueueSymbol));
  LIFT_ASSERT_OK_AND_ASSIGN(TableSym, dynamicSymbol(Obj.Bytes, lq::KernelTableSymbol));
  ASSERT_TRUE(QueueSym.has_value() && TableSym.has_value());

  Device Dev;
  Dev.setCodeObjectsWritable(true);
  LIFT_ASSERT_OK_AND_ASSIGN(Base, Dev.loadCodeObject(*CO));
  // The queue: only its limits matter here (the stack size set, the others unsupported).
  std::vector<uint8_t> Queue(lq::RecordsOffset, 0);
  std::vector<uint64_t> Limits(lq::LimitSlots, lq::LimitUnsupported);
  Limits[0] = 4096;
  std::memcpy(Queue.data() + lq::LimitsOffset, Limits.data(), 8 * Limits.size());
  LIFT_ASSERT_OK_AND_ASSIGN(QueueAt, Dev.allocateArray<uint8_t>(Queue));
  // The kernel table: child's entry (256 threads, 1,200 bytes of shared memory), then its text.
  const std::string Text = std::string("\x7freptx.kernel:child", 19) + '\0';
  std::vector<uint8_t> Table(8 + lq::KernelEntryBytes + Text.size(), 0);
  const uint32_t Count = 1;
  const int32_t Attributes[lq::KernelAttributes] = {256, 1200, 0, 0, 10, 80, 86, 0};
  std::memcpy(Table.data(), &Count, 4);
  std::memcpy(Table.data() + 16, Attributes, sizeof(Attributes));
  std::memcpy(Table.data() + 8 + lq::KernelEntryBytes, Text.data(), Text.size());
  LIFT_ASSERT_OK_AND_ASSIGN(TableAt, Dev.allocateArray<uint8_t>(Table));
  const uint64_t TextAt = TableAt + 8 + lq::KernelEntryBytes;
  ASSERT_FALSE(
      static_cast<bool>(Dev.write(TableAt + 8, {reinterpret_cast<const uint8_t *>(&TextAt), 8})));
  ASSERT_FALSE(static_cast<bool>(
      Dev.write(Base + QueueSym->Value, {reinterpret_cast<const uint8_t *>(&QueueAt), 8})));
  ASSERT_FALSE(static_cast<bool>(
      Dev.write(Base + TableSym->Value, {reinterpret_cast<const uint8_t *>(&TableAt), 8})));

  LIFT_ASSERT_OK_AND_ASSIGN(Res, Dev.allocateArray<uint32_t>(std::vector<uint32_t>(24, 7)));
  auto R = Dev.dispatch(*CO, DispatchParams::blocks("queries", {1, 1, 1}, {1, 1, 1},
                                                    KernargBuilder().addPointer(Res).take()));
  ASSERT_TRUE(static_cast<bool>(R)) << llvm::toString(R.takeError());
  LIFT_ASSERT_OK_AND_ASSIGN(Got, Dev.readArray<uint32_t>(Res, 24));
  const uint32_t Ok = lq::CnpSuccess, Bad = lq::CnpInvalidValue;
  const std::vector<uint32_t> Want = {
      Ok,   1200, // shared bytes
      Ok,   256,  // max threads per block
      Bad,  7,    // attribute 8 is not in the table
      Bad,  7,    // res is not a kernel's address
      Ok,   2,    // blocks of 64 threads with 40,000 bytes of dynamic shared memory
      Bad,  7,    // blocks of no threads
      Ok,   lq::CnpUnsupportedLimit, // the stack size (below); limit 12 is not supported
      4096, 0,                       // the stack size, 64-bit
      7,    7,                       // limit 12's value, untouched
      Ok,   0,                       // cudaFuncCachePreferNone
      Ok,   1,                       // cudaSharedMemBankSizeFourByte
      7,    7};
  EXPECT_EQ(Got, Want);
}

INSTANTIATE_TEST_SUITE_P(Targets, DeviceLaunchExec,
                         ::testing::Values("gfx942", "gfx1100", "gfx90a", "gfx1030", "gfx1201"));

} // namespace
