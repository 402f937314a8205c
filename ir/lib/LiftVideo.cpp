// Video instructions (PTX ISA 9.7.17).
//
// Scalar (9.7.17.1-2): vadd, vsub, vabsdiff, vmin, vmax, vshl, vshr.
//
//   vop.dtype.atype.btype{.sat}{.op2} d, a{.asel}, b{.bsel}{, c};   (vshl/vshr: btype .u32 and
//                                                                     .clamp or .wrap)
//
// a and b are a byte (.b0-.b3), a half-word (.h0, .h1) or the whole word of their register,
// sign- or zero-extended by their type; the operation is exact on those 33-bit values (here in
// 64 bits); .sat clamps the result to the range of dtype; .add adds c. d is the low 32 bits.
// Not lifted (the kernel fails naming the instruction): the .min/.max secondary operations, the
// data-merge form d.dsel and vshl.sat, which no toolkit PTX uses.
//
// Scalar comparison (9.7.17.4): vset.atype.btype.cmp d{.dsel}, a{.asel}, b{.bsel}{, c}, with an
// optional .add, .min or .max with c. The comparison gives 1 or 0 and is unsigned, like c and d:
// .min/.max compare unsigned; d.dsel writes it into that byte or half-word of c.
//
// vmad (9.7.17.3): vmad.dtype.atype.btype{.po}{.sat}{.shr7|.shr15} d, {-}a{.asel}, {-}b{.bsel},
// {-}c: the exact product of the selected parts plus c, in 128 bits; negating a or b negates
// the product (~p + 1), negating c gives ~c + 1, .po adds 1; the sum is signed when a type is
// signed or something is negated (c then sign-extended), shifted right by the scale (arithmetically
// when signed), its low 64 bits clamped to the signed or unsigned 32-bit range by .sat; d is the
// low 32 bits.
//
// SIMD (9.7.17.5-6): vadd2, vsub2, vavrg2, vabsdiff2, vmin2, vmax2, vset2 on two half-words, the
// same with 4 on four bytes (nvcc emits vabsdiff4 for __vabsdiffu4/__vabsdiffs4 and vabsdiff2/4
// .add for __vsadu2/__vsadu4).
//
//   vop2.dtype.atype.btype{.sat} d{.mask}, a{.asel}, b{.bsel}, c;    (vset2.atype.btype.cmp)
//   vop2.dtype.atype.btype.add   d{.mask}, a{.asel}, b{.bsel}, c;
//
// Both selectors pick each lane's element from the 64-bit pair {b, a} (elements 0-3 half-words,
// or 0-7 bytes, a's first): .hxy names lane 1's element then lane 0's (.bxyzw lanes 3 to 0);
// a defaults to its own elements (.h10, .b3210), b to its own (.h32, .b7654). Elements are
// sign- or zero-extended by their type and the operation is exact; vavrg rounds half away from
// zero for a non-negative sum and toward minus infinity otherwise ((s + 1) >> 1 or s >> 1);
// vset gives 1 or 0; .sat clamps to dtype's lane range. The mask (.h0, .h1, .h10; .b0 to .b3210,
// every lane by default) picks the lanes that count: with .add, d = c + the sum of their results;
// otherwise each masked lane of d is its result's low bits and every other lane c's.
#include "Lifter.h"

#include "llvm/ADT/StringSwitch.h"

#include <optional>

using namespace llvm;

namespace reptx::ir {

namespace {

// An operand without its selector (.b1, .h0, .h10...): the whole register.
ptx::Operand whole(const ptx::Operand &Op) {
  ptx::Operand W = Op;
  W.Component = {};
  return W;
}

// The bits a scalar selector names: .b0-.b3 a byte, .h0/.h1 a half-word, none the whole word.
struct Part {
  unsigned Shift = 0, Bits = 32;
};
std::optional<Part> scalarSelector(StringRef Sel) {
  if (Sel.empty())
    return Part{};
  if (Sel.size() == 2 && Sel[0] == 'b' && Sel[1] >= '0' && Sel[1] <= '3')
    return Part{unsigned(Sel[1] - '0') * 8, 8};
  if (Sel == "h0" || Sel == "h1")
    return Part{Sel == "h1" ? 16u : 0u, 16};
  return std::nullopt;
}

// The part of a 32-bit register a selector names, extended to 64 bits.
Expected<Value *> selectPart(FunctionLifter &L, const ptx::Operand &Op, bool Signed) {
  IRBuilder<> &B = L.B;
  StringRef Sel = Op.Component.ltrim('.');
  std::optional<Part> P = scalarSelector(Sel);
  if (!P)
    return L.unsupported("video operand selector ." + Sel);
  auto V = L.read(whole(Op), B.getInt32Ty());
  if (!V)
    return V.takeError();
  Value *Bits = B.CreateTrunc(B.CreateLShr(*V, P->Shift), B.getIntNTy(P->Bits));
  return Signed ? B.CreateSExt(Bits, B.getInt64Ty()) : B.CreateZExt(Bits, B.getInt64Ty());
}

// The lane elements of a SIMD selector (.h10, .b7654; Prefix 'h' or 'b'), lane 0 first, each
// below Limit; empty when malformed.
SmallVector<unsigned, 4> selectorDigits(StringRef Sel, char Prefix, unsigned Lanes,
                                        unsigned Limit) {
  SmallVector<unsigned, 4> Out;
  if (Sel.size() != Lanes + 1 || Sel[0] != Prefix)
    return {};
  for (unsigned I = 0; I < Lanes; ++I) {
    char C = Sel[Lanes - I];
    if (C < '0' || unsigned(C - '0') >= Limit)
      return {};
    Out.push_back(unsigned(C - '0'));
  }
  return Out;
}

// The lanes a SIMD destination mask (.h10, .b31, ...) names, as bits; 0 when malformed: digits
// strictly descending, each a lane.
unsigned maskLanes(StringRef Sel, char Prefix, unsigned Lanes) {
  if (Sel.size() < 2 || Sel.size() > Lanes + 1 || Sel[0] != Prefix)
    return 0;
  unsigned Bits = 0;
  for (size_t I = 1; I < Sel.size(); ++I) {
    char C = Sel[I];
    if (C < '0' || unsigned(C - '0') >= Lanes || (I > 1 && C >= Sel[I - 1]))
      return 0;
    Bits |= 1u << unsigned(C - '0');
  }
  return Bits;
}

// A video comparison (.eq .ne .lt .le .gt .ge), exact on the extended parts: signed in 32 bits.
std::optional<CmpInst::Predicate> videoCompare(StringRef M) {
  bool Known =
      StringSwitch<bool>(M).Cases({".eq", ".ne", ".lt", ".le", ".gt", ".ge"}, true).Default(false);
  if (!Known)
    return std::nullopt;
  return comparisonPredicate(M, PtxType{PtxType::Signed, 32});
}

Error liftSimdVideo(FunctionLifter &L, const ptx::Instruction &I) {
  IRBuilder<> &B = L.B;
  StringRef Op = I.Opcode.drop_back();
  unsigned Lanes = I.Opcode.back() == '2' ? 2 : 4, Bits = 32 / Lanes;
  char Prefix = Lanes == 2 ? 'h' : 'b';
  bool Set = Op == "vset";
  SmallVector<StringRef, 3> Types;
  std::optional<CmpInst::Predicate> Pred;
  bool Sat = false, Add = false;
  for (StringRef M : I.Mods) {
    if (M == ".u32" || M == ".s32")
      Types.push_back(M);
    else if (M == ".sat" && !Set)
      Sat = true;
    else if (M == ".add")
      Add = true;
    else if (auto P = videoCompare(M); P && Set && !Pred)
      Pred = P;
    else
      return L.unsupported("video instruction with " + M);
  }
  // vset has no dtype (its results are unsigned); .sat and .add exclude each other.
  if (Types.size() != (Set ? 2u : 3u) || (Set && !Pred) || (Sat && Add) || I.Ops.size() != 4)
    return L.unsupported();
  bool SignedA = Types[Types.size() - 2] == ".s32", SignedB = Types.back() == ".s32";
  bool SignedD = !Set && Types[0] == ".s32";
  // The selectors, lane 0 first, and the mask.
  auto Select = [&](const ptx::Operand &O, StringRef Default) {
    return selectorDigits(O.Component.empty() ? Default : O.Component.ltrim('.'), Prefix, Lanes,
                          2 * Lanes);
  };
  SmallVector<unsigned, 4> ASel = Select(I.Ops[1], Lanes == 2 ? "h10" : "b3210");
  SmallVector<unsigned, 4> BSel = Select(I.Ops[2], Lanes == 2 ? "h32" : "b7654");
  unsigned Mask = I.Ops[0].Component.empty()
                      ? (1u << Lanes) - 1
                      : maskLanes(I.Ops[0].Component.ltrim('.'), Prefix, Lanes);
  if (ASel.empty() || BSel.empty() || !Mask || !I.Ops[3].Component.empty())
    return L.unsupported("video operand selector");
  auto A = L.read(whole(I.Ops[1]), B.getInt32Ty());
  if (!A)
    return A.takeError();
  auto Bv = L.read(whole(I.Ops[2]), B.getInt32Ty());
  if (!Bv)
    return Bv.takeError();
  auto C = L.read(I.Ops[3], B.getInt32Ty());
  if (!C)
    return C.takeError();
  Type *I32 = B.getInt32Ty(), *Lane = B.getIntNTy(Bits);
  // {b, a}: the elements both selectors choose from.
  Value *Pair = B.CreateOr(B.CreateShl(B.CreateZExt(*Bv, B.getInt64Ty()), 32),
                           B.CreateZExt(*A, B.getInt64Ty()));
  auto Element = [&](unsigned E, bool Signed) {
    Value *V = B.CreateTrunc(B.CreateLShr(Pair, E * Bits), Lane);
    return Signed ? B.CreateSExt(V, I32) : B.CreateZExt(V, I32);
  };
  // Lane values are at most 9 or 17 bits wide: every result is exact in 32 bits.
  int64_t Lo = SignedD ? -(int64_t(1) << (Bits - 1)) : 0;
  int64_t Hi = SignedD ? (int64_t(1) << (Bits - 1)) - 1 : (int64_t(1) << Bits) - 1;
  Value *D = Add ? *C : B.getInt32(0);
  for (unsigned N = 0; N < Lanes; ++N) {
    uint32_t LaneBits = uint32_t(((uint64_t(1) << Bits) - 1) << (N * Bits));
    if (!(Mask >> N & 1)) {
      if (!Add) // merge: c's lane
        D = B.CreateOr(D, B.CreateAnd(*C, B.getInt32(LaneBits)));
      continue;
    }
    Value *Va = Element(ASel[N], SignedA), *Vb = Element(BSel[N], SignedB), *T;
    if (Set) {
      T = B.CreateZExt(B.CreateICmp(*Pred, Va, Vb), I32);
    } else if (Op == "vadd") {
      T = B.CreateAdd(Va, Vb);
    } else if (Op == "vsub") {
      T = B.CreateSub(Va, Vb);
    } else if (Op == "vavrg") {
      Value *S = B.CreateAdd(Va, Vb);
      Value *Up = B.CreateAShr(B.CreateAdd(S, B.getInt32(1)), 1);
      T = B.CreateSelect(B.CreateICmpSGE(S, B.getInt32(0)), Up, B.CreateAShr(S, 1));
    } else if (Op == "vabsdiff") {
      T = B.CreateBinaryIntrinsic(Intrinsic::abs, B.CreateSub(Va, Vb), B.getFalse());
    } else if (Op == "vmin" || Op == "vmax") {
      T = B.CreateBinaryIntrinsic(Op == "vmin" ? Intrinsic::smin : Intrinsic::smax, Va, Vb);
    } else {
      return L.unsupported("unsupported instruction (" + I.Opcode + ", video)");
    }
    if (Sat) {
      T = B.CreateBinaryIntrinsic(Intrinsic::smax, T, B.getInt32(int32_t(Lo)));
      T = B.CreateBinaryIntrinsic(Intrinsic::smin, T, B.getInt32(int32_t(Hi)));
    }
    if (Add)
      D = B.CreateAdd(D, T);
    else
      D = B.CreateOr(D, B.CreateAnd(B.CreateShl(T, N * Bits), B.getInt32(LaneBits)));
  }
  return L.write(whole(I.Ops[0]), D);
}

// vset: the scalar comparison, with its secondary operation or merge.
Error liftVset(FunctionLifter &L, const ptx::Instruction &I) {
  IRBuilder<> &B = L.B;
  SmallVector<StringRef, 2> Types;
  std::optional<CmpInst::Predicate> Pred;
  StringRef Op2;
  for (StringRef M : I.Mods) {
    if (M == ".u32" || M == ".s32")
      Types.push_back(M);
    else if ((M == ".add" || M == ".min" || M == ".max") && Op2.empty())
      Op2 = M;
    else if (auto P = videoCompare(M); P && !Pred)
      Pred = P;
    else
      return L.unsupported("video instruction with " + M);
  }
  StringRef DSel = I.Ops[0].Component.ltrim('.');
  bool Merge = !DSel.empty();
  if (Types.size() != 2 || !Pred || (Merge && !Op2.empty()) ||
      I.Ops.size() != (Merge || !Op2.empty() ? 4u : 3u))
    return L.unsupported();
  auto A = selectPart(L, I.Ops[1], Types[0] == ".s32");
  if (!A)
    return A.takeError();
  auto Bv = selectPart(L, I.Ops[2], Types[1] == ".s32");
  if (!Bv)
    return Bv.takeError();
  Value *D = B.CreateZExt(B.CreateICmp(*Pred, *A, *Bv), B.getInt32Ty());
  if (I.Ops.size() == 4) {
    auto C = L.read(I.Ops[3], B.getInt32Ty());
    if (!C)
      return C.takeError();
    if (Op2 == ".add") {
      D = B.CreateAdd(D, *C);
    } else if (!Op2.empty()) {
      D = B.CreateBinaryIntrinsic(Op2 == ".min" ? Intrinsic::umin : Intrinsic::umax, D, *C);
    } else {
      std::optional<Part> P = scalarSelector(DSel);
      if (!P)
        return L.unsupported("video operand selector ." + DSel);
      uint32_t Mask = uint32_t(((uint64_t(1) << P->Bits) - 1) << P->Shift);
      D = B.CreateOr(B.CreateAnd(*C, B.getInt32(~Mask)), B.CreateShl(D, P->Shift));
    }
  }
  return L.write(whole(I.Ops[0]), D);
}

// vmad: (a * b) + c on the selected parts, with negation, .po, .shr7/.shr15 and .sat, in 128
// bits as the manual computes it.
Error liftVmad(FunctionLifter &L, const ptx::Instruction &I) {
  IRBuilder<> &B = L.B;
  SmallVector<StringRef, 3> Types;
  bool Sat = false, Po = false;
  unsigned Scale = 0;
  for (StringRef M : I.Mods) {
    if (M == ".u32" || M == ".s32")
      Types.push_back(M);
    else if (M == ".sat" && !Sat)
      Sat = true;
    else if (M == ".po" && !Po)
      Po = true;
    else if ((M == ".shr7" || M == ".shr15") && !Scale)
      Scale = M == ".shr7" ? 7 : 15;
    else
      return L.unsupported("video instruction with " + M);
  }
  if (Types.size() != 3 || I.Ops.size() != 4 || !I.Ops[0].Component.empty())
    return L.unsupported();
  bool NegProduct = I.Ops[1].Minus != I.Ops[2].Minus, NegC = I.Ops[3].Minus;
  // The manual allows negating the product or c, not both, and neither with .po.
  if ((NegProduct && NegC) || (Po && (I.Ops[1].Minus || I.Ops[2].Minus || NegC)))
    return L.unsupported("vmad negates both the product and c, or negates with .po");
  bool SignedA = Types[1] == ".s32", SignedB = Types[2] == ".s32";
  bool SignedFinal = SignedA || SignedB || NegProduct || NegC;
  auto Source = [&](const ptx::Operand &O) {
    ptx::Operand Plain = O;
    Plain.Minus = false;
    return Plain;
  };
  auto A = selectPart(L, Source(I.Ops[1]), SignedA);
  if (!A)
    return A.takeError();
  auto Bv = selectPart(L, Source(I.Ops[2]), SignedB);
  if (!Bv)
    return Bv.takeError();
  auto C = L.read(Source(I.Ops[3]), B.getInt32Ty());
  if (!C)
    return C.takeError();
  Type *I128 = B.getInt128Ty();
  // Each part is the exact 33-bit value, so its sign extension to 128 bits is too.
  Value *T = B.CreateMul(B.CreateSExt(*A, I128), B.CreateSExt(*Bv, I128));
  Value *Cv = *C;
  bool Lsb = Po || NegProduct || NegC;
  if (NegProduct)
    T = B.CreateNot(T);
  else if (NegC)
    Cv = B.CreateNot(Cv);
  T = B.CreateAdd(T, SignedFinal ? B.CreateSExt(Cv, I128) : B.CreateZExt(Cv, I128));
  if (Lsb)
    T = B.CreateAdd(T, ConstantInt::get(I128, 1));
  if (Scale)
    T = SignedFinal ? B.CreateAShr(T, Scale) : B.CreateLShr(T, Scale);
  Value *R = B.CreateTrunc(T, B.getInt64Ty());
  if (Sat) {
    if (SignedFinal) {
      R = B.CreateBinaryIntrinsic(Intrinsic::smax, R, B.getInt64(INT32_MIN));
      R = B.CreateBinaryIntrinsic(Intrinsic::smin, R, B.getInt64(INT32_MAX));
    } else {
      R = B.CreateBinaryIntrinsic(Intrinsic::umin, R, B.getInt64(UINT32_MAX));
    }
  }
  return L.write(I.Ops[0], B.CreateTrunc(R, B.getInt32Ty()));
}

} // namespace

Error liftVideo(FunctionLifter &L, const ptx::Instruction &I) {
  IRBuilder<> &B = L.B;
  StringRef Op = I.Opcode;
  bool Shift = Op == "vshl" || Op == "vshr";
  bool Known = StringSwitch<bool>(Op)
                   .Cases({"vadd", "vsub", "vabsdiff", "vmin", "vmax", "vshl", "vshr"}, true)
                   .Default(false);
  if (Op == "vset")
    return liftVset(L, I);
  if (!Known && (Op.ends_with("2") || Op.ends_with("4")))
    return liftSimdVideo(L, I);
  if (Op == "vmad")
    return liftVmad(L, I);
  if (!Known)
    return L.unsupported("unsupported instruction (" + Op + ", video)");
  SmallVector<StringRef, 3> Types;
  bool Sat = false, Add = false, Clamp = false, Wrap = false;
  for (StringRef M : I.Mods) {
    if (M == ".u32" || M == ".s32")
      Types.push_back(M);
    else if (M == ".sat")
      Sat = true;
    else if (M == ".add")
      Add = true;
    else if (M == ".clamp")
      Clamp = true;
    else if (M == ".wrap")
      Wrap = true;
    else
      return L.unsupported("video instruction with " + M);
  }
  if (Types.size() != 3 || I.Ops.size() != (Add ? 4u : 3u) || !I.Ops[0].Component.empty() ||
      (Shift && Clamp == Wrap) || (!Shift && (Clamp || Wrap)) || (Shift && Types[2] != ".u32") ||
      (Op == "vshl" && Sat))
    return L.unsupported(); // vshl.sat: the manual leaves the width of the shifted value open
  bool SignedD = Types[0] == ".s32", SignedA = Types[1] == ".s32", SignedB = Types[2] == ".s32";
  auto A = selectPart(L, I.Ops[1], SignedA);
  if (!A)
    return A.takeError();
  auto Bv = selectPart(L, I.Ops[2], SignedB);
  if (!Bv)
    return Bv.takeError();
  Value *T;
  if (Shift) {
    // tb > 32 clamps to 32, .wrap keeps its low 5 bits; ta shifts as the 64-bit value it was
    // extended to (arithmetically when atype is signed).
    Value *N = Clamp ? B.CreateSelect(B.CreateICmpUGT(*Bv, B.getInt64(32)), B.getInt64(32), *Bv)
                     : B.CreateAnd(*Bv, B.getInt64(31));
    T = Op == "vshl" ? B.CreateShl(*A, N) : SignedA ? B.CreateAShr(*A, N) : B.CreateLShr(*A, N);
  } else if (Op == "vadd") {
    T = B.CreateAdd(*A, *Bv);
  } else if (Op == "vsub") {
    T = B.CreateSub(*A, *Bv);
  } else if (Op == "vabsdiff") {
    T = B.CreateBinaryIntrinsic(Intrinsic::abs, B.CreateSub(*A, *Bv), B.getFalse());
  } else {
    T = B.CreateBinaryIntrinsic(Op == "vmin" ? Intrinsic::smin : Intrinsic::smax, *A, *Bv);
  }
  if (Sat) {
    int64_t Lo = SignedD ? INT32_MIN : 0, Hi = SignedD ? INT32_MAX : UINT32_MAX;
    T = B.CreateBinaryIntrinsic(Intrinsic::smax, T, B.getInt64(Lo));
    T = B.CreateBinaryIntrinsic(Intrinsic::smin, T, B.getInt64(Hi));
  }
  Value *D = B.CreateTrunc(T, B.getInt32Ty());
  if (Add) {
    auto C = L.read(I.Ops[3], B.getInt32Ty());
    if (!C)
      return C.takeError();
    D = B.CreateAdd(D, *C);
  }
  return L.write(I.Ops[0], D);
}

} // namespace reptx::ir
