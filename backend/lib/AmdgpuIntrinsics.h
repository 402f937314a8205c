// Definitions of the reptx intrinsics (reptx/ir/Intrinsics.h) for AMDGPU.
#pragma once

#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Support/Error.h"

namespace reptx::backend {

/// Gives every declared reptx intrinsic of M an internal, always-inlined AMDGPU body.
llvm::Error defineIntrinsics(llvm::Module &M, unsigned CodeObjectVersion);

/// shfl.sync.bfly and shfl.sync.idx whose b and c are constants that make them a fixed
/// permutation within each warp with p true everywhere (nvcc's __shfl_xor_sync(m, v, b, w) with
/// b < w, __shfl_sync(m, v, k, w) with k < w) become one instruction without a lane address
/// instead of the helper's ds_bpermute: idx ds_swizzle's bit-mask mode (lane & seg | k), or on
/// GFX10+ (wave32: the warp is the wave) v_readlane when the whole warp reads lane k; bfly on
/// GFX10+ a DPP row_xmask move (b < 16) or v_permlanex16, on GFX9 a DPP move for b = 1, 2, 3, 7,
/// 8, 15 and ds_swizzle otherwise. A DPP move folds into the instruction that reads it. Runs in
/// the O3 pipeline once the register slots are promoted (nvcc moves b and c into registers),
/// before the helpers are inlined.
bool specializeShuffles(llvm::Module &M, bool Gfx10Plus);

struct SpecializeShufflesPass : llvm::PassInfoMixin<SpecializeShufflesPass> {
  bool Gfx10Plus = false;
  explicit SpecializeShufflesPass(bool Gfx10Plus) : Gfx10Plus(Gfx10Plus) {}
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &) {
    return specializeShuffles(M, Gfx10Plus) ? llvm::PreservedAnalyses::none()
                                            : llvm::PreservedAnalyses::all();
  }
};

} // namespace reptx::backend
