// Warp-level instructions (PTX ISA 9.7.9.6 shfl, 9.7.13.3 bar.warp.sync, 9.7.13.8-13 vote, match,
// activemask, redux, elect) and the warp special registers (PTX ISA 10.3-10.13: %laneid,
// %warpid, %nwarpid, %lanemask_*) as calls to the reptx warp intrinsics of Intrinsics.h. The
// deprecated forms without .sync (shfl, vote) act on the full warp: membermask 0xffffffff.
#include "Lifter.h"

#include "reptx/ir/Intrinsics.h"

#include "llvm/ADT/StringSwitch.h"

using namespace llvm;

namespace reptx::ir {

namespace {

// Declares a warp intrinsic: convergent (it depends on which lanes execute it), and with effects
// on inaccessible memory so that it is neither merged with another call nor moved across control
// flow before the backend gives it a body.
Function *warpIntrinsic(FunctionLifter &L, StringRef Name, Type *Ret, ArrayRef<Type *> Args) {
  return L.declareIntrinsic(Name, Ret, Args, MemoryEffects::inaccessibleMemOnly(),
                            /*Speculatable=*/false, /*Convergent=*/true);
}

// The membermask operand at Index, or all lanes for the deprecated forms without one.
Expected<Value *> memberMask(FunctionLifter &L, const ptx::Instruction &I, size_t Index) {
  if (Index >= I.Ops.size())
    return L.B.getInt32(-1);
  return L.read(I.Ops[Index], L.B.getInt32Ty());
}

// A predicate source, honouring `!p` (vote's negated source, PTX ISA 9.7.13.8).
Expected<Value *> predicate(FunctionLifter &L, const ptx::Operand &Op) {
  auto P = L.read(Op, L.B.getInt1Ty());
  if (!P)
    return P.takeError();
  return Op.Negated ? L.B.CreateNot(*P) : *P;
}

// Writes d, or d and p of a `d|p` destination, from a value and a predicate.
Error writeDual(FunctionLifter &L, const ptx::Operand &Dst, Value *D, Value *P) {
  if (Dst.K != ptx::Operand::Pair)
    return L.write(Dst, D);
  if (Dst.Elems.size() != 2)
    return L.unsupported("malformed d|p destination");
  if (Error E = L.write(Dst.Elems[0], D))
    return E;
  return L.write(Dst.Elems[1], P);
}

// Splits the i64 of shfl/match.all into the 32-bit value and the predicate in bit 32.
std::pair<Value *, Value *> splitValuePred(IRBuilder<> &B, Value *R) {
  return {B.CreateTrunc(R, B.getInt32Ty()), B.CreateTrunc(B.CreateLShr(R, 32), B.getInt1Ty())};
}

Error liftShfl(FunctionLifter &L, const ptx::Instruction &I) {
  IRBuilder<> &B = L.B;
  StringRef Mode = L.hasMod(".up")     ? "up"
                   : L.hasMod(".down") ? "down"
                   : L.hasMod(".bfly") ? "bfly"
                   : L.hasMod(".idx")  ? "idx"
                                       : "";
  if (Mode.empty() || I.Ops.size() < 4)
    return L.unsupported();
  Type *I32 = B.getInt32Ty();
  auto A = L.read(I.Ops[1], I32);
  if (!A)
    return A.takeError();
  auto Bv = L.read(I.Ops[2], I32);
  if (!Bv)
    return Bv.takeError();
  auto C = L.read(I.Ops[3], I32);
  if (!C)
    return C.takeError();
  auto Mask = memberMask(L, I, 4);
  if (!Mask)
    return Mask.takeError();
  FunctionCallee F =
      warpIntrinsic(L, ("reptx.shfl." + Mode).str(), B.getInt64Ty(), {I32, I32, I32, I32});
  auto [D, P] = splitValuePred(B, B.CreateCall(F, {*A, *Bv, *C, *Mask}));
  return writeDual(L, I.Ops[0], D, P);
}

Error liftVote(FunctionLifter &L, const ptx::Instruction &I) {
  IRBuilder<> &B = L.B;
  if (I.Ops.size() < 2)
    return L.unsupported();
  auto P = predicate(L, I.Ops[1]);
  if (!P)
    return P.takeError();
  auto Mask = memberMask(L, I, 2);
  if (!Mask)
    return Mask.takeError();
  Type *I1 = B.getInt1Ty(), *I32 = B.getInt32Ty();
  if (L.hasMod(".ballot")) {
    FunctionCallee F = warpIntrinsic(L, "reptx.vote.ballot", I32, {I1, I32});
    return L.write(I.Ops[0], B.CreateCall(F, {*P, *Mask}));
  }
  StringRef Mode = L.hasMod(".all")   ? "all"
                   : L.hasMod(".any") ? "any"
                   : L.hasMod(".uni") ? "uni"
                                      : "";
  if (Mode.empty())
    return L.unsupported();
  FunctionCallee F = warpIntrinsic(L, ("reptx.vote." + Mode).str(), I1, {I1, I32});
  return L.write(I.Ops[0], B.CreateCall(F, {*P, *Mask}));
}

Error liftMatch(FunctionLifter &L, const ptx::Instruction &I) {
  IRBuilder<> &B = L.B;
  auto T = L.type();
  if (!T)
    return T.takeError();
  if (I.Ops.size() != 3 || (T->Width != 32 && T->Width != 64))
    return L.unsupported();
  Type *VT = B.getIntNTy(T->Width), *I32 = B.getInt32Ty();
  auto V = L.read(I.Ops[1], VT);
  if (!V)
    return V.takeError();
  auto Mask = L.read(I.Ops[2], I32);
  if (!Mask)
    return Mask.takeError();
  std::string Suffix = T->Width == 64 ? ".b64" : ".b32";
  if (L.hasMod(".any")) {
    FunctionCallee F = warpIntrinsic(L, "reptx.match.any" + Suffix, I32, {VT, I32});
    return L.write(I.Ops[0], B.CreateCall(F, {*V, *Mask}));
  }
  if (!L.hasMod(".all"))
    return L.unsupported();
  FunctionCallee F = warpIntrinsic(L, "reptx.match.all" + Suffix, B.getInt64Ty(), {VT, I32});
  auto [D, P] = splitValuePred(B, B.CreateCall(F, {*V, *Mask}));
  return writeDual(L, I.Ops[0], D, P);
}

Error liftRedux(FunctionLifter &L, const ptx::Instruction &I) {
  IRBuilder<> &B = L.B;
  auto T = L.type();
  if (!T)
    return T.takeError();
  if (I.Ops.size() != 3 || !T->isInt() || T->Width != 32)
    return L.unsupported("redux.sync on floating-point values is not supported yet");
  StringRef Op = L.hasMod(".add")   ? "add"
                 : L.hasMod(".min") ? (T->isSigned() ? "smin" : "umin")
                 : L.hasMod(".max") ? (T->isSigned() ? "smax" : "umax")
                 : L.hasMod(".and") ? "and"
                 : L.hasMod(".or")  ? "or"
                 : L.hasMod(".xor") ? "xor"
                                    : "";
  if (Op.empty())
    return L.unsupported();
  Type *I32 = B.getInt32Ty();
  auto V = L.read(I.Ops[1], I32);
  if (!V)
    return V.takeError();
  auto Mask = L.read(I.Ops[2], I32);
  if (!Mask)
    return Mask.takeError();
  FunctionCallee F = warpIntrinsic(L, ("reptx.redux." + Op).str(), I32, {I32, I32});
  return L.write(I.Ops[0], B.CreateCall(F, {*V, *Mask}), T->isSigned());
}

Value *laneId(FunctionLifter &L) { return L.callSpecial(intrinsics::LaneId); }

} // namespace

Value *warpSpecialRegister(FunctionLifter &L, StringRef Name) {
  IRBuilder<> &B = L.B;
  if (Name == "%laneid")
    return laneId(L);
  if (Name == "%warpid" || Name == "%nwarpid") {
    // Warps are formed from consecutive flat thread ids (PTX ISA 10.1): %warpid is the flat id /
    // 32, and %nwarpid the CTA's warp count. (The manual lets %warpid be any identifier unique
    // within the CTA; this one is stable.)
    Value *Nx = L.callSpecial("reptx.ntid.x"), *Ny = L.callSpecial("reptx.ntid.y");
    if (Name == "%nwarpid") {
      Value *N = B.CreateMul(B.CreateMul(Nx, Ny), L.callSpecial("reptx.ntid.z"));
      return B.CreateLShr(B.CreateAdd(N, B.getInt32(31)), 5);
    }
    Value *Flat =
        B.CreateAdd(L.callSpecial("reptx.tid.x"),
                    B.CreateMul(Nx, B.CreateAdd(L.callSpecial("reptx.tid.y"),
                                                B.CreateMul(Ny, L.callSpecial("reptx.tid.z")))));
    return B.CreateLShr(Flat, 5);
  }
  // %lanemask_* (PTX ISA 10.8-10.12): bits relative to the own lane.
  int Kind = StringSwitch<int>(Name)
                 .Case("%lanemask_eq", 0)
                 .Case("%lanemask_le", 1)
                 .Case("%lanemask_lt", 2)
                 .Case("%lanemask_ge", 3)
                 .Case("%lanemask_gt", 4)
                 .Default(-1);
  if (Kind < 0)
    return nullptr;
  Value *Lane = laneId(L);
  Value *Eq = B.CreateShl(B.getInt32(1), Lane);
  Value *Lt = B.CreateSub(Eq, B.getInt32(1));
  Value *Le = B.CreateOr(Lt, Eq);
  switch (Kind) {
  case 0:
    return Eq;
  case 1:
    return Le;
  case 2:
    return Lt;
  case 3:
    return B.CreateNot(Lt);
  default:
    return B.CreateNot(Le);
  }
}

Error liftWarp(FunctionLifter &L, const ptx::Instruction &I) {
  IRBuilder<> &B = L.B;
  StringRef Op = I.Opcode;
  if (Op == "shfl")
    return liftShfl(L, I);
  if (Op == "vote")
    return liftVote(L, I);
  if (Op == "match")
    return liftMatch(L, I);
  if (Op == "redux")
    return liftRedux(L, I);
  if (Op == "activemask") {
    if (I.Ops.size() != 1)
      return L.unsupported();
    return L.write(I.Ops[0],
                   B.CreateCall(warpIntrinsic(L, "reptx.activemask", B.getInt32Ty(), {})));
  }
  if (Op == "elect") {
    // elect.sync d|p, membermask: d is the leader's laneid, p true in the leader only.
    if (I.Ops.size() != 2)
      return L.unsupported();
    auto Mask = L.read(I.Ops[1], B.getInt32Ty());
    if (!Mask)
      return Mask.takeError();
    Value *Leader =
        B.CreateCall(warpIntrinsic(L, "reptx.elect", B.getInt32Ty(), {B.getInt32Ty()}), {*Mask});
    return writeDual(L, I.Ops[0], Leader, B.CreateICmpEQ(Leader, laneId(L)));
  }
  if (Op == "bar" && L.hasMod(".warp")) {
    // bar.warp.sync membermask (PTX ISA 9.7.13.3).
    if (I.Ops.size() != 1)
      return L.unsupported();
    auto Mask = L.read(I.Ops[0], B.getInt32Ty());
    if (!Mask)
      return Mask.takeError();
    B.CreateCall(warpIntrinsic(L, "reptx.warp.sync", B.getVoidTy(), {B.getInt32Ty()}), {*Mask});
    return Error::success();
  }
  return L.unsupported();
}

} // namespace reptx::ir
