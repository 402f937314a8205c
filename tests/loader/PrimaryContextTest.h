// The fixture of the driver API tests that run on the emulator in device 0's primary context:
// libcuda.so.1 initialized once per suite with the emulator backend, the context current in each
// test.
#pragma once

#include "CudaApi.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace reptx::loader::test {

class PrimaryContextTest : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    setenv("REPTX_BACKEND", "emulator", 1);
    ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
    ASSERT_EQ(cuDevicePrimaryCtxRetain(&Ctx, 0), CUDA_SUCCESS);
  }
  static void TearDownTestSuite() { cuDevicePrimaryCtxRelease_v2(0); }
  void SetUp() override { ASSERT_EQ(cuCtxSetCurrent(Ctx), CUDA_SUCCESS); }

  static inline CUcontext Ctx = nullptr;
};

} // namespace reptx::loader::test
