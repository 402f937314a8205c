// Lifting a parsed PTX module into target-neutral LLVM IR. Address spaces follow the PTX state
// spaces (1 global, 3 shared, 4 const, 5 local, 0 generic); GPU operations become calls to the
// reptx intrinsics of Intrinsics.h, which a backend defines.
#pragma once

#include "llvm/ADT/STLFunctionalExtras.h"

#include "reptx/frontend-ptx/Ast.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace reptx::ir {

/// LLVM address spaces of the PTX state spaces.
enum AddressSpace : unsigned {
  GenericAS = 0,
  GlobalAS = 1,
  SharedAS = 3,
  ConstAS = 4,
  LocalAS = 5,
};

struct LiftOptions {
  /// Data layout of the lifted module. It must put allocas in LocalAS ("A5"); a backend passes its
  /// target's layout, the default is a neutral little-endian 64-bit layout.
  std::string DataLayout = "e-i64:64-v16:16-v32:32-n32:64-A5-G1";
  /// Which `.entry` kernels to lift (by name); empty: all. Every .func is lifted either way
  /// (unused ones are dropped by the optimizer). Threads may lift one ptx::Module at once.
  std::function<bool(llvm::StringRef)> SelectKernel;
};

/// A kernel that did not lift, with the reason (kernel name, PTX file:line and instruction).
struct KernelFailure {
  std::string Kernel;
  std::string Message;
};

struct LiftResult {
  std::unique_ptr<llvm::Module> M;
  std::vector<std::string> Kernels; // lifted kernels, in PTX order
  std::vector<KernelFailure> Failures;
};

/// Lifts every `.entry` of the module. Each kernel lifts on its own: one that uses an unsupported
/// instruction is left out (and listed in Failures) while the others still lift. Errors only for
/// problems with the module as a whole.
llvm::Expected<LiftResult> liftModule(const ptx::Module &PM, llvm::LLVMContext &Ctx,
                                      const LiftOptions &Opts = {});

/// The number of elements of a variable's array dimensions: 1 for a scalar; `x[] = {...}` counts
/// its initializer; a size may be an integer constant expression. Nothing when one is unknown,
/// negative, or the product overflows.
std::optional<uint64_t> elementCount(const ptx::VarDecl &D);
/// Size in bytes of a state-space variable (type size times array dimensions; `x[] = {...}` from
/// its initializer), or an error.
llvm::Expected<uint64_t> variableSize(const ptx::VarDecl &D);
/// The address of a symbol an initializer names (a variable), or nothing when it has none.
using SymbolAddress = llvm::function_ref<std::optional<uint64_t>(llvm::StringRef)>;
/// The initial bytes of a variable with a constant initializer, zero-padded to Size. Addresses
/// (`x`, `generic(x)`, `x+4` in a 64-bit element) come from Resolve; without it, or for a symbol it
/// does not resolve (a function), an initializer that holds one is an error (in a lifted module
/// those are constants the linker relocates).
llvm::Expected<std::vector<uint8_t>> initializerBytes(const ptx::VarDecl &D, uint64_t Size,
                                                      SymbolAddress Resolve = nullptr);

/// Whether D is a `__managed__` variable: `.global` with `.managed` among its attributes (nvcc 13
/// writes `.attribute(.managed)`, PTX ISA 5.4.8).
bool isManagedVariable(const ptx::VarDecl &D);
/// A `__managed__` variable is not in the lifted module: host code and kernels share it at one
/// address, which only managed memory gives on every device, and only a loader can allocate that.
/// The module has a pointer slot instead, a `.global` (address space 1) pointer named the
/// variable's name followed by ManagedSlotSuffix, null in the code object, which the loader sets
/// to the variable's managed memory before any launch; every use of the variable loads it.
inline constexpr llvm::StringLiteral ManagedSlotSuffix = ".reptx.managed";

/// The PTX instruction families (opcodes of frontend-ptx's instruction table) that the lifter
/// handles, in all or some of their forms (a form it does not handle is a per-kernel error that
/// names it): the "lifted" column of docs/ptx-coverage.md.
llvm::ArrayRef<llvm::StringRef> liftedFamilies();

/// The global variable (32 x u32, global memory) that %envreg0-31 read: a loader writes it before
/// a launch; %envreg1 (high) and %envreg2 (low) hold the grid workspace of a cooperative launch,
/// {u32 size, u32 barrier}, where cooperative groups' grid.sync() counts arriving blocks; zero
/// otherwise. Only modules that read an %envreg have it.
inline constexpr const char *EnvRegVariable = "reptx.envreg";

/// Kernels in a lifted module carry this function attribute; a backend gives them its kernel
/// calling convention.
inline constexpr const char *KernelAttr = "reptx-kernel";
/// Lifted .func bodies (internal functions called by kernels) carry this attribute.
inline constexpr const char *PtxFuncAttr = "reptx-func";
/// "x,y,z" from .maxntid / .reqntid, when the PTX gives them.
inline constexpr const char *MaxNTidAttr = "reptx-maxntid";
inline constexpr const char *ReqNTidAttr = "reptx-reqntid";

} // namespace reptx::ir
