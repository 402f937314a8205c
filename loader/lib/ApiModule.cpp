// Images, libraries, modules, kernels, globals, attributes, occupancy and launches.
#include "DeviceLaunch.h"
#include "Driver.h"
#include "Graph.h"
#include "Images.h"
#include "JitLog.h"
#include "Printf.h"
#include "Trace.h"
#include "reptx/frontend-ptx/Link.h"

#include "reptx/backend/LaunchQueue.h"
#include "reptx/emulator/PtxLaunch.h"
#include "reptx/frontend-ptx/Fatbin.h"
#include "reptx/frontend-ptx/Parser.h"
#include "reptx/ir/Intrinsics.h"
#include "reptx/ir/Lift.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <dlfcn.h>

#include <cstring>

using namespace reptx;
using namespace reptx::loader;

namespace {

constexpr uint32_t ElfMagic = 0x464c457f; // "\x7fELF" read little-endian

/// Bytes of a PTX scalar type (".u32" -> 4, ".b128" -> 16); 0 for what has no size.
uint32_t typeBytes(llvm::StringRef T) {
  T = T.ltrim('.');
  llvm::StringRef Digits = T.drop_while([](char C) { return !std::isdigit(uint8_t(C)); });
  unsigned Bits = 0;
  if (Digits.empty() || Digits.getAsInteger(10, Bits))
    return 0;
  return Bits / 8;
}

/// Size and alignment of a .param or module-scope variable.
bool declLayout(const ptx::VarDecl &D, uint64_t &Size, uint32_t &Align) {
  uint32_t Elem = typeBytes(D.Type);
  if (!Elem)
    return false;
  auto Count = ir::elementCount(D);
  Size = uint64_t(Elem) * (D.VectorWidth ? D.VectorWidth : 1);
  if (!Count || __builtin_mul_overflow(Size, *Count, &Size))
    return false;
  Align = D.Align ? D.Align : uint32_t(Elem * (D.VectorWidth ? D.VectorWidth : 1));
  return true;
}

const ptx::Function *findEntry(const ptx::Module &M, llvm::StringRef Name) {
  for (const ptx::TopLevel &T : M.Items)
    if (T.K == ptx::TopLevel::Func && T.F->IsEntry && T.F->Name == Name && T.F->Body)
      return T.F;
  return nullptr;
}

/// The declaration of NAME: `.global .b32 NAME`, or `v<N>` for NAME = v0..v(N-1) (PTX ISA 5.4.7).
const ptx::VarDecl *findVariable(const ptx::Module &M, llvm::StringRef Name) {
  for (const ptx::TopLevel &T : M.Items) {
    if (T.K != ptx::TopLevel::Var)
      continue;
    if (!T.V->RangeCount && T.V->Name == Name)
      return T.V;
    llvm::StringRef Index = Name;
    unsigned K;
    if (T.V->RangeCount && Index.consume_front(T.V->Name) && !Index.empty() &&
        (Index == "0" || Index.front() != '0') && !Index.getAsInteger(10, K) && K < T.V->RangeCount)
      return T.V;
  }
  return nullptr;
}

/// What a refused SASS-only image is, for its error line: " (in libX.so; SASS of 3 kernels: a,
/// b, …)" — the shared object holding it (none for a heap copy) and its kernels.
std::string sassDetail(const void *Image, llvm::Expected<std::vector<std::string>> Kernels) {
  std::vector<std::string> Parts;
  Dl_info Info;
  if (dladdr(Image, &Info) && Info.dli_fname)
    Parts.push_back("in " + llvm::sys::path::filename(Info.dli_fname).str());
  if (!Kernels) {
    llvm::consumeError(Kernels.takeError());
  } else if (!Kernels->empty()) {
    std::string S =
        llvm::formatv("SASS of {0} kernel{1}: ", Kernels->size(), Kernels->size() == 1 ? "" : "s");
    for (size_t I = 0; I < Kernels->size() && I < 2; ++I)
      S += (I ? ", " : "") + (*Kernels)[I];
    if (Kernels->size() > 2)
      S += ", …";
    Parts.push_back(S);
  }
  return Parts.empty() ? std::string() : " (" + llvm::join(Parts, "; ") + ")";
}

/// The best PTX entry of a fatbin container: the highest sm_XX not above the compute capability.
CUresult containerPtx(const uint8_t *Container, int CcMajor, int CcMinor, std::string &Ptx,
                      std::string &Name, std::string &PtxasOptions) {
  uint16_t HeaderSize;
  uint64_t FatSize;
  std::memcpy(&HeaderSize, Container + 6, 2);
  std::memcpy(&FatSize, Container + 8, 8);
  Name = llvm::formatv("fatbin@{0:x}", reinterpret_cast<uintptr_t>(Container)).str();
  auto F = fatbin::scanBuffer(llvm::ArrayRef<uint8_t>(Container, HeaderSize + FatSize), Name);
  if (!F) {
    log().error("{}", llvm::toString(F.takeError()));
    return CUDA_ERROR_INVALID_IMAGE;
  }
  uint32_t Limit = uint32_t(CcMajor * 10 + CcMinor);
  const fatbin::Entry *Best = nullptr;
  std::string Archs;
  uint32_t OldestNewer = 0; // the oldest PTX for a newer device than this one, 0 if none
  for (const fatbin::Container &C : F->containers()) {
    for (const fatbin::Entry &E : C.Entries) {
      Archs += (Archs.empty() ? "" : ", ") + std::string(fatbin::kindName(E.Kind)) + " " + E.arch();
      if (E.Kind == fatbin::EntryKind::PTX && E.Arch > Limit &&
          (!OldestNewer || E.Arch < OldestNewer))
        OldestNewer = E.Arch;
    }
    if (const fatbin::Entry *E = fatbin::bestPtxEntry(C, Limit);
        E && (!Best || E->Arch > Best->Arch))
      Best = E;
  }
  if (!Best) {
    // As NVIDIA's driver, no PTX for a newer device runs on this one; the reported compute
    // capability is reptx's choice, so say which one would run it.
    std::string Hint =
        OldestNewer ? llvm::formatv("; its PTX for sm_{0} runs with REPTX_COMPUTE_CAPABILITY={0}",
                                    OldestNewer)
                          .str()
                    : std::string();
    // The SASS the device would have run, for the message: the newest not above it.
    const fatbin::Entry *Sass = nullptr;
    for (const fatbin::Container &C : F->containers())
      for (const fatbin::Entry &E : C.Entries)
        if (E.Kind == fatbin::EntryKind::Cubin && E.Arch <= Limit && (!Sass || E.Arch > Sass->Arch))
          Sass = &E;
    std::string Detail;
    if (Sass) {
      auto Elf = F->payload(*Sass);
      Detail =
          sassDetail(Container, Elf ? fatbin::cubinKernels(*Elf)
                                    : llvm::Expected<std::vector<std::string>>(Elf.takeError()));
    }
    log().error("{}{}: no PTX for sm_{} or below (it holds: {}){}", Name, Detail, Limit,
                Archs.empty() ? "nothing" : Archs, Hint);
    return CUDA_ERROR_NO_BINARY_FOR_GPU;
  }
  if (Best->Arch > Limit)
    log().info("{}: no PTX for sm_{} or below; recompiling its {} PTX in place of the SASS a "
               "device of compute capability {}.{} runs",
               Name, Limit, Best->arch(), CcMajor, CcMinor);
  auto Text = F->ptxText(*Best);
  if (!Text) {
    log().error("{}", llvm::toString(Text.takeError()));
    return CUDA_ERROR_INVALID_IMAGE;
  }
  Ptx = std::move(*Text);
  PtxasOptions = Best->Aux;
  Name += "." + Best->arch();
  return CUDA_SUCCESS;
}

/// A version-2 wrapper (-rdc=true; fatbin-format.md §2): its own container holds nvlink's SASS
/// only; the PTX is in the per-TU fatbins of the NULL-terminated `__cudaPrelinkedFatbins[]` list
/// its fourth field points to. Their PTX is linked into one module (reptx/frontend-ptx/Link.h).
CUresult prelinkedPtx(const uint8_t *Wrapper, int CcMajor, int CcMinor, std::string &Ptx,
                      std::string &Name, std::string &PtxasOptions) {
  const void *const *List;
  std::memcpy(&List, Wrapper + 16, sizeof(void *));
  std::vector<ptx::PtxUnit> Units;
  for (size_t I = 0; List && List[I] && I < 65536; ++I) {
    ptx::PtxUnit U;
    std::string Options;
    const auto *C = static_cast<const uint8_t *>(List[I]);
    uint32_t Magic;
    std::memcpy(&Magic, C, 4);
    if (Magic != fatbin::ContainerMagic) {
      log().error("prelinked fatbin {} of the -rdc image at {} is not a fatbin container", I,
                  static_cast<const void *>(Wrapper));
      return CUDA_ERROR_INVALID_IMAGE;
    }
    if (CUresult R = containerPtx(C, CcMajor, CcMinor, U.Text, U.Name, Options))
      return R;
    if (Units.empty())
      PtxasOptions = Options;
    Units.push_back(std::move(U));
  }
  if (Units.empty()) {
    log().error("the -rdc image at {} lists no prelinked fatbins (no PTX to recompile)",
                static_cast<const void *>(Wrapper));
    return CUDA_ERROR_NO_BINARY_FOR_GPU;
  }
  auto Linked = ptx::linkPtx(Units);
  if (!Linked) {
    log().error("linking the PTX of the -rdc image at {}: {}", static_cast<const void *>(Wrapper),
                llvm::toString(Linked.takeError()));
    return CUDA_ERROR_INVALID_PTX;
  }
  Ptx = std::move(*Linked);
  Name = llvm::formatv("rdc@{0:x}", reinterpret_cast<uintptr_t>(Wrapper)).str() + "(" +
         std::to_string(Units.size()) + " units)";
  log().debug("{}: linked {} PTX units ({} bytes)", Name, Units.size(), Ptx.size());
  return CUDA_SUCCESS;
}

} // namespace

/// The PTX text of an image (cuda-driver-interface.md §5.2): a __fatBinC_Wrapper_t (version 1, or
/// version 2 for -rdc), a fatbin container, NUL-terminated PTX text; a cubin (ELF) cannot be
/// recompiled.
CUresult loader::imagePtx(const void *Image, int CcMajor, int CcMinor, std::string &Ptx,
                          std::string &Name, std::string &PtxasOptions) {
  uint32_t Magic;
  std::memcpy(&Magic, Image, 4);
  const uint8_t *Container = static_cast<const uint8_t *>(Image);
  if (Magic == fatbin::WrapperMagic) {
    uint32_t Version;
    const void *Data;
    std::memcpy(&Version, Container + 4, 4);
    std::memcpy(&Data, Container + 8, sizeof(void *));
    if (Version == 2)
      return prelinkedPtx(Container, CcMajor, CcMinor, Ptx, Name, PtxasOptions);
    if (Version != 1) {
      log().error("fatbin wrapper version {} is not supported", Version);
      return CUDA_ERROR_NOT_SUPPORTED;
    }
    Container = static_cast<const uint8_t *>(Data);
    std::memcpy(&Magic, Container, 4);
  }
  if (Magic == ElfMagic) {
    uint64_t Size = fatbin::elfImageSize(Container);
    log().error(
        "image at {} is an ELF cubin{}: only PTX can be recompiled",
        static_cast<const void *>(Container),
        sassDetail(Container, Size ? fatbin::cubinKernels(llvm::ArrayRef<uint8_t>(Container, Size))
                                   : llvm::Expected<std::vector<std::string>>(
                                         llvm::createStringError("no readable ELF header"))));
    return CUDA_ERROR_NO_BINARY_FOR_GPU;
  }
  if (Magic != fatbin::ContainerMagic) {
    // PTX text (cuModuleLoadData with a NUL-terminated string).
    Ptx = static_cast<const char *>(Image);
    Name = "ptx@" + std::to_string(reinterpret_cast<uintptr_t>(Image));
    return CUDA_SUCCESS;
  }
  return containerPtx(Container, CcMajor, CcMinor, Ptx, Name, PtxasOptions);
}

namespace {

// Lazy loading (Driver::ensureKernelLoaded, loader/README.md "Lazy loading"): whether a module's
// kernels are compiled one at a time as they are first used, each into a code object of its own.
// CUDA_MODULE_LOADING=EAGER: never; LAZY: every module that allows it; unset (or another value):
// those of LazyMinBytes of PTX or more (the toolkit libraries' modules, of up to hundreds of
// kernels, where a program uses a few), while a program's own smaller modules still compile whole,
// once. A module allows it when separate code objects would not each hold a copy of something
// its kernels share: it has two kernels or more; no .global or .const variable that any code
// names (kernels and cuModuleGetGlobal must see one instance of each; the empty tag objects of
// CUB's and Thrust's headers, `.global .align 1 .b8 ...thrust12placeholders2_1E[1];`, are named
// by nothing but their declaration, and cuModuleGetGlobal gives such a variable an allocation of
// its own, variableLocked); no texture, surface or sampler reference; no call of the device
// runtime (device-side launches find the module's kernels in one table); and it is not an image
// linked from -rdc units.
constexpr size_t LazyMinBytes = 128 * 1024;
constexpr unsigned LazyMaxVariables = 64; // of those named by nothing else, each a text search

/// Whether the PTX names a variable anywhere but in its declaration (a text search: a name that
/// occurs inside a longer one counts too, which only keeps a module eager).
bool namedOutsideDeclaration(llvm::StringRef Source, llvm::StringRef Name) {
  size_t First = Source.find(Name);
  return First == llvm::StringRef::npos || Source.find(Name, First + 1) != llvm::StringRef::npos;
}

bool lazyLoadable(const ptx::Module &M, bool NotLinked) {
  const char *E = std::getenv("CUDA_MODULE_LOADING");
  llvm::StringRef Mode = E ? E : "";
  if (Mode.equals_insensitive("EAGER") || !NotLinked)
    return false;
  if (!Mode.equals_insensitive("LAZY") && M.source().size() < LazyMinBytes)
    return false;
  unsigned Kernels = 0, Variables = 0;
  for (const ptx::TopLevel &T : M.Items) {
    if (T.K == ptx::TopLevel::Var) {
      const ptx::VarDecl &V = *T.V;
      bool Handle = V.Type == ".texref" || V.Type == ".surfref" || V.Type == ".samplerref";
      if (V.Space == ptx::StateSpace::Tex || V.Space == ptx::StateSpace::Surf ||
          V.Space == ptx::StateSpace::Sampler || Handle)
        return false;
      if (V.Space == ptx::StateSpace::Global || V.Space == ptx::StateSpace::Const)
        if (V.RangeCount || ++Variables > LazyMaxVariables ||
            namedOutsideDeclaration(M.source(), V.Name))
          return false;
    } else if (T.K == ptx::TopLevel::Func) {
      if (T.F->IsEntry && T.F->Body)
        ++Kernels;
      llvm::StringRef Name = T.F->Name;
      if (Name.starts_with(ir::intrinsics::DeviceRuntimeCallee) ||
          Name.starts_with("cudaLaunchDevice") || Name.starts_with("cudaGetParameterBuffer"))
        return false;
    }
  }
  return Kernels >= 2;
}

} // namespace

Kernel *reptx::loader::asKernel(const void *H) {
  auto *K = static_cast<Kernel *>(const_cast<void *>(H));
  return K && K->T == Tag::Kernel ? K : nullptr;
}

namespace {

CUresult loadLibrary(const void *Image, Library *&Out) {
  Driver &D = Driver::get();
  if (!D.initialized())
    return CUDA_ERROR_NOT_INITIALIZED;
  if (!Image)
    return CUDA_ERROR_INVALID_VALUE;
  Device *Dev = D.device(0);
  auto L = std::make_unique<Library>();
  if (CUresult R = imagePtx(Image, Dev->CcMajor, Dev->CcMinor, L->Ptx, L->Name, L->PtxasOptions))
    return R;
  ptx::ParseResult P = ptx::parse(L->Name, L->Ptx);
  if (!P.ok()) {
    log().error("{}", llvm::toString(ptx::toError(P)));
    return CUDA_ERROR_INVALID_PTX;
  }
  L->Parsed = std::move(P.M);
  L->Units = ptx::linkedUnits(L->Ptx);
  L->Lazy = lazyLoadable(*L->Parsed, L->Units.empty());
  log().debug("loaded {} ({} bytes of PTX)", L->Name, L->Ptx.size());
  Out = L.release();
  return CUDA_SUCCESS;
}

Library *asLibrary(const void *H) {
  auto *L = static_cast<Library *>(const_cast<void *>(H));
  return L && L->T == Tag::Library ? L : nullptr;
}
CUresult getKernel(Library *L, const char *Name, Kernel *&Out) {
  if (!L || !Name)
    return CUDA_ERROR_INVALID_VALUE;
  std::lock_guard<std::mutex> Lock(L->M);
  if (auto It = L->Kernels.find(Name); It != L->Kernels.end()) {
    Out = It->second.get();
    return CUDA_SUCCESS;
  }
  const ptx::Function *F = findEntry(*L->Parsed, Name);
  if (!F)
    return CUDA_ERROR_NOT_FOUND;
  auto K = std::make_unique<Kernel>();
  K->Lib = L;
  K->Name = Name;
  uint32_t Offset = 0;
  for (const ptx::VarDecl &P : F->Params) {
    uint64_t Size;
    uint32_t Align;
    if (!declLayout(P, Size, Align)) {
      log().error("{}: kernel {}: parameter {} has an unsupported type", L->Name, Name, P.Name);
      return CUDA_ERROR_INVALID_PTX;
    }
    Offset = (Offset + Align - 1) / Align * Align;
    K->Params.push_back({Offset, uint32_t(Size), Align});
    Offset += uint32_t(Size);
  }
  K->ParamBytes = Offset;
  Out = K.get();
  L->Kernels[Name] = std::move(K);
  return CUDA_SUCCESS;
}

} // namespace

CUresult reptx::loader::findKernel(Library &L, const std::string &Name, Kernel *&Out) {
  return getKernel(&L, Name.c_str(), Out);
}

namespace {

/// Compiles the kernel's library (once; or the kernel alone, lazy loading) and finds the kernel
/// in the code object.
CUresult resolve(Kernel &K) {
  if (K.Meta)
    return CUDA_SUCCESS;
  Driver &D = Driver::get();
  Library &L = *K.Lib;
  if (CUresult R = D.ensureKernelLoaded(L, *D.device(0), K.Name))
    return R;
  std::lock_guard<std::mutex> Lock(L.M);
  if (auto It = L.Failures.find(K.Name); It != L.Failures.end()) {
    log().error("kernel {} could not be recompiled: {}", K.Name, It->second);
    return CUDA_ERROR_INVALID_PTX;
  }
  const LoadedCode *Code = codeOf(L, K.Name);
  const KernelMeta *M = Code ? Code->kernel(K.Name) : nullptr;
  if (!M) {
    log().error("kernel {} is missing from the compiled code object of {}", K.Name, L.Name);
    return CUDA_ERROR_NOT_FOUND;
  }
  if (M->Args.size() != K.Params.size()) {
    log().error("kernel {}: {} PTX parameters but {} kernel arguments", K.Name, K.Params.size(),
                M->Args.size());
    return CUDA_ERROR_INVALID_IMAGE;
  }
  K.Code = Code;
  K.Meta = M;
  return CUDA_SUCCESS;
}

// The address and size of a module variable, under L->M: in the code object, or, for a variable
// that no compiled kernel uses, an allocation of its own, stable for the life of the library,
// made on first use. Its initial value is the initializer's bytes, addresses of other variables
// included (resolved the same way; a variable is registered before its initializer is computed,
// so initializers that refer to each other resolve); an initializer with a function's address,
// which only a compiled module can relocate, leaves zeros and a warning.
CUresult variableLocked(Library *L, llvm::StringRef Name, uint64_t &Address, uint64_t &Size) {
  // An allocation of its own first: a library loaded lazily may load its whole code object later
  // (a cache hit), and a variable must keep the address it was given.
  if (auto It = L->Fallbacks.find(Name); It != L->Fallbacks.end()) {
    Address = It->second.first;
    Size = It->second.second;
    return CUDA_SUCCESS;
  }
  if (L->Code && L->Code->symbol(Name, Address, Size))
    return CUDA_SUCCESS;
  const ptx::VarDecl *V = findVariable(*L->Parsed, Name);
  uint32_t Align;
  if (!V || !declLayout(*V, Size, Align) ||
      (V->Space != ptx::StateSpace::Global && V->Space != ptx::StateSpace::Const))
    return CUDA_ERROR_NOT_FOUND;
  // A `__managed__` one must be valid in host code too (cuLibraryGetManaged).
  ExecBackend &B = *Driver::get().device(0)->Backend;
  uint64_t Bytes = Size ? Size : 1;
  auto A = ir::isManagedVariable(*V) ? B.allocateManaged(Bytes) : B.allocate(Bytes);
  if (!A) {
    log().error("{}", llvm::toString(A.takeError()));
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  L->Fallbacks.try_emplace(Name.str(), *A, Size);
  Address = *A;
  std::vector<uint8_t> Init(Size, 0);
  if (V->Init) {
    auto Resolve = [&](llvm::StringRef Sym) -> std::optional<uint64_t> {
      uint64_t At = 0, Sz = 0;
      if (variableLocked(L, Sym, At, Sz) != CUDA_SUCCESS)
        return std::nullopt;
      return At;
    };
    auto Bytes = ir::initializerBytes(*V, Size, Resolve);
    if (Bytes)
      Init = std::move(*Bytes);
    else
      log().warn("{}: initial value of {}: {}", L->Name, Name.str(),
                 llvm::toString(Bytes.takeError()));
  }
  if (llvm::Error E = B.copyToDevice(*A, Init.data(), Init.size())) {
    log().error("{}", llvm::toString(std::move(E)));
    return CUDA_ERROR_UNKNOWN;
  }
  return CUDA_SUCCESS;
}

} // namespace

bool reptx::loader::managedAttach(Library &L, const LoadedCode &Code) {
  for (const ptx::TopLevel &T : L.Parsed->Items) {
    if (T.K != ptx::TopLevel::Var || !ir::isManagedVariable(*T.V))
      continue;
    uint64_t Slot = 0, SlotSize = 0, Address = 0, Size = 0;
    std::string SlotName = (T.V->Name + ir::ManagedSlotSuffix).str();
    if (!Code.symbol(SlotName, Slot, SlotSize))
      continue; // no kernel of this code object uses it
    if (SlotSize != sizeof(Address) || variableLocked(&L, T.V->Name, Address, Size)) {
      log().error("{}: __managed__ variable {}: no managed memory for it", L.Name, T.V->Name.str());
      return false;
    }
    if (llvm::Error E = Driver::get().device(0)->Backend->copyToDevice(Slot, &Address, 8)) {
      log().error("{}: __managed__ variable {}: {}", L.Name, T.V->Name.str(),
                  llvm::toString(std::move(E)));
      return false;
    }
  }
  return true;
}

namespace {

CUresult getGlobal(Library *L, const char *Name, CUdeviceptr *Ptr, size_t *Bytes) {
  if (!L || !Name)
    return CUDA_ERROR_INVALID_VALUE;
  // A library loaded lazily has no .global or .const variable (lazyLoadable): nothing to compile.
  Driver &D = Driver::get();
  if (!L->Lazy)
    if (CUresult R = D.ensureLoaded(*L, *D.device(0)))
      return R;
  uint64_t Address = 0, Size = 0;
  {
    std::lock_guard<std::mutex> Lock(L->M);
    if (CUresult R = variableLocked(L, Name, Address, Size))
      return R;
  }
  if (Ptr)
    *Ptr = Address;
  if (Bytes)
    *Bytes = Size;
  return CUDA_SUCCESS;
}

/// cuLibraryGetManaged: the address of a `__managed__` variable, dereferenced by host code as
/// well as by kernels (cuda-driver-interface.md §5.6). cudart calls it when it loads the library,
/// before any context is current, so the library is compiled here.
CUresult getManaged(Library *L, const char *Name, CUdeviceptr *Ptr, size_t *Bytes) {
  if (!L || !Name)
    return CUDA_ERROR_INVALID_VALUE;
  const ptx::VarDecl *V = findVariable(*L->Parsed, Name);
  if (!V || !ir::isManagedVariable(*V))
    return CUDA_ERROR_NOT_FOUND;
  return getGlobal(L, Name, Ptr, Bytes);
}

CUresult occupancy(int *Blocks, Kernel *K, int BlockSize, size_t Shared) {
  if (!Blocks || !K || BlockSize <= 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult R = resolve(*K))
    return R;
  *Blocks = launch_queue::maxActiveBlocks(unsigned(BlockSize), K->Meta->GroupSegmentSize + Shared);
  return CUDA_SUCCESS;
}

/// Cooperative launches: the device's grid workspace, allocated on the first one.
CUresult gridWorkspace(Device &Dev, uint64_t &Address) {
  std::lock_guard<std::mutex> L(Dev.WorkspaceMutex);
  if (!Dev.GridWorkspace) {
    auto A = Dev.Backend->allocate(8);
    if (!A) {
      log().error("grid workspace: {}", llvm::toString(A.takeError()));
      return CUDA_ERROR_OUT_OF_MEMORY;
    }
    const uint32_t Init[2] = {8, 0}; // {size, barrier}
    if (llvm::Error E = Dev.Backend->copyToDevice(*A, Init, sizeof(Init))) {
      log().error("grid workspace: {}", llvm::toString(std::move(E)));
      return CUDA_ERROR_OUT_OF_MEMORY;
    }
    Dev.GridWorkspace = *A;
  }
  Address = Dev.GridWorkspace;
  return CUDA_SUCCESS;
}

/// Before a launch of a kernel of a module that reads %envreg (ir::EnvRegVariable): the grid
/// workspace of a cooperative launch in words 1 (high) and 2 (low), zero otherwise.
CUresult writeEnvRegs(const Kernel &K, bool Cooperative) {
  Library &Lib = *K.Lib;
  uint64_t Address = 0, Size = 0;
  if (!K.Code->symbol(ir::EnvRegVariable, Address, Size) || Size < 3 * 4)
    return CUDA_SUCCESS;
  uint64_t Workspace = 0;
  if (Cooperative)
    if (CUresult R = gridWorkspace(*Lib.Dev, Workspace))
      return R;
  const uint32_t Words[3] = {0, uint32_t(Workspace >> 32), uint32_t(Workspace)};
  if (llvm::Error E = Lib.Dev->Backend->copyToDevice(Address, Words, sizeof(Words))) {
    log().error("{}: %envreg: {}", Lib.Name, llvm::toString(std::move(E)));
    return CUDA_ERROR_LAUNCH_FAILED;
  }
  return CUDA_SUCCESS;
}

// A launch's configuration against the device's and the kernel's limits. An empty grid or block,
// or one outside the device's limits (the MAX_BLOCK_DIM_* / MAX_GRID_DIM_* attributes,
// MAX_THREADS_PER_BLOCK, the kernel's own limit) is what the runtime reports as
// cudaErrorInvalidConfiguration (9). cuda.h has no CUresult for it; cudart passes a result it has
// no mapping for through unchanged, so the loader answers 9 (InvalidConfiguration). Too much
// dynamic shared memory is CUDA_ERROR_INVALID_VALUE (cuLaunchKernel's documentation).
CUresult checkConfiguration(Kernel *K, Context *C, const LaunchDims &D) {
  const KernelMeta &M = *K->Meta;
  constexpr auto InvalidConfiguration = CUresult(9);
  if (!D.GridX || !D.GridY || !D.GridZ || !D.BlockX || !D.BlockY || !D.BlockZ || D.BlockX > 1024 ||
      D.BlockY > 1024 || D.BlockZ > 64 || D.GridX > 2147483647u || D.GridY > 65535 ||
      D.GridZ > 65535)
    return InvalidConfiguration;
  uint64_t Threads = uint64_t(D.BlockX) * D.BlockY * D.BlockZ;
  if (Threads > std::min<uint32_t>(M.MaxThreadsPerBlock, 1024)) {
    if (M.Wave64Single)
      log().error("launch of {}: {} threads per block, but a kernel whose warps wait on each "
                  "other runs one warp per wave64 (at most {}); REPTX_WAVE64_MODE=packed packs two",
                  K->Name, Threads, M.MaxThreadsPerBlock);
    return InvalidConfiguration;
  }
  if (D.DynamicShared > uint32_t(K->MaxDynamicShared) ||
      M.GroupSegmentSize + D.DynamicShared > 64 * 1024)
    return CUDA_ERROR_INVALID_VALUE;
  if (D.Cooperative) {
    // Every block must be resident at once: at most the occupancy times the multiprocessors.
    int PerUnit = 0;
    if (CUresult R = occupancy(&PerUnit, K, int(Threads), D.DynamicShared))
      return R;
    uint64_t Resident = uint64_t(PerUnit) * C->Dev->Backend->computeUnits();
    if (uint64_t(D.GridX) * D.GridY * D.GridZ > Resident) {
      log().error("cooperative launch of {}: {} blocks, but at most {} are resident at once",
                  K->Name, uint64_t(D.GridX) * D.GridY * D.GridZ, Resident);
      return CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE;
    }
  }
  return CUDA_SUCCESS;
}

CUresult launch(CUfunction F, unsigned GX, unsigned GY, unsigned GZ, unsigned BX, unsigned BY,
                unsigned BZ, unsigned Shared, CUstream S, void **Params, void **Extra,
                bool Cooperative = false, bool Programmatic = false) {
  Kernel *K = asKernel(F);
  if (!K)
    return CUDA_ERROR_INVALID_HANDLE;
  LaunchDims D{GX, GY, GZ, BX, BY, BZ, Shared, Cooperative};
  std::vector<uint8_t> Args;
  if (CUresult R = kernelArgs(*K, Params, Extra, Args))
    return R;
  if (captureOf(S)) {
    // Recorded into the capture's graph, with the configuration checked now, as CUDA does.
    Context *C;
    if (CUresult R = streamContext(S, C))
      return R;
    if (CUresult R = resolve(*K))
      return R;
    if (CUresult R = checkConfiguration(K, C, D))
      return R;
    auto N = std::make_unique<GraphNode>();
    N->Type = CU_GRAPH_NODE_TYPE_KERNEL;
    N->Ctx = C;
    N->K = K;
    N->Dims = D;
    N->Args = std::move(Args);
    N->pointAtArgs();
    N->Programmatic = Programmatic;
    return capture(S, std::move(N));
  }
  // Programmatic stream serialization lets the kernel start before the one before it has
  // finished; running after it, as here, is a schedule that allows.
  return runKernel(K, D, S, Args);
}

/// The XX of the `.target sm_XX[a|f]` (PTX ISA 11.3.1) that a kernel of L was written for: its
/// own unit's in PTX linked from several (-rdc with units for different targets, as with
/// libcudadevrt's), else the module's; the device's compute capability when it names none.
int ptxTargetArch(const Library &L, llvm::StringRef Kernel) {
  const ptx::Module &M = *L.Parsed;
  if (!L.Units.empty())
    for (const ptx::TopLevel &T : M.Items)
      if (T.K == ptx::TopLevel::Func && T.F->IsEntry && T.F->Name == Kernel && T.F->Body)
        if (unsigned Arch = ptx::linkedUnitArch(L.Units, T.F->L.Offset))
          return int(Arch);
  for (const auto &T : M.Targets) {
    llvm::StringRef S = T;
    unsigned Arch;
    if (S.consume_front("sm_") && !S.consumeInteger(10, Arch) &&
        (S.empty() || S == "a" || S == "f"))
      return int(Arch);
  }
  Device *D = Driver::get().device(0);
  return D->CcMajor * 10 + D->CcMinor;
}

} // namespace

int loader::codeAttribute(const Library &L, const KernelMeta &M, int Attr) {
  switch (Attr) {
  case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
    return int(M.MaxThreadsPerBlock);
  case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES:
    return int(M.GroupSegmentSize);
  case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES:
    return int(M.PrivateSegmentSize);
  case CU_FUNC_ATTRIBUTE_NUM_REGS:
    return int(std::max<uint32_t>(M.Vgprs, 1));
  case CU_FUNC_ATTRIBUTE_PTX_VERSION:
    // The virtual architecture the PTX was written for (its .target sm_XX), which CUB and Thrust
    // read to pick the tuning that matches the kernels' own (cub::PtxVersion).
    return ptxTargetArch(L, M.Name);
  case CU_FUNC_ATTRIBUTE_BINARY_VERSION: { // the device code was built for this device
    Device *D = Driver::get().device(0);
    return D->CcMajor * 10 + D->CcMinor;
  }
  default: // CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, _CACHE_MODE_CA
    return 0;
  }
}

namespace {

CUresult funcAttribute(int *Out, int Attr, Kernel *K) {
  if (!Out || !K)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult R = resolve(*K))
    return R;
  switch (Attr) {
  case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
  case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES:
  case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES:
  case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES:
  case CU_FUNC_ATTRIBUTE_NUM_REGS:
  case CU_FUNC_ATTRIBUTE_PTX_VERSION:
  case CU_FUNC_ATTRIBUTE_BINARY_VERSION:
  case CU_FUNC_ATTRIBUTE_CACHE_MODE_CA:
    *Out = codeAttribute(*K->Lib, *K->Meta, Attr);
    return CUDA_SUCCESS;
  case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
    *Out = K->MaxDynamicShared;
    return CUDA_SUCCESS;
  case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
    *Out = -1;
    return CUDA_SUCCESS;
  default:
    *Out = 0;
    return CUDA_SUCCESS;
  }
}

CUresult setFuncAttribute(Kernel *K, int Attr, int Value) {
  if (!K)
    return CUDA_ERROR_INVALID_HANDLE;
  if (Attr == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) {
    if (Value < 0 || Value > 64 * 1024)
      return CUDA_ERROR_INVALID_VALUE;
    K->MaxDynamicShared = Value;
  }
  return CUDA_SUCCESS;
}

} // namespace

// Arguments: kernelParams[i] points to the i-th argument; the extra form gives one buffer in the
// .param layout of the PTX entry.
CUresult reptx::loader::kernelArgs(const Kernel &K, void **Params, void **Extra,
                                   std::vector<uint8_t> &Out) {
  Out.assign(K.ParamBytes, 0);
  if (!Params && Extra) {
    const uint8_t *Buffer = nullptr;
    size_t BufferSize = 0;
    for (void **E = Extra; *E != CU_LAUNCH_PARAM_END; E += 2) {
      if (E[0] == CU_LAUNCH_PARAM_BUFFER_POINTER)
        Buffer = static_cast<const uint8_t *>(E[1]);
      else if (E[0] == CU_LAUNCH_PARAM_BUFFER_SIZE)
        BufferSize = *static_cast<size_t *>(E[1]);
      else
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (K.Params.empty())
      return CUDA_SUCCESS;
    if (!Buffer || BufferSize < K.ParamBytes)
      return CUDA_ERROR_INVALID_VALUE;
    std::memcpy(Out.data(), Buffer, K.ParamBytes);
    return CUDA_SUCCESS;
  }
  if (!Params)
    return K.Params.empty() ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
  for (size_t I = 0; I < K.Params.size(); ++I)
    std::memcpy(Out.data() + K.Params[I].Offset, Params[I], K.Params[I].Size);
  return CUDA_SUCCESS;
}

CUresult reptx::loader::runKernel(Kernel *K, const LaunchDims &Dims, CUstream S,
                                  const std::vector<uint8_t> &Args) {
  Context *C;
  if (CUresult R = streamContext(S, C))
    return R;
  if (CUresult R = resolve(*K))
    return R;
  if (CUresult R = C->Sticky.load())
    return R;
  if (CUresult R = checkConfiguration(K, C, Dims))
    return R;
  const KernelMeta &M = *K->Meta;
  size_t End = 0;
  for (const KernargSlot &A : M.Args)
    End = std::max<size_t>(End, A.Offset + A.Size);
  std::vector<uint8_t> Kernargs(End);
  for (size_t I = 0; I < K->Params.size(); ++I)
    std::memcpy(Kernargs.data() + M.Args[I].Offset, Args.data() + K->Params[I].Offset,
                std::min<size_t>(M.Args[I].Size, K->Params[I].Size));
  if (CUresult R = writeEnvRegs(*K, Dims.Cooperative))
    return R;
  LaunchDims D = Dims;
  {
    std::lock_guard<std::mutex> L(C->LimitMutex);
    if (auto It = C->Limits.find(CU_LIMIT_STACK_SIZE); It != C->Limits.end())
      D.StackSize = uint32_t(std::min<size_t>(It->second, UINT32_MAX));
  }
  if (M.Wave64Single) {
    // Wave64 single mode (emulator/PtxLaunch.h): the PTX block size in the leading argument,
    // one 64-lane wave per 32-thread warp of a one-dimensional hardware block.
    emulator::writeWave64SingleHeader(Kernargs, {D.BlockX, D.BlockY, D.BlockZ});
    D.BlockX = emulator::wave64SingleWorkgroupSize(uint64_t(D.BlockX) * D.BlockY * D.BlockZ);
    D.BlockY = D.BlockZ = 1;
  }
  // Dynamic parallelism: the grid and the launches it makes own the device's launch queue.
  std::unique_lock<std::recursive_mutex> Launches;
  if (K->Lib->DeviceLaunches) {
    Launches = deviceLaunchLock(*C->Dev);
    writeDeviceLimits(*C);
  }
  DeviceFault Fault = DeviceFault::None;
  // CUDA flushes device printf output at the start of a launch: what finished kernels printed.
  // An asynchronous device's FIFO is read only when it is idle, or reading it would wait for
  // the kernels still running (and race with their records).
  if (printfAttached(*C->Dev) && deviceIdle(*C->Dev))
    printfDrain(*C->Dev);
  log().debug("launch {} <<<({},{},{}), ({},{},{}), {}>>>{}", K->Name, Dims.GridX, Dims.GridY,
              Dims.GridZ, Dims.BlockX, Dims.BlockY, Dims.BlockZ, Dims.DynamicShared,
              Dims.Cooperative ? " cooperative" : "");
  if (llvm::Error E = C->Dev->Backend->launch(*K->Code, M, D, std::move(Kernargs), Fault)) {
    log().error("launch of {}: {}", K->Name, llvm::toString(std::move(E)));
    return CUDA_ERROR_LAUNCH_FAILED;
  }
  noteSubmitted(C, S);
  if (Fault != DeviceFault::None) {
    // A trap after a failed assert's message is CUDA's cudaErrorAssert.
    bool Assert = Fault == DeviceFault::LaunchFailed && printfDrain(*C->Dev);
    // Reported by the next synchronisation, as CUDA does.
    C->Sticky.store(Assert ? CUDA_ERROR_ASSERT : faultResult(Fault));
    if (K->Lib->DeviceLaunches)
      dropDeviceLaunches(*C->Dev); // not left for the next grid
    return CUDA_SUCCESS;
  }
  if (K->Lib->DeviceLaunches) {
    // The kernels the grid launched run once it has finished (on HIP, launches are
    // asynchronous: the grid is waited for first).
    if (llvm::Error E = C->Dev->Backend->synchronize(Fault))
      log().error("launch of {}: {}", K->Name, llvm::toString(std::move(E)));
    if (Fault != DeviceFault::None) {
      C->Sticky.store(faultResult(Fault));
      dropDeviceLaunches(*C->Dev);
      return CUDA_SUCCESS;
    }
    runDeviceLaunches(*C, *K, S);
  }
  return CUDA_SUCCESS;
}

// ------------------------------------------------------------------ libraries

namespace {

/// loadLibrary, filling the JIT log buffers among the options: the error lines that refused the
/// image (a parse error names file:line:col), or one info line. The image's kernels compile when
/// first used, so a kernel that does not recompile is reported then, not here.
CUresult loadWithJitLog(const void *Image, Library *&Out, unsigned NumOptions,
                        CUjit_option *Options, void **Values) {
  if (NumOptions && (!Options || !Values))
    return CUDA_ERROR_INVALID_VALUE;
  LogSink Info, Error;
  for (unsigned I = 0; I < NumOptions; ++I)
    takeLogOption(Options[I], &Values[I], Info, Error);
  Info.clear();
  Error.clear();
  CUresult R;
  {
    ErrorCapture Capture;
    R = loadLibrary(Image, Out);
    for (const std::string &Line : Capture.lines())
      Error.add("error   : " + Line);
  }
  if (R)
    return R;
  Info.add(llvm::formatv("info    : {0}: {1} bytes of PTX, recompiled for the device when first "
                         "used",
                         Out->Name, Out->Ptx.size())
               .str());
  return CUDA_SUCCESS;
}

} // namespace

CUresult cuLibraryLoadData(CUlibrary *Lib, const void *Code, CUjit_option *JitOptions,
                           void **JitValues, unsigned int NumJitOptions,
                           CUlibraryOption *LibOptions, void **LibValues,
                           unsigned int NumLibOptions) {
  REPTX_TRACE(cuLibraryLoadData, Lib, Code, JitOptions, JitValues, NumJitOptions, LibOptions,
              LibValues, NumLibOptions);
  if (!Lib)
    return CUDA_ERROR_INVALID_VALUE;
  Library *L;
  if (CUresult R = loadWithJitLog(Code, L, NumJitOptions, JitOptions, JitValues))
    return R;
  *Lib = reinterpret_cast<CUlibrary>(L);
  return CUDA_SUCCESS;
}

CUresult cuLibraryLoadFromFile(CUlibrary *Lib, const char *File, CUjit_option *JitOptions,
                               void **JitValues, unsigned int NumJitOptions,
                               CUlibraryOption *LibOptions, void **LibValues,
                               unsigned int NumLibOptions) {
  REPTX_TRACE(cuLibraryLoadFromFile, Lib, File, JitOptions, JitValues, NumJitOptions, LibOptions,
              LibValues, NumLibOptions);
  if (!Lib || !File)
    return CUDA_ERROR_INVALID_VALUE;
  auto Buf = llvm::MemoryBuffer::getFile(File, /*IsText=*/false, /*RequiresNullTerminator=*/true);
  if (!Buf)
    return CUDA_ERROR_FILE_NOT_FOUND;
  Library *L;
  if (CUresult R =
          loadWithJitLog((*Buf)->getBufferStart(), L, NumJitOptions, JitOptions, JitValues))
    return R;
  *Lib = reinterpret_cast<CUlibrary>(L);
  return CUDA_SUCCESS;
}

void loader::unloadLibrary(Library *L) {
  if (L->Owner) {
    std::lock_guard<std::mutex> G(L->Owner->ModulesMutex);
    L->Owner->Modules.erase(L);
  }
  if (L->Dev && L->Code)
    printfDetach(*L->Dev, *L->Code); // prints what its kernels left in the printf FIFO
  if (L->Dev)
    for (auto &[Name, Code] : L->KernelCode)
      printfDetach(*L->Dev, *Code);
  if (L->Dev) {
    for (auto &[Name, Alloc] : L->Fallbacks)
      llvm::consumeError(L->Dev->Backend->release(Alloc.first));
    if (L->KernelTable)
      llvm::consumeError(L->Dev->Backend->release(L->KernelTable));
  }
  L->T = Tag{};
  delete L;
}

CUresult cuLibraryUnload(CUlibrary Lib) {
  REPTX_TRACE(cuLibraryUnload, Lib);
  Library *L = asLibrary(Lib);
  if (!L)
    return CUDA_ERROR_INVALID_HANDLE;
  unloadLibrary(L);
  return CUDA_SUCCESS;
}

CUresult cuLibraryGetKernel(CUkernel *Out, CUlibrary Lib, const char *Name) {
  REPTX_TRACE(cuLibraryGetKernel, Out, Lib, Name);
  if (!Out)
    return CUDA_ERROR_INVALID_VALUE;
  Kernel *K;
  if (CUresult R = getKernel(asLibrary(Lib), Name, K))
    return R;
  *Out = reinterpret_cast<CUkernel>(K);
  return CUDA_SUCCESS;
}

CUresult cuLibraryGetModule(CUmodule *Out, CUlibrary Lib) {
  REPTX_TRACE(cuLibraryGetModule, Out, Lib);
  if (!Out || !asLibrary(Lib))
    return CUDA_ERROR_INVALID_VALUE;
  *Out = reinterpret_cast<CUmodule>(Lib);
  return CUDA_SUCCESS;
}

CUresult cuLibraryGetGlobal(CUdeviceptr *Ptr, size_t *Bytes, CUlibrary Lib, const char *Name) {
  REPTX_TRACE(cuLibraryGetGlobal, Ptr, Bytes, Lib, Name);
  return getGlobal(asLibrary(Lib), Name, Ptr, Bytes);
}

CUresult cuLibraryGetManaged(CUdeviceptr *Ptr, size_t *Bytes, CUlibrary Lib, const char *Name) {
  REPTX_TRACE(cuLibraryGetManaged, Ptr, Bytes, Lib, Name);
  return getManaged(asLibrary(Lib), Name, Ptr, Bytes);
}

CUresult cuKernelGetFunction(CUfunction *Out, CUkernel K) {
  REPTX_TRACE(cuKernelGetFunction, Out, K);
  if (!Out || !asKernel(K))
    return CUDA_ERROR_INVALID_VALUE;
  *Out = reinterpret_cast<CUfunction>(K);
  return CUDA_SUCCESS;
}

CUresult cuKernelGetLibrary(CUlibrary *Out, CUkernel K) {
  REPTX_TRACE(cuKernelGetLibrary, Out, K);
  Kernel *Kr = asKernel(K);
  if (!Out || !Kr)
    return CUDA_ERROR_INVALID_VALUE;
  *Out = reinterpret_cast<CUlibrary>(Kr->Lib);
  return CUDA_SUCCESS;
}

namespace {

/// The kernels (`.entry` definitions) of a library, in their order in its PTX.
std::vector<std::string> entryNames(const Library &L) {
  std::vector<std::string> Names;
  for (const ptx::TopLevel &T : L.Parsed->Items)
    if (T.K == ptx::TopLevel::Func && T.F->IsEntry && T.F->Body)
      Names.push_back(T.F->Name.str());
  return Names;
}

CUresult kernelCount(const void *Handle, unsigned *Count) {
  Library *L = asLibrary(Handle);
  if (!L)
    return CUDA_ERROR_INVALID_HANDLE;
  if (!Count)
    return CUDA_ERROR_INVALID_VALUE;
  *Count = unsigned(entryNames(*L).size());
  return CUDA_SUCCESS;
}

/// At most Max kernel handles of a library, in PTX order.
CUresult enumerateKernels(const void *Handle, void **Out, unsigned Max) {
  Library *L = asLibrary(Handle);
  if (!L)
    return CUDA_ERROR_INVALID_HANDLE;
  if (!Out && Max)
    return CUDA_ERROR_INVALID_VALUE;
  std::vector<std::string> Names = entryNames(*L);
  for (unsigned I = 0; I < Max && I < Names.size(); ++I) {
    Kernel *K;
    if (CUresult R = getKernel(L, Names[I].c_str(), K))
      return R;
    Out[I] = K;
  }
  return CUDA_SUCCESS;
}

} // namespace

CUresult cuLibraryGetKernelCount(unsigned int *Count, CUlibrary Lib) {
  REPTX_TRACE(cuLibraryGetKernelCount, Count, Lib);
  return kernelCount(Lib, Count);
}

CUresult cuLibraryEnumerateKernels(CUkernel *Kernels, unsigned int NumKernels, CUlibrary Lib) {
  REPTX_TRACE(cuLibraryEnumerateKernels, Kernels, NumKernels, Lib);
  return enumerateKernels(Lib, reinterpret_cast<void **>(Kernels), NumKernels);
}

CUresult cuModuleGetFunctionCount(unsigned int *Count, CUmodule Mod) {
  REPTX_TRACE(cuModuleGetFunctionCount, Count, Mod);
  return kernelCount(Mod, Count);
}

CUresult cuModuleEnumerateFunctions(CUfunction *Functions, unsigned int NumFunctions,
                                    CUmodule Mod) {
  REPTX_TRACE(cuModuleEnumerateFunctions, Functions, NumFunctions, Mod);
  return enumerateKernels(Mod, reinterpret_cast<void **>(Functions), NumFunctions);
}

CUresult cuKernelGetName(const char **Name, CUkernel K) {
  REPTX_TRACE(cuKernelGetName, Name, K);
  Kernel *Kr = asKernel(K);
  if (!Name || !Kr)
    return CUDA_ERROR_INVALID_VALUE;
  *Name = Kr->Name.c_str();
  return CUDA_SUCCESS;
}

CUresult cuKernelGetAttribute(int *Out, CUfunction_attribute Attr, CUkernel K, CUdevice Dev) {
  REPTX_TRACE(cuKernelGetAttribute, Out, Attr, K, Dev);
  return funcAttribute(Out, Attr, asKernel(K));
}
CUresult cuKernelSetAttribute(CUfunction_attribute Attr, int Value, CUkernel K, CUdevice Dev) {
  REPTX_TRACE(cuKernelSetAttribute, Attr, Value, K, Dev);
  return setFuncAttribute(asKernel(K), Attr, Value);
}
CUresult cuKernelSetCacheConfig(CUkernel K, CUfunc_cache Config, CUdevice Dev) {
  REPTX_TRACE(cuKernelSetCacheConfig, K, Config, Dev);
  return asKernel(K) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

// ------------------------------------------------------------------ modules

namespace {

CUresult loadModule(CUmodule *Mod, const void *Image, unsigned NumOptions, CUjit_option *Options,
                    void **Values) {
  if (!Mod)
    return CUDA_ERROR_INVALID_VALUE;
  Context *C;
  if (CUresult R = currentOrError(C))
    return R;
  Library *L;
  if (CUresult R = loadWithJitLog(Image, L, NumOptions, Options, Values))
    return R;
  L->Owner = C;
  {
    std::lock_guard<std::mutex> G(C->ModulesMutex);
    C->Modules.insert(L);
  }
  *Mod = reinterpret_cast<CUmodule>(L);
  return CUDA_SUCCESS;
}

} // namespace

CUresult cuModuleLoadData(CUmodule *Mod, const void *Image) {
  REPTX_TRACE(cuModuleLoadData, Mod, Image);
  return loadModule(Mod, Image, 0, nullptr, nullptr);
}

CUresult cuModuleLoadDataEx(CUmodule *Mod, const void *Image, unsigned int NumOptions,
                            CUjit_option *Options, void **OptionValues) {
  REPTX_TRACE(cuModuleLoadDataEx, Mod, Image, NumOptions, Options, OptionValues);
  return loadModule(Mod, Image, NumOptions, Options, OptionValues);
}

CUresult cuModuleLoadFatBinary(CUmodule *Mod, const void *Image) {
  REPTX_TRACE(cuModuleLoadFatBinary, Mod, Image);
  return cuModuleLoadData(Mod, Image);
}

CUresult cuModuleLoad(CUmodule *Mod, const char *File) {
  REPTX_TRACE(cuModuleLoad, Mod, File);
  if (!Mod || !File)
    return CUDA_ERROR_INVALID_VALUE;
  auto Buf = llvm::MemoryBuffer::getFile(File, /*IsText=*/false, /*RequiresNullTerminator=*/true);
  if (!Buf)
    return CUDA_ERROR_FILE_NOT_FOUND;
  return cuModuleLoadData(Mod, (*Buf)->getBufferStart());
}

CUresult cuModuleUnload(CUmodule Mod) {
  REPTX_TRACE(cuModuleUnload, Mod);
  return cuLibraryUnload(reinterpret_cast<CUlibrary>(Mod));
}

CUresult cuModuleGetFunction(CUfunction *Out, CUmodule Mod, const char *Name) {
  REPTX_TRACE(cuModuleGetFunction, Out, Mod, Name);
  if (!Out)
    return CUDA_ERROR_INVALID_VALUE;
  Kernel *K;
  if (CUresult R = getKernel(asLibrary(Mod), Name, K))
    return R;
  // cuModuleGetFunction compiles: a kernel that does not recompile fails here, naming the
  // instruction in the log.
  if (CUresult R = resolve(*K))
    return R;
  *Out = reinterpret_cast<CUfunction>(K);
  return CUDA_SUCCESS;
}

CUresult cuModuleGetGlobal_v2(CUdeviceptr *Ptr, size_t *Bytes, CUmodule Mod, const char *Name) {
  REPTX_TRACE(cuModuleGetGlobal_v2, Ptr, Bytes, Mod, Name);
  return getGlobal(asLibrary(Mod), Name, Ptr, Bytes);
}

namespace {
// cuModuleGet{Tex,Surf}Ref: the reference made from the module's .texref (.surfref) variable
// Name. Its handle variable exists in the code object only when a kernel uses it; otherwise
// binding the reference changes nothing a kernel reads.
CUresult moduleRef(void **Out, CUmodule Mod, const char *Name, bool Surface) {
  Library *L = asLibrary(Mod);
  if (!Out || !L || !Name)
    return CUDA_ERROR_INVALID_VALUE;
  const ptx::VarDecl *V = findVariable(*L->Parsed, Name);
  if (!V || V->Type != (Surface ? ".surfref" : ".texref"))
    return CUDA_ERROR_NOT_FOUND;
  CUdeviceptr Slot = 0;
  size_t Size = 0;
  CUresult R = getGlobal(L, Name, &Slot, &Size);
  if (R != CUDA_SUCCESS && R != CUDA_ERROR_NOT_FOUND)
    return R; // the module did not load
  if (R != CUDA_SUCCESS || Size < 8)
    Slot = 0;
  *Out = moduleReference(L, Name, Driver::get().device(0), Slot, Surface);
  return CUDA_SUCCESS;
}
} // namespace

CUresult cuModuleGetTexRef(CUtexref *pTexRef, CUmodule hmod, const char *name) {
  REPTX_TRACE(cuModuleGetTexRef, pTexRef, hmod, name);
  return moduleRef(reinterpret_cast<void **>(pTexRef), hmod, name, /*Surface=*/false);
}

CUresult cuModuleGetSurfRef(CUsurfref *pSurfRef, CUmodule hmod, const char *name) {
  REPTX_TRACE(cuModuleGetSurfRef, pSurfRef, hmod, name);
  return moduleRef(reinterpret_cast<void **>(pSurfRef), hmod, name, /*Surface=*/true);
}

CUresult cuFuncGetModule(CUmodule *Out, CUfunction F) {
  REPTX_TRACE(cuFuncGetModule, Out, F);
  Kernel *K = asKernel(F);
  if (!Out || !K)
    return CUDA_ERROR_INVALID_VALUE;
  *Out = reinterpret_cast<CUmodule>(K->Lib);
  return CUDA_SUCCESS;
}

// Lazy loading's queries (CUDA 12.4): a function is loaded once the code object holding it is
// (its module's, or its own: lazy loading); loading compiles it (the kernel cache first) now.
CUresult cuFuncIsLoaded(CUfunctionLoadingState *state, CUfunction function) {
  REPTX_TRACE(cuFuncIsLoaded, state, function);
  Kernel *K = asKernel(function);
  if (!K)
    return CUDA_ERROR_INVALID_HANDLE;
  if (!state)
    return CUDA_ERROR_INVALID_VALUE;
  bool Loaded = K->Meta;
  if (!Loaded) {
    std::lock_guard<std::mutex> Lock(K->Lib->M);
    const LoadedCode *Code = codeOf(*K->Lib, K->Name);
    Loaded = Code && Code->kernel(K->Name);
  }
  *state = Loaded ? CU_FUNCTION_LOADING_STATE_LOADED : CU_FUNCTION_LOADING_STATE_UNLOADED;
  return CUDA_SUCCESS;
}
CUresult cuFuncLoad(CUfunction function) {
  REPTX_TRACE(cuFuncLoad, function);
  Kernel *K = asKernel(function);
  if (!K)
    return CUDA_ERROR_INVALID_HANDLE;
  return resolve(*K);
}

CUresult cuFuncGetName(const char **Name, CUfunction F) {
  REPTX_TRACE(cuFuncGetName, Name, F);
  return cuKernelGetName(Name, reinterpret_cast<CUkernel>(F));
}

CUresult cuFuncGetAttribute(int *Out, CUfunction_attribute Attr, CUfunction F) {
  REPTX_TRACE(cuFuncGetAttribute, Out, Attr, F);
  return funcAttribute(Out, Attr, asKernel(F));
}
CUresult cuFuncSetAttribute(CUfunction F, CUfunction_attribute Attr, int Value) {
  REPTX_TRACE(cuFuncSetAttribute, F, Attr, Value);
  return setFuncAttribute(asKernel(F), Attr, Value);
}
CUresult cuFuncSetCacheConfig(CUfunction F, CUfunc_cache Config) {
  REPTX_TRACE(cuFuncSetCacheConfig, F, Config);
  return asKernel(F) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}
CUresult cuFuncSetSharedMemConfig(CUfunction F, CUsharedconfig Config) {
  REPTX_TRACE(cuFuncSetSharedMemConfig, F, Config);
  return asKernel(F) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CUresult cuFuncGetParamInfo(CUfunction F, size_t Index, size_t *Offset, size_t *Size) {
  REPTX_TRACE(cuFuncGetParamInfo, F, Index, Offset, Size);
  Kernel *K = asKernel(F);
  if (!K || Index >= K->Params.size())
    return CUDA_ERROR_INVALID_VALUE;
  if (Offset)
    *Offset = K->Params[Index].Offset;
  if (Size)
    *Size = K->Params[Index].Size;
  return CUDA_SUCCESS;
}
CUresult cuKernelGetParamInfo(CUkernel kernel, size_t paramIndex, size_t *paramOffset,
                              size_t *paramSize) {
  REPTX_TRACE(cuKernelGetParamInfo, kernel, paramIndex, paramOffset, paramSize);
  return cuFuncGetParamInfo(reinterpret_cast<CUfunction>(kernel), paramIndex, paramOffset,
                            paramSize);
}

// ------------------------------------------------------------------ launches

CUresult cuLaunchKernel(CUfunction F, unsigned int GX, unsigned int GY, unsigned int GZ,
                        unsigned int BX, unsigned int BY, unsigned int BZ, unsigned int Shared,
                        CUstream S, void **Params, void **Extra) {
  REPTX_TRACE(cuLaunchKernel, F, GX, GY, GZ, BX, BY, BZ, Shared, S, Params, Extra);
  return launch(F, GX, GY, GZ, BX, BY, BZ, Shared, S, Params, Extra);
}
CUresult cuLaunchKernel_ptsz(CUfunction F, unsigned int GX, unsigned int GY, unsigned int GZ,
                             unsigned int BX, unsigned int BY, unsigned int BZ, unsigned int Shared,
                             CUstream S, void **Params, void **Extra) {
  REPTX_TRACE(cuLaunchKernel_ptsz, F, GX, GY, GZ, BX, BY, BZ, Shared, S, Params, Extra);
  S = perThreadDefault(S);
  return launch(F, GX, GY, GZ, BX, BY, BZ, Shared, S, Params, Extra);
}

CUresult cuLaunchKernelEx(const CUlaunchConfig *Cfg, CUfunction F, void **Params, void **Extra) {
  REPTX_TRACE(cuLaunchKernelEx, Cfg, F, Params, Extra);
  if (!Cfg || (Cfg->numAttrs && !Cfg->attrs))
    return CUDA_ERROR_INVALID_VALUE;
  bool Cooperative = false, Programmatic = false;
  // Events the launch records: when its blocks have triggered or begun (programmatic dependent
  // launch), when its last block has begun (launch completion); recorded once the kernel has
  // run, as every launch here completes before the next operation, which those moments allow.
  std::vector<CUevent> Records;
  for (unsigned I = 0; I < Cfg->numAttrs; ++I) {
    const CUlaunchAttributeValue &V = Cfg->attrs[I].value;
    switch (Cfg->attrs[I].id) {
    case CU_LAUNCH_ATTRIBUTE_COOPERATIVE:
      Cooperative = V.cooperative != 0;
      break;
    case CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION:
      Programmatic = V.programmaticStreamSerializationAllowed != 0;
      break;
    case CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT:
    case CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT: {
      bool Completion = Cfg->attrs[I].id == CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT;
      CUevent E = Completion ? V.launchCompletionEvent.event : V.programmaticEvent.event;
      int Flags = Completion ? V.launchCompletionEvent.flags : V.programmaticEvent.flags;
      if (!E || Flags) // CU_EVENT_RECORD_EXTERNAL is not accepted
        return CUDA_ERROR_INVALID_VALUE;
      Records.push_back(E);
      break;
    }
    default:
      break;
    }
  }
  if (CUresult R = launch(F, Cfg->gridDimX, Cfg->gridDimY, Cfg->gridDimZ, Cfg->blockDimX,
                          Cfg->blockDimY, Cfg->blockDimZ, Cfg->sharedMemBytes, Cfg->hStream, Params,
                          Extra, Cooperative, Programmatic))
    return R;
  for (CUevent E : Records)
    if (CUresult R = cuEventRecord(E, Cfg->hStream))
      return R;
  return CUDA_SUCCESS;
}
CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig *Cfg, CUfunction F, void **Params,
                               void **Extra) {
  REPTX_TRACE(cuLaunchKernelEx_ptsz, Cfg, F, Params, Extra);
  if (!Cfg)
    return CUDA_ERROR_INVALID_VALUE;
  CUlaunchConfig OnPerThread = *Cfg;
  OnPerThread.hStream = perThreadDefault(Cfg->hStream);
  return cuLaunchKernelEx(&OnPerThread, F, Params, Extra);
}

// Cooperative launches: every block resident at once (the emulator interleaves them all; HIP
// gets an ordinary launch of a grid that fits the device), and the grid workspace in %envreg1/2
// for cooperative groups' grid.sync().
CUresult cuLaunchCooperativeKernel(CUfunction F, unsigned int GX, unsigned int GY, unsigned int GZ,
                                   unsigned int BX, unsigned int BY, unsigned int BZ,
                                   unsigned int Shared, CUstream S, void **Params) {
  REPTX_TRACE(cuLaunchCooperativeKernel, F, GX, GY, GZ, BX, BY, BZ, Shared, S, Params);
  return launch(F, GX, GY, GZ, BX, BY, BZ, Shared, S, Params, nullptr, /*Cooperative=*/true);
}
CUresult cuLaunchCooperativeKernel_ptsz(CUfunction F, unsigned int GX, unsigned int GY,
                                        unsigned int GZ, unsigned int BX, unsigned int BY,
                                        unsigned int BZ, unsigned int Shared, CUstream S,
                                        void **Params) {
  REPTX_TRACE(cuLaunchCooperativeKernel_ptsz, F, GX, GY, GZ, BX, BY, BZ, Shared, S, Params);
  S = perThreadDefault(S);
  return launch(F, GX, GY, GZ, BX, BY, BZ, Shared, S, Params, nullptr, /*Cooperative=*/true);
}

// ------------------------------------------------------------------ occupancy

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *Blocks, CUfunction F, int BlockSize,
                                                     size_t Shared) {
  REPTX_TRACE(cuOccupancyMaxActiveBlocksPerMultiprocessor, Blocks, F, BlockSize, Shared);
  return occupancy(Blocks, asKernel(F), BlockSize, Shared);
}
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *Blocks, CUfunction F,
                                                              int BlockSize, size_t Shared,
                                                              unsigned int Flags) {
  REPTX_TRACE(cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags, Blocks, F, BlockSize, Shared,
              Flags);
  return occupancy(Blocks, asKernel(F), BlockSize, Shared);
}

// Thread block clusters (sm_90): reptx runs a cluster launch's blocks as ordinary ones, so the
// occupancy of clusters is that of their blocks: the resident blocks of the device in groups of
// the cluster's size. The size comes from the configuration's CLUSTER_DIMENSION attribute (there
// is no required cluster size to fall back on); at most 8 blocks, the portable limit.
namespace {
CUresult clusterOccupancy(int *Out, CUfunction F, const CUlaunchConfig *Config, bool Potential) {
  Kernel *K = asKernel(F);
  if (!Out || !K || !Config || (Config->numAttrs && !Config->attrs))
    return CUDA_ERROR_INVALID_VALUE;
  uint64_t Size = 0;
  for (unsigned I = 0; I < Config->numAttrs; ++I)
    if (Config->attrs[I].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
      const auto &D = Config->attrs[I].value.clusterDim;
      Size = uint64_t(D.x) * D.y * D.z;
    }
  int Blocks;
  uint64_t Threads = uint64_t(Config->blockDimX) * Config->blockDimY * Config->blockDimZ;
  if (Threads == 0 || Threads > 1024)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult R = occupancy(&Blocks, K, int(Threads), Config->sharedMemBytes))
    return R;
  int Sms = int(K->Lib->Dev ? K->Lib->Dev->Backend->computeUnits()
                            : Driver::get().device(0)->Backend->computeUnits());
  if (Potential) {
    // The largest cluster whose blocks fit on the device at once, up to the portable 8.
    *Out = Blocks ? int(std::min<uint64_t>(8, uint64_t(Blocks) * Sms)) : 0;
    return CUDA_SUCCESS;
  }
  if (Size == 0 || Size > 8)
    return CUDA_ERROR_INVALID_CLUSTER_SIZE;
  *Out = int(uint64_t(Blocks) * Sms / Size);
  return CUDA_SUCCESS;
}
} // namespace

CUresult cuOccupancyMaxActiveClusters(int *NumClusters, CUfunction F,
                                      const CUlaunchConfig *Config) {
  REPTX_TRACE(cuOccupancyMaxActiveClusters, NumClusters, F, Config);
  return clusterOccupancy(NumClusters, F, Config, /*Potential=*/false);
}
CUresult cuOccupancyMaxPotentialClusterSize(int *ClusterSize, CUfunction F,
                                            const CUlaunchConfig *Config) {
  REPTX_TRACE(cuOccupancyMaxPotentialClusterSize, ClusterSize, F, Config);
  return clusterOccupancy(ClusterSize, F, Config, /*Potential=*/true);
}

// The most dynamic shared memory a block can have while NumBlocks blocks of BlockSize threads
// stay resident on a multiprocessor (the occupancy model above: 100 KiB of shared memory per
// multiprocessor, 48 warps, 16 blocks), within the kernel's own and the device's limits.
CUresult cuOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize, CUfunction func,
                                                 int numBlocks, int blockSize) {
  REPTX_TRACE(cuOccupancyAvailableDynamicSMemPerBlock, dynamicSmemSize, func, numBlocks, blockSize);
  Kernel *K = asKernel(func);
  if (!dynamicSmemSize || !K || numBlocks <= 0 || blockSize <= 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult R = resolve(*K))
    return R;
  if (uint32_t(blockSize) > std::min<uint32_t>(K->Meta->MaxThreadsPerBlock, 1024))
    return CUDA_ERROR_INVALID_VALUE;
  size_t Static = K->Meta->GroupSegmentSize;
  size_t PerBlock = 100 * 1024 / size_t(numBlocks);
  int Warps = (blockSize + 31) / 32;
  if (numBlocks > 16 || Warps * numBlocks > 48 || PerBlock <= Static || Static >= 64 * 1024) {
    *dynamicSmemSize = 0;
    return CUDA_SUCCESS;
  }
  *dynamicSmemSize = std::min({PerBlock - Static, size_t(K->MaxDynamicShared), 64 * 1024 - Static});
  return CUDA_SUCCESS;
}

CUresult cuOccupancyMaxPotentialBlockSize(int *MinGrid, int *BlockSize, CUfunction F,
                                          CUoccupancyB2DSize ShmemFn, size_t Shared, int Limit) {
  REPTX_TRACE(cuOccupancyMaxPotentialBlockSize, MinGrid, BlockSize, F, ShmemFn, Shared, Limit);
  Kernel *K = asKernel(F);
  if (!MinGrid || !BlockSize || !K)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult R = resolve(*K))
    return R;
  int Best = int(std::min<uint32_t>(K->Meta->MaxThreadsPerBlock, 1024));
  if (Limit > 0)
    Best = std::min(Best, Limit);
  Best = std::max(32, Best / 32 * 32);
  size_t Dyn = ShmemFn ? ShmemFn(Best) : Shared;
  int Blocks = 0;
  if (CUresult R = occupancy(&Blocks, K, Best, Dyn))
    return R;
  *BlockSize = Best;
  *MinGrid = std::max(1, Blocks) * int(Driver::get().device(0)->Backend->computeUnits());
  return CUDA_SUCCESS;
}
CUresult cuOccupancyMaxPotentialBlockSizeWithFlags(int *MinGrid, int *BlockSize, CUfunction F,
                                                   CUoccupancyB2DSize ShmemFn, size_t Shared,
                                                   int Limit, unsigned int Flags) {
  REPTX_TRACE(cuOccupancyMaxPotentialBlockSizeWithFlags, MinGrid, BlockSize, F, ShmemFn, Shared,
              Limit, Flags);
  return cuOccupancyMaxPotentialBlockSize(MinGrid, BlockSize, F, ShmemFn, Shared, Limit);
}
