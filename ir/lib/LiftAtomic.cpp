// Atomics (PTX ISA 9.7.13.5-6): atom and red in the global, shared and generic spaces with add,
// min, max, inc, dec, and, or, xor, exch and cas on 32/64-bit integers and add on f32/f64.
// Orderings map to LLVM's (.relaxed, the default, is monotonic); every PTX scope becomes LLVM's
// default system scope, which is at least as strong as any of them.
#include "Lifter.h"

#include "llvm/ADT/StringSwitch.h"

using namespace llvm;

namespace reptx::ir {

Error liftAtomic(FunctionLifter &L, const ptx::Instruction &I) {
  IRBuilder<> &B = L.B;
  bool Red = I.Opcode == "red";
  unsigned AS = GenericAS;
  AtomicOrdering Order = AtomicOrdering::Monotonic;
  StringRef Op;
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
    else if (M.starts_with(".v") || M.starts_with(".L2") || M == ".noftz")
      return L.unsupported();
  }
  auto T = L.type();
  if (!T)
    return T.takeError();
  if (Op.empty() || (T->Width != 32 && T->Width != 64) || T->K == PtxType::Pred)
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
    auto *X = B.CreateAtomicCmpXchg(*Ptr, *V, *C, A, Order, Failure);
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
    Old = B.CreateAtomicRMW(K, *Ptr, *V, A, Order);
  }
  if (Red)
    return Error::success();
  return L.write(I.Ops[0], Old, T->isSigned());
}

} // namespace reptx::ir
