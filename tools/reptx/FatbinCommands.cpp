// `reptx list` and `reptx extract`: what a CUDA binary's fatbins hold, and the entries as files.
#include "Commands.h"

#include "reptx/frontend-ptx/Fatbin.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Parallel.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <fmt/format.h>

#include <atomic>
#include <mutex>

namespace reptx::tool {

using namespace reptx::fatbin;

void reportError(const std::string &Msg) {
  llvm::WithColor::error(llvm::errs(), "reptx") << Msg << "\n";
}

llvm::Error writeFile(const std::string &Path, llvm::StringRef Bytes) {
  std::error_code EC;
  llvm::raw_fd_ostream OS(Path, EC, llvm::sys::fs::OF_None);
  if (!EC) {
    OS << Bytes;
    OS.close();
    EC = OS.error();
    OS.clear_error(); // returned here, not an LLVM fatal error when OS is destroyed
  }
  if (EC)
    return llvm::createStringError(EC, Path + ": " + EC.message());
  return llvm::Error::success();
}

namespace {

std::string versionString(const Entry &E) { return fmt::format("{}.{}", E.Major, E.Minor); }

llvm::StringRef originName(ContainerOrigin O) {
  switch (O) {
  case ContainerOrigin::Section:
    return "section";
  case ContainerOrigin::Wrapper:
    return "wrapper";
  case ContainerOrigin::Scan:
    return "scan";
  case ContainerOrigin::Bare:
    return "bare";
  }
  return "scan";
}

/// Accepts "sm_80", "sm_90a", "compute_80" or "80"; returns the SM number or 0.
unsigned parseArch(llvm::StringRef S) {
  S.consume_front("sm_") || S.consume_front("compute_");
  S = S.rtrim("af");
  unsigned N = 0;
  return S.getAsInteger(10, N) ? 0 : N;
}

struct EntryInfo {
  unsigned Kernels = 0;
  std::string Error;
};

/// Decodes every PTX and cubin entry of the files in parallel to count its kernels.
std::vector<std::vector<EntryInfo>> ptxInfo(const std::vector<FatbinFile> &Files, unsigned Jobs) {
  std::vector<std::vector<EntryInfo>> Info(Files.size());
  std::vector<std::pair<size_t, size_t>> Work; // (file, flat entry index)
  std::vector<std::vector<const Entry *>> Flat(Files.size());
  for (size_t FI = 0; FI < Files.size(); ++FI) {
    for (const Container &C : Files[FI].containers())
      for (const Entry &E : C.Entries)
        Flat[FI].push_back(&E);
    Info[FI].resize(Flat[FI].size());
    for (size_t I = 0; I < Flat[FI].size(); ++I)
      if (Flat[FI][I]->Kind == EntryKind::PTX || Flat[FI][I]->Kind == EntryKind::Cubin)
        Work.emplace_back(FI, I);
  }
  llvm::parallelFor(0, Work.size(), [&](size_t W) {
    auto [FI, I] = Work[W];
    if (Flat[FI][I]->Kind == EntryKind::Cubin) {
      auto Elf = Files[FI].payload(*Flat[FI][I]);
      auto Kernels =
          Elf ? cubinKernels(*Elf) : llvm::Expected<std::vector<std::string>>(Elf.takeError());
      if (!Kernels)
        Info[FI][I].Error = llvm::toString(Kernels.takeError());
      else
        Info[FI][I].Kernels = unsigned(Kernels->size());
      return;
    }
    auto Text = Files[FI].ptxText(*Flat[FI][I]);
    if (!Text)
      Info[FI][I].Error = llvm::toString(Text.takeError());
    else
      Info[FI][I].Kernels = countPtxKernels(*Text);
  });
  return Info;
}

bool scanAll(const std::vector<std::string> &Paths, std::vector<FatbinFile> &Files) {
  bool Ok = true;
  for (const std::string &P : Paths) {
    auto F = scanFile(P);
    if (!F) {
      reportError(llvm::toString(F.takeError()));
      Ok = false;
      continue;
    }
    Files.push_back(std::move(*F));
  }
  return Ok;
}

void setJobs(unsigned Jobs) {
  if (Jobs)
    llvm::parallel::strategy = llvm::hardware_concurrency(Jobs);
}

int runList(const std::vector<std::string> &Paths, bool Json, unsigned Jobs) {
  setJobs(Jobs);
  std::vector<FatbinFile> Files;
  bool Ok = scanAll(Paths, Files);
  auto Info = ptxInfo(Files, Jobs);
  for (auto &FileInfo : Info)
    for (auto &I : FileInfo)
      if (!I.Error.empty()) {
        reportError(I.Error);
        Ok = false;
      }

  if (Json) {
    llvm::json::OStream J(llvm::outs(), 1);
    J.object([&] {
      J.attributeArray("files", [&] {
        for (size_t FI = 0; FI < Files.size(); ++FI) {
          const FatbinFile &F = Files[FI];
          size_t Flat = 0;
          J.object([&] {
            J.attribute("path", F.path());
            J.attribute("file_kind", fileKindName(F.kind()));
            J.attributeArray("wrappers", [&] {
              for (const Wrapper &W : F.wrappers())
                J.object([&] {
                  J.attribute("offset", int64_t(W.Offset));
                  J.attribute("version", int64_t(W.Version));
                  if (W.ContainerOffset)
                    J.attribute("container_offset", int64_t(*W.ContainerOffset));
                });
            });
            J.attributeArray("containers", [&] {
              for (size_t CI = 0; CI < F.containers().size(); ++CI) {
                const Container &C = F.containers()[CI];
                J.object([&] {
                  J.attribute("index", int64_t(CI));
                  J.attribute("offset", int64_t(C.Offset));
                  J.attribute("size", int64_t(C.HeaderSize + C.FatSize));
                  J.attribute("section", C.Section);
                  J.attribute("origin", originName(C.Origin));
                  J.attributeArray("entries", [&] {
                    for (size_t EI = 0; EI < C.Entries.size(); ++EI, ++Flat) {
                      const Entry &E = C.Entries[EI];
                      J.object([&] {
                        J.attribute("index", int64_t(EI));
                        J.attribute("offset", int64_t(E.Offset));
                        J.attribute("kind", kindName(E.Kind));
                        J.attribute("arch", E.arch());
                        J.attribute("sm", int64_t(E.Arch));
                        J.attribute("version", versionString(E));
                        J.attribute("flags", llvm::formatv("{0:x}", E.Flags).str());
                        J.attribute("compression", compressionName(E.compression()));
                        J.attribute("encrypted", E.encrypted());
                        J.attribute("header_size", int64_t(E.HeaderSize));
                        J.attribute("stored_size", int64_t(E.storedSize()));
                        J.attribute("uncompressed_size", int64_t(E.declaredSize()));
                        if (E.Kind == EntryKind::PTX) {
                          J.attribute("kernels", int64_t(Info[FI][Flat].Kernels));
                          J.attribute("options", E.Aux);
                        } else if (E.Kind == EntryKind::LTOIR) {
                          J.attribute("options", E.Aux);
                        } else {
                          J.attribute("kernels", int64_t(Info[FI][Flat].Kernels));
                          if (!E.Aux.empty())
                            J.attribute("aux_hex", llvm::toHex(E.Aux, /*LowerCase=*/true));
                        }
                        if (!E.Ident.empty())
                          J.attribute("ident", E.Ident);
                      });
                    }
                  });
                });
              }
            });
          });
        }
      });
    });
    llvm::outs() << "\n";
    return Ok ? ExitOk : ExitBadInput;
  }

  for (size_t FI = 0; FI < Files.size(); ++FI) {
    const FatbinFile &F = Files[FI];
    size_t NumEntries = 0;
    for (const Container &C : F.containers())
      NumEntries += C.Entries.size();
    llvm::outs() << fmt::format("{}: {}, {} fatbin container{}, {} entr{}\n", F.path(),
                                fileKindName(F.kind()).str(), F.containers().size(),
                                F.containers().size() == 1 ? "" : "s", NumEntries,
                                NumEntries == 1 ? "y" : "ies");
    if (!NumEntries)
      continue;
    llvm::outs() << fmt::format("  {:>9}  {:<5}  {:<8}  {:<7}  {:<5}  {:>10}  {:>10}  {:>7}  {}\n",
                                "ENTRY", "KIND", "ARCH", "VERSION", "COMPR", "STORED", "SIZE",
                                "KERNELS", "SECTION / OPTIONS");
    size_t Flat = 0;
    for (size_t CI = 0; CI < F.containers().size(); ++CI) {
      const Container &C = F.containers()[CI];
      for (size_t EI = 0; EI < C.Entries.size(); ++EI, ++Flat) {
        const Entry &E = C.Entries[EI];
        std::string Kernels =
            E.Kind != EntryKind::LTOIR ? std::to_string(Info[FI][Flat].Kernels) : std::string("-");
        std::string Where = fmt::format("{}@0x{:x}", C.Section, C.Offset);
        if (E.Kind != EntryKind::Cubin && !llvm::StringRef(E.Aux).trim().empty())
          Where += " [" + llvm::StringRef(E.Aux).trim().str() + "]";
        if (E.encrypted())
          Where += " (encrypted)";
        llvm::outs() << fmt::format(
            "  {:>9}  {:<5}  {:<8}  {:<7}  {:<5}  {:>10}  {:>10}  {:>7}  {}\n",
            fmt::format("{}.{}", CI, EI), kindName(E.Kind).str(), E.arch(), versionString(E),
            compressionName(E.compression()).str(), E.storedSize(), E.declaredSize(), Kernels,
            Where);
      }
    }
  }
  return Ok ? ExitOk : ExitBadInput;
}

struct ExtractOptions {
  std::vector<std::string> Paths;
  std::string OutDir;
  bool PtxOnly = false;
  std::vector<std::string> Archs;
  unsigned Jobs = 0;
};

int runExtract(const ExtractOptions &O) {
  setJobs(O.Jobs);
  std::vector<unsigned> Archs;
  for (const std::string &A : O.Archs) {
    unsigned N = parseArch(A);
    if (!N) {
      reportError("invalid --arch '" + A + "' (expected sm_XX)");
      return ExitUsage;
    }
    Archs.push_back(N);
  }
  if (std::error_code EC = llvm::sys::fs::create_directories(O.OutDir)) {
    reportError(O.OutDir + ": " + EC.message());
    return ExitBadInput;
  }
  std::vector<FatbinFile> Files;
  bool Ok = scanAll(O.Paths, Files);

  struct Task {
    const FatbinFile *F;
    const Entry *E;
    std::string Name;
  };
  std::vector<Task> Tasks;
  unsigned Encrypted = 0;
  for (const FatbinFile &F : Files) {
    std::string Base = llvm::sys::path::filename(F.path()).str();
    for (size_t CI = 0; CI < F.containers().size(); ++CI) {
      const Container &C = F.containers()[CI];
      for (size_t EI = 0; EI < C.Entries.size(); ++EI) {
        const Entry &E = C.Entries[EI];
        if (O.PtxOnly && E.Kind != EntryKind::PTX)
          continue;
        if (!Archs.empty() && llvm::find(Archs, E.Arch) == Archs.end())
          continue;
        if (E.encrypted()) {
          ++Encrypted;
          continue;
        }
        llvm::StringRef Ext = E.Kind == EntryKind::PTX     ? "ptx"
                              : E.Kind == EntryKind::Cubin ? "cubin"
                                                           : "ltoir";
        Tasks.push_back(
            {&F, &E, fmt::format("{}.c{}.e{}.{}.{}", Base, CI, EI, E.arch(), Ext.str())});
      }
    }
  }
  // Two inputs with the same file name would collide: number the later ones.
  {
    std::map<std::string, unsigned> Seen;
    std::map<const FatbinFile *, std::string> Prefix;
    for (const FatbinFile &F : Files) {
      std::string Base = llvm::sys::path::filename(F.path()).str();
      unsigned N = Seen[Base]++;
      if (N)
        Prefix[&F] = Base + "~" + std::to_string(N + 1);
    }
    for (Task &T : Tasks)
      if (auto It = Prefix.find(T.F); It != Prefix.end())
        T.Name = It->second + T.Name.substr(llvm::sys::path::filename(T.F->path()).size());
  }

  std::mutex ErrLock;
  std::atomic<bool> Failed{false};
  llvm::parallelFor(0, Tasks.size(), [&](size_t I) {
    const Task &T = Tasks[I];
    auto Report = [&](const std::string &Msg) {
      std::lock_guard<std::mutex> G(ErrLock);
      reportError(Msg);
      Failed = true;
    };
    auto Data = T.F->payload(*T.E);
    if (!Data)
      return Report(llvm::toString(Data.takeError()));
    llvm::StringRef Bytes(reinterpret_cast<const char *>(Data->data()), Data->size());
    if (T.E->Kind == EntryKind::PTX)
      Bytes = Bytes.take_front(strnlen(Bytes.data(), Bytes.size()));
    std::string Path = (llvm::Twine(O.OutDir) + "/" + T.Name).str();
    if (llvm::Error E = writeFile(Path, Bytes))
      return Report(llvm::toString(std::move(E)));
    if (T.E->Kind == EntryKind::PTX && !T.E->Aux.empty())
      if (llvm::Error E = writeFile(Path + ".options", llvm::StringRef(T.E->Aux.c_str())))
        return Report(llvm::toString(std::move(E)));
  });
  if (Failed)
    Ok = false;
  llvm::errs() << fmt::format("extracted {} entr{} into {}", Tasks.size(),
                              Tasks.size() == 1 ? "y" : "ies", O.OutDir);
  if (Encrypted)
    llvm::errs() << fmt::format(" ({} encrypted LTO-IR entr{} skipped)", Encrypted,
                                Encrypted == 1 ? "y" : "ies");
  llvm::errs() << "\n";
  return Ok ? ExitOk : ExitBadInput;
}

} // namespace

Runner addListCommand(CLI::App &App) {
  auto *Cmd = App.add_subcommand("list", "List the fatbin entries (PTX, cubin, LTO-IR) of files");
  struct Opts {
    std::vector<std::string> Paths;
    bool Json = false;
    unsigned Jobs = 0;
  };
  auto O = std::make_shared<Opts>();
  Cmd->add_option("files", O->Paths, "Executables, shared libraries, objects, archives, .fatbin")
      ->required();
  Cmd->add_flag("--json", O->Json, "Machine-readable output");
  Cmd->add_option("-j,--jobs", O->Jobs, "Threads for decoding (default: all cores)");
  return [O] { return runList(O->Paths, O->Json, O->Jobs); };
}

Runner addExtractCommand(CLI::App &App) {
  auto *Cmd = App.add_subcommand("extract", "Write every fatbin entry of files to a directory");
  auto O = std::make_shared<ExtractOptions>();
  Cmd->add_option("files", O->Paths, "Executables, shared libraries, objects, archives, .fatbin")
      ->required();
  Cmd->add_option("-o,--output", O->OutDir, "Output directory")->required();
  Cmd->add_flag("--ptx-only", O->PtxOnly, "Only PTX entries");
  Cmd->add_option("--arch", O->Archs, "Only entries for these architectures (sm_XX)");
  Cmd->add_option("-j,--jobs", O->Jobs, "Threads for decompression (default: all cores)");
  return [O] { return runExtract(*O); };
}

} // namespace reptx::tool
