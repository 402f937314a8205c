// Warp-level operations: IR-level checks of the lifted forms, the device helper library and the
// wave64 modes in the backend, and execution of nvcc's PTX for our warp kernels (kernels/warp_*.cu)
// on the emulator for gfx942 in packed and single wave64 modes and for gfx1100. Every output is
// compared with a host reference that implements the PTX ISA's semantics on 32-thread warps
// (9.7.9.6 shfl.sync, 9.7.13.8-13 vote, match, activemask, redux, elect; 10.3-10.12 %laneid,
// %warpid, %nwarpid, %lanemask_*), including partial warps (threads past n leave first) and
// divergent regions.
#include "LiftTestUtil.h"

#include "reptx/emulator/PtxLaunch.h"

#include "llvm/IR/Function.h"
#include "llvm/IR/Instruction.h"
#include "llvm/Support/raw_ostream.h"

#include <bit>
#include <cstdint>
#include <map>
#include <random>
#include <vector>

using namespace reptx;
using namespace reptx::emulator;
using namespace reptx::lifttest;

namespace {

using Mode = backend::CompileOptions::Wave64Mode;

// ------------------------------------------------------------------------------ IR-level checks

std::string kernelText(const std::string &Body) {
  return ".version 8.0\n.target sm_90\n.address_size 64\n"
         ".visible .entry k(.param .u64 out)\n{\n"
         ".reg .b32 %r<10>;\n.reg .pred %p<6>;\n.reg .b64 %rd<6>;\n.reg .f32 %f<4>;\n" +
         Body + "\nret;\n}\n";
}

std::string printModule(const llvm::Module &M) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  M.print(OS, nullptr);
  return S;
}

// The lifted IR of one kernel body; the kernel must lift.
std::string warpIR(const std::string &Body) {
  auto L = lift("warp.ptx", kernelText(Body));
  if (!L) {
    ADD_FAILURE() << llvm::toString(L.takeError());
    return "";
  }
  for (const ir::KernelFailure &F : (*L)->R.Failures)
    ADD_FAILURE() << F.Message;
  return printModule(*(*L)->R.M);
}

#define EXPECT_IR_HAS(IR, Text) EXPECT_NE((IR).find(Text), std::string::npos) << (IR)

TEST(WarpIR, ShflDownPairDestinationSplitsValueAndPredicate) {
  std::string S = warpIR("shfl.sync.down.b32 %r1|%p1, %r2, 3, 31, -1;");
  EXPECT_IR_HAS(S, "call i64 @reptx.shfl.down(i32 ");
  EXPECT_IR_HAS(S, ", i32 3, i32 31, i32 -1)");
  EXPECT_IR_HAS(S, "lshr i64 ");
  EXPECT_IR_HAS(S, "trunc i64 %");
  EXPECT_IR_HAS(S, "to i1");
}

TEST(WarpIR, ShflOnFloatRegisterIsBitwise) {
  std::string S = warpIR("shfl.sync.bfly.b32 %f1, %f2, 16, 31, -1;");
  EXPECT_IR_HAS(S, "bitcast float");
  EXPECT_IR_HAS(S, "@reptx.shfl.bfly(");
}

TEST(WarpIR, DeprecatedShflWithoutSyncUsesFullMask) {
  std::string S = warpIR("shfl.up.b32 %r1, %r2, 1, 0;");
  EXPECT_IR_HAS(S, ", i32 1, i32 0, i32 -1)");
}

TEST(WarpIR, WarpIntrinsicsAreConvergentWithSideEffects) {
  auto L = lift("warp.ptx", kernelText("activemask.b32 %r1;\nvote.sync.all.pred %p1, %p2, %r1;"));
  ASSERT_TRUE(static_cast<bool>(L)) << llvm::toString(L.takeError());
  for (const char *Name : {"reptx.activemask", "reptx.vote.all"}) {
    llvm::Function *F = (*L)->R.M->getFunction(Name);
    ASSERT_NE(F, nullptr) << Name;
    EXPECT_TRUE(F->isConvergent()) << Name;
    EXPECT_FALSE(F->doesNotAccessMemory()) << Name; // never merged or hoisted
  }
}

TEST(WarpIR, VoteNegatedSourceIsInverted) {
  std::string S = warpIR("vote.sync.any.pred %p1, !%p2, %r1;");
  EXPECT_IR_HAS(S, "xor i1 ");
  EXPECT_IR_HAS(S, "call i1 @reptx.vote.any(i1 ");
}

TEST(WarpIR, VoteBallotInEitherModifierOrder) {
  // The corpus spells it both ways (vote.ballot.sync.b32 756 times).
  EXPECT_IR_HAS(warpIR("vote.ballot.sync.b32 %r1, %p1, %r2;"), "call i32 @reptx.vote.ballot(i1 ");
  EXPECT_IR_HAS(warpIR("vote.sync.ballot.b32 %r1, %p1, %r2;"), "call i32 @reptx.vote.ballot(i1 ");
  EXPECT_IR_HAS(warpIR("vote.uni.pred %p1, %p2;"), "@reptx.vote.uni(i1 %");
}

TEST(WarpIR, MatchAnyAndAllWithPredicate) {
  EXPECT_IR_HAS(warpIR("match.any.sync.b32 %r1, %r2, %r3;"), "call i32 @reptx.match.any.b32(i32 ");
  std::string S = warpIR("match.all.sync.b64 %r1|%p1, %rd1, %r3;");
  EXPECT_IR_HAS(S, "call i64 @reptx.match.all.b64(i64 ");
  EXPECT_IR_HAS(S, "lshr i64 ");
}

TEST(WarpIR, ReduxSignedMinUsesSignedHelper) {
  EXPECT_IR_HAS(warpIR("redux.sync.min.s32 %r1, %r2, -1;"), "@reptx.redux.smin(");
  EXPECT_IR_HAS(warpIR("redux.sync.max.u32 %r1, %r2, -1;"), "@reptx.redux.umax(");
  EXPECT_IR_HAS(warpIR("redux.sync.add.s32 %r1, %r2, -1;"), "@reptx.redux.add(");
  EXPECT_IR_HAS(warpIR("redux.sync.xor.b32 %r1, %r2, -1;"), "@reptx.redux.xor(");
}

TEST(WarpIR, ReduxOnFloatIsRejectedForItsKernelOnly) {
  auto L = lift("warp.ptx", kernelText("redux.sync.min.f32 %f1, %f2, -1;"));
  ASSERT_TRUE(static_cast<bool>(L)) << llvm::toString(L.takeError());
  ASSERT_EQ((*L)->R.Failures.size(), 1u);
  EXPECT_NE((*L)->R.Failures[0].Message.find("redux.sync.min.f32"), std::string::npos)
      << (*L)->R.Failures[0].Message;
}

TEST(WarpIR, ElectWithSinkDestinationComparesLeaderWithLaneId) {
  std::string S = warpIR("elect.sync _|%p1, -1;");
  EXPECT_IR_HAS(S, "call i32 @reptx.elect(i32 -1)");
  EXPECT_IR_HAS(S, "call i32 @reptx.laneid()");
  EXPECT_IR_HAS(S, "icmp eq i32");
}

TEST(WarpIR, LanemasksFromLaneId) {
  std::string Lt = warpIR("mov.u32 %r1, %lanemask_lt;");
  EXPECT_IR_HAS(Lt, "shl i32 1, %");
  EXPECT_IR_HAS(Lt, "sub i32 ");
  EXPECT_IR_HAS(warpIR("mov.u32 %r1, %lanemask_gt;"), "xor i32 ");
  EXPECT_IR_HAS(warpIR("mov.u32 %r1, %laneid;"), "call i32 @reptx.laneid()");
}

TEST(WarpIR, WarpIdIsFlatThreadIdOver32) {
  std::string S = warpIR("mov.u32 %r1, %warpid;\nmov.u32 %r2, %nwarpid;");
  EXPECT_IR_HAS(S, "@reptx.tid.z()");
  EXPECT_IR_HAS(S, "lshr i32 ");
  EXPECT_IR_HAS(S, "add i32 %");
}

TEST(WarpIR, BarWarpSyncAndActivemask) {
  std::string S = warpIR("bar.warp.sync -1;\nactivemask.b32 %r1;");
  EXPECT_IR_HAS(S, "call void @reptx.warp.sync(i32 -1)");
  EXPECT_IR_HAS(S, "call i32 @reptx.activemask()");
}

// ------------------------------------------------------------------------- backend-level checks

llvm::Expected<backend::CodeObject> compileText(const std::string &Text, const std::string &Arch,
                                                Mode M) {
  auto L = lift("warp.ptx", Text);
  if (!L)
    return L.takeError();
  if (!(*L)->R.Failures.empty())
    return llvm::createStringError((*L)->R.Failures[0].Message);
  backend::CompileOptions Opts;
  Opts.Arch = Arch;
  Opts.Wave64 = M;
  return backend::compile(*(*L)->R.M, Opts);
}

TEST(WarpBackend, HelperLibraryLinksForEveryTarget) {
  auto Text = readKernelPtx("warp_vote");
  ASSERT_TRUE(static_cast<bool>(Text)) << llvm::toString(Text.takeError());
  for (llvm::StringRef Arch : backend::supportedArchs()) {
    SCOPED_TRACE(Arch.str());
    auto L = lift("warp_vote.ptx", *Text);
    ASSERT_TRUE(static_cast<bool>(L)) << llvm::toString(L.takeError());
    backend::CompileOptions Opts;
    Opts.Arch = Arch.str();
    // Before optimization the helpers are linked, internal and always-inline, and no warp
    // intrinsic is left undefined.
    auto M = backend::prepareModule(*(*L)->R.M, Opts);
    ASSERT_TRUE(static_cast<bool>(M)) << llvm::toString(M.takeError());
    for (const llvm::Function &F : **M)
      if (F.getName().starts_with("reptx.")) {
        EXPECT_FALSE(F.isDeclaration()) << F.getName().str();
        EXPECT_TRUE(F.hasInternalLinkage()) << F.getName().str();
        EXPECT_FALSE(F.hasFnAttribute("target-cpu")) << F.getName().str();
      }
    auto CO = backend::compile(*(*L)->R.M, Opts);
    ASSERT_TRUE(static_cast<bool>(CO)) << llvm::toString(CO.takeError());
    EXPECT_EQ(CO->Kernels.size(), 2u);
  }
  EXPECT_EQ(backend::helperLibraryDigest().size(), 32u);
}

TEST(WarpBackend, SingleModeLeadingArgumentAndWorkGroupSize) {
  std::string Text = ".version 8.0\n.target sm_80\n.address_size 64\n"
                     ".visible .entry k(.param .u64 out, .param .u32 n) .reqntid 96, 1, 1\n{\n"
                     ".reg .b32 %r<4>;\n.reg .b64 %rd<4>;\nld.param.u64 %rd1, [out];\n"
                     "mov.u32 %r1, %laneid;\nst.global.u32 [%rd1], %r1;\nret;\n}\n";
  auto Single = compileText(Text, "gfx942", Mode::Single);
  ASSERT_TRUE(static_cast<bool>(Single)) << llvm::toString(Single.takeError());
  auto CO = CodeObject::load(Single->Bytes);
  ASSERT_TRUE(static_cast<bool>(CO)) << llvm::toString(CO.takeError());
  const Kernel *K = (*CO)->findKernel("k");
  ASSERT_NE(K, nullptr);
  EXPECT_TRUE(isWave64Single(*K));
  ASSERT_GE(K->Args.size(), 3u);
  EXPECT_EQ(K->Args[0].Name, "__reptx_wave64_single");
  EXPECT_EQ(K->Args[0].Offset, 0u);
  EXPECT_EQ(K->Args[0].Size, 16u);
  // The PTX parameters follow at their PTX offsets plus 16.
  EXPECT_EQ(K->Args[1].Offset, 16u);
  EXPECT_EQ(K->Args[2].Offset, 24u);
  // .reqntid 96: three warps, three waves of 64 work-items.
  EXPECT_EQ(K->MaxFlatWorkgroupSize, 192u);

  // Packed mode and wave32 keep the PTX parameter list and block size.
  for (const char *Arch : {"gfx942", "gfx1100"}) {
    auto Packed = compileText(Text, Arch, Mode::Packed);
    ASSERT_TRUE(static_cast<bool>(Packed)) << llvm::toString(Packed.takeError());
    auto PCO = CodeObject::load(Packed->Bytes);
    ASSERT_TRUE(static_cast<bool>(PCO)) << llvm::toString(PCO.takeError());
    const Kernel *PK = (*PCO)->findKernel("k");
    ASSERT_NE(PK, nullptr);
    EXPECT_FALSE(isWave64Single(*PK));
    EXPECT_EQ(PK->Args[0].Offset, 0u);
    EXPECT_EQ(PK->MaxFlatWorkgroupSize, 96u);
  }
}

TEST(WarpBackend, SingleModeBlockSizeInFunctionsComesFromTheDispatchPacket) {
  // A kernel reads its leading argument through the kernarg segment pointer; a .func does not
  // receive that pointer, so it reads the segment's address from the dispatch packet.
  std::string Text = ".version 8.0\n.target sm_80\n.address_size 64\n"
                     ".func (.param .b32 r) f()\n{\n.reg .b32 %r<2>;\n"
                     "mov.u32 %r1, %ntid.x;\nst.param.b32 [r], %r1;\nret;\n}\n"
                     ".visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<3>;\n.reg .b64 %rd<2>;\n"
                     "{\n.param .b32 rv;\ncall (rv), f, ();\nld.param.b32 %r1, [rv];\n}\n"
                     "mov.u32 %r2, %ntid.x;\nadd.u32 %r1, %r1, %r2;\n"
                     "ld.param.u64 %rd1, [out];\nst.global.u32 [%rd1], %r1;\nret;\n}\n";
  auto L = lift("func.ptx", Text);
  ASSERT_TRUE(static_cast<bool>(L)) << llvm::toString(L.takeError());
  ASSERT_TRUE((*L)->R.Failures.empty()) << (*L)->R.Failures[0].Message;
  backend::CompileOptions Opts;
  Opts.Wave64 = Mode::Single;
  auto M = backend::prepareModule(*(*L)->R.M, Opts);
  ASSERT_TRUE(static_cast<bool>(M)) << llvm::toString(M.takeError());
  llvm::Function *InFunc = (*M)->getFunction("reptx.ntid.x");
  llvm::Function *InKernel = (*M)->getFunction("reptx.ntid.x.kernel");
  ASSERT_TRUE(InFunc && InKernel);
  std::string FuncIR, KernelIR;
  llvm::raw_string_ostream FOS(FuncIR), KOS(KernelIR);
  InFunc->print(FOS);
  InKernel->print(KOS);
  EXPECT_IR_HAS(FuncIR, "@llvm.amdgcn.dispatch.ptr()");
  EXPECT_IR_HAS(KernelIR, "@llvm.amdgcn.kernarg.segment.ptr()");
  for (const llvm::User *U : InFunc->users())
    EXPECT_EQ(llvm::cast<llvm::Instruction>(U)->getFunction()->getName(), "f");
  for (const llvm::User *U : InKernel->users())
    EXPECT_EQ(llvm::cast<llvm::Instruction>(U)->getFunction()->getName(), "k");
  auto CO = backend::compile(*(*L)->R.M, Opts);
  ASSERT_TRUE(static_cast<bool>(CO)) << llvm::toString(CO.takeError());
}

TEST(WarpBackend, SingleModeRejectsBlocksOver512Threads) {
  std::string Text = ".version 8.0\n.target sm_80\n.address_size 64\n"
                     ".visible .entry big() .reqntid 1024, 1, 1\n{\nret;\n}\n";
  auto R = compileText(Text, "gfx942", Mode::Single);
  ASSERT_FALSE(static_cast<bool>(R));
  std::string Msg = llvm::toString(R.takeError());
  EXPECT_NE(Msg.find("512"), std::string::npos) << Msg;
}

// ------------------------------------------------------------------------------ execution

struct Config {
  std::string Arch;
  Mode Wave64;
};

bool isWave64(const std::string &Arch) { return Arch == "gfx942" || Arch == "gfx90a"; }

std::string configName(const ::testing::TestParamInfo<Config> &I) {
  if (!isWave64(I.param.Arch))
    return I.param.Arch;
  return I.param.Arch + (I.param.Wave64 == Mode::Single ? "_single" : "_packed");
}

// The active lanes of every warp of a 1-D launch of Blocks blocks of Block threads in which the
// threads with global index >= N left before the warp operation.
struct WarpSlice {
  uint32_t First; // global index of lane 0
  uint32_t Active;
};
std::vector<WarpSlice> warps(uint32_t Blocks, uint32_t Block, uint32_t N) {
  std::vector<WarpSlice> W;
  for (uint32_t B = 0; B < Blocks; ++B)
    for (uint32_t T = 0; T < Block; T += 32) {
      uint32_t First = B * Block + T, Active = 0;
      for (uint32_t L = 0; L < 32 && T + L < Block; ++L)
        if (First + L < N)
          Active |= 1u << L;
      W.push_back({First, Active});
    }
  return W;
}

std::vector<uint32_t> randomWords(size_t N, uint32_t Seed) {
  std::mt19937 Rng(Seed);
  std::vector<uint32_t> V(N);
  for (uint32_t &X : V)
    X = Rng();
  return V;
}

constexpr uint32_t Sentinel = 0xdeadbeefu;

class WarpExec : public ::testing::TestWithParam<Config> {
public:
  // Compiled once per kernel file and configuration.
  llvm::Expected<const CodeObject *> load(const std::string &Name) {
    static std::map<std::string, std::unique_ptr<CodeObject>> Cache;
    std::string Key = Name + "/" + configName(::testing::TestParamInfo<Config>(GetParam(), 0));
    if (auto It = Cache.find(Key); It != Cache.end())
      return It->second.get();
    auto Text = readKernelPtx(Name);
    if (!Text)
      return Text.takeError();
    auto Obj = compileText(*Text, GetParam().Arch, GetParam().Wave64);
    if (!Obj)
      return Obj.takeError();
    auto CO = CodeObject::load(Obj->Bytes);
    if (!CO)
      return CO.takeError();
    for (const Kernel &K : (*CO)->kernels()) {
      EXPECT_EQ(K.PrivateSegmentFixedSize, 0u) << K.Name << " uses scratch";
      EXPECT_EQ(isWave64Single(K), GetParam().Wave64 == Mode::Single && isWave64(GetParam().Arch))
          << K.Name;
    }
    return (Cache[Key] = std::move(*CO)).get();
  }

  // A CUDA-style launch through the wave64 single-mode ABI when the kernel uses it.
  llvm::Expected<DispatchResult> launch(Device &Dev, const CodeObject &CO, llvm::StringRef Kernel,
                                        Dim3 Blocks, Dim3 Block, KernargBuilder &Args) {
    auto P = ptxLaunch(CO, Kernel, Blocks, Block, Args.take());
    if (!P)
      return P.takeError();
    return Dev.dispatch(CO, *P);
  }
};

// PTX ISA 9.7.9.6: the source lane j and the predicate of shfl.sync for lane Lane.
struct ShflRef {
  uint32_t J;
  bool P;
};
ShflRef shflRef(int Mode, uint32_t Lane, uint32_t B, uint32_t C) {
  int L = int(Lane), Bv = int(B & 31), Cv = int(C & 31), Seg = int((C >> 8) & 31);
  int MaxLane = (L & Seg) | (Cv & ~Seg), MinLane = L & Seg;
  int J = 0;
  bool P = false;
  switch (Mode) {
  case 0: // up
    J = L - Bv;
    P = J >= MaxLane;
    break;
  case 1: // down
    J = L + Bv;
    P = J <= MaxLane;
    break;
  case 2: // bfly
    J = L ^ Bv;
    P = J <= MaxLane;
    break;
  default: // idx
    J = MinLane | (Bv & ~Seg);
    P = J <= MaxLane;
    break;
  }
  return {P ? uint32_t(J) : Lane, P};
}

void checkShfl(WarpExec &T, const CodeObject &CO, uint32_t B, uint32_t C) {
  const uint32_t Block = 96, Blocks = 3, N = 250; // the last block's second warp has 26 lanes
  auto In = randomWords(Blocks * Block, 11 + B);
  Device Dev;
  auto DIn = Dev.allocateArray<uint32_t>(In, "in");
  ASSERT_TRUE(static_cast<bool>(DIn)) << llvm::toString(DIn.takeError());
  std::vector<uint32_t> Init(Blocks * Block * 8, Sentinel);
  auto DOut = Dev.allocateArray<uint32_t>(Init, "out");
  ASSERT_TRUE(static_cast<bool>(DOut)) << llvm::toString(DOut.takeError());
  KernargBuilder A;
  A.addPointer(*DIn).addPointer(*DOut).add(int32_t(N)).add(B).add(C);
  auto R = T.launch(Dev, CO, "warp_shfl", {Blocks, 1, 1}, {Block, 1, 1}, A);
  ASSERT_TRUE(static_cast<bool>(R)) << llvm::toString(R.takeError());
  auto Out = Dev.readArray<uint32_t>(*DOut, Init.size());
  ASSERT_TRUE(static_cast<bool>(Out)) << llvm::toString(Out.takeError());
  for (const WarpSlice &W : warps(Blocks, Block, N))
    for (uint32_t L = 0; L < 32; ++L) {
      uint32_t I = W.First + L;
      if (!((W.Active >> L) & 1)) {
        for (unsigned K = 0; K < 8; ++K)
          ASSERT_EQ((*Out)[I * 8 + K], Sentinel) << "inactive thread " << I;
        continue;
      }
      for (int Mode = 0; Mode < 4; ++Mode) {
        ShflRef Ref = shflRef(Mode, L, B, C);
        SCOPED_TRACE("thread " + std::to_string(I) + " mode " + std::to_string(Mode));
        EXPECT_EQ((*Out)[I * 8 + 2 * Mode + 1], Ref.P ? 1u : 0u);
        // Reading an inactive lane is undefined (PTX ISA 9.7.9.6): not checked.
        if ((W.Active >> Ref.J) & 1)
          EXPECT_EQ((*Out)[I * 8 + 2 * Mode], In[W.First + Ref.J]);
      }
    }
}

TEST_P(WarpExec, ShflUpClampAtLaneZero) {
  auto CO = load("warp_shfl");
  ASSERT_TRUE(static_cast<bool>(CO)) << llvm::toString(CO.takeError());
  checkShfl(*this, **CO, 1, 0x00); // lane 0 keeps its value, p = 0
  checkShfl(*this, **CO, 5, 0x00);
}

TEST_P(WarpExec, ShflDownPastSegmentEndKeepsOwnValueAndPredicateFalse) {
  auto CO = load("warp_shfl");
  ASSERT_TRUE(static_cast<bool>(CO)) << llvm::toString(CO.takeError());
  checkShfl(*this, **CO, 3, 0x1f);
  checkShfl(*this, **CO, 31, 0x1f);
}

TEST_P(WarpExec, ShflBflyWithSegmentMasks) {
  auto CO = load("warp_shfl");
  ASSERT_TRUE(static_cast<bool>(CO)) << llvm::toString(CO.takeError());
  checkShfl(*this, **CO, 5, (0x18 << 8) | 0x07);  // width 8
  checkShfl(*this, **CO, 12, (0x10 << 8) | 0x0f); // width 16, offset crossing the segment
}

TEST_P(WarpExec, ShflIdxOutOfRangeLane) {
  auto CO = load("warp_shfl");
  ASSERT_TRUE(static_cast<bool>(CO)) << llvm::toString(CO.takeError());
  checkShfl(*this, **CO, 40, (0x10 << 8) | 0x03);   // source 8 past clamp 3: own value, p = 0
  checkShfl(*this, **CO, 7, 0x1f);                  // broadcast of lane 7
  checkShfl(*this, **CO, 0xffffffe3u, 0xffff1f1fu); // only b[4:0], c[4:0], c[12:8] count
}

TEST_P(WarpExec, ShflWidth16Immediates) {
  auto CO = load("warp_shfl");
  ASSERT_TRUE(static_cast<bool>(CO)) << llvm::toString(CO.takeError());
  const uint32_t Block = 64, Blocks = 2, N = Block * Blocks;
  std::vector<float> In(N);
  for (uint32_t I = 0; I < N; ++I)
    In[I] = float(I) * 1.5f - 7.0f;
  Device Dev;
  auto DIn = Dev.allocateArray<float>(In, "in");
  ASSERT_TRUE(static_cast<bool>(DIn));
  auto DOut = Dev.allocate(N * 4 * sizeof(float), "out");
  ASSERT_TRUE(static_cast<bool>(DOut));
  KernargBuilder A;
  A.addPointer(*DIn).addPointer(*DOut);
  auto R = launch(Dev, **CO, "warp_shfl_width16", {Blocks, 1, 1}, {Block, 1, 1}, A);
  ASSERT_TRUE(static_cast<bool>(R)) << llvm::toString(R.takeError());
  auto Out = Dev.readArray<float>(*DOut, N * 4);
  ASSERT_TRUE(static_cast<bool>(Out));
  for (uint32_t I = 0; I < N; ++I) {
    uint32_t L = I % 32, Seg = L & 16, W = I - L, S = L - Seg;
    // CUDA's __shfl_*_sync(mask, v, delta, 16) within 16-lane segments.
    float Up = S >= 3 ? In[W + L - 3] : In[I];
    float Down = S + 5 < 16 ? In[W + L + 5] : In[I];
    float Xor = In[W + (L ^ 9)];
    float Idx = In[W + Seg + (21 % 16)];
    EXPECT_EQ((*Out)[I * 4 + 0], Up) << I;
    EXPECT_EQ((*Out)[I * 4 + 1], Down) << I;
    EXPECT_EQ((*Out)[I * 4 + 2], Xor) << I;
    EXPECT_EQ((*Out)[I * 4 + 3], Idx) << I;
  }
}

TEST_P(WarpExec, WarpShuffleReduction) {
  auto CO = load("warp_reduce");
  ASSERT_TRUE(static_cast<bool>(CO)) << llvm::toString(CO.takeError());
  const uint32_t N = 1000;
  auto In = randomWords(N, 21);
  for (uint32_t Block : {96u, 256u, 32u, 160u}) {
    SCOPED_TRACE("block " + std::to_string(Block));
    uint32_t Blocks = (N + Block - 1) / Block, Warps = Block / 32;
    Device Dev;
    auto DIn = Dev.allocateArray<uint32_t>(In, "in");
    auto DW = Dev.allocate(Blocks * Warps * 4, "warp_sums");
    auto DB = Dev.allocate(Blocks * 4, "block_sums");
    ASSERT_TRUE(DIn && DW && DB);
    KernargBuilder A;
    A.addPointer(*DIn).addPointer(*DW).addPointer(*DB).add(int32_t(N));
    auto R = launch(Dev, **CO, "warp_reduce", {Blocks, 1, 1}, {Block, 1, 1}, A);
    ASSERT_TRUE(static_cast<bool>(R)) << llvm::toString(R.takeError());
    // Waves per block: one per warp in single mode, else one per 64 (wave64) or 32 threads.
    uint32_t Wave = isWave64(GetParam().Arch) ? 64 : 32;
    uint32_t PerBlock =
        GetParam().Wave64 == Mode::Single && Wave == 64 ? Warps : (Block + Wave - 1) / Wave;
    EXPECT_EQ(R->Waves, uint64_t(Blocks) * PerBlock);
    auto W = Dev.readArray<uint32_t>(*DW, Blocks * Warps);
    auto Bs = Dev.readArray<uint32_t>(*DB, Blocks);
    ASSERT_TRUE(W && Bs);
    for (uint32_t B = 0; B < Blocks; ++B) {
      uint32_t BlockSum = 0;
      for (uint32_t K = 0; K < Warps; ++K) {
        uint32_t Sum = 0;
        for (uint32_t L = 0; L < 32; ++L) {
          uint32_t I = B * Block + K * 32 + L;
          Sum += I < N ? In[I] : 0;
        }
        EXPECT_EQ((*W)[B * Warps + K], Sum) << "block " << B << " warp " << K;
        BlockSum += Sum;
      }
      EXPECT_EQ((*Bs)[B], BlockSum) << "block " << B;
    }
  }
}

TEST_P(WarpExec, WarpShuffleReductionFloatTreeOrder) {
  auto CO = load("warp_reduce");
  ASSERT_TRUE(static_cast<bool>(CO)) << llvm::toString(CO.takeError());
  const uint32_t Block = 96, Blocks = 2, N = Block * Blocks;
  std::mt19937 Rng(5);
  std::uniform_real_distribution<float> D(-100.0f, 100.0f);
  std::vector<float> In(N);
  for (float &X : In)
    X = D(Rng);
  Device Dev;
  auto DIn = Dev.allocateArray<float>(In, "in");
  auto DW = Dev.allocate(N / 32 * 4, "warp_sums");
  ASSERT_TRUE(DIn && DW);
  KernargBuilder A;
  A.addPointer(*DIn).addPointer(*DW);
  auto R = launch(Dev, **CO, "warp_reduce_f32", {Blocks, 1, 1}, {Block, 1, 1}, A);
  ASSERT_TRUE(static_cast<bool>(R)) << llvm::toString(R.takeError());
  auto W = Dev.readArray<float>(*DW, N / 32);
  ASSERT_TRUE(static_cast<bool>(W));
  for (uint32_t K = 0; K < N / 32; ++K) {
    // Every lane adds the shfl.down result, its own value past the warp's end.
    float V[32];
    for (uint32_t L = 0; L < 32; ++L)
      V[L] = In[K * 32 + L];
    for (uint32_t Off = 16; Off > 0; Off >>= 1) {
      float Next[32];
      for (uint32_t L = 0; L < 32; ++L)
        Next[L] = V[L] + (L + Off < 32 ? V[L + Off] : V[L]);
      std::copy(Next, Next + 32, V);
    }
    EXPECT_EQ(std::bit_cast<uint32_t>((*W)[K]), std::bit_cast<uint32_t>(V[0])) << "warp " << K;
  }
}

TEST_P(WarpExec, WarpBallotCompactionWithPartialWarp) {
  auto CO = load("warp_ballot");
  ASSERT_TRUE(static_cast<bool>(CO)) << llvm::toString(CO.takeError());
  for (auto [Block, N] : {std::pair{96u, 250u}, std::pair{64u, 300u}, std::pair{128u, 97u}}) {
    SCOPED_TRACE("block " + std::to_string(Block) + " n " + std::to_string(N));
    uint32_t Blocks = (N + Block - 1) / Block, Total = Blocks * Block;
    std::mt19937 Rng(N);
    std::vector<int32_t> In(Total);
    for (int32_t &X : In)
      X = int32_t(Rng() % 2000) - 500;
    Device Dev;
    auto DIn = Dev.allocateArray<int32_t>(In, "in");
    std::vector<int32_t> OutInit(Total, int32_t(Sentinel));
    auto DOut = Dev.allocateArray<int32_t>(OutInit, "out");
    std::vector<uint32_t> CountInit(Total / 32, Sentinel), BallotInit(Total, Sentinel);
    auto DCount = Dev.allocateArray<uint32_t>(CountInit, "counts");
    auto DBallot = Dev.allocateArray<uint32_t>(BallotInit, "ballots");
    ASSERT_TRUE(DIn && DOut && DCount && DBallot);
    KernargBuilder A;
    A.addPointer(*DIn).addPointer(*DOut).addPointer(*DCount).addPointer(*DBallot).add(int32_t(N));
    auto R = launch(Dev, **CO, "warp_compact", {Blocks, 1, 1}, {Block, 1, 1}, A);
    ASSERT_TRUE(static_cast<bool>(R)) << llvm::toString(R.takeError());
    auto Out = Dev.readArray<int32_t>(*DOut, Total);
    auto Counts = Dev.readArray<uint32_t>(*DCount, Total / 32);
    auto Ballots = Dev.readArray<uint32_t>(*DBallot, Total);
    ASSERT_TRUE(Out && Counts && Ballots);
    for (const WarpSlice &W : warps(Blocks, Block, N)) {
      uint32_t Mask = 0;
      std::vector<int32_t> Kept;
      for (uint32_t L = 0; L < 32; ++L) {
        int32_t V = In[W.First + L];
        if (((W.Active >> L) & 1) && V > 0 && V % 3 != 0) {
          Mask |= 1u << L;
          Kept.push_back(V);
        }
      }
      for (uint32_t L = 0; L < 32; ++L) {
        uint32_t I = W.First + L;
        EXPECT_EQ((*Ballots)[I], ((W.Active >> L) & 1) ? Mask : Sentinel) << I;
        EXPECT_EQ((*Out)[I], L < Kept.size() ? Kept[L] : int32_t(Sentinel)) << I;
      }
      EXPECT_EQ((*Counts)[W.First / 32], W.Active ? uint32_t(Kept.size()) : Sentinel);
    }
  }
}

TEST_P(WarpExec, VoteMatchReduxInDivergentPartialWarps) {
  auto CO = load("warp_vote");
  ASSERT_TRUE(static_cast<bool>(CO)) << llvm::toString(CO.takeError());
  const uint32_t Block = 96, Blocks = 3, N = 250, Total = Block * Blocks, Words = 20;
  auto In = randomWords(Total, 31);
  // Warp 0: predicate true everywhere and one top-bits value (vote.all, vote.uni, match.all
  // true); warp 1: predicate false everywhere; warp 2: few distinct keys for match.any; others
  // random (vote.uni with divergent values).
  for (uint32_t L = 0; L < 32; ++L) {
    In[L] = (In[L] & 0x3ffffffcu) | 0x80000000u;
    In[32 + L] = (In[32 + L] & ~3u) | 1u;
    In[64 + L] = (In[64 + L] & 0x0fffffffu) | ((L % 3) << 28);
  }
  Device Dev;
  auto DIn = Dev.allocateArray<uint32_t>(In, "in");
  std::vector<uint32_t> Init(Total * Words, Sentinel);
  auto DOut = Dev.allocateArray<uint32_t>(Init, "out");
  ASSERT_TRUE(DIn && DOut);
  KernargBuilder A;
  A.addPointer(*DIn).addPointer(*DOut).add(int32_t(N));
  auto R = launch(Dev, **CO, "warp_vote", {Blocks, 1, 1}, {Block, 1, 1}, A);
  ASSERT_TRUE(static_cast<bool>(R)) << llvm::toString(R.takeError());
  auto Out = Dev.readArray<uint32_t>(*DOut, Init.size());
  ASSERT_TRUE(static_cast<bool>(Out));
  for (const WarpSlice &W : warps(Blocks, Block, N)) {
    uint32_t Act = 0;
    for (uint32_t L = 0; L < 32; ++L)
      if (((W.Active >> L) & 1) && L % 3 != 1)
        Act |= 1u << L;
    auto V = [&](uint32_t L) { return In[W.First + L]; };
    uint32_t Ballot = 0;
    for (uint32_t L = 0; L < 32; ++L)
      if (((Act >> L) & 1) && (V(L) & 3) == 0)
        Ballot |= 1u << L;
    uint32_t MatchAllKey = 0;
    bool MatchAll = true, First = true;
    uint32_t Add = 0, UMin = ~0u, UMax = 0, And = ~0u, Or = 0, Xor = 0;
    int32_t SMin = INT32_MAX, SMax = INT32_MIN;
    for (uint32_t L = 0; L < 32; ++L) {
      if (!((Act >> L) & 1))
        continue;
      uint32_t X = V(L);
      if (First)
        MatchAllKey = X >> 30;
      MatchAll &= (X >> 30) == MatchAllKey;
      First = false;
      Add += X;
      UMin = std::min(UMin, X);
      UMax = std::max(UMax, X);
      SMin = std::min(SMin, int32_t(X));
      SMax = std::max(SMax, int32_t(X));
      And &= X;
      Or |= X;
      Xor ^= X;
    }
    for (uint32_t L = 0; L < 32; ++L) {
      uint32_t I = W.First + L;
      const uint32_t *O = Out->data() + I * Words;
      SCOPED_TRACE("thread " + std::to_string(I));
      if (!((Act >> L) & 1)) {
        for (uint32_t K = 0; K < Words; ++K)
          ASSERT_EQ(O[K], Sentinel);
        continue;
      }
      uint32_t Any = 0, Any64 = 0;
      uint64_t Key64 = uint64_t(V(L) >> 29) << 33 | (V(L) & 1);
      for (uint32_t M = 0; M < 32; ++M)
        if ((Act >> M) & 1) {
          if (V(M) >> 28 == V(L) >> 28)
            Any |= 1u << M;
          if ((uint64_t(V(M) >> 29) << 33 | (V(M) & 1)) == Key64)
            Any64 |= 1u << M;
        }
      EXPECT_EQ(O[0], Act) << "activemask";
      EXPECT_EQ(O[1], (Ballot & Act) == Act ? 1u : 0u) << "vote.all";
      EXPECT_EQ(O[2], Ballot != 0 ? 1u : 0u) << "vote.any";
      EXPECT_EQ(O[3], Ballot == 0 || Ballot == Act ? 1u : 0u) << "vote.uni";
      EXPECT_EQ(O[4], Ballot) << "vote.ballot";
      EXPECT_EQ(O[5], Ballot == 0 ? 1u : 0u) << "vote.all with !p";
      EXPECT_EQ(O[6], Any) << "match.any.b32";
      EXPECT_EQ(O[7], MatchAll ? Act : 0u) << "match.all.b32";
      EXPECT_EQ(O[8], MatchAll ? 1u : 0u) << "match.all predicate";
      EXPECT_EQ(O[9], Any64) << "match.any.b64";
      EXPECT_EQ(O[10], Add) << "redux.add";
      EXPECT_EQ(O[11], uint32_t(SMin)) << "redux.min.s32";
      EXPECT_EQ(O[12], uint32_t(SMax)) << "redux.max.s32";
      EXPECT_EQ(O[13], UMin) << "redux.min.u32";
      EXPECT_EQ(O[14], UMax) << "redux.max.u32";
      EXPECT_EQ(O[15], And) << "redux.and";
      EXPECT_EQ(O[16], Or) << "redux.or";
      EXPECT_EQ(O[17], Xor) << "redux.xor";
      EXPECT_EQ(O[18], MatchAll ? Act : 0u) << "match.all.b64";
      EXPECT_EQ(O[19], MatchAll ? 1u : 0u) << "match.all.b64 predicate";
    }
  }
}

TEST_P(WarpExec, LaneIdWarpIdAndLanemasksIn3DBlocks) {
  auto CO = load("warp_vote");
  ASSERT_TRUE(static_cast<bool>(CO)) << llvm::toString(CO.takeError());
  for (Dim3 Block : {Dim3{12, 4, 2}, Dim3{50, 1, 1}, Dim3{7, 3, 5}}) {
    SCOPED_TRACE("block " + std::to_string(Block.X) + "x" + std::to_string(Block.Y) + "x" +
                 std::to_string(Block.Z));
    const uint32_t Blocks = 2, Threads = uint32_t(Block.count());
    Device Dev;
    auto DOut = Dev.allocate(Blocks * Threads * 8 * 4, "out");
    ASSERT_TRUE(static_cast<bool>(DOut));
    KernargBuilder A;
    A.addPointer(*DOut);
    auto R = launch(Dev, **CO, "warp_ids", {Blocks, 1, 1}, Block, A);
    ASSERT_TRUE(static_cast<bool>(R)) << llvm::toString(R.takeError());
    auto Out = Dev.readArray<uint32_t>(*DOut, Blocks * Threads * 8);
    ASSERT_TRUE(static_cast<bool>(Out));
    for (uint32_t I = 0; I < Blocks * Threads; ++I) {
      uint32_t T = I % Threads, L = T % 32;
      const uint32_t *O = Out->data() + I * 8;
      uint32_t Eq = 1u << L, Lt = Eq - 1, Le = Lt | Eq;
      EXPECT_EQ(O[0], L) << I;
      EXPECT_EQ(O[1], T / 32) << I;
      EXPECT_EQ(O[2], (Threads + 31) / 32) << I;
      EXPECT_EQ(O[3], Eq) << I;
      EXPECT_EQ(O[4], Le) << I;
      EXPECT_EQ(O[5], Lt) << I;
      EXPECT_EQ(O[6], ~Lt) << I;
      EXPECT_EQ(O[7], ~Le) << I;
    }
  }
}

TEST_P(WarpExec, ElectPicksLowestActiveLaneAndWarpSyncExchange) {
  auto CO = load("warp_elect");
  ASSERT_TRUE(static_cast<bool>(CO)) << llvm::toString(CO.takeError());
  const uint32_t Block = 96, Blocks = 3, N = 251, Total = Block * Blocks;
  Device Dev;
  std::vector<uint32_t> Init(Total * 3, Sentinel);
  auto DOut = Dev.allocateArray<uint32_t>(Init, "out");
  std::vector<uint32_t> Zero(Total / 32, 0);
  auto DLead = Dev.allocateArray<uint32_t>(Zero, "leaders");
  ASSERT_TRUE(DOut && DLead);
  KernargBuilder A;
  A.addPointer(*DOut).addPointer(*DLead).add(int32_t(N));
  auto R = launch(Dev, **CO, "warp_elect", {Blocks, 1, 1}, {Block, 1, 1}, A);
  ASSERT_TRUE(static_cast<bool>(R)) << llvm::toString(R.takeError());
  auto Out = Dev.readArray<uint32_t>(*DOut, Total * 3);
  auto Lead = Dev.readArray<uint32_t>(*DLead, Total / 32);
  ASSERT_TRUE(Out && Lead);
  for (const WarpSlice &W : warps(Blocks, Block, N)) {
    uint32_t Region = 0;
    for (uint32_t L = 5; L < 32; ++L)
      if (((W.Active >> L) & 1) && L % 4 != 0)
        Region |= 1u << L;
    uint32_t Leader = Region ? uint32_t(std::countr_zero(Region)) : 0;
    EXPECT_EQ((*Lead)[W.First / 32], Region ? 1u : 0u) << "warp at " << W.First;
    for (uint32_t L = 0; L < 32; ++L) {
      uint32_t I = W.First + L;
      if (!((W.Active >> L) & 1))
        continue;
      if ((W.Active >> (L ^ 1)) & 1) // the partner's store, ordered by bar.warp.sync
        EXPECT_EQ((*Out)[I * 3], (I ^ 1) * 7) << I;
      bool In = (Region >> L) & 1;
      EXPECT_EQ((*Out)[I * 3 + 1], In ? Leader : Sentinel) << I;
      EXPECT_EQ((*Out)[I * 3 + 2], In ? uint32_t(L == Leader) : Sentinel) << I;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, WarpExec,
                         ::testing::Values(Config{"gfx942", Mode::Packed},
                                           Config{"gfx942", Mode::Single},
                                           Config{"gfx1100", Mode::Packed},
                                           Config{"gfx90a", Mode::Single},
                                           Config{"gfx1201", Mode::Packed}),
                         configName);

} // namespace
