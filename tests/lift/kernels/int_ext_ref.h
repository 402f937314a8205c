// Host reference of int_ext.cu: each instruction written from its pseudocode in the PTX ISA
// (section numbers below), bit by bit where the manual describes it so, independently of how the
// lifter computes it.
#pragma once

#include <stdint.h>

#define INT_EXT_WORDS 48
#define INT_EXT_WIDE 7

namespace int_ext_ref {

inline uint32_t bit(uint64_t V, unsigned I) { return unsigned((V >> I) & 1); }

// bfe (9.7.1.19) for 32 or 64 bits.
inline uint64_t bfe(uint64_t A, uint32_t B, uint32_t C, unsigned Width, bool Signed) {
  unsigned Msb = Width - 1, Pos = B & 0xff, Len = C & 0xff;
  unsigned SBit = 0;
  if (Signed && Len != 0) {
    unsigned Top = Pos + Len - 1 < Msb ? Pos + Len - 1 : Msb;
    SBit = bit(A, Top);
  }
  uint64_t D = 0;
  for (unsigned I = 0; I <= Msb; ++I) {
    unsigned V = (I < Len && Pos + I <= Msb) ? bit(A, Pos + I) : SBit;
    D |= uint64_t(V) << I;
  }
  return D;
}

// bfi (9.7.1.20).
inline uint64_t bfi(uint64_t A, uint64_t B, uint32_t C, uint32_t D, unsigned Width) {
  unsigned Msb = Width - 1, Pos = C & 0xff, Len = D & 0xff;
  uint64_t F = B;
  for (unsigned I = 0; I < Len && Pos + I <= Msb; ++I)
    F = (F & ~(uint64_t(1) << (Pos + I))) | (uint64_t(bit(A, I)) << (Pos + I));
  return F;
}

// prmt (9.7.9.7): Mode 0 generic, 1 f4e, 2 b4e, 3 rc8, 4 ecl, 5 ecr, 6 rc16.
inline uint32_t prmt(uint32_t A, uint32_t B, uint32_t C, int Mode) {
  uint64_t Tmp = (uint64_t(B) << 32) | A;
  unsigned Sel[4];
  if (Mode == 0) {
    for (int K = 0; K < 4; ++K)
      Sel[K] = (C >> (4 * K)) & 0xf;
  } else {
    // The manual's table, rows d.b3 d.b2 d.b1 d.b0 per c[1:0].
    static const unsigned char Table[6][4][4] = {
        {{3, 2, 1, 0}, {4, 3, 2, 1}, {5, 4, 3, 2}, {6, 5, 4, 3}}, // f4e
        {{5, 6, 7, 0}, {6, 7, 0, 1}, {7, 0, 1, 2}, {0, 1, 2, 3}}, // b4e
        {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}}, // rc8
        {{3, 2, 1, 0}, {3, 2, 1, 1}, {3, 2, 2, 2}, {3, 3, 3, 3}}, // ecl
        {{0, 0, 0, 0}, {1, 1, 1, 0}, {2, 2, 1, 0}, {3, 2, 1, 0}}, // ecr
        {{1, 0, 1, 0}, {3, 2, 3, 2}, {1, 0, 1, 0}, {3, 2, 3, 2}}, // rc16
    };
    for (int K = 0; K < 4; ++K)
      Sel[K] = Table[Mode - 1][C & 3][3 - K];
  }
  uint32_t D = 0;
  for (int K = 0; K < 4; ++K) {
    uint32_t Byte = uint32_t(Tmp >> (8 * (Sel[K] & 7))) & 0xff;
    if (Mode == 0 && (Sel[K] & 8))
      Byte = (Byte & 0x80) ? 0xff : 0;
    D |= Byte << (8 * K);
  }
  return D;
}

// lop3 (9.7.8.6): bit i of the result is immLut[a_i << 2 | b_i << 1 | c_i].
inline uint32_t lop3(uint32_t A, uint32_t B, uint32_t C, uint32_t Lut) {
  uint32_t D = 0;
  for (unsigned I = 0; I < 32; ++I)
    D |= ((Lut >> (bit(A, I) << 2 | bit(B, I) << 1 | bit(C, I))) & 1) << I;
  return D;
}

// shf (9.7.8.7).
inline uint32_t shf(uint32_t A, uint32_t B, uint32_t C, bool Left, bool Clamp) {
  unsigned N = Clamp ? (C > 32 ? 32 : C) : (C & 0x1f);
  uint64_t Wide = (uint64_t(B) << 32) | A;
  return Left ? uint32_t((Wide << N) >> 32) : uint32_t(Wide >> N);
}

inline int32_t sext(uint32_t V, unsigned Bits) {
  uint32_t M = 1u << (Bits - 1);
  V &= (Bits == 32 ? ~0u : ((1u << Bits) - 1));
  return int32_t((V ^ M) - M);
}

// dp4a (9.7.1.23) and dp2a (9.7.1.24).
inline uint32_t dp4a(uint32_t A, uint32_t B, uint32_t C, bool SA, bool SB) {
  int64_t Sum = int32_t(C);
  for (int K = 0; K < 4; ++K) {
    int64_t X = SA ? int64_t(sext(A >> (8 * K), 8)) : int64_t((A >> (8 * K)) & 0xff);
    int64_t Y = SB ? int64_t(sext(B >> (8 * K), 8)) : int64_t((B >> (8 * K)) & 0xff);
    Sum += X * Y;
  }
  return uint32_t(Sum);
}
inline uint32_t dp2a(uint32_t A, uint32_t B, uint32_t C, bool SA, bool SB, bool Hi) {
  int64_t Sum = int32_t(C);
  for (int K = 0; K < 2; ++K) {
    int64_t X = SA ? int64_t(sext(A >> (16 * K), 16)) : int64_t((A >> (16 * K)) & 0xffff);
    unsigned By = (Hi ? 2 : 0) + K;
    int64_t Y = SB ? int64_t(sext(B >> (8 * By), 8)) : int64_t((B >> (8 * By)) & 0xff);
    Sum += X * Y;
  }
  return uint32_t(Sum);
}

// szext (9.7.1.21).
inline uint32_t szext(uint32_t A, uint32_t B, bool Clamp, bool Signed) {
  uint32_t B1 = B & 0x1f;
  bool TooLarge = B >= 32 && Clamp;
  uint32_t Mask = TooLarge ? 0 : (~0u << B1);
  uint32_t SignPos = (B1 - 1) & 0x1f;
  bool SignBit = !(B1 == 0 || TooLarge || !Signed) && ((A >> SignPos) & 1);
  return (A & ~Mask) | (SignBit ? Mask : 0);
}

// bmsk (9.7.1.22).
inline uint32_t bmsk(uint32_t A, uint32_t B, bool Clamp) {
  uint32_t A1 = A & 0x1f, B1 = B & 0x1f, Sum = A1 + B1;
  uint32_t Mask0 = ~0u << A1;
  uint32_t Mask1 = Sum >= 32 ? 0 : (~0u << Sum);
  bool SumOverflow = Sum >= 32, PosOverflow = false, WidthOverflow = false;
  if (Clamp) {
    if (A >= 32) {
      PosOverflow = true;
      Mask0 = 0;
    }
    if (B >= 32)
      WidthOverflow = true;
  }
  if (SumOverflow || PosOverflow || WidthOverflow)
    Mask1 = 0;
  else if (B1 == 0)
    Mask1 = ~0u;
  return Mask0 & ~Mask1;
}

// fns (9.7.1.17).
inline uint32_t fns(uint32_t Mask, uint32_t Base, int32_t Offset) {
  if (Offset == 0)
    return bit(Mask, Base) ? Base : 0xffffffff;
  int Pos = int(Base), Count = (Offset < 0 ? -Offset : Offset) - 1, Inc = Offset > 0 ? 1 : -1;
  while (Pos >= 0 && Pos < 32) {
    if (bit(Mask, unsigned(Pos))) {
      if (Count == 0)
        return uint32_t(Pos);
      --Count;
    }
    Pos += Inc;
  }
  return 0xffffffff;
}

// mul24 (9.7.1.5): the 48-bit product of the low 24 bits; .hi is bits 16-47.
inline int64_t mul24Full(uint32_t A, uint32_t B, bool Signed) {
  int64_t X = Signed ? int64_t(sext(A, 24)) : int64_t(A & 0xffffff);
  int64_t Y = Signed ? int64_t(sext(B, 24)) : int64_t(B & 0xffffff);
  return X * Y;
}

inline int32_t satS32(int64_t V) {
  return V > INT32_MAX ? INT32_MAX : V < INT32_MIN ? INT32_MIN : int32_t(V);
}

/// Fills Out[INT_EXT_WORDS] and Out64[INT_EXT_WIDE] like the kernel does for one (a, b, c).
inline void compute(uint32_t a, uint32_t b, uint32_t c, uint32_t *o, uint64_t *o64) {
  uint32_t pos = b % 40, len = c % 40;
  o[0] = uint32_t(bfe(a, pos, len, 32, false));
  o[1] = uint32_t(bfe(a, pos, len, 32, true));
  o[2] = uint32_t(bfi(a, c, pos, len, 32));
  for (int M = 0; M < 7; ++M)
    o[3 + M] = prmt(a, b, c, M);
  o[10] = lop3(a, b, c, 0xE8);
  o[11] = lop3(a, b, c, 0x96);
  o[12] = lop3(a, b, c, 0x1E);
  o[13] = shf(a, b, len, true, true);
  o[14] = shf(a, b, len, false, true);
  o[15] = shf(a, b, c, true, false);
  o[16] = shf(a, b, c, false, false);
  o[17] = dp4a(a, b, c, false, false);
  o[18] = dp4a(a, b, c, true, true);
  o[19] = dp4a(a, b, c, true, false);
  o[20] = dp2a(a, b, c, true, true, false);
  o[21] = dp2a(a, b, c, false, true, true);
  o[22] = szext(a, pos, true, true);
  o[23] = szext(a, pos, false, false);
  o[24] = bmsk(a % 40, pos, true);
  o[25] = bmsk(a, b, false);
  o[26] = fns(a, b % 32, int32_t(c % 41) - 20);
  o[27] = uint32_t(mul24Full(a, b, false)) + c;
  o[28] = uint32_t(mul24Full(a, b, true));
  o[29] = uint32_t(uint64_t(mul24Full(a, b, false)) >> 16);
  o[30] = uint32_t(int32_t(uint32_t(uint64_t(mul24Full(a, b, true)) >> 16)) + c);
  o[31] = uint32_t(satS32(int64_t(int32_t(uint32_t(uint64_t(mul24Full(a, b, true)) >> 16))) +
                          int64_t(int32_t(c))));
  int32_t sa = int32_t(a), sb = int32_t(b);
  o[32] = c + (sa < sb ? uint32_t(sb) - uint32_t(sa) : uint32_t(sa) - uint32_t(sb));
  o[33] = c + (a < b ? b - a : a - b);
  o[34] = uint32_t((sa < sb ? sa : sb) < 0 ? 0 : (sa < sb ? sa : sb));
  o[35] = uint32_t((sa > sb ? sa : sb) < 0 ? 0 : (sa > sb ? sa : sb));
  int64_t hi = (int64_t(sa) * int64_t(sb)) >> 32;
  o[36] = uint32_t(satS32(hi + int32_t(c)));
  uint32_t x3 = a ^ b, y3 = b ^ c;
  uint32_t X[4] = {c, b, a, x3}, Y[4] = {a, c, b, y3};
  uint64_t Carry = 0;
  for (int K = 0; K < 4; ++K) {
    uint64_t S = uint64_t(X[K]) + Y[K] + Carry;
    o[37 + K] = uint32_t(S);
    Carry = S >> 32;
  }
  uint64_t Borrow = 0;
  for (int K = 0; K < 4; ++K) {
    uint64_t D = uint64_t(X[K]) - Y[K] - Borrow;
    o[41 + K] = uint32_t(D);
    Borrow = (D >> 32) ? 1 : 0;
  }
  uint64_t P = uint64_t(a) * b, Q = (uint64_t(x3) << 32) | c;
  unsigned __int128 Sum = (unsigned __int128)P + Q;
  o[45] = uint32_t(Sum);
  o[46] = uint32_t(Sum >> 32);
  o[47] = uint32_t(Sum >> 64);
  uint64_t wa = (uint64_t(a) << 32) | b, wb = (uint64_t(c) << 32) | x3;
  uint32_t pos64 = c % 72, len64 = b % 72;
  o64[0] = bfe(wa, pos64, len64, 64, false);
  o64[1] = bfe(wa, pos64, len64, 64, true);
  o64[2] = bfi(wa, wb, pos64, len64, 64);
  unsigned __int128 S2 = (unsigned __int128)wa + wb;
  o64[3] = uint64_t(S2);
  o64[4] = wb + wa + uint64_t(S2 >> 64);
  o64[5] = wa - wb;
  o64[6] = wb - wa - (wa < wb ? 1 : 0);
}

} // namespace int_ext_ref
