// min/max.f32 (PTX ISA 9.7.3.11/12): the canonical NaN of a result that feeds only other min/max.
#pragma once

#include "llvm/IR/PassManager.h"

namespace llvm {
class Function;
} // namespace llvm

namespace reptx::backend {

/// ir/ lifts min/max.f32 as minimumnum/maximumnum (minimum/maximum with .NaN) followed by
/// `select (fcmp uno r, r), 0x7fffffff, r`: a NaN result is PTX's canonical NaN whatever the
/// operands' payloads. Where the canonical value reaches nothing that could see the payload or
/// sign of a NaN (another min/max whose own result is canonicalized or equally unobserved, a
/// comparison, fabs, a warp shuffle or DPP/swizzle move of its bits, a phi of such), the select
/// is dropped: a NaN operand of min/max gives the other operand or a NaN, which the last select
/// makes canonical. A warp max-reduction keeps one select instead of one per step. The same goes
/// for the form InstCombine folds such a select into when the next min/max uses it,
/// `select (fcmp uno x), y, OP(x, y)`, which is OP(x, y) but for the NaN it gives when both are
/// NaNs. Returns whether anything changed.
bool dropUnobservedNaNCanonicalization(llvm::Function &F);

struct DropUnobservedNaNCanonicalizationPass
    : llvm::PassInfoMixin<DropUnobservedNaNCanonicalizationPass> {
  llvm::PreservedAnalyses run(llvm::Function &F, llvm::FunctionAnalysisManager &) {
    return dropUnobservedNaNCanonicalization(F) ? llvm::PreservedAnalyses::none()
                                                : llvm::PreservedAnalyses::all();
  }
};

} // namespace reptx::backend
