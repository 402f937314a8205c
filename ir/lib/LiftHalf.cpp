// Half-precision arithmetic (PTX ISA 9.7.4): f16, f16x2, bf16 and bf16x2 add, sub, mul, fma
// (.rn, .ftz, .sat, .relu), neg, abs, min, max (.NaN, .xorsign.abs), ex2.approx and tanh.approx.
//
// Values live in .b16 registers (.b32 for the x2 forms, element 0 in the low half, PTX ISA
// 5.2.5). f16 is computed on LLVM's half type, whose IEEE operations (and fma) are correctly
// rounded, so a backend may use its native f16 instructions. bf16 is computed exactly: the
// operands widen to double, a*b+c is rounded to odd (HalfRounding.h) and then once to bf16, so
// no target needs bf16 arithmetic and no double rounding creeps in.
#include "HalfRounding.h"
#include "Lifter.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/Intrinsics.h"

#include <numbers>

using namespace llvm;

namespace reptx::ir {

Value *tanhApproxF32(IRBuilder<> &B, Value *X) {
  Type *T = X->getType();
  auto C = [&](double V) { return ConstantFP::get(T, V); };
  Value *X2v = B.CreateFMul(X, X);
  Value *P = C(62.0 / 2835.0);
  P = B.CreateFAdd(B.CreateFMul(P, X2v), C(-17.0 / 315.0));
  P = B.CreateFAdd(B.CreateFMul(P, X2v), C(2.0 / 15.0));
  P = B.CreateFAdd(B.CreateFMul(P, X2v), C(-1.0 / 3.0));
  Value *Small = B.CreateFAdd(X, B.CreateFMul(B.CreateFMul(X, X2v), P));
  Value *Ax = B.CreateUnaryIntrinsic(Intrinsic::fabs, X);
  FastMathFlags FMF;
  FMF.setApproxFunc();
  B.setFastMathFlags(FMF);
  Value *E =
      B.CreateUnaryIntrinsic(Intrinsic::exp2, B.CreateFMul(Ax, C(2.0 * std::numbers::log2e)));
  Value *Q = B.CreateFDiv(C(2.0), B.CreateFAdd(E, C(1.0)));
  B.clearFastMathFlags();
  Value *Large = B.CreateBinaryIntrinsic(Intrinsic::copysign, B.CreateFSub(C(1.0), Q), X);
  // tanh has the sign of x, -0 included (x + x^3 p would give +0 for -0).
  return B.CreateBinaryIntrinsic(Intrinsic::copysign,
                                 B.CreateSelect(B.CreateFCmpOLT(Ax, C(0.55)), Small, Large), X);
}

namespace {

class HalfLifter {
public:
  HalfLifter(FunctionLifter &L, const ptx::Instruction &I, bool BF, bool X2)
      : L(L), B(L.B), I(I), BF(BF), X2(X2) {}

  Error lift();

private:
  FunctionLifter &L;
  IRBuilder<> &B;
  const ptx::Instruction &I;
  bool BF, X2;

  Type *shaped(Type *Scalar) const {
    return X2 ? static_cast<Type *>(FixedVectorType::get(Scalar, 2)) : Scalar;
  }
  // The computation type: half for f16, float for bf16 (exact widening).
  Type *valueType() const { return shaped(BF ? B.getFloatTy() : B.getHalfTy()); }

  Expected<Value *> bits(unsigned Idx) {
    auto V = L.read(I.Ops[Idx], X2 ? B.getInt32Ty() : B.getInt16Ty());
    if (!V)
      return V.takeError();
    return X2 ? B.CreateBitCast(*V, shaped(B.getInt16Ty())) : *V;
  }
  Expected<Value *> value(unsigned Idx) {
    auto V = bits(Idx);
    if (!V)
      return V.takeError();
    Value *X = BF ? bf16ToFloat(B, *V) : B.CreateBitCast(*V, valueType());
    if (L.hasMod(".ftz"))
      X = flush(X);
    return X;
  }
  Error writeBits(Value *Bits) {
    if (X2)
      Bits = B.CreateBitCast(Bits, B.getInt32Ty());
    return L.write(I.Ops[0], Bits);
  }
  // A result of valueType() that is exact in the destination format (min, max, neg, abs).
  Error writeExact(Value *V) {
    if (L.hasMod(".ftz"))
      V = flush(V);
    return writeBits(BF ? floatToBf16(B, V, Rounding::Nearest)
                        : B.CreateBitCast(V, shaped(B.getInt16Ty())));
  }

  // .ftz (PTX ISA 9.7.4): subnormal inputs and results become zeros of the same sign. A bf16
  // value is subnormal exactly when its float widening is.
  Value *flush(Value *V) {
    Type *T = V->getType();
    Value *Tiny =
        ConstantFP::get(T, APFloat::getSmallestNormalized(T->getScalarType()->getFltSemantics()));
    Value *IsSub = B.CreateFCmpOLT(B.CreateUnaryIntrinsic(Intrinsic::fabs, V), Tiny);
    Value *Zero = B.CreateBinaryIntrinsic(Intrinsic::copysign, ConstantFP::get(T, 0.0), V);
    return B.CreateSelect(IsSub, Zero, V);
  }
  // .relu (9.7.4.4): negative results (and -0.0) clamp to +0.0; NaN stays NaN.
  Value *relu(Value *V) {
    Value *Keep = B.CreateFCmpUGT(V, ConstantFP::get(V->getType(), 0.0));
    return B.CreateSelect(Keep, V, ConstantFP::get(V->getType(), 0.0));
  }

  Error arith(StringRef Op);
  Error minMax(StringRef Op);
  Error approx(StringRef Op);
  Value *tanhF32(Value *X);
};

Error HalfLifter::arith(StringRef Op) {
  // Only .rn (the default) exists for these (9.7.4.1-4).
  if (L.hasMod(".rz") || L.hasMod(".rm") || L.hasMod(".rp"))
    return L.unsupported("directed rounding of half-precision arithmetic");
  bool Fma = Op == "fma" || Op == "mad";
  unsigned N = Fma ? 3 : 2;
  if (I.Ops.size() != N + 1)
    return L.unsupported();
  Value *In[3] = {};
  for (unsigned K = 0; K < N; ++K) {
    auto V = value(K + 1);
    if (!V)
      return V.takeError();
    In[K] = *V;
  }
  Value *R;
  if (!BF) {
    // IEEE half arithmetic, rounded once (fma included). Without .rn ptxas may contract
    // mul+add into fma; the unfused result is one of the results PTX allows.
    R = Op == "add"   ? B.CreateFAdd(In[0], In[1])
        : Op == "sub" ? B.CreateFSub(In[0], In[1])
        : Op == "mul" ? B.CreateFMul(In[0], In[1])
                      : B.CreateIntrinsic(Intrinsic::fma, {valueType()}, {In[0], In[1], In[2]});
  } else {
    // bf16: a*b+c exactly (rounded to odd in double), then one rounding. add is a*1+b, sub
    // a*1+(-b), mul a*b+(-0.0) (which keeps the sign of a zero product).
    Type *DT = shaped(B.getDoubleTy());
    auto Wide = [&](Value *V) { return B.CreateFPExt(V, DT); };
    Value *One = ConstantFP::get(DT, 1.0);
    Value *D;
    if (Op == "add")
      D = fmaToOddDouble(B, Wide(In[0]), One, Wide(In[1]));
    else if (Op == "sub")
      D = fmaToOddDouble(B, Wide(In[0]), One, B.CreateFNeg(Wide(In[1])));
    else if (Op == "mul")
      D = fmaToOddDouble(B, Wide(In[0]), Wide(In[1]), ConstantFP::get(DT, -0.0));
    else
      D = fmaToOddDouble(B, Wide(In[0]), Wide(In[1]), Wide(In[2]));
    if (L.hasMod(".relu"))
      D = relu(D);
    if (L.hasMod(".sat"))
      D = L.saturate(D);
    Value *Bits = doubleToBf16(B, D, Rounding::Nearest);
    if (L.hasMod(".ftz"))
      Bits = floatToBf16(B, flush(bf16ToFloat(B, Bits)), Rounding::Nearest);
    return writeBits(Bits);
  }
  if (L.hasMod(".ftz"))
    R = flush(R);
  if (L.hasMod(".relu"))
    R = relu(R);
  if (L.hasMod(".sat"))
    R = L.saturate(R);
  return writeBits(B.CreateBitCast(R, shaped(B.getInt16Ty())));
}

Error HalfLifter::minMax(StringRef Op) {
  if (I.Ops.size() != 3)
    return L.unsupported();
  auto A = value(1), C = value(2);
  if (!A || !C)
    return joinErrors(A.takeError(), C.takeError());
  bool Min = Op == "min";
  bool XorSign = L.hasMod(".xorsign");
  Value *X = *A, *Y = *C;
  if (XorSign) {
    // .xorsign.abs (9.7.4.6/7): the magnitude is min/max(|a|, |b|), the sign a's xor b's.
    X = B.CreateUnaryIntrinsic(Intrinsic::fabs, X);
    Y = B.CreateUnaryIntrinsic(Intrinsic::fabs, Y);
  }
  // As for f32 (LiftFloat.cpp): a NaN operand yields the other one and -0.0 < +0.0; with .NaN a
  // NaN operand gives NaN.
  Intrinsic::ID ID = L.hasMod(".NaN") ? (Min ? Intrinsic::minimum : Intrinsic::maximum)
                                      : (Min ? Intrinsic::minimumnum : Intrinsic::maximumnum);
  Value *R = B.CreateBinaryIntrinsic(ID, X, Y);
  // A NaN result (both operands NaN, or either with .NaN) is the canonical NaN 0x7fff of
  // f16 and bf16 alike (9.7.4.6/7), whatever the operands' payloads and signs.
  Value *IsNaN = B.CreateFCmpUNO(R, R);
  Type *IT = intTypeLike(R->getType());
  unsigned W = IT->getScalarSizeInBits();
  if (XorSign) {
    Value *SignMask = ConstantInt::get(IT, APInt::getSignMask(W));
    Value *Sign =
        B.CreateAnd(B.CreateXor(B.CreateBitCast(*A, IT), B.CreateBitCast(*C, IT)), SignMask);
    R = B.CreateBitCast(B.CreateOr(B.CreateBitCast(R, IT), Sign), R->getType());
  }
  // bf16 values are held as f32 (valueType()), whose upper half becomes the bf16.
  Value *Canonical =
      B.CreateBitCast(ConstantInt::get(IT, BF ? 0x7fff0000u : 0x7fffu), R->getType());
  return writeExact(B.CreateSelect(IsNaN, Canonical, R));
}

// tanh on f32 to well within the f16/bf16 approximations' error (PTX ISA 9.7.4.9 gives 2^-10.987
// absolute for f16): an odd Taylor polynomial for |x| < 0.55 (error < 2^-15 relative), and
// 1 - 2/(e^(2|x|) + 1) with the sign of x above (no cancellation there).
Value *HalfLifter::tanhF32(Value *X) { return tanhApproxF32(B, X); }

Error HalfLifter::approx(StringRef Op) {
  // ex2.approx and tanh.approx (9.7.4.8/9): computed on f32 (the f32 approximation's error is
  // far below the half formats' ulp) and rounded once.
  if (!L.hasMod(".approx") || I.Ops.size() != 2)
    return L.unsupported();
  auto A = value(1);
  if (!A)
    return A.takeError();
  Type *FT = shaped(B.getFloatTy());
  Value *X = BF ? *A : B.CreateFPExt(*A, FT);
  Value *R;
  if (Op == "ex2") {
    FastMathFlags FMF;
    FMF.setApproxFunc();
    B.setFastMathFlags(FMF);
    R = B.CreateUnaryIntrinsic(Intrinsic::exp2, X);
    B.clearFastMathFlags();
  } else {
    R = tanhF32(X);
  }
  Value *Bits = BF ? floatToBf16(B, R, Rounding::Nearest)
                   : B.CreateBitCast(B.CreateFPTrunc(R, valueType()), shaped(B.getInt16Ty()));
  if (L.hasMod(".ftz")) {
    Value *V = BF ? bf16ToFloat(B, Bits) : B.CreateBitCast(Bits, valueType());
    V = flush(V);
    Bits = BF ? floatToBf16(B, V, Rounding::Nearest) : B.CreateBitCast(V, shaped(B.getInt16Ty()));
  }
  return writeBits(Bits);
}

Error HalfLifter::lift() {
  StringRef Op = I.Opcode;
  if (Op == "add" || Op == "sub" || Op == "mul" || Op == "fma" || Op == "mad")
    return arith(Op);
  if (Op == "min" || Op == "max")
    return minMax(Op);
  if (Op == "ex2" || Op == "tanh")
    return approx(Op);
  if (Op == "neg" || Op == "abs") {
    if (I.Ops.size() != 2)
      return L.unsupported();
    if (BF && !L.hasMod(".ftz")) {
      // Sign-bit operations (9.7.4.5/6), NaN payloads included.
      auto V = bits(1);
      if (!V)
        return V.takeError();
      Value *M = ConstantInt::get((*V)->getType(), Op == "neg" ? 0x8000 : 0x7fff);
      return writeBits(Op == "neg" ? B.CreateXor(*V, M) : B.CreateAnd(*V, M));
    }
    auto V = value(1);
    if (!V)
      return V.takeError();
    return writeExact(Op == "neg" ? B.CreateFNeg(*V) : B.CreateUnaryIntrinsic(Intrinsic::fabs, *V));
  }
  return L.unsupported();
}

} // namespace

Error liftCompareHalf(FunctionLifter &L, const ptx::Instruction &I) {
  // setp and set on half types (PTX ISA 9.7.7): the operands widen exactly to f32 and compare
  // there. For the x2 forms of setp, p gets the comparison of the lower halves and q that of the
  // upper halves; set packs the two results into d. The source type is the last type modifier
  // (set.CmpOp.dtype.stype); set's destination type is the one before it.
  IRBuilder<> &B = L.B;
  bool IsSet = I.Opcode == "set";
  SmallVector<StringRef, 2> Types;
  std::optional<CmpInst::Predicate> Pred;
  StringRef BoolOp;
  using P = CmpInst::Predicate;
  for (StringRef M : I.Mods) {
    if (M == ".f16" || M == ".f16x2" || M == ".bf16" || M == ".bf16x2" || M == ".u16" ||
        M == ".s16" || M == ".u32" || M == ".s32") {
      Types.push_back(M);
    } else if (M == ".and" || M == ".or" || M == ".xor") {
      BoolOp = M;
    } else {
      std::optional<P> C = comparisonPredicate(M, PtxType{PtxType::Float, 16});
      if (C)
        Pred = C;
    }
  }
  if (!Pred || I.Ops.size() < 3 || Types.size() != (IsSet ? 2u : 1u))
    return L.unsupported("unsupported comparison");
  StringRef Src = Types.back(), DType = Types.front();
  bool BF = Src.starts_with(".bf"), X2 = Src.ends_with("x2");
  if (!Src.contains("f16") ||
      (IsSet && X2 != DType.ends_with("x2") && DType != ".u32" && DType != ".s32"))
    return L.unsupported("unsupported comparison");
  Type *BitsTy = X2 ? B.getInt32Ty() : B.getInt16Ty();
  Type *ElemBits =
      X2 ? static_cast<Type *>(FixedVectorType::get(B.getInt16Ty(), 2)) : B.getInt16Ty();
  Value *Ops[2];
  for (unsigned K = 0; K < 2; ++K) {
    auto V = L.read(I.Ops[K + 1], BitsTy);
    if (!V)
      return V.takeError();
    Value *Bits = B.CreateBitCast(*V, ElemBits);
    Type *FT = X2 ? static_cast<Type *>(FixedVectorType::get(B.getFloatTy(), 2)) : B.getFloatTy();
    Value *F =
        BF ? bf16ToFloat(B, Bits)
           : B.CreateFPExt(B.CreateBitCast(Bits, X2 ? static_cast<Type *>(
                                                          FixedVectorType::get(B.getHalfTy(), 2))
                                                    : B.getHalfTy()),
                           FT);
    if (L.hasMod(".ftz")) {
      // A half subnormal is below 2^-14 (bf16: 2^-126) in magnitude.
      Value *Tiny = ConstantFP::get(FT, BF ? 0x1p-126 : 0x1p-14);
      Value *IsSub = B.CreateFCmpOLT(B.CreateUnaryIntrinsic(Intrinsic::fabs, F), Tiny);
      F = B.CreateSelect(
          IsSub, B.CreateBinaryIntrinsic(Intrinsic::copysign, ConstantFP::get(FT, 0.0), F), F);
    }
    Ops[K] = F;
  }
  Value *R = B.CreateFCmp(*Pred, Ops[0], Ops[1]);
  Value *Cp = nullptr;
  if (!BoolOp.empty()) {
    if (I.Ops.size() != 4)
      return L.unsupported();
    auto Cv = L.read(I.Ops[3], B.getInt1Ty());
    if (!Cv)
      return Cv.takeError();
    Cp = I.Ops[3].Negated ? B.CreateNot(*Cv) : *Cv;
  }
  auto Combine = [&](Value *V) {
    if (!Cp)
      return V;
    return BoolOp == ".and"  ? B.CreateAnd(V, Cp)
           : BoolOp == ".or" ? B.CreateOr(V, Cp)
                             : B.CreateXor(V, Cp);
  };
  const ptx::Operand &D = I.Ops[0];
  if (IsSet) {
    // True: all ones for an integer destination (per 16-bit half for packed sources), 1.0 in the
    // destination's format for f16/bf16 (x2); false: 0 (9.7.7.1).
    bool IntDst = DType.starts_with(".u") || DType.starts_with(".s");
    uint64_t One = IntDst ? 0xffff : DType.starts_with(".bf") ? 0x3f80 : 0x3c00;
    auto Encode = [&](Value *T) {
      return B.CreateSelect(Combine(T), B.getInt16(One), B.getInt16(0));
    };
    if (X2) {
      Value *Lo = B.CreateZExt(Encode(B.CreateExtractElement(R, uint64_t(0))), B.getInt32Ty());
      Value *Hi = B.CreateZExt(Encode(B.CreateExtractElement(R, uint64_t(1))), B.getInt32Ty());
      return L.write(D, B.CreateOr(Lo, B.CreateShl(Hi, 16)));
    }
    if (DType == ".u32" || DType == ".s32")
      return L.write(D, B.CreateSelect(Combine(R), B.getInt32(0xffffffffu), B.getInt32(0)));
    return L.write(D, Encode(R));
  }
  Value *First = X2 ? B.CreateExtractElement(R, uint64_t(0)) : R;
  // Scalar forms: p|q gives q = !(a op b) combined (9.7.6.2); x2 forms: q is the upper half.
  Value *Second = X2 ? B.CreateExtractElement(R, uint64_t(1)) : B.CreateNot(R);
  if (D.K == ptx::Operand::Pair) {
    if (Error E = L.write(D.Elems[0], Combine(First)))
      return E;
    return L.write(D.Elems[1], Combine(Second));
  }
  if (X2)
    return L.unsupported("setp on a packed type needs two destinations");
  return L.write(D, Combine(First));
}

Error liftHalf(FunctionLifter &L, const ptx::Instruction &I) {
  bool BF = false, X2 = false, Found = false;
  for (StringRef M : I.Mods) {
    if (M == ".f16" || M == ".f16x2" || M == ".bf16" || M == ".bf16x2") {
      if (Found)
        return L.unsupported("mixed half-precision types");
      Found = true;
      BF = M.starts_with(".bf");
      X2 = M.ends_with("x2");
    }
  }
  if (!Found)
    return L.unsupported();
  return HalfLifter(L, I, BF, X2).lift();
}

} // namespace reptx::ir
