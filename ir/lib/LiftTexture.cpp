// Texture fetches (PTX ISA 9.7.10.3, tex) on texture objects: tex.1d.v4.{f32,s32,u32}.s32 d,
// [t, {x}] — CUDA's tex1Dfetch, element x of a texture over linear memory, t a 64-bit texture
// object handle (unified texture mode, the default) — as a call of @reptx.tex.1d.fetch, which
// returns the four channel registers (the backend reads the handle's descriptor: the format and
// read mode decide the bits, the destination type only how PTX names them). Other textures
// (2d, 3d, arrays, cube maps, float coordinates with filtering), tld4, txq, texture references
// (.texref variables) and surfaces (suld, sust, sured, suq) are not lifted: each is a per-kernel
// error naming the instruction.
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
    return M == ".1d" || M == ".v4" || M == ".f32" || M == ".s32" || M == ".u32";
  });
  if (!L.hasMod(".1d") || !L.hasMod(".v4") || !OnlyModsKnown || Types.size() != 2 ||
      Types[1].K != PtxType::Signed || Types[1].Width != 32)
    return L.unsupported("unsupported instruction (tex, texture): only tex.1d.v4 with an s32 "
                         "coordinate (tex1Dfetch) is lifted");
  PtxType DType = Types[0];
  if (I.Ops.size() != 2 || I.Ops[0].K != ptx::Operand::Vector || I.Ops[0].Elems.size() != 4 ||
      I.Ops[1].K != ptx::Operand::Address || I.Ops[1].Elems.size() != 2 || I.Ops[1].IntValue)
    return L.unsupported("unsupported instruction (tex, texture): operands other than "
                         "{d0, d1, d2, d3}, [t, {x}]");
  const ptx::Operand &Handle = I.Ops[1].Elems[0], &Coord = I.Ops[1].Elems[1];
  if (Handle.K != ptx::Operand::Name || !L.isRegister(Handle.Sym))
    return L.unsupported("unsupported instruction (tex, texture): a texture reference (.texref); "
                         "only texture objects are lifted");
  const ptx::Operand &X =
      Coord.K == ptx::Operand::Vector && Coord.Elems.size() == 1 ? Coord.Elems[0] : Coord;
  if (X.K == ptx::Operand::Vector)
    return L.unsupported("unsupported instruction (tex, texture): a 1d coordinate is one value");
  Type *I32 = B.getInt32Ty(), *I64 = B.getInt64Ty();
  auto T = L.read(Handle, I64);
  if (!T)
    return T.takeError();
  auto C = L.read(X, I32, /*Signed=*/true);
  if (!C)
    return C.takeError();
  Function *F = L.declareIntrinsic(intrinsics::Tex1dFetch, FixedVectorType::get(I32, 4), {I64, I32},
                                   MemoryEffects::readOnly());
  Value *R = B.CreateCall(F, {*T, *C});
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
