// Directed rounding (.rz, .rm, .rp; PTX ISA 9.7.3) of f32/f64 add, sub, mul, fma, mad, div, rcp
// and sqrt.
//
// add, sub, mul, fma and mad run in the requested rounding mode of the floating-point
// environment: the kernel becomes strictfp, the mode is set with llvm.set.rounding around a
// constrained intrinsic (round.dynamic) and reset to round-to-nearest-even (the default mode of a
// kernel) afterwards. A backend maps this to its mode register (AMDGPU: s_setreg of
// MODE.FP_ROUND on GFX9, s_round_mode on GFX11+), and the hardware's IEEE operations round as
// asked.
//
// div (9.7.3.8), rcp (9.7.3.9, as div 1.0, a) and sqrt (9.7.3.10) call the reptx intrinsics
// `@reptx.{div,sqrt}.directed.{f32,f64}` with the mode as a constant last argument (Intrinsics.h).
// The backend's device library (backend/device/Directed.cpp) computes them exactly in integer
// arithmetic, independent of the mode register; the constrained-intrinsic route is closed for
// them because LLVM's AMDGPU backend cannot select a constrained fdiv or sqrt. .ftz (f32) flushes
// the operands and the result here, as for the other operations.
#include "Lifter.h"

#include "reptx/ir/Intrinsics.h"

#include "llvm/IR/Intrinsics.h"

using namespace llvm;

namespace reptx::ir {

namespace {

// div, rcp, sqrt through the device library's exact helpers; Mode is llvm.set.rounding's code.
Error liftDirectedDivSqrt(FunctionLifter &L, const ptx::Instruction &I, Type *Ty, int Mode) {
  IRBuilder<> &B = L.B;
  StringRef Op = I.Opcode;
  bool Div = Op == "div";
  if (L.hasMod(".sat") || L.hasMod(".relu") || I.Ops.size() != (Div ? 3u : 2u))
    return L.unsupported();
  bool Ftz = L.hasMod(".ftz") && Ty->isFloatTy();
  SmallVector<Value *, 3> Args;
  if (Op == "rcp")
    Args.push_back(ConstantFP::get(Ty, 1.0));
  for (unsigned K = 1; K < I.Ops.size(); ++K) {
    auto V = L.read(I.Ops[K], Ty);
    if (!V)
      return V.takeError();
    Args.push_back(Ftz ? L.flushSubnormal(*V) : *V);
  }
  Args.push_back(B.getInt32(Mode));
  bool Sqrt = Op == "sqrt";
  StringRef Name = Ty->isFloatTy()
                       ? (Sqrt ? intrinsics::SqrtDirectedF32 : intrinsics::DivDirectedF32)
                       : (Sqrt ? intrinsics::SqrtDirectedF64 : intrinsics::DivDirectedF64);
  SmallVector<Type *, 3> Params(Sqrt ? 1 : 2, Ty);
  Params.push_back(B.getInt32Ty());
  Value *R = B.CreateCall(L.declareIntrinsic(Name, Ty, Params, MemoryEffects::none()), Args);
  if (Ftz)
    R = L.flushSubnormal(R);
  return L.write(I.Ops[0], R);
}

} // namespace

Error liftDirected(FunctionLifter &L, const ptx::Instruction &I) {
  IRBuilder<> &B = L.B;
  StringRef Op = I.Opcode;
  auto T = L.type();
  if (!T)
    return T.takeError();
  if (!T->isFloat() || (T->Width != 32 && T->Width != 64))
    return L.unsupported();
  // llvm.set.rounding's encoding (LangRef, "llvm.get.rounding"): 0 toward zero, 1 to nearest
  // even, 2 toward +inf, 3 toward -inf.
  int Mode = L.hasMod(".rz") ? 0 : L.hasMod(".rp") ? 2 : 3;
  Type *Ty = L.llvmType(*T);
  if (Op == "div" || Op == "rcp" || Op == "sqrt")
    return liftDirectedDivSqrt(L, I, Ty, Mode);
  bool Fma = Op == "fma" || Op == "mad";
  if (!(Op == "add" || Op == "sub" || Op == "mul" || Fma))
    return L.unsupported("directed rounding of this operation is not supported");
  if (L.hasMod(".relu") || I.Ops.size() != (Fma ? 4u : 3u))
    return L.unsupported();
  bool Ftz = L.hasMod(".ftz") && T->Width == 32;
  Value *In[3] = {};
  for (unsigned K = 0; K < (Fma ? 3u : 2u); ++K) {
    auto V = L.read(I.Ops[K + 1], Ty);
    if (!V)
      return V.takeError();
    In[K] = Ftz ? L.flushSubnormal(*V) : *V;
  }
  Function *Fn = L.function();
  Fn->addFnAttr(Attribute::StrictFP);
  B.setIsFPConstrained(true);
  B.setDefaultConstrainedRounding(RoundingMode::Dynamic);
  B.setDefaultConstrainedExcept(fp::ebIgnore);
  CallInst *Set = B.CreateIntrinsic(Intrinsic::set_rounding, {}, {B.getInt32(Mode)});
  Set->addFnAttr(Attribute::StrictFP);
  Value *R;
  if (Op == "add")
    R = B.CreateFAdd(In[0], In[1]);
  else if (Op == "sub")
    R = B.CreateFSub(In[0], In[1]);
  else if (Op == "mul")
    R = B.CreateFMul(In[0], In[1]);
  else
    R = B.CreateConstrainedFPCall(
        Intrinsic::getOrInsertDeclaration(Fn->getParent(), Intrinsic::experimental_constrained_fma,
                                          {Ty}),
        {In[0], In[1], In[2]});
  CallInst *Reset = B.CreateIntrinsic(Intrinsic::set_rounding, {}, {B.getInt32(1)});
  Reset->addFnAttr(Attribute::StrictFP);
  B.setIsFPConstrained(false);
  if (Ftz)
    R = L.flushSubnormal(R);
  if (L.hasMod(".sat"))
    R = L.saturate(R);
  return L.write(I.Ops[0], R);
}

} // namespace reptx::ir
