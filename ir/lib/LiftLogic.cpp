// Logic and shift instructions (PTX ISA 9.7.8): and, or, xor, not, cnot on predicates and bit
// types; shl and shr with PTX's clamped shift amounts.
#include "Lifter.h"

#include "llvm/IR/Intrinsics.h"

using namespace llvm;

namespace reptx::ir {

Error liftLogic(FunctionLifter &L, const ptx::Instruction &I) {
  IRBuilder<> &B = L.B;
  StringRef Op = I.Opcode;
  if (isBitFamily(Op))
    return liftBits(L, I);
  auto T = L.type();
  if (!T)
    return T.takeError();
  Type *Ty = L.llvmType(*T);

  if (Op == "and" || Op == "or" || Op == "xor") {
    auto A = L.read(I.Ops[1], Ty), C = L.read(I.Ops[2], Ty);
    if (!A || !C)
      return joinErrors(A.takeError(), C.takeError());
    Value *R = Op == "and"  ? B.CreateAnd(*A, *C)
               : Op == "or" ? B.CreateOr(*A, *C)
                            : B.CreateXor(*A, *C);
    return L.write(I.Ops[0], R);
  }
  if (Op == "not" || Op == "cnot") {
    auto A = L.read(I.Ops[1], Ty);
    if (!A)
      return A.takeError();
    // cnot: 1 when the operand is zero, else 0 (9.7.8.5).
    Value *R = Op == "not" ? B.CreateNot(*A)
                           : B.CreateZExt(B.CreateICmpEQ(*A, ConstantInt::get(Ty, 0)), Ty);
    return L.write(I.Ops[0], R);
  }
  if (Op == "shl" || Op == "shr") {
    if (!T->isInt())
      return L.unsupported();
    auto A = L.read(I.Ops[1], Ty);
    // The shift amount is always .u32 (9.7.8.8/9).
    auto Amt = L.read(I.Ops[2], B.getInt32Ty());
    if (!A || !Amt)
      return joinErrors(A.takeError(), Amt.takeError());
    unsigned N = T->Width;
    // Amounts of N or more are clamped to N: shl and shr.u/.b give 0, shr.s fills with the sign.
    Value *Big = B.CreateICmpUGE(*Amt, B.getInt32(N));
    if (Op == "shr" && T->isSigned()) {
      Value *Clamped = B.CreateBinaryIntrinsic(Intrinsic::umin, *Amt, B.getInt32(N - 1));
      return L.write(I.Ops[0], B.CreateAShr(*A, B.CreateZExtOrTrunc(Clamped, Ty)));
    }
    Value *AmtN = B.CreateZExtOrTrunc(*Amt, Ty);
    Value *Shifted = Op == "shl" ? B.CreateShl(*A, AmtN) : B.CreateLShr(*A, AmtN);
    return L.write(I.Ops[0], B.CreateSelect(Big, ConstantInt::get(Ty, 0), Shifted));
  }
  return L.unsupported();
}

} // namespace reptx::ir
