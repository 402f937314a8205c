// Cache keys: everything that changes a compiled code object, written in one canonical, versioned
// text form whose XXH3-128 digest names the cache entry. Volatile state (clock rates, device ids,
// paths, time) never goes into a key, so equal inputs always meet the same entry.
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace reptx::cache {

/// A 128-bit XXH3 digest.
struct Digest {
  uint64_t High = 0;
  uint64_t Low = 0;

  /// 32 lowercase hex digits, high half first (XXH128's canonical byte order).
  std::string hex() const;
  static std::optional<Digest> fromHex(llvm::StringRef Hex);
  /// The 16 bytes in canonical (big-endian) order, as entry headers store them.
  void toBytes(uint8_t Out[16]) const;
  static Digest fromBytes(const uint8_t In[16]);

  friend auto operator<=>(const Digest &, const Digest &) = default;
};

/// XXH3-128 of Bytes.
Digest hashBytes(llvm::StringRef Bytes);

/// Which compiler produced an entry. Any change here must miss every older entry, so each field
/// names an exact build, not a release line.
struct CompilerIdentity {
  std::string ReptxVersion;      // "0.1.0"
  std::string BuildId;           // GNU build-id of the compiling binary (see buildIdOf)
  std::string LLVMVersion;       // the LLVM the compiler links (see llvmVersion)
  std::string HelperLibraryHash; // digest of the device helper library linked into every object
};

/// LLVM_VERSION_STRING of the LLVM this library was built against.
std::string llvmVersion();

/// Hex GNU build-id of the loaded ELF object (executable or shared library) that contains
/// Address, or nullopt when it has none.
std::optional<std::string> buildIdOf(const void *Address);

/// The key of one compiled module (or, later, one kernel of it; see cache/README.md).
struct Key {
  /// Version of the serialized form; bump it whenever serialize() changes, so older entries miss.
  static constexpr unsigned SerializationVersion = 1;

  // What is compiled: the PTX text (by XXH3-128 and length, so a key stays small for multi-MB
  // modules) and the ptxas options string of its fatbin entry.
  Digest PtxHash;
  uint64_t PtxSize = 0;
  std::string PtxasOptions;

  // What it is compiled for.
  std::string Arch;                  // "gfx942"
  std::vector<std::string> Features; // target-id features: "sramecc+", "xnack-"
  unsigned WaveSize = 0;             // hardware wavefront size compiled for: 32 or 64
  std::string WaveMode; // how 32-thread warps are laid onto a wave64 (the backend's name for it)
  unsigned CodeObjectVersion = 0;

  // How it is compiled: backend options as name/value pairs (order does not matter).
  std::vector<std::pair<std::string, std::string>> Options;
  /// Empty for a whole-module entry; a kernel name for a kernel-level entry.
  std::string Kernel;

  CompilerIdentity Compiler;

  /// Sets PtxHash and PtxSize from the PTX text.
  void setPtx(llvm::StringRef Text);

  /// The canonical serialization: "name=value" lines in a fixed order, features and options
  /// sorted, every byte outside printable ASCII (and '%', '=') percent-escaped. Two keys are
  /// equal exactly when their serializations are.
  std::string serialize() const;
  /// Parses a serialization; rejects any text that is not exactly canonical.
  static llvm::Expected<Key> parse(llvm::StringRef Text);
  /// hashBytes(serialize()): the name of the entry.
  Digest digest() const;
};

} // namespace reptx::cache
