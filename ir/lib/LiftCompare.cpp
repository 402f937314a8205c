// Comparison and selection (PTX ISA 9.7.6): setp with every comparison operator, the optional
// .and/.or/.xor combination with a third predicate and the p|q dual destination; selp.
#include "Lifter.h"

#include "llvm/ADT/StringSwitch.h"

using namespace llvm;

namespace reptx::ir {

// The predicate of a PTX comparison (9.7.6.1, "Comparison operators").
static std::optional<CmpInst::Predicate> predicate(StringRef Cmp, PtxType T) {
  using P = CmpInst::Predicate;
  if (T.isFloat())
    // Float: eq..ge are ordered (false on NaN), equ..geu unordered (true on NaN); num and nan
    // test both operands.
    return StringSwitch<std::optional<P>>(Cmp)
        .Case(".eq", P::FCMP_OEQ)
        .Case(".ne", P::FCMP_ONE)
        .Case(".lt", P::FCMP_OLT)
        .Case(".le", P::FCMP_OLE)
        .Case(".gt", P::FCMP_OGT)
        .Case(".ge", P::FCMP_OGE)
        .Case(".equ", P::FCMP_UEQ)
        .Case(".neu", P::FCMP_UNE)
        .Case(".ltu", P::FCMP_ULT)
        .Case(".leu", P::FCMP_ULE)
        .Case(".gtu", P::FCMP_UGT)
        .Case(".geu", P::FCMP_UGE)
        .Case(".num", P::FCMP_ORD)
        .Case(".nan", P::FCMP_UNO)
        .Default(std::nullopt);
  bool S = T.isSigned();
  // Integers: lt..ge follow the type's signedness; lo/ls/hi/hs are always unsigned.
  return StringSwitch<std::optional<P>>(Cmp)
      .Case(".eq", P::ICMP_EQ)
      .Case(".ne", P::ICMP_NE)
      .Case(".lt", S ? P::ICMP_SLT : P::ICMP_ULT)
      .Case(".le", S ? P::ICMP_SLE : P::ICMP_ULE)
      .Case(".gt", S ? P::ICMP_SGT : P::ICMP_UGT)
      .Case(".ge", S ? P::ICMP_SGE : P::ICMP_UGE)
      .Case(".lo", P::ICMP_ULT)
      .Case(".ls", P::ICMP_ULE)
      .Case(".hi", P::ICMP_UGT)
      .Case(".hs", P::ICMP_UGE)
      .Default(std::nullopt);
}

Error liftCompare(FunctionLifter &L, const ptx::Instruction &I) {
  for (StringRef M : I.Mods)
    if (I.Opcode == "setp" && (M == ".f16" || M == ".bf16" || M == ".f16x2" || M == ".bf16x2"))
      return liftCompareHalf(L, I);
  IRBuilder<> &B = L.B;
  auto T = L.type();
  if (!T)
    return T.takeError();
  if (T->K == PtxType::Pred || (T->isFloat() && T->Width == 16))
    return L.unsupported();
  Type *Ty = L.llvmType(*T);

  if (I.Opcode == "selp") {
    auto A = L.read(I.Ops[1], Ty), C = L.read(I.Ops[2], Ty);
    auto P = L.read(I.Ops[3], B.getInt1Ty());
    if (!A || !C || !P)
      return joinErrors(joinErrors(A.takeError(), C.takeError()), P.takeError());
    return L.write(I.Ops[0], B.CreateSelect(*P, *A, *C));
  }
  if (I.Opcode != "setp")
    return L.unsupported();

  std::optional<CmpInst::Predicate> Pred;
  StringRef BoolOp;
  for (StringRef M : I.Mods) {
    if (M == ".and" || M == ".or" || M == ".xor")
      BoolOp = M;
    else if (auto P = predicate(M, *T))
      Pred = P;
  }
  if (!Pred)
    return L.unsupported("unsupported comparison");
  auto A = L.read(I.Ops[1], Ty), C = L.read(I.Ops[2], Ty);
  if (!A || !C)
    return joinErrors(A.takeError(), C.takeError());
  Value *Ftz0 = *A, *Ftz1 = *C;
  if (L.hasMod(".ftz") && T->isFloat() && T->Width == 32) {
    Ftz0 = L.flushSubnormal(Ftz0);
    Ftz1 = L.flushSubnormal(Ftz1);
  }
  Value *R = CmpInst::isFPPredicate(*Pred) ? B.CreateFCmp(*Pred, Ftz0, Ftz1)
                                           : B.CreateICmp(*Pred, Ftz0, Ftz1);
  // setp.op.bool p|q, a, b, {!}c: p = (a op b) BOOL c, q = !(a op b) BOOL c (9.7.6.2).
  Value *NotR = B.CreateNot(R);
  if (!BoolOp.empty()) {
    if (I.Ops.size() != 4)
      return L.unsupported();
    auto Cv = L.read(I.Ops[3], B.getInt1Ty());
    if (!Cv)
      return Cv.takeError();
    Value *Cp = I.Ops[3].Negated ? B.CreateNot(*Cv) : *Cv;
    auto Combine = [&](Value *V) {
      return BoolOp == ".and"  ? B.CreateAnd(V, Cp)
             : BoolOp == ".or" ? B.CreateOr(V, Cp)
                               : B.CreateXor(V, Cp);
    };
    R = Combine(R);
    NotR = Combine(NotR);
  }
  const ptx::Operand &D = I.Ops[0];
  if (D.K == ptx::Operand::Pair) {
    if (Error E = L.write(D.Elems[0], R))
      return E;
    return L.write(D.Elems[1], NotR);
  }
  return L.write(D, R);
}

} // namespace reptx::ir
