// The integer families nvcc rarely emits on its own, written as inline PTX so that each
// instruction is exactly the one under test: bfe, bfi, prmt (every mode), lop3, shf, dp4a, dp2a,
// szext, bmsk, fns, mul24/mad24 (.sat), sad, min/max.relu, mad.hi.sat, carry chains (add.cc,
// addc, sub.cc, subc, mad.cc, madc) on 32 and 64 bits. int_ext_ref.h is the host reference.
#include "int_ext_ref.h"

#define ASM3(op, k) asm(op " %0, %1, %2, %3;" : "=r"(o[k]) : "r"(a), "r"(b), "r"(c))

extern "C" __global__ void int_ext(const unsigned *A, const unsigned *B, const unsigned *C,
                                   unsigned *Out, unsigned long long *Out64, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  unsigned a = A[i], b = B[i], c = C[i];
  unsigned *o = Out + INT_EXT_WORDS * i;
  unsigned long long *o64 = Out64 + INT_EXT_WIDE * i;
  unsigned pos = b % 40, len = c % 40;
  asm("bfe.u32 %0, %1, %2, %3;" : "=r"(o[0]) : "r"(a), "r"(pos), "r"(len));
  asm("bfe.s32 %0, %1, %2, %3;" : "=r"(o[1]) : "r"(a), "r"(pos), "r"(len));
  asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(o[2]) : "r"(a), "r"(c), "r"(pos), "r"(len));
  ASM3("prmt.b32", 3);
  ASM3("prmt.b32.f4e", 4);
  ASM3("prmt.b32.b4e", 5);
  ASM3("prmt.b32.rc8", 6);
  ASM3("prmt.b32.ecl", 7);
  ASM3("prmt.b32.ecr", 8);
  ASM3("prmt.b32.rc16", 9);
  asm("lop3.b32 %0, %1, %2, %3, 0xE8;" : "=r"(o[10]) : "r"(a), "r"(b), "r"(c));
  asm("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(o[11]) : "r"(a), "r"(b), "r"(c));
  asm("lop3.b32 %0, %1, %2, %3, 0x1E;" : "=r"(o[12]) : "r"(a), "r"(b), "r"(c));
  asm("shf.l.clamp.b32 %0, %1, %2, %3;" : "=r"(o[13]) : "r"(a), "r"(b), "r"(len));
  asm("shf.r.clamp.b32 %0, %1, %2, %3;" : "=r"(o[14]) : "r"(a), "r"(b), "r"(len));
  asm("shf.l.wrap.b32 %0, %1, %2, %3;" : "=r"(o[15]) : "r"(a), "r"(b), "r"(c));
  asm("shf.r.wrap.b32 %0, %1, %2, %3;" : "=r"(o[16]) : "r"(a), "r"(b), "r"(c));
  ASM3("dp4a.u32.u32", 17);
  ASM3("dp4a.s32.s32", 18);
  ASM3("dp4a.s32.u32", 19);
  ASM3("dp2a.lo.s32.s32", 20);
  ASM3("dp2a.hi.u32.s32", 21);
  asm("szext.clamp.s32 %0, %1, %2;" : "=r"(o[22]) : "r"(a), "r"(pos));
  asm("szext.wrap.u32 %0, %1, %2;" : "=r"(o[23]) : "r"(a), "r"(pos));
  unsigned apos = a % 40;
  asm("bmsk.clamp.b32 %0, %1, %2;" : "=r"(o[24]) : "r"(apos), "r"(pos));
  asm("bmsk.wrap.b32 %0, %1, %2;" : "=r"(o[25]) : "r"(a), "r"(b));
  int off = int(c % 41) - 20;
  unsigned base = b % 32;
  asm("fns.b32 %0, %1, %2, %3;" : "=r"(o[26]) : "r"(a), "r"(base), "r"(off));
  ASM3("mad24.lo.u32", 27);
  asm("mul24.lo.s32 %0, %1, %2;" : "=r"(o[28]) : "r"(a), "r"(b));
  asm("mul24.hi.u32 %0, %1, %2;" : "=r"(o[29]) : "r"(a), "r"(b));
  ASM3("mad24.hi.s32", 30);
  ASM3("mad24.hi.sat.s32", 31);
  ASM3("sad.s32", 32);
  ASM3("sad.u32", 33);
  asm("min.relu.s32 %0, %1, %2;" : "=r"(o[34]) : "r"(a), "r"(b));
  asm("max.relu.s32 %0, %1, %2;" : "=r"(o[35]) : "r"(a), "r"(b));
  ASM3("mad.hi.sat.s32", 36);
  // 128-bit addition and subtraction of {c, b, a, a^b} and {a, c, b, b^c} (word 0 first).
  unsigned x3 = a ^ b, y3 = b ^ c;
  asm("add.cc.u32 %0, %4, %8;\n\t"
      "addc.cc.u32 %1, %5, %9;\n\t"
      "addc.cc.u32 %2, %6, %10;\n\t"
      "addc.u32 %3, %7, %11;"
      : "=r"(o[37]), "=r"(o[38]), "=r"(o[39]), "=r"(o[40])
      : "r"(c), "r"(b), "r"(a), "r"(x3), "r"(a), "r"(c), "r"(b), "r"(y3));
  asm("sub.cc.u32 %0, %4, %8;\n\t"
      "subc.cc.u32 %1, %5, %9;\n\t"
      "subc.cc.u32 %2, %6, %10;\n\t"
      "subc.u32 %3, %7, %11;"
      : "=r"(o[41]), "=r"(o[42]), "=r"(o[43]), "=r"(o[44])
      : "r"(c), "r"(b), "r"(a), "r"(x3), "r"(a), "r"(c), "r"(b), "r"(y3));
  // The 64-bit product a*b plus the 64-bit {c, x3} with mad.cc/madc, and the final carry.
  asm("mad.lo.cc.u32 %0, %3, %4, %5;\n\t"
      "madc.hi.cc.u32 %1, %3, %4, %6;\n\t"
      "addc.u32 %2, 0, 0;"
      : "=r"(o[45]), "=r"(o[46]), "=r"(o[47])
      : "r"(a), "r"(b), "r"(c), "r"(x3));
  unsigned long long wa = ((unsigned long long)a << 32) | b, wb = ((unsigned long long)c << 32) | x3;
  unsigned long long pos64 = c % 72, len64 = b % 72;
  asm("bfe.u64 %0, %1, %2, %3;" : "=l"(o64[0]) : "l"(wa), "r"((unsigned)pos64), "r"((unsigned)len64));
  asm("bfe.s64 %0, %1, %2, %3;" : "=l"(o64[1]) : "l"(wa), "r"((unsigned)pos64), "r"((unsigned)len64));
  asm("bfi.b64 %0, %1, %2, %3, %4;"
      : "=l"(o64[2])
      : "l"(wa), "l"(wb), "r"((unsigned)pos64), "r"((unsigned)len64));
  asm("add.cc.u64 %0, %2, %3;\n\t"
      "addc.u64 %1, %3, %2;"
      : "=l"(o64[3]), "=l"(o64[4])
      : "l"(wa), "l"(wb));
  asm("sub.cc.u64 %0, %2, %3;\n\t"
      "subc.u64 %1, %3, %2;"
      : "=l"(o64[5]), "=l"(o64[6])
      : "l"(wa), "l"(wb));
}
