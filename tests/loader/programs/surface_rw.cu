// Surface objects over CUDA arrays (cudaArraySurfaceLoadStore): surf2Dwrite/surf2Dread of float,
// uchar4 and float4 elements, surf1D and surf3D, a layered surface (surf2DLayeredwrite/read),
// and the boundary modes of reads outside the surface (cudaBoundaryModeZero reads zeros,
// cudaBoundaryModeClamp the nearest element). The surfaces' x coordinate counts bytes. Each
// result is checked against the host's copy of what was written, and the arrays are also copied
// back to the host (cudaMemcpy2DFromArray, cudaMemcpy3D).
#include "check.h"
#include <cstdint>
#include <cstring>

constexpr int W = 29, H = 17;

// Each thread (x, y) writes image(x, y) = x * 1000 + y + 0.5.
__global__ void writeImage(cudaSurfaceObject_t s) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < W)
    surf2Dwrite(float(x) * 1000.0f + float(y) + 0.5f, s, x * int(sizeof(float)), y);
}

// out[i] = the element at (x[i], y[i]) (x in elements; read with the byte coordinate), with the
// boundary mode of the element's kind: zero for kind 0, clamp for kind 1.
__global__ void readImage(cudaSurfaceObject_t s, const int4 *q, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int bx = q[i].x * int(sizeof(float)), y = q[i].y;
  out[i] = q[i].z == 0 ? surf2Dread<float>(s, bx, y, cudaBoundaryModeZero)
                       : surf2Dread<float>(s, bx, y, cudaBoundaryModeClamp);
}

// uchar4 and float4 elements: each thread rotates its element's channels in place.
__global__ void rotate4(cudaSurfaceObject_t u, cudaSurfaceObject_t f, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x >= w || y >= h)
    return;
  uchar4 c = surf2Dread<uchar4>(u, x * 4, y);
  surf2Dwrite(make_uchar4(c.y, c.z, c.w, c.x), u, x * 4, y);
  float4 v = surf2Dread<float4>(f, x * 16, y);
  surf2Dwrite(make_float4(v.w, v.x, v.y, v.z), f, x * 16, y);
}

// 1D: out[i] = 3 * element i, written back. 3D and layered: each element += its z (layer).
__global__ void triple1D(cudaSurfaceObject_t s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    surf1Dwrite(short(surf1Dread<short>(s, i * 2) * 3), s, i * 2);
}
__global__ void add3D(cudaSurfaceObject_t s, int w, int h, int d, bool layered) {
  int x = threadIdx.x, y = blockIdx.x, z = blockIdx.y;
  if (x >= w || y >= h || z >= d)
    return;
  if (layered) {
    unsigned v = surf2DLayeredread<unsigned>(s, x * 4, y, z);
    surf2DLayeredwrite(v + unsigned(z) * 0x10000u, s, x * 4, y, z);
  } else {
    unsigned v = surf3Dread<unsigned>(s, x * 4, y, z);
    surf3Dwrite(v + unsigned(z) * 0x10000u, s, x * 4, y, z);
  }
}

cudaSurfaceObject_t surfaceOf(cudaArray_t a) {
  cudaResourceDesc res;
  std::memset(&res, 0, sizeof(res));
  res.resType = cudaResourceTypeArray;
  res.res.array.array = a;
  cudaSurfaceObject_t s = 0;
  CHECK(cudaCreateSurfaceObject(&s, &res));
  return s;
}

float image(int x, int y) { return float(x) * 1000.0f + float(y) + 0.5f; }

int main() {
  // A float image written by one kernel and read by another, in and out of range.
  cudaChannelFormatDesc fdesc = cudaCreateChannelDesc<float>();
  cudaArray_t a;
  CHECK(cudaMallocArray(&a, &fdesc, W, H, cudaArraySurfaceLoadStore));
  cudaSurfaceObject_t s = surfaceOf(a);
  writeImage<<<dim3(1, H), 32>>>(s);
  CHECK(cudaGetLastError());
  std::vector<int4> q;
  for (int kind = 0; kind < 2; ++kind)
    for (int y = -2; y < H + 2; ++y)
      for (int x = -3; x < W + 3; ++x)
        q.push_back(make_int4(x, y, kind, 0));
  int4 *dq = toDevice(q);
  float *dout;
  CHECK(cudaMalloc(&dout, q.size() * sizeof(float)));
  readImage<<<int((q.size() + 127) / 128), 128>>>(s, dq, dout, int(q.size()));
  CHECK(cudaGetLastError());
  std::vector<float> got = toHost(dout, q.size());
  for (size_t i = 0; i < q.size(); ++i) {
    int x = q[i].x, y = q[i].y;
    bool inside = x >= 0 && x < W && y >= 0 && y < H;
    float want = inside        ? image(x, y)
                 : q[i].z == 0 ? 0.0f
                               : image(x < 0    ? 0
                                       : x >= W ? W - 1
                                                : x,
                                       y < 0    ? 0
                                       : y >= H ? H - 1
                                                : y);
    EXPECT(got[i] == want, "surf2Dread(%d, %d) mode %s: %g, expected %g", x, y,
           q[i].z ? "clamp" : "zero", got[i], want);
  }
  std::vector<float> back(W * H);
  CHECK(cudaMemcpy2DFromArray(back.data(), W * 4, a, 0, 0, W * 4, H, cudaMemcpyDeviceToHost));
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x)
      EXPECT(back[y * W + x] == image(x, y), "array element (%d, %d): %g, expected %g", x, y,
             back[y * W + x], image(x, y));

  // uchar4 and float4 elements rotated in place.
  const int CW = 13, CH = 5;
  std::vector<uchar4> u(CW * CH);
  std::vector<float4> f(CW * CH);
  for (int i = 0; i < CW * CH; ++i) {
    u[i] = make_uchar4(uint8_t(i), uint8_t(i * 3), uint8_t(i * 7), uint8_t(255 - i));
    f[i] = make_float4(float(i), -float(i), float(i) * 0.25f, 1e6f + float(i));
  }
  cudaChannelFormatDesc udesc = cudaCreateChannelDesc<uchar4>(),
                        f4desc = cudaCreateChannelDesc<float4>();
  cudaArray_t au, af;
  CHECK(cudaMallocArray(&au, &udesc, CW, CH, cudaArraySurfaceLoadStore));
  CHECK(cudaMallocArray(&af, &f4desc, CW, CH, cudaArraySurfaceLoadStore));
  CHECK(cudaMemcpy2DToArray(au, 0, 0, u.data(), CW * 4, CW * 4, CH, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy2DToArray(af, 0, 0, f.data(), CW * 16, CW * 16, CH, cudaMemcpyHostToDevice));
  cudaSurfaceObject_t su = surfaceOf(au), sf = surfaceOf(af);
  rotate4<<<dim3(1, CH), 32>>>(su, sf, CW, CH);
  CHECK(cudaGetLastError());
  std::vector<uchar4> u2(CW * CH);
  std::vector<float4> f2(CW * CH);
  CHECK(cudaMemcpy2DFromArray(u2.data(), CW * 4, au, 0, 0, CW * 4, CH, cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy2DFromArray(f2.data(), CW * 16, af, 0, 0, CW * 16, CH, cudaMemcpyDeviceToHost));
  for (int i = 0; i < CW * CH; ++i) {
    EXPECT(u2[i].x == u[i].y && u2[i].y == u[i].z && u2[i].z == u[i].w && u2[i].w == u[i].x,
           "uchar4 %d: (%d %d %d %d)", i, u2[i].x, u2[i].y, u2[i].z, u2[i].w);
    EXPECT(f2[i].x == f[i].w && f2[i].y == f[i].x && f2[i].z == f[i].y && f2[i].w == f[i].z,
           "float4 %d: (%g %g %g %g)", i, f2[i].x, f2[i].y, f2[i].z, f2[i].w);
  }

  // A 1D surface of shorts, tripled.
  const int N1 = 300;
  std::vector<short> sh(N1);
  for (int i = 0; i < N1; ++i)
    sh[i] = short(i * 37 - 5000);
  cudaChannelFormatDesc sdesc = cudaCreateChannelDesc<short>();
  cudaArray_t a1;
  CHECK(cudaMallocArray(&a1, &sdesc, N1, 0, cudaArraySurfaceLoadStore));
  CHECK(cudaMemcpy2DToArray(a1, 0, 0, sh.data(), N1 * 2, N1 * 2, 1, cudaMemcpyHostToDevice));
  cudaSurfaceObject_t s1 = surfaceOf(a1);
  triple1D<<<(N1 + 127) / 128, 128>>>(s1, N1);
  CHECK(cudaGetLastError());
  std::vector<short> sh2(N1);
  CHECK(cudaMemcpy2DFromArray(sh2.data(), N1 * 2, a1, 0, 0, N1 * 2, 1, cudaMemcpyDeviceToHost));
  for (int i = 0; i < N1; ++i)
    EXPECT(sh2[i] == short(sh[i] * 3), "short %d: %d, expected %d", i, sh2[i], short(sh[i] * 3));

  // A 3D surface and a layered one of unsigned ints: element += z << 16.
  const int VW = 7, VH = 5, VD = 4;
  std::vector<unsigned> vol(VW * VH * VD);
  for (int i = 0; i < VW * VH * VD; ++i)
    vol[i] = unsigned(i * 2654435761u) & 0xffffu;
  cudaChannelFormatDesc vdesc = cudaCreateChannelDesc<unsigned>();
  for (bool layered : {false, true}) {
    cudaArray_t av;
    CHECK(cudaMalloc3DArray(&av, &vdesc, make_cudaExtent(VW, VH, VD),
                            cudaArraySurfaceLoadStore | (layered ? cudaArrayLayered : 0)));
    cudaMemcpy3DParms p;
    std::memset(&p, 0, sizeof(p));
    p.srcPtr = make_cudaPitchedPtr(vol.data(), VW * 4, VW, VH);
    p.dstArray = av;
    p.extent = make_cudaExtent(VW, VH, VD);
    p.kind = cudaMemcpyHostToDevice;
    CHECK(cudaMemcpy3D(&p));
    cudaSurfaceObject_t sv = surfaceOf(av);
    add3D<<<dim3(VH, VD), 32>>>(sv, VW, VH, VD, layered);
    CHECK(cudaGetLastError());
    std::vector<unsigned> vol2(vol.size());
    std::memset(&p, 0, sizeof(p));
    p.srcArray = av;
    p.dstPtr = make_cudaPitchedPtr(vol2.data(), VW * 4, VW, VH);
    p.extent = make_cudaExtent(VW, VH, VD);
    p.kind = cudaMemcpyDeviceToHost;
    CHECK(cudaMemcpy3D(&p));
    for (int z = 0; z < VD; ++z)
      for (int i = 0; i < VW * VH; ++i) {
        unsigned want = vol[z * VW * VH + i] + unsigned(z) * 0x10000u;
        EXPECT(vol2[z * VW * VH + i] == want, "%s element %d of slice %d: %#x, expected %#x",
               layered ? "layered" : "3D", i, z, vol2[z * VW * VH + i], want);
      }
    CHECK(cudaDestroySurfaceObject(sv));
    CHECK(cudaFreeArray(av));
  }

  // The resource description reads back.
  cudaResourceDesc rd;
  CHECK(cudaGetSurfaceObjectResourceDesc(&rd, s));
  EXPECT(rd.resType == cudaResourceTypeArray && rd.res.array.array == a,
         "surface resource description");

  for (cudaSurfaceObject_t o : {s, su, sf, s1})
    CHECK(cudaDestroySurfaceObject(o));
  for (cudaArray_t o : {a, au, af, a1})
    CHECK(cudaFreeArray(o));
  CHECK(cudaFree(dq));
  CHECK(cudaFree(dout));
  return report();
}
