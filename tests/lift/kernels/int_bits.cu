// Integer division and remainder (signed and unsigned, 32 and 64 bits) and bit counting:
// div, rem, popc, clz, brev. (clz.b64 lowers to a clamped v_add_u32 the emulator cannot run yet;
// LiftIRTest checks its lifted form.)
extern "C" __global__ void int_bits(const int *a, const int *b, const long long *c, unsigned *out,
                                    long long *wide, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int x = a[i], y = b[i];
    long long z = c[i];
    out[5 * i + 0] = (unsigned)(x / y);
    out[5 * i + 1] = (unsigned)(x % y);
    out[5 * i + 2] = (unsigned)x / (unsigned)y + (unsigned)x % (unsigned)y;
    out[5 * i + 3] = __popc((unsigned)x) + 100u * __clz(y) + 10000u * __popcll(z);
    out[5 * i + 4] = __brev((unsigned)x) ^ (unsigned)(z >> 7);
    wide[2 * i + 0] = z / (long long)y;
    wide[2 * i + 1] = (long long)((unsigned long long)z % (unsigned long long)(unsigned)y);
  }
}
