// Vector ALU semantics: VOP1, VOP2, VOP3, VOPC, the carry-out forms, the packed moves and FP32
// operations of gfx90a/gfx94x, cross-lane reads and writes, and VOPD dual issue. Definitions
// follow the AMD "Vega" (GFX9), MI200/MI300 (CDNA2/3), RDNA3 (GFX11) and RDNA4 (GFX12) instruction
// set architecture manuals, "Vector ALU Operations". Transcendental approximations (v_rcp, v_rsq,
// v_sqrt, v_exp, v_log, v_sin, v_cos) are computed with correctly rounded host arithmetic, which
// is within the hardware's documented error but not always bit-identical to it.
#include "Semantics.h"

#include <bit>
#include <cmath>
#include <limits>
#include <numbers>

namespace reptx::emulator::sem {

namespace {

using u16 = uint16_t;
using i16 = int16_t;
using u32 = uint32_t;
using i32 = int32_t;
using u64 = uint64_t;
using i64 = int64_t;

// A subnormal f32 as a zero of its sign.
float flushF32(float X) { return std::fpclassify(X) == FP_SUBNORMAL ? std::copysign(0.0f, X) : X; }
// V_MAD_F32: round(round(a * b) + c), subnormal inputs, product and result flushed. Separate
// statements, so that the host compiler does not contract them into a fused multiply-add.
float madF32(float A, float B, float C) {
  float P = flushF32(A) * flushF32(B);
  P = flushF32(P);
  float R = P + flushF32(C);
  return flushF32(R);
}

// IEEE 754-2019 minimum/maximum (GFX12's v_minimum/v_maximum): a NaN input yields a quiet NaN,
// -0 orders below +0.
template <typename T> T minimum2019(T A, T B) {
  if (std::isnan(A) || std::isnan(B))
    return std::numeric_limits<T>::quiet_NaN();
  if (A == B)
    return std::signbit(A) ? A : B;
  return A < B ? A : B;
}
template <typename T> T maximum2019(T A, T B) {
  if (std::isnan(A) || std::isnan(B))
    return std::numeric_limits<T>::quiet_NaN();
  if (A == B)
    return std::signbit(A) ? B : A;
  return A > B ? A : B;
}

// IEEE-mode minimum/maximum: a quiet NaN input yields the other operand, -0 orders below +0.
template <typename T> T fmaxIeee(T A, T B) {
  if (std::isnan(A))
    return std::isnan(B) ? std::numeric_limits<T>::quiet_NaN() : B;
  if (std::isnan(B))
    return A;
  if (A == B)
    return std::signbit(A) ? B : A;
  return A > B ? A : B;
}
template <typename T> T fminIeee(T A, T B) {
  if (std::isnan(A))
    return std::isnan(B) ? std::numeric_limits<T>::quiet_NaN() : B;
  if (std::isnan(B))
    return A;
  if (A == B)
    return std::signbit(A) ? A : B;
  return A < B ? A : B;
}
template <typename T> T med3(T A, T B, T C) {
  return std::max(std::min(A, B), std::min(std::max(A, B), C));
}
template <typename T> T fmed3(T A, T B, T C) {
  return fmaxIeee(fminIeee(A, B), fminIeee(fmaxIeee(A, B), C));
}

// Float to integer conversions saturate and turn NaN into 0.
template <typename I, typename F> I cvtToInt(F X) {
  if (std::isnan(X))
    return 0;
  F T = std::trunc(X);
  if (T <= F(std::numeric_limits<I>::min()))
    return std::numeric_limits<I>::min();
  if (T >= F(std::numeric_limits<I>::max()))
    return std::numeric_limits<I>::max();
  return I(T);
}

template <typename T> T fract(T X) {
  if (std::isinf(X))
    return std::numeric_limits<T>::quiet_NaN();
  T R = X - std::floor(X);
  T Max = std::nextafter(T(1), T(0));
  return R < Max ? R : Max;
}

i32 sext24(u32 X) { return i32(X << 8) >> 8; }

template <typename T> i32 findFirstOne(T X) { return X ? i32(std::countr_zero(X)) : -1; }
template <typename T> i32 findLastOne(T X) { return X ? i32(std::countl_zero(X)) : -1; }

template <typename T> u32 bfeU(T X, u32 Offset, u32 Width) {
  Offset &= 31;
  Width &= 31;
  if (Width == 0)
    return 0;
  return u32((u64(X) >> Offset) & ((u64(1) << Width) - 1));
}
i32 bfeI(i32 X, u32 Offset, u32 Width) {
  Offset &= 31;
  Width &= 31;
  if (Width == 0)
    return 0;
  if (Offset + Width < 32)
    return i32(u32(X) << (32 - Offset - Width)) >> (32 - Width);
  return X >> Offset;
}

u32 perm(u32 S0, u32 S1, u32 Sel) {
  // Byte selector per destination byte over the 8 bytes {S0, S1} (S1 is the low half).
  u64 In = (u64(S0) << 32) | S1;
  u32 R = 0;
  for (unsigned B = 0; B < 4; ++B) {
    u32 S = (Sel >> (8 * B)) & 0xff;
    u32 V;
    if (S < 8)
      V = u32(In >> (8 * S)) & 0xff;
    else if (S < 12) {
      // Sign of a 16-bit half-word, replicated.
      static const unsigned SignByte[] = {1, 3, 5, 7};
      V = ((In >> (8 * SignByte[S - 8] + 7)) & 1) ? 0xff : 0;
    } else if (S == 12)
      V = 0;
    else
      V = 0xff;
    R |= V << (8 * B);
  }
  return R;
}

// Floating-point class mask of v_cmp_class (bit 0 signaling NaN ... bit 9 +infinity).
template <typename T> bool fpClass(T X, u32 Mask) {
  unsigned Bit;
  if (std::isnan(X)) {
    using U = std::conditional_t<sizeof(T) == 4, u32, u64>;
    U Bits = std::bit_cast<U>(X);
    U QuietBit = U(1) << (std::numeric_limits<T>::digits - 2);
    Bit = (Bits & QuietBit) ? 1 : 0;
  } else {
    bool Neg = std::signbit(X);
    switch (std::fpclassify(X)) {
    case FP_INFINITE:
      Bit = Neg ? 2 : 9;
      break;
    case FP_NORMAL:
      Bit = Neg ? 3 : 8;
      break;
    case FP_SUBNORMAL:
      Bit = Neg ? 4 : 7;
      break;
    default:
      Bit = Neg ? 5 : 6;
      break;
    }
  }
  return (Mask >> Bit) & 1;
}

// --- compares

template <typename T, CmpCond C>
void addCmp(TableBuilder &Tb, llvm::StringRef Cond, llvm::StringRef Type) {
  Tb.add(vopc<&compare<T, C>, false>(Tb.intern("v_cmp_" + Cond.str() + "_" + Type.str())));
  Tb.add(vopc<&compare<T, C>, true>(Tb.intern("v_cmpx_" + Cond.str() + "_" + Type.str())));
}

template <typename T> void addIntCompares(TableBuilder &Tb, llvm::StringRef Type) {
  using enum CmpCond;
  addCmp<T, F>(Tb, "f", Type);
  addCmp<T, LT>(Tb, "lt", Type);
  addCmp<T, EQ>(Tb, "eq", Type);
  addCmp<T, LE>(Tb, "le", Type);
  addCmp<T, GT>(Tb, "gt", Type);
  addCmp<T, LG>(Tb, "ne", Type);
  addCmp<T, LG>(Tb, "lg", Type);
  addCmp<T, GE>(Tb, "ge", Type);
  addCmp<T, TRU>(Tb, "t", Type);
  addCmp<T, TRU>(Tb, "tru", Type);
}

template <typename T> void addFloatCompares(TableBuilder &Tb, llvm::StringRef Type) {
  forEachFloatCond([&]<CmpCond C>(llvm::StringRef Cond) { addCmp<T, C>(Tb, Cond, Type); },
                   /*WithConstant=*/true);
}

// --- handlers that need the lane index, scalar destinations or several registers

template <bool Hi> Step mbcnt(Wave &W, const Inst &I) {
  W.forEachActive([&](unsigned L) {
    u32 Mask = u32(W.lane(I.Ops[1], L, 32));
    u32 Below;
    if (!Hi)
      Below = L >= 32 ? ~0u : (1u << L) - 1;
    else
      Below = L < 32 ? 0 : (1u << (L - 32)) - 1;
    W.Out[L] = u32(std::popcount(Mask & Below)) + u32(W.lane(I.Ops[2], L, 32));
  });
  W.commit(I.Ops[0], W.Out, 32);
  return Step::Next;
}

Step readfirstlane(Wave &W, const Inst &I) {
  u64 E = W.exec();
  unsigned L = E ? unsigned(std::countr_zero(E)) : 0;
  W.writeScalar(I.Ops[0], W.lane(I.Ops[1], L, 32));
  return Step::Next;
}

Step readlane(Wave &W, const Inst &I) {
  unsigned L = unsigned(W.scalar(I.Ops[2], 32)) & (W.Size - 1);
  W.writeScalar(I.Ops[0], W.lane(I.Ops[1], L, 32));
  return Step::Next;
}

Step writelane(Wave &W, const Inst &I) {
  // Writes the selected lane whatever EXEC says (AMD ISA manuals, V_WRITELANE_B32).
  unsigned L = unsigned(W.scalar(I.Ops[2], 32)) & (W.Size - 1);
  W.writeLane(I.Ops[0], L, W.scalar(I.Ops[1], 32), 32);
  return Step::Next;
}

// v_pk_mov_b32 (gfx90a+): D.lo = S0[op_sel[0]], D.hi = S1[op_sel[1]].
// v_swap_b32 vdst, vsrc (GFX9+): the two VGPRs exchange their values in every active lane.
Step swapB32(Wave &W, const Inst &I) {
  W.forEachActive([&](unsigned L) {
    W.Out[L] = W.lane(I.Ops[1], L, 32);
    W.Out2[L] = W.lane(I.Ops[0], L, 32);
  });
  W.commit(I.Ops[0], W.Out, 32);
  W.commit(I.Ops[1], W.Out2, 32);
  return Step::Next;
}

Step pkMov(Wave &W, const Inst &I) {
  W.forEachActive([&](unsigned L) {
    u64 A = W.lane(I.Ops[1], L, 64), B = W.lane(I.Ops[2], L, 64);
    u32 Lo = u32((I.OpSel & 1) ? A >> 32 : A);
    u32 Hi = u32((I.OpSel & 2) ? B >> 32 : B);
    W.Out[L] = Lo | (u64(Hi) << 32);
  });
  W.commit(I.Ops[0], W.Out, 64);
  return Step::Next;
}

// Packed FP32 (gfx90a+): each 64-bit source holds two floats; op_sel picks the halves feeding
// the low result, op_sel_hi those feeding the high result, neg_lo/neg_hi negate them.
template <unsigned NumSrc, float (*Op)(float, float, float)> Step pkF32(Wave &W, const Inst &I) {
  W.forEachActive([&](unsigned L) {
    u64 Src[3] = {};
    for (unsigned K = 0; K < NumSrc; ++K)
      Src[K] = W.lane(I.Ops[1 + K], L, 64);
    u64 R = 0;
    for (unsigned Half = 0; Half < 2; ++Half) {
      uint8_t Sel = Half ? I.OpSelHi : I.OpSel;
      uint8_t Neg = Half ? I.NegHi : I.NegLo;
      float In[3] = {};
      for (unsigned K = 0; K < NumSrc; ++K) {
        u32 Bits = u32(((Sel >> K) & 1) ? Src[K] >> 32 : Src[K]);
        if ((Neg >> K) & 1)
          Bits ^= 0x80000000u;
        In[K] = flushIn(W, std::bit_cast<float>(Bits));
      }
      R |= u64(std::bit_cast<u32>(finish(W, I, Op(In[0], In[1], In[2])))) << (32 * Half);
    }
    W.Out[L] = R;
  });
  W.commit(I.Ops[0], W.Out, 64);
  return Step::Next;
}

// VOPD: both halves read their sources before either writes (RDNA3 ISA, "VOPD").
Step vopd(Wave &W, const Inst &I) {
  const Inst &X = W.Ctx->Prog->Extra[I.Second];
  const Inst &Y = W.Ctx->Prog->Extra[I.Second + 1];
  for (const Inst *H : {&X, &Y})
    for (unsigned K = 0; K < H->NumOps; ++K)
      if ((H->Ops[K].Kind == OperandKind::Vgpr) && !W.vgprInRange(H->Ops[K]))
        return W.fault(FaultKind::UnsupportedInstruction,
                       "VOPD operand lies beyond the kernel's VGPRs");
  X.Op->Compute(W, X, W.Out);
  Y.Op->Compute(W, Y, W.Out2);
  W.commit(X.Ops[0], W.Out, X.Op->ResultBits);
  W.commit(Y.Ops[0], W.Out2, Y.Op->ResultBits);
  return Step::Next;
}

} // namespace

void addVectorOps(TableBuilder &T) {
  // ---- moves, selects, conversions (VOP1)
  T.add(vop<+[](u32 A) { return A; }>("v_mov_b32"));
  T.add(vop<+[](u64 A) { return A; }>("v_mov_b64"));
  T.add(vop<+[](u16 A) { return A; }>("v_mov_b16"));
  T.add(vop<+[](u32 A) { return A; }>("v_accvgpr_read_b32"));
  T.add(vop<+[](u32 A) { return A; }>("v_accvgpr_write_b32"));
  T.add(vop<+[](u32 A) { return A; }>("v_accvgpr_mov_b32"));
  T.add(vop<+[](u32 A, u32 B, bool M) { return M ? B : A; }>("v_cndmask_b32"));
  T.add(custom(
      "v_nop", +[](Wave &, const Inst &) { return Step::Next; }));
  T.add(vop<+[](u32 A) { return float(A); }>("v_cvt_f32_u32"));
  T.add(vop<+[](i32 A) { return float(A); }>("v_cvt_f32_i32"));
  T.add(vop<+[](float A) { return cvtToInt<u32>(A); }>("v_cvt_u32_f32"));
  T.add(vop<+[](float A) { return cvtToInt<i32>(A); }>("v_cvt_i32_f32"));
  T.add(vop<+[](float A) { return double(A); }>("v_cvt_f64_f32"));
  T.add(vop<+[](double A) { return float(A); }>("v_cvt_f32_f64"));
  T.add(vop<+[](i32 A) { return double(A); }>("v_cvt_f64_i32"));
  T.add(vop<+[](u32 A) { return double(A); }>("v_cvt_f64_u32"));
  T.add(vop<+[](double A) { return cvtToInt<i32>(A); }>("v_cvt_i32_f64"));
  T.add(vop<+[](double A) { return cvtToInt<u32>(A); }>("v_cvt_u32_f64"));
  T.add(vop<+[](u32 A) { return float(A & 0xff); }>("v_cvt_f32_ubyte0"));
  T.add(vop<+[](u32 A) { return float((A >> 8) & 0xff); }>("v_cvt_f32_ubyte1"));
  T.add(vop<+[](u32 A) { return float((A >> 16) & 0xff); }>("v_cvt_f32_ubyte2"));
  T.add(vop<+[](u32 A) { return float(A >> 24); }>("v_cvt_f32_ubyte3"));
  T.add(vop<+[](float A) { return 1.0f / A; }>("v_rcp_f32"));
  T.add(vop<+[](float A) { return 1.0f / A; }>("v_rcp_iflag_f32"));
  T.add(vop<+[](float A) { return 1.0f / std::sqrt(A); }>("v_rsq_f32"));
  T.add(vop<+[](float A) { return std::sqrt(A); }>("v_sqrt_f32"));
  T.add(vop<+[](float A) { return std::exp2(A); }>("v_exp_f32"));
  T.add(vop<+[](float A) { return std::log2(A); }>("v_log_f32"));
  T.add(vop<+[](float A) { return float(std::sin(2.0 * std::numbers::pi * double(A))); }>(
      "v_sin_f32"));
  T.add(vop<+[](float A) { return float(std::cos(2.0 * std::numbers::pi * double(A))); }>(
      "v_cos_f32"));
  T.add(vop<+[](double A) { return 1.0 / A; }>("v_rcp_f64"));
  T.add(vop<+[](double A) { return 1.0 / std::sqrt(A); }>("v_rsq_f64"));
  T.add(vop<+[](double A) { return std::sqrt(A); }>("v_sqrt_f64"));
  T.add(vop<+[](float A) { return std::trunc(A); }>("v_trunc_f32"));
  T.add(vop<+[](float A) { return std::ceil(A); }>("v_ceil_f32"));
  T.add(vop<+[](float A) { return std::floor(A); }>("v_floor_f32"));
  T.add(vop<+[](float A) { return std::nearbyint(A); }>("v_rndne_f32"));
  T.add(vop<+[](float A) { return fract(A); }>("v_fract_f32"));
  T.add(vop<+[](double A) { return std::trunc(A); }>("v_trunc_f64"));
  T.add(vop<+[](double A) { return std::ceil(A); }>("v_ceil_f64"));
  T.add(vop<+[](double A) { return std::floor(A); }>("v_floor_f64"));
  T.add(vop<+[](double A) { return std::nearbyint(A); }>("v_rndne_f64"));
  T.add(vop<+[](double A) { return fract(A); }>("v_fract_f64"));
  T.add(vop<+[](float A) {
    int E;
    return std::isfinite(A) ? std::frexp(A, &E) : A;
  }>("v_frexp_mant_f32"));
  T.add(vop<+[](float A) {
    int E = 0;
    if (std::isfinite(A))
      std::frexp(A, &E);
    return i32(E);
  }>("v_frexp_exp_i32_f32"));
  T.add(vop<+[](u32 A) { return ~A; }>("v_not_b32"));
  T.add(vop<+[](u32 A) { return __builtin_bitreverse32(A); }>("v_bfrev_b32"));
  T.add(vop<+[](u32 A) { return findLastOne(A); }>("v_ffbh_u32"));
  T.add(vop<+[](u32 A) { return findFirstOne(A); }>("v_ffbl_b32"));
  T.add(vop<+[](i32 A) {
    u32 Y = u32(A ^ (A >> 31));
    return Y ? i32(std::countl_zero(Y)) : -1;
  }>("v_ffbh_i32"));

  // ---- FP32 / FP64 arithmetic
  T.add(vop<+[](float A, float B) { return A + B; }>("v_add_f32"));
  T.add(vop<+[](float A, float B) { return A - B; }>("v_sub_f32"));
  T.add(vop<+[](float A, float B) { return B - A; }>("v_subrev_f32"));
  T.add(vop<+[](float A, float B) { return A * B; }>("v_mul_f32"));
  T.add(vop<+[](float A, float B) { return (A == 0.0f || B == 0.0f) ? 0.0f : A * B; }>(
      "v_mul_legacy_f32"));
  T.add(vop<+[](float A, float B, float C) { return std::fma(A, B, C); }>("v_fma_f32"));
  // V_MAD_F32 and its VOP2 forms (GFX9, GFX10): the product rounded, then the sum, f32 denormals
  // flushed on the way in and out (these instructions do not support them; AMDGPU selects them
  // only for code that flushes them).
  T.add(vop<+[](float A, float B, float C) { return madF32(A, B, C); }>("v_mad_f32"));
  T.add(vop<+[](float A, float B, float D) { return madF32(A, B, D); }, true>("v_mac_f32"));
  T.add(vop<+[](float A, float K, float B) { return madF32(A, K, B); }>("v_madmk_f32"));
  T.add(vop<+[](float A, float B, float K) { return madF32(A, B, K); }>("v_madak_f32"));
  T.add(vop<+[](float A, float B, float D) { return std::fma(A, B, D); }, true>("v_fmac_f32"));
  T.add(vop<+[](float A, float K, float B) { return std::fma(A, K, B); }>("v_fmamk_f32"));
  T.add(vop<+[](float A, float B, float K) { return std::fma(A, B, K); }>("v_fmaak_f32"));
  T.add(vop<+[](float A, float B) { return fmaxIeee(A, B); }>("v_max_f32"));
  T.add(vop<+[](float A, float B) { return fminIeee(A, B); }>("v_min_f32"));
  T.add(vop<+[](float A, float B, float C) { return fmaxIeee(fmaxIeee(A, B), C); }>("v_max3_f32"));
  T.add(vop<+[](float A, float B, float C) { return fminIeee(fminIeee(A, B), C); }>("v_min3_f32"));
  T.add(vop<+[](float A, float B, float C) { return fmed3(A, B, C); }>("v_med3_f32"));
  // GFX11+ (RDNA3 ISA, "VOP3"): D = min(max(S0, S1), S2) and max(min(S0, S1), S2).
  T.add(
      vop<+[](float A, float B, float C) { return fminIeee(fmaxIeee(A, B), C); }>("v_maxmin_f32"));
  T.add(
      vop<+[](float A, float B, float C) { return fmaxIeee(fminIeee(A, B), C); }>("v_minmax_f32"));
  T.add(vop<+[](float A, i32 E) { return std::ldexp(A, E); }>("v_ldexp_f32"));
  T.add(vop<+[](double A, double B) { return A + B; }>("v_add_f64"));
  T.add(vop<+[](double A, double B) { return A * B; }>("v_mul_f64"));
  T.add(vop<+[](double A, double B, double C) { return std::fma(A, B, C); }>("v_fma_f64"));
  T.add(vop<+[](double A, double B, double D) { return std::fma(A, B, D); }, true>("v_fmac_f64"));
  T.add(vop<+[](double A, double B) { return fmaxIeee(A, B); }>("v_max_f64"));
  T.add(vop<+[](double A, double B) { return fminIeee(A, B); }>("v_min_f64"));
  T.add(vop<+[](double A, i32 E) { return std::ldexp(A, E); }>("v_ldexp_f64"));

  // ---- 32-bit integer arithmetic and logic
  T.add(vopSat<+[](u32 A, u32 B) { return int64_t(A) + int64_t(B); }>("v_add_u32"));
  T.add(vopSat<+[](u32 A, u32 B) { return int64_t(A) - int64_t(B); }>("v_sub_u32"));
  T.add(vopSat<+[](u32 A, u32 B) { return int64_t(B) - int64_t(A); }>("v_subrev_u32"));
  T.add(vop<+[](u32 A, u32 B) { return A * B; }>("v_mul_lo_u32"));
  T.add(vop<+[](u32 A, u32 B) { return u32((u64(A) * B) >> 32); }>("v_mul_hi_u32"));
  T.add(vop<+[](i32 A, i32 B) { return i32((i64(A) * B) >> 32); }>("v_mul_hi_i32"));
  T.add(vop<+[](u32 A, u32 B) { return (A & 0xffffff) * (B & 0xffffff); }>("v_mul_u32_u24"));
  T.add(vop<+[](u32 A, u32 B) { return u32((u64(A & 0xffffff) * (B & 0xffffff)) >> 32); }>(
      "v_mul_hi_u32_u24"));
  T.add(vop<+[](u32 A, u32 B) { return u32(i64(sext24(A)) * sext24(B)); }>("v_mul_i32_i24"));
  T.add(vop<+[](u32 A, u32 B) { return u32((i64(sext24(A)) * sext24(B)) >> 32); }>(
      "v_mul_hi_i32_i24"));
  T.add(vop<+[](u32 A, u32 B, u32 C) { return (A & 0xffffff) * (B & 0xffffff) + C; }>(
      "v_mad_u32_u24"));
  T.add(vop<+[](u32 A, u32 B, u32 C) { return u32(i64(sext24(A)) * sext24(B)) + C; }>(
      "v_mad_i32_i24"));
  T.add(vop<+[](i32 A, i32 B) { return std::min(A, B); }>("v_min_i32"));
  T.add(vop<+[](u32 A, u32 B) { return std::min(A, B); }>("v_min_u32"));
  T.add(vop<+[](i32 A, i32 B) { return std::max(A, B); }>("v_max_i32"));
  T.add(vop<+[](u32 A, u32 B) { return std::max(A, B); }>("v_max_u32"));
  T.add(vop<+[](i32 A, i32 B, i32 C) { return std::min({A, B, C}); }>("v_min3_i32"));
  T.add(vop<+[](u32 A, u32 B, u32 C) { return std::min({A, B, C}); }>("v_min3_u32"));
  T.add(vop<+[](i32 A, i32 B, i32 C) { return std::max({A, B, C}); }>("v_max3_i32"));
  T.add(vop<+[](u32 A, u32 B, u32 C) { return std::max({A, B, C}); }>("v_max3_u32"));
  T.add(vop<+[](i32 A, i32 B, i32 C) { return med3(A, B, C); }>("v_med3_i32"));
  T.add(vop<+[](u32 A, u32 B, u32 C) { return med3(A, B, C); }>("v_med3_u32"));
  T.add(vop<+[](i32 A, i32 B, i32 C) { return std::min(std::max(A, B), C); }>("v_maxmin_i32"));
  T.add(vop<+[](u32 A, u32 B, u32 C) { return std::min(std::max(A, B), C); }>("v_maxmin_u32"));
  T.add(vop<+[](i32 A, i32 B, i32 C) { return std::max(std::min(A, B), C); }>("v_minmax_i32"));
  T.add(vop<+[](u32 A, u32 B, u32 C) { return std::max(std::min(A, B), C); }>("v_minmax_u32"));
  T.add(vop<+[](u32 A, u32 B) { return A & B; }>("v_and_b32"));
  T.add(vop<+[](u32 A, u32 B) { return A | B; }>("v_or_b32"));
  T.add(vop<+[](u32 A, u32 B) { return A ^ B; }>("v_xor_b32"));
  T.add(vop<+[](u32 A, u32 B) { return ~(A ^ B); }>("v_xnor_b32"));
  T.add(vop<+[](u32 S, u32 V) { return V << (S & 31); }>("v_lshlrev_b32"));
  T.add(vop<+[](u32 S, u32 V) { return V >> (S & 31); }>("v_lshrrev_b32"));
  T.add(vop<+[](u32 S, i32 V) { return V >> (S & 31); }>("v_ashrrev_i32"));
  T.add(vop<+[](u32 S, u64 V) { return V << (S & 63); }>("v_lshlrev_b64"));
  T.add(vop<+[](u32 S, u64 V) { return V >> (S & 63); }>("v_lshrrev_b64"));
  T.add(vop<+[](u32 S, i64 V) { return V >> (S & 63); }>("v_ashrrev_i64"));
  T.add(vop<+[](u64 A, u32 S, u64 C) { return (A << (S & 7)) + C; }>("v_lshl_add_u64"));
  T.add(vop<+[](u32 A, u32 O, u32 W) { return bfeU(A, O, W); }>("v_bfe_u32"));
  T.add(vop<+[](i32 A, u32 O, u32 W) { return bfeI(A, O, W); }>("v_bfe_i32"));
  T.add(vop<+[](u32 M, u32 A, u32 B) { return (M & A) | (~M & B); }>("v_bfi_b32"));
  T.add(
      vop<+[](u32 W, u32 O) { return u32(((u64(1) << (W & 31)) - 1) << (O & 31)); }>("v_bfm_b32"));
  T.add(vop<+[](u32 A, u32 B, u32 S) { return u32(((u64(A) << 32) | B) >> (S & 31)); }>(
      "v_alignbit_b32"));
  T.add(vop<+[](u32 A, u32 B, u32 S) { return u32(((u64(A) << 32) | B) >> (8 * (S & 3))); }>(
      "v_alignbyte_b32"));
  T.add(vop<+[](u32 A, u32 B, u32 S) { return perm(A, B, S); }>("v_perm_b32"));
  T.add(vop<+[](u32 A, u32 S, u32 C) { return (A << (S & 31)) | C; }>("v_lshl_or_b32"));
  T.add(vop<+[](u32 A, u32 S, u32 C) { return (A << (S & 31)) + C; }>("v_lshl_add_u32"));
  T.add(vop<+[](u32 A, u32 B, u32 S) { return (A + B) << (S & 31); }>("v_add_lshl_u32"));
  T.add(vop<+[](u32 A, u32 B, u32 C) { return (A & B) | C; }>("v_and_or_b32"));
  T.add(vop<+[](u32 A, u32 B, u32 C) { return A | B | C; }>("v_or3_b32"));
  T.add(vop<+[](u32 A, u32 B, u32 C) { return A ^ B ^ C; }>("v_xor3_b32"));
  T.add(vop<+[](u32 A, u32 B, u32 C) { return A + B + C; }>("v_add3_u32"));
  T.add(vop<+[](u32 A, u32 B, u32 C) { return (A ^ B) + C; }>("v_xad_u32"));
  T.add(vop<+[](u32 A, u32 B) { return u32(std::popcount(A)) + B; }>("v_bcnt_u32_b32"));

  // ---- 16-bit integer arithmetic (add and sub, which saturate with CLAMP:
  // SemanticsIntegerExtra.cpp)
  // (in u32: u16 operands would be promoted to int, whose product can overflow)
  T.add(vop<+[](u16 A, u16 B) { return u16(u32(A) * B); }>("v_mul_lo_u16"));
  T.add(vop<+[](u16 A, u16 B, u16 C) { return u16(u32(A) * B + C); }>("v_mad_u16"));
  T.add(vop<+[](i16 A, i16 B, i16 C) { return i16(u32(A * B) + u32(C)); }>("v_mad_i16"));
  // GFX9's names for GFX8's encodings, which zero the destination's high half (as every 16-bit
  // result written to a whole register does on GFX9 here: Wave::writeLane).
  T.alias("v_mad_legacy_u16", "v_mad_u16");
  T.alias("v_mad_legacy_i16", "v_mad_i16");
  T.add(vop<+[](u16 S, u16 V) { return u16(V << (S & 15)); }>("v_lshlrev_b16"));
  T.add(vop<+[](u16 S, u16 V) { return u16(V >> (S & 15)); }>("v_lshrrev_b16"));
  T.add(vop<+[](u16 S, i16 V) { return i16(V >> (S & 15)); }>("v_ashrrev_i16"));
  T.add(vop<+[](u16 A, u16 B) { return std::max(A, B); }>("v_max_u16"));
  T.add(vop<+[](i16 A, i16 B) { return std::max(A, B); }>("v_max_i16"));
  T.add(vop<+[](u16 A, u16 B) { return std::min(A, B); }>("v_min_u16"));
  T.add(vop<+[](i16 A, i16 B) { return std::min(A, B); }>("v_min_i16"));

  // ---- carry-out forms
  T.add(vopCarry<+[](u32 A, u32 B) {
    return Carry<u32>{A + B, u64(A) + B > 0xffffffffull};
  }>("v_add_co_u32"));
  T.add(vopCarry<+[](u32 A, u32 B) { return Carry<u32>{A - B, B > A}; }>("v_sub_co_u32"));
  T.add(vopCarry<+[](u32 A, u32 B) { return Carry<u32>{B - A, A > B}; }>("v_subrev_co_u32"));
  T.add(vopCarry<+[](u32 A, u32 B, bool C) {
    u64 R = u64(A) + B + C;
    return Carry<u32>{u32(R), (R >> 32) != 0};
  }>("v_addc_co_u32"));
  T.add(vopCarry<+[](u32 A, u32 B, bool C) {
    return Carry<u32>{A - B - C, u64(B) + C > A};
  }>("v_subb_co_u32"));
  T.add(vopCarry<+[](u32 A, u32 B, bool C) {
    return Carry<u32>{B - A - C, u64(A) + C > B};
  }>("v_subbrev_co_u32"));
  T.add(vopCarry<+[](u32 A, u32 B, u64 C) {
    unsigned __int128 R = (unsigned __int128)(u64(A) * B) + C;
    return Carry<u64>{u64(R), (R >> 64) != 0};
  }>("v_mad_u64_u32"));
  T.add(vopCarry<+[](i32 A, i32 B, i64 C) {
    __int128 R = (__int128)(i64(A) * B) + C;
    return Carry<i64>{i64(R), R != __int128(i64(R))};
  }>("v_mad_i64_i32"));

  // ---- compares
  addIntCompares<i32>(T, "i32");
  addIntCompares<u32>(T, "u32");
  addIntCompares<i64>(T, "i64");
  addIntCompares<u64>(T, "u64");
  addIntCompares<i16>(T, "i16");
  addIntCompares<u16>(T, "u16");
  addFloatCompares<float>(T, "f32");
  addFloatCompares<double>(T, "f64");
  T.add(vopc<+[](float A, u32 M) { return fpClass(A, M); }, false>("v_cmp_class_f32"));
  T.add(vopc<+[](float A, u32 M) { return fpClass(A, M); }, true>("v_cmpx_class_f32"));
  T.add(vopc<+[](double A, u32 M) { return fpClass(A, M); }, false>("v_cmp_class_f64"));
  T.add(vopc<+[](double A, u32 M) { return fpClass(A, M); }, true>("v_cmpx_class_f64"));

  // ---- cross-lane and special
  T.add(custom("v_mbcnt_lo_u32_b32", &mbcnt<false>, 3));
  T.add(custom("v_mbcnt_hi_u32_b32", &mbcnt<true>, 3));
  T.add(custom("v_readfirstlane_b32", &readfirstlane, 2));
  T.add(custom("v_readlane_b32", &readlane, 3));
  T.add(custom("v_writelane_b32", &writelane, 3));
  T.add(custom("v_swap_b32", &swapB32, 2));
  T.add(custom("v_pk_mov_b32", &pkMov, 3));
  T.add(custom("v_pk_add_f32", &pkF32<2, +[](float A, float B, float) { return A + B; }>, 3));
  T.add(custom("v_pk_mul_f32", &pkF32<2, +[](float A, float B, float) { return A * B; }>, 3));
  T.add(custom("v_pk_fma_f32",
               &pkF32<3, +[](float A, float B, float C) { return std::fma(A, B, C); }>, 4));
  T.add(custom("v_dual", &vopd));

  // GFX10+/GFX11+/GFX12 spellings
  T.alias("v_add_nc_u32", "v_add_u32");
  T.alias("v_sub_nc_u32", "v_sub_u32");
  T.alias("v_subrev_nc_u32", "v_subrev_u32");
  T.alias("v_add_co_ci_u32", "v_addc_co_u32");
  T.alias("v_sub_co_ci_u32", "v_subb_co_u32");
  T.alias("v_subrev_co_ci_u32", "v_subbrev_co_u32");
  T.alias("v_clz_i32_u32", "v_ffbh_u32");
  T.alias("v_ctz_i32_b32", "v_ffbl_b32");
  T.alias("v_cls_i32", "v_ffbh_i32");
  T.alias("v_mul_dx9_zero_f32", "v_mul_legacy_f32");
  T.add(vop<+[](float A, float B) { return minimum2019(A, B); }>("v_minimum_f32"));
  T.add(vop<+[](float A, float B) { return maximum2019(A, B); }>("v_maximum_f32"));
  T.add(vop<+[](double A, double B) { return minimum2019(A, B); }>("v_minimum_f64"));
  T.add(vop<+[](double A, double B) { return maximum2019(A, B); }>("v_maximum_f64"));
  T.add(vop<+[](float A, float B, float C) { return minimum2019(minimum2019(A, B), C); }>(
      "v_minimum3_f32"));
  T.add(vop<+[](float A, float B, float C) { return maximum2019(maximum2019(A, B), C); }>(
      "v_maximum3_f32"));
  T.add(vop<+[](float A, float B, float C) { return minimum2019(maximum2019(A, B), C); }>(
      "v_maximumminimum_f32"));
  T.add(vop<+[](float A, float B, float C) { return maximum2019(minimum2019(A, B), C); }>(
      "v_minimummaximum_f32"));
  T.alias("v_max_num_f32", "v_max_f32");
  T.alias("v_min_num_f32", "v_min_f32");
  // GFX12's SALU forms (saluFloat, Semantics.h).
  T.add(saluFloat<+[](float A, float B) { return fmaxIeee(A, B); }>("s_max_num_f32"));
  T.add(saluFloat<+[](float A, float B) { return fminIeee(A, B); }>("s_min_num_f32"));
  T.alias("v_max_num_f64", "v_max_f64");
  T.alias("v_min_num_f64", "v_min_f64");
  T.alias("v_max3_num_f32", "v_max3_f32");
  T.alias("v_min3_num_f32", "v_min3_f32");
  T.alias("v_med3_num_f32", "v_med3_f32");
  T.alias("v_maxmin_num_f32", "v_maxmin_f32");
  T.alias("v_minmax_num_f32", "v_minmax_f32");
}

} // namespace reptx::emulator::sem
