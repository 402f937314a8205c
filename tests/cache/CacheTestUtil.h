// Shared helpers of the cache tests: a private temporary directory per test, deterministic keys
// and entries, a warning recorder and an independent measure of a cache directory's size.
#pragma once

#include "reptx/cache/Cache.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

namespace reptx::cache {
/// Failures print a summary, not hundreds of KiB of bytes.
inline void PrintTo(const Entry &E, std::ostream *OS) {
  *OS << "Entry{" << E.CodeObject.size() << " code bytes, " << E.Kernels.size() << " kernels}";
}
} // namespace reptx::cache

namespace reptx::cache::test {

/// Incompressible bytes, the same for the same seed.
inline std::string randomBytes(size_t N, uint64_t Seed) {
  std::mt19937_64 R(Seed * 0x9E3779B97F4A7C15ull + 1);
  std::string S(N, '\0');
  for (size_t I = 0; I < N; I += 8) {
    uint64_t V = R();
    for (size_t J = 0; J < 8 && I + J < N; ++J)
      S[I + J] = char(V >> (8 * J));
  }
  return S;
}

inline Key makeKey(unsigned I, llvm::StringRef Arch = "gfx942") {
  Key K;
  K.setPtx(".version 9.1\n.target sm_80\n// module " + std::to_string(I) + "\n");
  K.PtxasOptions = "-O3";
  K.Arch = Arch.str();
  K.Features = {"sramecc+", "xnack-"};
  K.WaveSize = 64;
  K.WaveMode = "warp-per-wave";
  K.CodeObjectVersion = 5;
  K.Options = {{"opt-level", "3"}};
  K.Compiler = {"0.1.0", "0123456789abcdef", "22.1.0", "helper-hash"};
  return K;
}

/// A module entry of Size code-object bytes (incompressible) and a few kernels.
inline Entry makeEntry(unsigned I, size_t Size) {
  Entry E;
  E.CodeObject = randomBytes(Size, I);
  for (unsigned K = 0; K < 3; ++K)
    E.Kernels.push_back(
        {"kernel_" + std::to_string(I) + "_" + std::to_string(K), "info" + std::to_string(K)});
  E.sortKernels();
  return E;
}

struct Warnings {
  std::vector<Warning> All;
  WarningHandler handler() {
    return [this](const Warning &W) { All.push_back(W); };
  }
  size_t count(WarningKind K) const {
    size_t N = 0;
    for (const Warning &W : All)
      N += W.Kind == K;
    return N;
  }
  void clear() { All.clear(); }
};

/// A fresh directory under TMPDIR (default /tmp), removed after the test.
class TempDirTest : public ::testing::Test {
protected:
  void SetUp() override {
    const char *T = std::getenv("TMPDIR");
    std::string Templ = std::string(T && *T ? T : "/tmp") + "/reptx-cache-test-XXXXXX";
    ASSERT_NE(::mkdtemp(Templ.data()), nullptr);
    Dir = Templ;
  }
  void TearDown() override {
    std::error_code EC;
    std::filesystem::remove_all(Dir, EC);
  }
  std::string path(const std::string &Rel) const { return Dir + "/" + Rel; }

  /// A config with only a writable layer at Dir/Sub.
  Config writableConfig(const std::string &Sub = "cache", uint64_t MaxSize = 0) const {
    Config C;
    C.WritablePath = path(Sub);
    C.MaxSize = MaxSize;
    return C;
  }

  std::unique_ptr<Cache> open(const Config &C, Warnings *W = nullptr) {
    auto Cc = Cache::open(C, W ? W->handler() : nullptr);
    if (!Cc) {
      ADD_FAILURE() << llvm::toString(Cc.takeError());
      return nullptr;
    }
    return std::move(*Cc);
  }

  std::string Dir;
};

/// The entry a lookup finds, or nullopt.
inline std::optional<Entry> valueOf(Cache &C, const Key &K) {
  auto H = C.lookup(K);
  return H ? std::optional<Entry>(std::move(H->Value)) : std::nullopt;
}

/// Path of the entry file of K in the layer rooted at Root.
inline std::string entryPath(const std::string &Root, const Key &K) {
  std::string Hex = K.digest().hex();
  return Root + "/" + Hex.substr(0, 2) + "/" + Hex + ".rxc";
}

/// Disk usage of everything inside a layer's shard directories as the cap counts it (file sizes
/// rounded up to 4 KiB), measured without the library.
inline uint64_t shardUsage(const std::string &Root, uint64_t *Files = nullptr) {
  uint64_t Total = 0, N = 0;
  std::error_code EC;
  for (auto It = std::filesystem::recursive_directory_iterator(Root, EC);
       !EC && It != std::filesystem::recursive_directory_iterator(); It.increment(EC)) {
    if (It.depth() == 1 && It->is_regular_file()) {
      Total += (It->file_size() + 4095) / 4096 * 4096;
      ++N;
    }
  }
  if (Files)
    *Files = N;
  return Total;
}

inline std::string readFile(const std::string &P) {
  std::string S;
  FILE *F = std::fopen(P.c_str(), "rb");
  if (!F)
    return S;
  char Buf[65536];
  size_t N;
  while ((N = std::fread(Buf, 1, sizeof Buf, F)) > 0)
    S.append(Buf, N);
  std::fclose(F);
  return S;
}

inline void writeFile(const std::string &P, llvm::StringRef Bytes) {
  FILE *F = std::fopen(P.c_str(), "wb");
  ASSERT_NE(F, nullptr) << P;
  ASSERT_EQ(std::fwrite(Bytes.data(), 1, Bytes.size(), F), Bytes.size());
  std::fclose(F);
}

} // namespace reptx::cache::test
