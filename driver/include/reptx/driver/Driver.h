// Compiling PTX modules through the kernel cache: the one entry point that `reptx compile`,
// `reptx prewarm` and the loader share, so that a module compiled by any of them is a cache hit
// for the others. Sits above frontend-ptx, ir, backend and cache (docs/ARCHITECTURE.md).
//
//   driver::Compiler::Options O;                     // cache from REPTX_CACHE_*, isolated compiles
//   auto C = driver::Compiler::create(O);
//   auto R = (*C)->compile({Name, PtxText, PtxasOptions}, {"gfx942"});
//   // R->CodeObject, R->Kernels, R->Failures (kernels left out, with reasons), R->From
#pragma once

#include "reptx/backend/Isolated.h"
#include "reptx/cache/Cache.h"
#include "reptx/ir/Lift.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace reptx::driver {

/// What a module is compiled for.
struct Target {
  std::string Arch = "gfx942";
  unsigned CodeObjectVersion = 5;
  /// How 32-thread warps sit on a wave64: "packed" (two per wave), "single" (one per wave;
  /// backend::CompileOptions::Wave64Mode) or "auto": the mode wave64Mode() picks for the module.
  /// The resolved mode is part of the key on wave64 targets only.
  std::string Wave64Mode = "auto";
};

/// A PTX module as a CUDA binary holds it.
struct ModuleSource {
  std::string Name;         // for messages: a file name, "libfoo.so.c3.e1.sm_80"
  std::string Ptx;          // the exact PTX text
  std::string PtxasOptions; // the options string of its fatbin entry ("" for a .ptx file)
  /// When set, makes what a compile of some kernels (compile's Sel) parses instead of Ptx: Ptx
  /// without the other kernels (ptx::withoutKernels). Called only on a cache miss; the key is
  /// Ptx's either way.
  std::function<std::string()> CompileText{};
};

/// Whether the PTX relies on its warps making progress independently of each other within a
/// block, one warp spinning until another of its block arrives, which two warps packed in one
/// wave64 cannot do (a wave runs one side of a branch at a time), so that "auto" gives the module
/// wave64 single mode. Signs of it (a text scan): %reserved_smem_offset_* (where cooperative
/// groups keep the barriers of tiles wider than a warp from sm_80 on) and an ld.acquire.cta (the
/// waiting side of a flag another thread of the block sets: those barriers in PTX for earlier
/// targets, which keep them in the user's block_tile_memory, and warp-specialized pipelines).
bool needsIndependentWarps(llvm::StringRef Ptx);
/// The wave64 mode a module is compiled in: T.Wave64Mode, or for "auto" single when
/// needsIndependentWarps(M.Ptx) and packed otherwise.
std::string wave64Mode(const ModuleSource &M, const Target &T);

struct Result {
  enum class Origin { Compiled, CacheHit, OutputHit };
  std::string CodeObject;                  // empty when no kernel compiled
  std::vector<std::string> Kernels;        // the kernels in CodeObject
  std::vector<ir::KernelFailure> Failures; // kernels left out, with their reasons
  Origin From = Origin::Compiled;
  /// Compiled only: false when a failure came from a crash or timeout, so it was not cached.
  bool Deterministic = true;
  bool Stored = false; // compiled and stored in the cache (or the output layer)
  /// Every kernel of the module (Kernels and Failures): false for a compile of some kernels only
  /// (compile's Sel) that the whole module's cache entry did not serve.
  bool WholeModule = true;
  cache::Digest KeyDigest;
};

/// The cache entry of a compile result and back. Compiled kernels get an empty Info; a kernel
/// that failed is recorded too, with Info "!" followed by the reason, so a hit reports the same
/// failures as the compile did.
cache::Entry toEntry(const backend::ModuleResult &R);
Result fromEntry(cache::Entry &&E);

class Compiler {
public:
  struct Options {
    /// Look up and store in the cache. Off: compile every time, touch no file.
    bool UseCache = true;
    /// The cache configuration; nullopt: the REPTX_CACHE_* environment.
    std::optional<cache::Config> CacheConfig;
    /// `reptx prewarm --output DIR`: a second, uncapped cache at DIR that receives every result
    /// (hits in the main cache are copied into it), to be shipped as a read-only layer.
    std::string OutputLayer;
    /// Compile in the worker process (backend/Isolated.h); off: in this process.
    bool Isolate = true;
    backend::IsolationOptions Isolation;
    /// Threads for one compile (backend::CompileOptions::Threads; the code object does not
    /// depend on it). 0: one per core; `reptx prewarm -j N` gives each of its N compiles a share.
    unsigned CompileThreads = 0;
    /// Receives the cache's warnings (damaged entries, full disk...).
    cache::WarningHandler OnWarning;
  };

  /// Opens the caches and finds the worker. Errors: a bad REPTX_CACHE_* value, an unusable
  /// cache or output directory, no worker executable.
  static llvm::Expected<std::unique_ptr<Compiler>> create(Options O);
  ~Compiler();

  /// The key of a module for a target: PTX hash and size, ptxas options, target, options and the
  /// identity of the compiler (reptx version, build-id of the worker, LLVM version, digest of the
  /// device helper library).
  cache::Key key(const ModuleSource &M, const Target &T) const;
  /// The key of some kernels of a module (the loader's lazy loading): the module's key with the
  /// kernels selected in Key::Kernel (comma-separated) and those excluded among the options.
  cache::Key key(const ModuleSource &M, const Target &T, const backend::KernelSelection &Sel) const;

  /// A hit from the output layer or the cache, or a compile whose result is stored (unless it is
  /// not deterministic). Errors: an unsupported target, PTX that does not parse, a worker that
  /// cannot be started. Thread-safe.
  ///
  /// With a selection (Sel not empty) only those kernels are compiled, under a key of their own,
  /// unless the whole module is in the cache already (pre-warmed, or compiled whole before): that
  /// hit is returned instead, with every kernel of the module in Result::Kernels.
  llvm::Expected<Result> compile(const ModuleSource &M, const Target &T,
                                 const backend::KernelSelection &Sel = {});

  /// The cache in use (nullptr without one).
  cache::Cache *cache() const;

private:
  Compiler();
  struct Impl;
  std::unique_ptr<Impl> I;
};

} // namespace reptx::driver
