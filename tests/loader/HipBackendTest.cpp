// The HIP backend up to the point that needs hardware, against a fake libamdhip64.so
// (fake_amdhip64.c) that records the calls it gets: every entry point is found by dlsym, the
// runtime version is read and mapped to a code object version (amdgpu-codegen.md: COV4 for
// ROCm 5.x, COV5 for 6.x), no device gives a clear error, with a (fake) device the backend's
// memory operations reach the runtime, and the GPU's processor and compute units come from a fake
// libhsa-runtime64.so.1 (fake_hsa.c).
#include "ExecBackend.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cstdlib>
#include <string>
#include <vector>

using namespace reptx::loader;

namespace {

class HipBackendTest : public ::testing::Test {
protected:
  void SetUp() override {
    // The test holds the fake open, so the backend's dlopen/dlclose see the same instance.
    Handle = dlopen(REPTX_FAKE_HIP, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(Handle, nullptr) << dlerror();
    Calls = reinterpret_cast<const char *(*)()>(dlsym(Handle, "fake_hip_calls"));
    Reset = reinterpret_cast<void (*)()>(dlsym(Handle, "fake_hip_reset"));
    ASSERT_TRUE(Calls && Reset);
    Reset();
    Hsa = dlopen(REPTX_FAKE_HSA, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(Hsa, nullptr) << dlerror();
    HsaOpen = reinterpret_cast<int (*)()>(dlsym(Hsa, "fake_hsa_open"));
    ASSERT_TRUE(HsaOpen);
    setenv("REPTX_HIP_LIBRARY", REPTX_FAKE_HIP, 1);
    setenv("REPTX_HSA_LIBRARY", REPTX_FAKE_HSA, 1); // never a real runtime of the machine
    clearEnvironment();
  }
  void TearDown() override {
    unsetenv("REPTX_HIP_LIBRARY");
    unsetenv("REPTX_HSA_LIBRARY");
    clearEnvironment();
    if (Handle)
      dlclose(Handle);
    if (Hsa)
      dlclose(Hsa);
  }
  static void clearEnvironment() {
    for (const char *V :
         {"FAKE_HIP_VERSION", "FAKE_HIP_DEVICES", "FAKE_HSA_AGENTS", "FAKE_HSA_INIT_FAILS",
          "HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES", "REPTX_ARCH"})
      unsetenv(V);
  }
  // createHipBackend, its reason for failing reported.
  static std::unique_ptr<ExecBackend> backend() {
    std::string Why;
    auto B = createHipBackend(Why);
    EXPECT_NE(B, nullptr) << Why;
    return B;
  }
  void *Handle = nullptr, *Hsa = nullptr;
  const char *(*Calls)() = nullptr;
  void (*Reset)() = nullptr;
  int (*HsaOpen)() = nullptr;
};

TEST(HipCodeObjectVersion, ByRocmRelease) {
  EXPECT_EQ(codeObjectVersionFor(50203000), 4u); // ROCm 5.2.3 (Debian's)
  EXPECT_EQ(codeObjectVersionFor(50700000), 4u);
  EXPECT_EQ(codeObjectVersionFor(60000000), 5u);
  EXPECT_EQ(codeObjectVersionFor(60342134), 5u);
  EXPECT_EQ(codeObjectVersionFor(70100000), 5u);
  EXPECT_EQ(codeObjectVersionFor(40500000), 0u); // older than ROCm 5: unsupported
}

TEST_F(HipBackendTest, BindsEveryEntryPoint) {
  auto Info = probeHipRuntime(REPTX_FAKE_HIP);
  ASSERT_TRUE(bool(Info)) << llvm::toString(Info.takeError());
  EXPECT_EQ(Info->Library, REPTX_FAKE_HIP);
  EXPECT_TRUE(Info->Missing.empty());
  EXPECT_EQ(hipEntryPoints().size(), 29u);
  for (const char *Name : hipEntryPoints())
    EXPECT_NE(dlsym(Handle, Name), nullptr) << Name;
  // Probing reads the version and initialises nothing.
  EXPECT_STREQ(Calls(), "hipRuntimeGetVersion\n");
}

TEST_F(HipBackendTest, ReportsMissingEntryPoints) {
  auto Info = probeHipRuntime(REPTX_FAKE_HIP_PARTIAL);
  ASSERT_TRUE(bool(Info)) << llvm::toString(Info.takeError());
  EXPECT_EQ(Info->Missing,
            (std::vector<std::string>{"hipModuleLaunchKernel", "hipRuntimeGetVersion"}));
  EXPECT_EQ(Info->CodeObjectVersion, 0u);
  setenv("REPTX_HIP_LIBRARY", REPTX_FAKE_HIP_PARTIAL, 1);
  std::string Why;
  EXPECT_EQ(createHipBackend(Why), nullptr);
  EXPECT_EQ(Why, std::string(REPTX_FAKE_HIP_PARTIAL) +
                     " lacks hipModuleLaunchKernel, hipRuntimeGetVersion");
}

TEST_F(HipBackendTest, DetectsVersion) {
  for (auto [Version, Cov] : {std::pair{50203000, 4u}, {60200000, 5u}, {70000000, 5u}}) {
    setenv("FAKE_HIP_VERSION", std::to_string(Version).c_str(), 1);
    auto Info = probeHipRuntime(REPTX_FAKE_HIP);
    ASSERT_TRUE(bool(Info)) << llvm::toString(Info.takeError());
    EXPECT_EQ(Info->RuntimeVersion, Version);
    EXPECT_EQ(Info->CodeObjectVersion, Cov) << Version;
  }
  setenv("FAKE_HIP_VERSION", "40500000", 1);
  setenv("FAKE_HIP_DEVICES", "1", 1);
  std::string Why;
  EXPECT_EQ(createHipBackend(Why), nullptr);
  EXPECT_NE(Why.find("HIP runtime version 40500000 is not supported"), std::string::npos) << Why;
}

TEST_F(HipBackendTest, NoRuntimeOrNoDevice) {
  auto Info = probeHipRuntime("/nonexistent/libamdhip64.so.6");
  ASSERT_FALSE(bool(Info));
  EXPECT_EQ(llvm::toString(Info.takeError()),
            "no HIP runtime (/nonexistent/libamdhip64.so.6 not found)");
  std::string Why;
  EXPECT_EQ(createHipBackend(Why), nullptr); // FAKE_HIP_DEVICES unset: no device
  EXPECT_EQ(Why, std::string(REPTX_FAKE_HIP) + " found, but it reports no AMD GPU");
  EXPECT_STREQ(Calls(), "hipRuntimeGetVersion\nhipInit\nhipGetDeviceCount\n");
  // REPTX_DEVICE=hip turns that into an error naming the variable and the reason.
  setenv("REPTX_DEVICE", "hip", 1);
  auto B = createBackend();
  unsetenv("REPTX_DEVICE");
  ASSERT_FALSE(bool(B));
  EXPECT_EQ(llvm::toString(B.takeError()),
            "REPTX_DEVICE=hip: " + Why + " (REPTX_DEVICE=emulator runs kernels on the CPU)");
}

TEST_F(HipBackendTest, MemoryReachesTheRuntime) {
  setenv("FAKE_HIP_DEVICES", "1", 1);
  setenv("FAKE_HIP_VERSION", "50203000", 1);
  std::string Why;
  auto B = createHipBackend(Why);
  ASSERT_NE(B, nullptr) << Why;
  EXPECT_EQ(B->kind(), "hip");
  EXPECT_EQ(B->codeObjectVersion(), 4u); // ROCm 5.2.3
  EXPECT_EQ(B->deviceName(), "reptx on Fake AMD GPU (gfx942)");
  EXPECT_EQ(B->totalMemory(), uint64_t(8) << 30);
  Reset();
  auto A = B->allocate(64);
  ASSERT_TRUE(bool(A)) << llvm::toString(A.takeError());
  const char Hello[] = "hello, hip";
  char Back[sizeof(Hello)] = {};
  ASSERT_FALSE(bool(B->copyToDevice(*A, Hello, sizeof(Hello))));
  ASSERT_FALSE(bool(B->fill(*A + 32, 0x01020304u, 4, 2)));
  ASSERT_FALSE(bool(B->copyToHost(Back, *A, sizeof(Back))));
  EXPECT_STREQ(Back, Hello);
  uint64_t Base = 0, Size = 0;
  EXPECT_TRUE(B->findAllocation(*A + 10, Base, Size));
  EXPECT_EQ(Base, *A);
  EXPECT_EQ(Size, 64u);
  EXPECT_EQ(B->allocatedBytes(), 64u);
  ASSERT_FALSE(bool(B->release(*A)));
  EXPECT_EQ(B->allocatedBytes(), 0u);
  EXPECT_STREQ(Calls(), "hipMalloc\nhipMemcpy(1)\nhipMemsetD32\nhipMemcpy(2)\nhipFree\n");
}

TEST_F(HipBackendTest, ProcessorAndComputeUnitsFromHsa) {
  setenv("FAKE_HIP_DEVICES", "1", 1);
  // The HSA runtime lists the CPU too; HIP's devices are its GPUs, in its order.
  setenv("FAKE_HSA_AGENTS", "cpu,gfx1100:96,gfx942:304", 1);
  auto Gpus = hsaGpus();
  ASSERT_TRUE(bool(Gpus)) << llvm::toString(Gpus.takeError());
  ASSERT_EQ(Gpus->size(), 2u);
  EXPECT_EQ((*Gpus)[0].Name, "gfx1100");
  EXPECT_EQ((*Gpus)[0].ComputeUnits, 96u);
  EXPECT_EQ((*Gpus)[1].Name, "gfx942");
  EXPECT_EQ((*Gpus)[1].ComputeUnits, 304u);
  EXPECT_EQ(HsaOpen(), 0); // every hsa_init matched by an hsa_shut_down

  auto B = backend();
  ASSERT_NE(B, nullptr);
  EXPECT_EQ(B->arch(), "gfx1100");
  EXPECT_EQ(B->computeUnits(), 96u);
  EXPECT_EQ(B->deviceName(), "reptx on Fake AMD GPU (gfx1100)");
  // HIP_VISIBLE_DEVICES (or CUDA_VISIBLE_DEVICES) makes another GPU HIP's device 0.
  setenv("HIP_VISIBLE_DEVICES", "1,0", 1);
  B = backend();
  ASSERT_NE(B, nullptr);
  EXPECT_EQ(B->arch(), "gfx942");
  EXPECT_EQ(B->computeUnits(), 304u);
  unsetenv("HIP_VISIBLE_DEVICES");
  setenv("CUDA_VISIBLE_DEVICES", "1", 1);
  B = backend();
  ASSERT_NE(B, nullptr);
  EXPECT_EQ(B->arch(), "gfx942");
  unsetenv("CUDA_VISIBLE_DEVICES");
  // REPTX_ARCH names the processor instead; the compute units are still the GPU's.
  setenv("REPTX_ARCH", "gfx90a", 1);
  B = backend();
  ASSERT_NE(B, nullptr);
  EXPECT_EQ(B->arch(), "gfx90a");
  EXPECT_EQ(B->computeUnits(), 96u);
  EXPECT_EQ(HsaOpen(), 0);
}

TEST_F(HipBackendTest, WithoutHsaTheProcessorIsGfx942) {
  setenv("FAKE_HIP_DEVICES", "1", 1);
  setenv("REPTX_HSA_LIBRARY", "/nonexistent/libhsa-runtime64.so.1", 1);
  auto Gpus = hsaGpus();
  ASSERT_FALSE(bool(Gpus));
  EXPECT_EQ(llvm::toString(Gpus.takeError()),
            "no HSA runtime (/nonexistent/libhsa-runtime64.so.1 not found)");
  auto B = backend();
  ASSERT_NE(B, nullptr);
  EXPECT_EQ(B->arch(), "gfx942");
  EXPECT_EQ(B->computeUnits(), 80u);

  setenv("REPTX_HSA_LIBRARY", REPTX_FAKE_HSA, 1);
  setenv("FAKE_HSA_AGENTS", "gfx1030:40", 1);
  setenv("FAKE_HSA_INIT_FAILS", "1", 1);
  Gpus = hsaGpus();
  ASSERT_FALSE(bool(Gpus));
  EXPECT_EQ(llvm::toString(Gpus.takeError()), std::string(REPTX_FAKE_HSA) + ": hsa_init failed");
  unsetenv("FAKE_HSA_INIT_FAILS");
  // A device index past HSA's GPUs (or a UUID, which is not an index: device 0).
  setenv("HIP_VISIBLE_DEVICES", "3", 1);
  B = backend();
  ASSERT_NE(B, nullptr);
  EXPECT_EQ(B->arch(), "gfx942");
  setenv("HIP_VISIBLE_DEVICES", "GPU-8a2c64f2", 1);
  EXPECT_EQ(hipDeviceZeroIndex(), 0u);
  B = backend();
  ASSERT_NE(B, nullptr);
  EXPECT_EQ(B->arch(), "gfx1030");
  EXPECT_EQ(B->computeUnits(), 40u);
  EXPECT_EQ(HsaOpen(), 0);
}

TEST_F(HipBackendTest, ManagedAndRegisteredMemory) {
  setenv("FAKE_HIP_DEVICES", "1", 1);
  auto B = backend();
  ASSERT_NE(B, nullptr);
  EXPECT_TRUE(B->managedMemory());
  EXPECT_FALSE(B->hostAccessibleVariables()); // module variables are hipModuleGetGlobal's
  Reset();
  auto A = B->allocateManaged(100);
  ASSERT_TRUE(bool(A)) << llvm::toString(A.takeError());
  *reinterpret_cast<int *>(*A) = 7; // the host dereferences managed memory
  int Back = 0;
  ASSERT_FALSE(bool(B->copyToHost(&Back, *A, 4)));
  EXPECT_EQ(Back, 7);
  EXPECT_TRUE(B->isManaged(*A + 99));
  EXPECT_FALSE(B->isManaged(*A + 100));
  auto D = B->allocate(16);
  ASSERT_TRUE(bool(D));
  EXPECT_FALSE(B->isManaged(*D));
  EXPECT_EQ(B->allocatedBytes(), 116u);
  ASSERT_FALSE(bool(B->release(*A)));
  ASSERT_FALSE(bool(B->release(*D)));
  EXPECT_EQ(B->allocatedBytes(), 0u);

  // Registered memory is kept where the runtime maps it at its own address, and only there.
  std::vector<char> Host(3 * 4096);
  void *Page =
      reinterpret_cast<void *>((reinterpret_cast<uintptr_t>(Host.data()) + 4095) & ~4095ull);
  ASSERT_FALSE(bool(B->mapHost(Page, 8192, /*ReadOnly=*/true)));
  ASSERT_FALSE(bool(B->unmapHost(Page)));
  setenv("FAKE_HIP_MAP_OFFSET", "4096", 1);
  llvm::Error E = B->mapHost(Page, 8192, false);
  ASSERT_TRUE(bool(E));
  EXPECT_NE(llvm::toString(std::move(E)).find("not at its own address"), std::string::npos);
  EXPECT_STREQ(Calls(), "hipMallocManaged(1)\nhipMemcpy(2)\nhipMalloc\nhipFree\nhipFree\n"
                        "hipHostRegister(8192,2)\nhipHostGetDevicePointer\nhipHostUnregister\n"
                        "hipHostRegister(8192,2)\nhipHostGetDevicePointer\nhipHostUnregister\n");
}

TEST_F(HipBackendTest, EventsAreHipEventsOnTheNullStream) {
  setenv("FAKE_HIP_DEVICES", "1", 1);
  auto B = backend();
  ASSERT_NE(B, nullptr);
  EXPECT_TRUE(B->asynchronous());
  Reset();
  // CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS: HIP gets the first
  // two, whose values it shares.
  auto A = B->createEvent(7);
  ASSERT_TRUE(bool(A)) << llvm::toString(A.takeError());
  auto E = B->createEvent(0);
  ASSERT_TRUE(bool(E)) << llvm::toString(E.takeError());
  ASSERT_FALSE(bool(B->recordEvent(*A)));
  ASSERT_FALSE(bool(B->recordEvent(*E)));
  DeviceFault F = DeviceFault::IllegalAddress;
  auto Done = B->eventDone(*E, F);
  ASSERT_TRUE(bool(Done));
  EXPECT_TRUE(*Done); // nothing was launched before it
  EXPECT_EQ(F, DeviceFault::None);
  ASSERT_FALSE(bool(B->waitEvent(*E, F)));
  EXPECT_EQ(F, DeviceFault::None);
  float Ms = -1;
  bool Ready = false;
  ASSERT_FALSE(bool(B->eventElapsed(*E, *E, Ms, Ready)));
  EXPECT_TRUE(Ready);
  EXPECT_EQ(Ms, 0.0f);
  llvm::Error Err = B->eventElapsed(*A, *E, Ms, Ready); // A has no timing
  ASSERT_TRUE(bool(Err));
  EXPECT_NE(llvm::toString(std::move(Err)).find("hipEventElapsedTime: fake HIP error (400)"),
            std::string::npos);
  B->destroyEvent(*A);
  B->destroyEvent(*E);
  EXPECT_STREQ(Calls(), "hipEventCreateWithFlags(3)\nhipEventCreateWithFlags(0)\nhipEventRecord\n"
                        "hipEventRecord\nhipEventQuery\nhipEventSynchronize\n"
                        "hipEventElapsedTime\nhipEventElapsedTime\nhipEventDestroy\n"
                        "hipEventDestroy\n");
}

} // namespace
