// The HIP backend: libamdhip64 opened at run time (never linked), so the library builds and runs
// without ROCm. Device memory is HIP memory; code objects are loaded with hipModuleLoadData and
// launched with hipModuleLaunchKernel, kernel arguments passed as one kernarg buffer
// (HIP_LAUNCH_PARAM_BUFFER_POINTER). Kernel metadata comes from the code object itself.
#include "ExecBackend.h"
#include "Log.h"

#include "reptx/emulator/CodeObject.h"

#include <dlfcn.h>

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <set>

// hsa.h's agent handle under its own tag, so that the types of the HSA functions called through
// pointers here are the runtime's (UBSan's function check compares them with an instrumented
// runtime's, such as the tests' fake_hsa.c).
struct hsa_agent_s {
  uint64_t handle;
};
// hip_runtime_api.h's tag for hipEvent_t (the same reason).
struct ihipEvent_t;

namespace reptx::loader {
namespace {

using namespace llvm;

using hipError = int;
using hipModule = void *;
using hipFunction = void *;

// The HIP runtime's C entry points used here (hip_runtime_api.h), by name.
struct HipApi {
  void *Handle = nullptr;
  std::string Library;
  hipError (*Init)(unsigned) = nullptr;
  hipError (*GetDeviceCount)(int *) = nullptr;
  hipError (*DeviceGetName)(char *, int, int) = nullptr;
  hipError (*DeviceTotalMem)(size_t *, int) = nullptr;
  hipError (*Malloc)(void **, size_t) = nullptr;
  hipError (*MallocManaged)(void **, size_t, unsigned) = nullptr;
  hipError (*Free)(void *) = nullptr;
  hipError (*HostRegister)(void *, size_t, unsigned) = nullptr;
  hipError (*HostUnregister)(void *) = nullptr;
  hipError (*HostGetDevicePointer)(void **, void *, unsigned) = nullptr;
  hipError (*Memcpy)(void *, const void *, size_t, int) = nullptr;
  hipError (*MemsetD8)(void *, unsigned char, size_t) = nullptr;
  hipError (*MemsetD16)(void *, unsigned short, size_t) = nullptr;
  hipError (*MemsetD32)(void *, int, size_t) = nullptr;
  hipError (*MemGetAddressRange)(void **, size_t *, void *) = nullptr;
  hipError (*ModuleLoadData)(hipModule *, const void *) = nullptr;
  hipError (*ModuleUnload)(hipModule) = nullptr;
  hipError (*ModuleGetFunction)(hipFunction *, hipModule, const char *) = nullptr;
  hipError (*ModuleGetGlobal)(void **, size_t *, hipModule, const char *) = nullptr;
  hipError (*ModuleLaunchKernel)(hipFunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                                 unsigned, unsigned, void *, void **, void **) = nullptr;
  hipError (*DeviceSynchronize)() = nullptr;
  hipError (*EventCreateWithFlags)(ihipEvent_t **, unsigned) = nullptr;
  hipError (*EventRecord)(ihipEvent_t *, void *) = nullptr; // on a stream; null: the null stream
  hipError (*EventSynchronize)(ihipEvent_t *) = nullptr;
  hipError (*EventQuery)(ihipEvent_t *) = nullptr;
  hipError (*EventElapsedTime)(float *, ihipEvent_t *, ihipEvent_t *) = nullptr;
  hipError (*EventDestroy)(ihipEvent_t *) = nullptr;
  const char *(*GetErrorString)(hipError) = nullptr;
  hipError (*RuntimeGetVersion)(int *) = nullptr;
};

/// Each entry point and the member it is bound to.
struct Slot {
  const char *Name;
  void (*Set)(HipApi &, void *);
};
#define REPTX_HIP_SLOT(Name, Field)                                                                \
  Slot {                                                                                           \
    Name, [](HipApi &A, void *P) { A.Field = reinterpret_cast<decltype(A.Field)>(P); }             \
  }
const Slot Slots[] = {
    REPTX_HIP_SLOT("hipInit", Init),
    REPTX_HIP_SLOT("hipGetDeviceCount", GetDeviceCount),
    REPTX_HIP_SLOT("hipDeviceGetName", DeviceGetName),
    REPTX_HIP_SLOT("hipDeviceTotalMem", DeviceTotalMem),
    REPTX_HIP_SLOT("hipMalloc", Malloc),
    REPTX_HIP_SLOT("hipMallocManaged", MallocManaged),
    REPTX_HIP_SLOT("hipFree", Free),
    REPTX_HIP_SLOT("hipHostRegister", HostRegister),
    REPTX_HIP_SLOT("hipHostUnregister", HostUnregister),
    REPTX_HIP_SLOT("hipHostGetDevicePointer", HostGetDevicePointer),
    REPTX_HIP_SLOT("hipMemcpy", Memcpy),
    REPTX_HIP_SLOT("hipMemsetD8", MemsetD8),
    REPTX_HIP_SLOT("hipMemsetD16", MemsetD16),
    REPTX_HIP_SLOT("hipMemsetD32", MemsetD32),
    REPTX_HIP_SLOT("hipMemGetAddressRange", MemGetAddressRange),
    REPTX_HIP_SLOT("hipModuleLoadData", ModuleLoadData),
    REPTX_HIP_SLOT("hipModuleUnload", ModuleUnload),
    REPTX_HIP_SLOT("hipModuleGetFunction", ModuleGetFunction),
    REPTX_HIP_SLOT("hipModuleGetGlobal", ModuleGetGlobal),
    REPTX_HIP_SLOT("hipModuleLaunchKernel", ModuleLaunchKernel),
    REPTX_HIP_SLOT("hipDeviceSynchronize", DeviceSynchronize),
    REPTX_HIP_SLOT("hipEventCreateWithFlags", EventCreateWithFlags),
    REPTX_HIP_SLOT("hipEventRecord", EventRecord),
    REPTX_HIP_SLOT("hipEventSynchronize", EventSynchronize),
    REPTX_HIP_SLOT("hipEventQuery", EventQuery),
    REPTX_HIP_SLOT("hipEventElapsedTime", EventElapsedTime),
    REPTX_HIP_SLOT("hipEventDestroy", EventDestroy),
    REPTX_HIP_SLOT("hipGetErrorString", GetErrorString),
    REPTX_HIP_SLOT("hipRuntimeGetVersion", RuntimeGetVersion),
};
#undef REPTX_HIP_SLOT

/// dlopen of the runtime (REPTX_HIP_LIBRARY, Library, or libamdhip64.so.7/.6/.5) and dlsym of
/// every slot. False with the reason in Why when no library opens or one lacks entry points.
bool openHip(const std::string &Library, HipApi &Api, std::vector<std::string> &Missing,
             std::string &Why) {
  std::vector<std::string> Candidates;
  const char *Env = std::getenv("REPTX_HIP_LIBRARY");
  if (!Library.empty())
    Candidates = {Library};
  else if (Env && *Env)
    Candidates = {Env};
  else
    Candidates = {"libamdhip64.so.7", "libamdhip64.so.6", "libamdhip64.so.5"};
  for (const std::string &Lib : Candidates) {
    Api.Handle = dlopen(Lib.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (Api.Handle) {
      Api.Library = Lib;
      break;
    }
  }
  if (!Api.Handle) {
    Why = Candidates.size() == 1 ? "no HIP runtime (" + Candidates[0] + " not found)"
                                 : "no HIP runtime (libamdhip64.so.7/.6/.5 not found)";
    return false;
  }
  for (const Slot &S : Slots) {
    void *P = dlsym(Api.Handle, S.Name);
    if (!P)
      Missing.push_back(S.Name);
    S.Set(Api, P);
  }
  if (!Missing.empty()) {
    Why = Api.Library + " lacks " + llvm::join(Missing, ", ");
    return false;
  }
  return true;
}

// hipMemcpyKind
constexpr int HostToDevice = 1, DeviceToHost = 2, DeviceToDevice = 3;
// hipErrorNotReady: an event or stream whose work has not completed yet.
constexpr hipError NotReady = 600;
constexpr unsigned MemAttachGlobal = 1;    // hipMemAttachGlobal
constexpr unsigned HostRegisterMapped = 2; // hipHostRegisterMapped

// The HSA runtime's C interface (hsa.h, hsa_ext_amd.h), as far as it is read here: the GPU
// agents' processor name and compute units. hipDeviceProp_t has them too, but its layout differs
// between ROCm releases; HSA's agent queries are the same in all.
using HsaAgent = ::hsa_agent_s;
using HsaStatus = int;
constexpr HsaStatus HsaSuccess = 0, HsaInfoBreak = 1;   // HSA_STATUS_SUCCESS, _INFO_BREAK
constexpr int HsaAgentInfoName = 0;                     // HSA_AGENT_INFO_NAME: char[64]
constexpr int HsaAgentInfoDevice = 17;                  // HSA_AGENT_INFO_DEVICE: hsa_device_type_t
constexpr int HsaDeviceTypeGpu = 1;                     // HSA_DEVICE_TYPE_GPU
constexpr int HsaAmdAgentInfoComputeUnitCount = 0xA002; // uint32_t

struct HsaApi {
  HsaStatus (*Init)() = nullptr;
  HsaStatus (*ShutDown)() = nullptr;
  HsaStatus (*IterateAgents)(HsaStatus (*)(HsaAgent, void *), void *) = nullptr;
  HsaStatus (*AgentGetInfo)(HsaAgent, int, void *) = nullptr;
};

/// Set by HipBackend::processExiting, which runs as an exit handler registered once HIP is
/// initialised, so before HIP's own (handlers run in reverse order): cudart unloads its modules
/// and releases its context from exit handlers registered earlier, when HIP may be gone; the
/// process's end releases the GPU's memory anyway.
std::atomic<bool> ProcessExiting{false};

/// What an operation that needs HIP answers once the process is exiting.
Error hipGone(const char *What) {
  return createStringError(std::string(What) +
                           ": the process is exiting (the HIP runtime may have shut down)");
}

class HipCode : public LoadedCode {
public:
  /// The module goes when the library does. Its kernels may still be queued: the device
  /// finishes them first (hipModuleUnload does not wait for them).
  ~HipCode() override {
    if (!Module || ProcessExiting.load())
      return;
    Api->DeviceSynchronize();
    if (hipError E = Api->ModuleUnload(Module))
      log().warn("hipModuleUnload: {}", Api->GetErrorString ? Api->GetErrorString(E) : "error");
  }
  hipModule Module = nullptr;
  std::map<std::string, KernelMeta, std::less<>> Kernels;
  std::map<std::string, hipFunction, std::less<>> Functions;
  const HipApi *Api = nullptr;
  const KernelMeta *kernel(StringRef Name) const override {
    auto It = Kernels.find(Name);
    return It == Kernels.end() ? nullptr : &It->second;
  }
  bool symbol(StringRef Name, uint64_t &Address, uint64_t &Size) const override {
    void *P = nullptr;
    size_t S = 0;
    if (ProcessExiting.load())
      return false;
    if (Api->ModuleGetGlobal(&P, &S, Module, Name.str().c_str()) != 0)
      return false;
    Address = reinterpret_cast<uint64_t>(P);
    Size = S;
    return true;
  }
};

class HipBackend : public ExecBackend {
public:
  HipBackend(HipApi A, std::string Name, uint64_t Total, std::string Arch, unsigned Cov,
             uint32_t Units)
      : Api(std::move(A)), Name(std::move(Name)), Total(Total), Arch(std::move(Arch)), Cov(Cov),
        Units(Units) {}

  StringRef kind() const override { return "hip"; }
  std::string deviceName() const override { return "reptx on " + Name + " (" + Arch + ")"; }
  std::string arch() const override { return Arch; }
  uint64_t totalMemory() const override { return Total; }
  uint32_t computeUnits() const override { return Units; }
  unsigned codeObjectVersion() const override { return Cov; }

  Error check(hipError E, const char *What) const {
    if (E == 0)
      return Error::success();
    return createStringError(std::string(What) + ": " +
                             (Api.GetErrorString ? Api.GetErrorString(E) : "HIP error") + " (" +
                             std::to_string(E) + ")");
  }
  Expected<uint64_t> allocate(uint64_t Size) override {
    if (ProcessExiting.load())
      return hipGone("hipMalloc");
    void *P = nullptr;
    if (Error E = check(Api.Malloc(&P, Size), "hipMalloc"))
      return std::move(E);
    std::lock_guard<std::mutex> L(M);
    Sizes[reinterpret_cast<uint64_t>(P)] = Size;
    Allocated += Size;
    return reinterpret_cast<uint64_t>(P);
  }
  /// Managed memory: hipMallocManaged, valid in host code and in kernels at the same address.
  Expected<uint64_t> allocateManaged(uint64_t Size) override {
    if (ProcessExiting.load())
      return hipGone("hipMallocManaged");
    void *P = nullptr;
    if (Error E = check(Api.MallocManaged(&P, Size, MemAttachGlobal), "hipMallocManaged"))
      return std::move(E);
    std::lock_guard<std::mutex> L(M);
    Sizes[reinterpret_cast<uint64_t>(P)] = Size;
    Managed.insert(reinterpret_cast<uint64_t>(P));
    Allocated += Size;
    return reinterpret_cast<uint64_t>(P);
  }
  bool managedMemory() const override { return true; }
  bool isManaged(uint64_t Address) const override {
    uint64_t Base = 0, Size = 0;
    if (!findAllocation(Address, Base, Size))
      return false;
    std::lock_guard<std::mutex> L(M);
    return Managed.count(Base) != 0;
  }
  /// Registered (and pinned) host memory: hipHostRegister with hipHostRegisterMapped, kept only
  /// when the runtime maps it at its own address, which is what the loader promises kernels
  /// (unified addressing); otherwise it is unregistered again and the error says why. A read-only
  /// registration is registered read-write: kernels that keep to it see no difference.
  Error mapHost(void *Host, uint64_t Size, bool ReadOnly) override {
    (void)ReadOnly;
    if (ProcessExiting.load())
      return hipGone("hipHostRegister");
    if (Error E = check(Api.HostRegister(Host, Size, HostRegisterMapped), "hipHostRegister"))
      return E;
    void *Device = nullptr;
    Error E = check(Api.HostGetDevicePointer(&Device, Host, 0), "hipHostGetDevicePointer");
    if (!E && Device != Host)
      E = createStringError(formatv("hipHostRegister mapped {0} at device address {1}, not at its "
                                    "own address",
                                    Host, Device)
                                .str());
    if (E) {
      Api.HostUnregister(Host);
      return E;
    }
    return Error::success();
  }
  Error unmapHost(void *Host) override {
    if (ProcessExiting.load())
      return Error::success();
    return check(Api.HostUnregister(Host), "hipHostUnregister");
  }
  Error release(uint64_t Address) override {
    if (!ProcessExiting.load())
      if (Error E = check(Api.Free(reinterpret_cast<void *>(Address)), "hipFree"))
        return E;
    std::lock_guard<std::mutex> L(M);
    if (auto It = Sizes.find(Address); It != Sizes.end()) {
      Allocated -= It->second;
      Sizes.erase(It);
    }
    Managed.erase(Address);
    return Error::success();
  }
  bool findAllocation(uint64_t Address, uint64_t &Base, uint64_t &Size) const override {
    std::lock_guard<std::mutex> L(M);
    auto It = Sizes.upper_bound(Address);
    if (It == Sizes.begin())
      return false;
    --It;
    if (Address - It->first >= std::max<uint64_t>(It->second, 1))
      return false;
    Base = It->first;
    Size = It->second;
    return true;
  }
  uint64_t allocatedBytes() const override {
    std::lock_guard<std::mutex> L(M);
    return Allocated;
  }
  Error copyToDevice(uint64_t Dst, const void *Src, size_t Bytes) override {
    if (ProcessExiting.load())
      return hipGone("hipMemcpy");
    return check(Api.Memcpy(reinterpret_cast<void *>(Dst), Src, Bytes, HostToDevice), "hipMemcpy");
  }
  Error copyToHost(void *Dst, uint64_t Src, size_t Bytes) override {
    if (ProcessExiting.load())
      return hipGone("hipMemcpy");
    return check(Api.Memcpy(Dst, reinterpret_cast<void *>(Src), Bytes, DeviceToHost), "hipMemcpy");
  }
  Error copyOnDevice(uint64_t Dst, uint64_t Src, size_t Bytes) override {
    if (ProcessExiting.load())
      return hipGone("hipMemcpy");
    return check(Api.Memcpy(reinterpret_cast<void *>(Dst), reinterpret_cast<void *>(Src), Bytes,
                            DeviceToDevice),
                 "hipMemcpy");
  }
  Error fill(uint64_t Dst, uint32_t Value, unsigned ElementSize, size_t Count) override {
    if (ProcessExiting.load())
      return hipGone("hipMemset");
    void *P = reinterpret_cast<void *>(Dst);
    if (ElementSize == 1)
      return check(Api.MemsetD8(P, uint8_t(Value), Count), "hipMemsetD8");
    if (ElementSize == 2)
      return check(Api.MemsetD16(P, uint16_t(Value), Count), "hipMemsetD16");
    return check(Api.MemsetD32(P, int(Value), Count), "hipMemsetD32");
  }

  Expected<std::unique_ptr<LoadedCode>> load(ArrayRef<uint8_t> Bytes) override {
    if (ProcessExiting.load())
      return hipGone("hipModuleLoadData");
    // The metadata (argument layout, resources) is read with the emulator's code object reader.
    auto CO = emulator::CodeObject::load(Bytes);
    if (!CO)
      return CO.takeError();
    auto Code = std::make_unique<HipCode>();
    Code->Api = &Api;
    if (Error E = check(Api.ModuleLoadData(&Code->Module, Bytes.data()), "hipModuleLoadData"))
      return std::move(E);
    for (const emulator::Kernel &K : (*CO)->kernels()) {
      KernelMeta Meta = kernelMeta(K);
      hipFunction F = nullptr;
      if (Error E = check(Api.ModuleGetFunction(&F, Code->Module, K.Name.c_str()),
                          "hipModuleGetFunction"))
        return std::move(E);
      Code->Functions[K.Name] = F;
      Code->Kernels[K.Name] = std::move(Meta);
    }
    return std::unique_ptr<LoadedCode>(std::move(Code));
  }

  Error launch(const LoadedCode &Code, const KernelMeta &K, const LaunchDims &D,
               std::vector<uint8_t> Kernargs, DeviceFault &Fault) override {
    if (ProcessExiting.load())
      return hipGone("hipModuleLaunchKernel");
    const auto &HC = static_cast<const HipCode &>(Code);
    auto It = HC.Functions.find(K.Name);
    if (It == HC.Functions.end())
      return createStringError("no HIP function for " + K.Name);
    size_t Size = Kernargs.size();
    // HIP_LAUNCH_PARAM_BUFFER_POINTER, _SIZE, _END.
    void *Extra[] = {reinterpret_cast<void *>(1), Kernargs.data(), reinterpret_cast<void *>(2),
                     &Size, reinterpret_cast<void *>(3)};
    Fault = DeviceFault::None;
    // A cooperative launch is an ordinary one here: launch() has checked that the grid fits the
    // device at once, which an otherwise idle GPU then runs together; nothing guarantees it.
    if (D.Cooperative) {
      static std::once_flag Warned;
      std::call_once(Warned, [] {
        log().warn("cooperative launch on HIP: launched as an ordinary one (co-residency of its "
                   "blocks is not guaranteed)");
      });
    }
    return check(Api.ModuleLaunchKernel(It->second, D.GridX, D.GridY, D.GridZ, D.BlockX, D.BlockY,
                                        D.BlockZ, D.DynamicShared, nullptr, nullptr, Extra),
                 "hipModuleLaunchKernel");
  }
  Error synchronize(DeviceFault &Fault) override {
    Fault = DeviceFault::None;
    if (ProcessExiting.load())
      return Error::success(); // the exit handler waited for the device
    hipError E = Api.DeviceSynchronize();
    if (E != 0)
      Fault = DeviceFault::LaunchFailed;
    return Error::success();
  }

  // Launches return before their kernels have run (everything goes to HIP's null stream, in
  // order); events are HIP's, recorded there, so that they complete and keep the device's time
  // where the work before them ends.
  bool asynchronous() const override { return true; }
  void processExiting() override { ProcessExiting.store(true); }
  bool exiting() const override { return ProcessExiting.load(); }
  Expected<void *> createEvent(unsigned Flags) override {
    if (ProcessExiting.load())
      return hipGone("hipEventCreateWithFlags");
    ihipEvent_t *E = nullptr;
    // CU_EVENT_BLOCKING_SYNC and CU_EVENT_DISABLE_TIMING have hipEventBlockingSync's and
    // hipEventDisableTiming's values (1, 2).
    if (Error Err = check(Api.EventCreateWithFlags(&E, Flags & 3u), "hipEventCreateWithFlags"))
      return std::move(Err);
    return static_cast<void *>(E);
  }
  void destroyEvent(void *Event) override {
    if (Event && !ProcessExiting.load())
      Api.EventDestroy(static_cast<ihipEvent_t *>(Event));
  }
  Error recordEvent(void *Event) override {
    if (ProcessExiting.load())
      return hipGone("hipEventRecord");
    return check(Api.EventRecord(static_cast<ihipEvent_t *>(Event), nullptr), "hipEventRecord");
  }
  Error waitEvent(void *Event, DeviceFault &Fault) override {
    Fault = DeviceFault::None;
    if (ProcessExiting.load())
      return Error::success();
    if (Api.EventSynchronize(static_cast<ihipEvent_t *>(Event)) != 0)
      Fault = DeviceFault::LaunchFailed; // the error of the work before it
    return Error::success();
  }
  Expected<bool> eventDone(void *Event, DeviceFault &Fault) override {
    Fault = DeviceFault::None;
    if (ProcessExiting.load())
      return true;
    hipError E = Api.EventQuery(static_cast<ihipEvent_t *>(Event));
    if (E == NotReady)
      return false;
    if (E != 0)
      Fault = DeviceFault::LaunchFailed;
    return true;
  }
  Error eventElapsed(void *Start, void *End, float &Ms, bool &Ready) override {
    if (ProcessExiting.load()) {
      Ready = false;
      return hipGone("hipEventElapsedTime");
    }
    hipError E = Api.EventElapsedTime(&Ms, static_cast<ihipEvent_t *>(Start),
                                      static_cast<ihipEvent_t *>(End));
    Ready = E != NotReady;
    if (E == NotReady || E == 0)
      return Error::success();
    return check(E, "hipEventElapsedTime");
  }

private:
  HipApi Api;
  std::string Name;
  uint64_t Total;
  std::string Arch;
  unsigned Cov;
  uint32_t Units;
  mutable std::mutex M;
  std::map<uint64_t, uint64_t> Sizes;
  std::set<uint64_t> Managed; // bases of hipMallocManaged memory
  uint64_t Allocated = 0;
};

} // namespace

llvm::Expected<std::vector<HsaGpu>> hsaGpus() {
  const char *Env = std::getenv("REPTX_HSA_LIBRARY");
  std::string Library = Env && *Env ? Env : "libhsa-runtime64.so.1";
  void *H = dlopen(Library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!H)
    return createStringError("no HSA runtime (" + Library + " not found)");
  HsaApi Api;
  Api.Init = reinterpret_cast<decltype(Api.Init)>(dlsym(H, "hsa_init"));
  Api.ShutDown = reinterpret_cast<decltype(Api.ShutDown)>(dlsym(H, "hsa_shut_down"));
  Api.IterateAgents = reinterpret_cast<decltype(Api.IterateAgents)>(dlsym(H, "hsa_iterate_agents"));
  Api.AgentGetInfo = reinterpret_cast<decltype(Api.AgentGetInfo)>(dlsym(H, "hsa_agent_get_info"));
  if (!Api.Init || !Api.ShutDown || !Api.IterateAgents || !Api.AgentGetInfo) {
    dlclose(H);
    return createStringError(Library + " lacks the HSA agent queries");
  }
  if (Api.Init() != HsaSuccess) {
    dlclose(H);
    return createStringError(Library + ": hsa_init failed");
  }
  struct Walk {
    HsaApi *Api;
    std::vector<HsaGpu> Gpus;
  } W{&Api, {}};
  auto Visit = [](HsaAgent A, void *Data) -> HsaStatus {
    auto &W = *static_cast<Walk *>(Data);
    int Type = -1;
    if (W.Api->AgentGetInfo(A, HsaAgentInfoDevice, &Type) != HsaSuccess || Type != HsaDeviceTypeGpu)
      return HsaSuccess;
    char Name[64] = {};
    uint32_t Units = 0;
    if (W.Api->AgentGetInfo(A, HsaAgentInfoName, Name) != HsaSuccess)
      return HsaSuccess;
    if (W.Api->AgentGetInfo(A, HsaAmdAgentInfoComputeUnitCount, &Units) != HsaSuccess)
      Units = 0;
    W.Gpus.push_back({std::string(Name, strnlen(Name, sizeof(Name))), Units});
    return HsaSuccess;
  };
  HsaStatus R = Api.IterateAgents(Visit, &W);
  Api.ShutDown();
  dlclose(H);
  if (R != HsaSuccess && R != HsaInfoBreak)
    return createStringError(Library + ": hsa_iterate_agents failed");
  return std::move(W.Gpus);
}

unsigned hipDeviceZeroIndex() {
  for (const char *Var : {"HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES"}) {
    const char *E = std::getenv(Var);
    if (!E || !*E)
      continue;
    unsigned Index = 0;
    StringRef First = StringRef(E).split(',').first.trim();
    return First.getAsInteger(10, Index) ? 0 : Index;
  }
  return 0;
}

llvm::ArrayRef<const char *> hipEntryPoints() {
  static const std::vector<const char *> Names = [] {
    std::vector<const char *> N;
    for (const Slot &S : Slots)
      N.push_back(S.Name);
    return N;
  }();
  return Names;
}

unsigned codeObjectVersionFor(int HipRuntimeVersion) {
  int Major = HipRuntimeVersion / 10000000;
  if (Major < 5)
    return 0;
  return Major == 5 ? 4 : 5;
}

llvm::Expected<HipRuntimeInfo> probeHipRuntime(const std::string &Library) {
  HipApi Api;
  HipRuntimeInfo Info;
  std::string Why;
  bool Ok = openHip(Library, Api, Info.Missing, Why);
  if (!Api.Handle)
    return createStringError(Why);
  Info.Library = Api.Library;
  if (Ok && Api.RuntimeGetVersion(&Info.RuntimeVersion) == 0)
    Info.CodeObjectVersion = codeObjectVersionFor(Info.RuntimeVersion);
  dlclose(Api.Handle);
  return Info;
}

std::unique_ptr<ExecBackend> createHipBackend(std::string &Why) {
  HipApi Api;
  std::vector<std::string> Missing;
  if (!openHip({}, Api, Missing, Why)) {
    if (Api.Handle)
      dlclose(Api.Handle);
    return nullptr;
  }
  void *H = Api.Handle;
  int Version = 0;
  unsigned Cov = 0;
  if (Api.RuntimeGetVersion(&Version) != 0 || (Cov = codeObjectVersionFor(Version)) == 0) {
    Why = Api.Library + ": HIP runtime version " + std::to_string(Version) +
          " is not supported (ROCm 5 or later is)";
    dlclose(H);
    return nullptr;
  }
  int Count = 0;
  if (Api.Init(0) != 0 || Api.GetDeviceCount(&Count) != 0 || Count < 1) {
    Why = Api.Library + " found, but it reports no AMD GPU";
    dlclose(H);
    return nullptr;
  }
  char Name[256] = {};
  size_t Total = 0;
  Api.DeviceGetName(Name, sizeof(Name), 0);
  Api.DeviceTotalMem(&Total, 0);
  // The processor and compute units of HIP's device 0 come from the HSA runtime beneath it;
  // REPTX_ARCH, when set, names the processor instead (a warning when the GPU says otherwise).
  std::string Arch = "gfx942";
  uint32_t Units = 80;
  std::optional<HsaGpu> Gpu;
  if (auto Gpus = hsaGpus()) {
    unsigned Index = hipDeviceZeroIndex();
    if (Index < Gpus->size())
      Gpu = (*Gpus)[Index];
    else
      log().warn("HIP device 0 is GPU {} of the HSA runtime, which reports {}", Index,
                 Gpus->size());
  } else {
    log().warn("{}", toString(Gpus.takeError()));
  }
  if (Gpu) {
    Arch = Gpu->Name;
    if (Gpu->ComputeUnits)
      Units = Gpu->ComputeUnits;
  }
  if (const char *ArchEnv = std::getenv("REPTX_ARCH"); ArchEnv && *ArchEnv) {
    if (Gpu && Gpu->Name != ArchEnv)
      log().warn("REPTX_ARCH={}, but the GPU is a {}: its code objects may not load", ArchEnv,
                 Gpu->Name);
    Arch = ArchEnv;
  } else if (!Gpu) {
    log().warn("the GPU's processor is unknown; compiling for {} (REPTX_ARCH names it)", Arch);
  }
  log().info("HIP backend: {} ({}, {} compute units), {} bytes, through {} (HIP {}, code object "
             "v{})",
             Name, Arch, Units, Total, Api.Library, Version, Cov);
  return std::make_unique<HipBackend>(std::move(Api), Name, Total, Arch, Cov, Units);
}

} // namespace reptx::loader
