// Driver state: initialisation, devices, contexts and the lazy per-device compilation of
// libraries.
#include "Driver.h"
#include "DeviceHeap.h"
#include "DeviceLaunch.h"
#include "ModuleCompiler.h"
#include "Printf.h"

#include "reptx/backend/Backend.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace reptx::loader {

Driver &Driver::get() {
  // Never destroyed: cudart calls into the driver from its own atexit handlers.
  static Driver *D = new Driver;
  return *D;
}

std::vector<Context *> &contextStack() {
  // Kept through exit handlers, which CUDA calls come from in the context that was current.
  struct ContextStack {
    std::vector<Context *> Contexts;
  };
  return threadObject<ContextStack>().Contexts;
}

CUresult currentOrError(Context *&C) {
  if (!Driver::get().initialized())
    return CUDA_ERROR_NOT_INITIALIZED;
  C = currentContext();
  return C ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

CUresult faultResult(DeviceFault F) {
  switch (F) {
  case DeviceFault::None:
    return CUDA_SUCCESS;
  case DeviceFault::IllegalAddress:
    return CUDA_ERROR_ILLEGAL_ADDRESS;
  case DeviceFault::IllegalInstruction:
    return CUDA_ERROR_ILLEGAL_INSTRUCTION;
  case DeviceFault::Timeout:
    return CUDA_ERROR_LAUNCH_TIMEOUT;
  case DeviceFault::LaunchFailed:
    break;
  }
  return CUDA_ERROR_LAUNCH_FAILED;
}

namespace {

int envInt(const char *Name, int Default) {
  const char *V = std::getenv(Name);
  return V && *V ? std::atoi(V) : Default;
}

/// An exit handler for asynchronous devices: the work the program left queued finishes and what
/// it printed is printed while the device's runtime is still there, then the backend stops using
/// the runtime (ExecBackend::processExiting), whose own exit handlers may run next.
void finishAtExit() {
  Driver &Drv = Driver::get();
  for (int I = 0; I < Drv.deviceCount(); ++I) {
    Device *D = Drv.device(I);
    if (!D || !D->Backend->asynchronous())
      continue;
    DeviceFault Fault = DeviceFault::None;
    llvm::consumeError(D->Backend->synchronize(Fault));
    printfDrain(*D);
    D->Backend->processExiting();
  }
}

} // namespace

CUresult Driver::init() {
  std::call_once(InitOnce, [this] {
    auto Backend = createBackend();
    if (!Backend) {
      log().error("{}", llvm::toString(Backend.takeError()));
      InitResult = CUDA_ERROR_NO_DEVICE;
      return;
    }
    auto D = std::make_unique<Device>();
    D->Ordinal = 0;
    D->Backend = std::move(*Backend);
    D->Name = D->Backend->deviceName();
    // REPTX_COMPUTE_CAPABILITY=86 (or 8.6): what the device reports, and the highest PTX target
    // a module's image is chosen by.
    if (const char *CC = std::getenv("REPTX_COMPUTE_CAPABILITY"); CC && *CC) {
      std::string S(CC);
      S.erase(std::remove(S.begin(), S.end(), '.'), S.end());
      int V = std::atoi(S.c_str());
      if (V >= 30 && V < 1300) {
        D->CcMajor = V / 10;
        D->CcMinor = V % 10;
      }
    }
    // A stable identity: the UUID is the MD2 of the device description.
    std::string Desc = "reptx " + D->Backend->kind().str() + " " + D->Backend->arch();
    D->Identity.Uuid =
        md2(llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(Desc.data()), Desc.size()));
    D->Identity.PciDomain = 0;
    D->Identity.PciBus = envInt("REPTX_PCI_BUS", 0xc1);
    D->Identity.PciDevice = 0;
    D->PrimaryCtx.Dev = D.get();
    D->PrimaryCtx.Primary = true;
    D->PrimaryCtx.Id = nextContextId();
    log().info("device 0: {} (compute capability {}.{}, {} backend)", D->Name, D->CcMajor,
               D->CcMinor, D->Backend->kind().str());
    if (!backend::isSupportedArch(D->Backend->arch()))
      log().error("device 0 is a {}, which reptx does not compile for (gfx90a, gfx942, gfx1030, "
                  "gfx1100, gfx1201): its modules will not load (REPTX_ARCH names a processor "
                  "whose code it runs)",
                  D->Backend->arch());
    // Registered right after the backend initialised the device's runtime, so it runs before
    // the runtime's exit handlers (handlers run in reverse order) and before cudart's, which
    // were registered before cuInit and unload its modules afterwards.
    if (D->Backend->asynchronous())
      std::atexit(finishAtExit);
    Devices.push_back(std::move(D));
    InitResult = CUDA_SUCCESS;
    Initialized.store(true, std::memory_order_release);
  });
  return InitResult;
}

Device *Driver::device(CUdevice Ordinal) {
  if (!initialized() || Ordinal < 0 || Ordinal >= int(Devices.size()))
    return nullptr;
  return Devices[Ordinal].get();
}

bool Driver::validContext(CUcontext C) {
  auto *Ctx = reinterpret_cast<Context *>(C);
  if (!Ctx)
    return false;
  for (auto &D : Devices)
    if (&D->PrimaryCtx == Ctx)
      return true;
  std::lock_guard<std::mutex> L(CtxMutex);
  return std::find(Contexts.begin(), Contexts.end(), Ctx) != Contexts.end();
}

Context *Driver::createContext(Device *D, unsigned Flags) {
  auto *C = new Context;
  C->Dev = D;
  C->Flags = Flags;
  C->Id = nextContextId();
  std::lock_guard<std::mutex> L(CtxMutex);
  Contexts.push_back(C);
  return C;
}

void Driver::destroyContext(Context *C) {
  {
    std::lock_guard<std::mutex> L(CtxMutex);
    Contexts.erase(std::remove(Contexts.begin(), Contexts.end(), C), Contexts.end());
  }
  releaseResources(C);
  auto &S = contextStack();
  S.erase(std::remove(S.begin(), S.end(), C), S.end());
  delete C;
}

void Driver::releaseResources(Context *C) {
  // Context-local storage destructors (cuda-driver-interface.md §4.5).
  std::unordered_map<void *, ClsEntry> Cls;
  {
    std::unique_lock<std::shared_mutex> L(C->ClsMutex);
    Cls.swap(C->Cls);
  }
  for (auto &[Key, E] : Cls)
    if (E.Dtor)
      E.Dtor(reinterpret_cast<CUcontext>(C), Key, E.Value);
  // Its modules go with it, as CUDA destroys a context's resources.
  std::set<Library *> Modules;
  {
    std::lock_guard<std::mutex> G(C->ModulesMutex);
    Modules.swap(C->Modules);
  }
  for (Library *L : Modules) {
    L->Owner = nullptr;
    unloadLibrary(L);
  }
  // And the device memory allocated in it (ApiMemory.cpp).
  releaseContextMemory(C);
  forgetContextProgress(C);
  C->Sticky.store(CUDA_SUCCESS);
}

namespace {

/// Takes a compile's result into L (under L.M): its failures, and its code object loaded on the
/// device, as the whole module's (CM.WholeModule) or as the code object of Kernel alone.
CUresult install(Library &L, Device &D, CompiledModule &CM, llvm::StringRef Kernel,
                 std::chrono::steady_clock::time_point Start) {
  for (auto &[Name, Message] : CM.Failures) {
    log().error("{}", Message);
    L.Failures[Name] = Message;
  }
  auto Compiled = std::chrono::steady_clock::now();
  if (!CM.CodeObject.empty()) {
    auto Code = D.Backend->load(CM.CodeObject);
    if (!Code) {
      log().error("{}: loading the code object failed: {}", L.Name,
                  llvm::toString(Code.takeError()));
      return CUDA_ERROR_INVALID_IMAGE;
    }
    printfAttach(D, **Code);       // device printf: point the code object at the FIFO
    heapAttach(D, **Code);         // device malloc: and at the heap
    if (!managedAttach(L, **Code)) // and at the `__managed__` variables' memory
      return CUDA_ERROR_OUT_OF_MEMORY;
    if (CM.WholeModule) {
      L.Code = std::move(*Code);
      L.DeviceLaunches = launchQueueAttach(D, *L.Code); // dynamic parallelism: the launch queue
      kernelTableAttach(L, CM.Kernels);                 // and the kernels' attributes
    } else {
      L.KernelCode[Kernel.str()] = std::move(*Code);
    }
  }
  auto Ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - Start);
  log().debug("{}: {:.1f} ms to compile or find in the cache, {:.1f} ms to load {} bytes", L.Name,
              std::chrono::duration<double, std::milli>(Compiled - Start).count(),
              std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - Compiled)
                  .count(),
              CM.CodeObject.size());
  if (CM.WholeModule)
    log().info("{}: {} kernel(s) for {} in {:.1f} ms ({}, {} failed)", L.Name, CM.Kernels.size(),
               D.Backend->arch(), Ms.count(), CM.Origin, CM.Failures.size());
  else
    log().info("{}: kernel {} for {} in {:.1f} ms ({}{}; lazy loading)", L.Name, Kernel.str(),
               D.Backend->arch(), Ms.count(), CM.Origin, CM.Failures.empty() ? "" : ", failed");
  return CUDA_SUCCESS;
}

} // namespace

CUresult Driver::ensureLoaded(Library &L, Device &D) {
  std::lock_guard<std::mutex> Lock(L.M);
  if (L.Compiled)
    return L.CompileResult;
  L.Compiled = true;
  L.Dev = &D;
  auto Start = std::chrono::steady_clock::now();
  auto CM = compilePtxModule(L.Name, L.Ptx, L.PtxasOptions, D.Backend->arch(),
                             D.Backend->codeObjectVersion());
  if (!CM) {
    log().error("{}: compiling for {} failed: {}", L.Name, D.Backend->arch(),
                llvm::toString(CM.takeError()));
    return L.CompileResult = CUDA_ERROR_INVALID_PTX;
  }
  return L.CompileResult = install(L, D, *CM, "", Start);
}

CUresult Driver::ensureKernelLoaded(Library &L, Device &D, llvm::StringRef Kernel) {
  {
    std::lock_guard<std::mutex> Lock(L.M);
    if (L.Lazy && !L.Compiled) {
      if (L.KernelCode.count(Kernel) || L.Failures.count(Kernel))
        return CUDA_SUCCESS;
      L.Dev = &D;
      auto Start = std::chrono::steady_clock::now();
      auto CM = compilePtxModule(L.Name, L.Ptx, L.PtxasOptions, D.Backend->arch(),
                                 D.Backend->codeObjectVersion(), {Kernel.str()}, L.Parsed.get());
      if (!CM) {
        std::string Message = L.Name + ": kernel " + Kernel.str() + ": compiling for " +
                              D.Backend->arch() + " failed: " + llvm::toString(CM.takeError());
        log().error("{}", Message);
        L.Failures[Kernel.str()] = Message;
        return CUDA_SUCCESS; // resolve() reports the failure
      }
      if (CM->WholeModule) // the kernel cache held the whole module
        L.Compiled = true;
      CUresult R = install(L, D, *CM, Kernel, Start);
      if (CM->WholeModule)
        L.CompileResult = R;
      return R;
    }
  }
  return ensureLoaded(L, D);
}

const LoadedCode *codeOf(const Library &L, llvm::StringRef Kernel) {
  if (auto It = L.KernelCode.find(Kernel); It != L.KernelCode.end())
    return It->second.get();
  return L.Code.get();
}

} // namespace reptx::loader
