// Device-side malloc: the device's heap (DeviceHeap.h). Kernels allocate from it through the
// device helper library (backend/device/Malloc.cpp); the loader only creates it, with an empty
// header, and points each code object that calls malloc or free at it.
#include "DeviceHeap.h"
#include "reptx/backend/MallocHeap.h"

#include <mutex>
#include <vector>

namespace reptx::loader {

namespace {

namespace mh = reptx::malloc_heap;

/// The heap of a device.
struct Heap {
  std::mutex M;
  size_t Size = mh::DefaultHeapBytes; // CU_LIMIT_MALLOC_HEAP_SIZE: the arena's bytes
  uint64_t Address = 0;               // 0 until a module with malloc is loaded
};

Heap &heap(Device &D) { return perDevice<Heap>(D); }

/// Allocates the heap (H.M held) and writes its empty header: the arena's size, nothing handed
/// out, every free list empty.
bool allocateHeap(Device &D, Heap &H) {
  auto A = D.Backend->allocate(mh::HeaderBytes + H.Size);
  if (!A) {
    log().error("device malloc heap of {} bytes: {}", H.Size, llvm::toString(A.takeError()));
    return false;
  }
  std::vector<uint64_t> Header(mh::HeaderBytes / 8, 0);
  Header[0] = H.Size;
  if (llvm::Error E = D.Backend->copyToDevice(*A, Header.data(), mh::HeaderBytes)) {
    log().error("device malloc heap: {}", llvm::toString(std::move(E)));
    llvm::consumeError(D.Backend->release(*A));
    return false;
  }
  H.Address = *A;
  return true;
}

} // namespace

void heapAttach(Device &D, const LoadedCode &Code) {
  uint64_t Symbol = 0, Size = 0;
  if (!Code.symbol(mh::HeapSymbol, Symbol, Size))
    return;
  Heap &H = heap(D);
  std::lock_guard<std::mutex> L(H.M);
  if (!H.Address && !allocateHeap(D, H))
    return; // malloc returns NULL on the device
  if (llvm::Error E = D.Backend->copyToDevice(Symbol, &H.Address, sizeof(H.Address)))
    log().error("device malloc: writing {}: {}", mh::HeapSymbol, llvm::toString(std::move(E)));
  log().debug("device malloc heap at {:#x} ({} bytes)", H.Address, H.Size);
}

size_t heapSize(Device &D) {
  Heap &H = heap(D);
  std::lock_guard<std::mutex> L(H.M);
  return H.Size;
}

CUresult setHeapSize(Device &D, size_t Bytes) {
  Heap &H = heap(D);
  std::lock_guard<std::mutex> L(H.M);
  if (H.Address)
    return Bytes == H.Size ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
  H.Size = Bytes;
  return CUDA_SUCCESS;
}

} // namespace reptx::loader
