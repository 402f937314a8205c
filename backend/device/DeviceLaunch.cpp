// Dynamic parallelism: `@reptx.cdp.<Name>`, the device runtime's system calls
// `__cuda_syscall_cnpv2<Name>` on which libcudadevrt (linked into every program that launches
// kernels from device code) builds `kernel<<<...>>>` and the CUDA API in device code
// (ir/include/reptx/ir/Intrinsics.h, DeviceRuntimeCalls). Each takes one local-space pointer per
// return and parameter slot. A launch is a record in the queue whose address the loader wrote
// into `__reptx_launch_queue`; the loader runs the launched records when the grid that made them
// has finished. Layout: reptx/backend/LaunchQueue.h.
#include "Device.h"

#include "../include/reptx/backend/LaunchQueue.h"

// The device address of the launch queue, 0 when the loader gave none. External (protected
// visibility, so also a dynamic symbol of the code object) so that a loader finds and writes it;
// it is linked only into modules that launch kernels or call the device runtime.
extern "C" {
[[gnu::visibility("protected")]] __attribute__((address_space(1)))
reptx::device::u64 __reptx_launch_queue = 0;
// The device address of the code object's kernel table (function attributes and occupancy),
// 0 when the loader gave none; linked only into modules that query them.
[[gnu::visibility("protected")]] __attribute__((address_space(1)))
reptx::device::u64 __reptx_kernel_table = 0;
}

namespace reptx::device {

namespace {

namespace lq = reptx::launch_queue;

/// A call's slot: the caller's .param bytes in the local address space.
template <typename T> using Slot = __attribute__((address_space(5))) T;

GlobalU32 *word32(u64 Address) { return reinterpret_cast<GlobalU32 *>(Address); }
GlobalU64 *word64(u64 Address) { return reinterpret_cast<GlobalU64 *>(Address); }

/// A record of the queue: its address, 0 when there is no queue or no room left (the queue's
/// overflow flag is set then).
u64 reserve() {
  u64 Q = __reptx_launch_queue;
  if (!Q)
    return 0;
  u32 Capacity = *word32(Q);
  u32 I = __scoped_atomic_fetch_add(word32(Q + 4), 1u, __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE);
  if (I >= Capacity) {
    __scoped_atomic_store_n(word32(Q + 8), 1u, __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE);
    return 0;
  }
  u64 R = Q + lq::RecordsOffset + u64(I) * lq::RecordBytes;
  *word32(R) = 0;
  return R;
}

/// The record whose parameter buffer is at Params, 0 when Params is not one.
u64 recordOf(u64 Params) {
  u64 Q = __reptx_launch_queue;
  u64 First = Q + lq::RecordsOffset + lq::RecordHeaderBytes;
  if (!Q || Params < First || (Params - First) % lq::RecordBytes ||
      (Params - First) / lq::RecordBytes >= *word32(Q))
    return 0;
  return Params - lq::RecordHeaderBytes;
}

void setConfiguration(u64 R, const u32 *Grid, const u32 *Block, u32 Shared) {
  for (unsigned I = 0; I < 3; ++I) {
    *word32(R + 16 + 4 * I) = Grid[I];
    *word32(R + 28 + 4 * I) = Block[I];
  }
  *word32(R + 40) = Shared;
}

/// Whether the record's grid and block are ones a launch accepts (the device's limits).
bool validConfiguration(u64 R) {
  u32 G[3], B[3];
  for (unsigned I = 0; I < 3; ++I) {
    G[I] = *word32(R + 16 + 4 * I);
    B[I] = *word32(R + 28 + 4 * I);
  }
  if (!G[0] || !G[1] || !G[2] || !B[0] || !B[1] || !B[2])
    return false;
  if (G[0] > 2147483647u || G[1] > 65535 || G[2] > 65535 || B[0] > 1024 || B[1] > 1024 || B[2] > 64)
    return false;
  return u64(B[0]) * B[1] * B[2] <= 1024;
}

/// Makes the record a launch into Stream: CnpSuccess, or why not.
u32 launch(u64 R, u64 Stream) {
  if (!validConfiguration(R))
    return lq::CnpInvalidConfiguration;
  *word64(R + 48) = Stream;
  __scoped_atomic_store_n(word32(R), lq::Launched, __ATOMIC_RELEASE, __MEMORY_SCOPE_DEVICE);
  return lq::CnpSuccess;
}

/// A handle for a device-side stream or event: nonzero, and none of cudaStream_t's special
/// values (0, cudaStreamTailLaunch, cudaStreamFireAndForget).
u64 newHandle() {
  u64 Q = __reptx_launch_queue;
  u32 N = Q ? __scoped_atomic_fetch_add(word32(Q + 12), 1u, __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE)
            : 0;
  return 0x1000 + 16 * u64(N);
}

// The calling thread's last error: an entry of the queue's table, keyed by its block and its
// work-item ids, valid while the entry's grid is the running one.
u64 blockKey() {
  return u64(__builtin_amdgcn_workgroup_id_x()) | u64(__builtin_amdgcn_workgroup_id_y()) << 32 |
         u64(__builtin_amdgcn_workgroup_id_z()) << 48;
}
u32 threadKey() {
  return __builtin_amdgcn_workitem_id_x() | __builtin_amdgcn_workitem_id_y() << 11 |
         __builtin_amdgcn_workitem_id_z() << 22;
}
u32 firstSlot(u64 Block, u32 Thread) {
  u64 H = (Block ^ (u64(Thread) << 17)) * 0x9e3779b97f4a7c15ull;
  return u32(H >> 54) % lq::ErrorSlots;
}

/// The entry holding the calling thread's error in the running grid, 0 when it has none; with
/// Claim, a free entry is made its own (0 when the table is full).
u64 errorEntry(bool Claim) {
  u64 Q = __reptx_launch_queue;
  if (!Q)
    return 0;
  u32 Grid = *word32(Q + 16);
  u64 Block = blockKey();
  u32 Thread = threadKey();
  u32 First = firstSlot(Block, Thread);
  for (u32 I = 0; I < lq::ErrorSlots; ++I) {
    u64 E = Q + lq::ErrorsOffset + u64((First + I) % lq::ErrorSlots) * lq::ErrorBytes;
    u32 Owner = __scoped_atomic_load_n(word32(E), __ATOMIC_ACQUIRE, __MEMORY_SCOPE_DEVICE);
    if (Owner == Grid) {
      if (*word64(E + 8) == Block && *word32(E + 16) == Thread)
        return E;
      continue;
    }
    if (Owner == lq::Busy || !Claim)
      continue;
    // Free (written in an earlier grid, or never): claim it, then fill it.
    if (!__scoped_atomic_compare_exchange_n(word32(E), &Owner, lq::Busy, false, __ATOMIC_ACQUIRE,
                                            __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE))
      continue;
    *word32(E + 4) = 0;
    *word64(E + 8) = Block;
    *word32(E + 16) = Thread;
    __scoped_atomic_store_n(word32(E), Grid, __ATOMIC_RELEASE, __MEMORY_SCOPE_DEVICE);
    return E;
  }
  return 0;
}

void setLastError(u32 Error) {
  if (u64 E = errorEntry(Error != 0))
    *word32(E + 4) = Error;
}

/// Whether the NUL-terminated texts at generic addresses A and B are the same.
bool sameText(u64 A, u64 B) {
  const char *P = reinterpret_cast<const char *>(A), *Q = reinterpret_cast<const char *>(B);
  for (; *P == *Q; ++P, ++Q)
    if (!*P)
      return true;
  return false;
}

/// The kernel table's entry of the kernel whose address is Kernel, 0 when it has none.
u64 kernelEntry(u64 Kernel) {
  u64 T = __reptx_kernel_table;
  if (!T || !Kernel)
    return 0;
  u32 N = *word32(T);
  for (u32 I = 0; I < N; ++I) {
    u64 E = T + 8 + u64(I) * lq::KernelEntryBytes;
    if (sameText(*word64(E), Kernel))
      return E;
  }
  return 0;
}

/// The kernel's attribute A (CUfunction_attribute) from its table entry E.
s32 kernelAttribute(u64 E, u32 A) { return s32(*word32(E + 8 + 4 * A)); }

/// CNPerror MaxActiveBlocksPerMultiprocessor[WithFlags]: the loader's occupancy model.
u32 occupancy(u64 Blocks, u64 Kernel, s32 BlockSize, u64 Shared, u32 Flags) {
  u64 E = kernelEntry(Kernel);
  if (!Blocks || !E || BlockSize <= 0 || Flags > 1) // cudaOccupancyDisableCachingOverride
    return lq::CnpInvalidValue;
  u64 PerBlock = u64(u32(kernelAttribute(E, lq::AttributeSharedBytes))) + Shared;
  *reinterpret_cast<s32 *>(Blocks) = lq::maxActiveBlocks(u32(BlockSize), PerBlock);
  return lq::CnpSuccess;
}

} // namespace

// void *GetParameterBufferV2(void *func, dim3 grid, dim3 block, unsigned shared)
REPTX_HELPER("reptx.cdp.GetParameterBufferV2", void, cdpGetParameterBufferV2,
             (Slot<u64> * Ret, Slot<u64> *Kernel, Slot<u32> *Grid, Slot<u32> *Block,
              Slot<u32> *Shared)) {
  u64 R = reserve();
  if (R) {
    *word64(R + 8) = *Kernel;
    u32 G[3] = {Grid[0], Grid[1], Grid[2]}, B[3] = {Block[0], Block[1], Block[2]};
    setConfiguration(R, G, B, *Shared);
  } else {
    setLastError(lq::ErrorLaunchPendingCountExceeded);
  }
  *Ret = R ? R + lq::RecordHeaderBytes : 0;
}

// void *GetParameterBuffer(unsigned alignment, unsigned size)
REPTX_HELPER("reptx.cdp.GetParameterBuffer", void, cdpGetParameterBuffer,
             (Slot<u64> * Ret, Slot<u32> *Alignment, Slot<u32> *Size)) {
  u64 R = 0;
  if (*Size <= lq::ParamBytes && *Alignment <= lq::RecordHeaderBytes) {
    R = reserve();
    if (!R)
      setLastError(lq::ErrorLaunchPendingCountExceeded);
  }
  *Ret = R ? R + lq::RecordHeaderBytes : 0;
}

// CNPerror LaunchDeviceV2(void *parameterBuffer, cudaStream_t stream)
REPTX_HELPER("reptx.cdp.LaunchDeviceV2", void, cdpLaunchDeviceV2,
             (Slot<u32> * Ret, Slot<u64> *Params, Slot<u64> *Stream)) {
  u64 R = recordOf(*Params);
  *Ret = R ? launch(R, *Stream) : lq::CnpInvalidValue;
}

// CNPerror LaunchDevice(void *func, void *parameterBuffer, dim3 *grid, dim3 *block,
//                       unsigned shared, cudaStream_t stream)
REPTX_HELPER("reptx.cdp.LaunchDevice", void, cdpLaunchDevice,
             (Slot<u32> * Ret, Slot<u64> *Kernel, Slot<u64> *Params, Slot<u64> *Grid,
              Slot<u64> *Block, Slot<u32> *Shared, Slot<u64> *Stream)) {
  u64 R = recordOf(*Params);
  if (!R || !*Grid || !*Block) {
    *Ret = lq::CnpInvalidValue;
    return;
  }
  *word64(R + 8) = *Kernel;
  setConfiguration(R, reinterpret_cast<const u32 *>(*Grid), reinterpret_cast<const u32 *>(*Block),
                   *Shared);
  *Ret = launch(R, *Stream);
}

// cudaError_t GetLastError(void): the calling thread's last error (libcudadevrt clears it).
REPTX_HELPER("reptx.cdp.GetLastError", void, cdpGetLastError, (Slot<u32> * Ret)) {
  u64 E = errorEntry(false);
  *Ret = E ? *word32(E + 4) : 0;
}
// cudaError_t SetLastError(cudaError_t error): returns the error (libcudadevrt's API functions
// return what it returns).
REPTX_HELPER("reptx.cdp.SetLastError", void, cdpSetLastError, (Slot<u32> * Ret, Slot<u32> *Error)) {
  setLastError(*Error);
  *Ret = *Error;
}

// CNPerror GetDevice(int *device), GetDeviceCount(int *count)
REPTX_HELPER("reptx.cdp.GetDevice", void, cdpGetDevice, (Slot<u32> * Ret, Slot<u64> *Device)) {
  *reinterpret_cast<s32 *>(*Device) = 0;
  *Ret = lq::CnpSuccess;
}
REPTX_HELPER("reptx.cdp.GetDeviceCount", void, cdpGetDeviceCount,
             (Slot<u32> * Ret, Slot<u64> *Count)) {
  *reinterpret_cast<s32 *>(*Count) = 1;
  *Ret = lq::CnpSuccess;
}

// CNPerror DeviceGetAttribute(int *value, cudaDeviceAttr attribute, int device): the table the
// loader wrote into the queue.
REPTX_HELPER("reptx.cdp.DeviceGetAttribute", void, cdpDeviceGetAttribute,
             (Slot<u32> * Ret, Slot<u64> *Value, Slot<u32> *Attribute, Slot<s32> *Device)) {
  u64 Q = __reptx_launch_queue;
  u32 A = *Attribute;
  if (*Device != 0) {
    *Ret = lq::CnpInvalidDevice;
    return;
  }
  if (!Q || !*Value || A == 0 || A >= lq::AttributeSlots ||
      A >= *word32(Q + lq::AttributesOffset)) {
    *Ret = lq::CnpInvalidValue;
    return;
  }
  *reinterpret_cast<s32 *>(*Value) = s32(*word32(Q + lq::AttributesOffset + 4 * A));
  *Ret = lq::CnpSuccess;
}

// CNPerror GetLimit(size_t *value, cudaLimit limit): the table the loader wrote into the queue
// for the running grid's context.
REPTX_HELPER("reptx.cdp.GetLimit", void, cdpGetLimit,
             (Slot<u32> * Ret, Slot<u64> *Value, Slot<u32> *Limit)) {
  u64 Q = __reptx_launch_queue;
  u64 V = Q && *Limit < lq::LimitSlots ? *word64(Q + lq::LimitsOffset + 8 * u64(*Limit))
                                       : lq::LimitUnsupported;
  if (!*Value) {
    *Ret = lq::CnpInvalidValue;
    return;
  }
  if (V == lq::LimitUnsupported) {
    *Ret = lq::CnpUnsupportedLimit;
    return;
  }
  *reinterpret_cast<u64 *>(*Value) = V;
  *Ret = lq::CnpSuccess;
}

// CNPerror GetCacheConfig(cudaFuncCache *), GetSharedMemConfig(cudaSharedMemConfig *): what
// the loader's cuCtxGetCacheConfig and cuCtxGetSharedMemConfig answer (no preference, four-byte
// banks), which setting them does not change.
REPTX_HELPER("reptx.cdp.GetCacheConfig", void, cdpGetCacheConfig,
             (Slot<u32> * Ret, Slot<u64> *Config)) {
  if (*Config)
    *reinterpret_cast<s32 *>(*Config) = 0; // cudaFuncCachePreferNone
  *Ret = *Config ? lq::CnpSuccess : lq::CnpInvalidValue;
}
REPTX_HELPER("reptx.cdp.GetSharedMemConfig", void, cdpGetSharedMemConfig,
             (Slot<u32> * Ret, Slot<u64> *Config)) {
  if (*Config)
    *reinterpret_cast<s32 *>(*Config) = 1; // cudaSharedMemBankSizeFourByte
  *Ret = *Config ? lq::CnpSuccess : lq::CnpInvalidValue;
}

// CNPerror FuncGetAttribute(int *value, CUfunction_attribute attribute, void *func): the code
// object's kernel table (libcudadevrt's cudaFuncGetAttributes asks for attributes 0 to 6; the
// size_t fields among them are zeroed first and receive the low word).
REPTX_HELPER("reptx.cdp.FuncGetAttribute", void, cdpFuncGetAttribute,
             (Slot<u32> * Ret, Slot<u64> *Value, Slot<u32> *Attribute, Slot<u64> *Kernel)) {
  u64 E = kernelEntry(*Kernel);
  if (!*Value || !E || *Attribute >= lq::KernelAttributes) {
    *Ret = lq::CnpInvalidValue;
    return;
  }
  *reinterpret_cast<s32 *>(*Value) = kernelAttribute(E, *Attribute);
  *Ret = lq::CnpSuccess;
}

// CNPerror MaxActiveBlocksPerMultiprocessor(int *numBlocks, void *func, int blockSize,
//                                           size_t dynamicSmemSize[, unsigned flags])
REPTX_HELPER("reptx.cdp.MaxActiveBlocksPerMultiprocessor", void, cdpMaxActiveBlocks,
             (Slot<u32> * Ret, Slot<u64> *Blocks, Slot<u64> *Kernel, Slot<s32> *BlockSize,
              Slot<u64> *Shared)) {
  *Ret = occupancy(*Blocks, *Kernel, *BlockSize, *Shared, 0);
}
REPTX_HELPER("reptx.cdp.MaxActiveBlocksPerMultiprocessorWithFlags", void,
             cdpMaxActiveBlocksWithFlags,
             (Slot<u32> * Ret, Slot<u64> *Blocks, Slot<u64> *Kernel, Slot<s32> *BlockSize,
              Slot<u64> *Shared, Slot<u32> *Flags)) {
  *Ret = occupancy(*Blocks, *Kernel, *BlockSize, *Shared, *Flags);
}

// Streams and events: the launches of a grid run after it, one after the other, so a stream or
// an event is only a handle, and waiting on one has nothing to wait for.
// CNPerror StreamCreate(cudaStream_t *stream, unsigned flags), EventCreate(cudaEvent_t *, flags)
REPTX_HELPER("reptx.cdp.StreamCreate", void, cdpStreamCreate,
             (Slot<u32> * Ret, Slot<u64> *Stream, Slot<u32> *)) {
  *reinterpret_cast<u64 *>(*Stream) = newHandle();
  *Ret = lq::CnpSuccess;
}
REPTX_HELPER("reptx.cdp.EventCreate", void, cdpEventCreate,
             (Slot<u32> * Ret, Slot<u64> *Event, Slot<u32> *)) {
  *reinterpret_cast<u64 *>(*Event) = newHandle();
  *Ret = lq::CnpSuccess;
}
// CNPerror StreamDestroy(cudaStream_t), EventDestroy(cudaEvent_t)
REPTX_HELPER("reptx.cdp.StreamDestroy", void, cdpStreamDestroy, (Slot<u32> * Ret, Slot<u64> *)) {
  *Ret = lq::CnpSuccess;
}
REPTX_HELPER("reptx.cdp.EventDestroy", void, cdpEventDestroy, (Slot<u32> * Ret, Slot<u64> *)) {
  *Ret = lq::CnpSuccess;
}
// CNPerror StreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned flags)
REPTX_HELPER("reptx.cdp.StreamWaitEvent", void, cdpStreamWaitEvent,
             (Slot<u32> * Ret, Slot<u64> *, Slot<u64> *, Slot<u32> *)) {
  *Ret = lq::CnpSuccess;
}
// CNPerror EventRecord(cudaEvent_t, cudaStream_t)
REPTX_HELPER("reptx.cdp.EventRecord", void, cdpEventRecord,
             (Slot<u32> * Ret, Slot<u64> *, Slot<u64> *)) {
  *Ret = lq::CnpSuccess;
}

} // namespace reptx::device
