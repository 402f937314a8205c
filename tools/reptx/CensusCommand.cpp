// `reptx census CO.hsaco|DIR... [--json]`: the machine instructions of code objects (every
// kernel and function), with counts and whether the emulator implements each mnemonic. Exit 3
// when any is not implemented (2: unreadable input).
#include "Commands.h"

#include "reptx/emulator/Census.h"
#include "reptx/emulator/CodeObject.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace reptx::tool {

namespace {

constexpr int ExitMissing = 3;

struct CensusOptions {
  std::vector<std::string> Inputs;
  bool Json = false;
};

// The code object files named: files as given, directories searched recursively for *.hsaco.
std::vector<std::string> expand(const std::vector<std::string> &Inputs) {
  std::vector<std::string> Files;
  for (const std::string &In : Inputs) {
    if (!llvm::sys::fs::is_directory(In)) {
      Files.push_back(In);
      continue;
    }
    std::error_code EC;
    for (llvm::sys::fs::recursive_directory_iterator It(In, EC), End; It != End && !EC;
         It.increment(EC))
      if (llvm::StringRef(It->path()).ends_with(".hsaco"))
        Files.push_back(It->path());
  }
  std::sort(Files.begin(), Files.end());
  return Files;
}

int runCensus(const CensusOptions &O) {
  std::map<std::string, emulator::MnemonicUse> Uses;
  std::vector<std::string> Files = expand(O.Inputs);
  if (Files.empty()) {
    reportError("no code objects found");
    return ExitBadInput;
  }
  for (const std::string &F : Files) {
    auto Buf = llvm::MemoryBuffer::getFile(F, /*IsText=*/false, /*RequiresNullTerminator=*/false);
    if (!Buf) {
      reportError("cannot read " + F + ": " + Buf.getError().message());
      return ExitBadInput;
    }
    llvm::ArrayRef<uint8_t> Bytes(reinterpret_cast<const uint8_t *>((*Buf)->getBufferStart()),
                                  (*Buf)->getBufferSize());
    auto CO = emulator::CodeObject::load(Bytes);
    if (!CO) {
      reportError(F + ": " + llvm::toString(CO.takeError()));
      return ExitBadInput;
    }
    emulator::addCensus(**CO, Uses);
  }
  unsigned Missing = 0;
  uint64_t Total = 0;
  for (auto &[M, U] : Uses) {
    Missing += !U.Supported;
    Total += U.Count;
  }
  double Pct = Uses.empty() ? 100.0 : 100.0 * double(Uses.size() - Missing) / double(Uses.size());
  auto &OS = llvm::outs();
  if (O.Json) {
    llvm::json::Array Arr;
    for (auto &[M, U] : Uses) {
      llvm::json::Object Obj{
          {"mnemonic", M}, {"count", int64_t(U.Count)}, {"implemented", U.Supported}};
      if (!U.Supported) {
        Obj["example"] = U.Example;
        Obj["problem"] = U.Problem;
      }
      Arr.push_back(std::move(Obj));
    }
    llvm::json::Object Root{{"code_objects", int64_t(Files.size())},
                            {"instructions", int64_t(Total)},
                            {"distinct", int64_t(Uses.size())},
                            {"missing", int64_t(Missing)},
                            {"mnemonics", std::move(Arr)}};
    OS << llvm::formatv("{0:2}", llvm::json::Value(std::move(Root))) << "\n";
  } else {
    for (auto &[M, U] : Uses)
      OS << fmt::format("{:<40} {:>9}  {}\n", M, U.Count,
                        U.Supported ? "yes" : "MISSING: " + U.Problem + " ('" + U.Example + "')");
    OS << fmt::format("{} code objects, {} instructions, {} distinct mnemonics, {} implemented "
                      "({:.1f}%), {} missing\n",
                      Files.size(), Total, Uses.size(), Uses.size() - Missing, Pct, Missing);
  }
  return Missing ? ExitMissing : ExitOk;
}

} // namespace

Runner addCensusCommand(CLI::App &App) {
  auto O = std::make_shared<CensusOptions>();
  CLI::App *Sub = App.add_subcommand(
      "census", "List the machine instructions of code objects and whether the emulator "
                "implements them (exit 3 when any is missing)");
  Sub->add_option("inputs", O->Inputs, "Code objects (.hsaco), or directories searched for them")
      ->required();
  Sub->add_flag("--json", O->Json, "JSON output");
  return [O] { return runCensus(*O); };
}

} // namespace reptx::tool
