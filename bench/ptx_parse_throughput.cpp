// PTX parse throughput on one core over the toolkit corpus (every unique PTX text, loaded into
// memory first), and the parser's memory per input byte: every byte the Module owns once parsed
// (its copy of the source, arena, intern and spelling tables, item lists; Module::memoryBytes),
// and the peak during the parse (Module::peakBytes: that plus the parser's scratch and the
// transient copies of growing tables), relative to the text size. Inputs: the toolkit under
// REPTX_CUDA_HOME (default /usr/local/cuda).
#include "reptx/frontend-ptx/Fatbin.h"
#include "reptx/frontend-ptx/Parser.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <benchmark/benchmark.h>
#include <xxhash.h>

#include <cstdlib>
#include <regex>
#include <set>

using namespace reptx;

namespace {

const std::vector<std::string> &corpus() {
  static std::vector<std::string> Texts = [] {
    std::vector<std::string> Out;
    const char *Home = std::getenv("REPTX_CUDA_HOME");
    llvm::SmallString<256> Dir(Home ? Home : "/usr/local/cuda");
    llvm::sys::path::append(Dir, "lib64");
    std::regex Lib(R"((\.so(\.\d+)*|\.a)$)");
    std::set<std::string> Files;
    std::error_code EC;
    for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC; It.increment(EC)) {
      llvm::sys::fs::file_status St;
      if (!llvm::sys::fs::status(It->path(), St, false) &&
          St.type() == llvm::sys::fs::file_type::regular_file &&
          std::regex_search(llvm::sys::path::filename(It->path()).str(), Lib))
        Files.insert(It->path());
    }
    std::set<std::pair<uint64_t, uint64_t>> Seen;
    for (const std::string &P : Files) {
      auto F = fatbin::scanFile(P);
      if (!F) {
        llvm::consumeError(F.takeError());
        continue;
      }
      for (const fatbin::Container &C : F->containers())
        for (const fatbin::Entry &E : C.Entries) {
          if (E.Kind != fatbin::EntryKind::PTX)
            continue;
          auto T = F->ptxText(E);
          if (!T) {
            llvm::consumeError(T.takeError());
            continue;
          }
          XXH128_hash_t H = XXH3_128bits(T->data(), T->size());
          if (Seen.insert({H.high64, H.low64}).second)
            Out.push_back(std::move(*T));
        }
    }
    return Out;
  }();
  return Texts;
}

void BM_ParseCorpus(benchmark::State &State) {
  const auto &Texts = corpus();
  if (Texts.empty()) {
    State.SkipWithError("no toolkit PTX found");
    return;
  }
  uint64_t Bytes = 0, Errors = 0;
  double MaxRatio = 0, SumArena = 0, MaxPeakRatio = 0, SumPeak = 0;
  size_t LargestInput = 0;
  double LargestRatio = 0, LargestPeakRatio = 0;
  for (auto _ : State) {
    Bytes = Errors = 0;
    SumArena = SumPeak = 0;
    for (const std::string &T : Texts) {
      ptx::ParseResult R = ptx::parse("corpus.ptx", T);
      Errors += R.Errors.size();
      Bytes += T.size();
      double Used = double(R.M->memoryBytes()), Peak = double(R.M->peakBytes());
      SumArena += Used;
      SumPeak += Peak;
      double Size = double(std::max<size_t>(T.size(), 1));
      double Ratio = Used / Size, PeakRatio = Peak / Size;
      if (T.size() > 1000000) {
        MaxRatio = std::max(MaxRatio, Ratio);
        MaxPeakRatio = std::max(MaxPeakRatio, PeakRatio);
      }
      if (T.size() > LargestInput) {
        LargestInput = T.size();
        LargestRatio = Ratio;
        LargestPeakRatio = PeakRatio;
      }
    }
  }
  State.SetBytesProcessed(int64_t(Bytes) * State.iterations());
  State.counters["files"] = double(Texts.size());
  State.counters["MB"] = double(Bytes) / 1e6;
  State.counters["errors"] = double(Errors);
  State.counters["mem_per_input_byte"] = SumArena / double(Bytes);
  State.counters["max_mem_ratio_files_over_1MB"] = MaxRatio;
  State.counters["largest_file_MB"] = double(LargestInput) / 1e6;
  State.counters["largest_file_mem_ratio"] = LargestRatio;
  State.counters["peak_mem_per_input_byte"] = SumPeak / double(Bytes);
  State.counters["max_peak_ratio_files_over_1MB"] = MaxPeakRatio;
  State.counters["largest_file_peak_ratio"] = LargestPeakRatio;
}

} // namespace

BENCHMARK(BM_ParseCorpus)->Unit(benchmark::kSecond)->UseRealTime()->Iterations(1);

BENCHMARK_MAIN();
