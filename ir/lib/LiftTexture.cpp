// Texture and surface instructions (PTX ISA 9.7.10, 9.7.11) on texture and surface objects: t a
// 64-bit handle in a register (unified texture mode, the default), or a .texref/.surfref variable
// (texture and surface references), which holds such a handle: the loader's cuTexRef*/cuSurfRef*
// calls make an object from the reference's settings and store its handle there. The
// instructions are lifted as calls of the reptx intrinsics whose helpers
// (backend/device/Texture.cpp, Surface.cpp) read the handle's descriptor:
// - tex.1d.v4.{f32,s32,u32}.s32 d, [t, {x}], CUDA's tex1Dfetch (element x of a texture over
//   linear memory): @reptx.tex.1d.fetch;
// - tex[.level|.grad].{1d,2d,3d,a1d,a2d,cube,acube}.v4.{f32,s32,u32}.f32 d, [t, {...}], CUDA's
//   tex1D, tex2D, tex3D, tex1DLayered, tex2DLayered, texCubemap, texCubemapLayered (and their
//   Lod/Grad forms: textures have one level, so the level of detail and the gradients do not
//   matter): @reptx.tex.sample, a cube map's direction with Dims 4;
// - tld4.{r,g,b,a}.{2d,a2d}.v4.{f32,s32,u32}.f32 d, [t, {...}], CUDA's tex2Dgather:
//   @reptx.tex.gather;
// - suld.b and sust.b (.1d, .2d, .3d, .a1d, .a2d; .v2/.v4 of .b8, .b16, .b32, .b64; .trap,
//   .clamp, .zero), CUDA's surf*Read and surf*Write: @reptx.suld, @reptx.sust.
// The fetches return the four channel registers, whose bits the texture's format and read mode
// decide; the destination type only names them. Not lifted, each a per-kernel error naming the
// instruction: multisample textures, integer coordinates above one dimension,
// offsets, depth compare and the residency predicate, separate samplers (independent texture
// mode), txq, suq, sured, sust.p and 256-bit surface accesses.
#include "Lifter.h"

#include "reptx/frontend-ptx/InstructionTable.h"
#include "reptx/ir/Intrinsics.h"

using namespace llvm;

namespace reptx::ir {

namespace {

// The coordinate operands of [t, c]: the elements of a vector, or the one operand.
SmallVector<const ptx::Operand *, 4> coordinates(const ptx::Operand &C) {
  SmallVector<const ptx::Operand *, 4> Xs;
  if (C.K == ptx::Operand::Vector) {
    for (const ptx::Operand &E : C.Elems)
      Xs.push_back(&E);
  } else {
    Xs.push_back(&C);
  }
  return Xs;
}

// The geometry modifier: dimensions addressed by coordinates, and whether a layer comes first.
struct Geometry {
  unsigned Dims = 0;
  bool Layered = false;
  bool Cube = false;          // .cube/.acube: Dims is 3, the direction x, y, z
  unsigned operands() const { // the coordinate vector's length
    unsigned N = Dims + (Layered ? 1 : 0);
    return N == 3 ? 4 : N; // three coordinates are written as a vector of four
  }
};

Geometry geometry(const FunctionLifter &L) {
  if (L.hasMod(".1d"))
    return {1, false};
  if (L.hasMod(".2d"))
    return {2, false};
  if (L.hasMod(".3d"))
    return {3, false};
  if (L.hasMod(".a1d"))
    return {1, true};
  if (L.hasMod(".a2d"))
    return {2, true};
  if (L.hasMod(".cube"))
    return {3, false, true};
  if (L.hasMod(".acube"))
    return {3, true, true};
  return {};
}

// The 64-bit handle operand of a texture (surface) instruction: a register holding a texture
// (surface) object, or a module-scope .texref (.surfref) variable, which holds the handle of the
// object the loader made from its cuTexRef* (cuSurfRef*) settings (0 until one is bound).
Expected<Value *> handle(FunctionLifter &L, const ptx::Operand &H, StringRef RefType) {
  if (H.K == ptx::Operand::Name && L.isRegister(H.Sym))
    return L.read(H, L.B.getInt64Ty());
  if (H.K != ptx::Operand::Name || L.moduleVariableType(H.Sym) != RefType)
    return L.unsupported("unsupported instruction (texture): the handle is neither a register "
                         "nor a " +
                         RefType + " variable");
  auto Slot = L.variableAddress(H.Sym);
  if (!Slot)
    return Slot.takeError();
  return L.B.CreateLoad(L.B.getInt64Ty(), *Slot, H.Sym + ".handle");
}

// Writes the four channel registers R to the vector destination D, as PTX type DType names them.
Error writeChannels(FunctionLifter &L, const ptx::Operand &D, Value *R, PtxType DType) {
  for (unsigned K = 0; K < 4; ++K) {
    Value *V = L.B.CreateExtractElement(R, K);
    if (DType.isFloat())
      V = L.B.CreateBitCast(V, L.B.getFloatTy());
    if (Error E = L.write(D.Elems[K], V, DType.isSigned()))
      return E;
  }
  return Error::success();
}

// suld.b / sust.b: Count elements of the instruction's .b8/.b16/.b32/.b64 type at byte x (row y,
// slice z or layer) of the surface, exchanged with the helper as bytes in four 32-bit words.
Error liftSurface(FunctionLifter &L, const ptx::Instruction &I, bool Store) {
  IRBuilder<> &B = L.B;
  StringRef Op = Store ? "sust" : "suld";
  auto Fail = [&](const Twine &Why) {
    return L.unsupported("unsupported instruction (" + Op + ", texture): " + Why);
  };
  Geometry G = geometry(L);
  auto Types = L.types();
  unsigned Mode = L.hasMod(".trap") ? 0 : L.hasMod(".clamp") ? 1 : L.hasMod(".zero") ? 2 : 3;
  bool OnlyModsKnown = llvm::all_of(I.Mods, [](StringRef M) {
    return M == ".b" || M == ".1d" || M == ".2d" || M == ".3d" || M == ".a1d" || M == ".a2d" ||
           M == ".v2" || M == ".v4" || M == ".b8" || M == ".b16" || M == ".b32" || M == ".b64" ||
           M == ".trap" || M == ".clamp" || M == ".zero";
  });
  if (!L.hasMod(".b") || !G.Dims || Mode == 3 || !OnlyModsKnown || Types.size() != 1 ||
      !Types[0].isInt())
    return Fail("only suld.b/sust.b on 1d, 2d, 3d, a1d and a2d surfaces with .trap, .clamp or "
                ".zero are lifted");
  unsigned ElemBytes = Types[0].Width / 8;
  unsigned Count = L.hasMod(".v4") ? 4 : L.hasMod(".v2") ? 2 : 1;
  if (ElemBytes != 1 && ElemBytes != 2 && ElemBytes != 4 && ElemBytes != 8)
    return Fail("elements of " + Twine(Types[0].Width) + " bits");
  if (ElemBytes * Count > 16)
    return Fail("a 256-bit surface access");
  if (I.Ops.size() != 2)
    return Fail("operands other than [s, {coordinates}] and the data");
  const ptx::Operand &Addr = I.Ops[Store ? 0 : 1], &Data = I.Ops[Store ? 1 : 0];
  if (Addr.K != ptx::Operand::Address || Addr.Elems.size() != 2 || Addr.IntValue)
    return Fail("operands other than [s, {coordinates}] and the data");
  const ptx::Operand &Handle = Addr.Elems[0];
  auto Xs = coordinates(Addr.Elems[1]);
  SmallVector<const ptx::Operand *, 4> DataOps;
  if (Data.K == ptx::Operand::Vector) {
    for (const ptx::Operand &E : Data.Elems)
      DataOps.push_back(&E);
  } else {
    DataOps.push_back(&Data);
  }
  if (Xs.size() != G.operands() || DataOps.size() != Count)
    return Fail("a coordinate vector or data of the wrong length");
  Type *I32 = B.getInt32Ty();
  auto T = handle(L, Handle, ".surfref");
  if (!T)
    return T.takeError();
  // Coordinates x (bytes), y, z; a layer is the slice.
  Value *Coord[3] = {B.getInt32(0), B.getInt32(0), B.getInt32(0)};
  for (unsigned K = 0; K < G.Dims + (G.Layered ? 1 : 0); ++K) {
    auto C = L.read(*Xs[K], I32, /*Signed=*/true);
    if (!C)
      return C.takeError();
    unsigned Slot = G.Layered ? (K == 0 ? 2 : K - 1) : K;
    Coord[Slot] = *C;
  }
  Type *Elem = B.getIntNTy(ElemBytes * 8);
  auto *Bytes = FixedVectorType::get(Elem, 16 / ElemBytes);
  auto *Words = FixedVectorType::get(I32, 4);
  SmallVector<Value *, 8> Args = {
      *T, Coord[0], Coord[1], Coord[2], B.getInt32(ElemBytes), B.getInt32(Count), B.getInt32(Mode)};
  if (Store) {
    Value *V = Constant::getNullValue(Bytes);
    for (unsigned K = 0; K < Count; ++K) {
      auto E = L.read(*DataOps[K], Elem);
      if (!E)
        return E.takeError();
      V = B.CreateInsertElement(V, *E, K);
    }
    Args.push_back(B.CreateBitCast(V, Words));
    SmallVector<Type *, 8> Params;
    for (Value *A : Args)
      Params.push_back(A->getType());
    B.CreateCall(
        L.declareIntrinsic(intrinsics::Sust, B.getVoidTy(), Params, MemoryEffects::unknown()),
        Args);
    return Error::success();
  }
  SmallVector<Type *, 8> Params;
  for (Value *A : Args)
    Params.push_back(A->getType());
  Value *R = B.CreateCall(
      L.declareIntrinsic(intrinsics::Suld, Words, Params, MemoryEffects::readOnly()), Args);
  R = B.CreateBitCast(R, Bytes);
  for (unsigned K = 0; K < Count; ++K)
    if (Error E = L.write(*DataOps[K], B.CreateExtractElement(R, K)))
      return E;
  return Error::success();
}

} // namespace

Error liftTexture(FunctionLifter &L, const ptx::Instruction &I) {
  IRBuilder<> &B = L.B;
  const ptx::InstructionFamily &Fam = ptx::instructionFamilies()[I.Family];
  StringRef Op = Fam.Opcode;
  if (Op == "suld" || Op == "sust")
    return liftSurface(L, I, Op == "sust");
  if (Op != "tex" && Op != "tld4")
    return L.unsupported("unsupported instruction (" + Op + ", texture)");
  bool Gather = Op == "tld4";
  // tex[.level|.grad].geom.v4.dtype.ctype d, [a, c] and tld4.comp.geom.v4.dtype.f32 d, [a, c]:
  // geometry, vector width, destination and coordinate types; nothing else (no sampler, offset,
  // depth compare or residency predicate).
  auto Types = L.types();
  bool OnlyModsKnown = llvm::all_of(I.Mods, [&](StringRef M) {
    return M == ".1d" || M == ".2d" || M == ".3d" || M == ".a1d" || M == ".a2d" || M == ".v4" ||
           (!Gather && (M == ".cube" || M == ".acube")) || M == ".f32" || M == ".s32" ||
           M == ".u32" || (!Gather && (M == ".level" || M == ".grad")) ||
           (Gather && (M == ".r" || M == ".g" || M == ".b" || M == ".a"));
  });
  Geometry G = geometry(L);
  bool IntCoord = Types.size() == 2 && Types[1].K == PtxType::Signed && Types[1].Width == 32;
  bool FloatCoord = Types.size() == 2 && Types[1].isFloat() && Types[1].Width == 32;
  bool Lod = L.hasMod(".level") || L.hasMod(".grad");
  bool Fetch = IntCoord && G.Dims == 1 && !G.Layered && !Lod && !Gather; // tex1Dfetch
  if (!G.Dims || !L.hasMod(".v4") || !OnlyModsKnown || (!Fetch && !FloatCoord) ||
      (Gather && G.Dims != 2))
    return L.unsupported("unsupported instruction (" + Op +
                         ", texture): only tex.1d.v4 with an s32 coordinate (tex1Dfetch), "
                         "tex.{1d,2d,3d,a1d,a2d,cube,acube}.v4 and tld4.{2d,a2d}.v4 with f32 "
                         "coordinates are lifted");
  PtxType DType = Types[0];
  // [t, c], then the level of detail (.level) or the two gradient vectors (.grad).
  unsigned Extra = L.hasMod(".level") ? 1 : L.hasMod(".grad") ? 2 : 0;
  if (I.Ops.size() != 2 + Extra || I.Ops[0].K != ptx::Operand::Vector ||
      I.Ops[0].Elems.size() != 4 || I.Ops[1].K != ptx::Operand::Address ||
      I.Ops[1].Elems.size() != 2 || I.Ops[1].IntValue)
    return L.unsupported("unsupported instruction (" + Op +
                         ", texture): operands other than {d0, d1, d2, d3}, [t, {coordinates}]");
  const ptx::Operand &Handle = I.Ops[1].Elems[0];
  auto Xs = coordinates(I.Ops[1].Elems[1]);
  if (Xs.size() != G.operands() ||
      llvm::any_of(Xs, [](const ptx::Operand *X) { return X->K == ptx::Operand::Vector; }))
    return L.unsupported("unsupported instruction (" + Op + ", texture): a coordinate vector of " +
                         std::to_string(Xs.size()) + " where the geometry has " +
                         std::to_string(G.operands()));
  Type *I32 = B.getInt32Ty(), *I64 = B.getInt64Ty(), *F32 = B.getFloatTy();
  auto *Vec = FixedVectorType::get(I32, 4);
  auto T = handle(L, Handle, ".texref");
  if (!T)
    return T.takeError();
  if (Fetch) {
    auto C = L.read(*Xs[0], I32, /*Signed=*/true);
    if (!C)
      return C.takeError();
    Function *F =
        L.declareIntrinsic(intrinsics::Tex1dFetch, Vec, {I64, I32}, MemoryEffects::readOnly());
    return writeChannels(L, I.Ops[0], B.CreateCall(F, {*T, *C}), DType);
  }
  // The layer (an s32 first coordinate of a1d/a2d), then up to three float coordinates.
  Value *Layer = B.getInt32(0);
  unsigned First = 0;
  if (G.Layered) {
    auto C = L.read(*Xs[0], I32, /*Signed=*/true);
    if (!C)
      return C.takeError();
    Layer = *C;
    First = 1;
  }
  SmallVector<Value *, 3> Coords;
  for (unsigned K = 0; K < 3; ++K) {
    if (K >= G.Dims) {
      Coords.push_back(ConstantFP::get(F32, 0.0));
      continue;
    }
    auto C = L.read(*Xs[First + K], F32);
    if (!C)
      return C.takeError();
    Coords.push_back(*C);
  }
  Value *R;
  if (Gather) {
    unsigned Comp = L.hasMod(".r") ? 0 : L.hasMod(".g") ? 1 : L.hasMod(".b") ? 2 : 3;
    Function *F = L.declareIntrinsic(intrinsics::TexGather, Vec, {I64, I32, I32, F32, F32},
                                     MemoryEffects::readOnly());
    R = B.CreateCall(F, {*T, B.getInt32(Comp), Layer, Coords[0], Coords[1]});
  } else {
    Function *F = L.declareIntrinsic(intrinsics::TexSample, Vec, {I64, I32, I32, F32, F32, F32},
                                     MemoryEffects::readOnly());
    // Dims 4: a cube map's direction (the helper picks the face).
    R = B.CreateCall(F,
                     {*T, B.getInt32(G.Cube ? 4 : G.Dims), Layer, Coords[0], Coords[1], Coords[2]});
  }
  return writeChannels(L, I.Ops[0], R, DType);
}

} // namespace reptx::ir
