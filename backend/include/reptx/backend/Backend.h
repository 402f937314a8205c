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
  /// How 32-thread PTX warps sit on the 64-lane waves of gfx90a/gfx942 (ignored on wave32
  /// targets). Packed: two warps per wave, every warp operation confined to its 32-lane half.
  /// Single: one warp per wave, lanes 32-63 idle; the launch ABI changes (backend/README.md,
  /// "Wave64 single mode"): hardware work-groups of 64 work-items per PTX warp, and a first
  /// kernel argument `__reptx_wave64_single` carrying the PTX block size.
  enum class Wave64Mode { Packed, Single };
  Wave64Mode Wave64 = Wave64Mode::Packed;
  /// Threads for one module (compilePtx): a large module is compiled in parts, groups of kernels
  /// chosen from the PTX alone (so the code object does not depend on this number), each part on
  /// a thread of its own, and the parts linked into one code object. 0: one per core.
  unsigned Threads = 0;
};

/// "packed" or "single".
llvm::StringRef wave64ModeName(CompileOptions::Wave64Mode Mode);
/// The hardware wave size of a supported processor: 64 for gfx90a/gfx942, 32 otherwise.
unsigned waveSize(llvm::StringRef Arch);
/// Digest (hex) of the device helper library that compile() links into every module, for cache
/// keys (cache::CompilerIdentity::HelperLibraryHash).
std::string helperLibraryDigest();

/// Where a compile spent its time, in seconds (for bench/). compile() fills the backend's four;
/// compilePtx also parsing and lifting, each summed over the module's parts (so, with threads,
/// more than the time that passed).
struct CompileTimes {
  double Parse = 0;    // PTX text to AST
  double Lift = 0;     // AST to LLVM IR
  double Prepare = 0;  // helper library, intrinsics, verification
  double Optimize = 0; // the O3 pipeline
  double Codegen = 0;  // instruction selection to the object file
  double Link = 0;     // lld
};

struct CodeObject {
  std::vector<uint8_t> Bytes;       // the linked ELF (.hsaco)
  std::vector<std::string> Kernels; // kernels found in it (their .kd symbols)
  CompileTimes Times;
};

/// A relocatable object of some kernels (compileObject), to be linked with others (link).
struct ObjectFile {
  std::vector<char> Bytes;
  std::vector<std::string> Kernels; // the kernels defined in it
  CompileTimes Times;
};

/// Gives a copy of the lifted module the AMDGPU triple, data layout and kernel calling
/// convention, defines the reptx intrinsics and sets the code object version: the IR that the O3
/// pipeline then optimizes. Useful on its own for --emit-llvm and tests.
llvm::Expected<std::unique_ptr<llvm::Module>> prepareModule(const llvm::Module &Lifted,
                                                            const CompileOptions &Opts);

/// Compiles every kernel of the lifted module into one code object. Fails if any kernel of the
/// input is missing from the output (LLVM can silently emit an empty object).
llvm::Expected<CodeObject> compile(const llvm::Module &Lifted, const CompileOptions &Opts);
/// The same, consuming the lifted module instead of copying it (copying a large module costs
/// about as much as lifting it again).
llvm::Expected<CodeObject> compile(std::unique_ptr<llvm::Module> Lifted,
                                   const CompileOptions &Opts);

/// The first half of compile(): O3 and code generation to a relocatable object, no link. With
/// Part, the module is one of several parts of a PTX module that will be linked together: its
/// .global/.const variables (and the helper library's) are defined weak, each in a comdat group,
/// so that the linker keeps one definition of each.
llvm::Expected<ObjectFile> compileObject(std::unique_ptr<llvm::Module> Lifted,
                                         const CompileOptions &Opts, bool Part = false);
/// The second half: links objects (one or more, e.g. the parts of a module) into one code
/// object with in-process lld, and checks that every kernel of every object is in it.
llvm::Expected<CodeObject> link(llvm::ArrayRef<ObjectFile> Objects);

/// Sets LLVM options (e.g. -time-passes) for every later compile in this process, on top of
/// the ones reptx itself sets; for profiling tools. They stay set across links (lld resets every
/// LLVM option at each link; the backend sets them again).
llvm::Error setLlvmOptions(llvm::ArrayRef<std::string> Args);

/// The data layout of the AMDGPU target, for ir::LiftOptions.
std::string dataLayout();

/// One target's code object of a module, for offloadBundle().
struct BundleEntry {
  std::string Arch; // gfx942, ...
  llvm::ArrayRef<uint8_t> CodeObject;
};

/// A clang offload bundle of code objects (`__CLANG_OFFLOAD_BUNDLE__`, HIP's fat binary format,
/// which hipModuleLoadData takes and resolves to the device's target): an empty host entry, then
/// each code object as `hipv4-amdgcn-amd-amdhsa--<arch>` at a 4096-byte boundary, laid out as
/// `clang-offload-bundler -type=o -bundle-align=4096` lays them out.
std::vector<uint8_t> offloadBundle(llvm::ArrayRef<BundleEntry> Entries);

} // namespace reptx::backend
