// Function calls (PTX ISA 9.7.12.4, "call"; 7.1-7.3, "Abstracting the ABI"): direct calls to
// .func bodies of the module, indirect calls through a register with a .callprototype, and the
// system calls of the CUDA ABI (__assertfail; vprintf → @reptx.vprintf; malloc and free →
// @reptx.malloc, @reptx.free), of the device runtime (__cuda_syscall_cnpv2* → @reptx.cdp.*) and
// of graphs (cudaGraphSetConditional → a store to the handle's address).
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

namespace {

/// Prints CUDA's assertion message for __assertfail's slots (message, file, line, function):
/// the argument buffer of intrinsics::AssertFormat in a local alloca, then @reptx.vprintf.
void printAssertion(FunctionLifter &L, ArrayRef<Value *> Slots) {
  IRBuilder<> &B = L.B;
  Module &M = L.module();
  Type *I32 = B.getInt32Ty(), *I64 = B.getInt64Ty();
  auto *Fmt = dyn_cast_or_null<GlobalVariable>(M.getNamedGlobal("reptx.assert.format"));
  if (!Fmt) {
    Constant *Text = ConstantDataArray::getString(L.Ctx, intrinsics::AssertFormat);
    Fmt = new GlobalVariable(M, Text->getType(), true, GlobalValue::PrivateLinkage, Text,
                             "reptx.assert.format", nullptr, GlobalValue::NotThreadLocal, GlobalAS);
    Fmt->setUnnamedAddr(GlobalValue::UnnamedAddr::Global);
  }
  // Layout (natural alignment): file 0, line 8, function 16, ctaid 24/28/32, tid 36/40/44,
  // message 48; 56 bytes.
  Function *Fn = L.function();
  IRBuilder<> EB(&Fn->getEntryBlock(), Fn->getEntryBlock().getFirstInsertionPt());
  AllocaInst *Buf = EB.CreateAlloca(ArrayType::get(I64, 7), LocalAS, nullptr, "assert.args");
  auto Put = [&](unsigned Offset, Value *V) {
    B.CreateStore(V, B.CreateConstInBoundsGEP1_32(B.getInt8Ty(), Buf, Offset));
  };
  Put(0, B.CreateLoad(I64, Slots[1]));
  Put(8, B.CreateLoad(I32, Slots[2]));
  Put(16, B.CreateLoad(I64, Slots[3]));
  unsigned Offset = 24;
  for (const char *Reg : {"ctaid", "tid"})
    for (const char *C : {"x", "y", "z"}) {
      Put(Offset, L.callSpecial((Twine("reptx.") + Reg + "." + C).str()));
      Offset += 4;
    }
  Put(48, B.CreateLoad(I64, Slots[0]));
  Value *FmtAddr =
      B.CreatePtrToInt(B.CreateAddrSpaceCast(Fmt, PointerType::get(L.Ctx, GenericAS)), I64);
  Value *ArgsAddr =
      B.CreatePtrToInt(B.CreateAddrSpaceCast(Buf, PointerType::get(L.Ctx, GenericAS)), I64);
  FunctionCallee FC = M.getOrInsertFunction(intrinsics::Vprintf, I32, I64, I64);
  B.CreateCall(FC, {FmtAddr, ArgsAddr});
}

} // namespace

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
    // prints CUDA's assertion message (through @reptx.vprintf, with intrinsics::AssertFormat) and
    // stops the kernel with an error, which the loader reports as an assert.
    if (Args.size() >= 4 && Rets.empty())
      printAssertion(L, ArrayRef<Value *>(Slots).take_front(4));
    FunctionCallee FC = L.module().getOrInsertFunction(intrinsics::AssertFail, B.getVoidTy());
    cast<Function>(FC.getCallee())->setDoesNotReturn();
    B.CreateCall(FC);
    return Error::success();
  }
  if (Name == "vprintf") {
    // vprintf(format, args) (CUDA's device printf, PTX ISA 7.1 "system calls"): the generic
    // address of the format string and of a local buffer holding the arguments packed with their
    // natural alignment (0 when there are none); returns an int.
    if (Args.size() != 2 || Rets.size() > 1)
      return L.unsupported("call to 'vprintf' with " + Twine(Rets.size()) + " returns and " +
                           Twine(Args.size()) + " arguments");
    Value *Ret = Rets.empty() ? nullptr : Slots[0];
    Value *Fmt = B.CreateLoad(B.getInt64Ty(), Slots[Rets.size()]);
    Value *Blob = B.CreateLoad(B.getInt64Ty(), Slots[Rets.size() + 1]);
    FunctionCallee FC = L.module().getOrInsertFunction(intrinsics::Vprintf, B.getInt32Ty(),
                                                       B.getInt64Ty(), B.getInt64Ty());
    Value *N = B.CreateCall(FC, {Fmt, Blob});
    if (Ret)
      B.CreateStore(N, Ret);
    return Error::success();
  }
  if (Name == "malloc" || Name == "free") {
    // malloc(size) and free(ptr) (CUDA's device-side heap, PTX ISA 7.1 "system calls"): size_t
    // and generic addresses; malloc returns the address or 0.
    bool IsMalloc = Name == "malloc";
    if (Args.size() != 1 || Rets.size() != (IsMalloc ? 1u : 0u))
      return L.unsupported("call to '" + Name + "' with " + Twine(Rets.size()) + " returns and " +
                           Twine(Args.size()) + " arguments");
    Type *I64 = B.getInt64Ty();
    Value *Arg = B.CreateLoad(I64, Slots[Rets.size()]);
    if (!IsMalloc) {
      B.CreateCall(L.module().getOrInsertFunction(intrinsics::Free, B.getVoidTy(), I64), {Arg});
      return Error::success();
    }
    Value *P = B.CreateCall(L.module().getOrInsertFunction(intrinsics::Malloc, I64, I64), {Arg});
    B.CreateStore(P, Slots[0]);
    return Error::success();
  }
  if (Name == intrinsics::SetConditional) {
    // cudaGraphSetConditional(handle, value) (a conditional graph node's condition, set by a
    // kernel of the graph): the handle is the address of the 32-bit condition (Intrinsics.h,
    // SetConditional), which the store sets.
    if (Args.size() != 2 || !Rets.empty())
      return L.unsupported("call to '" + Name + "' with " + Twine(Rets.size()) + " returns and " +
                           Twine(Args.size()) + " arguments");
    Value *Handle = B.CreateLoad(B.getInt64Ty(), Slots[0]);
    Value *V = B.CreateLoad(B.getInt32Ty(), Slots[1]);
    B.CreateStore(V, B.CreateIntToPtr(Handle, PointerType::get(L.Ctx, GlobalAS)));
    return Error::success();
  }
  if (const intrinsics::DeviceRuntimeCall *RT = intrinsics::deviceRuntimeCall(Name)) {
    // A system call of the device runtime (dynamic parallelism: kernels launched from device
    // code): the call goes to @reptx.cdp.<Name> with this convention's slots (Intrinsics.h).
    if (Rets.size() != RT->Returns || Args.size() != RT->Params)
      return L.unsupported("call to '" + Name + "' with " + Twine(Rets.size()) + " returns and " +
                           Twine(Args.size()) + " arguments");
    FunctionCallee FC =
        L.module().getOrInsertFunction((intrinsics::DeviceRuntimePrefix + RT->Name).str(),
                                       ptxFunctionType(L.Ctx, Rets.size(), Args.size()));
    B.CreateCall(FC, Slots);
    return Error::success();
  }
  if (Name.starts_with(intrinsics::DeviceRuntimeCallee))
    return L.unsupported("call to the device runtime's system call '" + Name +
                         "' (dynamic parallelism), which is not provided");
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
