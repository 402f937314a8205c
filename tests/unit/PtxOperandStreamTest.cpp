// The parser stores an instruction's guard and operands as a stream of 32-bit words (20-bit
// inline values; larger ones take extra words). These tests parse literals on both sides of every
// width boundary and read them back through Module::decode; the expected values are the literals'
// own values, written in the test.
#include "reptx/frontend-ptx/Parser.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

using namespace reptx::ptx;

namespace {

/// Parses Body as the body of a kernel with a few registers declared; returns the module's
/// instructions in order.
struct Parsed {
  ParseResult R;
  std::vector<Instruction> Insts;
};
Parsed parseBody(const std::string &Body) {
  std::string Text = ".version 8.5\n.target sm_80\n.address_size 64\n"
                     ".visible .entry k(.param .u64 p)\n{\n"
                     ".reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n.reg .f32 %f<4>;\n"
                     ".reg .f64 %fd<4>;\n.reg .pred %p<4>;\n" +
                     Body + "}\n";
  Parsed P{parse("stream.ptx", Text), {}};
  for (const TopLevel &T : P.R.M->Items)
    if (T.K == TopLevel::Func && T.F->Body)
      for (const Statement &S : T.F->Body->Body)
        if (S.K == Statement::Instr)
          P.Insts.push_back(P.R.M->instruction(S));
  return P;
}

TEST(PtxOperandStream, IntegerImmediatesAtEveryWidthBoundary) {
  // 20-bit inline range [-524288, 524287], then a 32-bit word, then a 64-bit pair.
  const int64_t Values[] = {0,
                            1,
                            524287,
                            524288,
                            -1,
                            -524288,
                            -524289,
                            2147483647,
                            -2147483648LL,
                            2147483648LL,
                            4294967296LL,
                            -4294967297LL,
                            INT64_MAX,
                            INT64_MIN + 1};
  std::string Body;
  for (int64_t V : Values)
    Body += "add.s64 %rd1, %rd2, " + std::to_string(V) + ";\n";
  Body += "add.u32 %r1, %r2, 524288U;\n";
  Parsed P = parseBody(Body);
  ASSERT_TRUE(P.R.ok()) << P.R.Errors[0].Message;
  ASSERT_EQ(P.Insts.size(), std::size(Values) + 1);
  for (size_t I = 0; I < std::size(Values); ++I) {
    ASSERT_EQ(P.Insts[I].Ops.size(), 3u);
    EXPECT_EQ(P.Insts[I].Ops[0].Sym, "%rd1");
    EXPECT_EQ(P.Insts[I].Ops[1].Sym, "%rd2");
    EXPECT_EQ(P.Insts[I].Ops[2].K, Operand::Int);
    EXPECT_EQ(P.Insts[I].Ops[2].IntValue, Values[I]) << "literal " << Values[I];
    EXPECT_FALSE(P.Insts[I].Ops[2].Unsigned);
  }
  const Instruction &U = P.Insts.back();
  EXPECT_EQ(U.Ops[2].IntValue, 524288);
  EXPECT_TRUE(U.Ops[2].Unsigned);
}

TEST(PtxOperandStream, FloatBitPatterns) {
  // f32 patterns whose low 12 bits are zero are stored inline; the others in a second word; f64
  // in two.
  Parsed P = parseBody("mov.f32 %f1, 0f3F800000;\n"
                       "mov.f32 %f1, 0f3F800001;\n"
                       "mov.f32 %f1, 0fFFFFF000;\n"
                       "mov.f32 %f1, 0f00000FFF;\n"
                       "mov.f32 %f1, 0f00000000;\n"
                       "mov.f64 %fd1, 0d3FF0000000000001;\n"
                       "mov.f64 %fd1, 0dFFF0000000000000;\n");
  ASSERT_TRUE(P.R.ok()) << P.R.Errors[0].Message;
  const uint64_t Bits[] = {0x3F800000, 0x3F800001,         0xFFFFF000,        0x00000FFF,
                           0x00000000, 0x3FF0000000000001, 0xFFF0000000000000};
  ASSERT_EQ(P.Insts.size(), std::size(Bits));
  for (size_t I = 0; I < std::size(Bits); ++I) {
    const Operand &O = P.Insts[I].Ops[1];
    EXPECT_EQ(O.K, Operand::Float);
    EXPECT_EQ(O.FloatBits, Bits[I]) << "instruction " << I;
    EXPECT_EQ(O.IsDouble, I >= 5);
  }
}

TEST(PtxOperandStream, GuardsComponentsAddressesAndVectors) {
  Parsed P = parseBody("@!%p1 mov.u32 %r2, %tid.x;\n"
                       "@%p2 ld.global.u32 %r1, [%rd1+-8];\n"
                       "ld.global.u32 %r1, [%rd1+4294967296];\n"
                       "ld.global.v2.u32 {%r1, _}, [%rd2];\n"
                       "ret;\n");
  ASSERT_TRUE(P.R.ok()) << P.R.Errors[0].Message;
  ASSERT_EQ(P.Insts.size(), 5u);
  const Instruction &A = P.Insts[0];
  EXPECT_EQ(A.Guard, "%p1");
  EXPECT_TRUE(A.GuardNegated);
  EXPECT_EQ(A.Ops[1].Sym, "%tid");
  EXPECT_EQ(A.Ops[1].Component, ".x");
  const Instruction &B = P.Insts[1];
  EXPECT_EQ(B.Guard, "%p2");
  EXPECT_FALSE(B.GuardNegated);
  ASSERT_EQ(B.Ops[1].K, Operand::Address);
  ASSERT_EQ(B.Ops[1].Elems.size(), 1u);
  EXPECT_EQ(B.Ops[1].Elems[0].Sym, "%rd1");
  EXPECT_EQ(B.Ops[1].IntValue, -8);
  EXPECT_EQ(P.Insts[2].Ops[1].IntValue, 4294967296LL);
  EXPECT_TRUE(P.Insts[2].Guard.empty());
  const Operand &V = P.Insts[3].Ops[0];
  ASSERT_EQ(V.K, Operand::Vector);
  ASSERT_EQ(V.Elems.size(), 2u);
  EXPECT_EQ(V.Elems[0].Sym, "%r1");
  EXPECT_EQ(V.Elems[1].K, Operand::Sink);
  EXPECT_EQ(P.Insts[3].Ops[1].Elems[0].Sym, "%rd2");
  EXPECT_EQ(P.Insts[3].Ops[1].IntValue, 0);
  EXPECT_TRUE(P.Insts[4].Ops.empty());
  EXPECT_TRUE(P.Insts[4].Guard.empty());
}

TEST(PtxOperandStream, SymbolIdsBeyondTheInlineWidth) {
  // A module with more than 2^20 names: ids that need the extra word, as operand, component and
  // guard.
  std::string Names;
  for (int I = 0; I < (1 << 20) + 16; ++I)
    Names += ".reg .b32 %x" + std::to_string(I) + ";\n";
  Parsed P = parseBody(Names + ".reg .v2 .b32 %vec;\n"
                               "@%x1048580 add.s32 %x1048577, %x1048578, %x0;\n"
                               "mov.b32 %x1048579, %vec.y;\n");
  ASSERT_TRUE(P.R.ok()) << P.R.Errors[0].Message;
  ASSERT_EQ(P.Insts.size(), 2u);
  EXPECT_EQ(P.Insts[0].Guard, "%x1048580");
  EXPECT_EQ(P.Insts[0].Ops[0].Sym, "%x1048577");
  EXPECT_EQ(P.Insts[0].Ops[1].Sym, "%x1048578");
  EXPECT_EQ(P.Insts[0].Ops[2].Sym, "%x0");
  EXPECT_EQ(P.Insts[1].Ops[0].Sym, "%x1048579");
  EXPECT_EQ(P.Insts[1].Ops[1].Sym, "%vec");
  EXPECT_EQ(P.Insts[1].Ops[1].Component, ".y");
}

TEST(PtxOperandStream, TextOverTheSizeLimitIsRefused) {
  std::string Text(MaxSourceBytes, '\n');
  ParseResult R = parse("big.ptx", std::move(Text));
  ASSERT_EQ(R.Errors.size(), 1u);
  EXPECT_EQ(R.Errors[0].L.Offset, 0u);
  EXPECT_EQ(R.Errors[0].Message, "the PTX text is 536870912 bytes; at most 536870911 are read");
}

} // namespace
