// Scalar video instructions (PTX ISA 9.7.17.1-2): vadd, vsub, vabsdiff, vmin, vmax, vshl, vshr.
//
//   vop.dtype.atype.btype{.sat}{.op2} d, a{.asel}, b{.bsel}{, c};   (vshl/vshr: btype .u32 and
//                                                                     .clamp or .wrap)
//
// a and b are a byte (.b0-.b3), a half-word (.h0, .h1) or the whole word of their register,
// sign- or zero-extended by their type; the operation is exact on those 33-bit values (here in
// 64 bits); .sat clamps the result to the range of dtype; .add adds c. d is the low 32 bits.
// Not lifted (the kernel fails naming the instruction): the .min/.max secondary operations, the
// data-merge form d.dsel and vshl.sat, which no toolkit PTX uses.
#include "Lifter.h"

#include "llvm/ADT/StringSwitch.h"

using namespace llvm;

namespace reptx::ir {

namespace {

// The part of a 32-bit register a selector names, extended to 64 bits.
Expected<Value *> selectPart(FunctionLifter &L, const ptx::Operand &Op, bool Signed) {
  IRBuilder<> &B = L.B;
  ptx::Operand Whole = Op;
  Whole.Component = {};
  auto V = L.read(Whole, B.getInt32Ty());
  if (!V)
    return V.takeError();
  StringRef Sel = Op.Component.ltrim('.');
  unsigned Shift = 0, Bits = 32;
  if (Sel.size() == 2 && Sel[0] == 'b' && Sel[1] >= '0' && Sel[1] <= '3') {
    Shift = unsigned(Sel[1] - '0') * 8;
    Bits = 8;
  } else if (Sel == "h0" || Sel == "h1") {
    Shift = Sel == "h1" ? 16 : 0;
    Bits = 16;
  } else if (!Sel.empty()) {
    return L.unsupported("video operand selector ." + Sel);
  }
  Value *Part = B.CreateTrunc(B.CreateLShr(*V, Shift), B.getIntNTy(Bits));
  return Signed ? B.CreateSExt(Part, B.getInt64Ty()) : B.CreateZExt(Part, B.getInt64Ty());
}

} // namespace

Error liftVideo(FunctionLifter &L, const ptx::Instruction &I) {
  IRBuilder<> &B = L.B;
  StringRef Op = I.Opcode;
  bool Shift = Op == "vshl" || Op == "vshr";
  bool Known = StringSwitch<bool>(Op)
                   .Cases({"vadd", "vsub", "vabsdiff", "vmin", "vmax", "vshl", "vshr"}, true)
                   .Default(false);
  if (!Known) // the SIMD video instructions (vadd2, vabsdiff4, ...), vmad and vset
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
