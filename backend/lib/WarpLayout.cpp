// Warps on waves. Wave32 targets and wave64 packed mode need nothing here: a PTX warp is a whole
// wave32 wave or a 32-lane half of a wave64 wave, consecutive PTX thread ids fill consecutive
// lanes, and the device helpers (backend/device/) confine warp operations to the half. Wave64
// single mode (one warp per wave, lanes 32-63 idle) changes the launch: see lowerWave64Single and
// backend/README.md, "Wave64 single mode".
#include "WarpLayout.h"

#include "reptx/backend/Backend.h"
#include "reptx/ir/Intrinsics.h"
#include "reptx/ir/Lift.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicsAMDGPU.h"
#include "llvm/IR/MDBuilder.h"

using namespace llvm;

namespace reptx::backend {

StringRef wave64ModeName(CompileOptions::Wave64Mode Mode) {
  return Mode == CompileOptions::Wave64Mode::Single ? "single" : "packed";
}

unsigned waveSize(StringRef Arch) { return Arch == "gfx90a" || Arch == "gfx942" ? 64 : 32; }

namespace {

// Hardware work-items per PTX block of N threads: 64 per (possibly partial) 32-thread warp.
uint64_t hardwareItems(uint64_t N) { return (N + 31) / 32 * 64; }

// "x,y,z" -> the three numbers, or nothing when malformed.
std::optional<std::array<uint32_t, 3>> dims(StringRef S) {
  SmallVector<StringRef, 3> Parts;
  S.split(Parts, ',');
  if (Parts.size() != 3)
    return std::nullopt;
  std::array<uint32_t, 3> D;
  for (unsigned I = 0; I < 3; ++I)
    if (Parts[I].getAsInteger(10, D[I]) || D[I] == 0)
      return std::nullopt;
  return D;
}

// The PTX block size from the leading kernel argument: u32 at byte 4 * Dim of the kernarg segment.
// A kernel reaches the segment through llvm.amdgcn.kernarg.segment.ptr; other functions do not
// receive that pointer (it reads as null there), but they do receive the dispatch packet, whose
// kernarg_address (byte 40, HSA Platform System Architecture 2.9.6) is the same segment.
Value *ptxBlockDim(IRBuilder<> &B, unsigned Dim, bool InKernel) {
  Value *Seg;
  if (InKernel) {
    Seg = B.CreateIntrinsic(Intrinsic::amdgcn_kernarg_segment_ptr, {});
  } else {
    Value *Packet = B.CreateIntrinsic(Intrinsic::amdgcn_dispatch_ptr, {});
    LoadInst *Addr = B.CreateAlignedLoad(
        B.getInt64Ty(), B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), Packet, 40), Align(8));
    Addr->setMetadata(LLVMContext::MD_invariant_load, MDNode::get(B.getContext(), {}));
    Seg = B.CreateIntToPtr(Addr, Packet->getType());
  }
  Value *Ptr = B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), Seg, 4 * Dim);
  LoadInst *LI = B.CreateAlignedLoad(B.getInt32Ty(), Ptr, Align(4));
  LI->setMetadata(LLVMContext::MD_invariant_load, MDNode::get(B.getContext(), {}));
  return LI;
}

// The PTX flat thread id: hardware work-item x = 64 * warp + lane, lanes below 32 only.
Value *ptxFlatId(IRBuilder<> &B) {
  Value *Hw = B.CreateIntrinsic(Intrinsic::amdgcn_workitem_id_x, {});
  return B.CreateOr(B.CreateShl(B.CreateLShr(Hw, 6), 5), B.CreateAnd(Hw, 31));
}

// Body of reptx.tid.* / reptx.ntid.* for single mode.
void defineSpecial(Function &F, bool Tid, unsigned D, bool InKernel) {
  IRBuilder<> B(BasicBlock::Create(F.getContext(), "", &F));
  Value *V;
  if (!Tid) {
    V = ptxBlockDim(B, D, InKernel);
  } else {
    // tid.x = flat % ntid.x, tid.y = flat / ntid.x % ntid.y, tid.z = flat / (ntid.x * ntid.y)
    // (PTX ISA 10.1: threads are numbered x fastest).
    Value *Flat = ptxFlatId(B), *Nx = ptxBlockDim(B, 0, InKernel),
          *Ny = ptxBlockDim(B, 1, InKernel);
    V = D == 0   ? B.CreateURem(Flat, Nx)
        : D == 1 ? B.CreateURem(B.CreateUDiv(Flat, Nx), Ny)
                 : B.CreateUDiv(Flat, B.CreateMul(Nx, Ny));
  }
  B.CreateRet(V);
  F.setMemoryEffects(MemoryEffects::readOnly());
  F.setLinkage(GlobalValue::InternalLinkage);
  F.addFnAttr(Attribute::AlwaysInline);
}

// Defines %tid and %ntid for single mode: calls from kernels go to a variant reading the kernarg
// segment pointer, calls from other functions to one reading it from the dispatch packet.
void defineSpecials(Module &M) {
  for (unsigned D = 0; D < 3; ++D) {
    std::string Axis(1, "xyz"[D]);
    for (bool Tid : {false, true}) {
      Function *F = M.getFunction((Tid ? "reptx.tid." : "reptx.ntid.") + Axis);
      if (!F || !F->isDeclaration())
        continue;
      Function *K = Function::Create(F->getFunctionType(), GlobalValue::InternalLinkage,
                                     F->getName() + ".kernel", M);
      for (User *U : make_early_inc_range(F->users()))
        if (auto *CI = dyn_cast<CallInst>(U);
            CI && CI->getFunction()->hasFnAttribute(ir::KernelAttr))
          CI->setCalledFunction(K);
      defineSpecial(*F, Tid, D, /*InKernel=*/false);
      defineSpecial(*K, Tid, D, /*InKernel=*/true);
    }
  }
}

// Gives kernel F the leading argument; returns the new function.
Function *addLeadingArgument(Function &F) {
  LLVMContext &Ctx = F.getContext();
  SmallVector<Type *, 8> Params{ArrayType::get(Type::getInt32Ty(Ctx), 4)};
  for (Type *T : F.getFunctionType()->params())
    Params.push_back(T);
  auto *FTy = FunctionType::get(F.getReturnType(), Params, false);
  Function *NF = Function::Create(FTy, F.getLinkage(), F.getAddressSpace(), "", F.getParent());
  NF->copyAttributesFrom(&F);
  // copyAttributesFrom copied parameter attributes by position; the lifter sets none, drop them.
  NF->setAttributes(
      AttributeList::get(Ctx, F.getAttributes().getFnAttrs(), F.getAttributes().getRetAttrs(), {}));
  NF->splice(NF->begin(), &F);
  NF->getArg(0)->setName(Wave64SingleArg);
  for (unsigned I = 0; I < F.arg_size(); ++I) {
    F.getArg(I)->replaceAllUsesWith(NF->getArg(I + 1));
    NF->getArg(I + 1)->takeName(F.getArg(I));
  }
  NF->takeName(&F);
  F.eraseFromParent();
  return NF;
}

} // namespace

Error lowerWave64Single(Module &M) {
  SmallVector<Function *, 8> Kernels;
  for (Function &F : M)
    if (F.hasFnAttribute(ir::KernelAttr) && !F.isDeclaration())
      Kernels.push_back(&F);
  defineSpecials(M);
  LLVMContext &Ctx = M.getContext();
  for (Function *Old : Kernels) {
    // The hardware work-group has 64 work-items per PTX warp, at most 1024: PTX blocks of up to
    // 512 threads.
    std::string Size = "1,1024";
    std::optional<std::array<uint32_t, 3>> Req;
    if (Old->hasFnAttribute(ir::ReqNTidAttr))
      Req = dims(Old->getFnAttribute(ir::ReqNTidAttr).getValueAsString());
    if (Req) {
      uint64_t N = hardwareItems(uint64_t((*Req)[0]) * (*Req)[1] * (*Req)[2]);
      if (N > 1024)
        return createStringError("kernel '" + Old->getName() + "': .reqntid of " + Twine(N / 2) +
                                 " threads exceeds the 512 per block of wave64 single mode");
      Size = (Twine(N) + "," + Twine(N)).str();
    } else if (Old->hasFnAttribute(ir::MaxNTidAttr)) {
      if (auto Max = dims(Old->getFnAttribute(ir::MaxNTidAttr).getValueAsString())) {
        uint64_t N = hardwareItems(uint64_t((*Max)[0]) * (*Max)[1] * (*Max)[2]);
        Size = ("1," + Twine(std::min<uint64_t>(N, 1024))).str();
      }
    }
    Function *F = addLeadingArgument(*Old);
    F->addFnAttr("amdgpu-flat-work-group-size", Size);

    // .reqntid fixes the block size: its dimensions replace the kernarg loads in this kernel.
    if (Req)
      for (unsigned D = 0; D < 3; ++D)
        if (Function *N = M.getFunction(std::string("reptx.ntid.") + "xyz"[D] + ".kernel"))
          for (User *U : make_early_inc_range(N->users()))
            if (auto *CI = dyn_cast<CallInst>(U); CI && CI->getFunction() == F) {
              CI->replaceAllUsesWith(ConstantInt::get(Type::getInt32Ty(Ctx), (*Req)[D]));
              CI->eraseFromParent();
            }

    // Idle lanes leave at once: the upper half of every wave, and lanes past the PTX block. The
    // test goes before the entry block's terminator, after the register allocas, which must stay
    // in the entry block for SROA.
    BasicBlock &Entry = F->getEntryBlock();
    Instruction *Term = Entry.getTerminator();
    BasicBlock *Live = Entry.splitBasicBlock(Term, "live");
    BasicBlock *Idle = BasicBlock::Create(Ctx, "idle", F, Live);
    ReturnInst::Create(Ctx, Idle);
    Entry.getTerminator()->eraseFromParent();
    IRBuilder<> B(&Entry);
    Value *Hw = B.CreateIntrinsic(Intrinsic::amdgcn_workitem_id_x, {});
    Value *LowHalf = B.CreateICmpEQ(B.CreateAnd(Hw, 32), B.getInt32(0));
    Value *Threads = B.CreateMul(B.CreateMul(ptxBlockDim(B, 0, true), ptxBlockDim(B, 1, true)),
                                 ptxBlockDim(B, 2, true));
    Value *InBlock = B.CreateICmpULT(ptxFlatId(B), Threads);
    B.CreateCondBr(B.CreateAnd(LowHalf, InBlock), Live, Idle);
  }
  return Error::success();
}

} // namespace reptx::backend
