// libcuda.so.1 on the HIP backend, against the fake HIP and HSA runtimes (fake_amdhip64.c,
// fake_hsa.c): what the device reports comes from the GPU the HSA runtime describes, and managed,
// pinned and registered host memory reach HIP's calls for them. A process of its own: the driver
// chooses its backend once, at cuInit.
#include "CudaApi.h"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

class HipLoader : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    // Held open, so that the loader's dlopen finds this instance and its call log.
    Fake = dlopen(REPTX_FAKE_HIP, RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(Fake, nullptr) << dlerror();
    Calls = reinterpret_cast<const char *(*)()>(dlsym(Fake, "fake_hip_calls"));
    Reset = reinterpret_cast<void (*)()>(dlsym(Fake, "fake_hip_reset"));
    ASSERT_TRUE(Calls && Reset);
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
    unsetenv("FAKE_HIP_MAP_OFFSET");
    EXPECT_EQ(cuCtxDestroy_v2(Ctx), CUDA_SUCCESS);
  }
  static int attribute(CUdevice_attribute A) {
    int V = -1;
    EXPECT_EQ(cuDeviceGetAttribute(&V, A, 0), CUDA_SUCCESS);
    return V;
  }
  static void *Fake;
  static const char *(*Calls)();
  static void (*Reset)();
  CUcontext Ctx = nullptr;
};
void *HipLoader::Fake = nullptr;
const char *(*HipLoader::Calls)() = nullptr;
void (*HipLoader::Reset)() = nullptr;

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

} // namespace
