// Memory instructions (PTX ISA 9.7.9.8-9.7.9.10, 9.7.9.15, 9.7.9.19, 9.7.9.20): ld, ldu and st in
// the global, shared, local, const, param and generic state spaces with .v2/.v4 vectors, cvta
// between generic and specific addresses, isspacep, and prefetch/prefetchu (hints: no-ops). Cache
// operators and eviction hints only affect performance and are ignored;
// .relaxed/.acquire/.release/.mmio are atomic accesses; .nc and ldu are invariant loads.
#include "Lifter.h"

#include "reptx/ir/Intrinsics.h"

#include "llvm/ADT/StringSwitch.h"

using namespace llvm;

namespace reptx::ir {

static std::optional<unsigned> spaceOf(StringRef Mod) {
  return StringSwitch<std::optional<unsigned>>(Mod)
      .Case(".global", GlobalAS)
      .Case(".shared", SharedAS)
      .Case(".shared::cta", SharedAS)
      .Case(".local", LocalAS)
      .Case(".const", ConstAS)
      .Case(".param", LocalAS) // kernel parameters live in slots (see Lifter.cpp)
      .Default(std::nullopt);
}

Error liftMemory(FunctionLifter &L, const ptx::Instruction &I) {
  IRBuilder<> &B = L.B;
  StringRef Op = I.Opcode;
  unsigned AS = GenericAS;
  bool Param = false;
  for (StringRef M : I.Mods)
    if (auto S = spaceOf(M)) {
      AS = *S;
      Param = M == ".param";
    }

  if (Op == "cvta") {
    // cvta.space converts a space address to generic, cvta.to.space the other way (9.7.9.20).
    // cvta.param (PTX 7.7; nvcc -G takes kernel parameters' addresses so): parameters live in
    // private slots, so their generic address is the slot's, as for cvta.local.
    if ((Param && L.hasMod(".to")) || AS == GenericAS)
      return L.unsupported();
    auto T = L.type();
    if (!T)
      return T.takeError();
    Type *Ty = L.llvmType(*T);
    auto V = L.read(I.Ops[1], Ty);
    if (!V)
      return V.takeError();
    bool To = L.hasMod(".to");
    unsigned From = To ? GenericAS : AS, Dest = To ? AS : GenericAS;
    Value *P = B.CreateIntToPtr(*V, PointerType::get(L.Ctx, From));
    P = B.CreateAddrSpaceCast(P, PointerType::get(L.Ctx, Dest));
    return L.write(I.Ops[0], B.CreatePtrToInt(P, Ty));
  }
  if (Op == "cp")
    return liftCpAsync(L, I);
  if (Op == "prefetch" || Op == "prefetchu" || Op == "applypriority" || Op == "discard") {
    // prefetch/prefetchu (9.7.9.15) only bring a line closer to the thread: no value, no fault.
    // Caches that fill on demand make it a no-op. applypriority (9.7.9.16) changes a line's
    // eviction priority; discard (9.7.9.17) leaves the line's contents undefined, of which
    // leaving them unchanged is one outcome.
    return Error::success();
  }
  if (Op == "createpolicy") {
    // createpolicy (9.7.9.18): an opaque 64-bit cache eviction policy that only the
    // .L2::cache_hint operand of memory instructions reads, and reptx ignores those hints. The
    // value still tells policies apart: the priorities (evict_normal 0, _first 1, _last 2,
    // _unchanged 3; the secondary one in bits 2-3), the kind (fractional 1, range 2) in bits 4-5,
    // and a fraction's bits in the upper half; .cvt passes the CUDA access property through.
    if (L.hasMod(".cvt")) {
      if (I.Ops.size() != 2)
        return L.unsupported();
      auto V = L.read(I.Ops[1], B.getInt64Ty());
      if (!V)
        return V.takeError();
      return L.write(I.Ops[0], *V);
    }
    bool Fractional = L.hasMod(".fractional"), Range = L.hasMod(".range");
    if (Fractional == Range || (Fractional && I.Ops.size() > 2) || (Range && I.Ops.size() != 4))
      return L.unsupported();
    uint64_t Bits = Fractional ? 0x10 : 0x20;
    unsigned Seen = 0;
    for (StringRef M : I.Mods) {
      uint64_t P = StringSwitch<uint64_t>(M)
                       .Case(".L2::evict_normal", 0)
                       .Case(".L2::evict_first", 1)
                       .Case(".L2::evict_last", 2)
                       .Case(".L2::evict_unchanged", 3)
                       .Default(4);
      if (P != 4)
        Bits |= P << (2 * Seen++);
    }
    if (Seen == 0 || Seen > 2)
      return L.unsupported();
    Value *Policy = B.getInt64(Bits);
    if (Fractional) {
      Value *Fraction = ConstantFP::get(B.getFloatTy(), 1.0); // the default fraction
      if (I.Ops.size() == 2) {
        auto F = L.read(I.Ops[1], B.getFloatTy());
        if (!F)
          return F.takeError();
        Fraction = *F;
      }
      Value *FBits = B.CreateZExt(B.CreateBitCast(Fraction, B.getInt32Ty()), B.getInt64Ty());
      Policy = B.CreateOr(Policy, B.CreateShl(FBits, 32));
    }
    return L.write(I.Ops[0], Policy);
  }
  if (Op == "isspacep") {
    // isspacep.space p, a (9.7.9.19): whether the generic address a is in the space's window.
    // .param: kernel and function parameters live in private slots, so the generic address of
    // one (cvta.param) is in the local window: isspacep.local is true for it, .param never.
    if (I.Ops.size() != 2)
      return L.unsupported();
    auto A = L.read(I.Ops[1], B.getInt64Ty());
    if (!A)
      return A.takeError();
    StringRef Space;
    for (StringRef M : I.Mods)
      Space = StringSwitch<StringRef>(M)
                  .Case(".global", "global")
                  .Case(".const", "const")
                  .Cases({".shared", ".shared::cta", ".shared::cluster"}, "shared")
                  .Case(".local", "local")
                  .Default(Space);
    if (Space.empty())
      return L.write(I.Ops[0], B.getFalse());
    Type *Ptr = PointerType::get(L.Ctx, GenericAS);
    Function *F = L.declareIntrinsic((intrinsics::IsSpacePrefix + Space).str(), B.getInt1Ty(),
                                     {Ptr}, MemoryEffects::none());
    return L.write(I.Ops[0], B.CreateCall(F, {B.CreateIntToPtr(*A, Ptr)}));
  }
  if (Op != "ld" && Op != "st" && Op != "ldu")
    return L.unsupported();

  // Memory-model qualifiers (PTX ISA 8.4): ld.relaxed/.acquire and st.relaxed/.release with a
  // scope are atomic loads and stores of that ordering and scope; .mmio is a relaxed .sys access.
  AtomicOrdering Order = AtomicOrdering::NotAtomic;
  if (L.hasMod(".relaxed") || L.hasMod(".mmio"))
    Order = AtomicOrdering::Monotonic;
  else if (L.hasMod(".acquire"))
    Order = AtomicOrdering::Acquire;
  else if (L.hasMod(".release"))
    Order = AtomicOrdering::Release;
  auto T = L.type();
  if (!T)
    return T.takeError();
  if (T->K == PtxType::Pred)
    return L.unsupported();
  unsigned Vec = L.hasMod(".v2") ? 2 : L.hasMod(".v4") ? 4 : L.hasMod(".v8") ? 8 : 1;
  Type *ElemTy = L.llvmType(*T);
  bool Volatile = L.hasMod(".volatile");
  bool IsStore = Op == "st";
  const ptx::Operand &AddrOp = IsStore ? I.Ops[0] : I.Ops[1];
  const ptx::Operand &Data = IsStore ? I.Ops[1] : I.Ops[0];
  auto Ptr = L.address(AddrOp, AS);
  if (!Ptr)
    return Ptr.takeError();
  // PTX requires naturally aligned accesses: the whole vector's size (9.7.9.8).
  uint64_t Bytes = T->Width / 8;
  Align A(Bytes * Vec);
  auto Elem = [&](unsigned K) -> const ptx::Operand & { return Vec == 1 ? Data : Data.Elems[K]; };
  if (Vec > 1 && (Data.K != ptx::Operand::Vector || Data.Elems.size() != Vec))
    return L.unsupported("vector operand does not match the vector width");

  SyncScope::ID Scope = L.hasMod(".mmio") ? SyncScope::System : L.syncScope("sys");
  if (Order != AtomicOrdering::NotAtomic && Vec > 1) {
    // An ordered vector access is a set of ordered accesses to its elements in unspecified order
    // (PTX ISA 8.3, "Vector Data-types"): one atomic access per element, each with the order.
    if (IsStore ? Order == AtomicOrdering::Acquire : Order == AtomicOrdering::Release)
      return L.unsupported(IsStore ? "this ordered store" : "this ordered load");
    for (unsigned K = 0; K < Vec; ++K) {
      Value *P = B.CreateConstInBoundsGEP1_64(ElemTy, *Ptr, K);
      if (IsStore) {
        auto X = L.read(Elem(K), ElemTy, T->isSigned());
        if (!X)
          return X.takeError();
        StoreInst *St = B.CreateAlignedStore(*X, P, Align(Bytes), Volatile);
        St->setAtomic(Order, Scope);
        L.markWrite(St);
      } else {
        LoadInst *X = B.CreateAlignedLoad(ElemTy, P, Align(Bytes), Volatile);
        X->setAtomic(Order, Scope);
        if (Error E = L.write(Elem(K), X, T->isSigned()))
          return E;
      }
    }
    return Error::success();
  }

  if (IsStore) {
    Value *V;
    if (Vec == 1) {
      auto X = L.read(Data, ElemTy, T->isSigned());
      if (!X)
        return X.takeError();
      V = *X;
    } else {
      V = PoisonValue::get(FixedVectorType::get(ElemTy, Vec));
      for (unsigned K = 0; K < Vec; ++K) {
        auto X = L.read(Elem(K), ElemTy, T->isSigned());
        if (!X)
          return X.takeError();
        V = B.CreateInsertElement(V, *X, K);
      }
    }
    StoreInst *St = B.CreateAlignedStore(V, *Ptr, A, Volatile);
    L.markWrite(St);
    if (Order != AtomicOrdering::NotAtomic) {
      if (Order == AtomicOrdering::Acquire)
        return L.unsupported("this ordered store");
      St->setAtomic(Order, Scope);
    }
    return Error::success();
  }
  Type *LoadTy = Vec == 1 ? ElemTy : FixedVectorType::get(ElemTy, Vec);
  LoadInst *V = B.CreateAlignedLoad(LoadTy, *Ptr, A, Volatile);
  if (Order != AtomicOrdering::NotAtomic) {
    if (Order == AtomicOrdering::Release)
      return L.unsupported("this ordered load");
    V->setAtomic(Order, Scope);
  } else if (!Volatile && AS == GlobalAS && (Op == "ldu" || L.hasMod(".nc"))) {
    // ld.global.nc and ldu read memory that stays unchanged while the kernel runs (PTX ISA
    // 9.7.9.9/10): the load may move across stores.
    L.markReadOnlyLoad(V);
  }
  // A narrow integer load into a wider register is zero- or sign-extended by its type.
  for (unsigned K = 0; K < Vec; ++K) {
    Value *X = Vec == 1 ? V : B.CreateExtractElement(V, K);
    if (Error E = L.write(Elem(K), X, T->isSigned()))
      return E;
  }
  return Error::success();
}

} // namespace reptx::ir
