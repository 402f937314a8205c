// Floating-point arithmetic on f32 and f64 (PTX ISA 9.7.3 and the float forms of 9.7.1): add,
// sub, mul, fma, mad, div, abs, neg, min, max (.NaN, .xorsign.abs, three inputs), sqrt, rcp,
// rsqrt, lg2, ex2, sin, cos, with .ftz and .sat; testp. Directed rounding (.rz .rm .rp) of add,
// sub, mul, fma and mad is in LiftDirected.cpp.
#include "Lifter.h"

#include "llvm/ADT/FloatingPointMode.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/MDBuilder.h"

using namespace llvm;

namespace reptx::ir {

// testp.op (PTX ISA 9.7.3.1) as an llvm.is.fpclass mask. The manual counts +0.0 and -0.0 as
// normal numbers ("as a special case"); subnormal means a nonzero subnormal.
static std::optional<FPClassTest> testpClass(const ptx::Instruction &I) {
  for (StringRef M : I.Mods) {
    auto C = StringSwitch<std::optional<FPClassTest>>(M)
                 .Case(".finite", fcFinite)
                 .Case(".infinite", fcInf)
                 .Case(".number", ~fcNan & fcAllFlags)
                 .Case(".notanumber", fcNan)
                 .Case(".normal", fcNormal | fcZero)
                 .Case(".subnormal", fcSubnormal)
                 .Default(std::nullopt);
    if (C)
      return C;
  }
  return std::nullopt;
}

// min/max on f32/f64 (PTX ISA 9.7.3.11/12):
//   if (.xorsign) { s = sign(a) ^ sign(b); if (.abs) { a = |a|; b = |b|; } }
//   NaN rules: both NaN -> NaN; .NaN and either NaN -> NaN; one NaN -> the other operand;
//   else the smaller/larger, -0.0 below +0.0 (IEEE 754-2019 minimumNumber/maximumNumber, or
//   minimum/maximum with .NaN);
//   if (.xorsign && !isNaN(d)) d's sign bit = s.
// The three-input form (d, a, b, c; .abs applies to each input) folds the same rule.
static Error liftMinMax(FunctionLifter &L, const ptx::Instruction &I,
                        SmallVectorImpl<Value *> &Srcs) {
  IRBuilder<> &B = L.B;
  bool Min = I.Opcode == "min";
  bool XorSign = L.hasMod(".xorsign"), Abs = L.hasMod(".abs");
  if (L.hasMod(".relu") || (XorSign && (!Abs || Srcs.size() != 2)))
    return L.unsupported();
  Intrinsic::ID ID;
  if (L.hasMod(".NaN"))
    ID = Min ? Intrinsic::minimum : Intrinsic::maximum;
  else
    ID = Min ? Intrinsic::minimumnum : Intrinsic::maximumnum;
  Value *R = nullptr;
  for (Value *V : Srcs) {
    if (Abs)
      V = B.CreateUnaryIntrinsic(Intrinsic::fabs, V);
    R = R ? B.CreateBinaryIntrinsic(ID, R, V) : V;
  }
  if (XorSign) {
    // R is min/max of two magnitudes, so its sign bit is clear: or in a's sign xor b's.
    Type *FT = R->getType();
    Type *IT = B.getIntNTy(FT->getPrimitiveSizeInBits());
    Value *SignMask = ConstantInt::get(IT, APInt::getSignMask(IT->getIntegerBitWidth()));
    Value *Sign = B.CreateAnd(
        B.CreateXor(B.CreateBitCast(Srcs[0], IT), B.CreateBitCast(Srcs[1], IT)), SignMask);
    Value *Signed = B.CreateBitCast(B.CreateOr(B.CreateBitCast(R, IT), Sign), FT);
    R = B.CreateSelect(B.CreateFCmpUNO(R, R), R, Signed);
  }
  // A NaN result (every operand NaN, or any with .NaN) is the canonical NaN 0x7fffffff for f32
  // (9.7.3.11/12), whatever the operands' payloads.
  if (R->getType()->isFloatTy())
    R = B.CreateSelect(B.CreateFCmpUNO(R, R), B.CreateBitCast(B.getInt32(0x7fffffff), R->getType()),
                       R);
  return L.write(I.Ops[0], R);
}

Error liftFloat(FunctionLifter &L, const ptx::Instruction &I) {
  IRBuilder<> &B = L.B;
  StringRef Op = I.Opcode;
  auto T = L.type();
  if (!T)
    return T.takeError();
  if (!T->isFloat() || T->Width == 16)
    return L.unsupported("half-precision arithmetic is not supported yet");
  Type *Ty = L.llvmType(*T);
  if (L.hasMod(".rz") || L.hasMod(".rm") || L.hasMod(".rp"))
    return liftDirected(L, I);
  // .ftz applies to f32, and to f64 only in rcp.approx.ftz.f64 (9.7.3.8).
  bool Ftz = L.hasMod(".ftz") && (T->Width == 32 || Op == "rcp");
  auto Src = [&](unsigned Idx) -> Expected<Value *> {
    auto V = L.read(I.Ops[Idx], Ty);
    if (V && Ftz)
      return L.flushSubnormal(*V);
    return V;
  };
  auto Result = [&](Value *R) {
    if (Ftz)
      R = L.flushSubnormal(R);
    if (L.hasMod(".sat"))
      R = L.saturate(R);
    return L.write(I.Ops[0], R);
  };

  if (Op == "add" || Op == "sub" || Op == "mul") {
    auto A = Src(1), C = Src(2);
    if (!A || !C)
      return joinErrors(A.takeError(), C.takeError());
    // Without .rn ptxas may contract add/mul into fma; the unfused IEEE result is one of the
    // results PTX allows (9.7.3.3), and the exact one for .rn.
    Value *R = Op == "add"   ? B.CreateFAdd(*A, *C)
               : Op == "sub" ? B.CreateFSub(*A, *C)
                             : B.CreateFMul(*A, *C);
    return Result(R);
  }
  if (Op == "fma" || Op == "mad") {
    // mad.f32/f64 with a rounding mode is fma (9.7.3.7); mad.f32 without one is fma on sm_20+.
    if (L.hasMod(".relu") || L.hasMod(".oob"))
      return L.unsupported();
    auto A = Src(1), C = Src(2), D = Src(3);
    if (!A || !C || !D)
      return joinErrors(joinErrors(A.takeError(), C.takeError()), D.takeError());
    return Result(B.CreateIntrinsic(Intrinsic::fma, {Ty}, {*A, *C, *D}));
  }
  if (Op == "div") {
    auto A = Src(1), C = Src(2);
    if (!A || !C)
      return joinErrors(A.takeError(), C.takeError());
    auto *Div = cast<Instruction>(B.CreateFDiv(*A, *C));
    // .rn (and f64 division, which requires it) is the IEEE quotient. .approx and .full are
    // accurate to 2 ulp (9.7.3.9); the !fpmath bound lets a backend use its fast sequence.
    if (L.hasMod(".approx") || L.hasMod(".full")) {
      if (T->Width != 32)
        return L.unsupported();
      Div->setMetadata(LLVMContext::MD_fpmath, MDBuilder(L.Ctx).createFPMath(2.0f));
    } else if (!L.hasMod(".rn")) {
      return L.unsupported("division without a rounding mode");
    }
    return Result(Div);
  }
  if (Op == "copysign") {
    // copysign.type d, a, b: b with the sign bit of a (9.7.3.2); no .ftz, NaNs keep their payload.
    auto A = L.read(I.Ops[1], Ty), C = L.read(I.Ops[2], Ty);
    if (!A || !C)
      return joinErrors(A.takeError(), C.takeError());
    return L.write(I.Ops[0], B.CreateBinaryIntrinsic(Intrinsic::copysign, *C, *A));
  }
  if (Op == "abs" || Op == "neg") {
    auto A = Src(1);
    if (!A)
      return A.takeError();
    Value *R = Op == "abs" ? B.CreateUnaryIntrinsic(Intrinsic::fabs, *A) : B.CreateFNeg(*A);
    return Result(R);
  }
  if (Op == "tanh") {
    // tanh.approx.f32 (9.7.3.17, sm_75+): the only form; relative error within 2^-11.
    auto A = Src(1);
    if (!A)
      return A.takeError();
    if (!L.hasMod(".approx") || !Ty->isFloatTy())
      return L.unsupported();
    return Result(tanhApproxF32(B, *A));
  }
  if (Op == "sqrt" || Op == "rcp" || Op == "rsqrt" || Op == "lg2" || Op == "ex2" || Op == "sin" ||
      Op == "cos") {
    auto A = Src(1);
    if (!A)
      return A.takeError();
    // .rn (sqrt, rcp) is the correctly rounded result (9.7.3.8/10). .approx forms are the
    // hardware's fast approximations (9.7.3.8-16): marked afn, which lets a backend use its
    // native instructions (rcp, rsq, log, exp, sin, cos).
    bool Approx = L.hasMod(".approx");
    if (!Approx && !L.hasMod(".rn"))
      return L.unsupported();
    if (Approx) {
      FastMathFlags FMF;
      FMF.setApproxFunc();
      B.setFastMathFlags(FMF);
    }
    Value *R;
    Value *One = ConstantFP::get(Ty, 1.0);
    if (Op == "sqrt")
      R = B.CreateUnaryIntrinsic(Intrinsic::sqrt, *A);
    else if (Op == "rcp")
      R = B.CreateFDiv(One, *A);
    else if (Op == "rsqrt") {
      R = B.CreateFDiv(One, B.CreateUnaryIntrinsic(Intrinsic::sqrt, *A));
      // rsqrt(+inf) is +0 (9.7.3.11); a native reciprocal square root may not give it (AMDGPU's
      // V_RSQ_F64 returns NaN there), so it is selected explicitly.
      if (Approx)
        R = B.CreateSelect(B.CreateFCmpOEQ(*A, ConstantFP::getInfinity(Ty)),
                           ConstantFP::getZero(Ty), R);
    } else
      R = B.CreateUnaryIntrinsic(Op == "lg2"   ? Intrinsic::log2
                                 : Op == "ex2" ? Intrinsic::exp2
                                 : Op == "sin" ? Intrinsic::sin
                                               : Intrinsic::cos,
                                 *A);
    B.clearFastMathFlags();
    return Result(R);
  }

  if (Op == "min" || Op == "max") {
    // .ftz flushes the inputs (the result of min/max is one of them, already flushed).
    SmallVector<Value *, 3> Srcs;
    if (I.Ops.size() != 3 && !(I.Ops.size() == 4 && T->Width == 32))
      return L.unsupported();
    for (unsigned K = 1; K < I.Ops.size(); ++K) {
      auto V = Src(K);
      if (!V)
        return V.takeError();
      Srcs.push_back(*V);
    }
    return liftMinMax(L, I, Srcs);
  }
  if (Op == "testp") {
    // testp.op.type p, a (9.7.3.1): no .ftz, a subnormal input is tested as it is.
    auto A = L.read(I.Ops[1], Ty);
    if (!A)
      return A.takeError();
    auto Class = testpClass(I);
    if (!Class)
      return L.unsupported("unsupported testp operation");
    return L.write(I.Ops[0],
                   B.CreateIntrinsic(Intrinsic::is_fpclass, {Ty}, {*A, B.getInt32(*Class)}));
  }
  return L.unsupported();
}

} // namespace reptx::ir
