// bf16 and bf16x2 arithmetic (PTX ISA 9.7.4, sm_90): add, sub, mul, fma (.relu), neg, abs,
// min/max (.NaN, .xorsign.abs).
#include <cuda_bf16.h>

extern "C" __global__ void bf16_arith(const __nv_bfloat16 *a, const __nv_bfloat16 *b,
                                      const __nv_bfloat16 *c, __nv_bfloat16 *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  __nv_bfloat16 x = a[i], y = b[i], z = c[i];
  __nv_bfloat16 *o = out + 10 * i;
  o[0] = __hadd(x, y);
  o[1] = __hsub(x, y);
  o[2] = __hmul(x, y);
  o[3] = __hfma(x, y, z);
  o[4] = __hfma_relu(x, y, z);
  o[5] = __hneg(x);
  o[6] = __habs(x);
  o[7] = __hmin(x, y);
  o[8] = __hmax_nan(x, y);
  o[9] = hexp2(x);
}

extern "C" __global__ void bf162_arith(const __nv_bfloat162 *a, const __nv_bfloat162 *b,
                                       const __nv_bfloat162 *c, __nv_bfloat162 *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  __nv_bfloat162 x = a[i], y = b[i], z = c[i];
  __nv_bfloat162 *o = out + 6 * i;
  o[0] = __hadd2(x, y);
  o[1] = __hmul2(x, y);
  o[2] = __hfma2(x, y, z);
  o[3] = __hmax2(x, y);
  o[4] = __hmin2_nan(x, y);
  o[5] = __hfma2_relu(x, y, z);
}
