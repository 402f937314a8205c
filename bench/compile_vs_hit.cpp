// Cache hit against cold compile of the same module, side by side in one run (issue 6,
// acceptance 3): the same driver::Compiler::compile call a loader makes, once with the module in
// the cache (key from the PTX hash, lookup with every check, decompression, kernel index) and
// once without a cache (parse, lift, O3, codegen, lld; in the worker process as reptx does, and
// in process for comparison).
//
// The module: a 50-kernel PTX module made from tests/lift/kernels/saxpy.ptx (nvcc output), its
// kernel repeated under 50 names with different constants; REPTX_BENCH_PTX=FILE measures another
// module instead (a toolkit corpus module, say). Run with --benchmark_repetitions=5
// --benchmark_report_aggregates_only=true; figures in bench/RESULTS.md.
#include "reptx/driver/Driver.h"

#include "llvm/Support/MemoryBuffer.h"

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <filesystem>
#include <unistd.h>

using namespace reptx;

namespace {

std::string readFile(const std::string &Path) {
  auto B = llvm::MemoryBuffer::getFile(Path);
  if (!B) {
    std::fprintf(stderr, "cannot read %s\n", Path.c_str());
    std::exit(1);
  }
  return (*B)->getBuffer().str();
}

/// The saxpy kernel 50 times: "saxpy" renamed to "saxpy_<i>" (its parameter names follow), the
/// header kept once.
std::string fiftyKernels() {
  std::string Src = readFile(std::string(REPTX_LIFT_KERNEL_DIR) + "/saxpy.ptx");
  size_t Entry = Src.find(".visible .entry saxpy(");
  std::string Header = Src.substr(0, Entry), Body = Src.substr(Entry);
  std::string Out = Header;
  for (unsigned I = 0; I < 50; ++I) {
    std::string K = Body;
    for (size_t P = 0; (P = K.find("saxpy", P)) != std::string::npos; P += 6)
      K.replace(P, 5, "saxpy_" + std::to_string(I));
    Out += K + "\n";
  }
  return Out;
}

driver::ModuleSource &module() {
  static driver::ModuleSource M = [] {
    const char *P = std::getenv("REPTX_BENCH_PTX");
    if (P && *P)
      return driver::ModuleSource{P, readFile(P), ""};
    return driver::ModuleSource{"fifty.ptx", fiftyKernels(), ""};
  }();
  return M;
}

const driver::Target Target{"gfx942", 5, "packed"};

std::unique_ptr<driver::Compiler> make(bool UseCache, bool Isolate, const std::string &Dir) {
  driver::Compiler::Options O;
  O.UseCache = UseCache;
  O.Isolate = Isolate;
  cache::Config C;
  C.WritablePath = Dir;
  O.CacheConfig = C;
  auto R = driver::Compiler::create(O);
  if (!R) {
    std::fprintf(stderr, "%s\n", llvm::toString(R.takeError()).c_str());
    std::exit(1);
  }
  return std::move(*R);
}

void run(benchmark::State &S, driver::Compiler &C, driver::Result::Origin Want) {
  size_t Kernels = 0;
  for (auto _ : S) {
    auto R = C.compile(module(), Target);
    if (!R || R->From != Want) {
      S.SkipWithError(R ? "unexpected origin" : llvm::toString(R.takeError()).c_str());
      return;
    }
    Kernels = R->Kernels.size();
    benchmark::DoNotOptimize(R->CodeObject.data());
  }
  S.counters["kernels"] = double(Kernels);
  S.counters["ptx_bytes"] = double(module().Ptx.size());
}

void BM_CacheHit(benchmark::State &S) {
  std::string Dir =
      std::filesystem::temp_directory_path() / ("reptx-bench-hit-" + std::to_string(::getpid()));
  auto C = make(true, true, Dir);
  auto First = C->compile(module(), Target); // fill
  if (!First) {
    S.SkipWithError(llvm::toString(First.takeError()).c_str());
    return;
  }
  run(S, *C, driver::Result::Origin::CacheHit);
  std::filesystem::remove_all(Dir);
}

void BM_ColdCompileWorker(benchmark::State &S) {
  auto C = make(false, true, "");
  run(S, *C, driver::Result::Origin::Compiled);
}

void BM_ColdCompileInProcess(benchmark::State &S) {
  auto C = make(false, false, "");
  run(S, *C, driver::Result::Origin::Compiled);
}

BENCHMARK(BM_CacheHit)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ColdCompileWorker)->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_ColdCompileInProcess)->Unit(benchmark::kMillisecond)->Iterations(3);

} // namespace

BENCHMARK_MAIN();
