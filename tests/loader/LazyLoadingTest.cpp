// Lazy loading (loader/README.md "Lazy loading"): with CUDA_MODULE_LOADING=LAZY a module's kernels
// compile one at a time when first used, each into a code object of its own, unless the module
// shares state between its kernels (a variable that code names), which loads it whole; EAGER
// loads every module whole. Hand-written PTX on the emulator; each test's text is unique to the
// process, so that no earlier run's cache entry of the whole module serves it.
#include "CudaApi.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace {

// fill: out[i] = twice(v + i) through a .func; add: out[i] += v; broken: txq, which reptx does not
// lift. `placeholder_tag` is named by its declaration only, as the tag objects of CUB's and
// Thrust's headers are.
std::string threeKernels(const char *Run) {
  return std::string(".version 7.0\n.target sm_80\n.address_size 64\n// ") + Run + " " +
         std::to_string(::getpid()) + R"(
.global .align 1 .b8 placeholder_tag[1];

.func (.param .b32 r) twice(.param .b32 x)
{
  .reg .b32 %r<3>;
  ld.param.b32 %r1, [x];
  add.s32 %r2, %r1, %r1;
  st.param.b32 [r], %r2;
  ret;
}

.visible .entry fill(.param .u64 out, .param .u32 v)
{
  .reg .b32 %r<5>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [v];
  mov.u32 %r2, %tid.x;
  add.s32 %r3, %r1, %r2;
  {
  .param .b32 a;
  .param .b32 b;
  st.param.b32 [a], %r3;
  call.uni (b), twice, (a);
  ld.param.b32 %r4, [b];
  }
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r2, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r4;
  ret;
}

.visible .entry add(.param .u64 out, .param .u32 v)
{
  .reg .b32 %r<5>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [v];
  mov.u32 %r2, %tid.x;
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r2, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.u32 %r3, [%rd4];
  add.s32 %r4, %r3, %r1;
  st.global.u32 [%rd4], %r4;
  ret;
}

.visible .entry broken(.param .u64 out)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  txq.width.b32 %r1, [%rd1];
  st.global.u32 [%rd1], %r1;
  ret;
}
)";
}

// bump counts its threads in `counter`, a variable other kernels of the module could read.
std::string sharedVariable() {
  return "// shared " + std::to_string(::getpid()) + R"(
.version 7.0
.target sm_80
.address_size 64

.visible .global .align 4 .u32 counter;

.visible .entry bump()
{
  .reg .b32 %r<2>;
  atom.global.add.u32 %r1, [counter], 1;
  ret;
}

.visible .entry other(.param .u64 out)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  ld.global.u32 %r1, [counter];
  st.global.u32 [%rd2], %r1;
  ret;
}
)";
}

class LazyLoading : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    setenv("REPTX_BACKEND", "emulator", 1);
    ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  }
  void SetUp() override { ASSERT_EQ(cuCtxCreate_v2(&Ctx, 0, 0), CUDA_SUCCESS); }
  void TearDown() override {
    unsetenv("CUDA_MODULE_LOADING");
    EXPECT_EQ(cuCtxDestroy_v2(Ctx), CUDA_SUCCESS);
  }
  static CUlibrary load(const std::string &Ptx) {
    CUlibrary L = nullptr;
    EXPECT_EQ(cuLibraryLoadData(&L, Ptx.c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0),
              CUDA_SUCCESS);
    return L;
  }
  static CUmoduleLoadingMode loadingMode() {
    CUmoduleLoadingMode Mode = CUmoduleLoadingMode(0);
    EXPECT_EQ(cuModuleGetLoadingMode(&Mode), CUDA_SUCCESS);
    return Mode;
  }
  // A kernel's function handle, not compiled yet (cuLibraryGetKernel; cuModuleGetFunction
  // compiles the kernel it returns).
  static CUfunction function(CUlibrary L, const char *Name) {
    CUkernel K = nullptr;
    CUfunction F = nullptr;
    EXPECT_EQ(cuLibraryGetKernel(&K, L, Name), CUDA_SUCCESS);
    EXPECT_EQ(cuKernelGetFunction(&F, K), CUDA_SUCCESS);
    return F;
  }
  static CUfunctionLoadingState state(CUfunction F) {
    CUfunctionLoadingState S = CU_FUNCTION_LOADING_STATE_MAX;
    EXPECT_EQ(cuFuncIsLoaded(&S, F), CUDA_SUCCESS);
    return S;
  }
  static CUresult run(CUfunction F, CUdeviceptr Out, uint32_t V, unsigned Threads = 64) {
    void *Params[] = {&Out, &V};
    return cuLaunchKernel(F, 1, 1, 1, Threads, 1, 1, 0, nullptr, Params, nullptr);
  }
  static std::vector<uint32_t> read(CUdeviceptr P, size_t N) {
    std::vector<uint32_t> H(N);
    EXPECT_EQ(cuMemcpyDtoH_v2(H.data(), P, N * 4), CUDA_SUCCESS);
    return H;
  }
  CUcontext Ctx = nullptr;
};

TEST_F(LazyLoading, KernelsCompileOneAtATimeWhenFirstLaunched) {
  setenv("CUDA_MODULE_LOADING", "LAZY", 1);
  EXPECT_EQ(loadingMode(), CU_MODULE_LAZY_LOADING);
  std::string Ptx = threeKernels("lazy");
  CUlibrary M = load(Ptx);
  ASSERT_NE(M, nullptr);
  CUfunction Fill = function(M, "fill"), Add = function(M, "add"), Broken = function(M, "broken");
  EXPECT_EQ(state(Fill), CU_FUNCTION_LOADING_STATE_UNLOADED);

  const unsigned N = 64;
  CUdeviceptr Out;
  ASSERT_EQ(cuMemAlloc_v2(&Out, N * 4), CUDA_SUCCESS);
  ASSERT_EQ(run(Fill, Out, 5), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  std::vector<uint32_t> Want(N);
  for (unsigned I = 0; I < N; ++I)
    Want[I] = 2 * (5 + I);
  EXPECT_EQ(read(Out, N), Want);
  // Only the kernel launched was compiled: the others are still unloaded.
  EXPECT_EQ(state(Fill), CU_FUNCTION_LOADING_STATE_LOADED);
  EXPECT_EQ(state(Add), CU_FUNCTION_LOADING_STATE_UNLOADED);
  EXPECT_EQ(state(Broken), CU_FUNCTION_LOADING_STATE_UNLOADED);

  ASSERT_EQ(run(Add, Out, 7), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  for (unsigned I = 0; I < N; ++I)
    Want[I] += 7;
  EXPECT_EQ(read(Out, N), Want);
  EXPECT_EQ(state(Add), CU_FUNCTION_LOADING_STATE_LOADED);

  // The kernel that does not compile fails its own launch, and only it.
  EXPECT_EQ(run(Broken, Out, 0), CUDA_ERROR_INVALID_PTX);
  EXPECT_EQ(state(Broken), CU_FUNCTION_LOADING_STATE_UNLOADED);
  ASSERT_EQ(run(Fill, Out, 1), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  EXPECT_EQ(read(Out, N)[N - 1], 2 * (1 + N - 1));

  // The tag object no code names has an allocation of its own.
  CUdeviceptr Tag = 0;
  size_t TagSize = 0;
  ASSERT_EQ(cuLibraryGetGlobal(&Tag, &TagSize, M, "placeholder_tag"), CUDA_SUCCESS);
  EXPECT_NE(Tag, 0u);
  EXPECT_EQ(TagSize, 1u);
  EXPECT_EQ(cuLibraryGetGlobal(&Tag, &TagSize, M, "twice"), CUDA_ERROR_NOT_FOUND);
  ASSERT_EQ(cuLibraryUnload(M), CUDA_SUCCESS);

  // cuFuncLoad compiles a kernel without launching it; cuModuleGetFunction compiles the kernel
  // it returns, and only that one.
  CUlibrary M2 = load(threeKernels("lazy-load"));
  ASSERT_NE(M2, nullptr);
  CUfunction Add2 = function(M2, "add"), Fill2 = function(M2, "fill");
  ASSERT_EQ(cuFuncLoad(Add2), CUDA_SUCCESS);
  EXPECT_EQ(state(Add2), CU_FUNCTION_LOADING_STATE_LOADED);
  EXPECT_EQ(state(Fill2), CU_FUNCTION_LOADING_STATE_UNLOADED);
  ASSERT_EQ(cuLibraryUnload(M2), CUDA_SUCCESS);
  CUmodule M3;
  std::string Ptx3 = threeKernels("lazy-module");
  ASSERT_EQ(cuModuleLoadData(&M3, Ptx3.c_str()), CUDA_SUCCESS);
  CUfunction Fill3;
  ASSERT_EQ(cuModuleGetFunction(&Fill3, M3, "fill"), CUDA_SUCCESS);
  EXPECT_EQ(state(Fill3), CU_FUNCTION_LOADING_STATE_LOADED);
  EXPECT_EQ(cuModuleGetFunction(&Fill3, M3, "broken"), CUDA_ERROR_INVALID_PTX);
  ASSERT_EQ(cuModuleUnload(M3), CUDA_SUCCESS);
  ASSERT_EQ(cuMemFree_v2(Out), CUDA_SUCCESS);
}

TEST_F(LazyLoading, ModulesWhoseKernelsShareAVariableLoadWhole) {
  setenv("CUDA_MODULE_LOADING", "LAZY", 1);
  std::string Ptx = sharedVariable();
  CUlibrary M = load(Ptx);
  ASSERT_NE(M, nullptr);
  CUfunction Bump = function(M, "bump"), Other = function(M, "other");
  EXPECT_EQ(state(Other), CU_FUNCTION_LOADING_STATE_UNLOADED);
  ASSERT_EQ(cuLaunchKernel(Bump, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  EXPECT_EQ(state(Other), CU_FUNCTION_LOADING_STATE_LOADED);
  CUdeviceptr Out;
  ASSERT_EQ(cuMemAlloc_v2(&Out, 4), CUDA_SUCCESS);
  ASSERT_EQ(run(Other, Out, 0, 1), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  EXPECT_EQ(read(Out, 1)[0], 32u); // the one counter both kernels name
  CUdeviceptr Counter;
  size_t Size = 0;
  ASSERT_EQ(cuLibraryGetGlobal(&Counter, &Size, M, "counter"), CUDA_SUCCESS);
  EXPECT_EQ(read(Counter, 1)[0], 32u);
  ASSERT_EQ(cuMemFree_v2(Out), CUDA_SUCCESS);
  ASSERT_EQ(cuLibraryUnload(M), CUDA_SUCCESS);
}

TEST_F(LazyLoading, EagerLoadsEveryModuleWhole) {
  setenv("CUDA_MODULE_LOADING", "EAGER", 1);
  // The runtime is still told lazy: it would otherwise load every image of a library when the
  // context is created, and fail there on the SASS-only ones (cuSPARSE's CUTLASS kernels).
  EXPECT_EQ(loadingMode(), CU_MODULE_LAZY_LOADING);
  std::string Ptx = threeKernels("eager");
  CUlibrary M = load(Ptx);
  ASSERT_NE(M, nullptr);
  CUfunction Fill = function(M, "fill"), Add = function(M, "add"), Broken = function(M, "broken");
  EXPECT_EQ(state(Add), CU_FUNCTION_LOADING_STATE_UNLOADED);
  CUdeviceptr Out;
  ASSERT_EQ(cuMemAlloc_v2(&Out, 64 * 4), CUDA_SUCCESS);
  ASSERT_EQ(run(Fill, Out, 5), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  EXPECT_EQ(read(Out, 64)[3], 2u * (5 + 3));
  EXPECT_EQ(state(Add), CU_FUNCTION_LOADING_STATE_LOADED);
  EXPECT_EQ(run(Broken, Out, 0), CUDA_ERROR_INVALID_PTX);
  ASSERT_EQ(cuMemFree_v2(Out), CUDA_SUCCESS);
  ASSERT_EQ(cuLibraryUnload(M), CUDA_SUCCESS);
}

} // namespace
