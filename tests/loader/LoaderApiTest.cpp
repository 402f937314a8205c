// The driver API of libcuda.so.1 called directly: cuGetProcAddress resolution, the export tables
// (context-local storage, hooks, the integrity answer), an unimplemented entry point, and a
// driver-API launch of hand-written PTX with both argument forms, on the emulator.
#include "CudaApi.h"

#include "reptx/loader/IntegrityCheck.h"

#include <gtest/gtest.h>

#include <pthread.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <vector>

// Entry points libcuda.so.1 exports but does not implement (CUDA_ERROR_NOT_SUPPORTED stubs), so
// DriverApi.h does not declare them: cuMipmappedArrayCreate(CUmipmappedArray *pHandle, const
// CUDA_ARRAY3D_DESCRIPTOR *pMipmappedArrayDesc, unsigned int numMipmapLevels) (CUDA Driver API,
// "Memory Management"; the descriptor is not read by the stub), and the CUDA 2.0 ABI of
// cuMemcpyHtoD (32-bit device pointer and size).
extern "C" CUresult cuMipmappedArrayCreate(CUmipmappedArray *pHandle, const void *pDesc,
                                           unsigned int numMipmapLevels);
extern "C" CUresult cuMemcpyHtoD(unsigned int dstDevice, const void *srcHost, unsigned int bytes);
// Declared by cudaProfiler.h, not cuda.h.
extern "C" CUresult cuProfilerStart();
extern "C" CUresult cuProfilerStop();

namespace {

class LoaderApi : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    setenv("REPTX_BACKEND", "emulator", 1);
    ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  }
};

void *proc(const char *Name, int Version, cuuint64_t Flags, CUresult *R = nullptr,
           CUdriverProcAddressQueryResult *Status = nullptr) {
  void *P = reinterpret_cast<void *>(1);
  CUdriverProcAddressQueryResult S;
  CUresult Res = cuGetProcAddress_v2(Name, &P, Version, Flags, &S);
  if (R)
    *R = Res;
  if (Status)
    *Status = S;
  return P;
}

TEST_F(LoaderApi, ProcAddressPicksTheAbiOfTheRequestedVersion) {
  EXPECT_EQ(proc("cuMemcpyHtoD", 3020, CU_GET_PROC_ADDRESS_DEFAULT),
            reinterpret_cast<void *>(&cuMemcpyHtoD_v2));
  EXPECT_EQ(proc("cuMemcpyHtoD", 2000, CU_GET_PROC_ADDRESS_DEFAULT),
            reinterpret_cast<void *>(&cuMemcpyHtoD));
  EXPECT_EQ(proc("cuMemcpyHtoD", 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM),
            reinterpret_cast<void *>(&cuMemcpyHtoD_v2_ptds));
  EXPECT_EQ(proc("cuLaunchKernel", 12000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM),
            reinterpret_cast<void *>(&cuLaunchKernel_ptsz));
  EXPECT_EQ(proc("cuLaunchKernel", 12000, CU_GET_PROC_ADDRESS_DEFAULT),
            reinterpret_cast<void *>(&cuLaunchKernel));
  EXPECT_EQ(proc("cuCtxGetDevice", 12090, 0), reinterpret_cast<void *>(&cuCtxGetDevice));
  EXPECT_EQ(proc("cuCtxGetDevice", 13000, 0), reinterpret_cast<void *>(&cuCtxGetDevice_v2));
  EXPECT_EQ(proc("cuGetProcAddress", 11030, 0), reinterpret_cast<void *>(&cuGetProcAddress));
  EXPECT_EQ(proc("cuGetProcAddress", 12000, 0), reinterpret_cast<void *>(&cuGetProcAddress_v2));
}

TEST_F(LoaderApi, ProcAddressReportsUnknownNames) {
  CUresult R;
  CUdriverProcAddressQueryResult S;
  EXPECT_EQ(proc("cuNoSuchFunction", 13000, 0, &R, &S), nullptr);
  EXPECT_EQ(R, CUDA_ERROR_NOT_FOUND);
  EXPECT_EQ(S, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
  EXPECT_EQ(proc("", 0, 0, &R, &S), nullptr);
  EXPECT_EQ(R, CUDA_ERROR_NOT_FOUND);
  EXPECT_EQ(proc("cuGraphInstantiateWithParams", 11000, 0, &R, &S), nullptr);
  EXPECT_EQ(S, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT);
  // Known but not implemented: the stub, which answers CUDA_ERROR_NOT_SUPPORTED.
  void *P = proc("cuMipmappedArrayCreate", 13000, 0, &R, &S);
  EXPECT_EQ(R, CUDA_SUCCESS);
  EXPECT_EQ(P, reinterpret_cast<void *>(&cuMipmappedArrayCreate));
  CUmipmappedArray A = nullptr;
  EXPECT_EQ(cuMipmappedArrayCreate(&A, nullptr, 1), CUDA_ERROR_NOT_SUPPORTED);
}

const void *table(const char *Guid) {
  CUuuid Id;
  unsigned B[16];
  EXPECT_EQ(std::sscanf(Guid, "%2x%2x%2x%2x-%2x%2x-%2x%2x-%2x%2x-%2x%2x%2x%2x%2x%2x", &B[0], &B[1],
                        &B[2], &B[3], &B[4], &B[5], &B[6], &B[7], &B[8], &B[9], &B[10], &B[11],
                        &B[12], &B[13], &B[14], &B[15]),
            16);
  for (int I = 0; I < 16; ++I)
    Id.bytes[I] = char(B[I]);
  const void *T = nullptr;
  if (cuGetExportTable(&T, &Id) != CUDA_SUCCESS)
    return nullptr;
  return T;
}

TEST_F(LoaderApi, ExportTablesAndContextLocalStorage) {
  EXPECT_EQ(table("f8cff951-2146-8b4e-b9e2-fb469e7c0dd9"), nullptr);
  auto *Hooks = static_cast<const uintptr_t *>(table("a094798c-2e74-2e74-93f2-0800200c0a66"));
  ASSERT_NE(Hooks, nullptr);
  EXPECT_GE(Hooks[0], 56u);
  void *Buf = nullptr;
  size_t Size = 0;
  reinterpret_cast<void (*)(void **, size_t *)>(Hooks[2])(&Buf, &Size);
  ASSERT_NE(Buf, nullptr);
  EXPECT_GT(Size, 0u);
  for (const char *G :
       {"42d85a81-23f6-cb47-8298-f6e78a3aecdc", "263e8860-7cd2-6143-92f6-bbd5006dfa7e",
        "6bd5fb6c-5bf4-e74a-8987-d93912fd9df9"})
    EXPECT_NE(table(G), nullptr) << G;

  auto *Cudart = static_cast<void *const *>(table("6bd5fb6c-5bf4-e74a-8987-d93912fd9df9"));
  CUcontext Primary = nullptr;
  ASSERT_EQ(reinterpret_cast<CUresult (*)(CUcontext *, CUdevice)>(Cudart[2])(&Primary, 0),
            CUDA_SUCCESS);
  auto *Cls = static_cast<void *const *>(table("c693336e-1121-df11-a8c3-68f355d89593"));
  ASSERT_NE(Cls, nullptr);
  using Put = CUresult (*)(CUcontext, void *, void *, void (*)(CUcontext, void *, void *));
  using Del = CUresult (*)(CUcontext, void *);
  using Get = CUresult (*)(void **, CUcontext, void *);
  int Key = 0, Value = 0;
  void *Out = nullptr;
  ASSERT_EQ(cuCtxSetCurrent(nullptr), CUDA_SUCCESS);
  EXPECT_EQ(reinterpret_cast<Get>(Cls[2])(&Out, nullptr, &Key), CUDA_ERROR_INVALID_CONTEXT);
  ASSERT_EQ(cuCtxSetCurrent(Primary), CUDA_SUCCESS); // before any retain, as cudart does
  EXPECT_EQ(reinterpret_cast<Get>(Cls[2])(&Out, nullptr, &Key), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(reinterpret_cast<Put>(Cls[0])(nullptr, &Key, &Value, nullptr), CUDA_SUCCESS);
  EXPECT_EQ(reinterpret_cast<Get>(Cls[2])(&Out, Primary, &Key), CUDA_SUCCESS);
  EXPECT_EQ(Out, &Value);
  EXPECT_EQ(reinterpret_cast<Del>(Cls[1])(nullptr, &Key), CUDA_SUCCESS);
  EXPECT_EQ(reinterpret_cast<Get>(Cls[2])(&Out, nullptr, &Key), CUDA_ERROR_INVALID_HANDLE);
  CUcontext Retained = nullptr;
  ASSERT_EQ(cuDevicePrimaryCtxRetain(&Retained, 0), CUDA_SUCCESS);
  EXPECT_EQ(Retained, Primary);
}

TEST_F(LoaderApi, IntegrityAnswerHashesTheDocumentedInputs) {
  auto *T = static_cast<void *const *>(table("d4082055-bde6-704b-8d34-ba123c66e1f2"));
  ASSERT_NE(T, nullptr);
  auto Check = reinterpret_cast<CUresult (*)(uint32_t, uint64_t, uint64_t *)>(T[1]);
  uint64_t Out[2] = {0, 0};
  ASSERT_EQ(Check(13002, 1700000000, Out), CUDA_SUCCESS);
  reptx::loader::IntegrityInputs In;
  int Version = 0;
  ASSERT_EQ(cuDriverGetVersion(&Version), CUDA_SUCCESS);
  In.DriverVersion = uint32_t(Version);
  In.Challenge = 13002;
  In.ProcessId = uint32_t(getpid());
  In.ThreadId = uint32_t(pthread_self());
  In.CudartInterfaceTable =
      reinterpret_cast<uint64_t>(table("6bd5fb6c-5bf4-e74a-8987-d93912fd9df9"));
  In.IntegrityTable = reinterpret_cast<uint64_t>(T);
  In.IntegrityFunction = reinterpret_cast<uint64_t>(T[1]);
  In.UnixSeconds = 1700000000;
  reptx::loader::DeviceIdentity D;
  CUuuid U;
  ASSERT_EQ(cuDeviceGetUuid_v2(&U, 0), CUDA_SUCCESS);
  std::memcpy(D.Uuid.data(), U.bytes, 16);
  ASSERT_EQ(cuDeviceGetAttribute(&D.PciDomain, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, 0), 0);
  ASSERT_EQ(cuDeviceGetAttribute(&D.PciBus, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, 0), 0);
  ASSERT_EQ(cuDeviceGetAttribute(&D.PciDevice, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, 0), 0);
  In.Devices.push_back(D);
  std::array<uint64_t, 2> Expect = reptx::loader::integrityAnswer(In);
  EXPECT_EQ(Out[0], Expect[0]);
  EXPECT_EQ(Out[1], Expect[1]);
  ASSERT_EQ(Check(13000, 1700000000, Out), CUDA_SUCCESS);
  EXPECT_EQ(Out[0], 0x3341181C03CB675CULL);
}

// Hand-written PTX: parameters of mixed sizes so that the `extra` buffer layout matters.
const char *Ptx = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .global .align 4 .u32 bias = 7;
.visible .global .align 4 .u32 spare<3>;
.visible .global .align 4 .u32 table[] = {1, 2, 3};
.visible .global .align 8 .u64 links[3] = {generic(table)+4, bias, links};
.visible .entry axpb(.param .u64 out, .param .u32 a, .param .u64 x, .param .u32 n)
{
  .reg .pred %p;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [a];
  ld.param.u64 %rd2, [x];
  ld.param.u32 %r2, [n];
  mov.u32 %r3, %tid.x;
  mov.u32 %r4, %ctaid.x;
  mov.u32 %r5, %ntid.x;
  mad.lo.s32 %r3, %r4, %r5, %r3;
  setp.ge.u32 %p, %r3, %r2;
  @%p bra DONE;
  ld.global.u32 %r6, [bias];
  mul.wide.u32 %rd3, %r3, 8;
  add.s64 %rd4, %rd1, %rd3;
  cvt.u64.u32 %rd5, %r3;
  mul.lo.u64 %rd5, %rd5, %rd2;
  cvt.u64.u32 %rd6, %r1;
  add.u64 %rd5, %rd5, %rd6;
  cvt.u64.u32 %rd6, %r6;
  add.u64 %rd5, %rd5, %rd6;
  st.global.u64 [%rd4], %rd5;
DONE:
  ret;
}
)";

// What libcublas asks before its first kernel: ToolsContext slot 51 names the current context,
// slot 39 its number (the key of cuBLAS's per-context workspace); a slot past the known ones is a
// function that fails, not whatever lies after the table; the CIG limits are answered (a failed
// CIG_ENABLED query left cublasCreate's device description zeroed: cublasSasum divided by it).
TEST_F(LoaderApi, ToolsTablesAndQueryOnlyLimits) {
  CUcontext Primary;
  ASSERT_EQ(cuDevicePrimaryCtxRetain(&Primary, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSetCurrent(Primary), CUDA_SUCCESS);
  auto *Tools = static_cast<void *const *>(table("21318c60-9714-3248-8ca6-41ff7324c8f2"));
  ASSERT_NE(Tools, nullptr);
  EXPECT_GE(reinterpret_cast<uintptr_t>(Tools[0]), 52u * 8);
  using Current = CUresult (*)(void *, uint64_t, void **, int);
  using Number = CUresult (*)(void *, void *, uint64_t *);
  void *Object = nullptr;
  ASSERT_EQ(reinterpret_cast<Current>(Tools[51])(nullptr, 0, &Object, 0), CUDA_SUCCESS);
  EXPECT_EQ(Object, static_cast<void *>(Primary));
  uint64_t Id = 0, Id2 = 0, Number4 = 0;
  ASSERT_EQ(reinterpret_cast<Number>(Tools[39])(nullptr, Object, &Id), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxGetId(Primary, reinterpret_cast<unsigned long long *>(&Id2)), CUDA_SUCCESS);
  EXPECT_EQ(Id, Id2);
  ASSERT_EQ(reinterpret_cast<CUresult (*)(CUcontext, uint64_t *)>(Tools[4])(nullptr, &Number4),
            CUDA_SUCCESS);
  EXPECT_EQ(Number4, Id);
  int NotAContext = 0;
  EXPECT_EQ(reinterpret_cast<Number>(Tools[39])(nullptr, &NotAContext, &Id),
            CUDA_ERROR_INVALID_CONTEXT);
  // ToolsModule (cuFFT asks for it, and goes on when its slot 7 fails) has only such slots.
  for (const char *G :
       {"21318c60-9714-3248-8ca6-41ff7324c8f2", "42d85a81-23f6-cb47-8298-f6e78a3aecdc",
        "d4082055-bde6-704b-8d34-ba123c66e1f2", "6e163fbe-b958-444d-835c-e182aff1991e"}) {
    auto *T = static_cast<void *const *>(table(G));
    ASSERT_NE(T, nullptr);
    EXPECT_EQ(reinterpret_cast<CUresult (*)()>(T[100])(), CUDA_ERROR_NOT_SUPPORTED) << G;
  }
  auto *Module = static_cast<void *const *>(table("6e163fbe-b958-444d-835c-e182aff1991e"));
  EXPECT_EQ(reinterpret_cast<CUresult (*)()>(Module[7])(), CUDA_ERROR_NOT_SUPPORTED);

  size_t V = 1;
  ASSERT_EQ(cuCtxGetLimit(&V, CU_LIMIT_CIG_ENABLED), CUDA_SUCCESS);
  EXPECT_EQ(V, 0u);
  ASSERT_EQ(cuCtxGetLimit(&V, CU_LIMIT_SHMEM_SIZE), CUDA_SUCCESS);
  int Optin = 0;
  ASSERT_EQ(cuDeviceGetAttribute(&Optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, 0),
            CUDA_SUCCESS);
  EXPECT_EQ(V, size_t(Optin));
  ASSERT_EQ(cuCtxGetLimit(&V, CU_LIMIT_CIG_SHMEM_FALLBACK_ENABLED), CUDA_SUCCESS);
  EXPECT_EQ(V, 1u);
  EXPECT_EQ(cuCtxSetLimit(CU_LIMIT_CIG_ENABLED, 1), CUDA_ERROR_UNSUPPORTED_LIMIT);
  EXPECT_EQ(cuCtxSetLimit(CU_LIMIT_SHMEM_SIZE, 1024), CUDA_ERROR_UNSUPPORTED_LIMIT);
  EXPECT_EQ(cuCtxSetLimit(CU_LIMIT_CIG_SHMEM_FALLBACK_ENABLED, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxGetLimit(&V, CU_LIMIT_CIG_SHMEM_FALLBACK_ENABLED), CUDA_SUCCESS);
  EXPECT_EQ(V, 0u);
  EXPECT_EQ(cuCtxSetLimit(CU_LIMIT_CIG_SHMEM_FALLBACK_ENABLED, 1), CUDA_SUCCESS);
}

// cuModuleLoadDataEx and cuLibraryLoadData fill the JIT log buffers (CU_JIT_*_LOG_BUFFER): the
// parse errors that refused an image, with their lines and columns, whatever REPTX_LOG says, and
// the size options overwritten with the bytes written; an image that loads leaves an info line
// and an empty error log; the kernels of what loaded are counted and enumerated in PTX order.
TEST_F(LoaderApi, ModuleLoadFillsTheJitLogsAndEnumeratesKernels) {
  CUcontext Primary;
  ASSERT_EQ(cuDevicePrimaryCtxRetain(&Primary, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSetCurrent(Primary), CUDA_SUCCESS);
  const char *Bad = ".version 8.0\n.target sm_80\n.address_size 64\n"
                    ".visible .entry bad()\n{\n bogus.u32 %r1;\n}\n";
  const char *Good = ".version 8.0\n.target sm_80\n.address_size 64\n"
                     ".visible .entry good()\n{\n ret;\n}\n"
                     ".func helper()\n{\n ret;\n}\n"
                     ".visible .entry good2()\n{\n ret;\n}\n";
  char Info[512], Error[512];
  CUjit_option Options[] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  auto Values = [&](std::vector<void *> &V) {
    V = {Info, reinterpret_cast<void *>(sizeof Info), Error,
         reinterpret_cast<void *>(sizeof Error)};
    std::memset(Info, 'x', sizeof Info);
    std::memset(Error, 'x', sizeof Error);
  };
  std::vector<void *> V;
  Values(V);
  CUmodule M = nullptr;
  EXPECT_EQ(cuModuleLoadDataEx(&M, Bad, 4, Options, V.data()), CUDA_ERROR_INVALID_PTX);
  std::string E = Error;
  EXPECT_NE(E.find(":6:2: error: unknown instruction 'bogus'"), std::string::npos) << E;
  EXPECT_EQ(reinterpret_cast<size_t>(V[3]), E.size() + 1);
  EXPECT_EQ(Info[0], '\0');
  EXPECT_EQ(V[1], nullptr);

  Values(V);
  ASSERT_EQ(cuModuleLoadDataEx(&M, Good, 4, Options, V.data()), CUDA_SUCCESS);
  EXPECT_EQ(Error[0], '\0');
  EXPECT_EQ(V[3], nullptr);
  std::string I = Info;
  EXPECT_NE(I.find("bytes of PTX"), std::string::npos) << I;
  EXPECT_EQ(reinterpret_cast<size_t>(V[1]), I.size() + 1);
  // Its kernels, counted and enumerated in PTX order (the .func is none of them).
  unsigned Count = 0;
  ASSERT_EQ(cuModuleGetFunctionCount(&Count, M), CUDA_SUCCESS);
  EXPECT_EQ(Count, 2u);
  CUfunction Fs[3] = {};
  ASSERT_EQ(cuModuleEnumerateFunctions(Fs, 3, M), CUDA_SUCCESS);
  const char *N0 = nullptr, *N1 = nullptr;
  ASSERT_EQ(cuFuncGetName(&N0, Fs[0]), CUDA_SUCCESS);
  ASSERT_EQ(cuFuncGetName(&N1, Fs[1]), CUDA_SUCCESS);
  EXPECT_STREQ(N0, "good");
  EXPECT_STREQ(N1, "good2");
  EXPECT_EQ(Fs[2], nullptr);
  CUfunction F;
  EXPECT_EQ(cuModuleGetFunction(&F, M, "good"), CUDA_SUCCESS);
  EXPECT_EQ(F, Fs[0]);
  EXPECT_EQ(cuModuleUnload(M), CUDA_SUCCESS);
  CUlibrary GoodLib = nullptr;
  ASSERT_EQ(cuLibraryLoadData(&GoodLib, Good, nullptr, nullptr, 0, nullptr, nullptr, 0),
            CUDA_SUCCESS);
  ASSERT_EQ(cuLibraryGetKernelCount(&Count, GoodLib), CUDA_SUCCESS);
  EXPECT_EQ(Count, 2u);
  CUkernel Ks[1] = {};
  ASSERT_EQ(cuLibraryEnumerateKernels(Ks, 1, GoodLib), CUDA_SUCCESS);
  ASSERT_EQ(cuKernelGetName(&N0, Ks[0]), CUDA_SUCCESS);
  EXPECT_STREQ(N0, "good");
  EXPECT_EQ(cuLibraryUnload(GoodLib), CUDA_SUCCESS);

  // A buffer too small keeps what fits, NUL-terminated.
  V = {Info, reinterpret_cast<void *>(sizeof Info), Error, reinterpret_cast<void *>(size_t(10))};
  CUlibrary Lib = nullptr;
  EXPECT_EQ(cuLibraryLoadData(&Lib, Bad, Options, V.data(), 4, nullptr, nullptr, 0),
            CUDA_ERROR_INVALID_PTX);
  EXPECT_EQ(std::string(Error), "error   :");
  EXPECT_EQ(reinterpret_cast<size_t>(V[3]), 10u);
}

// CUDA 13's cuda.h makes cuCtxCreate cuCtxCreate_v4 (a parameter structure): a driver-API
// program built against it creates contexts through it; an execution affinity of fewer SMs than
// the device has, or CIG, is not offered. cuStreamGetCtx_v2 names no green context.
TEST_F(LoaderApi, CudaThirteenContextCreation) {
  CUcontext Saved = nullptr;
  ASSERT_EQ(cuCtxGetCurrent(&Saved), CUDA_SUCCESS);
  CUcontext C = nullptr;
  ASSERT_EQ(cuCtxCreate_v4(&C, nullptr, 0, 0), CUDA_SUCCESS);
  CUcontext Current = nullptr;
  ASSERT_EQ(cuCtxGetCurrent(&Current), CUDA_SUCCESS);
  EXPECT_EQ(Current, C);
  CUstream S = nullptr;
  ASSERT_EQ(cuStreamCreate(&S, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  CUcontext Of = nullptr;
  CUgreenCtx Green = reinterpret_cast<CUgreenCtx>(1);
  ASSERT_EQ(cuStreamGetCtx_v2(S, &Of, &Green), CUDA_SUCCESS);
  EXPECT_EQ(Of, C);
  EXPECT_EQ(Green, nullptr);
  EXPECT_EQ(cuStreamDestroy_v2(S), CUDA_SUCCESS);
  EXPECT_EQ(cuCtxDestroy_v2(C), CUDA_SUCCESS);

  int Sms = 0;
  ASSERT_EQ(cuDeviceGetAttribute(&Sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0), CUDA_SUCCESS);
  CUexecAffinityParam Affinity{};
  Affinity.type = CU_EXEC_AFFINITY_TYPE_SM_COUNT;
  Affinity.param.smCount.val = unsigned(Sms);
  CUctxCreateParams Params{&Affinity, 1, nullptr};
  ASSERT_EQ(cuCtxCreate_v4(&C, &Params, 0, 0), CUDA_SUCCESS);
  EXPECT_EQ(cuCtxDestroy_v2(C), CUDA_SUCCESS);
  Affinity.param.smCount.val = 1;
  EXPECT_EQ(cuCtxCreate_v4(&C, &Params, 0, 0), CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY);
  CUctxCigParam Cig{CIG_DATA_TYPE_NV_BLOB, nullptr};
  CUctxCreateParams WithCig{nullptr, 0, &Cig};
  EXPECT_EQ(cuCtxCreate_v4(&C, &WithCig, 0, 0), CUDA_ERROR_NOT_SUPPORTED);
  EXPECT_EQ(cuCtxCreate_v4(&C, nullptr, 0, 7), CUDA_ERROR_INVALID_DEVICE);
  EXPECT_EQ(cuCtxSetCurrent(Saved), CUDA_SUCCESS);
}

// Cluster occupancy (cuBLAS asks at compute capability 9.0 and up, and its handle fails without
// an answer): the device's resident blocks, as cuOccupancyMaxActiveBlocksPerMultiprocessor
// counts them on every multiprocessor, in clusters of the configuration's size (1 to 8).
TEST_F(LoaderApi, ClusterOccupancyCountsResidentBlocksInClusters) {
  CUcontext Primary;
  ASSERT_EQ(cuDevicePrimaryCtxRetain(&Primary, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSetCurrent(Primary), CUDA_SUCCESS);
  const char *Ptx = ".version 8.0\n.target sm_80\n.address_size 64\n"
                    ".visible .entry k()\n{\n ret;\n}\n";
  CUmodule M;
  ASSERT_EQ(cuModuleLoadData(&M, Ptx), CUDA_SUCCESS);
  CUfunction F;
  ASSERT_EQ(cuModuleGetFunction(&F, M, "k"), CUDA_SUCCESS);
  int PerSm = 0, Sms = 0;
  ASSERT_EQ(cuOccupancyMaxActiveBlocksPerMultiprocessor(&PerSm, F, 256, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuDeviceGetAttribute(&Sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 0), CUDA_SUCCESS);
  ASSERT_GT(PerSm, 0);
  CUlaunchAttribute Attr{};
  Attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  Attr.value.clusterDim.x = 2;
  Attr.value.clusterDim.y = 1;
  Attr.value.clusterDim.z = 1;
  CUlaunchConfig Config{};
  Config.gridDimX = 64;
  Config.gridDimY = Config.gridDimZ = 1;
  Config.blockDimX = 256;
  Config.blockDimY = Config.blockDimZ = 1;
  Config.attrs = &Attr;
  Config.numAttrs = 1;
  int Clusters = -1;
  ASSERT_EQ(cuOccupancyMaxActiveClusters(&Clusters, F, &Config), CUDA_SUCCESS);
  EXPECT_EQ(Clusters, PerSm * Sms / 2);
  int Size = -1;
  ASSERT_EQ(cuOccupancyMaxPotentialClusterSize(&Size, F, &Config), CUDA_SUCCESS);
  EXPECT_EQ(Size, 8);
  Attr.value.clusterDim.x = 16;
  EXPECT_EQ(cuOccupancyMaxActiveClusters(&Clusters, F, &Config), CUDA_ERROR_INVALID_CLUSTER_SIZE);
  Config.numAttrs = 0;
  EXPECT_EQ(cuOccupancyMaxActiveClusters(&Clusters, F, &Config), CUDA_ERROR_INVALID_CLUSTER_SIZE);
  EXPECT_EQ(cuOccupancyMaxActiveClusters(&Clusters, F, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuModuleUnload(M), CUDA_SUCCESS);
}

// cudaProfilerStart/Stop: nothing to start, success in a context.
TEST_F(LoaderApi, ProfilerControlSucceedsInAContext) {
  CUcontext Saved = nullptr;
  ASSERT_EQ(cuCtxGetCurrent(&Saved), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSetCurrent(nullptr), CUDA_SUCCESS);
  EXPECT_EQ(cuProfilerStart(), CUDA_ERROR_INVALID_CONTEXT);
  CUcontext Primary;
  ASSERT_EQ(cuDevicePrimaryCtxRetain(&Primary, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSetCurrent(Primary), CUDA_SUCCESS);
  EXPECT_EQ(cuProfilerStart(), CUDA_SUCCESS);
  EXPECT_EQ(cuProfilerStop(), CUDA_SUCCESS);
  EXPECT_EQ(cuCtxSetCurrent(Saved), CUDA_SUCCESS);
}

// One device: its PCI bus id names it back, it has no peer (a device with itself is not a pair),
// and there is no L2 persistence or GPUDirect RDMA to reset or flush.
TEST_F(LoaderApi, DeviceIdentityWithoutPeers) {
  char Bus[32] = {};
  ASSERT_EQ(cuDeviceGetPCIBusId(Bus, sizeof Bus, 0), CUDA_SUCCESS);
  CUdevice Dev = -1;
  ASSERT_EQ(cuDeviceGetByPCIBusId(&Dev, Bus), CUDA_SUCCESS) << Bus;
  EXPECT_EQ(Dev, 0);
  std::string Short = std::string(Bus).substr(5); // without the domain
  Dev = -1;
  ASSERT_EQ(cuDeviceGetByPCIBusId(&Dev, Short.c_str()), CUDA_SUCCESS) << Short;
  EXPECT_EQ(Dev, 0);
  EXPECT_EQ(cuDeviceGetByPCIBusId(&Dev, "0000:01:00.0"), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuDeviceGetByPCIBusId(&Dev, "bus"), CUDA_ERROR_INVALID_VALUE);
  int V = -1;
  EXPECT_EQ(cuDeviceGetP2PAttribute(&V, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 0, 0),
            CUDA_ERROR_INVALID_DEVICE);
  EXPECT_EQ(cuDeviceGetP2PAttribute(&V, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 0, 1),
            CUDA_ERROR_INVALID_DEVICE);
  CUcontext Primary;
  ASSERT_EQ(cuDevicePrimaryCtxRetain(&Primary, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSetCurrent(Primary), CUDA_SUCCESS);
  EXPECT_EQ(cuCtxResetPersistingL2Cache(), CUDA_SUCCESS);
  EXPECT_EQ(cuFlushGPUDirectRDMAWrites(CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_CTX,
                                       CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER),
            CUDA_SUCCESS);
  EXPECT_EQ(cuFlushGPUDirectRDMAWrites(CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_CTX,
                                       CUflushGPUDirectRDMAWritesScope(7)),
            CUDA_ERROR_INVALID_VALUE);
}

// Resetting the primary context, or destroying a created one, frees the device memory allocated
// in it (cudaDeviceReset between runs must not leak), and only that memory.
TEST_F(LoaderApi, ContextResetAndDestroyFreeTheirMemory) {
  CUcontext Primary;
  ASSERT_EQ(cuDevicePrimaryCtxRetain(&Primary, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSetCurrent(Primary), CUDA_SUCCESS);
  size_t Free0 = 0, Total = 0, Free1 = 0;
  ASSERT_EQ(cuMemGetInfo_v2(&Free0, &Total), CUDA_SUCCESS);
  CUdeviceptr A, B, M;
  ASSERT_EQ(cuMemAlloc_v2(&A, 3 << 20), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAlloc_v2(&B, 1 << 20), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAllocManaged(&M, 1 << 20, CU_MEM_ATTACH_GLOBAL), CUDA_SUCCESS);
  ASSERT_EQ(cuMemFree_v2(B), CUDA_SUCCESS);
  CUcontext Other;
  ASSERT_EQ(cuCtxCreate_v2(&Other, 0, 0), CUDA_SUCCESS); // current now
  CUdeviceptr Kept;
  ASSERT_EQ(cuMemAlloc_v2(&Kept, 2 << 20), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSetCurrent(Primary), CUDA_SUCCESS);
  ASSERT_EQ(cuDevicePrimaryCtxReset_v2(0), CUDA_SUCCESS);
  ASSERT_EQ(cuDevicePrimaryCtxRetain(&Primary, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSetCurrent(Primary), CUDA_SUCCESS);
  ASSERT_EQ(cuMemGetInfo_v2(&Free1, &Total), CUDA_SUCCESS);
  EXPECT_EQ(Free1, Free0 - (2 << 20)); // the other context's allocation remains
  CUmemorytype Type;
  EXPECT_EQ(cuPointerGetAttribute(&Type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, A),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuPointerGetAttribute(&Type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, Kept), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxDestroy_v2(Other), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSetCurrent(Primary), CUDA_SUCCESS);
  ASSERT_EQ(cuMemGetInfo_v2(&Free1, &Total), CUDA_SUCCESS);
  EXPECT_EQ(Free1, Free0);
  (void)M;
}

TEST_F(LoaderApi, DriverApiLaunchWithKernelParamsAndExtra) {
  CUcontext Ctx;
  ASSERT_EQ(cuCtxCreate_v2(&Ctx, 0, 0), CUDA_SUCCESS);
  CUmodule M;
  ASSERT_EQ(cuModuleLoadData(&M, Ptx), CUDA_SUCCESS);
  CUfunction F;
  ASSERT_EQ(cuModuleGetFunction(&F, M, "axpb"), CUDA_SUCCESS);
  EXPECT_EQ(cuModuleGetFunction(&F, M, "nope"), CUDA_ERROR_NOT_FOUND);
  ASSERT_EQ(cuModuleGetFunction(&F, M, "axpb"), CUDA_SUCCESS);
  // The .param layout (out u64 at 0, a u32 at 8, x u64 at 16, n u32 at 24), by CUkernel too.
  size_t Offset = 0, Size = 0;
  ASSERT_EQ(cuKernelGetParamInfo(reinterpret_cast<CUkernel>(F), 2, &Offset, &Size), CUDA_SUCCESS);
  EXPECT_EQ(Offset, 16u);
  EXPECT_EQ(Size, 8u);
  EXPECT_EQ(cuKernelGetParamInfo(reinterpret_cast<CUkernel>(F), 4, &Offset, &Size),
            CUDA_ERROR_INVALID_VALUE);
  CUdeviceptr Bias;
  size_t BiasSize = 0;
  ASSERT_EQ(cuModuleGetGlobal_v2(&Bias, &BiasSize, M, "bias"), CUDA_SUCCESS);
  EXPECT_EQ(BiasSize, 4u);
  // Variables no kernel uses get allocations of their own: `spare<3>` declares spare0..spare2
  // (PTX ISA 5.4.7), `table[]` takes its size from the initializer.
  CUdeviceptr Spare, Table;
  size_t SpareSize = 0, TableSize = 0;
  ASSERT_EQ(cuModuleGetGlobal_v2(&Spare, &SpareSize, M, "spare2"), CUDA_SUCCESS);
  EXPECT_EQ(SpareSize, 4u);
  EXPECT_EQ(cuModuleGetGlobal_v2(&Spare, &SpareSize, M, "spare3"), CUDA_ERROR_NOT_FOUND);
  EXPECT_EQ(cuModuleGetGlobal_v2(&Spare, &SpareSize, M, "spare02"), CUDA_ERROR_NOT_FOUND);
  EXPECT_EQ(cuModuleGetGlobal_v2(&Spare, &SpareSize, M, "spare"), CUDA_ERROR_NOT_FOUND);
  ASSERT_EQ(cuModuleGetGlobal_v2(&Table, &TableSize, M, "table"), CUDA_SUCCESS);
  EXPECT_EQ(TableSize, 12u);
  uint32_t TableValues[3] = {}, SpareValue = 1;
  ASSERT_EQ(cuMemcpyDtoH_v2(TableValues, Table, 12), CUDA_SUCCESS);
  EXPECT_EQ(std::vector<uint32_t>(TableValues, TableValues + 3), (std::vector<uint32_t>{1, 2, 3}));
  ASSERT_EQ(cuMemcpyDtoH_v2(&SpareValue, Spare, 4), CUDA_SUCCESS);
  EXPECT_EQ(SpareValue, 0u);
  // Addresses in initializers of variables no kernel uses: another such variable plus an offset,
  // a variable of the code object, the variable itself (PTX ISA 5.4.4).
  CUdeviceptr Links;
  size_t LinksSize = 0;
  ASSERT_EQ(cuModuleGetGlobal_v2(&Links, &LinksSize, M, "links"), CUDA_SUCCESS);
  EXPECT_EQ(LinksSize, 24u);
  uint64_t LinkValues[3] = {};
  ASSERT_EQ(cuMemcpyDtoH_v2(LinkValues, Links, 24), CUDA_SUCCESS);
  EXPECT_EQ(LinkValues[0], Table + 4);
  EXPECT_EQ(LinkValues[1], Bias);
  EXPECT_EQ(LinkValues[2], Links);
  uint32_t NewBias = 1000;
  ASSERT_EQ(cuMemcpyHtoD_v2(Bias, &NewBias, 4), CUDA_SUCCESS);
  const uint32_t N = 100;
  CUdeviceptr Out;
  ASSERT_EQ(cuMemAlloc_v2(&Out, N * 8), CUDA_SUCCESS);
  uint64_t OutArg = Out, X = 3;
  uint32_t A = 11, Count = N;
  void *Params[] = {&OutArg, &A, &X, &Count};
  ASSERT_EQ(cuLaunchKernel(F, 2, 1, 1, 64, 1, 1, 0, nullptr, Params, nullptr), CUDA_SUCCESS);
  std::vector<uint64_t> H(N);
  ASSERT_EQ(cuMemcpyDtoH_v2(H.data(), Out, N * 8), CUDA_SUCCESS);
  for (uint32_t I = 0; I < N; ++I)
    ASSERT_EQ(H[I], uint64_t(I) * 3 + 11 + 1000) << I;
  // The same launch with the arguments in one buffer, in the .param layout: out at 0, a at 8,
  // x at 16, n at 24.
  uint8_t Buffer[28] = {};
  X = 5;
  std::memcpy(Buffer + 0, &OutArg, 8);
  std::memcpy(Buffer + 8, &A, 4);
  std::memcpy(Buffer + 16, &X, 8);
  std::memcpy(Buffer + 24, &Count, 4);
  size_t BufferSize = sizeof(Buffer);
  void *Extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, Buffer, CU_LAUNCH_PARAM_BUFFER_SIZE, &BufferSize,
                   CU_LAUNCH_PARAM_END};
  ASSERT_EQ(cuLaunchKernel(F, 1, 1, 1, 128, 1, 1, 0, nullptr, nullptr, Extra), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoH_v2(H.data(), Out, N * 8), CUDA_SUCCESS);
  for (uint32_t I = 0; I < N; ++I)
    ASSERT_EQ(H[I], uint64_t(I) * 5 + 11 + 1000) << I;
  int Threads = 0;
  ASSERT_EQ(cuFuncGetAttribute(&Threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, F), 0);
  EXPECT_EQ(Threads, 1024);
  // The PTX version is the text's .target (sm_80), the binary version the device's compute
  // capability (8.6 by default), as for PTX that NVIDIA's driver compiles for its device.
  int PtxVersion = 0, BinaryVersion = 0;
  ASSERT_EQ(cuFuncGetAttribute(&PtxVersion, CU_FUNC_ATTRIBUTE_PTX_VERSION, F), 0);
  ASSERT_EQ(cuFuncGetAttribute(&BinaryVersion, CU_FUNC_ATTRIBUTE_BINARY_VERSION, F), 0);
  EXPECT_EQ(PtxVersion, 80);
  EXPECT_EQ(BinaryVersion, 86);
  ASSERT_EQ(cuMemFree_v2(Out), CUDA_SUCCESS);
  ASSERT_EQ(cuModuleUnload(M), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxDestroy_v2(Ctx), CUDA_SUCCESS);
}

// A module that reads %reserved_smem_offset_* (cooperative groups' multi-warp tiles, whose warps
// spin on each other) is compiled with one warp per wave64 (driver::wave64Mode "auto"): the
// launch passes the PTX block in the leading argument and runs 64 work-items per warp; every
// thread still sees its own %tid and the PTX %ntid, and a block holds at most 512 threads.
const char *ReservedPtx = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry ids(.param .u64 out)
{
  .reg .b32 %r<12>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %tid.y;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %ntid.y;
  mov.u32 %r5, %reserved_smem_offset_1;
  mov.u32 %r6, %reserved_smem_offset_cap;
  mad.lo.s32 %r7, %r2, %r3, %r1;
  st.shared.u32 [%r5], %r6;
  bar.sync 0;
  ld.shared.u32 %r8, [%r5];
  shl.b32 %r9, %r4, 8;
  or.b32 %r9, %r9, %r3;
  shl.b32 %r9, %r9, 12;
  or.b32 %r9, %r9, %r8;
  mul.wide.u32 %rd3, %r7, 8;
  add.s64 %rd4, %rd2, %rd3;
  mov.u32 %r10, %laneid;
  shl.b32 %r10, %r10, 16;
  or.b32 %r10, %r10, %r7;
  st.global.v2.u32 [%rd4], {%r10, %r9};
  ret;
}
)";

TEST_F(LoaderApi, WarpsThatWaitOnEachOtherRunOneWarpPerWave) {
  CUcontext Ctx;
  ASSERT_EQ(cuCtxCreate_v2(&Ctx, 0, 0), CUDA_SUCCESS);
  CUmodule M;
  ASSERT_EQ(cuModuleLoadData(&M, ReservedPtx), CUDA_SUCCESS);
  CUfunction F;
  ASSERT_EQ(cuModuleGetFunction(&F, M, "ids"), CUDA_SUCCESS);
  int Threads = 0;
  ASSERT_EQ(cuFuncGetAttribute(&Threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, F), 0);
  EXPECT_EQ(Threads, 512);
  const uint32_t BX = 40, BY = 3, N = BX * BY; // 120 threads: 4 warps, the last one partial
  CUdeviceptr Out;
  ASSERT_EQ(cuMemAlloc_v2(&Out, N * 8), CUDA_SUCCESS);
  uint64_t OutArg = Out;
  void *Params[] = {&OutArg};
  ASSERT_EQ(cuLaunchKernel(F, 1, 1, 1, BX, BY, 1, 0, nullptr, Params, nullptr), CUDA_SUCCESS);
  std::vector<uint32_t> H(N * 2);
  ASSERT_EQ(cuMemcpyDtoH_v2(H.data(), Out, N * 8), CUDA_SUCCESS);
  for (uint32_t I = 0; I < N; ++I) {
    EXPECT_EQ(H[2 * I], (I % 32) << 16 | I) << "thread " << I;              // %laneid, flat id
    EXPECT_EQ(H[2 * I + 1], (BY << 8 | BX) << 12 | 1024) << "thread " << I; // %ntid, cap
  }
  // More than 512 threads do not fit one warp per wave64: cudaErrorInvalidConfiguration.
  EXPECT_EQ(cuLaunchKernel(F, 1, 1, 1, 1024, 1, 1, 0, nullptr, Params, nullptr), CUresult(9));
  EXPECT_EQ(cuLaunchKernel(F, 1, 1, 1, 513, 1, 1, 0, nullptr, Params, nullptr), CUresult(9));
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  ASSERT_EQ(cuMemFree_v2(Out), CUDA_SUCCESS);
  ASSERT_EQ(cuModuleUnload(M), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxDestroy_v2(Ctx), CUDA_SUCCESS);
}

// Dynamic parallelism through the driver API: each of 8 threads of `parent` launches `child` with
// a block of 4 threads through the device runtime's system calls, as libcudadevrt does; the
// children run when the parent's grid has finished. A launch of an address that is not a kernel
// fails the context, as a device fault does; a grid that faults has its launches dropped.
// CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT sizes the device's launch queue until the queue exists.
const char *LaunchingPtx = R"(
.version 8.0
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
.visible .entry child(.param .u64 out, .param .u32 t)
{
  .reg .b32 %r<5>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [t];
  mov.u32 %r2, %tid.x;
  mad.lo.s32 %r3, %r1, 100, %r2;
  shl.b32 %r4, %r1, 2;
  add.s32 %r4, %r4, %r2;
  mul.wide.u32 %rd2, %r4, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  ret;
}
.visible .entry parent(.param .u64 out, .param .u64 kernel, .param .u32 fault)
{
  .reg .pred %p<3>;
  .reg .b32 %r<3>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [kernel];
  setp.eq.u64 %p1, %rd2, 0;
  @!%p1 bra $L_go;
  mov.u64 %rd2, child;
$L_go:
  mov.u32 %r1, %tid.x;
  {
  .param .b64 param0;
  st.param.b64 [param0+0], %rd2;
  .param .align 4 .b8 param1[12];
  st.param.b32 [param1+0], 1;
  st.param.b32 [param1+4], 1;
  st.param.b32 [param1+8], 1;
  .param .align 4 .b8 param2[12];
  st.param.b32 [param2+0], 4;
  st.param.b32 [param2+4], 1;
  st.param.b32 [param2+8], 1;
  .param .b32 param3;
  st.param.b32 [param3+0], 0;
  .param .b64 retval0;
  call.uni (retval0), __cuda_syscall_cnpv2GetParameterBufferV2, (param0, param1, param2, param3);
  ld.param.b64 %rd3, [retval0+0];
  }
  st.u64 [%rd3], %rd1;
  st.u32 [%rd3+8], %r1;
  {
  .param .b64 param0;
  st.param.b64 [param0+0], %rd3;
  .param .b64 param1;
  st.param.b64 [param1+0], 0;
  .param .b32 retval0;
  call.uni (retval0), __cuda_syscall_cnpv2LaunchDeviceV2, (param0, param1);
  ld.param.b32 %r2, [retval0+0];
  }
  ld.param.u32 %r2, [fault];
  setp.ne.u32 %p2, %r2, 0;
  @%p2 trap;
  ret;
}
)";

TEST_F(LoaderApi, DeviceSideLaunchesRunAfterTheirGrid) {
  CUcontext Ctx;
  ASSERT_EQ(cuCtxCreate_v2(&Ctx, 0, 0), CUDA_SUCCESS);
  size_t Pending = 0;
  ASSERT_EQ(cuCtxGetLimit(&Pending, CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT), CUDA_SUCCESS);
  EXPECT_EQ(Pending, 2048u);
  EXPECT_EQ(cuCtxSetLimit(CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT, 0), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuCtxSetLimit(CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT, 64), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxGetLimit(&Pending, CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT), CUDA_SUCCESS);
  EXPECT_EQ(Pending, 64u);
  CUmodule M;
  ASSERT_EQ(cuModuleLoadData(&M, LaunchingPtx), CUDA_SUCCESS);
  CUfunction F;
  ASSERT_EQ(cuModuleGetFunction(&F, M, "parent"), CUDA_SUCCESS);
  CUdeviceptr Out;
  ASSERT_EQ(cuMemAlloc_v2(&Out, 32 * 4), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD32_v2(Out, 0xffffffffu, 32), CUDA_SUCCESS);
  uint64_t OutArg = Out, Kernel = 0;
  uint32_t Fault = 0;
  void *Params[] = {&OutArg, &Kernel, &Fault};
  ASSERT_EQ(cuLaunchKernel(F, 1, 1, 1, 8, 1, 1, 0, nullptr, Params, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  std::vector<uint32_t> H(32);
  ASSERT_EQ(cuMemcpyDtoH_v2(H.data(), Out, 32 * 4), CUDA_SUCCESS);
  for (uint32_t I = 0; I < 32; ++I)
    EXPECT_EQ(H[I], I / 4 * 100 + I % 4) << I;
  // The queue exists now: its size stays.
  EXPECT_EQ(cuCtxSetLimit(CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT, 128),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuCtxSetLimit(CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT, 64), CUDA_SUCCESS);
  // An address that is not a kernel's.
  Kernel = Out;
  ASSERT_EQ(cuLaunchKernel(F, 1, 1, 1, 1, 1, 1, 0, nullptr, Params, nullptr), CUDA_SUCCESS);
  EXPECT_EQ(cuCtxSynchronize(), CUDA_ERROR_LAUNCH_FAILED);
  ASSERT_EQ(cuCtxDestroy_v2(Ctx), CUDA_SUCCESS);

  // A grid that launches and then faults (in context B): its launch is dropped, not run after
  // the next grid of that device (in context A); it would have written the marker.
  CUcontext A, B;
  ASSERT_EQ(cuCtxCreate_v2(&A, 0, 0), CUDA_SUCCESS);
  CUmodule MA, MB;
  ASSERT_EQ(cuModuleLoadData(&MA, LaunchingPtx), CUDA_SUCCESS);
  ASSERT_EQ(cuModuleGetFunction(&F, MA, "parent"), CUDA_SUCCESS);
  CUdeviceptr Marker, Out2;
  ASSERT_EQ(cuMemAlloc_v2(&Marker, 16), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD32_v2(Marker, 7, 4), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAlloc_v2(&Out2, 32 * 4), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxCreate_v2(&B, 0, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuModuleLoadData(&MB, LaunchingPtx), CUDA_SUCCESS);
  CUfunction Faulting;
  ASSERT_EQ(cuModuleGetFunction(&Faulting, MB, "parent"), CUDA_SUCCESS);
  OutArg = Marker;
  Kernel = 0;
  Fault = 1;
  ASSERT_EQ(cuLaunchKernel(Faulting, 1, 1, 1, 1, 1, 1, 0, nullptr, Params, nullptr), CUDA_SUCCESS);
  EXPECT_EQ(cuCtxSynchronize(), CUDA_ERROR_LAUNCH_FAILED);
  Fault = 0;
  ASSERT_EQ(cuCtxSetCurrent(A), CUDA_SUCCESS);
  OutArg = Out2;
  ASSERT_EQ(cuLaunchKernel(F, 1, 1, 1, 8, 1, 1, 0, nullptr, Params, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoH_v2(H.data(), Out2, 32 * 4), CUDA_SUCCESS);
  for (uint32_t I = 0; I < 32; ++I)
    EXPECT_EQ(H[I], I / 4 * 100 + I % 4) << I;
  uint32_t MarkerValues[4] = {};
  ASSERT_EQ(cuMemcpyDtoH_v2(MarkerValues, Marker, 16), CUDA_SUCCESS);
  for (uint32_t V : MarkerValues)
    EXPECT_EQ(V, 7u);
  ASSERT_EQ(cuCtxDestroy_v2(B), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxDestroy_v2(A), CUDA_SUCCESS);
}

// cuStreamBatchMemOp (both ABIs): writes and waits in order, 32- and 64-bit, a barrier and a
// flush; a batch with an operation that does not exist is refused before any of it runs.
TEST_F(LoaderApi, StreamBatchMemoryOperations) {
  CUcontext Ctx;
  ASSERT_EQ(cuCtxCreate_v2(&Ctx, 0, 0), CUDA_SUCCESS);
  CUdeviceptr D;
  ASSERT_EQ(cuMemAlloc_v2(&D, 16), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD32_v2(D, 0, 4), CUDA_SUCCESS);
  CUstreamBatchMemOpParams Ops[5] = {};
  Ops[0].writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_32;
  Ops[0].writeValue.address = D;
  Ops[0].writeValue.value = 7;
  Ops[1].waitValue.operation = CU_STREAM_MEM_OP_WAIT_VALUE_32;
  Ops[1].waitValue.address = D;
  Ops[1].waitValue.value = 7;
  Ops[1].waitValue.flags = CU_STREAM_WAIT_VALUE_EQ;
  Ops[2].memoryBarrier.operation = CU_STREAM_MEM_OP_BARRIER;
  Ops[2].memoryBarrier.flags = CU_STREAM_MEMORY_BARRIER_TYPE_GPU;
  Ops[3].writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_64;
  Ops[3].writeValue.address = D + 8;
  Ops[3].writeValue.value64 = 0x123456789abcdef0ull;
  Ops[4].flushRemoteWrites.operation = CU_STREAM_MEM_OP_FLUSH_REMOTE_WRITES;
  ASSERT_EQ(cuStreamBatchMemOp_v2(nullptr, 5, Ops, 0), CUDA_SUCCESS);
  uint64_t H[2] = {};
  ASSERT_EQ(cuMemcpyDtoH_v2(H, D, 16), CUDA_SUCCESS);
  EXPECT_EQ(H[0], 7u);
  EXPECT_EQ(H[1], 0x123456789abcdef0ull);
  // A 64-bit wait that holds (GEQ), then the v1 ABI with an unknown operation last: refused, and
  // its first write not done.
  Ops[0].writeValue.value = 9;
  Ops[1].waitValue.operation = CU_STREAM_MEM_OP_WAIT_VALUE_64;
  Ops[1].waitValue.address = D + 8;
  Ops[1].waitValue.value64 = 0x123456789abcdef0ull;
  Ops[1].waitValue.flags = CU_STREAM_WAIT_VALUE_GEQ;
  ASSERT_EQ(cuStreamBatchMemOp_v2(nullptr, 2, Ops, 0), CUDA_SUCCESS);
  Ops[0].writeValue.value = 11;
  Ops[4].operation = CUstreamBatchMemOpType(7);
  EXPECT_EQ(cuStreamBatchMemOp(nullptr, 5, Ops, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuStreamBatchMemOp(nullptr, 1, Ops, 1), CUDA_ERROR_INVALID_VALUE); // flags
  // At most 255 operations ("must be less than 256"): 256 writes are refused, 255 run.
  std::vector<CUstreamBatchMemOpParams> Many(256, Ops[0]);
  EXPECT_EQ(cuStreamBatchMemOp(nullptr, 256, Many.data(), 0), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuMemcpyDtoH_v2(H, D, 16), CUDA_SUCCESS);
  EXPECT_EQ(H[0], 9u);
  ASSERT_EQ(cuStreamBatchMemOp(nullptr, 255, Many.data(), 0), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoH_v2(H, D, 16), CUDA_SUCCESS);
  EXPECT_EQ(H[0], 11u);
  ASSERT_EQ(cuCtxDestroy_v2(Ctx), CUDA_SUCCESS);
}

// Lazy loading's queries: a library's function is unloaded until the library is compiled, by
// cuFuncLoad or by its first launch; cuCtxRecordEvent and cuCtxWaitEvent on a context's event.
TEST_F(LoaderApi, FunctionLoadingAndContextEvents) {
  CUcontext Ctx;
  ASSERT_EQ(cuCtxCreate_v2(&Ctx, 0, 0), CUDA_SUCCESS);
  CUlibrary Lib; // libraries compile when first used (a module's functions, when found)
  ASSERT_EQ(cuLibraryLoadData(&Lib, Ptx, nullptr, nullptr, 0, nullptr, nullptr, 0), CUDA_SUCCESS);
  CUkernel K;
  ASSERT_EQ(cuLibraryGetKernel(&K, Lib, "axpb"), CUDA_SUCCESS);
  CUfunction F;
  ASSERT_EQ(cuKernelGetFunction(&F, K), CUDA_SUCCESS);
  CUfunctionLoadingState State = CU_FUNCTION_LOADING_STATE_MAX;
  ASSERT_EQ(cuFuncIsLoaded(&State, F), CUDA_SUCCESS);
  EXPECT_EQ(State, CU_FUNCTION_LOADING_STATE_UNLOADED);
  ASSERT_EQ(cuFuncLoad(F), CUDA_SUCCESS);
  ASSERT_EQ(cuFuncIsLoaded(&State, F), CUDA_SUCCESS);
  EXPECT_EQ(State, CU_FUNCTION_LOADING_STATE_LOADED);
  EXPECT_EQ(cuFuncIsLoaded(nullptr, F), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuFuncLoad(nullptr), CUDA_ERROR_INVALID_HANDLE);
  CUevent E;
  ASSERT_EQ(cuEventCreate(&E, 0), CUDA_SUCCESS);
  EXPECT_EQ(cuEventQuery(E), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxRecordEvent(Ctx, E), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxWaitEvent(Ctx, E), CUDA_SUCCESS);
  ASSERT_EQ(cuEventSynchronize(E), CUDA_SUCCESS);
  EXPECT_EQ(cuCtxRecordEvent(nullptr, E), CUDA_ERROR_INVALID_CONTEXT);
  EXPECT_EQ(cuCtxRecordEvent(Ctx, nullptr), CUDA_ERROR_INVALID_HANDLE);
  ASSERT_EQ(cuEventDestroy_v2(E), CUDA_SUCCESS);
  ASSERT_EQ(cuLibraryUnload(Lib), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxDestroy_v2(Ctx), CUDA_SUCCESS);
}

} // namespace
