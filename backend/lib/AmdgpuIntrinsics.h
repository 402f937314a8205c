// Definitions of the reptx intrinsics (reptx/ir/Intrinsics.h) for AMDGPU.
#pragma once

#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

namespace reptx::backend {

/// Gives every declared reptx intrinsic of M an internal, always-inlined AMDGPU body.
llvm::Error defineIntrinsics(llvm::Module &M, unsigned CodeObjectVersion);

} // namespace reptx::backend
