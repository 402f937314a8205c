// Warp-level matrix instructions (PTX ISA 9.7.14.5): mma.sync with the .row.col fragment layouts of
// the m16n8k4/k8/k16/k32 shapes (f16, bf16, tf32, e4m3, e5m2 with f32 or f16 accumulators; s8/u8
// with s32 accumulators, optionally .satfinite) and m8n8k4 .f64, and ldmatrix .m8n8 .x1/.x2/.x4
// (.trans) .b16. Each is a call to a reptx intrinsic (Intrinsics.h) that the helper library
// defines exactly (backend/device/Matrix.cpp); a later NVPTX target can map them back one to one.
// Not lifted (named in the error): wmma, stmatrix, sparse mma (mma.sp), the .m8n8k4 f16 shape,
// 4-bit and single-bit operands, block scaling.
#include "Lifter.h"

#include "reptx/frontend-ptx/InstructionTable.h"
#include "reptx/ir/Intrinsics.h"

using namespace llvm;

namespace reptx::ir {

namespace {

// A cross-lane operation: convergent, and kept apart from other calls as the warp intrinsics are.
Function *matrixIntrinsic(FunctionLifter &L, StringRef Name, Type *Ret, ArrayRef<Type *> Args,
                          MemoryEffects Effects) {
  return L.declareIntrinsic(Name, Ret, Args, Effects, /*Speculatable=*/false,
                            /*Convergent=*/true);
}

// The registers of a vector operand {a, b, ...} (a single register counts as a vector of one).
ArrayRef<ptx::Operand> elements(const ptx::Operand &Op) {
  if (Op.K == ptx::Operand::Vector)
    return Op.Elems;
  return ArrayRef<ptx::Operand>(&Op, 1);
}

struct MmaForm {
  StringRef Shape; // "m16n8k16"
  StringRef DType, AType, BType, CType;
  bool Satfinite = false;
};

// The shape, the four types (d, a, b, c) in order, and .satfinite; layouts must be .row.col.
Expected<MmaForm> mmaForm(FunctionLifter &L, const ptx::Instruction &I) {
  MmaForm F;
  SmallVector<StringRef, 4> Types;
  bool Row = false, Col = false;
  for (StringRef M : I.Mods) {
    if (M.starts_with(".m") && M.contains('n') && M.contains('k'))
      F.Shape = M.drop_front();
    else if (M == ".row")
      Row = true;
    else if (M == ".col")
      Col = true;
    else if (M == ".satfinite")
      F.Satfinite = true;
    else if (M == ".f16" || M == ".f32" || M == ".f64" || M == ".bf16" || M == ".tf32" ||
             M == ".e4m3" || M == ".e5m2" || M == ".s8" || M == ".u8" || M == ".s32")
      Types.push_back(M.drop_front());
    else if (M != ".sync" && M != ".aligned")
      return L.unsupported(Twine("mma with ") + M);
  }
  if (F.Shape.empty() || Types.size() != 4)
    return L.unsupported("mma: shape or types missing");
  if (!Row || !Col)
    return L.unsupported("mma: only the .row.col layouts are lifted");
  F.DType = Types[0];
  F.AType = Types[1];
  F.BType = Types[2];
  F.CType = Types[3];
  return F;
}

// Registers per lane of A and B (PTX ISA, "Matrix Fragments for mma.m16n8k*"): with P elements
// per register (32 / element bits) and K / (4P) spans of k, A has two registers per span, B one.
std::optional<std::pair<unsigned, unsigned>> fragmentRegisters(StringRef Shape, StringRef AType) {
  unsigned Bits = AType == "f16" || AType == "bf16" ? 16 : AType == "tf32" ? 32 : 8;
  unsigned K = 0;
  if (Shape == "m16n8k4")
    K = 4;
  else if (Shape == "m16n8k8")
    K = 8;
  else if (Shape == "m16n8k16")
    K = 16;
  else if (Shape == "m16n8k32")
    K = 32;
  else
    return std::nullopt;
  unsigned P = 32 / Bits, Span = 4 * P;
  if (K % Span)
    return std::nullopt;
  return std::make_pair(2 * (K / Span), K / Span);
}

Error liftMma(FunctionLifter &L, const ptx::Instruction &I) {
  IRBuilder<> &B = L.B;
  auto F = mmaForm(L, I);
  if (!F)
    return F.takeError();
  if (I.Ops.size() != 4)
    return L.unsupported();
  ArrayRef<ptx::Operand> D = elements(I.Ops[0]), A = elements(I.Ops[1]), Bm = elements(I.Ops[2]),
                         C = elements(I.Ops[3]);
  Type *I32 = B.getInt32Ty(), *F32 = B.getFloatTy(), *F64 = B.getDoubleTy();
  MemoryEffects None = MemoryEffects::inaccessibleMemOnly();

  if (F->AType == "f64") {
    // m8n8k4 .f64: one register of A and of B, two of C and D.
    if (F->Shape != "m8n8k4" || F->BType != "f64" || F->CType != "f64" || F->DType != "f64")
      return L.unsupported("mma: this .f64 form is not lifted");
    if (A.size() != 1 || Bm.size() != 1 || C.size() != 2 || D.size() != 2)
      return L.unsupported("mma: wrong number of fragment registers");
    SmallVector<Value *, 4> Args;
    for (const ptx::Operand *Op : {&A[0], &Bm[0], &C[0], &C[1]}) {
      auto V = L.read(*Op, F64);
      if (!V)
        return V.takeError();
      Args.push_back(*V);
    }
    Function *Fn = matrixIntrinsic(L, intrinsics::MmaPrefix.str() + "m8n8k4.f64.f64",
                                   FixedVectorType::get(F64, 2), {F64, F64, F64, F64}, None);
    Value *R = B.CreateCall(Fn, Args);
    for (unsigned K = 0; K < 2; ++K)
      if (Error E = L.write(D[K], B.CreateExtractElement(R, K)))
        return E;
    return Error::success();
  }

  bool Int = F->AType == "s8" || F->AType == "u8";
  if (Int ? (F->BType != "s8" && F->BType != "u8") || F->CType != "s32" || F->DType != "s32"
          : (F->CType != "f32" && F->CType != "f16") || (F->DType != "f32" && F->DType != "f16"))
    return L.unsupported("mma: these operand types are not lifted");
  if (!Int && F->AType != F->BType &&
      !((F->AType == "e4m3" || F->AType == "e5m2") && (F->BType == "e4m3" || F->BType == "e5m2")))
    return L.unsupported("mma: mixed A and B types");
  if (F->Satfinite && !Int)
    return L.unsupported("mma: .satfinite on float operands");
  auto Regs = fragmentRegisters(F->Shape, F->AType);
  if (!Regs)
    return L.unsupported("mma: shape " + F->Shape + " is not lifted for ." + F->AType);
  if (A.size() != Regs->first || Bm.size() != Regs->second)
    return L.unsupported("mma: wrong number of fragment registers");
  // Accumulators: four f32 or s32 registers, or two f16x2 registers.
  unsigned CRegs = F->CType == "f16" ? 2 : 4, DRegs = F->DType == "f16" ? 2 : 4;
  if (C.size() != CRegs || D.size() != DRegs)
    return L.unsupported("mma: wrong number of accumulator registers");

  SmallVector<Value *, 10> Args;
  for (unsigned K = 0; K < 4; ++K) {
    if (K >= A.size()) {
      Args.push_back(B.getInt32(0));
      continue;
    }
    auto V = L.read(A[K], I32);
    if (!V)
      return V.takeError();
    Args.push_back(*V);
  }
  for (unsigned K = 0; K < 2; ++K) {
    if (K >= Bm.size()) {
      Args.push_back(B.getInt32(0));
      continue;
    }
    auto V = L.read(Bm[K], I32);
    if (!V)
      return V.takeError();
    Args.push_back(*V);
  }
  Type *Acc = Int ? I32 : F32;
  if (F->CType == "f16") {
    // c0, c1 in the low and high halves of the first register, c2, c3 of the second.
    for (unsigned K = 0; K < 2; ++K) {
      auto V = L.read(C[K], I32);
      if (!V)
        return V.takeError();
      Value *Pair = B.CreateBitCast(*V, FixedVectorType::get(B.getHalfTy(), 2));
      for (unsigned H = 0; H < 2; ++H)
        Args.push_back(B.CreateFPExt(B.CreateExtractElement(Pair, H), F32));
    }
  } else {
    for (unsigned K = 0; K < 4; ++K) {
      auto V = L.read(C[K], Acc);
      if (!V)
        return V.takeError();
      Args.push_back(*V);
    }
  }
  std::string Name = (intrinsics::MmaPrefix + F->Shape + "." + F->AType + "." + F->BType).str();
  if (F->Satfinite)
    Name += ".satfinite";
  SmallVector<Type *, 10> Params(6, I32);
  Params.append(4, Acc);
  Function *Fn = matrixIntrinsic(L, Name, FixedVectorType::get(Acc, 4), Params, None);
  Value *R = B.CreateCall(Fn, Args);
  if (F->DType == "f16") {
    // Rounded to nearest even, packed as the C registers are.
    for (unsigned K = 0; K < 2; ++K) {
      Value *Pair = PoisonValue::get(FixedVectorType::get(B.getHalfTy(), 2));
      for (unsigned H = 0; H < 2; ++H)
        Pair = B.CreateInsertElement(
            Pair, B.CreateFPTrunc(B.CreateExtractElement(R, 2 * K + H), B.getHalfTy()), H);
      if (Error E = L.write(D[K], B.CreateBitCast(Pair, I32)))
        return E;
    }
    return Error::success();
  }
  for (unsigned K = 0; K < 4; ++K)
    if (Error E = L.write(D[K], B.CreateExtractElement(R, K)))
      return E;
  return Error::success();
}

Error liftLdmatrix(FunctionLifter &L, const ptx::Instruction &I) {
  IRBuilder<> &B = L.B;
  unsigned N = L.hasMod(".x1") ? 1 : L.hasMod(".x2") ? 2 : L.hasMod(".x4") ? 4 : 0;
  if (!N || !L.hasMod(".m8n8") || !L.hasMod(".b16") || I.Ops.size() != 2)
    return L.unsupported("ldmatrix: only .m8n8 .x1/.x2/.x4 .b16 is lifted");
  ArrayRef<ptx::Operand> D = elements(I.Ops[0]);
  if (D.size() != N)
    return L.unsupported("ldmatrix: wrong number of destination registers");
  // [addr] is a shared address with .shared/.shared::cta, else generic (pointing into shared).
  Expected<Value *> Row = L.hasMod(".shared") || L.hasMod(".shared::cta")
                              ? L.address(I.Ops[1], SharedAS)
                              : L.address(I.Ops[1], GenericAS);
  if (!Row)
    return Row.takeError();
  Value *Ptr = *Row;
  if (Ptr->getType()->getPointerAddressSpace() != SharedAS)
    Ptr = B.CreateAddrSpaceCast(Ptr, PointerType::get(L.Ctx, SharedAS));
  Type *I32 = B.getInt32Ty(), *I1 = B.getInt1Ty();
  Function *Fn =
      matrixIntrinsic(L, intrinsics::Ldmatrix, I32, {PointerType::get(L.Ctx, SharedAS), I32, I1},
                      MemoryEffects::readOnly());
  Value *Trans = B.getInt1(L.hasMod(".trans"));
  for (unsigned M = 0; M < N; ++M)
    if (Error E = L.write(D[M], B.CreateCall(Fn, {Ptr, B.getInt32(M), Trans})))
      return E;
  return Error::success();
}

} // namespace

Error liftMatrix(FunctionLifter &L, const ptx::Instruction &I) {
  const ptx::InstructionFamily &Fam = ptx::instructionFamilies()[I.Family];
  StringRef Op = Fam.Opcode;
  if (Op == "mma") {
    if (L.hasMod(".sp") || L.hasMod(".sp::ordered_metadata"))
      return L.unsupported("sparse mma (mma.sp) is not lifted");
    return liftMma(L, I);
  }
  if (Op == "ldmatrix")
    return liftLdmatrix(L, I);
  return L.unsupported("unsupported instruction (" + Op + ", matrix)");
}

} // namespace reptx::ir
