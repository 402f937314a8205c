// Scratch (private memory) D16 instructions through inline assembly: loads of a byte or a short
// into one half of a VGPR (the other half kept), and stores of a VGPR's high half (what
// `st.local.u8` of a value shifted right by 16 becomes). GFX9 and GFX11 spell them differently.
#include "emu_shim.h"

#if defined(__gfx1100__) || defined(__gfx1201__)
#define LOAD_D16_HI_B16 "scratch_load_d16_hi_b16"
#define LOAD_D16_I8 "scratch_load_d16_i8"
#define LOAD_D16_HI_U8 "scratch_load_d16_hi_u8"
#define LOAD_D16_B16 "scratch_load_d16_b16"
#define STORE_D16_HI_B8 "scratch_store_d16_hi_b8"
#define STORE_D16_HI_B16 "scratch_store_d16_hi_b16"
#if defined(__gfx1201__)
#define WAIT_STORES "s_wait_storecnt 0x0"
#define WAIT_LOADS "s_wait_loadcnt 0x0"
#else
#define WAIT_STORES "s_waitcnt_vscnt null, 0x0"
#define WAIT_LOADS "s_waitcnt vmcnt(0)"
#endif
#else
#define LOAD_D16_HI_B16 "scratch_load_short_d16_hi"
#define LOAD_D16_I8 "scratch_load_sbyte_d16"
#define LOAD_D16_HI_U8 "scratch_load_ubyte_d16_hi"
#define LOAD_D16_B16 "scratch_load_short_d16"
#define STORE_D16_HI_B8 "scratch_store_byte_d16_hi"
#define STORE_D16_HI_B16 "scratch_store_short_d16_hi"
#define WAIT_STORES "s_waitcnt vmcnt(0)"
#define WAIT_LOADS "s_waitcnt vmcnt(0)"
#endif

// Out[5 * i ...]: four registers after one D16 load each, then the word after two D16 stores.
extern "C" __global__ void scratch_d16(const unsigned *In, unsigned *Out) {
  unsigned I = threadIdx.x;
  volatile unsigned Buf[4];
  Buf[(I + 1) & 3] = In[I] * 3u;
  Buf[I & 3] = In[I];
  unsigned Off =
      (unsigned)(unsigned long)(__attribute__((address_space(5))) volatile unsigned *)&Buf[I & 3];
  unsigned A = 0x11112222u, B = 0x33334444u, C = 0x55556666u, D = 0x77778888u;
  asm volatile(LOAD_D16_HI_B16 " %0, %1, off\n " WAIT_LOADS : "+v"(A) : "v"(Off) : "memory");
  asm volatile(LOAD_D16_I8 " %0, %1, off offset:1\n " WAIT_LOADS : "+v"(B) : "v"(Off) : "memory");
  asm volatile(LOAD_D16_HI_U8 " %0, %1, off offset:3\n " WAIT_LOADS
               : "+v"(C)
               : "v"(Off)
               : "memory");
  asm volatile(LOAD_D16_B16 " %0, %1, off offset:2\n " WAIT_LOADS : "+v"(D) : "v"(Off) : "memory");
  unsigned X = In[I] ^ 0xabcd1234u, Y = In[I] * 7u;
  asm volatile(STORE_D16_HI_B8 " %0, %1, off\n " WAIT_STORES : : "v"(Off), "v"(X) : "memory");
  asm volatile(STORE_D16_HI_B16 " %0, %1, off offset:2\n " WAIT_STORES
               :
               : "v"(Off), "v"(Y)
               : "memory");
  Out[I * 5 + 0] = A;
  Out[I * 5 + 1] = B;
  Out[I * 5 + 2] = C;
  Out[I * 5 + 3] = D;
  Out[I * 5 + 4] = Buf[I & 3];
}
