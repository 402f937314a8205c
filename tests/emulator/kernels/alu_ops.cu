// Emulator test kernel: a spread of integer, bit, 64-bit, conversion and FP32/FP64 operations with
// exactly defined results (no float division, no transcendental approximations), so that the
// emulator's ALU semantics are checked bit for bit against the host. Each work-item writes
// NumOut 32-bit results and one double.
#include "emu_shim.h"

#define NUM_OUT 26

extern "C" __global__ void alu_ops(const unsigned *__restrict__ A, const unsigned *__restrict__ B,
                                   const float *__restrict__ F, const float *__restrict__ G,
                                   unsigned *__restrict__ Out, double *__restrict__ D, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I >= N)
    return;
  unsigned a = A[I], b = B[I];
  int sa = static_cast<int>(a), sb = static_cast<int>(b);
  float f = F[I], g = G[I];
  unsigned *O = Out + static_cast<long>(I) * NUM_OUT;
  O[0] = a * 3u + b;
  O[1] = static_cast<unsigned>((static_cast<unsigned long long>(a) * b) >> 32);
  O[2] = static_cast<unsigned>((static_cast<long long>(sa) * sb) >> 32);
  O[3] = static_cast<unsigned>(sa >> (b & 31)) ^ (a << (b & 7));
  O[4] = static_cast<unsigned>(sa < sb ? sa : sb) + (a > b ? a : b);
  O[5] = __builtin_popcount(a) + __builtin_clz(a | 1) * 64 + __builtin_ctz(b | 0x80000000u) * 4096;
  O[6] = __builtin_bitreverse32(a) ^ ((a & 0xff00ff) | (b ^ 0x5a5a));
  O[7] = __builtin_bit_cast(unsigned, static_cast<float>(a)) ^
         __builtin_bit_cast(unsigned, static_cast<float>(sb));
  O[8] = static_cast<unsigned>(static_cast<int>(f)) +
         static_cast<unsigned>(static_cast<int>(g * 3.0f));
  O[9] = __builtin_bit_cast(unsigned, __builtin_fminf(f, g));
  O[10] = __builtin_bit_cast(unsigned, __builtin_fmaxf(f, g));
  O[11] = __builtin_bit_cast(unsigned, __builtin_floorf(f)) ^
          __builtin_bit_cast(unsigned, __builtin_ceilf(g));
  O[12] = __builtin_bit_cast(unsigned, __builtin_truncf(f)) +
          __builtin_bit_cast(unsigned, __builtin_rintf(g));
  O[13] = __builtin_bit_cast(unsigned, __builtin_fabsf(f) * g - f);
  O[14] = f > g ? a : b;
  unsigned long long w =
      static_cast<unsigned long long>(a) * b + (static_cast<unsigned long long>(b) << 7);
  O[15] = static_cast<unsigned>(w >> (a & 31)) ^ static_cast<unsigned>(w >> 32);
  O[16] = static_cast<unsigned>(sa / 7) + static_cast<unsigned>(sb % 13);
  O[17] = a % (b | 1u);
  O[18] = __builtin_bit_cast(unsigned, __builtin_sqrtf(__builtin_fabsf(f)));
  O[19] = static_cast<unsigned short>(a * b) |
          (static_cast<unsigned>(static_cast<unsigned short>(a >> 16) * 3u) << 16);
  O[20] = (a >> 5) & 0x3ff;
  O[21] = __builtin_bit_cast(unsigned, __builtin_ldexpf(f, static_cast<int>(b & 15) - 8));
  O[22] = static_cast<unsigned>(static_cast<long long>(sa) * 5 / 3);
  O[23] = __builtin_bit_cast(unsigned, f *g + (f - g) * 0.25f);
  // GFX11+ fuse these into v_maxmin_f32 and v_minmax_u32.
  O[24] = __builtin_bit_cast(unsigned, __builtin_fminf(__builtin_fmaxf(f, g), f * 0.5f));
  O[25] = (a < b ? a : b) > (a ^ b) ? (a < b ? a : b) : (a ^ b);
  D[I] = static_cast<double>(f) * static_cast<double>(g) + static_cast<double>(sa);
}
