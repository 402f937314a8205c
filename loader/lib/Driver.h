// The loader's driver state: devices, contexts (primary and created), the per-thread context
// stack, context-local storage, streams, events, libraries and kernels. Handles given to the
// application are pointers to these objects, each with a type tag checked on the way back in.
#pragma once

#include "CudaApi.h"
#include "ExecBackend.h"
#include "Log.h"

#include "reptx/frontend-ptx/Ast.h"
#include "reptx/frontend-ptx/Link.h"
#include "reptx/loader/IntegrityCheck.h"

#include <pthread.h>

#include <array>
#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace reptx::loader {

inline constexpr int DriverVersion = 13000;
/// CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT: a linear texture's address must be a multiple of it.
inline constexpr unsigned long long TextureAlignment = 512;
/// CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT: a pitched 2D texture's pitch must be a multiple of
/// it.
inline constexpr unsigned long long TexturePitchAlignment = 32;
/// CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH, in elements (2^28 on the NVIDIA GPUs of
/// compute capability 8.x and 9.0).
inline constexpr int MaxLinearTextureWidth = 1 << 28;

/// A CUDA array's memory (cuArray3DCreate_v2): Depth slices of Height rows of RowBytes bytes,
/// densely, from Base on the array's device.
struct ArrayMemory {
  CUdeviceptr Base = 0;
  size_t RowBytes = 0, Height = 1, Depth = 1;
  CUDA_ARRAY3D_DESCRIPTOR Desc{};
};
/// The memory of a live CUDA array; false for a handle that is not one (ApiTexture.cpp).
bool arrayMemory(CUarray A, ArrayMemory &Out);
struct Device;
/// The texture (Surface: surface) reference of the module variable Name of library Lib, made on
/// first use (ApiTexture.cpp). Slot is the device address of the variable, which holds the
/// handle of the object made from the reference's settings; 0 when no kernel uses it.
void *moduleReference(const void *Lib, const std::string &Name, Device *Dev, CUdeviceptr Slot,
                      bool Surface);

enum class Tag : uint32_t {
  Context = 0x52435458,
  Stream = 0x52535452,
  Event = 0x52455654,
  Library = 0x524c4942,
  Kernel = 0x524b524e,
  Graph = 0x52475248,
  GraphNode = 0x52474e44,
  GraphExec = 0x52474558,
  MemPool = 0x524d504c,
};

struct Device;

struct ClsEntry {
  void *Value = nullptr;
  void (*Dtor)(CUcontext, void *, void *) = nullptr;
};

struct Library;

struct Context {
  Tag T = Tag::Context;
  Device *Dev = nullptr;
  bool Primary = false;
  unsigned Flags = 0;
  uint64_t Id = 0;
  std::atomic<CUresult> Sticky{CUDA_SUCCESS}; // a device fault, reported from every later sync
  std::shared_mutex ClsMutex;
  std::unordered_map<void *, ClsEntry> Cls;
  std::mutex LimitMutex;
  std::map<int, size_t> Limits;
  // The modules loaded in it (cuModuleLoad*), which cuCtxDestroy unloads; libraries
  // (cuLibraryLoad*) belong to no context.
  std::mutex ModulesMutex;
  std::set<Library *> Modules;
};

struct Device {
  int Ordinal = 0;
  std::string Name;
  DeviceIdentity Identity; // UUID and PCI ids: stable for the life of the process
  int CcMajor = 8, CcMinor = 6;
  std::unique_ptr<ExecBackend> Backend;
  Context PrimaryCtx;
  std::mutex PrimaryMutex;
  int PrimaryRefs = 0;
  unsigned PrimaryFlags = 0;
  // The grid workspace of cooperative launches ({u32 size, u32 barrier}, ir::EnvRegVariable),
  // allocated on the first one; its barrier returns to its start after every grid sync.
  std::mutex WorkspaceMutex;
  uint64_t GridWorkspace = 0;
};

/// State of type T kept per device by one part of the loader (the printf FIFO, the malloc heap),
/// made on first use. Devices live as long as the process, so it is never pruned, and never
/// destroyed, like the driver: cudart unloads its modules from its own exit handlers.
template <typename T> T &perDevice(Device &D) {
  static auto *M = new std::mutex;
  static auto *States = new std::map<Device *, std::unique_ptr<T>>;
  std::lock_guard<std::mutex> L(*M);
  auto &S = (*States)[&D];
  if (!S)
    S = std::make_unique<T>();
  return *S;
}

struct Capture;
struct GraphNode;

struct Stream {
  Tag T = Tag::Stream;
  unsigned long long Id = 0; // cuStreamGetId
  Context *Ctx = nullptr;
  unsigned Flags = 0;
  int Priority = 0;
  // While it takes part in a stream capture (Graph.h): the capture and the nodes its next
  // operation depends on.
  Capture *Cap = nullptr;
  std::vector<GraphNode *> CaptureDeps;
  // The data of the edges from CaptureDeps to that operation's node, one each, once one of them
  // is not a full dependency (empty while all are).
  std::vector<CUgraphEdgeData> CaptureEdges;
};

struct Event {
  Tag T = Tag::Event;
  unsigned Flags = 0;
  bool Recorded = false;
  std::chrono::steady_clock::time_point When;
  // On an asynchronous backend (HIP): the device's event, recorded in its queue where the host
  // recorded this one, which completes with the work before it and keeps the device's time.
  ExecBackend *Backend = nullptr;
  void *Device = nullptr;
  // Recorded in a capturing stream (Graph.h): the capture's id and the stream's last nodes then.
  uint64_t CaptureId = 0;
  std::vector<GraphNode *> CaptureNodes;
};

/// The kernel parameter layout of a PTX .entry (CUDA's layout of the `extra` buffer).
struct PtxParam {
  uint32_t Offset = 0, Size = 0, Align = 1;
};

struct Library;

struct Kernel {
  Tag T = Tag::Kernel;
  Library *Lib = nullptr;
  std::string Name;
  std::vector<PtxParam> Params;
  uint32_t ParamBytes = 0;
  const KernelMeta *Meta = nullptr; // set once the module is compiled and loaded
  const LoadedCode *Code = nullptr; // the code object Meta belongs to
  int MaxDynamicShared = 48 * 1024;
};

/// A loaded image (cuLibraryLoadData / cuModuleLoadData): its PTX, compiled for the device on
/// first use.
struct Library {
  Tag T = Tag::Library;
  std::string Name; // for messages
  std::string Ptx;
  std::string PtxasOptions;            // of the fatbin entry (part of the kernel cache key)
  std::unique_ptr<ptx::Module> Parsed; // entry parameter lists and variable sizes
  std::vector<ptx::LinkedUnit> Units;  // of -rdc PTX linked from several units: each one's target
  std::mutex M;
  bool Compiled = false;
  CUresult CompileResult = CUDA_SUCCESS;
  std::map<std::string, std::string, std::less<>> Failures; // kernel -> message
  std::unique_ptr<LoadedCode> Code;                         // the whole module, once it is compiled
  // Lazy loading (Driver::ensureKernelLoaded): kernels compiled one at a time as they are first
  // used, each in a code object of its own, until the whole module is loaded (a cache hit).
  bool Lazy = false;
  std::map<std::string, std::unique_ptr<LoadedCode>, std::less<>> KernelCode;
  Device *Dev = nullptr;
  std::map<std::string, std::unique_ptr<Kernel>, std::less<>> Kernels;
  std::map<std::string, std::pair<uint64_t, uint64_t>, std::less<>> Fallbacks; // globals
  Context *Owner = nullptr; // the context of a module (cuModuleLoad*); null for a library
  // Dynamic parallelism: whether the code object launches kernels (DeviceLaunch.h), and the
  // kernels that device code launched, by their device-side address.
  bool DeviceLaunches = false;
  std::map<uint64_t, Kernel *> KernelAddresses;
  uint64_t KernelTable = 0; // the kernels' attributes for device code, 0 when it has none
};

/// The code object holding a kernel of L (under L.M): its own (lazy loading) or the module's.
const LoadedCode *codeOf(const Library &L, llvm::StringRef Kernel);

/// The kernel a CUfunction or CUkernel handle names (they are the same object), or null.
Kernel *asKernel(const void *H);
/// The kernel of L with that name (cuLibraryGetKernel): CUDA_ERROR_NOT_FOUND when it has none.
CUresult findKernel(Library &L, const std::string &Name, Kernel *&Out);

/// cuLibraryUnload/cuModuleUnload: prints what its kernels left in the printf FIFO, releases its
/// device memory and deletes it (ApiModule.cpp).
void unloadLibrary(Library *L);
/// Points a code object of L at L's `__managed__` variables (under L.M): each one's managed memory
/// (allocated with its initial value at the first use) goes into its slot in the code object
/// (ir::ManagedSlotSuffix). False with the reason logged when one cannot be.
bool managedAttach(Library &L, const LoadedCode &Code);

class Driver {
public:
  static Driver &get();
  /// cuInit: creates the device (backend) once. Returns the same result on every call.
  CUresult init();
  bool initialized() const { return Initialized.load(std::memory_order_acquire); }
  Device *device(CUdevice Ordinal);
  int deviceCount() const { return int(Devices.size()); }

  // Contexts.
  bool validContext(CUcontext C);
  Context *createContext(Device *D, unsigned Flags);
  void destroyContext(Context *C);
  /// What a context owns goes: context-local storage (its destructors run), the modules loaded
  /// in it, the device memory allocated in it; its sticky error is cleared. cuCtxDestroy and
  /// cuDevicePrimaryCtxReset.
  void releaseResources(Context *C);
  uint64_t nextContextId() { return NextCtxId++; }

  /// Compiles and loads a library for a device, once.
  CUresult ensureLoaded(Library &L, Device &D);
  /// Makes a kernel of L runnable: for a library loaded lazily (Library::Lazy) compiles and loads
  /// that kernel alone, once (or the whole module, when the kernel cache holds it whole); for
  /// others ensureLoaded.
  CUresult ensureKernelLoaded(Library &L, Device &D, llvm::StringRef Kernel);

private:
  std::once_flag InitOnce;
  std::atomic<bool> Initialized{false};
  CUresult InitResult = CUDA_ERROR_NOT_INITIALIZED;
  std::vector<std::unique_ptr<Device>> Devices;
  std::mutex CtxMutex;
  std::vector<Context *> Contexts;
  std::atomic<uint64_t> NextCtxId{1};
};

/// The calling thread's object of type T, made on first use, for state that CUDA calls from exit
/// handlers still read (cudart's teardown, a program's static destructors): not a thread_local
/// object, since exit() destroys the calling thread's before it runs the handlers, but a heap
/// object deleted by a pthread key's destructor when the thread ends, which exit() does not run
/// for the thread calling it. One object per thread and type: each use has a type of its own.
template <typename T> T &threadObject() {
  thread_local T *Object = nullptr; // trivially destructible: readable in exit handlers
  static const pthread_key_t Key = [] {
    pthread_key_t K;
    pthread_key_create(&K, [](void *P) {
      delete static_cast<T *>(P);
      Object = nullptr;
    });
    return K;
  }();
  if (!Object) {
    Object = new T();
    pthread_setspecific(Key, Object);
  }
  return *Object;
}

/// The calling thread's context stack; the top is the current context.
std::vector<Context *> &contextStack();
inline Context *currentContext() {
  auto &S = contextStack();
  return S.empty() ? nullptr : S.back();
}

/// The context a call without an explicit context works in, or an error.
CUresult currentOrError(Context *&C);
/// The stream an entry point of the per-thread default stream API (`_ptsz`, `_ptds`: what
/// CUDA_API_PER_THREAD_DEFAULT_STREAM selects) means by S: its null stream is the calling
/// thread's per-thread default stream.
inline CUstream perThreadDefault(CUstream S) { return S ? S : CU_STREAM_PER_THREAD; }
/// The context of a stream (the current one for the legacy and per-thread default streams), or
/// an error for a handle that is not a stream (ApiMemory.cpp).
CUresult streamContext(CUstream S, Context *&C);
/// Device memory allocated in context C (cuMemAlloc, cuMemAllocManaged, pools), which
/// releaseContextMemory frees when the context is destroyed or reset (ApiMemory.cpp).
void noteAllocation(Context *C, CUdeviceptr Ptr);
void releaseContextMemory(Context *C);

/// A stream identity never used before (cuStreamGetId), and the end of a stream's attributes.
unsigned long long newStreamId();
void forgetStreamAttributes(CUstream S);

/// The export-table addresses that are hashed into the integrity answer.
const void *cudartInterfaceTable();
const void *integrityTable();

/// CUresult for a device fault.
CUresult faultResult(DeviceFault F);

/// Waits for the context's work and drains device printf; the context's sticky error, if any
/// (ApiDevice.cpp).
CUresult contextSynchronize(Context *C);
/// Progress of an asynchronous device (HIP), known without waiting for it (Progress.cpp): after
/// each kernel launch or fill submitted on S, device events mark where the work of S, and of the
/// whole device, ends in the device's queue.
void noteSubmitted(Context *C, CUstream S);
/// cuStreamQuery: CUDA_ERROR_NOT_READY while work submitted on S has not finished, else the
/// context's sticky error (a fault found here becomes it). On a synchronous backend (the
/// emulator) everything has finished: a context synchronisation.
CUresult streamProgress(Context *C, CUstream S);
/// cuStreamSynchronize: on HIP, for a stream the program created, waits for the work submitted on
/// it (and what the device's queue holds before that), not for later work of other streams;
/// elsewhere, and for the default streams, a context synchronisation.
CUresult streamFinish(Context *C, CUstream S);
/// Whether the device has finished everything submitted to it (true on a synchronous backend).
bool deviceIdle(Device &D);
/// A stream, or every stream of a context, going away: its markers too.
void forgetStreamProgress(Context *C, CUstream S);
void forgetContextProgress(Context *C);
/// cuDeviceGetAttribute's answer for a valid attribute (ApiDevice.cpp).
int deviceAttribute(const Device &D, int Attribute);
/// cuCtxGetLimit's answer for context C (ApiDevice.cpp).
CUresult contextLimit(Context &C, CUlimit Limit, size_t &Value);
/// cuFuncGetAttribute's answer for an attribute of a kernel's code, which loading fixes
/// (CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK to CU_FUNC_ATTRIBUTE_CACHE_MODE_CA; ApiModule.cpp).
int codeAttribute(const Library &L, const KernelMeta &M, int Attribute);

} // namespace reptx::loader
