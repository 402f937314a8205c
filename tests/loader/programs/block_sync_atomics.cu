// Block-wide votes (__syncthreads_count/_and/_or), clock64, %globaltimer, __nanosleep and
// __activemask, and shared-memory atomics: double add, 64-bit unsigned max/min, a failing 64-bit
// CAS, half2 add, and a float maximum through a 32-bit CAS loop. Expected values from host
// computations; every result is independent of the order the threads run in.
#include "check.h"
#include <cuda_fp16.h>
__global__ void k(const int *in, int *out, unsigned long long *times, double *dsum,
                  unsigned long long *u64o, __half2 *ho, float *fo) {
  __shared__ double sd;
  __shared__ unsigned long long su[2];
  __shared__ __half2 sh;
  __shared__ float sf;
  int t = threadIdx.x, v = in[t];
  if (t == 0) {
    sd = 0;
    su[0] = 0;
    su[1] = ~0ull;
    sh = __floats2half2_rn(0, 0);
    sf = -1e30f;
  }
  __syncthreads();
  long long c0 = clock64();
  unsigned long long g0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
  __nanosleep(100);
  int cnt = __syncthreads_count(v > 40);
  int all = __syncthreads_and(v >= 0);
  int any = __syncthreads_or(v > 98);
  atomicAdd(&sd, double(v) * 0.5);
  atomicMax(&su[0], (unsigned long long)v << 33);
  atomicMin(&su[1], (unsigned long long)v + 7);
  atomicCAS(&su[0], 0ull, 1ull); // fails unless su[0]==0
  atomicAdd(&sh, __floats2half2_rn(1.0f, 0.5f));
  // float atomicMax through a CAS loop on shared memory
  float fv = v * 0.25f;
  int *ip = (int *)&sf;
  int o = *ip, a2;
  do {
    a2 = o;
    if (__int_as_float(a2) >= fv)
      break;
    o = atomicCAS(ip, a2, __float_as_int(fv));
  } while (o != a2);
  unsigned am = __activemask();
  __syncthreads();
  long long c1 = clock64();
  unsigned long long g1;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
  out[t * 5 + 0] = cnt;
  out[t * 5 + 1] = all;
  out[t * 5 + 2] = any;
  out[t * 5 + 3] = c1 > c0;
  out[t * 5 + 4] = int(am == 0xffffffffu);
  times[t] = g1 >= g0;
  if (t == 0) {
    *dsum = sd;
    u64o[0] = su[0];
    u64o[1] = su[1];
    *ho = sh;
    *fo = sf;
  }
}
int main() {
  const int T = 256;
  std::vector<int> in(T);
  for (int i = 0; i < T; ++i)
    in[i] = (i * 53) % 100;
  int *di = toDevice(in), *dout;
  unsigned long long *dt, *du;
  double *dd;
  __half2 *dh;
  float *df;
  CHECK(cudaMalloc(&dout, T * 5 * 4));
  CHECK(cudaMalloc(&dt, T * 8));
  CHECK(cudaMalloc(&dd, 8));
  CHECK(cudaMalloc(&du, 16));
  CHECK(cudaMalloc(&dh, 4));
  CHECK(cudaMalloc(&df, 4));
  k<<<1, T>>>(di, dout, dt, dd, du, dh, df);
  auto o = toHost(dout, T * 5);
  auto tm = toHost(dt, T);
  int cnt = 0, any = 0, mx = 0, mn = 1 << 30;
  double s = 0;
  for (int v : in) {
    cnt += v > 40;
    any |= v > 98;
    mx = std::max(mx, v);
    mn = std::min(mn, v);
    s += v * 0.5;
  }
  for (int t = 0; t < T; ++t) {
    expect(o[t * 5] == cnt, "syncthreads_count", t);
    expect(o[t * 5 + 1] == 1, "syncthreads_and", t);
    expect(o[t * 5 + 2] == (any ? 1 : 0), "syncthreads_or", t);
    expect(o[t * 5 + 3] == 1, "clock64 advances", t);
    expect(o[t * 5 + 4] == 1, "activemask", t);
    expect(tm[t] == 1, "globaltimer monotonic", t);
  }
  expect(toHost(dd, 1)[0] == s, "shared atomicAdd double", 0);
  auto u = toHost(du, 2);
  expect(u[0] == (unsigned long long)mx << 33, "shared atomicMax u64", 0);
  expect(u[1] == (unsigned long long)mn + 7, "shared atomicMin u64", 1);
  __half2 h = toHost(dh, 1)[0];
  expect(__low2float(h) == float(T) && __high2float(h) == T * 0.5f, "shared atomicAdd half2", 0);
  expect(toHost(df, 1)[0] == mx * 0.25f, "shared float max via CAS", 0);
  if (failures) {
    std::printf("%d failures\n", failures);
    return 1;
  }
  std::printf("PASS\n");
}
