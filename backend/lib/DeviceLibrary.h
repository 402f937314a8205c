// The device helper library (backend/device/): AMDGPU bitcode compiled at build time, one variant
// per wave size, that defines the reptx intrinsics needing more than a few instructions.
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

namespace reptx::backend {

/// The embedded bitcode of the wave32 or wave64 variant.
llvm::StringRef deviceLibraryBitcode(unsigned WaveSize);

/// Links into M the helpers that define the reptx intrinsics M declares, for a target of
/// WaveSize lanes; they become internal and always-inline, without target-cpu/target-features so
/// that they take the target's. M must already have the AMDGPU triple and data layout.
/// Intrinsics without a helper stay declarations.
llvm::Error linkDeviceLibrary(llvm::Module &M, unsigned WaveSize);

} // namespace reptx::backend
