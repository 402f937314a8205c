// Cache-hit latency: one lookup of a module-sized entry (a 200 KiB code object with a 50-kernel
// index) from the writable layer and from a read-only layer, page cache warm, including every
// check a lookup makes (header checksum, key comparison, payload checksum, decompression) and, in
// the writable layer, the mtime update that keeps the LRU order. A miss and a store are measured
// for context, and as a baseline the bare read and decompression of the same file. The cold
// compile this is to be compared against waits for the compiler.
// REPTX_BENCH_CODE_OBJECT=FILE measures with a real code object instead of the synthetic one.
// Run with --benchmark_repetitions=20 --benchmark_report_aggregates_only=true for medians.
#include "reptx/cache/Cache.h"

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <random>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

using namespace reptx::cache;

namespace {

/// Bytes with roughly the statistics of AMDGPU machine code: 32-bit words drawn with a skewed
/// distribution from a few thousand distinct encodings, one in eight a random literal.
std::string codeObjectLike(size_t Size) {
  std::mt19937_64 R(1);
  std::vector<uint32_t> Vocabulary(4096);
  for (uint32_t &W : Vocabulary)
    W = uint32_t(R());
  std::string S;
  S.reserve(Size);
  while (S.size() < Size) {
    uint32_t W;
    if (R() % 8 == 0) {
      W = uint32_t(R());
    } else {
      // Skewed: low indices (common instructions) far more often than high ones.
      double U = std::uniform_real_distribution<double>(0, 1)(R);
      W = Vocabulary[size_t(U * U * U * Vocabulary.size())];
    }
    S.append(reinterpret_cast<const char *>(&W), 4);
  }
  S.resize(Size);
  return S;
}

Key moduleKey(unsigned I) {
  Key K;
  K.setPtx("module " + std::to_string(I));
  K.PtxasOptions = "-O3";
  K.Arch = "gfx942";
  K.Features = {"sramecc+", "xnack-"};
  K.WaveSize = 64;
  K.WaveMode = "warp-per-wave";
  K.CodeObjectVersion = 5;
  K.Compiler = {"0.1.0", "0123456789abcdef0123456789abcdef01234567", llvmVersion(), "0"};
  return K;
}

/// REPTX_BENCH_CODE_OBJECT names a real code object to use instead of the synthetic one.
Entry moduleEntry() {
  Entry E;
  if (const char *P = std::getenv("REPTX_BENCH_CODE_OBJECT")) {
    std::ifstream In(P, std::ios::binary);
    E.CodeObject.assign(std::istreambuf_iterator<char>(In), {});
  } else {
    E.CodeObject = codeObjectLike(200 * 1024);
  }
  for (unsigned I = 0; I < 50; ++I)
    E.Kernels.push_back({"_Z12kernel_" + std::to_string(I) + "PfPKfS1_i",
                         std::string(64, char(I))}); // a descriptor-sized blob each
  E.sortKernels();
  return E;
}

struct Fixture {
  std::string Dir;
  std::unique_ptr<Cache> Writable; // entry in the writable layer
  std::unique_ptr<Cache> ReadOnly; // entry in a read-only layer, nothing writable
  Entry Value = moduleEntry();
  uint64_t FileSize = 0;
  std::string RawFile; // the entry file's bytes

  Fixture() {
    const char *T = std::getenv("TMPDIR");
    std::string Templ = std::string(T && *T ? T : "/tmp") + "/reptx-bench-XXXXXX";
    Dir = ::mkdtemp(Templ.data());
    Config W;
    W.WritablePath = Dir + "/rw";
    Writable = cantFail(Cache::open(W));
    Writable->store(moduleKey(1), Value);
    Config Build;
    Build.WritablePath = Dir + "/ro";
    cantFail(Cache::open(Build))->store(moduleKey(1), Value);
    Config R;
    R.ReadOnlyPaths = {Dir + "/ro"};
    ReadOnly = cantFail(Cache::open(R));
    auto S = cantFail(Writable->stats());
    FileSize = S.Layers[0].StoredBytes;
    RawFile = cantFail(encodeEntryFile(moduleKey(1), Value));
  }
  ~Fixture() {
    std::error_code EC;
    std::filesystem::remove_all(Dir, EC);
  }
};

Fixture &fixture() {
  static Fixture F;
  return F;
}

void hit(benchmark::State &State, Cache &C) {
  Fixture &F = fixture();
  Key K = moduleKey(1);
  for (auto _ : State) {
    auto H = C.lookup(K);
    if (!H || H->Value.CodeObject.size() != F.Value.CodeObject.size())
      State.SkipWithError("lookup missed");
    benchmark::DoNotOptimize(H);
  }
  State.counters["entry_file_bytes"] = F.FileSize;
  State.counters["ratio"] = double(F.Value.CodeObject.size()) / F.FileSize;
}

void BM_HitWritableLayer(benchmark::State &State) { hit(State, *fixture().Writable); }
void BM_HitReadOnlyLayer(benchmark::State &State) { hit(State, *fixture().ReadOnly); }

/// Baseline: the least any file-based cache could do for this entry — open, fstat, read the file
/// and decompress its payload with a reused context — without the checks (checksums, key
/// comparison, ownership) and the mtime update of a real lookup.
void BM_BaselineReadDecompress(benchmark::State &State) {
  Fixture &F = fixture();
  std::string Hex = moduleKey(1).digest().hex();
  std::string Path = F.Dir + "/rw/" + Hex.substr(0, 2) + "/" + Hex + ".rxc";
  std::string File;
  ZSTD_DCtx *D = ZSTD_createDCtx();
  auto H = cantFail(parseEntryHeader(F.RawFile, F.RawFile.size()));
  uint64_t PayloadAt = H.HeaderSize, PayloadSize = H.UncompressedSize;
  for (auto _ : State) {
    int Fd = ::open(Path.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat St;
    ::fstat(Fd, &St);
    File.resize(St.st_size);
    benchmark::DoNotOptimize(::read(Fd, File.data(), File.size()));
    ::close(Fd);
    std::string Out(PayloadSize, '\0');
    size_t N = ZSTD_decompressDCtx(D, Out.data(), Out.size(), File.data() + PayloadAt,
                                   File.size() - PayloadAt);
    benchmark::DoNotOptimize(N);
    benchmark::DoNotOptimize(Out);
  }
  ZSTD_freeDCtx(D);
}

void BM_Miss(benchmark::State &State) {
  Key K = moduleKey(2);
  for (auto _ : State)
    benchmark::DoNotOptimize(fixture().Writable->lookup(K));
}

void BM_Store(benchmark::State &State) {
  Fixture &F = fixture();
  unsigned I = 100;
  for (auto _ : State)
    F.Writable->store(moduleKey(I++), F.Value);
}

BENCHMARK(BM_HitWritableLayer)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_HitReadOnlyLayer)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_BaselineReadDecompress)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Miss)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Store)->Unit(benchmark::kMicrosecond)->Iterations(200);

} // namespace

BENCHMARK_MAIN();
