// Directed rounding (.rz, .rm, .rp; PTX ISA 9.7.3) of f32/f64 add, sub, mul, fma and mad. The
// operation runs in the requested rounding mode of the floating-point environment: the
// kernel becomes strictfp, the mode is set with llvm.set.rounding around a constrained
// intrinsic (round.dynamic) and reset to round-to-nearest-even (the default mode of a kernel)
// afterwards. A backend maps this to its mode register (AMDGPU: s_setreg of MODE.FP_ROUND on
// GFX9, s_round_mode on GFX11+), and the hardware's IEEE operations round as asked.
// Division, sqrt and rcp with directed rounding are not supported (LLVM's AMDGPU backend
// cannot select their constrained forms).
#include "Lifter.h"

#include "llvm/IR/Intrinsics.h"

using namespace llvm;

namespace reptx::ir {

Error liftDirected(FunctionLifter &L, const ptx::Instruction &I) {
  IRBuilder<> &B = L.B;
  StringRef Op = I.Opcode;
  auto T = L.type();
  if (!T)
    return T.takeError();
  if (!T->isFloat() || (T->Width != 32 && T->Width != 64))
    return L.unsupported();
  bool Fma = Op == "fma" || Op == "mad";
  if (!(Op == "add" || Op == "sub" || Op == "mul" || Fma))
    return L.unsupported("directed rounding of this operation is not supported");
  if (L.hasMod(".relu") || I.Ops.size() != (Fma ? 4u : 3u))
    return L.unsupported();
  // llvm.set.rounding's encoding (LangRef, "llvm.get.rounding"): 0 toward zero, 1 to nearest
  // even, 2 toward +inf, 3 toward -inf.
  int Mode = L.hasMod(".rz") ? 0 : L.hasMod(".rp") ? 2 : 3;
  Type *Ty = L.llvmType(*T);
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
