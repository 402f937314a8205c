// CUB's block-level primitives (BlockRadixSort, BlockScan, BlockReduce, WarpReduce), libcu++'s
// cuda::atomic_ref at device and block scope with several memory orders, and half/bfloat16
// intrinsics (__habs, hsqrt, __hfma, bf16 multiply, __hmax2), as nvcc -arch=sm_80 builds them.
// Expected values from host computations: std::sort, sums and maxima, and the float results
// rounded to half or bfloat16 (hsqrt is sqrt.approx.f32 rounded to half; no input's square root
// lies within 2^-16 of a half rounding midpoint, so it is the correctly rounded one).
#include "check.h"
#include <algorithm>
#include <cmath>
#include <cub/cub.cuh>
#include <cuda/atomic>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

constexpr int BT = 128, IPT = 4;
__global__ void blockSort(const unsigned *in, unsigned *out) {
  using Sort = cub::BlockRadixSort<unsigned, BT, IPT>;
  __shared__ typename Sort::TempStorage tmp;
  unsigned k[IPT];
  cub::LoadDirectBlocked(threadIdx.x, in + blockIdx.x * BT * IPT, k);
  Sort(tmp).Sort(k);
  cub::StoreDirectBlocked(threadIdx.x, out + blockIdx.x * BT * IPT, k);
}
__global__ void blockScanReduce(const int *in, int *scan, int *sums) {
  using Scan = cub::BlockScan<int, BT>;
  using Reduce = cub::BlockReduce<int, BT>;
  using WR = cub::WarpReduce<int>;
  __shared__ typename Scan::TempStorage ts;
  __shared__ typename Reduce::TempStorage tr;
  __shared__ typename WR::TempStorage tw[BT / 32];
  int v = in[blockIdx.x * BT + threadIdx.x], s;
  Scan(ts).ExclusiveSum(v, s);
  scan[blockIdx.x * BT + threadIdx.x] = s;
  int t = Reduce(tr).Reduce(v, cuda::maximum<>{});
  int w = WR(tw[threadIdx.x / 32]).Sum(v);
  if (threadIdx.x == 0)
    sums[blockIdx.x * 8] = t;
  if (threadIdx.x % 32 == 0)
    sums[blockIdx.x * 8 + 1 + threadIdx.x / 32] = w;
}
__global__ void atomics(unsigned long long *c, int *m) {
  cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> a(*c);
  a.fetch_add(threadIdx.x + 1, cuda::memory_order_relaxed);
  cuda::atomic_ref<int, cuda::thread_scope_block> b(m[blockIdx.x]);
  b.fetch_max(int(threadIdx.x * 7 % 101), cuda::memory_order_acq_rel);
  b.fetch_min(1000, cuda::memory_order_seq_cst);
}
__global__ void halfMath(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  __half h = __float2half(x[i]);
  __nv_bfloat16 b = __float2bfloat16(x[i]);
  y[4 * i + 0] = __half2float(hsqrt(__habs(h)));
  y[4 * i + 1] = __half2float(__hfma(h, h, __float2half(1.0f)));
  y[4 * i + 2] = __bfloat162float(__hmul(b, b));
  __half2 p = __halves2half2(h, __hneg(h));
  y[4 * i + 3] = __half2float(__low2half(__hmax2(p, __float2half2_rn(0.25f))));
}
int main() {
  const int NB = 8;
  std::vector<unsigned> keys(NB * BT * IPT);
  unsigned st = 12345;
  for (auto &k : keys) {
    st = st * 1664525u + 1013904223u;
    k = st;
  }
  unsigned *dk = toDevice(keys), *dout;
  CHECK(cudaMalloc(&dout, keys.size() * 4));
  blockSort<<<NB, BT>>>(dk, dout);
  auto sorted = toHost(dout, keys.size());
  for (int b = 0; b < NB; ++b) {
    std::vector<unsigned> r(keys.begin() + b * BT * IPT, keys.begin() + (b + 1) * BT * IPT);
    std::sort(r.begin(), r.end());
    for (int i = 0; i < BT * IPT; ++i)
      expect(sorted[b * BT * IPT + i] == r[i], "block sort", b * 1000 + i);
  }
  std::vector<int> in(NB * BT);
  for (int i = 0; i < NB * BT; ++i)
    in[i] = (i * 37) % 91 - 40;
  int *din = toDevice(in), *ds, *dsum;
  CHECK(cudaMalloc(&ds, in.size() * 4));
  CHECK(cudaMalloc(&dsum, NB * 8 * 4));
  blockScanReduce<<<NB, BT>>>(din, ds, dsum);
  auto sc = toHost(ds, in.size());
  auto su = toHost(dsum, NB * 8);
  for (int b = 0; b < NB; ++b) {
    int acc = 0, mx = -1000;
    for (int t = 0; t < BT; ++t) {
      expect(sc[b * BT + t] == acc, "scan", b * BT + t);
      acc += in[b * BT + t];
      mx = std::max(mx, in[b * BT + t]);
    }
    expect(su[b * 8] == mx, "block max", b);
    for (int w = 0; w < 4; ++w) {
      int s = 0;
      for (int l = 0; l < 32; ++l)
        s += in[b * BT + w * 32 + l];
      expect(su[b * 8 + 1 + w] == s, "warp sum", b * 4 + w);
    }
  }
  unsigned long long *c;
  int *m;
  CHECK(cudaMalloc(&c, 8));
  CHECK(cudaMemset(c, 0, 8));
  CHECK(cudaMalloc(&m, 4 * 4));
  CHECK(cudaMemset(m, 0, 16));
  atomics<<<4, 256>>>(c, m);
  auto hc = toHost(c, 1);
  auto hm = toHost(m, 4);
  expect(hc[0] == 4ull * 256 * 257 / 2, "atomic_ref add", long(hc[0]));
  int mx = 0;
  for (int t = 0; t < 256; ++t)
    mx = std::max(mx, t * 7 % 101);
  for (int b = 0; b < 4; ++b)
    expect(hm[b] == mx, "atomic_ref max", hm[b]);
  const int n = 300;
  std::vector<float> x(n);
  for (int i = 0; i < n; ++i)
    x[i] = (i - 150) * 0.0625f;
  float *dx = toDevice(x), *dy;
  CHECK(cudaMalloc(&dy, 4 * n * 4));
  halfMath<<<3, 128>>>(dx, dy, n);
  auto y = toHost(dy, 4 * n);
  for (int i = 0; i < n; ++i) {
    float h = x[i]; // exactly representable in half and bf16
    expect(y[4 * i] == __half2float(__float2half(std::sqrt(std::fabs(h)))), "hsqrt(habs)", i);
    expect(y[4 * i + 1] == __half2float(__float2half(std::fma(h, h, 1.0f))), "hfma", i);
    expect(y[4 * i + 2] == __bfloat162float(__float2bfloat16(h * h)), "bf16 mul", i);
    expect(y[4 * i + 3] == std::max(h, 0.25f), "hmax2", i);
  }
  if (failures) {
    std::printf("%d failures\n", failures);
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}
