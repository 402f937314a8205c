// JIT linking through the driver API (cuLinkCreate / AddData / AddFile / Complete / Destroy) and
// `__managed__` variables (cuLibraryGetManaged), called directly on libcuda.so.1 on the emulator.
// Hand-written PTX; every expected value is computed on the host.
#include "CudaApi.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

class LinkApi : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    setenv("REPTX_BACKEND", "emulator", 1);
    ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  }
};

// Defines a device function and a variable that the other unit declares .extern
// (PTX ISA §11.6, "Linking Directives").
const char *LibPtx = R"(
.version 8.0
.target sm_80
.address_size 64

.visible .global .align 4 .u32 link_offset = 7;

// scale_add(x, y) = 3 * x + y + link_offset
.visible .func (.param .b32 ret) scale_add(.param .b32 x, .param .b32 y)
{
  .reg .b32 %r<6>;
  ld.param.b32 %r1, [x];
  ld.param.b32 %r2, [y];
  ld.global.u32 %r3, [link_offset];
  mad.lo.s32 %r4, %r1, 3, %r2;
  add.s32 %r5, %r4, %r3;
  st.param.b32 [ret], %r5;
  ret;
}
)";

// out[i] = scale_add(i, i * i) + link_offset
const char *MainPtx = R"(
.version 8.0
.target sm_80
.address_size 64

.extern .func (.param .b32 ret) scale_add(.param .b32 x, .param .b32 y);
.extern .global .align 4 .u32 link_offset;

.visible .entry squares(.param .u64 out, .param .u32 n)
{
  .reg .pred %p;
  .reg .b32 %r<9>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mad.lo.s32 %r2, %r3, %r4, %r2;
  setp.ge.u32 %p, %r2, %r1;
  @%p bra DONE;
  mul.lo.s32 %r5, %r2, %r2;
  {
    .param .b32 a0;
    .param .b32 a1;
    .param .b32 rv;
    st.param.b32 [a0], %r2;
    st.param.b32 [a1], %r5;
    call.uni (rv), scale_add, (a0, a1);
    ld.param.b32 %r6, [rv];
  }
  ld.global.u32 %r7, [link_offset];
  add.s32 %r8, %r6, %r7;
  cvta.to.global.u64 %rd1, %rd1;
  mul.wide.u32 %rd2, %r2, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r8;
DONE:
  ret;
}
)";

uint32_t expectedSquares(uint32_t I, uint32_t Offset) { return 3 * I + I * I + 2 * Offset; }

/// A fatbin container (fatbin-format.md §3-§5) with one uncompressed PTX entry for sm_Arch.
std::vector<uint8_t> ptxFatbin(const std::string &Ptx, uint32_t Arch) {
  std::string Payload = Ptx + std::string(1, '\0');
  Payload.resize((Payload.size() + 7) & ~size_t(7), '\0');
  std::vector<uint8_t> Entry(64, 0);
  auto Put = [](std::vector<uint8_t> &B, size_t Off, auto V) {
    std::memcpy(B.data() + Off, &V, sizeof(V));
  };
  Put(Entry, 0x00, uint16_t(1));      // kind: PTX
  Put(Entry, 0x02, uint16_t(0x0101)); // entry header version
  Put(Entry, 0x04, uint32_t(64));     // header size
  Put(Entry, 0x08, uint64_t(Payload.size()));
  Put(Entry, 0x18, uint16_t(0)); // PTX ISA 8.0
  Put(Entry, 0x1a, uint16_t(8));
  Put(Entry, 0x1c, Arch);
  Put(Entry, 0x28, uint64_t(0x1 | 0x10)); // 64-bit, Linux
  Entry.insert(Entry.end(), Payload.begin(), Payload.end());
  std::vector<uint8_t> C(16, 0);
  Put(C, 0x0, uint32_t(0xBA55ED50)); // container magic
  Put(C, 0x4, uint16_t(1));
  Put(C, 0x6, uint16_t(16));
  Put(C, 0x8, uint64_t(Entry.size()));
  C.insert(C.end(), Entry.begin(), Entry.end());
  return C;
}

/// Log buffers and wall time, given to cuLinkCreate.
struct LinkLogs {
  char Info[4096] = {};
  char Error[4096] = {};
  CUjit_option Options[5] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                             CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                             CU_JIT_WALL_TIME};
  void *Values[5] = {Info, reinterpret_cast<void *>(uintptr_t(sizeof(Info))), Error,
                     reinterpret_cast<void *>(uintptr_t(sizeof(Error))), nullptr};
  size_t infoFilled() const { return reinterpret_cast<uintptr_t>(Values[1]); }
  size_t errorFilled() const { return reinterpret_cast<uintptr_t>(Values[3]); }
  float wallTime() const {
    float F;
    std::memcpy(&F, &Values[4], sizeof(F));
    return F;
  }
};

CUresult addPtx(CUlinkState S, const char *Ptx, const char *Name) {
  return cuLinkAddData_v2(S, CU_JIT_INPUT_PTX, const_cast<char *>(Ptx), std::strlen(Ptx) + 1, Name,
                          0, nullptr, nullptr);
}

/// Loads the linked image, sets link_offset, runs squares over N elements, returns the output.
std::vector<uint32_t> runSquares(CUmodule M, uint32_t N, uint32_t Offset) {
  CUdeviceptr Var;
  size_t VarSize = 0;
  CUfunction F;
  if (cuModuleGetGlobal_v2(&Var, &VarSize, M, "link_offset") != CUDA_SUCCESS || VarSize != 4 ||
      cuMemcpyHtoD_v2(Var, &Offset, 4) != CUDA_SUCCESS ||
      cuModuleGetFunction(&F, M, "squares") != CUDA_SUCCESS) {
    ADD_FAILURE() << "link_offset or squares not found in the linked module";
    return {};
  }
  CUdeviceptr Out;
  EXPECT_EQ(cuMemAlloc_v2(&Out, N * 4), CUDA_SUCCESS);
  uint64_t OutArg = Out;
  void *Params[] = {&OutArg, &N};
  EXPECT_EQ(cuLaunchKernel(F, (N + 63) / 64, 1, 1, 64, 1, 1, 0, nullptr, Params, nullptr),
            CUDA_SUCCESS);
  EXPECT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  std::vector<uint32_t> H(N);
  EXPECT_EQ(cuMemcpyDtoH_v2(H.data(), Out, N * 4), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFree_v2(Out), CUDA_SUCCESS);
  return H;
}

TEST_F(LinkApi, LinksTwoPtxUnitsIntoALoadableImage) {
  CUcontext Ctx;
  ASSERT_EQ(cuCtxCreate_v2(&Ctx, 0, 0), CUDA_SUCCESS);
  LinkLogs Logs;
  CUlinkState S = nullptr;
  ASSERT_EQ(cuLinkCreate_v2(5, Logs.Options, Logs.Values, &S), CUDA_SUCCESS);
  ASSERT_NE(S, nullptr);
  EXPECT_EQ(Logs.infoFilled(), 0u);
  // main first: its .extern references are resolved by the unit added after it.
  ASSERT_EQ(addPtx(S, MainPtx, "main.ptx"), CUDA_SUCCESS) << Logs.Error;
  ASSERT_EQ(addPtx(S, LibPtx, "lib.ptx"), CUDA_SUCCESS) << Logs.Error;
  void *Image = nullptr;
  size_t Size = 0;
  ASSERT_EQ(cuLinkComplete(S, &Image, &Size), CUDA_SUCCESS) << Logs.Error;
  ASSERT_NE(Image, nullptr);
  const char *Text = static_cast<const char *>(Image);
  EXPECT_EQ(Size, std::strlen(Text) + 1); // NUL-terminated PTX
  EXPECT_NE(std::string(Text).find(".entry squares"), std::string::npos);
  EXPECT_NE(std::string(Text).find("scale_add(.param .b32 x"), std::string::npos);
  EXPECT_STREQ(Logs.Error, "");
  EXPECT_EQ(Logs.errorFilled(), 0u);
  std::string Info = Logs.Info;
  EXPECT_NE(Info.find("info    : linked 2 PTX input(s) (main.ptx, lib.ptx)"), std::string::npos)
      << Info;
  EXPECT_EQ(Logs.infoFilled(), Info.size() + 1);
  EXPECT_GT(Logs.wallTime(), 0.0f);
  // cuLinkComplete again gives the same image.
  void *Again = nullptr;
  ASSERT_EQ(cuLinkComplete(S, &Again, &Size), CUDA_SUCCESS);
  EXPECT_EQ(Again, Image);

  // The image loads as a module and as a library; the kernel calls across the units.
  const uint32_t N = 200;
  CUmodule M;
  ASSERT_EQ(cuModuleLoadData(&M, Image), CUDA_SUCCESS);
  std::vector<uint32_t> H = runSquares(M, N, 7);
  ASSERT_EQ(H.size(), N);
  for (uint32_t I = 0; I < N; ++I)
    ASSERT_EQ(H[I], expectedSquares(I, 7)) << I;
  H = runSquares(M, N, 1000); // both units read the one link_offset
  ASSERT_EQ(H.size(), N);
  for (uint32_t I = 0; I < N; ++I)
    ASSERT_EQ(H[I], expectedSquares(I, 1000)) << I;
  ASSERT_EQ(cuModuleUnload(M), CUDA_SUCCESS);
  CUlibrary Lib;
  ASSERT_EQ(cuLibraryLoadData(&Lib, Image, nullptr, nullptr, 0, nullptr, nullptr, 0), CUDA_SUCCESS);
  CUkernel K;
  ASSERT_EQ(cuLibraryGetKernel(&K, Lib, "squares"), CUDA_SUCCESS);
  ASSERT_EQ(cuLibraryUnload(Lib), CUDA_SUCCESS);
  ASSERT_EQ(cuLinkDestroy(S), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxDestroy_v2(Ctx), CUDA_SUCCESS);
}

TEST_F(LinkApi, LinksAFileAndTheFatbinPtxEntry) {
  CUcontext Ctx;
  ASSERT_EQ(cuCtxCreate_v2(&Ctx, 0, 0), CUDA_SUCCESS);
  // lib.ptx from a file (cuLinkAddFile, the CUDA 5.5 ABI), main.ptx inside a fatbin.
  char Path[] = "/tmp/reptx-link-test-XXXXXX";
  int Fd = mkstemp(Path);
  ASSERT_GE(Fd, 0);
  ASSERT_EQ(write(Fd, LibPtx, std::strlen(LibPtx)), ssize_t(std::strlen(LibPtx)));
  close(Fd);
  std::vector<uint8_t> Fatbin = ptxFatbin(MainPtx, 80);
  CUlinkState S;
  ASSERT_EQ(cuLinkCreate(0, nullptr, nullptr, &S), CUDA_SUCCESS);
  ASSERT_EQ(cuLinkAddData(S, CU_JIT_INPUT_FATBINARY, Fatbin.data(), Fatbin.size(), "main.fatbin", 0,
                          nullptr, nullptr),
            CUDA_SUCCESS);
  ASSERT_EQ(cuLinkAddFile(S, CU_JIT_INPUT_PTX, Path, 0, nullptr, nullptr), CUDA_SUCCESS);
  unlink(Path);
  void *Image;
  size_t Size;
  ASSERT_EQ(cuLinkComplete(S, &Image, &Size), CUDA_SUCCESS);
  CUmodule M;
  ASSERT_EQ(cuModuleLoadData(&M, Image), CUDA_SUCCESS);
  const uint32_t N = 70;
  std::vector<uint32_t> H = runSquares(M, N, 3);
  ASSERT_EQ(H.size(), N);
  for (uint32_t I = 0; I < N; ++I)
    ASSERT_EQ(H[I], expectedSquares(I, 3)) << I;
  ASSERT_EQ(cuModuleUnload(M), CUDA_SUCCESS);
  ASSERT_EQ(cuLinkDestroy(S), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxDestroy_v2(Ctx), CUDA_SUCCESS);
}

// A table of device-function addresses defined by one unit and declared by the other as an
// unsized byte array, the way NCCL's units see `ncclDevFuncTable`, with the defining unit first:
// the declaration must take the definition's type and size. out[i] = op[i % 3](i, 5) through an
// indirect call. The second unit also declares what no unit defines and the link must accept, as
// NCCL's do: `.extern .shared` dynamic shared memory and the `__assertfail` system call.
const char *TablePtx = R"(
.version 8.0
.target sm_80
.address_size 64

.visible .func (.param .b32 r) op_add(.param .b32 x, .param .b32 y)
{
  .reg .b32 %r<4>;
  ld.param.b32 %r1, [x];
  ld.param.b32 %r2, [y];
  add.s32 %r3, %r1, %r2;
  st.param.b32 [r], %r3;
  ret;
}
.visible .func (.param .b32 r) op_mul(.param .b32 x, .param .b32 y)
{
  .reg .b32 %r<4>;
  ld.param.b32 %r1, [x];
  ld.param.b32 %r2, [y];
  mul.lo.s32 %r3, %r1, %r2;
  st.param.b32 [r], %r3;
  ret;
}
.visible .func (.param .b32 r) op_sub(.param .b32 x, .param .b32 y)
{
  .reg .b32 %r<4>;
  ld.param.b32 %r1, [x];
  ld.param.b32 %r2, [y];
  sub.s32 %r3, %r1, %r2;
  st.param.b32 [r], %r3;
  ret;
}
.visible .global .align 8 .u64 op_table[3] = {op_add, op_mul, op_sub};
)";

const char *DispatchPtx = R"(
.version 8.0
.target sm_80
.address_size 64

.extern .global .align 8 .b8 op_table[];
.extern .shared .align 16 .b8 staging[];
.extern .func __assertfail(.param .b64 message, .param .b64 file, .param .b32 line,
                           .param .b64 function, .param .b64 char_size);

.visible .entry dispatch(.param .u64 out, .param .u32 n)
{
  .reg .pred %p;
  .reg .b32 %r<10>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mad.lo.s32 %r2, %r3, %r4, %r2;
  setp.ge.u32 %p, %r2, %r1;
  @%p bra DONE;
  rem.u32 %r5, %r2, 3;
  mov.u64 %rd2, op_table;
  mul.wide.u32 %rd3, %r5, 8;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.u64 %rd5, [%rd4];
  {
    .param .b32 a0;
    .param .b32 a1;
    .param .b32 rv;
    st.param.b32 [a0], %r2;
    st.param.b32 [a1], 5;
    proto: .callprototype (.param .b32 _) _ (.param .b32 _, .param .b32 _);
    call (rv), %rd5, (a0, a1), proto;
    ld.param.b32 %r6, [rv];
  }
  // Through its slot of dynamic shared memory.
  mov.u32 %r7, staging;
  mov.u32 %r8, %tid.x;
  shl.b32 %r8, %r8, 2;
  add.s32 %r7, %r7, %r8;
  st.shared.u32 [%r7], %r6;
  ld.shared.u32 %r9, [%r7];
  setp.ne.s32 %p, %r9, %r6;
  @%p bra FAIL;
  cvta.to.global.u64 %rd1, %rd1;
  mul.wide.u32 %rd6, %r2, 4;
  add.s64 %rd7, %rd1, %rd6;
  st.global.u32 [%rd7], %r6;
DONE:
  ret;
FAIL:
  {
    .param .b64 m;
    .param .b64 f;
    .param .b32 l;
    .param .b64 fn;
    .param .b64 cs;
    st.param.b64 [m], 0;
    st.param.b64 [f], 0;
    st.param.b32 [l], 0;
    st.param.b64 [fn], 0;
    st.param.b64 [cs], 1;
    call.uni __assertfail, (m, f, l, fn, cs);
  }
  ret;
}
)";

TEST_F(LinkApi, UnsizedExternArrayIsTheOtherUnitsTable) {
  CUcontext Ctx;
  ASSERT_EQ(cuCtxCreate_v2(&Ctx, 0, 0), CUDA_SUCCESS);
  LinkLogs Logs;
  CUlinkState S;
  ASSERT_EQ(cuLinkCreate_v2(5, Logs.Options, Logs.Values, &S), CUDA_SUCCESS);
  ASSERT_EQ(addPtx(S, TablePtx, "table.ptx"), CUDA_SUCCESS) << Logs.Error;
  ASSERT_EQ(addPtx(S, DispatchPtx, "dispatch.ptx"), CUDA_SUCCESS) << Logs.Error;
  void *Image = nullptr;
  size_t Size = 0;
  ASSERT_EQ(cuLinkComplete(S, &Image, &Size), CUDA_SUCCESS) << Logs.Error;
  CUmodule M;
  ASSERT_EQ(cuModuleLoadData(&M, Image), CUDA_SUCCESS);
  CUdeviceptr Table;
  size_t TableSize = 0;
  ASSERT_EQ(cuModuleGetGlobal_v2(&Table, &TableSize, M, "op_table"), CUDA_SUCCESS);
  EXPECT_EQ(TableSize, 24u); // the definition's three addresses
  CUfunction F;
  ASSERT_EQ(cuModuleGetFunction(&F, M, "dispatch"), CUDA_SUCCESS);
  const uint32_t N = 100;
  CUdeviceptr Out;
  ASSERT_EQ(cuMemAlloc_v2(&Out, N * 4), CUDA_SUCCESS);
  uint64_t OutArg = Out;
  uint32_t NArg = N;
  void *Params[] = {&OutArg, &NArg};
  ASSERT_EQ(cuLaunchKernel(F, 2, 1, 1, 64, 1, 1, 64 * 4, nullptr, Params, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  std::vector<int32_t> H(N);
  ASSERT_EQ(cuMemcpyDtoH_v2(H.data(), Out, N * 4), CUDA_SUCCESS);
  for (int32_t I = 0; I < int32_t(N); ++I)
    ASSERT_EQ(H[I], I % 3 == 0 ? I + 5 : I % 3 == 1 ? I * 5 : I - 5) << I;
  ASSERT_EQ(cuMemFree_v2(Out), CUDA_SUCCESS);
  ASSERT_EQ(cuModuleUnload(M), CUDA_SUCCESS);
  ASSERT_EQ(cuLinkDestroy(S), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxDestroy_v2(Ctx), CUDA_SUCCESS);
}

// One entry of a function table did not lift (getctarank: clusters are not supported): the
// kernel that dispatches through the table still compiles; the good entry runs, and calling the
// bad one prints why (device printf) and fails the launch.
const char *PartialTablePtx = R"(
.version 8.0
.target sm_90
.address_size 64

.func (.param .b32 r) good(.param .b32 x)
{
  .reg .b32 %r<3>;
  ld.param.b32 %r1, [x];
  mul.lo.s32 %r2, %r1, 7;
  st.param.b32 [r], %r2;
  ret;
}
.func (.param .b32 r) bad(.param .b32 x)
{
  .reg .b32 %r<3>;
  ld.param.b32 %r1, [x];
  getctarank.shared::cluster.u32 %r2, %r1;
  st.param.b32 [r], %r2;
  ret;
}
.global .align 8 .u64 ops[2] = {good, bad};

.visible .entry dispatch(.param .u64 out, .param .u32 sel)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [sel];
  mov.u64 %rd2, ops;
  mul.wide.u32 %rd3, %r1, 8;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.u64 %rd5, [%rd4];
  mov.u32 %r2, %tid.x;
  {
    .param .b32 a0;
    .param .b32 rv;
    st.param.b32 [a0], %r2;
    proto: .callprototype (.param .b32 _) _ (.param .b32 _);
    call (rv), %rd5, (a0), proto;
    ld.param.b32 %r3, [rv];
  }
  cvta.to.global.u64 %rd1, %rd1;
  mul.wide.u32 %rd3, %r2, 4;
  add.s64 %rd4, %rd1, %rd3;
  st.global.u32 [%rd4], %r3;
  ret;
}
)";

TEST_F(LinkApi, FunctionThatDidNotLiftTrapsWhenCalledThroughATable) {
  CUcontext Ctx;
  ASSERT_EQ(cuCtxCreate_v2(&Ctx, 0, 0), CUDA_SUCCESS);
  CUmodule M;
  ASSERT_EQ(cuModuleLoadData(&M, PartialTablePtx), CUDA_SUCCESS);
  CUfunction F;
  ASSERT_EQ(cuModuleGetFunction(&F, M, "dispatch"), CUDA_SUCCESS);
  CUdeviceptr Out;
  ASSERT_EQ(cuMemAlloc_v2(&Out, 64 * 4), CUDA_SUCCESS);
  uint64_t OutArg = Out;
  uint32_t Sel = 0;
  void *Params[] = {&OutArg, &Sel};
  ASSERT_EQ(cuLaunchKernel(F, 1, 1, 1, 64, 1, 1, 0, nullptr, Params, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  std::vector<int32_t> H(64);
  ASSERT_EQ(cuMemcpyDtoH_v2(H.data(), Out, 64 * 4), CUDA_SUCCESS);
  for (int32_t I = 0; I < 64; ++I)
    ASSERT_EQ(H[I], 7 * I) << I;
  Sel = 1;
  testing::internal::CaptureStdout();
  CUresult Launch = cuLaunchKernel(F, 1, 1, 1, 64, 1, 1, 0, nullptr, Params, nullptr);
  CUresult Sync = cuCtxSynchronize();
  std::string Printed = testing::internal::GetCapturedStdout();
  EXPECT_EQ(Launch, CUDA_SUCCESS);
  EXPECT_NE(Sync, CUDA_SUCCESS);
  EXPECT_NE(Printed.find("reptx: function 'bad', called through its address, was not "
                         "recompiled: "),
            std::string::npos)
      << Printed;
  EXPECT_NE(Printed.find("getctarank.shared::cluster.u32 %r2, %r1;"), std::string::npos) << Printed;
  // The context's error is sticky. Destroying it unloads the module loaded in it (as CUDA
  // destroys a context's resources; LeakSanitizer in CI would report the module otherwise).
  cuMemFree_v2(Out);
  EXPECT_EQ(cuCtxDestroy_v2(Ctx), CUDA_SUCCESS);
}

TEST_F(LinkApi, UnresolvedExternIsALinkError) {
  LinkLogs Logs;
  CUlinkState S;
  ASSERT_EQ(cuLinkCreate_v2(5, Logs.Options, Logs.Values, &S), CUDA_SUCCESS);
  ASSERT_EQ(addPtx(S, MainPtx, "main.ptx"), CUDA_SUCCESS);
  void *Image = nullptr;
  size_t Size = 0;
  EXPECT_EQ(cuLinkComplete(S, &Image, &Size), CUDA_ERROR_INVALID_PTX);
  EXPECT_EQ(Image, nullptr);
  EXPECT_STREQ(Logs.Error, "error   : undefined reference to 'link_offset' in 'main.ptx'\n"
                           "error   : undefined reference to 'scale_add' in 'main.ptx'\n");
  EXPECT_EQ(Logs.errorFilled(), std::strlen(Logs.Error) + 1);
  // The missing unit can still be added.
  ASSERT_EQ(addPtx(S, LibPtx, "lib.ptx"), CUDA_SUCCESS);
  EXPECT_EQ(cuLinkComplete(S, &Image, &Size), CUDA_SUCCESS);
  EXPECT_EQ(cuLinkDestroy(S), CUDA_SUCCESS);
}

TEST_F(LinkApi, RefusesSassAndBadInputs) {
  LinkLogs Logs;
  CUlinkState S;
  ASSERT_EQ(cuLinkCreate_v2(5, Logs.Options, Logs.Values, &S), CUDA_SUCCESS);
  // A cubin (an ELF file: SASS) cannot be recompiled.
  char Elf[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
  EXPECT_EQ(cuLinkAddData_v2(S, CU_JIT_INPUT_CUBIN, Elf, sizeof(Elf), "kernels.cubin", 0, nullptr,
                             nullptr),
            CUDA_ERROR_INVALID_IMAGE);
  EXPECT_STREQ(Logs.Error,
               "error   : kernels.cubin: CU_JIT_INPUT_CUBIN inputs cannot be linked by reptx (it "
               "recompiles PTX only; SASS and NVVM IR cannot run on this device): add the PTX "
               "(CU_JIT_INPUT_PTX) or a fatbin with PTX instead\n");
  EXPECT_EQ(
      cuLinkAddData_v2(S, CU_JIT_INPUT_LIBRARY, Elf, sizeof(Elf), "libdev.a", 0, nullptr, nullptr),
      CUDA_ERROR_INVALID_IMAGE);
  EXPECT_NE(std::string(Logs.Error).find("libdev.a: CU_JIT_INPUT_LIBRARY inputs cannot be linked"),
            std::string::npos);
  // PTX that does not parse: the parser's message, with the input's name.
  EXPECT_EQ(addPtx(S, ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k( {\n",
                   "broken.ptx"),
            CUDA_ERROR_INVALID_PTX);
  EXPECT_NE(std::string(Logs.Error).find("error   : broken.ptx:"), std::string::npos) << Logs.Error;
  // Not a fatbin; an unknown input type; no data.
  EXPECT_EQ(cuLinkAddData_v2(S, CU_JIT_INPUT_FATBINARY, const_cast<char *>(LibPtx),
                             std::strlen(LibPtx), "lib.fatbin", 0, nullptr, nullptr),
            CUDA_ERROR_INVALID_IMAGE);
  EXPECT_NE(std::string(Logs.Error).find("error   : lib.fatbin: not a fatbin"), std::string::npos);
  EXPECT_EQ(cuLinkAddData_v2(S, CUjitInputType(42), Elf, sizeof(Elf), "x", 0, nullptr, nullptr),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuLinkAddData_v2(S, CU_JIT_INPUT_PTX, nullptr, 10, "x", 0, nullptr, nullptr),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuLinkAddFile_v2(S, CU_JIT_INPUT_PTX, "/nonexistent/a.ptx", 0, nullptr, nullptr),
            CUDA_ERROR_FILE_NOT_FOUND);
  // Nothing was added.
  void *Image;
  size_t Size;
  EXPECT_EQ(cuLinkComplete(S, &Image, &Size), CUDA_ERROR_INVALID_VALUE);
  EXPECT_NE(std::string(Logs.Error).find("error   : cuLinkComplete: nothing to link"),
            std::string::npos);
  EXPECT_EQ(Logs.errorFilled(), std::strlen(Logs.Error) + 1);
  ASSERT_EQ(cuLinkDestroy(S), CUDA_SUCCESS);
}

TEST_F(LinkApi, BadHandlesAndArguments) {
  CUlinkState S;
  EXPECT_EQ(cuLinkCreate_v2(0, nullptr, nullptr, nullptr), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuLinkCreate_v2(2, nullptr, nullptr, &S), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(addPtx(nullptr, LibPtx, "lib.ptx"), CUDA_ERROR_INVALID_HANDLE);
  int NotALink = 0;
  EXPECT_EQ(addPtx(reinterpret_cast<CUlinkState>(&NotALink), LibPtx, "lib.ptx"),
            CUDA_ERROR_INVALID_HANDLE);
  ASSERT_EQ(cuLinkCreate_v2(0, nullptr, nullptr, &S), CUDA_SUCCESS);
  ASSERT_EQ(addPtx(S, LibPtx, "lib.ptx"), CUDA_SUCCESS);
  void *Image;
  size_t Size;
  EXPECT_EQ(cuLinkComplete(S, nullptr, &Size), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuLinkComplete(S, &Image, &Size), CUDA_SUCCESS);
  // One unit: the image is its text.
  EXPECT_STREQ(static_cast<const char *>(Image), LibPtx);
  EXPECT_EQ(addPtx(S, MainPtx, "late.ptx"), CUDA_ERROR_INVALID_VALUE); // already completed
  ASSERT_EQ(cuLinkDestroy(S), CUDA_SUCCESS);
  // A destroyed state is no longer a handle.
  EXPECT_EQ(cuLinkDestroy(S), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuLinkComplete(S, &Image, &Size), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuLinkAddFile_v2(S, CU_JIT_INPUT_PTX, "/nonexistent/a.ptx", 0, nullptr, nullptr),
            CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuLinkDestroy(nullptr), CUDA_ERROR_INVALID_HANDLE);
}

TEST_F(LinkApi, ErrorLogIsCappedAtItsSize) {
  char Small[16];
  std::memset(Small, 'x', sizeof(Small));
  CUjit_option Options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_OPTIMIZATION_LEVEL, CU_JIT_TARGET};
  void *Values[] = {Small, reinterpret_cast<void *>(uintptr_t(sizeof(Small))),
                    reinterpret_cast<void *>(uintptr_t(4)),
                    reinterpret_cast<void *>(uintptr_t(86))};
  CUlinkState S;
  ASSERT_EQ(cuLinkCreate_v2(4, Options, Values, &S), CUDA_SUCCESS);
  EXPECT_EQ(Small[0], '\0');
  void *Image;
  size_t Size;
  EXPECT_EQ(cuLinkComplete(S, &Image, &Size), CUDA_ERROR_INVALID_VALUE);
  EXPECT_STREQ(Small, "error   : cuLin"); // 15 characters and the terminator
  EXPECT_EQ(reinterpret_cast<uintptr_t>(Values[1]), 16u);
  ASSERT_EQ(cuLinkDestroy(S), CUDA_SUCCESS);
}

// nvcc 13 emits `__managed__ int counters[4] = {1, 2, 3, 4};` as below (PTX ISA §5.4.8,
// "Variable Attribute Directive: .attribute").
const char *ManagedPtx = R"(
.version 8.0
.target sm_80
.address_size 64

.global .attribute(.managed) .align 4 .b8 counters[16] = {1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4};
.visible .global .align 4 .u32 plain = 5;

// counters[tid] = counters[tid] * k + tid
.visible .entry bump(.param .u32 k)
{
  .reg .b32 %r<5>;
  .reg .b64 %rd<4>;
  ld.param.u32 %r1, [k];
  mov.u32 %r2, %tid.x;
  mul.wide.u32 %rd1, %r2, 4;
  mov.u64 %rd2, counters;
  add.s64 %rd3, %rd2, %rd1;
  ld.global.u32 %r3, [%rd3];
  mad.lo.s32 %r4, %r3, %r1, %r2;
  st.global.u32 [%rd3], %r4;
  ret;
}
)";

TEST_F(LinkApi, ManagedVariableIsSharedWithTheHost) {
  // cudart asks for the address when it loads the library, before a context is current.
  CUlibrary Lib;
  ASSERT_EQ(cuLibraryLoadData(&Lib, ManagedPtx, nullptr, nullptr, 0, nullptr, nullptr, 0),
            CUDA_SUCCESS);
  CUdeviceptr Ptr = 0;
  size_t Bytes = 0;
  ASSERT_EQ(cuLibraryGetManaged(&Ptr, &Bytes, Lib, "counters"), CUDA_SUCCESS);
  EXPECT_EQ(Bytes, 16u);
  CUdeviceptr Global = 0;
  ASSERT_EQ(cuLibraryGetGlobal(&Global, nullptr, Lib, "counters"), CUDA_SUCCESS);
  EXPECT_EQ(Global, Ptr);
  EXPECT_EQ(cuLibraryGetManaged(&Global, &Bytes, Lib, "plain"), CUDA_ERROR_NOT_FOUND);
  EXPECT_EQ(cuLibraryGetManaged(&Global, &Bytes, Lib, "missing"), CUDA_ERROR_NOT_FOUND);
  EXPECT_EQ(cuLibraryGetManaged(&Global, &Bytes, nullptr, "counters"), CUDA_ERROR_INVALID_VALUE);
  // Host code dereferences the address: the initializer is there, and host stores reach kernels.
  auto *Host = reinterpret_cast<int32_t *>(Ptr);
  std::vector<int32_t> Expected = {1, 2, 3, 4};
  for (int I = 0; I < 4; ++I)
    EXPECT_EQ(Host[I], Expected[I]) << I;
  for (int I = 0; I < 4; ++I)
    Host[I] = Expected[I] = 10 * (I + 1);
  CUcontext Ctx;
  ASSERT_EQ(cuCtxCreate_v2(&Ctx, 0, 0), CUDA_SUCCESS);
  CUkernel K;
  ASSERT_EQ(cuLibraryGetKernel(&K, Lib, "bump"), CUDA_SUCCESS);
  for (int32_t Factor : {3, -2}) {
    void *Params[] = {&Factor};
    ASSERT_EQ(cuLaunchKernel(reinterpret_cast<CUfunction>(K), 1, 1, 1, 4, 1, 1, 0, nullptr, Params,
                             nullptr),
              CUDA_SUCCESS);
    ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
    for (int I = 0; I < 4; ++I)
      Expected[I] = Expected[I] * Factor + I;
    for (int I = 0; I < 4; ++I)
      EXPECT_EQ(Host[I], Expected[I]) << I;
  }
  int32_t Copy[4];
  ASSERT_EQ(cuMemcpyDtoH_v2(Copy, Ptr, sizeof(Copy)), CUDA_SUCCESS);
  for (int I = 0; I < 4; ++I)
    EXPECT_EQ(Copy[I], Expected[I]) << I;
  ASSERT_EQ(cuLibraryUnload(Lib), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxDestroy_v2(Ctx), CUDA_SUCCESS);
}

} // namespace
