// What nvcc's device library puts in a kernel: the float and double math functions (inlined PTX
// sequences), 64-bit division and the integer intrinsics, virtual calls on objects in local
// memory (a generic pointer to the stack passed through a vtable), recursion (also 300 frames
// deep under a raised cudaLimitStackSize), a parameter struct of 804 bytes, and atomics (f32,
// f64, u64 max, inc with wrap-around, a CAS loop). Math results
// are checked against the host's libm within the maximum errors the CUDA C++ Programming Guide
// documents for each function; everything else exactly.
#include "check.h"
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

__global__ void mathFloat(const float *x, float *o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = x[i];
  float *r = o + i * 10;
  r[0] = expf(v);
  r[1] = logf(fabsf(v) + 1e-3f);
  r[2] = sinf(v * 30.0f);
  r[3] = cosf(v * 30.0f);
  r[4] = tanhf(v);
  r[5] = erff(v);
  r[6] = powf(fabsf(v) + 0.5f, v * 3.0f);
  r[7] = sqrtf(fabsf(v));
  r[8] = atan2f(v, 0.7f - v);
  r[9] = cbrtf(v * 100.0f);
}

__global__ void mathDouble(const double *x, double *o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  double v = x[i];
  double *r = o + i * 6;
  r[0] = exp(v);
  r[1] = log(fabs(v) + 1e-3);
  r[2] = sin(v * 30.0);
  r[3] = pow(fabs(v) + 0.5, v * 3.0);
  r[4] = sqrt(fabs(v));
  r[5] = tanh(v);
}

__global__ void integers(const unsigned long long *a, const unsigned long long *b,
                         unsigned long long *o, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  unsigned long long x = a[i], y = b[i];
  long long sx = (long long)x, sy = (long long)(y | 1);
  unsigned lo = unsigned(x), hi = unsigned(x >> 32), ylo = unsigned(y);
  unsigned long long *r = o + i * 12;
  r[0] = x / (y | 1);
  r[1] = x % (y | 1);
  r[2] = (unsigned long long)(sx / sy);
  r[3] = (unsigned long long)(sx % sy);
  r[4] = __umul64hi(x, y);
  r[5] = (unsigned long long)__mul64hi(sx, sy);
  r[6] = __popcll(x) + 100 * __clzll(y) + 10000 * __ffsll(x);
  r[7] = __brevll(x);
  r[8] = __byte_perm(lo, ylo, unsigned(y >> 32) & 0x7777);
  r[9] = __funnelshift_l(lo, hi, ylo) |
         ((unsigned long long)__funnelshift_rc(lo, hi, unsigned(y >> 8)) << 32);
  r[10] = lo / (ylo | 1u) + ((unsigned long long)(unsigned)(int(lo) % (int(ylo) | 1)) << 32);
  r[11] = __umulhi(lo, ylo) + ((unsigned long long)__sad(int(lo), int(ylo), 5u) << 32);
}

struct Shape {
  __device__ virtual float area() const = 0;
};
struct Square : Shape {
  float s;
  __device__ explicit Square(float s) : s(s) {}
  __device__ float area() const override { return s * s; }
};
struct Disc : Shape {
  float r;
  __device__ explicit Disc(float r) : r(r) {}
  __device__ float area() const override { return 3.0f * r * r; }
};
__device__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
struct Big {
  int v[200];
  float scale;
};

__global__ void calls(Big big, const int *idx, float *area, int *o) {
  int t = threadIdx.x;
  Disc d(t * 0.5f);
  Square s(t * 0.25f);
  const Shape *shape = (t & 1) ? static_cast<const Shape *>(&d) : &s;
  area[t] = shape->area();
  int local[64];
  for (int k = 0; k < 64; ++k)
    local[k] = k * k + t;
  o[t * 3 + 0] = local[idx[t] & 63] + big.v[(t * 7) % 200];
  o[t * 3 + 1] = fib(t % 15);
  o[t * 3 + 2] = int(big.scale * float(big.v[t]));
}

__global__ void atomics(float *f, double *d, unsigned long long *u, unsigned *inc, int *imin,
                        float *fmax, const float *vals, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  atomicAdd(f, 0.5f);
  atomicAdd(d, double(vals[i]));
  atomicMax(u, (unsigned long long)(vals[i] * 1000.0f) << 20);
  atomicInc(inc, 37u);
  atomicMin(imin, -i * 3 + 100);
  float old = *fmax, assumed;
  do {
    assumed = old;
    old = __int_as_float(atomicCAS(reinterpret_cast<int *>(fmax), __float_as_int(assumed),
                                   __float_as_int(fmaxf(assumed, vals[i]))));
  } while (old != assumed);
  atomicAdd_system(f + 1, 1.0f);
}

uint64_t state = 88172645463325252ull;
uint64_t next() { // xorshift64
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

// The distance of a from the correctly rounded ref (ref computed in a wider type), in units in
// the last place: the measure of the CUDA C++ Programming Guide's "maximum ulp error".
template <typename T, typename R> double ulps(T a, R ref) {
  T r = T(ref);
  if (std::isnan(a) || std::isnan(r))
    return std::isnan(a) && std::isnan(r) ? 0 : 1e9;
  if (std::isinf(a) || std::isinf(r))
    return a == r ? 0 : 1e9;
  return double(std::fabs(a - r) / (std::nextafter(std::fabs(r), T(INFINITY)) - std::fabs(r)));
}

void checkMath() {
  const int n = 512;
  std::vector<float> x(n);
  for (int i = 0; i < n; ++i)
    x[i] = float(int(next() % 20001) - 10000) / 1000.0f;
  float *dx = toDevice(x), *dout;
  CHECK(cudaMalloc(&dout, n * 10 * sizeof(float)));
  mathFloat<<<(n + 127) / 128, 128>>>(dx, dout, n);
  CHECK(cudaGetLastError());
  std::vector<float> o = toHost(dout, n * 10);
  // Maximum ulp errors (CUDA C++ Programming Guide, "Mathematical Functions").
  const char *names[] = {"expf", "logf", "sinf",  "cosf",   "tanhf",
                         "erff", "powf", "sqrtf", "atan2f", "cbrtf"};
  const double bound[] = {2, 1, 2, 2, 2, 2, 4, 0, 3, 1};
  for (int i = 0; i < n; ++i) {
    double v = x[i];
    // The arguments as the kernel rounds them to float, then each function in double.
    double ref[] = {std::exp(v),
                    std::log(double(std::fabs(x[i]) + 1e-3f)),
                    std::sin(double(x[i] * 30.0f)),
                    std::cos(double(x[i] * 30.0f)),
                    std::tanh(v),
                    std::erf(v),
                    std::pow(double(std::fabs(x[i]) + 0.5f), double(x[i] * 3.0f)),
                    std::sqrt(std::fabs(v)),
                    std::atan2(v, double(0.7f - x[i])),
                    std::cbrt(double(x[i] * 100.0f))};
    for (int k = 0; k < 10; ++k)
      expect(ulps(o[i * 10 + k], ref[k]) <= bound[k], names[k], i);
  }

  std::vector<double> xd(n);
  for (int i = 0; i < n; ++i)
    xd[i] = double(int64_t(next() % 2000001) - 1000000) / 100000.0;
  double *dxd = toDevice(xd), *doutd;
  CHECK(cudaMalloc(&doutd, n * 6 * sizeof(double)));
  mathDouble<<<(n + 127) / 128, 128>>>(dxd, doutd, n);
  CHECK(cudaGetLastError());
  std::vector<double> od = toHost(doutd, n * 6);
  const char *namesD[] = {"exp", "log", "sin", "pow", "sqrt", "tanh"};
  const double boundD[] = {1, 1, 2, 2, 0, 1};
  for (int i = 0; i < n; ++i) {
    long double v = xd[i];
    long double ref[] = {expl(v),
                         logl((long double)(std::fabs(xd[i]) + 1e-3)),
                         sinl((long double)(xd[i] * 30.0)),
                         powl((long double)(std::fabs(xd[i]) + 0.5), (long double)(xd[i] * 3.0)),
                         sqrtl(fabsl(v)),
                         tanhl(v)};
    for (int k = 0; k < 6; ++k)
      expect(ulps(od[i * 6 + k], ref[k]) <= boundD[k], namesD[k], i);
  }
}

void checkIntegers() {
  const int n = 512;
  std::vector<unsigned long long> a(n), b(n);
  for (int i = 0; i < n; ++i) {
    a[i] = i % 7 == 0 ? 0x8000000000000000ull : next();
    b[i] = i % 11 == 0 ? ~0ull : next() >> (next() % 64);
  }
  unsigned long long *da = toDevice(a), *db = toDevice(b), *dout;
  CHECK(cudaMalloc(&dout, n * 12 * sizeof(unsigned long long)));
  integers<<<(n + 127) / 128, 128>>>(da, db, dout, n);
  CHECK(cudaGetLastError());
  std::vector<unsigned long long> o = toHost(dout, n * 12);
  for (int i = 0; i < n; ++i) {
    unsigned long long x = a[i], y = b[i], e[12];
    long long sx = (long long)x, sy = (long long)(y | 1);
    unsigned lo = unsigned(x), hi = unsigned(x >> 32), ylo = unsigned(y);
    bool overflow = sx == INT64_MIN && sy == -1; // PTX: the quotient wraps, the remainder is 0
    e[0] = x / (y | 1);
    e[1] = x % (y | 1);
    e[2] = overflow ? x : (unsigned long long)(sx / sy);
    e[3] = overflow ? 0 : (unsigned long long)(sx % sy);
    e[4] = (unsigned long long)(((unsigned __int128)x * y) >> 64);
    e[5] = (unsigned long long)(((__int128)sx * sy) >> 64);
    e[6] = __builtin_popcountll(x) + 100 * (y ? __builtin_clzll(y) : 64) +
           10000 * (x ? __builtin_ctzll(x) + 1 : 0);
    e[7] = 0;
    for (int k = 0; k < 64; ++k)
      e[7] |= ((x >> k) & 1) << (63 - k);
    unsigned char bytes[8];
    std::memcpy(bytes, &lo, 4);
    std::memcpy(bytes + 4, &ylo, 4);
    unsigned sel = unsigned(y >> 32) & 0x7777, perm = 0;
    for (int k = 0; k < 4; ++k)
      perm |= unsigned(bytes[(sel >> (4 * k)) & 7]) << (8 * k);
    e[8] = perm;
    unsigned long long wide = ((unsigned long long)hi << 32) | lo;
    unsigned clamp = std::min(unsigned(y >> 8), 32u);
    e[9] =
        unsigned((wide << (ylo & 31)) >> 32) | ((unsigned long long)unsigned(wide >> clamp) << 32);
    int li = int(lo), yi = int(ylo) | 1;
    unsigned rem = unsigned(li == INT32_MIN && yi == -1 ? 0 : li % yi);
    e[10] = lo / (ylo | 1u) + ((unsigned long long)rem << 32);
    long long diff = (long long)int(lo) - int(ylo);
    e[11] = unsigned(((unsigned long long)lo * ylo) >> 32) +
            ((unsigned long long)(unsigned(diff < 0 ? -diff : diff) + 5u) << 32);
    for (int k = 0; k < 12; ++k)
      expect(o[i * 12 + k] == e[k], "integer intrinsic", i * 100 + k);
  }
}

void checkCalls() {
  Big big;
  for (int k = 0; k < 200; ++k)
    big.v[k] = k * 3 - 50;
  big.scale = 1.5f;
  std::vector<int> idx(64);
  for (int t = 0; t < 64; ++t)
    idx[t] = int(next() % 1000);
  int *di = toDevice(idx), *dout;
  float *darea;
  CHECK(cudaMalloc(&dout, 64 * 3 * sizeof(int)));
  CHECK(cudaMalloc(&darea, 64 * sizeof(float)));
  calls<<<1, 64>>>(big, di, darea, dout);
  CHECK(cudaGetLastError());
  std::vector<float> area = toHost(darea, 64);
  std::vector<int> o = toHost(dout, 64 * 3);
  for (int t = 0; t < 64; ++t) {
    float r = t * 0.5f, s = t * 0.25f;
    expect(area[t] == ((t & 1) ? 3.0f * r * r : s * s), "virtual call", t);
    int k = idx[t] & 63;
    expect(o[t * 3] == k * k + t + big.v[(t * 7) % 200], "local array", t);
    int f0 = 0, f1 = 1;
    for (int j = 0; j < t % 15; ++j) {
      int f2 = f0 + f1;
      f0 = f1;
      f1 = f2;
    }
    expect(o[t * 3 + 1] == f0, "recursion", t);
    expect(o[t * 3 + 2] == int(1.5f * float(big.v[t])), "by-value struct parameter", t);
  }
}

void checkAtomics() {
  const int n = 1000;
  std::vector<float> vals(n);
  for (int i = 0; i < n; ++i)
    vals[i] = float(next() % 100000) / 100.0f;
  float *dv = toDevice(vals), *df, *dfmax;
  double *dd;
  unsigned long long *du;
  unsigned *dinc;
  int *dmin;
  CHECK(cudaMalloc(&df, 2 * sizeof(float)));
  CHECK(cudaMalloc(&dfmax, sizeof(float)));
  CHECK(cudaMalloc(&dd, sizeof(double)));
  CHECK(cudaMalloc(&du, sizeof(unsigned long long)));
  CHECK(cudaMalloc(&dinc, sizeof(unsigned)));
  CHECK(cudaMalloc(&dmin, sizeof(int)));
  CHECK(cudaMemset(df, 0, 2 * sizeof(float)));
  CHECK(cudaMemset(dfmax, 0, sizeof(float)));
  CHECK(cudaMemset(dd, 0, sizeof(double)));
  CHECK(cudaMemset(du, 0, sizeof(unsigned long long)));
  CHECK(cudaMemset(dinc, 0, sizeof(unsigned)));
  int big = 1 << 30;
  CHECK(cudaMemcpy(dmin, &big, sizeof(int), cudaMemcpyHostToDevice));
  atomics<<<(n + 255) / 256, 256>>>(df, dd, du, dinc, dmin, dfmax, dv, n);
  CHECK(cudaGetLastError());
  std::vector<float> f = toHost(df, 2), fmax = toHost(dfmax, 1);
  std::vector<double> d = toHost(dd, 1);
  std::vector<unsigned long long> u = toHost(du, 1);
  std::vector<unsigned> inc = toHost(dinc, 1);
  std::vector<int> imin = toHost(dmin, 1);
  double sum = 0;
  unsigned long long umax = 0;
  float vmax = 0;
  for (int i = 0; i < n; ++i) {
    sum += vals[i];
    umax = std::max(umax, (unsigned long long)(vals[i] * 1000.0f) << 20);
    vmax = std::max(vmax, vals[i]);
  }
  expect(f[0] == 500.0f && f[1] == 1000.0f, "atomicAdd f32", 0);
  // Any order of the double additions is within this of the sum of these 1,000 small values.
  expect(std::fabs(d[0] - sum) <= 1e-9 * sum, "atomicAdd f64", 0);
  expect(u[0] == umax, "atomicMax u64", 0);
  expect(inc[0] == unsigned(n % 38), "atomicInc", 0);
  expect(imin[0] == -(n - 1) * 3 + 100, "atomicMin", 0);
  expect(fmax[0] == vmax, "atomicCAS float maximum", 0);
}

// Recursion 300 frames deep, each with a local array: more stack than the default, so the
// program raises cudaLimitStackSize (32 KiB; its frames take about 24 KiB on an NVIDIA GPU).
__device__ int descend(int n, volatile int *sink) {
  int local[16];
  for (int i = 0; i < 16; ++i)
    local[i] = n + i;
  if (n == 0)
    return local[3];
  int r = descend(n - 1, sink) + local[n % 16];
  sink[0] = local[5];
  return r;
}
__global__ void deepRecursion(int *o, volatile int *sink) {
  o[threadIdx.x] = descend(280 + threadIdx.x, sink);
}

void checkDeepRecursion() {
  CHECK(cudaDeviceSetLimit(cudaLimitStackSize, 32768));
  size_t limit = 0;
  CHECK(cudaDeviceGetLimit(&limit, cudaLimitStackSize));
  expect(limit == 32768, "cudaLimitStackSize", long(limit));
  int *o, *sink;
  CHECK(cudaMalloc(&o, 32 * sizeof(int)));
  CHECK(cudaMalloc(&sink, sizeof(int)));
  deepRecursion<<<1, 32>>>(o, sink);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<int> got = toHost(o, 32);
  for (int t = 0; t < 32; ++t) {
    int n = 280 + t, want = 3; // descend(0) = local[3] = 3
    for (int m = 1; m <= n; ++m)
      want += m + m % 16;
    expect(got[t] == want, "deep recursion", t);
  }
  CHECK(cudaFree(o));
  CHECK(cudaFree(sink));
}

int main() {
  checkMath();
  checkIntegers();
  checkCalls();
  checkAtomics();
  checkDeepRecursion();
  if (failures)
    return 1;
  std::printf("PASS\n");
  return 0;
}
