// Directed rounding (PTX ISA 9.7.3): fma.rm/rp.f32, add.rz.f32, mul.rp.f64, cvt.rz.f32.f64,
// cvt.rm.f32.s32, and IEEE division in f64 (div.rn.f64).
extern "C" __global__ void directed(const float *a, const float *b, const float *c,
                                    const double *x, const double *y, const int *k, float *outf,
                                    double *outd, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float *o = outf + 5 * i;
  o[0] = __fmaf_rd(a[i], b[i], c[i]);
  o[1] = __fmaf_ru(a[i], b[i], c[i]);
  o[2] = __fadd_rz(a[i], b[i]);
  o[3] = __double2float_rz(x[i]);
  o[4] = __int2float_rd(k[i]);
  outd[2 * i] = __dmul_ru(x[i], y[i]);
  outd[2 * i + 1] = x[i] / y[i];
}
