// A large module compiled in parts (backend::planModuleParts): each part on its own thread, then
// one link. The parts must behave as one module: a .global variable written by a kernel of one
// part is the variable a kernel of another part reads (one definition after the link), .const
// data keeps its initializer, a kernel that does not lift fails alone, and the code object is
// the same whatever the number of threads.
#include "LiftTestUtil.h"

#include "reptx/backend/Isolated.h"
#include "reptx/emulator/Census.h"

#include "llvm/Object/ELFObjectFile.h"

#include <map>

using namespace reptx;
using namespace reptx::emulator;

namespace {

// Four kernels, each followed by ~300 kB of comment lines so that the module (1.2 MB) splits into
// four parts of one kernel each while staying cheap to compile.
std::string fourPartModule() {
  std::string Pad;
  for (int I = 0; Pad.size() < (300u << 10); ++I)
    Pad +=
        "// padding line " + std::to_string(I) + " keeps this kernel's part apart from the next\n";
  std::string T = R"(.version 8.0
.target sm_80
.address_size 64
.global .align 4 .b32 g[64];
.const .align 4 .b32 c[4] = {7, 11, 13, 17};

.visible .entry k_store(.param .u32 base)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  ld.param.u32 %r1, [base];
  mov.u32 %r2, %tid.x;
  add.s32 %r3, %r1, %r2;
  mov.u64 %rd1, g;
  mul.wide.u32 %rd2, %r2, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r3;
  ret;
}
)";
  T += Pad;
  T += R"(.visible .entry k_load(.param .u64 out)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<9>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  mul.wide.u32 %rd3, %r1, 4;
  mov.u64 %rd4, g;
  add.s64 %rd5, %rd4, %rd3;
  ld.global.u32 %r2, [%rd5];
  and.b32 %r3, %r1, 3;
  mul.wide.u32 %rd6, %r3, 4;
  mov.u64 %rd7, c;
  add.s64 %rd7, %rd7, %rd6;
  ld.const.u32 %r4, [%rd7];
  add.s32 %r5, %r2, %r4;
  add.s64 %rd8, %rd2, %rd3;
  st.global.u32 [%rd8], %r5;
  ret;
}
)";
  T += Pad;
  T += R"(.visible .entry k_bad(.param .u64 out, .param .u64 tex)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [tex];
  txq.width.b32 %r1, [%rd1];
  ret;
}
)";
  T += Pad;
  T += R"(.visible .entry k_twice(.param .u64 out)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 1;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd4, %rd2, %rd3;
  st.global.u32 [%rd4], %r2;
  ret;
}
)";
  T += Pad;
  return T;
}

// How many symbols of each name the code object's symbol table has.
std::map<std::string, int> symbolCounts(llvm::ArrayRef<uint8_t> Bytes) {
  std::map<std::string, int> N;
  auto Obj = llvm::object::ObjectFile::createELFObjectFile(llvm::MemoryBufferRef(
      llvm::StringRef(reinterpret_cast<const char *>(Bytes.data()), Bytes.size()), "co"));
  if (!Obj) {
    llvm::consumeError(Obj.takeError());
    return N;
  }
  for (const llvm::object::SymbolRef &S : (*Obj)->symbols())
    if (auto Name = S.getName())
      ++N[Name->str()];
    else
      llvm::consumeError(Name.takeError());
  return N;
}

TEST(ModuleParts, PlanFollowsPtxSizeNotThreads) {
  std::string Text = fourPartModule();
  ptx::ParseResult R = ptx::parse("parts.ptx", Text);
  ASSERT_TRUE(R.ok()) << llvm::toString(ptx::toError(R));
  using Plan = std::vector<std::vector<std::string>>;
  EXPECT_EQ(backend::planModuleParts(*R.M),
            (Plan{{"k_store"}, {"k_load"}, {"k_bad"}, {"k_twice"}}));
  // Only the selected kernels count: two of them, ~600 kB, two parts.
  backend::KernelSelection Two;
  Two.Only = {"k_load", "k_twice"};
  EXPECT_EQ(backend::planModuleParts(*R.M, Two), (Plan{{"k_load"}, {"k_twice"}}));
  // A small module is one part (the lifting tests' kernels).
  ptx::ParseResult Small = ptx::parse("small.ptx", R"(.version 8.0
.target sm_80
.address_size 64
.visible .entry a() { ret; }
.visible .entry b() { ret; }
)");
  ASSERT_TRUE(Small.ok());
  EXPECT_EQ(backend::planModuleParts(*Small.M), (Plan{{"a", "b"}}));
  // Functions that outweigh the kernels (each ~300 kB of text here; 1.2 MB of kernels, 1.5 MB of
  // .func) would be carried by every part: one part.
  std::string WithFunctions = Text;
  for (int I = 0; I < 5; ++I)
    WithFunctions +=
        ".func f" + std::to_string(I) + "()\n{\n  ret;\n}\n" + std::string(300u << 10, ' ') + "\n";
  ptx::ParseResult F = ptx::parse("functions.ptx", WithFunctions);
  ASSERT_TRUE(F.ok()) << llvm::toString(ptx::toError(F));
  EXPECT_EQ(backend::planModuleParts(*F.M), (Plan{{"k_store", "k_load", "k_bad", "k_twice"}}));
}

class ModulePartsExec : public ::testing::TestWithParam<const char *> {};

TEST_P(ModulePartsExec, PartsShareVariablesAndFailAlone) {
  backend::CompileOptions Opts;
  Opts.Arch = GetParam();
  Opts.Threads = 3;
  auto MR = backend::compilePtx({"parts.ptx", fourPartModule()}, Opts);
  ASSERT_TRUE(static_cast<bool>(MR)) << llvm::toString(MR.takeError());
  EXPECT_EQ(MR->Kernels, (std::vector<std::string>{"k_store", "k_load", "k_twice"}));
  EXPECT_EQ(MR->Parts, 3u); // linked from the three parts that compiled, not as one module
  ASSERT_EQ(MR->Failures.size(), 1u);
  EXPECT_EQ(MR->Failures[0].Kernel, "k_bad");
  EXPECT_NE(MR->Failures[0].Message.find("txq"), std::string::npos) << MR->Failures[0].Message;

  // One definition of each variable survives the link; every part's kernel is there.
  std::map<std::string, int> Syms = symbolCounts(MR->CodeObject);
  EXPECT_EQ(Syms["g"], 1);
  EXPECT_EQ(Syms["c"], 1);
  EXPECT_EQ(Syms["k_store.kd"], 1);
  EXPECT_EQ(Syms["k_bad.kd"], 0);

  // The same code object on one thread.
  Opts.Threads = 1;
  auto One = backend::compilePtx({"parts.ptx", fourPartModule()}, Opts);
  ASSERT_TRUE(static_cast<bool>(One)) << llvm::toString(One.takeError());
  EXPECT_EQ(One->CodeObject, MR->CodeObject);

  auto CO = CodeObject::load(MR->CodeObject);
  ASSERT_TRUE(static_cast<bool>(CO)) << llvm::toString(CO.takeError());
  // The gaps between the parts' code decode as instructions the emulator knows (lld's default
  // zero fill is v_illegal on gfx11).
  std::map<std::string, MnemonicUse> Uses;
  addCensus(**CO, Uses);
  for (const auto &[Mnemonic, Use] : Uses)
    EXPECT_TRUE(Use.Supported) << Mnemonic << " x" << Use.Count << ": " << Use.Problem;

  // k_store (part 1) writes g; k_load (part 2) reads it and c; k_twice (part 4) runs too.
  Device Dev;
  Dev.setCodeObjectsWritable(true);
  const uint32_t N = 64;
  LIFT_ASSERT_OK_AND_ASSIGN(Out, Dev.allocate(N * sizeof(uint32_t), "out"));
  LIFT_ASSERT_OK_AND_ASSIGN(
      R1, Dev.dispatch(**CO, DispatchParams::blocks("k_store", {1, 1, 1}, {N, 1, 1},
                                                    KernargBuilder().add(uint32_t(100)).take())));
  (void)R1;
  LIFT_ASSERT_OK_AND_ASSIGN(
      R2, Dev.dispatch(**CO, DispatchParams::blocks("k_load", {1, 1, 1}, {N, 1, 1},
                                                    KernargBuilder().addPointer(Out).take())));
  (void)R2;
  LIFT_ASSERT_OK_AND_ASSIGN(Got, Dev.readArray<uint32_t>(Out, N));
  const uint32_t C[4] = {7, 11, 13, 17};
  for (uint32_t I = 0; I < N; ++I)
    ASSERT_EQ(Got[I], 100 + I + C[I & 3]) << "element " << I;
  LIFT_ASSERT_OK_AND_ASSIGN(
      R3, Dev.dispatch(**CO, DispatchParams::blocks("k_twice", {1, 1, 1}, {N, 1, 1},
                                                    KernargBuilder().addPointer(Out).take())));
  (void)R3;
  LIFT_ASSERT_OK_AND_ASSIGN(Twice, Dev.readArray<uint32_t>(Out, N));
  for (uint32_t I = 0; I < N; ++I)
    ASSERT_EQ(Twice[I], 2 * I) << "element " << I;
}

INSTANTIATE_TEST_SUITE_P(Targets, ModulePartsExec,
                         ::testing::Values("gfx942", "gfx1100", "gfx90a", "gfx1030", "gfx1201"));

} // namespace
