// The special registers that are neither thread/block coordinates (Lifter.cpp) nor warp registers
// (LiftWarp.cpp), PTX ISA 10: %clock, %clock64, %globaltimer(_lo/_hi), %smid, %nsmid, %gridid,
// %dynamic_smem_size, %total_smem_size, %envreg0-31 and %pm0-7(_64).
#include "Lifter.h"

#include "reptx/ir/Intrinsics.h"

#include "llvm/ADT/StringSwitch.h"

using namespace llvm;

namespace reptx::ir {

namespace {

// A reptx intrinsic without arguments. Counters and clocks read state that changes between
// calls (inaccessible memory); the others are constant for the dispatch.
Value *callIntrinsic(FunctionLifter &L, StringRef Name, Type *Ret, bool Volatile) {
  return L.B.CreateCall(L.declareIntrinsic(
      Name, Ret, {}, Volatile ? MemoryEffects::inaccessibleMemOnly() : MemoryEffects::none(),
      /*Speculatable=*/!Volatile));
}

} // namespace

Value *otherSpecialRegister(FunctionLifter &L, StringRef Name) {
  IRBuilder<> &B = L.B;
  Type *I32 = B.getInt32Ty(), *I64 = B.getInt64Ty();
  if (Name == "%clock64")
    return callIntrinsic(L, intrinsics::Clock64, I64, true);
  if (Name == "%clock") // the low 32 bits of the same counter (PTX ISA 10.17)
    return B.CreateTrunc(callIntrinsic(L, intrinsics::Clock64, I64, true), I32);
  if (Name == "%globaltimer" || Name == "%globaltimer_lo" || Name == "%globaltimer_hi") {
    Value *T = callIntrinsic(L, intrinsics::GlobalTimer, I64, true); // nanoseconds
    if (Name == "%globaltimer")
      return T;
    return B.CreateTrunc(Name == "%globaltimer_hi" ? B.CreateLShr(T, 32) : T, I32);
  }
  StringRef Simple = StringSwitch<StringRef>(Name)
                         .Case("%smid", intrinsics::SmId)
                         .Case("%nsmid", intrinsics::NSmId)
                         .Case("%dynamic_smem_size", intrinsics::DynamicSmemSize)
                         .Case("%total_smem_size", intrinsics::TotalSmemSize)
                         .Default("");
  if (!Simple.empty())
    return callIntrinsic(L, Simple, I32, false);
  if (Name == "%gridid") // a 64-bit id of the grid (PTX ISA 10.14)
    return callIntrinsic(L, intrinsics::GridId, I64, false);
  // %envregN: driver-defined values; the loader defines none (0). %pmN: performance monitoring
  // counters, which reptx does not provide: they read 0.
  if (Name.starts_with("%envreg") || Name.starts_with("%pm")) {
    StringRef Rest = Name.drop_front(Name.starts_with("%envreg") ? 7 : 3);
    bool Wide = Rest.consume_back("_64");
    unsigned N;
    if (!Rest.getAsInteger(10, N) && N < 32)
      return ConstantInt::get(Wide ? I64 : I32, 0);
  }
  return nullptr;
}

} // namespace reptx::ir
