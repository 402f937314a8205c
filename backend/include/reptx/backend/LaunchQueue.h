// Dynamic parallelism (kernels launched from device code): the layout of the queue that the
// device helper library (backend/device/DeviceLaunch.cpp, the device runtime's system calls)
// records device-side launches in and a loader runs them from. Header-only and freestanding (no
// library includes), so that the device helpers and host code share it.
//
// A kernel's address in device code (`mov.u64 %rd, kernel`, what a launch in device code passes)
// is the generic address of a constant string naming it (ir/include/reptx/ir/Intrinsics.h,
// KernelAddressPrefix).
//
// Queue layout (little-endian, in device memory, at the address the code object's global
// `__reptx_launch_queue` holds; 0 there means no queue, and every launch fails):
//   0   u32 capacity      records the queue holds (CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT)
//   4   u32 reserved      records handed out so far (bumped atomically; may exceed the
//                         capacity when a reservation did not fit, which then failed)
//   8   u32 overflowed    set to 1 by a reservation that did not fit
//   12  u32 handles       device-side streams and events created so far
//   16  u32 grid          the serial number of the running grid (from 1): the loader bumps it
//                         after each grid, which forgets the threads' last errors
//   20  (unused up to AttributesOffset)
//   AttributesOffset      the device's attributes (cudaDeviceGetAttribute), AttributeSlots s32
//                         indexed by cudaDeviceAttr; slot 0 holds how many are valid (attributes
//                         1 to that count - 1), as the loader wrote them when it made the queue
//   LimitsOffset          the limits of the running grid's context (cudaDeviceGetLimit),
//                         LimitSlots u64 indexed by cudaLimit, LimitUnsupported where the context
//                         has none; written by the loader before the grid when they changed
//   ErrorsOffset          the threads' last errors (cudaGetLastError): ErrorSlots entries of
//                         ErrorBytes, found by hashing the thread's identity, each
//     0   u32 grid        the grid that wrote it (0, or an older grid: free; Busy: being
//                         written by the thread that claimed it)
//     4   u32 error       the cudaError_t
//     8   u64 block       the block (workgroup ids x | y << 32 | z << 48)
//     16  u32 thread      the thread's flat work-item id in the block
//   RecordsOffset         the records, RecordBytes each: a RecordHeaderBytes header
//     0   u32 state       0 reserved, Launched once a launch call made it a launch
//     8   u64 kernel      the kernel's address
//     16  u32 grid[3]     in blocks
//     28  u32 block[3]    in threads
//     40  u32 shared      dynamic shared memory bytes
//     48  u64 stream      the device-side stream (StreamTailLaunch, StreamFireAndForget, 0 for
//                         the block's default stream, or a handle StreamCreate gave)
//   followed by the parameter buffer (ParamBytes, the kernel's parameters in their .param
//   layout), whose address the device code fills.
// The loader runs the launched records of a grid after the grid has finished, in the order of
// their reservation, the tail launches after the others; the kernels a launched grid launches
// run before the next record (a launch's stream waits for it).
//
// Kernel table (cudaFuncGetAttributes and the occupancy queries in device code), one per code
// object, at the address its global `__reptx_kernel_table` holds (0: none), written by the
// loader when it loads the code object:
//   0   u32 count         kernels
//   8   the kernels, KernelEntryBytes each:
//     0   u64 handle      the address of a NUL-terminated copy of the kernel's handle text (its
//                         kernel address's string: the device code compares the texts, as one
//                         kernel's handle may have a copy in each part of a module)
//     8   s32 attribute[KernelAttributes]  indexed by CUfunction_attribute, from
//                         CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK to _CACHE_MODE_CA
//   followed by the texts.
#pragma once

namespace reptx::launch_queue {

inline constexpr unsigned AttributesOffset = 32;
inline constexpr unsigned AttributeSlots = 256;
inline constexpr unsigned LimitsOffset = AttributesOffset + 4 * AttributeSlots;
inline constexpr unsigned LimitSlots = 16;
inline constexpr unsigned long long LimitUnsupported = ~0ull;
inline constexpr unsigned ErrorsOffset = LimitsOffset + 8 * LimitSlots;
inline constexpr unsigned ErrorSlots = 1024;
inline constexpr unsigned ErrorBytes = 32;
inline constexpr unsigned Busy = 0xffffffffu;
inline constexpr unsigned RecordsOffset = ErrorsOffset + ErrorSlots * ErrorBytes;
inline constexpr unsigned RecordHeaderBytes = 64;
/// The largest parameter buffer of a device-side launch (CUDA's, 4 KiB).
inline constexpr unsigned ParamBytes = 4096;
inline constexpr unsigned RecordBytes = RecordHeaderBytes + ParamBytes;
inline constexpr unsigned Launched = 1;
/// The symbol of the code object's 64-bit global holding the queue's device address.
inline constexpr const char QueueSymbol[] = "__reptx_launch_queue";
/// CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT's default (2048, as CUDA's).
inline constexpr unsigned DefaultCapacity = 2048;
/// Launches nest at most this deep (CUDA's limit; deeper ones fail the grid that made them).
inline constexpr unsigned MaxDepth = 24;
/// The symbol of the code object's 64-bit global holding its kernel table's device address.
inline constexpr const char KernelTableSymbol[] = "__reptx_kernel_table";
inline constexpr unsigned KernelAttributes = 8;
inline constexpr unsigned KernelEntryBytes = 8 + 4 * KernelAttributes;
inline constexpr unsigned AttributeSharedBytes = 1; // CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES

/// The occupancy model of the loader (cuOccupancyMaxActiveBlocksPerMultiprocessor), which
/// device code answers with too: blocks of BlockSize threads (> 0) using SharedBytes of shared
/// memory each, resident on one multiprocessor at once: at most 16 blocks, 48 warps (1,536
/// threads) and 100 KiB of shared memory.
inline int maxActiveBlocks(unsigned BlockSize, unsigned long long SharedBytes) {
  int Warps = int((BlockSize + 31) / 32);
  int Blocks = 48 / Warps;
  if (Blocks > 16)
    Blocks = 16;
  if (SharedBytes && (100ull * 1024) / SharedBytes < (unsigned long long)Blocks)
    Blocks = int((100ull * 1024) / SharedBytes);
  return Blocks;
}

// cudaStream_t values with a meaning of their own in device code (cuda_device_runtime_api.h).
inline constexpr unsigned long long StreamTailLaunch = 3;
inline constexpr unsigned long long StreamFireAndForget = 4;

// The device runtime's system calls answer with its own error codes, which libcudadevrt turns
// into cudaError_t values (its cudartErrorCnpMap).
inline constexpr unsigned CnpSuccess = 0;
inline constexpr unsigned CnpInvalidValue = 1;          // cudaErrorInvalidValue
inline constexpr unsigned CnpInvalidDevice = 3;         // cudaErrorInvalidDevice
inline constexpr unsigned CnpInvalidConfiguration = 7;  // cudaErrorInvalidConfiguration
inline constexpr unsigned CnpPendingCountExceeded = 12; // cudaErrorLaunchPendingCountExceeded
inline constexpr unsigned CnpUnsupportedLimit = 13;     // cudaErrorUnsupportedLimit
// cudaError_t values the system calls record as a thread's last error.
inline constexpr unsigned ErrorLaunchPendingCountExceeded = 69;

} // namespace reptx::launch_queue
