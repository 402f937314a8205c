// Texture fetches (PTX ISA 9.7.10.3, tex) on texture objects, t a 64-bit texture object handle
// (unified texture mode, the default):
// - tex.1d.v4.{f32,s32,u32}.s32 d, [t, {x}], CUDA's tex1Dfetch (element x of a texture over
//   linear memory), as a call of @reptx.tex.1d.fetch;
// - tex.{1d,2d,3d}.v4.{f32,s32,u32}.f32 d, [t, {x[, y[, z, _]]}], CUDA's tex1D/tex2D/tex3D on
//   CUDA arrays and pitched memory, as a call of @reptx.tex.sample.
// Both return the four channel registers: the backend reads the handle's descriptor, whose
// format, read mode, addressing and filtering decide the bits; the destination type only names
// them. Layered and cube textures, integer coordinates above one dimension, explicit levels of
// detail and gradients, tld4, txq, texture references (.texref variables) and surfaces (suld,
// sust, sured, suq) are not lifted: each is a per-kernel error naming the instruction.
#include "Lifter.h"

#include "reptx/frontend-ptx/InstructionTable.h"
#include "reptx/ir/Intrinsics.h"

using namespace llvm;

namespace reptx::ir {

Error liftTexture(FunctionLifter &L, const ptx::Instruction &I) {
  IRBuilder<> &B = L.B;
  const ptx::InstructionFamily &Fam = ptx::instructionFamilies()[I.Family];
  if (Fam.Opcode != "tex")
    return L.unsupported("unsupported instruction (" + Fam.Opcode + ", texture)");
  // tex.geom.v4.dtype.ctype d, [a, c]: geometry, vector width, destination and coordinate types;
  // nothing else (no sampler, level of detail, offset, depth compare or residency predicate).
  auto Types = L.types();
  bool OnlyModsKnown = llvm::all_of(I.Mods, [](StringRef M) {
    return M == ".1d" || M == ".2d" || M == ".3d" || M == ".v4" || M == ".f32" || M == ".s32" ||
           M == ".u32";
  });
  unsigned Dims = L.hasMod(".1d") ? 1 : L.hasMod(".2d") ? 2 : L.hasMod(".3d") ? 3 : 0;
  bool IntCoord = Types.size() == 2 && Types[1].K == PtxType::Signed && Types[1].Width == 32;
  bool FloatCoord = Types.size() == 2 && Types[1].isFloat() && Types[1].Width == 32;
  if (!Dims || !L.hasMod(".v4") || !OnlyModsKnown ||
      (Dims == 1 ? !IntCoord && !FloatCoord : !FloatCoord))
    return L.unsupported("unsupported instruction (tex, texture): only tex.1d.v4 with an s32 "
                         "coordinate (tex1Dfetch) and tex.{1d,2d,3d}.v4 with f32 coordinates "
                         "are lifted");
  PtxType DType = Types[0];
  // The coordinate vector: one value (or a vector of one) for 1d, two for 2d, four for 3d (the
  // fourth is ignored).
  unsigned Given = Dims == 3 ? 4 : Dims;
  if (I.Ops.size() != 2 || I.Ops[0].K != ptx::Operand::Vector || I.Ops[0].Elems.size() != 4 ||
      I.Ops[1].K != ptx::Operand::Address || I.Ops[1].Elems.size() != 2 || I.Ops[1].IntValue)
    return L.unsupported("unsupported instruction (tex, texture): operands other than "
                         "{d0, d1, d2, d3}, [t, {coordinates}]");
  const ptx::Operand &Handle = I.Ops[1].Elems[0], &Coord = I.Ops[1].Elems[1];
  if (Handle.K != ptx::Operand::Name || !L.isRegister(Handle.Sym))
    return L.unsupported("unsupported instruction (tex, texture): a texture reference (.texref); "
                         "only texture objects are lifted");
  std::vector<const ptx::Operand *> Xs;
  if (Coord.K == ptx::Operand::Vector) {
    for (const ptx::Operand &E : Coord.Elems)
      Xs.push_back(&E);
  } else {
    Xs.push_back(&Coord);
  }
  if (Xs.size() != Given ||
      llvm::any_of(Xs, [](const ptx::Operand *X) { return X->K == ptx::Operand::Vector; }))
    return L.unsupported("unsupported instruction (tex, texture): a " + std::to_string(Dims) +
                         "d coordinate is a vector of " + std::to_string(Given));
  Type *I32 = B.getInt32Ty(), *I64 = B.getInt64Ty(), *F32 = B.getFloatTy();
  auto T = L.read(Handle, I64);
  if (!T)
    return T.takeError();
  Value *R;
  if (IntCoord) {
    auto C = L.read(*Xs[0], I32, /*Signed=*/true);
    if (!C)
      return C.takeError();
    Function *F = L.declareIntrinsic(intrinsics::Tex1dFetch, FixedVectorType::get(I32, 4),
                                     {I64, I32}, MemoryEffects::readOnly());
    R = B.CreateCall(F, {*T, *C});
  } else {
    SmallVector<Value *, 5> Args = {*T, B.getInt32(Dims)};
    for (unsigned K = 0; K < 3; ++K) {
      if (K >= Dims) {
        Args.push_back(ConstantFP::get(F32, 0.0));
        continue;
      }
      auto C = L.read(*Xs[K], F32);
      if (!C)
        return C.takeError();
      Args.push_back(*C);
    }
    Function *F = L.declareIntrinsic(intrinsics::TexSample, FixedVectorType::get(I32, 4),
                                     {I64, I32, F32, F32, F32}, MemoryEffects::readOnly());
    R = B.CreateCall(F, Args);
  }
  for (unsigned K = 0; K < 4; ++K) {
    Value *V = B.CreateExtractElement(R, K);
    if (DType.isFloat())
      V = B.CreateBitCast(V, B.getFloatTy());
    if (Error E = L.write(I.Ops[0].Elems[K], V, DType.isSigned()))
      return E;
  }
  return Error::success();
}

} // namespace reptx::ir
