// Exact rounding to narrow float formats; see HalfRounding.h.
#include "HalfRounding.h"

#include "llvm/IR/Intrinsics.h"

using namespace llvm;

namespace reptx::ir {

Type *intTypeLike(Type *T) {
  Type *I = IntegerType::get(T->getContext(), T->getScalarSizeInBits());
  if (auto *VT = dyn_cast<VectorType>(T))
    return VectorType::get(I, VT->getElementCount());
  return I;
}

static Type *withScalar(Type *Like, Type *Scalar) {
  if (auto *VT = dyn_cast<VectorType>(Like))
    return VectorType::get(Scalar, VT->getElementCount());
  return Scalar;
}

Value *roundNarrow(IRBuilder<> &B, Value *Wide, Type *Narrow, Rounding R) {
  // The nearest-even conversion, then one step (the next representable value in the bit
  // pattern's order: +1 grows the magnitude, -1 shrinks it) where the direction asks for the
  // other neighbour. The corrected result keeps Wide's sign, so no step ever crosses zero.
  Value *F = B.CreateFPTrunc(Wide, Narrow);
  if (R == Rounding::Nearest)
    return F;
  Type *IT = intTypeLike(Narrow);
  Value *Back = B.CreateFPExt(F, Wide->getType());
  Value *Bits = B.CreateBitCast(F, IT);
  Value *One = ConstantInt::get(IT, 1);
  Value *Inexact = B.CreateFCmpONE(Back, Wide); // false for NaN
  Value *Neg = B.CreateICmpSLT(Bits, Constant::getNullValue(IT));
  Value *Grow = B.CreateAdd(Bits, One), *Shrink = B.CreateSub(Bits, One);
  Value *Step, *Stepped;
  switch (R) {
  case Rounding::Down: // toward -inf: needed when the exact value lies below the result
    Step = B.CreateFCmpOLT(Wide, Back);
    Stepped = B.CreateSelect(Neg, Grow, Shrink);
    break;
  case Rounding::Up:
    Step = B.CreateFCmpOGT(Wide, Back);
    Stepped = B.CreateSelect(Neg, Shrink, Grow);
    break;
  case Rounding::Zero: {
    Value *AbsW = B.CreateUnaryIntrinsic(Intrinsic::fabs, Wide);
    Value *AbsB = B.CreateUnaryIntrinsic(Intrinsic::fabs, Back);
    Step = B.CreateFCmpOLT(AbsW, AbsB);
    Stepped = Shrink;
    break;
  }
  default: { // odd: an even inexact result moves one step toward the exact value
    Value *AbsW = B.CreateUnaryIntrinsic(Intrinsic::fabs, Wide);
    Value *AbsB = B.CreateUnaryIntrinsic(Intrinsic::fabs, Back);
    Step = B.CreateICmpEQ(B.CreateAnd(Bits, One), Constant::getNullValue(IT));
    Stepped = B.CreateSelect(B.CreateFCmpOGT(AbsW, AbsB), Grow, Shrink);
    break;
  }
  }
  Value *R2 = B.CreateSelect(B.CreateAnd(Inexact, Step), Stepped, Bits);
  return B.CreateBitCast(R2, Narrow);
}

Value *bf16ToFloat(IRBuilder<> &B, Value *Bits) {
  Type *I32 = withScalar(Bits->getType(), B.getInt32Ty());
  Value *W = B.CreateShl(B.CreateZExt(Bits, I32), ConstantInt::get(I32, 16));
  return B.CreateBitCast(W, withScalar(Bits->getType(), B.getFloatTy()));
}

Value *floatToBf16(IRBuilder<> &B, Value *F, Rounding R) {
  // bf16 is the upper half of a float (PTX ISA 5.2.5.1): truncation is round-toward-zero, and
  // the other directions add one unit of the kept part when the dropped half is not zero.
  Type *I32 = intTypeLike(F->getType());
  Value *U = B.CreateBitCast(F, I32);
  auto C = [&](uint32_t V) { return ConstantInt::get(I32, V); };
  Value *Hi = B.CreateLShr(U, C(16));
  Value *Inexact = B.CreateICmpNE(B.CreateAnd(U, C(0xffff)), C(0));
  Value *Neg = B.CreateICmpSLT(U, C(0));
  Value *R32;
  switch (R) {
  case Rounding::Nearest:
    // Ties to even: add 0x7fff plus the kept part's last bit, then truncate.
    R32 = B.CreateLShr(B.CreateAdd(B.CreateAdd(U, C(0x7fff)), B.CreateAnd(Hi, C(1))), C(16));
    break;
  case Rounding::Zero:
    R32 = Hi;
    break;
  case Rounding::Down:
    R32 = B.CreateAdd(Hi, B.CreateZExt(B.CreateAnd(Inexact, Neg), I32));
    break;
  case Rounding::Up:
    R32 = B.CreateAdd(Hi, B.CreateZExt(B.CreateAnd(Inexact, B.CreateNot(Neg)), I32));
    break;
  case Rounding::Odd:
    R32 = B.CreateOr(Hi, B.CreateZExt(Inexact, I32));
    break;
  }
  Type *I16 = withScalar(F->getType(), B.getInt16Ty());
  Value *R16 = B.CreateTrunc(R32, I16);
  return B.CreateSelect(B.CreateFCmpUNO(F, F), ConstantInt::get(I16, 0x7fff), R16);
}

Value *doubleToBf16(IRBuilder<> &B, Value *D, Rounding R) {
  Type *FT = withScalar(D->getType(), B.getFloatTy());
  return floatToBf16(B, roundNarrow(B, D, FT, Rounding::Odd), R);
}

Value *doubleToHalf(IRBuilder<> &B, Value *D, Rounding R) {
  Type *FT = withScalar(D->getType(), B.getFloatTy());
  Type *HT = withScalar(D->getType(), B.getHalfTy());
  return roundNarrow(B, roundNarrow(B, D, FT, Rounding::Odd), HT, R);
}

Value *fmaToOddDouble(IRBuilder<> &B, Value *A, Value *Bv, Value *C) {
  // The product is exact; TwoSum (Knuth) gives the exact error E of the rounded sum S, and an
  // inexact even S moves one step toward S + E.
  Value *P = B.CreateFMul(A, Bv);
  Value *S = B.CreateFAdd(P, C);
  Value *BB = B.CreateFSub(S, P);
  Value *E = B.CreateFAdd(B.CreateFSub(P, B.CreateFSub(S, BB)), B.CreateFSub(C, BB));
  Type *IT = intTypeLike(S->getType());
  Value *Bits = B.CreateBitCast(S, IT);
  Value *Zero = Constant::getNullValue(IT), *One = ConstantInt::get(IT, 1);
  Value *Zf = ConstantFP::get(S->getType(), 0.0);
  Value *Inexact = B.CreateFCmpONE(E, Zf);
  Value *Even = B.CreateICmpEQ(B.CreateAnd(Bits, One), Zero);
  Value *SameSign = B.CreateICmpEQ(B.CreateICmpSLT(Bits, Zero), B.CreateFCmpOLT(E, Zf));
  Value *Stepped = B.CreateSelect(SameSign, B.CreateAdd(Bits, One), B.CreateSub(Bits, One));
  Value *R = B.CreateSelect(B.CreateAnd(Inexact, Even), Stepped, Bits);
  return B.CreateBitCast(R, S->getType());
}

Value *intToOddDouble(IRBuilder<> &B, Value *X, bool Signed) {
  Type *T = X->getType();
  Type *DT = withScalar(T, B.getDoubleTy());
  if (T->getScalarSizeInBits() <= 32)
    return Signed ? B.CreateSIToFP(X, DT) : B.CreateUIToFP(X, DT);
  // 64-bit: keep the top 53 significant bits of the magnitude with a sticky last bit.
  Value *M = Signed ? B.CreateBinaryIntrinsic(Intrinsic::abs, X, B.getFalse()) : X;
  auto C = [&](uint64_t V) { return ConstantInt::get(T, V); };
  Value *Lz = B.CreateBinaryIntrinsic(Intrinsic::ctlz, M, B.getFalse());
  Value *Shift = B.CreateSelect(B.CreateICmpULT(Lz, C(11)), B.CreateSub(C(11), Lz), C(0));
  Value *Kept = B.CreateLShr(M, Shift);
  Value *Lost = B.CreateAnd(M, B.CreateSub(B.CreateShl(C(1), Shift), C(1)));
  Kept = B.CreateOr(Kept, B.CreateZExt(B.CreateICmpNE(Lost, C(0)), T));
  Value *D = B.CreateUIToFP(Kept, DT);
  Type *I32 = withScalar(T, B.getInt32Ty());
  D = B.CreateIntrinsic(Intrinsic::ldexp, {DT, I32}, {D, B.CreateTrunc(Shift, I32)});
  if (Signed)
    D = B.CreateSelect(B.CreateICmpSLT(X, C(0)), B.CreateFNeg(D), D);
  return D;
}

} // namespace reptx::ir
