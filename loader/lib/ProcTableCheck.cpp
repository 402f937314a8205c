// Compile-time check of the generated cuGetProcAddress table: the export each row binds has
// exactly the ABI of that row's PFN typedef in the toolkit's cudaTypedefs.h. (Only declarations
// are checked here; a definition with another signature would not compile against cuda.h.)
#include "CudaApi.h"

#include <cudaTypedefs.h>

#include <type_traits>

#define REPTX_PROC(Name, Version, Variant, Export, Pfn)                                            \
  static_assert(std::is_same_v<decltype(&Export), Pfn>, "ABI mismatch: " #Export " vs " #Pfn);
#include "generated/ProcTable.inc"
#undef REPTX_PROC
