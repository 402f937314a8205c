// Cross-lane instructions (kernels/cross_lane.cu): DPP16 controls with row/bank masks and
// bound_ctrl, DPP8, ds_swizzle_b32, v_permlane16/x16 and v_permlane64, on a partially active last
// wave, compared with references written from the ISA manuals' definitions (AMD "Vega"/CDNA3 and
// RDNA3 ISA, "DPP", "DS_SWIZZLE_B32", "V_PERMLANE*").
#include "TestUtil.h"

#include <cstdint>
#include <functional>
#include <vector>

using namespace reptx::emulator;
using namespace reptx::emulator::test;

namespace {

struct Target {
  std::string Arch, Suffix;
  unsigned WaveSize;
};

class CrossLaneTest : public ::testing::TestWithParam<Target> {};

constexpr int32_t Unwritten = 0x5a5a5a5a;

TEST_P(CrossLaneTest, DppSwizzleAndPermlaneMatchTheIsaDefinitions) {
  const Target &T = GetParam();
  bool Gfx9 = T.Arch == "gfx942" || T.Arch == "gfx90a";
  EMU_ASSERT_OK_AND_ASSIGN(CO, loadKernelObject("cross_lane", T.Arch, T.Suffix));
  for (const DisassembledInstruction &D : CO->disassemble(*CO->findKernel("cross_lane")))
    EXPECT_TRUE(D.Supported) << D.Text;
  const unsigned Block = 128, Blocks = 2, Total = Block * Blocks, N = Total - 37;
  std::vector<int32_t> In(Total);
  for (unsigned I = 0; I < Total; ++I)
    In[I] = int32_t(I * 7919u + 13);
  Device Dev;
  EMU_ASSERT_OK_AND_ASSIGN(DIn, Dev.allocateArray<int32_t>(In, "In"));
  std::vector<int32_t> Init(Total * 18, Unwritten);
  EMU_ASSERT_OK_AND_ASSIGN(DOut, Dev.allocateArray<int32_t>(Init, "Out"));
  auto P =
      DispatchParams::blocks("cross_lane", {Blocks, 1, 1}, {Block, 1, 1},
                             KernargBuilder().addPointer(DIn).addPointer(DOut).add(int(N)).take());
  EMU_ASSERT_OK_AND_ASSIGN(R, Dev.dispatch(*CO, P));
  (void)R;
  EMU_ASSERT_OK_AND_ASSIGN(Out, Dev.readArray<int32_t>(DOut, Total * 18));

  const unsigned W = T.WaveSize;
  for (unsigned Base = 0; Base < Total; Base += W) {
    auto Active = [&](int L) { return L >= 0 && L < int(W) && Base + unsigned(L) < N; };
    auto Val = [&](int L) { return In[Base + unsigned(L)]; };
    for (unsigned L = 0; L < W; ++L) {
      unsigned I = Base + L;
      const int32_t *O = Out.data() + I * 18;
      SCOPED_TRACE("thread " + std::to_string(I));
      if (!Active(int(L))) {
        for (unsigned K = 0; K < 18; ++K)
          ASSERT_EQ(O[K], Unwritten);
        continue;
      }
      int32_t Old = -1 - int32_t(I);
      int Row = int(L) & ~15, InRow = int(L) & 15;
      // A DPP16 move: lanes off in the row/bank masks keep Old; a source lane out of range or
      // inactive gives 0 with bound_ctrl, else Old.
      auto Dpp = [&](int Src, bool InRange, unsigned RowMask, unsigned BankMask, bool BoundCtrl) {
        if (!((RowMask >> (L / 16)) & 1) || !((BankMask >> ((L / 4) & 3)) & 1))
          return Old;
        if (InRange && Active(Src))
          return Val(Src);
        return BoundCtrl ? 0 : Old;
      };
      EXPECT_EQ(O[0], Dpp((int(L) & ~3) | (3 - (int(L) & 3)), true, 15, 15, false)) << "quad_perm";
      EXPECT_EQ(O[1], Dpp(int(L) + 1, InRow + 1 < 16, 15, 15, false)) << "row_shl:1";
      EXPECT_EQ(O[2], Dpp(int(L) - 3, InRow >= 3, 15, 15, true)) << "row_shr:3 bound_ctrl";
      EXPECT_EQ(O[3], Dpp(Row | ((InRow - 5) & 15), true, 15, 15, false)) << "row_ror:5";
      EXPECT_EQ(O[4], Dpp(Row | (15 - InRow), true, 15, 15, false)) << "row_mirror";
      EXPECT_EQ(O[5], Dpp((int(L) & ~7) | (7 - (int(L) & 7)), true, 0xa, 15, false))
          << "row_half_mirror";
      EXPECT_EQ(O[6], Dpp(int(L) - 1, InRow >= 1, 15, 0x5, false)) << "row_shr:1 banks 0,2";
      if (Gfx9) {
        EXPECT_EQ(O[7], Dpp(int(L) - 1, L >= 1, 15, 15, false)) << "wave_shr:1";
        EXPECT_EQ(O[8], Dpp(int(L + 1) % int(W), true, 15, 15, false)) << "wave_rol:1";
        EXPECT_EQ(O[9], Dpp(Row - 1, Row >= 16, 0xa, 15, false)) << "row_bcast:15";
        EXPECT_EQ(O[10], Dpp(31, Row >= 32, 0xc, 15, false)) << "row_bcast:31";
      } else {
        EXPECT_EQ(O[7], Dpp(Row | 3, true, 15, 15, false)) << "row_share:3";
        EXPECT_EQ(O[8], Dpp(Row | (InRow ^ 5), true, 15, 15, false)) << "row_xmask:5";
        int Src8 = (int(L) & ~7) | (7 - (int(L) & 7));
        if (Active(Src8))
          EXPECT_EQ(O[9], Val(Src8)) << "dpp8";
        // permlane16: nibble L%16 of {src2, src1} = {0x89abcdef, 0x01234567} selects the lane:
        // 7..0 for lanes 0-7, 15..8 for lanes 8-15.
        int SrcP = Row | (InRow < 8 ? 7 - InRow : 23 - InRow);
        EXPECT_EQ(O[10], Active(SrcP) ? Val(SrcP) : Old) << "v_permlane16";
      }
      // ds_swizzle: inactive sources are not checked (the value is the hardware's business).
      auto Swizzle = [&](int Src, int32_t Got, const char *What) {
        if (Active(Src))
          EXPECT_EQ(Got, Val(Src)) << What;
      };
      Swizzle(int(L) ^ 1, O[11], "swizzle(SWAP,1)");
      Swizzle((int(L) & ~3) | ((int(L) + 1) & 3), O[12], "swizzle(QUAD_PERM,1,2,3,0)");
      Swizzle(int(L) ^ 3, O[13], "swizzle(REVERSE,4)");
      if (T.Arch == "gfx1100") {
        int SrcX = ((Row ^ 16) | InRow);
        EXPECT_EQ(O[14], Active(SrcX) ? Val(SrcX) : Old) << "v_permlanex16";
        if (W == 64 && Active(int(L) ^ 32)) // an inactive lane's register holds anything
          EXPECT_EQ(O[15], Val(int(L) ^ 32)) << "v_permlane64";
        else if (W == 32)
          EXPECT_EQ(O[15], Unwritten);
      } else {
        EXPECT_EQ(O[14], Unwritten);
        EXPECT_EQ(O[15], Unwritten);
      }
      // DPP folded into an add/sub whose other source is src0's own register: that source reads
      // the lane's own value (an inactive source lane reads 0 with bound_ctrl).
      auto Bound = [&](int Src) { return Active(Src) ? Val(Src) : 0; };
      EXPECT_EQ(O[16], int32_t(uint32_t(Val(int(L))) + uint32_t(Bound(int(L) ^ 1))))
          << "v_add_u32_dpp v, v, v quad_perm:[1,0,3,2]";
      EXPECT_EQ(O[17], int32_t(uint32_t(Bound(Row | (InRow ^ 8))) - uint32_t(Val(int(L)))))
          << "v_sub_u32_dpp v, v, v row_ror:8";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, CrossLaneTest,
                         ::testing::Values(Target{"gfx942", "", 64}, Target{"gfx1100", "", 32},
                                           Target{"gfx1100", ".w64", 64}, Target{"gfx90a", "", 64},
                                           Target{"gfx1030", "", 32}, Target{"gfx1201", "", 32}),
                         [](const auto &Info) {
                           return Info.param.Arch + (Info.param.Suffix.empty() ? "" : "_w64");
                         });

} // namespace
