// CUDA's directed-rounding intrinsics (__fadd_rd/_ru/_rz, __fmul_*, __fdiv_*, __fsqrt_*,
// __frcp_*, __fmaf_*, __dadd_rd, __dmul_ru, __ddiv_rz, __dsqrt_ru, __fma_rd, __double2float_rd)
// and rounding conversions (__float2int_rn/rd/ru, __float2uint_rz, __double2int_rd,
// __int2float_rd, __float2ll_ru, __float2ull_rz, __ll2float_ru), several of them on the same
// operands in one kernel. Expected values: the host's IEEE operations under fesetround.
#include "check.h"
#include <cfenv>
#include <cmath>
#include <cstring>
__global__ void k(const float *a, const float *b, float *o, const double *da, const double *db,
                  double *od, int *oi, long long *ol) {
  int i = threadIdx.x;
  float x = a[i], y = b[i];
  double X = da[i], Y = db[i];
  o[i * 16 + 0] = __fadd_rd(x, y);
  o[i * 16 + 1] = __fadd_ru(x, y);
  o[i * 16 + 2] = __fadd_rz(x, y);
  o[i * 16 + 3] = __fmul_rd(x, y);
  o[i * 16 + 4] = __fmul_ru(x, y);
  o[i * 16 + 5] = __fmul_rz(x, y);
  o[i * 16 + 6] = __fdiv_rd(x, y);
  o[i * 16 + 7] = __fdiv_ru(x, y);
  o[i * 16 + 8] = __fdiv_rz(x, y);
  o[i * 16 + 9] = __fsqrt_rd(fabsf(x));
  o[i * 16 + 10] = __fsqrt_ru(fabsf(x));
  o[i * 16 + 11] = __frcp_rd(y);
  o[i * 16 + 12] = __frcp_ru(y);
  o[i * 16 + 13] = __fmaf_rd(x, y, 1.0f);
  o[i * 16 + 14] = __fmaf_ru(x, y, -1.0f);
  o[i * 16 + 15] = __double2float_rd(X);
  od[i * 6 + 0] = __dadd_rd(X, Y);
  od[i * 6 + 1] = __dmul_ru(X, Y);
  od[i * 6 + 2] = __ddiv_rz(X, Y);
  od[i * 6 + 3] = __dsqrt_ru(fabs(X));
  od[i * 6 + 4] = __fma_rd(X, Y, 0.1);
  od[i * 6 + 5] = __drcp_rn(Y);
  oi[i * 6 + 0] = __float2int_rn(x * 3.3f);
  oi[i * 6 + 1] = __float2int_rd(x * 3.3f);
  oi[i * 6 + 2] = __float2int_ru(x * 3.3f);
  oi[i * 6 + 3] = __float2uint_rz(fabsf(x) * 1000.0f);
  oi[i * 6 + 4] = __double2int_rd(X * 7.1);
  oi[i * 6 + 5] = __float_as_int(__int2float_rd(i * 16777217 + 3));
  ol[i * 3 + 0] = __float2ll_ru(x * 1e10f);
  ol[i * 3 + 1] = (long long)__float2ull_rz(fabsf(y) * 1e12f);
  float t = __ll2float_ru((long long)i * 123456789012345ll + 7);
  long long tb;
  memcpy(&tb, &t, 4);
  ol[i * 3 + 2] = (int)tb;
}
template <typename F> auto withMode(int m, F f) {
  std::fesetround(m);
  volatile auto r = f();
  std::fesetround(FE_TONEAREST);
  return r;
}
int main() {
  const int N = 64;
  std::vector<float> a(N), b(N);
  std::vector<double> da(N), db(N);
  unsigned st = 3;
  auto rnd = [&]() {
    st = st * 1664525u + 1013904223u;
    return st;
  };
  for (int i = 0; i < N; ++i) {
    a[i] = (int(rnd() >> 8) - (1 << 23)) / float(1 << 13) + 0.3f;
    b[i] = (int(rnd() >> 8) - (1 << 23)) / float(1 << 17) + 0.7f;
    da[i] = (double(rnd()) - 2e9) / 3.7e5;
    db[i] = (double(rnd()) + 1) / 1.3e8 - 7.0;
  }
  float *dA = toDevice(a), *dB = toDevice(b), *dO;
  double *dDA = toDevice(da), *dDB = toDevice(db), *dOD;
  int *dOI;
  long long *dOL;
  CHECK(cudaMalloc(&dO, N * 16 * 4));
  CHECK(cudaMalloc(&dOD, N * 6 * 8));
  CHECK(cudaMalloc(&dOI, N * 6 * 4));
  CHECK(cudaMalloc(&dOL, N * 3 * 8));
  k<<<1, N>>>(dA, dB, dO, dDA, dDB, dOD, dOI, dOL);
  auto o = toHost(dO, N * 16);
  auto od = toHost(dOD, N * 6);
  auto oi = toHost(dOI, N * 6);
  auto ol = toHost(dOL, N * 3);
  auto feq = [](float p, float q) { return std::memcmp(&p, &q, 4) == 0; };
  auto deq = [](double p, double q) { return std::memcmp(&p, &q, 8) == 0; };
  for (int i = 0; i < N; ++i) {
    volatile float x = a[i], y = b[i];
    volatile double X = da[i], Y = db[i];
    const int D = FE_DOWNWARD, U = FE_UPWARD, Z = FE_TOWARDZERO;
    float ef[16] = {withMode(D, [&] { return float(x + y); }),
                    withMode(U, [&] { return float(x + y); }),
                    withMode(Z, [&] { return float(x + y); }),
                    withMode(D, [&] { return float(x * y); }),
                    withMode(U, [&] { return float(x * y); }),
                    withMode(Z, [&] { return float(x * y); }),
                    withMode(D, [&] { return float(x / y); }),
                    withMode(U, [&] { return float(x / y); }),
                    withMode(Z, [&] { return float(x / y); }),
                    withMode(D, [&] { return std::sqrt(std::fabs(float(x))); }),
                    withMode(U, [&] { return std::sqrt(std::fabs(float(x))); }),
                    withMode(D, [&] { return float(1.0f / y); }),
                    withMode(U, [&] { return float(1.0f / y); }),
                    withMode(D, [&] { return std::fma(float(x), float(y), 1.0f); }),
                    withMode(U, [&] { return std::fma(float(x), float(y), -1.0f); }),
                    withMode(D, [&] { return float(double(X)); })};
    for (int k = 0; k < 16; ++k)
      expect(feq(o[i * 16 + k], ef[k]), "float directed rounding", i * 16 + k);
    double ed[6] = {withMode(D, [&] { return double(X + Y); }),
                    withMode(U, [&] { return double(X * Y); }),
                    withMode(Z, [&] { return double(X / Y); }),
                    withMode(U, [&] { return std::sqrt(std::fabs(double(X))); }),
                    withMode(D, [&] { return std::fma(double(X), double(Y), 0.1); }),
                    1.0 / Y};
    for (int k = 0; k < 6; ++k)
      expect(deq(od[i * 6 + k], ed[k]), "double directed rounding", i * 6 + k);
    float xs = x * 3.3f;
    int ei[6] = {int(std::nearbyint(xs)),
                 int(std::floor(xs)),
                 int(std::ceil(xs)),
                 int((unsigned)(std::fabs(float(x)) * 1000.0f)),
                 int(std::floor(double(X) * 7.1)),
                 0};
    float fi = withMode(D, [&] { return float(i * 16777217 + 3); });
    std::memcpy(&ei[5], &fi, 4);
    for (int k = 0; k < 6; ++k)
      expect(oi[i * 6 + k] == ei[k], "conversions", i * 6 + k);
    float xe = x * 1e10f;
    float ye = std::fabs(float(y)) * 1e12f;
    expect(ol[i * 3] == (long long)std::ceil(xe), "float2ll_ru", i);
    expect(ol[i * 3 + 1] == (long long)(unsigned long long)ye, "float2ull_rz", i);
    float tf = withMode(U, [&] { return float((long long)i * 123456789012345ll + 7); });
    int tb;
    std::memcpy(&tb, &tf, 4);
    expect(ol[i * 3 + 2] == tb, "ll2float_ru", i);
  }
  if (failures) {
    std::printf("%d failures\n", failures);
    return 1;
  }
  std::printf("PASS\n");
}
