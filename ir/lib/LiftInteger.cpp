// Integer arithmetic (PTX ISA 9.7.1, 9.7.2): add, sub, mul and mad (.lo .hi .wide, .sat), carry
// chains (add.cc, addc, sub.cc, subc, mad.cc, madc), mul24/mad24, sad, div, rem, min, max (.relu),
// abs, neg on 16/32/64-bit signed and unsigned types; add, sub, min, max on .u16x2/.s16x2; popc,
// clz, brev, bfind, bfe, bfi, fns, szext, bmsk, dp4a, dp2a; prmt (9.7.9.7).
#include "Lifter.h"

#include "llvm/IR/Intrinsics.h"

using namespace llvm;

namespace reptx::ir {

// The high half of the 2N-bit product (mul.hi, PTX ISA 9.7.1.3).
static Value *mulHigh(IRBuilder<> &B, Value *A, Value *C, bool Signed) {
  unsigned N = A->getType()->getIntegerBitWidth();
  Type *Wide = B.getIntNTy(2 * N);
  Value *P = B.CreateMul(B.CreateIntCast(A, Wide, Signed), B.CreateIntCast(C, Wide, Signed));
  return B.CreateTrunc(B.CreateLShr(P, N), A->getType());
}

// The carry flag CC.CF (PTX ISA 9.7.2): add.cc/sub.cc/mad.cc write it, addc/subc/madc read it
// (and write it with .cc). One flag serves both: the hardware subtracts as a + ~b + 1, so after a
// subtraction the flag is the carry of that sum, 1 when there was no borrow (a >= b, unsigned),
// and subc computes a - b - (1 - CF). The manual words it as a borrow (d = a - (b + CF)), which
// is the same for chains of subtractions, but code that mixes them relies on the hardware's flag:
// nvcc's 128-bit division reads the flag after subc.cc with addc and takes 1 as "no borrow".
static Error liftCarry(FunctionLifter &L, const ptx::Instruction &I, PtxType T) {
  IRBuilder<> &B = L.B;
  StringRef Op = I.Opcode;
  if (T.Width != 32 && T.Width != 64)
    return L.unsupported();
  Type *Ty = B.getIntNTy(T.Width), *Wide = B.getIntNTy(2 * T.Width);
  bool In = Op == "addc" || Op == "subc" || Op == "madc", Out = L.hasMod(".cc");
  auto A = L.read(I.Ops[1], Ty), C = L.read(I.Ops[2], Ty);
  if (!A || !C)
    return joinErrors(A.takeError(), C.takeError());
  Value *CF =
      In ? B.CreateZExt(B.CreateLoad(B.getInt1Ty(), L.carryFlag()), Ty) : ConstantInt::get(Ty, 0);
  Value *R, *CarryOut;
  if (Op == "add" || Op == "addc") {
    auto *Sum = B.CreateBinaryIntrinsic(Intrinsic::uadd_with_overflow, *A, *C);
    auto *Sum2 =
        B.CreateBinaryIntrinsic(Intrinsic::uadd_with_overflow, B.CreateExtractValue(Sum, 0), CF);
    R = B.CreateExtractValue(Sum2, 0);
    CarryOut = B.CreateOr(B.CreateExtractValue(Sum, 1), B.CreateExtractValue(Sum2, 1));
  } else if (Op == "sub" || Op == "subc") {
    Value *BorrowIn = In ? B.CreateXor(CF, ConstantInt::get(Ty, 1)) : CF;
    auto *Dif = B.CreateBinaryIntrinsic(Intrinsic::usub_with_overflow, *A, *C);
    auto *Dif2 = B.CreateBinaryIntrinsic(Intrinsic::usub_with_overflow,
                                         B.CreateExtractValue(Dif, 0), BorrowIn);
    R = B.CreateExtractValue(Dif2, 0);
    CarryOut = B.CreateNot(B.CreateOr(B.CreateExtractValue(Dif, 1), B.CreateExtractValue(Dif2, 1)));
  } else if (Op == "mad" || Op == "madc") {
    // mad.cc/madc (9.7.2.5/6): d = (a * b).lo|hi + c (+ CF); the carry out of that addition.
    auto D = L.read(I.Ops[3], Ty);
    if (!D)
      return D.takeError();
    bool S = T.isSigned();
    Value *P = B.CreateMul(B.CreateIntCast(*A, Wide, S), B.CreateIntCast(*C, Wide, S));
    Value *Half =
        L.hasMod(".hi") ? B.CreateTrunc(B.CreateLShr(P, T.Width), Ty) : B.CreateTrunc(P, Ty);
    Value *Sum = B.CreateAdd(B.CreateAdd(B.CreateZExt(Half, Wide), B.CreateZExt(*D, Wide)),
                             B.CreateZExt(CF, Wide));
    R = B.CreateTrunc(Sum, Ty);
    CarryOut = B.CreateICmpNE(B.CreateLShr(Sum, T.Width), ConstantInt::get(Wide, 0));
  } else {
    return L.unsupported();
  }
  if (Out)
    B.CreateStore(CarryOut, L.carryFlag());
  return L.write(I.Ops[0], R);
}

// mul24/mad24 (9.7.1.5/6): the 48-bit product of the low 24 bits (sign-extended for .s32); .lo
// keeps bits 0-31, .hi bits 16-47; mad24.hi.sat.s32 saturates the sum. sad (9.7.1.7): c + |a - b|.
static Error liftMul24Sad(FunctionLifter &L, const ptx::Instruction &I, PtxType T) {
  IRBuilder<> &B = L.B;
  bool S = T.isSigned();
  Type *Ty = L.llvmType(T);
  auto A = L.read(I.Ops[1], Ty, S), C = L.read(I.Ops[2], Ty, S);
  if (!A || !C)
    return joinErrors(A.takeError(), C.takeError());
  Value *R;
  if (I.Opcode == "sad") {
    Value *Lt = S ? B.CreateICmpSLT(*A, *C) : B.CreateICmpULT(*A, *C);
    R = B.CreateSelect(Lt, B.CreateSub(*C, *A), B.CreateSub(*A, *C));
  } else {
    Type *I64 = B.getInt64Ty();
    auto Low24 = [&](Value *V) {
      Value *X = B.CreateZExt(V, I64);
      X = B.CreateAnd(X, 0xffffff);
      if (S)
        X = B.CreateAShr(B.CreateShl(X, 40), 40);
      return X;
    };
    Value *P = B.CreateMul(Low24(*A), Low24(*C));
    R = B.CreateTrunc(L.hasMod(".hi") ? B.CreateLShr(P, 16) : P, Ty);
  }
  if (I.Opcode != "mul24") {
    auto D = L.read(I.Ops[3], Ty, S);
    if (!D)
      return D.takeError();
    R = L.hasMod(".sat") ? B.CreateBinaryIntrinsic(Intrinsic::sadd_sat, R, *D) : B.CreateAdd(R, *D);
  }
  return L.write(I.Ops[0], R);
}

// add, sub, min and max on .u16x2/.s16x2 (sm_90; PTX ISA 9.7.1.1, 9.7.1.2, 9.7.1.12, 9.7.1.13):
// the two half-words of the .b32 operands, each on its own; add and sub wrap, .relu (min/max
// .s16x2) clamps each half at 0.
static Error liftPacked16(FunctionLifter &L, const ptx::Instruction &I, bool Signed) {
  IRBuilder<> &B = L.B;
  StringRef Op = I.Opcode;
  bool MinMax = Op == "min" || Op == "max";
  if ((Op != "add" && Op != "sub" && !MinMax) || I.Ops.size() != 3 || L.hasMod(".sat") ||
      L.hasMod(".cc") || (L.hasMod(".relu") && !(MinMax && Signed)))
    return L.unsupported();
  Type *V2 = FixedVectorType::get(B.getInt16Ty(), 2);
  auto A = L.read(I.Ops[1], B.getInt32Ty()), C = L.read(I.Ops[2], B.getInt32Ty());
  if (!A || !C)
    return joinErrors(A.takeError(), C.takeError());
  Value *VA = B.CreateBitCast(*A, V2), *VC = B.CreateBitCast(*C, V2), *R;
  if (Op == "add")
    R = B.CreateAdd(VA, VC);
  else if (Op == "sub")
    R = B.CreateSub(VA, VC);
  else
    R = B.CreateBinaryIntrinsic(Op == "min" ? (Signed ? Intrinsic::smin : Intrinsic::umin)
                                            : (Signed ? Intrinsic::smax : Intrinsic::umax),
                                VA, VC);
  if (L.hasMod(".relu"))
    R = B.CreateBinaryIntrinsic(Intrinsic::smax, R, Constant::getNullValue(V2));
  return L.write(I.Ops[0], B.CreateBitCast(R, B.getInt32Ty()));
}

Error liftInteger(FunctionLifter &L, const ptx::Instruction &I) {
  IRBuilder<> &B = L.B;
  StringRef Op = I.Opcode;
  if (isBitFamily(Op))
    return liftBits(L, I);
  if (L.hasMod(".u16x2") || L.hasMod(".s16x2"))
    return liftPacked16(L, I, L.hasMod(".s16x2"));
  auto T = L.type();
  if (!T)
    return T.takeError();
  if (!T->isInt() || T->Width > 64)
    return L.unsupported();
  Type *Ty = L.llvmType(*T);
  bool S = T->isSigned();
  auto Src = [&](unsigned Idx, Type *Want) { return L.read(I.Ops[Idx], Want, S); };

  if (Op == "addc" || Op == "subc" || Op == "madc" || L.hasMod(".cc"))
    return liftCarry(L, I, *T);
  if (Op == "mul24" || Op == "mad24" || Op == "sad")
    return liftMul24Sad(L, I, *T);

  if (Op == "add" || Op == "sub") {
    auto A = Src(1, Ty), C = Src(2, Ty);
    if (!A || !C)
      return joinErrors(A.takeError(), C.takeError());
    Value *R;
    if (L.hasMod(".sat")) {
      // .sat: s32 only, clamps to [INT_MIN, INT_MAX] (9.7.1.1).
      if (!S || T->Width != 32)
        return L.unsupported();
      R = B.CreateBinaryIntrinsic(Op == "add" ? Intrinsic::sadd_sat : Intrinsic::ssub_sat, *A, *C);
    } else {
      R = Op == "add" ? B.CreateAdd(*A, *C) : B.CreateSub(*A, *C);
    }
    return L.write(I.Ops[0], R);
  }

  if (Op == "mul" || Op == "mad") {
    if (L.hasMod(".sat") && !(Op == "mad" && S && T->Width == 32 && L.hasMod(".hi")))
      return L.unsupported();
    auto A = Src(1, Ty), C = Src(2, Ty);
    if (!A || !C)
      return joinErrors(A.takeError(), C.takeError());
    Value *R;
    Type *ResTy = Ty;
    if (L.hasMod(".wide")) {
      // .wide: the full 2N-bit product of N-bit operands (16 and 32 bits only).
      if (T->Width > 32)
        return L.unsupported();
      ResTy = B.getIntNTy(2 * T->Width);
      R = B.CreateMul(B.CreateIntCast(*A, ResTy, S), B.CreateIntCast(*C, ResTy, S));
    } else if (L.hasMod(".hi")) {
      R = mulHigh(B, *A, *C, S);
    } else {
      R = B.CreateMul(*A, *C); // .lo (the default for integer mul is not allowed, .lo is)
    }
    if (Op == "mad") {
      auto D = L.read(I.Ops[3], ResTy, S);
      if (!D)
        return D.takeError();
      // mad.hi.sat.s32 (9.7.1.4): the high half plus c, saturated to the s32 range.
      R = L.hasMod(".sat") ? B.CreateBinaryIntrinsic(Intrinsic::sadd_sat, R, *D)
                           : B.CreateAdd(R, *D);
    }
    return L.write(I.Ops[0], R);
  }

  if (Op == "div" || Op == "rem") {
    auto A = Src(1, Ty), C = Src(2, Ty);
    if (!A || !C)
      return joinErrors(A.takeError(), C.takeError());
    // PTX leaves division by zero machine-specific (9.7.1.8/9); LLVM makes it undefined, so the
    // divisor is guarded: x/0 gives all ones (what NVIDIA GPUs return for unsigned division) and
    // x%0 gives x. The signed overflow INT_MIN/-1 wraps to INT_MIN, INT_MIN%-1 is 0.
    Value *Zero = ConstantInt::get(Ty, 0), *One = ConstantInt::get(Ty, 1);
    Value *ByZero = B.CreateICmpEQ(*C, Zero);
    Value *Overflow = B.getFalse();
    if (S)
      Overflow =
          B.CreateAnd(B.CreateICmpEQ(*A, ConstantInt::get(Ty, APInt::getSignedMinValue(T->Width))),
                      B.CreateICmpEQ(*C, ConstantInt::getAllOnesValue(Ty)));
    Value *SafeC = B.CreateSelect(B.CreateOr(ByZero, Overflow), One, *C);
    Value *R;
    if (Op == "div") {
      R = S ? B.CreateSDiv(*A, SafeC) : B.CreateUDiv(*A, SafeC);
      // With the divisor replaced by 1, the overflow case already gives INT_MIN.
      R = B.CreateSelect(ByZero, ConstantInt::getAllOnesValue(Ty), R);
    } else {
      R = S ? B.CreateSRem(*A, SafeC) : B.CreateURem(*A, SafeC);
      R = B.CreateSelect(ByZero, *A, R);
    }
    return L.write(I.Ops[0], R);
  }

  if (Op == "popc" || Op == "clz" || Op == "brev") {
    auto A = Src(1, Ty);
    if (!A)
      return A.takeError();
    // popc and clz return a .u32 count also for .b64 (9.7.1.14/15); clz(0) is the width.
    Value *R = Op == "popc"  ? B.CreateUnaryIntrinsic(Intrinsic::ctpop, *A)
               : Op == "clz" ? B.CreateBinaryIntrinsic(Intrinsic::ctlz, *A, B.getFalse())
                             : B.CreateUnaryIntrinsic(Intrinsic::bitreverse, *A);
    if (Op != "brev")
      R = B.CreateZExtOrTrunc(R, B.getInt32Ty());
    return L.write(I.Ops[0], R);
  }

  if (Op == "bfind") {
    auto A = Src(1, Ty);
    if (!A)
      return A.takeError();
    // bfind (9.7.1.16): the position of the most significant 1 bit, or for negative signed
    // inputs of the most significant 0 bit; .shiftamt gives the left shift that moves it to the
    // top instead. No such bit: 0xffffffff.
    Value *X = *A;
    if (S)
      X = B.CreateSelect(B.CreateICmpSLT(X, ConstantInt::get(Ty, 0)), B.CreateNot(X), X);
    Value *Lz = B.CreateZExtOrTrunc(B.CreateBinaryIntrinsic(Intrinsic::ctlz, X, B.getTrue()),
                                    B.getInt32Ty());
    Value *R = L.hasMod(".shiftamt") ? Lz : B.CreateSub(B.getInt32(T->Width - 1), Lz);
    R = B.CreateSelect(B.CreateICmpEQ(X, ConstantInt::get(Ty, 0)), B.getInt32(0xffffffff), R);
    return L.write(I.Ops[0], R);
  }

  if (Op == "min" || Op == "max") {
    if (I.Ops.size() != 3)
      return L.unsupported();
    auto A = Src(1, Ty), C = Src(2, Ty);
    if (!A || !C)
      return joinErrors(A.takeError(), C.takeError());
    Intrinsic::ID ID = Op == "min" ? (S ? Intrinsic::smin : Intrinsic::umin)
                                   : (S ? Intrinsic::smax : Intrinsic::umax);
    Value *R = B.CreateBinaryIntrinsic(ID, *A, *C);
    // .relu (s32 only, 9.7.1.12/13): negative results become 0.
    if (L.hasMod(".relu"))
      R = B.CreateBinaryIntrinsic(Intrinsic::smax, R, ConstantInt::get(Ty, 0));
    return L.write(I.Ops[0], R);
  }

  if (Op == "abs" || Op == "neg") {
    auto A = Src(1, Ty);
    if (!A)
      return A.takeError();
    // abs(INT_MIN) = INT_MIN and neg(INT_MIN) = INT_MIN: two's complement wrap (9.7.1.10/11).
    Value *R =
        Op == "abs" ? B.CreateBinaryIntrinsic(Intrinsic::abs, *A, B.getFalse()) : B.CreateNeg(*A);
    return L.write(I.Ops[0], R);
  }

  return L.unsupported();
}

} // namespace reptx::ir
