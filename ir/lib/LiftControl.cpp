// Control flow and synchronisation (PTX ISA 9.7.12, 9.7.13.1): bra (guarded or not), ret and
// exit, membar/fence; bar/barrier go to LiftBarrier.cpp.
#include "Lifter.h"

#include "reptx/ir/Intrinsics.h"

using namespace llvm;

namespace reptx::ir {

Error liftControl(FunctionLifter &L, const ptx::Instruction &I) {
  IRBuilder<> &B = L.B;
  StringRef Op = I.Opcode;
  if (Op == "bra") {
    if (I.Ops.size() != 1 || I.Ops[0].K != ptx::Operand::Name)
      return L.unsupported();
    BasicBlock *Target = L.labelBlock(I.Ops[0].Sym);
    if (I.Guard.empty()) {
      B.CreateBr(Target);
    } else {
      ptx::Operand G;
      G.K = ptx::Operand::Name;
      G.Sym = I.Guard;
      auto P = L.read(G, B.getInt1Ty());
      if (!P)
        return P.takeError();
      BasicBlock *Next = BasicBlock::Create(L.Ctx, "", B.GetInsertBlock()->getParent());
      if (I.GuardNegated)
        B.CreateCondBr(*P, Next, Target);
      else
        B.CreateCondBr(*P, Target, Next);
      B.SetInsertPoint(Next);
      return Error::success();
    }
    L.continueAfterTerminator();
    return Error::success();
  }
  if (Op == "call")
    return liftCall(L, I);
  if (Op == "ret" || Op == "exit") {
    // In a kernel both end the thread; ret in a .func returns to the caller.
    if (Op == "exit" && !L.isKernel())
      return L.unsupported("exit inside a .func");
    B.CreateRetVoid();
    L.continueAfterTerminator();
    return Error::success();
  }
  if (Op == "membar" || (Op == "fence" && !L.hasMod(".proxy") && !L.hasMod(".mbarrier_init"))) {
    // membar.{cta,gl,sys} and fence.{sc,acq_rel} (9.7.13.4) with their scopes (Intrinsics.h,
    // "Sync scopes"). membar is fence.sc; fence.acq_rel (and .acquire/.release) orders like
    // acq_rel.
    bool Sc = Op == "membar" || L.hasMod(".sc");
    // membar.cta/.gl/.sys are the cta, gpu and system scopes; fence without a scope is .sys.
    SyncScope::ID Scope = Op == "membar" ? (L.hasMod(".cta")  ? L.Ctx.getOrInsertSyncScopeID("cta")
                                            : L.hasMod(".gl") ? L.Ctx.getOrInsertSyncScopeID("gpu")
                                                              : SyncScope::System)
                                         : L.syncScope("sys");
    B.CreateFence(Sc ? AtomicOrdering::SequentiallyConsistent : AtomicOrdering::AcquireRelease,
                  Scope);
    return Error::success();
  }
  if (Op == "bar" && L.hasMod(".warp"))
    return liftWarp(L, I); // bar.warp.sync
  if (Op == "bar" || Op == "barrier")
    return liftBarrier(L, I);
  return L.unsupported();
}

} // namespace reptx::ir
