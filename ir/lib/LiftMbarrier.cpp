// Memory barriers in shared memory (PTX ISA 9.7.13.15, mbarrier): init, inval, arrive and
// arrive_drop (with an optional count), test_wait and try_wait (by state or by phase parity),
// pending_count; and cp.async.mbarrier.arrive (9.7.9.25.3.4) through LiftAsyncCopy.cpp. The
// object is the helper library's 64-bit word (backend/device/Mbarrier.cpp): a phase completes
// when its pending arrival count reaches zero. CTA scope only: the .shared::cluster forms and
// the transaction counts of bulk copies (expect_tx, complete_tx) come with clusters and tensor
// copies.
#include "Lifter.h"

#include "reptx/ir/Intrinsics.h"

using namespace llvm;

namespace reptx::ir {

// The mbarrier object's address in shared memory: [addr] with .shared/.shared::cta is a shared
// address, without a state space a generic one (which must point into shared memory).
Expected<Value *> mbarrierAddress(FunctionLifter &L, const ptx::Operand &Op) {
  if (L.hasMod(".shared") || L.hasMod(".shared::cta"))
    return L.address(Op, SharedAS);
  auto P = L.address(Op, GenericAS);
  if (!P)
    return P.takeError();
  return L.B.CreateAddrSpaceCast(*P, PointerType::get(L.Ctx, SharedAS));
}

namespace {

Function *helper(FunctionLifter &L, StringRef Name, Type *Ret, ArrayRef<Type *> Args) {
  return L.declareIntrinsic(Name, Ret, Args, MemoryEffects::unknown());
}

} // namespace

Value *mbarrierArrive(FunctionLifter &L, Value *Bar, Value *Count, bool Drop) {
  IRBuilder<> &B = L.B;
  Function *F = helper(L, intrinsics::MbarrierArrive, B.getInt64Ty(),
                       {Bar->getType(), B.getInt32Ty(), B.getInt1Ty()});
  return B.CreateCall(F, {Bar, Count, B.getInt1(Drop)});
}

Error liftMbarrier(FunctionLifter &L, const ptx::Instruction &I) {
  IRBuilder<> &B = L.B;
  if (L.hasMod(".shared::cluster") || L.hasMod(".cluster"))
    return L.unsupported("cluster-scope mbarrier");
  if (L.hasMod(".expect_tx") || L.hasMod(".complete_tx"))
    return L.unsupported("mbarrier transaction counts (bulk copies)");
  Type *I32 = B.getInt32Ty(), *I64 = B.getInt64Ty();
  Type *Ptr = PointerType::get(L.Ctx, SharedAS);
  if (L.hasMod(".pending_count")) {
    // pending_count.b64 count, state: the arrivals its phase still waited for before the
    // arrival that returned the state.
    if (I.Ops.size() != 2)
      return L.unsupported();
    auto State = L.read(I.Ops[1], I64);
    if (!State)
      return State.takeError();
    return L.write(I.Ops[0], B.CreateTrunc(B.CreateAnd(*State, B.getInt64(0xfffff)), I32));
  }
  bool Init = L.hasMod(".init"), Inval = L.hasMod(".inval");
  bool Arrive = L.hasMod(".arrive"), Drop = L.hasMod(".arrive_drop");
  bool Wait = L.hasMod(".test_wait") || L.hasMod(".try_wait");
  if (Init || Inval) {
    if (I.Ops.size() != (Init ? 2u : 1u))
      return L.unsupported();
    auto Bar = mbarrierAddress(L, I.Ops[0]);
    if (!Bar)
      return Bar.takeError();
    if (Inval) // the object may be reused as ordinary memory: nothing to undo
      return Error::success();
    auto Count = L.read(I.Ops[1], I32);
    if (!Count)
      return Count.takeError();
    B.CreateCall(helper(L, intrinsics::MbarrierInit, B.getVoidTy(), {Ptr, I32}), {*Bar, *Count});
    return Error::success();
  }
  if (Arrive || Drop) {
    // arrive{_drop}{.noComplete} state|_, [addr]{, count}
    if (I.Ops.size() != 2 && I.Ops.size() != 3)
      return L.unsupported();
    auto Bar = mbarrierAddress(L, I.Ops[1]);
    if (!Bar)
      return Bar.takeError();
    Value *Count = B.getInt32(1);
    if (I.Ops.size() == 3) {
      auto C = L.read(I.Ops[2], I32);
      if (!C)
        return C.takeError();
      Count = *C;
    }
    return L.write(I.Ops[0], mbarrierArrive(L, *Bar, Count, Drop));
  }
  if (Wait) {
    // test_wait/try_wait{.parity} waitComplete, [addr], state|phaseParity{, suspendTimeHint}:
    // whether the phase of the state (or of that parity) has completed. try_wait may return
    // false after a while; it returns at once, as test_wait.
    if (I.Ops.size() != 3 && I.Ops.size() != 4)
      return L.unsupported();
    auto Bar = mbarrierAddress(L, I.Ops[1]);
    if (!Bar)
      return Bar.takeError();
    bool Parity = L.hasMod(".parity");
    auto Arg = L.read(I.Ops[2], Parity ? I32 : I64);
    if (!Arg)
      return Arg.takeError();
    Function *F =
        helper(L, Parity ? intrinsics::MbarrierTestWaitParity : intrinsics::MbarrierTestWait,
               B.getInt1Ty(), {Ptr, Parity ? I32 : I64});
    return L.write(I.Ops[0], B.CreateCall(F, {*Bar, *Arg}));
  }
  return L.unsupported();
}

} // namespace reptx::ir
