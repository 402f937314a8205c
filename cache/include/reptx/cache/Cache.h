// The persistent code-object cache: read-only layers looked up first, then one writable layer
// that is size-bounded (LRU by mtime) and crash-safe (temporary file, fsync, rename). Any number
// of processes and threads may use one cache at once.
//
// Lookups and stores never fail the caller: damage, a full disk or a read-only file system turn
// into a miss or a skipped store, reported once through the WarningHandler. Only open() and the
// maintenance operations return errors.
#pragma once

#include "reptx/cache/Config.h"
#include "reptx/cache/Entry.h"
#include "reptx/cache/Key.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace reptx::cache {

enum class WarningKind {
  CorruptEntry,   // an entry failed its checks: treated as a miss (and removed when writable)
  LayerSkipped,   // a read-only layer is missing, unreadable or owned by someone else
  StoresDisabled, // the writable layer can't be written (full, read-only, no permission)
  StoreFailed,    // a store failed for another reason
};

struct Warning {
  WarningKind Kind;
  std::string Message;
};

/// Called with each warning, from the thread that hit it; calls are serialized.
using WarningHandler = std::function<void(const Warning &)>;

struct LayerInfo {
  std::string Path;
  bool Writable = false;
};

struct Hit {
  Entry Value;
  size_t Layer = 0; // index into Cache::layers()
};

enum class StoreResult {
  Stored,
  Disabled, // REPTX_CACHE_DISABLE, or no writable layer
  Skipped,  // stores were turned off after a write failure, or the entry is larger than the cap
  Failed,   // this store failed (warned)
};

struct LayerStats {
  LayerInfo Layer;
  uint64_t Entries = 0;
  uint64_t StoredBytes = 0;       // sum of entry file sizes (compressed payload plus header)
  uint64_t UncompressedBytes = 0; // sum of payload sizes before compression
  uint64_t DiskBytes = 0;         // file sizes rounded up to 4 KiB: the unit of the cap
  uint64_t Unreadable = 0;        // entries whose header is damaged (verify removes them)
  uint64_t TempFiles = 0;         // temporary files of stores in progress or interrupted
};

struct CacheStats {
  std::vector<LayerStats> Layers;
  uint64_t MaxSize = 0;
};

struct ListedEntry {
  size_t Layer = 0;
  std::string Path;
  Digest Name;
  uint64_t FileSize = 0;
  uint64_t UncompressedSize = 0;
  int64_t LastUsedNs = 0; // mtime: set by the store, refreshed by every hit in the writable layer
  std::optional<Key> EntryKey;
  std::string Problem; // why the header could not be read; empty when it could
};

struct VerifyReport {
  uint64_t Checked = 0;
  uint64_t Corrupt = 0;
  uint64_t Removed = 0;
  uint64_t TempFilesRemoved = 0;
  uint64_t StrayRemoved = 0; // symlinks and foreign files inside shard directories
  std::vector<std::string> Problems;
};

struct PruneReport {
  uint64_t BytesBefore = 0;
  uint64_t BytesAfter = 0;
  uint64_t Evicted = 0;
  uint64_t TempFilesRemoved = 0;
};

struct ClearReport {
  uint64_t Removed = 0;
  uint64_t Bytes = 0;
};

struct ArchiveReport {
  uint64_t Entries = 0; // exported, or imported
  uint64_t Bytes = 0;
  uint64_t Skipped = 0; // corrupt entries left out of an export, or invalid records on import
  std::vector<std::string> Problems;
};

class Cache {
public:
  /// Opens the layers of Config. A disabled config opens nothing and touches no file. A read-only
  /// layer that is missing or owned by someone other than root or the trusted user is skipped
  /// with a warning; a writable root that can't be created (read-only file system, no
  /// permission) leaves the cache without one, with a warning. Errors: a writable root that is a
  /// symlink owned by someone else, or that is owned by someone else.
  static llvm::Expected<std::unique_ptr<Cache>> open(const Config &C, WarningHandler W = nullptr);
  ~Cache();

  bool enabled() const;
  const Config &config() const;
  /// The accepted layers in lookup order: read-only ones first, the writable one last.
  llvm::ArrayRef<LayerInfo> layers() const;
  bool hasWritableLayer() const;

  /// The entry of K, or nullopt on a miss. An entry that fails any check is a miss and one
  /// warning, and is removed when it is in the writable layer.
  std::optional<Hit> lookup(const Key &K);
  /// Stores E under K in the writable layer, then evicts least recently used entries so the
  /// layer stays within the cap.
  StoreResult store(const Key &K, const Entry &E);

  // Maintenance. These work on the layers of any enabled cache; entries are removed from the
  // writable layer only.
  llvm::Expected<CacheStats> stats();
  /// Calls Fn for every entry file of every layer, reading headers only.
  llvm::Error list(llvm::function_ref<void(const ListedEntry &)> Fn);
  /// Reads and checks every entry completely; removes corrupt ones, stray files and interrupted
  /// temporaries from the writable layer.
  llvm::Expected<VerifyReport> verify();
  /// Evicts least recently used entries until the writable layer is within MaxSize (default:
  /// the configured cap); removes interrupted temporaries.
  llvm::Expected<PruneReport> prune(std::optional<uint64_t> MaxSize = std::nullopt);
  /// Removes every entry of the writable layer.
  llvm::Expected<ClearReport> clear();
  /// Writes every valid entry visible through the layers (the one a lookup would find) to a
  /// single archive file, headers intact.
  llvm::Expected<ArchiveReport> exportArchive(llvm::StringRef Path);
  /// Checks an archive as a whole, then checks and stores each of its entries.
  llvm::Expected<ArchiveReport> importArchive(llvm::StringRef Path);

  struct Impl;

private:
  explicit Cache(std::unique_ptr<Impl> I);
  std::unique_ptr<Impl> I;
};

} // namespace reptx::cache
