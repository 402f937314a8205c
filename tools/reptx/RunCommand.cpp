// `reptx run [--device D] [--arch A] -- PROGRAM ARGS...`: runs an unmodified CUDA program with
// reptx's libcuda.so.1 first on the library search path and every other lookup of libcuda.so[.1]
// redirected to it (LD_AUDIT), so that the CUDA runtime inside the program (static or shared)
// opens it instead of NVIDIA's driver. The program replaces this process (exec), so its exit status
// is passed through.
#include "Commands.h"

#include "reptx/backend/Isolated.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/WithColor.h"

#include <CLI/CLI.hpp>

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace reptx::tool {

namespace {

struct RunOpts {
  std::string Backend;
  std::string Arch;
  std::vector<std::string> Command;
};

/// The directory holding reptx's libcuda.so.1: $REPTX_LIBCUDA_DIR, else the build tree's or
/// install prefix's lib directory next to this executable.
std::string findLibcudaDir() {
  if (const char *Dir = std::getenv("REPTX_LIBCUDA_DIR"); Dir && *Dir)
    return Dir;
  std::string Exe = llvm::sys::fs::getMainExecutable(nullptr, nullptr);
  llvm::StringRef BinDir = llvm::sys::path::parent_path(Exe);
  for (const char *Rel : {"../lib", "../lib/reptx", "."}) {
    llvm::SmallString<256> Dir(BinDir);
    llvm::sys::path::append(Dir, Rel);
    llvm::SmallString<256> Lib(Dir);
    llvm::sys::path::append(Lib, "libcuda.so.1");
    if (llvm::sys::fs::exists(Lib)) {
      llvm::SmallString<256> Real;
      if (!llvm::sys::fs::real_path(Dir, Real))
        return std::string(Real);
      return std::string(Dir);
    }
  }
  return {};
}

void prependEnv(const char *Name, const std::string &Value, char Sep) {
  const char *Old = std::getenv(Name);
  std::string New = Value;
  if (Old && *Old)
    New += Sep + std::string(Old);
  setenv(Name, New.c_str(), 1);
}

int runRun(const RunOpts &O) {
  if (O.Command.empty()) {
    reportError("no program given: reptx run [options] -- PROGRAM ARGS...");
    return ExitUsage;
  }
  if (!O.Backend.empty() && O.Backend != "emulator" && O.Backend != "hip" && O.Backend != "auto") {
    reportError("--device must be emulator, hip or auto");
    return ExitUsage;
  }
  std::string Dir = findLibcudaDir();
  if (Dir.empty()) {
    reportError("reptx's libcuda.so.1 was not found next to reptx (set REPTX_LIBCUDA_DIR)");
    return ExitBadInput;
  }
  prependEnv("LD_LIBRARY_PATH", Dir, ':');
  // LD_LIBRARY_PATH loses against DT_RPATH and does not apply to dlopen of a path: the audit
  // module (loader/audit/ReptxAudit.c) answers every lookup of libcuda.so[.1] with
  // $REPTX_LIBCUDA. ld.so loads LD_AUDIT modules before LD_PRELOAD, in a namespace of their own.
  std::string Libcuda = Dir + "/libcuda.so.1";
  setenv("REPTX_LIBCUDA", Libcuda.c_str(), 1);
  std::string Audit = Dir + "/libreptx_audit.so";
  if (llvm::sys::fs::exists(Audit))
    prependEnv("LD_AUDIT", Audit, ':');
  else
    llvm::WithColor::warning(llvm::errs(), "reptx")
        << "the audit module " << Audit
        << " is missing: a program with an RPATH, or that opens libcuda by path, may get another "
           "libcuda.so.1\n";
  if (!O.Backend.empty()) {
    setenv("REPTX_DEVICE", O.Backend.c_str(), 1);
    setenv("REPTX_BACKEND", O.Backend.c_str(), 1); // the older name, for older loaders
  }
  if (!O.Arch.empty())
    setenv("REPTX_ARCH", O.Arch.c_str(), 1);
  // The loader compiles kernels in reptx-compile-worker; it looks next to libcuda.so.1 itself,
  // and this names the one that belongs to this reptx for layouts where that fails.
  if (const char *W = std::getenv("REPTX_COMPILE_WORKER"); !W || !*W) {
    if (auto Worker = reptx::backend::findCompileWorker())
      setenv("REPTX_COMPILE_WORKER", Worker->c_str(), 1);
    else
      llvm::consumeError(Worker.takeError());
  }
#ifdef REPTX_ASAN_RUNTIME
  // Sanitizer builds: libcuda.so.1 is instrumented and the program is not, so the ASan runtime
  // has to be loaded first.
  prependEnv("LD_PRELOAD", REPTX_ASAN_RUNTIME, ':');
  // lld (static, uninstrumented) inside libcuda.so.1 trips over manual poisoning: see
  // backend/lib/Compile.cpp.
  prependEnv("ASAN_OPTIONS", "allow_user_poisoning=0", ':');
#endif
  std::vector<char *> Argv;
  for (const std::string &A : O.Command)
    Argv.push_back(const_cast<char *>(A.c_str()));
  Argv.push_back(nullptr);
  execvp(Argv[0], Argv.data());
  reportError(O.Command[0] + ": " + std::strerror(errno));
  return errno == ENOENT ? 127 : 126;
}

} // namespace

Runner addRunCommand(CLI::App &App) {
  auto *Cmd = App.add_subcommand("run", "Run a CUDA program with reptx as its CUDA driver");
  auto O = std::make_shared<RunOpts>();
  Cmd->add_option("--device,--backend", O->Backend,
                  "Device: emulator, hip or auto (default: hip when an AMD GPU is present); sets "
                  "REPTX_DEVICE");
  Cmd->add_option("--arch", O->Arch, "AMDGPU target the kernels are compiled for (gfx942)");
  Cmd->add_option("command", O->Command, "PROGRAM ARGS... (after --)")->required();
  return [O] { return runRun(*O); };
}

} // namespace reptx::tool
