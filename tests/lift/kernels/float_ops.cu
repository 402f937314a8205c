// Float operations with exact PTX semantics: fma, neg, abs, min, max, mul, sub (no division:
// see float_div.cu).
extern "C" __global__ void float_ops(const float *a, const float *b, const float *c, float *out,
                                     int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float x = a[i], y = b[i], z = c[i];
    out[6 * i + 0] = __fmaf_rn(x, y, z);
    out[6 * i + 1] = -x * y;
    out[6 * i + 2] = fabsf(x) - z;
    out[6 * i + 3] = fminf(x, y);
    out[6 * i + 4] = fmaxf(y, z);
    out[6 * i + 5] = __fmul_rn(x, x) - __fadd_rn(y, z);
  }
}
