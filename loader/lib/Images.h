// The PTX inside the images the driver API accepts (cuda-driver-interface.md §5.2), shared by
// module loading (ApiModule.cpp) and JIT linking (ApiLink.cpp).
#pragma once

#include "CudaApi.h"

#include <string>

namespace reptx::loader {

/// The PTX text of an image: a `__fatBinC_Wrapper_t` (version 1, or version 2 for -rdc, whose
/// prelinked units are linked), a fatbin container (the PTX entry with the highest sm_XX not above
/// CcMajor.CcMinor), or NUL-terminated PTX text. Name is for messages; PtxasOptions those of the
/// fatbin entry. A cubin (ELF) or a fatbin without suitable PTX is an error, logged.
CUresult imagePtx(const void *Image, int CcMajor, int CcMinor, std::string &Ptx, std::string &Name,
                  std::string &PtxasOptions);

} // namespace reptx::loader
