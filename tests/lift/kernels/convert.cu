// Conversions with rounding modes: float to int (truncating, nearest-even, floor, ceil; saturating,
// NaN to 0), int to float, unsigned, 64-bit, char and short.
extern "C" __global__ void convert(const float *f, const int *k, int *oi, float *of, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float x = f[i];
    int v = k[i];
    oi[6 * i + 0] = (int)x;
    oi[6 * i + 1] = __float2int_rn(x);
    oi[6 * i + 2] = __float2int_rd(x);
    oi[6 * i + 3] = __float2int_ru(x);
    oi[6 * i + 4] = (int)__float2uint_rz(x);
    oi[6 * i + 5] = (int)(signed char)v + (int)(unsigned short)v;
    of[3 * i + 0] = (float)v;
    of[3 * i + 1] = (float)(unsigned)v;
    of[3 * i + 2] = (float)(long long)v * 0.5f + (float)(double)x;
  }
}
