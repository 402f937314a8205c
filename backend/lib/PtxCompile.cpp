// compilePtx: PTX text to a code object in this process, kernel by kernel when it has to be, and
// a large module in parts on several threads. The child-process wrapper (Isolated.cpp) runs
// exactly this in the worker.
#include "reptx/backend/Isolated.h"

#include "reptx/frontend-ptx/Parser.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/Threading.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <chrono>
#include <optional>
#include <set>
#include <thread>

using namespace llvm;

namespace reptx::backend {

bool KernelSelection::selects(StringRef Kernel) const {
  if (!Only.empty() && !is_contained(Only, Kernel))
    return false;
  return !is_contained(Exclude, Kernel);
}

namespace {

// PTX bytes of kernels per part. A part costs a few milliseconds on its own (target machine,
// helper library, pipelines, the module's .func bodies lifted again) and smaller modules are
// cheaper to optimize and to generate code for per byte, so parts could be small; on the corpus
// sample 128 kB gave the least CPU time and the least wall time with two threads (64 kB and 256
// kB: 3-7% more, bench/RESULTS.md "Compile throughput").
constexpr size_t PartBytes = 128 << 10;

// Turns every kernel not in Keep into a declaration-free absence: kernels are never called, so
// they are erased (a kernel that is somehow referenced keeps a declaration, which the backend
// skips).
void keepKernels(Module &M, const std::set<std::string> &Keep) {
  std::vector<Function *> Drop;
  for (Function &F : M)
    if (F.hasFnAttribute(ir::KernelAttr) && !F.isDeclaration() && !Keep.count(F.getName().str()))
      Drop.push_back(&F);
  for (Function *F : Drop) {
    if (F->use_empty())
      F->eraseFromParent();
    else
      F->deleteBody();
  }
}

// What one group of kernels (the whole module, or one part of it) compiled to.
struct GroupResult {
  std::vector<ObjectFile> Objects;  // none when no kernel of the group compiled
  std::optional<CodeObject> Linked; // not a part: Objects linked
  std::vector<ir::KernelFailure> Failures;
  CompileTimes Times; // lifting, and the compile of Objects (and Linked)
};

// Lifts the group's kernels (Members; null: the module's that Sel selects) into a context of its
// own and compiles them: all together, or, when the backend rejects them together, each alone to
// find the ones at fault and then the others together. Alone (not a part), each compile is also
// linked, so that link errors count as the backend's; parts are linked together by the caller.
Expected<GroupResult> compileGroup(const ptx::Module &Ptx, const std::string &Name,
                                   const CompileOptions &Opts, const KernelSelection &Sel,
                                   const std::set<std::string> *Members) {
  LLVMContext Ctx;
  ir::LiftOptions LO;
  if (Members)
    LO.SelectKernel = [Members](StringRef K) { return Members->count(K.str()) != 0; };
  else if (!Sel.Only.empty() || !Sel.Exclude.empty())
    LO.SelectKernel = [&Sel](StringRef K) { return Sel.selects(K); }; // not the others' bodies
  auto T0 = std::chrono::steady_clock::now();
  auto Lifted = ir::liftModule(Ptx, Ctx, LO);
  if (!Lifted)
    return createStringError(Name + ": " + toString(Lifted.takeError()));
  GroupResult Out;
  Out.Times.Lift = std::chrono::duration<double>(std::chrono::steady_clock::now() - T0).count();
  for (ir::KernelFailure &F : Lifted->Failures)
    if (Sel.selects(F.Kernel))
      Out.Failures.push_back(std::move(F));
  std::vector<std::string> Wanted;
  for (const std::string &K : Lifted->Kernels)
    if (Sel.selects(K))
      Wanted.push_back(K);
  if (Wanted.empty())
    return Out;

  // The first compile consumes the lifted module; the rare retries below (the backend rejected
  // the module) lift it again, which is cheaper than keeping a copy of every module.
  std::unique_ptr<Module> Unused = std::move(Lifted->M);
  size_t LiftedKernels = Lifted->Kernels.size();
  bool Part = Members != nullptr;
  std::optional<CodeObject> Linked; // of the last compile, when not a part
  auto CompileSome = [&](const std::set<std::string> &Keep) -> Expected<ObjectFile> {
    std::unique_ptr<Module> M = std::move(Unused);
    if (!M) {
      auto Again = ir::liftModule(Ptx, Ctx, LO);
      if (!Again)
        return Again.takeError();
      M = std::move(Again->M);
    }
    if (Keep.size() != LiftedKernels)
      keepKernels(*M, Keep);
    auto Obj = compileObject(std::move(M), Opts, Part);
    if (!Obj || Part)
      return Obj;
    auto L = link(ArrayRef<ObjectFile>(*Obj));
    if (!L)
      return L.takeError();
    Linked = std::move(*L);
    return Obj;
  };

  std::set<std::string> All(Wanted.begin(), Wanted.end());
  auto Whole = CompileSome(All);
  auto Done = [&](ObjectFile &&Obj) {
    double Lift = Out.Times.Lift;
    Out.Times = Linked ? Linked->Times : Obj.Times; // with the link's time when linked here
    Out.Times.Lift = Lift;
    Out.Objects.push_back(std::move(Obj));
    Out.Linked = std::move(Linked);
  };
  if (Whole) {
    Done(std::move(*Whole));
    return Out;
  }
  std::string WholeError = toString(Whole.takeError());
  if (Wanted.size() == 1) {
    Out.Failures.push_back(
        {Wanted[0], Name + ": " + Opts.Arch + ": kernel '" + Wanted[0] + "': " + WholeError});
    return Out;
  }
  // The backend rejected the group: compile each kernel alone to find the ones at fault.
  std::set<std::string> Good;
  for (const std::string &K : Wanted) {
    auto One = CompileSome({K});
    if (One) {
      Good.insert(K);
      continue;
    }
    Out.Failures.push_back(
        {K, Name + ": " + Opts.Arch + ": kernel '" + K + "': " + toString(One.takeError())});
  }
  if (Good.empty())
    return Out;
  auto Rest = CompileSome(Good);
  if (!Rest) {
    // Each compiles alone but not together: report the group's error against each of them.
    std::string Why = toString(Rest.takeError());
    for (const std::string &K : Good)
      Out.Failures.push_back({K, Name + ": " + Opts.Arch + ": kernel '" + K +
                                     "' (compiled with the module's other kernels): " + Why});
    return Out;
  }
  Done(std::move(*Rest));
  return Out;
}

// The module as one group: one object, linked alone.
Expected<ModuleResult> compileWhole(const ptx::Module &Ptx, const std::string &Name,
                                    const CompileOptions &Opts, const KernelSelection &Sel) {
  auto G = compileGroup(Ptx, Name, Opts, Sel, nullptr);
  if (!G)
    return G.takeError();
  ModuleResult Out;
  Out.Failures = std::move(G->Failures);
  Out.Times = G->Times;
  if (G->Linked) {
    Out.CodeObject = std::move(G->Linked->Bytes);
    Out.Kernels = std::move(G->Linked->Kernels);
  }
  return Out;
}

} // namespace

std::vector<std::vector<std::string>> planModuleParts(const ptx::Module &PM,
                                                      const KernelSelection &Sel) {
  std::vector<const ptx::Function *> Fns;
  for (const ptx::TopLevel &T : PM.Items)
    if (T.K == ptx::TopLevel::Func && T.F->Body)
      Fns.push_back(T.F);
  llvm::sort(Fns, [](const ptx::Function *A, const ptx::Function *B) {
    return A->L.Offset < B->L.Offset;
  });
  // A function's size: from its start to the next function's (or the end of the text).
  std::vector<std::pair<std::string, size_t>> Kernels;
  size_t Total = 0, Functions = 0;
  for (size_t I = 0; I < Fns.size(); ++I) {
    size_t End = I + 1 < Fns.size() ? Fns[I + 1]->L.Offset : PM.source().size();
    size_t Size = End > Fns[I]->L.Offset ? End - Fns[I]->L.Offset : 0;
    if (!Fns[I]->IsEntry) {
      Functions += Size;
      continue;
    }
    if (!Sel.selects(Fns[I]->Name))
      continue;
    Kernels.emplace_back(Fns[I]->Name.str(), Size);
    Total += Size;
  }
  // N parts of about Total / N bytes each; one when the functions, which parts share, weigh more.
  size_t N =
      Functions > Total ? 1 : std::min(Kernels.size(), std::max<size_t>(1, Total / PartBytes));
  std::vector<std::vector<std::string>> Parts(1);
  size_t Sum = 0;
  for (auto &[Name, Size] : Kernels) {
    // A part ends before the kernel that would take it further past its share than short of it.
    if (!Parts.back().empty() && Parts.size() < N && Sum + Size / 2 >= Total * Parts.size() / N)
      Parts.emplace_back();
    Parts.back().push_back(Name);
    Sum += Size;
  }
  return Parts;
}

Expected<ModuleResult> compilePtx(const PtxModule &PM, const CompileOptions &Opts,
                                  const KernelSelection &Sel) {
  if (!isSupportedArch(Opts.Arch))
    return createStringError("unsupported target '" + Opts.Arch + "'");
  auto T0 = std::chrono::steady_clock::now();
  ptx::ParseResult R = ptx::parse(PM.Name, PM.Text);
  if (!R.ok())
    return ptx::toError(R);
  double ParseTime = std::chrono::duration<double>(std::chrono::steady_clock::now() - T0).count();

  std::vector<std::set<std::string>> Parts;
  for (std::vector<std::string> &P : planModuleParts(*R.M, Sel))
    Parts.emplace_back(P.begin(), P.end());
  auto Result = [&]() -> Expected<ModuleResult> {
    if (Parts.size() <= 1)
      return compileWhole(*R.M, PM.Name, Opts, Sel);
    // Parts on threads, each lifting its kernels from the shared (read-only) PTX module into a
    // context of its own; then one link. Failures and kernels keep PTX order.
    std::vector<std::optional<Expected<GroupResult>>> Done(Parts.size());
    std::atomic<size_t> Next{0};
    auto Work = [&] {
      for (size_t I; (I = Next++) < Parts.size();)
        Done[I].emplace(compileGroup(*R.M, PM.Name, Opts, Sel, &Parts[I]));
    };
    unsigned Threads =
        Opts.Threads ? Opts.Threads : llvm::hardware_concurrency().compute_thread_count();
    std::vector<std::thread> Pool;
    for (unsigned T = 1; T < std::min<size_t>(Threads, Parts.size()); ++T)
      Pool.emplace_back(Work);
    Work();
    for (std::thread &T : Pool)
      T.join();
    ModuleResult Out;
    std::vector<ObjectFile> Objects;
    double Lift = 0;
    Error Err = Error::success();
    for (auto &D : Done) {
      if (!*D) {
        Err = joinErrors(std::move(Err), D->takeError());
        continue;
      }
      for (ir::KernelFailure &F : (*D)->Failures)
        Out.Failures.push_back(std::move(F));
      Lift += (*D)->Times.Lift;
      for (ObjectFile &O : (*D)->Objects)
        Objects.push_back(std::move(O));
    }
    if (Err)
      return std::move(Err);
    if (Objects.empty())
      return Out;
    auto Linked = link(Objects);
    if (!Linked) {
      // Parts that compile but do not link together: the module as one, as without parts.
      consumeError(Linked.takeError());
      return compileWhole(*R.M, PM.Name, Opts, Sel);
    }
    Out.CodeObject = std::move(Linked->Bytes);
    Out.Kernels = std::move(Linked->Kernels);
    Out.Times = Linked->Times; // the objects' compile times, summed by link(), and the link's
    Out.Times.Lift = Lift;
    Out.Parts = unsigned(Objects.size());
    return Out;
  }();
  if (!Result)
    return Result.takeError();
  Result->Times.Parse = ParseTime;
  for (const std::string &K : Sel.Only)
    if (!is_contained(Result->Kernels, K) &&
        none_of(Result->Failures, [&](const ir::KernelFailure &F) { return F.Kernel == K; }))
      Result->Failures.push_back({K, PM.Name + ": kernel '" + K + "' is not in the module"});
  return Result;
}

} // namespace reptx::backend
