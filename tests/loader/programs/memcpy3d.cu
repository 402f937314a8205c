// Pitched 3D memory (cudaMalloc3D, cudaMemcpy3D host->device, device->device of a subregion,
// device->host, cudaMemcpy3DAsync on a stream, cudaMemset3D), cudaMemcpyPeer on the one device,
// mapped pinned memory (cudaHostAlloc(cudaHostAllocMapped) + cudaHostGetDevicePointer) and
// registered host memory (cudaHostRegister) that a kernel reads and writes. Every result is
// compared with values computed on the host.
#include "check.h"
#include <cstring>
#include <vector>

// Adds Add to every element of a W x H x D box of ints in pitched memory.
__global__ void addPitched(cudaPitchedPtr p, int w, int h, int d, int add) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y;
  int z = blockIdx.z;
  if (x >= w || y >= h || z >= d)
    return;
  char *slice = static_cast<char *>(p.ptr) + size_t(z) * p.pitch * p.ysize;
  int *row = reinterpret_cast<int *>(slice + size_t(y) * p.pitch);
  row[x] += add;
}

// out[i] = 3 * in[i] + 1, on mapped host memory.
__global__ void mapped(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = 3 * in[i] + 1;
}

static int fail(const char *what, int i, long got, long expect) {
  std::printf("FAIL: %s[%d] = %ld, expected %ld\n", what, i, got, expect);
  return 1;
}

int main() {
  const int W = 37, H = 13, D = 5; // ints
  cudaExtent ext = make_cudaExtent(W * sizeof(int), H, D);
  cudaPitchedPtr a, b;
  CHECK(cudaMalloc3D(&a, ext));
  CHECK(cudaMalloc3D(&b, ext));
  if (a.pitch < W * sizeof(int) || a.xsize != W * sizeof(int) || a.ysize != size_t(H)) {
    std::printf("FAIL: cudaMalloc3D pitch %zu xsize %zu ysize %zu\n", a.pitch, a.xsize, a.ysize);
    return 1;
  }

  // Host -> device, the whole box from a tightly packed host array.
  std::vector<int> h(W * H * D);
  for (int i = 0; i < W * H * D; ++i)
    h[i] = i * 7 - 1000;
  cudaMemcpy3DParms p = {};
  p.srcPtr = make_cudaPitchedPtr(h.data(), W * sizeof(int), W, H);
  p.dstPtr = a;
  p.extent = ext;
  p.kind = cudaMemcpyHostToDevice;
  CHECK(cudaMemcpy3D(&p));
  addPitched<<<dim3((W + 31) / 32, H, D), 32>>>(a, W, H, D, 5);
  CHECK(cudaGetLastError());

  // cudaMemset3D of b (a subregion: every byte of rows 1.. of slices 1..), then a device ->
  // device copy of a box of a into b with different offsets.
  CHECK(cudaMemset3D(b, 0x00, ext));
  cudaPitchedPtr bsub = b;
  bsub.ptr = static_cast<char *>(b.ptr) + b.pitch * b.ysize + b.pitch; // (0, 1, 1)
  CHECK(cudaMemset3D(bsub, 0x3c, make_cudaExtent(10 * sizeof(int), H - 1, D - 1)));
  const int bx = 6, by = 5, bz = 2, sx = 2, sy = 3, sz = 1; // box size, source offset
  const int dx = 20, dy = 7, dz = 3;                        // destination offset
  p = {};
  p.srcPtr = a;
  p.srcPos = make_cudaPos(sx * sizeof(int), sy, sz);
  p.dstPtr = b;
  p.dstPos = make_cudaPos(dx * sizeof(int), dy, dz);
  p.extent = make_cudaExtent(bx * sizeof(int), by, bz);
  p.kind = cudaMemcpyDeviceToDevice;
  CHECK(cudaMemcpy3D(&p));

  // Device -> host of all of b, with a host pitch larger than the row.
  const int HW = W + 3;
  std::vector<int> hb(HW * H * D, -1);
  p = {};
  p.srcPtr = b;
  p.dstPtr = make_cudaPitchedPtr(hb.data(), HW * sizeof(int), W, H);
  p.extent = ext;
  p.kind = cudaMemcpyDeviceToHost;
  CHECK(cudaMemcpy3D(&p));
  int fill = 0x3c3c3c3c;
  for (int z = 0; z < D; ++z)
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < HW; ++x) {
        int expect = 0;
        if (x >= W)
          expect = -1; // the host pitch's padding is not written
        else if (x >= dx && x < dx + bx && y >= dy && y < dy + by && z >= dz && z < dz + bz)
          expect = h[((z - dz + sz) * H + (y - dy + sy)) * W + (x - dx + sx)] + 5;
        else if (z >= 1 && y >= 1 && x < 10)
          expect = fill;
        int i = (z * H + y) * HW + x;
        if (hb[i] != expect)
          return fail("b", i, hb[i], expect);
      }

  // cudaMemcpy3DAsync on a stream: a box of a into a host array with its own offsets.
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  std::vector<int> hc(W * H * D, 0);
  p = {};
  p.srcPtr = a;
  p.srcPos = make_cudaPos(1 * sizeof(int), 2, 0);
  p.dstPtr = make_cudaPitchedPtr(hc.data(), W * sizeof(int), W, H);
  p.dstPos = make_cudaPos(4 * sizeof(int), 0, 1);
  p.extent = make_cudaExtent(30 * sizeof(int), 11, 4);
  p.kind = cudaMemcpyDeviceToHost;
  CHECK(cudaMemcpy3DAsync(&p, s));
  CHECK(cudaStreamSynchronize(s));
  for (int z = 0; z < D; ++z)
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x) {
        int expect = 0;
        if (x >= 4 && x < 34 && y < 11 && z >= 1)
          expect = h[((z - 1) * H + (y + 2)) * W + (x - 4 + 1)] + 5;
        int i = (z * H + y) * W + x;
        if (hc[i] != expect)
          return fail("c", i, hc[i], expect);
      }

  // cudaMemcpyPeer from device 0 to device 0.
  const int n = 1000;
  int *src, *dst;
  CHECK(cudaMalloc(&src, n * sizeof(int)));
  CHECK(cudaMalloc(&dst, n * sizeof(int)));
  std::vector<int> hs(n);
  for (int i = 0; i < n; ++i)
    hs[i] = i * i - 17;
  CHECK(cudaMemcpy(src, hs.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dst, 0, n * sizeof(int)));
  CHECK(cudaMemcpyPeer(dst + 10, 0, src, 0, (n - 20) * sizeof(int)));
  CHECK(cudaMemcpyPeerAsync(dst, 0, src + 500, 0, 10 * sizeof(int), s));
  CHECK(cudaStreamSynchronize(s));
  std::vector<int> hd(n);
  CHECK(cudaMemcpy(hd.data(), dst, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    int expect = i < 10 ? hs[500 + i] : i < n - 10 ? hs[i - 10] : 0;
    if (hd[i] != expect)
      return fail("peer", i, hd[i], expect);
  }

  // Mapped pinned memory: the kernel reads and writes host memory through its device pointer.
  CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));
  int *hin, *hout, *din, *dout;
  CHECK(cudaHostAlloc(&hin, n * sizeof(int), cudaHostAllocMapped));
  CHECK(cudaHostAlloc(&hout, n * sizeof(int), cudaHostAllocMapped));
  CHECK(cudaHostGetDevicePointer(&din, hin, 0));
  CHECK(cudaHostGetDevicePointer(&dout, hout, 0));
  for (int i = 0; i < n; ++i) {
    hin[i] = 1000 - 2 * i;
    hout[i] = 0;
  }
  mapped<<<(n + 127) / 128, 128>>>(din, dout, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  for (int i = 0; i < n; ++i)
    if (hout[i] != 3 * (1000 - 2 * i) + 1)
      return fail("mapped", i, hout[i], 3 * (1000 - 2 * i) + 1);

  // Registered memory (cudaHostRegister): two ordinary host vectors, one read-only, that the
  // kernel dereferences through their device pointers and through the host pointers themselves
  // (cudaDevAttrCanUseHostPointerForRegisteredMem); unregistered, the same vector is refused.
  std::vector<int> rin(n), rout(n, 0);
  for (int i = 0; i < n; ++i)
    rin[i] = 7 * i - 300;
  CHECK(cudaHostRegister(rin.data(), n * sizeof(int), cudaHostRegisterReadOnly));
  CHECK(cudaHostRegister(rout.data(), n * sizeof(int), cudaHostRegisterMapped));
  int hostPointer = 0;
  CHECK(cudaDeviceGetAttribute(&hostPointer, cudaDevAttrCanUseHostPointerForRegisteredMem, 0));
  if (hostPointer != 1)
    return fail("cudaDevAttrCanUseHostPointerForRegisteredMem", 0, hostPointer, 1);
  CHECK(cudaHostGetDevicePointer(&din, rin.data(), 0));
  CHECK(cudaHostGetDevicePointer(&dout, rout.data(), 0));
  mapped<<<(n + 127) / 128, 128>>>(din, dout, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  for (int i = 0; i < n; ++i)
    if (rout[i] != 3 * (7 * i - 300) + 1)
      return fail("registered", i, rout[i], 3 * (7 * i - 300) + 1);
  mapped<<<(n + 127) / 128, 128>>>(rout.data(), rout.data(), n); // in place, host pointers
  CHECK(cudaDeviceSynchronize());
  for (int i = 0; i < n; ++i)
    if (rout[i] != 3 * (3 * (7 * i - 300) + 1) + 1)
      return fail("registered, host pointer", i, rout[i], 3 * (3 * (7 * i - 300) + 1) + 1);
  if (cudaHostRegister(rout.data() + 1, sizeof(int), 0) != cudaErrorHostMemoryAlreadyRegistered)
    return fail("registering inside a registered range", 0, 0, 0);
  if (cudaFreeHost(rin.data()) == cudaSuccess)
    return fail("cudaFreeHost of registered memory", 0, 0, 0);
  CHECK(cudaHostUnregister(rin.data()));
  CHECK(cudaHostUnregister(rout.data()));
  if (cudaHostUnregister(rout.data()) != cudaErrorHostMemoryNotRegistered)
    return fail("unregistering twice", 0, 0, 0);
  if (cudaHostGetDevicePointer(&dout, rout.data(), 0) == cudaSuccess)
    return fail("device pointer of unregistered memory", 0, 0, 0);
  cudaGetLastError();

  CHECK(cudaFreeHost(hin));
  CHECK(cudaFreeHost(hout));
  CHECK(cudaFree(src));
  CHECK(cudaFree(dst));
  CHECK(cudaFree(a.ptr));
  CHECK(cudaFree(b.ptr));
  CHECK(cudaStreamDestroy(s));
  std::printf("PASS\n");
  return 0;
}
