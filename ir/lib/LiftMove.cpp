// mov (PTX ISA 9.7.9.1): registers, immediates, special registers, variable addresses, and the
// pack/unpack forms with a vector operand.
#include "Lifter.h"

using namespace llvm;

namespace reptx::ir {

Error liftMove(FunctionLifter &L, const ptx::Instruction &I) {
  IRBuilder<> &B = L.B;
  auto T = L.type();
  if (!T)
    return T.takeError();
  if (T->Width > 64 || L.hasMod(".v2") || L.hasMod(".v4"))
    return L.unsupported("vector registers are not supported yet");
  const ptx::Operand &D = I.Ops[0], &S = I.Ops[1];
  if (D.K == ptx::Operand::Vector || S.K == ptx::Operand::Vector) {
    // mov.b64 d, {a, b} packs, mov.b64 {a, b}, d unpacks (9.7.9.1): element 0 is the least
    // significant part, each element Width/N bits wide.
    if (D.K == S.K || !T->isInt())
      return L.unsupported();
    const ptx::Operand &V = D.K == ptx::Operand::Vector ? D : S;
    unsigned N = V.Elems.size();
    if (N < 2 || T->Width % N)
      return L.unsupported();
    Type *Whole = B.getIntNTy(T->Width), *Part = B.getIntNTy(T->Width / N);
    if (S.K == ptx::Operand::Vector) {
      Value *R = ConstantInt::get(Whole, 0);
      for (unsigned K = 0; K < N; ++K) {
        auto E = L.read(V.Elems[K], Part);
        if (!E)
          return E.takeError();
        R = B.CreateOr(R, B.CreateShl(B.CreateZExt(*E, Whole), K * (T->Width / N)));
      }
      return L.write(D, R);
    }
    auto X = L.read(S, Whole);
    if (!X)
      return X.takeError();
    for (unsigned K = 0; K < N; ++K) {
      Value *E = B.CreateTrunc(B.CreateLShr(*X, K * (T->Width / N)), Part);
      if (Error Err = L.write(V.Elems[K], E))
        return Err;
    }
    return Error::success();
  }
  auto V = L.read(S, L.llvmType(*T), T->isSigned());
  if (!V)
    return V.takeError();
  return L.write(D, *V, T->isSigned());
}

} // namespace reptx::ir
