// The decoder's reading of LLVM's printed AMDGPU syntax into the internal instruction form:
// register ranges, constants, literals, modifiers, branch offsets, VOPD halves.
#include "Decoder.h"
#include "TestUtil.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Object/ObjectFile.h"

#include <gtest/gtest.h>

using namespace reptx::emulator;

namespace {

struct Parsed {
  Inst I;
  std::vector<Inst> Extra;
  std::string Mnemonic;
};

Parsed parse(llvm::StringRef Text, unsigned WaveSize = 64) {
  Parsed P;
  P.Mnemonic = parseInstruction(Text, WaveSize, P.I, P.Extra);
  return P;
}

TEST(Decoder, RegistersConstantsAndModifiers) {
  Parsed P = parse("v_add_f32_e64 v0, -|v1|, s3 clamp div:2");
  ASSERT_NE(P.I.Op, nullptr);
  EXPECT_EQ(P.I.Op->Name, "v_add_f32");
  EXPECT_EQ(P.Mnemonic, "v_add_f32_e64");
  EXPECT_TRUE(P.I.Problem.empty()) << P.I.Problem;
  ASSERT_EQ(P.I.NumOps, 3u);
  EXPECT_EQ(P.I.Ops[0].Kind, OperandKind::Vgpr);
  EXPECT_EQ(P.I.Ops[1].Kind, OperandKind::Vgpr);
  EXPECT_EQ(P.I.Ops[1].Reg, 1u);
  EXPECT_TRUE(P.I.Ops[1].Neg);
  EXPECT_TRUE(P.I.Ops[1].Abs);
  EXPECT_EQ(P.I.Ops[2].Kind, OperandKind::Sgpr);
  EXPECT_EQ(P.I.Ops[2].Reg, 3u);
  EXPECT_TRUE(P.I.Clamp);
  EXPECT_EQ(P.I.Omod, 3u);

  P = parse("v_lshl_add_u64 v[4:5], v[2:3], 2, s[6:7]");
  ASSERT_EQ(P.I.NumOps, 4u);
  EXPECT_EQ(P.I.Ops[0].Reg, 4u);
  EXPECT_EQ(P.I.Ops[0].Dwords, 2u);
  EXPECT_EQ(P.I.Ops[2].Kind, OperandKind::IntConst);
  EXPECT_EQ(P.I.Ops[2].Value, 2);
  EXPECT_EQ(P.I.Ops[3].Dwords, 2u);

  P = parse("v_cmp_lt_f32_e64 s[4:5], 0.5, -4.0");
  EXPECT_EQ(P.I.Ops[1].Kind, OperandKind::FloatConst);
  EXPECT_EQ(P.I.Ops[1].Value, int64_t(FloatConstValue::Half));
  EXPECT_EQ(P.I.Ops[2].Value, int64_t(FloatConstValue::NegFour));

  P = parse("v_and_b32_e32 v2, 0x1ffffff8, v2");
  EXPECT_EQ(P.I.Ops[1].Kind, OperandKind::Literal);
  EXPECT_EQ(P.I.Ops[1].Value, 0x1ffffff8);
  P = parse("v_cndmask_b32_e32 v1, lit(0x40000000), v2, vcc");
  EXPECT_EQ(P.I.Ops[1].Kind, OperandKind::Literal);
  EXPECT_EQ(P.I.Ops[3].Reg, sreg::VccLo);
  EXPECT_EQ(P.I.Ops[3].Dwords, 2u);
  P = parse("v_add_nc_u32_e32 v3, -1, v3", 32);
  EXPECT_EQ(P.I.Ops[1].Kind, OperandKind::IntConst);
  EXPECT_EQ(P.I.Ops[1].Value, -1);
  P = parse("v_mul_lo_u16 v4.l, 0xaaab, v2.h", 32);
  EXPECT_EQ(P.I.Ops[0].Half, 1u);
  EXPECT_EQ(P.I.Ops[2].Half, 2u);
  P = parse("s_and_saveexec_b32 s2, exec_lo", 32);
  EXPECT_EQ(P.I.Ops[1].Reg, sreg::ExecLo);
  EXPECT_EQ(P.I.Ops[1].Dwords, 1u);
  P = parse("v_mov_b32_e32 v0, src_shared_base");
  EXPECT_EQ(P.I.Ops[1].Kind, OperandKind::Special);
}

TEST(Decoder, MemoryOperandsAndOffsets) {
  Parsed P = parse("global_load_dword v4, v[4:5], off offset:-16 sc0 sc1");
  EXPECT_TRUE(P.I.Problem.empty()) << P.I.Problem;
  ASSERT_EQ(P.I.NumOps, 3u);
  EXPECT_EQ(P.I.Ops[2].Kind, OperandKind::Off);
  EXPECT_EQ(P.I.Offset, -16);
  P = parse("global_store_b32 v0, v1, s[0:1] offset:2048", 32);
  EXPECT_EQ(P.I.Ops[2].Kind, OperandKind::Sgpr);
  EXPECT_EQ(P.I.Offset, 2048);
  P = parse("ds_read2st64_b32 v[4:5], v2 offset1:2");
  EXPECT_EQ(P.I.Op->Name, "ds_read2st64_b32");
  EXPECT_EQ(P.I.Offset, 0);
  EXPECT_EQ(P.I.Offset1, 2);
  P = parse("ds_load_2addr_stride64_b32 v[0:1], v2 offset0:1 offset1:3", 32);
  EXPECT_EQ(P.I.Offset, 1);
  EXPECT_EQ(P.I.Offset1, 3);
  P = parse("s_load_b32 s2, s[2:3], null", 32);
  EXPECT_EQ(P.I.Ops[2].Reg, sreg::Null);
  P = parse("global_load_dword v0, v[0:1], off gds");
  EXPECT_NE(P.I.Problem.find("gds"), std::string::npos);
}

TEST(Decoder, Sdwa) {
  Parsed P = parse("v_mul_u32_u24_sdwa v13, sext(v2), s0 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE "
                   "src0_sel:WORD_1 src1_sel:BYTE_2");
  ASSERT_NE(P.I.Op, nullptr);
  EXPECT_EQ(P.I.Op->Name, "v_mul_u32_u24");
  EXPECT_TRUE(P.I.Problem.empty()) << P.I.Problem;
  EXPECT_TRUE(P.I.Sdwa);
  EXPECT_EQ(P.I.DstSel, 6u);
  EXPECT_EQ(P.I.DstUnused, 2u);
  EXPECT_EQ(P.I.Ops[1].Sel, 6u);
  EXPECT_TRUE(P.I.Ops[1].Sext);
  EXPECT_EQ(P.I.Ops[2].Sel, 3u);
  // Carry-out forms have two destinations before the sources.
  P = parse("v_add_co_u32_sdwa v0, vcc, v1, v2 dst_sel:DWORD dst_unused:UNUSED_PAD "
            "src0_sel:BYTE_0 src1_sel:WORD_0");
  EXPECT_EQ(P.I.Ops[2].Sel, 1u);
  EXPECT_EQ(P.I.Ops[3].Sel, 5u);
}

TEST(Decoder, BranchesPackedOpsAndVopd) {
  Parsed P = parse("s_cbranch_execnz 65527");
  ASSERT_NE(P.I.Op, nullptr);
  EXPECT_TRUE(P.I.Op->IsBranch);
  EXPECT_EQ(P.I.Imm, -9);
  P = parse("s_waitcnt vmcnt(0) lgkmcnt(0)");
  EXPECT_TRUE(P.I.Op->IgnoreOperands);
  EXPECT_EQ(P.I.NumOps, 0u);
  P = parse("v_pk_mov_b32 v[0:1], v[2:3], v[2:3] op_sel:[0,1]");
  EXPECT_EQ(P.I.OpSel, 2u);

  P = parse("v_dual_mov_b32 v4, v5 :: v_dual_cndmask_b32 v3, v4, v3", 32);
  ASSERT_NE(P.I.Op, nullptr);
  EXPECT_EQ(P.I.Op->Name, "v_dual");
  EXPECT_TRUE(P.I.Problem.empty()) << P.I.Problem;
  ASSERT_EQ(P.Extra.size(), 2u);
  EXPECT_EQ(P.Extra[0].Op->Name, "v_mov_b32");
  EXPECT_EQ(P.Extra[1].Op->Name, "v_cndmask_b32");
  ASSERT_EQ(P.Extra[1].NumOps, 4u) << "implicit vcc_lo";
  EXPECT_EQ(P.Extra[1].Ops[3].Reg, sreg::VccLo);
}

TEST(Decoder, UnknownAndMalformed) {
  Parsed P = parse("v_sad_u8 v1, v0, v1, 7");
  EXPECT_EQ(P.I.Op, nullptr);
  EXPECT_EQ(P.Mnemonic, "v_sad_u8");
  // DPP forms run their operation with a permuted src0 (SemanticsCrossLane.cpp).
  P = parse("v_mov_b32_dpp v0, v1 row_shl:1 row_mask:0xa bank_mask:0xf bound_ctrl:1");
  ASSERT_NE(P.I.Op, nullptr);
  ASSERT_NE(P.I.DppInner, nullptr);
  EXPECT_EQ(P.I.DppInner->Name, "v_mov_b32");
  EXPECT_EQ(P.I.DppCtrl, 0x101u);
  EXPECT_EQ(P.I.DppRowMask, 0xau);
  EXPECT_TRUE(P.I.DppBoundCtrl);
  EXPECT_TRUE(P.I.Problem.empty()) << P.I.Problem;
  P = parse("v_mov_b32_dpp v0, v1 quad_perm:[4,0,0,0] row_mask:0xf bank_mask:0xf");
  EXPECT_NE(P.I.Problem.find("malformed DPP modifier"), std::string::npos) << P.I.Problem;
  P = parse("v_add_f32_e32 v0, v1");
  EXPECT_NE(P.I.Problem.find("expected 3 operands"), std::string::npos) << P.I.Problem;
  P = parse("v_add_f32_e32 v0, bogus, v1");
  EXPECT_NE(P.I.Problem.find("unrecognised operand 'bogus'"), std::string::npos);
  EXPECT_EQ(canonicalMnemonic("v_add_co_u32_e32"), "v_add_co_u32");
  EXPECT_EQ(canonicalMnemonic("v_add_co_u32"), "v_add_co_u32");
}

TEST(Decoder, SemanticsTableHasBothSpellings) {
  for (const char *Name :
       {"s_andn2_b64", "s_and_not1_b32", "v_add_u32", "v_add_nc_u32", "ds_read_b32", "ds_load_b32",
        "global_load_dword", "global_load_b32", "s_load_dwordx4", "s_load_b128", "v_cmpx_gt_u32",
        "v_cmp_class_f32", "flat_store_dwordx4", "flat_store_b128", "global_atomic_add_u32"})
    EXPECT_NE(findOpDef(Name), nullptr) << Name;
  auto All = supportedMnemonics();
  EXPECT_GT(All.size(), 400u);
  EXPECT_TRUE(std::is_sorted(All.begin(), All.end()));
}

// A code object decoded in pieces on several threads (as large ones are: decodeProgram cuts them
// at kernel entries) is the program one thread decodes: the same instructions, indices, texts,
// mnemonics, branch targets and VOPD halves (alu_ops for gfx1100 has ten v_dual pairs). Cut here
// at every third instruction, on four threads.
TEST(Decoder, PiecesOnThreadsJoinIntoTheSameProgram) {
  for (const char *Arch : {"gfx942", "gfx1100"}) {
    SCOPED_TRACE(Arch);
    auto Buffer = llvm::MemoryBuffer::getFile(test::kernelPath("alu_ops", Arch));
    ASSERT_TRUE(bool(Buffer));
    EMU_ASSERT_OK_AND_ASSIGN(Obj, llvm::object::ObjectFile::createObjectFile(**Buffer));
    std::vector<CodeRange> Ranges;
    for (const llvm::object::SectionRef &Sec : Obj->sections()) {
      if (!Sec.isText())
        continue;
      EMU_ASSERT_OK_AND_ASSIGN(Contents, Sec.getContents());
      Ranges.push_back({Sec.getAddress(), llvm::arrayRefFromStringRef<uint8_t>(Contents)});
    }
    ASSERT_FALSE(Ranges.empty());
    EMU_ASSERT_OK_AND_ASSIGN(CO, test::loadKernelObject("alu_ops", Arch));
    unsigned WaveSize = llvm::StringRef(Arch) == "gfx942" ? 64 : 32;
    EMU_ASSERT_OK_AND_ASSIGN(One, decodeProgram(CO->target(), WaveSize, Ranges, {}, 1));
    std::vector<uint64_t> Cuts;
    for (size_t I = 1; I < One->Insts.size(); I += 3)
      Cuts.push_back(One->Insts[I].Address);
    EMU_ASSERT_OK_AND_ASSIGN(Many, decodeProgram(CO->target(), WaveSize, Ranges, Cuts, 4));
    ASSERT_GT(One->Insts.size(), 100u);
    ASSERT_EQ(Many->Insts.size(), One->Insts.size());
    ASSERT_EQ(Many->Extra.size(), One->Extra.size());
    if (WaveSize == 32)
      EXPECT_EQ(One->Extra.size(), 20u);
    EXPECT_EQ(Many->Text, One->Text);
    EXPECT_EQ(Many->Mnemonic, One->Mnemonic);
    EXPECT_EQ(Many->McName, One->McName);
    EXPECT_EQ(Many->IndexByWord, One->IndexByWord);
    for (size_t I = 0; I < One->Insts.size(); ++I) {
      const Inst &A = One->Insts[I], &B = Many->Insts[I];
      ASSERT_TRUE(A.Index == B.Index && A.Address == B.Address && A.Size == B.Size &&
                  A.Op == B.Op && A.Target == B.Target && A.Second == B.Second &&
                  A.NumOps == B.NumOps)
          << "instruction " << I << ": " << One->Text[I];
    }
    for (size_t I = 0; I < One->Extra.size(); ++I)
      EXPECT_EQ(Many->Extra[I].Op, One->Extra[I].Op) << "VOPD half " << I;
  }
}

} // namespace
