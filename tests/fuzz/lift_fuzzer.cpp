// libFuzzer target for the lifter (ir/): every input that parses as PTX without errors is lifted
// to LLVM IR. The lifter promises, for any parsed module, either a module-level error or a result
// in which each `.entry` with a body is either lifted or listed as a failure with a message that
// names it, and a module that verifies and declares no function but intrinsics (the rest would
// stop the linker). A kernel the lifter turned into IR that does not verify is a lifter bug even
// though liftModule reports it as a failure, so it is a finding too. Findings end in
// __builtin_trap after a message, like sanitizer reports, crashes, leaks, timeouts and OOMs. See
// README.md.
#include "reptx/frontend-ptx/Parser.h"
#include "reptx/ir/Lift.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  using namespace reptx;
  ptx::ParseOptions Opts;
  Opts.MaxErrors = 1;
  ptx::ParseResult R =
      ptx::parse("fuzz.ptx", std::string(reinterpret_cast<const char *>(Data), Size), Opts);
  if (!R.M || !R.ok())
    return 0;         // the parser's own fuzzer covers its error paths
  size_t Entries = 0; // with a body: a bodiless `.entry` only declares a kernel of another module
  for (const ptx::TopLevel &T : R.M->Items)
    if (T.K == ptx::TopLevel::Func && T.F && T.F->IsEntry && T.F->Body)
      ++Entries;

  llvm::LLVMContext Ctx;
  llvm::Expected<ir::LiftResult> L = ir::liftModule(*R.M, Ctx);
  if (!L) {
    if (llvm::toString(L.takeError()).empty())
      __builtin_trap(); // a module-level error says what is wrong
    return 0;
  }
  if (!L->M || L->Kernels.size() + L->Failures.size() != Entries) {
    llvm::errs() << "lifted " << L->Kernels.size() << " and failed " << L->Failures.size() << " of "
                 << Entries << " kernels\n";
    __builtin_trap();
  }
  for (const ir::KernelFailure &KF : L->Failures) {
    if (KF.Message.find("'" + KF.Kernel + "'") == std::string::npos ||
        KF.Message.find("does not verify") != std::string::npos) {
      llvm::errs() << "kernel '" << KF.Kernel << "': " << KF.Message << "\n";
      __builtin_trap();
    }
  }
  if (llvm::verifyModule(*L->M, &llvm::errs()))
    __builtin_trap();
  // Nothing left for the linker to miss: every function without a body is an LLVM intrinsic or
  // one of the reptx intrinsics that a backend defines (ir/Intrinsics.h).
  for (const llvm::Function &F : *L->M)
    if (F.isDeclaration() && !F.isIntrinsic() && !F.getName().starts_with("reptx.")) {
      llvm::errs() << "declaration of '" << F.getName() << "' left in the lifted module\n";
      __builtin_trap();
    }
  return 0;
}
