// A kernel dispatch for the emulator: grid and work-group sizes, kernel arguments, dynamic LDS,
// the result of a dispatch, and the located error a faulting dispatch returns.
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace reptx::emulator {

struct Dim3 {
  uint32_t X = 1, Y = 1, Z = 1;
  uint64_t count() const { return uint64_t(X) * Y * Z; }
  friend bool operator==(const Dim3 &, const Dim3 &) = default;
};

struct DispatchParams {
  std::string KernelName;
  // Grid size in work-items, as in the HSA dispatch packet (not in work-groups). A grid that is
  // not a multiple of the work-group size has partial work-groups at its end, unless the kernel
  // requires uniform work-groups, which makes it an error.
  Dim3 GridSize;
  Dim3 WorkgroupSize;
  // The explicit kernel arguments, laid out at their metadata offsets (see KernargBuilder). The
  // emulator appends the hidden arguments the kernel's metadata lists.
  std::vector<uint8_t> Kernargs;
  // LDS bytes beyond the kernel's static group segment, per work-group.
  uint32_t DynamicLdsSize = 0;
  // Private memory per work-item on top of the kernel's fixed size when it has a dynamic stack
  // (calls through pointers, recursion); at most MaxDynamicStackSize.
  uint64_t DynamicStackSize = 16 * 1024;
  // A wave that executes more instructions than this stops the dispatch (runaway loops).
  uint64_t MaxInstructionsPerWave = uint64_t(1) << 26;
  // Every work-group resident at once (a cooperative launch, cuLaunchCooperativeKernel): their
  // waves are interleaved, so that work-groups can wait on each other (a grid-wide barrier).
  // Otherwise work-groups run one after another. At most MaxCooperativeWaves waves in all, whose
  // registers and scratch take at most MaxCooperativeBytes.
  bool Cooperative = false;
  static constexpr uint64_t MaxCooperativeWaves = 16384;
  static constexpr uint64_t MaxCooperativeBytes = uint64_t(1) << 30;

  // CUDA-style launch: Blocks work-groups of BlockSize work-items each.
  static DispatchParams blocks(llvm::StringRef Kernel, Dim3 Blocks, Dim3 BlockSize,
                               std::vector<uint8_t> Kernargs = {}) {
    DispatchParams P;
    P.KernelName = Kernel.str();
    P.GridSize = {Blocks.X * BlockSize.X, Blocks.Y * BlockSize.Y, Blocks.Z * BlockSize.Z};
    P.WorkgroupSize = BlockSize;
    P.Kernargs = std::move(Kernargs);
    return P;
  }
};

// Lays out explicit kernel arguments the way clang does for AMDGPU kernels: each argument at the
// next offset aligned to its natural alignment.
class KernargBuilder {
public:
  template <typename T> KernargBuilder &add(const T &Value) {
    static_assert(std::is_trivially_copyable_v<T>);
    size_t Offset = (Bytes.size() + alignof(T) - 1) / alignof(T) * alignof(T);
    Bytes.resize(Offset + sizeof(T));
    std::memcpy(Bytes.data() + Offset, &Value, sizeof(T));
    return *this;
  }
  // A device address (a pointer argument).
  KernargBuilder &addPointer(uint64_t Address) { return add(Address); }
  std::vector<uint8_t> take() { return std::move(Bytes); }

private:
  std::vector<uint8_t> Bytes;
};

struct DispatchResult {
  uint64_t Workgroups = 0;
  uint64_t Waves = 0;
  uint64_t Instructions = 0; // wave instructions executed
};

enum class FaultKind {
  MemoryViolation,        // access outside every allocation, or outside the LDS
  UnsupportedInstruction, // no semantics for the instruction (or for its operands/modifiers)
  InvalidProgramCounter,  // a jump to an address that is not an instruction
  InstructionLimit,       // MaxInstructionsPerWave exceeded
  Trap,                   // s_trap and friends
};

// Where and why a dispatch stopped.
struct Fault {
  FaultKind Kind = FaultKind::UnsupportedInstruction;
  std::string Kernel;
  Dim3 Workgroup{0, 0, 0};
  unsigned Wave = 0;               // wave index within the work-group
  std::optional<unsigned> Lane;    // for per-lane faults
  uint64_t Pc = 0;                 // code object virtual address of the instruction
  uint64_t KernelOffset = 0;       // Pc relative to the kernel's entry
  bool InKernel = true;            // Pc is in the kernel's own code, not a function it called
  std::string Instruction;         // the instruction as LLVM's AMDGPU printer writes it
  std::string Mnemonic;            // its mnemonic (for unsupported instructions)
  std::optional<uint64_t> Address; // faulting memory address
  std::string Detail;              // what went wrong
};

class ExecutionError : public llvm::ErrorInfo<ExecutionError> {
public:
  static char ID;
  explicit ExecutionError(Fault F) : F(std::move(F)) {}
  const Fault &fault() const { return F; }
  void log(llvm::raw_ostream &OS) const override;
  std::error_code convertToErrorCode() const override;

private:
  Fault F;
};

} // namespace reptx::emulator
