#include "ModuleCompiler.h"

#include "reptx/backend/Backend.h"
#include "reptx/frontend-ptx/Parser.h"
#include "reptx/ir/Lift.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

namespace reptx::loader {

llvm::Expected<CompiledModule> compilePtxModule(llvm::StringRef Name, llvm::StringRef Ptx,
                                                llvm::StringRef Arch) {
  ptx::ParseResult R = ptx::parse(Name.str(), Ptx.str());
  if (!R.ok())
    return ptx::toError(R);
  llvm::LLVMContext Ctx;
  auto Lifted = ir::liftModule(*R.M, Ctx);
  if (!Lifted)
    return Lifted.takeError();
  CompiledModule Out;
  for (const ir::KernelFailure &F : Lifted->Failures)
    Out.Failures.emplace_back(F.Kernel, F.Message);
  if (Lifted->Kernels.empty())
    return Out;
  backend::CompileOptions CO;
  CO.Arch = Arch.str();
  auto Obj = backend::compile(*Lifted->M, CO);
  if (!Obj)
    return Obj.takeError();
  Out.CodeObject = std::move(Obj->Bytes);
  Out.Kernels = Lifted->Kernels;
  return Out;
}

} // namespace reptx::loader
