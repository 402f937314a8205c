// Emulator test kernel: 16-bit integer arithmetic that clang keeps in 16-bit VALU instructions
// (v_mad_u16, GFX9's v_mad_legacy_u16, v_mul_lo_u16, v_max_u16, ...), with each result widened
// to 32 bits: on GFX9 the compiler relies on the legacy forms zeroing the high half.
#include "emu_shim.h"

#define NUM_OUT 5

extern "C" __global__ void int16_ops(const unsigned short *__restrict__ A,
                                     const unsigned short *__restrict__ B,
                                     const unsigned short *__restrict__ C,
                                     unsigned *__restrict__ Out, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I >= N)
    return;
  unsigned short x = A[I], y = B[I], z = C[I];
  unsigned *O = Out + static_cast<long>(I) * NUM_OUT;
  O[0] = static_cast<unsigned short>(x * y + z);
  O[1] = static_cast<unsigned>(static_cast<int>(
      static_cast<short>(static_cast<short>(x) * static_cast<short>(-9) + static_cast<short>(z))));
  O[2] = static_cast<unsigned short>(x * static_cast<unsigned short>(23) + y);
  O[3] = static_cast<unsigned short>((x > y ? x : y) - z);
  O[4] = static_cast<unsigned short>(static_cast<unsigned short>(x * y) >> (z & 15));
}
