// Compiling a PTX module (text in, code object out) in process or, robustly, in a child process:
// the `reptx-compile-worker` executable, so that an LLVM fatal error, a crash or a hang in code
// generation never ends the caller (a tool, or the loader inside a CUDA application). Kernels are
// isolated from each other: one that fails to lift or to compile is left out and reported by name
// while the others still compile. backend/README.md describes the worker protocol.
#pragma once

#include "reptx/backend/Backend.h"
#include "reptx/ir/Lift.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace reptx::backend {

/// One PTX module to compile.
struct PtxModule {
  std::string Name; // for messages: a file name, "libfoo.so.c3.e1.sm_80"
  std::string Text; // the PTX text
};

/// Which kernels of the module to compile: all (both lists empty), only some, or all but some.
struct KernelSelection {
  std::vector<std::string> Only;
  std::vector<std::string> Exclude;
  bool selects(llvm::StringRef Kernel) const;
};

/// The outcome of compiling one module for one target.
struct ModuleResult {
  std::vector<uint8_t> CodeObject;         // empty when no kernel compiled
  std::vector<std::string> Kernels;        // the kernels in CodeObject
  std::vector<ir::KernelFailure> Failures; // kernels left out, each with its reason
  /// False when a failure may not repeat (a crash, a timeout, unreadable worker output): such a
  /// result must not be cached.
  bool Deterministic = true;
  /// Where the time went, and how many separately compiled parts (planModuleParts) CodeObject was
  /// linked from: compilePtx in this process only, the worker does not send them back.
  CompileTimes Times;
  unsigned Parts = 1;
};

/// Parses, lifts and compiles in this process. A kernel that fails to lift is left out (its
/// reason names the kernel, the PTX file:line and the instruction); when the backend rejects the
/// module (or one of its parts, planModuleParts) as a whole, each kernel is compiled alone to
/// find the ones at fault, and the rest is compiled again without them. Errors: PTX that does not
/// parse, or a module-level failure. An LLVM fatal error or crash ends this process: see
/// compilePtxIsolated.
llvm::Expected<ModuleResult> compilePtx(const PtxModule &M, const CompileOptions &Opts,
                                        const KernelSelection &Sel = {});

/// How compilePtx splits a module into parts compiled on their own (on CompileOptions::Threads
/// threads) and then linked: the selected kernels in PTX order, in groups of about 128 kB of PTX
/// each; one group for a smaller module, and for one whose `.func` bodies outweigh its kernels
/// (every part would carry the functions its kernels reach: in NCCL's linked -rdc image, 87
/// kernels of 3.9 MB reach 135 MB of functions through one table of their addresses, which 29
/// parts would each compile again). Decided from the PTX alone, so that the code object does not
/// depend on the number of threads.
std::vector<std::vector<std::string>> planModuleParts(const ptx::Module &M,
                                                      const KernelSelection &Sel = {});

struct IsolationOptions {
  /// The worker executable; empty: findCompileWorker().
  std::string WorkerPath;
  /// Wall-clock limit for one worker run; 0 means none.
  unsigned TimeoutSeconds = 600;
};

/// compilePtx in a child process (the worker). A worker that crashes, hits an LLVM fatal error,
/// runs past the timeout or writes anything but one well-formed reply becomes an error naming the
/// module, the target and what happened (with the tail of the worker's stderr); this process
/// carries on. When that happens to a whole module, the kernels at fault are found by bisection
/// (groups of kernels in workers of their own, halved until single kernels fail), reported as
/// failures naming them, and the others are compiled together. A module that times out is not
/// searched (each probe could take as long again): every kernel fails with the timeout.
/// Thread-safe: any number of threads may run workers at once. Sel compiles only some kernels
/// (the loader's lazy loading: the kernels a program launches), as compilePtx.
llvm::Expected<ModuleResult> compilePtxIsolated(const PtxModule &M, const CompileOptions &Opts,
                                                const IsolationOptions &Iso = {},
                                                const KernelSelection &Sel = {});

/// The worker executable: $REPTX_COMPILE_WORKER, else `reptx-compile-worker` next to the binary
/// (executable or shared library) this code is linked into or the running executable, or in
/// ../libexec/reptx/ or ../bin/ from there.
llvm::Expected<std::string> findCompileWorker();

/// Identifies the compiler in an executable for cache keys: its GNU build-id in hex, or, for a
/// binary without one, "xxh3:" and the XXH3-64 of its bytes.
llvm::Expected<std::string> binaryIdentity(llvm::StringRef Path);

/// The worker's main loop (reptx-compile-worker): reads one request from RequestFd, compiles,
/// writes one reply to ReplyFd; returns the exit code. Honors REPTX_TEST_WORKER_FAULT (tests
/// only): `crash`, `fatal`, `hang`, `garbage` or `exit`, optionally `:KERNEL` to fault only
/// when the run compiles that kernel.
int runCompileWorker(int RequestFd, int ReplyFd);

} // namespace reptx::backend
