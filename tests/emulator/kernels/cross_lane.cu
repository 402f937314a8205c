// Emulator test kernel: the cross-lane instructions that LLVM emits for wave-level code. Each lane
// writes one word per operation (18 words): DPP moves (quad_perm, row_shl/shr/ror, row_mirror,
// row_half_mirror, wave_shr/rol and row_bcast on GFX9; row_share/row_xmask and DPP8 on GFX10+,
// with row/bank masks and bound_ctrl), ds_swizzle_b32 (bit-mask and quad-permute modes),
// v_permlane16/v_permlanex16 (GFX10+) and v_permlane64 (GFX11 wave64). Lanes past N leave first,
// so the sources include inactive lanes.
#include "emu_shim.h"

#define DPP(CTRL, ROW, BANK, BC) __builtin_amdgcn_update_dpp(Old, V, CTRL, ROW, BANK, BC)

extern "C" __global__ void cross_lane(const int *In, int *Out, int N) {
  unsigned I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I >= unsigned(N))
    return;
  int V = In[I], Old = -1 - int(I);
  int *O = Out + I * 18;
  O[0] = DPP(0x1b, 0xf, 0xf, false);  // quad_perm:[3,2,1,0]
  O[1] = DPP(0x101, 0xf, 0xf, false); // row_shl:1
  O[2] = DPP(0x113, 0xf, 0xf, true);  // row_shr:3, bound_ctrl
  O[3] = DPP(0x125, 0xf, 0xf, false); // row_ror:5
  O[4] = DPP(0x140, 0xf, 0xf, false); // row_mirror
  O[5] = DPP(0x141, 0xa, 0xf, false); // row_half_mirror, rows 1 and 3
  O[6] = DPP(0x111, 0xf, 0x5, false); // row_shr:1, banks 0 and 2
#if defined(__gfx90a__) || defined(__gfx942__)
  O[7] = DPP(0x138, 0xf, 0xf, false);  // wave_shr:1
  O[8] = DPP(0x134, 0xf, 0xf, false);  // wave_rol:1
  O[9] = DPP(0x142, 0xa, 0xf, false);  // row_bcast:15, rows 1 and 3
  O[10] = DPP(0x143, 0xc, 0xf, false); // row_bcast:31, rows 2 and 3
#else
  O[7] = DPP(0x153, 0xf, 0xf, false);           // row_share:3
  O[8] = DPP(0x165, 0xf, 0xf, false);           // row_xmask:5
  O[9] = __builtin_amdgcn_mov_dpp8(V, 0x53977); // dpp8:[7,6,5,4,3,2,1,0]
  O[10] = __builtin_amdgcn_permlane16(Old, V, 0x01234567u, 0x89abcdefu, false, false);
#endif
  O[11] = __builtin_amdgcn_ds_swizzle(V, 0x041f); // bit mode: and 0x1f, xor 1
  O[12] = __builtin_amdgcn_ds_swizzle(V, 0x8039); // quad_perm [1,2,3,0]
  O[13] = __builtin_amdgcn_ds_swizzle(V, 0x0c1f); // bit mode: xor 3
#if defined(__gfx1100__)
  O[14] = __builtin_amdgcn_permlanex16(Old, V, 0x76543210u, 0xfedcba98u, false, false);
  if (__builtin_amdgcn_wavefrontsize() == 64)
    O[15] = __builtin_amdgcn_permlane64(V);
#endif
  // A DPP move folded into the operation that reads it, with the same register as both sources
  // (v_add_u32_dpp v, v, v): only src0 is permuted.
  O[16] = V + __builtin_amdgcn_mov_dpp(V, 0xb1, 0xf, 0xf, true);  // quad_perm:[1,0,3,2]
  O[17] = __builtin_amdgcn_mov_dpp(V, 0x128, 0xf, 0xf, true) - V; // row_ror:8
}
