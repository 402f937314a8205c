// `reptx parse`: parse PTX files (or every PTX entry of CUDA binaries), report errors like a
// compiler, print a summary, or re-emit normalized PTX.
#include "Commands.h"

#include "reptx/frontend-ptx/Fatbin.h"
#include "reptx/frontend-ptx/InstructionTable.h"
#include "reptx/frontend-ptx/Parser.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <fmt/format.h>

#include <map>

namespace reptx::tool {

namespace {

struct ParseOpts {
  std::vector<std::string> Paths;
  bool Print = false;
  bool Quiet = false;
};

struct Summary {
  unsigned Modules = 0, Kernels = 0, Functions = 0, Errors = 0;
  uint64_t Instructions = 0;
  std::vector<uint64_t> ByFamily = std::vector<uint64_t>(ptx::instructionFamilies().size());

  void countBlock(const ptx::Module &M, const ptx::Block &B) {
    for (const ptx::Statement &S : B.Body) {
      if (S.K == ptx::Statement::Instr) {
        ++Instructions;
        ++ByFamily[M.family(S)];
      } else if (S.K == ptx::Statement::Scope) {
        countBlock(M, *S.B);
      }
    }
  }
};

/// Parses one PTX text; returns false when it has errors (already printed).
bool parseOne(const std::string &Name, std::string Text, const ParseOpts &O, Summary &Sum) {
  ptx::ParseResult R = ptx::parse(Name, std::move(Text));
  ++Sum.Modules;
  for (const ptx::Diagnostic &D : R.Errors)
    ptx::printDiagnostic(llvm::errs(), *R.M, D);
  Sum.Errors += R.Errors.size();
  if (!R.ok())
    return false;
  for (const ptx::TopLevel &T : R.M->Items)
    if (T.K == ptx::TopLevel::Func && T.F->Body) {
      ++(T.F->IsEntry ? Sum.Kernels : Sum.Functions);
      Sum.countBlock(*R.M, *T.F->Body);
    }
  if (O.Print)
    ptx::print(llvm::outs(), *R.M);
  return true;
}

int runParse(const ParseOpts &O) {
  Summary Sum;
  bool Ok = true;
  for (const std::string &Path : O.Paths) {
    auto Buf =
        llvm::MemoryBuffer::getFile(Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
    if (!Buf) {
      reportError(Path + ": " + Buf.getError().message());
      Ok = false;
      continue;
    }
    llvm::StringRef Bytes = (*Buf)->getBuffer();
    if (Bytes.starts_with("\x7f"
                          "ELF") ||
        Bytes.starts_with("!<arch>\n") || Bytes.starts_with("\x50\xed\x55\xba")) {
      // A CUDA binary: parse each of its PTX entries.
      auto F = fatbin::scanFile(Path);
      if (!F) {
        reportError(llvm::toString(F.takeError()));
        Ok = false;
        continue;
      }
      for (size_t CI = 0; CI < F->containers().size(); ++CI)
        for (size_t EI = 0; EI < F->containers()[CI].Entries.size(); ++EI) {
          const fatbin::Entry &E = F->containers()[CI].Entries[EI];
          if (E.Kind != fatbin::EntryKind::PTX)
            continue;
          auto Text = F->ptxText(E);
          if (!Text) {
            reportError(llvm::toString(Text.takeError()));
            Ok = false;
            continue;
          }
          Ok &= parseOne(fmt::format("{}[c{}.e{}.{}]", Path, CI, EI, E.arch()), std::move(*Text), O,
                         Sum);
        }
      continue;
    }
    Ok &= parseOne(Path, Bytes.str(), O, Sum);
  }
  if (!O.Quiet && !O.Print) {
    llvm::outs() << fmt::format("{} module{}, {} kernel{}, {} function{}, {} instructions, {} "
                                "error{}\n",
                                Sum.Modules, Sum.Modules == 1 ? "" : "s", Sum.Kernels,
                                Sum.Kernels == 1 ? "" : "s", Sum.Functions,
                                Sum.Functions == 1 ? "" : "s", Sum.Instructions, Sum.Errors,
                                Sum.Errors == 1 ? "" : "s");
    std::map<std::string, uint64_t> ByCategory;
    for (size_t I = 0; I < Sum.ByFamily.size(); ++I)
      if (Sum.ByFamily[I])
        ByCategory[ptx::instructionFamilies()[I].Category.str()] += Sum.ByFamily[I];
    for (auto &[Cat, N] : ByCategory)
      llvm::outs() << fmt::format("  {:<10} {:>12}\n", Cat, N);
  }
  return Ok ? ExitOk : ExitBadInput;
}

} // namespace

Runner addParseCommand(CLI::App &App) {
  auto *Cmd = App.add_subcommand("parse", "Parse PTX (files, or the PTX inside CUDA binaries)");
  Cmd->alias("check");
  auto O = std::make_shared<ParseOpts>();
  Cmd->add_option("files", O->Paths, "PTX files or CUDA binaries")->required();
  Cmd->add_flag("--print", O->Print, "Re-emit the parsed PTX in normalized form");
  Cmd->add_flag("-q,--quiet", O->Quiet, "Errors only, no summary");
  return [O] { return runParse(*O); };
}

} // namespace reptx::tool
