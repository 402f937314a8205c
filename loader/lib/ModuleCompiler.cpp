// The loader's compile: driver::Compiler, created once per process on the first compile.
#include "ModuleCompiler.h"
#include "Log.h"

#include "reptx/backend/Backend.h"
#include "reptx/backend/Isolated.h"
#include "reptx/driver/Driver.h"
#include "reptx/frontend-ptx/Link.h"

#include <cstdlib>
#include <mutex>

namespace reptx::loader {

namespace {

/// The process's compiler, or null when none could be set up (the reason was logged). A missing
/// worker falls back to compiling in this process (an LLVM crash would then end the program); a
/// bad REPTX_CACHE_* setting or an unusable cache directory falls back to no cache. Both are
/// logged as warnings.
driver::Compiler *compiler() {
  static std::once_flag Once;
  static driver::Compiler *C = nullptr;
  std::call_once(Once, [] {
    driver::Compiler::Options O;
    O.OnWarning = [](const cache::Warning &W) { log().warn("kernel cache: {}", W.Message); };
    if (auto W = backend::findCompileWorker()) {
      O.Isolation.WorkerPath = *W;
      log().debug("compile worker: {}", *W);
    } else {
      log().warn("{}; compiling in the application's process instead",
                 llvm::toString(W.takeError()));
      O.Isolate = false;
    }
    // REPTX_COMPILE_TIMEOUT: seconds one module may take (0: no limit); the default guards
    // against a hung compile, and the largest library modules need more on one core (NCCL's
    // linked -rdc image: about 11 minutes), unless they were pre-warmed.
    if (const char *E = std::getenv("REPTX_COMPILE_TIMEOUT"); E && *E) {
      unsigned Seconds = 0;
      if (llvm::StringRef(E).getAsInteger(10, Seconds))
        log().warn("REPTX_COMPILE_TIMEOUT={}: expected a number of seconds; using {}", E,
                   O.Isolation.TimeoutSeconds);
      else
        O.Isolation.TimeoutSeconds = Seconds;
    }
    auto Created = driver::Compiler::create(O);
    if (!Created) {
      log().warn("kernel cache disabled: {}", llvm::toString(Created.takeError()));
      O.UseCache = false;
      Created = driver::Compiler::create(O);
    }
    if (!Created) {
      log().error("cannot set up the compiler: {}", llvm::toString(Created.takeError()));
      return;
    }
    C = Created->release(); // never destroyed: libraries may be compiled from atexit handlers
  });
  return C;
}

} // namespace

llvm::Expected<CompiledModule> compilePtxModule(llvm::StringRef Name, llvm::StringRef Ptx,
                                                llvm::StringRef PtxasOptions, llvm::StringRef Arch,
                                                unsigned Cov, const std::vector<std::string> &Only,
                                                const ptx::Module *Parsed) {
  driver::Compiler *C = compiler();
  if (!C)
    return llvm::createStringError("no compiler (see the log)");
  driver::Target T;
  T.Arch = Arch.str();
  T.CodeObjectVersion = Cov;
  // Warps on wave64 (driver::wave64Mode): auto unless REPTX_WAVE64_MODE says packed or single.
  static const std::string Mode = [] {
    const char *E = std::getenv("REPTX_WAVE64_MODE");
    std::string V = E && *E ? E : "auto";
    if (V != "auto" && V != "packed" && V != "single") {
      log().warn("REPTX_WAVE64_MODE={}: expected packed, single or auto; using auto", V);
      V = "auto";
    }
    return V;
  }();
  T.Wave64Mode = Mode;
  driver::ModuleSource S{Name.str(), Ptx.str(), PtxasOptions.str()};
  if (backend::waveSize(T.Arch) == 64 && driver::wave64Mode(S, T) == "single")
    log().info("{}: one warp per wave64 (wave64 single mode){}", Name,
               Mode == "auto" ? ": its warps wait on each other (cooperative groups' tiles wider "
                                "than a warp)"
                              : "");
  backend::KernelSelection Sel;
  Sel.Only = Only;
  if (!Only.empty() && Parsed)
    S.CompileText = [&] {
      return ptx::withoutKernels(*Parsed,
                                 [&](llvm::StringRef K) { return llvm::is_contained(Only, K); });
    };
  auto R = C->compile(S, T, Sel);
  if (!R)
    return R.takeError();
  CompiledModule Out;
  Out.CodeObject.assign(R->CodeObject.begin(), R->CodeObject.end());
  Out.Kernels = std::move(R->Kernels);
  Out.WholeModule = R->WholeModule;
  for (ir::KernelFailure &F : R->Failures)
    Out.Failures.emplace_back(std::move(F.Kernel), std::move(F.Message));
  switch (R->From) {
  case driver::Result::Origin::Compiled:
    Out.Origin = "compiled";
    break;
  case driver::Result::Origin::CacheHit:
    Out.Origin = "cache hit";
    break;
  case driver::Result::Origin::OutputHit:
    Out.Origin = "output-layer hit";
    break;
  }
  return Out;
}

} // namespace reptx::loader
