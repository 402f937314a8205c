// The interpreter's prepared operands (emulator/lib/LaneOperand.h) must read exactly what the
// general per-lane path (Wave::lane, Wave::scalar for lane masks) reads, for every operand kind,
// modifier and width they accept; plus a few values worked out by hand from the ISA's operand
// rules (AMD ISA manuals, "Input Operand Modifiers", "Inline Constants").
#include "LaneOperand.h"

#include <gtest/gtest.h>

#include <random>

using namespace reptx::emulator;

namespace {

struct WaveFixture {
  DispatchContext Ctx;
  Wave W;
  explicit WaveFixture(unsigned Size) {
    W.Ctx = &Ctx;
    W.Size = Size;
    W.NumVgprs = 16;
    W.V.resize(size_t(W.NumVgprs) * Size);
    std::mt19937_64 G(Size);
    for (uint32_t &X : W.V)
      X = uint32_t(G());
    for (unsigned R = 0; R < sreg::FileSize; ++R)
      W.S[R] = uint32_t(G());
    W.S[sreg::Null] = 0;
    W.Scc = true;
  }
};

Operand op(OperandKind K, uint16_t Reg, int64_t Value = 0) {
  Operand O;
  O.Kind = K;
  O.Reg = Reg;
  O.Value = Value;
  return O;
}

TEST(LaneOperand, SameAsGeneralPath) {
  for (unsigned Size : {32u, 64u}) {
    WaveFixture F(Size);
    Wave &W = F.W;
    std::vector<Operand> Base = {
        op(OperandKind::Vgpr, 3),
        op(OperandKind::Sgpr, 10),
        op(OperandKind::Sgpr, sreg::VccLo),
        op(OperandKind::Sgpr, sreg::ExecLo),
        op(OperandKind::Sgpr, sreg::Null),
        op(OperandKind::IntConst, 0, -7),
        op(OperandKind::IntConst, 0, 64),
        op(OperandKind::FloatConst, 0, int64_t(FloatConstValue::NegTwo)),
        op(OperandKind::FloatConst, 0, int64_t(FloatConstValue::InvTwoPi)),
        op(OperandKind::Literal, 0, 0x8badf00d),
        op(OperandKind::Special, 0, int64_t(SpecialSource::Scc)),
        op(OperandKind::Special, 0, int64_t(SpecialSource::SharedBase)),
    };
    Operand Lit64 = op(OperandKind::Literal, 0, int64_t(0x123456789abcdef0ll));
    Lit64.Lit64 = true;
    Base.push_back(Lit64);
    unsigned Checked = 0;
    for (Operand O : Base)
      for (uint8_t Dwords : {1, 2})
        for (uint8_t Half : {0, 1, 2})
          for (int Mods = 0; Mods < 4; ++Mods)
            for (unsigned Bits : {1u, 16u, 32u, 64u})
              for (NumKind K : {NumKind::Unsigned, NumKind::Signed, NumKind::Float}) {
                O.Dwords = Dwords;
                O.Half = Half;
                O.Neg = Mods & 1;
                O.Abs = Mods & 2;
                LaneOperand P;
                if (!P.prepare(W, O, Bits, K))
                  continue;
                ++Checked;
                for (unsigned L = 0; L < Size; ++L) {
                  if (Bits == 1) {
                    EXPECT_EQ(P.maskBit(L), bool((W.scalar(O, W.Size) >> L) & 1));
                    continue;
                  }
                  uint64_t Want = W.lane(O, L, Bits, K);
                  uint64_t Got = Bits > 32 ? P.at64(L) : P.at32(L);
                  ASSERT_EQ(Got, Want) << "kind " << int(O.Kind) << " reg " << O.Reg << " bits "
                                       << Bits << " dwords " << int(Dwords) << " half " << int(Half)
                                       << " mods " << Mods << " lane " << L;
                }
              }
    EXPECT_GT(Checked, 500u);
  }
}

TEST(LaneOperand, RefusesWhatItDoesNotModel) {
  WaveFixture F(64);
  LaneOperand P;
  Operand Sdwa = op(OperandKind::Vgpr, 1);
  Sdwa.Sel = 2;
  EXPECT_FALSE(P.prepare(F.W, Sdwa, 32, NumKind::Unsigned));
  Operand High = op(OperandKind::Vgpr, 1);
  High.Half = 2;
  EXPECT_FALSE(P.prepare(F.W, High, 16, NumKind::Float));
  Operand Single = op(OperandKind::Vgpr, 1); // one register read at 64 bits
  EXPECT_FALSE(P.prepare(F.W, Single, 64, NumKind::Unsigned));
}

TEST(LaneOperand, HandWorkedValues) {
  WaveFixture F(64);
  Wave &W = F.W;
  W.vcol(2)[5] = 0x3f800000u; // 1.0f
  W.vcol(3)[5] = 0xc0000000u;
  W.vcol(2)[6] = 0xbf800000u; // -1.0f
  Operand V = op(OperandKind::Vgpr, 2);
  LaneOperand P;
  // neg(v2): sign flipped at 32 bits.
  V.Neg = true;
  ASSERT_TRUE(P.prepare(W, V, 32, NumKind::Float));
  EXPECT_EQ(P.at32(5), 0xbf800000u);
  // |v2| then neg: -|x|.
  V.Abs = true;
  LaneOperand Q;
  ASSERT_TRUE(Q.prepare(W, V, 32, NumKind::Float));
  EXPECT_EQ(Q.at32(6), 0xbf800000u);
  // v[2:3] at 64 bits with abs: the sign is bit 63 of the pair.
  V.Neg = false;
  V.Dwords = 2;
  LaneOperand R;
  ASSERT_TRUE(R.prepare(W, V, 64, NumKind::Float));
  EXPECT_EQ(R.at64(5), 0x400000003f800000ull);
  // 16-bit read of the low half, negated: bit 15 flips, bits 31:16 are dropped.
  Operand H = op(OperandKind::Vgpr, 2);
  H.Neg = true;
  LaneOperand S;
  ASSERT_TRUE(S.prepare(W, H, 16, NumKind::Float));
  EXPECT_EQ(S.at32(5), 0x8000u);
  // Inline constant -2.0 at 64 bits, broadcast to every lane.
  LaneOperand C;
  ASSERT_TRUE(C.prepare(W, op(OperandKind::FloatConst, 0, int64_t(FloatConstValue::NegTwo)), 64,
                        NumKind::Float));
  EXPECT_EQ(C.at64(0), 0xc000000000000000ull);
  EXPECT_EQ(C.at64(63), 0xc000000000000000ull);
  // A 32-bit literal feeding a signed 64-bit operand is sign-extended.
  LaneOperand Lit;
  ASSERT_TRUE(Lit.prepare(W, op(OperandKind::Literal, 0, 0x80000000ll), 64, NumKind::Signed));
  EXPECT_EQ(Lit.at64(17), 0xffffffff80000000ull);
}

TEST(LaneOperand, ExecLaneOrder) {
  std::vector<unsigned> Lanes;
  forEachExecLane(0x8000000000000005ull, 64, [&](unsigned L) { Lanes.push_back(L); });
  EXPECT_EQ(Lanes, (std::vector<unsigned>{0, 2, 63}));
  Lanes.clear();
  forEachExecLane(0xffffffffull, 32, [&](unsigned L) { Lanes.push_back(L); });
  ASSERT_EQ(Lanes.size(), 32u);
  EXPECT_EQ(Lanes.back(), 31u);
}

} // namespace
