// Device-side malloc for the loader: the heap of a device (CU_LIMIT_MALLOC_HEAP_SIZE) that the
// device helper library allocates from when kernels call malloc or free, or use new and delete
// (backend/device/Malloc.cpp, layout in reptx/backend/MallocHeap.h; loader/README.md, "Device
// malloc").
#pragma once

#include "Driver.h"

#include <cstddef>

namespace reptx::loader {

/// After a library's code object is loaded: when it has the `__reptx_malloc_heap` symbol (some
/// kernel calls malloc or free), allocates the device's heap on first need and writes its
/// address there. Blocks stay allocated until the process ends, as CUDA's stay until the
/// context's.
void heapAttach(Device &D, const LoadedCode &Code);
/// CU_LIMIT_MALLOC_HEAP_SIZE of the device (shared by its contexts, as its code objects are).
size_t heapSize(Device &D);
/// Sets it; CUDA_ERROR_INVALID_VALUE once the heap exists (a module that calls malloc was
/// loaded), as CUDA refuses the change after a kernel that calls malloc was launched.
CUresult setHeapSize(Device &D, size_t Bytes);

} // namespace reptx::loader
