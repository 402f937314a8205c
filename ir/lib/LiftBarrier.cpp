// CTA barriers (PTX ISA 9.7.13.1): bar{.cta}.sync / barrier{.cta}.sync{.aligned} a{, b},
// bar.arrive / barrier.arrive a, b, and bar.red / barrier.red (.popc.u32, .and.pred, .or.pred)
// with an optional thread count. Without a count every thread of the CTA takes part: the plain
// barrier intrinsic. With a count, or for arrive and red, the reptx named-barrier intrinsics,
// which also get the CTA's thread count so that a backend can tell a full barrier from a partial
// one.
#include "Lifter.h"

#include "reptx/ir/Intrinsics.h"

using namespace llvm;

namespace reptx::ir {

namespace {

Function *declare(FunctionLifter &L, StringRef Name, Type *Ret, ArrayRef<Type *> Args) {
  FunctionCallee FC = L.module().getOrInsertFunction(Name, FunctionType::get(Ret, Args, false));
  auto *F = cast<Function>(FC.getCallee());
  F->setConvergent();
  F->setDoesNotThrow();
  return F;
}

} // namespace

Error liftBarrier(FunctionLifter &L, const ptx::Instruction &I) {
  IRBuilder<> &B = L.B;
  for (StringRef M : I.Mods)
    if (M == ".cluster")
      return L.unsupported("cluster barriers");
  bool Arrive = L.hasMod(".arrive"), Red = L.hasMod(".red");
  // bar.sync / barrier.sync / barrier (PTX ISA 7.0 spells barrier.sync as plain `barrier`).
  bool Sync = !Arrive && !Red;
  Type *I32 = B.getInt32Ty();
  // Operands: [d,] a [, b] [, {!}c] — d and c only for red.
  ArrayRef<ptx::Operand> Ops = I.Ops;
  const ptx::Operand *Dst = nullptr, *Pred = nullptr;
  if (Red) {
    if (Ops.size() < 3)
      return L.unsupported();
    Dst = &Ops.front();
    Pred = &Ops.back();
    Ops = Ops.drop_front().drop_back();
  }
  if (Ops.empty() || Ops.size() > 2)
    return L.unsupported();
  auto Id = L.read(Ops[0], I32);
  if (!Id)
    return Id.takeError();
  Value *Count = B.getInt32(0); // 0: every thread of the CTA
  if (Ops.size() == 2) {
    auto C = L.read(Ops[1], I32);
    if (!C)
      return C.takeError();
    Count = *C;
  }
  if (Arrive && Ops.size() != 2)
    return L.unsupported("bar.arrive without a thread count");
  if (Sync && Ops.size() == 1) {
    B.CreateCall(L.declareBarrier()); // the barrier id does not matter when all threads take part
    return Error::success();
  }
  // The CTA's thread count, for the backend to recognise a count that covers the whole CTA.
  Value *Total =
      B.CreateMul(B.CreateMul(L.callSpecial("reptx.ntid.x"), L.callSpecial("reptx.ntid.y")),
                  L.callSpecial("reptx.ntid.z"));
  if (Sync) {
    B.CreateCall(declare(L, intrinsics::BarrierSyncCount, B.getVoidTy(), {I32, I32, I32}),
                 {*Id, Count, Total});
    return Error::success();
  }
  if (Arrive) {
    B.CreateCall(declare(L, intrinsics::BarrierArrive, B.getVoidTy(), {I32, I32, I32}),
                 {*Id, Count, Total});
    return Error::success();
  }
  // bar.red: the number of participating threads whose predicate is true; .popc returns it,
  // .and tests that it is every participant, .or that it is not zero.
  auto P = L.read(*Pred, B.getInt1Ty());
  if (!P)
    return P.takeError();
  Value *PV = Pred->Negated ? B.CreateNot(*P) : *P;
  Value *R = B.CreateCall(
      declare(L, intrinsics::BarrierRed, B.getInt64Ty(), {I32, I32, I32, B.getInt1Ty()}),
      {*Id, Count, Total, PV});
  // Result: true count in bits 0-31, participant count in bits 32-63.
  Value *Trues = B.CreateTrunc(R, I32);
  Value *All = B.CreateTrunc(B.CreateLShr(R, 32), I32);
  if (L.hasMod(".popc"))
    return L.write(*Dst, Trues);
  if (L.hasMod(".and"))
    return L.write(*Dst, B.CreateICmpEQ(Trues, All));
  if (L.hasMod(".or"))
    return L.write(*Dst, B.CreateICmpNE(Trues, B.getInt32(0)));
  return L.unsupported();
}

} // namespace reptx::ir
