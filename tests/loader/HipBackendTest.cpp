// The HIP backend up to the point that needs hardware, against a fake libamdhip64.so
// (fake_amdhip64.c) that records the calls it gets: every entry point is found by dlsym, the
// runtime version is read and mapped to a code object version (amdgpu-codegen.md: COV4 for
// ROCm 5.x, COV5 for 6.x), no device gives a clear error, and with a (fake) device the backend's
// memory operations reach the runtime.
#include "ExecBackend.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cstdlib>
#include <string>

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
    setenv("REPTX_HIP_LIBRARY", REPTX_FAKE_HIP, 1);
    unsetenv("FAKE_HIP_VERSION");
    unsetenv("FAKE_HIP_DEVICES");
  }
  void TearDown() override {
    unsetenv("REPTX_HIP_LIBRARY");
    unsetenv("FAKE_HIP_VERSION");
    unsetenv("FAKE_HIP_DEVICES");
    if (Handle)
      dlclose(Handle);
  }
  void *Handle = nullptr;
  const char *(*Calls)() = nullptr;
  void (*Reset)() = nullptr;
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
  EXPECT_EQ(hipEntryPoints().size(), 18u);
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

} // namespace
