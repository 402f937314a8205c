// The cache-backed compile: a miss compiles and stores, a hit returns the same bytes, the output
// layer of `reptx prewarm --output` receives every result and serves as a read-only layer, kernel
// failures are cached with the module while results of crashes are not, and some kernels of a
// module (lazy loading) have entries of their own.
#include "PrewarmTestUtil.h"

#include "reptx/driver/Driver.h"

using namespace reptx;
using namespace reptx::test;
using Origin = driver::Result::Origin;

namespace {

class DriverTest : public TempDirTest {
protected:
  std::unique_ptr<driver::Compiler> make(const std::string &Writable,
                                         std::vector<std::string> ReadOnly = {},
                                         const std::string &Output = "", bool UseCache = true) {
    driver::Compiler::Options O;
    cache::Config C;
    C.WritablePath = Writable;
    C.ReadOnlyPaths = std::move(ReadOnly);
    O.CacheConfig = C;
    O.OutputLayer = Output;
    O.UseCache = UseCache;
    O.OnWarning = [this](const cache::Warning &W) { Warnings.push_back(W.Message); };
    auto R = driver::Compiler::create(O);
    EXPECT_TRUE(!!R) << llvm::toString(R.takeError());
    return R ? std::move(*R) : nullptr;
  }
  static driver::ModuleSource source(const backend::PtxModule &M) {
    return {M.Name, M.Text, "-O3"};
  }
  std::vector<std::string> Warnings;
};

TEST_F(DriverTest, MissCompilesAndStoresHitReturnsTheSameBytes) {
  auto C = make(path("cache"));
  ASSERT_TRUE(C);
  driver::ModuleSource S = source(liftKernel("saxpy"));
  driver::Target T{"gfx942", 5, "packed"};
  auto A = C->compile(S, T);
  ASSERT_TRUE(!!A) << llvm::toString(A.takeError());
  EXPECT_EQ(A->From, Origin::Compiled);
  EXPECT_TRUE(A->Stored);
  ASSERT_EQ(A->Kernels.size(), 1u);
  auto B = C->compile(S, T);
  ASSERT_TRUE(!!B) << llvm::toString(B.takeError());
  EXPECT_EQ(B->From, Origin::CacheHit);
  EXPECT_EQ(B->CodeObject, A->CodeObject);
  EXPECT_EQ(B->Kernels, A->Kernels);
  EXPECT_EQ(B->KeyDigest, A->KeyDigest);
  EXPECT_EQ(C->key(S, T).digest(), A->KeyDigest);

  // Everything in the key changes it: options string, target, code object version, wave mode on
  // wave64 (and not on wave32), the PTX.
  auto Digest = [&](driver::ModuleSource S2, driver::Target T2) { return C->key(S2, T2).digest(); };
  driver::ModuleSource S2 = S;
  S2.PtxasOptions = "-O2";
  EXPECT_NE(Digest(S2, T), A->KeyDigest);
  EXPECT_NE(Digest(S, {"gfx90a", 5, "packed"}), A->KeyDigest);
  EXPECT_NE(Digest(S, {"gfx942", 4, "packed"}), A->KeyDigest);
  EXPECT_NE(Digest(S, {"gfx942", 5, "single"}), A->KeyDigest);
  EXPECT_EQ(Digest(S, {"gfx1100", 5, "packed"}), Digest(S, {"gfx1100", 5, "single"}));
  S2 = S;
  S2.Ptx += "\n";
  EXPECT_NE(Digest(S2, T), A->KeyDigest);
  cache::Key K = C->key(S, T);
  EXPECT_EQ(K.WaveSize, 64u);
  EXPECT_EQ(K.PtxasOptions, "-O3");
  EXPECT_FALSE(K.Compiler.BuildId.empty());

  // A different target misses and compiles.
  auto D = C->compile(S, {"gfx942", 4, "packed"});
  ASSERT_TRUE(!!D);
  EXPECT_EQ(D->From, Origin::Compiled);
  EXPECT_TRUE(Warnings.empty());

  // Without the cache nothing is looked up or written.
  auto NoCache = make(path("untouched"), {}, "", /*UseCache=*/false);
  auto E = NoCache->compile(S, T);
  ASSERT_TRUE(!!E);
  EXPECT_EQ(E->From, Origin::Compiled);
  EXPECT_FALSE(E->Stored);
  EXPECT_EQ(E->CodeObject, A->CodeObject);
  EXPECT_FALSE(std::filesystem::exists(path("untouched")));

  auto Bad = C->compile(S, {"gfx803", 5, "packed"});
  EXPECT_FALSE(!!Bad);
  llvm::consumeError(Bad.takeError());
  auto BadMode = C->compile(S, {"gfx942", 5, "odd"});
  EXPECT_FALSE(!!BadMode);
  llvm::consumeError(BadMode.takeError());
}

// "auto" (the loader's and prewarm's default) is packed, unless the module's warps wait on each
// other (it reads %reserved_smem_offset_*, cooperative groups' multi-warp tiles): then single. The
// key holds the resolved mode, so auto and the explicit mode share cache entries.
TEST_F(DriverTest, AutoWave64ModeIsSingleForModulesWhoseWarpsWaitOnEachOther) {
  auto C = make(path("cache"));
  ASSERT_TRUE(C);
  driver::ModuleSource Plain = source(liftKernel("saxpy"));
  driver::ModuleSource Tiles = Plain;
  Tiles.Ptx = ".version 8.0\n.target sm_80\n.address_size 64\n"
              ".visible .entry tiles(.param .u64 out)\n{\n.reg .b32 %r<2>;\n.reg .b64 %rd<3>;\n"
              "mov.u32 %r1, %reserved_smem_offset_1;\nld.param.u64 %rd1, [out];\n"
              "cvta.to.global.u64 %rd2, %rd1;\nst.global.u32 [%rd2], %r1;\nret;\n}\n";
  EXPECT_FALSE(driver::needsIndependentWarps(Plain.Ptx));
  EXPECT_TRUE(driver::needsIndependentWarps(Tiles.Ptx));
  // A CTA-scoped acquire load, its modifiers in either order; not one at GPU scope, nor a
  // CTA-scoped acquire atom.
  EXPECT_TRUE(driver::needsIndependentWarps("\tld.acquire.cta.shared.u32 %r1, [%r2];"));
  EXPECT_TRUE(driver::needsIndependentWarps("{ld.shared.acquire.cta.b32 %r1,[%rd27];"));
  EXPECT_TRUE(driver::needsIndependentWarps("ld.acquire.cta.b32 %r1, [%rd1];"));
  EXPECT_FALSE(driver::needsIndependentWarps("ld.global.acquire.gpu.b32 %r1, [%rd1];"));
  EXPECT_FALSE(driver::needsIndependentWarps("atom.acquire.cta.shared.add.u32 %r1, [%r2], 1;"));
  EXPECT_FALSE(driver::needsIndependentWarps("st.release.cta.shared.u32 [%r2], %r1;"));
  driver::Target Auto{"gfx942", 5, "auto"};
  EXPECT_EQ(driver::Target{}.Wave64Mode, "auto");
  EXPECT_EQ(driver::wave64Mode(Plain, Auto), "packed");
  EXPECT_EQ(driver::wave64Mode(Tiles, Auto), "single");
  EXPECT_EQ(driver::wave64Mode(Tiles, {"gfx942", 5, "packed"}), "packed");
  auto Digest = [&](const driver::ModuleSource &S, const char *Mode) {
    return C->key(S, {"gfx942", 5, Mode}).digest();
  };
  EXPECT_EQ(Digest(Plain, "auto"), Digest(Plain, "packed"));
  EXPECT_EQ(Digest(Tiles, "auto"), Digest(Tiles, "single"));
  EXPECT_NE(Digest(Tiles, "auto"), Digest(Tiles, "packed"));
  // Compiled in single mode: the kernel's leading argument is the PTX block size.
  auto R = C->compile(Tiles, Auto);
  ASSERT_TRUE(!!R) << llvm::toString(R.takeError());
  ASSERT_EQ(R->Kernels, std::vector<std::string>{"tiles"});
  EXPECT_NE(R->CodeObject.find("__reptx_wave64_single"), std::string::npos);
  auto P = C->compile(Plain, Auto);
  ASSERT_TRUE(!!P) << llvm::toString(P.takeError());
  EXPECT_EQ(P->CodeObject.find("__reptx_wave64_single"), std::string::npos);
}

TEST_F(DriverTest, OutputLayerReceivesEveryResultAndShipsReadOnly) {
  driver::ModuleSource Saxpy = source(liftKernel("saxpy")), Add = source(liftKernel("vector_add"));
  driver::Target T{"gfx1100", 5, "packed"};
  auto Warm = make(path("cache"));
  auto A = Warm->compile(Saxpy, T);
  ASSERT_TRUE(!!A);

  auto C = make(path("cache"), {}, path("layer"));
  auto HitCopied = C->compile(Saxpy, T); // hit in the cache, copied into the layer
  ASSERT_TRUE(!!HitCopied);
  EXPECT_EQ(HitCopied->From, Origin::CacheHit);
  auto Compiled = C->compile(Add, T); // compiled, stored in both
  ASSERT_TRUE(!!Compiled);
  EXPECT_EQ(Compiled->From, Origin::Compiled);
  auto Again = C->compile(Saxpy, T);
  ASSERT_TRUE(!!Again);
  EXPECT_EQ(Again->From, Origin::OutputHit);

  // The layer alone, read-only, in front of an empty cache: both hit, same bytes.
  auto Image = make(path("empty"), {path("layer")});
  for (auto *P : {&Saxpy, &Add}) {
    auto R = Image->compile(*P, T);
    ASSERT_TRUE(!!R);
    EXPECT_EQ(R->From, Origin::CacheHit);
    EXPECT_EQ(R->CodeObject, P == &Saxpy ? A->CodeObject : Compiled->CodeObject);
  }
  ASSERT_TRUE(Image->cache());
  auto St = Image->cache()->stats();
  ASSERT_TRUE(!!St);
  ASSERT_EQ(St->Layers.size(), 2u);
  EXPECT_EQ(St->Layers[0].Entries, 2u); // the layer
  EXPECT_EQ(St->Layers[1].Entries, 0u); // nothing was stored in the writable cache
  EXPECT_TRUE(Warnings.empty());
}

TEST_F(DriverTest, KernelFailuresAreCachedCrashesAreNot) {
  driver::ModuleSource S = source(threeKernels());
  driver::Target T{"gfx942", 5, "packed"};
  auto C = make(path("cache"));

  ::setenv("REPTX_TEST_WORKER_FAULT", "crash:bad", 1);
  auto Crash = C->compile(S, T);
  ASSERT_TRUE(!!Crash) << llvm::toString(Crash.takeError());
  EXPECT_EQ(Crash->Kernels, (std::vector<std::string>{"first", "last"}));
  ASSERT_EQ(Crash->Failures.size(), 1u);
  EXPECT_FALSE(Crash->Deterministic);
  EXPECT_FALSE(Crash->Stored);

  ::setenv("REPTX_TEST_WORKER_FAULT", "fatal:bad", 1);
  auto Fatal = C->compile(S, T); // a miss: the crash was not stored
  ASSERT_TRUE(!!Fatal);
  EXPECT_EQ(Fatal->From, Origin::Compiled);
  EXPECT_TRUE(Fatal->Stored);
  ASSERT_EQ(Fatal->Failures.size(), 1u);

  ::unsetenv("REPTX_TEST_WORKER_FAULT");
  auto Hit = C->compile(S, T); // the stored result, failure included
  ASSERT_TRUE(!!Hit);
  EXPECT_EQ(Hit->From, Origin::CacheHit);
  EXPECT_EQ(Hit->CodeObject, Fatal->CodeObject);
  EXPECT_EQ(Hit->Kernels, (std::vector<std::string>{"first", "last"}));
  ASSERT_EQ(Hit->Failures.size(), 1u);
  EXPECT_EQ(Hit->Failures[0].Kernel, "bad");
  EXPECT_EQ(Hit->Failures[0].Message, Fatal->Failures[0].Message);
  EXPECT_NE(Hit->Failures[0].Message.find("LLVM fatal error"), std::string::npos);
}

// Some kernels only (the loader's lazy loading): compiled under a key of their own, unless the
// whole module's entry is there, which then serves them with every other kernel.
TEST_F(DriverTest, SomeKernelsHaveTheirOwnEntryUnlessTheWholeModuleIsCached) {
  driver::ModuleSource S = source(threeKernels());
  driver::Target T{"gfx942", 5, "packed"};
  auto C = make(path("cache"));
  backend::KernelSelection Last;
  Last.Only = {"last"};
  auto Some = C->compile(S, T, Last);
  ASSERT_TRUE(!!Some) << llvm::toString(Some.takeError());
  EXPECT_EQ(Some->From, Origin::Compiled);
  EXPECT_FALSE(Some->WholeModule);
  EXPECT_TRUE(Some->Stored);
  EXPECT_EQ(Some->Kernels, (std::vector<std::string>{"last"}));
  EXPECT_TRUE(Some->Failures.empty());
  EXPECT_EQ(kernelSymbols(Some->CodeObject), (std::set<std::string>{"last"}));
  EXPECT_EQ(Some->KeyDigest, C->key(S, T, Last).digest());
  EXPECT_NE(Some->KeyDigest, C->key(S, T).digest());
  backend::KernelSelection First;
  First.Only = {"first"};
  EXPECT_NE(C->key(S, T, First).digest(), Some->KeyDigest);

  auto Again = C->compile(S, T, Last);
  ASSERT_TRUE(!!Again);
  EXPECT_EQ(Again->From, Origin::CacheHit);
  EXPECT_FALSE(Again->WholeModule);
  EXPECT_EQ(Again->CodeObject, Some->CodeObject);

  // The selection's entry does not serve the whole module; the whole module's serves any kernel.
  auto Whole = C->compile(S, T);
  ASSERT_TRUE(!!Whole);
  EXPECT_EQ(Whole->From, Origin::Compiled);
  EXPECT_TRUE(Whole->WholeModule);
  EXPECT_EQ(Whole->Kernels, (std::vector<std::string>{"bad", "first", "last"}));
  auto FromWhole = C->compile(S, T, First);
  ASSERT_TRUE(!!FromWhole);
  EXPECT_EQ(FromWhole->From, Origin::CacheHit);
  EXPECT_TRUE(FromWhole->WholeModule);
  EXPECT_EQ(FromWhole->CodeObject, Whole->CodeObject);
  EXPECT_EQ(FromWhole->KeyDigest, C->key(S, T).digest());

  // The text a selection is compiled from (ptx::withoutKernels) is not part of the key; one that
  // does not parse gives way to the module's own text.
  driver::ModuleSource Cut = S;
  Cut.CompileText = [] { return std::string("not PTX"); };
  EXPECT_EQ(C->key(Cut, T, Last).digest(), Some->KeyDigest);
  auto Fresh0 = make(path("fresh0"));
  auto FromBadCut = Fresh0->compile(Cut, T, Last);
  ASSERT_TRUE(!!FromBadCut) << llvm::toString(FromBadCut.takeError());
  EXPECT_EQ(FromBadCut->Kernels, (std::vector<std::string>{"last"}));
  EXPECT_EQ(FromBadCut->CodeObject, Some->CodeObject);

  // A kernel that crashes the worker, asked for alone, fails alone (and is not stored).
  ::setenv("REPTX_TEST_WORKER_FAULT", "crash:bad", 1);
  auto Fresh = make(path("fresh"));
  backend::KernelSelection Bad;
  Bad.Only = {"bad"};
  auto Crash = Fresh->compile(S, T, Bad);
  ASSERT_TRUE(!!Crash) << llvm::toString(Crash.takeError());
  EXPECT_TRUE(Crash->Kernels.empty());
  ASSERT_EQ(Crash->Failures.size(), 1u);
  EXPECT_EQ(Crash->Failures[0].Kernel, "bad");
  EXPECT_FALSE(Crash->Stored);
  auto Fine = Fresh->compile(S, T, First);
  ASSERT_TRUE(!!Fine);
  EXPECT_EQ(Fine->Kernels, (std::vector<std::string>{"first"}));
  EXPECT_TRUE(Fine->Failures.empty());
}

TEST_F(DriverTest, EntryRoundTrip) {
  backend::ModuleResult M;
  M.CodeObject = {1, 2, 3};
  M.Kernels = {"zeta", "alpha"};
  M.Failures = {{"mid", "m.ptx:3: kernel 'mid': no"}, {"mid", "second reason"}};
  cache::Entry E = driver::toEntry(M);
  ASSERT_EQ(E.Kernels.size(), 3u);
  EXPECT_EQ(E.Kernels[0].Name, "alpha");
  EXPECT_EQ(E.Kernels[1].Info, "!m.ptx:3: kernel 'mid': no");
  driver::Result R = driver::fromEntry(std::move(E));
  EXPECT_EQ(R.CodeObject, std::string("\1\2\3"));
  EXPECT_EQ(R.Kernels, (std::vector<std::string>{"alpha", "zeta"}));
  ASSERT_EQ(R.Failures.size(), 1u);
  EXPECT_EQ(R.Failures[0].Kernel, "mid");
}

} // namespace
