// Directed rounding (.rz, .rm, .rp; PTX ISA 9.7.3) of f32/f64 add, sub, mul, fma, mad, div, rcp
// and sqrt: each instruction calls the reptx intrinsic `@reptx.{add,sub,mul,fma,div,sqrt}.directed.
// {f32,f64}` with the mode as a constant last argument (Intrinsics.h; rcp is div 1.0, a; mad with a
// rounding mode is fma, 9.7.3.5). The backend's device library (backend/device/Directed.cpp)
// computes them exactly in integer arithmetic, independent of any mode register.
//
// (The mode register is not used: a strictfp kernel setting it with llvm.set.rounding around
// constrained operations lost its meaning in LLVM's AMDGPU instruction selection, which merged
// `add.rm` and `add.rp` of the same operands into one addition in whichever mode came first, and
// cannot select a constrained fdiv or sqrt at all.) .ftz (f32) flushes the operands and the result
// here, .sat clamps the result.
#include "Lifter.h"

#include "reptx/ir/Intrinsics.h"

#include "llvm/ADT/StringSwitch.h"
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
  // llvm.set.rounding's encoding (LangRef, "llvm.get.rounding"): 0 toward zero, 1 to nearest
  // even, 2 toward +inf, 3 toward -inf.
  int Mode = L.hasMod(".rz") ? 0 : L.hasMod(".rp") ? 2 : 3;
  Type *Ty = L.llvmType(*T);
  bool F32 = Ty->isFloatTy();
  StringRef Name =
      StringSwitch<StringRef>(Op)
          .Case("add", F32 ? intrinsics::AddDirectedF32 : intrinsics::AddDirectedF64)
          .Case("sub", F32 ? intrinsics::SubDirectedF32 : intrinsics::SubDirectedF64)
          .Case("mul", F32 ? intrinsics::MulDirectedF32 : intrinsics::MulDirectedF64)
          .Cases({"fma", "mad"}, F32 ? intrinsics::FmaDirectedF32 : intrinsics::FmaDirectedF64)
          .Cases({"div", "rcp"}, F32 ? intrinsics::DivDirectedF32 : intrinsics::DivDirectedF64)
          .Case("sqrt", F32 ? intrinsics::SqrtDirectedF32 : intrinsics::SqrtDirectedF64)
          .Default("");
  if (Name.empty())
    return L.unsupported("directed rounding of this operation is not supported");
  unsigned Sources =
      StringSwitch<unsigned>(Op).Cases({"fma", "mad"}, 3).Cases({"rcp", "sqrt"}, 1).Default(2);
  bool SatAllowed = Op == "add" || Op == "sub" || Op == "mul" || Op == "fma" || Op == "mad";
  if (L.hasMod(".relu") || (L.hasMod(".sat") && !SatAllowed) || I.Ops.size() != Sources + 1)
    return L.unsupported();
  bool Ftz = L.hasMod(".ftz") && F32;
  SmallVector<Value *, 4> Args;
  if (Op == "rcp")
    Args.push_back(ConstantFP::get(Ty, 1.0));
  for (unsigned K = 1; K <= Sources; ++K) {
    auto V = L.read(I.Ops[K], Ty);
    if (!V)
      return V.takeError();
    Args.push_back(Ftz ? L.flushSubnormal(*V) : *V);
  }
  Args.push_back(B.getInt32(Mode));
  SmallVector<Type *, 4> Params(Args.size() - 1, Ty);
  Params.push_back(B.getInt32Ty());
  Value *R = B.CreateCall(L.declareIntrinsic(Name, Ty, Params, MemoryEffects::none()), Args);
  if (Ftz)
    R = L.flushSubnormal(R);
  if (L.hasMod(".sat"))
    R = L.saturate(R);
  return L.write(I.Ops[0], R);
}

} // namespace reptx::ir
