// AMDGPU bodies of the reptx intrinsics. Work-item and work-group ids come from the AMDGPU
// intrinsics; block and grid sizes from the implicit kernel arguments in code object v5+ and from
// the HSA kernel dispatch packet (llvm.amdgcn.dispatch.ptr) in v4, whose implicit arguments have
// neither; the barrier is a work-group release fence, s_barrier and an acquire
// fence, which gives bar.sync's memory ordering (PTX ISA 9.7.13.1).
#include "AmdgpuIntrinsics.h"

#include "reptx/ir/Intrinsics.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/IntrinsicsAMDGPU.h"
#include "llvm/IR/MDBuilder.h"

using namespace llvm;

namespace reptx::backend {

namespace {

// An invariant field at Offset of the memory that the pointer intrinsic Base returns.
Value *invariantField(IRBuilder<> &B, Intrinsic::ID Base, unsigned Offset, Type *Ty) {
  Value *Field = B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), B.CreateIntrinsic(Base, {}), Offset);
  LoadInst *LI = B.CreateAlignedLoad(Ty, Field, Align(Ty->getPrimitiveSizeInBits() / 8));
  LI->setMetadata(LLVMContext::MD_invariant_load, MDNode::get(B.getContext(), {}));
  return LI;
}

// hsa_kernel_dispatch_packet_t: workgroup_size_x/y/z are u16 at bytes 4, 6, 8; grid_size_x/y/z
// are u32 at bytes 12, 16, 20 (HSA Platform System Architecture 2.9.6).
Value *dispatchField(IRBuilder<> &B, unsigned Offset, Type *Ty) {
  return invariantField(B, Intrinsic::amdgcn_dispatch_ptr, Offset, Ty);
}

// A field of the implicit kernel arguments (code object v5+; AMDGPUUsage, "Code Object V5
// Metadata"), which the runtime fills after the explicit ones.
Value *implicitField(IRBuilder<> &B, unsigned Offset, Type *Ty) {
  return invariantField(B, Intrinsic::amdgcn_implicitarg_ptr, Offset, Ty);
}

// The values a launch can give (V, a call or a load, holds them for every kernel): the loader
// refuses blocks over CUDA's limits (x and y 1024, z 64) and grids over 2^31 - 1 by 65535 by
// 65535, as cuLaunchKernel does. Known bounds let the optimizer prove what nvcc's code assumes
// (an index scaled by 4 fits below an LDS tile, so an add is an or; a product does not wrap).
Value *inRange(Value *V, uint64_t Lo, uint64_t Hi) {
  unsigned Bits = V->getType()->getIntegerBitWidth();
  if (auto *CI = dyn_cast<CallInst>(V))
    CI->addRangeRetAttr(ConstantRange(APInt(Bits, Lo), APInt(Bits, Hi)));
  else if (auto *LI = dyn_cast<LoadInst>(V))
    LI->setMetadata(LLVMContext::MD_range,
                    MDBuilder(V->getContext()).createRange(APInt(Bits, Lo), APInt(Bits, Hi)));
  return V;
}

// The DPP control (AMDGPU DPP_CTRL) that makes lane i of each row of 16 read lane i ^ Xor, or -1:
// on GFX10+ row_xmask for any Xor below 16; on GFX9 quad_perm for 1-3, row_half_mirror (7 - i
// within 8) for 7, row_ror:8 for 8 and row_mirror (15 - i) for 15.
int dppControlForXor(unsigned Xor, bool Gfx10Plus) {
  if (Xor == 0 || Xor >= 16)
    return -1;
  if (Gfx10Plus)
    return int(0x160 + Xor);
  switch (Xor) {
  case 1:
  case 2:
  case 3: {
    int Ctrl = 0;
    for (unsigned I = 0; I < 4; ++I)
      Ctrl |= int(I ^ Xor) << (2 * I);
    return Ctrl;
  }
  case 7:
    return 0x141;
  case 8:
    return 0x128;
  case 15:
    return 0x140;
  default:
    return -1;
  }
}

// The value that each lane reads in `shfl.Mode d, a, b, c` when the constants b and c make it a
// fixed permutation with p true everywhere; null when they do not. PTX ISA 9.7.9.6: maxLane =
// (lane & seg) | (clamp & ~seg), and the source lane j is valid when j <= maxLane.
Value *fixedShuffle(IRBuilder<> &B, StringRef Mode, Value *A, unsigned Bv, unsigned C,
                    bool Gfx10Plus) {
  Type *I32 = B.getInt32Ty();
  unsigned Clamp = C & 31, Seg = (C >> 8) & 31, Rest = ~Seg & 31;
  if (Mode == "idx") {
    // j = (lane & seg) | (b & ~seg): the same segment bits as maxLane, so valid for every lane
    // when (b & ~seg) <= (clamp & ~seg). ds_swizzle's bit-mask mode computes exactly j within
    // each 32 lanes: and = seg, or = b & ~seg.
    if ((Bv & Rest) > (Clamp & Rest))
      return nullptr;
    // One source lane for the whole warp, and on GFX10+ the warp is the wave (wave32): a
    // uniform v_readlane, whose users may stay scalar.
    if (Seg == 0 && Gfx10Plus)
      return B.CreateIntrinsic(Intrinsic::amdgcn_readlane, {I32}, {A, B.getInt32(Bv & 31)});
    return B.CreateIntrinsic(Intrinsic::amdgcn_ds_swizzle, {},
                             {A, B.getInt32(Seg | ((Bv & Rest) << 5))});
  }
  // bfly: j = lane ^ b. If b has no bit of seg, j keeps lane's segment bits, so j <= maxLane for
  // every lane exactly when clamp has every bit outside seg.
  unsigned Xor = Bv & 31;
  if ((Clamp & Rest) != Rest || (Xor & Seg) != 0)
    return nullptr;
  if (Xor == 0)
    return A;
  // Every source lane is in range; an inactive one gives an undefined value in PTX.
  if (int Ctrl = dppControlForXor(Xor, Gfx10Plus); Ctrl >= 0)
    return B.CreateIntrinsic(Intrinsic::amdgcn_update_dpp, {I32},
                             {PoisonValue::get(I32), A, B.getInt32(Ctrl), B.getInt32(0xf),
                              B.getInt32(0xf), B.getTrue()});
  if (Gfx10Plus && Xor >= 16) {
    // v_permlanex16: lane i of a row reads lane sel[i] of the other row of its 32 lanes, so
    // sel[i] = i ^ (Xor & 15) gives lane ^ Xor.
    uint64_t Sel = 0;
    for (unsigned I = 0; I < 16; ++I)
      Sel |= uint64_t(I ^ (Xor & 15)) << (4 * I);
    return B.CreateIntrinsic(Intrinsic::amdgcn_permlanex16, {I32},
                             {PoisonValue::get(I32), A, B.getInt32(uint32_t(Sel)),
                              B.getInt32(uint32_t(Sel >> 32)), B.getFalse(), B.getFalse()});
  }
  // Bit-mask mode (offset bit 15 clear): lane reads ((lane & and) | or) ^ xor within each 32
  // lanes, so each PTX warp of a wave64 stays in its half.
  return B.CreateIntrinsic(Intrinsic::amdgcn_ds_swizzle, {}, {A, B.getInt32(0x1f | (Xor << 10))});
}

} // namespace

bool specializeShuffles(Module &M, bool Gfx10Plus) {
  bool Changed = false;
  for (StringRef Mode : {"bfly", "idx"}) {
    Function *F = M.getFunction(("reptx.shfl." + Mode).str());
    if (!F)
      continue;
    for (User *U : make_early_inc_range(F->users())) {
      auto *CI = dyn_cast<CallInst>(U);
      if (!CI || CI->getCalledFunction() != F || CI->arg_size() != 4)
        continue;
      auto *Bc = dyn_cast<ConstantInt>(CI->getArgOperand(1));
      auto *Cc = dyn_cast<ConstantInt>(CI->getArgOperand(2));
      if (!Bc || !Cc)
        continue;
      IRBuilder<> B(CI);
      Value *R = fixedShuffle(B, Mode, CI->getArgOperand(0), unsigned(Bc->getZExtValue()),
                              unsigned(Cc->getZExtValue()), Gfx10Plus);
      if (!R)
        continue;
      // d in bits 0-31, p (true) in bit 32.
      CI->replaceAllUsesWith(
          B.CreateOr(B.CreateZExt(R, B.getInt64Ty()), B.getInt64(uint64_t(1) << 32)));
      CI->eraseFromParent();
      Changed = true;
    }
  }
  return Changed;
}

Error defineIntrinsics(Module &M, unsigned CodeObjectVersion) {
  for (Function &F : M) {
    StringRef Name = F.getName();
    if (!Name.starts_with("reptx.") || !F.isDeclaration())
      continue;
    LLVMContext &Ctx = M.getContext();
    IRBuilder<> B(BasicBlock::Create(Ctx, "", &F));
    if (Name == ir::intrinsics::Clock64) {
      // The 64-bit constant-rate counter: GFX11+ has no 64-bit shader cycle counter
      // (readcyclecounter there is the 20-bit SHADER_CYCLES), so every target uses the same one.
      B.CreateRet(B.CreateIntrinsic(Intrinsic::readsteadycounter, {}));
    } else if (Name == ir::intrinsics::GlobalTimer) {
      // The constant 100 MHz counter (s_memrealtime / s_sendmsg_rtn REALTIME) in nanoseconds.
      Value *T = B.CreateIntrinsic(Intrinsic::readsteadycounter, {});
      B.CreateRet(B.CreateMul(T, B.getInt64(10)));
    } else if (Name == ir::intrinsics::SmId || Name == ir::intrinsics::NSmId) {
      // Which compute unit runs the work-group is not observable portably: every work-group
      // reports unit 0 of 1, a consistent answer (%smid < %nsmid) for per-unit indexing.
      B.CreateRet(B.getInt32(Name == ir::intrinsics::SmId ? 0 : 1));
    } else if (Name == ir::intrinsics::GridId) {
      B.CreateRet(B.CreateIntrinsic(Intrinsic::amdgcn_dispatch_id, {}));
    } else if (Name == ir::intrinsics::TotalSmemSize || Name == ir::intrinsics::DynamicSmemSize) {
      // The packet's group_segment_size (byte 28) is the work-group's whole LDS: static plus the
      // launch's dynamic part; the static part is llvm.amdgcn.groupstaticsize.
      F.setMemoryEffects(MemoryEffects::readOnly());
      Value *Total = dispatchField(B, 28, B.getInt32Ty());
      if (Name == ir::intrinsics::DynamicSmemSize)
        Total = B.CreateSub(Total, B.CreateIntrinsic(Intrinsic::amdgcn_groupstaticsize, {}));
      B.CreateRet(Total);
    } else if (Name == ir::intrinsics::AssertFail) {
      // A failed device assert ends the kernel with an error: s_trap.
      B.CreateIntrinsic(Intrinsic::trap, {});
      B.CreateUnreachable();
    } else if (Name.starts_with(ir::intrinsics::IsSpacePrefix)) {
      // isspacep: a flat address is in LDS or in scratch when its high half is that aperture's
      // base (llvm.amdgcn.is.shared/.is.private); every other flat address is global memory,
      // where the const window lives too.
      F.setDoesNotAccessMemory();
      StringRef Space = Name.drop_front(ir::intrinsics::IsSpacePrefix.size());
      Value *P = F.getArg(0);
      Value *Shared = B.CreateIntrinsic(Intrinsic::amdgcn_is_shared, {P});
      Value *Private = B.CreateIntrinsic(Intrinsic::amdgcn_is_private, {P});
      if (Space == "shared")
        B.CreateRet(Shared);
      else if (Space == "local")
        B.CreateRet(Private);
      else if (Space == "global" || Space == "const")
        B.CreateRet(B.CreateNot(B.CreateOr(Shared, Private)));
      else
        return createStringError("unknown reptx intrinsic " + Name);
    } else if (Name == ir::intrinsics::BarrierSync) {
      B.CreateFence(AtomicOrdering::Release, Ctx.getOrInsertSyncScopeID("workgroup"));
      B.CreateIntrinsic(Intrinsic::amdgcn_s_barrier, {});
      B.CreateFence(AtomicOrdering::Acquire, Ctx.getOrInsertSyncScopeID("workgroup"));
      B.CreateRetVoid();
    } else {
      auto [Reg, Dim] = Name.drop_front(6).split('.');
      unsigned D = Dim == "x" ? 0 : Dim == "y" ? 1 : Dim == "z" ? 2 : 3;
      if (D == 3)
        return createStringError("unknown reptx intrinsic " + Name);
      static const Intrinsic::ID Tid[] = {Intrinsic::amdgcn_workitem_id_x,
                                          Intrinsic::amdgcn_workitem_id_y,
                                          Intrinsic::amdgcn_workitem_id_z};
      static const Intrinsic::ID Ctaid[] = {Intrinsic::amdgcn_workgroup_id_x,
                                            Intrinsic::amdgcn_workgroup_id_y,
                                            Intrinsic::amdgcn_workgroup_id_z};
      const uint64_t MaxBlock = D == 2 ? 64 : 1024, MaxGrid = D == 0 ? 0x7fffffff : 65535;
      Value *V;
      if (Reg == "tid") {
        V = inRange(B.CreateIntrinsic(Tid[D], {}), 0, MaxBlock);
      } else if (Reg == "ctaid") {
        V = inRange(B.CreateIntrinsic(Ctaid[D], {}), 0, MaxGrid);
      } else if (Reg == "ntid" && CodeObjectVersion >= 5) {
        // Code object v5+: hidden_group_size_x/y/z, u16 at bytes 12, 14, 16 of the implicit
        // kernel arguments. Read there rather than from the packet, the kernel needs no
        // dispatch pointer (two user SGPRs) for its block size, as clang's HIP kernels do not.
        F.setMemoryEffects(MemoryEffects::readOnly());
        V = B.CreateZExt(inRange(implicitField(B, 12 + 2 * D, B.getInt16Ty()), 1, MaxBlock + 1),
                         B.getInt32Ty());
      } else if (Reg == "ntid") {
        F.setMemoryEffects(MemoryEffects::readOnly());
        V = B.CreateZExt(inRange(dispatchField(B, 4 + 2 * D, B.getInt16Ty()), 1, MaxBlock + 1),
                         B.getInt32Ty());
      } else if (Reg == "nctaid" && CodeObjectVersion >= 5) {
        // Code object v5+: hidden_block_count_x/y/z, the first implicit kernel arguments
        // (AMDGPUUsage, "Code Object V5 Metadata"), filled by the runtime.
        F.setMemoryEffects(MemoryEffects::readOnly());
        V = inRange(implicitField(B, 4 * D, B.getInt32Ty()), 1, MaxGrid + 1);
      } else if (Reg == "nctaid") {
        F.setMemoryEffects(MemoryEffects::readOnly());
        // The packet holds the grid in work-items; a partial last work-group still counts.
        Value *Grid = dispatchField(B, 12 + 4 * D, B.getInt32Ty());
        Value *Size = B.CreateZExt(dispatchField(B, 4 + 2 * D, B.getInt16Ty()), B.getInt32Ty());
        Value *Partial = B.CreateICmpNE(B.CreateURem(Grid, Size), B.getInt32(0));
        V = B.CreateAdd(B.CreateUDiv(Grid, Size), B.CreateZExt(Partial, B.getInt32Ty()));
      } else {
        return createStringError("unknown reptx intrinsic " + Name);
      }
      B.CreateRet(V);
    }
    F.setLinkage(GlobalValue::InternalLinkage);
    F.addFnAttr(Attribute::AlwaysInline);
  }
  return Error::success();
}

} // namespace reptx::backend
