// Bit-manipulation instructions: bfe, bfi, fns, szext, bmsk, dp4a, dp2a (PTX ISA 9.7.1.17-24),
// prmt (9.7.9.7), lop3 and shf (9.7.8.6/7). Every shift amount and position is bounded first, so
// no LLVM shift is ever poison.
#include "Lifter.h"

#include "llvm/IR/Intrinsics.h"

using namespace llvm;

namespace reptx::ir {

bool isBitFamily(StringRef Op) {
  return Op == "bfe" || Op == "bfi" || Op == "fns" || Op == "szext" || Op == "bmsk" ||
         Op == "dp4a" || Op == "dp2a" || Op == "prmt" || Op == "lop3" || Op == "shf";
}

namespace {

struct Bits {
  FunctionLifter &L;
  IRBuilder<> &B;
  const ptx::Instruction &I;

  Expected<Value *> u32(unsigned Idx) { return L.read(I.Ops[Idx], B.getInt32Ty()); }
  Value *c32(uint32_t V) { return B.getInt32(V); }
  // X << N and X >> N for N in [0, 32]: 0 when N == 32 (LLVM's shifts are poison there).
  Value *shl(Value *X, Value *N) {
    return B.CreateSelect(B.CreateICmpUGE(N, c32(32)), c32(0), B.CreateShl(X, N));
  }

  // bfe (9.7.1.19): extract len = c & 0xff bits at pos = b & 0xff; bits past the msb are the sign
  // bit a[min(pos+len-1, msb)] for signed types (0 when len == 0), zero for unsigned.
  Error bfe(PtxType T) {
    Type *Ty = L.llvmType(T);
    unsigned W = T.Width;
    auto A = L.read(I.Ops[1], Ty), P = u32(2), N = u32(3);
    if (!A || !P || !N)
      return joinErrors(A.takeError(), joinErrors(P.takeError(), N.takeError()));
    Value *Pos = B.CreateZExt(B.CreateAnd(*P, 0xff), Ty);
    Value *Len = B.CreateZExt(B.CreateAnd(*N, 0xff), Ty);
    Value *WC = ConstantInt::get(Ty, W);
    // Shift right by min(pos, W-1)... done in two steps so that pos >= W gives the top bits.
    Value *PosC = B.CreateBinaryIntrinsic(Intrinsic::umin, Pos, ConstantInt::get(Ty, W - 1));
    Value *Shifted = T.isSigned() ? B.CreateAShr(*A, PosC) : B.CreateLShr(*A, PosC);
    if (!T.isSigned())
      Shifted = B.CreateSelect(B.CreateICmpUGE(Pos, WC), ConstantInt::get(Ty, 0), Shifted);
    // Bits that exist: min(len, W - pos) when pos < W. Keep `Keep` low bits, fill the rest with
    // the sign of the last extracted bit (signed) or zero.
    Value *Avail =
        B.CreateSelect(B.CreateICmpUGE(Pos, WC), ConstantInt::get(Ty, 0), B.CreateSub(WC, Pos));
    Value *Keep = B.CreateBinaryIntrinsic(Intrinsic::umin, Len, Avail);
    Value *R;
    if (T.isSigned()) {
      // Sign-extend from Keep bits: (x << (W-Keep)) >>s (W-Keep); Keep == 0 with len > 0 happens
      // only for pos >= W, where Shifted already holds the sign in every bit.
      Value *Sh = B.CreateSub(WC, Keep);
      Value *ShC = B.CreateBinaryIntrinsic(Intrinsic::umin, Sh, ConstantInt::get(Ty, W - 1));
      Value *Ext = B.CreateAShr(B.CreateShl(Shifted, ShC), ShC);
      R = B.CreateSelect(B.CreateICmpEQ(Keep, ConstantInt::get(Ty, 0)), Shifted, Ext);
      R = B.CreateSelect(B.CreateICmpEQ(Len, ConstantInt::get(Ty, 0)), ConstantInt::get(Ty, 0), R);
    } else {
      Value *Mask = B.CreateSelect(
          B.CreateICmpUGE(Keep, WC), ConstantInt::getAllOnesValue(Ty),
          B.CreateSub(B.CreateShl(ConstantInt::get(Ty, 1),
                                  B.CreateBinaryIntrinsic(Intrinsic::umin, Keep,
                                                          ConstantInt::get(Ty, W - 1))),
                      ConstantInt::get(Ty, 1)));
      R = B.CreateAnd(Shifted, Mask);
    }
    return L.write(I.Ops[0], R, T.isSigned());
  }

  // bfi (9.7.1.20): f = b with bits [pos, pos+len) replaced by a's low bits, truncated at the
  // msb; len = d & 0xff, pos = c & 0xff.
  Error bfi(PtxType T) {
    Type *Ty = L.llvmType(T);
    unsigned W = T.Width;
    auto A = L.read(I.Ops[1], Ty), Bv = L.read(I.Ops[2], Ty), P = u32(3), N = u32(4);
    if (!A || !Bv || !P || !N)
      return joinErrors(joinErrors(A.takeError(), Bv.takeError()),
                        joinErrors(P.takeError(), N.takeError()));
    Value *Pos = B.CreateZExt(B.CreateAnd(*P, 0xff), Ty);
    Value *Len = B.CreateZExt(B.CreateAnd(*N, 0xff), Ty);
    Value *WC = ConstantInt::get(Ty, W), *Zero = ConstantInt::get(Ty, 0);
    Value *LenC = B.CreateBinaryIntrinsic(Intrinsic::umin, Len, WC);
    // Low mask of LenC bits, then moved to pos.
    Value *Low = B.CreateSelect(
        B.CreateICmpUGE(LenC, WC), ConstantInt::getAllOnesValue(Ty),
        B.CreateSub(B.CreateShl(ConstantInt::get(Ty, 1),
                                B.CreateBinaryIntrinsic(Intrinsic::umin, LenC,
                                                        ConstantInt::get(Ty, W - 1))),
                    ConstantInt::get(Ty, 1)));
    Value *InRange = B.CreateICmpULT(Pos, WC);
    Value *PosC = B.CreateSelect(InRange, Pos, Zero);
    Value *Mask = B.CreateSelect(InRange, B.CreateShl(Low, PosC), Zero);
    Value *Ins = B.CreateAnd(B.CreateShl(*A, PosC), Mask);
    return L.write(I.Ops[0], B.CreateOr(B.CreateAnd(*Bv, B.CreateNot(Mask)), Ins));
  }

  // szext (9.7.1.21): sign- or zero-extend the low N = b bits of a; N == 0 gives 0; N >= 32 gives a
  // with .clamp, and N mod 32 with .wrap.
  Error szext(PtxType T) {
    auto A = u32(1), Nv = u32(2);
    if (!A || !Nv)
      return joinErrors(A.takeError(), Nv.takeError());
    Value *N = L.hasMod(".clamp") ? B.CreateBinaryIntrinsic(Intrinsic::umin, *Nv, c32(32))
                                  : B.CreateAnd(*Nv, 31);
    Value *Sh = B.CreateSub(c32(32), N); // 32 - N in [0, 32]
    Value *ShC = B.CreateAnd(Sh, 31);    // N == 0 is handled below
    Value *Up = B.CreateShl(*A, ShC);
    Value *R = T.isSigned() ? B.CreateAShr(Up, ShC) : B.CreateLShr(Up, ShC);
    R = B.CreateSelect(B.CreateICmpEQ(N, c32(0)), c32(0), R);
    return L.write(I.Ops[0], R);
  }

  // bmsk (9.7.1.22): a mask of b bits starting at bit a; .clamp treats a >= 32 as an empty mask
  // and b >= 32 as "up to the msb", .wrap takes both modulo 32.
  Error bmsk() {
    auto A = u32(1), Bv = u32(2);
    if (!A || !Bv)
      return joinErrors(A.takeError(), Bv.takeError());
    Value *A1 = B.CreateAnd(*A, 31), *B1 = B.CreateAnd(*Bv, 31);
    Value *Mask0 = B.CreateShl(c32(~0u), A1);
    Value *Sum = B.CreateAdd(A1, B1);
    Value *Overflow = B.CreateICmpUGE(Sum, c32(32));
    if (L.hasMod(".clamp")) {
      Mask0 = B.CreateSelect(B.CreateICmpUGE(*A, c32(32)), c32(0), Mask0);
      Overflow = B.CreateOr(
          Overflow, B.CreateOr(B.CreateICmpUGE(*A, c32(32)), B.CreateICmpUGE(*Bv, c32(32))));
    }
    Value *Mask1 = B.CreateShl(c32(~0u), B.CreateAnd(Sum, 31));
    Mask1 = B.CreateSelect(Overflow, c32(0),
                           B.CreateSelect(B.CreateICmpEQ(B1, c32(0)), c32(~0u), Mask1));
    return L.write(I.Ops[0], B.CreateAnd(Mask0, B.CreateNot(Mask1)));
  }

  // fns (9.7.1.17): the position of the |offset|-th set bit of mask counting from bit base upwards
  // (offset > 0) or downwards (offset < 0); offset 0 tests bit base itself; 0xffffffff if none.
  // Computed without a loop: the candidate bits are those at or above (below) base, and the n-th
  // one is found by clearing the lowest (highest) set bit n-1 times... as a 32-step unrolled scan.
  Error fns() {
    auto Mask = u32(1), Base = u32(2), Off = u32(3);
    if (!Mask || !Base || !Off)
      return joinErrors(joinErrors(Mask.takeError(), Base.takeError()), Off.takeError());
    Value *BaseC = B.CreateAnd(*Base, 31); // base > 31 is undefined behaviour in PTX
    Value *Neg = B.CreateICmpSLT(*Off, c32(0));
    Value *Count = B.CreateSelect(Neg, B.CreateNeg(*Off), *Off); // |offset|
    // Upwards: bits >= base; downwards: mirror the mask so that the scan is upwards too.
    Value *M = B.CreateSelect(Neg, B.CreateUnaryIntrinsic(Intrinsic::bitreverse, *Mask), *Mask);
    Value *Start = B.CreateSelect(Neg, B.CreateSub(c32(31), BaseC), BaseC);
    Value *Cand = B.CreateAnd(M, B.CreateShl(c32(~0u), Start));
    // The n-th set bit of Cand: n <= popc(Cand), else none.
    Value *Pop = B.CreateUnaryIntrinsic(Intrinsic::ctpop, Cand);
    Value *Found = B.CreateAnd(B.CreateICmpNE(Count, c32(0)), B.CreateICmpULE(Count, Pop));
    // Clear the lowest set bit Count-1 times: the scan over at most 31 steps is unrolled with
    // selects (rare instruction; clarity over speed).
    Value *X = Cand;
    for (unsigned K = 1; K < 32; ++K) {
      Value *Clear = B.CreateAnd(X, B.CreateSub(X, c32(1)));
      X = B.CreateSelect(B.CreateICmpUGT(Count, c32(K)), Clear, X);
    }
    Value *Pos = B.CreateZExtOrTrunc(B.CreateBinaryIntrinsic(Intrinsic::cttz, X, B.getTrue()),
                                     B.getInt32Ty());
    Pos = B.CreateSelect(Neg, B.CreateSub(c32(31), Pos), Pos);
    Value *R = B.CreateSelect(Found, Pos, c32(~0u));
    // offset == 0: base itself if its bit is set.
    Value *BitSet = B.CreateICmpNE(B.CreateAnd(B.CreateLShr(*Mask, BaseC), 1), c32(0));
    R = B.CreateSelect(B.CreateICmpEQ(*Off, c32(0)), B.CreateSelect(BitSet, BaseC, c32(~0u)), R);
    return L.write(I.Ops[0], R);
  }

  // dp4a (9.7.1.23): c + the sum of the four byte products; dp2a (9.7.1.24): c + the two
  // products of a's 16-bit halves with b's bytes 0-1 (.lo) or 2-3 (.hi). Signedness per operand.
  Error dp(bool Four) {
    auto Ts = L.types();
    if (Ts.size() != 2)
      return L.unsupported();
    auto A = u32(1), Bv = u32(2), C = u32(3);
    if (!A || !Bv || !C)
      return joinErrors(joinErrors(A.takeError(), Bv.takeError()), C.takeError());
    auto Part = [&](Value *V, unsigned Bit, unsigned Width, bool S) {
      Value *X = B.CreateTrunc(B.CreateLShr(V, Bit), B.getIntNTy(Width));
      return B.CreateIntCast(X, B.getInt32Ty(), S);
    };
    Value *Sum = *C;
    bool SA = Ts[0].isSigned(), SB = Ts[1].isSigned();
    unsigned BBase = (!Four && L.hasMod(".hi")) ? 16 : 0;
    for (unsigned K = 0; K < (Four ? 4u : 2u); ++K) {
      Value *X = Four ? Part(*A, 8 * K, 8, SA) : Part(*A, 16 * K, 16, SA);
      Value *Y = Part(*Bv, BBase + 8 * K, 8, SB);
      Sum = B.CreateAdd(Sum, B.CreateMul(X, Y));
    }
    return L.write(I.Ops[0], Sum);
  }

  // prmt (9.7.9.7): picks four bytes out of the eight of {b, a} (a = bytes 0-3). Generic mode: each
  // selector nibble of c gives a byte index (bits 0-2) and a sign-replicate flag (bit 3). The
  // named modes use c's two low bits to choose a fixed pattern.
  Error prmt() {
    auto A = u32(1), Bv = u32(2), C = u32(3);
    if (!A || !Bv || !C)
      return joinErrors(joinErrors(A.takeError(), Bv.takeError()), C.takeError());
    Value *Pair = B.CreateOr(B.CreateZExt(*A, B.getInt64Ty()),
                             B.CreateShl(B.CreateZExt(*Bv, B.getInt64Ty()), 32));
    auto ByteAt = [&](Value *Idx) { // Idx: i32 in [0, 7]
      Value *Sh = B.CreateZExt(B.CreateShl(Idx, 3), B.getInt64Ty());
      return B.CreateAnd(B.CreateTrunc(B.CreateLShr(Pair, Sh), B.getInt32Ty()), 0xff);
    };
    static const struct {
      const char *Mode;
      uint8_t Sel[4][4]; // [c & 3][result byte 0..3]
    } Modes[] = {
        {".f4e", {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}}},
        {".b4e", {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}}},
        {".rc8", {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}}},
        {".ecl", {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}}},
        {".ecr", {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}}},
        {".rc16", {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}}},
    };
    Value *R = c32(0);
    for (const auto &Md : Modes) {
      if (!L.hasMod(Md.Mode))
        continue;
      // The four patterns as one 32-bit table of nibbles per result byte, indexed by c & 3.
      Value *Sel = B.CreateAnd(*C, 3);
      for (unsigned K = 0; K < 4; ++K) {
        uint32_t Table = 0;
        for (unsigned S = 0; S < 4; ++S)
          Table |= uint32_t(Md.Sel[S][K]) << (8 * S);
        Value *Idx = B.CreateAnd(B.CreateLShr(c32(Table), B.CreateShl(Sel, 3)), 7); // byte index
        R = B.CreateOr(R, B.CreateShl(ByteAt(Idx), 8 * K));
      }
      return L.write(I.Ops[0], R);
    }
    for (unsigned K = 0; K < 4; ++K) {
      Value *Nib = B.CreateAnd(B.CreateLShr(*C, 4 * K), 0xf);
      Value *Byte = ByteAt(B.CreateAnd(Nib, 7));
      // Sign replicate: the byte becomes 0x00 or 0xff from its own top bit.
      Value *Sign =
          B.CreateSelect(B.CreateICmpNE(B.CreateAnd(Byte, 0x80), c32(0)), c32(0xff), c32(0));
      Byte = B.CreateSelect(B.CreateICmpNE(B.CreateAnd(Nib, 8), c32(0)), Sign, Byte);
      R = B.CreateOr(R, B.CreateShl(Byte, 8 * K));
    }
    return L.write(I.Ops[0], R);
  }

  // lop3 (9.7.8.6): any function of three inputs, given as the 8-bit truth table immLut indexed by
  // (a << 2 | b << 1 | c) per bit. The .or/.and form also computes p = (d != 0) BoolOp q.
  Error lop3() {
    bool Pred = I.Ops.size() == 6;
    auto A = u32(1), Bv = u32(2), C = u32(3), Lut = u32(4);
    if (!A || !Bv || !C || !Lut)
      return joinErrors(joinErrors(A.takeError(), Bv.takeError()),
                        joinErrors(C.takeError(), Lut.takeError()));
    Value *R = c32(0);
    for (unsigned K = 0; K < 8; ++K) {
      Value *Term =
          B.CreateAnd(B.CreateAnd((K & 4) ? *A : B.CreateNot(*A), (K & 2) ? *Bv : B.CreateNot(*Bv)),
                      (K & 1) ? *C : B.CreateNot(*C));
      Value *On = B.CreateICmpNE(B.CreateAnd(B.CreateLShr(*Lut, K), 1), c32(0));
      R = B.CreateOr(R, B.CreateSelect(On, Term, c32(0)));
    }
    const ptx::Operand &D = I.Ops[0];
    if (!Pred)
      return L.write(D, R);
    if (D.K != ptx::Operand::Pair)
      return L.unsupported("lop3 with a predicate needs the d|p destination");
    auto Q = L.read(I.Ops[5], B.getInt1Ty());
    if (!Q)
      return Q.takeError();
    Value *Qv = I.Ops[5].Negated ? B.CreateNot(*Q) : *Q;
    Value *NZ = B.CreateICmpNE(R, c32(0));
    Value *P = L.hasMod(".and") ? B.CreateAnd(NZ, Qv) : B.CreateOr(NZ, Qv);
    if (Error E = L.write(D.Elems[0], R))
      return E;
    return L.write(D.Elems[1], P);
  }

  // shf (9.7.8.7): funnel shift of the 64-bit {b, a}; .l returns the high word of the left shift,
  // .r the low word of the right shift; the amount is min(c, 32) with .clamp, c & 31 with .wrap.
  Error shf() {
    auto A = u32(1), Bv = u32(2), C = u32(3);
    if (!A || !Bv || !C)
      return joinErrors(joinErrors(A.takeError(), Bv.takeError()), C.takeError());
    bool Left = L.hasMod(".l");
    Value *R;
    if (L.hasMod(".clamp")) {
      Value *N = B.CreateBinaryIntrinsic(Intrinsic::umin, *C, c32(32));
      Value *Wide = B.CreateOr(B.CreateZExt(*A, B.getInt64Ty()),
                               B.CreateShl(B.CreateZExt(*Bv, B.getInt64Ty()), 32));
      Value *N64 = B.CreateZExt(N, B.getInt64Ty());
      R = Left ? B.CreateTrunc(B.CreateLShr(B.CreateShl(Wide, N64), 32), B.getInt32Ty())
               : B.CreateTrunc(B.CreateLShr(Wide, N64), B.getInt32Ty());
    } else {
      R = B.CreateIntrinsic(Left ? Intrinsic::fshl : Intrinsic::fshr, {B.getInt32Ty()},
                            {*Bv, *A, *C});
    }
    return L.write(I.Ops[0], R);
  }
};

} // namespace

Error liftBits(FunctionLifter &L, const ptx::Instruction &I) {
  Bits X{L, L.B, I};
  StringRef Op = I.Opcode;
  if (Op == "prmt")
    return X.prmt();
  if (Op == "lop3")
    return X.lop3();
  if (Op == "shf")
    return X.shf();
  if (Op == "bmsk")
    return X.bmsk();
  if (Op == "fns")
    return X.fns();
  if (Op == "dp4a" || Op == "dp2a")
    return X.dp(Op == "dp4a");
  auto T = L.type();
  if (!T)
    return T.takeError();
  if (Op == "bfe")
    return X.bfe(*T);
  if (Op == "bfi")
    return X.bfi(*T);
  if (Op == "szext")
    return X.szext(*T);
  return L.unsupported();
}

} // namespace reptx::ir
