// Device code compilation for the loader: one PTX module to one AMDGPU code object, through
// driver::Compiler (driver/README.md): the compile runs in the `reptx-compile-worker` process and
// its result is looked up in and stored to the persistent kernel cache (REPTX_CACHE_*), with the
// same key as `reptx compile` and `reptx prewarm`. This is the one place the loader turns PTX into
// machine code.
#pragma once

#include "reptx/frontend-ptx/Ast.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace reptx::loader {

struct CompiledModule {
  std::vector<uint8_t> CodeObject;  // empty when no kernel compiled
  std::vector<std::string> Kernels; // kernels in the code object
  /// Kernels that were left out, with the message naming the PTX line and instruction.
  std::vector<std::pair<std::string, std::string>> Failures;
  /// "compiled", "cache hit" or "output-layer hit" (for the log).
  const char *Origin = "compiled";
  /// Every kernel of the module: false when only the kernels asked for were compiled.
  bool WholeModule = true;
};

/// Compiles Ptx (its fatbin entry's ptxas options in PtxasOptions, part of the cache key) for Arch
/// (a gfx name) and code object version Cov. A kernel that fails is listed in Failures and the
/// others are still compiled; errors are for the module as a whole (PTX that does not parse).
/// Only, when not empty, compiles those kernels alone (lazy loading), unless the whole module is
/// in the kernel cache: then that is the result (WholeModule).
/// Parsed, the module's AST, lets the worker parse only the kernels asked for
/// (ptx::withoutKernels).
llvm::Expected<CompiledModule> compilePtxModule(llvm::StringRef Name, llvm::StringRef Ptx,
                                                llvm::StringRef PtxasOptions, llvm::StringRef Arch,
                                                unsigned Cov = 5,
                                                const std::vector<std::string> &Only = {},
                                                const ptx::Module *Parsed = nullptr);

} // namespace reptx::loader
