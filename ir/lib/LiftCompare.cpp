// Comparison and selection (PTX ISA 9.7.6): setp and set with every comparison operator, the
// optional .and/.or/.xor combination with a third predicate (setp's p|q dual destination, set's
// 0xffffffff/1.0f results); selp; slct on an s32 or f32 selector.
#include "Lifter.h"

#include "llvm/ADT/StringSwitch.h"

using namespace llvm;

namespace reptx::ir {

std::optional<CmpInst::Predicate> comparisonPredicate(StringRef Cmp, PtxType T) {
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

// a CmpOp b of setp/set (9.7.6.1/2) on type T, .ftz flushing f32 subnormal operands first;
// with a BoolOp the result and its negation are each combined with {!}c (operand 3).
struct Comparison {
  Value *R, *NotR;
};
static Expected<Comparison> compare(FunctionLifter &L, const ptx::Instruction &I, PtxType T) {
  IRBuilder<> &B = L.B;
  if (T.K == PtxType::Pred || (T.isFloat() && T.Width == 16))
    return L.unsupported();
  Type *Ty = L.llvmType(T);
  std::optional<CmpInst::Predicate> Pred;
  StringRef BoolOp;
  for (StringRef M : I.Mods) {
    if (M == ".and" || M == ".or" || M == ".xor")
      BoolOp = M;
    else if (auto P = comparisonPredicate(M, T))
      Pred = P;
  }
  if (!Pred)
    return L.unsupported("unsupported comparison");
  if (I.Ops.size() != (BoolOp.empty() ? 3u : 4u))
    return L.unsupported();
  auto A = L.read(I.Ops[1], Ty), C = L.read(I.Ops[2], Ty);
  if (!A || !C)
    return joinErrors(A.takeError(), C.takeError());
  Value *Ftz0 = *A, *Ftz1 = *C;
  if (L.hasMod(".ftz") && T.isFloat() && T.Width == 32) {
    Ftz0 = L.flushSubnormal(Ftz0);
    Ftz1 = L.flushSubnormal(Ftz1);
  }
  Value *R = CmpInst::isFPPredicate(*Pred) ? B.CreateFCmp(*Pred, Ftz0, Ftz1)
                                           : B.CreateICmp(*Pred, Ftz0, Ftz1);
  // setp.op.bool p|q, a, b, {!}c: p = (a op b) BOOL c, q = !(a op b) BOOL c (9.7.6.2).
  Value *NotR = B.CreateNot(R);
  if (!BoolOp.empty()) {
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
  return Comparison{R, NotR};
}

// set.CmpOp{.BoolOp}{.ftz}.dtype.stype d, a, b{, {!}c} (9.7.6.1): d = 0xffffffff (.u32, .s32)
// or 1.0f (.f32) when the (combined) comparison holds, else 0. With an .f16 or .bf16 destination
// (9.7.7.1, any non-half source type) d is 1.0 or 0.0 in that format.
static Error liftSet(FunctionLifter &L, const ptx::Instruction &I) {
  auto Ts = L.types();
  bool BfDst = is_contained(I.Mods, ".bf16"); // not a PtxType: the only type besides stype
  if (Ts.size() != (BfDst ? 1u : 2u))
    return L.unsupported("set with a packed type");
  PtxType S = Ts.back();
  std::optional<PtxType> D;
  if (!BfDst)
    D = Ts[0];
  bool HalfDst = BfDst || (D->isFloat() && D->Width == 16);
  if (!HalfDst && (D->Width != 32 || (!D->isInt() && !D->isFloat())))
    return L.unsupported();
  auto Cmp = compare(L, I, S);
  if (!Cmp)
    return Cmp.takeError();
  IRBuilder<> &B = L.B;
  Value *R = HalfDst ? B.CreateSelect(Cmp->R, B.getInt16(BfDst ? 0x3f80 : 0x3c00), B.getInt16(0))
             : D->isFloat() ? B.CreateSelect(Cmp->R, ConstantFP::get(B.getFloatTy(), 1.0),
                                             ConstantFP::get(B.getFloatTy(), 0.0))
                            : B.CreateSelect(Cmp->R, B.getInt32(0xffffffffu), B.getInt32(0));
  return L.write(I.Ops[0], R);
}

// slct.dtype.s32 d, a, b, c and slct{.ftz}.dtype.f32 d, a, b, c (9.7.6.4): d = c >= 0 ? a : b,
// a and b copied unchanged. For an f32 c, -0.0 >= 0 holds and NaN selects b; .ftz flushes a
// subnormal c to a zero of its sign first (so -denorm selects a).
static Error liftSlct(FunctionLifter &L, const ptx::Instruction &I) {
  IRBuilder<> &B = L.B;
  auto Ts = L.types();
  if (Ts.size() != 2 || I.Ops.size() != 4)
    return L.unsupported();
  PtxType D = Ts[0], C = Ts[1];
  if (D.K == PtxType::Pred || D.Width > 64)
    return L.unsupported();
  Type *DT = L.llvmType(D);
  auto A = L.read(I.Ops[1], DT), Bv = L.read(I.Ops[2], DT);
  if (!A || !Bv)
    return joinErrors(A.takeError(), Bv.takeError());
  Value *Sel;
  if (C.isSigned() && C.Width == 32) {
    auto Cv = L.read(I.Ops[3], B.getInt32Ty());
    if (!Cv)
      return Cv.takeError();
    Sel = B.CreateICmpSGE(*Cv, B.getInt32(0));
  } else if (C.isFloat() && C.Width == 32) {
    auto Cv = L.read(I.Ops[3], B.getFloatTy());
    if (!Cv)
      return Cv.takeError();
    Value *X = L.hasMod(".ftz") ? L.flushSubnormal(*Cv) : *Cv;
    Sel = B.CreateFCmpOGE(X, ConstantFP::get(B.getFloatTy(), 0.0));
  } else {
    return L.unsupported("slct selector must be .s32 or .f32");
  }
  return L.write(I.Ops[0], B.CreateSelect(Sel, *A, *Bv));
}

Error liftCompare(FunctionLifter &L, const ptx::Instruction &I) {
  // On half types (the source type, the last modifier of setp and set) the comparison widens
  // them to f32 (LiftHalf.cpp).
  if ((I.Opcode == "setp" || I.Opcode == "set") && !I.Mods.empty()) {
    StringRef Src;
    for (StringRef M : I.Mods)
      if (parseType(M) || M.ends_with("f16") || M.ends_with("f16x2"))
        Src = M;
    if (Src == ".f16" || Src == ".bf16" || Src == ".f16x2" || Src == ".bf16x2")
      return liftCompareHalf(L, I);
  }
  if (I.Opcode == "set")
    return liftSet(L, I);
  if (I.Opcode == "slct")
    return liftSlct(L, I);
  IRBuilder<> &B = L.B;
  auto T = L.type();
  if (!T)
    return T.takeError();
  if (T->K == PtxType::Pred || (T->isFloat() && T->Width == 16))
    return L.unsupported();

  if (I.Opcode == "selp") {
    Type *Ty = L.llvmType(*T);
    auto A = L.read(I.Ops[1], Ty), C = L.read(I.Ops[2], Ty);
    auto P = L.read(I.Ops[3], B.getInt1Ty());
    if (!A || !C || !P)
      return joinErrors(joinErrors(A.takeError(), C.takeError()), P.takeError());
    return L.write(I.Ops[0], B.CreateSelect(*P, *A, *C));
  }
  if (I.Opcode != "setp")
    return L.unsupported();
  auto Cmp = compare(L, I, *T);
  if (!Cmp)
    return Cmp.takeError();
  const ptx::Operand &D = I.Ops[0];
  if (D.K == ptx::Operand::Pair) {
    if (Error E = L.write(D.Elems[0], Cmp->R))
      return E;
    return L.write(D.Elems[1], Cmp->NotR);
  }
  return L.write(D, Cmp->R);
}

} // namespace reptx::ir
