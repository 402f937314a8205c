// The emulated device: bounds-tracked memory allocations in a 64-bit device address space, code
// objects mapped into it, and kernel dispatches that run on the CPU.
#pragma once

#include "reptx/emulator/CodeObject.h"
#include "reptx/emulator/Dispatch.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace reptx::emulator {

class Memory; // internal

struct AllocationInfo {
  uint64_t Address = 0;
  uint64_t Size = 0;
  std::string Label;
};

class Device {
public:
  Device();
  ~Device();
  Device(const Device &) = delete;
  Device &operator=(const Device &) = delete;

  // Zero-filled device memory. Addresses are never reused, and allocations are separated by
  // unmapped guard space, so an access just past one allocation never lands in another.
  llvm::Expected<uint64_t> allocate(uint64_t Size, llvm::StringRef Label = {});
  llvm::Error release(uint64_t Address);
  // Host memory [Host, Host + Size) as an allocation at the device address equal to the host
  // address, not copied and not freed by release (CUDA managed memory in a driver: host code and
  // kernels dereference the same pointer). Errors if it overlaps another allocation.
  // Unguarded, it may lie next to another allocation (see Memory::mapHost); read-only, kernels
  // cannot store to it.
  llvm::Expected<uint64_t> mapHostMemory(void *Host, uint64_t Size, llvm::StringRef Label = {},
                                         bool Guarded = true, bool ReadOnly = false);
  // CUDA virtual memory management: a reserved address range, and host memory mapped at a chosen
  // address in it (the caller keeps ownership; release unmaps it).
  llvm::Expected<uint64_t> reserveAddressRange(uint64_t Size, uint64_t Align);
  llvm::Error mapMemoryAt(uint64_t Address, void *Host, uint64_t Size, llvm::StringRef Label,
                          bool ReadOnly);
  // Host copies; the whole range must lie inside one allocation.
  llvm::Error write(uint64_t Address, llvm::ArrayRef<uint8_t> Data);
  llvm::Error read(uint64_t Address, llvm::MutableArrayRef<uint8_t> Data) const;
  std::optional<AllocationInfo> findAllocation(uint64_t Address) const;

  template <typename T>
  llvm::Expected<uint64_t> allocateArray(llvm::ArrayRef<T> Values, llvm::StringRef Label = {}) {
    static_assert(std::is_trivially_copyable_v<T>);
    auto Address = allocate(Values.size() * sizeof(T), Label);
    if (!Address)
      return Address.takeError();
    if (llvm::Error E = write(*Address, asBytes(Values)))
      return std::move(E);
    return *Address;
  }
  template <typename T> llvm::Expected<std::vector<T>> readArray(uint64_t Address, size_t Count) {
    static_assert(std::is_trivially_copyable_v<T>);
    std::vector<T> Values(Count);
    llvm::MutableArrayRef<uint8_t> Bytes(reinterpret_cast<uint8_t *>(Values.data()),
                                         Count * sizeof(T));
    if (llvm::Error E = read(Address, Bytes))
      return std::move(E);
    return Values;
  }

  // Maps the code object's loadable segments into device memory (once per code object) and
  // applies its dynamic relocations; returns the load base, which is added to every virtual
  // address of the code object (program counters included).
  llvm::Expected<uint64_t> loadCodeObject(const CodeObject &CO);
  // Code objects loaded from now on are mapped writable (default: read-only): a driver needs that
  // for the module variables they hold (__device__ variables that kernels store to, and
  // __constant__ ones the host fills).
  void setCodeObjectsWritable(bool Writable);
  // Code objects loaded from now on are placed in host memory mapped at its own address (as
  // mapHostMemory maps memory), always writable, and owned by the Device: the device address of a
  // module variable is then also a host pointer. A driver needs that for CUDA `__managed__`
  // variables, which host code dereferences (CUDA C++ Programming Guide, "Unified Memory").
  void setCodeObjectsHostMapped(bool HostMapped);

  // Runs one kernel dispatch to completion. Work-groups run one after another; the waves of a
  // work-group are interleaved and meet at barriers. A fault stops the dispatch with an
  // ExecutionError; memory written before the fault stays written.
  llvm::Expected<DispatchResult> dispatch(const CodeObject &CO, const DispatchParams &Params);

  Memory &memory();

private:
  template <typename T> static llvm::ArrayRef<uint8_t> asBytes(llvm::ArrayRef<T> Values) {
    return {reinterpret_cast<const uint8_t *>(Values.data()), Values.size() * sizeof(T)};
  }
  struct Impl;
  std::unique_ptr<Impl> P;
};

} // namespace reptx::emulator
