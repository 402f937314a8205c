// Linking the PTX of -rdc translation units (frontend-ptx/lib/PtxLink.cpp): cross-unit .extern
// resolution, renaming of colliding internal and repeated .weak symbols, and the errors.
#include "reptx/frontend-ptx/Link.h"

#include "reptx/frontend-ptx/Parser.h"
#include "reptx/ir/Lift.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <gtest/gtest.h>
#include <map>

using namespace reptx;
using namespace reptx::ptx;

namespace {

// Unit 0: a kernel that calls f (defined in unit 1), reads v (unit 1) and its own $str, and calls
// its own weak w and static s.
const char *Unit0 = R"(.version 8.0
.target sm_80
.address_size 64
.extern .func (.param .b32 r) f (.param .b32 x);
.extern .global .align 4 .u32 v;
.global .align 1 .b8 $str[2] = {65, 0};
.weak .func (.param .b32 r) w (.param .b32 x)
{
  .reg .b32 %a;
  ld.param.b32 %a, [x];
  st.param.b32 [r], %a;
  ret;
}
.func (.param .b32 r) s (.param .b32 x)
{
  .reg .b32 %a;
  ld.param.b32 %a, [x];
  add.s32 %a, %a, 1;
  st.param.b32 [r], %a;
  ret;
}
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out];
  ld.global.u32 %r1, [v];
  ld.global.u8 %r2, [$str];
  { .param .b32 p; .param .b32 q; st.param.b32 [p], %r1; call.uni (q), f, (p); ld.param.b32 %r3, [q]; }
  { .param .b32 p; .param .b32 q; st.param.b32 [p], %r2; call.uni (q), w, (p); ld.param.b32 %r4, [q]; }
  { .param .b32 p; .param .b32 q; st.param.b32 [p], %r4; call.uni (q), s, (p); ld.param.b32 %r5, [q]; }
  add.s32 %r3, %r3, %r5;
  st.global.u32 [%rd1], %r3;
  ret;
}
)";

// Unit 1: defines f and v, and has its own $str, w (weak, also in unit 0) and s (static).
const char *Unit1 = R"(.version 8.1
.target sm_80
.address_size 64
.visible .global .align 4 .u32 v = 7;
.global .align 1 .b8 $str[2] = {66, 0};
.weak .func (.param .b32 r) w (.param .b32 x)
{
  .reg .b32 %a;
  ld.param.b32 %a, [x];
  st.param.b32 [r], %a;
  ret;
}
.func (.param .b32 r) s (.param .b32 x)
{
  .reg .b32 %a;
  ld.param.b32 %a, [x];
  add.s32 %a, %a, 2;
  st.param.b32 [r], %a;
  ret;
}
.visible .func (.param .b32 r) f (.param .b32 x)
{
  .reg .b32 %a<3>;
  ld.param.b32 %a1, [x];
  ld.global.u8 %a2, [$str];
  { .param .b32 p; .param .b32 q; st.param.b32 [p], %a2; call.uni (q), s, (p); ld.param.b32 %a2, [q]; }
  add.s32 %a1, %a1, %a2;
  st.param.b32 [r], %a1;
  ret;
}
)";

TEST(PtxLink, ResolvesAcrossUnitsAndRenamesCollisions) {
  auto Linked = linkPtx({{"u0", Unit0}, {"u1", Unit1}});
  ASSERT_TRUE(bool(Linked)) << llvm::toString(Linked.takeError());
  llvm::StringRef T(*Linked);
  EXPECT_TRUE(T.starts_with(".version 8.1\n.target sm_80\n.address_size 64\n")) << *Linked;
  EXPECT_EQ(T.count(".version"), 1u);
  // Internal names both units define: renamed in each; a repeated weak: renamed in the later unit.
  EXPECT_NE(T.find(".global .align 1 .b8 $str$rdc0[2]"), llvm::StringRef::npos);
  EXPECT_NE(T.find(".global .align 1 .b8 $str$rdc1[2]"), llvm::StringRef::npos);
  EXPECT_NE(T.find("ld.global.u8 %r2, [$str$rdc0]"), llvm::StringRef::npos);
  EXPECT_NE(T.find("ld.global.u8 %a2, [$str$rdc1]"), llvm::StringRef::npos);
  EXPECT_NE(T.find(".func (.param .b32 r) s$rdc0 ("), llvm::StringRef::npos);
  EXPECT_NE(T.find("call.uni (q), s$rdc1, (p)"), llvm::StringRef::npos);
  EXPECT_NE(T.find(".weak .func (.param .b32 r) w ("), llvm::StringRef::npos);
  EXPECT_NE(T.find(".weak .func (.param .b32 r) w$rdc1 ("), llvm::StringRef::npos);
  // Visible symbols keep their names.
  EXPECT_NE(T.find("call.uni (q), f, (p)"), llvm::StringRef::npos);
  EXPECT_EQ(T.count("$rdc"), 9u) << *Linked;

  // The result parses and lifts, with f and v resolved to unit 1's definitions.
  ptx::ParseResult P = ptx::parse("linked", Linked->c_str());
  ASSERT_TRUE(P.ok()) << llvm::toString(ptx::toError(P));
  llvm::LLVMContext Ctx;
  auto L = ir::liftModule(*P.M, Ctx);
  ASSERT_TRUE(bool(L)) << llvm::toString(L.takeError());
  EXPECT_EQ(L->Kernels, std::vector<std::string>{"k"});
  EXPECT_TRUE(L->Failures.empty());
  EXPECT_NE(L->M->getNamedGlobal("v"), nullptr);
  EXPECT_NE(L->M->getFunction("f"), nullptr);
  EXPECT_EQ(L->M->getNamedGlobal("$str"), nullptr);
}

// libcudadevrt's unit in a -rdc program has PTX for the newest target only: units for different
// targets link under the newest one's .target, and the result parses.
TEST(PtxLink, UnitsForDifferentTargetsLinkUnderTheNewest) {
  std::string Newer = Unit1;
  Newer.replace(Newer.find(".target sm_80"), 13, ".target sm_90");
  for (bool NewerFirst : {false, true}) {
    auto Linked = NewerFirst ? linkPtx({{"u1", Newer}, {"u0", Unit0}})
                             : linkPtx({{"u0", Unit0}, {"u1", Newer}});
    ASSERT_TRUE(bool(Linked)) << llvm::toString(Linked.takeError());
    EXPECT_TRUE(llvm::StringRef(*Linked).starts_with(".version 8.1\n.target sm_90\n")) << *Linked;
    EXPECT_TRUE(ptx::parse("linked", Linked->c_str()).ok());
  }
}

// Each unit's kernels keep the target their unit was written for (cuFuncGetAttribute's PTX
// version): the linked text names it before each unit, and a function's offset finds its unit.
TEST(PtxLink, EachUnitKeepsItsOwnTarget) {
  std::string Newer = Unit1;
  Newer.replace(Newer.find(".target sm_80"), 13, ".target sm_90");
  auto Linked = linkPtx({{"u0", Unit0}, {"u1", Newer}});
  ASSERT_TRUE(bool(Linked)) << llvm::toString(Linked.takeError());
  std::vector<LinkedUnit> Units = linkedUnits(*Linked);
  ASSERT_EQ(Units.size(), 2u) << *Linked;
  EXPECT_EQ(Units[0].Arch, 80u);
  EXPECT_EQ(Units[1].Arch, 90u);
  ptx::ParseResult P = ptx::parse("linked", Linked->c_str());
  ASSERT_TRUE(P.ok()) << llvm::toString(ptx::toError(P));
  std::map<std::string, unsigned> Arch; // the functions with a body: unit 0's k, unit 1's f
  for (const ptx::TopLevel &T : P.M->Items)
    if (T.K == ptx::TopLevel::Func && T.F->Body)
      Arch[T.F->Name.str()] = linkedUnitArch(Units, T.F->L.Offset);
  EXPECT_EQ(Arch["k"], 80u);
  EXPECT_EQ(Arch["f"], 90u);
  EXPECT_EQ(linkedUnitArch(Units, 0), 0u); // the header, before every unit
  // One unit is not linked: its text comes back as it is, with no units.
  auto Alone = linkPtx({{"u0", Unit0}});
  ASSERT_TRUE(bool(Alone));
  EXPECT_TRUE(linkedUnits(*Alone).empty());
}

// A parameterized module variable (`g<2>` declares g0 and g1, PTX ISA 5.4.7) without linkage in
// both units: renamed in each as a whole, declaration and uses alike.
TEST(PtxLink, RenamesParameterizedVariables) {
  auto UnitWith = [](const char *Kernel) {
    return std::string(".version 8.0\n.target sm_80\n.address_size 64\n"
                       ".global .align 4 .u32 g<2>;\n.visible .entry ") +
           Kernel +
           "(.param .u64 o)\n{\n.reg .b32 %r<2>;\n.reg .b64 %rd<2>;\n"
           "ld.param.u64 %rd1, [o];\nld.global.u32 %r1, [g1];\nst.global.u32 [%rd1], %r1;\n"
           "st.global.u32 [g0], %r1;\nret;\n}\n";
  };
  auto Linked = linkPtx({{"u0", UnitWith("k0")}, {"u1", UnitWith("k1")}});
  ASSERT_TRUE(bool(Linked)) << llvm::toString(Linked.takeError());
  llvm::StringRef T(*Linked);
  for (const char *Want :
       {".u32 g$rdc0<2>;", "[g$rdc01]", "[g$rdc00]", ".u32 g$rdc1<2>;", "[g$rdc11]", "[g$rdc10]"})
    EXPECT_NE(T.find(Want), llvm::StringRef::npos) << Want << "\n" << *Linked;
  ptx::ParseResult P = ptx::parse("linked", Linked->c_str());
  ASSERT_TRUE(P.ok()) << llvm::toString(ptx::toError(P));
  llvm::LLVMContext Ctx;
  auto L = ir::liftModule(*P.M, Ctx);
  ASSERT_TRUE(bool(L)) << llvm::toString(L.takeError());
  EXPECT_EQ(L->Kernels, (std::vector<std::string>{"k0", "k1"}));
}

TEST(PtxLink, OneUnitIsUnchanged) {
  auto Linked = linkPtx({{"u0", Unit0}});
  ASSERT_TRUE(bool(Linked));
  EXPECT_EQ(*Linked, Unit0);
}

TEST(PtxLink, Errors) {
  auto Twice = linkPtx({{"u1", Unit1}, {"again", Unit1}});
  ASSERT_FALSE(bool(Twice));
  EXPECT_EQ(llvm::toString(Twice.takeError()), "'f' is defined in both u1 and again");
  std::string Other = Unit1;
  Other.replace(Other.find(".address_size 64"), 16, ".address_size 32");
  auto Sizes = linkPtx({{"u0", Unit0}, {"u1", Other}});
  ASSERT_FALSE(bool(Sizes));
  EXPECT_EQ(llvm::toString(Sizes.takeError()), "u0 and u1 have different address sizes");
  auto Bad = linkPtx({{"u0", Unit0}, {"bad", ".version 8.0\n.target sm_80\nnot ptx;\n"}});
  EXPECT_FALSE(bool(Bad));
  llvm::consumeError(Bad.takeError());
  EXPECT_FALSE(bool(linkPtx({})));
}

// Some kernels of a module without the others (lazy loading's compile text): the others are cut
// down to their newlines, so the rest keeps its line numbers; functions, variables and comments
// with braces in them stay.
TEST(PtxLink, WithoutKernelsKeepsTheRestOnItsLines) {
  const char *Text = R"(.version 8.0
.target sm_80
.address_size 64
.global .align 4 .u32 g;
.func (.param .b32 r) f (.param .b32 x)
{
  .reg .b32 %a;
  ld.param.b32 %a, [x];
  st.param.b32 [r], %a;
  ret;
}
// a comment with a brace {
.visible .entry cut1(.param .u64 p)
{
  .reg .b32 %r<3>;
  /* } not the end */
  { .reg .b32 %t; mov.b32 %t, 1; }
  mov.b32 %r1, 2; // }
  ret;
}
.visible .entry kept(.param .u64 p) { .reg .b32 %r<2>;
  ld.global.u32 %r1, [g];
  ret;
}
.weak .entry cut2() { ret; } .entry cut3() { ret; }
)";
  ParseResult P = parse("m.ptx", Text);
  ASSERT_TRUE(P.ok()) << llvm::toString(toError(P));
  std::string Out = withoutKernels(*P.M, [](llvm::StringRef K) { return K == "kept"; });
  EXPECT_EQ(llvm::StringRef(Out).count('\n'), llvm::StringRef(Text).count('\n'));
  ParseResult Q = parse("m.ptx", Out);
  ASSERT_TRUE(Q.ok()) << llvm::toString(toError(Q)) << "\n" << Out;
  std::vector<std::string> Kernels, Functions;
  unsigned KeptLine = 0;
  for (const TopLevel &T : Q.M->Items)
    if (T.K == TopLevel::Func && T.F->IsEntry) {
      Kernels.push_back(T.F->Name.str());
      KeptLine = Q.M->lineCol(T.F->L).first;
    } else if (T.K == TopLevel::Func) {
      Functions.push_back(T.F->Name.str());
    }
  EXPECT_EQ(Kernels, std::vector<std::string>{"kept"});
  EXPECT_EQ(Functions, std::vector<std::string>{"f"});
  unsigned TextLine = 0; // where kept is in Text
  for (const TopLevel &T : P.M->Items)
    if (T.K == TopLevel::Func && T.F->Name == "kept")
      TextLine = P.M->lineCol(T.F->L).first;
  EXPECT_EQ(TextLine, 21u);
  EXPECT_EQ(KeptLine, TextLine);
  EXPECT_NE(Out.find("// a comment with a brace {"), std::string::npos);
  EXPECT_EQ(Out.find("cut1"), std::string::npos);
  EXPECT_EQ(Out.find("cut3"), std::string::npos);
  // Keeping every kernel keeps the text.
  EXPECT_EQ(withoutKernels(*P.M, [](llvm::StringRef) { return true; }), std::string(Text));
}

} // namespace
