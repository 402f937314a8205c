// `reptx compile`: lift PTX (a file, or every PTX entry of a CUDA binary, an executable's or
// shared library's -rdc units linked as the loader links them) to LLVM IR and compile it into HSA
// code objects for one or more AMDGPU targets; --emit-llvm prints the lifted IR; -v reports each
// kernel's resources as `ptxas -v` does.
#include "Commands.h"

#include "reptx/backend/Backend.h"
#include "reptx/driver/Driver.h"
#include "reptx/emulator/CodeObject.h"
#include "reptx/frontend-ptx/Fatbin.h"
#include "reptx/frontend-ptx/Link.h"
#include "reptx/frontend-ptx/Parser.h"
#include "reptx/ir/Lift.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <fmt/format.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

namespace reptx::tool {

namespace {

struct CompileOpts {
  std::string Input;
  std::string Archs = "gfx942";
  std::string Output;
  bool EmitLLVM = false;
  bool NoCache = false;
  unsigned Cov = 5;
  std::string Wave64Mode = "packed";
  unsigned Threads = 0;
  unsigned Timeout = 600;
  bool Bundle = false;
  bool Verbose = false;
  bool WarnSpills = false;
  bool WarnScratch = false;
};

struct PtxInput {
  std::string Name; // used in diagnostics and output file names
  std::string Text;
  std::string PtxasOptions; // of the fatbin entry
};

// -v, --warn-on-spills, --warn-on-local-memory-usage: each kernel's resources as its code object's
// metadata states them, in the shape of `ptxas -v` (stderr, "reptx info    : ..."). Register
// counts are per lane; a VGPR spill takes 4 bytes of scratch per lane.
void reportResources(llvm::StringRef Bytes, const std::string &Arch, bool Cached,
                     const CompileOpts &O) {
  auto CO = emulator::CodeObject::load(
      llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(Bytes.data()), Bytes.size()));
  if (!CO) {
    reportError(Arch +
                ": cannot read the code object's metadata: " + llvm::toString(CO.takeError()));
    return;
  }
  llvm::raw_ostream &OS = llvm::errs();
  for (const emulator::Kernel &K : (*CO)->kernels()) {
    std::string Stack = fmt::format("{} bytes stack frame{}", K.PrivateSegmentFixedSize,
                                    K.UsesDynamicStack ? " plus a dynamic stack" : "");
    if (O.Verbose) {
      OS << fmt::format("reptx info    : {} entry function '{}' for '{}' (wave{})\n",
                        Cached ? "Cached" : "Compiled", K.Name, Arch, K.WavefrontSize);
      OS << fmt::format("reptx info    : Function properties for {}\n", K.Name);
      OS << fmt::format("    {}, {} VGPRs spilled, {} SGPRs spilled\n", Stack, K.VgprSpillCount,
                        K.SgprSpillCount);
      OS << fmt::format("reptx info    : Used {} VGPRs ({} AGPRs), {} SGPRs, {} bytes LDS, {} "
                        "bytes code, {} bytes kernel arguments\n",
                        K.VgprCount, K.AgprCount, K.SgprCount, K.GroupSegmentFixedSize, K.CodeSize,
                        K.KernargSegmentSize);
    }
    if (O.WarnSpills && (K.VgprSpillCount || K.SgprSpillCount))
      OS << fmt::format("reptx warning : Registers are spilled in function '{}' for '{}': {} "
                        "VGPRs to scratch memory, {} SGPRs\n",
                        K.Name, Arch, K.VgprSpillCount, K.SgprSpillCount);
    if (O.WarnScratch && (K.PrivateSegmentFixedSize || K.UsesDynamicStack))
      OS << fmt::format("reptx warning : Local memory used for function '{}' for '{}': {}\n",
                        K.Name, Arch, Stack);
  }
}

llvm::Expected<std::vector<PtxInput>> readInputs(const std::string &Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!Buf)
    return llvm::createStringError(Buf.getError(), Path + ": " + Buf.getError().message());
  llvm::StringRef Bytes = (*Buf)->getBuffer();
  std::vector<PtxInput> Inputs;
  if (!(Bytes.starts_with("\x7f"
                          "ELF") ||
        Bytes.starts_with("!<arch>\n") || Bytes.starts_with("\x50\xed\x55\xba"))) {
    Inputs.push_back({Path, Bytes.str(), ""});
    return Inputs;
  }
  auto F = fatbin::scanFile(Path);
  if (!F)
    return F.takeError();
  // An executable's or shared library's -rdc units run only linked into its image: one module
  // per image, as the loader links it (ptx::rdcImages), in place of the units.
  bool Linked = ptx::linksRdcUnits(*F);
  for (size_t CI = 0; CI < F->containers().size(); ++CI)
    for (size_t EI = 0; EI < F->containers()[CI].Entries.size(); ++EI) {
      const fatbin::Entry &E = F->containers()[CI].Entries[EI];
      if (E.Kind != fatbin::EntryKind::PTX || (Linked && F->containers()[CI].relocatableUnit()))
        continue;
      auto Text = F->ptxText(E);
      if (!Text)
        return Text.takeError();
      Inputs.push_back(
          {fmt::format("{}.c{}.e{}.{}", Path, CI, EI, E.arch()), std::move(*Text), E.Aux});
    }
  for (const ptx::RdcImage &I : ptx::rdcImages(*F)) {
    auto Text = ptx::linkImage(*F, I);
    if (!Text)
      return Text.takeError();
    Inputs.push_back({fmt::format("{}.rdc.{}", Path, fatbin::archName(I.Arch, 0)), std::move(*Text),
                      I.Units.front()->Aux});
  }
  if (Inputs.empty())
    return llvm::createStringError(Path + ": no PTX entries");
  return Inputs;
}

int runCompile(const CompileOpts &O) {
  llvm::SmallVector<llvm::StringRef, 4> Archs;
  llvm::StringRef(O.Archs).split(Archs, ',', -1, false);
  for (llvm::StringRef A : Archs)
    if (!backend::isSupportedArch(A)) {
      reportError("unsupported --arch '" + A.str() +
                  "' (expected gfx90a, gfx942, gfx1030, gfx1100 or gfx1201)");
      return ExitUsage;
    }
  if (O.Cov < 4 || O.Cov > 6) {
    reportError("--cov must be 4, 5 or 6");
    return ExitUsage;
  }
  auto Inputs = readInputs(O.Input);
  if (!Inputs) {
    reportError(llvm::toString(Inputs.takeError()));
    return ExitBadInput;
  }
  // -o names the output file for one module and one target, or one module's bundle.
  bool Single = Inputs->size() == 1 && (Archs.size() == 1 || O.Bundle);
  if (!Single && !O.Output.empty() && !O.EmitLLVM) {
    if (std::error_code EC = llvm::sys::fs::create_directories(O.Output)) {
      reportError(O.Output + ": " + EC.message());
      return ExitBadInput;
    }
  }
  // --emit-llvm -o FILE: every module's IR goes to one file, truncated first.
  std::unique_ptr<llvm::raw_fd_ostream> IROut;
  if (O.EmitLLVM && !O.Output.empty() && O.Output != "-") {
    std::error_code EC;
    IROut = std::make_unique<llvm::raw_fd_ostream>(O.Output, EC, llvm::sys::fs::OF_Text);
    if (EC) {
      reportError(O.Output + ": " + EC.message());
      return ExitBadInput;
    }
  }
  bool Ok = true;
  if (O.EmitLLVM) {
    for (PtxInput &In : *Inputs) {
      std::string Name = In.Name;
      ptx::ParseResult R = ptx::parse(Name, std::move(In.Text));
      if (!R.ok()) {
        for (const ptx::Diagnostic &D : R.Errors)
          ptx::printDiagnostic(llvm::errs(), *R.M, D);
        Ok = false;
        continue;
      }
      llvm::LLVMContext Ctx;
      auto Lifted = ir::liftModule(*R.M, Ctx);
      if (!Lifted) {
        reportError(llvm::toString(Lifted.takeError()));
        Ok = false;
        continue;
      }
      for (const ir::KernelFailure &F : Lifted->Failures) {
        reportError(F.Message);
        Ok = false;
      }
      Lifted->M->print(IROut ? *IROut : llvm::outs(), nullptr);
    }
    if (IROut) {
      IROut->close();
      if (std::error_code EC = IROut->error()) {
        IROut->clear_error();
        reportError(O.Output + ": " + EC.message());
        Ok = false;
      }
    }
    return Ok ? ExitOk : ExitBadInput;
  }
  // Compiles go through the cache (unless --no-cache) and run in the compile worker, so a crash
  // in LLVM is an error about one kernel rather than the end of reptx. Every module and target
  // of the input is a compile of its own, several at once (-j threads in all: as many compiles
  // as there are threads, a single large module's parts on all of them), reported in input order
  // as soon as each module is done. The code objects do not depend on the number of threads.
  const size_t NumArchs = Archs.size();
  const size_t NumTasks = Inputs->size() * NumArchs;
  const unsigned Threads =
      O.Threads ? O.Threads : std::max(1u, std::thread::hardware_concurrency());
  const unsigned Jobs = unsigned(std::max<size_t>(1, std::min<size_t>(Threads, NumTasks)));
  driver::Compiler::Options DO;
  DO.UseCache = !O.NoCache;
  DO.CompileThreads = std::max(1u, Threads / Jobs);
  DO.Isolation.TimeoutSeconds = O.Timeout;
  DO.OnWarning = [](const cache::Warning &W) {
    static std::mutex WarnLock;
    std::lock_guard<std::mutex> G(WarnLock);
    llvm::WithColor::warning(llvm::errs(), "reptx") << W.Message << "\n";
  };
  auto Compiler = driver::Compiler::create(std::move(DO));
  if (!Compiler) {
    reportError(llvm::toString(Compiler.takeError()));
    return ExitBadInput;
  }
  std::vector<driver::ModuleSource> Sources;
  for (PtxInput &In : *Inputs)
    Sources.push_back({In.Name, std::move(In.Text), In.PtxasOptions});
  struct Outcome {
    bool Failed = false; // the module could not be compiled for the target at all: Error says why
    std::string Error;
    driver::Result R;
  };
  std::vector<std::optional<Outcome>> Outcomes(NumTasks);
  std::mutex Lock;
  std::condition_variable Finished;
  std::atomic<size_t> Next{0};
  std::vector<std::thread> Pool;
  for (unsigned J = 0; J < Jobs; ++J)
    Pool.emplace_back([&] {
      for (size_t I; (I = Next++) < NumTasks;) {
        driver::Target T;
        T.Arch = Archs[I % NumArchs].str();
        T.CodeObjectVersion = O.Cov;
        T.Wave64Mode = O.Wave64Mode;
        Outcome Out;
        if (auto R = (*Compiler)->compile(Sources[I / NumArchs], T))
          Out.R = std::move(*R);
        else
          Out.Failed = true, Out.Error = llvm::toString(R.takeError());
        std::lock_guard<std::mutex> G(Lock);
        Outcomes[I] = std::move(Out);
        Finished.notify_all();
      }
    });
  for (size_t InIdx = 0; InIdx < Inputs->size(); ++InIdx) {
    {
      std::unique_lock<std::mutex> G(Lock);
      Finished.wait(G, [&] {
        for (size_t A = 0; A < NumArchs; ++A)
          if (!Outcomes[InIdx * NumArchs + A])
            return false;
        return true;
      });
    }
    const PtxInput &In = (*Inputs)[InIdx];
    std::string Stem = llvm::sys::path::stem(In.Name).str();
    if (!llvm::StringRef(In.Name).ends_with(".ptx"))
      Stem = llvm::sys::path::filename(In.Name).str(); // "vecadd.c1.e1.sm_75" for binaries
    std::set<std::string> Reported; // a kernel that fails to lift fails for every target
    std::vector<std::pair<std::string, std::string>> Bundled; // --bundle: (arch, code object)
    auto OutputPath = [&](llvm::StringRef Suffix) {
      if (Single && !O.Output.empty())
        return O.Output;
      llvm::SmallString<256> P(O.Output.empty() ? "." : O.Output);
      llvm::sys::path::append(P, Stem + Suffix);
      return std::string(P);
    };
    for (size_t ArchIdx = 0; ArchIdx < NumArchs; ++ArchIdx) {
      llvm::StringRef Arch = Archs[ArchIdx];
      Outcome Out;
      {
        std::lock_guard<std::mutex> G(Lock);
        Out = std::move(*Outcomes[InIdx * NumArchs + ArchIdx]);
        Outcomes[InIdx * NumArchs + ArchIdx].emplace(); // released: reported below
      }
      if (Out.Failed) {
        reportError(In.Name + ": " + Arch.str() + ": " + Out.Error);
        Ok = false;
        continue;
      }
      driver::Result *Obj = &Out.R;
      for (const ir::KernelFailure &F : Obj->Failures) {
        if (Reported.insert(F.Message).second)
          reportError(F.Message);
        Ok = false;
      }
      if (Obj->Kernels.empty())
        continue;
      if (O.Verbose || O.WarnSpills || O.WarnScratch)
        reportResources(Obj->CodeObject, Arch.str(), Obj->From != driver::Result::Origin::Compiled,
                        O);
      if (O.Bundle) {
        llvm::outs() << fmt::format("{}: {} kernel{}{}\n", Arch.str(), Obj->Kernels.size(),
                                    Obj->Kernels.size() == 1 ? "" : "s",
                                    Obj->From == driver::Result::Origin::Compiled ? ""
                                                                                  : " (cached)");
        llvm::outs().flush();
        Bundled.emplace_back(Arch.str(), std::move(Obj->CodeObject));
        continue;
      }
      std::string Path = OutputPath("." + Arch.str() + ".hsaco");
      if (llvm::Error E = writeFile(
              Path, llvm::StringRef(reinterpret_cast<const char *>(Obj->CodeObject.data()),
                                    Obj->CodeObject.size()))) {
        reportError(llvm::toString(std::move(E)));
        Ok = false;
        continue;
      }
      llvm::outs() << fmt::format("{}: {} kernel{} -> {}{}\n", Arch.str(), Obj->Kernels.size(),
                                  Obj->Kernels.size() == 1 ? "" : "s", Path,
                                  Obj->From == driver::Result::Origin::Compiled ? "" : " (cached)");
      llvm::outs().flush(); // in order with -v's reports on standard error
    }
    if (Bundled.empty())
      continue;
    std::vector<backend::BundleEntry> Entries;
    for (const auto &[Arch, Bytes] : Bundled)
      Entries.push_back({Arch, llvm::ArrayRef<uint8_t>(
                                   reinterpret_cast<const uint8_t *>(Bytes.data()), Bytes.size())});
    std::vector<uint8_t> Fat = backend::offloadBundle(Entries);
    std::string Path = OutputPath(".hipfb");
    if (llvm::Error E = writeFile(
            Path, llvm::StringRef(reinterpret_cast<const char *>(Fat.data()), Fat.size()))) {
      reportError(llvm::toString(std::move(E)));
      Ok = false;
      continue;
    }
    llvm::outs() << fmt::format("bundle of {} target{} -> {}\n", Entries.size(),
                                Entries.size() == 1 ? "" : "s", Path);
  }
  for (std::thread &T : Pool)
    T.join();
  return Ok ? ExitOk : ExitBadInput;
}

} // namespace

Runner addCompileCommand(CLI::App &App) {
  auto *Cmd =
      App.add_subcommand("compile", "Compile PTX (a file or a CUDA binary) to AMDGPU code objects");
  auto O = std::make_shared<CompileOpts>();
  Cmd->add_option("input", O->Input, "PTX file or CUDA binary")->required();
  Cmd->add_option("--arch", O->Archs,
                  "Targets, comma-separated: gfx90a, gfx942, gfx1030, gfx1100, gfx1201")
      ->capture_default_str();
  Cmd->add_option("-o,--output", O->Output,
                  "Output file (one module, one target) or directory (several)");
  Cmd->add_flag("--emit-llvm", O->EmitLLVM, "Print the lifted, target-neutral LLVM IR");
  Cmd->add_flag("--no-cache", O->NoCache,
                "Compile without looking up or storing in the kernel cache (REPTX_CACHE_*)");
  Cmd->add_option("--cov", O->Cov, "Code object version: 4, 5 or 6")->capture_default_str();
  Cmd->add_option("--wave64-mode", O->Wave64Mode,
                  "PTX warps on gfx90a/gfx942 waves: packed (two per wave), single (one per "
                  "wave, changes the launch ABI; see backend/README.md) or auto (as the loader: "
                  "single for modules whose warps wait on each other)")
      ->check(CLI::IsMember({"packed", "single", "auto"}))
      ->capture_default_str();
  Cmd->add_option("-j,--threads", O->Threads,
                  "Threads (default: all cores): the modules and targets of a binary compile "
                  "that many at once, a single large module's parts on all of them (the code "
                  "objects are the same whatever the number)");
  Cmd->add_flag("--bundle", O->Bundle,
                "Write each module's code objects for all targets as one clang offload bundle "
                "(HIP's fat binary, for hipModuleLoad): OUT for one module, else "
                "OUT/<stem>.hipfb");
  Cmd->add_flag("-v,--verbose", O->Verbose,
                "Report each kernel's registers, spills, stack frame, LDS and code size on "
                "standard error, as ptxas -v does");
  Cmd->add_flag("--warn-on-spills", O->WarnSpills,
                "Warn about kernels whose registers are spilled (ptxas --warn-on-spills)");
  Cmd->add_flag("--warn-on-local-memory-usage", O->WarnScratch,
                "Warn about kernels that use scratch (local) memory (ptxas "
                "--warn-on-local-memory-usage)");
  Cmd->add_option("--timeout", O->Timeout, "Seconds one module may take to compile (0: no limit)")
      ->capture_default_str();
  return [O] { return runCompile(*O); };
}

} // namespace reptx::tool
