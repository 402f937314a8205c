// The answer to cudart's integrity check (export table d4082055-..., slot 1): cudart 13 sends
// challenges CUDART_VERSION + k and compares the reply with its own computation; a wrong reply
// makes every runtime call fail with cudaErrorIntegrityCheckFailed. The algorithm and message
// layout are in shared/reference/cuda-driver-interface.md §4.7: HMAC (RFC 2104) over MD2
// (RFC 1319) with a fixed 16-byte key.
#pragma once

#include "llvm/ADT/ArrayRef.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace reptx::loader {

using Digest16 = std::array<uint8_t, 16>;

/// MD2 message digest (RFC 1319).
Digest16 md2(llvm::ArrayRef<uint8_t> Message);

/// HMAC (RFC 2104) with MD2 as the hash: block size 16, digest size 16.
Digest16 hmacMd2(llvm::ArrayRef<uint8_t> Key, llvm::ArrayRef<uint8_t> Message);

/// What identifies one device in the integrity message: the values the driver reports through
/// cuDeviceGetUuid and the PCI domain/bus/device attributes. They must stay stable for the
/// life of the process.
struct DeviceIdentity {
  std::array<uint8_t, 16> Uuid{};
  int32_t PciDomain = 0, PciBus = 0, PciDevice = 0;
};

/// Everything the integrity message is built from (cuda-driver-interface.md §4.7).
struct IntegrityInputs {
  uint32_t DriverVersion = 0; // as cuDriverGetVersion reports it
  uint32_t Challenge = 0;
  uint32_t ProcessId = 0;
  uint32_t ThreadId = 0;             // (uint32_t)pthread_self() of the calling thread
  uint64_t CudartInterfaceTable = 0; // address of the CUDART_INTERFACE export table
  uint64_t IntegrityTable = 0;       // address of the INTEGRITY_CHECK export table
  uint64_t IntegrityFunction = 0;    // INTEGRITY_CHECK table slot 1
  uint64_t UnixSeconds = 0;          // the time argument cudart passes
  std::vector<DeviceIdentity> Devices;
};

/// The 48 + 28 * devices bytes that are hashed, little-endian and packed.
std::vector<uint8_t> integrityMessage(const IntegrityInputs &In);

/// The two 64-bit words the check function writes for a challenge.
std::array<uint64_t, 2> integrityAnswer(const IntegrityInputs &In);

} // namespace reptx::loader
