// Code generation for AMDGPU: turns a lifted module (reptx/ir) into an HSA code object with
// LLVM's AMDGPU backend (O3 pipeline) and in-process lld.
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace reptx::backend {

/// The processors reptx targets: gfx90a and gfx942 (wave64), gfx1030, gfx1100, gfx1201 (wave32).
llvm::ArrayRef<llvm::StringRef> supportedArchs();
bool isSupportedArch(llvm::StringRef Arch);

struct CompileOptions {
  std::string Arch = "gfx942";
  /// Code object version 4, 5 or 6 (LLVM 22 defaults to 6, which ROCm 5.x rejects).
  unsigned CodeObjectVersion = 5;
};

struct CodeObject {
  std::vector<uint8_t> Bytes;       // the linked ELF (.hsaco)
  std::vector<std::string> Kernels; // kernels found in it (their .kd symbols)
};

/// Gives a copy of the lifted module the AMDGPU triple, data layout and kernel calling
/// convention, defines the reptx intrinsics and sets the code object version: the IR that the O3
/// pipeline then optimizes. Useful on its own for --emit-llvm and tests.
llvm::Expected<std::unique_ptr<llvm::Module>> prepareModule(const llvm::Module &Lifted,
                                                            const CompileOptions &Opts);

/// Compiles every kernel of the lifted module into one code object. Fails if any kernel of the
/// input is missing from the output (LLVM can silently emit an empty object).
llvm::Expected<CodeObject> compile(const llvm::Module &Lifted, const CompileOptions &Opts);

/// The data layout of the AMDGPU target, for ir::LiftOptions.
std::string dataLayout();

} // namespace reptx::backend
