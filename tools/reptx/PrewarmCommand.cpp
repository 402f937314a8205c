// `reptx prewarm PATH... --arch gfx942[,gfx1100...]`: finds every PTX module in CUDA binaries
// (and .ptx files) under the given files and directories, and compiles each unique one for each
// target into the kernel cache (or into an --output layer for a deployment image), in parallel
// worker processes. Ends with a summary: modules, hits, compiles, kernels compiled and failed,
// failures grouped by reason; --json for machines.
#include "Commands.h"

#include "reptx/backend/Backend.h"
#include "reptx/cache/Key.h"
#include "reptx/driver/Driver.h"
#include "reptx/frontend-ptx/Fatbin.h"
#include "reptx/frontend-ptx/Link.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace reptx::tool {

namespace {

namespace fs = std::filesystem;

struct PrewarmOpts {
  std::vector<std::string> Paths;
  std::string Archs = "gfx942";
  std::string Wave64Mode = "auto"; // as the loader compiles: driver::wave64Mode
  unsigned Cov = 5;
  std::string Output;
  unsigned Jobs = 0;
  unsigned Timeout = 600;
  bool Json = false;
  bool NoProgress = false;
};

/// One unique PTX module: where to read it again (texts are not kept in memory; the toolkit
/// holds 1.75 GB of them).
struct ModuleRef {
  std::string Name;
  size_t File = 0;                      // index into Files (binaries) or PtxFiles
  const fatbin::Entry *Entry = nullptr; // null: a .ptx file, or a linked -rdc image
  std::string PtxasOptions;
  uint64_t Size = 0;
  /// A -rdc image (Image.Units not empty), linked as the loader links it (ptx::linkImage).
  ptx::RdcImage Image;
};

struct TargetStats {
  uint64_t Modules = 0, Hits = 0, Compiled = 0, Errors = 0, KernelsOk = 0, KernelsFailed = 0;
  uint64_t NotCached = 0; // results not stored: a crash or timeout may not repeat
};

/// "file:12: kernel 'k': WHY: 'instr ...'" -> "WHY: opcode"; other messages: their first line,
/// without the module and kernel names, cut to 120 characters.
std::string reasonOf(llvm::StringRef Msg) {
  size_t K = Msg.find("kernel '");
  if (K != llvm::StringRef::npos) {
    size_t End = Msg.find("': ", K + 8);
    if (End != llvm::StringRef::npos)
      Msg = Msg.drop_front(End + 3);
  }
  Msg = Msg.take_until([](char C) { return C == '\n'; });
  size_t Q = Msg.rfind(": '");
  if (Q != llvm::StringRef::npos && Msg.ends_with("'")) {
    llvm::StringRef Instr = Msg.slice(Q + 3, Msg.size() - 1).ltrim("{ \t").trim();
    if (Instr.starts_with("@"))
      Instr = Instr.split(' ').second.ltrim();
    llvm::StringRef Op = Instr.take_until([](char C) { return C == ' ' || C == '\t'; });
    Op.consume_back(";");
    return (Msg.take_front(Q) + ": " + Op).str();
  }
  // Worker messages carry the worker's output after "; worker output:".
  Msg = Msg.take_front(Msg.find("; worker output:"));
  return Msg.take_front(120).str();
}

std::string humanTime(double S) {
  if (S < 60)
    return fmt::format("{:.1f} s", S);
  unsigned T = unsigned(S);
  return T < 3600 ? fmt::format("{}m{:02}s", T / 60, T % 60)
                  : fmt::format("{}h{:02}m", T / 3600, T / 60 % 60);
}

class Prewarm {
public:
  explicit Prewarm(const PrewarmOpts &O) : O(O) {}
  int run();

private:
  bool discover(const std::string &Path);
  void addFile(const fs::path &P);
  void addLinkedImages(size_t FileIndex);
  llvm::Expected<std::string> textOf(const ModuleRef &M) const;
  void worker();
  void progress(bool Final);
  void printSummary(double Seconds);

  const PrewarmOpts &O;
  std::vector<driver::Target> Targets;
  std::unique_ptr<driver::Compiler> C;
  std::set<std::pair<dev_t, ino_t>> Seen;
  std::vector<fatbin::FatbinFile> Files;
  std::vector<std::string> PtxFiles;
  std::vector<ModuleRef> Modules;
  std::set<std::tuple<cache::Digest, uint64_t, std::string>> Unique;
  uint64_t Entries = 0, Duplicates = 0, FilesScanned = 0, FilesWithPtx = 0;
  bool IOError = false;

  // Progress of the parallel part.
  std::atomic<size_t> Next{0};
  std::mutex Lock;
  size_t Done = 0, Failed = 0;
  uint64_t BytesDone = 0, BytesTotal = 0;
  std::map<std::string, TargetStats> Stats;
  std::map<std::string, std::map<std::string, uint64_t>> Reasons; // reason -> arch -> kernels
  std::vector<std::string> ModuleErrors;
  bool Tty = false;
  std::chrono::steady_clock::time_point Start, LastLine;
};

void Prewarm::addFile(const fs::path &P) {
  struct stat St;
  if (::stat(P.c_str(), &St) != 0 || !S_ISREG(St.st_mode))
    return;
  if (!Seen.insert({St.st_dev, St.st_ino}).second)
    return; // the same file under another name (libfoo.so -> libfoo.so.13)
  ++FilesScanned;
  if (P.extension() == ".ptx") {
    auto Buf = llvm::MemoryBuffer::getFile(P.string(), /*IsText=*/false,
                                           /*RequiresNullTerminator=*/false);
    if (!Buf) {
      reportError(P.string() + ": " + Buf.getError().message());
      IOError = true;
      return;
    }
    llvm::StringRef Text = (*Buf)->getBuffer();
    ++Entries;
    ++FilesWithPtx;
    if (!Unique.insert({cache::hashBytes(Text), Text.size(), ""}).second) {
      ++Duplicates;
      return;
    }
    Modules.push_back({P.string(), PtxFiles.size(), nullptr, "", Text.size(), {}});
    PtxFiles.push_back(P.string());
    return;
  }
  // Only files that can hold fatbins: ELF, ar archives, bare fatbins.
  char Magic[8] = {};
  {
    FILE *F = std::fopen(P.c_str(), "rb");
    if (!F) {
      reportError(P.string() + ": " + std::strerror(errno));
      IOError = true;
      return;
    }
    size_t N = std::fread(Magic, 1, sizeof Magic, F);
    std::fclose(F);
    llvm::StringRef M(Magic, N);
    if (!(M.starts_with("\x7f"
                        "ELF") ||
          M.starts_with("!<arch>\n") || M.starts_with("\x50\xed\x55\xba")))
      return;
  }
  auto FF = fatbin::scanFile(P.string());
  if (!FF) {
    reportError(llvm::toString(FF.takeError()));
    IOError = true;
    return;
  }
  size_t Index = Files.size();
  Files.push_back(std::move(*FF));
  const fatbin::FatbinFile &File = Files.back();
  // An executable's or shared library's -rdc units run only linked into its image.
  bool Linked = ptx::linksRdcUnits(File);
  bool Any = false;
  for (size_t CI = 0; CI < File.containers().size(); ++CI)
    for (size_t EI = 0; EI < File.containers()[CI].Entries.size(); ++EI) {
      const fatbin::Entry &E = File.containers()[CI].Entries[EI];
      if (E.Kind != fatbin::EntryKind::PTX || (Linked && File.containers()[CI].relocatableUnit()))
        continue;
      auto Text = File.ptxText(E);
      if (!Text) {
        reportError(llvm::toString(Text.takeError()));
        IOError = true;
        continue;
      }
      Any = true;
      ++Entries;
      if (!Unique.insert({cache::hashBytes(*Text), Text->size(), E.Aux}).second) {
        ++Duplicates;
        continue;
      }
      Modules.push_back({fmt::format("{}.c{}.e{}.{}", P.string(), CI, EI, E.arch()),
                         Index,
                         &E,
                         E.Aux,
                         Text->size(),
                         {}});
    }
  size_t Before = Modules.size() + Duplicates;
  if (Linked)
    addLinkedImages(Index);
  FilesWithPtx += Any || Modules.size() + Duplicates > Before;
}

/// The -rdc images of an executable or shared library (ptx::rdcImages): one module each, the
/// one the loader links when the program registers its image, once for each distinct choice of
/// entries that a device's compute capability makes.
void Prewarm::addLinkedImages(size_t FileIndex) {
  const fatbin::FatbinFile &File = Files[FileIndex];
  for (ptx::RdcImage &I : ptx::rdcImages(File)) {
    ++Entries;
    ModuleRef M{fmt::format("{}.rdc.{}({} units)", File.path().str(), fatbin::archName(I.Arch, 0),
                            I.Units.size()),
                FileIndex,
                nullptr,
                I.Units.front()->Aux,
                0,
                std::move(I)};
    auto Text = ptx::linkImage(File, M.Image);
    if (Text) {
      M.Size = Text->size();
      if (!Unique.insert({cache::hashBytes(*Text), Text->size(), M.PtxasOptions}).second) {
        ++Duplicates;
        continue;
      }
    } else {
      consumeError(Text.takeError()); // reported per target when the module is compiled
    }
    Modules.push_back(std::move(M));
  }
}

bool Prewarm::discover(const std::string &Path) {
  std::error_code EC;
  fs::file_status St = fs::status(Path, EC);
  if (EC) {
    reportError(Path + ": " + EC.message());
    return false;
  }
  if (!fs::is_directory(St)) {
    addFile(Path);
    return true;
  }
  // Directories: every regular file below, in name order; symlinked directories are not entered.
  std::vector<fs::path> Found;
  fs::recursive_directory_iterator It(Path, fs::directory_options::skip_permission_denied, EC), End;
  for (; !EC && It != End; It.increment(EC)) {
    std::error_code E2;
    if (It->is_regular_file(E2))
      Found.push_back(It->path());
  }
  if (EC) {
    reportError(Path + ": " + EC.message());
    return false;
  }
  std::sort(Found.begin(), Found.end());
  for (const fs::path &P : Found)
    addFile(P);
  return true;
}

llvm::Expected<std::string> Prewarm::textOf(const ModuleRef &M) const {
  if (!M.Image.Units.empty())
    return ptx::linkImage(Files[M.File], M.Image);
  if (M.Entry)
    return Files[M.File].ptxText(*M.Entry);
  auto Buf = llvm::MemoryBuffer::getFile(PtxFiles[M.File], /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!Buf)
    return llvm::createStringError(Buf.getError(),
                                   PtxFiles[M.File] + ": " + Buf.getError().message());
  return (*Buf)->getBuffer().str();
}

void Prewarm::worker() {
  const size_t Total = Modules.size() * Targets.size();
  for (;;) {
    size_t J = Next.fetch_add(1);
    if (J >= Total)
      return;
    const ModuleRef &M = Modules[J / Targets.size()];
    const driver::Target &T = Targets[J % Targets.size()];
    auto Text = textOf(M);
    llvm::Expected<driver::Result> R =
        Text ? C->compile({M.Name, std::move(*Text), M.PtxasOptions}, T)
             : llvm::Expected<driver::Result>(Text.takeError());
    std::lock_guard<std::mutex> G(Lock);
    TargetStats &S = Stats[T.Arch];
    ++S.Modules;
    ++Done;
    BytesDone += M.Size;
    if (!R) {
      ++S.Errors;
      ++Failed;
      std::string Msg = llvm::toString(R.takeError());
      Reasons[reasonOf(Msg)][T.Arch] += 1;
      ModuleErrors.push_back(T.Arch + ": " + Msg);
    } else {
      if (R->From == driver::Result::Origin::Compiled)
        ++S.Compiled;
      else
        ++S.Hits;
      S.NotCached += !R->Deterministic;
      S.KernelsOk += R->Kernels.size();
      S.KernelsFailed += R->Failures.size();
      Failed += !R->Failures.empty();
      for (const ir::KernelFailure &F : R->Failures)
        Reasons[reasonOf(F.Message)][T.Arch] += 1;
    }
    progress(false);
  }
}

// Called with Lock held.
void Prewarm::progress(bool Final) {
  using namespace std::chrono;
  auto Now = steady_clock::now();
  double Elapsed = duration_cast<duration<double>>(Now - Start).count();
  size_t Total = Modules.size() * Targets.size();
  if (O.NoProgress || O.Json)
    return;
  if (!Tty && !Final && Now - LastLine < seconds(10))
    return;
  if (Tty && !Final && Now - LastLine < milliseconds(100))
    return;
  LastLine = Now;
  std::string ETA = "-";
  if (BytesDone && BytesDone < BytesTotal)
    ETA = humanTime(Elapsed * double(BytesTotal - BytesDone) / double(BytesDone));
  std::string Line = fmt::format("[{}/{}] {} with failures, {:.1f} modules/s, ETA {}", Done, Total,
                                 Failed, Elapsed > 0 ? Done / Elapsed : 0.0, ETA);
  if (Tty) {
    // A 24-column bar by PTX bytes done, then the counts.
    size_t Fill = BytesTotal ? size_t(24 * double(BytesDone) / double(BytesTotal)) : 24;
    std::string Bar = "[" + std::string(Fill, '#') + std::string(24 - Fill, '.') + "] ";
    llvm::errs() << "\r\x1b[K" << Bar << Line << (Final ? "\n" : "");
  } else
    llvm::errs() << Line << "\n";
  llvm::errs().flush();
}

void Prewarm::printSummary(double Seconds) {
  uint64_t Kernels = 0, KernelsFailed = 0;
  for (auto &[A, S] : Stats)
    Kernels += S.KernelsOk, KernelsFailed += S.KernelsFailed;
  std::vector<std::pair<std::string, std::map<std::string, uint64_t>>> ByCount(Reasons.begin(),
                                                                               Reasons.end());
  auto Count = [](const std::map<std::string, uint64_t> &M) {
    uint64_t N = 0;
    for (auto &[A, C] : M)
      N += C;
    return N;
  };
  std::sort(ByCount.begin(), ByCount.end(), [&](const auto &A, const auto &B) {
    uint64_t CA = Count(A.second), CB = Count(B.second);
    return CA != CB ? CA > CB : A.first < B.first;
  });
  if (O.Json) {
    llvm::json::Array Ts, Rs;
    for (const driver::Target &T : Targets) {
      const TargetStats &S = Stats[T.Arch];
      Ts.push_back(llvm::json::Object{{"arch", T.Arch},
                                      {"modules", int64_t(S.Modules)},
                                      {"hits", int64_t(S.Hits)},
                                      {"compiled", int64_t(S.Compiled)},
                                      {"module_errors", int64_t(S.Errors)},
                                      {"kernels_compiled", int64_t(S.KernelsOk)},
                                      {"kernels_failed", int64_t(S.KernelsFailed)},
                                      {"not_cached", int64_t(S.NotCached)}});
    }
    for (auto &[Reason, PerArch] : ByCount) {
      llvm::json::Object A;
      for (auto &[Arch, N] : PerArch)
        A[Arch] = int64_t(N);
      Rs.push_back(llvm::json::Object{
          {"reason", Reason}, {"kernels", int64_t(Count(PerArch))}, {"by_arch", std::move(A)}});
    }
    llvm::json::Object Top{{"files", int64_t(FilesScanned)},
                           {"files_with_ptx", int64_t(FilesWithPtx)},
                           {"ptx_entries", int64_t(Entries)},
                           {"duplicates", int64_t(Duplicates)},
                           {"modules", int64_t(Modules.size())},
                           {"ptx_bytes", int64_t(BytesTotal)},
                           {"targets", std::move(Ts)},
                           {"failures", std::move(Rs)},
                           {"seconds", Seconds},
                           {"jobs", int64_t(O.Jobs)}};
    if (!O.Output.empty())
      Top["output"] = O.Output;
    llvm::outs() << llvm::formatv("{0:2}\n", llvm::json::Value(std::move(Top)));
    return;
  }
  auto &OS = llvm::outs();
  OS << fmt::format("{} unique PTX modules ({} entries, {} duplicates) in {} of {} files, {} "
                    "target{}, {} in {} with {} job{}\n",
                    Modules.size(), Entries, Duplicates, FilesWithPtx, FilesScanned, Targets.size(),
                    Targets.size() == 1 ? "" : "s",
                    fmt::format("{:.1f} MB of PTX", BytesTotal / 1e6), humanTime(Seconds), O.Jobs,
                    O.Jobs == 1 ? "" : "s");
  OS << fmt::format("{:<10}{:>9}{:>9}{:>10}{:>8}{:>12}{:>12}\n", "target", "modules", "hits",
                    "compiled", "errors", "kernels ok", "kernels bad");
  for (const driver::Target &T : Targets) {
    const TargetStats &S = Stats[T.Arch];
    OS << fmt::format("{:<10}{:>9}{:>9}{:>10}{:>8}{:>12}{:>12}\n", T.Arch, S.Modules, S.Hits,
                      S.Compiled, S.Errors, S.KernelsOk, S.KernelsFailed);
  }
  if (Seconds > 0 && Kernels)
    OS << fmt::format("{:.1f} kernels/s\n", Kernels / Seconds);
  if (!ByCount.empty()) {
    OS << "failures by reason (kernels, or modules for module errors):\n";
    for (auto &[Reason, PerArch] : ByCount) {
      std::string Archs;
      for (auto &[Arch, N] : PerArch)
        Archs += fmt::format("{}{} {}", Archs.empty() ? "" : ", ", Arch, N);
      OS << fmt::format("  {:>6}  {}  ({})\n", Count(PerArch), Reason, Archs);
    }
  }
  if (!O.Output.empty())
    OS << "output layer: " << O.Output << "\n";
}

int Prewarm::run() {
  llvm::SmallVector<llvm::StringRef, 4> Archs;
  llvm::StringRef(O.Archs).split(Archs, ',', -1, false);
  if (Archs.empty()) {
    reportError("--arch needs at least one target");
    return ExitUsage;
  }
  for (llvm::StringRef A : Archs) {
    if (!backend::isSupportedArch(A)) {
      reportError("unsupported --arch '" + A.str() +
                  "' (expected gfx90a, gfx942, gfx1030, gfx1100 or gfx1201)");
      return ExitUsage;
    }
    driver::Target T;
    T.Arch = A.str();
    T.CodeObjectVersion = O.Cov;
    T.Wave64Mode = O.Wave64Mode;
    Targets.push_back(T);
  }
  if (O.Cov < 4 || O.Cov > 6) {
    reportError("--cov must be 4, 5 or 6");
    return ExitUsage;
  }
  if (O.Wave64Mode != "packed" && O.Wave64Mode != "single" && O.Wave64Mode != "auto") {
    reportError("--wave64-mode must be packed, single or auto");
    return ExitUsage;
  }
  driver::Compiler::Options DO;
  DO.OutputLayer = O.Output;
  DO.Isolation.TimeoutSeconds = O.Timeout;
  // The jobs share the cores: a large module's parts get the threads its job is worth.
  DO.CompileThreads = std::max(1u, std::thread::hardware_concurrency() / std::max(1u, O.Jobs));
  DO.OnWarning = [](const cache::Warning &W) {
    static std::mutex WarnLock; // the main cache and the output layer warn independently
    std::lock_guard<std::mutex> G(WarnLock);
    llvm::WithColor::warning(llvm::errs(), "reptx") << W.Message << "\n";
  };
  if (!O.Output.empty()) {
    std::error_code EC = llvm::sys::fs::create_directories(O.Output);
    if (EC) {
      reportError(O.Output + ": " + EC.message());
      return ExitBadInput;
    }
    llvm::SmallString<256> Abs(O.Output);
    llvm::sys::fs::make_absolute(Abs);
    DO.OutputLayer = std::string(Abs);
  }
  auto Co = driver::Compiler::create(std::move(DO));
  if (!Co) {
    reportError(llvm::toString(Co.takeError()));
    return ExitBadInput;
  }
  C = std::move(*Co);

  Start = std::chrono::steady_clock::now();
  for (const std::string &P : O.Paths)
    if (!discover(P))
      IOError = true;
  // Largest modules first: they bound the wall time, and the small ones fill in around them.
  std::sort(Modules.begin(), Modules.end(), [](const ModuleRef &A, const ModuleRef &B) {
    return A.Size != B.Size ? A.Size > B.Size : A.Name < B.Name;
  });
  for (const ModuleRef &M : Modules)
    BytesTotal += M.Size * Targets.size();
  for (const driver::Target &T : Targets)
    Stats[T.Arch];

  Tty = ::isatty(2);
  LastLine = std::chrono::steady_clock::now();
  unsigned N = std::max(1u, std::min<unsigned>(O.Jobs, Modules.size() * Targets.size()));
  std::vector<std::thread> Threads;
  for (unsigned I = 0; I < N; ++I)
    Threads.emplace_back([this] { worker(); });
  for (std::thread &T : Threads)
    T.join();
  {
    std::lock_guard<std::mutex> G(Lock);
    if (Done && Tty)
      progress(true); // the last state of the progress line; plain logs get the summary only
  }
  double Seconds = std::chrono::duration_cast<std::chrono::duration<double>>(
                       std::chrono::steady_clock::now() - Start)
                       .count();
  for (size_t I = 0; I < ModuleErrors.size() && I < 20; ++I)
    reportError(ModuleErrors[I]);
  if (ModuleErrors.size() > 20)
    reportError(fmt::format("... and {} more module errors", ModuleErrors.size() - 20));
  printSummary(Seconds);
  return IOError ? ExitBadInput : ExitOk;
}

} // namespace

Runner addPrewarmCommand(CLI::App &App) {
  auto *Cmd = App.add_subcommand(
      "prewarm", "Compile every PTX module of CUDA binaries ahead of time into the kernel cache");
  auto O = std::make_shared<PrewarmOpts>();
  Cmd->add_option("paths", O->Paths, "Files and directories (searched recursively)")->required();
  Cmd->add_option("--arch", O->Archs,
                  "Targets, comma-separated: gfx90a, gfx942, gfx1030, gfx1100, gfx1201")
      ->capture_default_str();
  Cmd->add_option("--wave64-mode", O->Wave64Mode,
                  "Warps on wave64 targets: packed (two per wave), single, or auto (as the "
                  "loader: single for modules whose warps wait on each other)")
      ->capture_default_str();
  Cmd->add_option("--cov", O->Cov, "Code object version: 4, 5 or 6")->capture_default_str();
  Cmd->add_option("--output", O->Output,
                  "Write every result into DIR, a self-contained cache layer to ship read-only "
                  "(REPTX_CACHE_READONLY_PATHS=DIR)");
  Cmd->add_option("-j,--jobs", O->Jobs, "Parallel compiles (default: all cores)");
  Cmd->add_option("--timeout", O->Timeout, "Seconds one module may take to compile (0: no limit)")
      ->capture_default_str();
  Cmd->add_flag("--json", O->Json, "Print the summary as JSON");
  Cmd->add_flag("--no-progress", O->NoProgress, "No progress lines on stderr");
  return [O] {
    if (O->Jobs == 0)
      O->Jobs = std::max(1u, std::thread::hardware_concurrency());
    return Prewarm(*O).run();
  };
}

} // namespace reptx::tool
