// Device memory of the emulator: allocations in a 64-bit address space, each backed by host
// memory and bounds-checked on every access.
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>

namespace reptx::emulator {

// Flat address apertures, as the HSA runtime programs them on GFX9+ (64 KiB-aligned 4 GiB
// windows above the 48-bit user address range; AMDGPUUsage, "Address Spaces"). Reading
// src_shared_base/src_private_base gives these 64-bit bases.
constexpr uint64_t SharedApertureBase = 0x0001000000000000ull;
constexpr uint64_t PrivateApertureBase = 0x0002000000000000ull;
constexpr uint64_t ApertureSize = 0x100000000ull;

/// Frees an allocation's bytes unless they belong to the host (Memory::mapHost).
struct AllocationDeleter {
  bool Owned = true;
  void operator()(uint8_t *P) const {
    if (Owned)
      delete[] P;
  }
};

class Memory {
public:
  struct Allocation {
    uint64_t Base = 0;
    uint64_t Size = 0;
    std::unique_ptr<uint8_t[], AllocationDeleter> Data;
    std::string Label;
    bool ReadOnly = false; // code objects and kernarg segments
  };

  llvm::Expected<uint64_t> allocate(uint64_t Size, llvm::StringRef Label, bool ReadOnly = false);
  llvm::Error release(uint64_t Base);
  // Makes host memory [Host, Host + Size) an allocation at the device address equal to the host
  // address (the caller keeps ownership): memory that host code and kernels both dereference.
  // Unguarded, it may lie in another allocation's guard space (memory the host registered
  // where it happens to be: an access past that allocation's end then reaches it unnoticed).
  llvm::Expected<uint64_t> mapHost(void *Host, uint64_t Size, llvm::StringRef Label,
                                   bool Guarded = true, bool ReadOnly = false);
  // An address range no allocation will take (CUDA's cuMemAddressReserve), aligned to Align (a
  // power of two, at least 64 KiB is used), with guard space after it; nothing is mapped in it.
  llvm::Expected<uint64_t> reserve(uint64_t Size, uint64_t Align);
  // Host memory [Host, Host + Size) as an allocation at Base (the caller keeps ownership and
  // chooses the address, e.g. inside a reserved range): errors if it overlaps an allocation.
  llvm::Error mapAt(uint64_t Base, void *Host, uint64_t Size, llvm::StringRef Label, bool ReadOnly);

  // Host pointer for [Address, Address + Size) when it lies inside one allocation (and the
  // allocation is writable for a write), else null.
  uint8_t *translate(uint64_t Address, uint64_t Size, bool Write) {
    if (Last && Address >= Last->Base && Address - Last->Base <= Last->Size &&
        Size <= Last->Size - (Address - Last->Base) && !(Write && Last->ReadOnly))
      return Last->Data.get() + (Address - Last->Base);
    return translateSlow(Address, Size, Write);
  }
  // The allocation containing Address, or null.
  const Allocation *find(uint64_t Address) const;
  // Explains why [Address, Address + Size) is not accessible, for fault messages.
  std::string describe(uint64_t Address, uint64_t Size, bool Write) const;
  // Host-side copies that may write read-only allocations (used to set them up).
  llvm::Error hostWrite(uint64_t Address, const void *Data, uint64_t Size, bool Privileged);
  llvm::Error hostRead(uint64_t Address, void *Data, uint64_t Size) const;

private:
  // Moves Next past host memory mapped at its own address that a Size-byte allocation there
  // would overlap.
  void skipMappedHost(uint64_t Size);
  uint8_t *translateSlow(uint64_t Address, uint64_t Size, bool Write);
  std::map<uint64_t, Allocation> Allocations; // by base
  Allocation *Last = nullptr;
  uint64_t Next = 0x100000000ull; // first allocation at 4 GiB: addresses need all 64 bits
};

} // namespace reptx::emulator
