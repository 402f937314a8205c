// Linking the PTX of several translation units into one module: what a -rdc=true program needs
// (shared/reference/fatbin-format.md §2: cudart hands the driver a version-2 wrapper whose
// prelinked list holds each TU's relocatable PTX; nvlink's own output is SASS only). The loader
// links them when the program registers its image; `reptx prewarm` links the same units found in
// the binary's __nv_relfatbin section, so that its cache entry is the one the loader looks up.
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace reptx::ptx {

struct PtxUnit {
  std::string Name; // for messages
  std::string Text;
};

/// One PTX text holding every unit: the first unit's `.target` and `.address_size`, the highest
/// `.version`, then each unit's body in order. `.extern` declarations stay (the frontend resolves
/// them against a definition anywhere in the module, PTX ISA §11.6 "Linking Directives"). Module
/// scope symbols without linkage (`$str` format strings, static functions and variables) that
/// another unit also names are renamed `NAME$rdcN` in unit N; a `.weak` definition that an
/// earlier unit also defines is renamed in the same way, so that unit keeps its own copy
/// (identical by the one-definition rule). Errors: a unit that does not parse, units for
/// different targets or address sizes, or a `.visible` symbol defined twice.
llvm::Expected<std::string> linkPtx(llvm::ArrayRef<PtxUnit> Units);

} // namespace reptx::ptx
