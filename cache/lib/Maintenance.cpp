// Maintenance operations behind `reptx cache`: stats, list, verify, prune, clear, and the
// single-file archive for export and import.
//
// Archive layout (little-endian):
//   16  magic "RPTXCARC", u32 version 1, u32 reserved 0
//   per entry: u32 tag 1, u32 reserved 0, u64 length N, then the N bytes of the entry file
//   end:       u32 tag 2, u32 reserved 0, u64 entry count, u64 XXH3-64 of every byte before it
// The file ends right after the checksum.
#include "CacheImpl.h"

#include "llvm/Support/Endian.h"
#include "llvm/Support/MemoryBuffer.h"

#include <xxhash.h>

#include <cerrno>
#include <fcntl.h>
#include <set>

namespace reptx::cache {

using posix::Fd;
namespace endian = llvm::support::endian;

namespace {

constexpr char ArchiveMagic[8] = {'R', 'P', 'T', 'X', 'C', 'A', 'R', 'C'};
constexpr uint32_t ArchiveVersion = 1;
constexpr uint32_t TagEntry = 1, TagEnd = 2;

using NameFn = llvm::function_ref<void(int ShardFd, llvm::StringRef Shard, llvm::StringRef Name)>;
using BadShardFn = llvm::function_ref<void(llvm::StringRef Shard, std::string Problem)>;

/// Calls Fn for every name inside every shard directory of L, and BadShard for shard names that
/// are not directories of ours.
llvm::Error walkShards(Cache::Impl &I, const Layer &L, NameFn Fn, BadShardFn BadShard) {
  std::vector<std::string> Shards;
  if (auto E = posix::forEachName(L.Root.get(), L.Info.Path, [&](llvm::StringRef N) {
        if (isShardName(N))
          Shards.push_back(N.str());
      }))
    return E;
  std::sort(Shards.begin(), Shards.end());
  for (const std::string &Shard : Shards) {
    auto SF = I.openShard(L, Shard, /*Create=*/false);
    if (!SF) {
      BadShard(Shard, llvm::toString(SF.takeError()));
      continue;
    }
    if (auto E = posix::forEachName(SF->get(), I.pathOf(L, Shard),
                                    [&](llvm::StringRef N) { Fn(SF->get(), Shard, N); }))
      return E;
  }
  return llvm::Error::success();
}

struct HeaderRead {
  std::string Bytes; // the header bytes; H.KeyText points into them
  EntryHeader H;
  struct stat St {};
};

/// Reads and checks only the header of an entry file.
llvm::Expected<HeaderRead> readHeader(Cache::Impl &I, int ShardFd, llvm::StringRef Name,
                                      const std::string &Path) {
  HeaderRead R;
  Fd F(::openat(ShardFd, Name.str().c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!F)
    return posix::errnoError(errno, Path);
  if (::fstat(F.get(), &R.St) != 0)
    return posix::errnoError(errno, Path);
  if (!S_ISREG(R.St.st_mode))
    return llvm::createStringError("%s: not a regular file", Path.c_str());
  uint64_t Size = R.St.st_size;
  R.Bytes.resize(std::min<uint64_t>(Size, 4096));
  if (auto E = posix::preadAll(F.get(), R.Bytes.data(), R.Bytes.size(), 0, Path))
    return std::move(E);
  auto HS = entryHeaderSize(R.Bytes);
  if (!HS)
    return llvm::createStringError("%s: %s", Path.c_str(), llvm::toString(HS.takeError()).c_str());
  if (*HS > R.Bytes.size() && *HS <= Size) {
    size_t Have = R.Bytes.size();
    R.Bytes.resize(*HS);
    if (auto E = posix::preadAll(F.get(), R.Bytes.data() + Have, *HS - Have, Have, Path))
      return std::move(E);
  }
  auto H = parseEntryHeader(R.Bytes, Size);
  if (!H)
    return llvm::createStringError("%s: %s", Path.c_str(), llvm::toString(H.takeError()).c_str());
  R.H = *H;
  return R;
}

/// Full check of one entry file against its name; the digest on success.
llvm::Error checkEntry(Cache::Impl &I, const Layer &L, int ShardFd, llvm::StringRef Name,
                       const std::string &Path, struct stat &St, std::string *BytesOut) {
  auto Bytes = I.readEntryFile(L, ShardFd, Name, Path, St);
  if (!Bytes)
    return Bytes.takeError();
  auto D = validateEntryFile(*Bytes);
  if (!D)
    return llvm::createStringError("%s: %s", Path.c_str(), llvm::toString(D.takeError()).c_str());
  if (*D != *entryNameDigest(Name))
    return llvm::createStringError("%s: holds the entry of another key", Path.c_str());
  if (BytesOut)
    *BytesOut = std::move(*Bytes);
  return llvm::Error::success();
}

llvm::Error needWritable(Cache::Impl &I) {
  if (!I.C.Enabled)
    return llvm::createStringError("the cache is disabled");
  if (!I.writable())
    return llvm::createStringError("the cache has no writable layer");
  return llvm::Error::success();
}

} // namespace

llvm::Expected<CacheStats> Cache::stats() {
  if (!I->C.Enabled)
    return llvm::createStringError("the cache is disabled");
  CacheStats S;
  S.MaxSize = I->C.MaxSize;
  for (const Layer &L : I->Layers) {
    LayerStats LS;
    LS.Layer = L.Info;
    auto E = walkShards(
        *I, L,
        [&](int SF, llvm::StringRef Shard, llvm::StringRef N) {
          if (N.starts_with(TempPrefix)) {
            ++LS.TempFiles;
            return;
          }
          if (!entryNameDigest(N))
            return;
          auto H = readHeader(*I, SF, N, I->pathOf(L, Shard, N));
          if (!H) {
            llvm::consumeError(H.takeError());
            ++LS.Unreadable;
            return;
          }
          ++LS.Entries;
          LS.StoredBytes += H->St.st_size;
          LS.DiskBytes += diskSize(H->St.st_size);
          LS.UncompressedBytes += H->H.UncompressedSize;
        },
        [](llvm::StringRef, std::string) {});
    if (E)
      return std::move(E);
    S.Layers.push_back(std::move(LS));
  }
  return S;
}

llvm::Error Cache::list(llvm::function_ref<void(const ListedEntry &)> Fn) {
  if (!I->C.Enabled)
    return llvm::createStringError("the cache is disabled");
  for (size_t LI = 0; LI < I->Layers.size(); ++LI) {
    const Layer &L = I->Layers[LI];
    if (auto E = walkShards(
            *I, L,
            [&](int SF, llvm::StringRef Shard, llvm::StringRef N) {
              std::optional<Digest> D = entryNameDigest(N);
              if (!D)
                return;
              ListedEntry LE;
              LE.Layer = LI;
              LE.Path = I->pathOf(L, Shard, N);
              LE.Name = *D;
              auto H = readHeader(*I, SF, N, LE.Path);
              if (!H) {
                LE.Problem = llvm::toString(H.takeError());
                struct stat St;
                if (posix::statAt(SF, N, St) == 0) {
                  LE.FileSize = St.st_size;
                  LE.LastUsedNs = posix::mtimeNs(St);
                }
              } else {
                LE.FileSize = H->St.st_size;
                LE.LastUsedNs = posix::mtimeNs(H->St);
                LE.UncompressedSize = H->H.UncompressedSize;
                auto K = Key::parse(H->H.KeyText);
                if (K)
                  LE.EntryKey = std::move(*K);
                else
                  LE.Problem = LE.Path + ": " + llvm::toString(K.takeError());
              }
              Fn(LE);
            },
            [](llvm::StringRef, std::string) {}))
      return E;
  }
  return llvm::Error::success();
}

llvm::Expected<VerifyReport> Cache::verify() {
  if (!I->C.Enabled)
    return llvm::createStringError("the cache is disabled");
  VerifyReport R;
  for (const Layer &L : I->Layers) {
    bool W = L.Info.Writable;
    auto E = walkShards(
        *I, L,
        [&](int SF, llvm::StringRef Shard, llvm::StringRef N) {
          std::string Path = I->pathOf(L, Shard, N);
          if (N.starts_with(TempPrefix)) {
            if (W)
              R.TempFilesRemoved += I->removeDeadTemp(SF, N);
            return;
          }
          struct stat St {};
          if (!entryNameDigest(N)) {
            // Nothing but entries and temporaries belongs in a shard.
            bool Removed = W && posix::statAt(SF, N, St) == 0 && !S_ISDIR(St.st_mode) &&
                           ::unlinkat(SF, N.str().c_str(), 0) == 0;
            R.StrayRemoved += Removed;
            R.Problems.push_back(Path + ": not a cache entry" + (Removed ? "; removed" : ""));
            return;
          }
          ++R.Checked;
          llvm::Error Problem = checkEntry(*I, L, SF, N, Path, St, nullptr);
          if (!Problem)
            return;
          int Err;
          std::string Msg = posix::takeMessage(std::move(Problem), Err);
          if (Err == ENOENT) {
            --R.Checked; // evicted or replaced by another process since the directory was read
            return;
          }
          ++R.Corrupt;
          bool Removed = W && St.st_ino != 0 && I->removeIfSame(SF, N, St);
          R.Removed += Removed;
          R.Problems.push_back(Msg + (Removed ? "; removed" : ""));
        },
        [&](llvm::StringRef Shard, std::string Problem) {
          // A symlink or file where a shard belongs: never followed; a store would replace it.
          struct stat St;
          std::string S = Shard.str();
          bool Removed = W && posix::statAt(L.Root.get(), Shard, St) == 0 && !S_ISDIR(St.st_mode) &&
                         ::unlinkat(L.Root.get(), S.c_str(), 0) == 0;
          R.StrayRemoved += Removed;
          R.Problems.push_back(Problem + (Removed ? "; removed" : ""));
        });
    if (E)
      return std::move(E);
  }
  // Leave the writable layer's counter exact; best effort, since verify also serves caches on
  // read-only file systems.
  if (Layer *L = I->writable()) {
    if (auto Lock = StateLock::acquire(*L)) {
      auto S = I->rescan(*L);
      if (!S)
        return S.takeError();
      R.TempFilesRemoved += S->TempFilesRemoved;
      Lock->write({true, S->Total, S->Entries.size(), 0});
    } else {
      llvm::consumeError(Lock.takeError());
    }
  }
  return R;
}

llvm::Expected<PruneReport> Cache::prune(std::optional<uint64_t> MaxSize) {
  if (auto E = needWritable(*I))
    return std::move(E);
  Layer &L = *I->writable();
  auto Lock = StateLock::acquire(L);
  if (!Lock)
    return Lock.takeError();
  auto S = I->rescan(L);
  if (!S)
    return S.takeError();
  PruneReport R;
  R.BytesBefore = S->Total;
  R.TempFilesRemoved = S->TempFilesRemoved;
  uint64_t Cap = MaxSize.value_or(I->C.MaxSize);
  if (Cap || MaxSize)
    R.Evicted = I->evict(L, *S, Cap);
  R.BytesAfter = S->Total;
  Lock->write({true, S->Total, S->Entries.size(), 0});
  return R;
}

llvm::Expected<ClearReport> Cache::clear() {
  if (auto E = needWritable(*I))
    return std::move(E);
  Layer &L = *I->writable();
  auto Lock = StateLock::acquire(L);
  if (!Lock)
    return Lock.takeError();
  auto S = I->rescan(L);
  if (!S)
    return S.takeError();
  ClearReport R;
  uint64_t Before = S->Total, Count = S->Entries.size();
  I->evict(L, *S, 0, /*KeepRecentlyUsed=*/false);
  R.Removed = Count - S->Entries.size();
  R.Bytes = Before - S->Total;
  Lock->write({true, S->Total, S->Entries.size(), 0});
  return R;
}

llvm::Expected<ArchiveReport> Cache::exportArchive(llvm::StringRef Path) {
  if (!I->C.Enabled)
    return llvm::createStringError("the cache is disabled");
  std::string Final = Path.str();
  std::string Temp = Final + ".tmp-" + std::to_string(::getpid());
  Fd Out(::open(Temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (!Out)
    return posix::errnoError(errno, "create " + Temp);
  XXH3_state_t *Hash = XXH3_createState();
  XXH3_64bits_reset(Hash);
  ArchiveReport R;
  llvm::Error WriteError = llvm::Error::success();
  auto Emit = [&](llvm::StringRef Bytes) {
    if (WriteError)
      return;
    XXH3_64bits_update(Hash, Bytes.data(), Bytes.size());
    if (auto E = posix::writeAll(Out.get(), Bytes, Temp))
      WriteError = std::move(E);
  };
  auto Record = [&](uint32_t Tag, uint64_t N) {
    char B[16];
    endian::write32le(B, Tag);
    endian::write32le(B + 4, 0);
    endian::write64le(B + 8, N);
    Emit(llvm::StringRef(B, 16));
  };
  char Head[16];
  std::memcpy(Head, ArchiveMagic, 8);
  endian::write32le(Head + 8, ArchiveVersion);
  endian::write32le(Head + 12, 0);
  Emit(llvm::StringRef(Head, 16));

  std::set<Digest> Seen; // the first layer holding a digest wins, as in lookup
  llvm::Error WalkError = llvm::Error::success();
  for (const Layer &L : I->Layers) {
    if (WalkError)
      break;
    WalkError = walkShards(
        *I, L,
        [&](int SF, llvm::StringRef Shard, llvm::StringRef N) {
          std::optional<Digest> D = entryNameDigest(N);
          if (!D || Seen.count(*D))
            return;
          struct stat St {};
          std::string Bytes;
          if (llvm::Error P = checkEntry(*I, L, SF, N, I->pathOf(L, Shard, N), St, &Bytes)) {
            int Err;
            std::string Msg = posix::takeMessage(std::move(P), Err);
            if (Err != ENOENT) {
              ++R.Skipped;
              R.Problems.push_back(Msg + "; not exported");
            }
            return;
          }
          Seen.insert(*D);
          Record(TagEntry, Bytes.size());
          Emit(Bytes);
          ++R.Entries;
          R.Bytes += Bytes.size();
        },
        [](llvm::StringRef, std::string) {});
  }
  Record(TagEnd, R.Entries);
  char Sum[8];
  endian::write64le(Sum, XXH3_64bits_digest(Hash));
  XXH3_freeState(Hash);
  if (!WriteError)
    WriteError = posix::writeAll(Out.get(), llvm::StringRef(Sum, 8), Temp);
  llvm::Error E = llvm::joinErrors(std::move(WalkError), std::move(WriteError));
  if (!E && ::fsync(Out.get()) != 0)
    E = posix::errnoError(errno, "fsync " + Temp);
  if (!E && ::rename(Temp.c_str(), Final.c_str()) != 0)
    E = posix::errnoError(errno, "rename " + Temp + " to " + Final);
  if (E) {
    ::unlink(Temp.c_str());
    return std::move(E);
  }
  return R;
}

llvm::Expected<ArchiveReport> Cache::importArchive(llvm::StringRef Path) {
  if (auto E = needWritable(*I))
    return std::move(E);
  auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!Buf)
    return posix::errnoError(Buf.getError().value(), Path);
  llvm::StringRef A = (*Buf)->getBuffer();
  auto Bad = [&](uint64_t Off, const char *What) {
    return llvm::createStringError("%s: not a valid reptx cache archive: %s at offset %llu",
                                   Path.str().c_str(), What, (unsigned long long)Off);
  };
  if (A.size() < 16 || std::memcmp(A.data(), ArchiveMagic, 8) != 0)
    return Bad(0, "bad magic");
  if (endian::read32le(A.data() + 8) != ArchiveVersion || endian::read32le(A.data() + 12) != 0)
    return Bad(8, "unsupported version");
  // The whole archive is checked before anything is stored, so a truncated or damaged file
  // imports nothing.
  std::vector<llvm::StringRef> Records;
  uint64_t Off = 16;
  for (;;) {
    if (A.size() - Off < 16)
      return Bad(Off, "truncated");
    uint32_t Tag = endian::read32le(A.data() + Off);
    uint64_t N = endian::read64le(A.data() + Off + 8);
    if (endian::read32le(A.data() + Off + 4) != 0)
      return Bad(Off, "reserved bits set");
    if (Tag == TagEnd) {
      if (N != Records.size())
        return Bad(Off, "entry count mismatch");
      Off += 16;
      if (A.size() - Off != 8)
        return Bad(Off, "truncated or extended after the end record");
      if (endian::read64le(A.data() + Off) != XXH3_64bits(A.data(), Off))
        return Bad(Off, "checksum mismatch");
      break;
    }
    if (Tag != TagEntry)
      return Bad(Off, "unknown record");
    Off += 16;
    if (A.size() - Off < N)
      return Bad(Off, "truncated entry");
    Records.push_back(A.substr(Off, N));
    Off += N;
  }
  ArchiveReport R;
  for (llvm::StringRef Bytes : Records) {
    auto D = validateEntryFile(Bytes);
    if (!D) {
      ++R.Skipped;
      R.Problems.push_back("archive entry at offset " + std::to_string(Bytes.data() - A.data()) +
                           ": " + llvm::toString(D.takeError()) + "; not imported");
      continue;
    }
    if (I->C.MaxSize && diskSize(Bytes.size()) > I->C.MaxSize) {
      ++R.Skipped;
      R.Problems.push_back("entry " + D->hex() + " is larger than the cache cap; not imported");
      continue;
    }
    if (auto E = I->commit(*D, Bytes))
      return std::move(E);
    ++R.Entries;
    R.Bytes += Bytes.size();
  }
  return R;
}

} // namespace reptx::cache
