// The 3D, peer and 2D-memset forms of the driver API's copies and fills, mapped pinned memory and
// address ranges, on the emulator. Every expected buffer is computed on the host from the CUDA
// Driver API's definition of the copy ("Memory Management": cuMemcpy3D, cuMemsetD2D16/32): byte
// (x, y, z) of the box is at Base + ((Z + z) * Height + Y + y) * Pitch + XInBytes + x on each side.
#include "CudaApi.h"
#include "PrimaryContextTest.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <tuple>
#include <vector>

namespace {

class MemcpyForms : public reptx::loader::test::PrimaryContextTest {};

// A device buffer of N bytes filled with Fill.
CUdeviceptr deviceBuffer(size_t N, unsigned char Fill) {
  CUdeviceptr D = 0;
  EXPECT_EQ(cuMemAlloc_v2(&D, N), CUDA_SUCCESS);
  EXPECT_EQ(cuMemsetD8_v2(D, Fill, N), CUDA_SUCCESS);
  return D;
}

std::vector<unsigned char> readBack(CUdeviceptr D, size_t N) {
  std::vector<unsigned char> Out(N);
  EXPECT_EQ(cuMemcpyDtoH_v2(Out.data(), D, N), CUDA_SUCCESS);
  return Out;
}

std::vector<unsigned char> pattern(size_t N, unsigned Seed) {
  std::vector<unsigned char> V(N);
  for (size_t I = 0; I < N; ++I)
    V[I] = static_cast<unsigned char>((I * 131 + Seed * 17 + (I >> 8)) & 0xff);
  return V;
}

struct Box {
  size_t X, Y, Z, Pitch, Height;
};

// The host reference of a 3D copy: Dst with the box copied from Src.
void referenceCopy(std::vector<unsigned char> &Dst, const Box &D,
                   const std::vector<unsigned char> &Src, const Box &S, size_t Width, size_t Height,
                   size_t Depth) {
  for (size_t Z = 0; Z < Depth; ++Z)
    for (size_t Y = 0; Y < Height; ++Y)
      for (size_t X = 0; X < Width; ++X)
        Dst[((D.Z + Z) * D.Height + D.Y + Y) * D.Pitch + D.X + X] =
            Src[((S.Z + Z) * S.Height + S.Y + Y) * S.Pitch + S.X + X];
}

CUDA_MEMCPY3D params(const Box &S, const Box &D, size_t Width, size_t Height, size_t Depth) {
  CUDA_MEMCPY3D P;
  std::memset(&P, 0, sizeof(P));
  P.srcXInBytes = S.X;
  P.srcY = S.Y;
  P.srcZ = S.Z;
  P.srcPitch = S.Pitch;
  P.srcHeight = S.Height;
  P.dstXInBytes = D.X;
  P.dstY = D.Y;
  P.dstZ = D.Z;
  P.dstPitch = D.Pitch;
  P.dstHeight = D.Height;
  P.WidthInBytes = Width;
  P.Height = Height;
  P.Depth = Depth;
  return P;
}

TEST_F(MemcpyForms, Copy3DHostToDeviceToDeviceToHost) {
  // Unaligned pitches and heights, and offsets in all three dimensions on every side.
  const Box HostSrc{3, 2, 1, 37, 9}, Dev1{5, 1, 2, 53, 7}, Dev2{0, 3, 0, 29, 11},
      HostDst{7, 0, 1, 41, 6};
  const size_t W = 19, H = 4, Dp = 3;
  const size_t NHostSrc = 37 * 9 * 4, NDev1 = 53 * 7 * 5, NDev2 = 29 * 11 * 3,
               NHostDst = 41 * 6 * 4;
  std::vector<unsigned char> Src = pattern(NHostSrc, 1);

  // Host -> device.
  CUdeviceptr D1 = deviceBuffer(NDev1, 0xEE);
  CUDA_MEMCPY3D P = params(HostSrc, Dev1, W, H, Dp);
  P.srcMemoryType = CU_MEMORYTYPE_HOST;
  P.srcHost = Src.data();
  P.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  P.dstDevice = D1;
  ASSERT_EQ(cuMemcpy3D_v2(&P), CUDA_SUCCESS);
  std::vector<unsigned char> Expect1(NDev1, 0xEE);
  referenceCopy(Expect1, Dev1, Src, HostSrc, W, H, Dp);
  EXPECT_EQ(readBack(D1, NDev1), Expect1);

  // Device -> device (a smaller box inside the first), on a stream.
  CUdeviceptr D2 = deviceBuffer(NDev2, 0x11);
  const Box Dev1Inner{Dev1.X + 2, Dev1.Y + 1, Dev1.Z + 1, Dev1.Pitch, Dev1.Height};
  P = params(Dev1Inner, Dev2, W - 4, H - 1, Dp - 1);
  P.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  P.srcDevice = D1;
  P.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  P.dstDevice = D2;
  CUstream S;
  ASSERT_EQ(cuStreamCreate(&S, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpy3DAsync_v2(&P, S), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  std::vector<unsigned char> Expect2(NDev2, 0x11);
  referenceCopy(Expect2, Dev2, Expect1, Dev1Inner, W - 4, H - 1, Dp - 1);
  EXPECT_EQ(readBack(D2, NDev2), Expect2);

  // Device -> host, with unified addressing on both sides (_ptds form).
  std::vector<unsigned char> Dst(NHostDst, 0x5A);
  P = params(Dev2, HostDst, W - 4, H - 1, Dp - 1);
  P.srcMemoryType = CU_MEMORYTYPE_UNIFIED;
  P.srcDevice = D2;
  P.dstMemoryType = CU_MEMORYTYPE_UNIFIED;
  P.dstDevice = reinterpret_cast<CUdeviceptr>(Dst.data());
  ASSERT_EQ(cuMemcpy3D_v2_ptds(&P), CUDA_SUCCESS);
  std::vector<unsigned char> Expect3(NHostDst, 0x5A);
  referenceCopy(Expect3, HostDst, Expect2, Dev2, W - 4, H - 1, Dp - 1);
  EXPECT_EQ(Dst, Expect3);

  // Host -> host through cuMemcpy3DAsync_v2_ptsz on the legacy stream.
  std::vector<unsigned char> Dst2(NHostDst, 0);
  P = params(HostSrc, HostDst, W, H, Dp);
  P.srcMemoryType = CU_MEMORYTYPE_HOST;
  P.srcHost = Src.data();
  P.dstMemoryType = CU_MEMORYTYPE_HOST;
  P.dstHost = Dst2.data();
  ASSERT_EQ(cuMemcpy3DAsync_v2_ptsz(&P, CU_STREAM_LEGACY), CUDA_SUCCESS);
  std::vector<unsigned char> Expect4(NHostDst, 0);
  referenceCopy(Expect4, HostDst, Src, HostSrc, W, H, Dp);
  EXPECT_EQ(Dst2, Expect4);

  EXPECT_EQ(cuStreamDestroy_v2(S), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFree_v2(D1), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFree_v2(D2), CUDA_SUCCESS);
}

TEST_F(MemcpyForms, Copy3DOfOneSliceIgnoresHeight) {
  // Depth 1: srcHeight/dstHeight may be 0 (CUDA_MEMCPY3D documentation).
  std::vector<unsigned char> Src = pattern(20 * 5, 2);
  CUdeviceptr D = deviceBuffer(24 * 5, 0);
  CUDA_MEMCPY3D P = params({1, 1, 0, 20, 0}, {2, 0, 0, 24, 0}, 17, 4, 1);
  P.srcMemoryType = CU_MEMORYTYPE_HOST;
  P.srcHost = Src.data();
  P.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  P.dstDevice = D;
  ASSERT_EQ(cuMemcpy3D_v2(&P), CUDA_SUCCESS);
  std::vector<unsigned char> Expect(24 * 5, 0);
  for (size_t Y = 0; Y < 4; ++Y)
    for (size_t X = 0; X < 17; ++X)
      Expect[Y * 24 + 2 + X] = Src[(1 + Y) * 20 + 1 + X];
  EXPECT_EQ(readBack(D, 24 * 5), Expect);
  EXPECT_EQ(cuMemFree_v2(D), CUDA_SUCCESS);
}

TEST_F(MemcpyForms, Copy3DRejectsInvalidArguments) {
  std::vector<unsigned char> Host(4096);
  CUdeviceptr D = deviceBuffer(4096, 0);
  auto Valid = [&] {
    CUDA_MEMCPY3D P = params({0, 0, 0, 32, 4}, {0, 0, 0, 32, 4}, 16, 4, 2);
    P.srcMemoryType = CU_MEMORYTYPE_HOST;
    P.srcHost = Host.data();
    P.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    P.dstDevice = D;
    return P;
  };
  CUDA_MEMCPY3D P = Valid();
  EXPECT_EQ(cuMemcpy3D_v2(&P), CUDA_SUCCESS);
  EXPECT_EQ(cuMemcpy3D_v2(nullptr), CUDA_ERROR_INVALID_VALUE);
  P.WidthInBytes = 33; // wider than the pitch
  EXPECT_EQ(cuMemcpy3D_v2(&P), CUDA_ERROR_INVALID_VALUE);
  P = Valid();
  P.dstXInBytes = 17; // 17 + 16 > 32
  EXPECT_EQ(cuMemcpy3D_v2(&P), CUDA_ERROR_INVALID_VALUE);
  P = Valid();
  P.srcY = 1; // 1 + 4 rows > a slice of 4 rows
  EXPECT_EQ(cuMemcpy3D_v2(&P), CUDA_ERROR_INVALID_VALUE);
  P = Valid();
  P.srcHost = nullptr;
  EXPECT_EQ(cuMemcpy3D_v2(&P), CUDA_ERROR_INVALID_VALUE);
  P = Valid();
  P.dstDevice = 0;
  EXPECT_EQ(cuMemcpy3DAsync_v2(&P, nullptr), CUDA_ERROR_INVALID_VALUE);
  P = Valid();
  P.srcLOD = 1;
  EXPECT_EQ(cuMemcpy3D_v2(&P), CUDA_ERROR_INVALID_VALUE);
  P = Valid();
  P.reserved0 = &P;
  EXPECT_EQ(cuMemcpy3D_v2(&P), CUDA_ERROR_INVALID_VALUE);
  P = Valid();
  P.dstMemoryType = static_cast<CUmemorytype>(7);
  EXPECT_EQ(cuMemcpy3D_v2(&P), CUDA_ERROR_INVALID_VALUE);
  P = Valid();
  P.dstMemoryType = CU_MEMORYTYPE_ARRAY; // and no array
  EXPECT_EQ(cuMemcpy3D_v2(&P), CUDA_ERROR_INVALID_VALUE);
  // The 2D copy checks its rows the same way.
  CUDA_MEMCPY2D Q;
  std::memset(&Q, 0, sizeof(Q));
  Q.srcMemoryType = CU_MEMORYTYPE_HOST;
  Q.srcHost = Host.data();
  Q.srcPitch = 32;
  Q.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  Q.dstDevice = D;
  Q.dstPitch = 16;
  Q.WidthInBytes = 17;
  Q.Height = 2;
  EXPECT_EQ(cuMemcpy2D_v2(&Q), CUDA_ERROR_INVALID_VALUE);
  Q.WidthInBytes = 16;
  EXPECT_EQ(cuMemcpy2D_v2(&Q), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFree_v2(D), CUDA_SUCCESS);
}

// Each of the Height rows of Pitch bytes has Width elements of Value; all other bytes keep Fill.
template <class T>
std::vector<unsigned char> referenceFill2D(size_t Bytes, unsigned char Fill, size_t Offset,
                                           size_t Pitch, T Value, size_t Width, size_t Height) {
  std::vector<unsigned char> V(Bytes, Fill);
  for (size_t Y = 0; Y < Height; ++Y)
    for (size_t X = 0; X < Width; ++X)
      std::memcpy(&V[Offset + Y * Pitch + X * sizeof(T)], &Value, sizeof(T));
  return V;
}

// A CUDA array of 5 x 3 x 2 ushort2 elements (20-byte rows, dense): a 3D copy of a box from host
// memory into it at (4 bytes, 1, 1), the whole array read back with cuMemcpyAtoH (bytes at an
// offset of the dense rows), a box that does not fit, and the array's description.
TEST_F(MemcpyForms, ArraysAreDenseRowsThatCopiesAddress) {
  CUDA_ARRAY3D_DESCRIPTOR Desc{5, 3, 2, CU_AD_FORMAT_UNSIGNED_INT16, 2, 0};
  CUarray A = nullptr;
  ASSERT_EQ(cuArray3DCreate_v2(&A, &Desc), CUDA_SUCCESS);
  const size_t Row = 20, Bytes = Row * 3 * 2;
  std::vector<unsigned char> Zero(Bytes, 0), Host(64 * 4);
  for (size_t I = 0; I < Host.size(); ++I)
    Host[I] = static_cast<unsigned char>(I * 7 + 1);
  ASSERT_EQ(cuMemcpyHtoA_v2(A, 0, Zero.data(), Bytes), CUDA_SUCCESS);
  CUDA_MEMCPY3D P;
  std::memset(&P, 0, sizeof(P));
  P.srcMemoryType = CU_MEMORYTYPE_HOST;
  P.srcHost = Host.data();
  P.srcPitch = 32;
  P.srcHeight = 4;
  P.srcXInBytes = 3;
  P.dstMemoryType = CU_MEMORYTYPE_ARRAY;
  P.dstArray = A;
  P.dstXInBytes = 4;
  P.dstY = 1;
  P.dstZ = 1;
  P.WidthInBytes = 12;
  P.Height = 2;
  P.Depth = 1;
  ASSERT_EQ(cuMemcpy3D_v2(&P), CUDA_SUCCESS);
  std::vector<unsigned char> Want(Bytes, 0), Got(Bytes, 0xAA);
  for (size_t Y = 0; Y < 2; ++Y)
    for (size_t X = 0; X < 12; ++X)
      Want[((1 * 3) + 1 + Y) * Row + 4 + X] = Host[Y * 32 + 3 + X];
  ASSERT_EQ(cuMemcpyAtoH_v2(Got.data(), A, 0, Bytes), CUDA_SUCCESS);
  EXPECT_EQ(Got, Want);
  // 4 + 17 bytes is wider than a row; rows 2..3 and slice 2 are outside.
  P.WidthInBytes = 17;
  EXPECT_EQ(cuMemcpy3D_v2(&P), CUDA_ERROR_INVALID_VALUE);
  P.WidthInBytes = 12;
  P.dstY = 2;
  EXPECT_EQ(cuMemcpy3D_v2(&P), CUDA_ERROR_INVALID_VALUE);
  P.dstY = 1;
  P.dstZ = 2;
  EXPECT_EQ(cuMemcpy3D_v2(&P), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemcpyAtoH_v2(Got.data(), A, 1, Bytes), CUDA_ERROR_INVALID_VALUE);
  // Array to array, and the stream-ordered forms: the same bytes at other offsets.
  CUarray B2 = nullptr;
  ASSERT_EQ(cuArray3DCreate_v2(&B2, &Desc), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyHtoAAsync_v2(B2, 0, Zero.data(), Bytes, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyAtoA_v2(B2, 8, A, 4, Bytes - 8), CUDA_SUCCESS);
  std::vector<unsigned char> Got2(Bytes, 0xAA), Want2(Bytes, 0);
  std::memcpy(Want2.data() + 8, Want.data() + 4, Bytes - 8);
  ASSERT_EQ(cuMemcpyAtoHAsync_v2(Got2.data(), B2, 0, Bytes, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  EXPECT_EQ(Got2, Want2);
  EXPECT_EQ(cuMemcpyAtoA_v2(B2, 9, A, 0, Bytes - 8), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuArrayDestroy(B2), CUDA_SUCCESS);
  CUDA_ARRAY3D_DESCRIPTOR Back{};
  ASSERT_EQ(cuArray3DGetDescriptor_v2(&Back, A), CUDA_SUCCESS);
  EXPECT_EQ(std::memcmp(&Back, &Desc, sizeof(Desc)), 0);
  CUDA_ARRAY_DESCRIPTOR Back2{};
  ASSERT_EQ(cuArrayGetDescriptor_v2(&Back2, A), CUDA_SUCCESS);
  EXPECT_EQ(Back2.Width, 5u);
  EXPECT_EQ(Back2.Height, 3u);
  EXPECT_EQ(Back2.NumChannels, 2u);
  EXPECT_EQ(cuArrayDestroy(A), CUDA_SUCCESS);
  EXPECT_EQ(cuArrayDestroy(A), CUDA_ERROR_INVALID_HANDLE);
  EXPECT_EQ(cuMemcpyAtoH_v2(Got.data(), A, 0, 4), CUDA_ERROR_INVALID_VALUE);
  // What CUDA rejects, and what reptx does not support.
  CUDA_ARRAY3D_DESCRIPTOR Bad = Desc;
  Bad.NumChannels = 3;
  EXPECT_EQ(cuArray3DCreate_v2(&A, &Bad), CUDA_ERROR_INVALID_VALUE);
  Bad = Desc;
  Bad.Height = 0; // a depth without a height
  EXPECT_EQ(cuArray3DCreate_v2(&A, &Bad), CUDA_ERROR_INVALID_VALUE);
  Bad = Desc;
  Bad.Flags = 0x10; // CUDA_ARRAY3D_DEPTH_TEXTURE
  EXPECT_EQ(cuArray3DCreate_v2(&A, &Bad), CUDA_ERROR_NOT_SUPPORTED);
  // A cube map has six square faces (a layered one six per cube, at most 2046 in all).
  CUDA_ARRAY3D_DESCRIPTOR Cube{4, 4, 6, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_CUBEMAP};
  ASSERT_EQ(cuArray3DCreate_v2(&A, &Cube), CUDA_SUCCESS);
  // Its textures filter within a face: seamless filtering across the edges is refused.
  CUDA_RESOURCE_DESC Res{};
  Res.resType = CU_RESOURCE_TYPE_ARRAY;
  Res.res.array.hArray = A;
  CUDA_TEXTURE_DESC Tex{};
  Tex.filterMode = CU_TR_FILTER_MODE_LINEAR;
  Tex.flags = CU_TRSF_NORMALIZED_COORDINATES | CU_TRSF_SEAMLESS_CUBEMAP;
  CUtexObject T = 0;
  EXPECT_EQ(cuTexObjectCreate(&T, &Res, &Tex, nullptr), CUDA_ERROR_NOT_SUPPORTED);
  Tex.flags = CU_TRSF_NORMALIZED_COORDINATES;
  ASSERT_EQ(cuTexObjectCreate(&T, &Res, &Tex, nullptr), CUDA_SUCCESS);
  EXPECT_EQ(cuTexObjectDestroy(T), CUDA_SUCCESS);
  EXPECT_EQ(cuArrayDestroy(A), CUDA_SUCCESS);
  for (auto [W, H, D, Flags] : {std::tuple{4, 5, 6, 0},
                                {4, 4, 5, 0},
                                {4, 4, 12, 0},
                                {4, 4, 14, CUDA_ARRAY3D_LAYERED},
                                {4, 4, 2052, CUDA_ARRAY3D_LAYERED}}) {
    Bad = {size_t(W),          size_t(H), size_t(D),
           CU_AD_FORMAT_FLOAT, 1,         unsigned(CUDA_ARRAY3D_CUBEMAP | Flags)};
    EXPECT_EQ(cuArray3DCreate_v2(&A, &Bad), CUDA_ERROR_INVALID_VALUE) << W << " " << H << " " << D;
  }
  Cube.Depth = 18;
  Cube.Flags |= CUDA_ARRAY3D_LAYERED;
  ASSERT_EQ(cuArray3DCreate_v2(&A, &Cube), CUDA_SUCCESS);
  EXPECT_EQ(cuArrayDestroy(A), CUDA_SUCCESS);
  // A layered array has Depth layers, of one dimension when Height is 0 (but at least one).
  CUDA_ARRAY3D_DESCRIPTOR Layers{8, 0, 3, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_LAYERED};
  ASSERT_EQ(cuArray3DCreate_v2(&A, &Layers), CUDA_SUCCESS);
  std::vector<unsigned char> L(8 * 4 * 3, 5);
  EXPECT_EQ(cuMemcpyHtoA_v2(A, 0, L.data(), L.size()), CUDA_SUCCESS);
  EXPECT_EQ(cuMemcpyHtoA_v2(A, 1, L.data(), L.size()), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuArrayDestroy(A), CUDA_SUCCESS);
  Layers.Depth = 0;
  EXPECT_EQ(cuArray3DCreate_v2(&A, &Layers), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(MemcpyForms, Memset2D16And32LeaveTheBytesBetweenRows) {
  const size_t N = 1024;
  CUdeviceptr D = deviceBuffer(N, 0xAB);
  ASSERT_EQ(cuMemsetD2D16_v2(D + 2, 46, 0xBEEF, 13, 7), CUDA_SUCCESS);
  EXPECT_EQ(readBack(D, N), referenceFill2D<uint16_t>(N, 0xAB, 2, 46, 0xBEEF, 13, 7));

  ASSERT_EQ(cuMemsetD8_v2(D, 0xAB, N), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD2D32_v2(D + 8, 60, 0x12345678u, 11, 9), CUDA_SUCCESS);
  EXPECT_EQ(readBack(D, N), referenceFill2D<uint32_t>(N, 0xAB, 8, 60, 0x12345678u, 11, 9));

  // The other forms: _ptds, and the stream-ordered ones on a stream.
  CUstream S;
  ASSERT_EQ(cuStreamCreate(&S, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD8_v2(D, 0x00, N), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD2D16_v2_ptds(D, 30, 0x0102, 5, 3), CUDA_SUCCESS);
  EXPECT_EQ(readBack(D, N), referenceFill2D<uint16_t>(N, 0x00, 0, 30, 0x0102, 5, 3));
  ASSERT_EQ(cuMemsetD8_v2(D, 0x00, N), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD2D16Async(D + 4, 30, 0xA0B0, 15, 4, S), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  EXPECT_EQ(readBack(D, N), referenceFill2D<uint16_t>(N, 0x00, 4, 30, 0xA0B0, 15, 4));
  ASSERT_EQ(cuMemsetD8_v2(D, 0x00, N), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD2D16Async_ptsz(D, 30, 0x7777, 1, 5, S), CUDA_SUCCESS);
  EXPECT_EQ(readBack(D, N), referenceFill2D<uint16_t>(N, 0x00, 0, 30, 0x7777, 1, 5));
  ASSERT_EQ(cuMemsetD8_v2(D, 0x00, N), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD2D32_v2_ptds(D, 64, 0xCAFEF00Du, 16, 3), CUDA_SUCCESS);
  EXPECT_EQ(readBack(D, N), referenceFill2D<uint32_t>(N, 0x00, 0, 64, 0xCAFEF00Du, 16, 3));
  ASSERT_EQ(cuMemsetD8_v2(D, 0x00, N), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD2D32Async(D + 12, 20, 0xFFFFFFFFu, 2, 6, S), CUDA_SUCCESS);
  EXPECT_EQ(readBack(D, N), referenceFill2D<uint32_t>(N, 0x00, 12, 20, 0xFFFFFFFFu, 2, 6));
  ASSERT_EQ(cuMemsetD8_v2(D, 0x00, N), CUDA_SUCCESS);
  // Pitch equal to the row: one contiguous fill.
  ASSERT_EQ(cuMemsetD2D32Async_ptsz(D, 40, 0x01020304u, 10, 4, S), CUDA_SUCCESS);
  EXPECT_EQ(readBack(D, N), referenceFill2D<uint32_t>(N, 0x00, 0, 40, 0x01020304u, 10, 4));
  EXPECT_EQ(cuStreamDestroy_v2(S), CUDA_SUCCESS);

  // Invalid: a row wider than the pitch, misaligned address or pitch, null pointer.
  EXPECT_EQ(cuMemsetD2D16_v2(D, 20, 1, 11, 2), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemsetD2D32_v2(D, 40, 1, 11, 2), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemsetD2D16_v2(D + 1, 20, 1, 4, 2), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemsetD2D32_v2(D + 2, 40, 1, 4, 2), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemsetD2D32_v2(D, 42, 1, 4, 2), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemsetD2D32_v2(0, 40, 1, 4, 2), CUDA_ERROR_INVALID_VALUE);
  // Nothing to fill: success, nothing written.
  EXPECT_EQ(cuMemsetD2D32_v2(D, 40, 0x99999999u, 0, 2), CUDA_SUCCESS);
  EXPECT_EQ(readBack(D, N), referenceFill2D<uint32_t>(N, 0x00, 0, 40, 0x01020304u, 10, 4));
  EXPECT_EQ(cuMemFree_v2(D), CUDA_SUCCESS);
}

TEST_F(MemcpyForms, PeerCopiesOnTheOneDevice) {
  const size_t N = 3000;
  std::vector<unsigned char> Src = pattern(N, 3);
  CUdeviceptr A = deviceBuffer(N, 0), B = deviceBuffer(N, 0);
  ASSERT_EQ(cuMemcpyHtoD_v2(A, Src.data(), N), CUDA_SUCCESS);
  CUcontext Other;
  ASSERT_EQ(cuCtxCreate_v2(&Other, 0, 0), CUDA_SUCCESS); // now current
  ASSERT_EQ(cuMemcpyPeer(B + 10, Ctx, A + 20, Ctx, 1000), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyPeer_ptds(B + 1010, Other, A + 1100, Ctx, 500), CUDA_SUCCESS);
  CUstream S;
  ASSERT_EQ(cuStreamCreate(&S, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyPeerAsync(B + 1510, Ctx, A, Other, 700, S), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyPeerAsync_ptsz(B + 2210, Ctx, A + 2900, Ctx, 100, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  std::vector<unsigned char> Expect(N, 0);
  std::memcpy(&Expect[10], &Src[20], 1000);
  std::memcpy(&Expect[1010], &Src[1100], 500);
  std::memcpy(&Expect[1510], &Src[0], 700);
  std::memcpy(&Expect[2210], &Src[2900], 100);
  EXPECT_EQ(readBack(B, N), Expect);

  // 3D peer copies: device to device between the two contexts, then back to the host.
  CUDA_MEMCPY3D_PEER P;
  std::memset(&P, 0, sizeof(P));
  P.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  P.srcDevice = A;
  P.srcContext = Ctx;
  P.srcXInBytes = 3;
  P.srcY = 1;
  P.srcZ = 1;
  P.srcPitch = 45;
  P.srcHeight = 10;
  P.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  P.dstDevice = B;
  P.dstContext = Other;
  P.dstXInBytes = 1;
  P.dstY = 2;
  P.dstZ = 0;
  P.dstPitch = 31;
  P.dstHeight = 12;
  P.WidthInBytes = 25;
  P.Height = 8;
  P.Depth = 3;
  ASSERT_EQ(cuMemcpy3DPeer(&P), CUDA_SUCCESS);
  referenceCopy(Expect, {1, 2, 0, 31, 12}, Src, {3, 1, 1, 45, 10}, 25, 8, 3);
  EXPECT_EQ(readBack(B, N), Expect);
  std::vector<unsigned char> Host(N, 0x42), ExpectHost(N, 0x42);
  CUDA_MEMCPY3D_PEER Q = P;
  Q.srcDevice = B;
  Q.srcContext = Other;
  Q.srcXInBytes = 0;
  Q.srcY = 0;
  Q.srcZ = 0;
  Q.srcPitch = 31;
  Q.srcHeight = 12;
  Q.dstMemoryType = CU_MEMORYTYPE_HOST;
  Q.dstHost = Host.data();
  Q.dstDevice = 0;
  Q.dstContext = Ctx;
  ASSERT_EQ(cuMemcpy3DPeer_ptds(&Q), CUDA_SUCCESS);
  referenceCopy(ExpectHost, {1, 2, 0, 31, 12}, Expect, {0, 0, 0, 31, 12}, 25, 8, 3);
  EXPECT_EQ(Host, ExpectHost);
  std::fill(Host.begin(), Host.end(), 0x42);
  ASSERT_EQ(cuMemcpy3DPeerAsync(&Q, S), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpy3DPeerAsync_ptsz(&Q, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(S), CUDA_SUCCESS);
  EXPECT_EQ(Host, ExpectHost);

  // Contexts must be valid ones; pointers non-null.
  EXPECT_EQ(cuMemcpyPeer(B, nullptr, A, Ctx, 10), CUDA_ERROR_INVALID_CONTEXT);
  EXPECT_EQ(cuMemcpyPeer(B, Ctx, A, reinterpret_cast<CUcontext>(&Expect), 10),
            CUDA_ERROR_INVALID_CONTEXT);
  EXPECT_EQ(cuMemcpyPeer(0, Ctx, A, Ctx, 10), CUDA_ERROR_INVALID_VALUE);
  Q.dstContext = nullptr;
  EXPECT_EQ(cuMemcpy3DPeer(&Q), CUDA_ERROR_INVALID_CONTEXT);
  EXPECT_EQ(cuMemcpy3DPeer(nullptr), CUDA_ERROR_INVALID_VALUE);
  Q.dstContext = Ctx;
  Q.WidthInBytes = 32; // wider than the source pitch of 31
  EXPECT_EQ(cuMemcpy3DPeer(&Q), CUDA_ERROR_INVALID_VALUE);

  EXPECT_EQ(cuStreamDestroy_v2(S), CUDA_SUCCESS);
  EXPECT_EQ(cuCtxDestroy_v2(Other), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSetCurrent(Ctx), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFree_v2(A), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFree_v2(B), CUDA_SUCCESS);
}

TEST_F(MemcpyForms, HostAllocMemoryHasADevicePointer) {
  void *H = nullptr;
  ASSERT_EQ(cuMemHostAlloc(&H, 256, 0x02 /* CU_MEMHOSTALLOC_DEVICEMAP */), CUDA_SUCCESS);
  CUdeviceptr D = 0;
  ASSERT_EQ(cuMemHostGetDevicePointer_v2(&D, H, 0), CUDA_SUCCESS);
  EXPECT_EQ(D, reinterpret_cast<CUdeviceptr>(H));
  CUdeviceptr Inner = 0;
  ASSERT_EQ(cuMemHostGetDevicePointer_v2(&Inner, static_cast<char *>(H) + 100, 0), CUDA_SUCCESS);
  EXPECT_EQ(Inner, D + 100);
  // The device writes, the host reads (and back).
  ASSERT_EQ(cuMemsetD32_v2(D, 0x01020304u, 64), CUDA_SUCCESS);
  for (int I = 0; I < 64; ++I)
    EXPECT_EQ(static_cast<uint32_t *>(H)[I], 0x01020304u) << I;
  static_cast<unsigned char *>(H)[5] = 0x77;
  CUdeviceptr Dev = deviceBuffer(256, 0);
  ASSERT_EQ(cuMemcpyDtoD_v2(Dev, D, 256), CUDA_SUCCESS);
  std::vector<unsigned char> Expect(256);
  for (int I = 0; I < 64; ++I) {
    uint32_t V = 0x01020304u;
    std::memcpy(&Expect[I * 4], &V, 4);
  }
  Expect[5] = 0x77;
  EXPECT_EQ(readBack(Dev, 256), Expect);
  // Still host memory to the pointer attributes, with itself as device pointer.
  unsigned Type = 0;
  ASSERT_EQ(cuPointerGetAttribute(&Type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, D), CUDA_SUCCESS);
  EXPECT_EQ(Type, unsigned(CU_MEMORYTYPE_HOST));
  CUdeviceptr Attr = 0;
  ASSERT_EQ(cuPointerGetAttribute(&Attr, CU_POINTER_ATTRIBUTE_DEVICE_POINTER, D), CUDA_SUCCESS);
  EXPECT_EQ(Attr, D);

  // Flags must be 0; the pointer must be in a cuMemHostAlloc allocation.
  EXPECT_EQ(cuMemHostGetDevicePointer_v2(&Inner, H, 1), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemHostGetDevicePointer_v2(nullptr, H, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemHostGetDevicePointer_v2(&Inner, nullptr, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemHostGetDevicePointer_v2(&Inner, static_cast<char *>(H) + 256, 0),
            CUDA_ERROR_INVALID_VALUE);
  std::vector<unsigned char> Plain(64);
  EXPECT_EQ(cuMemHostGetDevicePointer_v2(&Inner, Plain.data(), 0), CUDA_ERROR_INVALID_VALUE);
  // Registered memory is mapped at its own address too: the device writes it through that.
  ASSERT_EQ(cuMemHostRegister_v2(Plain.data(), Plain.size(), 0), CUDA_SUCCESS);
  ASSERT_EQ(cuMemHostGetDevicePointer_v2(&Inner, Plain.data() + 8, 0), CUDA_SUCCESS);
  EXPECT_EQ(Inner, reinterpret_cast<CUdeviceptr>(Plain.data() + 8));
  ASSERT_EQ(cuMemsetD8_v2(Inner, 0x5a, 16), CUDA_SUCCESS);
  for (int I = 0; I < 64; ++I)
    EXPECT_EQ(Plain[I], I >= 8 && I < 24 ? 0x5a : 0) << I;
  EXPECT_EQ(cuMemHostUnregister(Plain.data()), CUDA_SUCCESS);
  EXPECT_EQ(cuMemHostGetDevicePointer_v2(&Inner, Plain.data(), 0), CUDA_ERROR_INVALID_VALUE);

  // cuMemAllocHost memory is mapped too (unified addressing).
  void *H2 = nullptr;
  ASSERT_EQ(cuMemAllocHost_v2(&H2, 40), CUDA_SUCCESS);
  ASSERT_EQ(cuMemHostGetDevicePointer_v2(&Inner, H2, 0), CUDA_SUCCESS);
  EXPECT_EQ(Inner, reinterpret_cast<CUdeviceptr>(H2));
  EXPECT_EQ(cuMemFreeHost(H2), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFreeHost(H), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFreeHost(H), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemHostGetDevicePointer_v2(&Inner, H, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemFree_v2(Dev), CUDA_SUCCESS);
}

TEST_F(MemcpyForms, AddressRangeOfAnInteriorPointer) {
  CUdeviceptr D = 0;
  ASSERT_EQ(cuMemAlloc_v2(&D, 1000), CUDA_SUCCESS);
  CUdeviceptr Base = 0;
  size_t Size = 0;
  ASSERT_EQ(cuMemGetAddressRange_v2(&Base, &Size, D + 999), CUDA_SUCCESS);
  EXPECT_EQ(Base, D);
  EXPECT_EQ(Size, 1000u);
  Base = 0;
  ASSERT_EQ(cuMemGetAddressRange_v2(&Base, nullptr, D + 500), CUDA_SUCCESS);
  EXPECT_EQ(Base, D);
  Size = 0;
  ASSERT_EQ(cuMemGetAddressRange_v2(nullptr, &Size, D), CUDA_SUCCESS);
  EXPECT_EQ(Size, 1000u);
  size_t Pitch = 0;
  CUdeviceptr P = 0;
  ASSERT_EQ(cuMemAllocPitch_v2(&P, &Pitch, 100, 10, 4), CUDA_SUCCESS);
  ASSERT_EQ(cuMemGetAddressRange_v2(&Base, &Size, P + Pitch * 9 + 99), CUDA_SUCCESS);
  EXPECT_EQ(Base, P);
  EXPECT_EQ(Size, Pitch * 10);
  EXPECT_EQ(cuMemFree_v2(P), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFree_v2(D), CUDA_SUCCESS);
  EXPECT_EQ(cuMemGetAddressRange_v2(&Base, &Size, D), CUDA_ERROR_NOT_FOUND);
  EXPECT_EQ(cuMemGetAddressRange_v2(&Base, &Size, 0), CUDA_ERROR_NOT_FOUND);
}

} // namespace
