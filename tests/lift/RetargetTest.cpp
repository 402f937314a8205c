// Lifted IR is target-neutral (issue 4: "a later NVPTX target for checks on NVIDIA hardware must be
// possible without touching ir/"). This test is that NVPTX target in miniature: every test kernel
// (kernels/*.ptx) is lifted exactly as for AMDGPU, the reptx intrinsics it calls get bodies made of
// NVVM intrinsics here, PTX's sync scopes get NVPTX's names, and LLVM's NVPTX backend compiles the
// module to PTX, which ptxas then assembles for sm_80 (when the CUDA toolkit is present). Nothing
// of ir/ knows about this target.
#include "LiftTestUtil.h"

#include "reptx/ir/Intrinsics.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <mutex>

using namespace llvm;
using namespace reptx;

namespace {

std::unique_ptr<TargetMachine> nvptxMachine() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
  Triple TT("nvptx64-nvidia-cuda");
  std::string Err;
  const Target *T = TargetRegistry::lookupTarget(TT, Err);
  if (!T)
    return nullptr;
  return std::unique_ptr<TargetMachine>(T->createTargetMachine(
      TT, "sm_80", "", TargetOptions(), std::nullopt, std::nullopt, CodeGenOptLevel::Default));
}

// The body of the reptx intrinsic F for NVPTX, or false when this test does not define it.
bool defineIntrinsic(Function &F) {
  StringRef Name = F.getName();
  Module &M = *F.getParent();
  LLVMContext &Ctx = M.getContext();
  F.setLinkage(GlobalValue::InternalLinkage);
  F.addFnAttr(Attribute::AlwaysInline);
  BasicBlock *BB = BasicBlock::Create(Ctx, "entry", &F);
  IRBuilder<> B(BB);
  auto Arg = [&](unsigned I) -> Value * { return F.getArg(I); };
  auto Call = [&](Intrinsic::ID ID, ArrayRef<Value *> Args) -> Value * {
    return B.CreateCall(Intrinsic::getOrInsertDeclaration(&M, ID), Args);
  };
  auto Ret = [&](Value *V) {
    if (V)
      B.CreateRet(V);
    else
      B.CreateRetVoid();
    return true;
  };
  // {i32, i1} -> i64: the value in bits 0-31, the predicate in bit 32.
  auto Pack = [&](Value *Pair) {
    Value *D = B.CreateZExt(B.CreateExtractValue(Pair, 0), B.getInt64Ty());
    Value *P = B.CreateZExt(B.CreateExtractValue(Pair, 1), B.getInt64Ty());
    return B.CreateOr(D, B.CreateShl(P, 32));
  };
  // %tid.x ... %nctaid.z and the other special registers.
  Intrinsic::ID Sreg =
      StringSwitch<Intrinsic::ID>(Name)
          .Case("reptx.tid.x", Intrinsic::nvvm_read_ptx_sreg_tid_x)
          .Case("reptx.tid.y", Intrinsic::nvvm_read_ptx_sreg_tid_y)
          .Case("reptx.tid.z", Intrinsic::nvvm_read_ptx_sreg_tid_z)
          .Case("reptx.ntid.x", Intrinsic::nvvm_read_ptx_sreg_ntid_x)
          .Case("reptx.ntid.y", Intrinsic::nvvm_read_ptx_sreg_ntid_y)
          .Case("reptx.ntid.z", Intrinsic::nvvm_read_ptx_sreg_ntid_z)
          .Case("reptx.ctaid.x", Intrinsic::nvvm_read_ptx_sreg_ctaid_x)
          .Case("reptx.ctaid.y", Intrinsic::nvvm_read_ptx_sreg_ctaid_y)
          .Case("reptx.ctaid.z", Intrinsic::nvvm_read_ptx_sreg_ctaid_z)
          .Case("reptx.nctaid.x", Intrinsic::nvvm_read_ptx_sreg_nctaid_x)
          .Case("reptx.nctaid.y", Intrinsic::nvvm_read_ptx_sreg_nctaid_y)
          .Case("reptx.nctaid.z", Intrinsic::nvvm_read_ptx_sreg_nctaid_z)
          .Case("reptx.laneid", Intrinsic::nvvm_read_ptx_sreg_laneid)
          .Case("reptx.clock64", Intrinsic::nvvm_read_ptx_sreg_clock64)
          .Case("reptx.globaltimer", Intrinsic::nvvm_read_ptx_sreg_globaltimer)
          .Case("reptx.smid", Intrinsic::nvvm_read_ptx_sreg_smid)
          .Case("reptx.nsmid", Intrinsic::nvvm_read_ptx_sreg_nsmid)
          .Case("reptx.gridid", Intrinsic::nvvm_read_ptx_sreg_gridid)
          .Case("reptx.dynamic_smem_size", Intrinsic::nvvm_read_ptx_sreg_dynamic_smem_size)
          .Case("reptx.total_smem_size", Intrinsic::nvvm_read_ptx_sreg_total_smem_size)
          .Default(Intrinsic::not_intrinsic);
  if (Sreg != Intrinsic::not_intrinsic)
    return Ret(B.CreateZExtOrTrunc(Call(Sreg, {}), F.getReturnType()));
  if (Name == ir::intrinsics::BarrierSync) {
    Call(Intrinsic::nvvm_barrier_cta_sync_all, {B.getInt32(0)});
    return Ret(nullptr);
  }
  if (Name == ir::intrinsics::BarrierInit)
    return Ret(nullptr);
  if (Name == ir::intrinsics::BarrierSyncCount || Name == ir::intrinsics::BarrierArrive ||
      Name == ir::intrinsics::BarrierRed) {
    // A count of 0 is the whole CTA.
    Value *Count = B.CreateSelect(B.CreateICmpEQ(Arg(1), B.getInt32(0)), Arg(2), Arg(1));
    if (Name == ir::intrinsics::BarrierSyncCount) {
      Call(Intrinsic::nvvm_barrier_cta_sync_count, {Arg(0), Count});
      return Ret(nullptr);
    }
    if (Name == ir::intrinsics::BarrierArrive) {
      Call(Intrinsic::nvvm_barrier_cta_arrive_count, {Arg(0), Count});
      return Ret(nullptr);
    }
    Value *Popc = Call(Intrinsic::nvvm_barrier_cta_red_popc_count, {Arg(0), Count, Arg(3)});
    return Ret(B.CreateOr(B.CreateZExt(Popc, B.getInt64Ty()),
                          B.CreateShl(B.CreateZExt(Count, B.getInt64Ty()), 32)));
  }
  if (Name == "reptx.activemask")
    return Ret(Call(Intrinsic::nvvm_activemask, {}));
  if (Name == "reptx.warp.sync") {
    Call(Intrinsic::nvvm_bar_warp_sync, {Arg(0)});
    return Ret(nullptr);
  }
  Intrinsic::ID Vote = StringSwitch<Intrinsic::ID>(Name)
                           .Case("reptx.vote.all", Intrinsic::nvvm_vote_all_sync)
                           .Case("reptx.vote.any", Intrinsic::nvvm_vote_any_sync)
                           .Case("reptx.vote.uni", Intrinsic::nvvm_vote_uni_sync)
                           .Case("reptx.vote.ballot", Intrinsic::nvvm_vote_ballot_sync)
                           .Default(Intrinsic::not_intrinsic);
  if (Vote != Intrinsic::not_intrinsic)
    return Ret(Call(Vote, {Arg(1), Arg(0)}));
  Intrinsic::ID Shfl = StringSwitch<Intrinsic::ID>(Name)
                           .Case("reptx.shfl.up", Intrinsic::nvvm_shfl_sync_up_i32p)
                           .Case("reptx.shfl.down", Intrinsic::nvvm_shfl_sync_down_i32p)
                           .Case("reptx.shfl.bfly", Intrinsic::nvvm_shfl_sync_bfly_i32p)
                           .Case("reptx.shfl.idx", Intrinsic::nvvm_shfl_sync_idx_i32p)
                           .Default(Intrinsic::not_intrinsic);
  if (Shfl != Intrinsic::not_intrinsic)
    return Ret(Pack(Call(Shfl, {Arg(3), Arg(0), Arg(1), Arg(2)})));
  if (Name == "reptx.match.any.b32")
    return Ret(Call(Intrinsic::nvvm_match_any_sync_i32, {Arg(1), Arg(0)}));
  if (Name == "reptx.match.any.b64")
    return Ret(Call(Intrinsic::nvvm_match_any_sync_i64, {Arg(1), Arg(0)}));
  if (Name == "reptx.match.all.b32")
    return Ret(Pack(Call(Intrinsic::nvvm_match_all_sync_i32p, {Arg(1), Arg(0)})));
  if (Name == "reptx.match.all.b64")
    return Ret(Pack(Call(Intrinsic::nvvm_match_all_sync_i64p, {Arg(1), Arg(0)})));
  Intrinsic::ID Redux = StringSwitch<Intrinsic::ID>(Name)
                            .Case("reptx.redux.add", Intrinsic::nvvm_redux_sync_add)
                            .Case("reptx.redux.umin", Intrinsic::nvvm_redux_sync_umin)
                            .Case("reptx.redux.umax", Intrinsic::nvvm_redux_sync_umax)
                            .Case("reptx.redux.smin", Intrinsic::nvvm_redux_sync_min)
                            .Case("reptx.redux.smax", Intrinsic::nvvm_redux_sync_max)
                            .Case("reptx.redux.and", Intrinsic::nvvm_redux_sync_and)
                            .Case("reptx.redux.or", Intrinsic::nvvm_redux_sync_or)
                            .Case("reptx.redux.xor", Intrinsic::nvvm_redux_sync_xor)
                            .Default(Intrinsic::not_intrinsic);
  if (Redux != Intrinsic::not_intrinsic)
    return Ret(Call(Redux, {Arg(0), Arg(1)}));
  if (Name == "reptx.elect") {
    // The lowest lane of the mask that is active.
    Value *Lanes = B.CreateAnd(Call(Intrinsic::nvvm_activemask, {}), Arg(0));
    return Ret(B.CreateBinaryIntrinsic(Intrinsic::cttz, Lanes, B.getTrue()));
  }
  if (Name == ir::intrinsics::Tex1dFetch) {
    // tex.1d.v4.u32.s32 on the texture object: the four registers, whatever PTX calls them.
    Value *R = Call(Intrinsic::nvvm_tex_unified_1d_v4u32_s32, {Arg(0), Arg(1)});
    Value *V = PoisonValue::get(F.getReturnType());
    for (unsigned K = 0; K < 4; ++K)
      V = B.CreateInsertElement(V, B.CreateExtractValue(R, K), K);
    return Ret(V);
  }
  if (Name == ir::intrinsics::NanoSleep) {
    Call(Intrinsic::nvvm_nanosleep, {Arg(0)});
    return Ret(nullptr);
  }
  if (Name.consume_front(ir::intrinsics::IsSpacePrefix)) {
    Intrinsic::ID ID = StringSwitch<Intrinsic::ID>(Name)
                           .Case("global", Intrinsic::nvvm_isspacep_global)
                           .Case("const", Intrinsic::nvvm_isspacep_const)
                           .Case("shared", Intrinsic::nvvm_isspacep_shared)
                           .Default(Intrinsic::nvvm_isspacep_local);
    return Ret(Call(ID, {Arg(0)}));
  }
  // Directed rounding: the mode is a constant (0 toward zero, 2 up, 3 down).
  auto [Op, Rest] = Name.drop_front(strlen("reptx.")).split('.');
  if (Rest == "directed.f32" || Rest == "directed.f64") {
    bool F64 = Rest.ends_with("f64");
    unsigned Mode = F.arg_size() - 1;
    BasicBlock *Bad = BasicBlock::Create(Ctx, "bad", &F);
    SwitchInst *SW = B.CreateSwitch(Arg(Mode), Bad, 3);
    IRBuilder<> BadB(Bad);
    BadB.CreateUnreachable();
    for (auto [Code, Dir] : {std::pair{0, 0}, {2, 1}, {3, 2}}) {
      BasicBlock *Case = BasicBlock::Create(Ctx, "mode", &F);
      SW->addCase(B.getInt32(Code), Case);
      IRBuilder<> C(Case);
      auto Pick = [&](std::array<Intrinsic::ID, 6> IDs) { return IDs[Dir * 2 + (F64 ? 1 : 0)]; };
      auto CallC = [&](Intrinsic::ID ID, ArrayRef<Value *> Args) -> Value * {
        return C.CreateCall(Intrinsic::getOrInsertDeclaration(&M, ID), Args);
      };
      using namespace Intrinsic;
      Value *V = nullptr;
      if (Op == "add" || Op == "sub")
        V = CallC(Pick({nvvm_add_rz_f, nvvm_add_rz_d, nvvm_add_rp_f, nvvm_add_rp_d, nvvm_add_rm_f,
                        nvvm_add_rm_d}),
                  {Arg(0), Op == "sub" ? C.CreateFNeg(Arg(1)) : Arg(1)});
      else if (Op == "mul")
        V = CallC(Pick({nvvm_mul_rz_f, nvvm_mul_rz_d, nvvm_mul_rp_f, nvvm_mul_rp_d, nvvm_mul_rm_f,
                        nvvm_mul_rm_d}),
                  {Arg(0), Arg(1)});
      else if (Op == "div")
        V = CallC(Pick({nvvm_div_rz_f, nvvm_div_rz_d, nvvm_div_rp_f, nvvm_div_rp_d, nvvm_div_rm_f,
                        nvvm_div_rm_d}),
                  {Arg(0), Arg(1)});
      else if (Op == "fma")
        V = CallC(Pick({nvvm_fma_rz_f, nvvm_fma_rz_d, nvvm_fma_rp_f, nvvm_fma_rp_d, nvvm_fma_rm_f,
                        nvvm_fma_rm_d}),
                  {Arg(0), Arg(1), Arg(2)});
      else if (Op == "sqrt")
        V = CallC(Pick({nvvm_sqrt_rz_f, nvvm_sqrt_rz_d, nvvm_sqrt_rp_f, nvvm_sqrt_rp_d,
                        nvvm_sqrt_rm_f, nvvm_sqrt_rm_d}),
                  {Arg(0)});
      else
        return false;
      C.CreateRet(V);
    }
    return true;
  }
  // CUDA's device-side system calls are extern functions in PTX.
  PointerType *Ptr = B.getPtrTy();
  if (Name == ir::intrinsics::Vprintf) {
    FunctionCallee V = M.getOrInsertFunction("vprintf", B.getInt32Ty(), Ptr, Ptr);
    return Ret(B.CreateCall(V, {B.CreateIntToPtr(Arg(0), Ptr), B.CreateIntToPtr(Arg(1), Ptr)}));
  }
  if (Name == ir::intrinsics::AssertFail) {
    B.CreateIntrinsic(Intrinsic::trap, {});
    B.CreateUnreachable();
    return true;
  }
  if (Name == ir::intrinsics::Malloc) {
    FunctionCallee V = M.getOrInsertFunction("malloc", Ptr, B.getInt64Ty());
    return Ret(B.CreatePtrToInt(B.CreateCall(V, {Arg(0)}), B.getInt64Ty()));
  }
  if (Name == ir::intrinsics::Free) {
    FunctionCallee V = M.getOrInsertFunction("free", B.getVoidTy(), Ptr);
    B.CreateCall(V, {B.CreateIntToPtr(Arg(0), Ptr)});
    return Ret(nullptr);
  }
  return false;
}

// The NVPTX backend in miniature: the reptx intrinsics, kernels and sync scopes of a lifted
// module for NVPTX, then O3 and PTX. Returns the PTX text, or the reason it cannot.
Expected<std::string> compileForNvptx(Module &M, TargetMachine &TM) {
  M.setTargetTriple(TM.getTargetTriple());
  M.setDataLayout(TM.createDataLayout());
  std::vector<std::string> Undefined;
  for (Function &F : make_early_inc_range(M)) {
    if (F.isDeclaration() && F.getName().starts_with("reptx.")) {
      if (!defineIntrinsic(F)) {
        Undefined.push_back(F.getName().str());
        while (!F.empty())
          F.begin()->eraseFromParent();
      }
      continue;
    }
    if (!F.hasFnAttribute(ir::KernelAttr))
      continue;
    F.setCallingConv(CallingConv::PTX_Kernel);
    F.removeFnAttr(ir::KernelAttr);
    for (auto [From, To] :
         {std::pair{ir::MaxNTidAttr, "nvvm.maxntid"}, std::pair{ir::ReqNTidAttr, "nvvm.reqntid"}})
      if (F.hasFnAttribute(From)) {
        F.addFnAttr(To, F.getFnAttribute(From).getValueAsString());
        F.removeFnAttr(From);
      }
  }
  if (!Undefined.empty())
    return createStringError("no NVPTX body for " + join(Undefined, ", "));
  // %envregN: where AMDGPU reads a variable that the loader fills, NVPTX has the registers.
  if (GlobalVariable *Env = M.getGlobalVariable(ir::EnvRegVariable)) {
    for (User *U : make_early_inc_range(Env->users())) {
      auto *GEP = dyn_cast<GEPOperator>(U);
      auto *Idx =
          GEP && GEP->getNumIndices() == 2 ? dyn_cast<ConstantInt>(GEP->getOperand(2)) : nullptr;
      if (!Idx || Idx->getZExtValue() >= 32)
        return createStringError("an %envreg read this test cannot map");
      for (User *L : make_early_inc_range(GEP->users())) {
        auto *Load = dyn_cast<LoadInst>(L);
        if (!Load)
          return createStringError("an %envreg use that is not a load");
        IRBuilder<> B(Load);
        Intrinsic::ID ID = Intrinsic::lookupIntrinsicID(
            ("llvm.nvvm.read.ptx.sreg.envreg" + Twine(Idx->getZExtValue())).str());
        Value *V = B.CreateCall(Intrinsic::getOrInsertDeclaration(&M, ID));
        Load->replaceAllUsesWith(V);
        Load->eraseFromParent();
      }
    }
    Env->removeDeadConstantUsers();
    if (!Env->use_empty())
      return createStringError("%envreg variable still used");
    Env->eraseFromParent();
  }
  // PTX's scopes under NVPTX's names.
  LLVMContext &Ctx = M.getContext();
  SmallVector<StringRef, 8> Names;
  Ctx.getSyncScopeNames(Names);
  auto Map = [&](SyncScope::ID Id) {
    StringRef N = Id < Names.size() ? Names[Id] : "";
    if (N == ir::intrinsics::ScopeCta)
      return Ctx.getOrInsertSyncScopeID("block");
    if (N == ir::intrinsics::ScopeGpu)
      return Ctx.getOrInsertSyncScopeID("device");
    return Id;
  };
  for (Function &F : M)
    for (Instruction &I : instructions(F))
      if (auto Id = getAtomicSyncScopeID(&I))
        setAtomicSyncScopeID(&I, Map(*Id));
  std::string Why;
  raw_string_ostream VOS(Why);
  if (verifyModule(M, &VOS))
    return createStringError("the module for NVPTX does not verify: " + Why);

  LoopAnalysisManager LAM;
  FunctionAnalysisManager FAM;
  CGSCCAnalysisManager CGAM;
  ModuleAnalysisManager MAM;
  PassBuilder PB(&TM);
  PB.registerModuleAnalyses(MAM);
  PB.registerCGSCCAnalyses(CGAM);
  PB.registerFunctionAnalyses(FAM);
  PB.registerLoopAnalyses(LAM);
  PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
  PB.buildPerModuleDefaultPipeline(OptimizationLevel::O3).run(M, MAM);

  SmallString<0> Ptx;
  raw_svector_ostream OS(Ptx);
  legacy::PassManager PM;
  if (TM.addPassesToEmitFile(PM, OS, nullptr, CodeGenFileType::AssemblyFile))
    return createStringError("NVPTX cannot emit PTX");
  PM.run(M);
  return std::string(Ptx);
}

std::vector<std::string> kernelFiles() {
  std::vector<std::string> Names;
  for (const auto &E : std::filesystem::directory_iterator(REPTX_LIFT_KERNEL_DIR))
    if (E.path().extension() == ".ptx")
      Names.push_back(E.path().stem().string());
  std::sort(Names.begin(), Names.end());
  return Names;
}

// Each test kernel lifted and compiled for NVPTX: the PTX of every .entry, by file.
struct NvptxOutputs {
  std::vector<std::pair<std::string, std::string>> Ptx; // (file, PTX)
  std::vector<std::string> Errors;
};

const NvptxOutputs &nvptxOutputs() {
  static NvptxOutputs Out = [] {
    NvptxOutputs O;
    auto TM = nvptxMachine();
    if (!TM) {
      O.Errors.push_back("no NVPTX target in this LLVM");
      return O;
    }
    for (const std::string &Name : kernelFiles()) {
      auto Text = lifttest::readKernelPtx(Name);
      if (!Text) {
        O.Errors.push_back(Name + ": " + toString(Text.takeError()));
        continue;
      }
      auto L = lifttest::lift(Name + ".ptx", *Text);
      if (!L) {
        O.Errors.push_back(Name + ": " + toString(L.takeError()));
        continue;
      }
      if (!(*L)->R.Failures.empty()) {
        O.Errors.push_back(Name + ": " + (*L)->R.Failures[0].Message);
        continue;
      }
      auto Ptx = compileForNvptx(*(*L)->R.M, *TM);
      if (!Ptx) {
        O.Errors.push_back(Name + ": " + toString(Ptx.takeError()));
        continue;
      }
      O.Ptx.emplace_back(Name, std::move(*Ptx));
    }
    return O;
  }();
  return Out;
}

TEST(Retarget, EveryTestKernelCompilesForNvptx) {
  const NvptxOutputs &O = nvptxOutputs();
  for (const std::string &E : O.Errors)
    ADD_FAILURE() << E;
  EXPECT_EQ(O.Ptx.size(), kernelFiles().size());
  EXPECT_GE(O.Ptx.size(), 30u); // kernels/ holds 34 files today
  // Every .entry of the input is an .entry of the output.
  for (const auto &[Name, Ptx] : O.Ptx) {
    auto Text = lifttest::readKernelPtx(Name);
    ASSERT_TRUE(!!Text);
    ptx::ParseResult R = ptx::parse(Name, *Text);
    ASSERT_TRUE(R.ok()) << Name;
    unsigned Entries = 0;
    for (const ptx::TopLevel &T : R.M->Items)
      if (T.K == ptx::TopLevel::Func && T.F->IsEntry && T.F->Body) {
        ++Entries;
        EXPECT_NE(Ptx.find(".entry " + T.F->Name.str() + "("), std::string::npos)
            << Name << ": " << T.F->Name.str();
      }
    EXPECT_GT(Entries, 0u) << Name;
    // Texture fetches are PTX's tex again.
    if (Name == "texture")
      EXPECT_NE(Ptx.find("tex.1d.v4.u32.s32"), std::string::npos) << Ptx;
    // Special registers are PTX's own again, %envreg3 included (a variable on AMDGPU).
    if (Name == "special_regs")
      for (const char *Reg : {"%envreg3", "%clock64", "%globaltimer", "%smid", "%nsmid",
                              "%dynamic_smem_size", "%total_smem_size"})
        EXPECT_NE(Ptx.find(Reg), std::string::npos) << Reg;
  }
}

TEST(Retarget, PtxasAssemblesTheNvptxOutput) {
  std::string Ptxas = REPTX_TEST_PTXAS;
  if (!sys::fs::can_execute(Ptxas))
    GTEST_SKIP() << "no ptxas at " << Ptxas << " (CUDA toolkit)";
  const NvptxOutputs &O = nvptxOutputs();
  ASSERT_FALSE(O.Ptx.empty());
  SmallString<128> Dir;
  ASSERT_FALSE(sys::fs::createUniqueDirectory("reptx-retarget", Dir));
  for (const auto &[Name, Ptx] : O.Ptx) {
    SmallString<128> In(Dir), Out(Dir), Log(Dir);
    sys::path::append(In, Name + ".ptx");
    sys::path::append(Out, Name + ".cubin");
    sys::path::append(Log, Name + ".log");
    std::error_code EC;
    {
      raw_fd_ostream OS(In, EC);
      ASSERT_FALSE(EC) << In.str().str();
      OS << Ptx;
    }
    // -c: vprintf and malloc are extern functions the CUDA runtime's link resolves.
    std::string Err;
    int RC = sys::ExecuteAndWait(Ptxas, {Ptxas, "-arch=sm_80", "-c", In.str(), "-o", Out.str()},
                                 std::nullopt, {std::nullopt, Log.str(), Log.str()}, 120, 0, &Err);
    auto LogText = MemoryBuffer::getFile(Log);
    EXPECT_EQ(RC, 0) << Name << ": " << Err << (LogText ? (*LogText)->getBuffer().str() : "");
    EXPECT_TRUE(sys::fs::exists(Out)) << Name;
  }
  sys::fs::remove_directories(Dir);
}

} // namespace
