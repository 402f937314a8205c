// The cache-backed compile: key, lookup (output layer, then the cache), compile in the worker,
// store. See driver/README.md.
#include "reptx/driver/Driver.h"

#include "reptx/backend/Backend.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <set>

using namespace llvm;

namespace reptx::driver {

cache::Entry toEntry(const backend::ModuleResult &R) {
  cache::Entry E;
  E.CodeObject.assign(R.CodeObject.begin(), R.CodeObject.end());
  std::set<std::string> Seen(R.Kernels.begin(), R.Kernels.end());
  for (const std::string &K : R.Kernels)
    E.Kernels.push_back({K, ""});
  // One record per name: a kernel that failed for several reasons keeps the first.
  for (const ir::KernelFailure &F : R.Failures)
    if (Seen.insert(F.Kernel).second)
      E.Kernels.push_back({F.Kernel, "!" + F.Message});
  E.sortKernels();
  return E;
}

Result fromEntry(cache::Entry &&E) {
  Result R;
  R.CodeObject = std::move(E.CodeObject);
  for (cache::KernelRecord &K : E.Kernels) {
    if (StringRef(K.Info).starts_with("!"))
      R.Failures.push_back({K.Name, K.Info.substr(1)});
    else
      R.Kernels.push_back(std::move(K.Name));
  }
  return R;
}

struct Compiler::Impl {
  Options O;
  std::unique_ptr<cache::Cache> Main, Output;
  cache::CompilerIdentity Identity;
};

Compiler::Compiler() : I(std::make_unique<Impl>()) {}
Compiler::~Compiler() = default;

Expected<std::unique_ptr<Compiler>> Compiler::create(Options O) {
  std::unique_ptr<Compiler> C(new Compiler());
  Impl &I = *C->I;
  if (O.Isolate && O.Isolation.WorkerPath.empty()) {
    auto W = backend::findCompileWorker();
    if (!W)
      return W.takeError();
    O.Isolation.WorkerPath = *W;
  }
  // The compiler's identity: the binary that compiles (the worker, or this one).
  std::string BuildId;
  if (O.Isolate) {
    auto Id = backend::binaryIdentity(O.Isolation.WorkerPath);
    if (!Id)
      return Id.takeError();
    BuildId = *Id;
  } else {
    BuildId =
        cache::buildIdOf(reinterpret_cast<const void *>(&backend::compilePtx)).value_or("unknown");
  }
  I.Identity = {REPTX_VERSION, BuildId, cache::llvmVersion(), backend::helperLibraryDigest()};
  if (O.UseCache) {
    cache::Config Cfg;
    if (O.CacheConfig) {
      Cfg = *O.CacheConfig;
    } else {
      auto Env = cache::configFromProcessEnvironment();
      if (!Env)
        return Env.takeError();
      Cfg = *Env;
    }
    auto Main = cache::Cache::open(Cfg, O.OnWarning);
    if (!Main)
      return Main.takeError();
    I.Main = std::move(*Main);
    if (!O.OutputLayer.empty()) {
      cache::Config Out;
      Out.WritablePath = O.OutputLayer;
      Out.MaxSize = 0;
      Out.CompressionLevel = Cfg.CompressionLevel;
      Out.TrustedUid = Cfg.TrustedUid;
      auto OC = cache::Cache::open(Out, O.OnWarning);
      if (!OC)
        return OC.takeError();
      if (!(*OC)->hasWritableLayer())
        return createStringError("cannot write the output layer " + O.OutputLayer);
      I.Output = std::move(*OC);
    }
  }
  I.O = std::move(O);
  return C;
}

bool needsIndependentWarps(StringRef Ptx) {
  if (Ptx.contains("%reserved_smem_offset_"))
    return true;
  // An ld with .acquire.cta, the modifiers in any order (ld.acquire.cta.shared.b32,
  // ld.shared.acquire.cta.u32).
  for (size_t At = Ptx.find(".acquire.cta"); At != StringRef::npos;
       At = Ptx.find(".acquire.cta", At + 1)) {
    size_t Start = Ptx.find_last_of(" \t\r\n;{}", At);
    StringRef Token = Ptx.slice(Start == StringRef::npos ? 0 : Start + 1, At);
    if (Token == "ld" || Token.starts_with("ld."))
      return true;
  }
  return false;
}

std::string wave64Mode(const ModuleSource &M, const Target &T) {
  if (T.Wave64Mode != "auto")
    return T.Wave64Mode;
  return needsIndependentWarps(M.Ptx) ? "single" : "packed";
}

cache::Cache *Compiler::cache() const { return I->Main.get(); }

cache::Key Compiler::key(const ModuleSource &M, const Target &T) const {
  cache::Key K;
  K.setPtx(M.Ptx);
  K.PtxasOptions = M.PtxasOptions;
  K.Arch = T.Arch;
  K.WaveSize = backend::waveSize(T.Arch);
  K.WaveMode = K.WaveSize == 64 ? wave64Mode(M, T) : "";
  K.CodeObjectVersion = T.CodeObjectVersion;
  K.Options = {{"opt-level", "3"}};
  K.Compiler = I->Identity;
  return K;
}

namespace {

/// The key of some kernels of the module whose own key is K: a kernel-level entry
/// (cache/README.md, "Granularity").
cache::Key selectionKey(cache::Key K, const backend::KernelSelection &Sel) {
  K.Kernel = llvm::join(Sel.Only, ",");
  if (!Sel.Exclude.empty())
    K.Options.emplace_back("without-kernels", llvm::join(Sel.Exclude, ","));
  return K;
}

} // namespace

cache::Key Compiler::key(const ModuleSource &M, const Target &T,
                         const backend::KernelSelection &Sel) const {
  return selectionKey(key(M, T), Sel);
}

Expected<Result> Compiler::compile(const ModuleSource &M, const Target &T,
                                   const backend::KernelSelection &Sel) {
  if (!backend::isSupportedArch(T.Arch))
    return createStringError("unsupported target '" + T.Arch +
                             "' (expected gfx90a, gfx942, gfx1030, gfx1100 or gfx1201)");
  if (T.Wave64Mode != "packed" && T.Wave64Mode != "single" && T.Wave64Mode != "auto")
    return createStringError("unknown wave64 mode '" + T.Wave64Mode +
                             "' (expected packed, single or auto)");
  cache::Key Whole = key(M, T);
  // Some kernels only: the whole module's entry (pre-warmed, or compiled before) serves as well.
  bool Some = !Sel.Only.empty() || !Sel.Exclude.empty();
  cache::Key K = Some ? selectionKey(Whole, Sel) : Whole; // the PTX hashed and scanned once
  auto Hit = [&](const cache::Key &Of, cache::Entry &&E, Result::Origin From) {
    Result R = fromEntry(std::move(E));
    R.From = From;
    R.KeyDigest = Of.digest();
    R.WholeModule = &Of == &Whole;
    return R;
  };
  for (const cache::Key *Try : {&Whole, &K}) {
    if (Try == &K && !Some)
      break;
    if (I->Output)
      if (auto H = I->Output->lookup(*Try))
        return Hit(*Try, std::move(H->Value), Result::Origin::OutputHit);
    if (I->Main)
      if (auto H = I->Main->lookup(*Try)) {
        if (I->Output)
          I->Output->store(*Try, H->Value);
        return Hit(*Try, std::move(H->Value), Result::Origin::CacheHit);
      }
  }

  backend::PtxModule PM{M.Name, Some && M.CompileText ? M.CompileText() : M.Ptx};
  backend::CompileOptions CO;
  CO.Arch = T.Arch;
  CO.CodeObjectVersion = T.CodeObjectVersion;
  CO.Wave64 = wave64Mode(M, T) == "single" ? backend::CompileOptions::Wave64Mode::Single
                                           : backend::CompileOptions::Wave64Mode::Packed;
  CO.Threads = I->O.CompileThreads;
  auto Run = [&] {
    return I->O.Isolate ? backend::compilePtxIsolated(PM, CO, I->O.Isolation, Sel)
                        : backend::compilePtx(PM, CO, Sel);
  };
  auto MR = Run();
  if (!MR && PM.Text.size() != M.Ptx.size()) {
    // The cut-down text did not parse (a kernel kept names one cut): the whole text, then.
    consumeError(MR.takeError());
    PM.Text = M.Ptx;
    MR = Run();
  }
  if (!MR)
    return MR.takeError();
  cache::Entry E = toEntry(*MR);
  bool Stored = false;
  if (MR->Deterministic) {
    if (I->Main)
      Stored |= I->Main->store(K, E) == cache::StoreResult::Stored;
    if (I->Output)
      Stored |= I->Output->store(K, E) == cache::StoreResult::Stored;
  }
  // Through the entry, so that a compile and a later hit give the same Result.
  Result R = fromEntry(std::move(E));
  R.Deterministic = MR->Deterministic;
  R.Stored = Stored;
  R.KeyDigest = K.digest();
  R.WholeModule = !Some;
  return R;
}

} // namespace reptx::driver
