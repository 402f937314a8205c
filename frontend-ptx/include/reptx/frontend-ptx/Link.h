// Linking the PTX of several translation units into one module: what a -rdc=true program needs
// (shared/reference/fatbin-format.md §2: cudart hands the driver a version-2 wrapper whose
// prelinked list holds each TU's relocatable PTX; nvlink's own output is SASS only). The loader
// links them when the program registers its image; `reptx prewarm` and `reptx compile` link the
// same units found in the binary's __nv_relfatbin section (rdcImages), so that a cache entry is
// the one the loader looks up.
#pragma once

#include "reptx/frontend-ptx/Ast.h"
#include "reptx/frontend-ptx/Fatbin.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace reptx::ptx {

struct PtxUnit {
  std::string Name; // for messages
  std::string Text;
};

/// A module-scope name that a unit declares or defines: what a linker resolves.
struct UnitSymbol {
  std::string Name;
  uint8_t Linkage = 0;                 // LinkVisible | LinkExtern | ...
  bool Definition = false;             // a function with a body, a variable that is not .extern
  bool IsFunction = false;             // else a variable
  StateSpace Space = StateSpace::None; // a variable's
  std::string Base; // declared by `Base<N>` (PTX ISA 5.4.7) as Base0..BaseN-1: Base; else empty
};

/// M's functions and variables in declaration order, a `v<4>` declaration giving v0..v3.
std::vector<UnitSymbol> unitSymbols(const Module &M);

/// One PTX text holding every unit: the newest unit's `.target`, the first unit's
/// `.address_size`, the highest `.version`, then each unit's body in order, after a comment line
/// that names the unit's own target (linkedUnits). `.extern` declarations stay (the frontend
/// resolves them against a definition anywhere in the module, PTX ISA §11.6 "Linking
/// Directives"). Module
/// scope symbols without linkage (`$str` format strings, static functions and variables) that
/// another unit also names are renamed `NAME$rdcN` in unit N; a `.weak` definition that an
/// earlier unit also defines is renamed in the same way, so that unit keeps its own copy
/// (identical by the one-definition rule). Units for different targets link under the newest
/// one's `.target`. Errors: a unit that does not parse, units with different address sizes, or a
/// `.visible` symbol defined twice.
llvm::Expected<std::string> linkPtx(llvm::ArrayRef<PtxUnit> Units);

/// Where a unit of a linkPtx output starts, and the compute capability its own `.target` named
/// (sm_XX; 0 for none): the kernels of a unit were written for that target whatever the linked
/// text's `.target` (cuFuncGetAttribute's CU_FUNC_ATTRIBUTE_PTX_VERSION, by which CUB picks the
/// tuning its kernels were built with).
struct LinkedUnit {
  size_t Offset = 0; // of the comment line before the unit's text
  unsigned Arch = 0;
};
/// M's text without the definitions of the kernels Keep rejects: each is cut down to its newlines,
/// so every line of the rest keeps its number (and its columns, but on the line where a cut kernel
/// ends). What some kernels of a large module are compiled from (lazy loading): the text the
/// compile parses is a fraction of the module's. A kernel whose body's end is not found (braces
/// that do not match) stays.
std::string withoutKernels(const Module &M, llvm::function_ref<bool(llvm::StringRef)> Keep);

/// The units of a linkPtx output, in order; empty for a text that is not one.
std::vector<LinkedUnit> linkedUnits(llvm::StringRef Text);
/// The compute capability of the unit of a linkPtx output that holds the text at Offset (a
/// function's ptx::Loc), from linkedUnits(Text); 0 outside every unit.
unsigned linkedUnitArch(llvm::ArrayRef<LinkedUnit> Units, size_t Offset);

/// An -rdc image of a CUDA binary as a device of some compute capability gets it: the PTX entry
/// of each translation unit, in the order the units register.
struct RdcImage {
  uint32_t Arch = 0; // the lowest compute capability that links it (names it: "rdc.sm_XX")
  std::vector<const fatbin::Entry *> Units;
};

/// Whether F's relocatable units (Container::relocatableUnit) run only linked into one image:
/// true for executables and shared libraries, whose every -rdc unit is in the image's prelinked
/// list; relocatable objects and archives are not linked yet.
bool linksRdcUnits(const fatbin::FatbinFile &F);

/// F's -rdc image for each distinct choice of entries that a device of some compute capability
/// makes (fatbin::bestPtxEntry for every unit; none where a unit has nothing it can use), over
/// every capability where a choice can change. Units in section order, which is their link order
/// and so the order in which their registrations fill the prelinked list at start-up. Empty when
/// F has no relocatable units or does not link them. All of F's units make one image: nvcc's one
/// device link per executable or library (a file built from several separately device-linked
/// parts, with several version-2 wrappers, would need the registration code read to split them;
/// not handled).
std::vector<RdcImage> rdcImages(const fatbin::FatbinFile &F);

/// The linked text of an image (linkPtx over its entries' PTX; entries named as F describes them).
llvm::Expected<std::string> linkImage(const fatbin::FatbinFile &F, const RdcImage &I);

} // namespace reptx::ptx
