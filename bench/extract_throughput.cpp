// Extraction throughput: scan every file for fatbins and decompress every decodable entry, in
// memory, with N threads. Reported as decompressed bytes per second. Inputs: the files named by
// REPTX_BENCH_FILES (colon-separated), default every library under /usr/local/cuda/lib64.
#include "reptx/frontend-ptx/Fatbin.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Parallel.h"
#include "llvm/Support/Path.h"

#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdlib>
#include <regex>
#include <set>

using namespace reptx::fatbin;

namespace {

std::vector<std::string> inputFiles() {
  std::vector<std::string> Files;
  if (const char *Env = std::getenv("REPTX_BENCH_FILES")) {
    llvm::SmallVector<llvm::StringRef> Parts;
    llvm::StringRef(Env).split(Parts, ':', -1, false);
    for (auto P : Parts)
      Files.push_back(P.str());
    return Files;
  }
  std::regex Lib(R"((\.so(\.\d+)*|\.a)$)");
  std::set<std::string> Seen;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator I("/usr/local/cuda/lib64", EC), E; I != E && !EC;
       I.increment(EC)) {
    llvm::sys::fs::file_status St;
    if (llvm::sys::fs::status(I->path(), St, /*Follow=*/false) ||
        St.type() != llvm::sys::fs::file_type::regular_file)
      continue; // symlinks: each library once
    if (std::regex_search(llvm::sys::path::filename(I->path()).str(), Lib))
      Seen.insert(I->path());
  }
  Files.assign(Seen.begin(), Seen.end());
  return Files;
}

const std::vector<std::string> &files() {
  static std::vector<std::string> F = inputFiles();
  return F;
}

void BM_ExtractAll(benchmark::State &State) {
  unsigned Threads = State.range(0);
  llvm::parallel::strategy = llvm::hardware_concurrency(Threads);
  uint64_t Bytes = 0, Entries = 0, Stored = 0;
  for (auto _ : State) {
    std::atomic<uint64_t> Out{0}, In{0}, N{0};
    for (const std::string &Path : files()) {
      auto F = scanFile(Path);
      if (!F) {
        State.SkipWithError(llvm::toString(F.takeError()).c_str());
        return;
      }
      std::vector<const Entry *> Work;
      for (const Container &C : F->containers())
        for (const Entry &E : C.Entries)
          if (!E.encrypted())
            Work.push_back(&E);
      llvm::parallelFor(0, Work.size(), [&](size_t I) {
        auto Data = F->payload(*Work[I]);
        if (!Data) {
          llvm::consumeError(Data.takeError());
          return;
        }
        benchmark::DoNotOptimize(Data->data());
        Out += Data->size();
        In += Work[I]->storedSize();
        ++N;
      });
    }
    Bytes = Out;
    Stored = In;
    Entries = N;
  }
  State.SetBytesProcessed(int64_t(Bytes) * State.iterations());
  State.counters["entries"] = double(Entries);
  State.counters["decompressed_MB"] = double(Bytes) / 1e6;
  State.counters["stored_MB"] = double(Stored) / 1e6;
  State.counters["files"] = double(files().size());
}

} // namespace

BENCHMARK(BM_ExtractAll)
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(3);

BENCHMARK_MAIN();
