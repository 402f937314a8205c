// `reptx cache` end to end: the commands run as a user would, on a cache the library filled.
#include "CacheTestUtil.h"

#include <sys/wait.h>

using namespace reptx::cache;
using namespace reptx::cache::test;

namespace {

class ToolTest : public TempDirTest {
protected:
  struct Result {
    int Exit = -1;
    std::string Output; // stdout and stderr
  };

  /// Runs `reptx cache ARGS` with the cache at Dir/cache and no other configuration.
  Result run(const std::string &Args, const std::string &ExtraEnv = "") {
    std::string Cmd = "env -i PATH=/usr/bin:/bin ASAN_OPTIONS=detect_leaks=0 REPTX_CACHE_PATH='" +
                      path("cache") + "' " + ExtraEnv + " '" + REPTX_TOOL + "' cache " + Args +
                      " 2>&1";
    Result R;
    FILE *P = ::popen(Cmd.c_str(), "r");
    if (!P)
      return R;
    char Buf[4096];
    size_t N;
    while ((N = std::fread(Buf, 1, sizeof Buf, P)) > 0)
      R.Output.append(Buf, N);
    int Status = ::pclose(P);
    R.Exit = WIFEXITED(Status) ? WEXITSTATUS(Status) : -1;
    return R;
  }

  void fill(unsigned N) {
    auto C = open(writableConfig());
    for (unsigned I = 0; I < N; ++I)
      ASSERT_EQ(C->store(makeKey(I), makeEntry(I, 3000 + I * 100)), StoreResult::Stored);
  }
};

TEST_F(ToolTest, StatsListVerifyPruneClear) {
  fill(5);
  Result R = run("stats");
  EXPECT_EQ(R.Exit, 0) << R.Output;
  EXPECT_NE(R.Output.find("cache directory     " + path("cache")), std::string::npos) << R.Output;
  EXPECT_NE(R.Output.find("entries           5"), std::string::npos) << R.Output;
  EXPECT_NE(R.Output.find("of 4.0 GiB cap"), std::string::npos) << R.Output;

  R = run("stats --json");
  EXPECT_EQ(R.Exit, 0);
  EXPECT_NE(R.Output.find("\"entries\": 5"), std::string::npos) << R.Output;

  R = run("list");
  EXPECT_EQ(R.Exit, 0);
  EXPECT_NE(R.Output.find(makeKey(3).digest().hex()), std::string::npos) << R.Output;
  EXPECT_NE(R.Output.find("gfx942:sramecc+:xnack- w64 cov5"), std::string::npos) << R.Output;

  R = run("verify");
  EXPECT_EQ(R.Exit, 0) << R.Output;
  EXPECT_NE(R.Output.find("checked 5 entries: 0 corrupt"), std::string::npos) << R.Output;

  // Damage one entry: verify reports it, removes it and exits 2; the next verify is clean.
  std::string P = entryPath(path("cache"), makeKey(2));
  std::string B = readFile(P);
  B[B.size() - 1] ^= 1;
  writeFile(P, B);
  R = run("verify");
  EXPECT_EQ(R.Exit, 2) << R.Output;
  EXPECT_NE(R.Output.find("payload checksum mismatch; removed"), std::string::npos) << R.Output;
  EXPECT_EQ(run("verify").Exit, 0);

  R = run("prune --max-size 8k");
  EXPECT_EQ(R.Exit, 0) << R.Output;
  EXPECT_LE(shardUsage(path("cache")), 8192u);
  EXPECT_EQ(run("prune --max-size lots").Exit, 1);

  R = run("clear");
  EXPECT_EQ(R.Exit, 0) << R.Output;
  EXPECT_EQ(shardUsage(path("cache")), 0u);
}

TEST_F(ToolTest, ExportImportRoundTrip) {
  fill(6);
  std::string Archive = path("cache.rxa");
  Result R = run("export '" + Archive + "'");
  EXPECT_EQ(R.Exit, 0) << R.Output;
  EXPECT_NE(R.Output.find("exported 6 entries"), std::string::npos) << R.Output;
  std::vector<std::string> Before;
  for (unsigned I = 0; I < 6; ++I)
    Before.push_back(readFile(entryPath(path("cache"), makeKey(I))));

  EXPECT_EQ(run("clear").Exit, 0);
  R = run("import '" + Archive + "'");
  EXPECT_EQ(R.Exit, 0) << R.Output;
  EXPECT_NE(R.Output.find("imported 6 entries"), std::string::npos) << R.Output;
  // Headers intact: the files are byte for byte what they were.
  for (unsigned I = 0; I < 6; ++I)
    EXPECT_TRUE(readFile(entryPath(path("cache"), makeKey(I))) == Before[I]) << I;
  auto C = open(writableConfig());
  auto H = C->lookup(makeKey(4));
  ASSERT_TRUE(H);
  EXPECT_TRUE(H->Value == makeEntry(4, 3400));

  // A damaged archive imports nothing.
  std::string A = readFile(Archive);
  for (size_t Pos : {size_t(3), A.size() / 2, A.size() - 1}) {
    std::string Bad = A;
    Bad[Pos] ^= 0x10;
    writeFile(Archive, Bad);
    EXPECT_EQ(run("clear").Exit, 0);
    R = run("import '" + Archive + "'");
    EXPECT_EQ(R.Exit, 2) << R.Output;
    EXPECT_NE(R.Output.find("not a valid reptx cache archive"), std::string::npos) << R.Output;
    EXPECT_EQ(shardUsage(path("cache")), 0u);
  }
  writeFile(Archive, A.substr(0, A.size() - 20));
  R = run("import '" + Archive + "'");
  EXPECT_EQ(R.Exit, 2) << R.Output;
}

TEST_F(ToolTest, EnvironmentErrorsAndTheDisableSwitch) {
  Result R = run("stats", "REPTX_CACHE_MAXSIZE=lots");
  EXPECT_EQ(R.Exit, 1);
  EXPECT_NE(R.Output.find("REPTX_CACHE_MAXSIZE"), std::string::npos) << R.Output;
  fill(1);
  R = run("stats", "REPTX_CACHE_DISABLE=1");
  EXPECT_EQ(R.Exit, 0) << R.Output;
  EXPECT_NE(R.Output.find("REPTX_CACHE_DISABLE is set"), std::string::npos) << R.Output;
  EXPECT_NE(R.Output.find("entries           1"), std::string::npos) << R.Output;
  R = run("bogus");
  EXPECT_EQ(R.Exit, 1);
}

} // namespace
