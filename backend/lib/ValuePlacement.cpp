// Where values are computed after O3 (ValuePlacement.h).
//
// hoistCommonValues: per round, group the function's pure values by shape and operands, then move
// each group that passes the checks to its nearest common dominator. Groups are visited in program
// order, so a value whose operands moved earlier in the round follows them at once; the next round
// catches the groups that only became identical through this one's replacements.
//
// sinkToFirstUse, per block and in O(n log n) of its size: first decide which
// values sink (top-down, from the first and last user of each value in the original order), then
// place the block's anchors (every instruction that does not sink) in their order, each preceded
// by the sinking values it uses that are not placed yet, recursively, the latest-defined operand
// first. Each sinking value thus lands just before its first user, as if moved there bottom-up one
// at a time, without renumbering the block after every move.
#include "ValuePlacement.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsAMDGPU.h"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>
#include <vector>

using namespace llvm;

namespace reptx::backend {

namespace {

/// A value that may move later in its block: no memory access, no side effect, not a call
/// (convergent operations stay where they are), and every user a non-PHI in the same block.
bool isMovable(const Instruction &I) {
  if (I.isTerminator() || isa<PHINode>(I) || isa<CallBase>(I) || isa<AllocaInst>(I) ||
      I.isEHPad() || I.mayReadOrWriteMemory() || I.mayHaveSideEffects() || I.use_empty())
    return false;
  return all_of(I.users(), [&](const User *U) {
    auto *UI = dyn_cast<Instruction>(U);
    return UI && UI->getParent() == I.getParent() && !isa<PHINode>(UI);
  });
}

} // namespace

void sinkToFirstUse(Function &F) {
  DenseMap<const Instruction *, unsigned> Index, FirstUse, LastUse;
  SmallPtrSet<const Instruction *, 32> Sinkable, Placed;
  SmallVector<Instruction *, 64> Order, Operands;
  SmallVector<std::pair<Instruction *, bool>, 32> Stack;
  for (BasicBlock &BB : F) {
    Index.clear();
    Sinkable.clear();
    unsigned N = 0;
    for (Instruction &I : BB)
      Index[&I] = N++;
    // Positions of each value's first and last user in the block (the original order); a value
    // used outside the block, or by a PHI, lives to the end.
    FirstUse.clear();
    LastUse.clear();
    for (Instruction &I : BB) {
      unsigned First = ~0u, Last = 0;
      for (const User *U : I.users()) {
        auto *UI = dyn_cast<Instruction>(U);
        if (!UI || UI->getParent() != &BB || isa<PHINode>(UI)) {
          Last = ~0u;
          continue;
        }
        First = std::min(First, Index[UI]);
        Last = std::max(Last, Index[UI]);
      }
      FirstUse[&I] = First;
      LastUse[&I] = Last;
    }
    // Top-down, so an operand's decision is known: I moves only when that keeps every operand it
    // reads from this block live no longer than before (the operand is used at or after I's first
    // user anyway, or moves along with I as its only user), so the move never lengthens a live
    // range. Values from other blocks count as live through the block (loop invariants are).
    for (Instruction &I : BB) {
      if (!isMovable(I))
        continue;
      unsigned Target = FirstUse[&I];
      bool Shortens = all_of(I.operands(), [&](const Use &U) {
        auto *OI = dyn_cast<Instruction>(U.get());
        if (!OI || OI->getParent() != &BB)
          return true;
        return LastUse[OI] >= Target || (Sinkable.count(OI) && FirstUse[OI] == Index[&I]);
      });
      if (Shortens)
        Sinkable.insert(&I);
    }
    if (Sinkable.empty())
      continue;
    Placed.clear();
    Order.clear();
    for (Instruction &Anchor : BB) {
      if (Sinkable.count(&Anchor))
        continue;
      // Depth first without recursion (a block's operand chains can be thousands deep): an entry
      // (I, false) places I's pending operands, then (I, true) places I itself.
      Stack.push_back({&Anchor, false});
      while (!Stack.empty()) {
        auto [I, Expanded] = Stack.pop_back_val();
        if (Expanded) {
          Order.push_back(I);
          continue;
        }
        if (!Placed.insert(I).second)
          continue;
        Stack.push_back({I, true});
        Operands.clear();
        for (Value *Op : I->operands())
          if (auto *OI = dyn_cast<Instruction>(Op); OI && Sinkable.count(OI) && !Placed.count(OI))
            Operands.push_back(OI);
        // Pushed earliest-defined first, so the latest-defined operand is placed first and the
        // earliest one ends up next to the user.
        sort(Operands, [&](Instruction *A, Instruction *B) { return Index[A] < Index[B]; });
        Operands.erase(std::unique(Operands.begin(), Operands.end()), Operands.end());
        for (Instruction *OI : Operands)
          Stack.push_back({OI, false});
      }
    }
    for (Instruction *I : Order)
      I->moveBefore(BB, BB.end());
  }
}

namespace {

/// The lane count v_mbcnt (AMDGPU's %laneid and lane masks): a pure function of its operands that
/// LLVM does not mark speculatable. (Other pure intrinsics stay: a hoisted umax of a division's
/// guard only lengthened live ranges, its division staying behind.)
bool isLaneCount(const Instruction &I) {
  auto *II = dyn_cast<IntrinsicInst>(&I);
  return II && (II->getIntrinsicID() == Intrinsic::amdgcn_mbcnt_lo ||
                II->getIntrinsicID() == Intrinsic::amdgcn_mbcnt_hi);
}

/// Whether I is used inside loop L, or only computes, in its own block, values that are (the
/// expression it starts, up to 64 values): then I, or what it computes, is live throughout L.
bool feedsLoop(const Instruction &Start, const Loop &L) {
  SmallPtrSet<const Instruction *, 16> Seen = {&Start};
  SmallVector<const Instruction *, 16> Work = {&Start};
  while (!Work.empty()) {
    const Instruction *I = Work.pop_back_val();
    bool Inside = any_of(I->uses(), [&](const Use &U) {
      auto *UI = cast<Instruction>(U.getUser());
      if (auto *Phi = dyn_cast<PHINode>(UI))
        return L.contains(Phi->getIncomingBlock(U));
      return L.contains(UI->getParent());
    });
    if (Inside)
      continue;
    if (I->use_empty())
      return false;
    for (const User *U : I->users()) {
      auto *UI = cast<Instruction>(U);
      if (UI->getParent() != Start.getParent() || isa<PHINode>(UI))
        return false;
      if (Seen.insert(UI).second) {
        if (Seen.size() > 64)
          return false;
        Work.push_back(UI);
      }
    }
  }
  return true;
}

/// Whether one of MEMBERS is live throughout loop L already (or the expression it starts is):
/// defined outside it, in a block that dominates its header, and feeding it.
bool livesThrough(ArrayRef<Instruction *> Members, const Loop &L, const DominatorTree &DT) {
  return any_of(Members, [&](Instruction *I) {
    return !L.contains(I->getParent()) && DT.dominates(I->getParent(), L.getHeader()) &&
           feedsLoop(*I, L);
  });
}

} // namespace

static bool hoistCommonValuesOnce(Function &F) {
  DominatorTree DT(F);
  LoopInfo LI(DT);
  // Groups of identical values in program order (the order of their first member), so that the
  // result does not depend on pointer values. Identical: same opcode, type, flags, predicate or
  // GEP source type, and operands; only instruction kinds whose every property is one of these.
  std::map<std::vector<const void *>, unsigned> GroupOf;
  std::vector<SmallVector<Instruction *, 4>> Groups;
  std::vector<const void *> Key;
  auto Tag = [](uintptr_t V) { return reinterpret_cast<const void *>(V); };
  for (BasicBlock &BB : F) {
    // A block no path reaches has no dominator to share (nor any cost worth saving).
    if (!DT.isReachableFromEntry(&BB))
      continue;
    for (Instruction &I : BB) {
      bool Lane = isLaneCount(I);
      if (!(Lane || isa<BinaryOperator>(I) || isa<UnaryOperator>(I) || isa<CastInst>(I) ||
            isa<CmpInst>(I) || isa<GetElementPtrInst>(I) || isa<SelectInst>(I) ||
            isa<ExtractElementInst>(I) || isa<InsertElementInst>(I)) ||
          I.use_empty() || !(Lane || isSafeToSpeculativelyExecute(&I)))
        continue;
      Key.clear();
      Key.push_back(Tag(I.getOpcode()));
      Key.push_back(I.getType());
      Key.push_back(Tag(I.getRawSubclassOptionalData()));
      if (auto *C = dyn_cast<CmpInst>(&I))
        Key.push_back(Tag(C->getPredicate()));
      if (auto *G = dyn_cast<GetElementPtrInst>(&I))
        Key.push_back(G->getSourceElementType());
      for (Value *Op : I.operands())
        Key.push_back(Op);
      auto [It, New] = GroupOf.try_emplace(Key, Groups.size());
      if (New)
        Groups.emplace_back();
      Groups[It->second].push_back(&I);
    }
  }
  bool Changed = false;
  for (auto &Members : Groups) {
    if (Members.size() < 2)
      continue;
    BasicBlock *Where = Members[0]->getParent();
    for (Instruction *I : Members)
      Where = DT.findNearestCommonDominator(Where, I->getParent());
    // Only where the value's live range grows by a few loop-free blocks: every block between
    // the dominator and a copy (walking back from the copy) is in Where's own loop, and there
    // are at most 32 of them; or it is in a loop nested there through which the value lives
    // already, because a copy defined before that loop is used inside it (nvcc's unrolled loop
    // and its remainder loop, each with the same lane and address values hoisted in front).
    Loop *Own = LI.getLoopFor(Where);
    SmallPtrSet<BasicBlock *, 32> Seen;
    SmallPtrSet<Loop *, 4> Crossed;
    SmallVector<BasicBlock *, 32> Work;
    unsigned Walked = 0;
    bool Near = true;
    for (Instruction *I : Members)
      if (I->getParent() != Where && Seen.insert(I->getParent()).second)
        Work.push_back(I->getParent());
    while (Near && !Work.empty()) {
      BasicBlock *B = Work.pop_back_val();
      Loop *L = LI.getLoopFor(B);
      if (L == Own) {
        if (++Walked > 32) {
          Near = false;
          break;
        }
        for (BasicBlock *P : predecessors(B))
          if (P != Where && Seen.insert(P).second)
            Work.push_back(P);
        continue;
      }
      // The outermost loop around B that Where's loop contains: the walk goes on in front of it.
      while (L && L->getParentLoop() != Own)
        L = L->getParentLoop();
      if (!L || !(Crossed.count(L) || livesThrough(Members, *L, DT))) {
        Near = false;
        break;
      }
      Crossed.insert(L);
      for (BasicBlock *P : predecessors(L->getHeader()))
        if (P != Where && !L->contains(P) && Seen.insert(P).second)
          Work.push_back(P);
    }
    if (!Near)
      continue;
    Instruction *At = Where->getTerminator();
    if (!all_of(Members[0]->operands(), [&](Value *Op) {
          auto *OI = dyn_cast<Instruction>(Op);
          return !OI || DT.dominates(OI, At);
        }))
      continue;
    // One member in Where already (it then dominates the others' blocks): that one stays.
    Instruction *Keep = nullptr;
    for (Instruction *I : Members)
      if (I->getParent() == Where && (!Keep || I->comesBefore(Keep)))
        Keep = I;
    if (!Keep) {
      Keep = Members[0];
      Keep->moveBefore(At->getIterator());
      Keep->dropPoisonGeneratingFlags();
    }
    for (Instruction *I : Members)
      if (I != Keep && DT.dominates(Keep, I)) {
        I->replaceAllUsesWith(Keep);
        I->eraseFromParent();
        Changed = true;
      }
  }
  return Changed;
}

bool loadArgumentsWhereUsed(Function &F) {
  if (F.getCallingConv() != CallingConv::AMDGPU_KERNEL || F.isDeclaration())
    return false;
  const DataLayout &DL = F.getDataLayout();
  DominatorTree DT(F);
  LoopInfo LI(DT);
  BasicBlock *Entry = &F.getEntryBlock();
  // Out of every loop: an argument is invariant, and a loop would load it on each iteration.
  auto OutOfLoops = [&](BasicBlock *B) {
    while (Loop *L = LI.getLoopFor(B))
      B = DT.getNode(L->getHeader())->getIDom()->getBlock();
    return B;
  };
  struct Moved {
    Argument *A;
    uint64_t Offset;
    Align ArgAlign;
    BasicBlock *Where;
    SmallVector<Instruction *, 4> Casts; // move with the load, in order
  };
  SmallVector<Moved, 8> Args;
  BasicBlock *All = nullptr; // the nearest common dominator of every moved argument's place
  uint64_t Offset = 0;
  for (Argument &A : F.args()) {
    Type *T = A.getType();
    // The argument's place in the segment, as AMDGPU's lowering computes it.
    Align ArgAlign = DL.getABITypeAlign(T);
    uint64_t At = alignTo(Offset, ArgAlign);
    Offset = At + DL.getTypeAllocSize(T);
    // Scalars of 4 bytes or more: scalar loads read dwords, and the lowering widens narrower
    // arguments to one.
    if (A.use_empty() || !(T->isIntegerTy() || T->isFloatingPointTy() || T->isPointerTy()) ||
        DL.getTypeStoreSize(T) < 4 || A.hasByRefAttr() || A.hasInRegAttr())
      continue;
    // The uses, looking through the casts that only change how the value is seen (nvcc's
    // cvta.to.global, which the optimizer hoists to the entry block: inttoptr, addrspacecast,
    // ptrtoint), which move along.
    BasicBlock *Where = nullptr;
    bool Reachable = true;
    SmallVector<Instruction *, 4> Casts;
    SmallVector<Value *, 4> Work = {&A};
    while (Reachable && !Work.empty()) {
      Value *V = Work.pop_back_val();
      for (const Use &U : V->uses()) {
        auto *I = dyn_cast<Instruction>(U.getUser());
        if (!I) {
          Reachable = false;
          break;
        }
        if (isa<IntToPtrInst, PtrToIntInst, AddrSpaceCastInst, BitCastInst>(I)) {
          Casts.push_back(I);
          Work.push_back(I);
          continue;
        }
        BasicBlock *B = I->getParent();
        if (auto *Phi = dyn_cast<PHINode>(I))
          B = Phi->getIncomingBlock(U);
        if (!DT.isReachableFromEntry(B)) {
          Reachable = false;
          break;
        }
        Where = Where ? DT.findNearestCommonDominator(Where, B) : B;
      }
    }
    if (!Reachable || !Where)
      continue;
    Where = OutOfLoops(Where);
    if (Where == Entry)
      continue; // where the lowering loads it anyway
    Args.push_back({&A, At, ArgAlign, Where, std::move(Casts)});
    All = All ? DT.findNearestCommonDominator(All, Where) : Where;
  }
  if (Args.empty())
    return false;
  // Arguments that all sit below one block other than the entry load there together, one
  // merged load and one wait, as machine sinking would place their merged load; only those whose
  // places share nothing but the entry load each in its own place.
  All = OutOfLoops(All);
  IRBuilder<> EB(Entry, Entry->getFirstInsertionPt());
  Value *Segment = EB.CreateIntrinsic(Intrinsic::amdgcn_kernarg_segment_ptr, {});
  DenseMap<BasicBlock *, Instruction *> Last; // in argument order at the top of each block
  for (const Moved &M : Args) {
    BasicBlock *Where = All == Entry ? M.Where : All;
    Instruction *&After = Last[Where];
    IRBuilder<> B(Where, After ? std::next(After->getIterator()) : Where->getFirstInsertionPt());
    Value *Ptr =
        B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), Segment, M.Offset, M.A->getName() + ".kernarg");
    LoadInst *L = B.CreateAlignedLoad(M.A->getType(), Ptr, M.ArgAlign, M.A->getName() + ".load");
    L->setMetadata(LLVMContext::MD_invariant_load, MDNode::get(F.getContext(), {}));
    M.A->replaceAllUsesWith(L);
    // Each cast after its operand (the walk found them operand first).
    After = L;
    for (Instruction *C : M.Casts) {
      C->moveAfter(After);
      After = C;
    }
  }
  return true;
}

bool hoistCommonValues(Function &F) {
  bool Changed = false;
  for (int Round = 0; Round < 8 && hoistCommonValuesOnce(F); ++Round)
    Changed = true;
  return Changed;
}

bool shiftAfterMerge(Function &F) {
  std::optional<DominatorTree> DT; // built for the first candidate, if any
  bool Changed = false;
  for (BasicBlock &BB : F) {
    for (PHINode &P : make_early_inc_range(BB.phis())) {
      auto *Ty = dyn_cast<IntegerType>(P.getType());
      if (!Ty || P.use_empty())
        continue;
      // Only where the shift can fuse with every user (v_lshl_add, v_lshl_or; code generation
      // sinks it next to them): adds and ors. Otherwise the shift is better off in the
      // predecessors, where it may fold into a load (a bf16 loaded into a register's high half).
      if (any_of(P.users(), [&](User *U) {
            auto *I = dyn_cast<BinaryOperator>(U);
            return !I || (I->getOpcode() != Instruction::Add && I->getOpcode() != Instruction::Or);
          }))
        continue;
      std::optional<uint64_t> Amount;
      bool Shifts = true;
      for (Value *V : P.incoming_values()) {
        auto *Sh = dyn_cast<BinaryOperator>(V);
        auto *A = Sh && Sh->getOpcode() == Instruction::Shl
                      ? dyn_cast<ConstantInt>(Sh->getOperand(1))
                      : nullptr;
        if (A && Sh->hasOneUse() && A->getValue().ult(Ty->getBitWidth()) &&
            (!Amount || *Amount == A->getZExtValue())) {
          Amount = A->getZExtValue();
          continue;
        }
        if (!isa<ConstantInt>(V))
          Shifts = false;
      }
      if (!Shifts || !Amount)
        continue;
      // Not in a loop header: there a phi of shifted values is a recurrence that LSR may have
      // shaped on purpose. (The CFG does not change here, so one tree serves the function.)
      if (!DT)
        DT.emplace(F);
      if (any_of(predecessors(&BB), [&](BasicBlock *Pred) { return DT->dominates(&BB, Pred); }))
        continue;
      // Every constant must be some value shifted: its low Amount bits clear.
      if (any_of(P.incoming_values(), [&](Value *V) {
            auto *K = dyn_cast<ConstantInt>(V);
            return K && K->getValue().countr_zero() < *Amount;
          }))
        continue;
      PHINode *Unshifted = PHINode::Create(Ty, P.getNumIncomingValues(), P.getName() + ".unshifted",
                                           P.getIterator());
      for (unsigned I = 0; I < P.getNumIncomingValues(); ++I) {
        Value *V = P.getIncomingValue(I);
        Value *In = isa<ConstantInt>(V)
                        ? ConstantInt::get(Ty, cast<ConstantInt>(V)->getValue().lshr(*Amount))
                        : cast<BinaryOperator>(V)->getOperand(0);
        Unshifted->addIncoming(In, P.getIncomingBlock(I));
      }
      IRBuilder<> B(&*BB.getFirstInsertionPt());
      Value *Shifted = B.CreateShl(Unshifted, *Amount);
      Shifted->takeName(&P);
      SmallVector<Instruction *, 4> Old;
      for (Value *V : P.incoming_values())
        if (auto *I = dyn_cast<Instruction>(V))
          Old.push_back(I);
      P.replaceAllUsesWith(Shifted);
      P.eraseFromParent();
      for (Instruction *I : Old)
        if (I->use_empty())
          I->eraseFromParent();
      Changed = true;
    }
  }
  return Changed;
}

} // namespace reptx::backend
