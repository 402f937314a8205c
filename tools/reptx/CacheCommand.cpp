// `reptx cache stats | list | verify | prune | clear | export | import`: inspecting and maintaining
// the kernel cache configured by the REPTX_CACHE_* environment variables, like ccache's commands.
#include "Commands.h"

#include "reptx/cache/Cache.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <fmt/format.h>

#include <ctime>

namespace reptx::tool {

using namespace reptx::cache;

namespace {

struct CacheOptions {
  bool Json = false;
  std::string MaxSize;
  std::string File;
};

void printWarning(const Warning &W) {
  llvm::WithColor::warning(llvm::errs(), "reptx") << W.Message << "\n";
}

/// The cache as the environment configures it; nullptr after reporting an error (Exit says the
/// code). The maintenance commands work even when REPTX_CACHE_DISABLE is set: disabling stops
/// compilation from using the cache, not its upkeep.
std::unique_ptr<Cache> openFromEnvironment(int &Exit) {
  auto C = configFromProcessEnvironment();
  if (!C) {
    reportError(llvm::toString(C.takeError()));
    Exit = ExitUsage;
    return nullptr;
  }
  if (!C->Enabled) {
    llvm::WithColor::note(llvm::errs(), "reptx")
        << "REPTX_CACHE_DISABLE is set: compilation does not use the cache\n";
    C->Enabled = true;
  }
  auto Ca = Cache::open(*C, printWarning);
  if (!Ca) {
    reportError(llvm::toString(Ca.takeError()));
    Exit = ExitBadInput;
    return nullptr;
  }
  return std::move(*Ca);
}

std::string ratio(uint64_t Uncompressed, uint64_t Stored) {
  return Stored ? fmt::format("{:.2f}x", double(Uncompressed) / Stored) : "-";
}

std::string targetOf(const Key &K) {
  std::string T = K.Arch;
  for (const std::string &F : K.Features)
    T += ":" + F;
  return fmt::format("{} w{} cov{}", T, K.WaveSize, K.CodeObjectVersion);
}

std::string timeOf(int64_t Ns) {
  std::time_t T = Ns / 1000000000;
  std::tm Tm;
  ::localtime_r(&T, &Tm);
  char B[32];
  std::strftime(B, sizeof B, "%Y-%m-%d %H:%M:%S", &Tm);
  return B;
}

int runStats(Cache &C, bool Json) {
  auto S = C.stats();
  if (!S) {
    reportError(llvm::toString(S.takeError()));
    return ExitBadInput;
  }
  if (Json) {
    llvm::json::Array Layers;
    for (const LayerStats &L : S->Layers)
      Layers.push_back(llvm::json::Object{{"path", L.Layer.Path},
                                          {"writable", L.Layer.Writable},
                                          {"entries", int64_t(L.Entries)},
                                          {"stored_bytes", int64_t(L.StoredBytes)},
                                          {"uncompressed_bytes", int64_t(L.UncompressedBytes)},
                                          {"disk_bytes", int64_t(L.DiskBytes)},
                                          {"unreadable", int64_t(L.Unreadable)},
                                          {"temp_files", int64_t(L.TempFiles)}});
    llvm::outs() << llvm::formatv(
        "{0:2}\n", llvm::json::Value(llvm::json::Object{{"max_size", int64_t(S->MaxSize)},
                                                        {"layers", std::move(Layers)}}));
    return ExitOk;
  }
  auto &OS = llvm::outs();
  if (S->Layers.empty())
    OS << "no cache layers (no writable directory and no read-only layer)\n";
  for (const LayerStats &L : S->Layers) {
    OS << fmt::format("{:<20}{}\n", L.Layer.Writable ? "cache directory" : "read-only layer",
                      L.Layer.Path);
    OS << fmt::format("  {:<18}{}\n", "entries", L.Entries);
    OS << fmt::format("  {:<18}{} stored, {} uncompressed ({})\n", "size",
                      formatSize(L.StoredBytes), formatSize(L.UncompressedBytes),
                      ratio(L.UncompressedBytes, L.StoredBytes));
    if (L.Layer.Writable) {
      if (S->MaxSize)
        OS << fmt::format("  {:<18}{} of {} cap ({:.1f}%)\n", "disk usage", formatSize(L.DiskBytes),
                          formatSize(S->MaxSize), 100.0 * L.DiskBytes / S->MaxSize);
      else
        OS << fmt::format("  {:<18}{} (no cap)\n", "disk usage", formatSize(L.DiskBytes));
    }
    if (L.Unreadable)
      OS << fmt::format("  {:<18}{} (run 'reptx cache verify')\n", "damaged", L.Unreadable);
    if (L.TempFiles)
      OS << fmt::format("  {:<18}{}\n", "temporary files", L.TempFiles);
  }
  return ExitOk;
}

int runList(Cache &C, bool Json) {
  llvm::json::Array Rows;
  auto &OS = llvm::outs();
  if (!Json)
    OS << fmt::format("{:<32}  {:<5}  {:<30}  {:>10}  {:>12}  {:<19}  {}\n", "digest", "layer",
                      "target", "stored", "uncompressed", "last used", "kernel");
  llvm::ArrayRef<LayerInfo> Layers = C.layers();
  llvm::Error E = C.list([&](const ListedEntry &L) {
    std::string Layer = Layers[L.Layer].Writable ? "rw" : fmt::format("ro{}", L.Layer);
    if (Json) {
      llvm::json::Object O{{"digest", L.Name.hex()},
                           {"path", L.Path},
                           {"layer", Layers[L.Layer].Path},
                           {"writable", Layers[L.Layer].Writable},
                           {"stored_bytes", int64_t(L.FileSize)},
                           {"uncompressed_bytes", int64_t(L.UncompressedSize)},
                           {"last_used_ns", L.LastUsedNs}};
      if (L.EntryKey) {
        const Key &K = *L.EntryKey;
        llvm::json::Array Features;
        for (const std::string &F : K.Features)
          Features.push_back(F);
        O["key"] = llvm::json::Object{{"ptx_xxh3_128", K.PtxHash.hex()},
                                      {"ptx_size", int64_t(K.PtxSize)},
                                      {"ptxas_options", K.PtxasOptions},
                                      {"arch", K.Arch},
                                      {"features", std::move(Features)},
                                      {"wave_size", int64_t(K.WaveSize)},
                                      {"wave_mode", K.WaveMode},
                                      {"code_object_version", int64_t(K.CodeObjectVersion)},
                                      {"kernel", K.Kernel},
                                      {"reptx_version", K.Compiler.ReptxVersion},
                                      {"build_id", K.Compiler.BuildId},
                                      {"llvm_version", K.Compiler.LLVMVersion}};
      }
      if (!L.Problem.empty())
        O["problem"] = L.Problem;
      Rows.push_back(std::move(O));
      return;
    }
    if (!L.Problem.empty()) {
      OS << fmt::format("{:<32}  {:<5}  damaged: {}\n", L.Name.hex(), Layer, L.Problem);
      return;
    }
    OS << fmt::format("{:<32}  {:<5}  {:<30}  {:>10}  {:>12}  {:<19}  {}\n", L.Name.hex(), Layer,
                      targetOf(*L.EntryKey), formatSize(L.FileSize), formatSize(L.UncompressedSize),
                      timeOf(L.LastUsedNs),
                      L.EntryKey->Kernel.empty() ? "(module)" : L.EntryKey->Kernel);
  });
  if (E) {
    reportError(llvm::toString(std::move(E)));
    return ExitBadInput;
  }
  if (Json)
    OS << llvm::formatv("{0:2}\n", llvm::json::Value(std::move(Rows)));
  return ExitOk;
}

int runVerify(Cache &C) {
  auto R = C.verify();
  if (!R) {
    reportError(llvm::toString(R.takeError()));
    return ExitBadInput;
  }
  for (const std::string &P : R->Problems)
    llvm::outs() << P << "\n";
  llvm::outs() << fmt::format("checked {} entries: {} corrupt ({} removed); {} stray files and {} "
                              "interrupted temporary files removed\n",
                              R->Checked, R->Corrupt, R->Removed, R->StrayRemoved,
                              R->TempFilesRemoved);
  return R->Corrupt ? ExitBadInput : ExitOk;
}

int runPrune(Cache &C, const std::string &MaxSize) {
  std::optional<uint64_t> Max;
  if (!MaxSize.empty()) {
    auto N = parseSize(MaxSize);
    if (!N) {
      reportError("--max-size: " + llvm::toString(N.takeError()));
      return ExitUsage;
    }
    Max = *N;
  }
  auto R = C.prune(Max);
  if (!R) {
    reportError(llvm::toString(R.takeError()));
    return ExitBadInput;
  }
  llvm::outs() << fmt::format("pruned {} -> {}: {} entries evicted, {} interrupted temporary "
                              "files removed\n",
                              formatSize(R->BytesBefore), formatSize(R->BytesAfter), R->Evicted,
                              R->TempFilesRemoved);
  return ExitOk;
}

int runClear(Cache &C) {
  auto R = C.clear();
  if (!R) {
    reportError(llvm::toString(R.takeError()));
    return ExitBadInput;
  }
  llvm::outs() << fmt::format("removed {} entries ({})\n", R->Removed, formatSize(R->Bytes));
  return ExitOk;
}

int runArchive(Cache &C, const std::string &File, bool Export) {
  auto R = Export ? C.exportArchive(File) : C.importArchive(File);
  if (!R) {
    reportError(llvm::toString(R.takeError()));
    return ExitBadInput;
  }
  for (const std::string &P : R->Problems)
    llvm::WithColor::warning(llvm::errs(), "reptx") << P << "\n";
  llvm::outs() << fmt::format("{} {} entries ({}) {} {}\n", Export ? "exported" : "imported",
                              R->Entries, formatSize(R->Bytes), Export ? "to" : "from", File);
  // Export leaves damaged entries out and still succeeds; import reports damaged records.
  return !Export && R->Skipped ? ExitBadInput : ExitOk;
}

} // namespace

Runner addCacheCommand(CLI::App &App) {
  auto *Cmd = App.add_subcommand("cache", "Inspect and maintain the kernel cache (REPTX_CACHE_*)");
  Cmd->require_subcommand(1);
  auto O = std::make_shared<CacheOptions>();
  auto *Stats = Cmd->add_subcommand("stats", "Entries, sizes, cap and layers");
  Stats->add_flag("--json", O->Json, "Machine-readable output");
  auto *List = Cmd->add_subcommand("list", "One line per entry of every layer");
  List->add_flag("--json", O->Json, "Machine-readable output");
  auto *Verify = Cmd->add_subcommand(
      "verify", "Check every entry; remove corrupt ones (exit code 2 when any were found)");
  auto *Prune = Cmd->add_subcommand("prune", "Evict least recently used entries down to a size");
  Prune->add_option("--max-size", O->MaxSize,
                    "Size to prune to, e.g. 500M or 2G (default REPTX_CACHE_MAXSIZE)");
  auto *Clear = Cmd->add_subcommand("clear", "Remove every entry of the writable cache");
  auto *Export = Cmd->add_subcommand("export", "Write every entry to one archive file");
  Export->add_option("file", O->File, "Archive to write")->required();
  auto *Import = Cmd->add_subcommand("import", "Check an archive and store its entries");
  Import->add_option("file", O->File, "Archive to read")->required()->check(CLI::ExistingFile);

  return [=]() -> int {
    int Exit = ExitOk;
    std::unique_ptr<Cache> C = openFromEnvironment(Exit);
    if (!C)
      return Exit;
    Cache &Ca = *C;
    if (Stats->parsed())
      return runStats(Ca, O->Json);
    if (List->parsed())
      return runList(Ca, O->Json);
    if (Verify->parsed())
      return runVerify(Ca);
    if (Prune->parsed())
      return runPrune(Ca, O->MaxSize);
    if (Clear->parsed())
      return runClear(Ca);
    if (Export->parsed())
      return runArchive(Ca, O->File, /*Export=*/true);
    if (Import->parsed())
      return runArchive(Ca, O->File, /*Export=*/false);
    return ExitUsage;
  };
}

} // namespace reptx::tool
