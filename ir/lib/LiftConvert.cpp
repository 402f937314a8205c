// cvt (PTX ISA 9.7.9.21) between integer and f32/f64/f16 types: integer widening and narrowing,
// float-to-integer with the integer rounding modes (saturating, NaN to 0), integer-to-float and
// float-to-float with round-to-nearest-even, and float rounding to integral values; cvt.pack
// (9.7.9.22) of two saturated s32 values.
#include "Lifter.h"

#include "llvm/IR/Intrinsics.h"

using namespace llvm;

namespace reptx::ir {

// cvt.pack.sat.convertType.s32{.b32} d, a, b{, c} (PTX ISA 9.7.9.22): a and b are clamped to
// convertType's range (n bits) and packed as ta:tb, tb in the low n bits, ta in the next n;
//   .u16/.s16 (no c):   d = ta[15:0] << 16 | tb[15:0]
//   .u8/.s8 (c .b32):   d = c[15:0] << 16 | ta[7:0] << 8 | tb[7:0]
// i.e. bits 2n..31 of d are the low bits of c, which lets a second cvt.pack stack two more
// values over the first pair. (.u4/.s4/.u2/.s2 are not in the parser's type table.)
static Error liftConvertPack(FunctionLifter &L, const ptx::Instruction &I) {
  IRBuilder<> &B = L.B;
  auto Ts = L.types();
  if (Ts.size() < 2 || !L.hasMod(".sat"))
    return L.unsupported();
  PtxType D = Ts[0], S = Ts[1];
  unsigned N = D.Width;
  bool HasC = N == 8;
  if (!D.isInt() || D.K == PtxType::Bits || (N != 8 && N != 16) || !S.isSigned() || S.Width != 32 ||
      Ts.size() != (HasC ? 3u : 2u) || I.Ops.size() != (HasC ? 4u : 3u))
    return L.unsupported();
  Type *I32 = B.getInt32Ty();
  APInt Lo = D.isSigned() ? APInt::getSignedMinValue(N).sext(32) : APInt(32, 0);
  APInt Hi = D.isSigned() ? APInt::getSignedMaxValue(N).sext(32) : APInt::getMaxValue(N).zext(32);
  uint32_t Mask = uint32_t(APInt::getMaxValue(N).getZExtValue());
  auto Sat = [&](unsigned Idx) -> Expected<Value *> {
    auto V = L.read(I.Ops[Idx], I32);
    if (!V)
      return V.takeError();
    Value *X = B.CreateBinaryIntrinsic(Intrinsic::smax, *V, B.getInt(Lo));
    X = B.CreateBinaryIntrinsic(Intrinsic::smin, X, B.getInt(Hi));
    return B.CreateAnd(X, Mask);
  };
  auto TA = Sat(1), TB = Sat(2);
  if (!TA || !TB)
    return joinErrors(TA.takeError(), TB.takeError());
  Value *R = B.CreateOr(B.CreateShl(*TA, N), *TB);
  if (HasC) {
    auto C = L.read(I.Ops[3], I32);
    if (!C)
      return C.takeError();
    R = B.CreateOr(B.CreateShl(*C, 2 * N), R);
  }
  return L.write(I.Ops[0], R);
}

Error liftConvert(FunctionLifter &L, const ptx::Instruction &I) {
  if (L.hasMod(".pack"))
    return liftConvertPack(L, I);
  if (isHalfConversion(I))
    return liftConvertHalf(L, I);
  IRBuilder<> &B = L.B;
  auto Ts = L.types();
  if (Ts.size() != 2 || I.Ops.size() != 2)
    return L.unsupported();
  PtxType D = Ts[0], S = Ts[1];
  if (D.K == PtxType::Pred || S.K == PtxType::Pred || D.Width > 64 || S.Width > 64)
    return L.unsupported();
  Type *DT = L.llvmType(D), *ST = L.llvmType(S);
  StringRef Rnd;
  for (StringRef M : I.Mods)
    if (M == ".rn" || M == ".rz" || M == ".rm" || M == ".rp" || M == ".rni" || M == ".rzi" ||
        M == ".rmi" || M == ".rpi")
      Rnd = M;
  bool Sat = L.hasMod(".sat");
  bool Ftz = L.hasMod(".ftz");
  if (L.hasMod(".relu") || L.hasMod(".satfinite") || L.hasMod(".rna") || L.hasMod(".rs"))
    return L.unsupported();
  // The source is read at its own type: cvt.s32.s8 takes the low byte of its register and
  // sign-extends it.
  auto V = L.read(I.Ops[1], ST, S.isSigned());
  if (!V)
    return V.takeError();
  Value *X = *V;
  if (Ftz && S.isFloat() && S.Width == 32)
    X = L.flushSubnormal(X);

  if (S.isInt() && D.isInt()) {
    if (Sat) {
      // Clamp to the destination's range (9.7.9.21: .sat on integer destinations).
      unsigned W = std::max(D.Width, S.Width) + 1;
      Type *WT = B.getIntNTy(W);
      Value *Wide = B.CreateIntCast(X, WT, S.isSigned());
      APInt Lo = D.isSigned() ? APInt::getSignedMinValue(D.Width).sext(W) : APInt(W, 0);
      APInt Hi = D.isSigned() ? APInt::getSignedMaxValue(D.Width).sext(W)
                              : APInt::getMaxValue(D.Width).zext(W);
      Wide = B.CreateBinaryIntrinsic(Intrinsic::smax, Wide, B.getInt(Lo));
      Wide = B.CreateBinaryIntrinsic(Intrinsic::smin, Wide, B.getInt(Hi));
      return L.write(I.Ops[0], B.CreateTrunc(Wide, DT), D.isSigned());
    }
    return L.write(I.Ops[0], B.CreateIntCast(X, DT, S.isSigned()), D.isSigned());
  }
  if (S.isFloat() && D.isInt()) {
    // Float to integer needs an integer rounding mode; out-of-range values saturate and NaN
    // becomes 0 (9.7.9.21), which is what fptosi.sat/fptoui.sat define.
    Intrinsic::ID Round = StringSwitch<Intrinsic::ID>(Rnd)
                              .Case(".rni", Intrinsic::roundeven)
                              .Case(".rzi", Intrinsic::trunc)
                              .Case(".rmi", Intrinsic::floor)
                              .Case(".rpi", Intrinsic::ceil)
                              .Default(Intrinsic::not_intrinsic);
    if (Round == Intrinsic::not_intrinsic || S.Width == 16)
      return L.unsupported();
    Value *R = B.CreateUnaryIntrinsic(Round, X);
    R = B.CreateIntrinsic(D.isSigned() ? Intrinsic::fptosi_sat : Intrinsic::fptoui_sat, {DT, ST},
                          {R});
    return L.write(I.Ops[0], R, D.isSigned());
  }
  if (S.isInt() && D.isFloat()) {
    // sitofp/uitofp round to nearest even, PTX's .rn; other modes come later.
    if (!Rnd.empty() && Rnd != ".rn")
      return L.unsupported("directed rounding is not supported yet");
    Value *R = S.isSigned() ? B.CreateSIToFP(X, DT) : B.CreateUIToFP(X, DT);
    if (Ftz && D.Width == 32)
      R = L.flushSubnormal(R);
    if (Sat)
      R = L.saturate(R);
    return L.write(I.Ops[0], R);
  }
  // Float to float.
  Value *R = X;
  if (D.Width == S.Width) {
    // Rounding to an integral value in the same type (cvt.rni.f32.f32).
    Intrinsic::ID Round = StringSwitch<Intrinsic::ID>(Rnd)
                              .Case(".rni", Intrinsic::roundeven)
                              .Case(".rzi", Intrinsic::trunc)
                              .Case(".rmi", Intrinsic::floor)
                              .Case(".rpi", Intrinsic::ceil)
                              .Default(Intrinsic::not_intrinsic);
    if (Round != Intrinsic::not_intrinsic)
      R = B.CreateUnaryIntrinsic(Round, X);
    else if (!Rnd.empty())
      return L.unsupported();
  } else if (D.Width > S.Width) {
    R = B.CreateFPExt(X, DT); // exact
  } else {
    if (Rnd != ".rn")
      return L.unsupported("directed rounding is not supported yet");
    R = B.CreateFPTrunc(X, DT);
  }
  if (Ftz && D.Width == 32)
    R = L.flushSubnormal(R);
  if (Sat)
    R = L.saturate(R);
  return L.write(I.Ops[0], R);
}

} // namespace reptx::ir
