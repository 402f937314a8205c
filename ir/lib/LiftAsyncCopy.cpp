// Asynchronous copies (PTX ISA 9.7.9.25.3): cp.async.ca/.cg.shared.global [dst], [src], cp-size
// {, src-size}{, cache-policy} copies cp-size bytes (4, 8 or 16) from global to shared memory, the
// bytes past src-size being zero, and cp.async.commit_group / wait_group N / wait_all order them;
// cp.async.mbarrier.arrive arrives on an mbarrier (LiftMbarrier.cpp).
// reptx performs the copy when the instruction executes, so it is complete before any later
// wait: the waits have nothing left to do, and a copy is visible to the issuing thread at once
// and to the other threads of the CTA after the barrier that CUDA code puts after the wait.
#include "Lifter.h"

using namespace llvm;

namespace reptx::ir {

Error liftCpAsync(FunctionLifter &L, const ptx::Instruction &I) {
  IRBuilder<> &B = L.B;
  if (!L.hasMod(".async") || L.hasMod(".bulk") || L.hasMod(".tensor"))
    return L.unsupported("bulk and tensor copies");
  if (L.hasMod(".mbarrier")) {
    // cp.async.mbarrier.arrive{.noinc}{.shared}.b64 [bar] (9.7.9.25.3.4): an arrival on the
    // mbarrier once the thread's earlier copies are done, which they are. Without .noinc the
    // pending count is raised by one first: no change at all.
    if (I.Ops.size() != 1)
      return L.unsupported();
    if (!L.hasMod(".noinc"))
      return Error::success();
    auto Bar = mbarrierAddress(L, I.Ops[0]);
    if (!Bar)
      return Bar.takeError();
    mbarrierArrive(L, *Bar, B.getInt32(1), false);
    return Error::success();
  }
  if (L.hasMod(".commit_group") || L.hasMod(".wait_group") || L.hasMod(".wait_all"))
    return Error::success();
  if (!L.hasMod(".shared") || !L.hasMod(".global") || I.Ops.size() < 3)
    return L.unsupported();
  const ptx::Operand &Size = I.Ops[2];
  if (Size.K != ptx::Operand::Int ||
      (Size.IntValue != 4 && Size.IntValue != 8 && Size.IntValue != 16))
    return L.unsupported("cp.async size");
  unsigned N = unsigned(Size.IntValue);
  auto Dst = L.address(I.Ops[0], SharedAS);
  auto Src = L.address(I.Ops[1], GlobalAS);
  if (!Dst || !Src)
    return joinErrors(Dst.takeError(), Src.takeError());
  // The optional 4th operand is src-size (an integer); with .L2::cache_hint the last operand is
  // the cache policy, and a predicate there is ignore-src (9.7.9.25.3.1): nothing is read.
  Value *SrcSize = nullptr;
  bool HasHint = L.hasMod(".L2::cache_hint");
  if (I.Ops.size() >= 4 && !(HasHint && I.Ops.size() == 4)) {
    const ptx::Operand &Op = I.Ops[3];
    Type *RegTy = Op.K == ptx::Operand::Name ? L.registerType(Op.Sym) : nullptr;
    if (RegTy && RegTy->isIntegerTy(1)) {
      auto V = L.read(Op, B.getInt1Ty());
      if (!V)
        return V.takeError();
      Value *P = Op.Negated ? B.CreateNot(*V) : *V;
      SrcSize = B.CreateSelect(P, B.getInt32(0), B.getInt32(N)); // ignore-src: zeros
    } else {
      auto V = L.read(Op, B.getInt32Ty());
      if (!V)
        return V.takeError();
      SrcSize = *V;
    }
  }
  Type *VecTy = FixedVectorType::get(B.getInt8Ty(), N);
  if (!SrcSize || (isa<ConstantInt>(SrcSize) && cast<ConstantInt>(SrcSize)->getZExtValue() >= N)) {
    Value *V = B.CreateAlignedLoad(VecTy, *Src, Align(N));
    B.CreateAlignedStore(V, *Dst, Align(N));
    return Error::success();
  }
  // A partial copy: the whole vector when src-size covers it, else byte by byte below src-size
  // (never reading past it) and zeros above.
  Function *F = B.GetInsertBlock()->getParent();
  BasicBlock *Full = BasicBlock::Create(L.Ctx, "cp.full", F);
  BasicBlock *Part = BasicBlock::Create(L.Ctx, "cp.part", F);
  BasicBlock *Done = BasicBlock::Create(L.Ctx, "cp.done", F);
  B.CreateCondBr(B.CreateICmpUGE(SrcSize, B.getInt32(N)), Full, Part);
  B.SetInsertPoint(Full);
  B.CreateAlignedStore(B.CreateAlignedLoad(VecTy, *Src, Align(N)), *Dst, Align(N));
  B.CreateBr(Done);
  B.SetInsertPoint(Part);
  for (unsigned K = 0; K < N; ++K) {
    BasicBlock *Read = BasicBlock::Create(L.Ctx, "cp.byte", F);
    BasicBlock *Next = BasicBlock::Create(L.Ctx, "cp.next", F);
    Value *DstK = B.CreateConstGEP1_32(B.getInt8Ty(), *Dst, K);
    B.CreateStore(B.getInt8(0), DstK);
    B.CreateCondBr(B.CreateICmpULT(B.getInt32(K), SrcSize), Read, Next);
    B.SetInsertPoint(Read);
    B.CreateStore(B.CreateLoad(B.getInt8Ty(), B.CreateConstGEP1_32(B.getInt8Ty(), *Src, K)), DstK);
    B.CreateBr(Next);
    B.SetInsertPoint(Next);
  }
  B.CreateBr(Done);
  B.SetInsertPoint(Done);
  return Error::success();
}

} // namespace reptx::ir
