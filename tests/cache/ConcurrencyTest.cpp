// Many processes on one cache: concurrent stores and lookups of shared and private keys, and
// writers SIGKILLed at random moments. No lookup may ever return bytes other than those stored,
// verify must find no corrupt entry, and the cap must hold.
#include "CacheTestUtil.h"

#include <atomic>
#include <chrono>
#include <signal.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace reptx::cache;
using namespace reptx::cache::test;

namespace {

class ConcurrencyTest : public TempDirTest {};

/// The one entry ever stored under key I: its size varies with I, some compressible.
Entry expectedEntry(unsigned I) {
  Entry E = makeEntry(I, 500 + (I * 7919) % 30000);
  if (I % 3 == 0)
    E.CodeObject += std::string(20000, char('a' + I % 26));
  return E;
}

/// Exit codes of worker processes.
enum : int { WorkerOk = 0, WorkerOpenFailed = 10, WorkerWrongBytes = 11, WorkerStoreFailed = 12 };

/// Stores and looks up keys in random order; every hit must equal expectedEntry.
int worker(const Config &Cfg, unsigned Seed, unsigned Ops, unsigned SharedKeys,
           unsigned PrivateBase, unsigned PrivateKeys) {
  auto C = Cache::open(Cfg, nullptr);
  if (!C) {
    llvm::consumeError(C.takeError());
    return WorkerOpenFailed;
  }
  std::mt19937 R(Seed);
  for (unsigned Op = 0; Op < Ops; ++Op) {
    unsigned I = R() % 2 ? R() % SharedKeys : PrivateBase + R() % PrivateKeys;
    Key K = makeKey(I);
    if (auto H = (*C)->lookup(K)) {
      if (!(H->Value == expectedEntry(I)))
        return WorkerWrongBytes;
    } else if ((*C)->store(K, expectedEntry(I)) != StoreResult::Stored) {
      return WorkerStoreFailed;
    }
  }
  return WorkerOk;
}

/// Every key's lookup is a miss or exactly its entry; returns the number of hits.
unsigned checkAll(Cache &C, unsigned Keys) {
  unsigned Hits = 0;
  for (unsigned I = 0; I < Keys; ++I)
    if (auto H = C.lookup(makeKey(I))) {
      EXPECT_EQ(H->Value, expectedEntry(I)) << "key " << I;
      ++Hits;
    }
  return Hits;
}

TEST_F(ConcurrencyTest, ProcessesStoringAndLookingUpAtOnce) {
  constexpr unsigned Procs = 4, Shared = 24, Private = 12;
  constexpr uint64_t Cap = 512 * 1024;
  Config Cfg = writableConfig("cache", Cap);
  std::vector<pid_t> Pids;
  for (unsigned P = 0; P < Procs; ++P) {
    pid_t Pid = ::fork();
    ASSERT_GE(Pid, 0);
    if (Pid == 0)
      ::_exit(worker(Cfg, P + 1, 60, Shared, 1000 + P * Private, Private));
    Pids.push_back(Pid);
  }
  for (pid_t Pid : Pids) {
    int Status = 0;
    ASSERT_EQ(::waitpid(Pid, &Status, 0), Pid);
    ASSERT_TRUE(WIFEXITED(Status)) << "signal " << WTERMSIG(Status);
    EXPECT_EQ(WEXITSTATUS(Status), WorkerOk);
  }
  Warnings W;
  auto C = open(Cfg, &W);
  auto V = C->verify();
  ASSERT_TRUE(bool(V)) << llvm::toString(V.takeError());
  EXPECT_EQ(V->Corrupt, 0u);
  EXPECT_EQ(V->TempFilesRemoved, 0u);
  EXPECT_GT(V->Checked, 0u);
  EXPECT_LE(shardUsage(path("cache")), Cap + Cap / 100);
  EXPECT_GT(checkAll(*C, Shared) + checkAll(*C, 1000 + Procs * Private), 0u);
  EXPECT_TRUE(W.All.empty());
}

TEST_F(ConcurrencyTest, ThreadsSharingOneCache) {
  // What `reptx prewarm -j` will do: one Cache, many threads.
  constexpr uint64_t Cap = 256 * 1024;
  Warnings W;
  auto C = open(writableConfig("cache", Cap), &W);
  std::atomic<unsigned> Wrong{0};
  std::vector<std::thread> Threads;
  for (unsigned T = 0; T < 4; ++T)
    Threads.emplace_back([&, T] {
      std::mt19937 R(T);
      for (unsigned Op = 0; Op < 50; ++Op) {
        unsigned I = R() % 30;
        if (auto H = C->lookup(makeKey(I)))
          Wrong += !(H->Value == expectedEntry(I));
        else if (C->store(makeKey(I), expectedEntry(I)) != StoreResult::Stored)
          ++Wrong;
      }
    });
  for (std::thread &T : Threads)
    T.join();
  EXPECT_EQ(Wrong, 0u);
  auto V = C->verify();
  ASSERT_TRUE(bool(V));
  EXPECT_EQ(V->Corrupt, 0u);
  EXPECT_LE(shardUsage(path("cache")), Cap + Cap / 100);
  EXPECT_TRUE(W.All.empty());
}

TEST_F(ConcurrencyTest, WritersKilledAtRandomMomentsNeverLeaveACorruptEntry) {
  constexpr unsigned Rounds = 50, WritersPerRound = 2, Keys = 40;
  constexpr uint64_t Cap = 384 * 1024;
  Config Cfg = writableConfig("cache", Cap);
  std::mt19937 R(7);
  unsigned Killed = 0, Interrupted = 0;
  Warnings W;
  auto C = open(Cfg, &W);
  for (unsigned Round = 0; Round < Rounds; ++Round) {
    std::vector<pid_t> Pids;
    for (unsigned P = 0; P < WritersPerRound; ++P) {
      unsigned Seed = R();
      pid_t Pid = ::fork();
      ASSERT_GE(Pid, 0);
      if (Pid == 0)
        ::_exit(worker(Cfg, Seed, 1000000, Keys, 0, 1));
      Pids.push_back(Pid);
    }
    // Kill somewhere between process start-up and a few stores in.
    std::this_thread::sleep_for(std::chrono::microseconds(R() % 40000));
    for (pid_t Pid : Pids)
      ::kill(Pid, SIGKILL);
    for (pid_t Pid : Pids) {
      int Status = 0;
      ASSERT_EQ(::waitpid(Pid, &Status, 0), Pid);
      // A worker that finished on its own found a wrong entry or failed a store.
      if (WIFEXITED(Status))
        ADD_FAILURE() << "worker exited with " << WEXITSTATUS(Status);
      else
        Killed += WTERMSIG(Status) == SIGKILL;
    }
    // Stores the kill interrupted: their temporaries are still there.
    std::error_code EC;
    for (auto It = std::filesystem::recursive_directory_iterator(path("cache"), EC);
         !EC && It != std::filesystem::recursive_directory_iterator(); It.increment(EC))
      Interrupted += It->path().filename().string().starts_with(".tmp-");
    // Between rounds, as another process would: nothing wrong is ever returned.
    checkAll(*C, Keys);
  }
  EXPECT_EQ(Killed, Rounds * WritersPerRound);
  EXPECT_EQ(W.count(WarningKind::CorruptEntry), 0u);

  // The next store cleans the interrupted temporaries of its shard, verify all the others.
  auto V = C->verify();
  ASSERT_TRUE(bool(V)) << llvm::toString(V.takeError());
  EXPECT_EQ(V->Corrupt, 0u);
  for (const std::string &P : V->Problems)
    ADD_FAILURE() << P;
  std::cout << "[          ] " << Killed << " writers killed, " << Interrupted
            << " of them in the middle of a store; " << V->Checked << " entries verified; "
            << V->TempFilesRemoved << " interrupted temporaries removed\n";
  uint64_t Files = 0;
  shardUsage(path("cache"), &Files);
  EXPECT_EQ(Files, V->Checked); // no temporary file left behind
  unsigned Hits = checkAll(*C, Keys);
  EXPECT_EQ(Hits, V->Checked);
  // And the cache keeps working. A writer killed between its rename and its eviction pass can
  // leave the layer over the cap (crash safety, not the bound, is what a kill may not break);
  // the next store evicts back under it.
  ASSERT_EQ(C->store(makeKey(Keys + 1), expectedEntry(Keys + 1)), StoreResult::Stored);
  EXPECT_EQ(valueOf(*C, makeKey(Keys + 1)), expectedEntry(Keys + 1));
  EXPECT_LE(shardUsage(path("cache")), Cap + Cap / 100);
}

} // namespace
