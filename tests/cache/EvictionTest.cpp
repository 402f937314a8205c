// Size bounds: a small cap overfilled with incompressible entries of random sizes must hold the
// writable layer within 1% of the cap after every store, evicting least recently used first.
#include "CacheTestUtil.h"

#include <chrono>
#include <thread>

using namespace reptx::cache;
using namespace reptx::cache::test;

namespace {

class EvictionTest : public TempDirTest {};

constexpr uint64_t Cap = 1 << 20;

TEST_F(EvictionTest, OverfilledCacheStaysWithinOnePercentOfTheCap) {
  Warnings W;
  auto C = open(writableConfig("cache", Cap), &W);
  std::mt19937 R(42);
  uint64_t Stored = 0, MaxSeen = 0;
  for (unsigned I = 0; I < 200; ++I) {
    size_t Size = 1000 + R() % 20000;
    ASSERT_EQ(C->store(makeKey(I), makeEntry(I, Size)), StoreResult::Stored);
    Stored += Size;
    uint64_t Usage = shardUsage(path("cache"));
    MaxSeen = std::max(MaxSeen, Usage);
    ASSERT_LE(Usage, Cap + Cap / 100) << "after store " << I;
  }
  EXPECT_GT(Stored, 2 * Cap); // the cap really was overfilled
  uint64_t Files = 0, Usage = shardUsage(path("cache"), &Files);
  EXPECT_LT(Files, 200u);
  // Eviction goes down to 95%, not further: the cache stays useful.
  EXPECT_GE(MaxSeen, Cap * 9 / 10);
  EXPECT_GE(Usage, Cap * 9 / 10 - 24 * 1024);
  // The newest entry survived, the oldest did not.
  EXPECT_TRUE(C->lookup(makeKey(199)));
  EXPECT_FALSE(C->lookup(makeKey(0)));
  auto S = C->stats();
  ASSERT_TRUE(bool(S));
  EXPECT_EQ(S->Layers[0].DiskBytes, Usage);
  EXPECT_EQ(S->Layers[0].Entries, Files);
  EXPECT_TRUE(W.All.empty());
}

TEST_F(EvictionTest, RecentlyHitEntriesAreEvictedLast) {
  auto C = open(writableConfig("cache", Cap));
  // 100 entries of 8 KiB on disk: 800 KiB, under the cap.
  for (unsigned I = 0; I < 100; ++I)
    ASSERT_EQ(C->store(makeKey(I), makeEntry(I, 7000)), StoreResult::Stored);
  EXPECT_EQ(shardUsage(path("cache")), 100u * 8192);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_TRUE(C->lookup(makeKey(0))); // now the most recently used of the first hundred
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  // 40 more: over the cap, so the oldest go.
  for (unsigned I = 100; I < 140; ++I)
    ASSERT_EQ(C->store(makeKey(I), makeEntry(I, 7000)), StoreResult::Stored);
  EXPECT_LE(shardUsage(path("cache")), Cap);
  EXPECT_TRUE(C->lookup(makeKey(0)));
  EXPECT_FALSE(C->lookup(makeKey(1)));
  EXPECT_TRUE(C->lookup(makeKey(139)));
}

TEST_F(EvictionTest, PruneAndClear) {
  auto C = open(writableConfig("cache", Cap));
  for (unsigned I = 0; I < 50; ++I)
    ASSERT_EQ(C->store(makeKey(I), makeEntry(I, 7000)), StoreResult::Stored);
  auto P = C->prune(200 * 1024);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  EXPECT_EQ(P->BytesBefore, 50u * 8192);
  EXPECT_LE(P->BytesAfter, 200u * 1024);
  EXPECT_EQ(P->Evicted, 50u - P->BytesAfter / 8192);
  EXPECT_EQ(shardUsage(path("cache")), P->BytesAfter);
  EXPECT_TRUE(C->lookup(makeKey(49)));
  auto Cl = C->clear();
  ASSERT_TRUE(bool(Cl));
  EXPECT_EQ(Cl->Bytes, P->BytesAfter);
  EXPECT_EQ(shardUsage(path("cache")), 0u);
  EXPECT_FALSE(C->lookup(makeKey(49)));
}

} // namespace
