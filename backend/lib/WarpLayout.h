// How PTX warps are laid onto hardware waves (backend/README.md, "Warps on waves").
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

namespace reptx::backend {

/// Name of the leading kernel argument of wave64 single mode (16 bytes: the PTX block size x, y,
/// z as u32, then a reserved u32 that must be 0).
inline constexpr llvm::StringLiteral Wave64SingleArg = "__reptx_wave64_single";

/// Wave64 single mode: every kernel gets the leading argument Wave64SingleArg; %tid and %ntid are
/// defined from the hardware work-item id and that argument; lanes 32-63 of every wave and the
/// lanes past the PTX block exit at entry; amdgpu-flat-work-group-size counts hardware
/// work-items (64 per PTX warp). Runs before the other reptx intrinsics are defined.
llvm::Error lowerWave64Single(llvm::Module &M);

} // namespace reptx::backend
