// Cache configuration and the one place that reads it from the environment:
//   REPTX_CACHE_DISABLE=1            no lookups, no stores, nothing touched on disk
//   REPTX_CACHE_PATH=DIR             the writable layer (default $XDG_CACHE_HOME/reptx, then
//                                    ~/.cache/reptx)
//   REPTX_CACHE_READONLY_PATHS=A:B   read-only layers, looked up first, in this order
//   REPTX_CACHE_MAXSIZE=SIZE         cap of the writable layer: bytes or K/M/G/T (powers of 1024),
//                                    optional "B"/"iB"; 0 means no cap
#pragma once

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace reptx::cache {

inline constexpr uint64_t DefaultMaxSize = 4ull << 30;

struct Config {
  bool Enabled = true;
  /// The writable layer's root; empty for none (lookups only).
  std::string WritablePath;
  /// Read-only layers in lookup order.
  std::vector<std::string> ReadOnlyPaths;
  /// Cap of the writable layer in bytes of disk usage (file sizes rounded up to 4 KiB); 0 = none.
  uint64_t MaxSize = DefaultMaxSize;
  int CompressionLevel = 3;
  /// The user whose files are trusted besides root; default the effective uid. Tests set it to
  /// play someone else.
  std::optional<uint32_t> TrustedUid;
};

/// Returns the value of an environment variable, or nullopt when it is unset.
using EnvLookup = llvm::function_ref<std::optional<std::string>(llvm::StringRef Name)>;

/// The configuration described at the top of this file. Errors name the variable and the value;
/// relative paths are errors (a process may change its working directory).
llvm::Expected<Config> configFromEnvironment(EnvLookup Get);
/// configFromEnvironment over the process environment.
llvm::Expected<Config> configFromProcessEnvironment();

/// "4G", "512MiB", "100k", "123": bytes; K/M/G/T are powers of 1024.
llvm::Expected<uint64_t> parseSize(llvm::StringRef Text);
/// "1.5 GiB", "12.0 KiB", "100 B".
std::string formatSize(uint64_t Bytes);

} // namespace reptx::cache
