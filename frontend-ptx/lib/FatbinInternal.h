// Private helpers shared by the fatbin scanner and the entry decoder.
#pragma once

#include "reptx/frontend-ptx/Fatbin.h"

#include "llvm/Support/FileSystem.h"

#include <cstring>

namespace reptx::fatbin {

/// Unaligned little-endian load (containers inside ar members can be 4 mod 8).
template <typename T> inline T readLE(const uint8_t *P) {
  T V;
  std::memcpy(&V, P, sizeof(T));
  return V;
}

struct FatbinFile::Storage {
  std::unique_ptr<llvm::sys::fs::mapped_file_region> Region;
  std::vector<uint8_t> Copy;
};

/// Parses and validates the container at file offset Off, which must end by Limit.
llvm::Error parseContainer(llvm::StringRef Path, llvm::ArrayRef<uint8_t> Bytes,
                           const ScanOptions &Opts, uint64_t Off, uint64_t Limit, Container &C);

} // namespace reptx::fatbin
