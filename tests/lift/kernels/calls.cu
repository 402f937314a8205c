// Calls to .func: __noinline__ device functions with scalar, 64-bit and by-value structure
// parameters and return values, recursion, indirect calls through a function pointer table
// (.callprototype), and a device-side assert that does not fire.
#include <assert.h>

struct Pair {
  int lo;
  long long hi;
};

__device__ __noinline__ Pair mix(Pair p, int k, float f) {
  Pair r;
  r.lo = p.lo * k + (int)f;
  r.hi = p.hi - k;
  return r;
}

__device__ __noinline__ unsigned fib(unsigned n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

__device__ __noinline__ int add3(int x) { return x + 3; }
__device__ __noinline__ int mul5(int x) { return x * 5; }
__device__ __noinline__ int neg(int x) { return -x; }
typedef int (*op_t)(int);
__device__ op_t ops[3] = {add3, mul5, neg};

extern "C" __global__ void calls(const int *a, long long *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int x = a[i];
  assert(x != -12345);
  Pair p = {x, (long long)x << 20};
  Pair q = mix(p, i + 1, 0.5f * i);
  out[4 * i + 0] = q.lo;
  out[4 * i + 1] = q.hi;
  out[4 * i + 2] = fib((unsigned)(x & 15));
  out[4 * i + 3] = ops[i % 3](x);
}
