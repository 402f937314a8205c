// Damaged entries: bit flips anywhere, truncation, zero-length files, a valid entry renamed to
// another key's name. Each must be detected, never returned, removed from the writable layer and
// reported with exactly one warning; verify must find and remove the same damage.
#include "CacheTestUtil.h"

#include <sys/stat.h>

using namespace reptx::cache;
using namespace reptx::cache::test;

namespace {

class CorruptionTest : public TempDirTest {
protected:
  void SetUp() override {
    TempDirTest::SetUp();
    C = open(writableConfig(), &W);
    ASSERT_TRUE(C);
    ASSERT_EQ(C->store(K, E), StoreResult::Stored);
    P = entryPath(path("cache"), K);
    Good = readFile(P);
    ASSERT_FALSE(Good.empty());
    auto H = parseEntryHeader(Good, Good.size());
    ASSERT_TRUE(bool(H));
    HeaderSize = H->HeaderSize;
  }

  bool exists() const {
    struct stat St;
    return ::lstat(P.c_str(), &St) == 0;
  }

  /// Writes Bytes as K's entry and expects a miss, one CorruptEntry warning and the file gone.
  void expectRejected(const std::string &Bytes, const std::string &What) {
    writeFile(P, Bytes);
    W.clear();
    auto H = C->lookup(K);
    EXPECT_FALSE(H) << What;
    EXPECT_EQ(W.All.size(), 1u) << What;
    EXPECT_EQ(W.count(WarningKind::CorruptEntry), 1u) << What;
    EXPECT_FALSE(exists()) << What;
  }

  Warnings W;
  std::unique_ptr<Cache> C;
  Key K = makeKey(1);
  // Half incompressible, half repetitive, so the payload is a real zstd frame with both kinds of
  // blocks.
  Entry E = [] {
    Entry X = makeEntry(1, 16 * 1024);
    X.CodeObject += std::string(16 * 1024, 'a');
    return X;
  }();
  std::string P, Good;
  uint64_t HeaderSize = 0;
};

TEST_F(CorruptionTest, EveryHeaderBitFlipAndSampledPayloadFlipsAreDetected) {
  std::vector<size_t> Positions;
  for (size_t I = 0; I < HeaderSize; ++I)
    Positions.push_back(I);
  std::mt19937 R(1);
  for (int I = 0; I < 96; ++I)
    Positions.push_back(HeaderSize + R() % (Good.size() - HeaderSize));
  Positions.push_back(Good.size() - 1);
  for (size_t Pos : Positions) {
    std::string Bad = Good;
    Bad[Pos] ^= char(1u << (Pos % 8));
    expectRejected(Bad, "bit flip at byte " + std::to_string(Pos));
  }
  // The intact bytes still read back.
  writeFile(P, Good);
  auto H = C->lookup(K);
  ASSERT_TRUE(H);
  EXPECT_EQ(H->Value, E);
}

TEST_F(CorruptionTest, TruncationAtAnyPointIsDetected) {
  std::vector<size_t> Cuts = {1,
                              7,
                              8,
                              63,
                              64,
                              HeaderSize - 9,
                              HeaderSize - 8,
                              HeaderSize - 1,
                              HeaderSize,
                              HeaderSize + 1,
                              Good.size() / 2,
                              Good.size() - 1};
  for (size_t N : Cuts)
    expectRejected(Good.substr(0, N), "truncated to " + std::to_string(N));
  expectRejected(Good + "x", "one byte appended");
}

TEST_F(CorruptionTest, ZeroLengthFileIsDetected) { expectRejected("", "empty file"); }

TEST_F(CorruptionTest, EntryRenamedToAnotherKeysNameIsDetected) {
  Key K2 = makeKey(2);
  std::string P2 = entryPath(path("cache"), K2);
  std::filesystem::create_directories(std::filesystem::path(P2).parent_path());
  // K's valid file under K2's name.
  ASSERT_EQ(::rename(P.c_str(), P2.c_str()), 0);
  W.clear();
  EXPECT_FALSE(C->lookup(K2));
  EXPECT_EQ(W.count(WarningKind::CorruptEntry), 1u);
  EXPECT_NE(W.All[0].Message.find("another key"), std::string::npos) << W.All[0].Message;
  struct stat St;
  EXPECT_NE(::lstat(P2.c_str(), &St), 0);
  // K itself now misses quietly: its file is simply gone.
  W.clear();
  EXPECT_FALSE(C->lookup(K));
  EXPECT_TRUE(W.All.empty());
}

TEST_F(CorruptionTest, VerifyFindsAndRemovesEveryKindOfDamage) {
  // Five more entries, then damage four of the six in different ways.
  for (unsigned I = 2; I <= 6; ++I)
    ASSERT_EQ(C->store(makeKey(I), makeEntry(I, 5000)), StoreResult::Stored);
  auto Damage = [&](unsigned I, const std::function<void(std::string &)> &Fn) {
    std::string Q = entryPath(path("cache"), makeKey(I));
    std::string B = readFile(Q);
    Fn(B);
    writeFile(Q, B);
  };
  Damage(2, [](std::string &B) { B[B.size() - 3] ^= 0x40; });
  Damage(3, [](std::string &B) { B.resize(B.size() / 2); });
  Damage(4, [](std::string &B) { B.clear(); });
  // Entry 5's bytes under entry 6's name.
  ::rename(entryPath(path("cache"), makeKey(5)).c_str(),
           entryPath(path("cache"), makeKey(6)).c_str());
  // Leftovers that are not entries.
  std::string Shard = std::filesystem::path(P).parent_path();
  writeFile(Shard + "/stray.txt", "hello");
  ASSERT_EQ(::symlink("/etc/passwd", (Shard + "/link").c_str()), 0);
  writeFile(Shard + "/.tmp-dead-1-1", "partial"); // an interrupted store (nobody holds its lock)

  auto V = C->verify();
  ASSERT_TRUE(bool(V)) << llvm::toString(V.takeError());
  EXPECT_EQ(V->Checked, 5u); // 1, 2, 3, 4, 6
  EXPECT_EQ(V->Corrupt, 4u);
  EXPECT_EQ(V->Removed, 4u);
  EXPECT_EQ(V->StrayRemoved, 2u);
  EXPECT_EQ(V->TempFilesRemoved, 1u);
  EXPECT_EQ(V->Problems.size(), 6u);

  V = C->verify();
  ASSERT_TRUE(bool(V));
  EXPECT_EQ(V->Checked, 1u);
  EXPECT_EQ(V->Corrupt, 0u);
  EXPECT_TRUE(V->Problems.empty());
  EXPECT_EQ(valueOf(*C, K), E);
}

} // namespace
