// Integer arithmetic (PTX ISA 9.7.1): add, sub, mul and mad (.lo .hi .wide), div, rem, min, max,
// abs, neg on 16/32/64-bit signed and unsigned types, with .sat on s32 add/sub; popc, clz, brev,
// bfind.
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

Error liftInteger(FunctionLifter &L, const ptx::Instruction &I) {
  IRBuilder<> &B = L.B;
  StringRef Op = I.Opcode;
  auto T = L.type();
  if (!T)
    return T.takeError();
  if (!T->isInt() || T->Width > 64)
    return L.unsupported();
  if (L.hasMod(".cc"))
    return L.unsupported("carry chains are not supported yet");
  Type *Ty = L.llvmType(*T);
  bool S = T->isSigned();
  auto Src = [&](unsigned Idx, Type *Want) { return L.read(I.Ops[Idx], Want, S); };

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
    if (L.hasMod(".sat"))
      return L.unsupported("mad.hi.sat is not supported yet");
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
      R = B.CreateAdd(R, *D);
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
    if (I.Ops.size() != 3 || L.hasMod(".relu"))
      return L.unsupported();
    auto A = Src(1, Ty), C = Src(2, Ty);
    if (!A || !C)
      return joinErrors(A.takeError(), C.takeError());
    Intrinsic::ID ID = Op == "min" ? (S ? Intrinsic::smin : Intrinsic::umin)
                                   : (S ? Intrinsic::smax : Intrinsic::umax);
    return L.write(I.Ops[0], B.CreateBinaryIntrinsic(ID, *A, *C));
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
