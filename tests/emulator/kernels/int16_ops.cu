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

// Pairs of neighbouring 16-bit results, which the SLP vectorizer turns into VOP3P packed
// instructions (v_pk_mad_u16, v_pk_mul_lo_u16, v_pk_lshlrev_b16, v_pk_ashrrev_i16, ...). Each
// work-item takes elements 2I and 2I + 1 and writes 10 results.
extern "C" __global__ void int16_packed(const unsigned short *__restrict__ A,
                                        const unsigned short *__restrict__ B,
                                        const unsigned short *__restrict__ C,
                                        unsigned short *__restrict__ Out, int Pairs) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I >= Pairs)
    return;
  unsigned short *O = Out + static_cast<long>(I) * 10;
  for (int K = 0; K < 2; ++K) {
    unsigned short x = A[2 * I + K], y = B[2 * I + K], z = C[2 * I + K];
    O[K] = static_cast<unsigned short>(x * y + z);
    O[2 + K] = static_cast<unsigned short>(x * y);
    O[4 + K] = static_cast<unsigned short>(y << (z & 15));
    O[6 + K] = static_cast<unsigned short>(static_cast<short>(y) >> (z & 15));
    O[8 + K] = static_cast<unsigned short>(static_cast<short>(x) * static_cast<short>(y) -
                                           static_cast<short>(z));
  }
}
