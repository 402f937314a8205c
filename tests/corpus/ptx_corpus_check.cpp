// Parses every unique PTX text of the CUDA toolkit's libraries, and checks the round trip
// parse(print(parse(f))) == parse(f) as ASTs. Exit 0 when all parse without error and all round
// trips agree, 77 when there is no toolkit, 1 otherwise.
//
// usage: ptx_corpus_check [--jobs N] [--no-roundtrip] CUDA_HOME
#include "ToolkitLibraries.h"

#include "reptx/frontend-ptx/Fatbin.h"
#include "reptx/frontend-ptx/Parser.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Parallel.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <xxhash.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <regex>
#include <set>

using namespace reptx;

int main(int argc, char **argv) {
  unsigned Jobs = 2;
  bool RoundTrip = true;
  std::string Cuda;
  for (int I = 1; I < argc; ++I) {
    llvm::StringRef A = argv[I];
    if (A == "--jobs" && I + 1 < argc)
      Jobs = std::atoi(argv[++I]);
    else if (A == "--no-roundtrip")
      RoundTrip = false;
    else
      Cuda = A.str();
  }
  llvm::parallel::strategy = llvm::hardware_concurrency(Jobs);
  std::set<std::string> Files = corpus::toolkitLibraries(Cuda);
  if (Files.empty()) {
    llvm::outs() << "SKIPPED: no CUDA toolkit libraries under " << Cuda << "/lib*\n";
    return 77;
  }

  // Collect the unique PTX texts (the corpus repeats some texts across libraries).
  struct Text {
    std::string Name, Body;
  };
  std::vector<Text> Texts;
  std::set<std::pair<uint64_t, uint64_t>> Seen;
  unsigned Entries = 0;
  for (const std::string &Path : Files) {
    auto F = fatbin::scanFile(Path);
    if (!F) {
      llvm::errs() << llvm::toString(F.takeError()) << "\n";
      return 1;
    }
    for (size_t CI = 0; CI < F->containers().size(); ++CI)
      for (size_t EI = 0; EI < F->containers()[CI].Entries.size(); ++EI) {
        const fatbin::Entry &E = F->containers()[CI].Entries[EI];
        if (E.Kind != fatbin::EntryKind::PTX)
          continue;
        auto Body = F->ptxText(E);
        if (!Body) {
          llvm::errs() << llvm::toString(Body.takeError()) << "\n";
          return 1;
        }
        ++Entries;
        XXH128_hash_t H = XXH3_128bits(Body->data(), Body->size());
        if (!Seen.insert({H.high64, H.low64}).second)
          continue;
        Texts.push_back({llvm::sys::path::filename(Path).str() + "[c" + std::to_string(CI) + ".e" +
                             std::to_string(EI) + "]",
                         std::move(*Body)});
      }
  }

  std::atomic<uint64_t> Bytes{0}, Errors{0}, BadFiles{0}, RoundTripFailures{0}, Kernels{0};
  std::mutex Out;
  auto Start = std::chrono::steady_clock::now();
  llvm::parallelFor(0, Texts.size(), [&](size_t I) {
    const Text &T = Texts[I];
    Bytes += T.Body.size();
    ptx::ParseResult R = ptx::parse(T.Name, T.Body);
    if (!R.ok()) {
      Errors += R.Errors.size();
      ++BadFiles;
      std::lock_guard<std::mutex> G(Out);
      for (size_t K = 0; K < R.Errors.size() && K < 5; ++K)
        ptx::printDiagnostic(llvm::errs(), *R.M, R.Errors[K]);
      return;
    }
    for (const ptx::TopLevel &TL : R.M->Items)
      if (TL.K == ptx::TopLevel::Func && TL.F->IsEntry && TL.F->Body)
        ++Kernels;
    if (!RoundTrip)
      return;
    std::string Printed;
    llvm::raw_string_ostream OS(Printed);
    ptx::print(OS, *R.M);
    ptx::ParseResult R2 = ptx::parse(T.Name + " (printed)", std::move(Printed));
    std::string Why;
    if (!R2.ok() || !ptx::equivalent(*R.M, *R2.M, &Why)) {
      ++RoundTripFailures;
      std::lock_guard<std::mutex> G(Out);
      llvm::errs() << T.Name << ": round trip differs: " << (R2.ok() ? Why : R2.Errors[0].Message)
                   << "\n";
    }
  });
  double Secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
  llvm::outs() << Files.size() << " files, " << Entries << " PTX entries, " << Texts.size()
               << " unique texts (" << Bytes / 1000000 << " MB), " << Kernels << " kernels\n"
               << "parse errors: " << Errors << " in " << BadFiles << " files; round-trip "
               << (RoundTrip ? "failures: " + std::to_string(RoundTripFailures.load())
                             : std::string("not checked"))
               << " (" << llvm::format("%.1f", Secs) << " s with " << Jobs << " threads)\n";
  return Errors || RoundTripFailures ? 1 : 0;
}
