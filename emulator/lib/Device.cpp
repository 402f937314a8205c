// The emulated device: host access to device memory, and mapping code objects into it with their
// dynamic relocations applied (AMDGPUUsage, "Relocation Records").
#include "reptx/emulator/Device.h"

#include "DeviceImpl.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Support/FormatVariadic.h"

#include <cstdlib>
#include <cstring>

using namespace llvm;

namespace reptx::emulator {

Device::Device() : P(std::make_unique<Impl>()) {}
Device::~Device() = default;

Memory &Device::memory() { return P->Mem; }

Expected<uint64_t> Device::allocate(uint64_t Size, StringRef Label) {
  return P->Mem.allocate(Size, Label);
}

Error Device::release(uint64_t Address) { return P->Mem.release(Address); }
Expected<uint64_t> Device::mapHostMemory(void *Host, uint64_t Size, StringRef Label, bool Guarded,
                                         bool ReadOnly) {
  return P->Mem.mapHost(Host, Size, Label, Guarded, ReadOnly);
}

Expected<uint64_t> Device::reserveAddressRange(uint64_t Size, uint64_t Align) {
  return P->Mem.reserve(Size, Align);
}

Error Device::mapMemoryAt(uint64_t Address, void *Host, uint64_t Size, StringRef Label,
                          bool ReadOnly) {
  return P->Mem.mapAt(Address, Host, Size, Label, ReadOnly);
}

Error Device::write(uint64_t Address, ArrayRef<uint8_t> Data) {
  return P->Mem.hostWrite(Address, Data.data(), Data.size(), /*Privileged=*/false);
}

Error Device::read(uint64_t Address, MutableArrayRef<uint8_t> Data) const {
  return P->Mem.hostRead(Address, Data.data(), Data.size());
}

std::optional<AllocationInfo> Device::findAllocation(uint64_t Address) const {
  const Memory::Allocation *A = P->Mem.find(Address);
  if (!A)
    return std::nullopt;
  return AllocationInfo{A->Base, A->Size, A->Label};
}

void Device::setCodeObjectsWritable(bool Writable) { P->WritableCodeObjects = Writable; }
void Device::setCodeObjectsHostMapped(bool HostMapped) { P->HostMappedCodeObjects = HostMapped; }

Expected<uint64_t> Device::loadCodeObject(const CodeObject &CO) {
  auto It = P->LoadBases.find(CO.uniqueId());
  if (It != P->LoadBases.end())
    return It->second;
  ArrayRef<uint8_t> Image = CO.image();
  Expected<uint64_t> Base = 0;
  if (P->HostMappedCodeObjects) {
    // Host memory with 64 KiB on each side (the guard gap Memory keeps between allocations), so
    // that host memory mapped later never lies within another mapping's guard space.
    constexpr uint64_t Guard = 0x10000;
    uint64_t Rounded = (Image.size() + 4095) / 4096 * 4096;
    std::unique_ptr<uint8_t, void (*)(void *)> Host(
        static_cast<uint8_t *>(std::aligned_alloc(4096, Rounded + 2 * Guard)), std::free);
    if (!Host)
      return createStringError("out of host memory for a code object of " + Twine(Image.size()) +
                               " bytes");
    std::memset(Host.get(), 0, Rounded + 2 * Guard);
    Base = P->Mem.mapHost(Host.get() + Guard, Image.size(), "code object " + CO.target().Processor);
    if (Base)
      P->HostCodeObjects.push_back(std::move(Host));
  } else {
    Base = P->Mem.allocate(Image.size(), "code object " + CO.target().Processor,
                           /*ReadOnly=*/!P->WritableCodeObjects);
  }
  if (!Base)
    return Base.takeError();
  if (Error E = P->Mem.hostWrite(*Base, Image.data(), Image.size(), /*Privileged=*/true))
    return std::move(E);
  // Virtual address V of the code object lives at device address V + LoadBase.
  uint64_t LoadBase = *Base - CO.imageBase();
  for (const CodeObject::Relocation &R : CO.relocations()) {
    uint64_t Value;
    unsigned Bytes = 8;
    auto Symbol = [&]() -> Expected<uint64_t> {
      if (!R.SymbolValue)
        return createStringError(std::make_error_code(std::errc::not_supported),
                                 "code object relocation against undefined symbol '" +
                                     R.SymbolName + "'");
      return LoadBase + *R.SymbolValue + uint64_t(R.Addend);
    };
    switch (R.Type) {
    case ELF::R_AMDGPU_NONE:
      continue;
    case ELF::R_AMDGPU_RELATIVE64:
      Value = LoadBase + uint64_t(R.Addend);
      break;
    case ELF::R_AMDGPU_ABS64: {
      auto S = Symbol();
      if (!S)
        return S.takeError();
      Value = *S;
      break;
    }
    case ELF::R_AMDGPU_ABS32:
    case ELF::R_AMDGPU_ABS32_LO:
    case ELF::R_AMDGPU_ABS32_HI: {
      auto S = Symbol();
      if (!S)
        return S.takeError();
      Value = R.Type == ELF::R_AMDGPU_ABS32_HI ? *S >> 32 : uint32_t(*S);
      Bytes = 4;
      break;
    }
    default:
      return createStringError(std::make_error_code(std::errc::not_supported),
                               "code object relocation type " + Twine(R.Type) +
                                   " is not supported");
    }
    if (Error E = P->Mem.hostWrite(R.Offset + LoadBase, &Value, Bytes, /*Privileged=*/true))
      return std::move(E);
  }
  P->LoadBases[CO.uniqueId()] = LoadBase;
  return LoadBase;
}

Expected<DispatchResult> Device::dispatch(const CodeObject &CO, const DispatchParams &Params) {
  auto LoadBase = loadCodeObject(CO);
  if (!LoadBase)
    return LoadBase.takeError();
  return runDispatch(P->Mem, P->NextDispatchId++, CO, *LoadBase, Params);
}

} // namespace reptx::emulator
