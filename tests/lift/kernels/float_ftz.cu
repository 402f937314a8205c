// Flush-to-zero arithmetic (compiled with -ftz=true: add/sub/mul/fma/min/max .ftz.f32) and
// non-coherent loads (ld.global.nc through const __restrict__ pointers).
extern "C" __global__ void float_ftz(const float *__restrict__ a, const float *__restrict__ b,
                                     float *__restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float x = a[i], y = b[i];
    out[5 * i + 0] = x + y;
    out[5 * i + 1] = x * y;
    out[5 * i + 2] = __fmaf_rn(x, y, 1.0e-38f);
    out[5 * i + 3] = fminf(x, y);
    out[5 * i + 4] = x - fmaxf(x, y);
  }
}
