// Device code compilation for the loader: one PTX module to one AMDGPU code object. This is the
// single place the loader turns PTX into machine code (to be backed by the kernel cache).
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace reptx::loader {

struct CompiledModule {
  std::vector<uint8_t> CodeObject;  // empty when no kernel compiled
  std::vector<std::string> Kernels; // kernels in the code object
  /// Kernels that did not lift, with the message naming the PTX line and instruction.
  std::vector<std::pair<std::string, std::string>> Failures;
};

/// Parses, lifts and compiles Ptx for Arch (a gfx name). A kernel that fails to lift is listed in
/// Failures and the others are still compiled; errors are for the module as a whole.
llvm::Expected<CompiledModule> compilePtxModule(llvm::StringRef Name, llvm::StringRef Ptx,
                                                llvm::StringRef Arch);

} // namespace reptx::loader
