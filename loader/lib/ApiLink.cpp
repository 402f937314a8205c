// JIT linking (CUDA Driver API, "Module Management": cuLinkCreate, cuLinkAddData, cuLinkAddFile,
// cuLinkComplete, cuLinkDestroy). reptx links at the PTX level, as it does for -rdc=true programs
// (ptx::linkPtx): the inputs are PTX text (CU_JIT_INPUT_PTX) and the PTX entries of fatbins
// (CU_JIT_INPUT_FATBINARY, chosen as cuLibraryLoadData chooses them); cubins, relocatable objects,
// libraries and NVVM IR hold SASS or NVIDIA's IR, which cannot be recompiled, and are refused. The
// image cuLinkComplete returns is the linked PTX text, NUL-terminated, owned by the link state
// until cuLinkDestroy; cuModuleLoadData / cuLibraryLoadData accept it, and compile it for the
// device on first use like any other module.
#include "Driver.h"
#include "Images.h"
#include "JitLog.h"
#include "Trace.h"
#include "reptx/frontend-ptx/Link.h"

#include "reptx/frontend-ptx/Fatbin.h"
#include "reptx/frontend-ptx/Parser.h"
#include "reptx/ir/Intrinsics.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <chrono>
#include <cstring>
#include <mutex>
#include <set>

using namespace reptx;
using namespace reptx::loader;

namespace {

constexpr uint32_t LinkMagic = 0x524c4e4b; // a CUlinkState of this library

/// What one input defines and declares `.extern` (for the undefined-reference check).
struct InputSymbols {
  std::set<std::string> Visible; // definitions other inputs may use (.visible, .weak, .common)
  std::set<std::string> Local;   // definitions without linkage
  std::set<std::string> Extern;  // .extern declarations
};

struct LinkState {
  uint32_t Magic = LinkMagic;
  LogSink Info, Error;
  void **WallTimeSlot = nullptr; // CU_JIT_WALL_TIME: overwritten with a float, in milliseconds
  double Ms = 0;
  bool Verbose = false; // CU_JIT_LOG_VERBOSE
  std::vector<ptx::PtxUnit> Units;
  std::vector<InputSymbols> Symbols;
  bool Completed = false;
  std::string Image; // the linked PTX (cuLinkComplete's cubinOut, NUL-terminated)

  void error(const std::string &Line) {
    log().error("{}", Line);
    Error.add("error   : " + Line);
  }
  void info(const std::string &Line) {
    log().info("{}", Line);
    Info.add("info    : " + Line);
  }
  void addTime(std::chrono::steady_clock::time_point Start) {
    Ms +=
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - Start).count();
    if (WallTimeSlot) {
      float F = float(Ms);
      *WallTimeSlot = nullptr;
      std::memcpy(WallTimeSlot, &F, sizeof(F));
    }
  }
};

// Live link states: a handle is checked against this set before it is used.
std::mutex &statesMutex() {
  static std::mutex M;
  return M;
}
std::set<LinkState *> &states() {
  static std::set<LinkState *> S;
  return S;
}

LinkState *asLinkState(CUlinkState H) {
  auto *S = reinterpret_cast<LinkState *>(H);
  return S && states().count(S) && S->Magic == LinkMagic ? S : nullptr;
}

const char *inputKindName(int Type) {
  switch (Type) {
  case CU_JIT_INPUT_CUBIN:
    return "CU_JIT_INPUT_CUBIN";
  case CU_JIT_INPUT_PTX:
    return "CU_JIT_INPUT_PTX";
  case CU_JIT_INPUT_FATBINARY:
    return "CU_JIT_INPUT_FATBINARY";
  case CU_JIT_INPUT_OBJECT:
    return "CU_JIT_INPUT_OBJECT";
  case CU_JIT_INPUT_LIBRARY:
    return "CU_JIT_INPUT_LIBRARY";
  case CU_JIT_INPUT_NVVM:
    return "CU_JIT_INPUT_NVVM";
  default:
    return nullptr;
  }
}

/// Parses one input's PTX and records its module-scope symbols; a parse error is a log line.
bool collectSymbols(LinkState &S, const ptx::PtxUnit &U, InputSymbols &Out) {
  ptx::ParseResult P = ptx::parse(U.Name, U.Text);
  if (!P.ok()) {
    S.error(llvm::toString(ptx::toError(P)));
    return false;
  }
  for (const ptx::UnitSymbol &S : ptx::unitSymbols(*P.M)) {
    if (!S.Definition) {
      // Not references to resolve: `.extern .shared` arrays (dynamic shared memory, PTX ISA
      // §5.1.5) and the system calls that the driver itself provides (PTX ISA, "System calls",
      // and the device runtime of dynamic parallelism; a call the lifter does not implement
      // fails its kernel when compiled).
      bool Provided = (!S.IsFunction && S.Space == ptx::StateSpace::Shared) ||
                      (S.IsFunction && ir::intrinsics::isSystemCall(S.Name));
      if ((S.Linkage & ptx::LinkExtern) && !Provided)
        Out.Extern.insert(S.Name);
    } else if (S.Linkage & (ptx::LinkVisible | ptx::LinkWeak | ptx::LinkCommon)) {
      Out.Visible.insert(S.Name);
    } else {
      Out.Local.insert(S.Name);
    }
  }
  return true;
}

CUresult createLink(unsigned NumOptions, CUjit_option *Options, void **Values, CUlinkState *Out) {
  if (!Driver::get().initialized())
    return CUDA_ERROR_NOT_INITIALIZED;
  if (!Out || (NumOptions && (!Options || !Values)))
    return CUDA_ERROR_INVALID_VALUE;
  auto S = std::make_unique<LinkState>();
  for (unsigned I = 0; I < NumOptions; ++I) {
    auto Word = reinterpret_cast<uintptr_t>(Values[I]);
    if (takeLogOption(Options[I], &Values[I], S->Info, S->Error))
      continue;
    switch (Options[I]) {
    case CU_JIT_WALL_TIME:
      S->WallTimeSlot = &Values[I];
      break;
    case CU_JIT_LOG_VERBOSE:
      S->Verbose = unsigned(Word) != 0;
      break;
    default:
      // Register limits, optimisation level, target, fallback, debug and line info, cache mode:
      // they tune NVIDIA's code generation. The PTX is recompiled for the AMD device with
      // reptx's own settings, so ignoring them changes no result.
      log().debug("cuLinkCreate: JIT option {} ignored", int(Options[I]));
      break;
    }
  }
  S->Info.clear();
  S->Error.clear();
  std::lock_guard<std::mutex> L(statesMutex());
  *Out = reinterpret_cast<CUlinkState>(S.get());
  states().insert(S.release());
  return CUDA_SUCCESS;
}

CUresult addData(CUlinkState H, CUjitInputType Type, const void *Data, size_t Size,
                 const char *Name, unsigned NumOptions, CUjit_option *Options, void **Values) {
  auto Start = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> L(statesMutex());
  LinkState *S = asLinkState(H);
  if (!S)
    return CUDA_ERROR_INVALID_HANDLE;
  if (NumOptions && (!Options || !Values))
    return CUDA_ERROR_INVALID_VALUE; // per-input options tune code generation: ignored
  std::string Input = Name && *Name ? Name : "input " + std::to_string(S->Units.size());
  const char *Kind = inputKindName(Type);
  if (!Kind) {
    S->error(llvm::formatv("cuLinkAddData({0}): unknown input type {1}", Input, int(Type)).str());
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (!Data || !Size) {
    S->error("cuLinkAddData(" + Input + "): no data");
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (S->Completed) {
    S->error("cuLinkAddData(" + Input + "): the link was already completed");
    return CUDA_ERROR_INVALID_VALUE;
  }
  ptx::PtxUnit U;
  U.Name = Input;
  if (Type == CU_JIT_INPUT_PTX) {
    const auto *Text = static_cast<const char *>(Data);
    U.Text.assign(Text, strnlen(Text, Size));
  } else if (Type == CU_JIT_INPUT_FATBINARY) {
    uint32_t Magic = 0;
    std::memcpy(&Magic, Data, std::min<size_t>(Size, 4));
    if (Size < 16 || (Magic != fatbin::WrapperMagic && Magic != fatbin::ContainerMagic)) {
      S->error(Input + ": not a fatbin (CU_JIT_INPUT_FATBINARY needs a fatbin container or a " +
               "__fatBinC_Wrapper_t)");
      return CUDA_ERROR_INVALID_IMAGE;
    }
    Device *Dev = Driver::get().device(0);
    std::string Ptx, FatName, PtxasOptions;
    if (CUresult R = imagePtx(Data, Dev->CcMajor, Dev->CcMinor, Ptx, FatName, PtxasOptions)) {
      S->error(llvm::formatv("{0}: the fatbin holds no PTX for sm_{1}{2} or below that reptx can "
                             "recompile (SASS cannot run on this device)",
                             Input, Dev->CcMajor, Dev->CcMinor)
                   .str());
      return R;
    }
    U.Text = std::move(Ptx);
    if (S->Verbose)
      S->info(Input + ": PTX entry " + FatName);
  } else {
    // Cubins, relocatable device objects and libraries of them hold SASS; NVVM IR is NVIDIA's
    // compiler input. reptx recompiles PTX only.
    S->error(Input + ": " + Kind +
             " inputs cannot be linked by reptx (it recompiles PTX only; SASS and NVVM IR cannot "
             "run on this device): add the PTX (CU_JIT_INPUT_PTX) or a fatbin with PTX instead");
    return CUDA_ERROR_INVALID_IMAGE;
  }
  InputSymbols Syms;
  if (!collectSymbols(*S, U, Syms))
    return CUDA_ERROR_INVALID_PTX;
  if (S->Verbose)
    S->info(llvm::formatv("{0}: {1} bytes of PTX added", Input, U.Text.size()).str());
  S->Units.push_back(std::move(U));
  S->Symbols.push_back(std::move(Syms));
  S->addTime(Start);
  return CUDA_SUCCESS;
}

CUresult addFile(CUlinkState H, CUjitInputType Type, const char *Path, unsigned NumOptions,
                 CUjit_option *Options, void **Values) {
  {
    std::lock_guard<std::mutex> L(statesMutex());
    if (!asLinkState(H))
      return CUDA_ERROR_INVALID_HANDLE;
  }
  if (!Path)
    return CUDA_ERROR_INVALID_VALUE;
  auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false, /*RequiresNullTerminator=*/true);
  if (!Buf) {
    std::lock_guard<std::mutex> L(statesMutex());
    if (LinkState *S = asLinkState(H))
      S->error(std::string("cuLinkAddFile: cannot read ") + Path + ": " + Buf.getError().message());
    return CUDA_ERROR_FILE_NOT_FOUND;
  }
  return addData(H, Type, (*Buf)->getBufferStart(), (*Buf)->getBufferSize(), Path, NumOptions,
                 Options, Values);
}

CUresult completeLink(CUlinkState H, void **ImageOut, size_t *SizeOut) {
  auto Start = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> L(statesMutex());
  LinkState *S = asLinkState(H);
  if (!S)
    return CUDA_ERROR_INVALID_HANDLE;
  if (!ImageOut || !SizeOut)
    return CUDA_ERROR_INVALID_VALUE;
  if (S->Units.empty()) {
    S->error("cuLinkComplete: nothing to link (no input was added)");
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (!S->Completed) {
    // Every .extern declaration needs a definition: a visible one in any input, or one in its own
    // input (PTX ISA §11.6, "Linking Directives").
    bool Undefined = false;
    for (size_t U = 0; U < S->Units.size(); ++U)
      for (const std::string &Name : S->Symbols[U].Extern) {
        bool Found = S->Symbols[U].Local.count(Name);
        for (size_t O = 0; O < S->Units.size() && !Found; ++O)
          Found = S->Symbols[O].Visible.count(Name);
        if (!Found) {
          S->error("undefined reference to '" + Name + "' in '" + S->Units[U].Name + "'");
          Undefined = true;
        }
      }
    if (Undefined)
      return CUDA_ERROR_INVALID_PTX;
    auto Linked = ptx::linkPtx(S->Units);
    if (!Linked) {
      S->error("cuLinkComplete: " + llvm::toString(Linked.takeError()));
      return CUDA_ERROR_INVALID_PTX;
    }
    S->Image = std::move(*Linked);
    S->Completed = true;
    S->addTime(Start);
    std::string Names;
    for (const ptx::PtxUnit &U : S->Units)
      Names += (Names.empty() ? "" : ", ") + U.Name;
    S->info(llvm::formatv("linked {0} PTX input(s) ({1}) into {2} bytes of PTX in {3:f2} ms; "
                          "compiled for {4} when loaded",
                          S->Units.size(), Names, S->Image.size(), S->Ms,
                          Driver::get().device(0)->Backend->arch())
                .str());
  }
  *ImageOut = S->Image.data(); // std::string keeps a NUL after the text
  *SizeOut = S->Image.size() + 1;
  return CUDA_SUCCESS;
}

CUresult destroyLink(CUlinkState H) {
  std::lock_guard<std::mutex> L(statesMutex());
  LinkState *S = asLinkState(H);
  if (!S)
    return CUDA_ERROR_INVALID_HANDLE;
  states().erase(S);
  S->Magic = 0;
  delete S;
  return CUDA_SUCCESS;
}

} // namespace

CUresult cuLinkCreate(unsigned int NumOptions, CUjit_option *Options, void **Values,
                      CUlinkState *Out) {
  REPTX_TRACE(cuLinkCreate, NumOptions, Options, Values, Out);
  return createLink(NumOptions, Options, Values, Out);
}
CUresult cuLinkCreate_v2(unsigned int NumOptions, CUjit_option *Options, void **Values,
                         CUlinkState *Out) {
  REPTX_TRACE(cuLinkCreate_v2, NumOptions, Options, Values, Out);
  return createLink(NumOptions, Options, Values, Out);
}

CUresult cuLinkAddData(CUlinkState S, CUjitInputType Type, void *Data, size_t Size,
                       const char *Name, unsigned int NumOptions, CUjit_option *Options,
                       void **Values) {
  REPTX_TRACE(cuLinkAddData, S, Type, Data, Size, Name, NumOptions, Options, Values);
  return addData(S, Type, Data, Size, Name, NumOptions, Options, Values);
}
CUresult cuLinkAddData_v2(CUlinkState S, CUjitInputType Type, void *Data, size_t Size,
                          const char *Name, unsigned int NumOptions, CUjit_option *Options,
                          void **Values) {
  REPTX_TRACE(cuLinkAddData_v2, S, Type, Data, Size, Name, NumOptions, Options, Values);
  return addData(S, Type, Data, Size, Name, NumOptions, Options, Values);
}

CUresult cuLinkAddFile(CUlinkState S, CUjitInputType Type, const char *Path,
                       unsigned int NumOptions, CUjit_option *Options, void **Values) {
  REPTX_TRACE(cuLinkAddFile, S, Type, Path, NumOptions, Options, Values);
  return addFile(S, Type, Path, NumOptions, Options, Values);
}
CUresult cuLinkAddFile_v2(CUlinkState S, CUjitInputType Type, const char *Path,
                          unsigned int NumOptions, CUjit_option *Options, void **Values) {
  REPTX_TRACE(cuLinkAddFile_v2, S, Type, Path, NumOptions, Options, Values);
  return addFile(S, Type, Path, NumOptions, Options, Values);
}

CUresult cuLinkComplete(CUlinkState S, void **ImageOut, size_t *SizeOut) {
  REPTX_TRACE(cuLinkComplete, S, ImageOut, SizeOut);
  return completeLink(S, ImageOut, SizeOut);
}

CUresult cuLinkDestroy(CUlinkState S) {
  REPTX_TRACE(cuLinkDestroy, S);
  return destroyLink(S);
}
