// Atomics of every width and scope nvcc emits for sm_80 (half2, bfloat162, a 16-bit CAS loop on a
// 2-byte allocation, float exchange, wrapping inc/dec, signed 64-bit min/max, block and system
// scope, double add), shuffles of doubles and 64-bit integers and with widths 16 and 8, integer
// intrinsics (__byte_perm, funnel shifts, __brev, 64-bit clz/ffs/popc, __umul64hi, __umulhi,
// __sad) and vector loads and stores with cache hints (__ldcs, __ldg, __stcs, __ldlu, __stwt).
// Expected values from host computations of each operation's CUDA definition; the atomics'
// results do not depend on the order the threads run in.
#include "check.h"
#include <cstdint>
#include <cstring>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

__global__ void atomicsK(__half2 *h2, __nv_bfloat162 *b2, unsigned short *us, float *fx,
                         unsigned *inc, long long *smm, unsigned long long *u64, double *dd) {
  int t = threadIdx.x + blockIdx.x * blockDim.x;
  atomicAdd(h2, __halves2half2(__float2half(1.0f), __float2half(0.5f)));
  atomicAdd(b2, __floats2bfloat162_rn(1.0f, 2.0f));
  unsigned short old = us[0], assumed;
  do {
    assumed = old;
    old = atomicCAS(us, assumed, (unsigned short)(assumed + 3));
  } while (old != assumed);
  atomicExch(fx + (t % 4), float(t));
  atomicInc(inc, 9u);
  atomicDec(inc + 1, 5u);
  atomicMin(smm, (long long)(t)-100);
  atomicMax(smm + 1, (long long)(t) * -3);
  atomicAdd_block(u64, 1ull);
  atomicAdd_system(u64 + 1, 2ull);
  atomicAdd(dd, 0.25);
}
__global__ void shuffles(const double *in, double *out, long long *outl, int *outw) {
  int l = threadIdx.x;
  double v = in[l];
  out[l] = __shfl_xor_sync(0xffffffff, v, 5);
  long long q = (long long)l << 40 | l;
  outl[l] = __shfl_down_sync(0xffffffff, q, 3, 16);
  outw[l] = __shfl_sync(0xffffffff, l * 10, 2, 8);
}
__global__ void intrin(const unsigned *a, unsigned *o) {
  int i = threadIdx.x;
  unsigned x = a[i], y = a[(i + 1) % 64];
  unsigned long long X = (unsigned long long)x << 32 | y;
  o[i * 10 + 0] = __byte_perm(x, y, 0x5140);
  o[i * 10 + 1] = __funnelshift_l(x, y, i % 40);
  o[i * 10 + 2] = __funnelshift_rc(x, y, i % 40);
  o[i * 10 + 3] = __brev(x);
  o[i * 10 + 4] = __clzll(X);
  o[i * 10 + 5] = __ffsll((long long)X);
  o[i * 10 + 6] = __popcll(X);
  o[i * 10 + 7] = (unsigned)(__umul64hi(X, 0x9e3779b97f4a7c15ull) >> 7);
  o[i * 10 + 8] = __umulhi(x, y);
  o[i * 10 + 9] = __sad(int(x), int(y), 17u);
}
struct alignas(16) S4 {
  float a, b, c, d;
};
__global__ void vecmem(const float4 *in, float4 *out, const double2 *d2, double *dsum) {
  int i = threadIdx.x;
  float4 v = __ldcs(in + i);
  float4 w = __ldg(in + (i ^ 1));
  __stcs(out + i, make_float4(v.x + w.x, v.y + w.y, v.z + w.z, v.w + w.w));
  double2 q = __ldlu(d2 + i);
  __stwt(dsum + i, q.x * q.y);
}
int main() {
  __half2 *h2;
  __nv_bfloat162 *b2;
  unsigned short *us;
  float *fx;
  unsigned *inc;
  long long *smm;
  unsigned long long *u64;
  double *dd;
  CHECK(cudaMalloc(&h2, 4));
  CHECK(cudaMemset(h2, 0, 4));
  CHECK(cudaMalloc(&b2, 4));
  CHECK(cudaMemset(b2, 0, 4));
  CHECK(cudaMalloc(&us, 2));
  CHECK(cudaMemset(us, 0, 2));
  CHECK(cudaMalloc(&fx, 16));
  CHECK(cudaMemset(fx, 0, 16));
  CHECK(cudaMalloc(&inc, 8));
  CHECK(cudaMemset(inc, 0, 8));
  std::vector<long long> sm = {1000, -1000000};
  smm = toDevice(sm);
  CHECK(cudaMalloc(&u64, 16));
  CHECK(cudaMemset(u64, 0, 16));
  CHECK(cudaMalloc(&dd, 8));
  CHECK(cudaMemset(dd, 0, 8));
  const int T = 2 * 96;
  atomicsK<<<2, 96>>>(h2, b2, us, fx, inc, smm, u64, dd);
  __half2 hh = toHost(h2, 1)[0];
  __nv_bfloat162 bb = toHost(b2, 1)[0];
  expect(__low2float(hh) == float(T) && __high2float(hh) == T * 0.5f, "atomicAdd half2", 0);
  expect(__low2float(bb) == float(T) && __high2float(bb) == 2.0f * T, "atomicAdd bf162", 0);
  expect(toHost(us, 1)[0] == T * 3, "atomicCAS u16", toHost(us, 1)[0]);
  auto f = toHost(fx, 4);
  for (int k = 0; k < 4; ++k)
    expect(int(f[k]) % 4 == k && f[k] >= 0 && f[k] < T, "atomicExch f32", k);
  auto ic = toHost(inc, 2);
  // inc wraps to 0 after 9: T increments from 0 -> T mod 10; dec from 0 wraps to 5 then counts
  // down.
  expect(ic[0] == unsigned(T % 10), "atomicInc", ic[0]);
  unsigned d = 0;
  for (int k = 0; k < T; ++k)
    d = (d == 0 || d > 5) ? 5 : d - 1;
  expect(ic[1] == d, "atomicDec", ic[1]);
  auto s2 = toHost(smm, 2);
  expect(s2[0] == -100 && s2[1] == 0, "atomicMin/Max s64", long(s2[0]));
  auto u2 = toHost(u64, 2);
  expect(u2[0] == T && u2[1] == 2ull * T, "atomicAdd_block/system", long(u2[0]));
  expect(toHost(dd, 1)[0] == 0.25 * T, "atomicAdd f64", 0);

  std::vector<double> din(32);
  for (int i = 0; i < 32; ++i)
    din[i] = i * 1.5 - 7;
  double *dIn = toDevice(din), *dOut;
  long long *dl;
  int *dw;
  CHECK(cudaMalloc(&dOut, 32 * 8));
  CHECK(cudaMalloc(&dl, 32 * 8));
  CHECK(cudaMalloc(&dw, 32 * 4));
  shuffles<<<1, 32>>>(dIn, dOut, dl, dw);
  auto so = toHost(dOut, 32);
  auto sl = toHost(dl, 32);
  auto sw = toHost(dw, 32);
  for (int l = 0; l < 32; ++l) {
    expect(so[l] == din[l ^ 5], "shfl_xor double", l);
    int src = (l % 16) + 3 < 16 ? l + 3 : l;
    expect(sl[l] == ((long long)src << 40 | src), "shfl_down width 16", l);
    expect(sw[l] == (l / 8 * 8 + 2) * 10, "shfl width 8", l);
  }

  std::vector<unsigned> a(64);
  unsigned st = 99;
  for (auto &v : a) {
    st = st * 1103515245u + 12345u;
    v = st ^ (st >> 7);
  }
  a[3] = 0;
  a[4] = 0;
  a[10] = 0x80000000u;
  unsigned *dA = toDevice(a), *dO;
  CHECK(cudaMalloc(&dO, 640 * 4));
  intrin<<<1, 64>>>(dA, dO);
  auto o = toHost(dO, 640);
  for (int i = 0; i < 64; ++i) {
    unsigned x = a[i], y = a[(i + 1) % 64];
    unsigned long long X = (unsigned long long)x << 32 | y;
    unsigned char b[8];
    std::memcpy(b, &x, 4);
    std::memcpy(b + 4, &y, 4);
    unsigned sel = 0x5140, bp = 0;
    for (int k = 0; k < 4; ++k)
      bp |= unsigned(b[(sel >> (4 * k)) & 7]) << (8 * k);
    expect(o[i * 10] == bp, "byte_perm", i);
    unsigned long long hi_lo = (unsigned long long)y << 32 | x; // funnel: hi = y, lo = x
    unsigned sl1 = (i % 40) & 31;
    expect(o[i * 10 + 1] == unsigned((hi_lo << sl1) >> 32), "funnelshift_l", i);
    unsigned sr = std::min(i % 40, 32);
    expect(o[i * 10 + 2] == unsigned(hi_lo >> sr), "funnelshift_rc", i);
    unsigned r = 0;
    for (int k = 0; k < 32; ++k)
      if (x >> k & 1)
        r |= 1u << (31 - k);
    expect(o[i * 10 + 3] == r, "brev", i);
    expect(o[i * 10 + 4] == unsigned(X ? __builtin_clzll(X) : 64), "clzll", i);
    expect(o[i * 10 + 5] == unsigned(__builtin_ffsll((long long)X)), "ffsll", i);
    expect(o[i * 10 + 6] == unsigned(__builtin_popcountll(X)), "popcll", i);
    expect(o[i * 10 + 7] ==
               unsigned(
                   (unsigned long long)(((unsigned __int128)X * 0x9e3779b97f4a7c15ull) >> 64) >> 7),
           "umul64hi", i);
    expect(o[i * 10 + 8] == unsigned(((unsigned long long)x * y) >> 32), "umulhi", i);
    expect(o[i * 10 + 9] == unsigned(std::llabs((long long)int(x) - int(y)) + 17), "sad", i);
  }

  std::vector<float4> v4(64);
  for (int i = 0; i < 64; ++i)
    v4[i] = make_float4(i, i * 2, -i, 0.5f * i);
  std::vector<double2> q2(64);
  for (int i = 0; i < 64; ++i)
    q2[i] = make_double2(i + 0.5, 3 - i);
  float4 *dv = toDevice(v4), *dvo;
  double2 *dq = toDevice(q2);
  double *ds;
  CHECK(cudaMalloc(&dvo, 64 * 16));
  CHECK(cudaMalloc(&ds, 64 * 8));
  vecmem<<<1, 64>>>(dv, dvo, dq, ds);
  auto vo = toHost(dvo, 64);
  auto dso = toHost(ds, 64);
  for (int i = 0; i < 64; ++i) {
    float4 p = v4[i], w = v4[i ^ 1];
    expect(vo[i].x == p.x + w.x && vo[i].y == p.y + w.y && vo[i].z == p.z + w.z &&
               vo[i].w == p.w + w.w,
           "float4", i);
    expect(dso[i] == (i + 0.5) * (3 - i), "double2", i);
  }
  if (failures) {
    std::printf("%d failures\n", failures);
    return 1;
  }
  std::printf("PASS\n");
}
