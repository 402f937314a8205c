// Opening the layers, lookups, stores, size accounting and LRU eviction.
//
// Crash safety: an entry appears only through rename() of a complete, fsync()ed temporary file in
// the same directory, so a reader sees the old file, the new one or none, never a partial one.
// Size accounting: ROOT/state holds a counter that every store updates under an exclusive flock
// before its rename, so a writer killed at any moment leaves the counter too high, never too
// low; a counter above the cap, an unreadable one or RescanEvery stores trigger an exact rescan.
#include "CacheImpl.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"

#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <sys/file.h>

namespace reptx::cache {

using posix::Fd;
namespace endian = llvm::support::endian;

bool isShardName(llvm::StringRef Name) {
  auto LowerHex = [](char C) { return llvm::isDigit(C) || (C >= 'a' && C <= 'f'); };
  return Name.size() == 2 && LowerHex(Name[0]) && LowerHex(Name[1]);
}

std::optional<Digest> entryNameDigest(llvm::StringRef Name) {
  if (!Name.consume_back(EntrySuffix))
    return std::nullopt;
  return Digest::fromHex(Name);
}

//===----------------------------------------------------------------------===//
// State file
//===----------------------------------------------------------------------===//

namespace {

constexpr char StateMagic[8] = {'R', 'P', 'T', 'X', 'S', 'T', 'A', 'T'};
constexpr size_t StateSize = 48; // magic, version, reserved, 3 counters, checksum

} // namespace

llvm::Expected<StateLock> StateLock::acquire(const Layer &L) {
  StateLock S;
  S.F =
      Fd(::openat(L.Root.get(), StateFile.data(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!S.F)
    return posix::errnoError(errno, "open " + L.Info.Path + "/" + StateFile);
  while (::flock(S.F.get(), LOCK_EX) != 0)
    if (errno != EINTR)
      return posix::errnoError(errno, "lock " + L.Info.Path + "/" + StateFile);
  return S;
}

SizeState StateLock::read() const {
  char B[StateSize];
  SizeState S;
  if (::pread(F.get(), B, StateSize, 0) != ssize_t(StateSize))
    return S;
  if (std::memcmp(B, StateMagic, 8) != 0 || endian::read32le(B + 8) != 1 ||
      endian::read64le(B + 40) != XXH3_64bits(B, 40))
    return S;
  S.Total = endian::read64le(B + 16);
  S.Entries = endian::read64le(B + 24);
  S.StoresSinceScan = endian::read64le(B + 32);
  S.Valid = true;
  return S;
}

void StateLock::write(const SizeState &S) const {
  char B[StateSize] = {};
  std::memcpy(B, StateMagic, 8);
  endian::write32le(B + 8, 1);
  endian::write64le(B + 16, S.Total);
  endian::write64le(B + 24, S.Entries);
  endian::write64le(B + 32, S.StoresSinceScan);
  endian::write64le(B + 40, XXH3_64bits(B, 40));
  // A failed or torn write leaves a record whose checksum fails, which forces a rescan.
  (void)!::pwrite(F.get(), B, StateSize, 0);
}

//===----------------------------------------------------------------------===//
// Layers
//===----------------------------------------------------------------------===//

void Cache::Impl::warn(WarningKind K, std::string Msg) {
  if (!W)
    return;
  std::lock_guard<std::mutex> G(WarnMutex);
  W(Warning{K, std::move(Msg)});
}

std::string Cache::Impl::pathOf(const Layer &L, llvm::StringRef Shard, llvm::StringRef Name) const {
  std::string P = L.Info.Path + "/" + Shard.str();
  if (!Name.empty())
    P += "/" + Name.str();
  return P;
}

llvm::Expected<Fd> Cache::Impl::openShard(const Layer &L, llvm::StringRef Shard, bool Create) {
  std::string Name = Shard.str();
  auto Open = [&] {
    return Fd(
        ::openat(L.Root.get(), Name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  };
  Fd S = Open();
  if (!S && Create && L.Info.Writable) {
    if (errno == ELOOP || errno == ENOTDIR) {
      // A symlink or file where a shard belongs: never followed, replaced.
      ::unlinkat(L.Root.get(), Name.c_str(), 0);
      errno = ENOENT;
    }
    if (errno == ENOENT) {
      if (::mkdirat(L.Root.get(), Name.c_str(), 0700) != 0 && errno != EEXIST)
        return posix::errnoError(errno, "create " + pathOf(L, Shard));
      S = Open();
    }
  }
  if (!S)
    return posix::errnoError(errno, "open " + pathOf(L, Shard));
  struct stat St;
  if (::fstat(S.get(), &St) != 0)
    return posix::errnoError(errno, "stat " + pathOf(L, Shard));
  if (!trustedOwner(St.st_uid))
    return posix::errnoError(EPERM,
                             pathOf(L, Shard) + " is owned by uid " + llvm::Twine(St.st_uid));
  return std::move(S);
}

bool Cache::Impl::removeIfSame(int DirFd, llvm::StringRef Name, const struct stat &St) {
  struct stat Now;
  if (posix::statAt(DirFd, Name, Now) != 0 || Now.st_dev != St.st_dev || Now.st_ino != St.st_ino)
    return false;
  return ::unlinkat(DirFd, Name.str().c_str(), 0) == 0;
}

bool Cache::Impl::removeDeadTemp(int ShardFd, llvm::StringRef Name) {
  std::string N = Name.str();
  Fd T(::openat(ShardFd, N.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!T) {
    struct stat St;
    // Not a regular file under a temporary's name: nothing of ours, and never followed.
    if ((errno == ELOOP || errno == ENXIO) && posix::statAt(ShardFd, Name, St) == 0 &&
        !S_ISDIR(St.st_mode))
      return ::unlinkat(ShardFd, N.c_str(), 0) == 0;
    return false;
  }
  // A live writer holds the lock from creation until after its rename.
  if (::flock(T.get(), LOCK_EX | LOCK_NB) != 0)
    return false;
  struct stat St;
  if (::fstat(T.get(), &St) != 0)
    return false;
  return removeIfSame(ShardFd, Name, St);
}

llvm::Expected<Scan> Cache::Impl::rescan(const Layer &L) {
  Scan S;
  std::vector<std::string> Shards;
  if (auto E = posix::forEachName(L.Root.get(), L.Info.Path, [&](llvm::StringRef N) {
        if (isShardName(N))
          Shards.push_back(N.str());
      }))
    return std::move(E);
  for (const std::string &Shard : Shards) {
    auto SF = openShard(L, Shard, /*Create=*/false);
    if (!SF) {
      llvm::consumeError(SF.takeError()); // not a directory of ours: verify reports it
      continue;
    }
    if (auto E = posix::forEachName(SF->get(), pathOf(L, Shard), [&](llvm::StringRef N) {
          if (N.starts_with(TempPrefix)) {
            S.TempFilesRemoved += removeDeadTemp(SF->get(), N);
            return;
          }
          struct stat St;
          if (!entryNameDigest(N) || posix::statAt(SF->get(), N, St) != 0 || !S_ISREG(St.st_mode))
            return;
          S.Entries.push_back(
              {Shard, N.str(), diskSize(St.st_size), posix::mtimeNs(St), St.st_dev, St.st_ino});
          S.Total += diskSize(St.st_size);
        }))
      return std::move(E);
  }
  return S;
}

uint64_t Cache::Impl::evict(const Layer &L, Scan &S, uint64_t Target, bool KeepRecentlyUsed) {
  std::sort(S.Entries.begin(), S.Entries.end(), [](const ScannedEntry &A, const ScannedEntry &B) {
    return std::tie(A.MTimeNs, A.Name) < std::tie(B.MTimeNs, B.Name);
  });
  uint64_t Evicted = 0;
  std::vector<ScannedEntry> Kept;
  size_t I = 0;
  for (; I < S.Entries.size() && S.Total > Target; ++I) {
    const ScannedEntry &E = S.Entries[I];
    Fd SF(::openat(L.Root.get(), E.Shard.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    struct stat St;
    if (!SF || posix::statAt(SF.get(), E.Name, St) != 0 || St.st_ino != E.Ino ||
        St.st_dev != E.Dev) {
      S.Total -= E.Disk; // gone or replaced since the scan; a replacement is counted by its store
      continue;
    }
    if (KeepRecentlyUsed && posix::mtimeNs(St) != E.MTimeNs) {
      Kept.push_back(E); // hit since the scan: no longer the least recently used
      continue;
    }
    if (::unlinkat(SF.get(), E.Name.c_str(), 0) == 0 || errno == ENOENT) {
      S.Total -= E.Disk;
      ++Evicted;
    } else {
      Kept.push_back(E);
    }
  }
  Kept.insert(Kept.end(), S.Entries.begin() + I, S.Entries.end());
  S.Entries = std::move(Kept);
  return Evicted;
}

Cache::Cache(std::unique_ptr<Impl> I) : I(std::move(I)) {}
Cache::~Cache() = default;

namespace {

/// Opens a layer root directory. Symlinked roots are accepted only when the link itself belongs
/// to root or the trusted user; the directory must belong to one of them too (to the trusted user
/// alone for the writable layer).
llvm::Expected<Fd> openRoot(const Cache::Impl &I, const std::string &Path, bool Writable,
                            bool &Refused) {
  Refused = false;
  struct stat Link;
  if (::lstat(Path.c_str(), &Link) != 0)
    return posix::errnoError(errno, Path);
  Refused = true;
  if (S_ISLNK(Link.st_mode) && !I.trustedOwner(Link.st_uid))
    return posix::errnoError(EPERM, "refusing cache directory " + Path +
                                        ": a symlink owned by uid " + llvm::Twine(Link.st_uid));
  Refused = false;
  Fd R(::open(Path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!R)
    return posix::errnoError(errno, Path);
  struct stat St;
  if (::fstat(R.get(), &St) != 0)
    return posix::errnoError(errno, Path);
  Refused = true;
  bool Owner = Writable ? St.st_uid == I.Trusted : I.trustedOwner(St.st_uid);
  if (!Owner)
    return posix::errnoError(EPERM, "refusing cache directory " + Path + ": owned by uid " +
                                        llvm::Twine(St.st_uid));
  return std::move(R);
}

bool isDegradeErrno(int Err) {
  // EFBIG: the process's file size limit (RLIMIT_FSIZE) stops every larger store as well.
  return Err == ENOSPC || Err == EDQUOT || Err == EROFS || Err == EACCES || Err == EPERM ||
         Err == EFBIG;
}

} // namespace

llvm::Expected<std::unique_ptr<Cache>> Cache::open(const Config &C, WarningHandler W) {
  auto I = std::make_unique<Impl>();
  I->C = C;
  I->W = std::move(W);
  I->Trusted = C.TrustedUid.value_or(::geteuid());
  if (!C.Enabled)
    return std::unique_ptr<Cache>(new Cache(std::move(I)));

  for (const std::string &P : C.ReadOnlyPaths) {
    bool Refused;
    auto R = openRoot(*I, P, /*Writable=*/false, Refused);
    if (!R) {
      int Err;
      std::string Msg = posix::takeMessage(R.takeError(), Err);
      I->warn(WarningKind::LayerSkipped, "read-only cache layer skipped: " + Msg);
      continue;
    }
    I->Layers.push_back({{P, false}, std::move(*R)});
  }

  if (!C.WritablePath.empty()) {
    const std::string &P = C.WritablePath;
    // Missing components are created private to the user, as XDG asks for its directories.
    std::error_code EC =
        llvm::sys::fs::create_directories(P, /*IgnoreExisting=*/true, llvm::sys::fs::owner_all);
    bool Refused = false;
    auto R = EC ? llvm::Expected<Fd>(posix::errnoError(EC.value(), "create " + P))
                : openRoot(*I, P, /*Writable=*/true, Refused);
    if (R) {
      // Lets backup tools skip the cache; best effort.
      Fd Tag(::openat(R->get(), "CACHEDIR.TAG",
                      O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
      if (Tag)
        llvm::consumeError(posix::writeAll(Tag.get(),
                                           "Signature: 8a477f597d28d172789f06886806bc55\n"
                                           "# This file is a cache directory tag created by "
                                           "reptx.\n",
                                           P));
      I->Layers.push_back({{P, true}, std::move(*R)});
      I->HasWritable = true;
    } else {
      int Err;
      std::string Msg = posix::takeMessage(R.takeError(), Err);
      if (Refused)
        return llvm::createStringError(std::error_code(Err, std::generic_category()), Msg.c_str());
      // A read-only home or a full disk: the cache still serves its read-only layers.
      I->warn(WarningKind::StoresDisabled, "cache not writable, nothing will be stored: " + Msg);
    }
  }
  for (const Layer &L : I->Layers)
    I->Infos.push_back(L.Info);
  return std::unique_ptr<Cache>(new Cache(std::move(I)));
}

bool Cache::enabled() const { return I->C.Enabled; }
const Config &Cache::config() const { return I->C; }
llvm::ArrayRef<LayerInfo> Cache::layers() const { return I->Infos; }
bool Cache::hasWritableLayer() const { return I->HasWritable; }

//===----------------------------------------------------------------------===//
// Lookup
//===----------------------------------------------------------------------===//

llvm::Expected<std::string> Cache::Impl::readEntryFile(const Layer &L, int ShardFd,
                                                       llvm::StringRef Name,
                                                       const std::string &Path, struct stat &St,
                                                       Fd *Keep) {
  // O_NONBLOCK: a FIFO planted under an entry's name must not hang the reader.
  Fd F(::openat(ShardFd, Name.str().c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!F) {
    int Err = errno;
    if (Err == ELOOP && posix::statAt(ShardFd, Name, St) == 0)
      return llvm::createStringError("%s: is a symlink", Path.c_str());
    return posix::errnoError(Err, Path);
  }
  if (::fstat(F.get(), &St) != 0)
    return posix::errnoError(errno, Path);
  if (!S_ISREG(St.st_mode))
    return llvm::createStringError("%s: not a regular file", Path.c_str());
  if (!trustedOwner(St.st_uid))
    return llvm::createStringError("%s: owned by uid %u", Path.c_str(), unsigned(St.st_uid));
  if (St.st_size == 0)
    return llvm::createStringError("%s: empty file", Path.c_str());
  if (uint64_t(St.st_size) > MaxPayloadSize + MaxKeySize + EntryFixedHeaderSize + 8)
    return llvm::createStringError("%s: too large to be an entry", Path.c_str());
  std::string Bytes(St.st_size, '\0');
  if (auto E = posix::preadAll(F.get(), Bytes.data(), Bytes.size(), 0, Path))
    return std::move(E);
  if (Keep)
    *Keep = std::move(F);
  return Bytes;
}

std::optional<Hit> Cache::lookup(const Key &K) {
  if (!I->C.Enabled || I->Layers.empty())
    return std::nullopt;
  std::string KeyText = K.serialize();
  std::string Hex = hashBytes(KeyText).hex();
  std::string Shard = Hex.substr(0, 2);
  std::string Name = Hex + EntrySuffix.str();
  for (size_t LI = 0; LI < I->Layers.size(); ++LI) {
    const Layer &L = I->Layers[LI];
    Fd SF(::openat(L.Root.get(), Shard.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!SF)
      continue; // no shard (or not a directory of ours, which stores and verify replace)
    std::string Path = I->pathOf(L, Shard, Name);
    struct stat St {};
    Fd F;
    auto Read = [&]() -> llvm::Expected<Entry> {
      auto Bytes = I->readEntryFile(L, SF.get(), Name, Path, St, &F);
      if (!Bytes)
        return Bytes.takeError();
      auto H = parseEntryHeader(*Bytes, Bytes->size());
      if (!H)
        return llvm::createStringError("%s: %s", Path.c_str(),
                                       llvm::toString(H.takeError()).c_str());
      if (H->KeyText != KeyText)
        return llvm::createStringError("%s: holds the entry of another key", Path.c_str());
      auto E = decodeEntryPayload(*Bytes, *H);
      if (!E)
        return llvm::createStringError("%s: %s", Path.c_str(),
                                       llvm::toString(E.takeError()).c_str());
      return E;
    };
    auto Found = Read();
    if (Found) {
      if (L.Info.Writable)
        ::futimens(F.get(), nullptr); // the LRU clock; fails harmlessly on a read-only mount
      return Hit{std::move(*Found), LI};
    }
    int Err;
    std::string Msg = posix::takeMessage(Found.takeError(), Err);
    if (Err == ENOENT)
      continue; // a plain miss
    if (L.Info.Writable && St.st_ino != 0 && I->removeIfSame(SF.get(), Name, St))
      I->warn(WarningKind::CorruptEntry, "corrupt cache entry removed: " + Msg);
    else if (L.Info.Writable)
      I->warn(WarningKind::CorruptEntry, "corrupt cache entry ignored: " + Msg);
    else
      I->warn(WarningKind::CorruptEntry, "corrupt entry in read-only cache layer ignored: " + Msg);
  }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Store
//===----------------------------------------------------------------------===//

llvm::Error Cache::Impl::commit(const Digest &D, llvm::StringRef Bytes) {
  Layer &L = *writable();
  std::string Hex = D.hex();
  std::string Shard = Hex.substr(0, 2);
  std::string Name = Hex + EntrySuffix.str();
  auto SF = openShard(L, Shard, /*Create=*/true);
  if (!SF)
    return SF.takeError();
  int S = SF->get();
  // Interrupted stores into this shard; the rest go at the next rescan, prune or verify.
  (void)posix::forEachName(S, pathOf(L, Shard), [&](llvm::StringRef N) {
    if (N.starts_with(TempPrefix))
      removeDeadTemp(S, N);
  });

  static std::atomic<uint64_t> Counter{0};
  std::string TempName;
  Fd T;
  for (int Attempt = 0; Attempt < 16 && !T; ++Attempt) {
    TempName =
        (TempPrefix + Hex + "-" + llvm::Twine(::getpid()) + "-" + llvm::Twine(Counter.fetch_add(1)))
            .str();
    T = Fd(
        ::openat(S, TempName.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!T) {
      if (errno == EEXIST)
        continue;
      return posix::errnoError(errno, "create " + pathOf(L, Shard, TempName));
    }
    // A cleaner that saw the file before this lock may hold it or have unlinked it: start over.
    struct stat St;
    if (::flock(T.get(), LOCK_EX | LOCK_NB) != 0 || ::fstat(T.get(), &St) != 0 ||
        St.st_nlink == 0) {
      T.reset();
      continue;
    }
  }
  if (!T)
    return llvm::createStringError("could not create a temporary file in %s",
                                   pathOf(L, Shard).c_str());
  std::string TempPath = pathOf(L, Shard, TempName);
  auto Fail = [&](llvm::Error E) {
    ::unlinkat(S, TempName.c_str(), 0);
    return E;
  };
  if (auto E = posix::writeAll(T.get(), Bytes, TempPath))
    return Fail(std::move(E));
  if (::fsync(T.get()) != 0)
    return Fail(posix::errnoError(errno, "fsync " + TempPath));

  auto Lock = StateLock::acquire(L);
  if (!Lock)
    return Fail(Lock.takeError());
  SizeState St = Lock->read();
  struct stat Old;
  bool Replaces = posix::statAt(S, Name, Old) == 0;
  if (Replaces && S_ISDIR(Old.st_mode))
    return Fail(llvm::createStringError("%s: a directory", pathOf(L, Shard, Name).c_str()));
  uint64_t OldDisk = Replaces && S_ISREG(Old.st_mode) ? diskSize(Old.st_size) : 0;
  if (St.Valid) {
    St.Total = St.Total + diskSize(Bytes.size()) - std::min(St.Total, OldDisk);
    St.Entries += Replaces ? 0 : 1;
    ++St.StoresSinceScan;
    // Counted before the rename: killed in between, the counter is too high, never too low.
    Lock->write(St);
  }
  if (::renameat(S, TempName.c_str(), S, Name.c_str()) != 0)
    return Fail(posix::errnoError(errno, "rename " + TempPath));
  T.reset();

  uint64_t Cap = C.MaxSize;
  if (!St.Valid || (Cap && St.Total > Cap) || St.StoresSinceScan >= RescanEvery) {
    auto Sc = rescan(L);
    if (!Sc)
      return Sc.takeError();
    if (Cap && Sc->Total > Cap)
      evict(L, *Sc, lowWater(Cap));
    Lock->write({true, Sc->Total, Sc->Entries.size(), 0});
  }
  // Durability of the new name; the entry is complete either way, so a failure only risks losing
  // it on power loss.
  ::fsync(S);
  return llvm::Error::success();
}

StoreResult Cache::Impl::commitOrWarn(const Digest &D, llvm::StringRef Bytes) {
  if (C.MaxSize && diskSize(Bytes.size()) > C.MaxSize) {
    if (!StoreFailureWarned.exchange(true))
      warn(WarningKind::StoreFailed, "cache entry of " + formatSize(Bytes.size()) +
                                         " is larger than the cache cap; not stored");
    return StoreResult::Skipped;
  }
  llvm::Error E = commit(D, Bytes);
  if (!E)
    return StoreResult::Stored;
  int Err;
  std::string Msg = posix::takeMessage(std::move(E), Err);
  if (isDegradeErrno(Err)) {
    if (!StoresOff.exchange(true))
      warn(WarningKind::StoresDisabled, "cache not writable, nothing more will be stored: " + Msg);
  } else if (!StoreFailureWarned.exchange(true)) {
    warn(WarningKind::StoreFailed, "cache store failed: " + Msg);
  }
  return StoreResult::Failed;
}

StoreResult Cache::store(const Key &K, const Entry &E) {
  if (!I->C.Enabled || !I->HasWritable)
    return StoreResult::Disabled;
  if (I->StoresOff)
    return StoreResult::Skipped;
  auto Bytes = encodeEntryFile(K, E, I->C.CompressionLevel);
  if (!Bytes) {
    int Err;
    std::string Msg = posix::takeMessage(Bytes.takeError(), Err);
    if (!I->StoreFailureWarned.exchange(true))
      I->warn(WarningKind::StoreFailed, "cache store failed: " + Msg);
    return StoreResult::Failed;
  }
  return I->commitOrWarn(K.digest(), *Bytes);
}

} // namespace reptx::cache
