// Memory pools (MemPool.h): the Driver API's "Stream Ordered Memory Allocator" pools on the
// loader's one device. A pool's attributes are kept and reported; its memory statistics count
// what is allocated from it now (used and reserved alike, since freed memory goes back to the
// device at once) and the high-water marks since the last reset.
#include "Graph.h"
#include "MemPool.h"
#include "Trace.h"

#include <map>

using namespace reptx::loader;

namespace {

struct MemPool {
  Tag T = Tag::MemPool;
  Device *Dev = nullptr;
  CUmemPoolProps Props{};
  cuuint64_t ReleaseThreshold = 0;
  int ReuseFollowEvents = 1, ReuseOpportunistic = 1, ReuseInternal = 1;
  cuuint64_t Used = 0, UsedHigh = 0, ReservedHigh = 0;
};

struct Pools {
  std::unique_ptr<MemPool> Default;
  MemPool *Current = nullptr;
};

std::mutex PoolMutex;
// Every live allocation made from a pool, with its size.
std::map<CUdeviceptr, std::pair<MemPool *, size_t>> &poolAllocations() {
  static auto *M = new std::map<CUdeviceptr, std::pair<MemPool *, size_t>>;
  return *M;
}

// The device's pools, the default one made on first use (PoolMutex held).
Pools &pools(Device &D) {
  Pools &P = perDevice<Pools>(D);
  if (!P.Default) {
    P.Default = std::make_unique<MemPool>();
    P.Default->Dev = &D;
    P.Default->Props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    P.Default->Props.location = {CU_MEM_LOCATION_TYPE_DEVICE, D.Ordinal};
    P.Current = P.Default.get();
  }
  return P;
}

MemPool *asPool(CUmemoryPool H) {
  auto *P = reinterpret_cast<MemPool *>(H);
  return P && P->T == Tag::MemPool ? P : nullptr;
}
CUmemoryPool handle(MemPool *P) { return reinterpret_cast<CUmemoryPool>(P); }

Device *deviceOf(CUdevice Ordinal) {
  Driver &D = Driver::get();
  return D.initialized() ? D.device(Ordinal) : nullptr;
}

// The device a pool location names: a device location of an existing device, for pinned memory.
CUresult locationDevice(const CUmemLocation *L, CUmemAllocationType Type, Device *&Out) {
  if (!L || Type != CU_MEM_ALLOCATION_TYPE_PINNED)
    return CUDA_ERROR_INVALID_VALUE;
  if (L->type != CU_MEM_LOCATION_TYPE_DEVICE) {
    log().warn("memory pools of host memory are not supported by reptx");
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  Out = deviceOf(L->id);
  return Out ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

} // namespace

CUresult reptx::loader::poolAllocate(CUmemoryPool H, Context *C, size_t Bytes, CUdeviceptr &Ptr) {
  std::lock_guard<std::mutex> L(PoolMutex);
  MemPool *P = H ? asPool(H) : pools(*C->Dev).Current;
  if (!P)
    return CUDA_ERROR_INVALID_VALUE;
  if (P->Props.maxSize && P->Used + Bytes > P->Props.maxSize)
    return CUDA_ERROR_OUT_OF_MEMORY;
  auto A = P->Dev->Backend->allocate(Bytes);
  if (!A) {
    log().warn("memory pool allocation of {} bytes: {}", Bytes, llvm::toString(A.takeError()));
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  Ptr = *A;
  noteAllocation(C, Ptr);
  poolAllocations()[Ptr] = {P, Bytes};
  P->Used += Bytes;
  P->UsedHigh = std::max(P->UsedHigh, P->Used);
  P->ReservedHigh = std::max(P->ReservedHigh, P->Used);
  return CUDA_SUCCESS;
}

void reptx::loader::poolForget(CUdeviceptr Ptr) {
  std::lock_guard<std::mutex> L(PoolMutex);
  auto It = poolAllocations().find(Ptr);
  if (It == poolAllocations().end())
    return;
  MemPool *P = It->second.first;
  P->Used -= It->second.second;
  poolAllocations().erase(It);
  if (P->T != Tag::MemPool && P->Used == 0)
    delete P; // destroyed, and its last allocation is gone
}

// ------------------------------------------------------------------ pools of a device

static CUresult devicePool(CUmemoryPool *Out, Device *D, bool Default) {
  if (!Out)
    return CUDA_ERROR_INVALID_VALUE;
  if (!D)
    return CUDA_ERROR_INVALID_DEVICE;
  std::lock_guard<std::mutex> L(PoolMutex);
  Pools &P = pools(*D);
  *Out = handle(Default ? P.Default.get() : P.Current);
  return CUDA_SUCCESS;
}

static CUresult setDevicePool(Device *D, CUmemoryPool H) {
  if (!D)
    return CUDA_ERROR_INVALID_DEVICE;
  std::lock_guard<std::mutex> L(PoolMutex);
  MemPool *P = asPool(H);
  if (!P || P->Dev != D)
    return CUDA_ERROR_INVALID_VALUE;
  pools(*D).Current = P;
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetDefaultMemPool(CUmemoryPool *pool_out, CUdevice dev) {
  REPTX_TRACE(cuDeviceGetDefaultMemPool, pool_out, dev);
  return devicePool(pool_out, deviceOf(dev), true);
}
CUresult cuDeviceGetMemPool(CUmemoryPool *pool, CUdevice dev) {
  REPTX_TRACE(cuDeviceGetMemPool, pool, dev);
  return devicePool(pool, deviceOf(dev), false);
}
CUresult cuDeviceSetMemPool(CUdevice dev, CUmemoryPool pool) {
  REPTX_TRACE(cuDeviceSetMemPool, dev, pool);
  return setDevicePool(deviceOf(dev), pool);
}

CUresult cuMemGetDefaultMemPool(CUmemoryPool *pool_out, CUmemLocation *location,
                                CUmemAllocationType type) {
  REPTX_TRACE(cuMemGetDefaultMemPool, pool_out, location, type);
  Device *D = nullptr;
  if (CUresult R = locationDevice(location, type, D))
    return R;
  return devicePool(pool_out, D, true);
}
CUresult cuMemGetMemPool(CUmemoryPool *pool, CUmemLocation *location, CUmemAllocationType type) {
  REPTX_TRACE(cuMemGetMemPool, pool, location, type);
  Device *D = nullptr;
  if (CUresult R = locationDevice(location, type, D))
    return R;
  return devicePool(pool, D, false);
}
CUresult cuMemSetMemPool(CUmemLocation *location, CUmemAllocationType type, CUmemoryPool pool) {
  REPTX_TRACE(cuMemSetMemPool, location, type, pool);
  Device *D = nullptr;
  if (CUresult R = locationDevice(location, type, D))
    return R;
  return setDevicePool(D, pool);
}

// ------------------------------------------------------------------ pool objects

CUresult cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *poolProps) {
  REPTX_TRACE(cuMemPoolCreate, pool, poolProps);
  if (!pool || !poolProps)
    return CUDA_ERROR_INVALID_VALUE;
  Device *D = nullptr;
  if (CUresult R = locationDevice(&poolProps->location, poolProps->allocType, D))
    return R;
  if (poolProps->handleTypes != CU_MEM_HANDLE_TYPE_NONE) {
    log().warn("cuMemPoolCreate: memory pools that export handles are not supported by reptx");
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  auto *P = new MemPool;
  P->Dev = D;
  P->Props = *poolProps;
  *pool = handle(P);
  return CUDA_SUCCESS;
}

CUresult cuMemPoolDestroy(CUmemoryPool pool) {
  REPTX_TRACE(cuMemPoolDestroy, pool);
  std::lock_guard<std::mutex> L(PoolMutex);
  MemPool *P = asPool(pool);
  if (!P)
    return CUDA_ERROR_INVALID_VALUE;
  Pools &Ps = pools(*P->Dev);
  if (P == Ps.Default.get())
    return CUDA_ERROR_INVALID_VALUE; // the default pool lives as long as the device
  if (Ps.Current == P)
    Ps.Current = Ps.Default.get();
  // Its allocations stay valid until freed (CUDA defers the destruction until then), so the
  // object stays too, no longer a valid handle.
  P->T = Tag{};
  if (P->Used == 0)
    delete P;
  return CUDA_SUCCESS;
}

CUresult cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value) {
  REPTX_TRACE(cuMemPoolSetAttribute, pool, attr, value);
  std::lock_guard<std::mutex> L(PoolMutex);
  MemPool *P = asPool(pool);
  if (!P || !value)
    return CUDA_ERROR_INVALID_VALUE;
  // The value's type is the attribute's: int for the reuse policies, cuuint64_t for the rest.
  auto Int = [&] { return *static_cast<const int *>(value); };
  auto U64 = [&] { return *static_cast<const cuuint64_t *>(value); };
  switch (attr) {
  case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
    P->ReuseFollowEvents = Int();
    return CUDA_SUCCESS;
  case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
    P->ReuseOpportunistic = Int();
    return CUDA_SUCCESS;
  case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES:
    P->ReuseInternal = Int();
    return CUDA_SUCCESS;
  case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD:
    P->ReleaseThreshold = U64();
    return CUDA_SUCCESS;
  case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH: // only a reset to the current value, with 0
  case CU_MEMPOOL_ATTR_USED_MEM_HIGH:
    if (U64() != 0)
      return CUDA_ERROR_INVALID_VALUE;
    (attr == CU_MEMPOOL_ATTR_USED_MEM_HIGH ? P->UsedHigh : P->ReservedHigh) = P->Used;
    return CUDA_SUCCESS;
  default:
    return CUDA_ERROR_INVALID_VALUE;
  }
}

CUresult cuMemPoolGetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value) {
  REPTX_TRACE(cuMemPoolGetAttribute, pool, attr, value);
  std::lock_guard<std::mutex> L(PoolMutex);
  MemPool *P = asPool(pool);
  if (!P || !value)
    return CUDA_ERROR_INVALID_VALUE;
  auto *Int = static_cast<int *>(value);
  auto *U64 = static_cast<cuuint64_t *>(value);
  switch (attr) {
  case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
    *Int = P->ReuseFollowEvents;
    return CUDA_SUCCESS;
  case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
    *Int = P->ReuseOpportunistic;
    return CUDA_SUCCESS;
  case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES:
    *Int = P->ReuseInternal;
    return CUDA_SUCCESS;
  case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD:
    *U64 = P->ReleaseThreshold;
    return CUDA_SUCCESS;
  case CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT:
  case CU_MEMPOOL_ATTR_USED_MEM_CURRENT:
    *U64 = P->Used;
    return CUDA_SUCCESS;
  case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH:
    *U64 = P->ReservedHigh;
    return CUDA_SUCCESS;
  case CU_MEMPOOL_ATTR_USED_MEM_HIGH:
    *U64 = P->UsedHigh;
    return CUDA_SUCCESS;
  default:
    return CUDA_ERROR_INVALID_VALUE;
  }
}

// Access: the pool's own device always has read-write access; other locations cannot be given
// any (reptx has one device, and pools of device memory are not mapped into the host).
CUresult cuMemPoolSetAccess(CUmemoryPool pool, const CUmemAccessDesc *map, size_t count) {
  REPTX_TRACE(cuMemPoolSetAccess, pool, map, count);
  MemPool *P = asPool(pool);
  if (!P || (count && !map))
    return CUDA_ERROR_INVALID_VALUE;
  for (size_t I = 0; I < count; ++I) {
    bool Own = map[I].location.type == CU_MEM_LOCATION_TYPE_DEVICE &&
               map[I].location.id == P->Dev->Ordinal;
    if (!Own || map[I].flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
      return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}
CUresult cuMemPoolGetAccess(CUmemAccess_flags *flags, CUmemoryPool memPool,
                            CUmemLocation *location) {
  REPTX_TRACE(cuMemPoolGetAccess, flags, memPool, location);
  MemPool *P = asPool(memPool);
  if (!P || !flags || !location)
    return CUDA_ERROR_INVALID_VALUE;
  bool Own = location->type == CU_MEM_LOCATION_TYPE_DEVICE && location->id == P->Dev->Ordinal;
  *flags = Own ? CU_MEM_ACCESS_FLAGS_PROT_READWRITE : CU_MEM_ACCESS_FLAGS_PROT_NONE;
  return CUDA_SUCCESS;
}

CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t minBytesToKeep) {
  REPTX_TRACE(cuMemPoolTrimTo, pool, minBytesToKeep);
  return asPool(pool) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE; // nothing is held back
}

static CUresult allocFromPool(CUdeviceptr *Ptr, size_t Bytes, CUmemoryPool Pool, CUstream S) {
  Context *C;
  if (CUresult R = streamContext(S, C))
    return R;
  if (!Ptr || Bytes == 0 || !asPool(Pool))
    return CUDA_ERROR_INVALID_VALUE;
  if (captureOf(S))
    return captureAlloc(S, C, Bytes, *Ptr);
  return poolAllocate(Pool, C, Bytes, *Ptr);
}
CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool,
                                 CUstream hStream) {
  REPTX_TRACE(cuMemAllocFromPoolAsync, dptr, bytesize, pool, hStream);
  return allocFromPool(dptr, bytesize, pool, hStream);
}
CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool,
                                      CUstream hStream) {
  REPTX_TRACE(cuMemAllocFromPoolAsync_ptsz, dptr, bytesize, pool, hStream);
  hStream = perThreadDefault(hStream);
  return allocFromPool(dptr, bytesize, pool, hStream);
}
