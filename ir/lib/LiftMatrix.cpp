// Warp-level matrix instructions (PTX ISA 9.7.14.5): mma.sync with the .row.col fragment layouts of
// the m16n8k4/k8/k16/k32 shapes (f16, bf16, tf32, e4m3, e5m2 with f32 or f16 accumulators; s8/u8
// with s32 accumulators, optionally .satfinite) and m8n8k4 .f64, and ldmatrix .m8n8 .x1/.x2/.x4
// (.trans) .b16. Each is a call to a reptx intrinsic (Intrinsics.h) that the helper library
// defines exactly (backend/device/Matrix.cpp); a later NVPTX target can map them back one to one.
// wmma takes mma.sync's fragment layouts (below); stmatrix and movmatrix are ldmatrix's relatives.
// Not lifted (named in the error): sparse mma (mma.sp), the .m8n8k4 f16 shape, 4-bit and
// single-bit operands, block scaling, the 8-bit ldmatrix/stmatrix shapes.
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
// Only the shapes the PTX ISA gives each type (and the helper library defines): f16/bf16 k8 and
// k16, tf32 k4 and k8, 8-bit k16 and k32.
std::optional<std::pair<unsigned, unsigned>> fragmentRegisters(StringRef Shape, StringRef AType) {
  unsigned Bits = AType == "f16" || AType == "bf16" ? 16 : AType == "tf32" ? 32 : 8;
  unsigned K = Shape == "m16n8k4"    ? 4
               : Shape == "m16n8k8"  ? 8
               : Shape == "m16n8k16" ? 16
               : Shape == "m16n8k32" ? 32
                                     : 0;
  unsigned P = 32 / Bits, Span = 4 * P;
  // Two spans at most: k16 for 16-bit types, k8 for tf32, k32 for 8-bit ones.
  if (!K || K % Span || K / Span > 2)
    return std::nullopt;
  return std::make_pair(2 * (K / Span), K / Span);
}

// Reads accumulator registers as f32 (or s32, Acc) elements: f16 registers hold two elements each,
// low half first, widened exactly.
Error readAccumulators(FunctionLifter &L, ArrayRef<ptx::Operand> C, bool Half, Type *Acc,
                       SmallVectorImpl<Value *> &Out) {
  IRBuilder<> &B = L.B;
  for (const ptx::Operand &Op : C) {
    auto V = L.read(Op, Half ? B.getInt32Ty() : Acc);
    if (!V)
      return V.takeError();
    if (!Half) {
      Out.push_back(*V);
      continue;
    }
    Value *Pair = B.CreateBitCast(*V, FixedVectorType::get(B.getHalfTy(), 2));
    for (unsigned H = 0; H < 2; ++H)
      Out.push_back(B.CreateFPExt(B.CreateExtractElement(Pair, H), B.getFloatTy()));
  }
  return Error::success();
}

// Writes accumulator elements to D's registers; for f16 registers each pair rounded to nearest
// even and packed as the C registers are.
Error writeAccumulators(FunctionLifter &L, ArrayRef<ptx::Operand> D, bool Half,
                        ArrayRef<Value *> Elems) {
  IRBuilder<> &B = L.B;
  for (unsigned K = 0; K < D.size(); ++K) {
    Value *V = Elems[K];
    if (Half) {
      Value *Pair = PoisonValue::get(FixedVectorType::get(B.getHalfTy(), 2));
      for (unsigned H = 0; H < 2; ++H)
        Pair = B.CreateInsertElement(Pair, B.CreateFPTrunc(Elems[2 * K + H], B.getHalfTy()), H);
      V = B.CreateBitCast(Pair, B.getInt32Ty());
    }
    if (Error E = L.write(D[K], V))
      return E;
  }
  return Error::success();
}

// mma.m8n8k4 .f64 (mma.sync, and wmma on mma's layout): one register of A and of B, two of C and
// D.
Error liftMmaF64(FunctionLifter &L, ArrayRef<ptx::Operand> D, ArrayRef<ptx::Operand> A,
                 ArrayRef<ptx::Operand> Bm, ArrayRef<ptx::Operand> C) {
  IRBuilder<> &B = L.B;
  if (A.size() != 1 || Bm.size() != 1 || C.size() != 2 || D.size() != 2)
    return L.unsupported("mma: wrong number of fragment registers");
  Type *F64 = B.getDoubleTy();
  SmallVector<Value *, 4> Args;
  for (const ptx::Operand *Op : {&A[0], &Bm[0], &C[0], &C[1]}) {
    auto V = L.read(*Op, F64);
    if (!V)
      return V.takeError();
    Args.push_back(*V);
  }
  Function *Fn = matrixIntrinsic(L, intrinsics::MmaPrefix.str() + "m8n8k4.f64.f64",
                                 FixedVectorType::get(F64, 2), {F64, F64, F64, F64},
                                 MemoryEffects::inaccessibleMemOnly());
  Value *R = B.CreateCall(Fn, Args);
  Value *Elems[2] = {B.CreateExtractElement(R, uint64_t(0)),
                     B.CreateExtractElement(R, uint64_t(1))};
  return writeAccumulators(L, D, false, Elems);
}

// The shared-space row address [p] of ldmatrix/stmatrix (generic unless .shared/.shared::cta),
// and the number of 8 x 8 matrices (.x1/.x2/.x4; 0 for other forms).
Expected<Value *> matrixRowAddress(FunctionLifter &L, const ptx::Operand &Op) {
  Expected<Value *> Row = L.hasMod(".shared") || L.hasMod(".shared::cta")
                              ? L.address(Op, SharedAS)
                              : L.address(Op, GenericAS);
  if (!Row)
    return Row.takeError();
  if ((*Row)->getType()->getPointerAddressSpace() == SharedAS)
    return *Row;
  return L.B.CreateAddrSpaceCast(*Row, PointerType::get(L.Ctx, SharedAS));
}
unsigned matrixCount(FunctionLifter &L) {
  bool B16 = L.hasMod(".m8n8") && L.hasMod(".b16");
  return !B16 ? 0 : L.hasMod(".x1") ? 1 : L.hasMod(".x2") ? 2 : L.hasMod(".x4") ? 4 : 0;
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
  Type *I32 = B.getInt32Ty(), *F32 = B.getFloatTy();
  MemoryEffects None = MemoryEffects::inaccessibleMemOnly();

  if (F->AType == "f64") {
    if (F->Shape != "m8n8k4" || F->BType != "f64" || F->CType != "f64" || F->DType != "f64")
      return L.unsupported("mma: this .f64 form is not lifted");
    return liftMmaF64(L, D, A, Bm, C);
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
  if (Error E = readAccumulators(L, C, F->CType == "f16", Acc, Args))
    return E;
  std::string Name = (intrinsics::MmaPrefix + F->Shape + "." + F->AType + "." + F->BType).str();
  if (F->Satfinite)
    Name += ".satfinite";
  SmallVector<Type *, 10> Params(6, I32);
  Params.append(4, Acc);
  Function *Fn = matrixIntrinsic(L, Name, FixedVectorType::get(Acc, 4), Params, None);
  Value *R = B.CreateCall(Fn, Args);
  SmallVector<Value *, 4> Elems;
  for (unsigned K = 0; K < 4; ++K)
    Elems.push_back(B.CreateExtractElement(R, K));
  return writeAccumulators(L, D, F->DType == "f16", Elems);
}

Error liftLdmatrix(FunctionLifter &L, const ptx::Instruction &I) {
  IRBuilder<> &B = L.B;
  unsigned N = matrixCount(L);
  if (!N || I.Ops.size() != 2)
    return L.unsupported("ldmatrix: only .m8n8 .x1/.x2/.x4 .b16 is lifted");
  ArrayRef<ptx::Operand> D = elements(I.Ops[0]);
  if (D.size() != N)
    return L.unsupported("ldmatrix: wrong number of destination registers");
  auto Row = matrixRowAddress(L, I.Ops[1]);
  if (!Row)
    return Row.takeError();
  Value *Ptr = *Row;
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

// ---- wmma (PTX ISA 9.7.14.4). The mapping of matrix elements to fragment registers is
// unspecified by the PTX ISA (fragments only go through wmma.load, wmma.mma, wmma.store and
// element-wise code), so reptx picks the mma.sync fragment layouts: an m16n16, m32n8 or m8n32 tile
// is a grid of m16n8 tiles (m8n32: their upper eight rows), A holds the A fragments of its 16-row
// blocks (m8n32: only the registers of rows g), B the B fragments of its 8-column blocks and C/D
// the accumulators of every m16n8 tile (m8n32: elements 0 and 1), so wmma.mma is one mma.sync
// helper call per m16n8 tile. .f16 A and B have more registers than elements (8 .f16x2 whatever
// the shape): the data registers come first and the others repeat them. m8n8k4 .f64 is
// mma.m8n8k4's layout. Loads and stores are per lane from the elements' addresses, with the
// stride (in elements) between rows (.row) or columns (.col), the leading dimension by default.
struct WmmaGeom {
  unsigned M = 0, N = 0, K = 0;
  unsigned P = 0, S = 0; // elements per A/B register, spans of k (mma helper's)
  unsigned RowBlocks = 0, ColBlocks = 0;
  bool EightRows = false;        // m8n32: one 8-row block
  unsigned ARegs = 0, BRegs = 0; // data registers
  unsigned PtxARegs = 0, PtxBRegs = 0;
  unsigned ElemBits = 0; // A/B element width
};

std::optional<WmmaGeom> wmmaGeom(StringRef Shape, StringRef TypeName) {
  WmmaGeom G;
  if (Shape == "m16n16k16")
    G.M = 16, G.N = 16, G.K = 16;
  else if (Shape == "m32n8k16")
    G.M = 32, G.N = 8, G.K = 16;
  else if (Shape == "m8n32k16")
    G.M = 8, G.N = 32, G.K = 16;
  else if (Shape == "m16n16k8" && TypeName == "tf32")
    G.M = 16, G.N = 16, G.K = 8;
  else
    return std::nullopt;
  if (TypeName == "f16" || TypeName == "bf16")
    G.ElemBits = 16;
  else if (TypeName == "s8" || TypeName == "u8")
    G.ElemBits = 8;
  else if (TypeName == "tf32" && G.K == 8)
    G.ElemBits = 32;
  else
    return std::nullopt;
  G.P = 32 / G.ElemBits;
  G.S = G.K / (4 * G.P);
  G.EightRows = G.M == 8;
  G.RowBlocks = G.EightRows ? 1 : G.M / 16;
  G.ColBlocks = G.N / 8;
  G.ARegs = G.RowBlocks * (G.EightRows ? 1 : 2) * G.S;
  G.BRegs = G.ColBlocks * G.S;
  G.PtxARegs = TypeName == "f16" ? 8 : G.ARegs;
  G.PtxBRegs = TypeName == "f16" ? 8 : G.BRegs;
  return G;
}

// Per-lane element coordinates of the fragments (lane = 4g + t).
struct Coord {
  Value *Row, *Col;
};

// A data register R, element Sub: (row m, column k).
Coord wmmaACoord(IRBuilder<> &B, const WmmaGeom &G, Value *Gr, Value *T, unsigned R, unsigned Sub) {
  unsigned PerBlock = (G.EightRows ? 1 : 2) * G.S, Rb = R / PerBlock, Rem = R % PerBlock;
  unsigned Half = G.EightRows ? 0 : Rem % 2, Span = G.EightRows ? Rem : Rem / 2;
  Value *Row = B.CreateAdd(Gr, B.getInt32(16 * Rb + 8 * Half));
  Value *Col = B.CreateAdd(B.CreateMul(T, B.getInt32(G.P)), B.getInt32(4 * G.P * Span + Sub));
  return {Row, Col};
}
// B data register R, element Sub: (row k, column n).
Coord wmmaBCoord(IRBuilder<> &B, const WmmaGeom &G, Value *Gr, Value *T, unsigned R, unsigned Sub) {
  unsigned Nb = R / G.S, Span = R % G.S;
  Value *Row = B.CreateAdd(B.CreateMul(T, B.getInt32(G.P)), B.getInt32(4 * G.P * Span + Sub));
  return {Row, B.CreateAdd(Gr, B.getInt32(8 * Nb))};
}
// Accumulator element Idx: (row m, column n).
Coord wmmaCCoord(IRBuilder<> &B, const WmmaGeom &G, Value *Gr, Value *T, unsigned Idx) {
  unsigned E = G.EightRows ? 2 : 4, Tile = Idx / E, I = Idx % E;
  unsigned Rb = Tile / G.ColBlocks, Nb = Tile % G.ColBlocks;
  Value *Row = B.CreateAdd(Gr, B.getInt32(16 * Rb + 8 * (I / 2)));
  Value *Col = B.CreateAdd(B.CreateShl(T, 1), B.getInt32(8 * Nb + (I & 1)));
  return {Row, Col};
}

// The wmma memory operand: a pointer in the instruction's state space (generic without one).
Expected<Value *> wmmaAddress(FunctionLifter &L, const ptx::Operand &Op) {
  unsigned AS = L.hasMod(".global")                               ? GlobalAS
                : L.hasMod(".shared") || L.hasMod(".shared::cta") ? SharedAS
                                                                  : GenericAS;
  return L.address(Op, AS);
}

// The element at (Row, Col) of a matrix with layout Rowmajor and Stride elements of EltBytes.
Value *elementPtr(IRBuilder<> &B, Value *Base, Coord C, bool RowMajor, Value *Stride,
                  unsigned EltBytes) {
  Value *Major = RowMajor ? C.Row : C.Col, *Minor = RowMajor ? C.Col : C.Row;
  Value *Index = B.CreateAdd(B.CreateMul(Major, Stride), Minor);
  Value *Off = B.CreateMul(B.CreateSExt(Index, B.getInt64Ty()), B.getInt64(EltBytes));
  return B.CreateGEP(B.getInt8Ty(), Base, Off);
}

Error liftWmmaLoadStore(FunctionLifter &L, const ptx::Instruction &I, bool Store) {
  IRBuilder<> &B = L.B;
  StringRef Frag = L.hasMod(".a") ? "a" : L.hasMod(".b") ? "b" : L.hasMod(".c") ? "c" : "";
  if (Store)
    Frag = L.hasMod(".d") ? "d" : "";
  bool RowMajor = L.hasMod(".row"), ColMajor = L.hasMod(".col");
  StringRef Shape, TypeName;
  for (StringRef M : I.Mods) {
    if (M.starts_with(".m") && M.contains('n') && M.contains('k'))
      Shape = M.drop_front();
    else if (M == ".f16" || M == ".bf16" || M == ".s8" || M == ".u8" || M == ".tf32" ||
             M == ".f32" || M == ".s32" || M == ".f64" || M == ".s4" || M == ".u4" || M == ".b1")
      TypeName = M.drop_front();
  }
  if (Frag.empty() || RowMajor == ColMajor || Shape.empty() || TypeName.empty())
    return L.unsupported("wmma: fragment, layout, shape or type missing");
  if (I.Ops.size() != 2 && I.Ops.size() != 3)
    return L.unsupported();
  const ptx::Operand &Regs = Store ? I.Ops[1] : I.Ops[0];
  const ptx::Operand &Addr = Store ? I.Ops[0] : I.Ops[1];
  ArrayRef<ptx::Operand> R = elements(Regs);
  auto Base = wmmaAddress(L, Addr);
  if (!Base)
    return Base.takeError();
  Type *I32 = B.getInt32Ty();
  Value *Lane = warpSpecialRegister(L, "%laneid");
  Value *Gr = B.CreateLShr(Lane, 2), *T = B.CreateAnd(Lane, 3);
  bool Acc = Frag == "c" || Frag == "d";

  if (Shape == "m8n8k4") {
    // .f64: mma.m8n8k4's layout: A (g, t), B (t, g), C/D (g, 2t + i).
    if (TypeName != "f64" || R.size() != (Acc ? 2u : 1u))
      return L.unsupported("wmma: this m8n8k4 form is not lifted");
    unsigned Ld = Frag == "a" ? (RowMajor ? 4 : 8) : Frag == "b" ? (RowMajor ? 8 : 4) : 8;
    Value *Stride = B.getInt32(Ld);
    if (I.Ops.size() == 3) {
      auto S = L.read(I.Ops[2], I32);
      if (!S)
        return S.takeError();
      Stride = *S;
    }
    for (unsigned K = 0; K < R.size(); ++K) {
      Coord C = Frag == "a"   ? Coord{Gr, T}
                : Frag == "b" ? Coord{T, Gr}
                              : Coord{Gr, B.CreateAdd(B.CreateShl(T, 1), B.getInt32(K))};
      Value *Ptr = elementPtr(B, *Base, C, RowMajor, Stride, 8);
      if (Store) {
        auto V = L.read(R[K], B.getDoubleTy());
        if (!V)
          return V.takeError();
        B.CreateAlignedStore(*V, Ptr, Align(8));
      } else if (Error E = L.write(R[K], B.CreateAlignedLoad(B.getDoubleTy(), Ptr, Align(8)))) {
        return E;
      }
    }
    return Error::success();
  }

  StringRef ElemType = TypeName;
  if (Acc) {
    // The accumulator's shape is the mma's: any A/B type that has the shape gives its geometry.
    ElemType = Shape == "m16n16k8" ? "tf32" : "f16";
    if (TypeName != "f16" && TypeName != "f32" && TypeName != "s32")
      return L.unsupported("wmma: accumulator type ." + TypeName + " is not lifted");
  }
  auto G = wmmaGeom(Shape, ElemType);
  if (!G)
    return L.unsupported("wmma: shape ." + Shape + " with ." + TypeName + " is not lifted");
  unsigned Rows = Frag == "a" ? G->M : Frag == "b" ? G->K : G->M;
  unsigned Cols = Frag == "a" ? G->K : Frag == "b" ? G->N : G->N;
  Value *Stride = B.getInt32(RowMajor ? Cols : Rows);
  if (I.Ops.size() == 3) {
    auto S = L.read(I.Ops[2], I32);
    if (!S)
      return S.takeError();
    Stride = *S;
  }

  if (Acc) {
    // Eight elements per lane: f32/s32 registers, or four .f16x2 registers.
    bool Half = TypeName == "f16";
    if (R.size() != (Half ? 4u : 8u))
      return L.unsupported("wmma: wrong number of accumulator registers");
    unsigned Bytes = Half ? 2 : 4;
    Type *EltTy = Half ? B.getInt16Ty() : I32;
    for (unsigned K = 0; K < R.size(); ++K) {
      unsigned PerReg = Half ? 2 : 1;
      Value *RegV = nullptr;
      if (Store) {
        auto V = L.read(R[K], I32);
        if (!V)
          return V.takeError();
        RegV = *V;
      }
      Value *Acc32 = B.getInt32(0);
      for (unsigned H = 0; H < PerReg; ++H) {
        Coord C = wmmaCCoord(B, *G, Gr, T, K * PerReg + H);
        Value *Ptr = elementPtr(B, *Base, C, RowMajor, Stride, Bytes);
        if (Store) {
          Value *E = B.CreateTrunc(B.CreateLShr(RegV, 16 * H), EltTy);
          B.CreateAlignedStore(E, Ptr, Align(Bytes));
        } else {
          Value *E = B.CreateZExt(B.CreateAlignedLoad(EltTy, Ptr, Align(Bytes)), I32);
          Acc32 = B.CreateOr(Acc32, B.CreateShl(E, 16 * H));
        }
      }
      if (!Store)
        if (Error E = L.write(R[K], Acc32))
          return E;
    }
    return Error::success();
  }

  // A or B: data registers of P packed elements; .f16's extra registers repeat them.
  unsigned Data = Frag == "a" ? G->ARegs : G->BRegs;
  unsigned Ptx = Frag == "a" ? G->PtxARegs : G->PtxBRegs;
  if (R.size() != Ptx)
    return L.unsupported("wmma: wrong number of fragment registers");
  unsigned Bytes = G->ElemBits / 8;
  Type *EltTy = B.getIntNTy(G->ElemBits);
  SmallVector<Value *, 8> Vals;
  for (unsigned K = 0; K < Data; ++K) {
    Value *Reg = B.getInt32(0);
    for (unsigned Sub = 0; Sub < G->P; ++Sub) {
      Coord C = Frag == "a" ? wmmaACoord(B, *G, Gr, T, K, Sub) : wmmaBCoord(B, *G, Gr, T, K, Sub);
      Value *Ptr = elementPtr(B, *Base, C, RowMajor, Stride, Bytes);
      Value *E = B.CreateZExt(B.CreateAlignedLoad(EltTy, Ptr, Align(Bytes)), I32);
      Reg = B.CreateOr(Reg, B.CreateShl(E, Sub * G->ElemBits));
    }
    Vals.push_back(Reg);
  }
  for (unsigned K = 0; K < Ptx; ++K)
    if (Error E = L.write(R[K], Vals[K % Data]))
      return E;
  return Error::success();
}

Error liftWmmaMma(FunctionLifter &L, const ptx::Instruction &I) {
  IRBuilder<> &B = L.B;
  StringRef Shape;
  SmallVector<StringRef, 4> Types;
  bool Satfinite = false;
  for (StringRef M : I.Mods) {
    if (M.starts_with(".m") && M.contains('n') && M.contains('k'))
      Shape = M.drop_front();
    else if (M == ".satfinite")
      Satfinite = true;
    else if (M == ".f16" || M == ".f32" || M == ".bf16" || M == ".s8" || M == ".u8" ||
             M == ".tf32" || M == ".s32" || M == ".f64" || M == ".s4" || M == ".u4" || M == ".b1")
      Types.push_back(M.drop_front());
    else if (M == ".rz" || M == ".rm" || M == ".rp")
      return L.unsupported(Twine("wmma.mma with ") + M);
  }
  if (I.Ops.size() != 4 || Shape.empty())
    return L.unsupported();
  ArrayRef<ptx::Operand> D = elements(I.Ops[0]), A = elements(I.Ops[1]), Bm = elements(I.Ops[2]),
                         C = elements(I.Ops[3]);
  Type *I32 = B.getInt32Ty(), *F32 = B.getFloatTy();
  MemoryEffects None = MemoryEffects::inaccessibleMemOnly();
  // Types: .dtype.ctype for f16 operands, .dtype.atype.btype.ctype otherwise.
  StringRef DType, AType, BType, CType;
  if (Types.size() == 2)
    DType = Types[0], CType = Types[1], AType = BType = "f16";
  else if (Types.size() == 4)
    DType = Types[0], AType = Types[1], BType = Types[2], CType = Types[3];
  else
    return L.unsupported("wmma.mma: operand types missing");

  if (Shape == "m8n8k4") {
    if (AType != "f64" || BType != "f64" || CType != "f64" || DType != "f64")
      return L.unsupported("wmma.mma: this m8n8k4 form is not lifted");
    return liftMmaF64(L, D, A, Bm, C);
  }

  bool Int = AType == "s8" || AType == "u8";
  if (AType != BType && !(Int && (BType == "s8" || BType == "u8")))
    return L.unsupported("wmma.mma: mixed A and B types");
  if (Satfinite && !Int)
    return L.unsupported("wmma.mma: .satfinite on float operands");
  if (Int ? CType != "s32" || DType != "s32"
          : (CType != "f32" && CType != "f16") || (DType != "f32" && DType != "f16") ||
                (AType != "f16" && (CType != "f32" || DType != "f32")))
    return L.unsupported("wmma.mma: these accumulator types are not lifted");
  auto G = wmmaGeom(Shape, AType);
  if (!G)
    return L.unsupported("wmma.mma: shape ." + Shape + " with ." + AType + " is not lifted");
  if (A.size() != G->PtxARegs || Bm.size() != G->PtxBRegs ||
      C.size() != (CType == "f16" ? 4u : 8u) || D.size() != (DType == "f16" ? 4u : 8u))
    return L.unsupported("wmma.mma: wrong number of fragment registers");

  auto readAll = [&](ArrayRef<ptx::Operand> Ops, unsigned N,
                     SmallVectorImpl<Value *> &Out) -> Error {
    for (unsigned K = 0; K < N; ++K) {
      auto V = L.read(Ops[K], I32);
      if (!V)
        return V.takeError();
      Out.push_back(*V);
    }
    return Error::success();
  };
  SmallVector<Value *, 8> AR, BR, CR;
  if (Error E = readAll(A, G->ARegs, AR))
    return E;
  if (Error E = readAll(Bm, G->BRegs, BR))
    return E;
  // Accumulators as eight f32 (or s32) elements.
  Type *Acc = Int ? I32 : F32;
  if (Error E = readAccumulators(L, C, CType == "f16", Acc, CR))
    return E;
  std::string Name =
      (intrinsics::MmaPrefix + "m16n8k" + Twine(G->K == 8 ? 8 : 16) + "." + AType + "." + BType)
          .str();
  if (Satfinite)
    Name += ".satfinite";
  SmallVector<Type *, 10> Params(6, I32);
  Params.append(4, Acc);
  Function *Fn = matrixIntrinsic(L, Name, FixedVectorType::get(Acc, 4), Params, None);
  Value *Zero = Int ? Constant::getNullValue(Acc) : ConstantFP::get(Acc, 0.0);
  SmallVector<Value *, 8> DR(8, nullptr);
  unsigned E = G->EightRows ? 2 : 4, PerBlock = (G->EightRows ? 1 : 2) * G->S;
  for (unsigned Rb = 0; Rb < G->RowBlocks; ++Rb)
    for (unsigned Nb = 0; Nb < G->ColBlocks; ++Nb) {
      SmallVector<Value *, 10> Args;
      // A registers of the row block in the helper's order (half + 2 * span); the 8-row block
      // has no rows g + 8.
      for (unsigned K = 0; K < 4; ++K) {
        unsigned Half = K % 2, Span = K / 2;
        if (Span >= G->S || (G->EightRows && Half))
          Args.push_back(B.getInt32(0));
        else
          Args.push_back(AR[Rb * PerBlock + (G->EightRows ? Span : Half + 2 * Span)]);
      }
      for (unsigned K = 0; K < 2; ++K)
        Args.push_back(K < G->S ? BR[Nb * G->S + K] : B.getInt32(0));
      unsigned Tile = Rb * G->ColBlocks + Nb;
      for (unsigned K = 0; K < 4; ++K)
        Args.push_back(K < E ? CR[Tile * E + K] : Zero);
      Value *R = B.CreateCall(Fn, Args);
      for (unsigned K = 0; K < E; ++K)
        DR[Tile * E + K] = B.CreateExtractElement(R, K);
    }
  return writeAccumulators(L, D, DType == "f16", DR);
}

// stmatrix.sync.aligned.m8n8.xN[.trans].shared.b16 [p], {r...}: one helper call per register.
Error liftStmatrix(FunctionLifter &L, const ptx::Instruction &I) {
  IRBuilder<> &B = L.B;
  unsigned N = matrixCount(L);
  if (!N || I.Ops.size() != 2)
    return L.unsupported("stmatrix: only .m8n8 .x1/.x2/.x4 .b16 is lifted");
  ArrayRef<ptx::Operand> R = elements(I.Ops[1]);
  if (R.size() != N)
    return L.unsupported("stmatrix: wrong number of source registers");
  auto Row = matrixRowAddress(L, I.Ops[0]);
  if (!Row)
    return Row.takeError();
  Value *Ptr = *Row;
  Type *I32 = B.getInt32Ty();
  Function *Fn = matrixIntrinsic(L, intrinsics::Stmatrix, B.getVoidTy(),
                                 {PointerType::get(L.Ctx, SharedAS), I32, I32, B.getInt1Ty()},
                                 MemoryEffects::unknown());
  Value *Trans = B.getInt1(L.hasMod(".trans"));
  for (unsigned M = 0; M < N; ++M) {
    auto V = L.read(R[M], I32);
    if (!V)
      return V.takeError();
    B.CreateCall(Fn, {Ptr, B.getInt32(M), *V, Trans});
  }
  return Error::success();
}

// movmatrix.sync.aligned.m8n8.trans.b16 d, a.
Error liftMovmatrix(FunctionLifter &L, const ptx::Instruction &I) {
  IRBuilder<> &B = L.B;
  if (!L.hasMod(".m8n8") || !L.hasMod(".trans") || !L.hasMod(".b16") || I.Ops.size() != 2)
    return L.unsupported("movmatrix: only .m8n8.trans.b16 is lifted");
  Type *I32 = B.getInt32Ty();
  auto V = L.read(I.Ops[1], I32);
  if (!V)
    return V.takeError();
  Function *Fn =
      matrixIntrinsic(L, intrinsics::Movmatrix, I32, {I32}, MemoryEffects::inaccessibleMemOnly());
  return L.write(I.Ops[0], B.CreateCall(Fn, {*V}));
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
  if (Op == "stmatrix")
    return liftStmatrix(L, I);
  if (Op == "movmatrix")
    return liftMovmatrix(L, I);
  if (Op == "wmma") {
    if (L.hasMod(".load"))
      return liftWmmaLoadStore(L, I, /*Store=*/false);
    if (L.hasMod(".store"))
      return liftWmmaLoadStore(L, I, /*Store=*/true);
    if (L.hasMod(".mma"))
      return liftWmmaMma(L, I);
    return L.unsupported("wmma: unknown operation");
  }
  return L.unsupported("unsupported instruction (" + Op + ", matrix)");
}

} // namespace reptx::ir
