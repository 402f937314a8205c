// Control flow and synchronisation (PTX ISA 9.7.12, 9.7.13.1, 9.7.19): bra (guarded or not),
// brx.idx, ret and exit, trap and brkpt, nanosleep, pmevent, griddepcontrol, membar/fence;
// bar/barrier go to LiftBarrier.cpp, mbarrier to LiftMbarrier.cpp, call to LiftCall.cpp.
#include "Lifter.h"

#include "reptx/ir/Intrinsics.h"

using namespace llvm;

namespace reptx::ir {

Error liftControl(FunctionLifter &L, const ptx::Instruction &I) {
  IRBuilder<> &B = L.B;
  StringRef Op = I.Opcode;
  if (Op == "brx") {
    // brx.idx{.uni} index, tlist (9.7.12.3): a branch to the index-th label of a .branchtargets
    // list. An index outside the list is undefined behaviour in PTX; here it takes the first
    // target.
    if (!L.hasMod(".idx") || I.Ops.size() != 2 || I.Ops[1].K != ptx::Operand::Name)
      return L.unsupported();
    const SmallVector<ptx::Symbol, 8> *Targets = L.branchTargets(I.Ops[1].Sym);
    if (!Targets || Targets->empty())
      return L.unsupported("brx.idx needs a .branchtargets list declared in the function");
    auto Index = L.read(I.Ops[0], B.getInt32Ty());
    if (!Index)
      return Index.takeError();
    SwitchInst *SI = B.CreateSwitch(*Index, L.labelBlock(Targets->front()), Targets->size());
    for (size_t K = 0; K < Targets->size(); ++K)
      SI->addCase(B.getInt32(uint32_t(K)), L.labelBlock((*Targets)[K]));
    L.continueAfterTerminator();
    return Error::success();
  }
  if (Op == "trap" || Op == "brkpt") {
    // trap (9.7.19.4) aborts the kernel with an error; brkpt (9.7.19.1) suspends it for a
    // debugger, which reptx has none of: it traps too.
    B.CreateIntrinsic(Intrinsic::trap, {});
    B.CreateUnreachable();
    L.continueAfterTerminator();
    return Error::success();
  }
  if (Op == "nanosleep") {
    // nanosleep.u32 t (9.7.19.2): suspends the thread for a time in [0, 2t] ns, t <= 1 ms.
    if (I.Ops.size() != 1)
      return L.unsupported();
    auto T = L.read(I.Ops[0], B.getInt32Ty());
    if (!T)
      return T.takeError();
    // Effects on inaccessible memory: the call stays where it is and is never dropped.
    B.CreateCall(L.declareIntrinsic(intrinsics::NanoSleep, B.getVoidTy(), {B.getInt32Ty()},
                                    MemoryEffects::inaccessibleMemOnly()),
                 {*T});
    return Error::success();
  }
  if (Op == "griddepcontrol") {
    // griddepcontrol (9.7.13.12), programmatic dependent launch: .launch_dependents lets the
    // grids that depend on this one start early (a hint; nothing to do), .wait waits for the
    // grids this one depends on to complete with their memory visible. Grids of a stream run one
    // after the other here, so they have completed: an acquire fence makes their writes visible.
    if (L.hasMod(".wait"))
      B.CreateFence(AtomicOrdering::Acquire, L.Ctx.getOrInsertSyncScopeID("gpu"));
    return Error::success();
  }
  if (Op == "pmevent")
    return Error::success(); // 9.7.19.3: a performance-monitor event, with no monitor to see it
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
  if (Op == "mbarrier")
    return liftMbarrier(L, I);
  return L.unsupported();
}

} // namespace reptx::ir
