// Spin locks taken by lanes of one wave (SpinLocks.h): per loop with one exit edge, find the
// atomic behind the exit branch, walk from the exit to the first atomic or store to the same
// address, check the blocks on the way, then rewire (the exit edge into them, their end into a
// new latch) and give the values they define that later code uses a phi in the latch.
#include "SpinLocks.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"

#include <iterator>
#include <optional>

using namespace llvm;

namespace reptx::backend {

namespace {

constexpr unsigned MaxSteps = 6;   // from the exit branch's condition back to the atomic
constexpr unsigned MaxBlocks = 64; // in a critical section

// The atomic inside L that V is computed from (through extractvalue, compares, casts and bitwise
// or arithmetic steps), or null.
Instruction *atomicBehind(Value *V, const Loop &L, unsigned Depth = 0) {
  auto *I = dyn_cast<Instruction>(V);
  if (!I || !L.contains(I) || Depth > MaxSteps)
    return nullptr;
  if (isa<AtomicCmpXchgInst>(I) || isa<AtomicRMWInst>(I))
    return I;
  if (!(isa<ExtractValueInst>(I) || isa<CmpInst>(I) || isa<CastInst>(I) || isa<BinaryOperator>(I)))
    return nullptr;
  for (Value *Op : I->operands())
    if (Instruction *A = atomicBehind(Op, L, Depth + 1))
      return A;
  return nullptr;
}

// The address an atomic or a store writes, without casts; null for anything else.
const Value *writtenAddress(const Instruction &I) {
  const Value *P = nullptr;
  if (auto *C = dyn_cast<AtomicCmpXchgInst>(&I))
    P = C->getPointerOperand();
  else if (auto *R = dyn_cast<AtomicRMWInst>(&I))
    P = R->getPointerOperand();
  else if (auto *S = dyn_cast<StoreInst>(&I))
    P = S->getPointerOperand();
  return P ? P->stripPointerCasts() : nullptr;
}

// Whether I must keep running with the lanes it ran with: a convergent operation, or a call whose
// body could hold one (anything but a non-convergent intrinsic).
bool needsItsLanes(const Instruction &I) {
  auto *CB = dyn_cast<CallBase>(&I);
  return CB && (CB->isConvergent() || !isa<IntrinsicInst>(CB));
}

struct CriticalSection {
  BasicBlock *Exiting = nullptr; // the loop's block whose branch leaves it
  BasicBlock *Stay = nullptr;    // that branch's successor inside the loop
  SmallVector<BasicBlock *, 8> Blocks;
  Instruction *Release = nullptr; // in the last block of Blocks
};

// The critical section after spin loop L, if L is one and it has one.
std::optional<CriticalSection> findCriticalSection(const Loop &L, const LoopInfo &LI,
                                                   const DominatorTree &DT) {
  SmallVector<std::pair<BasicBlock *, BasicBlock *>, 2> Exits;
  L.getExitEdges(Exits);
  if (Exits.size() != 1)
    return std::nullopt;
  auto [X, Y] = Exits[0];
  auto *Br = dyn_cast<BranchInst>(X->getTerminator());
  if (!Br || !Br->isConditional() || Y->getSinglePredecessor() != X)
    return std::nullopt;
  BasicBlock *Stay = Br->getSuccessor(0) == Y ? Br->getSuccessor(1) : Br->getSuccessor(0);
  if (Stay == Y || !L.contains(Stay))
    return std::nullopt;
  Instruction *Acquire = atomicBehind(Br->getCondition(), L);
  if (!Acquire)
    return std::nullopt;
  CriticalSection S;
  const Value *Lock = writtenAddress(*Acquire);
  // From the exit, every path up to one release: blocks the exit dominates, in its loop, none a
  // loop header, so the section is single-entry and acyclic.
  const Loop *Outer = LI.getLoopFor(Y);
  SmallVector<BasicBlock *, 8> Work = {Y};
  SmallPtrSet<BasicBlock *, 8> Seen = {Y};
  BasicBlock *Last = nullptr;
  Instruction *Release = nullptr;
  while (!Work.empty()) {
    BasicBlock *B = Work.pop_back_val();
    if (!DT.dominates(Y, B) || LI.getLoopFor(B) != Outer || LI.isLoopHeader(B))
      return std::nullopt;
    S.Blocks.push_back(B);
    Instruction *Found = nullptr;
    for (Instruction &I : *B) {
      if (needsItsLanes(I))
        return std::nullopt;
      if (&I != Acquire && writtenAddress(I) == Lock && !isa<AtomicCmpXchgInst>(I)) {
        Found = &I;
        break;
      }
    }
    if (Found) {
      if (Last) // a release on two paths
        return std::nullopt;
      Last = B;
      Release = Found;
      continue;
    }
    if (succ_empty(B)) // a path that ends holding the lock
      return std::nullopt;
    for (BasicBlock *Succ : successors(B))
      if (Seen.insert(Succ).second) {
        if (Seen.size() > MaxBlocks)
          return std::nullopt;
        Work.push_back(Succ);
      }
  }
  if (!Last)
    return std::nullopt;
  // Single-entry: no way into the section but the exit edge (LoopInfo sees no irreducible cycle
  // through the code after the release).
  SmallPtrSet<BasicBlock *, 8> Inside(S.Blocks.begin(), S.Blocks.end());
  for (BasicBlock *B : S.Blocks)
    for (BasicBlock *P : predecessors(B))
      if (!Inside.count(P) && !(B == Y && P == X))
        return std::nullopt;
  // The release's block last; the walk gave the others in no particular order, which is fine.
  llvm::erase(S.Blocks, Last);
  S.Blocks.push_back(Last);
  S.Exiting = X;
  S.Stay = Stay;
  S.Release = Release;
  return S;
}

void moveIntoLoop(Function &F, const CriticalSection &S) {
  BasicBlock *Last = S.Blocks.back();
  BasicBlock *Tail =
      Last->splitBasicBlock(std::next(S.Release->getIterator()), Last->getName() + ".released");
  BasicBlock *Latch = BasicBlock::Create(F.getContext(), "spin.latch", &F, Tail);
  Last->getTerminator()->replaceSuccessorWith(Tail, Latch);
  S.Exiting->getTerminator()->replaceSuccessorWith(S.Stay, Latch);
  S.Stay->replacePhiUsesWith(S.Exiting, Latch);

  IRBuilder<> B(Latch);
  PHINode *Done = B.CreatePHI(B.getInt1Ty(), 2, "spin.done");
  Done->addIncoming(B.getTrue(), Last);
  Done->addIncoming(B.getFalse(), S.Exiting);
  // Values of the section used after it: through a phi of the latch (the lanes that leave the
  // loop there come from the section).
  SmallPtrSet<BasicBlock *, 8> Inside(S.Blocks.begin(), S.Blocks.end());
  for (BasicBlock *Block : S.Blocks)
    for (Instruction &I : *Block) {
      SmallVector<Use *, 4> Outside;
      for (Use &U : I.uses())
        if (!Inside.count(cast<Instruction>(U.getUser())->getParent()))
          Outside.push_back(&U);
      if (Outside.empty())
        continue;
      PHINode *Phi = B.CreatePHI(I.getType(), 2, I.getName() + ".spin");
      Phi->addIncoming(&I, Last);
      Phi->addIncoming(PoisonValue::get(I.getType()), S.Exiting);
      for (Use *U : Outside)
        U->set(Phi);
    }
  B.CreateCondBr(Done, Tail, S.Stay);
}

} // namespace

bool moveCriticalSectionsIntoSpinLoops(Function &F) {
  // Cheap test first: most functions have no atomic a loop could spin on.
  if (none_of(instructions(F), [](const Instruction &I) {
        return isa<AtomicCmpXchgInst>(I) || isa<AtomicRMWInst>(I);
      }))
    return false;
  bool Changed = false;
  // One section at a time, the analyses recomputed after each (at most 16 per function).
  for (unsigned Round = 0; Round < 16; ++Round) {
    DominatorTree DT(F);
    LoopInfo LI(DT);
    std::optional<CriticalSection> S;
    for (Loop *L : LI.getLoopsInPreorder())
      if ((S = findCriticalSection(*L, LI, DT)))
        break;
    if (!S)
      break;
    moveIntoLoop(F, *S);
    Changed = true;
  }
  return Changed;
}

} // namespace reptx::backend
