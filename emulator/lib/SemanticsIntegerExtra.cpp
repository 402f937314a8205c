// VALU integer operations beyond the plain table of SemanticsVector.cpp: saturating (clamp)
// signed add/sub, 16-bit add/sub whose CLAMP saturates, sum of absolute differences and the
// packed dot products (AMD CDNA3 ISA and RDNA3 ISA, "Vector ALU instructions": V_ADD_I32 /
// V_ADD_NC_I32 with CLAMP, V_ADD_U16 / V_SUB_U16 / V_SUBREV_U16 / V_ADD_I16 / V_SUB_I16 and their
// _NC_ spellings, V_SAD_U32,
// V_DOT4C_I32_I8, V_DOT4_I32_I8, V_DOT4_U32_U8, V_DOT2_I32_I16, V_DOT2_U32_U16, V_DOT4_I32_IU8).
#include "Semantics.h"

namespace reptx::emulator::sem {

namespace {

using u16 = uint16_t;
using i16 = int16_t;

int64_t sext(uint64_t V, unsigned Bits) {
  uint64_t M = uint64_t(1) << (Bits - 1);
  V &= (uint64_t(1) << Bits) - 1;
  return int64_t(V ^ M) - int64_t(M);
}

int32_t satS32(int64_t V) {
  return V > INT32_MAX ? INT32_MAX : V < INT32_MIN ? INT32_MIN : int32_t(V);
}
uint32_t satU32(int64_t V) {
  return V > int64_t(UINT32_MAX) ? UINT32_MAX : V < 0 ? 0 : uint32_t(V);
}

uint32_t lane32(const Wave &W, const Inst &I, unsigned Op, unsigned L) {
  return uint32_t(W.lane(I.Ops[Op], L, 32, NumKind::Unsigned));
}

// Ops: [vdst, src0, src1 (, src2)]. Signed add/sub; with CLAMP the result saturates.
template <bool Sub, bool Signed> Step addSat(Wave &W, const Inst &I) {
  W.forEachActive([&](unsigned L) {
    uint32_t A = lane32(W, I, 1, L), B = lane32(W, I, 2, L);
    int64_t R = Signed ? (Sub ? int64_t(int32_t(A)) - int32_t(B) : int64_t(int32_t(A)) + int32_t(B))
                       : (Sub ? int64_t(A) - int64_t(B) : int64_t(A) + int64_t(B));
    uint32_t V = uint32_t(R);
    if (I.Clamp)
      V = Signed ? uint32_t(satS32(R)) : satU32(R);
    W.Out[L] = V;
  });
  W.commitVop(I, I.Ops[0], W.Out, 32);
  return Step::Next;
}

// Packed dot products: N elements of Bits each from src0 and src1, added to src2 (or, for the
// "c" accumulating VOP2 form, to vdst). Sign per source: fixed by the opcode, or by NEG_LO bit i
// for V_DOT4_I32_IU8 (RDNA3: neg_lo[0]/[1] mark src0/src1 signed).
template <unsigned N, unsigned Bits, int SignMode, bool AccDst> Step dot(Wave &W, const Inst &I) {
  W.forEachActive([&](unsigned L) {
    uint32_t A = lane32(W, I, 1, L), B = lane32(W, I, 2, L);
    uint32_t C = AccDst ? lane32(W, I, 0, L) : lane32(W, I, 3, L);
    bool SA = SignMode == 1 || (SignMode == 2 && (I.NegLo & 1));
    bool SB = SignMode == 1 || (SignMode == 2 && (I.NegLo & 2));
    bool SignedAcc = SignMode != 0;
    int64_t Sum = SignedAcc ? int64_t(int32_t(C)) : int64_t(C);
    for (unsigned K = 0; K < N; ++K) {
      uint64_t X = (A >> (Bits * K)) & ((uint64_t(1) << Bits) - 1);
      uint64_t Y = (B >> (Bits * K)) & ((uint64_t(1) << Bits) - 1);
      Sum += (SA ? sext(X, Bits) : int64_t(X)) * (SB ? sext(Y, Bits) : int64_t(Y));
    }
    uint32_t V = uint32_t(Sum);
    if (I.Clamp)
      V = SignedAcc ? uint32_t(satS32(Sum)) : satU32(Sum);
    W.Out[L] = V;
  });
  W.commitVop(I, I.Ops[0], W.Out, 32);
  return Step::Next;
}

// V_SAD_U32: |src0 - src1| + src2 (unsigned; CLAMP saturates the sum).
Step sadU32(Wave &W, const Inst &I) {
  W.forEachActive([&](unsigned L) {
    uint32_t A = lane32(W, I, 1, L), B = lane32(W, I, 2, L), C = lane32(W, I, 3, L);
    int64_t R = int64_t(A > B ? A - B : B - A) + C;
    W.Out[L] = I.Clamp ? satU32(R) : uint32_t(R);
  });
  W.commitVop(I, I.Ops[0], W.Out, 32);
  return Step::Next;
}

OpDef def(llvm::StringRef Name, Step (*Exec)(Wave &, const Inst &), int8_t NumOperands) {
  OpDef D;
  D.Name = Name;
  D.Exec = Exec;
  D.NumOperands = NumOperands;
  D.ResultBits = 32;
  return D;
}

} // namespace

void addIntegerExtraOps(TableBuilder &T) {
  T.add(def("v_add_i32", &addSat<false, true>, 3));
  T.add(def("v_sub_i32", &addSat<true, true>, 3));
  T.alias("v_add_nc_i32", "v_add_i32");
  T.alias("v_sub_nc_i32", "v_sub_i32");
  // 16-bit add/sub (op_sel picks the operands' halves): CLAMP saturates to the unsigned or
  // signed 16-bit range.
  T.add(vopSat<+[](u16 A, u16 B) { return int64_t(A) + B; }, 0, 0xffff, 16>("v_add_u16"));
  T.add(vopSat<+[](u16 A, u16 B) { return int64_t(A) - B; }, 0, 0xffff, 16>("v_sub_u16"));
  T.add(vopSat<+[](u16 A, u16 B) { return int64_t(B) - A; }, 0, 0xffff, 16>("v_subrev_u16"));
  T.add(
      vopSat<+[](i16 A, i16 B) { return int64_t(A) + B; }, INT16_MIN, INT16_MAX, 16>("v_add_i16"));
  T.add(
      vopSat<+[](i16 A, i16 B) { return int64_t(A) - B; }, INT16_MIN, INT16_MAX, 16>("v_sub_i16"));
  T.alias("v_add_nc_u16", "v_add_u16");
  T.alias("v_sub_nc_u16", "v_sub_u16");
  T.alias("v_add_nc_i16", "v_add_i16");
  T.alias("v_sub_nc_i16", "v_sub_i16");
  T.add(def("v_sad_u32", &sadU32, 4));
  T.add(def("v_dot4c_i32_i8", &dot<4, 8, 1, true>, 3));
  T.add(def("v_dot4_i32_i8", &dot<4, 8, 1, false>, 4));
  T.add(def("v_dot4_u32_u8", &dot<4, 8, 0, false>, 4));
  T.add(def("v_dot2_i32_i16", &dot<2, 16, 1, false>, 4));
  T.add(def("v_dot2_u32_u16", &dot<2, 16, 0, false>, 4));
  T.add(def("v_dot4_i32_iu8", &dot<4, 8, 2, false>, 4));
}

} // namespace reptx::emulator::sem
