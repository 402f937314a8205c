// The device a context runs on: memory, code objects and kernel launches. Two implementations:
// the CPU emulator (EmulatorBackend.cpp) and HIP on an AMD GPU (HipBackend.cpp, libamdhip64
// opened at run time). REPTX_DEVICE=emulator|hip|auto chooses (auto: hip when a device is there;
// REPTX_BACKEND is an alias).
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace reptx::emulator {
struct Kernel;
} // namespace reptx::emulator

namespace reptx::loader {

struct LaunchDims {
  uint32_t GridX = 1, GridY = 1, GridZ = 1;    // in blocks
  uint32_t BlockX = 1, BlockY = 1, BlockZ = 1; // in threads
  uint32_t DynamicShared = 0;                  // bytes
  bool Cooperative = false;  // every block resident at once (cuLaunchCooperativeKernel)
  uint32_t StackSize = 1024; // per thread: the context's CU_LIMIT_STACK_SIZE
};

/// One explicit kernel argument in the kernarg segment (AMDGPU code object metadata .args).
struct KernargSlot {
  uint32_t Offset = 0, Size = 0;
};

/// What a launch needs to know about a kernel of a loaded code object.
struct KernelMeta {
  std::string Name;
  std::vector<KernargSlot> Args; // the PTX parameters, in order
  uint32_t KernargSize = 0;
  uint32_t GroupSegmentSize = 0, PrivateSegmentSize = 0;
  uint32_t MaxThreadsPerBlock = 1024; // PTX threads
  uint32_t Sgprs = 0, Vgprs = 0, WaveSize = 64;
  /// Compiled in wave64 single mode (backend/README.md): the launch passes the PTX block size in
  /// the leading 16 bytes of the kernarg segment (not among Args) and runs each 32-thread warp
  /// as a 64-lane wave (launch() in ApiModule.cpp).
  bool Wave64Single = false;
};

/// The launch description of a kernel of a loaded code object (its metadata notes).
KernelMeta kernelMeta(const emulator::Kernel &K);

/// A code object loaded on the device.
class LoadedCode {
public:
  virtual ~LoadedCode();
  virtual const KernelMeta *kernel(llvm::StringRef Name) const = 0;
  /// Device address and size of a global variable of the code object, if it has one.
  virtual bool symbol(llvm::StringRef Name, uint64_t &Address, uint64_t &Size) const = 0;
};

/// Why a launch failed on the device (reported at the next synchronisation).
enum class DeviceFault { None, IllegalAddress, LaunchFailed, IllegalInstruction, Timeout };

class ExecBackend {
public:
  virtual ~ExecBackend();
  virtual llvm::StringRef kind() const = 0; // "emulator" or "hip"
  virtual std::string deviceName() const = 0;
  virtual std::string arch() const = 0; // "gfx942"
  /// The AMDGPU code object version the device's runtime loads (amdgpu-codegen.md).
  virtual unsigned codeObjectVersion() const { return 5; }
  virtual uint64_t totalMemory() const = 0;
  virtual uint32_t computeUnits() const = 0;

  virtual llvm::Expected<uint64_t> allocate(uint64_t Size) = 0;
  /// Managed memory (cuMemAllocManaged): one address valid in host code and on the device.
  virtual llvm::Expected<uint64_t> allocateManaged(uint64_t Size) {
    (void)Size;
    return llvm::createStringError("managed memory is not supported by the " + kind().str() +
                                   " backend");
  }
  /// Whether allocateManaged works (CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY).
  virtual bool managedMemory() const { return false; }
  virtual bool isManaged(uint64_t Address) const {
    (void)Address;
    return false;
  }
  /// Whether the device address of a module variable is also a host pointer (the emulator maps
  /// code objects into host memory at their own address), and so cuMemHostAlloc's memory can be
  /// the backend's managed memory. `__managed__` variables do not need it: they are managed
  /// memory the loader allocates (ApiModule.cpp, managedAttach).
  virtual bool hostAccessibleVariables() const { return false; }
  virtual llvm::Error release(uint64_t Address) = 0;
  /// Host memory the program registered (cuMemHostRegister), made accessible to kernels at its
  /// own address; read-only, kernels may not store to it. Not device memory: allocatedBytes does
  /// not count it.
  virtual llvm::Error mapHost(void *Host, uint64_t Size, bool ReadOnly) {
    (void)Host, (void)Size, (void)ReadOnly;
    return llvm::createStringError("the " + kind().str() +
                                   " backend does not map registered host memory");
  }
  virtual llvm::Error unmapHost(void *Host) {
    (void)Host;
    return llvm::createStringError("no registered host memory is mapped");
  }
  /// Virtual memory management: an address range nothing else takes, and host memory (the
  /// physical allocation) made accessible at an address in it; read-only, kernels may not store.
  virtual llvm::Expected<uint64_t> reserveAddressRange(uint64_t Size, uint64_t Align) {
    (void)Size, (void)Align;
    return llvm::createStringError("the " + kind().str() +
                                   " backend has no virtual memory management");
  }
  virtual llvm::Error mapPhysical(uint64_t Address, void *Host, uint64_t Size, bool ReadOnly) {
    (void)Address, (void)Host, (void)Size, (void)ReadOnly;
    return llvm::createStringError("the " + kind().str() +
                                   " backend has no virtual memory management");
  }
  virtual llvm::Error unmapPhysical(uint64_t Address) {
    (void)Address;
    return llvm::createStringError("nothing is mapped");
  }
  /// The allocation containing Address, if any.
  virtual bool findAllocation(uint64_t Address, uint64_t &Base, uint64_t &Size) const = 0;
  virtual uint64_t allocatedBytes() const = 0;
  virtual llvm::Error copyToDevice(uint64_t Dst, const void *Src, size_t Bytes) = 0;
  virtual llvm::Error copyToHost(void *Dst, uint64_t Src, size_t Bytes) = 0;
  virtual llvm::Error copyOnDevice(uint64_t Dst, uint64_t Src, size_t Bytes) = 0;
  /// Fills Count elements of ElementSize (1, 2 or 4) bytes with Value.
  virtual llvm::Error fill(uint64_t Dst, uint32_t Value, unsigned ElementSize, size_t Count) = 0;

  virtual llvm::Expected<std::unique_ptr<LoadedCode>> load(llvm::ArrayRef<uint8_t> CodeObject) = 0;
  /// Runs (or enqueues) a launch. A device-side fault is returned as Fault with the reason
  /// logged; the error return is for launches that could not start.
  virtual llvm::Error launch(const LoadedCode &Code, const KernelMeta &K, const LaunchDims &D,
                             std::vector<uint8_t> Kernargs, DeviceFault &Fault) = 0;
  virtual llvm::Error synchronize(DeviceFault &Fault) = 0;

  /// Whether launches run asynchronously to the host (HIP): then a host-side wait that is not a
  /// whole synchronisation (an event, a host function) must ask the device. The emulator has
  /// finished each operation when its call returns.
  virtual bool asynchronous() const { return false; }
  /// The process is exiting, and the device's runtime may shut down in its own exit handlers
  /// after this call (Driver::init registers the call as an exit handler right after creating
  /// an asynchronous backend, so it runs before the runtime's). From then on no call reaches the
  /// runtime: releasing memory, code and events and waiting succeed without it (the process's
  /// end frees the device), anything else fails. cudart's exit handlers, registered before the
  /// runtime's, unload its modules and release the primary context afterwards.
  virtual void processExiting() {}
  /// Whether processExiting has been called: the device's work can no longer be read back.
  virtual bool exiting() const { return false; }
  /// Device events, for an asynchronous backend: a point in the device's queue, its completion
  /// and the device's time there. Flags are CU_EVENT_BLOCKING_SYNC and CU_EVENT_DISABLE_TIMING.
  virtual llvm::Expected<void *> createEvent(unsigned Flags) {
    (void)Flags;
    return llvm::createStringError("the " + kind().str() + " backend has no device events");
  }
  virtual void destroyEvent(void *Event) { (void)Event; }
  /// Places the event after the work enqueued so far.
  virtual llvm::Error recordEvent(void *Event) {
    (void)Event;
    return llvm::createStringError("no device events");
  }
  /// Waits until the work before the event has completed; a fault of that work in Fault.
  virtual llvm::Error waitEvent(void *Event, DeviceFault &Fault) {
    (void)Event;
    Fault = DeviceFault::None;
    return llvm::Error::success();
  }
  /// Whether the work before the event has completed (a fault of it in Fault), without waiting.
  virtual llvm::Expected<bool> eventDone(void *Event, DeviceFault &Fault) {
    (void)Event;
    Fault = DeviceFault::None;
    return true;
  }
  /// The device's time between two completed events in milliseconds; Ready false when either
  /// has not completed yet.
  virtual llvm::Error eventElapsed(void *Start, void *End, float &Ms, bool &Ready) {
    (void)Start, (void)End, (void)Ms;
    Ready = false;
    return llvm::createStringError("no device events");
  }
};

/// The backend REPTX_DEVICE (or REPTX_BACKEND) asks for (REPTX_ARCH overrides the emulator's
/// gfx942). Errors when hip is asked for explicitly and no HIP runtime or device is there.
llvm::Expected<std::unique_ptr<ExecBackend>> createBackend();
std::unique_ptr<ExecBackend> createEmulatorBackend(std::string Arch);
/// Null with the reason in Why when no HIP runtime or device is present. The runtime is
/// $REPTX_HIP_LIBRARY when set (a path or soname), else libamdhip64.so.7, .6, .5.
std::unique_ptr<ExecBackend> createHipBackend(std::string &Why);

/// What opening a HIP runtime found (HipBackend.cpp; unit-tested against a fake runtime).
struct HipRuntimeInfo {
  std::string Library;              // the library that was opened
  std::vector<std::string> Missing; // entry points it lacks
  int RuntimeVersion = 0; // hipRuntimeGetVersion: major * 10000000 + minor * 100000 + patch
  unsigned CodeObjectVersion = 0;
};
/// Every HIP entry point the backend binds, by name.
llvm::ArrayRef<const char *> hipEntryPoints();
/// The code object version a HIP runtime loads (amdgpu-codegen.md): COV4 for ROCm 5.x (its HSA
/// loader rejects COV5+ on some releases and COV6 on all), COV5 for ROCm 6.x and later; 0 for a
/// version older than 5 (unsupported).
unsigned codeObjectVersionFor(int HipRuntimeVersion);
/// Opens the HIP runtime (Library, or the default search), binds every entry point and reads its
/// version, without initialising a device; the handle is closed again. Errors: not found.
llvm::Expected<HipRuntimeInfo> probeHipRuntime(const std::string &Library = {});

/// A GPU agent of the HSA runtime beneath HIP: its processor and size.
struct HsaGpu {
  std::string Name;          // HSA_AGENT_INFO_NAME: the processor, "gfx942"
  uint32_t ComputeUnits = 0; // HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT
};
/// The GPU agents of the HSA runtime ($REPTX_HSA_LIBRARY when set, else libhsa-runtime64.so.1),
/// in its order, which is the order of HIP's devices. Errors: no runtime, or it fails to start.
llvm::Expected<std::vector<HsaGpu>> hsaGpus();
/// The HSA GPU that HIP's device 0 is: the first index of HIP_VISIBLE_DEVICES (else
/// CUDA_VISIBLE_DEVICES, which HIP also reads) when it is a number, else 0.
unsigned hipDeviceZeroIndex();

} // namespace reptx::loader
