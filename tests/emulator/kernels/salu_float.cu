// Emulator test kernel: float arithmetic on kernel arguments only. Uniform values live in SGPRs,
// and on GFX12 (gfx1201) the backend computes them with SALU float instructions (s_fmac_f32,
// s_cmp_lt_f32, s_cvt_f32_f16, s_trunc_f32, s_max_num_f32, v_s_exp_f32, ...); on the other
// targets the same code runs on the VALU. Every work-item writes the same NUM_OUT results.
#include "emu_shim.h"

#define NUM_OUT 14

extern "C" __global__ void salu_float(float A, float B, float C, _Float16 H,
                                      unsigned *__restrict__ Out) {
  unsigned *O = Out + static_cast<long>(blockIdx.x * blockDim.x + threadIdx.x) * NUM_OUT;
  O[0] = __builtin_bit_cast(unsigned, __builtin_fmaf(A, B, C));
  O[1] = __builtin_bit_cast(unsigned, __builtin_fmaf(A, 2.75f, B));
  O[2] = __builtin_bit_cast(unsigned, __builtin_truncf(A * 3.5f));
  O[3] = __builtin_bit_cast(unsigned, __builtin_floorf(B) + __builtin_ceilf(C));
  O[4] = __builtin_bit_cast(unsigned, static_cast<float>(H) * A);
  O[5] = __builtin_bit_cast(unsigned short, static_cast<_Float16>(A + B));
  O[6] = __builtin_bit_cast(unsigned, __builtin_fmaxf(A, B) - __builtin_fminf(B, C));
  O[7] = unsigned(A < B) | unsigned(A == C) << 1 | unsigned(B != C) << 2 | unsigned(A >= C) << 3 |
         unsigned(!(A < C)) << 4 | unsigned(B <= C) << 5 | unsigned(A > B) << 6;
  O[8] = __builtin_bit_cast(unsigned, __builtin_exp2f(A));
  O[9] = __builtin_bit_cast(unsigned, __builtin_log2f(B));
  O[10] = __builtin_bit_cast(unsigned, __builtin_sqrtf(B));
  O[11] = __builtin_bit_cast(unsigned, __builtin_rintf(C * 1.5f));
  O[12] = __builtin_bit_cast(unsigned short, static_cast<_Float16>(H * H + H));
  O[13] = unsigned(H < static_cast<_Float16>(A)) | unsigned(H != static_cast<_Float16>(1.0f)) << 1;
}
