// Texture and surface references (PTX .texref/.surfref variables; cuModuleGetTexRef, cuTexRefSet*,
// cuModuleGetSurfRef, cuSurfRefSetArray), which programs built before CUDA 12 use through
// cudaBindTexture and texture<>: hand-written PTX in unified texture mode, called directly on
// libcuda.so.1 on the emulator. Every expected value is computed on the host: tex1Dfetch reads
// element i as stored; linear filtering at texel centres reads the texel and halfway between two
// texels (weight 128/256) their mean; a surface store writes the bytes.
#include "CudaApi.h"
#include "PrimaryContextTest.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

class TexRefApi : public reptx::loader::test::PrimaryContextTest {};

// fetch: out[i] = tex1Dfetch(lin, i).x (an int texture read as elements);
// sample: out[i] = tex2D(img, x[i], y[i]).x;
// store: surf2Dwrite(i * 3 + 1, surf, (i % 4) * 4, i / 4).
// `unused` is declared and never read by a kernel.
const char *Ptx = R"(
.version 6.0
.target sm_60
.address_size 64

.global .texref lin;
.global .texref img;
.global .texref unused;
.global .surfref surf;

.visible .entry fetch(.param .u64 out, .param .u32 n)
{
  .reg .pred %p;
  .reg .b32 %r<12>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  setp.ge.u32 %p, %r2, %r1;
  @%p bra DONE;
  tex.1d.v4.s32.s32 {%r3, %r4, %r5, %r6}, [lin, {%r2}];
  cvta.to.global.u64 %rd1, %rd1;
  mul.wide.u32 %rd2, %r2, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
DONE:
  ret;
}

.visible .entry sample(.param .u64 xy, .param .u64 out, .param .u32 n)
{
  .reg .pred %p;
  .reg .b32 %r<4>;
  .reg .f32 %f<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [xy];
  ld.param.u64 %rd2, [out];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  setp.ge.u32 %p, %r2, %r1;
  @%p bra DONE;
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mul.wide.u32 %rd3, %r2, 8;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.v2.f32 {%f1, %f2}, [%rd4];
  tex.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [img, {%f1, %f2}];
  mul.wide.u32 %rd5, %r2, 4;
  add.s64 %rd6, %rd2, %rd5;
  st.global.f32 [%rd6], %f3;
DONE:
  ret;
}

.visible .entry store(.param .u32 n)
{
  .reg .pred %p;
  .reg .b32 %r<8>;
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %tid.x;
  setp.ge.u32 %p, %r2, %r1;
  @%p bra DONE;
  and.b32 %r3, %r2, 3;
  shl.b32 %r3, %r3, 2;
  shr.u32 %r4, %r2, 2;
  mad.lo.s32 %r5, %r2, 3, 1;
  sust.b.2d.b32.trap [surf, {%r3, %r4}], {%r5};
DONE:
  ret;
}
)";

CUfunction kernel(CUmodule M, const char *Name) {
  CUfunction F = nullptr;
  EXPECT_EQ(cuModuleGetFunction(&F, M, Name), CUDA_SUCCESS) << Name;
  return F;
}

void launch(CUfunction F, unsigned Threads, void **Params) {
  ASSERT_EQ(cuLaunchKernel(F, 1, 1, 1, Threads, 1, 1, 0, nullptr, Params, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
}

TEST_F(TexRefApi, ReferencesReadWhatTheirSettingsBind) {
  CUmodule M;
  ASSERT_EQ(cuModuleLoadData(&M, Ptx), CUDA_SUCCESS);
  CUtexref Lin = nullptr, Img = nullptr, Unused = nullptr, Again = nullptr;
  ASSERT_EQ(cuModuleGetTexRef(&Lin, M, "lin"), CUDA_SUCCESS);
  ASSERT_EQ(cuModuleGetTexRef(&Img, M, "img"), CUDA_SUCCESS);
  ASSERT_EQ(cuModuleGetTexRef(&Unused, M, "unused"), CUDA_SUCCESS);
  ASSERT_EQ(cuModuleGetTexRef(&Again, M, "lin"), CUDA_SUCCESS);
  EXPECT_EQ(Again, Lin); // one reference per variable
  CUtexref None;
  EXPECT_EQ(cuModuleGetTexRef(&None, M, "surf"), CUDA_ERROR_NOT_FOUND); // a .surfref
  EXPECT_EQ(cuModuleGetTexRef(&None, M, "nothing"), CUDA_ERROR_NOT_FOUND);

  // tex1Dfetch on linear memory bound with cuTexRefSetAddress (cudaBindTexture): before binding
  // the fetch reads zeros (reptx's choice), after it the elements.
  const unsigned N = 100;
  std::vector<int32_t> Data(N);
  for (unsigned I = 0; I < N; ++I)
    Data[I] = int32_t(I * 2654435761u);
  CUdeviceptr D, Out;
  ASSERT_EQ(cuMemAlloc_v2(&D, N * 4), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAlloc_v2(&Out, N * 4), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyHtoD_v2(D, Data.data(), N * 4), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD8_v2(Out, 0xAB, N * 4), CUDA_SUCCESS);
  uint64_t OutArg = Out;
  unsigned Count = N;
  void *FetchArgs[] = {&OutArg, &Count};
  launch(kernel(M, "fetch"), N, FetchArgs);
  std::vector<int32_t> H(N, -1);
  ASSERT_EQ(cuMemcpyDtoH_v2(H.data(), Out, N * 4), CUDA_SUCCESS);
  for (unsigned I = 0; I < N; ++I)
    ASSERT_EQ(H[I], 0) << I;
  ASSERT_EQ(cuTexRefSetFormat(Lin, CU_AD_FORMAT_SIGNED_INT32, 1), CUDA_SUCCESS);
  ASSERT_EQ(cuTexRefSetFlags(Lin, CU_TRSF_READ_AS_INTEGER), CUDA_SUCCESS);
  size_t Offset = 1;
  ASSERT_EQ(cuTexRefSetAddress_v2(&Offset, Lin, D, N * 4), CUDA_SUCCESS);
  EXPECT_EQ(Offset, 0u);
  launch(kernel(M, "fetch"), N, FetchArgs);
  ASSERT_EQ(cuMemcpyDtoH_v2(H.data(), Out, N * 4), CUDA_SUCCESS);
  for (unsigned I = 0; I < N; ++I)
    ASSERT_EQ(H[I], Data[I]) << I;
  CUdeviceptr Back = 0;
  EXPECT_EQ(cuTexRefGetAddress_v2(&Back, Lin), CUDA_SUCCESS);
  EXPECT_EQ(Back, D);
  CUarray_format Format;
  int Channels = 0;
  EXPECT_EQ(cuTexRefGetFormat(&Format, &Channels, Lin), CUDA_SUCCESS);
  EXPECT_EQ(Format, CU_AD_FORMAT_SIGNED_INT32);
  EXPECT_EQ(Channels, 1);

  // tex2D on a 4 x 3 float array, filtered linearly with clamping.
  const float Texels[12] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048};
  CUDA_ARRAY_DESCRIPTOR AD{4, 3, CU_AD_FORMAT_FLOAT, 1};
  CUarray A;
  ASSERT_EQ(cuArrayCreate_v2(&A, &AD), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyHtoA_v2(A, 0, Texels, sizeof(Texels)), CUDA_SUCCESS);
  EXPECT_EQ(cuTexRefSetArray(Img, A, 0), CUDA_ERROR_INVALID_VALUE); // the flag is required
  ASSERT_EQ(cuTexRefSetArray(Img, A, CU_TRSA_OVERRIDE_FORMAT), CUDA_SUCCESS);
  ASSERT_EQ(cuTexRefSetFilterMode(Img, CU_TR_FILTER_MODE_LINEAR), CUDA_SUCCESS);
  for (int Dim = 0; Dim < 2; ++Dim)
    ASSERT_EQ(cuTexRefSetAddressMode(Img, Dim, CU_TR_ADDRESS_MODE_CLAMP), CUDA_SUCCESS);
  ASSERT_EQ(cuTexRefSetFlags(Img, 0), CUDA_SUCCESS);
  // (x, y) and the expected value: texel centres, halfway between neighbours, and clamped edges.
  struct Point {
    float X, Y, Want;
  };
  const Point Points[] = {{0.5f, 0.5f, 1},
                          {3.5f, 2.5f, 2048},
                          {1.0f, 0.5f, 1.5f},
                          {2.5f, 1.0f, (4 + 64) / 2.0f},
                          {-5.0f, -5.0f, 1},
                          {9.0f, 9.0f, 2048},
                          {2.0f, 2.0f, (32 + 64 + 512 + 1024) / 4.0f}};
  const unsigned P = sizeof(Points) / sizeof(Points[0]);
  std::vector<float> XY;
  for (const Point &Q : Points) {
    XY.push_back(Q.X);
    XY.push_back(Q.Y);
  }
  CUdeviceptr DXY;
  ASSERT_EQ(cuMemAlloc_v2(&DXY, XY.size() * 4), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyHtoD_v2(DXY, XY.data(), XY.size() * 4), CUDA_SUCCESS);
  uint64_t XYArg = DXY;
  unsigned PCount = P;
  void *SampleArgs[] = {&XYArg, &OutArg, &PCount};
  launch(kernel(M, "sample"), P, SampleArgs);
  std::vector<float> F(P);
  ASSERT_EQ(cuMemcpyDtoH_v2(F.data(), Out, P * 4), CUDA_SUCCESS);
  for (unsigned I = 0; I < P; ++I)
    EXPECT_EQ(F[I], Points[I].Want) << "(" << Points[I].X << ", " << Points[I].Y << ")";
  CUarray GotArray = nullptr;
  EXPECT_EQ(cuTexRefGetArray(&GotArray, Img), CUDA_SUCCESS);
  EXPECT_EQ(GotArray, A);
  CUfilter_mode Filter;
  EXPECT_EQ(cuTexRefGetFilterMode(&Filter, Img), CUDA_SUCCESS);
  EXPECT_EQ(Filter, CU_TR_FILTER_MODE_LINEAR);
  // Binding the unused reference changes nothing a kernel reads.
  EXPECT_EQ(cuTexRefSetArray(Unused, A, CU_TRSA_OVERRIDE_FORMAT), CUDA_SUCCESS);

  // surf2Dwrite through a surface reference bound to a 4 x 4 array made for surfaces.
  CUsurfref Surf;
  ASSERT_EQ(cuModuleGetSurfRef(&Surf, M, "surf"), CUDA_SUCCESS);
  EXPECT_EQ(cuSurfRefSetArray(Surf, A, 0),
            CUDA_ERROR_INVALID_VALUE); // no CUDA_ARRAY3D_SURFACE_LDST
  CUDA_ARRAY3D_DESCRIPTOR SD{4, 4, 0, CU_AD_FORMAT_UNSIGNED_INT32, 1, CUDA_ARRAY3D_SURFACE_LDST};
  CUarray S;
  ASSERT_EQ(cuArray3DCreate_v2(&S, &SD), CUDA_SUCCESS);
  ASSERT_EQ(cuSurfRefSetArray(Surf, S, 0), CUDA_SUCCESS);
  unsigned Sixteen = 16;
  void *StoreArgs[] = {&Sixteen};
  launch(kernel(M, "store"), 16, StoreArgs);
  std::vector<uint32_t> SH(16);
  ASSERT_EQ(cuMemcpyAtoH_v2(SH.data(), S, 0, 64), CUDA_SUCCESS);
  for (unsigned I = 0; I < 16; ++I)
    EXPECT_EQ(SH[I], I * 3 + 1) << I;
  CUarray GotSurf = nullptr;
  EXPECT_EQ(cuSurfRefGetArray(&GotSurf, Surf), CUDA_SUCCESS);
  EXPECT_EQ(GotSurf, S);
  // A texture reference is not a surface reference.
  EXPECT_EQ(cuSurfRefGetArray(&GotSurf, reinterpret_cast<CUsurfref>(Img)),
            CUDA_ERROR_INVALID_VALUE);

  for (CUdeviceptr Ptr : {D, Out, DXY})
    EXPECT_EQ(cuMemFree_v2(Ptr), CUDA_SUCCESS);
  EXPECT_EQ(cuArrayDestroy(A), CUDA_SUCCESS);
  EXPECT_EQ(cuArrayDestroy(S), CUDA_SUCCESS);
  EXPECT_EQ(cuModuleUnload(M), CUDA_SUCCESS);
}

} // namespace
