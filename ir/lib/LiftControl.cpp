// Control flow and synchronisation (PTX ISA 9.7.12, 9.7.13.1): bra (guarded or not), ret and
// exit, bar.sync/barrier.sync on barrier 0 for the whole CTA.
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
    // membar.{cta,gl,sys} and fence.{sc,acq_rel} (9.7.13.4). ir/ stays target-neutral, so every
    // scope becomes a system-scope fence: correct for all of them, stronger than .cta/.gl need.
    // membar is fence.sc; fence.acq_rel (and fence.acquire/.release) orders like acq_rel.
    bool Sc = Op == "membar" || L.hasMod(".sc");
    B.CreateFence(Sc ? AtomicOrdering::SequentiallyConsistent : AtomicOrdering::AcquireRelease);
    return Error::success();
  }
  if (Op == "bar" || Op == "barrier") {
    // bar.sync a / barrier.sync a / bar.sync.aligned a (9.7.13.1) on barrier 0 with every thread
    // of the CTA; named barriers and thread counts come later.
    bool Sync = L.hasMod(".sync") || (Op == "barrier" && I.Mods.empty()) ||
                (Op == "barrier" && I.Mods.size() == 1 && I.Mods[0] == ".aligned");
    for (StringRef M : I.Mods)
      if (M != ".sync" && M != ".aligned")
        Sync = false;
    if (!Sync || I.Ops.size() != 1 || I.Ops[0].K != ptx::Operand::Int || I.Ops[0].IntValue != 0)
      return L.unsupported("only bar.sync 0 is supported so far");
    B.CreateCall(L.declareBarrier());
    return Error::success();
  }
  return L.unsupported();
}

} // namespace reptx::ir
