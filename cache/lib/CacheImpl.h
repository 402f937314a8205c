// Internals shared by the lookup/store path (Cache.cpp) and the maintenance operations
// (Maintenance.cpp): the layers, the layout of a layer on disk and its size accounting.
//
// Layer layout:
//   ROOT/CACHEDIR.TAG              marks the tree as a cache for backup tools
//   ROOT/state                     lock file and size counter of the writable layer
//   ROOT/xx/                       shard: the first byte of the digest, two lowercase hex digits
//   ROOT/xx/<32 hex digits>.rxc    an entry
//   ROOT/xx/.tmp-<digest>-<pid>-<n> a store in progress, flock()ed by its writer until renamed
#pragma once

#include "Posix.h"

#include "reptx/cache/Cache.h"

#include <atomic>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace reptx::cache {

inline constexpr llvm::StringLiteral EntrySuffix = ".rxc";
inline constexpr llvm::StringLiteral TempPrefix = ".tmp-";
inline constexpr llvm::StringLiteral StateFile = "state";
/// The cap counts file sizes rounded up to this, which approximates du on common file systems.
inline constexpr uint64_t DiskUnit = 4096;
/// A full rescan after this many stores bounds the drift of the counter when files are added or
/// removed behind the cache's back.
inline constexpr uint64_t RescanEvery = 256;

inline uint64_t diskSize(uint64_t FileSize) {
  return (FileSize + DiskUnit - 1) / DiskUnit * DiskUnit;
}
/// Eviction goes down to 95% of the cap so that a cache at its cap does not rescan on every store.
inline uint64_t lowWater(uint64_t Cap) { return Cap - Cap / 20; }

/// "ab" for shard directories.
bool isShardName(llvm::StringRef Name);
/// The digest of an entry file name ("<32 hex>.rxc"), or nullopt.
std::optional<Digest> entryNameDigest(llvm::StringRef Name);

struct Layer {
  LayerInfo Info;
  posix::Fd Root;
};

/// One entry file found by a scan of the writable layer.
struct ScannedEntry {
  std::string Shard;
  std::string Name;
  uint64_t Disk = 0;
  int64_t MTimeNs = 0;
  dev_t Dev = 0;
  ino_t Ino = 0;
};

struct Scan {
  std::vector<ScannedEntry> Entries;
  uint64_t Total = 0; // disk bytes of Entries
  uint64_t TempFilesRemoved = 0;
};

/// The counter kept in ROOT/state: an upper bound of the layer's disk usage between rescans.
struct SizeState {
  bool Valid = false;
  uint64_t Total = 0;
  uint64_t Entries = 0;
  uint64_t StoresSinceScan = 0;
};

/// The writable layer's lock: ROOT/state, flock()ed exclusively for as long as this lives.
class StateLock {
public:
  static llvm::Expected<StateLock> acquire(const Layer &L);
  SizeState read() const;
  void write(const SizeState &S) const;

private:
  posix::Fd F;
};

struct Cache::Impl {
  Config C;
  WarningHandler W;
  uint32_t Trusted = 0;
  std::vector<Layer> Layers; // read-only layers first, the writable one last
  std::vector<LayerInfo> Infos;
  bool HasWritable = false;
  std::atomic<bool> StoresOff{false};
  std::atomic<bool> StoreFailureWarned{false};
  std::mutex WarnMutex;

  void warn(WarningKind K, std::string Msg);
  Layer *writable() { return HasWritable ? &Layers.back() : nullptr; }
  bool trustedOwner(uid_t U) const { return U == 0 || U == Trusted; }
  std::string pathOf(const Layer &L, llvm::StringRef Shard, llvm::StringRef Name = {}) const;

  /// The shard directory, created (0700) when Create is set. A non-directory in its place is
  /// replaced in the writable layer when creating; symlinks are never followed.
  llvm::Expected<posix::Fd> openShard(const Layer &L, llvm::StringRef Shard, bool Create);
  /// Removes Name from the directory if it is still the file St describes (a concurrent writer
  /// may have renamed a fresh entry over it since).
  bool removeIfSame(int DirFd, llvm::StringRef Name, const struct stat &St);
  /// Removes a temporary file whose writer is gone (its flock is free). True when removed.
  bool removeDeadTemp(int ShardFd, llvm::StringRef Name);
  /// Every entry of the writable layer; removes dead temporaries on the way.
  llvm::Expected<Scan> rescan(const Layer &L);
  /// Removes the least recently used entries of S until its total is at most Target. Entries hit
  /// since the scan are kept when KeepRecentlyUsed is set (they are no longer the least recent).
  uint64_t evict(const Layer &L, Scan &S, uint64_t Target, bool KeepRecentlyUsed = true);

  /// Writes an encoded entry file under its digest: temporary file, fsync, rename under the
  /// state lock with the counter updated first, eviction when over the cap, directory fsync.
  llvm::Error commit(const Digest &D, llvm::StringRef Bytes);
  /// commit() for store(): failures become warnings (once) and stores stop on a full disk or
  /// read-only file system.
  StoreResult commitOrWarn(const Digest &D, llvm::StringRef Bytes);

  /// Reads a whole regular file opened with O_NOFOLLOW; St receives its fstat.
  llvm::Expected<std::string> readEntryFile(const Layer &L, int ShardFd, llvm::StringRef Name,
                                            const std::string &Path, struct stat &St,
                                            posix::Fd *Keep = nullptr);
};

} // namespace reptx::cache
