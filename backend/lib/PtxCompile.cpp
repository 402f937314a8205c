// compilePtx: PTX text to a code object in this process, kernel by kernel when it has to be. The
// child-process wrapper (Isolated.cpp) runs exactly this in the worker.
#include "reptx/backend/Isolated.h"

#include "reptx/frontend-ptx/Parser.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/raw_ostream.h"

#include <set>

using namespace llvm;

namespace reptx::backend {

bool KernelSelection::selects(StringRef Kernel) const {
  if (!Only.empty() && !is_contained(Only, Kernel))
    return false;
  return !is_contained(Exclude, Kernel);
}

namespace {

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

} // namespace

Expected<ModuleResult> compilePtx(const PtxModule &PM, const CompileOptions &Opts,
                                  const KernelSelection &Sel) {
  if (!isSupportedArch(Opts.Arch))
    return createStringError("unsupported target '" + Opts.Arch + "'");
  ptx::ParseResult R = ptx::parse(PM.Name, PM.Text);
  if (!R.ok())
    return ptx::toError(R);
  LLVMContext Ctx;
  auto Lifted = ir::liftModule(*R.M, Ctx);
  if (!Lifted)
    return createStringError(PM.Name + ": " + toString(Lifted.takeError()));

  ModuleResult Out;
  for (ir::KernelFailure &F : Lifted->Failures)
    if (Sel.selects(F.Kernel))
      Out.Failures.push_back(std::move(F));
  std::vector<std::string> Wanted;
  for (const std::string &K : Lifted->Kernels)
    if (Sel.selects(K))
      Wanted.push_back(K);
  for (const std::string &K : Sel.Only)
    if (!is_contained(Lifted->Kernels, K) &&
        none_of(Out.Failures, [&](const ir::KernelFailure &F) { return F.Kernel == K; }))
      Out.Failures.push_back({K, PM.Name + ": kernel '" + K + "' is not in the module"});
  if (Wanted.empty())
    return Out;

  // The first compile consumes the lifted module; the rare retries below (the backend rejected
  // the module) lift it again, which is cheaper than keeping a copy of every module.
  std::unique_ptr<Module> Unused = std::move(Lifted->M);
  size_t LiftedKernels = Lifted->Kernels.size();
  auto CompileSome = [&](const std::set<std::string> &Keep) -> Expected<CodeObject> {
    std::unique_ptr<Module> M = std::move(Unused);
    if (!M) {
      auto Again = ir::liftModule(*R.M, Ctx);
      if (!Again)
        return Again.takeError();
      M = std::move(Again->M);
    }
    if (Keep.size() != LiftedKernels)
      keepKernels(*M, Keep);
    return compile(std::move(M), Opts);
  };

  std::set<std::string> All(Wanted.begin(), Wanted.end());
  auto Whole = CompileSome(All);
  if (Whole) {
    Out.CodeObject = std::move(Whole->Bytes);
    Out.Kernels = std::move(Whole->Kernels);
    return Out;
  }
  std::string WholeError = toString(Whole.takeError());
  if (Wanted.size() == 1) {
    Out.Failures.push_back(
        {Wanted[0], PM.Name + ": " + Opts.Arch + ": kernel '" + Wanted[0] + "': " + WholeError});
    return Out;
  }
  // The backend rejected the module: compile each kernel alone to find the ones at fault.
  std::set<std::string> Good;
  for (const std::string &K : Wanted) {
    auto One = CompileSome({K});
    if (One) {
      Good.insert(K);
      continue;
    }
    Out.Failures.push_back(
        {K, PM.Name + ": " + Opts.Arch + ": kernel '" + K + "': " + toString(One.takeError())});
  }
  if (Good.empty())
    return Out;
  auto Rest = CompileSome(Good);
  if (!Rest) {
    // Each compiles alone but not together: report the module's error against each of them.
    std::string Why = toString(Rest.takeError());
    for (const std::string &K : Good)
      Out.Failures.push_back({K, PM.Name + ": " + Opts.Arch + ": kernel '" + K +
                                     "' (compiled with the module's other kernels): " + Why});
    return Out;
  }
  Out.CodeObject = std::move(Rest->Bytes);
  Out.Kernels = std::move(Rest->Kernels);
  return Out;
}

} // namespace reptx::backend
