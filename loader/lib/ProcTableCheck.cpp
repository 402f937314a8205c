// Compile-time check of the generated cuGetProcAddress table (built only when the CUDA toolkit's
// headers are present): in the toolkit's cuda.h, with every ABI variant declared, the export each
// row binds has exactly the ABI of that row's PFN typedef in cudaTypedefs.h. Together with
// loader.driver_api_matches_toolkit (reptx/loader/DriverApi.h equals cuda.h for every entry point
// libcuda.so.1 defines) this ties each implemented table row to the ABI cudart expects. This file
// alone includes the toolkit's headers; it defines nothing.
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda.h>
#include <cudaProfiler.h>
#include <cudaProfilerTypedefs.h>
#include <cudaTypedefs.h>

#include <type_traits>

#define REPTX_PROC(Name, Version, Variant, Export, Pfn)                                            \
  static_assert(std::is_same_v<decltype(&Export), Pfn>, "ABI mismatch: " #Export " vs " #Pfn);
#include "generated/ProcTable.inc"
#undef REPTX_PROC
