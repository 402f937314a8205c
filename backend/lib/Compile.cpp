// The AMDGPU code generation pipeline: prepare the lifted module for the target, run the O3
// pipeline with the target's PassBuilder callbacks, emit an object in memory, link it with lld
// in-process into an HSA code object (shared/reference/amdgpu-codegen.md §3) and check that every
// kernel made it into the output.
#include "reptx/backend/Backend.h"

#include "AmdgpuIntrinsics.h"
#include "DeviceLibrary.h"
#include "MinMaxNaN.h"
#include "SpinLocks.h"
#include "ValuePlacement.h"
#include "WarpLayout.h"

#include "reptx/ir/Intrinsics.h"
#include "reptx/ir/Lift.h"

#include "lld/Common/Driver.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/BinaryFormat/MsgPackDocument.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/ObjCopy/ConfigManager.h"
#include "llvm/ObjCopy/ObjCopy.h"
#include "llvm/Object/Binary.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Pass.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/StandardInstrumentations.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <chrono>
#include <mutex>
#include <optional>
#include <set>
#include <shared_mutex>

LLD_HAS_DRIVER(elf)

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
// Sanitizer builds only. lld ships as static libraries built without ASan, and LLVM's
// BumpPtrAllocator poisons and unpoisons its slabs only in instrumented code: once the linker keeps
// an instrumented StartNewSlab (poisoning a slab) next to lld's uninstrumented Allocate (not
// unpoisoning what it hands out), every allocation lld makes reads as use-after-poison. Manual
// poisoning is therefore switched off; ASan's own checks (heap, stack, globals) stay on.
extern "C" const char *__asan_default_options() { return "allow_user_poisoning=0"; }
#endif
#endif

using namespace llvm;

namespace reptx::backend {

namespace {

constexpr StringRef Archs[] = {"gfx90a", "gfx942", "gfx1030", "gfx1100", "gfx1201"};
const char *const TripleName = "amdgcn-amd-amdhsa";

// LLVM options are process-wide, and lld's driver resets every one of them to its default at each
// link (cl::ResetAllOptionOccurrences, before it parses its own -mllvm arguments). The options
// reptx sets are therefore set again after each link, and a pass pipeline is only built under the
// shared side of this lock, so that none is built from the defaults in between.
std::shared_mutex OptionsMutex;
std::vector<std::string> ToolOptions; // setLlvmOptions(); under OptionsMutex

// Under the unique side of OptionsMutex. False (with the reason on OS) when a tool's option is
// not one of LLVM's.
bool applyOptions(raw_ostream &OS = nulls()) {
  // AMDGPU runs SeparateConstOffsetFromGEP, StraightLineStrengthReduce, GVN and
  // NaryReassociate at the start of code generation. PTX from NVVM has been through the same
  // straight-line passes (NVPTX runs them too), and on the math libraries' kernels SLSR alone
  // took a fifth of the compile time while the pass group raised the VGPR count by half for
  // 1% fewer instructions (bench/RESULTS.md, "Compile throughput"). It changes only AMDGPU code
  // generation. LLVM 22's AMDGPUUniformIntrinsicCombine (readfirstlane, ballot and permlane
  // calls on uniform operands) changes nothing in reptx's code (the corpus sample's code objects
  // are the same byte for byte without it, for gfx942 and gfx1100) and took 1-5% of the compile
  // time with the uniformity analysis it computes (bench/RESULTS.md, "Without AMDGPU's uniform
  // intrinsic combine").
  std::vector<const char *> Args = {"reptx", "-amdgpu-scalar-ir-passes=false",
                                    "-amdgpu-enable-uniform-intrinsic-combine=false"};
  for (const std::string &A : ToolOptions)
    Args.push_back(A.c_str());
  cl::ResetAllOptionOccurrences();
  return cl::ParseCommandLineOptions(int(Args.size()), Args.data(), "", &OS);
}

void initTarget() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTarget();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUAsmPrinter();
    std::unique_lock<std::shared_mutex> Lock(OptionsMutex);
    applyOptions();
  });
}

} // namespace

Error setLlvmOptions(ArrayRef<std::string> Args) {
  initTarget();
  std::unique_lock<std::shared_mutex> Lock(OptionsMutex);
  ToolOptions.assign(Args.begin(), Args.end());
  std::string Why;
  raw_string_ostream OS(Why);
  if (applyOptions(OS))
    return Error::success();
  ToolOptions.clear();
  applyOptions();
  return createStringError("bad LLVM options: " + Why);
}

namespace {

Expected<std::unique_ptr<TargetMachine>> createTargetMachine(StringRef Arch) {
  initTarget();
  if (!isSupportedArch(Arch))
    return createStringError("unsupported target '" + Arch +
                             "' (expected gfx90a, gfx942, gfx1030, gfx1100 or gfx1201)");
  Triple TT(TripleName);
  std::string Err;
  const Target *T = TargetRegistry::lookupTarget(TT, Err);
  if (!T)
    return createStringError("AMDGPU target unavailable: " + Err);
  // No feature string: each processor keeps its default wave size (wave64 on gfx9, wave32 on
  // gfx10+), and forcing wave32 on a wave64 processor would emit an empty object.
  // CodeGenOptLevel::Default, not Aggressive: AMDGPU's code generation pipelines differ only in
  // the IR-level redundancy elimination run before instruction selection (GVN at Aggressive,
  // EarlyCSE otherwise; the straight-line scalar passes, the other difference, are off), and on
  // the toolkit's PTX, which has been through the O3 pipeline, GVN left more divergent branches
  // and exec-mask code: 3.3% more instructions over the corpus sample (9% in cuSPARSE's largest
  // text), none fewer, the same registers (bench/RESULTS.md, "Code generation at the default
  // level").
  std::unique_ptr<TargetMachine> TM(T->createTargetMachine(
      TT, Arch, "", TargetOptions(), Reloc::PIC_, std::nullopt, CodeGenOptLevel::Default));
  if (!TM)
    return createStringError("cannot create a target machine for " + Arch);
  return TM;
}

// "x,y,z" -> x*y*z, 0 when malformed.
uint64_t threadCount(StringRef Dims) {
  uint64_t N = 1;
  SmallVector<StringRef, 3> Parts;
  Dims.split(Parts, ',');
  for (StringRef P : Parts) {
    uint64_t V = 0;
    if (P.getAsInteger(10, V) || V == 0)
      return 0;
    N *= V;
  }
  return N;
}

// The sync scopes of lifted IR (ir/include/reptx/ir/Intrinsics.h) as AMDGPU's: a CTA is a
// work-group; .gpu and .cluster (no clusters here: a cluster is one CTA) are the agent.
void mapSyncScopes(Module &M) {
  LLVMContext &Ctx = M.getContext();
  SmallVector<StringRef, 8> Names;
  Ctx.getSyncScopeNames(Names);
  auto Map = [&](SyncScope::ID Id) -> SyncScope::ID {
    if (Id >= Names.size())
      return Id;
    StringRef N = Names[Id];
    if (N == ir::intrinsics::ScopeCta)
      return Ctx.getOrInsertSyncScopeID("workgroup");
    if (N == ir::intrinsics::ScopeGpu || N == ir::intrinsics::ScopeCluster)
      return Ctx.getOrInsertSyncScopeID("agent");
    return Id;
  };
  for (Function &F : M)
    for (Instruction &I : instructions(F)) {
      if (auto *X = dyn_cast<AtomicRMWInst>(&I))
        X->setSyncScopeID(Map(X->getSyncScopeID()));
      else if (auto *X = dyn_cast<AtomicCmpXchgInst>(&I))
        X->setSyncScopeID(Map(X->getSyncScopeID()));
      else if (auto *X = dyn_cast<FenceInst>(&I))
        X->setSyncScopeID(Map(X->getSyncScopeID()));
      else if (auto *X = dyn_cast<LoadInst>(&I); X && X->isAtomic())
        X->setSyncScopeID(Map(X->getSyncScopeID()));
      else if (auto *X = dyn_cast<StoreInst>(&I); X && X->isAtomic())
        X->setSyncScopeID(Map(X->getSyncScopeID()));
    }
}

Error prepare(Module &M, TargetMachine &TM, const CompileOptions &Opts) {
  if (Opts.CodeObjectVersion < 4 || Opts.CodeObjectVersion > 6)
    return createStringError("code object version must be 4, 5 or 6");
  M.setTargetTriple(TM.getTargetTriple());
  M.setDataLayout(TM.createDataLayout());
  // Helpers first (backend/device/), then the warp layout, then the simple intrinsics.
  unsigned Wave = waveSize(Opts.Arch);
  if (Error E = linkDeviceLibrary(M, Wave))
    return E;
  if (Wave == 64 && Opts.Wave64 == CompileOptions::Wave64Mode::Single)
    if (Error E = lowerWave64Single(M))
      return E;
  mapSyncScopes(M);
  if (Error E = defineIntrinsics(M, Opts.CodeObjectVersion))
    return E;
  for (Function &F : M) {
    if (!F.hasFnAttribute(ir::KernelAttr))
      continue;
    F.setCallingConv(CallingConv::AMDGPU_KERNEL);
    // .reqntid fixes the block size, .maxntid bounds it (PTX ISA 11.4.2/11.4.3); the default is
    // CUDA's limit of 1024 threads.
    std::string Size = "1,1024";
    if (F.hasFnAttribute(ir::ReqNTidAttr)) {
      uint64_t N = threadCount(F.getFnAttribute(ir::ReqNTidAttr).getValueAsString());
      if (N && N <= 1024)
        Size = (Twine(N) + "," + Twine(N)).str();
    } else if (F.hasFnAttribute(ir::MaxNTidAttr)) {
      uint64_t N = threadCount(F.getFnAttribute(ir::MaxNTidAttr).getValueAsString());
      if (N && N <= 1024)
        Size = ("1," + Twine(N)).str();
    }
    if (!F.hasFnAttribute("amdgpu-flat-work-group-size")) // wave64 single mode sets its own
      F.addFnAttr("amdgpu-flat-work-group-size", Size);
    F.removeFnAttr(ir::KernelAttr);
    F.removeFnAttr(ir::MaxNTidAttr);
    F.removeFnAttr(ir::ReqNTidAttr);
  }
  M.addModuleFlag(Module::Error, "amdhsa_code_object_version", Opts.CodeObjectVersion * 100);
  std::string Why;
  raw_string_ostream OS(Why);
  if (verifyModule(M, &OS))
    return createStringError("prepared module does not verify: " + Why);
  return Error::success();
}

// A module compiled in parts (PtxCompile.cpp): a variable that several parts use is defined in
// each of them, weak and in a comdat group of its own, and the linker keeps one definition, which
// every part's references then share. Shared memory is per kernel, nothing to share.
void shareVariables(Module &M) {
  for (GlobalVariable &GV : M.globals()) {
    if (GV.isDeclaration() || !GV.hasExternalLinkage() || GV.getAddressSpace() == ir::SharedAS)
      continue;
    GV.setLinkage(GlobalValue::WeakODRLinkage);
    GV.setComdat(M.getOrInsertComdat(GV.getName()));
  }
}

std::vector<std::string> kernelNames(const Module &M) {
  std::vector<std::string> Names;
  for (const Function &F : M)
    if (F.hasFnAttribute(ir::KernelAttr) && !F.isDeclaration())
      Names.push_back(F.getName().str());
  return Names;
}

// A private temporary directory, removed with its contents on destruction.
struct TempDir {
  SmallString<128> Path;
  ~TempDir() {
    if (!Path.empty())
      sys::fs::remove_directories(Path);
  }
};

// Objects compiled apart (a module's parts) each carry an NT_AMDGPU_METADATA note listing their
// kernels, and lld concatenates notes; a code object has one (the HSA runtime and the emulator
// read one). So before the link the first object's note becomes the merge of all (its
// amdhsa.kernels followed by the others'; every other key must agree), and the others lose
// theirs.
Expected<std::vector<std::vector<char>>> mergeMetadataNotes(ArrayRef<ObjectFile> Objects) {
  msgpack::Document Doc;
  auto Merger = [](msgpack::DocNode *Dest, msgpack::DocNode Src, msgpack::DocNode Key) -> int {
    if (Src.isArray() && Dest->isArray())
      return Key.isString() && Key.getString() == "amdhsa.kernels" ? Dest->getArray().size() : 0;
    if (Src.isMap() && Dest->isMap())
      return 0;
    return *Dest == Src ? 0 : -1;
  };
  for (const ObjectFile &O : Objects) {
    auto Obj = object::ELF64LEObjectFile::create(
        MemoryBufferRef(StringRef(O.Bytes.data(), O.Bytes.size()), "part"));
    if (!Obj)
      return Obj.takeError();
    const object::ELF64LEFile &File = Obj->getELFFile();
    auto Sections = File.sections();
    if (!Sections)
      return Sections.takeError();
    unsigned Found = 0;
    for (const object::ELF64LE::Shdr &S : *Sections) {
      if (S.sh_type != ELF::SHT_NOTE)
        continue;
      Error Err = Error::success();
      for (const object::ELF64LE::Note &N : File.notes(S, Err)) {
        if (N.getName() != "AMDGPU" || N.getType() != ELF::NT_AMDGPU_METADATA)
          continue;
        ArrayRef<uint8_t> Desc = N.getDesc(S.sh_addralign);
        if (!Doc.readFromBlob(StringRef(reinterpret_cast<const char *>(Desc.data()), Desc.size()),
                              /*Multi=*/false, Merger))
          return createStringError("cannot merge the metadata of the module's parts");
        ++Found;
      }
      if (Err)
        return std::move(Err);
    }
    if (Found != 1)
      return createStringError("a part's object has %u metadata notes, expected 1", Found);
  }
  std::string Blob;
  Doc.writeToBlob(Blob);
  // The note: name size, descriptor size, type, "AMDGPU\0" and the descriptor, each padded to 4.
  std::string Note;
  auto U32 = [&](uint32_t V) { Note.append(reinterpret_cast<const char *>(&V), 4); };
  U32(7);
  U32(uint32_t(Blob.size()));
  U32(ELF::NT_AMDGPU_METADATA);
  Note.append("AMDGPU\0\0", 8);
  Note += Blob;
  Note.resize(alignTo(Note.size(), 4), '\0');

  std::vector<std::vector<char>> Out;
  for (size_t I = 0; I < Objects.size(); ++I) {
    objcopy::ConfigManager Config;
    if (I == 0) {
      Config.Common.UpdateSection.emplace_back(".note", MemoryBuffer::getMemBufferCopy(Note));
    } else {
      if (Error E = Config.Common.ToRemove.addMatcher(objcopy::NameOrPattern::create(
              ".note", objcopy::MatchStyle::Literal, [](Error E) { return E; })))
        return std::move(E);
    }
    auto Bin = object::createBinary(
        MemoryBufferRef(StringRef(Objects[I].Bytes.data(), Objects[I].Bytes.size()), "part"));
    if (!Bin)
      return Bin.takeError();
    SmallVector<char, 0> Bytes;
    raw_svector_ostream OS(Bytes);
    if (Error E = objcopy::executeObjcopyOnBinary(Config, **Bin, OS))
      return std::move(E);
    Out.emplace_back(Bytes.begin(), Bytes.end());
  }
  return Out;
}

// Writes one of lld's input files; a full disk is an error for this compile, not an LLVM fatal
// error when the stream is destroyed.
Error writeTempFile(StringRef Path, StringRef Bytes) {
  std::error_code EC;
  raw_fd_ostream OS(Path, EC, sys::fs::OF_None);
  if (!EC) {
    OS << Bytes;
    OS.close();
    EC = OS.error();
    OS.clear_error();
  }
  return EC ? createStringError(EC, "cannot write " + Path) : Error::success();
}

Expected<std::vector<uint8_t>> linkFiles(ArrayRef<ObjectFile> Objects) {
  TempDir Dir;
  if (std::error_code EC = sys::fs::createUniqueDirectory("reptx-lld", Dir.Path))
    return createStringError(EC, "cannot create a temporary directory");
  SmallString<128> Out(Dir.Path);
  sys::path::append(Out, "kernels.hsaco");
  std::vector<std::vector<char>> Merged;
  if (Objects.size() > 1) {
    auto M = mergeMetadataNotes(Objects);
    if (!M)
      return M.takeError();
    Merged = std::move(*M);
  }
  std::vector<std::string> Inputs;
  for (size_t I = 0; I < Objects.size(); ++I) {
    SmallString<128> In(Dir.Path);
    sys::path::append(In, "part" + Twine(I) + ".o");
    const std::vector<char> &Bytes = Merged.empty() ? Objects[I].Bytes : Merged[I];
    if (Error E = writeTempFile(In, StringRef(Bytes.data(), Bytes.size())))
      return std::move(E);
    Inputs.push_back(In.str().str());
  }
  std::string Diag;
  raw_string_ostream Errs(Diag), Outs(Diag);
  std::vector<const char *> Args = {"ld.lld", "-shared", "--no-undefined"};
  for (const std::string &In : Inputs)
    Args.push_back(In.c_str());
  // Between the parts' code lld leaves the alignment gaps zero, which on gfx11 decodes as
  // v_illegal; fill them with s_nop 0 (0xBF800000, little-endian; lld writes the fill value
  // big-endian), which every target decodes. The rest of the layout stays lld's default.
  SmallString<128> Script(Dir.Path);
  if (Objects.size() > 1) {
    sys::path::append(Script, "fill.lds");
    if (Error E = writeTempFile(
            Script, "OVERWRITE_SECTIONS {\n  .text : { *(.text .text.*) } =0x000080BF\n}\n"))
      return std::move(E);
    Args.push_back("-T");
    Args.push_back(Script.c_str());
  }
  Args.push_back("-o");
  Args.push_back(Out.c_str());
  // lld keeps global state: one link at a time, and none while a pipeline is built (it resets
  // the LLVM options, which are then set again).
  lld::Result R;
  {
    std::unique_lock<std::shared_mutex> Lock(OptionsMutex);
    R = lld::lldMain(Args, Outs, Errs, {{lld::Gnu, &lld::elf::link}});
    applyOptions();
  }
  if (R.retCode != 0)
    return createStringError("lld failed: " + Diag);
  auto Buf = MemoryBuffer::getFile(Out);
  if (!Buf)
    return createStringError(Buf.getError(), "cannot read the linked code object");
  StringRef Bytes = (*Buf)->getBuffer();
  return std::vector<uint8_t>(Bytes.begin(), Bytes.end());
}

Expected<std::vector<std::string>> kernelSymbols(ArrayRef<uint8_t> Bytes) {
  auto Obj = object::ObjectFile::createELFObjectFile(MemoryBufferRef(
      StringRef(reinterpret_cast<const char *>(Bytes.data()), Bytes.size()), "code object"));
  if (!Obj)
    return Obj.takeError();
  std::vector<std::string> Names;
  for (const object::SymbolRef &S : (*Obj)->symbols()) {
    auto Name = S.getName();
    if (!Name)
      return Name.takeError();
    if (Name->ends_with(".kd"))
      Names.push_back(Name->drop_back(3).str());
  }
  return Names;
}

} // namespace

ArrayRef<StringRef> supportedArchs() { return Archs; }

bool isSupportedArch(StringRef Arch) { return llvm::is_contained(Archs, Arch); }

std::string dataLayout() {
  auto TM = createTargetMachine("gfx942");
  if (!TM) {
    consumeError(TM.takeError());
    return "";
  }
  return (*TM)->createDataLayout().getStringRepresentation();
}

Expected<std::unique_ptr<Module>> prepareModule(const Module &Lifted, const CompileOptions &Opts) {
  auto TM = createTargetMachine(Opts.Arch);
  if (!TM)
    return TM.takeError();
  std::unique_ptr<Module> M = CloneModule(Lifted);
  if (Error E = prepare(*M, **TM, Opts))
    return std::move(E);
  return M;
}

Expected<CodeObject> compile(const Module &Lifted, const CompileOptions &Opts) {
  return compile(CloneModule(Lifted), Opts);
}

Expected<CodeObject> compile(std::unique_ptr<Module> M, const CompileOptions &Opts) {
  auto Obj = compileObject(std::move(M), Opts);
  if (!Obj)
    return Obj.takeError();
  return link(ArrayRef<ObjectFile>(*Obj));
}

Expected<ObjectFile> compileObject(std::unique_ptr<Module> M, const CompileOptions &Opts,
                                   bool Part) {
  auto TMOr = createTargetMachine(Opts.Arch);
  if (!TMOr)
    return TMOr.takeError();
  TargetMachine &TM = **TMOr;
  ObjectFile Obj;
  Obj.Kernels = kernelNames(*M);
  if (Obj.Kernels.empty())
    return createStringError("no kernels to compile");
  using Clock = std::chrono::steady_clock;
  auto Since = [](Clock::time_point T) {
    return std::chrono::duration<double>(Clock::now() - T).count();
  };
  auto T0 = Clock::now();
  if (Error E = prepare(*M, TM, Opts))
    return std::move(E);
  if (Part)
    shareVariables(*M);
  Obj.Times.Prepare = Since(T0);

  T0 = Clock::now();
  {
    LoopAnalysisManager LAM;
    FunctionAnalysisManager FAM;
    CGSCCAnalysisManager CGAM;
    ModuleAnalysisManager MAM;
    // No loop vectorizer: the PTX has been through NVVM's loop optimizations (unrolled by 4, its
    // memory accesses already vectorized where it could), and on AMDGPU LoopVectorize only added
    // runtime-checked versions of the remainder loops (<2 x float> for packed math): on the
    // quality kernels it left every hot loop as it was and cost 5% more instructions and 8% more
    // VGPRs (bench/RESULTS.md, "Static code quality").
    PipelineTuningOptions PTO;
    PTO.LoopVectorization = false;
    // With -time-passes (setLlvmOptions, for profiling), the O3 pipeline's passes are timed too.
    PassInstrumentationCallbacks PIC;
    std::optional<StandardInstrumentations> SI;
    if (TimePassesIsEnabled) {
      SI.emplace(M->getContext(), /*DebugLogging=*/false);
      SI->registerCallbacks(PIC, &MAM);
    }
    PassBuilder PB(&TM, PTO, std::nullopt, SI ? &PIC : nullptr);
    PB.registerModuleAnalyses(MAM);
    PB.registerCGSCCAnalyses(CGAM);
    PB.registerFunctionAnalyses(FAM);
    PB.registerLoopAnalyses(LAM);
    PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
    // Shuffles with constant lanes (AmdgpuIntrinsics.h): once the register slots are promoted
    // (nvcc moves shfl's b and c into registers first), before the helpers are inlined.
    bool Gfx10Plus = !TM.getTargetCPU().starts_with("gfx9");
    PB.registerPipelineEarlySimplificationEPCallback(
        [Gfx10Plus](ModulePassManager &MPM, OptimizationLevel, ThinOrFullLTOPhase) {
          MPM.addPass(SpecializeShufflesPass(Gfx10Plus));
        });
    // min/max results whose canonical NaN nothing sees (MinMaxNaN.h), wherever InstCombine has
    // just cleaned up (the first time before the helpers are inlined).
    PB.registerPeepholeEPCallback([](FunctionPassManager &FPM, OptimizationLevel) {
      FPM.addPass(DropUnobservedNaNCanonicalizationPass());
    });
    ModulePassManager MPM = [&] {
      std::shared_lock<std::shared_mutex> Lock(OptionsMutex);
      return PB.buildPerModuleDefaultPipeline(OptimizationLevel::O3);
    }();
    MPM.run(*M, MAM);
  }
  // Spin locks that lanes of one wave take in turn (SpinLocks.h); then where kernel arguments
  // are loaded (where they are used) and nvcc's address arithmetic is computed
  // (ValuePlacement.h): once for sibling blocks, and next to the loads and stores it feeds.
  for (Function &F : *M)
    if (!F.isDeclaration()) {
      moveCriticalSectionsIntoSpinLoops(F);
      loadArgumentsWhereUsed(F);
      shiftAfterMerge(F);
      hoistCommonValues(F);
      sinkToFirstUse(F);
      // Our own IR surgery is checked like the prepared module (code generation does not verify).
      std::string Why;
      raw_string_ostream OS(Why);
      if (verifyFunction(F, &OS))
        return createStringError("value placement broke '" + F.getName().str() + "': " + Why);
    }
  Obj.Times.Optimize = Since(T0);

  T0 = Clock::now();
  {
    SmallVector<char, 0> Object;
    raw_svector_ostream OS(Object);
    legacy::PassManager PM;
    {
      std::shared_lock<std::shared_mutex> Lock(OptionsMutex);
      if (TM.addPassesToEmitFile(PM, OS, nullptr, CodeGenFileType::ObjectFile))
        return createStringError("the AMDGPU target cannot emit an object file");
    }
    PM.run(*M);
    Obj.Bytes.assign(Object.begin(), Object.end());
  }
  Obj.Times.Codegen = Since(T0);
  return Obj;
}

Expected<CodeObject> link(ArrayRef<ObjectFile> Objects) {
  using Clock = std::chrono::steady_clock;
  auto T0 = Clock::now();
  auto Linked = linkFiles(Objects);
  CompileTimes Times;
  for (const ObjectFile &O : Objects) {
    Times.Prepare += O.Times.Prepare;
    Times.Optimize += O.Times.Optimize;
    Times.Codegen += O.Times.Codegen;
  }
  Times.Link = std::chrono::duration<double>(Clock::now() - T0).count();
  if (!Linked)
    return Linked.takeError();
  auto Found = kernelSymbols(*Linked);
  if (!Found)
    return Found.takeError();
  std::set<std::string> Have(Found->begin(), Found->end());
  std::vector<std::string> Kernels;
  for (const ObjectFile &O : Objects)
    for (const std::string &K : O.Kernels) {
      if (!Have.count(K))
        return createStringError("kernel '" + K + "' is missing from the linked code object");
      Kernels.push_back(K);
    }
  return CodeObject{std::move(*Linked), std::move(Kernels), Times};
}

} // namespace reptx::backend
