// Function calls (PTX ISA 9.7.12.4, "call"; 7.1-7.3, "Abstracting the ABI"): direct calls to
// .func bodies of the module, indirect calls through a register with a .callprototype, and the
// system calls of the CUDA ABI (__assertfail; vprintf).
//
// Calling convention of lifted functions: a .func becomes an internal LLVM function that takes one
// pointer into the local address space per return parameter and per parameter, in that order. The
// caller passes the allocas of the .param variables it declared for the call (st.param fills
// them before, ld.param reads the results after), so that the callee's ld.param/st.param on its
// own parameters see exactly the caller's bytes. After inlining, SROA removes the slots.
#include "Lifter.h"

#include "reptx/ir/Intrinsics.h"

using namespace llvm;

namespace reptx::ir {

FunctionType *ptxFunctionType(LLVMContext &Ctx, unsigned Returns, unsigned Params) {
  SmallVector<Type *, 8> Args(Returns + Params, PointerType::get(Ctx, LocalAS));
  return FunctionType::get(Type::getVoidTy(Ctx), Args, false);
}

Error liftCall(FunctionLifter &L, const ptx::Instruction &I) {
  IRBuilder<> &B = L.B;
  // Operands: [(returns),] callee [, (arguments)] [, prototype or target list].
  ArrayRef<ptx::Operand> Ops = I.Ops;
  ArrayRef<ptx::Operand> Rets, Args;
  if (!Ops.empty() && Ops[0].K == ptx::Operand::List) {
    Rets = Ops[0].Elems;
    Ops = Ops.drop_front();
  }
  if (Ops.empty() || Ops[0].K != ptx::Operand::Name)
    return L.unsupported("call without a callee");
  const ptx::Operand &Callee = Ops[0];
  Ops = Ops.drop_front();
  if (!Ops.empty() && Ops[0].K == ptx::Operand::List) {
    Args = Ops[0].Elems;
    Ops = Ops.drop_front();
  }

  // The argument and return slots: .param variables of the caller (or its own parameters).
  SmallVector<Value *, 8> Slots;
  for (ArrayRef<ptx::Operand> List : {Rets, Args})
    for (const ptx::Operand &A : List) {
      if (A.K != ptx::Operand::Name)
        return L.unsupported("call arguments other than .param variables");
      auto Slot = L.paramSlot(A.Sym);
      if (!Slot)
        return Slot.takeError();
      Slots.push_back(*Slot);
    }

  StringRef Name = Callee.Sym;
  if (Function *Fn = L.ptxFunction(Name)) {
    if (Fn->arg_size() != Slots.size())
      return L.unsupported("call to '" + Name + "' with " + Twine(Rets.size()) + " returns and " +
                           Twine(Args.size()) + " arguments does not match its declaration");
    B.CreateCall(Fn, Slots);
    return Error::success();
  }
  if (Name == "__assertfail") {
    // __assertfail(message, file, line, function, charSize) (CUDA's device assert): the thread
    // stops the kernel with an error. The loader reports it; the arguments are not used yet.
    FunctionCallee FC = L.module().getOrInsertFunction(intrinsics::AssertFail, B.getVoidTy());
    cast<Function>(FC.getCallee())->setDoesNotReturn();
    B.CreateCall(FC);
    return Error::success();
  }
  if (L.isRegister(Name)) {
    // Indirect call: the register holds a function's address (mov.u64 %rd, f); the prototype
    // gives the shape, which in our convention is only the number of slots.
    auto Addr = L.read(Callee, B.getInt64Ty());
    if (!Addr)
      return Addr.takeError();
    FunctionType *FTy = ptxFunctionType(L.Ctx, Rets.size(), Args.size());
    Value *Ptr = B.CreateIntToPtr(*Addr, PointerType::get(L.Ctx, 0));
    B.CreateCall(FTy, Ptr, Slots);
    return Error::success();
  }
  return L.unsupported("call to the external function '" + Name + "'");
}

} // namespace reptx::ir
