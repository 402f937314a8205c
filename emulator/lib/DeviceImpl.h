// Private state of a Device, shared by the memory and dispatch implementations.
#pragma once

#include "Memory.h"
#include "reptx/emulator/Device.h"

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

namespace reptx::emulator {

struct Device::Impl {
  Memory Mem;
  std::map<uint64_t, uint64_t> LoadBases; // code object id -> load base
  uint64_t NextDispatchId = 1;
  bool WritableCodeObjects = false;
  bool HostMappedCodeObjects = false;
  // Host memory of host-mapped code objects (freed with the Device).
  std::vector<std::unique_ptr<uint8_t, void (*)(void *)>> HostCodeObjects;
};

// Runs one dispatch of a code object mapped at LoadBase (see Dispatch.cpp).
llvm::Expected<DispatchResult> runDispatch(Memory &Mem, uint64_t DispatchId, const CodeObject &CO,
                                           uint64_t LoadBase, const DispatchParams &Params);

} // namespace reptx::emulator
