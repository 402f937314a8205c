// Compiles real PTX from the CUDA toolkit's libraries with reptx (backend::compilePtx, as prewarm
// does: a large text in parts) and reports kernels compiled / failed per target, with the
// failures grouped by reason (the first unsupported instruction's family, or the backend's
// error). The ctest runs a fixed sample; bench/ runs the whole corpus. Exit 0 when every target
// compiles at least --min percent of the sample's kernels (a regression floor) and the parts of
// every text link together, 77 without the toolkit, 1 otherwise.
//
// With --ptxas PATH (bench/), every text is also assembled by ptxas -O3 for its own .target, one
// file at a time, and compiled by reptx for the first --arch as `reptx compile` does it
// (backend::compilePtx in this process: a large module in parts on --threads threads, 0 = one
// per core; ptxas gets as many through --split-compile); the report gives wall and CPU time of both
// and reptx's time per phase (parse, lift, prepare, optimize, codegen, link); --per-file adds one
// line per text on stderr with its times.
// --only keeps the sample's texts whose name contains NAME (e.g. "libcusparse.so.12[c62.e7]"),
// to profile one text. LLVM options for profiling (-time-passes) come from $REPTX_LLVM_ARGS.
//
// usage: corpus_compile [--sample N | --all] [--arch gfx942,gfx1100] [--jobs N] [--min PERCENT]
//                       [--top K] [--ptxas PATH [--per-file] [--threads N]] [--only NAME]
//                       [--write-objects DIR] CUDA_HOME
//
// --write-objects DIR writes every code object compiled to DIR/<text hash>.<arch>.hsaco (the
// opcode census test, tests/census, reads them).
#include "ToolkitLibraries.h"
#include "reptx/backend/Backend.h"
#include "reptx/backend/Isolated.h"

#include "reptx/frontend-ptx/Fatbin.h"
#include "reptx/frontend-ptx/Parser.h"
#include "reptx/ir/Lift.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/ManagedStatic.h"
#include "llvm/Support/Parallel.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/StringSaver.h"
#include "llvm/Support/raw_ostream.h"

#include <xxhash.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <regex>
#include <set>
#include <sys/resource.h>
#include <time.h>

using namespace reptx;

namespace {

struct Text {
  std::string Name, Body;
  uint64_t Hash = 0;
};

// "f.ptx:12: kernel 'k': unsupported instruction (tex, texture): 'tex.2d.v4...'" ->
// "unsupported instruction (tex, texture) [tex]": the reason with the opcode of the instruction.
std::string reasonOf(llvm::StringRef Msg) {
  size_t K = Msg.find("': ");
  llvm::StringRef Why = K == llvm::StringRef::npos ? Msg : Msg.substr(K + 3);
  std::string Op;
  size_t Q = Why.find(": '");
  if (Q != llvm::StringRef::npos) {
    llvm::StringRef Inst = Why.substr(Q + 3);
    if (Inst.starts_with("@"))
      Inst = Inst.split(' ').second.ltrim();
    // The opcode and its modifiers up to the type, e.g. shfl.sync.down.b32 -> shfl.sync.down.
    Op = Inst.split(' ').first.split('\t').first.str();
    Why = Why.substr(0, Q);
  }
  // Messages that name registers or variables would not group: keep their shape.
  std::string R = std::regex_replace(Why.str(), std::regex("'[^']*'"), "'…'");
  R = std::regex_replace(R, std::regex("%[A-Za-z_$][A-Za-z0-9_$]*"), "%…");
  if (R.size() > 110)
    R = R.substr(0, 110) + "…";
  return Op.empty() ? R : R + " [" + Op + "]";
}

using Clock = std::chrono::steady_clock;
double since(Clock::time_point T) {
  return std::chrono::duration<double>(Clock::now() - T).count();
}

// CPU seconds (user + system) of this process, and of its waited-for children (ptxas): unlike
// wall time, they hardly change when other jobs share the machine.
double selfCpu() {
  timespec T;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &T);
  return double(T.tv_sec) + double(T.tv_nsec) * 1e-9;
}
double childrenCpu() {
  rusage U;
  getrusage(RUSAGE_CHILDREN, &U);
  auto Sec = [](const timeval &V) { return double(V.tv_sec) + double(V.tv_usec) * 1e-6; };
  return Sec(U.ru_utime) + Sec(U.ru_stime);
}

// Compile throughput against ptxas (issue 4, acceptance 4): the same files, one at a time.
int benchAgainstPtxas(const std::vector<Text> &Texts, const std::string &Arch,
                      const std::string &Ptxas, bool PerFile, unsigned Threads) {
  llvm::SmallString<128> Dir;
  if (llvm::sys::fs::createUniqueDirectory("corpus-ptxas", Dir)) {
    llvm::errs() << "cannot create a temporary directory\n";
    return 1;
  }
  double Parse = 0, Lift = 0, Prepare = 0, Opt = 0, Codegen = 0, Link = 0, PtxasTime = 0;
  double ReptxTime = 0;
  double PtxasCpu = 0, ReptxCpu = 0;
  unsigned Files = 0, PtxasFailed = 0, Kernels = 0, Compiled = 0;
  std::regex Target(R"(\.target\s+(sm_[0-9]+[af]?))");
  for (const Text &T : Texts) {
    std::smatch M;
    if (!std::regex_search(T.Body, M, Target))
      continue;
    llvm::SmallString<128> Path(Dir);
    llvm::sys::path::append(Path, "t.ptx");
    {
      std::error_code EC;
      llvm::raw_fd_ostream OS(Path, EC);
      if (!EC) {
        OS << T.Body;
        OS.close();
        EC = OS.error();
        OS.clear_error();
      }
      if (EC) {
        llvm::errs() << "cannot write " << Path << ": " << EC.message() << "\n";
        return 1;
      }
    }
    std::string ArchFlag = "-arch=" + M[1].str();
    llvm::SmallString<128> Out(Dir);
    llvm::sys::path::append(Out, "t.cubin");
    // -c: relocatable, as a module with extern functions (relocatable device code) needs.
    // --split-compile: ptxas compiles a module's functions on as many threads as reptx gets (0
    // is one per core for both), so that the wall times compare like with like.
    std::string Split = "--split-compile=" + std::to_string(Threads);
    llvm::StringRef Args[] = {Ptxas, "-O3", "-c", ArchFlag, Split, Path, "-o", Out};
    std::optional<llvm::StringRef> Quiet[] = {std::nullopt, llvm::StringRef(""),
                                              llvm::StringRef("")};
    auto P0 = Clock::now();
    double C0 = childrenCpu();
    int Rc = llvm::sys::ExecuteAndWait(Ptxas, Args, std::nullopt, Quiet);
    double PT = since(P0), PC = childrenCpu() - C0;
    if (Rc != 0) { // newer PTX than this ptxas reads, or an unsupported target: not compared
      ++PtxasFailed;
      continue;
    }
    // As `reptx compile` does in its worker: a large module in parts on Threads threads.
    backend::CompileOptions Opts;
    Opts.Arch = Arch;
    Opts.Threads = Threads;
    auto R0 = Clock::now();
    double S0 = selfCpu();
    auto CO = backend::compilePtx({T.Name, T.Body}, Opts);
    double RW = since(R0), RC = selfCpu() - S0;
    if (!CO) {
      llvm::consumeError(CO.takeError());
      continue;
    }
    ++Files;
    PtxasTime += PT;
    ReptxTime += RW;
    Kernels += CO->Kernels.size() + CO->Failures.size();
    if (CO->Kernels.empty())
      continue;
    Compiled += CO->Kernels.size();
    PtxasCpu += PC;
    ReptxCpu += RC;
    if (PerFile)
      llvm::errs() << llvm::format("file %s %zu bytes %zu kernels: ptxas %.3f s, reptx %.3f s "
                                   "(parse %.3f lift %.3f prepare %.3f optimize %.3f codegen %.3f "
                                   "link %.3f); CPU ptxas %.3f reptx %.3f\n",
                                   T.Name.c_str(), T.Body.size(), CO->Kernels.size(), PT, RW,
                                   CO->Times.Parse, CO->Times.Lift, CO->Times.Prepare,
                                   CO->Times.Optimize, CO->Times.Codegen, CO->Times.Link, PC, RC);
    Parse += CO->Times.Parse;
    Lift += CO->Times.Lift;
    Prepare += CO->Times.Prepare;
    Opt += CO->Times.Optimize;
    Codegen += CO->Times.Codegen;
    Link += CO->Times.Link;
  }
  llvm::sys::fs::remove_directories(Dir);
  double Phases = Parse + Lift + Prepare + Opt + Codegen + Link;
  llvm::outs() << Files << " files compared (" << PtxasFailed << " left out: ptxas rejects them), "
               << Compiled << " of " << Kernels << " kernels compiled by reptx for " << Arch << ", "
               << (Threads ? std::to_string(Threads) : std::string("all"))
               << " threads each (reptx's parts, ptxas --split-compile)\n"
               << llvm::format("wall: ptxas -O3 %.2f s, reptx %.2f s; ratio ptxas/reptx %.2f "
                               "(above 1: reptx is faster)\n",
                               PtxasTime, ReptxTime, ReptxTime > 0 ? PtxasTime / ReptxTime : 0.0)
               << llvm::format("CPU: ptxas %.2f s, reptx %.2f s; ratio %.2f\n", PtxasCpu, ReptxCpu,
                               ReptxCpu > 0 ? PtxasCpu / ReptxCpu : 0.0)
               << llvm::format("reptx phases, summed over threads: %.2f s (parse %.2f, lift %.2f, "
                               "prepare %.2f, optimize %.2f, codegen %.2f, link %.2f)\n",
                               Phases, Parse, Lift, Prepare, Opt, Codegen, Link);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  unsigned Jobs = 2, Sample = 200, Top = 25, Threads = 0;
  bool All = false, PerFile = false;
  double Min = 0;
  std::string Cuda, Archs = "gfx942,gfx1100", Ptxas, WriteDir, Only;
  for (int I = 1; I < argc; ++I) {
    llvm::StringRef A = argv[I];
    if (A == "--jobs" && I + 1 < argc)
      Jobs = std::atoi(argv[++I]);
    else if (A == "--sample" && I + 1 < argc)
      Sample = std::atoi(argv[++I]);
    else if (A == "--all")
      All = true;
    else if (A == "--arch" && I + 1 < argc)
      Archs = argv[++I];
    else if (A == "--min" && I + 1 < argc)
      Min = std::atof(argv[++I]);
    else if (A == "--top" && I + 1 < argc)
      Top = std::atoi(argv[++I]);
    else if (A == "--ptxas" && I + 1 < argc)
      Ptxas = argv[++I];
    else if (A == "--only" && I + 1 < argc)
      Only = argv[++I];
    else if (A == "--threads" && I + 1 < argc)
      Threads = std::atoi(argv[++I]);
    else if (A == "--per-file")
      PerFile = true;
    else if (A == "--write-objects" && I + 1 < argc)
      WriteDir = argv[++I];
    else
      Cuda = A.str();
  }
  if (const char *Env = std::getenv("REPTX_LLVM_ARGS")) {
    llvm::BumpPtrAllocator A;
    llvm::StringSaver Saver(A);
    llvm::SmallVector<const char *, 8> Tokens;
    llvm::cl::TokenizeGNUCommandLine(Env, Saver, Tokens);
    if (llvm::Error E =
            backend::setLlvmOptions(std::vector<std::string>(Tokens.begin(), Tokens.end()))) {
      llvm::errs() << "REPTX_LLVM_ARGS: " << llvm::toString(std::move(E)) << "\n";
      return 2;
    }
  }
  llvm::llvm_shutdown_obj Shutdown;
  llvm::parallel::strategy = llvm::hardware_concurrency(Jobs);
  std::set<std::string> Files = corpus::toolkitLibraries(Cuda);
  if (Files.empty()) {
    llvm::outs() << "SKIPPED: no CUDA toolkit libraries under " << Cuda << "/lib*\n";
    return 77;
  }

  // Unique PTX texts, ordered by content hash: the sample is every k-th text of that order, fixed
  // for a given toolkit whatever the file system's order.
  std::vector<Text> Texts;
  std::set<uint64_t> Seen;
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
        uint64_t H = XXH3_64bits(Body->data(), Body->size());
        if (!Seen.insert(H).second)
          continue;
        Texts.push_back({llvm::sys::path::filename(Path).str() + "[c" + std::to_string(CI) + ".e" +
                             std::to_string(EI) + "]",
                         std::move(*Body), H});
      }
  }
  std::sort(Texts.begin(), Texts.end(),
            [](const Text &A, const Text &B) { return A.Hash < B.Hash; });
  if (!All && Sample < Texts.size()) {
    std::vector<Text> S;
    for (unsigned K = 0; K < Sample; ++K)
      S.push_back(std::move(Texts[size_t(K) * Texts.size() / Sample]));
    Texts = std::move(S);
  }
  if (!Only.empty())
    std::erase_if(Texts, [&](const Text &T) { return T.Name.find(Only) == std::string::npos; });

  if (!WriteDir.empty() && llvm::sys::fs::create_directories(WriteDir)) {
    llvm::errs() << "cannot create " << WriteDir << "\n";
    return 1;
  }
  if (!Ptxas.empty())
    return benchAgainstPtxas(Texts, llvm::StringRef(Archs).split(',').first.str(), Ptxas, PerFile,
                             Threads);

  llvm::SmallVector<llvm::StringRef, 5> ArchList;
  llvm::StringRef(Archs).split(ArchList, ',');
  struct Stats {
    std::atomic<uint64_t> Kernels{0}, Compiled{0};
    std::map<std::string, unsigned> Reasons;
    std::vector<std::string> Unlinked; // texts whose parts did not link together
  };
  std::vector<Stats> Per(ArchList.size());
  std::mutex Mu;
  std::atomic<bool> WriteFailed{false};
  auto Start = std::chrono::steady_clock::now();
  llvm::parallelFor(0, Texts.size() * ArchList.size(), [&](size_t Job) {
    const Text &T = Texts[Job / ArchList.size()];
    size_t AI = Job % ArchList.size();
    Stats &S = Per[AI];
    auto Fail = [&](const std::string &Reason, unsigned N) {
      std::lock_guard<std::mutex> G(Mu);
      S.Reasons[Reason] += N;
    };
    ptx::ParseResult P = ptx::parse(T.Name, T.Body);
    unsigned N = 0;
    if (P.M)
      for (const ptx::TopLevel &TL : P.M->Items)
        if (TL.K == ptx::TopLevel::Func && TL.F->IsEntry && TL.F->Body)
          ++N;
    S.Kernels += N;
    if (!P.ok()) {
      Fail("parse error", N);
      return;
    }
    // As prewarm compiles it (one thread per text here: --jobs texts run at once), a large text
    // in parts; a text whose parts do not link together is compiled as one module by
    // compilePtx and counted here, since that should not happen.
    size_t Planned = backend::planModuleParts(*P.M).size();
    backend::CompileOptions Opts;
    Opts.Arch = ArchList[AI].str();
    Opts.Threads = 1;
    auto CO = backend::compilePtx({T.Name, T.Body}, Opts);
    if (!CO) {
      Fail("module: " + reasonOf(llvm::toString(CO.takeError())), N);
      return;
    }
    for (const ir::KernelFailure &KF : CO->Failures)
      Fail(reasonOf(KF.Message), 1);
    if (Planned > 1 && !CO->Kernels.empty() && CO->Parts == 1) {
      std::lock_guard<std::mutex> G(Mu);
      S.Unlinked.push_back(T.Name);
    }
    S.Compiled += CO->Kernels.size();
    if (!WriteDir.empty() && !CO->CodeObject.empty()) { // none: every kernel failed
      llvm::SmallString<256> Out(WriteDir);
      llvm::sys::path::append(Out, llvm::utohexstr(T.Hash) + "." + Opts.Arch + ".hsaco");
      std::error_code EC;
      llvm::raw_fd_ostream OS(Out, EC);
      if (!EC) {
        OS.write(reinterpret_cast<const char *>(CO->CodeObject.data()), CO->CodeObject.size());
        OS.close();
        EC = OS.error();
        OS.clear_error();
      }
      if (EC) {
        std::lock_guard<std::mutex> G(Mu);
        llvm::errs() << "cannot write " << Out << ": " << EC.message() << "\n";
        WriteFailed = true;
      }
    }
  });
  double Secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
  bool Ok = !WriteFailed;
  llvm::outs() << Texts.size() << " unique PTX texts"
               << (All ? "" : " (fixed sample, every k-th by content hash)") << ", "
               << llvm::format("%.1f", Secs) << " s with " << Jobs << " threads\n";
  for (size_t AI = 0; AI < ArchList.size(); ++AI) {
    Stats &S = Per[AI];
    double Pct = S.Kernels ? 100.0 * double(S.Compiled) / double(S.Kernels) : 100.0;
    llvm::outs() << "\n"
                 << ArchList[AI] << ": " << S.Compiled << " of " << S.Kernels
                 << " kernels compiled (" << llvm::format("%.1f", Pct) << "%), "
                 << (S.Kernels - S.Compiled) << " failed\n";
    std::vector<std::pair<unsigned, std::string>> R;
    for (auto &[Why, Count] : S.Reasons)
      R.push_back({Count, Why});
    std::sort(R.rbegin(), R.rend());
    for (size_t K = 0; K < R.size() && K < Top; ++K)
      llvm::outs() << llvm::format("  %6u  ", R[K].first) << R[K].second << "\n";
    if (Pct < Min) {
      llvm::outs() << "  below the floor of " << Min << "%\n";
      Ok = false;
    }
    std::sort(S.Unlinked.begin(), S.Unlinked.end());
    for (const std::string &Name : S.Unlinked) {
      llvm::outs() << "  " << Name << ": its parts did not link together\n";
      Ok = false;
    }
  }
  return Ok ? 0 : 1;
}
