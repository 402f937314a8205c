// Memory pools (ApiPool.cpp): the stream-ordered allocator's pool objects. Each device has a
// default pool and a current pool (cuDeviceSetMemPool); cuMemAllocAsync allocates from the
// current one, cuMemAllocFromPoolAsync from the one it names. Allocations are made and freed at
// the call (stream order on a synchronous device), so a pool holds no memory of its own: it keeps
// its attributes and the statistics of what is allocated from it.
#pragma once

#include "Driver.h"

namespace reptx::loader {

/// Allocates Bytes for context C from Pool, or from the current pool of C's device when Pool is
/// null.
CUresult poolAllocate(CUmemoryPool Pool, Context *C, size_t Bytes, CUdeviceptr &Ptr);

/// Memory at Ptr is being freed (cuMemFree, cuMemFreeAsync): its pool, if any, no longer counts it.
void poolForget(CUdeviceptr Ptr);

} // namespace reptx::loader
