// Atomics (PTX ISA 9.7.13.5-6): atom and red in the global, shared and generic spaces with add,
// min, max, inc, dec, and, or, xor, exch and cas on 32/64-bit integers (cas also on 16 bits),
// add on f32/f64, and add.noftz on f16, f16x2, bf16 and bf16x2.
// Orderings map to LLVM's (.relaxed, the default, is monotonic); scopes to the sync scopes of
// Intrinsics.h (.gpu when none is written).
#include "Lifter.h"

#include "llvm/ADT/StringSwitch.h"

using namespace llvm;

namespace reptx::ir {

Error liftAtomic(FunctionLifter &L, const ptx::Instruction &I) {
  IRBuilder<> &B = L.B;
  bool Red = I.Opcode == "red";
  unsigned AS = GenericAS;
  AtomicOrdering Order = AtomicOrdering::Monotonic;
  StringRef Op, HalfTy;
  for (StringRef M : I.Mods) {
    if (M == ".global")
      AS = GlobalAS;
    else if (M == ".shared" || M == ".shared::cta")
      AS = SharedAS;
    else if (M == ".shared::cluster")
      return L.unsupported("cluster shared memory is not supported yet");
    else if (M == ".acquire")
      Order = AtomicOrdering::Acquire;
    else if (M == ".release")
      Order = AtomicOrdering::Release;
    else if (M == ".acq_rel")
      Order = AtomicOrdering::AcquireRelease;
    else if (M == ".add" || M == ".min" || M == ".max" || M == ".inc" || M == ".dec" ||
             M == ".and" || M == ".or" || M == ".xor" || M == ".exch" || M == ".cas")
      Op = M.drop_front();
    else if (M.starts_with(".v") || M.starts_with(".L2"))
      return L.unsupported();
    else if (M == ".f16" || M == ".f16x2" || M == ".bf16" || M == ".bf16x2")
      HalfTy = M;
  }
  if (!HalfTy.empty()) {
    // atom/red .add.noftz on f16, f16x2, bf16, bf16x2 (9.7.13.5): an IEEE add rounded to nearest
    // even, subnormals kept; the x2 forms add both halves in one atomic operation. A backend
    // without such atomics expands them into a compare-and-swap loop.
    if (Op != "add" || !L.hasMod(".noftz"))
      return L.unsupported();
    bool X2 = HalfTy.ends_with("x2");
    Type *Elem = HalfTy.starts_with(".bf") ? B.getBFloatTy() : B.getHalfTy();
    Type *VT = X2 ? static_cast<Type *>(FixedVectorType::get(Elem, 2)) : Elem;
    Type *BitsTy = X2 ? B.getInt32Ty() : B.getInt16Ty();
    auto Ptr = L.address(Red ? I.Ops[0] : I.Ops[1], AS);
    if (!Ptr)
      return Ptr.takeError();
    auto V = L.read(I.Ops[Red ? 1 : 2], BitsTy);
    if (!V)
      return V.takeError();
    AtomicRMWInst *Old = B.CreateAtomicRMW(AtomicRMWInst::FAdd, *Ptr, B.CreateBitCast(*V, VT),
                                           Align(X2 ? 4 : 2), Order, L.syncScope());
    L.markWrite(Old);
    return Red ? Error::success() : L.write(I.Ops[0], B.CreateBitCast(Old, BitsTy));
  }
  if (L.hasMod(".noftz"))
    return L.unsupported();
  auto T = L.type();
  if (!T)
    return T.takeError();
  // 16-bit operands only for cas (atom.cas.b16, sm_70).
  if (Op.empty() || (T->Width != 32 && T->Width != 64 && !(Op == "cas" && T->Width == 16)) ||
      T->K == PtxType::Pred)
    return L.unsupported();
  Type *Ty = L.llvmType(*T);
  const ptx::Operand &AddrOp = Red ? I.Ops[0] : I.Ops[1];
  unsigned First = Red ? 1 : 2;
  auto Ptr = L.address(AddrOp, AS);
  if (!Ptr)
    return Ptr.takeError();
  auto V = L.read(I.Ops[First], Ty, T->isSigned());
  if (!V)
    return V.takeError();
  Align A(T->Width / 8);
  Value *Old;
  if (Op == "cas") {
    // atom.cas d, [a], b, c: store c if the old value equals b; d is the old value.
    if (Red || I.Ops.size() != 4 || !T->isInt())
      return L.unsupported();
    auto C = L.read(I.Ops[3], Ty);
    if (!C)
      return C.takeError();
    AtomicOrdering Failure =
        Order == AtomicOrdering::Acquire || Order == AtomicOrdering::AcquireRelease
            ? AtomicOrdering::Acquire
            : AtomicOrdering::Monotonic;
    auto *X = B.CreateAtomicCmpXchg(*Ptr, *V, *C, A, Order, Failure, L.syncScope());
    L.markWrite(X);
    Old = B.CreateExtractValue(X, 0);
  } else {
    using BinOp = AtomicRMWInst::BinOp;
    bool S = T->isSigned();
    // inc: old >= b ? 0 : old+1 and dec: old == 0 || old > b ? b : old-1 (9.7.13.5) are LLVM's
    // uinc_wrap and udec_wrap.
    BinOp K = T->isFloat() ? (Op == "add" ? BinOp::FAdd : BinOp::BAD_BINOP)
                           : StringSwitch<BinOp>(Op)
                                 .Case("add", BinOp::Add)
                                 .Case("min", S ? BinOp::Min : BinOp::UMin)
                                 .Case("max", S ? BinOp::Max : BinOp::UMax)
                                 .Case("inc", BinOp::UIncWrap)
                                 .Case("dec", BinOp::UDecWrap)
                                 .Case("and", BinOp::And)
                                 .Case("or", BinOp::Or)
                                 .Case("xor", BinOp::Xor)
                                 .Case("exch", BinOp::Xchg)
                                 .Default(BinOp::BAD_BINOP);
    if (K == BinOp::BAD_BINOP || ((K == BinOp::UIncWrap || K == BinOp::UDecWrap) && T->Width != 32))
      return L.unsupported();
    AtomicRMWInst *RMW = B.CreateAtomicRMW(K, *Ptr, *V, A, Order, L.syncScope());
    L.markWrite(RMW);
    Old = RMW;
  }
  if (Red)
    return Error::success();
  return L.write(I.Ops[0], Old, T->isSigned());
}

} // namespace reptx::ir
