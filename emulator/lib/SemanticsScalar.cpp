// Scalar ALU and program-flow semantics: SOP1, SOP2, SOPK, SOPC and SOPP, EXEC-mask save/restore
// and branches. Definitions follow the AMD "Vega" (GFX9), RDNA3 (GFX11) and RDNA4 (GFX12)
// instruction set architecture manuals, section "Scalar ALU Operations" / "SOP*".
#include "Semantics.h"

#include <bit>
#include <climits>

namespace reptx::emulator::sem {

namespace {

using u32 = uint32_t;
using i32 = int32_t;
using u64 = uint64_t;
using i64 = int64_t;
using u16 = uint16_t;
using i16 = int16_t;

constexpr SccMode NZ = SccMode::NonZero;

template <typename T> T bfe(T X, u32 Offset, u32 Width) {
  constexpr u32 Bits = sizeof(T) * 8;
  Offset &= Bits - 1;
  if (Width == 0)
    return 0;
  using U = std::make_unsigned_t<T>;
  U V = U(X) >> Offset;
  if (Width >= Bits)
    return T(V);
  U Mask = (U(1) << Width) - 1;
  V &= Mask;
  if constexpr (std::is_signed_v<T>)
    if (V >> (Width - 1))
      V |= ~Mask;
  return T(V);
}

template <typename T> i32 findFirstOne(T X) { return X ? i32(std::countr_zero(X)) : -1; }
template <typename T> i32 findLastOne(T X) { return X ? i32(std::countl_zero(X)) : -1; }
i32 countSignBits(i32 X) {
  u32 Y = u32(X ^ (X >> 31));
  return Y ? i32(std::countl_zero(Y)) : -1;
}

// --- handlers that read or write more than their operands

template <unsigned Bytes> Step cselect(Wave &W, const Inst &I) {
  const Operand &Src = W.Scc ? I.Ops[1] : I.Ops[2];
  W.writeScalar(I.Ops[0], W.scalar(Src, Bytes * 8));
  return Step::Next;
}

template <unsigned Bytes> Step cmov(Wave &W, const Inst &I) {
  if (W.Scc)
    W.writeScalar(I.Ops[0], W.scalar(I.Ops[1], Bytes * 8));
  return Step::Next;
}

Step cmovk(Wave &W, const Inst &I) {
  if (W.Scc)
    W.writeScalar(I.Ops[0], u64(i64(i16(W.scalar(I.Ops[1], 16)))));
  return Step::Next;
}

Step addc(Wave &W, const Inst &I) {
  u64 R = u64(u32(W.scalar(I.Ops[1], 32))) + u32(W.scalar(I.Ops[2], 32)) + (W.Scc ? 1 : 0);
  W.writeScalar(I.Ops[0], u32(R));
  W.Scc = R >> 32;
  return Step::Next;
}

Step subb(Wave &W, const Inst &I) {
  u64 A = u32(W.scalar(I.Ops[1], 32)), B = u32(W.scalar(I.Ops[2], 32)), C = W.Scc ? 1 : 0;
  W.writeScalar(I.Ops[0], u32(A - B - C));
  W.Scc = B + C > A;
  return Step::Next;
}

// EXEC save/restore: D = EXEC, EXEC = F(S0, EXEC), SCC = (EXEC != 0); the *_wrexec forms write
// the new EXEC to D instead.
template <u64 (*F)(u64, u64), bool WriteNew> Step saveexec(Wave &W, const Inst &I) {
  unsigned Bits = I.Ops[0].Dwords * 32;
  u64 Mask = Bits == 64 ? ~u64(0) : 0xffffffffull;
  u64 Src = W.scalar(I.Ops[1], Bits) & Mask;
  u64 Old = W.exec() & Mask;
  u64 New = F(Src, Old) & Mask;
  if (Bits == 64)
    W.setExec(New);
  else
    W.S[sreg::ExecLo] = u32(New);
  W.writeScalar(I.Ops[0], WriteNew ? New : Old);
  W.Scc = New != 0;
  return Step::Next;
}

template <u64 (*F)(u64, u64), bool WriteNew = false>
void addSaveexec(TableBuilder &T, llvm::StringRef Name32, llvm::StringRef Name64) {
  T.add(custom(Name32, &saveexec<F, WriteNew>, 2));
  T.add(custom(Name64, &saveexec<F, WriteNew>, 2));
}

Step jumpTo(Wave &W, const Inst &I) {
  if (I.Target == UINT32_MAX)
    return W.fault(FaultKind::InvalidProgramCounter,
                   "branch target " +
                       std::to_string(int64_t(I.Address + I.Size) + int64_t(I.Imm) * 4) +
                       " is not an instruction");
  W.Pc = I.Target;
  return Step::Jump;
}

enum class Cond { Always, Scc0, Scc1, Vccz, Vccnz, Execz, Execnz };

template <Cond C> Step branch(Wave &W, const Inst &I) {
  bool Taken = false;
  switch (C) {
  case Cond::Always:
    Taken = true;
    break;
  case Cond::Scc0:
    Taken = !W.Scc;
    break;
  case Cond::Scc1:
    Taken = W.Scc;
    break;
  case Cond::Vccz:
    Taken = W.vcc() == 0;
    break;
  case Cond::Vccnz:
    Taken = W.vcc() != 0;
    break;
  case Cond::Execz:
    Taken = W.exec() == 0;
    break;
  case Cond::Execnz:
    Taken = W.exec() != 0;
    break;
  }
  return Taken ? jumpTo(W, I) : Step::Next;
}

template <Cond C> OpDef branchDef(llvm::StringRef Name) {
  OpDef D = custom(Name, &branch<C>, 1);
  D.IsBranch = true;
  return D;
}

Step jumpToDeviceAddress(Wave &W, u64 Target) {
  std::optional<uint32_t> Index = W.Ctx->Prog->indexOf(Target - W.Ctx->LoadBase);
  if (!Index)
    return W.fault(FaultKind::InvalidProgramCounter,
                   "jump to an address that is not an instruction", std::nullopt, Target);
  W.Pc = *Index;
  return Step::Jump;
}

Step getpc(Wave &W, const Inst &I) {
  W.writeScalar(I.Ops[0], W.deviceAddress(I.Address + I.Size));
  return Step::Next;
}

Step setpc(Wave &W, const Inst &I) { return jumpToDeviceAddress(W, W.scalar(I.Ops[0], 64)); }

Step swappc(Wave &W, const Inst &I) {
  u64 Target = W.scalar(I.Ops[1], 64);
  W.writeScalar(I.Ops[0], W.deviceAddress(I.Address + I.Size));
  return jumpToDeviceAddress(W, Target);
}

Step call(Wave &W, const Inst &I) {
  W.writeScalar(I.Ops[0], W.deviceAddress(I.Address + I.Size));
  return jumpTo(W, I);
}

Step nop(Wave &, const Inst &) { return Step::Next; }
Step endpgm(Wave &, const Inst &) { return Step::End; }
Step barrier(Wave &, const Inst &) { return Step::Barrier; }
Step trap(Wave &W, const Inst &) { return W.fault(FaultKind::Trap, "the wave executed a trap"); }
Step codeEnd(Wave &W, const Inst &) {
  return W.fault(FaultKind::InvalidProgramCounter, "execution reached s_code_end padding");
}

OpDef noOp(llvm::StringRef Name) {
  OpDef D = custom(Name, &nop);
  D.IgnoreOperands = true;
  return D;
}

} // namespace

void addScalarOps(TableBuilder &T) {
  // ---- SOP2
  T.add(sop<+[](u32 A, u32 B) {
    return WithScc<u32>{A + B, u64(A) + B > 0xffffffffull};
  }>("s_add_u32"));
  T.add(sop<+[](u32 A, u32 B) { return WithScc<u32>{A - B, B > A}; }>("s_sub_u32"));
  T.add(sop<+[](i32 A, i32 B) {
    i32 R = i32(u32(A) + u32(B));
    return WithScc<i32>{R, ((A ^ R) & (B ^ R)) < 0};
  }>("s_add_i32"));
  T.add(sop<+[](i32 A, i32 B) {
    i32 R = i32(u32(A) - u32(B));
    return WithScc<i32>{R, ((A ^ B) & (A ^ R)) < 0};
  }>("s_sub_i32"));
  T.add(custom("s_addc_u32", &addc, 3));
  T.add(custom("s_subb_u32", &subb, 3));
  T.add(sop<+[](i32 A, i32 B) { return WithScc<i32>{A < B ? A : B, A < B}; }>("s_min_i32"));
  T.add(sop<+[](u32 A, u32 B) { return WithScc<u32>{A < B ? A : B, A < B}; }>("s_min_u32"));
  T.add(sop<+[](i32 A, i32 B) { return WithScc<i32>{A > B ? A : B, A > B}; }>("s_max_i32"));
  T.add(sop<+[](u32 A, u32 B) { return WithScc<u32>{A > B ? A : B, A > B}; }>("s_max_u32"));
  T.add(custom("s_cselect_b32", &cselect<4>, 3));
  T.add(custom("s_cselect_b64", &cselect<8>, 3));
  T.add(sop<+[](u32 A, u32 B) { return A & B; }, NZ>("s_and_b32"));
  T.add(sop<+[](u64 A, u64 B) { return A & B; }, NZ>("s_and_b64"));
  T.add(sop<+[](u32 A, u32 B) { return A | B; }, NZ>("s_or_b32"));
  T.add(sop<+[](u64 A, u64 B) { return A | B; }, NZ>("s_or_b64"));
  T.add(sop<+[](u32 A, u32 B) { return A ^ B; }, NZ>("s_xor_b32"));
  T.add(sop<+[](u64 A, u64 B) { return A ^ B; }, NZ>("s_xor_b64"));
  T.add(sop<+[](u32 A, u32 B) { return A & ~B; }, NZ>("s_andn2_b32"));
  T.add(sop<+[](u64 A, u64 B) { return A & ~B; }, NZ>("s_andn2_b64"));
  T.add(sop<+[](u32 A, u32 B) { return A | ~B; }, NZ>("s_orn2_b32"));
  T.add(sop<+[](u64 A, u64 B) { return A | ~B; }, NZ>("s_orn2_b64"));
  T.add(sop<+[](u32 A, u32 B) { return ~(A & B); }, NZ>("s_nand_b32"));
  T.add(sop<+[](u64 A, u64 B) { return ~(A & B); }, NZ>("s_nand_b64"));
  T.add(sop<+[](u32 A, u32 B) { return ~(A | B); }, NZ>("s_nor_b32"));
  T.add(sop<+[](u64 A, u64 B) { return ~(A | B); }, NZ>("s_nor_b64"));
  T.add(sop<+[](u32 A, u32 B) { return ~(A ^ B); }, NZ>("s_xnor_b32"));
  T.add(sop<+[](u64 A, u64 B) { return ~(A ^ B); }, NZ>("s_xnor_b64"));
  T.add(sop<+[](u32 A, u32 B) { return A << (B & 31); }, NZ>("s_lshl_b32"));
  T.add(sop<+[](u64 A, u32 B) { return A << (B & 63); }, NZ>("s_lshl_b64"));
  T.add(sop<+[](u32 A, u32 B) { return A >> (B & 31); }, NZ>("s_lshr_b32"));
  T.add(sop<+[](u64 A, u32 B) { return A >> (B & 63); }, NZ>("s_lshr_b64"));
  T.add(sop<+[](i32 A, u32 B) { return A >> (B & 31); }, NZ>("s_ashr_i32"));
  T.add(sop<+[](i64 A, u32 B) { return A >> (B & 63); }, NZ>("s_ashr_i64"));
  T.add(sop<+[](u32 A, u32 B) { return u32((u64(1) << (A & 31)) - 1) << (B & 31); }>("s_bfm_b32"));
  T.add(sop<+[](u32 A, u32 B) {
    u64 Mask = (A & 63) == 0 ? 0 : (~u64(0) >> (64 - (A & 63)));
    return Mask << (B & 63);
  }>("s_bfm_b64"));
  T.add(sop<+[](u32 A, u32 B) { return A * B; }>("s_mul_i32"));
  T.add(sop<+[](u32 A, u32 B) { return u32((u64(A) * B) >> 32); }>("s_mul_hi_u32"));
  T.add(sop<+[](i32 A, i32 B) { return i32((i64(A) * B) >> 32); }>("s_mul_hi_i32"));
  T.add(sop<+[](u32 A, u32 B) { return bfe<u32>(A, B & 31, (B >> 16) & 0x7f); }, NZ>("s_bfe_u32"));
  T.add(sop<+[](i32 A, u32 B) { return bfe<i32>(A, B & 31, (B >> 16) & 0x7f); }, NZ>("s_bfe_i32"));
  T.add(sop<+[](u64 A, u32 B) { return bfe<u64>(A, B & 63, (B >> 16) & 0x7f); }, NZ>("s_bfe_u64"));
  T.add(sop<+[](i64 A, u32 B) { return bfe<i64>(A, B & 63, (B >> 16) & 0x7f); }, NZ>("s_bfe_i64"));
  T.add(sop<+[](i32 A, i32 B) {
    i64 D = i64(A) - B;
    return u32(D < 0 ? -D : D);
  },
            NZ>("s_absdiff_i32"));
  T.add(sop<+[](u32 A, u32 B) {
    u64 R = (u64(A) << 1) + B;
    return WithScc<u32>{u32(R), (R >> 32) != 0};
  }>("s_lshl1_add_u32"));
  T.add(sop<+[](u32 A, u32 B) {
    u64 R = (u64(A) << 2) + B;
    return WithScc<u32>{u32(R), (R >> 32) != 0};
  }>("s_lshl2_add_u32"));
  T.add(sop<+[](u32 A, u32 B) {
    u64 R = (u64(A) << 3) + B;
    return WithScc<u32>{u32(R), (R >> 32) != 0};
  }>("s_lshl3_add_u32"));
  T.add(sop<+[](u32 A, u32 B) {
    u64 R = (u64(A) << 4) + B;
    return WithScc<u32>{u32(R), (R >> 32) != 0};
  }>("s_lshl4_add_u32"));
  T.add(sop<+[](u32 A, u32 B) { return (B << 16) | (A & 0xffff); }>("s_pack_ll_b32_b16"));
  T.add(sop<+[](u32 A, u32 B) { return (B & 0xffff0000u) | (A & 0xffff); }>("s_pack_lh_b32_b16"));
  T.add(sop<+[](u32 A, u32 B) { return (B & 0xffff0000u) | (A >> 16); }>("s_pack_hh_b32_b16"));
  T.add(sop<+[](u32 A, u32 B) { return (B << 16) | (A >> 16); }>("s_pack_hl_b32_b16"));

  // ---- SOP1
  T.add(sop<+[](u32 A) { return A; }>("s_mov_b32"));
  T.add(sop<+[](u64 A) { return A; }>("s_mov_b64"));
  T.add(custom("s_cmov_b32", &cmov<4>, 2));
  T.add(custom("s_cmov_b64", &cmov<8>, 2));
  T.add(sop<+[](u32 A) { return ~A; }, NZ>("s_not_b32"));
  T.add(sop<+[](u64 A) { return ~A; }, NZ>("s_not_b64"));
  T.add(sop<+[](u32 A) { return __builtin_bitreverse32(A); }>("s_brev_b32"));
  T.add(sop<+[](u64 A) { return __builtin_bitreverse64(A); }>("s_brev_b64"));
  T.add(sop<+[](u32 A) { return u32(std::popcount(~A)); }, NZ>("s_bcnt0_i32_b32"));
  T.add(sop<+[](u64 A) { return u32(std::popcount(~A)); }, NZ>("s_bcnt0_i32_b64"));
  T.add(sop<+[](u32 A) { return u32(std::popcount(A)); }, NZ>("s_bcnt1_i32_b32"));
  T.add(sop<+[](u64 A) { return u32(std::popcount(A)); }, NZ>("s_bcnt1_i32_b64"));
  T.add(sop<+[](u32 A) { return findFirstOne(A); }>("s_ff1_i32_b32"));
  T.add(sop<+[](u64 A) { return findFirstOne(A); }>("s_ff1_i32_b64"));
  T.add(sop<+[](u32 A) { return findFirstOne(~A); }>("s_ff0_i32_b32"));
  T.add(sop<+[](u64 A) { return findFirstOne(~A); }>("s_ff0_i32_b64"));
  T.add(sop<+[](u32 A) { return findLastOne(A); }>("s_flbit_i32_b32"));
  T.add(sop<+[](u64 A) { return findLastOne(A); }>("s_flbit_i32_b64"));
  T.add(sop<+[](i32 A) { return countSignBits(A); }>("s_flbit_i32"));
  T.add(sop<+[](u32 A) { return i32(int8_t(A)); }>("s_sext_i32_i8"));
  T.add(sop<+[](u32 A) { return i32(int16_t(A)); }>("s_sext_i32_i16"));
  T.add(sop<+[](i32 A) { return A < 0 ? u32(0) - u32(A) : u32(A); }, NZ>("s_abs_i32"));
  T.add(sopAcc<+[](u32 D, u32 A) { return D & ~(1u << (A & 31)); }>("s_bitset0_b32"));
  T.add(sopAcc<+[](u32 D, u32 A) { return D | (1u << (A & 31)); }>("s_bitset1_b32"));
  T.add(custom("s_getpc_b64", &getpc, 1));
  T.add(custom("s_setpc_b64", &setpc, 1));
  T.add(custom("s_swappc_b64", &swappc, 2));

  addSaveexec<+[](u64 S, u64 E) { return S & E; }>(T, "s_and_saveexec_b32", "s_and_saveexec_b64");
  addSaveexec<+[](u64 S, u64 E) { return S | E; }>(T, "s_or_saveexec_b32", "s_or_saveexec_b64");
  addSaveexec<+[](u64 S, u64 E) { return S ^ E; }>(T, "s_xor_saveexec_b32", "s_xor_saveexec_b64");
  addSaveexec<+[](u64 S, u64 E) { return S & ~E; }>(T, "s_andn2_saveexec_b32",
                                                    "s_andn2_saveexec_b64");
  addSaveexec<+[](u64 S, u64 E) { return S | ~E; }>(T, "s_orn2_saveexec_b32",
                                                    "s_orn2_saveexec_b64");
  addSaveexec<+[](u64 S, u64 E) { return ~(S & E); }>(T, "s_nand_saveexec_b32",
                                                      "s_nand_saveexec_b64");
  addSaveexec<+[](u64 S, u64 E) { return ~(S | E); }>(T, "s_nor_saveexec_b32",
                                                      "s_nor_saveexec_b64");
  addSaveexec<+[](u64 S, u64 E) { return ~(S ^ E); }>(T, "s_xnor_saveexec_b32",
                                                      "s_xnor_saveexec_b64");
  addSaveexec<+[](u64 S, u64 E) { return ~S & E; }>(T, "s_andn1_saveexec_b32",
                                                    "s_andn1_saveexec_b64");
  addSaveexec<+[](u64 S, u64 E) { return ~S | E; }>(T, "s_orn1_saveexec_b32",
                                                    "s_orn1_saveexec_b64");
  addSaveexec<+[](u64 S, u64 E) { return ~S & E; }, true>(T, "s_andn1_wrexec_b32",
                                                          "s_andn1_wrexec_b64");
  addSaveexec<+[](u64 S, u64 E) { return S & ~E; }, true>(T, "s_andn2_wrexec_b32",
                                                          "s_andn2_wrexec_b64");

  // ---- SOPK (the 16-bit immediate is sign- or zero-extended as the operation's type says)
  T.add(sop<+[](i16 K) { return i32(K); }>("s_movk_i32"));
  T.add(custom("s_cmovk_i32", &cmovk, 2));
  T.add(sopAcc<+[](i32 D, i16 K) {
    i32 R = i32(u32(D) + u32(i32(K)));
    return WithScc<i32>{R, ((D ^ R) & (i32(K) ^ R)) < 0};
  }>("s_addk_i32"));
  T.add(sopAcc<+[](u32 D, i16 K) { return D * u32(i32(K)); }>("s_mulk_i32"));
  T.add(sopc<+[](i32 A, i16 K) { return A == K; }>("s_cmpk_eq_i32"));
  T.add(sopc<+[](i32 A, i16 K) { return A != K; }>("s_cmpk_lg_i32"));
  T.add(sopc<+[](i32 A, i16 K) { return A > K; }>("s_cmpk_gt_i32"));
  T.add(sopc<+[](i32 A, i16 K) { return A >= K; }>("s_cmpk_ge_i32"));
  T.add(sopc<+[](i32 A, i16 K) { return A < K; }>("s_cmpk_lt_i32"));
  T.add(sopc<+[](i32 A, i16 K) { return A <= K; }>("s_cmpk_le_i32"));
  T.add(sopc<+[](u32 A, u16 K) { return A == K; }>("s_cmpk_eq_u32"));
  T.add(sopc<+[](u32 A, u16 K) { return A != K; }>("s_cmpk_lg_u32"));
  T.add(sopc<+[](u32 A, u16 K) { return A > K; }>("s_cmpk_gt_u32"));
  T.add(sopc<+[](u32 A, u16 K) { return A >= K; }>("s_cmpk_ge_u32"));
  T.add(sopc<+[](u32 A, u16 K) { return A < K; }>("s_cmpk_lt_u32"));
  T.add(sopc<+[](u32 A, u16 K) { return A <= K; }>("s_cmpk_le_u32"));
  {
    OpDef D = custom("s_call_b64", &call, 2);
    D.IsBranch = true;
    T.add(D);
  }

  // ---- SOPC
  T.add(sopc<+[](u32 A, u32 B) { return A == B; }>("s_cmp_eq_u32"));
  T.add(sopc<+[](u32 A, u32 B) { return A != B; }>("s_cmp_lg_u32"));
  T.add(sopc<+[](u32 A, u32 B) { return A > B; }>("s_cmp_gt_u32"));
  T.add(sopc<+[](u32 A, u32 B) { return A >= B; }>("s_cmp_ge_u32"));
  T.add(sopc<+[](u32 A, u32 B) { return A < B; }>("s_cmp_lt_u32"));
  T.add(sopc<+[](u32 A, u32 B) { return A <= B; }>("s_cmp_le_u32"));
  T.add(sopc<+[](i32 A, i32 B) { return A == B; }>("s_cmp_eq_i32"));
  T.add(sopc<+[](i32 A, i32 B) { return A != B; }>("s_cmp_lg_i32"));
  T.add(sopc<+[](i32 A, i32 B) { return A > B; }>("s_cmp_gt_i32"));
  T.add(sopc<+[](i32 A, i32 B) { return A >= B; }>("s_cmp_ge_i32"));
  T.add(sopc<+[](i32 A, i32 B) { return A < B; }>("s_cmp_lt_i32"));
  T.add(sopc<+[](i32 A, i32 B) { return A <= B; }>("s_cmp_le_i32"));
  T.add(sopc<+[](u64 A, u64 B) { return A == B; }>("s_cmp_eq_u64"));
  T.add(sopc<+[](u64 A, u64 B) { return A != B; }>("s_cmp_lg_u64"));
  T.add(sopc<+[](u32 A, u32 B) { return ((A >> (B & 31)) & 1) == 0; }>("s_bitcmp0_b32"));
  T.add(sopc<+[](u32 A, u32 B) { return ((A >> (B & 31)) & 1) == 1; }>("s_bitcmp1_b32"));
  T.add(sopc<+[](u64 A, u32 B) { return ((A >> (B & 63)) & 1) == 0; }>("s_bitcmp0_b64"));
  T.add(sopc<+[](u64 A, u32 B) { return ((A >> (B & 63)) & 1) == 1; }>("s_bitcmp1_b64"));

  // ---- SOPP: program flow
  T.add(custom("s_endpgm", &endpgm));
  T.add(branchDef<Cond::Always>("s_branch"));
  T.add(branchDef<Cond::Scc0>("s_cbranch_scc0"));
  T.add(branchDef<Cond::Scc1>("s_cbranch_scc1"));
  T.add(branchDef<Cond::Vccz>("s_cbranch_vccz"));
  T.add(branchDef<Cond::Vccnz>("s_cbranch_vccnz"));
  T.add(branchDef<Cond::Execz>("s_cbranch_execz"));
  T.add(branchDef<Cond::Execnz>("s_cbranch_execnz"));
  // s_barrier; on GFX12 the barrier is split into signal and wait. Modelling the signal as the
  // whole barrier is a legal schedule of the instructions in between.
  {
    OpDef D = custom("s_barrier", &barrier);
    D.IgnoreOperands = true;
    T.add(D);
    D.Name = "s_barrier_signal";
    T.add(D);
  }
  {
    OpDef D = custom("s_trap", &trap);
    D.IgnoreOperands = true;
    T.add(D);
  }
  {
    OpDef D = custom("s_code_end", &codeEnd);
    D.IgnoreOperands = true;
    T.add(D);
  }
  // Waits, hints, cache maintenance and messages: no effect when every access completes before
  // the next instruction and memory is coherent.
  for (llvm::StringRef Name : {"s_nop",
                               "s_waitcnt",
                               "s_waitcnt_vscnt",
                               "s_waitcnt_vmcnt",
                               "s_waitcnt_expcnt",
                               "s_waitcnt_lgkmcnt",
                               "s_waitcnt_depctr",
                               "s_wait_loadcnt",
                               "s_wait_storecnt",
                               "s_wait_samplecnt",
                               "s_wait_bvhcnt",
                               "s_wait_expcnt",
                               "s_wait_dscnt",
                               "s_wait_kmcnt",
                               "s_wait_loadcnt_dscnt",
                               "s_wait_storecnt_dscnt",
                               "s_wait_alu",
                               "s_wait_idle",
                               "s_barrier_wait",
                               "s_delay_alu",
                               "s_clause",
                               "s_sleep",
                               "s_setprio",
                               "s_sendmsg",
                               "s_icache_inv",
                               "s_dcache_inv",
                               "s_dcache_wb",
                               "s_gl1_inv",
                               "s_inst_prefetch",
                               "s_set_inst_prefetch_distance",
                               "s_ttracedata",
                               "s_version",
                               "buffer_gl0_inv",
                               "buffer_gl1_inv",
                               "buffer_wbinvl1",
                               "buffer_wbinvl1_vol",
                               "buffer_inv",
                               "buffer_wbl2",
                               "buffer_invl2",
                               "global_inv",
                               "global_wb",
                               "global_wbinv"})
    T.add(noOp(Name));

  // GFX10+/GFX11+/GFX12 spellings
  T.alias("s_and_not1_b32", "s_andn2_b32");
  T.alias("s_and_not1_b64", "s_andn2_b64");
  T.alias("s_or_not1_b32", "s_orn2_b32");
  T.alias("s_or_not1_b64", "s_orn2_b64");
  T.alias("s_and_not1_saveexec_b32", "s_andn2_saveexec_b32");
  T.alias("s_and_not1_saveexec_b64", "s_andn2_saveexec_b64");
  T.alias("s_or_not1_saveexec_b32", "s_orn2_saveexec_b32");
  T.alias("s_or_not1_saveexec_b64", "s_orn2_saveexec_b64");
  T.alias("s_and_not0_saveexec_b32", "s_andn1_saveexec_b32");
  T.alias("s_and_not0_saveexec_b64", "s_andn1_saveexec_b64");
  T.alias("s_or_not0_saveexec_b32", "s_orn1_saveexec_b32");
  T.alias("s_or_not0_saveexec_b64", "s_orn1_saveexec_b64");
  T.alias("s_and_not0_wrexec_b32", "s_andn1_wrexec_b32");
  T.alias("s_and_not0_wrexec_b64", "s_andn1_wrexec_b64");
  T.alias("s_and_not1_wrexec_b32", "s_andn2_wrexec_b32");
  T.alias("s_and_not1_wrexec_b64", "s_andn2_wrexec_b64");
  T.alias("s_ctz_i32_b32", "s_ff1_i32_b32");
  T.alias("s_ctz_i32_b64", "s_ff1_i32_b64");
  T.alias("s_clz_i32_u32", "s_flbit_i32_b32");
  T.alias("s_clz_i32_u64", "s_flbit_i32_b64");
  T.alias("s_cls_i32", "s_flbit_i32");
  T.alias("s_add_co_u32", "s_add_u32");
  T.alias("s_sub_co_u32", "s_sub_u32");
  T.alias("s_add_co_i32", "s_add_i32");
  T.alias("s_sub_co_i32", "s_sub_i32");
  T.alias("s_add_co_ci_u32", "s_addc_u32");
  T.alias("s_sub_co_ci_u32", "s_subb_u32");
  T.alias("s_addk_co_i32", "s_addk_i32");
  T.alias("s_barrier_signal_isfirst", "s_barrier_signal");
}

} // namespace reptx::emulator::sem
