// Cache keys (canonical serialization, digests, strict parsing), the entry file format and the
// environment configuration.
#include "CacheTestUtil.h"

#include <map>
#include <set>

using namespace reptx::cache;
using namespace reptx::cache::test;

namespace {

TEST(CacheKey, SerializationRoundTripsAndIsCanonical) {
  Key K = makeKey(1);
  K.PtxasOptions = std::string("-O3 --maxrregcount=32\n=%\x01\xff", 26);
  K.Options = {{"z", "1"}, {"a=b", "x\ny"}};
  K.Kernel = "kern%el";
  std::string S = K.serialize();
  auto P = Key::parse(S);
  ASSERT_TRUE(bool(P)) << llvm::toString(P.takeError());
  EXPECT_EQ(P->serialize(), S);
  EXPECT_EQ(P->PtxasOptions, K.PtxasOptions);
  EXPECT_EQ(P->Kernel, "kern%el");
  EXPECT_EQ(P->digest(), K.digest());
  // One line per field, nothing unescaped that could break the structure.
  for (char C : S)
    EXPECT_TRUE(C == '\n' || (C >= 0x20 && C < 0x7f));
}

TEST(CacheKey, OrderOfFeaturesAndOptionsDoesNotMatter) {
  Key A = makeKey(1), B = makeKey(1);
  A.Features = {"xnack-", "sramecc+"};
  B.Features = {"sramecc+", "xnack-"};
  A.Options = {{"b", "2"}, {"a", "1"}};
  B.Options = {{"a", "1"}, {"b", "2"}};
  EXPECT_EQ(A.serialize(), B.serialize());
  EXPECT_EQ(A.digest(), B.digest());
}

TEST(CacheKey, EveryFieldChangesTheDigest) {
  std::vector<std::function<void(Key &)>> Mutations = {
      [](Key &K) { K.setPtx("other text"); },
      [](Key &K) { K.PtxSize += 1; },
      [](Key &K) { K.PtxasOptions = "-O2"; },
      [](Key &K) { K.Arch = "gfx90a"; },
      [](Key &K) {
        K.Features = {"sramecc+", "xnack+"};
      },
      [](Key &K) { K.Features = {"sramecc+"}; },
      [](Key &K) { K.WaveSize = 32; },
      [](Key &K) { K.WaveMode = "two-warps-per-wave"; },
      [](Key &K) { K.CodeObjectVersion = 6; },
      [](Key &K) {
        K.Options = {{"opt-level", "2"}};
      },
      [](Key &K) {
        K.Options.push_back({"fast-math", "1"});
      },
      [](Key &K) { K.Kernel = "one_kernel"; },
      [](Key &K) { K.Compiler.ReptxVersion = "0.1.1"; },
      [](Key &K) { K.Compiler.BuildId = "fedcba9876543210"; },
      [](Key &K) { K.Compiler.LLVMVersion = "22.1.1"; },
      [](Key &K) { K.Compiler.HelperLibraryHash = "other"; },
  };
  std::set<Digest> Seen = {makeKey(1).digest()};
  for (size_t I = 0; I < Mutations.size(); ++I) {
    Key K = makeKey(1);
    Mutations[I](K);
    EXPECT_TRUE(Seen.insert(K.digest()).second) << "mutation " << I;
  }
}

TEST(CacheKey, ParseRejectsAnythingNotCanonical) {
  std::string S = makeKey(1).serialize();
  auto Rejects = [](const std::string &T) {
    auto P = Key::parse(T);
    if (P)
      return false;
    llvm::consumeError(P.takeError());
    return true;
  };
  EXPECT_FALSE(Rejects(S));
  EXPECT_TRUE(Rejects(S.substr(0, S.size() - 1))); // no final newline
  EXPECT_TRUE(Rejects(S + "extra=1\n"));           // unknown trailing field
  EXPECT_TRUE(Rejects("reptx-cache-key=2\n" + S.substr(S.find('\n') + 1))); // other version
  std::string Unsorted = S;
  const std::string Sorted = "target.feature=sramecc+\ntarget.feature=xnack-\n";
  size_t F = Unsorted.find(Sorted);
  ASSERT_NE(F, std::string::npos);
  Unsorted.replace(F, Sorted.size(), "target.feature=xnack-\ntarget.feature=sramecc+\n");
  EXPECT_TRUE(Rejects(Unsorted)); // features out of order
  Key E = makeKey(1);
  E.PtxasOptions = "\n";
  std::string Esc = E.serialize();
  size_t At = Esc.find("%0A");
  ASSERT_NE(At, std::string::npos);
  Esc[At + 2] = 'a';
  EXPECT_TRUE(Rejects(Esc)); // a second spelling of the same byte
  EXPECT_TRUE(Rejects(""));
}

TEST(CacheKey, DigestHex) {
  Digest D{0x0123456789abcdefull, 0xfedcba9876543210ull};
  EXPECT_EQ(D.hex(), "0123456789abcdeffedcba9876543210");
  EXPECT_EQ(Digest::fromHex(D.hex()), D);
  EXPECT_FALSE(Digest::fromHex("0123456789ABCDEFfedcba9876543210")); // one spelling only
  EXPECT_FALSE(Digest::fromHex("0123"));
  uint8_t B[16];
  D.toBytes(B);
  EXPECT_EQ(B[0], 0x01);
  EXPECT_EQ(Digest::fromBytes(B), D);
  EXPECT_EQ(hashBytes("abc"), hashBytes("abc"));
  EXPECT_NE(hashBytes("abc"), hashBytes("abd"));
}

TEST(CacheKey, CompilerIdentityHelpers) {
  EXPECT_TRUE(llvm::StringRef(llvmVersion()).starts_with("22."));
  // The test binary is linked with a build-id on Debian's toolchain; an object without one
  // answers nullopt rather than failing.
  std::optional<std::string> Id = buildIdOf(reinterpret_cast<const void *>(&llvmVersion));
  if (Id)
    EXPECT_GE(Id->size(), 16u);
}

TEST(CacheEntryFormat, EncodeDecode) {
  Key K = makeKey(3);
  Entry E = makeEntry(3, 5000);
  auto File = encodeEntryFile(K, E);
  ASSERT_TRUE(bool(File)) << llvm::toString(File.takeError());
  auto D = validateEntryFile(*File);
  ASSERT_TRUE(bool(D)) << llvm::toString(D.takeError());
  EXPECT_EQ(*D, K.digest());
  auto H = parseEntryHeader(*File, File->size());
  ASSERT_TRUE(bool(H));
  EXPECT_EQ(H->KeyText, K.serialize());
  auto Back = decodeEntryPayload(*File, *H);
  ASSERT_TRUE(bool(Back));
  EXPECT_EQ(*Back, E);
  ASSERT_NE(Back->findKernel("kernel_3_1"), nullptr);
  EXPECT_EQ(Back->findKernel("kernel_3_1")->Info, "info1");
  EXPECT_EQ(Back->findKernel("nope"), nullptr);
}

TEST(CacheEntryFormat, PayloadDecodingIsBoundsChecked) {
  Entry E = makeEntry(4, 100);
  std::string P = encodePayload(E);
  for (size_t N = 0; N < P.size(); ++N) {
    auto D = decodePayload(P.substr(0, N));
    EXPECT_FALSE(bool(D)) << N;
    llvm::consumeError(D.takeError());
  }
  auto D = decodePayload(P + "x");
  EXPECT_FALSE(bool(D));
  llvm::consumeError(D.takeError());
}

//===----------------------------------------------------------------------===//
// Configuration
//===----------------------------------------------------------------------===//

llvm::Expected<Config> configFrom(const std::map<std::string, std::string> &Env) {
  return configFromEnvironment([&](llvm::StringRef N) -> std::optional<std::string> {
    auto It = Env.find(N.str());
    return It == Env.end() ? std::nullopt : std::optional<std::string>(It->second);
  });
}

TEST(CacheConfig, Defaults) {
  auto C = configFrom({{"HOME", "/home/u"}});
  ASSERT_TRUE(bool(C));
  EXPECT_TRUE(C->Enabled);
  EXPECT_EQ(C->WritablePath, "/home/u/.cache/reptx");
  EXPECT_TRUE(C->ReadOnlyPaths.empty());
  EXPECT_EQ(C->MaxSize, DefaultMaxSize);

  C = configFrom({{"HOME", "/home/u"}, {"XDG_CACHE_HOME", "/xdg"}});
  ASSERT_TRUE(bool(C));
  EXPECT_EQ(C->WritablePath, "/xdg/reptx");
  // A relative XDG_CACHE_HOME is invalid by the spec and ignored.
  C = configFrom({{"HOME", "/home/u"}, {"XDG_CACHE_HOME", "rel"}});
  ASSERT_TRUE(bool(C));
  EXPECT_EQ(C->WritablePath, "/home/u/.cache/reptx");
  C = configFrom({});
  ASSERT_TRUE(bool(C));
  EXPECT_EQ(C->WritablePath, "");
}

TEST(CacheConfig, Overrides) {
  auto C = configFrom({{"HOME", "/home/u"},
                       {"XDG_CACHE_HOME", "/xdg"},
                       {"REPTX_CACHE_PATH", "/c"},
                       {"REPTX_CACHE_READONLY_PATHS", "/ro1::/ro2:"},
                       {"REPTX_CACHE_MAXSIZE", "512M"},
                       {"REPTX_CACHE_DISABLE", "0"}});
  ASSERT_TRUE(bool(C)) << llvm::toString(C.takeError());
  EXPECT_TRUE(C->Enabled);
  EXPECT_EQ(C->WritablePath, "/c");
  EXPECT_EQ(C->ReadOnlyPaths, (std::vector<std::string>{"/ro1", "/ro2"}));
  EXPECT_EQ(C->MaxSize, 512ull << 20);
  for (const char *V : {"1", "true", "YES", "on"}) {
    C = configFrom({{"REPTX_CACHE_DISABLE", V}});
    ASSERT_TRUE(bool(C));
    EXPECT_FALSE(C->Enabled) << V;
  }
}

TEST(CacheConfig, Errors) {
  for (auto Env : std::vector<std::map<std::string, std::string>>{
           {{"REPTX_CACHE_DISABLE", "maybe"}},
           {{"REPTX_CACHE_PATH", "relative/dir"}},
           {{"REPTX_CACHE_READONLY_PATHS", "/ok:relative"}},
           {{"REPTX_CACHE_MAXSIZE", "lots"}},
           {{"REPTX_CACHE_MAXSIZE", "5X"}},
           {{"REPTX_CACHE_MAXSIZE", "99999999999T"}}}) {
    auto C = configFrom(Env);
    ASSERT_FALSE(bool(C)) << Env.begin()->first << "=" << Env.begin()->second;
    std::string Msg = llvm::toString(C.takeError());
    EXPECT_NE(Msg.find(Env.begin()->first), std::string::npos) << Msg;
  }
}

TEST(CacheConfig, Sizes) {
  std::vector<std::pair<std::string, uint64_t>> Good = {
      {"0", 0},           {"123", 123},          {"4k", 4096},    {"4K", 4096},
      {"4KiB", 4096},     {"4kb", 4096},         {"1M", 1 << 20}, {"2G", 2ull << 30},
      {"1T", 1ull << 40}, {" 3 G ", 3ull << 30}, {"10B", 10}};
  for (auto &[S, V] : Good) {
    auto N = parseSize(S);
    ASSERT_TRUE(bool(N)) << S << ": " << llvm::toString(N.takeError());
    EXPECT_EQ(*N, V) << S;
  }
  for (const char *S : {"", "G", "1.5G", "-1", "1Q", "1Gx", "1 GB B"}) {
    auto N = parseSize(S);
    EXPECT_FALSE(bool(N)) << S;
    llvm::consumeError(N.takeError());
  }
  EXPECT_EQ(formatSize(100), "100 B");
  EXPECT_EQ(formatSize(1536), "1.5 KiB");
  EXPECT_EQ(formatSize(4ull << 30), "4.0 GiB");
}

} // namespace
