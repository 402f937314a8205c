// The generated entry-point tables, bound to this library's definitions. This file must not
// include CudaApi.h: it names every export as an untyped function (ProcTableCheck.cpp checks the
// table's ABIs against cudaTypedefs.h when the toolkit is present).
#include "ProcTable.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <string_view>

#define REPTX_EXPORT(N) extern "C" __attribute__((visibility("default"))) void N();
#include "generated/DriverExports.inc"
#undef REPTX_EXPORT

namespace reptx::loader {
namespace {

struct ProcRow {
  const char *Name;
  int Version;
  int Variant; // 0 plain, 1 _ptds, 2 _ptsz
  void (*Fn)();
};

const ProcRow Rows[] = {
#define REPTX_PROC(Name, Version, Variant, Export, Pfn) {Name, Version, Variant, &Export},
#include "generated/ProcTable.inc"
#undef REPTX_PROC
};

struct ExportRow {
  const char *Name;
  void (*Fn)();
};

const ExportRow Exports[] = {
#define REPTX_EXPORT(N) {#N, &N},
#include "generated/DriverExports.inc"
#undef REPTX_EXPORT
};

} // namespace

void *resolveProc(const char *Name, int CudaVersion, bool PerThreadDefaultStream,
                  ProcStatus &Status) {
  Status = ProcStatus::SymbolNotFound;
  if (!Name)
    return nullptr;
  std::string_view N(Name);
  // Rows are sorted by name, then version: binary search for the first row of the name.
  const ProcRow *B = std::begin(Rows), *E = std::end(Rows);
  const ProcRow *It = std::lower_bound(B, E, N, [](const ProcRow &R, std::string_view Key) {
    return std::string_view(R.Name) < Key;
  });
  const ProcRow *Plain = nullptr, *Ptds = nullptr;
  for (; It != E && N == It->Name; ++It) {
    Status = ProcStatus::VersionNotSufficient;
    if (It->Version > CudaVersion)
      continue;
    if (It->Variant == 0) {
      if (!Plain || It->Version >= Plain->Version)
        Plain = It;
    } else if (!Ptds || It->Version >= Ptds->Version) {
      Ptds = It;
    }
  }
  const ProcRow *Pick = PerThreadDefaultStream && Ptds ? Ptds : Plain;
  if (!Pick)
    return nullptr;
  Status = ProcStatus::Found;
  return reinterpret_cast<void *>(Pick->Fn);
}

size_t procTableSize() { return std::size(Rows); }
size_t exportCount() { return std::size(Exports); }

void *exportAddress(const char *Name) {
  for (const ExportRow &R : Exports)
    if (!std::strcmp(R.Name, Name))
      return reinterpret_cast<void *>(R.Fn);
  return nullptr;
}

} // namespace reptx::loader
