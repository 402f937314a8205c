// libcuda.so.1 on the HIP backend, against the fake HIP and HSA runtimes (fake_amdhip64.c,
// fake_hsa.c): what the device reports comes from the GPU the HSA runtime describes, and managed,
// pinned and registered host memory reach HIP's calls for them. A process of its own: the driver
// chooses its backend once, at cuInit.
#include "CudaApi.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

// cudart's exit handlers are registered before cuInit, so before HIP's (which hipInit registers),
// and run after them: they unload the program's modules and release its context when HIP has
// shut down. This one, registered when the test binary starts, does what Late says, once a test
// arms it.
struct LateTeardown {
  bool Armed = false;
  CUmodule Module = nullptr;
  CUdeviceptr Memory = 0;
  CUevent Event = nullptr;
  CUcontext Ctx = nullptr;
} Late;
const int LateRegistered = std::atexit([] {
  if (!Late.Armed)
    return;
  cuModuleUnload(Late.Module);
  CUstreamCaptureStatus Capturing;
  cuStreamIsCapturing(CU_STREAM_PER_THREAD, &Capturing); // per-thread state exit() destroyed
  cuMemFree_v2(Late.Memory);
  cuEventDestroy_v2(Late.Event);
  cuCtxDestroy_v2(Late.Ctx);
  cuDevicePrimaryCtxRelease(0);
});

class HipLoader : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    // Held open, so that the loader's dlopen finds this instance and its call log.
    Fake = dlopen(REPTX_FAKE_HIP, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(Fake, nullptr) << dlerror();
    Calls = reinterpret_cast<const char *(*)()>(dlsym(Fake, "fake_hip_calls"));
    Reset = reinterpret_cast<void (*)()>(dlsym(Fake, "fake_hip_reset"));
    Completed = reinterpret_cast<int (*)()>(dlsym(Fake, "fake_hip_completed"));
    ASSERT_TRUE(Calls && Reset && Completed);
    setenv("REPTX_DEVICE", "hip", 1);
    setenv("REPTX_HIP_LIBRARY", REPTX_FAKE_HIP, 1);
    setenv("REPTX_HSA_LIBRARY", REPTX_FAKE_HSA, 1);
    setenv("FAKE_HIP_DEVICES", "1", 1);
    setenv("FAKE_HSA_AGENTS", "cpu,gfx1100:48", 1);
    unsetenv("REPTX_ARCH");
    ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  }
  void SetUp() override { ASSERT_EQ(cuCtxCreate_v2(&Ctx, 0, 0), CUDA_SUCCESS); }
  void TearDown() override {
    for (const char *V : {"FAKE_HIP_MAP_OFFSET", "FAKE_HIP_KERNEL_US", "FAKE_HIP_FAULT"})
      unsetenv(V);
    EXPECT_EQ(cuCtxDestroy_v2(Ctx), CUDA_SUCCESS);
  }
  static int attribute(CUdevice_attribute A) {
    int V = -1;
    EXPECT_EQ(cuDeviceGetAttribute(&V, A, 0), CUDA_SUCCESS);
    return V;
  }
  /// An empty kernel, loaded (compiled for the fake GPU) and its launch.
  CUfunction emptyKernel() {
    static const char *Ptx = ".version 7.0\n.target sm_80\n.address_size 64\n"
                             ".visible .entry reptx_hip_empty()\n{\n  ret;\n}\n";
    CUfunction F = nullptr;
    EXPECT_EQ(cuModuleLoadData(&Module, Ptx), CUDA_SUCCESS);
    EXPECT_EQ(cuModuleGetFunction(&F, Module, "reptx_hip_empty"), CUDA_SUCCESS);
    return F;
  }
  /// A kernel that calls printf (its module gets the device's printf FIFO), loaded.
  CUfunction printfKernel() {
    static const char *Ptx =
        ".version 7.0\n.target sm_80\n.address_size 64\n"
        ".extern .func (.param .b32 func_retval0) vprintf(.param .b64 vprintf_param_0, "
        ".param .b64 vprintf_param_1);\n"
        ".global .align 1 .b8 $str[4] = {104, 105, 10, 0};\n"
        ".visible .entry reptx_hip_printf()\n{\n"
        "  .reg .b32 %r<2>;\n  .reg .b64 %rd<4>;\n"
        "  mov.u64 %rd1, $str;\n  cvta.global.u64 %rd2, %rd1;\n  mov.u64 %rd3, 0;\n"
        "  {\n  .param .b64 param0;\n  st.param.b64 [param0+0], %rd2;\n"
        "  .param .b64 param1;\n  st.param.b64 [param1+0], %rd3;\n"
        "  .param .b32 retval0;\n  call.uni (retval0), vprintf, (param0, param1);\n"
        "  ld.param.b32 %r1, [retval0+0];\n  }\n  ret;\n}\n";
    CUfunction F = nullptr;
    EXPECT_EQ(cuModuleLoadData(&Module, Ptx), CUDA_SUCCESS);
    EXPECT_EQ(cuModuleGetFunction(&F, Module, "reptx_hip_printf"), CUDA_SUCCESS);
    return F;
  }
  static CUresult launch(CUfunction F, CUstream S = nullptr) {
    return cuLaunchKernel(F, 1, 1, 1, 32, 1, 1, 0, S, nullptr, nullptr);
  }
  static void *Fake;
  static const char *(*Calls)();
  static void (*Reset)();
  static int (*Completed)(); // kernels the fake device has run
  CUcontext Ctx = nullptr;
  CUmodule Module = nullptr;
};
void *HipLoader::Fake = nullptr;
const char *(*HipLoader::Calls)() = nullptr;
void (*HipLoader::Reset)() = nullptr;
int (*HipLoader::Completed)() = nullptr;

TEST_F(HipLoader, TheDeviceIsTheGpuHsaDescribes) {
  char Name[256] = {};
  ASSERT_EQ(cuDeviceGetName(Name, sizeof(Name), 0), CUDA_SUCCESS);
  EXPECT_NE(std::string(Name).find("(gfx1100)"), std::string::npos) << Name;
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT), 48);
  EXPECT_EQ(attribute(CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY), 1);
}

TEST_F(HipLoader, ManagedMemoryIsHipManagedMemory) {
  Reset();
  CUdeviceptr M = 0;
  ASSERT_EQ(cuMemAllocManaged(&M, 256, CU_MEM_ATTACH_GLOBAL), CUDA_SUCCESS);
  reinterpret_cast<uint32_t *>(M)[5] = 0xfeedu; // host code dereferences it
  uint32_t Back = 0;
  ASSERT_EQ(cuMemcpyDtoH_v2(&Back, M + 20, 4), CUDA_SUCCESS);
  EXPECT_EQ(Back, 0xfeedu);
  unsigned IsManaged = 0;
  ASSERT_EQ(cuPointerGetAttribute(&IsManaged, CU_POINTER_ATTRIBUTE_IS_MANAGED, M + 100),
            CUDA_SUCCESS);
  EXPECT_EQ(IsManaged, 1u);
  ASSERT_EQ(cuMemFree_v2(M), CUDA_SUCCESS);
  EXPECT_NE(std::string(Calls()).find("hipMallocManaged(1)\n"), std::string::npos) << Calls();
}

TEST_F(HipLoader, PinnedAndRegisteredMemoryAreMappedAtTheirAddress) {
  Reset();
  void *P = nullptr;
  ASSERT_EQ(cuMemHostAlloc(&P, 1000, 0), CUDA_SUCCESS);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(P) % 4096, 0u);
  CUdeviceptr D = 0;
  ASSERT_EQ(cuMemHostGetDevicePointer_v2(&D, static_cast<char *>(P) + 10, 0), CUDA_SUCCESS);
  EXPECT_EQ(D, reinterpret_cast<CUdeviceptr>(P) + 10);
  ASSERT_EQ(cuMemFreeHost(P), CUDA_SUCCESS);
  EXPECT_STREQ(Calls(), "hipHostRegister(4096,2)\nhipHostGetDevicePointer\nhipHostUnregister\n");

  Reset();
  std::vector<char> Buffer(3 * 4096);
  void *Page =
      reinterpret_cast<void *>((reinterpret_cast<uintptr_t>(Buffer.data()) + 4095) & ~4095ull);
  ASSERT_EQ(cuMemHostRegister_v2(Page, 8192, CU_MEMHOSTREGISTER_DEVICEMAP), CUDA_SUCCESS);
  ASSERT_EQ(cuMemHostGetDevicePointer_v2(&D, Page, 0), CUDA_SUCCESS);
  EXPECT_EQ(D, reinterpret_cast<CUdeviceptr>(Page));
  ASSERT_EQ(cuMemHostUnregister(Page), CUDA_SUCCESS);
  EXPECT_STREQ(Calls(), "hipHostRegister(8192,2)\nhipHostGetDevicePointer\nhipHostUnregister\n");

  // A runtime that maps host memory elsewhere: pinned memory stays host memory, which copies
  // still read, and the device pointer is refused.
  setenv("FAKE_HIP_MAP_OFFSET", "64", 1);
  ASSERT_EQ(cuMemHostAlloc(&P, 64, 0), CUDA_SUCCESS);
  EXPECT_EQ(cuMemHostGetDevicePointer_v2(&D, P, 0), CUDA_ERROR_NOT_SUPPORTED);
  ASSERT_EQ(cuMemFreeHost(P), CUDA_SUCCESS);
}

// HIP runs kernels after their launches return (the fake device: only once the host waits). An
// event is a point in the device's queue: it completes with the work before it, and the time
// between two is the device's, not the host's at the calls; a host function runs after the work
// before it; a host-to-host copy of memory kernels may write waits for them too.
TEST_F(HipLoader, HostWaitsAskTheAsynchronousDevice) {
  setenv("FAKE_HIP_KERNEL_US", "2500", 1);
  CUfunction F = emptyKernel();
  ASSERT_NE(F, nullptr);
  CUevent Start = nullptr, Stop = nullptr, NoTiming = nullptr;
  ASSERT_EQ(cuEventCreate(&Start, CU_EVENT_DEFAULT), CUDA_SUCCESS);
  ASSERT_EQ(cuEventCreate(&Stop, CU_EVENT_BLOCKING_SYNC), CUDA_SUCCESS);
  ASSERT_EQ(cuEventCreate(&NoTiming, CU_EVENT_DISABLE_TIMING), CUDA_SUCCESS);
  int Before = Completed();
  ASSERT_EQ(cuEventRecord(Start, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(launch(F), CUDA_SUCCESS);
  ASSERT_EQ(launch(F), CUDA_SUCCESS);
  ASSERT_EQ(cuEventRecord(Stop, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuEventRecord(NoTiming, nullptr), CUDA_SUCCESS);
  EXPECT_EQ(Completed(), Before);               // the launches returned before their kernels ran
  EXPECT_EQ(cuEventQuery(Start), CUDA_SUCCESS); // nothing was queued before it
  EXPECT_EQ(cuEventQuery(Stop), CUDA_ERROR_NOT_READY);
  float Ms = -1;
  EXPECT_EQ(cuEventElapsedTime(&Ms, Start, Stop), CUDA_ERROR_NOT_READY);
  ASSERT_EQ(cuEventSynchronize(Stop), CUDA_SUCCESS);
  EXPECT_EQ(Completed(), Before + 2);
  EXPECT_EQ(cuEventQuery(Stop), CUDA_SUCCESS);
  ASSERT_EQ(cuEventElapsedTime(&Ms, Start, Stop), CUDA_SUCCESS);
  EXPECT_EQ(Ms, 5.0f); // two kernels of 2.5 ms each on the device's clock
  EXPECT_EQ(cuEventElapsedTime(&Ms, Start, NoTiming), CUDA_ERROR_INVALID_HANDLE);

  struct Seen {
    int (*Completed)();
    int Value = -1;
  } S{Completed};
  ASSERT_EQ(launch(F), CUDA_SUCCESS);
  ASSERT_EQ(cuLaunchHostFunc(
                nullptr,
                [](void *P) {
                  auto *S = static_cast<Seen *>(P);
                  S->Value = S->Completed();
                },
                &S),
            CUDA_SUCCESS);
  EXPECT_EQ(S.Value, Before + 3);

  ASSERT_EQ(launch(F), CUDA_SUCCESS);
  void *Pinned = nullptr;
  ASSERT_EQ(cuMemHostAlloc(&Pinned, 64, 0), CUDA_SUCCESS);
  uint64_t Host = 0;
  ASSERT_EQ(
      cuMemcpy(reinterpret_cast<CUdeviceptr>(&Host), reinterpret_cast<CUdeviceptr>(Pinned), 8),
      CUDA_SUCCESS);
  EXPECT_EQ(Completed(), Before + 4);
  ASSERT_EQ(cuMemFreeHost(Pinned), CUDA_SUCCESS);

  for (CUevent E : {Start, Stop, NoTiming})
    ASSERT_EQ(cuEventDestroy_v2(E), CUDA_SUCCESS);
  ASSERT_EQ(cuModuleUnload(Module), CUDA_SUCCESS);
  EXPECT_NE(std::string(Calls()).find("hipEventCreateWithFlags(2)\n"), std::string::npos)
      << Calls();
}

// Asking is not waiting. cuStreamQuery answers from device events recorded after each stream's
// work, cuStreamSynchronize of a created stream waits for that event, and neither a launch nor a
// wait reads the printf FIFO before the device is idle: reading it is a copy, which HIP's null
// stream runs only after every kernel before it.
TEST_F(HipLoader, StreamsAskTheDeviceWithoutWaitingForAllOfIt) {
  CUfunction F = printfKernel();
  ASSERT_NE(F, nullptr);
  int Before = Completed();
  for (int I = 0; I < 3; ++I)
    ASSERT_EQ(launch(F), CUDA_SUCCESS);
  EXPECT_EQ(Completed(), Before); // no launch waited for the kernels before it
  EXPECT_EQ(cuStreamQuery(nullptr), CUDA_ERROR_NOT_READY);
  EXPECT_EQ(Completed(), Before); // nor did the query
  ASSERT_EQ(cuStreamSynchronize(nullptr), CUDA_SUCCESS);
  EXPECT_EQ(Completed(), Before + 3);
  EXPECT_EQ(cuStreamQuery(nullptr), CUDA_SUCCESS);

  // Two streams, one kernel each: the first's finishes (an event after it is waited for), the
  // second's does not.
  CUstream A = nullptr, B = nullptr;
  ASSERT_EQ(cuStreamCreate(&A, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamCreate(&B, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamQuery(A), CUDA_SUCCESS); // nothing submitted on it yet
  CUevent E = nullptr;
  ASSERT_EQ(cuEventCreate(&E, CU_EVENT_DISABLE_TIMING), CUDA_SUCCESS);
  ASSERT_EQ(launch(F, A), CUDA_SUCCESS);
  ASSERT_EQ(cuEventRecord(E, A), CUDA_SUCCESS);
  ASSERT_EQ(launch(F, B), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamQuery(A), CUDA_ERROR_NOT_READY);
  EXPECT_EQ(cuStreamQuery(B), CUDA_ERROR_NOT_READY);
  ASSERT_EQ(cuEventSynchronize(E), CUDA_SUCCESS);
  EXPECT_EQ(Completed(), Before + 4);
  EXPECT_EQ(cuStreamQuery(A), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamQuery(B), CUDA_ERROR_NOT_READY);
  // A memset is work of its stream too, queued behind B's kernel on the device.
  CUdeviceptr D = 0;
  ASSERT_EQ(cuMemAlloc_v2(&D, 64), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD32Async(D, 7, 16, A), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamQuery(A), CUDA_ERROR_NOT_READY);
  EXPECT_EQ(Completed(), Before + 4);
  // Waiting for a stream waits for its own work (and what the device's queue holds before it),
  // not for work submitted later on another stream.
  ASSERT_EQ(launch(F, B), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(A), CUDA_SUCCESS);
  EXPECT_EQ(Completed(), Before + 5);
  EXPECT_EQ(cuStreamQuery(A), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamQuery(B), CUDA_ERROR_NOT_READY);
  ASSERT_EQ(cuStreamSynchronize(B), CUDA_SUCCESS);
  EXPECT_EQ(Completed(), Before + 6);
  EXPECT_EQ(cuStreamQuery(B), CUDA_SUCCESS);

  ASSERT_EQ(cuMemFree_v2(D), CUDA_SUCCESS);
  ASSERT_EQ(cuEventDestroy_v2(E), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamDestroy_v2(A), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamDestroy_v2(B), CUDA_SUCCESS);
  ASSERT_EQ(cuModuleUnload(Module), CUDA_SUCCESS);
}

// A module's code object leaves the device with it, once the kernels queued from it have run.
TEST_F(HipLoader, UnloadingAModuleUnloadsItsHipModule) {
  CUfunction F = emptyKernel();
  ASSERT_NE(F, nullptr);
  int Before = Completed();
  ASSERT_EQ(launch(F), CUDA_SUCCESS);
  ASSERT_EQ(launch(F), CUDA_SUCCESS);
  Reset();
  ASSERT_EQ(cuModuleUnload(Module), CUDA_SUCCESS);
  EXPECT_EQ(Completed(), Before + 2);
  EXPECT_NE(std::string(Calls()).find("hipDeviceSynchronize\nhipModuleUnload\n"), std::string::npos)
      << Calls();
}

// A `__managed__` variable is managed memory (hipMallocManaged) holding its initial value, which
// host code reads at the address cuLibraryGetManaged and cuLibraryGetGlobal give, and the code
// object's slot for it (ir::ManagedSlotSuffix) points there, so kernels use the same memory.
TEST_F(HipLoader, ManagedVariablesAreManagedMemoryThatKernelsReachThroughTheirSlot) {
  static const char *Ptx = ".version 7.0\n.target sm_80\n.address_size 64\n"
                           ".global .attribute(.managed) .align 4 .u32 reptx_hip_counter = 7;\n"
                           ".visible .entry reptx_hip_count()\n{\n  .reg .b32 %r<3>;\n"
                           "  ld.global.u32 %r1, [reptx_hip_counter];\n  add.s32 %r2, %r1, 1;\n"
                           "  st.global.u32 [reptx_hip_counter], %r2;\n  ret;\n}\n";
  auto SlotOf =
      reinterpret_cast<unsigned long long (*)(const char *)>(dlsym(Fake, "fake_hip_slot"));
  ASSERT_NE(SlotOf, nullptr);
  Reset();
  CUlibrary Lib = nullptr;
  ASSERT_EQ(cuLibraryLoadData(&Lib, Ptx, nullptr, nullptr, 0, nullptr, nullptr, 0), CUDA_SUCCESS);
  CUdeviceptr Managed = 0, Global = 0;
  size_t Bytes = 0;
  ASSERT_EQ(cuLibraryGetManaged(&Managed, &Bytes, Lib, "reptx_hip_counter"), CUDA_SUCCESS);
  EXPECT_EQ(Bytes, 4u);
  ASSERT_EQ(cuLibraryGetGlobal(&Global, &Bytes, Lib, "reptx_hip_counter"), CUDA_SUCCESS);
  EXPECT_EQ(Global, Managed);
  EXPECT_EQ(*reinterpret_cast<const uint32_t *>(Managed), 7u); // host code reads it
  EXPECT_EQ(SlotOf("reptx_hip_counter.reptx.managed"), Managed);
  EXPECT_NE(std::string(Calls()).find("hipMallocManaged(1)"), std::string::npos) << Calls();
  ASSERT_EQ(cuLibraryUnload(Lib), CUDA_SUCCESS);
}

// A fault of the work before an event is what waiting for the event returns, and stays the
// context's error.
TEST_F(HipLoader, AFaultBeforeAnEventIsTheContextsError) {
  CUfunction F = emptyKernel();
  ASSERT_NE(F, nullptr);
  CUevent E = nullptr;
  ASSERT_EQ(cuEventCreate(&E, CU_EVENT_DEFAULT), CUDA_SUCCESS);
  ASSERT_EQ(launch(F), CUDA_SUCCESS);
  ASSERT_EQ(cuEventRecord(E, nullptr), CUDA_SUCCESS);
  setenv("FAKE_HIP_FAULT", "1", 1); // the kernel fails when the device runs it
  EXPECT_EQ(cuEventSynchronize(E), CUDA_ERROR_LAUNCH_FAILED);
  EXPECT_EQ(cuCtxSynchronize(), CUDA_ERROR_LAUNCH_FAILED);
  ASSERT_EQ(cuEventDestroy_v2(E), CUDA_SUCCESS);
}

// A program that leaves a kernel queued when it exits: the kernel finishes and its printf output
// is printed while HIP is still there, and what cudart's exit handlers do afterwards (unload the
// module, free memory and events, release the context) reaches HIP no more.
class HipLoaderDeathTest : public HipLoader {
protected:
  /// Loads a printf kernel, allocates memory and an event, arms Late with them, launches the
  /// kernel and exits without waiting for it.
  [[noreturn]] void exitWithAKernelQueued() {
    CUfunction F = printfKernel();
    CUdeviceptr Memory = 0;
    CUevent E = nullptr;
    if (!F || cuMemAlloc_v2(&Memory, 256) != CUDA_SUCCESS ||
        cuEventCreate(&E, CU_EVENT_DEFAULT) != CUDA_SUCCESS)
      std::_Exit(1);
    Late = {true, Module, Memory, E, Ctx};
    setenv("FAKE_HIP_PRINTF", "queued kernel says hi\n", 1);
    setenv("FAKE_HIP_EXIT_REPORT", "1", 1);
    dup2(STDERR_FILENO, STDOUT_FILENO); // the kernel's output, where the test reads it
    Reset();
    if (launch(F) != CUDA_SUCCESS)
      std::_Exit(2);
    // A capture still open at exit, and the per-thread default stream asked about it, which makes
    // the thread's per-thread stream object.
    CUstream S = nullptr;
    CUstreamCaptureStatus Capturing;
    if (cuStreamCreate(&S, CU_STREAM_NON_BLOCKING) != CUDA_SUCCESS ||
        cuStreamBeginCapture_v2(S, CU_STREAM_CAPTURE_MODE_RELAXED) != CUDA_SUCCESS ||
        cuStreamIsCapturing(CU_STREAM_PER_THREAD, &Capturing) != CUDA_SUCCESS ||
        Capturing != CU_STREAM_CAPTURE_STATUS_NONE)
      std::_Exit(3);
    std::exit(0);
  }
};
TEST_F(HipLoaderDeathTest, ExitingFinishesTheDevicesWorkBeforeHipShutsDown) {
  GTEST_FLAG_SET(death_test_style, "threadsafe"); // a fresh process: the handlers in their order
  EXPECT_EXIT(exitWithAKernelQueued(), ::testing::ExitedWithCode(0),
              ::testing::AllOf(
                  ::testing::ContainsRegex("queued kernel says hi\n"
                                           "fake HIP: shut down with 0 kernels queued, after:\n"
                                           ".*hipModuleLaunchKernel\n.*hipDeviceSynchronize\n"),
                  ::testing::Not(::testing::HasSubstr("after the runtime shut down")),
                  ::testing::Not(::testing::HasSubstr("[reptx error]"))));
}

} // namespace
