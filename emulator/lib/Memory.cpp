// Device memory allocations and their bounds checks.
#include "Memory.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <new>

using namespace llvm;

namespace reptx::emulator {

namespace {
// Allocations start on 64 KiB boundaries with at least this much unmapped space after each one.
constexpr uint64_t Granule = 0x10000;
constexpr uint64_t GuardGap = 0x10000;
constexpr uint64_t MaxAllocation = uint64_t(1) << 36;

Error makeError(const Twine &Message) {
  return createStringError(std::make_error_code(std::errc::invalid_argument), Message);
}
} // namespace

void Memory::skipMappedHost(uint64_t Size) {
  // Host memory mapped at its own address (mapHost) may lie in the way: skip past it.
  for (;;) {
    auto It = Allocations.upper_bound(Next + Size + GuardGap);
    if (It == Allocations.begin())
      break;
    --It;
    uint64_t End = It->first + It->second.Size + GuardGap;
    if (End <= Next)
      break;
    Next = (End + Granule - 1) / Granule * Granule;
  }
}

Expected<uint64_t> Memory::reserve(uint64_t Size, uint64_t Align) {
  if (Size == 0 || Size > MaxAllocation || (Align & (Align - 1)) || Align > MaxAllocation)
    return makeError("cannot reserve " + Twine(Size) + " bytes aligned to " + Twine(Align));
  Align = std::max(Align, Granule);
  for (;;) {
    Next = (Next + Align - 1) / Align * Align;
    uint64_t Before = Next;
    skipMappedHost(Size);
    if (Next == Before)
      break;
  }
  uint64_t Base = Next;
  Next += (Size + GuardGap + Granule - 1) / Granule * Granule;
  return Base;
}

Error Memory::mapAt(uint64_t Base, void *Host, uint64_t Size, StringRef Label, bool ReadOnly) {
  if (!Host || Size == 0 || Size > MaxAllocation || Base + Size >= SharedApertureBase)
    return makeError("cannot map " + Twine(Size) + " bytes at " + formatv("{0:x}", Base).str());
  auto It = Allocations.upper_bound(Base + Size - 1);
  if (It != Allocations.begin() && std::prev(It)->first + std::prev(It)->second.Size > Base)
    return makeError("mapping at " + formatv("{0:x}", Base).str() + " overlaps an allocation");
  Allocation A;
  A.Base = Base;
  A.Size = Size;
  A.ReadOnly = ReadOnly;
  A.Label = Label.str();
  A.Data = std::unique_ptr<uint8_t[], AllocationDeleter>(static_cast<uint8_t *>(Host),
                                                         AllocationDeleter{false});
  Allocations.emplace(Base, std::move(A));
  return Error::success();
}

Expected<uint64_t> Memory::allocate(uint64_t Size, StringRef Label, bool ReadOnly) {
  if (Size > MaxAllocation)
    return makeError("device allocation of " + Twine(Size) + " bytes exceeds the emulator's " +
                     Twine(MaxAllocation) + "-byte limit");
  skipMappedHost(Size);
  Allocation A;
  A.Base = Next;
  A.Size = Size;
  A.Label = Label.str();
  A.ReadOnly = ReadOnly;
  // Value-initialised: device memory starts zeroed so that runs are deterministic.
  A.Data.reset(new (std::nothrow) uint8_t[Size ? Size : 1]());
  if (!A.Data)
    return makeError("out of host memory for a device allocation of " + Twine(Size) + " bytes");
  Next += (Size + GuardGap + Granule - 1) / Granule * Granule;
  uint64_t Base = A.Base;
  Allocations.emplace(Base, std::move(A));
  return Base;
}

Expected<uint64_t> Memory::mapHost(void *Host, uint64_t Size, StringRef Label, bool Guarded,
                                   bool ReadOnly) {
  uint64_t Base = reinterpret_cast<uintptr_t>(Host);
  // Guarded, it keeps out of other allocations' guard space too (mapAt checks the rest).
  if (Guarded && Host && Size && Size <= MaxAllocation) {
    auto It = Allocations.upper_bound(Base + Size + GuardGap);
    if (It != Allocations.begin() &&
        std::prev(It)->first + std::prev(It)->second.Size + GuardGap > Base)
      return makeError("host memory at " + formatv("{0:x}", Base).str() +
                       " overlaps a device allocation");
  }
  if (Error E = mapAt(Base, Host, Size, Label, ReadOnly))
    return std::move(E);
  return Base;
}

Error Memory::release(uint64_t Base) {
  auto It = Allocations.find(Base);
  if (It == Allocations.end())
    return makeError("no device allocation starts at " + formatv("{0:x}", Base).str());
  if (Last == &It->second)
    Last = nullptr;
  Allocations.erase(It);
  return Error::success();
}

const Memory::Allocation *Memory::find(uint64_t Address) const {
  auto It = Allocations.upper_bound(Address);
  if (It == Allocations.begin())
    return nullptr;
  --It;
  const Allocation &A = It->second;
  if (Address - A.Base < A.Size)
    return &A;
  return nullptr;
}

uint8_t *Memory::translateSlow(uint64_t Address, uint64_t Size, bool Write) {
  auto It = Allocations.upper_bound(Address);
  if (It == Allocations.begin())
    return nullptr;
  --It;
  Allocation &A = It->second;
  uint64_t Offset = Address - A.Base;
  if (Offset > A.Size || Size > A.Size - Offset || (Write && A.ReadOnly))
    return nullptr;
  Last = &A;
  return A.Data.get() + Offset;
}

std::string Memory::describe(uint64_t Address, uint64_t Size, bool Write) const {
  std::string S;
  raw_string_ostream OS(S);
  auto Name = [](const Allocation &A) {
    return A.Label.empty() ? std::string("allocation") : "allocation '" + A.Label + "'";
  };
  auto It = Allocations.upper_bound(Address);
  const Allocation *Below = nullptr;
  if (It != Allocations.begin())
    Below = &std::prev(It)->second;
  if (Below && Address - Below->Base < Below->Size) {
    if (Write && Below->ReadOnly)
      OS << "the " << Name(*Below) << " is read-only";
    else
      OS << "the access extends " << (Address + Size - (Below->Base + Below->Size))
         << " byte(s) past the end of the " << Below->Size << "-byte " << Name(*Below) << " at "
         << format_hex(Below->Base, 18);
    return S;
  }
  OS << "not inside any allocation";
  if (Below && Address == Below->Base + Below->Size)
    OS << "; it starts right at the end of the " << Below->Size << "-byte " << Name(*Below)
       << " at " << format_hex(Below->Base, 18);
  else if (Below)
    OS << "; it starts " << (Address - (Below->Base + Below->Size))
       << " byte(s) after the end of the " << Below->Size << "-byte " << Name(*Below) << " at "
       << format_hex(Below->Base, 18);
  else if (It != Allocations.end())
    OS << "; it starts " << (It->second.Base - Address) << " byte(s) before the "
       << Name(It->second) << " at " << format_hex(It->second.Base, 18);
  return S;
}

Error Memory::hostWrite(uint64_t Address, const void *Data, uint64_t Size, bool Privileged) {
  const Allocation *A = find(Address);
  if (!A || Size > A->Size - (Address - A->Base))
    return makeError("host write of " + Twine(Size) + " bytes at " +
                     formatv("{0:x}", Address).str() + ": " + describe(Address, Size, true));
  if (A->ReadOnly && !Privileged)
    return makeError("host write at " + formatv("{0:x}", Address).str() +
                     ": the allocation is read-only");
  if (Size)
    std::memcpy(A->Data.get() + (Address - A->Base), Data, Size);
  return Error::success();
}

Error Memory::hostRead(uint64_t Address, void *Data, uint64_t Size) const {
  const Allocation *A = find(Address);
  if (!A || Size > A->Size - (Address - A->Base))
    return makeError("host read of " + Twine(Size) + " bytes at " +
                     formatv("{0:x}", Address).str() + ": " + describe(Address, Size, false));
  if (Size)
    std::memcpy(Data, A->Data.get() + (Address - A->Base), Size);
  return Error::success();
}

} // namespace reptx::emulator
