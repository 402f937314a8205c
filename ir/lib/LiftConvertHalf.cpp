// cvt (PTX ISA 9.7.9.21) involving the narrow float types — f16, bf16, their x2 packed forms,
// tf32 and the FP8 pairs e4m3x2/e5m2x2 — and the directed rounding modes .rz/.rm/.rp of
// float-to-float and integer-to-float conversions.
//
// Every conversion goes through an exact intermediate: the source becomes a double (exactly for
// every float type and 32-bit integers, rounded to odd for 64-bit integers), which is then
// rounded once to the destination (HalfRounding.h), so each result is correctly rounded in
// every mode without relying on a target's conversion instructions.
#include "HalfRounding.h"
#include "Lifter.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/Intrinsics.h"

#include <cmath>

using namespace llvm;

namespace reptx::ir {

namespace {

enum class Kind { Int, F16, BF16, F32, F64, TF32, E4M3, E5M2 };

struct CvtType {
  Kind K = Kind::Int;
  bool X2 = false; // packed pair
  bool Signed = false;
  unsigned Width = 0; // bits of one element (integers and floats)
};

std::optional<CvtType> cvtType(StringRef M) {
  CvtType T;
  if (M == ".f16" || M == ".f16x2" || M == ".bf16" || M == ".bf16x2") {
    T.K = M.starts_with(".bf") ? Kind::BF16 : Kind::F16;
    T.X2 = M.ends_with("x2");
    T.Width = 16;
    return T;
  }
  if (M == ".tf32")
    return CvtType{Kind::TF32, false, false, 32};
  if (M == ".e4m3x2" || M == ".e5m2x2")
    return CvtType{M == ".e4m3x2" ? Kind::E4M3 : Kind::E5M2, true, false, 8};
  auto P = parseType(M);
  if (!P || P->K == PtxType::Pred)
    return std::nullopt;
  if (P->isFloat())
    return CvtType{P->Width == 32   ? Kind::F32
                   : P->Width == 64 ? Kind::F64
                                    : Kind::F16,
                   false, false, P->Width};
  return CvtType{Kind::Int, false, P->isSigned(), P->Width};
}

bool isNarrowFloat(const CvtType &T) {
  return T.K == Kind::F16 || T.K == Kind::BF16 || T.K == Kind::TF32 || T.K == Kind::E4M3 ||
         T.K == Kind::E5M2;
}

Type *vec2(Type *T, bool X2) { return X2 ? FixedVectorType::get(T, 2) : T; }

class CvtLifter {
public:
  CvtLifter(FunctionLifter &L, const ptx::Instruction &I, CvtType D, CvtType S)
      : L(L), B(L.B), I(I), D(D), S(S) {}
  Error lift();

private:
  FunctionLifter &L;
  IRBuilder<> &B;
  const ptx::Instruction &I;
  CvtType D, S;
  Rounding Mode = Rounding::Nearest;

  Value *splat(Type *T, double V) { return ConstantFP::get(T, V); }
  // Saturation of a double before the final rounding: .satfinite clamps to ±Max (NaN stays
  // NaN), .relu clamps negatives and -0.0 to +0.0, .sat to [0, 1] (NaN -> 0).
  Value *clampWide(Value *V, double Max) {
    Type *T = V->getType();
    if (L.hasMod(".relu"))
      V = B.CreateSelect(B.CreateFCmpUGT(V, splat(T, 0.0)), V, splat(T, 0.0));
    if (L.hasMod(".satfinite") && Max > 0) {
      V = B.CreateSelect(B.CreateFCmpOGT(V, splat(T, Max)), splat(T, Max), V);
      V = B.CreateSelect(B.CreateFCmpOLT(V, splat(T, -Max)), splat(T, -Max), V);
    }
    if (L.hasMod(".sat"))
      V = L.saturate(V);
    return V;
  }
  Expected<Value *> sourceAsDouble(unsigned Idx, bool X2);
  Value *toFp8(Value *F, Kind K);
  Value *fromFp8(Value *Byte, Kind K);
};

// An FP8 code from a float (exact or rounded to odd), round to nearest even with saturation to
// the largest finite value (.satfinite is required for these conversions, PTX ISA 9.7.9.21):
// e4m3 (bias 7, 3 mantissa bits, no infinity, NaN 0x7f, max 448 = 0x7e) and e5m2 (bias 15, 2
// mantissa bits, max 57344 = 0x7b, NaN 0x7f).
Value *CvtLifter::toFp8(Value *F, Kind K) {
  bool E4 = K == Kind::E4M3;
  unsigned MBits = E4 ? 3 : 2, Bias = E4 ? 7 : 15;
  unsigned MaxCode = E4 ? 0x7e : 0x7b;
  Type *FT = F->getType(), *I32 = B.getInt32Ty();
  auto C = [&](uint32_t V) { return ConstantInt::get(I32, V); };
  Value *A = B.CreateUnaryIntrinsic(Intrinsic::fabs, F);
  // Normal range: round the float's bits at the FP8 mantissa's last place (carries run into
  // the exponent), then rebias.
  Value *U = B.CreateBitCast(A, I32);
  unsigned Drop = 23 - MBits;
  Value *Rnd = B.CreateAdd(C((1u << (Drop - 1)) - 1), B.CreateAnd(B.CreateLShr(U, C(Drop)), C(1)));
  Value *Normal = B.CreateSub(B.CreateLShr(B.CreateAdd(U, Rnd), C(Drop)), C((127 - Bias) << MBits));
  // Subnormal range (below 2^(1-Bias)): a multiple of the smallest subnormal, rounded to even;
  // the scaling is exact.
  double MinNormal = std::ldexp(1.0, 1 - int(Bias));
  Value *Q = B.CreateFMul(A, ConstantFP::get(FT, std::ldexp(1.0, int(Bias) - 1 + int(MBits))));
  Value *Sub = B.CreateFPToUI(B.CreateUnaryIntrinsic(Intrinsic::roundeven, Q), I32);
  Value *Code = B.CreateSelect(B.CreateFCmpOLT(A, ConstantFP::get(FT, MinNormal)), Sub, Normal);
  Code = B.CreateSelect(B.CreateICmpUGT(Code, C(MaxCode)), C(MaxCode), Code);
  Value *Sign = B.CreateAnd(B.CreateLShr(B.CreateBitCast(F, I32), C(24)), C(0x80));
  Code = B.CreateOr(Code, Sign);
  // .relu: a negative value (and -0) becomes +0.
  if (L.hasMod(".relu"))
    Code = B.CreateSelect(B.CreateFCmpOLE(F, ConstantFP::get(FT, 0.0)), C(0), Code);
  // NaN, of either sign, becomes the canonical NaN 0x7f (the sign dropped, as the emulation of
  // these instructions in CUDA's cuda_fp8.hpp does).
  Code = B.CreateSelect(B.CreateFCmpUNO(F, F), C(0x7f), Code);
  return B.CreateTrunc(Code, B.getInt8Ty());
}

// An FP8 code to half (exact); every NaN becomes the canonical f16 NaN 0x7fff, its sign
// dropped (cuda_fp8.hpp's emulation of cvt.rn.f16x2.e4m3x2/e5m2x2).
Value *CvtLifter::fromFp8(Value *Byte, Kind K) {
  Type *I16 = B.getInt16Ty();
  Value *X = B.CreateZExt(Byte, I16);
  Value *CanonicalNaN = B.CreateBitCast(ConstantInt::get(I16, 0x7fff), B.getHalfTy());
  if (K == Kind::E5M2) { // e5m2 is the upper byte of an f16
    Value *H = B.CreateShl(X, ConstantInt::get(I16, 8));
    Value *IsNaN = B.CreateICmpUGT(B.CreateAnd(H, ConstantInt::get(I16, 0x7fff)),
                                   ConstantInt::get(I16, 0x7c00));
    return B.CreateSelect(IsNaN, CanonicalNaN, B.CreateBitCast(H, B.getHalfTy()));
  }
  // e4m3: sign, 4 exponent bits (bias 7), 3 mantissa bits; 0x7f/0xff are NaN.
  Type *I32 = B.getInt32Ty();
  Value *W = B.CreateZExt(Byte, I32);
  auto C = [&](uint32_t V) { return ConstantInt::get(I32, V); };
  Value *Exp = B.CreateAnd(B.CreateLShr(W, C(3)), C(15));
  Value *Man = B.CreateAnd(W, C(7));
  Value *IsSub = B.CreateICmpEQ(Exp, C(0));
  Value *Sig = B.CreateSelect(IsSub, Man, B.CreateOr(Man, C(8)));
  Value *E = B.CreateSub(B.CreateSelect(IsSub, C(1), Exp), C(10)); // value = Sig * 2^(e-7-3)
  Value *F = B.CreateIntrinsic(Intrinsic::ldexp, {B.getFloatTy(), I32},
                               {B.CreateUIToFP(Sig, B.getFloatTy()), E});
  F = B.CreateSelect(B.CreateICmpNE(B.CreateAnd(W, C(0x80)), C(0)), B.CreateFNeg(F), F);
  return B.CreateSelect(B.CreateICmpEQ(B.CreateAnd(W, C(0x7f)), C(0x7f)), CanonicalNaN,
                        B.CreateFPTrunc(F, B.getHalfTy()));
}

Expected<Value *> CvtLifter::sourceAsDouble(unsigned Idx, bool X2) {
  Type *DT = vec2(B.getDoubleTy(), X2);
  switch (S.K) {
  case Kind::Int: {
    auto V = L.read(I.Ops[Idx], B.getIntNTy(S.Width), S.Signed);
    if (!V)
      return V.takeError();
    return intToOddDouble(B, *V, S.Signed);
  }
  case Kind::F16:
  case Kind::BF16: {
    auto V = L.read(I.Ops[Idx], X2 ? B.getInt32Ty() : B.getInt16Ty());
    if (!V)
      return V.takeError();
    Value *Bits = X2 ? B.CreateBitCast(*V, FixedVectorType::get(B.getInt16Ty(), 2)) : *V;
    Value *F =
        S.K == Kind::BF16 ? bf16ToFloat(B, Bits) : B.CreateBitCast(Bits, vec2(B.getHalfTy(), X2));
    return B.CreateFPExt(F, DT);
  }
  case Kind::F32: {
    auto V = L.read(I.Ops[Idx], B.getFloatTy());
    if (!V)
      return V.takeError();
    Value *F = *V;
    if (L.hasMod(".ftz"))
      F = L.flushSubnormal(F);
    return B.CreateFPExt(F, DT);
  }
  case Kind::F64:
    return L.read(I.Ops[Idx], B.getDoubleTy());
  default:
    return L.unsupported("conversion from this type");
  }
}

Error CvtLifter::lift() {
  for (StringRef M : I.Mods) {
    if (M == ".rz")
      Mode = Rounding::Zero;
    else if (M == ".rm")
      Mode = Rounding::Down;
    else if (M == ".rp")
      Mode = Rounding::Up;
    else if (M == ".rs" || M == ".pack")
      return L.unsupported();
  }
  bool Rna = L.hasMod(".rna");

  // FP8 pairs (9.7.9.21): from two f32 (a to the upper byte, b to the lower) or one f16x2; to
  // f16x2.
  if (D.K == Kind::E4M3 || D.K == Kind::E5M2) {
    Value *Lo, *Hi;
    if (S.K == Kind::F32 && I.Ops.size() == 3) {
      auto A = L.read(I.Ops[1], B.getFloatTy()), Bv = L.read(I.Ops[2], B.getFloatTy());
      if (!A || !Bv)
        return joinErrors(A.takeError(), Bv.takeError());
      Hi = *A;
      Lo = *Bv;
    } else if (S.K == Kind::F16 && S.X2 && I.Ops.size() == 2) {
      auto V = L.read(I.Ops[1], B.getInt32Ty());
      if (!V)
        return V.takeError();
      Value *H = B.CreateBitCast(*V, FixedVectorType::get(B.getHalfTy(), 2));
      Lo = B.CreateFPExt(B.CreateExtractElement(H, uint64_t(0)), B.getFloatTy());
      Hi = B.CreateFPExt(B.CreateExtractElement(H, uint64_t(1)), B.getFloatTy());
    } else {
      return L.unsupported();
    }
    Value *R = B.CreateOr(B.CreateZExt(toFp8(Lo, D.K), B.getInt16Ty()),
                          B.CreateShl(B.CreateZExt(toFp8(Hi, D.K), B.getInt16Ty()), 8));
    return L.write(I.Ops[0], R);
  }
  if (S.K == Kind::E4M3 || S.K == Kind::E5M2) {
    if (!(D.K == Kind::F16 && D.X2))
      return L.unsupported();
    auto V = L.read(I.Ops[1], B.getInt16Ty());
    if (!V)
      return V.takeError();
    Value *Lo = fromFp8(B.CreateTrunc(*V, B.getInt8Ty()), S.K);
    Value *Hi = fromFp8(B.CreateTrunc(B.CreateLShr(*V, 8), B.getInt8Ty()), S.K);
    Value *H = B.CreateInsertElement(PoisonValue::get(FixedVectorType::get(B.getHalfTy(), 2)), Lo,
                                     uint64_t(0));
    H = B.CreateInsertElement(H, Hi, uint64_t(1));
    if (L.hasMod(".relu")) {
      Value *Z = ConstantFP::get(H->getType(), 0.0);
      H = B.CreateSelect(B.CreateFCmpUGT(H, Z), H, Z);
    }
    return L.write(I.Ops[0], B.CreateBitCast(H, B.getInt32Ty()));
  }

  // f16x2 / bf16x2 from two f32: a to the upper half, b to the lower (9.7.9.21).
  if ((D.K == Kind::F16 || D.K == Kind::BF16) && D.X2) {
    if (S.K != Kind::F32 || I.Ops.size() != 3)
      return L.unsupported();
    auto A = sourceAsDouble(1, false), Bv = sourceAsDouble(2, false);
    if (!A || !Bv)
      return joinErrors(A.takeError(), Bv.takeError());
    Type *DT = FixedVectorType::get(B.getDoubleTy(), 2);
    Value *V = B.CreateInsertElement(PoisonValue::get(DT), *Bv, uint64_t(0));
    V = B.CreateInsertElement(V, *A, uint64_t(1));
    V = clampWide(V, D.K == Kind::F16 ? 65504.0 : 3.38953138925153547590e38);
    Value *R = D.K == Kind::F16 ? B.CreateBitCast(doubleToHalf(B, V, Mode),
                                                  FixedVectorType::get(B.getInt16Ty(), 2))
                                : doubleToBf16(B, V, Mode);
    return L.write(I.Ops[0], B.CreateBitCast(R, B.getInt32Ty()));
  }
  if (D.X2 || S.X2 || I.Ops.size() != 2)
    return L.unsupported();

  // Float to integer (.rni .rzi .rmi .rpi), saturating with NaN -> 0: the narrow float is exact
  // in f32, and LiftConvert's rules apply.
  if (D.K == Kind::Int) {
    Intrinsic::ID Round = Intrinsic::not_intrinsic;
    for (StringRef M : I.Mods)
      Round = StringSwitch<Intrinsic::ID>(M)
                  .Case(".rni", Intrinsic::roundeven)
                  .Case(".rzi", Intrinsic::trunc)
                  .Case(".rmi", Intrinsic::floor)
                  .Case(".rpi", Intrinsic::ceil)
                  .Default(Round);
    if (Round == Intrinsic::not_intrinsic || (S.K != Kind::F16 && S.K != Kind::BF16))
      return L.unsupported();
    auto V = sourceAsDouble(1, false);
    if (!V)
      return V.takeError();
    Value *F = B.CreateFPTrunc(*V, B.getFloatTy()); // exact
    F = B.CreateUnaryIntrinsic(Round, F);
    Type *IT = B.getIntNTy(D.Width);
    Value *R = B.CreateIntrinsic(D.Signed ? Intrinsic::fptosi_sat : Intrinsic::fptoui_sat,
                                 {IT, B.getFloatTy()}, {F});
    return L.write(I.Ops[0], R, D.Signed);
  }

  // Integral rounding within f16 (cvt.rni.f16.f16): exact in f32.
  Intrinsic::ID IntRound = Intrinsic::not_intrinsic;
  for (StringRef M : I.Mods)
    IntRound = StringSwitch<Intrinsic::ID>(M)
                   .Case(".rni", Intrinsic::roundeven)
                   .Case(".rzi", Intrinsic::trunc)
                   .Case(".rmi", Intrinsic::floor)
                   .Case(".rpi", Intrinsic::ceil)
                   .Default(IntRound);

  auto V = sourceAsDouble(1, false);
  if (!V)
    return V.takeError();
  Value *X = *V;
  if (IntRound != Intrinsic::not_intrinsic)
    X = B.CreateUnaryIntrinsic(IntRound, X);
  Value *R;
  switch (D.K) {
  case Kind::F16:
    R = B.CreateBitCast(doubleToHalf(B, clampWide(X, 65504.0), Mode), B.getInt16Ty());
    break;
  case Kind::BF16:
    R = doubleToBf16(B, clampWide(X, 3.38953138925153547590e38), Mode);
    break;
  case Kind::F32: {
    // A 64-bit integer arrives rounded to odd, which every mode then rounds correctly.
    R = roundNarrow(B, clampWide(X, 0), B.getFloatTy(), Mode);
    if (L.hasMod(".ftz"))
      R = L.flushSubnormal(R);
    break;
  }
  case Kind::F64:
    if (S.K == Kind::Int && S.Width == 64) {
      // An i64 is not exact in double: round it directly. sitofp rounds to nearest; directed
      // modes correct it by one step from the exact integer difference.
      auto IV = L.read(I.Ops[1], B.getInt64Ty(), S.Signed);
      if (!IV)
        return IV.takeError();
      Value *N =
          S.Signed ? B.CreateSIToFP(*IV, B.getDoubleTy()) : B.CreateUIToFP(*IV, B.getDoubleTy());
      if (Mode != Rounding::Nearest) {
        // The nearest double N is within 2^10 of the integer, so N converted back is exact
        // unless N is 2^63 (signed) or 2^64 (unsigned), which lie above every such integer.
        Value *Back = B.CreateIntrinsic(S.Signed ? Intrinsic::fptosi_sat : Intrinsic::fptoui_sat,
                                        {B.getInt64Ty(), N->getType()}, {N});
        Value *Big =
            B.CreateFCmpOGE(N, ConstantFP::get(N->getType(), S.Signed ? 9223372036854775808.0
                                                                      : 18446744073709551616.0));
        Value *Above =
            B.CreateOr(Big, S.Signed ? B.CreateICmpSGT(Back, *IV) : B.CreateICmpUGT(Back, *IV));
        Value *Below = B.CreateAnd(B.CreateNot(Big), S.Signed ? B.CreateICmpSLT(Back, *IV)
                                                              : B.CreateICmpULT(Back, *IV));
        Value *NBits = B.CreateBitCast(N, B.getInt64Ty());
        Value *Neg = B.CreateICmpSLT(NBits, B.getInt64(0));
        Value *Grow = B.CreateAdd(NBits, B.getInt64(1)),
              *Shrink = B.CreateSub(NBits, B.getInt64(1));
        Value *DownV = B.CreateSelect(Neg, Grow, Shrink), *UpV = B.CreateSelect(Neg, Shrink, Grow);
        Value *RB = NBits;
        if (Mode == Rounding::Down)
          RB = B.CreateSelect(Above, DownV, NBits);
        else if (Mode == Rounding::Up)
          RB = B.CreateSelect(Below, UpV, NBits);
        else
          RB = B.CreateSelect(B.CreateSelect(Neg, Below, Above), Shrink, NBits);
        N = B.CreateBitCast(RB, B.getDoubleTy());
      }
      R = N;
    } else {
      R = X; // exact
    }
    if (L.hasMod(".sat"))
      R = L.saturate(R);
    break;
  case Kind::TF32: {
    // tf32 (9.7.9.21): an f32 with the low 13 mantissa bits zero. .rna rounds half away from
    // zero, .rn half to even, .rz truncates; NaN becomes the canonical NaN.
    if (S.K != Kind::F32)
      return L.unsupported();
    Value *F = B.CreateFPTrunc(X, B.getFloatTy());
    Value *U = B.CreateBitCast(F, B.getInt32Ty());
    Value *Add = Rna ? B.getInt32(0x1000)
                 : Mode == Rounding::Zero
                     ? B.getInt32(0)
                     : B.CreateAdd(B.getInt32(0xfff), B.CreateAnd(B.CreateLShr(U, 13), 1));
    if (!Rna && Mode != Rounding::Nearest && Mode != Rounding::Zero)
      return L.unsupported();
    Value *T = B.CreateAnd(B.CreateAdd(U, Add), B.getInt32(~0x1fffu));
    if (L.hasMod(".satfinite")) {
      Value *IsInf = B.CreateICmpEQ(B.CreateAnd(T, 0x7fffffff), B.getInt32(0x7f800000));
      T = B.CreateSelect(IsInf, B.CreateOr(B.CreateAnd(T, 0x80000000), 0x7f7fe000), T);
    }
    if (L.hasMod(".relu"))
      T = B.CreateSelect(B.CreateICmpSLT(T, B.getInt32(0)), B.getInt32(0), T);
    R = B.CreateSelect(B.CreateFCmpUNO(F, F), B.getInt32(0x7fffffff), T);
    break;
  }
  default:
    return L.unsupported();
  }
  return L.write(I.Ops[0], R);
}

} // namespace

bool isHalfConversion(const ptx::Instruction &I) {
  // Conversions with a narrow float type, or a directed rounding mode of a float result.
  SmallVector<CvtType, 2> Ts;
  for (StringRef M : I.Mods)
    if (auto T = cvtType(M))
      Ts.push_back(*T);
  if (Ts.size() != 2)
    return false;
  if (isNarrowFloat(Ts[0]) || isNarrowFloat(Ts[1]))
    return true;
  bool Directed = false;
  for (StringRef M : I.Mods)
    Directed |= M == ".rz" || M == ".rm" || M == ".rp";
  return Directed && Ts[0].K != Kind::Int && !(Ts[0].K == Ts[1].K);
}

Error liftConvertHalf(FunctionLifter &L, const ptx::Instruction &I) {
  SmallVector<CvtType, 2> Ts;
  for (StringRef M : I.Mods)
    if (auto T = cvtType(M))
      Ts.push_back(*T);
  if (Ts.size() != 2)
    return L.unsupported();
  return CvtLifter(L, I, Ts[0], Ts[1]).lift();
}

} // namespace reptx::ir
