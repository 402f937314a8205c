// Warp-level matrix instructions (PTX ISA 9.7.14.5): mma.sync on the fragment layouts of the PTX
// ISA ("Matrix Fragments for mma.m16n8k*", "mma.m8n8k4 with .f64"), ldmatrix, stmatrix and
// movmatrix (9.7.14.5.15-17), as exact computations on 32-lane warps (Device.h): for mma each lane
// gathers the rows of A and the columns of B that its accumulators need from the lanes that hold
// them (DS_BPERMUTE, readWarpLane) and computes its own elements of D. The mma helpers are not
// inlined (backend/lib/DeviceLibrary.cpp).
//
// Arithmetic: products and sums in f32 (f64 for .f64) with one fused multiply-add per k, in k
// order from C; every supported input type (f16, bf16, tf32, e4m3, e5m2) converts to f32 exactly,
// so a product of two inputs is exact and only the additions round. NVIDIA does not specify the
// order or the intermediate rounding of a tensor core's sum, so results that depend on them may
// differ in the last bits; results of exactly representable sums (integers, short binary
// fractions) are exact. .tf32 operands use the upper 19 bits of their .b32 register (sign,
// exponent, 10 bits of mantissa). Integer mma sums in 64 bits; .satfinite clamps the result to
// the s32 range, without it the sum wraps as s32 arithmetic.
#include "Device.h"

namespace reptx::device {
namespace {

using f32x4 = float __attribute__((ext_vector_type(4)));
using s32x4 = int __attribute__((ext_vector_type(4)));
using f64x2 = double __attribute__((ext_vector_type(2)));

float fromF16(u32 Bits) { return float(__builtin_bit_cast(_Float16, (unsigned short)(Bits))); }
float fromBf16(u32 Bits) { return __builtin_bit_cast(float, (Bits & 0xffffu) << 16); }
float fromTf32(u32 Bits) { return __builtin_bit_cast(float, Bits & 0xffffe000u); }
// e5m2 is the upper byte of an f16 (PTX ISA 5.2.5: 1 sign, 5 exponent, 2 mantissa bits).
float fromE5m2(u32 Bits) { return fromF16((Bits & 0xffu) << 8); }
// e4m3 (1 sign, 4 exponent with bias 7, 3 mantissa bits; S.1111.111 is NaN, no infinities).
float fromE4m3(u32 Bits) {
  u32 Sign = (Bits & 0x80u) << 24, E = (Bits >> 3) & 15, M = Bits & 7;
  if (E == 15 && M == 7)
    return __builtin_nanf("");
  // Subnormal: M * 2^-9; normal: (8 + M) * 2^(E - 10).
  float Mag = E == 0 ? float(M) * 0x1p-9f : __builtin_ldexpf(float(8 + M), int(E) - 10);
  return __builtin_bit_cast(float, __builtin_bit_cast(u32, Mag) | Sign);
}

// The element Sub (0-based, low to high) of a register holding P packed elements.
template <u32 P> u32 element(u32 Reg, u32 Sub) {
  if constexpr (P == 1)
    return Reg;
  else
    return (Reg >> (Sub * (32 / P))) & ((1u << (32 / P)) - 1);
}

// mma.m16n8kK with .row A (16 x K) and .col B (K x 8), P elements per 32-bit register (2 for 16-bit
// types, 4 for 8-bit, 1 for tf32). With S = K / (4P) spans of k, lane 4g + t holds:
//   A register r + 2s (r = 0: row g, r = 1: row g + 8; span s) = k from s*4P + t*P, P elements;
//   B register s = rows k from s*4P + t*P of column g, P elements;
//   C/D element i = row g + 8*(i / 2), column 2t + (i & 1).
// For its four D elements a lane needs rows g and g + 8 of A (all 2S registers of lanes 4g..4g+3)
// and columns 2t and 2t + 1 of B (the S registers of lanes 8t..8t+3 and 8t+4..8t+7).
template <u32 P, u32 S> struct Gathered {
  u32 A[4][2 * S]; // [t'][register] of lane 4g + t'
  u32 B[2][4][S];  // [column 2t + j][t'][register] of lane 4(2t + j) + t'
};

template <u32 P, u32 S> Gathered<P, S> gather(const u32 *A, const u32 *B) {
  Gathered<P, S> G;
  u32 Lane = laneId(), Group = Lane >> 2, T = Lane & 3;
  for (u32 Tp = 0; Tp < 4; ++Tp) {
    for (u32 R = 0; R < 2 * S; ++R)
      G.A[Tp][R] = readWarpLane(A[R], 4 * Group + Tp);
    for (u32 J = 0; J < 2; ++J)
      for (u32 R = 0; R < S; ++R)
        G.B[J][Tp][R] = readWarpLane(B[R], 4 * (2 * T + J) + Tp);
  }
  return G;
}

template <u32 P, u32 S, float (*Dec)(u32), float (*DecB)(u32)>
f32x4 mmaFloat(const u32 *A, const u32 *B, f32x4 C) {
  Gathered<P, S> G = gather<P, S>(A, B);
  f32x4 D;
  for (u32 I = 0; I < 4; ++I) {
    u32 Row = I >> 1, J = I & 1;
    float Acc = C[I];
    for (u32 K = 0; K < S * 4 * P; ++K) {
      u32 Span = K / (4 * P), Tp = (K % (4 * P)) / P, Sub = K % P;
      float Av = Dec(element<P>(G.A[Tp][Row + 2 * Span], Sub));
      float Bv = DecB(element<P>(G.B[J][Tp][Span], Sub));
      Acc = __builtin_fmaf(Av, Bv, Acc);
    }
    D[I] = Acc;
  }
  return D;
}

template <u32 P> s32 intElement(u32 Reg, u32 Sub, bool Signed) {
  u32 Bits = element<P>(Reg, Sub), W = 32 / P;
  return Signed ? s32(Bits << (32 - W)) >> (32 - W) : s32(Bits);
}

template <u32 P, u32 S, bool SignedA, bool SignedB, bool Sat>
s32x4 mmaInt(const u32 *A, const u32 *B, s32x4 C) {
  Gathered<P, S> G = gather<P, S>(A, B);
  s32x4 D;
  for (u32 I = 0; I < 4; ++I) {
    u32 Row = I >> 1, J = I & 1;
    long long Acc = C[I];
    for (u32 K = 0; K < S * 4 * P; ++K) {
      u32 Span = K / (4 * P), Tp = (K % (4 * P)) / P, Sub = K % P;
      long long Av = intElement<P>(G.A[Tp][Row + 2 * Span], Sub, SignedA);
      long long Bv = intElement<P>(G.B[J][Tp][Span], Sub, SignedB);
      Acc += Av * Bv;
    }
    if (Sat)
      Acc = Acc > 0x7fffffffll ? 0x7fffffffll : Acc < -0x80000000ll ? -0x80000000ll : Acc;
    D[I] = s32(u32(Acc));
  }
  return D;
}

} // namespace

// ---- mma.sync.aligned.m16n8kK.row.col with f32 accumulators (f16 accumulators are converted by
// the lifter): A registers, B registers, C elements.
#define REPTX_MMA_F32(Name, Sym, P, S, Dec, DecB)                                                  \
  REPTX_HELPER(                                                                                    \
      Sym, f32x4, Name,                                                                            \
      (u32 A0, u32 A1, u32 A2, u32 A3, u32 B0, u32 B1, float C0, float C1, float C2, float C3)) {  \
    const u32 A[4] = {A0, A1, A2, A3}, B[2] = {B0, B1};                                            \
    return mmaFloat<P, S, Dec, DecB>(A, B, f32x4{C0, C1, C2, C3});                                 \
  }

REPTX_MMA_F32(mma_m16n8k16_f16, "reptx.mma.m16n8k16.f16.f16", 2, 2, fromF16, fromF16)
REPTX_MMA_F32(mma_m16n8k16_bf16, "reptx.mma.m16n8k16.bf16.bf16", 2, 2, fromBf16, fromBf16)
REPTX_MMA_F32(mma_m16n8k8_f16, "reptx.mma.m16n8k8.f16.f16", 2, 1, fromF16, fromF16)
REPTX_MMA_F32(mma_m16n8k8_bf16, "reptx.mma.m16n8k8.bf16.bf16", 2, 1, fromBf16, fromBf16)
REPTX_MMA_F32(mma_m16n8k8_tf32, "reptx.mma.m16n8k8.tf32.tf32", 1, 2, fromTf32, fromTf32)
REPTX_MMA_F32(mma_m16n8k4_tf32, "reptx.mma.m16n8k4.tf32.tf32", 1, 1, fromTf32, fromTf32)
REPTX_MMA_F32(mma_m16n8k32_e4m3_e4m3, "reptx.mma.m16n8k32.e4m3.e4m3", 4, 2, fromE4m3, fromE4m3)
REPTX_MMA_F32(mma_m16n8k32_e4m3_e5m2, "reptx.mma.m16n8k32.e4m3.e5m2", 4, 2, fromE4m3, fromE5m2)
REPTX_MMA_F32(mma_m16n8k32_e5m2_e4m3, "reptx.mma.m16n8k32.e5m2.e4m3", 4, 2, fromE5m2, fromE4m3)
REPTX_MMA_F32(mma_m16n8k32_e5m2_e5m2, "reptx.mma.m16n8k32.e5m2.e5m2", 4, 2, fromE5m2, fromE5m2)
REPTX_MMA_F32(mma_m16n8k16_e4m3_e4m3, "reptx.mma.m16n8k16.e4m3.e4m3", 4, 1, fromE4m3, fromE4m3)
REPTX_MMA_F32(mma_m16n8k16_e4m3_e5m2, "reptx.mma.m16n8k16.e4m3.e5m2", 4, 1, fromE4m3, fromE5m2)
REPTX_MMA_F32(mma_m16n8k16_e5m2_e4m3, "reptx.mma.m16n8k16.e5m2.e4m3", 4, 1, fromE5m2, fromE4m3)
REPTX_MMA_F32(mma_m16n8k16_e5m2_e5m2, "reptx.mma.m16n8k16.e5m2.e5m2", 4, 1, fromE5m2, fromE5m2)

// ---- integer mma (.s8/.u8 operands, .s32 accumulators): A, B registers, C elements.
#define REPTX_MMA_INT(Name, Sym, P, S, SA, SB, Sat)                                                \
  REPTX_HELPER(Sym, s32x4, Name,                                                                   \
               (u32 A0, u32 A1, u32 A2, u32 A3, u32 B0, u32 B1, s32 C0, s32 C1, s32 C2, s32 C3)) { \
    const u32 A[4] = {A0, A1, A2, A3}, B[2] = {B0, B1};                                            \
    return mmaInt<P, S, SA, SB, Sat>(A, B, s32x4{C0, C1, C2, C3});                                 \
  }
#define REPTX_MMA_INT_SHAPE(K, S)                                                                  \
  REPTX_MMA_INT(mma_m16n8k##K##_s8_s8, "reptx.mma.m16n8k" #K ".s8.s8", 4, S, true, true, false)    \
  REPTX_MMA_INT(mma_m16n8k##K##_s8_u8, "reptx.mma.m16n8k" #K ".s8.u8", 4, S, true, false, false)   \
  REPTX_MMA_INT(mma_m16n8k##K##_u8_s8, "reptx.mma.m16n8k" #K ".u8.s8", 4, S, false, true, false)   \
  REPTX_MMA_INT(mma_m16n8k##K##_u8_u8, "reptx.mma.m16n8k" #K ".u8.u8", 4, S, false, false, false)  \
  REPTX_MMA_INT(mma_m16n8k##K##_s8_s8_sat, "reptx.mma.m16n8k" #K ".s8.s8.satfinite", 4, S, true,   \
                true, true)                                                                        \
  REPTX_MMA_INT(mma_m16n8k##K##_s8_u8_sat, "reptx.mma.m16n8k" #K ".s8.u8.satfinite", 4, S, true,   \
                false, true)                                                                       \
  REPTX_MMA_INT(mma_m16n8k##K##_u8_s8_sat, "reptx.mma.m16n8k" #K ".u8.s8.satfinite", 4, S, false,  \
                true, true)                                                                        \
  REPTX_MMA_INT(mma_m16n8k##K##_u8_u8_sat, "reptx.mma.m16n8k" #K ".u8.u8.satfinite", 4, S, false,  \
                false, true)
REPTX_MMA_INT_SHAPE(16, 1)
REPTX_MMA_INT_SHAPE(32, 2)

// ---- mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64: lane 4g + t holds A[g][t], B[t][g] and
// D[g][2t + i]; a lane needs row g of A (lanes 4g..4g+3) and columns 2t, 2t + 1 of B.
REPTX_HELPER("reptx.mma.m8n8k4.f64.f64", f64x2, mma_m8n8k4_f64,
             (double A, double B, double C0, double C1)) {
  u32 Lane = laneId(), Group = Lane >> 2, T = Lane & 3;
  u64 Ab = __builtin_bit_cast(u64, A), Bb = __builtin_bit_cast(u64, B);
  auto Read = [](u64 V, u32 Src) {
    u64 Lo = readWarpLane(u32(V), Src), Hi = readWarpLane(u32(V >> 32), Src);
    return __builtin_bit_cast(double, Lo | (Hi << 32));
  };
  double Arow[4], Bcol[2][4];
  for (u32 K = 0; K < 4; ++K) {
    Arow[K] = Read(Ab, 4 * Group + K);
    for (u32 J = 0; J < 2; ++J)
      Bcol[J][K] = Read(Bb, 4 * (2 * T + J) + K);
  }
  f64x2 D;
  for (u32 J = 0; J < 2; ++J) {
    double Acc = J ? C1 : C0;
    for (u32 K = 0; K < 4; ++K)
      Acc = __builtin_fma(Arow[K], Bcol[J][K], Acc);
    D[J] = Acc;
  }
  return D;
}

// ---- ldmatrix.sync.aligned.m8n8.xN[.trans].shared.b16 (PTX ISA 9.7.14.5.15): lanes 8m..8m+7
// give the addresses of rows 0-7 of matrix m (16 bytes each). Without .trans, lane l receives row
// l / 4, elements 2(l % 4) and 2(l % 4) + 1 of matrix m; with .trans, the same position of the
// transposed matrix: elements (row 2(l % 4), column l / 4) and (row 2(l % 4) + 1, column l / 4).
// Returns the register of matrix M.
using SharedU32 = __attribute__((address_space(3))) u32;
using SharedU16 = __attribute__((address_space(3))) unsigned short;

REPTX_HELPER("reptx.ldmatrix.b16", u32, ldmatrix_b16, (SharedU32 * Row, u32 M, bool Trans)) {
  u32 Lane = laneId();
  u32 Mine = u32((unsigned long)Row);
  if (!Trans) {
    u32 Addr = readWarpLane(Mine, 8 * M + (Lane >> 2)) + 4 * (Lane & 3);
    return *reinterpret_cast<SharedU32 *>((unsigned long)Addr);
  }
  u32 Lo = readWarpLane(Mine, 8 * M + 2 * (Lane & 3)) + 2 * (Lane >> 2);
  u32 Hi = readWarpLane(Mine, 8 * M + 2 * (Lane & 3) + 1) + 2 * (Lane >> 2);
  u32 L = *reinterpret_cast<SharedU16 *>((unsigned long)Lo);
  u32 H = *reinterpret_cast<SharedU16 *>((unsigned long)Hi);
  return L | (H << 16);
}

// ---- stmatrix.sync.aligned.m8n8.xN[.trans].shared.b16 (PTX ISA 9.7.14.5.16): ldmatrix's inverse.
// Lanes 8m..8m+7 give the row addresses of matrix m; lane l's register of matrix m holds row l / 4,
// elements 2(l % 4) and 2(l % 4) + 1 (with .trans: those of the transposed matrix, stored to rows
// 2(l % 4) and 2(l % 4) + 1 at column l / 4).
REPTX_HELPER("reptx.stmatrix.b16", void, stmatrix_b16,
             (SharedU32 * Row, u32 M, u32 V, bool Trans)) {
  u32 Lane = laneId();
  u32 Mine = u32((unsigned long)Row);
  if (!Trans) {
    u32 Addr = readWarpLane(Mine, 8 * M + (Lane >> 2)) + 4 * (Lane & 3);
    *reinterpret_cast<SharedU32 *>((unsigned long)Addr) = V;
    return;
  }
  u32 Lo = readWarpLane(Mine, 8 * M + 2 * (Lane & 3)) + 2 * (Lane >> 2);
  u32 Hi = readWarpLane(Mine, 8 * M + 2 * (Lane & 3) + 1) + 2 * (Lane >> 2);
  *reinterpret_cast<SharedU16 *>((unsigned long)Lo) = (unsigned short)(V & 0xffff);
  *reinterpret_cast<SharedU16 *>((unsigned long)Hi) = (unsigned short)(V >> 16);
}

// ---- movmatrix.sync.aligned.m8n8.trans.b16 (PTX ISA 9.7.14.5.17): the 8 x 8 matrix the warp
// holds in ldmatrix's layout (lane 4r + c / 2 has elements (r, c), c even, and (r, c + 1)),
// transposed: lane l receives elements (2(l % 4), l / 4) and (2(l % 4) + 1, l / 4).
REPTX_HELPER("reptx.movmatrix.b16", u32, movmatrix_b16, (u32 V)) {
  u32 Lane = laneId(), Col = Lane >> 2, R0 = 2 * (Lane & 3);
  u32 Lo = readWarpLane(V, 4 * R0 + Col / 2), Hi = readWarpLane(V, 4 * (R0 + 1) + Col / 2);
  u32 Shift = 16 * (Col & 1);
  return ((Lo >> Shift) & 0xffff) | (((Hi >> Shift) & 0xffff) << 16);
}

} // namespace reptx::device
