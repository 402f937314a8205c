// min/max.f32 results whose canonical NaN nothing observes (MinMaxNaN.h).
#include "MinMaxNaN.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsAMDGPU.h"

#include <optional>

using namespace llvm;

namespace reptx::backend {

namespace {

constexpr unsigned MaxDepth = 24;

bool isCanonicalNaN(const Value *V) {
  auto *C = dyn_cast<ConstantFP>(V);
  return C && C->getType()->isFloatTy() &&
         C->getValueAPF().bitcastToAPInt().getZExtValue() == 0x7fffffff;
}

// `select (fcmp uno x, x), a, b` or `select (fcmp ord x, x), b, a` (InstCombine writes the
// comparison as `fcmp uno x, 0.0`): x, the value if x is a NaN (a) and the value otherwise (b).
struct NaNSelect {
  Value *X = nullptr, *IfNaN = nullptr, *Else = nullptr;
};
std::optional<NaNSelect> nanSelect(SelectInst *S) {
  auto *Cmp = dyn_cast<FCmpInst>(S->getCondition());
  if (!Cmp)
    return std::nullopt;
  Value *X = Cmp->getOperand(0), *Y = Cmp->getOperand(1);
  auto *K = dyn_cast<ConstantFP>(Y);
  if (Y != X && !(K && !K->isNaN()))
    return std::nullopt;
  if (Cmp->getPredicate() == FCmpInst::FCMP_UNO)
    return NaNSelect{X, S->getTrueValue(), S->getFalseValue()};
  if (Cmp->getPredicate() == FCmpInst::FCMP_ORD)
    return NaNSelect{X, S->getFalseValue(), S->getTrueValue()};
  return std::nullopt;
}

// `select (fcmp uno x, x), NaN, x` with PTX's canonical f32 NaN: returns x, or null.
Value *canonicalizedOperand(SelectInst *S) {
  auto T = nanSelect(S);
  return T && isCanonicalNaN(T->IfNaN) && T->Else == T->X ? T->X : nullptr;
}

// InstCombine folds a min/max of a canonicalized value into the select: `OP(select (fcmp uno x,
// x), NaN, x), y)` becomes `select (fcmp uno x, 0.0), y, OP(x, y)` (OP(NaN, y) is y). For
// minimumnum/maximumnum OP(x, y) is y already where x is a NaN, unless y is one too: the select
// and OP(x, y) differ only in which NaN they give when both operands are NaNs. Returns OP(x, y),
// or null.
IntrinsicInst *foldedMinMax(SelectInst *S) {
  auto T = nanSelect(S);
  auto *II = T ? dyn_cast<IntrinsicInst>(T->Else) : nullptr;
  if (!II || (II->getIntrinsicID() != Intrinsic::minimumnum &&
              II->getIntrinsicID() != Intrinsic::maximumnum))
    return nullptr;
  Value *A = II->getArgOperand(0), *B = II->getArgOperand(1);
  return (A == T->X && B == T->IfNaN) || (A == T->IfNaN && B == T->X) ? II : nullptr;
}

class Observers {
public:
  // Whether nothing that uses the float V can tell one NaN from another (payload and sign).
  bool blind(Value *V, unsigned Depth = 0) {
    if (Depth > MaxDepth)
      return false;
    if (!Visiting.insert(V).second)
      return true; // a cycle of phis: decided by the uses outside it
    for (Use &U : V->uses()) {
      auto *I = dyn_cast<Instruction>(U.getUser());
      if (!I)
        return false;
      if (isa<FCmpInst>(I))
        continue; // ordered or not, a comparison sees only that it is a NaN
      if (auto *S = dyn_cast<SelectInst>(I)) {
        if (canonicalizedOperand(S) == V)
          continue;
        if (U.getOperandNo() != 0 && blind(S, Depth + 1))
          continue;
        return false;
      }
      if (isa<PHINode>(I)) {
        if (blind(I, Depth + 1))
          continue;
        return false;
      }
      if (auto *II = dyn_cast<IntrinsicInst>(I)) {
        switch (II->getIntrinsicID()) {
        // A NaN operand, quiet or signaling, gives the other operand or a NaN (whose payload
        // the result's users must not see either). Not minnum/maxnum: a signaling NaN there may
        // give a NaN where the canonical quiet one gave the other operand.
        case Intrinsic::minimumnum:
        case Intrinsic::maximumnum:
        case Intrinsic::minimum:
        case Intrinsic::maximum:
        case Intrinsic::fabs:
          if (blind(II, Depth + 1))
            continue;
          return false;
        default:
          return false;
        }
      }
      if (auto *BC = dyn_cast<BitCastInst>(I); BC && BC->getType()->isIntegerTy(32)) {
        if (movedBlind(BC, Depth + 1))
          continue;
        return false;
      }
      return false;
    }
    return true;
  }

private:
  // Whether the i32 bits W of a float reach only lane moves whose results become floats that
  // nothing observes.
  bool movedBlind(Value *W, unsigned Depth) {
    if (Depth > MaxDepth)
      return false;
    for (Use &U : W->uses()) {
      auto *I = dyn_cast<Instruction>(U.getUser());
      if (!I)
        return false;
      if (auto *BC = dyn_cast<BitCastInst>(I)) {
        if (BC->getType()->isFloatTy() && blind(BC, Depth + 1))
          continue;
        return false;
      }
      auto *CI = dyn_cast<CallInst>(I);
      Function *Callee = CI ? CI->getCalledFunction() : nullptr;
      if (!Callee)
        return false;
      unsigned Op = U.getOperandNo();
      bool Move = false;
      switch (Callee->getIntrinsicID()) {
      case Intrinsic::amdgcn_update_dpp:
      case Intrinsic::amdgcn_permlanex16:
        Move = Op <= 1;
        break;
      case Intrinsic::amdgcn_ds_swizzle:
        Move = Op == 0;
        break;
      case Intrinsic::amdgcn_ds_bpermute:
        Move = Op == 1;
        break;
      default:
        break;
      }
      if (Move) {
        if (movedBlind(CI, Depth + 1))
          continue;
        return false;
      }
      // reptx.shfl.*(a, b, c, mask): d = bits 0-31 of the i64 result, p = bit 32.
      if (Callee->getName().starts_with("reptx.shfl.") && Op == 0 &&
          CI->getType()->isIntegerTy(64)) {
        for (User *R : CI->users()) {
          if (auto *T = dyn_cast<TruncInst>(R); T && T->getType()->isIntegerTy(32)) {
            if (!movedBlind(T, Depth + 1))
              return false;
            continue;
          }
          // p: the high half, shifted down or masked (bits 0-31 of the mask clear).
          auto *Op2 = dyn_cast<BinaryOperator>(R);
          auto *K =
              Op2 && Op2->getOperand(0) == CI ? dyn_cast<ConstantInt>(Op2->getOperand(1)) : nullptr;
          bool HighHalf =
              K &&
              ((Op2->getOpcode() == Instruction::LShr && K->getZExtValue() >= 32) ||
               (Op2->getOpcode() == Instruction::And && (K->getZExtValue() & 0xffffffffu) == 0));
          if (!HighHalf)
            return false;
        }
        continue;
      }
      return false;
    }
    return true;
  }

  SmallPtrSet<Value *, 32> Visiting;
};

} // namespace

bool dropUnobservedNaNCanonicalization(Function &F) {
  SmallVector<SelectInst *, 16> Selects;
  for (BasicBlock &BB : F)
    for (Instruction &I : BB)
      if (auto *S = dyn_cast<SelectInst>(&I); S && (canonicalizedOperand(S) || foldedMinMax(S)))
        Selects.push_back(S);
  bool Changed = false;
  for (SelectInst *S : Selects) {
    // Recomputed: an earlier replacement may have rewritten this select's operands.
    Value *X = canonicalizedOperand(S);
    if (!X)
      X = foldedMinMax(S);
    if (!X || !Observers().blind(S))
      continue;
    auto *Cmp = cast<Instruction>(S->getCondition());
    S->replaceAllUsesWith(X);
    S->eraseFromParent();
    if (Cmp->use_empty())
      Cmp->eraseFromParent();
    Changed = true;
  }
  return Changed;
}

} // namespace reptx::backend
