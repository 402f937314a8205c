// Half-precision arithmetic (PTX ISA 9.7.4): f16 and f16x2 add, sub, mul, fma (.relu, .sat),
// neg, abs, min/max (.NaN), ex2.approx and tanh.approx.
#include <cuda_fp16.h>

extern "C" __global__ void half_arith(const __half *a, const __half *b, const __half *c,
                                      __half *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  __half x = a[i], y = b[i], z = c[i];
  __half *o = out + 12 * i;
  o[0] = __hadd(x, y);
  o[1] = __hsub(x, y);
  o[2] = __hmul(x, y);
  o[3] = __hfma(x, y, z);
  o[4] = __hfma_relu(x, y, z);
  o[5] = __hfma_sat(x, y, z);
  o[6] = __hneg(x);
  o[7] = __habs(x);
  o[8] = __hmin(x, y);
  o[9] = __hmax_nan(x, y);
  o[10] = hexp2(x);
  o[11] = htanh_approx(x);
}

extern "C" __global__ void half2_arith(const __half2 *a, const __half2 *b, const __half2 *c,
                                       __half2 *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  __half2 x = a[i], y = b[i], z = c[i];
  __half2 *o = out + 8 * i;
  o[0] = __hadd2(x, y);
  o[1] = __hsub2(x, y);
  o[2] = __hmul2(x, y);
  o[3] = __hfma2(x, y, z);
  o[4] = __hfma2_relu(x, y, z);
  o[5] = __hmax2(x, y);
  o[6] = __hmin2_nan(x, y);
  o[7] = __hneg2(__habs2(x));
}
