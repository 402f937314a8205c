// Virtual memory management (CUDA Driver API, "Virtual Memory Management"): address ranges
// reserved with cuMemAddressReserve, physical allocations made with cuMemCreate, mapped into a
// range with cuMemMap and made accessible with cuMemSetAccess; what PyTorch's expandable segments
// and vLLM's sleep mode allocate with. A physical allocation is zeroed host memory that lives as
// long as its handle or a mapping of it; a mapping becomes device memory (ExecBackend::
// mapPhysical) when cuMemSetAccess grants access to it, read-only for PROT_READ, and stops being
// accessible when access is taken away or it is unmapped. The emulator backend offers this; the
// HIP backend answers CUDA_ERROR_NOT_SUPPORTED.
#include "Driver.h"
#include "Trace.h"

#include <cstring>
#include <map>
#include <memory>
#include <mutex>

using namespace reptx::loader;

namespace {

/// The granularity of sizes, offsets and addresses (CUDA's is 2 MiB on current GPUs).
constexpr size_t Granularity = 2 << 20;

struct Physical {
  std::unique_ptr<uint8_t[]> Bytes;
  size_t Size = 0;
  CUmemAllocationProp Prop{};
  Device *Dev = nullptr;
  unsigned Refs = 1; // the handle, and each mapping of it
};

struct Mapping {
  size_t Size = 0;
  size_t Offset = 0;
  CUmemGenericAllocationHandle Handle = 0;
  CUmemAccess_flags Access = CU_MEM_ACCESS_FLAGS_PROT_NONE;
  Device *Dev = nullptr;
};

struct Reservation {
  size_t Size = 0;
};

std::mutex VmMutex;
std::map<CUmemGenericAllocationHandle, Physical> Handles;
CUmemGenericAllocationHandle NextHandle = 1;
std::map<CUdeviceptr, Mapping> Mappings;         // by start address
std::map<CUdeviceptr, Reservation> Reservations; // by start address

void dropRef(CUmemGenericAllocationHandle H) {
  auto It = Handles.find(H);
  if (It != Handles.end() && --It->second.Refs == 0)
    Handles.erase(It);
}

/// The reservation holding [Ptr, Ptr + Size), if any.
bool inReservation(CUdeviceptr Ptr, size_t Size) {
  auto It = Reservations.upper_bound(Ptr);
  if (It == Reservations.begin())
    return false;
  --It;
  return Ptr >= It->first && Ptr - It->first <= It->second.Size &&
         Size <= It->second.Size - (Ptr - It->first);
}

/// The mapping containing Ptr, or Mappings.end().
std::map<CUdeviceptr, Mapping>::iterator mappingAt(CUdeviceptr Ptr) {
  auto It = Mappings.upper_bound(Ptr);
  if (It == Mappings.begin())
    return Mappings.end();
  --It;
  return Ptr - It->first < It->second.Size ? It : Mappings.end();
}

/// The mappings that exactly cover [Ptr, Ptr + Size), in order; false if a part of the range is
/// not mapped or a mapping sticks out of it (CUDA unmaps and sets access for whole mappings).
bool wholeMappings(CUdeviceptr Ptr, size_t Size,
                   std::vector<std::map<CUdeviceptr, Mapping>::iterator> &Out) {
  CUdeviceptr At = Ptr;
  while (At < Ptr + Size) {
    auto It = Mappings.find(At);
    if (It == Mappings.end() || It->second.Size > Ptr + Size - At)
      return false;
    Out.push_back(It);
    At += It->second.Size;
  }
  return !Out.empty();
}

llvm::Error unmapFromDevice(CUdeviceptr Ptr, Mapping &M) {
  if (M.Access == CU_MEM_ACCESS_FLAGS_PROT_NONE)
    return llvm::Error::success();
  M.Access = CU_MEM_ACCESS_FLAGS_PROT_NONE;
  return M.Dev->Backend->unmapPhysical(Ptr);
}

bool validDeviceLocation(const CUmemLocation &L) {
  return L.type == CU_MEM_LOCATION_TYPE_DEVICE && Driver::get().device(L.id);
}

} // namespace

CUresult cuMemGetAllocationGranularity(size_t *Granule, const CUmemAllocationProp *Prop,
                                       CUmemAllocationGranularity_flags Option) {
  REPTX_TRACE(cuMemGetAllocationGranularity, Granule, Prop, Option);
  if (!Granule || !Prop || Prop->type != CU_MEM_ALLOCATION_TYPE_PINNED ||
      !validDeviceLocation(Prop->location) ||
      (Option != CU_MEM_ALLOC_GRANULARITY_MINIMUM &&
       Option != CU_MEM_ALLOC_GRANULARITY_RECOMMENDED))
    return CUDA_ERROR_INVALID_VALUE;
  *Granule = Granularity;
  return CUDA_SUCCESS;
}

CUresult cuMemAddressReserve(CUdeviceptr *Ptr, size_t Size, size_t Alignment, CUdeviceptr Addr,
                             unsigned long long Flags) {
  REPTX_TRACE(cuMemAddressReserve, Ptr, Size, Alignment, Addr, Flags);
  Context *C;
  if (CUresult R = currentOrError(C))
    return R;
  if (!Ptr || !Size || Size % Granularity || Flags || (Alignment & (Alignment - 1)))
    return CUDA_ERROR_INVALID_VALUE;
  // The requested address is a hint that reptx does not follow: the range goes where the device
  // has room, as CUDA allows.
  (void)Addr;
  auto Base = C->Dev->Backend->reserveAddressRange(Size, std::max(Alignment, Granularity));
  if (!Base) {
    log().error("cuMemAddressReserve({}): {}", Size, llvm::toString(Base.takeError()));
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  std::lock_guard<std::mutex> L(VmMutex);
  Reservations[*Base] = {Size};
  *Ptr = *Base;
  return CUDA_SUCCESS;
}

CUresult cuMemAddressFree(CUdeviceptr Ptr, size_t Size) {
  REPTX_TRACE(cuMemAddressFree, Ptr, Size);
  std::lock_guard<std::mutex> L(VmMutex);
  auto It = Reservations.find(Ptr);
  if (It == Reservations.end() || It->second.Size != Size)
    return CUDA_ERROR_INVALID_VALUE;
  // Everything mapped in it must be unmapped first.
  auto M = Mappings.lower_bound(Ptr);
  if (M != Mappings.end() && M->first < Ptr + Size)
    return CUDA_ERROR_INVALID_VALUE;
  Reservations.erase(It);
  return CUDA_SUCCESS;
}

CUresult cuMemCreate(CUmemGenericAllocationHandle *Handle, size_t Size,
                     const CUmemAllocationProp *Prop, unsigned long long Flags) {
  REPTX_TRACE(cuMemCreate, Handle, Size, Prop, Flags);
  if (!Handle || !Prop || !Size || Size % Granularity || Flags ||
      Prop->type != CU_MEM_ALLOCATION_TYPE_PINNED || !validDeviceLocation(Prop->location) ||
      (Prop->requestedHandleTypes != CU_MEM_HANDLE_TYPE_NONE))
    return CUDA_ERROR_INVALID_VALUE;
  Physical P;
  P.Bytes.reset(new (std::nothrow) uint8_t[Size]());
  if (!P.Bytes)
    return CUDA_ERROR_OUT_OF_MEMORY;
  P.Size = Size;
  P.Prop = *Prop;
  P.Dev = Driver::get().device(Prop->location.id);
  std::lock_guard<std::mutex> L(VmMutex);
  *Handle = NextHandle++;
  Handles.emplace(*Handle, std::move(P));
  return CUDA_SUCCESS;
}

CUresult cuMemRelease(CUmemGenericAllocationHandle Handle) {
  REPTX_TRACE(cuMemRelease, Handle);
  std::lock_guard<std::mutex> L(VmMutex);
  if (!Handles.count(Handle))
    return CUDA_ERROR_INVALID_VALUE;
  dropRef(Handle); // the memory stays while a mapping of it remains
  return CUDA_SUCCESS;
}

CUresult cuMemMap(CUdeviceptr Ptr, size_t Size, size_t Offset, CUmemGenericAllocationHandle Handle,
                  unsigned long long Flags) {
  REPTX_TRACE(cuMemMap, Ptr, Size, Offset, Handle, Flags);
  std::lock_guard<std::mutex> L(VmMutex);
  auto H = Handles.find(Handle);
  if (H == Handles.end() || !Size || Flags || Size % Granularity || Offset % Granularity ||
      Ptr % Granularity || Offset > H->second.Size || Size > H->second.Size - Offset ||
      !inReservation(Ptr, Size))
    return CUDA_ERROR_INVALID_VALUE;
  auto Next = Mappings.lower_bound(Ptr);
  if ((Next != Mappings.end() && Next->first < Ptr + Size) || mappingAt(Ptr) != Mappings.end())
    return CUDA_ERROR_INVALID_VALUE; // already mapped
  ++H->second.Refs;
  Mappings[Ptr] = {Size, Offset, Handle, CU_MEM_ACCESS_FLAGS_PROT_NONE, H->second.Dev};
  return CUDA_SUCCESS;
}

CUresult cuMemUnmap(CUdeviceptr Ptr, size_t Size) {
  REPTX_TRACE(cuMemUnmap, Ptr, Size);
  std::lock_guard<std::mutex> L(VmMutex);
  std::vector<std::map<CUdeviceptr, Mapping>::iterator> Covered;
  if (!wholeMappings(Ptr, Size, Covered))
    return CUDA_ERROR_INVALID_VALUE;
  for (auto It : Covered) {
    if (llvm::Error E = unmapFromDevice(It->first, It->second)) {
      log().error("cuMemUnmap: {}", llvm::toString(std::move(E)));
      return CUDA_ERROR_INVALID_VALUE;
    }
    CUmemGenericAllocationHandle H = It->second.Handle;
    Mappings.erase(It);
    dropRef(H);
  }
  return CUDA_SUCCESS;
}

CUresult cuMemSetAccess(CUdeviceptr Ptr, size_t Size, const CUmemAccessDesc *Desc, size_t Count) {
  REPTX_TRACE(cuMemSetAccess, Ptr, Size, Desc, Count);
  if (!Desc || !Count)
    return CUDA_ERROR_INVALID_VALUE;
  // One device: the access of the last entry for it counts.
  CUmemAccess_flags Access = CU_MEM_ACCESS_FLAGS_PROT_NONE;
  for (size_t I = 0; I < Count; ++I) {
    if (!validDeviceLocation(Desc[I].location) ||
        (Desc[I].flags != CU_MEM_ACCESS_FLAGS_PROT_NONE &&
         Desc[I].flags != CU_MEM_ACCESS_FLAGS_PROT_READ &&
         Desc[I].flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE))
      return CUDA_ERROR_INVALID_VALUE;
    Access = Desc[I].flags;
  }
  std::lock_guard<std::mutex> L(VmMutex);
  std::vector<std::map<CUdeviceptr, Mapping>::iterator> Covered;
  if (!wholeMappings(Ptr, Size, Covered))
    return CUDA_ERROR_INVALID_VALUE;
  for (auto It : Covered) {
    Mapping &M = It->second;
    if (M.Access == Access)
      continue;
    llvm::Error E = unmapFromDevice(It->first, M);
    if (!E && Access != CU_MEM_ACCESS_FLAGS_PROT_NONE) {
      Physical &P = Handles.at(M.Handle);
      E = M.Dev->Backend->mapPhysical(It->first, P.Bytes.get() + M.Offset, M.Size,
                                      Access == CU_MEM_ACCESS_FLAGS_PROT_READ);
      if (!E)
        M.Access = Access;
    }
    if (E) {
      log().error("cuMemSetAccess: {}", llvm::toString(std::move(E)));
      return CUDA_ERROR_NOT_SUPPORTED;
    }
  }
  return CUDA_SUCCESS;
}

CUresult cuMemGetAccess(unsigned long long *Flags, const CUmemLocation *Location, CUdeviceptr Ptr) {
  REPTX_TRACE(cuMemGetAccess, Flags, Location, Ptr);
  if (!Flags || !Location || !validDeviceLocation(*Location))
    return CUDA_ERROR_INVALID_VALUE;
  std::lock_guard<std::mutex> L(VmMutex);
  auto It = mappingAt(Ptr);
  if (It == Mappings.end())
    return CUDA_ERROR_INVALID_VALUE;
  *Flags = It->second.Access;
  return CUDA_SUCCESS;
}

CUresult cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp *Prop,
                                                CUmemGenericAllocationHandle Handle) {
  REPTX_TRACE(cuMemGetAllocationPropertiesFromHandle, Prop, Handle);
  std::lock_guard<std::mutex> L(VmMutex);
  auto It = Handles.find(Handle);
  if (!Prop || It == Handles.end())
    return CUDA_ERROR_INVALID_VALUE;
  *Prop = It->second.Prop;
  return CUDA_SUCCESS;
}

// The handle of the allocation mapped at Addr, retained: released with cuMemRelease.
CUresult cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *Handle, void *Addr) {
  REPTX_TRACE(cuMemRetainAllocationHandle, Handle, Addr);
  if (!Handle)
    return CUDA_ERROR_INVALID_VALUE;
  std::lock_guard<std::mutex> L(VmMutex);
  auto It = mappingAt(reinterpret_cast<CUdeviceptr>(Addr));
  if (It == Mappings.end())
    return CUDA_ERROR_INVALID_VALUE;
  ++Handles.at(It->second.Handle).Refs;
  *Handle = It->second.Handle;
  return CUDA_SUCCESS;
}
