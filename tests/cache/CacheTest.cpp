// The cache's lookup and store path: round trips, layer precedence, ownership and symlink
// checks, the disable switch, permissions, and degrading to no-store on a full or read-only disk.
#include "CacheTestUtil.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace reptx::cache;
using namespace reptx::cache::test;

namespace {

class CacheTest : public TempDirTest {};

mode_t modeOf(const std::string &P) {
  struct stat St;
  EXPECT_EQ(::lstat(P.c_str(), &St), 0) << P;
  return St.st_mode & 07777;
}

TEST_F(CacheTest, StoreThenLookupRoundTrips) {
  Warnings W;
  auto C = open(writableConfig(), &W);
  ASSERT_TRUE(C);
  ASSERT_TRUE(C->hasWritableLayer());
  Key K = makeKey(1);
  Entry E = makeEntry(1, 200 * 1024);
  EXPECT_FALSE(C->lookup(K));
  EXPECT_EQ(C->store(K, E), StoreResult::Stored);
  auto H = C->lookup(K);
  ASSERT_TRUE(H);
  EXPECT_EQ(H->Value, E);
  EXPECT_EQ(H->Layer, 0u);
  EXPECT_FALSE(C->lookup(makeKey(2)));
  // Another Cache (another process, later) finds the same bytes.
  auto C2 = open(writableConfig(), &W);
  auto H2 = C2->lookup(K);
  ASSERT_TRUE(H2);
  EXPECT_EQ(H2->Value, E);
  // A store under the same key replaces the entry.
  Entry E2 = makeEntry(7, 1000);
  EXPECT_EQ(C->store(K, E2), StoreResult::Stored);
  EXPECT_EQ(valueOf(*C, K), E2);
  EXPECT_TRUE(W.All.empty());
}

TEST_F(CacheTest, FilesArePrivateAndSharded) {
  ::umask(022);
  auto C = open(writableConfig("a/b/cache"));
  ASSERT_TRUE(C);
  Key K = makeKey(1);
  ASSERT_EQ(C->store(K, makeEntry(1, 100)), StoreResult::Stored);
  std::string Root = path("a/b/cache");
  std::string Hex = K.digest().hex();
  EXPECT_EQ(modeOf(path("a")), 0700u);
  EXPECT_EQ(modeOf(Root), 0700u);
  EXPECT_EQ(modeOf(Root + "/" + Hex.substr(0, 2)), 0700u);
  EXPECT_EQ(modeOf(entryPath(Root, K)), 0600u);
  EXPECT_EQ(modeOf(Root + "/state"), 0600u);
  EXPECT_EQ(modeOf(Root + "/CACHEDIR.TAG"), 0600u);
}

TEST_F(CacheTest, HitRefreshesLastUse) {
  auto C = open(writableConfig());
  Key K = makeKey(1);
  ASSERT_EQ(C->store(K, makeEntry(1, 100)), StoreResult::Stored);
  std::string P = entryPath(path("cache"), K);
  struct timespec Old[2] = {{1000, 0}, {1000, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, P.c_str(), Old, 0), 0);
  ASSERT_TRUE(C->lookup(K));
  struct stat St;
  ASSERT_EQ(::stat(P.c_str(), &St), 0);
  EXPECT_GT(St.st_mtime, ::time(nullptr) - 60);
}

TEST_F(CacheTest, ReadOnlyLayersAreLookedUpFirstAndNeverWritten) {
  Key K1 = makeKey(1), K2 = makeKey(2), K3 = makeKey(3);
  Entry RO1 = makeEntry(101, 3000), RO2 = makeEntry(102, 3000), Other = makeEntry(103, 3000);
  {
    // Build two layers the way `reptx prewarm --output` will: as writable caches.
    auto B = open(writableConfig("ro1"));
    ASSERT_EQ(B->store(K1, RO1), StoreResult::Stored);
    ASSERT_EQ(B->store(K2, RO2), StoreResult::Stored);
    auto B2 = open(writableConfig("ro2"));
    ASSERT_EQ(B2->store(K1, Other), StoreResult::Stored);
  }
  Config Cfg = writableConfig("rw");
  Cfg.ReadOnlyPaths = {path("ro1"), path("ro2")};
  Warnings W;
  auto C = open(Cfg, &W);
  ASSERT_EQ(C->layers().size(), 3u);
  EXPECT_FALSE(C->layers()[0].Writable);
  EXPECT_TRUE(C->layers()[2].Writable);

  ASSERT_EQ(C->store(K1, Other), StoreResult::Stored); // goes to the writable layer
  auto H = C->lookup(K1);
  ASSERT_TRUE(H);
  EXPECT_EQ(H->Layer, 0u); // the first read-only layer wins over the second and the writable one
  EXPECT_EQ(H->Value, RO1);
  EXPECT_EQ(valueOf(*C, K2), RO2);
  EXPECT_FALSE(C->lookup(K3));
  ASSERT_EQ(C->store(K3, Other), StoreResult::Stored);
  H = C->lookup(K3);
  ASSERT_TRUE(H);
  EXPECT_EQ(H->Layer, 2u);

  // A damaged read-only entry is skipped with a warning but left in place; the next layer holding
  // the key answers.
  std::string P = entryPath(path("ro1"), K1);
  std::string Bytes = readFile(P);
  Bytes[Bytes.size() / 2] ^= 1;
  writeFile(P, Bytes);
  H = C->lookup(K1);
  ASSERT_TRUE(H);
  EXPECT_EQ(H->Layer, 1u);
  EXPECT_EQ(W.count(WarningKind::CorruptEntry), 1u);
  EXPECT_TRUE(readFile(P) == Bytes);

  // Maintenance never writes read-only layers either.
  auto Pr = C->prune(0);
  ASSERT_TRUE(bool(Pr));
  auto Cl = C->clear();
  ASSERT_TRUE(bool(Cl));
  H = C->lookup(K2);
  ASSERT_TRUE(H);
  EXPECT_EQ(H->Layer, 0u);
  auto V = C->verify();
  ASSERT_TRUE(bool(V));
  EXPECT_EQ(V->Corrupt, 1u);
  EXPECT_EQ(V->Removed, 0u);
  EXPECT_TRUE(readFile(P) == Bytes);
}

TEST_F(CacheTest, MissingReadOnlyLayerIsSkippedWithAWarning) {
  Config Cfg;
  Cfg.ReadOnlyPaths = {path("nope")};
  Warnings W;
  auto C = open(Cfg, &W);
  ASSERT_TRUE(C);
  EXPECT_TRUE(C->layers().empty());
  EXPECT_EQ(W.count(WarningKind::LayerSkipped), 1u);
  EXPECT_FALSE(C->lookup(makeKey(1)));
  EXPECT_EQ(C->store(makeKey(1), makeEntry(1, 10)), StoreResult::Disabled);
}

TEST_F(CacheTest, ReadOnlyLayerOwnedBySomeoneElseIsSkipped) {
  {
    auto B = open(writableConfig("ro"));
    ASSERT_EQ(B->store(makeKey(1), makeEntry(1, 100)), StoreResult::Stored);
  }
  Config Cfg;
  Cfg.ReadOnlyPaths = {path("ro")};
  if (::geteuid() == 0) {
    ASSERT_EQ(::chown(path("ro").c_str(), 65534, 65534), 0);
  } else {
    // Without root, play another user: our own files then belong to "someone else".
    Cfg.TrustedUid = ::geteuid() + 4242;
  }
  Warnings W;
  auto C = open(Cfg, &W);
  ASSERT_TRUE(C);
  EXPECT_TRUE(C->layers().empty());
  EXPECT_EQ(W.count(WarningKind::LayerSkipped), 1u);
  EXPECT_NE(W.All[0].Message.find("owned by uid"), std::string::npos) << W.All[0].Message;
  EXPECT_FALSE(C->lookup(makeKey(1)));
}

TEST_F(CacheTest, EntryOwnedBySomeoneElseIsIgnored) {
  if (::geteuid() != 0)
    GTEST_SKIP() << "needs root to give a file away";
  {
    auto B = open(writableConfig("ro"));
    ASSERT_EQ(B->store(makeKey(1), makeEntry(1, 100)), StoreResult::Stored);
  }
  ASSERT_EQ(::chown(entryPath(path("ro"), makeKey(1)).c_str(), 65534, 65534), 0);
  Config Cfg;
  Cfg.ReadOnlyPaths = {path("ro")};
  Warnings W;
  auto C = open(Cfg, &W);
  ASSERT_EQ(C->layers().size(), 1u);
  EXPECT_FALSE(C->lookup(makeKey(1)));
  EXPECT_EQ(W.count(WarningKind::CorruptEntry), 1u);
}

TEST_F(CacheTest, SymlinkedRootOwnedBySomeoneElseIsRefused) {
  ASSERT_EQ(::mkdir(path("real").c_str(), 0700), 0);
  ASSERT_EQ(::symlink(path("real").c_str(), path("link").c_str()), 0);
  Config Cfg = writableConfig("link");
  if (::geteuid() == 0)
    ASSERT_EQ(::lchown(path("link").c_str(), 65534, 65534), 0);
  else
    Cfg.TrustedUid = ::geteuid() + 4242;
  auto C = Cache::open(Cfg);
  ASSERT_FALSE(bool(C));
  std::string Msg = llvm::toString(C.takeError());
  EXPECT_NE(Msg.find("symlink owned by uid"), std::string::npos) << Msg;

  // The same as a read-only layer: skipped.
  Config RO;
  RO.ReadOnlyPaths = {path("link")};
  RO.TrustedUid = Cfg.TrustedUid;
  Warnings W;
  auto C2 = open(RO, &W);
  EXPECT_TRUE(C2->layers().empty());
  EXPECT_EQ(W.count(WarningKind::LayerSkipped), 1u);
}

TEST_F(CacheTest, SymlinkedRootOwnedByTheUserIsAccepted) {
  ASSERT_EQ(::mkdir(path("real").c_str(), 0700), 0);
  ASSERT_EQ(::symlink(path("real").c_str(), path("link").c_str()), 0);
  auto C = open(writableConfig("link"));
  ASSERT_TRUE(C);
  ASSERT_EQ(C->store(makeKey(1), makeEntry(1, 100)), StoreResult::Stored);
  EXPECT_TRUE(C->lookup(makeKey(1)));
  EXPECT_EQ(readFile(entryPath(path("real"), makeKey(1))).empty(), false);
}

TEST_F(CacheTest, WritableRootOwnedBySomeoneElseIsRefused) {
  if (::geteuid() != 0)
    GTEST_SKIP() << "needs root to give a directory away";
  ASSERT_EQ(::mkdir(path("theirs").c_str(), 0700), 0);
  ASSERT_EQ(::chown(path("theirs").c_str(), 65534, 65534), 0);
  auto C = Cache::open(writableConfig("theirs"));
  ASSERT_FALSE(bool(C));
  EXPECT_NE(llvm::toString(C.takeError()).find("owned by uid 65534"), std::string::npos);
}

TEST_F(CacheTest, SymlinksInsideTheCacheAreNeverFollowed) {
  Warnings W;
  auto C = open(writableConfig(), &W);
  Key K1 = makeKey(1), K2 = makeKey(2);
  Entry E1 = makeEntry(1, 1000);
  // A valid entry elsewhere, linked in under K1's name.
  {
    auto Other = open(writableConfig("other"));
    ASSERT_EQ(Other->store(K1, E1), StoreResult::Stored);
  }
  std::string Target = entryPath(path("other"), K1);
  std::string P1 = entryPath(path("cache"), K1);
  std::filesystem::create_directories(std::filesystem::path(P1).parent_path());
  ASSERT_EQ(::symlink(Target.c_str(), P1.c_str()), 0);
  EXPECT_FALSE(C->lookup(K1));
  EXPECT_EQ(W.count(WarningKind::CorruptEntry), 1u);
  struct stat St;
  EXPECT_NE(::lstat(P1.c_str(), &St), 0);     // the link is gone
  EXPECT_EQ(::lstat(Target.c_str(), &St), 0); // its target is untouched

  // A whole shard directory replaced by a symlink to a directory holding K2's entry.
  {
    auto Other = open(writableConfig("other"));
    ASSERT_EQ(Other->store(K2, E1), StoreResult::Stored);
  }
  std::string Shard2 = path("cache/") + K2.digest().hex().substr(0, 2);
  std::filesystem::remove_all(Shard2);
  std::string OtherShard = path("other/") + K2.digest().hex().substr(0, 2);
  ASSERT_EQ(::symlink(OtherShard.c_str(), Shard2.c_str()), 0);
  EXPECT_FALSE(C->lookup(K2));
  // A store replaces the link with a real directory and leaves the link's target alone.
  ASSERT_EQ(C->store(K2, makeEntry(2, 100)), StoreResult::Stored);
  ASSERT_EQ(::lstat(Shard2.c_str(), &St), 0);
  EXPECT_TRUE(S_ISDIR(St.st_mode));
  EXPECT_EQ(valueOf(*C, K2), makeEntry(2, 100));
  EXPECT_EQ(::lstat(entryPath(path("other"), K2).c_str(), &St), 0);

  // A FIFO under an entry's name neither hangs the reader nor is taken for an entry.
  Key K3 = makeKey(3);
  std::string P3 = entryPath(path("cache"), K3);
  std::filesystem::create_directories(std::filesystem::path(P3).parent_path());
  ASSERT_EQ(::mkfifo(P3.c_str(), 0600), 0);
  W.clear();
  EXPECT_FALSE(C->lookup(K3));
  EXPECT_EQ(W.count(WarningKind::CorruptEntry), 1u);
  EXPECT_NE(::lstat(P3.c_str(), &St), 0);
}

TEST_F(CacheTest, DisabledCacheTouchesNothing) {
  auto Cfg = configFromEnvironment([&](llvm::StringRef N) -> std::optional<std::string> {
    if (N == "REPTX_CACHE_DISABLE")
      return "1";
    if (N == "REPTX_CACHE_PATH")
      return path("cache");
    return std::nullopt;
  });
  ASSERT_TRUE(bool(Cfg));
  auto C = open(*Cfg);
  ASSERT_TRUE(C);
  EXPECT_FALSE(C->enabled());
  EXPECT_FALSE(C->lookup(makeKey(1)));
  EXPECT_EQ(C->store(makeKey(1), makeEntry(1, 10)), StoreResult::Disabled);
  EXPECT_FALSE(C->lookup(makeKey(1)));
  struct stat St;
  EXPECT_NE(::lstat(path("cache").c_str(), &St), 0);
  auto S = C->stats();
  EXPECT_FALSE(bool(S));
  llvm::consumeError(S.takeError());
}

TEST_F(CacheTest, CounterFileDamageIsRepairedByARescan) {
  auto C = open(writableConfig("cache", 256 * 1024));
  for (unsigned I = 0; I < 10; ++I)
    ASSERT_EQ(C->store(makeKey(I), makeEntry(I, 20000)), StoreResult::Stored);
  writeFile(path("cache/state"), "garbage");
  for (unsigned I = 10; I < 30; ++I) {
    ASSERT_EQ(C->store(makeKey(I), makeEntry(I, 20000)), StoreResult::Stored);
    EXPECT_LE(shardUsage(path("cache")), 256u * 1024);
  }
  ::unlink(path("cache/state").c_str());
  ASSERT_EQ(C->store(makeKey(99), makeEntry(99, 20000)), StoreResult::Stored);
  EXPECT_LE(shardUsage(path("cache")), 256u * 1024);
}

/// Runs Fn in a child process and returns its exit code (Fn's return value), so tests can change
/// limits, signals and mounts without affecting the test process.
int inChild(const std::function<int()> &Fn) {
  pid_t P = ::fork();
  if (P == 0)
    ::_exit(Fn());
  int Status = 0;
  ::waitpid(P, &Status, 0);
  return WIFEXITED(Status) ? WEXITSTATUS(Status) : 100 + WTERMSIG(Status);
}

TEST_F(CacheTest, FileSizeLimitDegradesToNoStoreWithOneWarning) {
  std::string D = path("cache");
  int Rc = inChild([&] {
    ::signal(SIGXFSZ, SIG_IGN);
    struct rlimit L = {32 * 1024, 32 * 1024};
    ::setrlimit(RLIMIT_FSIZE, &L);
    Warnings W;
    auto C = Cache::open(writableConfig(), W.handler());
    if (!C)
      return 1;
    if ((*C)->store(makeKey(1), makeEntry(1, 1000)) != StoreResult::Stored)
      return 2;
    if ((*C)->store(makeKey(2), makeEntry(2, 100000)) != StoreResult::Failed)
      return 3;
    if ((*C)->store(makeKey(3), makeEntry(3, 100)) != StoreResult::Skipped)
      return 4;
    if (W.All.size() != 1 || W.All[0].Kind != WarningKind::StoresDisabled)
      return 5;
    if (!(*C)->lookup(makeKey(1)) || (*C)->lookup(makeKey(2)))
      return 6;
    return W.All.size() == 1 ? 0 : 7;
  });
  EXPECT_EQ(Rc, 0);
  uint64_t Files = 0;
  shardUsage(D, &Files);
  EXPECT_EQ(Files, 1u); // the failed store left no temporary file
}

/// Mounts a small tmpfs at Mnt in a private mount namespace of the calling (child) process.
/// Returns false when this process may not (not root, no user namespaces).
bool privateTmpfs(const std::string &Mnt, const char *Opts) {
  if (::unshare(CLONE_NEWNS) != 0)
    return false;
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
    return false;
  return ::mount("tmpfs", Mnt.c_str(), "tmpfs", 0, Opts) == 0;
}

TEST_F(CacheTest, FullDiskAndReadOnlyFileSystemDegradeToNoStore) {
  std::string Mnt = path("mnt");
  ASSERT_EQ(::mkdir(Mnt.c_str(), 0700), 0);
  int Rc = inChild([&] {
    if (!privateTmpfs(Mnt, "size=512k,mode=0700"))
      return 77;
    Config Cfg;
    Cfg.WritablePath = Mnt + "/cache";
    Cfg.MaxSize = 0;
    Warnings W;
    auto C = Cache::open(Cfg, W.handler());
    if (!C)
      return 1;
    unsigned Stored = 0;
    StoreResult R = StoreResult::Stored;
    for (unsigned I = 0; I < 20 && R == StoreResult::Stored; ++I)
      if ((R = (*C)->store(makeKey(I), makeEntry(I, 100000))) == StoreResult::Stored)
        ++Stored;
    if (R != StoreResult::Failed || Stored == 0 || Stored >= 6)
      return 2;
    if ((*C)->store(makeKey(50), makeEntry(50, 10)) != StoreResult::Skipped)
      return 3;
    if (W.All.size() != 1 || W.All[0].Kind != WarningKind::StoresDisabled ||
        W.All[0].Message.find("No space left") == std::string::npos)
      return 4;
    if (!(*C)->lookup(makeKey(0)))
      return 5; // what was stored is still served

    // The same cache on a read-only file system.
    if (::mount(nullptr, Mnt.c_str(), nullptr, MS_REMOUNT | MS_RDONLY, nullptr) != 0)
      return 6;
    Warnings W2;
    auto C2 = Cache::open(Cfg, W2.handler());
    if (!C2 || !(*C2)->lookup(makeKey(0)))
      return 7;
    if ((*C2)->store(makeKey(60), makeEntry(60, 10)) != StoreResult::Failed ||
        (*C2)->store(makeKey(61), makeEntry(61, 10)) != StoreResult::Skipped)
      return 8;
    if (W2.All.size() != 1 || W2.All[0].Message.find("Read-only") == std::string::npos)
      return 9;
    // A cache root that does not exist yet on a read-only file system: lookups only.
    Config Cfg3 = Cfg;
    Cfg3.WritablePath = Mnt + "/new";
    Warnings W3;
    auto C3 = Cache::open(Cfg3, W3.handler());
    if (!C3 || (*C3)->hasWritableLayer() || W3.All.size() != 1)
      return 10;
    if ((*C3)->lookup(makeKey(0)) ||
        (*C3)->store(makeKey(0), makeEntry(0, 10)) != StoreResult::Disabled)
      return 11;
    return 0;
  });
  if (Rc == 77)
    GTEST_SKIP() << "no permission to mount a private tmpfs";
  EXPECT_EQ(Rc, 0);
}

TEST_F(CacheTest, InterruptedTemporariesAreRemovedButLiveOnesAreNot) {
  auto C = open(writableConfig());
  Key K = makeKey(1);
  ASSERT_EQ(C->store(K, makeEntry(1, 100)), StoreResult::Stored);
  std::string Shard = std::filesystem::path(entryPath(path("cache"), K)).parent_path();
  std::string Dead = Shard + "/.tmp-" + K.digest().hex() + "-1-1";
  std::string Live = Shard + "/.tmp-" + K.digest().hex() + "-2-2";
  writeFile(Dead, "partial");
  writeFile(Live, "in progress");
  // A writer in progress holds its temporary's flock.
  int LiveFd = ::open(Live.c_str(), O_RDONLY);
  ASSERT_GE(LiveFd, 0);
  ASSERT_EQ(::flock(LiveFd, LOCK_EX), 0);
  // The next store into the same shard removes the dead one only.
  ASSERT_EQ(C->store(K, makeEntry(2, 100)), StoreResult::Stored);
  struct stat St;
  EXPECT_NE(::lstat(Dead.c_str(), &St), 0);
  EXPECT_EQ(::lstat(Live.c_str(), &St), 0);
  auto P = C->prune();
  ASSERT_TRUE(bool(P));
  EXPECT_EQ(P->TempFilesRemoved, 0u);
  EXPECT_EQ(::lstat(Live.c_str(), &St), 0);
  // Once its writer is gone, prune removes it.
  ::close(LiveFd);
  P = C->prune();
  ASSERT_TRUE(bool(P));
  EXPECT_EQ(P->TempFilesRemoved, 1u);
  EXPECT_NE(::lstat(Live.c_str(), &St), 0);
  EXPECT_EQ(valueOf(*C, K), makeEntry(2, 100));
}

TEST_F(CacheTest, EntryLargerThanTheCapIsNotStored) {
  Warnings W;
  auto C = open(writableConfig("cache", 64 * 1024), &W);
  EXPECT_EQ(C->store(makeKey(1), makeEntry(1, 100000)), StoreResult::Skipped);
  EXPECT_EQ(W.count(WarningKind::StoreFailed), 1u);
  EXPECT_EQ(C->store(makeKey(2), makeEntry(2, 1000)), StoreResult::Stored);
}

} // namespace
