// Warp-level code as nvcc writes it for sm_80: cooperative groups' tiles narrower than a warp
// reduce with redux.sync, each tile naming only its own lanes in the member mask while the tiles
// of one warp execute together; __match_any_sync and __reduce_*_sync over the warp; a
// coalesced_group formed by a divergent branch; 64-bit shuffles (split into two 32-bit ones); a
// warp-per-row argmax with shuffles; half2 and bfloat162 arithmetic. Every value is checked
// against a host computation.
#include "check.h"
#include <algorithm>
#include <cmath>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <vector>

namespace cg = cooperative_groups;

// Tiles of 16, 8 and 4 threads: each sums and maximizes its own values.
template <unsigned Size> __device__ void tileReduce(const int *in, int *out) {
  auto tile = cg::tiled_partition<Size>(cg::this_thread_block());
  int v = in[threadIdx.x];
  int sum = cg::reduce(tile, v, cg::plus<int>());
  int max = cg::reduce(tile, v, cg::greater<int>());
  unsigned all = cg::reduce(tile, unsigned(v), cg::bit_xor<unsigned>());
  out[threadIdx.x * 3 + 0] = sum;
  out[threadIdx.x * 3 + 1] = max;
  out[threadIdx.x * 3 + 2] = int(all);
}
__global__ void tiles16(const int *in, int *out) { tileReduce<16>(in, out); }
__global__ void tiles8(const int *in, int *out) { tileReduce<8>(in, out); }
__global__ void tiles4(const int *in, int *out) { tileReduce<4>(in, out); }

// Over the whole warp: lanes holding the same value class, and two reductions.
__global__ void warpMatch(const int *in, unsigned *match, int *red) {
  int v = in[threadIdx.x];
  match[threadIdx.x] = __match_any_sync(0xffffffffu, v & 7);
  red[threadIdx.x] = int(__reduce_add_sync(0xffffffffu, unsigned(v))) +
                     int(__reduce_max_sync(0xffffffffu, unsigned(v)));
}

// The threads whose value is a multiple of 3 form a coalesced group: their rank within it and
// the group's sum.
__global__ void coalesced(const int *in, int *out) {
  int v = in[threadIdx.x];
  if (v % 3 == 0) {
    cg::coalesced_group g = cg::coalesced_threads();
    out[threadIdx.x] = int(g.thread_rank()) * 10000 + cg::reduce(g, v, cg::plus<int>());
  } else {
    out[threadIdx.x] = -1;
  }
}

__global__ void shfl64(const double *d, double *od, const long long *l, long long *ol) {
  int t = threadIdx.x;
  od[t] = __shfl_sync(0xffffffffu, d[t], (t * 7 + 3) & 31) + __shfl_down_sync(0xffffffffu, d[t], 3);
  ol[t] = __shfl_up_sync(0xffffffffu, l[t], 5) ^ __shfl_xor_sync(0xffffffffu, l[t], 9);
}

// One warp per row: the index of the row's largest value (the lowest index among equals).
__global__ void argmax(const float *v, int n, int *idx, float *val) {
  int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x % 32;
  float best = -INFINITY;
  int bestI = -1;
  for (int i = lane; i < n; i += 32)
    if (v[row * n + i] > best) {
      best = v[row * n + i];
      bestI = i;
    }
  for (int o = 16; o; o >>= 1) {
    float b = __shfl_xor_sync(0xffffffffu, best, o);
    int i = __shfl_xor_sync(0xffffffffu, bestI, o);
    if (b > best || (b == best && i < bestI)) {
      best = b;
      bestI = i;
    }
  }
  if (lane == 0) {
    idx[row] = bestI;
    val[row] = best;
  }
}

__global__ void halves(const __half2 *a, const __half2 *b, __half2 *c, const __nv_bfloat162 *x,
                       const __nv_bfloat162 *y, __nv_bfloat162 *z) {
  int t = threadIdx.x;
  c[t] = __hfma2(a[t], b[t], __hmul2(a[t], a[t]));
  c[64 + t] = __hmax2(a[t], b[t]);
  c[128 + t] = __hsub2(__habs2(a[t]), b[t]);
  z[t] = __hfma2(x[t], y[t], x[t]);
  z[64 + t] = __hmin2(x[t], y[t]);
}

void checkTiles() {
  std::vector<int> in(64);
  for (int t = 0; t < 64; ++t)
    in[t] = (t * 37 + 11) % 50;
  int *dIn = toDevice(in), *dOut;
  CHECK(cudaMalloc(&dOut, 64 * 3 * sizeof(int)));
  void (*kernels[])(const int *, int *) = {tiles16, tiles8, tiles4};
  for (unsigned k = 0; k < 3; ++k) {
    unsigned size = 16u >> k;
    kernels[k]<<<1, 64>>>(dIn, dOut);
    CHECK(cudaGetLastError());
    std::vector<int> out = toHost(dOut, 64 * 3);
    for (int t = 0; t < 64; ++t) {
      int first = t / int(size) * int(size), sum = 0, max = -1;
      unsigned x = 0;
      for (int j = first; j < first + int(size); ++j) {
        sum += in[j];
        max = std::max(max, in[j]);
        x ^= unsigned(in[j]);
      }
      expect(out[t * 3] == sum && out[t * 3 + 1] == max && out[t * 3 + 2] == int(x), "tile reduce",
             t);
    }
  }
  unsigned *dMatch;
  CHECK(cudaMalloc(&dMatch, 64 * sizeof(unsigned)));
  warpMatch<<<1, 64>>>(dIn, dMatch, dOut);
  CHECK(cudaGetLastError());
  std::vector<unsigned> match = toHost(dMatch, 64);
  std::vector<int> red = toHost(dOut, 64);
  for (int t = 0; t < 64; ++t) {
    int w = t / 32 * 32, sum = 0, max = 0;
    unsigned m = 0;
    for (int j = 0; j < 32; ++j) {
      m |= unsigned((in[w + j] & 7) == (in[t] & 7)) << j;
      sum += in[w + j];
      max = std::max(max, in[w + j]);
    }
    expect(match[t] == m, "__match_any_sync", t);
    expect(red[t] == sum + max, "__reduce_add_sync + __reduce_max_sync", t);
  }
  std::vector<int> in3(64);
  for (int t = 0; t < 64; ++t)
    in3[t] = (t * 5 + 1) % 17;
  CHECK(cudaMemcpy(dIn, in3.data(), 64 * sizeof(int), cudaMemcpyHostToDevice));
  coalesced<<<1, 64>>>(dIn, dOut);
  CHECK(cudaGetLastError());
  std::vector<int> co = toHost(dOut, 64);
  for (int t = 0; t < 64; ++t) {
    int w = t / 32 * 32, rank = 0, total = 0;
    for (int j = w; j < w + 32; ++j)
      if (in3[j] % 3 == 0) {
        rank += j < t;
        total += in3[j];
      }
    expect(co[t] == (in3[t] % 3 == 0 ? rank * 10000 + total : -1), "coalesced group", t);
  }
}

void checkShuffles() {
  std::vector<double> d(32);
  std::vector<long long> l(32);
  for (int t = 0; t < 32; ++t) {
    d[t] = t * 1.5 + 1e10;
    l[t] = (long long)t * 0x100000001LL - 7;
  }
  double *dD = toDevice(d), *dOd;
  long long *dL = toDevice(l), *dOl;
  CHECK(cudaMalloc(&dOd, 32 * sizeof(double)));
  CHECK(cudaMalloc(&dOl, 32 * sizeof(long long)));
  shfl64<<<1, 32>>>(dD, dOd, dL, dOl);
  CHECK(cudaGetLastError());
  std::vector<double> od = toHost(dOd, 32);
  std::vector<long long> ol = toHost(dOl, 32);
  for (int t = 0; t < 32; ++t) {
    expect(od[t] == d[(t * 7 + 3) & 31] + d[t + 3 < 32 ? t + 3 : t], "64-bit shfl idx + down", t);
    expect(ol[t] == (l[t >= 5 ? t - 5 : t] ^ l[t ^ 9]), "64-bit shfl up ^ bfly", t);
  }

  const int rows = 8, n = 100;
  std::vector<float> v(rows * n);
  for (int i = 0; i < rows * n; ++i)
    v[i] = float((i * 7919) % 1013) - float(i % 13) * 0.5f;
  float *dV = toDevice(v), *dVal;
  int *dIdx;
  CHECK(cudaMalloc(&dVal, rows * sizeof(float)));
  CHECK(cudaMalloc(&dIdx, rows * sizeof(int)));
  argmax<<<rows / 4, 128>>>(dV, n, dIdx, dVal);
  CHECK(cudaGetLastError());
  std::vector<int> idx = toHost(dIdx, rows);
  std::vector<float> val = toHost(dVal, rows);
  for (int r = 0; r < rows; ++r) {
    int best = 0;
    for (int j = 1; j < n; ++j)
      if (v[r * n + j] > v[r * n + best])
        best = j;
    expect(idx[r] == best && val[r] == v[r * n + best], "argmax", r);
  }
}

void checkHalves() {
  std::vector<__half2> a(64), b(64);
  std::vector<__nv_bfloat162> x(64), y(64);
  for (int t = 0; t < 64; ++t) {
    a[t] = __floats2half2_rn(t * 0.25f - 3.0f, 1.0f / float(t + 1));
    b[t] = __floats2half2_rn(2.5f - t * 0.125f, t * 3.0f);
    x[t] = __floats2bfloat162_rn(t * 1.1f - 20.0f, 0.3f * t);
    y[t] = __floats2bfloat162_rn(7.0f - t, -0.01f * t);
  }
  __half2 *dA = toDevice(a), *dB = toDevice(b), *dC;
  __nv_bfloat162 *dX = toDevice(x), *dY = toDevice(y), *dZ;
  CHECK(cudaMalloc(&dC, 192 * sizeof(__half2)));
  CHECK(cudaMalloc(&dZ, 128 * sizeof(__nv_bfloat162)));
  halves<<<1, 64>>>(dA, dB, dC, dX, dY, dZ);
  CHECK(cudaGetLastError());
  std::vector<__half2> c = toHost(dC, 192);
  std::vector<__nv_bfloat162> z = toHost(dZ, 128);
  auto lo = [](__half2 h) { return double(__low2float(h)); };
  auto hi = [](__half2 h) { return double(__high2float(h)); };
  auto blo = [](__nv_bfloat162 h) { return double(__low2float(h)); };
  auto bhi = [](__nv_bfloat162 h) { return double(__high2float(h)); };
  auto h = [](double v) { return double(__half2float(__double2half(v))); }; // one rounding
  auto bf = [](double v) { return double(__bfloat162float(__double2bfloat16(v))); };
  for (int t = 0; t < 64; ++t) {
    // Products of halves and of bfloat16s, and their sums here, are exact in double.
    double a0 = lo(a[t]), a1 = hi(a[t]), b0 = lo(b[t]), b1 = hi(b[t]);
    expect(lo(c[t]) == h(a0 * b0 + h(a0 * a0)) && hi(c[t]) == h(a1 * b1 + h(a1 * a1)), "__hfma2",
           t);
    expect(lo(c[64 + t]) == std::max(a0, b0) && hi(c[64 + t]) == std::max(a1, b1), "__hmax2", t);
    expect(lo(c[128 + t]) == h(std::fabs(a0) - b0) && hi(c[128 + t]) == h(std::fabs(a1) - b1),
           "__hsub2(__habs2)", t);
    double x0 = blo(x[t]), x1 = bhi(x[t]), y0 = blo(y[t]), y1 = bhi(y[t]);
    expect(blo(z[t]) == bf(x0 * y0 + x0) && bhi(z[t]) == bf(x1 * y1 + x1), "bf16 __hfma2", t);
    expect(blo(z[64 + t]) == std::min(x0, y0) && bhi(z[64 + t]) == std::min(x1, y1), "bf16 __hmin2",
           t);
  }
}

int main() {
  checkTiles();
  checkShuffles();
  checkHalves();
  if (failures)
    return 1;
  std::printf("PASS\n");
  return 0;
}
