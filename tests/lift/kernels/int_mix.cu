// Integer mixes: mul.wide, mul.hi, mad, shifts (signed and unsigned), selp, min/max, 64-bit ops.
extern "C" __global__ void int_mix(const int *a, const unsigned *b, long long *wide, unsigned *out,
                                   int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int x = a[i];
  unsigned y = b[i];
  wide[i] = (long long)x * (long long)(int)y + (long long)i;
  unsigned s = (unsigned)(x >> (y & 31)) + (y >> (x & 31)) + (y << 3);
  unsigned hi = __umulhi(y, (unsigned)x) ^ (unsigned)__mulhi(x, (int)y);
  unsigned m = (unsigned)max(x, (int)y) - (unsigned)min(x, 7) + min(y, 1000u);
  unsigned sel = (x & 1) ? (unsigned)x * 3u + y : y * 5u - (unsigned)x;
  out[4 * i + 0] = s;
  out[4 * i + 1] = hi;
  out[4 * i + 2] = m;
  out[4 * i + 3] = sel ^ ~y | (y & 0xff00);
}
