// The special registers that are neither thread/block coordinates (Lifter.cpp) nor warp registers
// (LiftWarp.cpp), PTX ISA 10: %clock, %clock64, %globaltimer(_lo/_hi), %smid, %nsmid, %gridid,
// %dynamic_smem_size, %total_smem_size, %reserved_smem_offset_*, %envreg0-31 and %pm0-7(_64).
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
  // %reserved_smem_offset_begin/_end/_cap/_0/_1 (PTX ISA 10.29-10.32): shared memory that
  // NVIDIA's system software reserves in each CTA (1 KiB from sm_80 on,
  // CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK). Cooperative groups keep the barriers
  // and exchange slots of tiles wider than a warp at offset 1 (at least 288 bytes there,
  // cooperative_groups/details/memory.h). reptx reserves a 1 KiB LDS block for the kernels that
  // read these registers, offset 0 at its start and offset 1 at its middle; the values are
  // shared-window addresses like a .shared variable's.
  StringRef Reserved = Name;
  if (Reserved.consume_front("%reserved_smem_offset_")) {
    constexpr uint32_t Size = 1024;
    Module &M = *B.GetInsertBlock()->getModule();
    GlobalVariable *G = M.getNamedGlobal("reptx.reserved_smem");
    if (!G) {
      auto *Ty = ArrayType::get(B.getInt8Ty(), Size);
      G = new GlobalVariable(M, Ty, false, GlobalValue::InternalLinkage, PoisonValue::get(Ty),
                             "reptx.reserved_smem", nullptr, GlobalValue::NotThreadLocal, SharedAS);
      G->setAlignment(Align(16));
    }
    Value *Begin = B.CreatePtrToInt(G, I32);
    if (Reserved == "begin" || Reserved == "0")
      return Begin;
    if (Reserved == "1")
      return B.CreateAdd(Begin, B.getInt32(Size / 2));
    if (Reserved == "end")
      return B.CreateAdd(Begin, B.getInt32(Size));
    if (Reserved == "cap")
      return B.getInt32(Size);
    return nullptr;
  }
  if (Name == "%gridid") // a 64-bit id of the grid (PTX ISA 10.14)
    return callIntrinsic(L, intrinsics::GridId, I64, false);
  // %envregN (PTX ISA 10.33): driver-defined values, read from the module's EnvRegVariable, 32
  // words in global memory that a loader writes before each launch. Cooperative groups' grid
  // sync finds the grid workspace of a cooperative launch at %envreg1 (high half) and %envreg2
  // (low half); every other word, and both outside cooperative launches, read 0. The words do
  // not change while the kernel runs (an invariant load).
  StringRef Env = Name;
  unsigned N;
  if (Env.consume_front("%envreg") && !Env.getAsInteger(10, N) && N < 32) {
    Module &M = *B.GetInsertBlock()->getModule();
    GlobalVariable *G = M.getNamedGlobal(EnvRegVariable);
    if (!G) {
      auto *Ty = ArrayType::get(I32, 32);
      G = new GlobalVariable(M, Ty, false, GlobalValue::ExternalLinkage, Constant::getNullValue(Ty),
                             EnvRegVariable, nullptr, GlobalValue::NotThreadLocal, GlobalAS);
      G->setAlignment(Align(4));
    }
    LoadInst *V = B.CreateLoad(I32, B.CreateConstInBoundsGEP2_32(G->getValueType(), G, 0, N));
    V->setMetadata(LLVMContext::MD_invariant_load, MDNode::get(B.getContext(), {}));
    return V;
  }
  // %pmN: performance monitoring counters, which reptx does not provide: they read 0.
  if (Name.starts_with("%pm")) {
    StringRef Rest = Name.drop_front(3);
    bool Wide = Rest.consume_back("_64");
    if (!Rest.getAsInteger(10, N) && N < 8)
      return ConstantInt::get(Wide ? I64 : I32, 0);
  }
  return nullptr;
}

} // namespace reptx::ir
