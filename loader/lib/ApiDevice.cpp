// Initialisation, versions, errors, cuGetProcAddress, devices, primary contexts and cuCtx*.
#include "DeviceHeap.h"
#include "DeviceLaunch.h"
#include "Driver.h"
#include "Graph.h"
#include "Printf.h"
#include "ProcTable.h"
#include "Trace.h"

#include <cstring>

using namespace reptx::loader;

namespace {

Driver &drv() { return Driver::get(); }

CUresult deviceOrError(CUdevice Dev, Device *&D) {
  if (!drv().initialized())
    return CUDA_ERROR_NOT_INITIALIZED;
  D = drv().device(Dev);
  return D ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

// What the device reports. The numbers describe a plausible compute capability 8.6 device with
// the backend's size (cudart fills cudaDeviceProp from these at initialisation).
int attribute(const Device &D, int A) {
  const ExecBackend &B = *D.Backend;
  switch (A) {
  case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
    return 1024;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X:
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y:
    return 1024;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z:
    return 64;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X:
    return 2147483647;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y:
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z:
    return 65535;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK:
    return 48 * 1024;
  case CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY:
    return 64 * 1024;
  case CU_DEVICE_ATTRIBUTE_WARP_SIZE:
    return 32;
  case CU_DEVICE_ATTRIBUTE_MAX_PITCH:
    return 2147483647;
  case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK:
  case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR:
    return 65536;
  case CU_DEVICE_ATTRIBUTE_CLOCK_RATE:
    return 2100000; // kHz
  case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE:
    return 2600000; // kHz
  case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH:
    return 4096;
  case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE:
    return 4 * 1024 * 1024;
  case CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT:
    return int(TextureAlignment);
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH:
    return MaxLinearTextureWidth;
  case CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT:
  case CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT:
    return int(TexturePitchAlignment);
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
    return int(B.computeUnits());
  case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR:
    return 1536;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR:
    return 16;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR:
    return 100 * 1024;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
    return 64 * 1024; // the LDS of one work-group on gfx9
  case CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK:
    return 0;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
    return D.CcMajor;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
    return D.CcMinor;
  case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID:
    return D.Identity.PciBus;
  case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID:
    return D.Identity.PciDevice;
  case CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID:
    return D.Identity.PciDomain;
  case CU_DEVICE_ATTRIBUTE_GPU_PCI_DEVICE_ID:
    return 0x74a11002; // device 0x74a1, vendor 0x1002
  case CU_DEVICE_ATTRIBUTE_GPU_PCI_SUBSYSTEM_ID:
    return 0;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_MODE:
    return CU_COMPUTEMODE_DEFAULT;
  case CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT:
    return 2;
  case CU_DEVICE_ATTRIBUTE_GPU_OVERLAP:
  case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY:
  case CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS:
  case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING:
  case CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED:
  case CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED:
  case CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED:
  case CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED:
  case CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH:
  case CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED:
  case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED:
    return 1;
  case CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY:
    // The emulator's managed memory is host memory mapped at the same device address
    // (EmulatorBackend::allocateManaged), HIP's is hipMallocManaged. No concurrent access: the
    // host touches it between launches and synchronisations.
    return B.managedMemory() ? 1 : 0;
  case CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM:
  case CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED:
    // The emulator maps registered host memory at its own address (ExecBackend::mapHost).
    return B.kind() == "emulator" ? 1 : 0;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH:
    return 131072;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH:
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT:
    return 65536;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH:
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT:
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH:
    return 16384;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_WIDTH:
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT:
    return 32768;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS:
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_LAYERS:
    return 2048;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_WIDTH:
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_WIDTH:
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH:
    return 32768;
  case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS:
    return 2046;
  case CU_DEVICE_ATTRIBUTE_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO:
    return 2;
  case CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE:
  case CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE:
    return 0;
  case CU_DEVICE_ATTRIBUTE_MEM_SYNC_DOMAIN_COUNT:
    return 1;
  case CU_DEVICE_ATTRIBUTE_NUMA_ID:
  case CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID:
    return -1;
  default:
    // Texture/surface limits not listed above, and features the loader does not offer (managed
    // memory, IPC, peer access, multicast, ECC, integrated, ...): 0.
    if (A >= CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_WIDTH &&
        A <= CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH &&
        A != CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID &&
        A != CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT &&
        A != CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR &&
        A != CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)
      return 16384;
    return 0;
  }
}

CUresult ctxOrCurrent(CUcontext In, Context *&C) {
  if (In) {
    if (!drv().validContext(In))
      return CUDA_ERROR_INVALID_CONTEXT;
    C = reinterpret_cast<Context *>(In);
    return CUDA_SUCCESS;
  }
  return currentOrError(C);
}

CUresult synchronizeContext(Context *C) {
  DeviceFault F = DeviceFault::None;
  llvm::Error E = C->Dev->Backend->synchronize(F);
  bool Assert = printfDrain(*C->Dev); // what finished kernels printed, also after a fault
  if (E) {
    log().error("synchronize: {}", llvm::toString(std::move(E)));
    return CUDA_ERROR_UNKNOWN;
  }
  if (F != DeviceFault::None)
    C->Sticky.store(Assert && F == DeviceFault::LaunchFailed ? CUDA_ERROR_ASSERT : faultResult(F));
  return C->Sticky.load();
}

} // namespace

namespace reptx::loader {
CUresult contextSynchronize(Context *C) { return synchronizeContext(C); }
int deviceAttribute(const Device &D, int Attribute) { return attribute(D, Attribute); }
} // namespace reptx::loader

// ------------------------------------------------------------------ init, versions, errors

CUresult cuInit(unsigned int Flags) {
  REPTX_TRACE(cuInit, Flags);
  if (Flags != 0)
    return CUDA_ERROR_INVALID_VALUE;
  return drv().init();
}

CUresult cuDriverGetVersion(int *Version) {
  REPTX_TRACE(cuDriverGetVersion, Version);
  if (!Version)
    return CUDA_ERROR_INVALID_VALUE;
  *Version = DriverVersion;
  return CUDA_SUCCESS;
}

CUresult cuModuleGetLoadingMode(CUmoduleLoadingMode *Mode) {
  REPTX_TRACE(cuModuleGetLoadingMode, Mode);
  if (!Mode)
    return CUDA_ERROR_INVALID_VALUE;
  *Mode = CU_MODULE_LAZY_LOADING;
  return CUDA_SUCCESS;
}

namespace {
struct ErrorText {
  CUresult R;
  const char *Name, *Text;
};
const ErrorText Errors[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {CUDA_ERROR_DEINITIALIZED, "CUDA_ERROR_DEINITIALIZED", "driver shutting down"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {CUDA_ERROR_NO_BINARY_FOR_GPU, "CUDA_ERROR_NO_BINARY_FOR_GPU",
     "no kernel image is available for execution on the device"},
    {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX",
     "a PTX JIT compilation failed (reptx could not recompile the PTX)"},
    {CUDA_ERROR_INVALID_SOURCE, "CUDA_ERROR_INVALID_SOURCE", "device kernel image is invalid"},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY", "device not ready"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS",
     "an illegal memory access was encountered"},
    {CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
     "too many resources requested for launch"},
    {CUDA_ERROR_LAUNCH_TIMEOUT, "CUDA_ERROR_LAUNCH_TIMEOUT",
     "the launch timed out and was terminated"},
    {CUDA_ERROR_ILLEGAL_INSTRUCTION, "CUDA_ERROR_ILLEGAL_INSTRUCTION",
     "an illegal instruction was encountered"},
    {CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
    {CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE",
     "too many blocks in cooperative launch"},
    {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
    {CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error"},
};
} // namespace

CUresult cuGetErrorString(CUresult R, const char **Str) {
  REPTX_TRACE(cuGetErrorString, R, Str);
  if (!Str)
    return CUDA_ERROR_INVALID_VALUE;
  for (const ErrorText &E : Errors)
    if (E.R == R) {
      *Str = E.Text;
      return CUDA_SUCCESS;
    }
  *Str = nullptr;
  return CUDA_ERROR_INVALID_VALUE;
}

CUresult cuGetErrorName(CUresult R, const char **Str) {
  REPTX_TRACE(cuGetErrorName, R, Str);
  if (!Str)
    return CUDA_ERROR_INVALID_VALUE;
  for (const ErrorText &E : Errors)
    if (E.R == R) {
      *Str = E.Name;
      return CUDA_SUCCESS;
    }
  *Str = nullptr;
  return CUDA_ERROR_INVALID_VALUE;
}

// ------------------------------------------------------------------ cuGetProcAddress

CUresult cuGetProcAddress_v2(const char *Symbol, void **Pfn, int CudaVersion, cuuint64_t Flags,
                             CUdriverProcAddressQueryResult *Status) {
  REPTX_TRACE(cuGetProcAddress_v2, Symbol, Pfn, CudaVersion, Flags, Status);
  if (!Pfn)
    return CUDA_ERROR_INVALID_VALUE;
  ProcStatus S;
  void *F =
      resolveProc(Symbol, CudaVersion, Flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, S);
  *Pfn = F;
  if (Status)
    *Status = S == ProcStatus::Found                  ? CU_GET_PROC_ADDRESS_SUCCESS
              : S == ProcStatus::VersionNotSufficient ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT
                                                      : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  log().debug("cuGetProcAddress({}, {}, {}) -> {}", Symbol ? Symbol : "(null)", CudaVersion, Flags,
              F);
  return F ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

CUresult cuGetProcAddress(const char *Symbol, void **Pfn, int CudaVersion, cuuint64_t Flags) {
  REPTX_TRACE(cuGetProcAddress, Symbol, Pfn, CudaVersion, Flags);
  return cuGetProcAddress_v2(Symbol, Pfn, CudaVersion, Flags, nullptr);
}

// ------------------------------------------------------------------ devices

CUresult cuDeviceGetCount(int *Count) {
  REPTX_TRACE(cuDeviceGetCount, Count);
  if (!Count)
    return CUDA_ERROR_INVALID_VALUE;
  if (!drv().initialized())
    return CUDA_ERROR_NOT_INITIALIZED;
  *Count = drv().deviceCount();
  return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *Dev, int Ordinal) {
  REPTX_TRACE(cuDeviceGet, Dev, Ordinal);
  if (!Dev)
    return CUDA_ERROR_INVALID_VALUE;
  Device *D;
  if (CUresult R = deviceOrError(Ordinal, D))
    return R;
  *Dev = Ordinal;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetName(char *Name, int Len, CUdevice Dev) {
  REPTX_TRACE(cuDeviceGetName, Name, Len, Dev);
  Device *D;
  if (CUresult R = deviceOrError(Dev, D))
    return R;
  if (!Name || Len <= 0)
    return CUDA_ERROR_INVALID_VALUE;
  std::strncpy(Name, D->Name.c_str(), size_t(Len) - 1);
  Name[Len - 1] = 0;
  return CUDA_SUCCESS;
}

CUresult cuDeviceTotalMem_v2(size_t *Bytes, CUdevice Dev) {
  REPTX_TRACE(cuDeviceTotalMem_v2, Bytes, Dev);
  Device *D;
  if (CUresult R = deviceOrError(Dev, D))
    return R;
  if (!Bytes)
    return CUDA_ERROR_INVALID_VALUE;
  *Bytes = D->Backend->totalMemory();
  return CUDA_SUCCESS;
}

CUresult cuDeviceTotalMem(unsigned int *Bytes, CUdevice Dev) {
  REPTX_TRACE(cuDeviceTotalMem, Bytes, Dev);
  size_t B = 0;
  if (CUresult R = cuDeviceTotalMem_v2(&B, Dev))
    return R;
  *Bytes = unsigned(std::min<size_t>(B, 0xffffffffu));
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int *Value, CUdevice_attribute Attr, CUdevice Dev) {
  REPTX_TRACE(cuDeviceGetAttribute, Value, Attr, Dev);
  Device *D;
  if (CUresult R = deviceOrError(Dev, D))
    return R;
  if (!Value || Attr <= 0 || Attr >= CU_DEVICE_ATTRIBUTE_MAX)
    return CUDA_ERROR_INVALID_VALUE;
  *Value = attribute(*D, Attr);
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetUuid_v2(CUuuid *Uuid, CUdevice Dev) {
  REPTX_TRACE(cuDeviceGetUuid_v2, Uuid, Dev);
  Device *D;
  if (CUresult R = deviceOrError(Dev, D))
    return R;
  if (!Uuid)
    return CUDA_ERROR_INVALID_VALUE;
  std::memcpy(Uuid->bytes, D->Identity.Uuid.data(), 16);
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetUuid(CUuuid *Uuid, CUdevice Dev) {
  REPTX_TRACE(cuDeviceGetUuid, Uuid, Dev);
  return cuDeviceGetUuid_v2(Uuid, Dev);
}

CUresult cuDeviceGetLuid(char *Luid, unsigned int *DeviceNodeMask, CUdevice Dev) {
  REPTX_TRACE(cuDeviceGetLuid, Luid, DeviceNodeMask, Dev);
  return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuDeviceComputeCapability(int *Major, int *Minor, CUdevice Dev) {
  REPTX_TRACE(cuDeviceComputeCapability, Major, Minor, Dev);
  Device *D;
  if (CUresult R = deviceOrError(Dev, D))
    return R;
  if (!Major || !Minor)
    return CUDA_ERROR_INVALID_VALUE;
  *Major = D->CcMajor;
  *Minor = D->CcMinor;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetPCIBusId(char *Out, int Len, CUdevice Dev) {
  REPTX_TRACE(cuDeviceGetPCIBusId, Out, Len, Dev);
  Device *D;
  if (CUresult R = deviceOrError(Dev, D))
    return R;
  if (!Out || Len <= 0)
    return CUDA_ERROR_INVALID_VALUE;
  std::snprintf(Out, size_t(Len), "%04x:%02x:%02x.0", D->Identity.PciDomain, D->Identity.PciBus,
                D->Identity.PciDevice);
  return CUDA_SUCCESS;
}

// "[domain]:[bus]:[device].[function]" in hex (domain and function optional), as
// cuDeviceGetPCIBusId writes it.
CUresult cuDeviceGetByPCIBusId(CUdevice *dev, const char *pciBusId) {
  REPTX_TRACE(cuDeviceGetByPCIBusId, dev, pciBusId);
  if (!dev || !pciBusId)
    return CUDA_ERROR_INVALID_VALUE;
  unsigned Domain = 0, Bus = 0, Slot = 0, Function = 0;
  int Used = 0;
  if (std::sscanf(pciBusId, "%x:%x:%x.%x%n", &Domain, &Bus, &Slot, &Function, &Used) != 4) {
    Domain = 0;
    if (std::sscanf(pciBusId, "%x:%x.%x%n", &Bus, &Slot, &Function, &Used) != 3)
      return CUDA_ERROR_INVALID_VALUE;
  }
  Driver &Dr = Driver::get();
  if (!Dr.initialized())
    return CUDA_ERROR_NOT_INITIALIZED;
  for (int I = 0; I < Dr.deviceCount(); ++I) {
    const DeviceIdentity &Id = Dr.device(I)->Identity;
    if (unsigned(Id.PciDomain) == Domain && unsigned(Id.PciBus) == Bus &&
        unsigned(Id.PciDevice) == Slot && Function == 0) {
      *dev = I;
      return CUDA_SUCCESS;
    }
  }
  return CUDA_ERROR_INVALID_VALUE;
}

// Between two devices only: reptx has one, and a device with itself is not a valid pair.
CUresult cuDeviceGetP2PAttribute(int *value, CUdevice_P2PAttribute attrib, CUdevice srcDevice,
                                 CUdevice dstDevice) {
  REPTX_TRACE(cuDeviceGetP2PAttribute, value, attrib, srcDevice, dstDevice);
  if (!value || attrib < CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK || attrib > 5)
    return CUDA_ERROR_INVALID_VALUE;
  Device *Src, *Dst;
  if (CUresult R = deviceOrError(srcDevice, Src))
    return R;
  if (CUresult R = deviceOrError(dstDevice, Dst))
    return R;
  return CUDA_ERROR_INVALID_DEVICE;
}

// No L2 persistence and no GPUDirect RDMA: nothing to reset or flush.
CUresult cuCtxResetPersistingL2Cache(void) {
  REPTX_TRACE(cuCtxResetPersistingL2Cache);
  Context *C;
  return currentOrError(C);
}
CUresult cuFlushGPUDirectRDMAWrites(CUflushGPUDirectRDMAWritesTarget target,
                                    CUflushGPUDirectRDMAWritesScope scope) {
  REPTX_TRACE(cuFlushGPUDirectRDMAWrites, target, scope);
  if (target != CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_CTX ||
      (scope != CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER &&
       scope != CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_ALL_DEVICES))
    return CUDA_ERROR_INVALID_VALUE;
  Context *C;
  return currentOrError(C);
}

CUresult cuDeviceCanAccessPeer(int *Can, CUdevice Dev, CUdevice PeerDev) {
  REPTX_TRACE(cuDeviceCanAccessPeer, Can, Dev, PeerDev);
  if (!Can)
    return CUDA_ERROR_INVALID_VALUE;
  *Can = 0;
  return CUDA_SUCCESS;
}

// ------------------------------------------------------------------ primary contexts

CUresult cuDevicePrimaryCtxRetain(CUcontext *Ctx, CUdevice Dev) {
  REPTX_TRACE(cuDevicePrimaryCtxRetain, Ctx, Dev);
  Device *D;
  if (CUresult R = deviceOrError(Dev, D))
    return R;
  if (!Ctx)
    return CUDA_ERROR_INVALID_VALUE;
  std::lock_guard<std::mutex> L(D->PrimaryMutex);
  ++D->PrimaryRefs;
  *Ctx = reinterpret_cast<CUcontext>(&D->PrimaryCtx);
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice Dev) {
  REPTX_TRACE(cuDevicePrimaryCtxRelease_v2, Dev);
  Device *D;
  if (CUresult R = deviceOrError(Dev, D))
    return R;
  printfDrain(*D);
  std::lock_guard<std::mutex> L(D->PrimaryMutex);
  if (D->PrimaryRefs == 0)
    return CUDA_ERROR_INVALID_CONTEXT;
  --D->PrimaryRefs; // the primary context stays valid (inactive) for cudart's later calls
  return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRelease(CUdevice Dev) {
  REPTX_TRACE(cuDevicePrimaryCtxRelease, Dev);
  return cuDevicePrimaryCtxRelease_v2(Dev);
}

CUresult cuDevicePrimaryCtxReset_v2(CUdevice Dev) {
  REPTX_TRACE(cuDevicePrimaryCtxReset_v2, Dev);
  Device *D;
  if (CUresult R = deviceOrError(Dev, D))
    return R;
  printfDrain(*D);
  Driver::get().releaseResources(&D->PrimaryCtx);
  std::lock_guard<std::mutex> L(D->PrimaryMutex);
  D->PrimaryRefs = 0;
  return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxReset(CUdevice Dev) {
  REPTX_TRACE(cuDevicePrimaryCtxReset, Dev);
  return cuDevicePrimaryCtxReset_v2(Dev);
}

CUresult cuDevicePrimaryCtxGetState(CUdevice Dev, unsigned int *Flags, int *Active) {
  REPTX_TRACE(cuDevicePrimaryCtxGetState, Dev, Flags, Active);
  Device *D;
  if (CUresult R = deviceOrError(Dev, D))
    return R;
  if (!Flags || !Active)
    return CUDA_ERROR_INVALID_VALUE;
  std::lock_guard<std::mutex> L(D->PrimaryMutex);
  *Flags = D->PrimaryFlags;
  *Active = D->PrimaryRefs > 0;
  return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice Dev, unsigned int Flags) {
  REPTX_TRACE(cuDevicePrimaryCtxSetFlags_v2, Dev, Flags);
  Device *D;
  if (CUresult R = deviceOrError(Dev, D))
    return R;
  std::lock_guard<std::mutex> L(D->PrimaryMutex);
  D->PrimaryFlags = Flags;
  return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxSetFlags(CUdevice Dev, unsigned int Flags) {
  REPTX_TRACE(cuDevicePrimaryCtxSetFlags, Dev, Flags);
  return cuDevicePrimaryCtxSetFlags_v2(Dev, Flags);
}

// ------------------------------------------------------------------ contexts

CUresult cuCtxCreate_v2(CUcontext *Ctx, unsigned int Flags, CUdevice Dev) {
  REPTX_TRACE(cuCtxCreate_v2, Ctx, Flags, Dev);
  Device *D;
  if (CUresult R = deviceOrError(Dev, D))
    return R;
  if (!Ctx)
    return CUDA_ERROR_INVALID_VALUE;
  Context *C = drv().createContext(D, Flags);
  contextStack().push_back(C);
  *Ctx = reinterpret_cast<CUcontext>(C);
  return CUDA_SUCCESS;
}

// Profiler control (cudaProfiler.h, not cuda.h, declares them): no profiler collects anything on
// reptx, so starting and stopping it succeed in a context and do nothing, as CUDA's do with no
// profiler attached (benchmarks call cudaProfilerStart/Stop and check the result).
extern "C" __attribute__((visibility("default"))) CUresult cuProfilerStart();
extern "C" __attribute__((visibility("default"))) CUresult cuProfilerStop();
extern "C" CUresult cuProfilerStart() {
  REPTX_TRACE(cuProfilerStart);
  Context *C;
  return currentOrError(C);
}
extern "C" CUresult cuProfilerStop() {
  REPTX_TRACE(cuProfilerStop);
  Context *C;
  return currentOrError(C);
}

// With execution affinity (a share of the SMs) or CIG (a device shared with a graphics API),
// which reptx's contexts do not offer: an SM count of at least the whole device is no limit.
CUresult cuCtxCreate_v3(CUcontext *Ctx, CUexecAffinityParam *Params, int NumParams,
                        unsigned int Flags, CUdevice Dev) {
  REPTX_TRACE(cuCtxCreate_v3, Ctx, Params, NumParams, Flags, Dev);
  Device *D;
  if (CUresult R = deviceOrError(Dev, D))
    return R;
  if (NumParams < 0 || (NumParams && !Params))
    return CUDA_ERROR_INVALID_VALUE;
  for (int I = 0; I < NumParams; ++I) {
    if (Params[I].type != CU_EXEC_AFFINITY_TYPE_SM_COUNT)
      return CUDA_ERROR_INVALID_VALUE;
    if (Params[I].param.smCount.val <
        unsigned(attribute(*D, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)))
      return CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY;
  }
  return cuCtxCreate_v2(Ctx, Flags, Dev);
}

CUresult cuCtxCreate_v4(CUcontext *Ctx, CUctxCreateParams *Params, unsigned int Flags,
                        CUdevice Dev) {
  REPTX_TRACE(cuCtxCreate_v4, Ctx, Params, Flags, Dev);
  if (!Params)
    return cuCtxCreate_v2(Ctx, Flags, Dev);
  if (Params->cigParams)
    return CUDA_ERROR_NOT_SUPPORTED;
  return cuCtxCreate_v3(Ctx, Params->execAffinityParams, Params->numExecAffinityParams, Flags, Dev);
}

CUresult cuCtxDestroy_v2(CUcontext Ctx) {
  REPTX_TRACE(cuCtxDestroy_v2, Ctx);
  if (!drv().validContext(Ctx))
    return CUDA_ERROR_INVALID_CONTEXT;
  auto *C = reinterpret_cast<Context *>(Ctx);
  if (C->Primary)
    return CUDA_ERROR_INVALID_CONTEXT;
  printfDrain(*C->Dev);
  drv().destroyContext(C);
  return CUDA_SUCCESS;
}

CUresult cuCtxGetCurrent(CUcontext *Ctx) {
  REPTX_TRACE(cuCtxGetCurrent, Ctx);
  if (!Ctx)
    return CUDA_ERROR_INVALID_VALUE;
  if (!drv().initialized())
    return CUDA_ERROR_NOT_INITIALIZED;
  *Ctx = reinterpret_cast<CUcontext>(currentContext());
  return CUDA_SUCCESS;
}

CUresult cuCtxSetCurrent(CUcontext Ctx) {
  REPTX_TRACE(cuCtxSetCurrent, Ctx);
  if (!drv().initialized())
    return CUDA_ERROR_NOT_INITIALIZED;
  auto &S = contextStack();
  if (!Ctx) {
    if (!S.empty())
      S.pop_back();
    return CUDA_SUCCESS;
  }
  if (!drv().validContext(Ctx))
    return CUDA_ERROR_INVALID_CONTEXT;
  if (S.empty())
    S.push_back(reinterpret_cast<Context *>(Ctx));
  else
    S.back() = reinterpret_cast<Context *>(Ctx);
  return CUDA_SUCCESS;
}

CUresult cuCtxPushCurrent_v2(CUcontext Ctx) {
  REPTX_TRACE(cuCtxPushCurrent_v2, Ctx);
  if (!drv().validContext(Ctx))
    return CUDA_ERROR_INVALID_CONTEXT;
  contextStack().push_back(reinterpret_cast<Context *>(Ctx));
  return CUDA_SUCCESS;
}
CUresult cuCtxPushCurrent(CUcontext Ctx) {
  REPTX_TRACE(cuCtxPushCurrent, Ctx);
  return cuCtxPushCurrent_v2(Ctx);
}

CUresult cuCtxPopCurrent_v2(CUcontext *Ctx) {
  REPTX_TRACE(cuCtxPopCurrent_v2, Ctx);
  auto &S = contextStack();
  if (S.empty())
    return CUDA_ERROR_INVALID_CONTEXT;
  if (Ctx)
    *Ctx = reinterpret_cast<CUcontext>(S.back());
  S.pop_back();
  return CUDA_SUCCESS;
}
CUresult cuCtxPopCurrent(CUcontext *Ctx) {
  REPTX_TRACE(cuCtxPopCurrent, Ctx);
  return cuCtxPopCurrent_v2(Ctx);
}

CUresult cuCtxGetDevice_v2(CUdevice *Dev, CUcontext Ctx) {
  REPTX_TRACE(cuCtxGetDevice_v2, Dev, Ctx);
  if (!Dev)
    return CUDA_ERROR_INVALID_VALUE;
  Context *C;
  if (CUresult R = ctxOrCurrent(Ctx, C))
    return R;
  *Dev = C->Dev->Ordinal;
  return CUDA_SUCCESS;
}
CUresult cuCtxGetDevice(CUdevice *Dev) {
  REPTX_TRACE(cuCtxGetDevice, Dev);
  return cuCtxGetDevice_v2(Dev, nullptr);
}

CUresult cuCtxSynchronize_v2(CUcontext Ctx) {
  REPTX_TRACE(cuCtxSynchronize_v2, Ctx);
  Context *C;
  if (CUresult R = ctxOrCurrent(Ctx, C))
    return R;
  if (CUresult R = captureForbidsUnsafeCall())
    return R;
  return synchronizeContext(C);
}
CUresult cuCtxSynchronize() {
  REPTX_TRACE(cuCtxSynchronize);
  return cuCtxSynchronize_v2(nullptr);
}

CUresult cuCtxGetApiVersion(CUcontext Ctx, unsigned int *Version) {
  REPTX_TRACE(cuCtxGetApiVersion, Ctx, Version);
  if (!Version)
    return CUDA_ERROR_INVALID_VALUE;
  Context *C;
  if (CUresult R = ctxOrCurrent(Ctx, C))
    return R;
  *Version = 3020;
  return CUDA_SUCCESS;
}

CUresult cuCtxGetFlags(unsigned int *Flags) {
  REPTX_TRACE(cuCtxGetFlags, Flags);
  Context *C;
  if (CUresult R = currentOrError(C))
    return R;
  if (!Flags)
    return CUDA_ERROR_INVALID_VALUE;
  *Flags = C->Primary ? C->Dev->PrimaryFlags : C->Flags;
  return CUDA_SUCCESS;
}

CUresult cuCtxGetId(CUcontext Ctx, unsigned long long *Id) {
  REPTX_TRACE(cuCtxGetId, Ctx, Id);
  Context *C;
  if (CUresult R = ctxOrCurrent(Ctx, C))
    return R;
  if (!Id)
    return CUDA_ERROR_INVALID_VALUE;
  *Id = C->Id;
  return CUDA_SUCCESS;
}

CUresult reptx::loader::contextLimit(Context &C, CUlimit Limit, size_t &Value) {
  if (Limit == CU_LIMIT_PRINTF_FIFO_SIZE) { // per device, as its code objects are
    Value = printfFifoSize(*C.Dev);
    return CUDA_SUCCESS;
  }
  if (Limit == CU_LIMIT_MALLOC_HEAP_SIZE) {
    Value = heapSize(*C.Dev);
    return CUDA_SUCCESS;
  }
  if (Limit == CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT) {
    Value = pendingLaunchCount(*C.Dev);
    return CUDA_SUCCESS;
  }
  std::lock_guard<std::mutex> L(C.LimitMutex);
  if (auto It = C.Limits.find(Limit); It != C.Limits.end()) {
    Value = It->second;
    return CUDA_SUCCESS;
  }
  switch (Limit) {
  case CU_LIMIT_STACK_SIZE:
    Value = 1024;
    return CUDA_SUCCESS;
  case CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH:
    Value = 2;
    return CUDA_SUCCESS;
  case CU_LIMIT_MAX_L2_FETCH_GRANULARITY:
    Value = 64;
    return CUDA_SUCCESS;
  case CU_LIMIT_PERSISTING_L2_CACHE_SIZE:
  case CU_LIMIT_CIG_ENABLED: // no context shares its device with a graphics API
    Value = 0;
    return CUDA_SUCCESS;
  case CU_LIMIT_SHMEM_SIZE: // a kernel may use all of it
    Value = size_t(attribute(*C.Dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN));
    return CUDA_SUCCESS;
  case CU_LIMIT_CIG_SHMEM_FALLBACK_ENABLED:
    Value = 1;
    return CUDA_SUCCESS;
  default:
    return CUDA_ERROR_UNSUPPORTED_LIMIT;
  }
}

CUresult cuCtxGetLimit(size_t *Value, CUlimit Limit) {
  REPTX_TRACE(cuCtxGetLimit, Value, Limit);
  Context *C;
  if (CUresult R = currentOrError(C))
    return R;
  if (!Value)
    return CUDA_ERROR_INVALID_VALUE;
  return contextLimit(*C, Limit, *Value);
}

CUresult cuCtxSetLimit(CUlimit Limit, size_t Value) {
  REPTX_TRACE(cuCtxSetLimit, Limit, Value);
  Context *C;
  if (CUresult R = currentOrError(C))
    return R;
  if (Limit < 0 || Limit >= CU_LIMIT_MAX || Limit == CU_LIMIT_SHMEM_SIZE ||
      Limit == CU_LIMIT_CIG_ENABLED) // the last two can only be queried
    return CUDA_ERROR_UNSUPPORTED_LIMIT;
  if (Limit == CU_LIMIT_PRINTF_FIFO_SIZE)
    return setPrintfFifoSize(*C->Dev, Value);
  if (Limit == CU_LIMIT_MALLOC_HEAP_SIZE)
    return setHeapSize(*C->Dev, Value);
  if (Limit == CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT)
    return setPendingLaunchCount(*C->Dev, Value);
  std::lock_guard<std::mutex> L(C->LimitMutex);
  C->Limits[Limit] = Value;
  return CUDA_SUCCESS;
}

CUresult cuCtxGetCacheConfig(CUfunc_cache *Config) {
  REPTX_TRACE(cuCtxGetCacheConfig, Config);
  if (!Config)
    return CUDA_ERROR_INVALID_VALUE;
  *Config = CU_FUNC_CACHE_PREFER_NONE;
  return CUDA_SUCCESS;
}
CUresult cuCtxSetCacheConfig(CUfunc_cache Config) {
  REPTX_TRACE(cuCtxSetCacheConfig, Config);
  return CUDA_SUCCESS;
}

CUresult cuCtxGetStreamPriorityRange(int *Least, int *Greatest) {
  REPTX_TRACE(cuCtxGetStreamPriorityRange, Least, Greatest);
  if (Least)
    *Least = 0;
  if (Greatest)
    *Greatest = -1;
  return CUDA_SUCCESS;
}

CUresult cuCtxGetSharedMemConfig(CUsharedconfig *Config) {
  REPTX_TRACE(cuCtxGetSharedMemConfig, Config);
  if (!Config)
    return CUDA_ERROR_INVALID_VALUE;
  *Config = CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE;
  return CUDA_SUCCESS;
}
CUresult cuCtxSetSharedMemConfig(CUsharedconfig Config) {
  REPTX_TRACE(cuCtxSetSharedMemConfig, Config);
  return CUDA_SUCCESS;
}
