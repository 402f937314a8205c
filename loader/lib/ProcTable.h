// cuGetProcAddress resolution: (name, requested CUDA version, flags) to the entry point with that
// ABI, from the table generated out of cudaTypedefs.h (generated/ProcTable.inc).
#pragma once

#include <cstddef>
#include <cstdint>

namespace reptx::loader {

enum class ProcStatus { Found, SymbolNotFound, VersionNotSufficient };

/// The implementation (or the CUDA_ERROR_NOT_SUPPORTED stub) of the ABI that cudaTypedefs.h
/// gives for Name at CudaVersion: the highest PFN_<Name>_v<N> with N <= CudaVersion; with
/// PerThreadDefaultStream, the highest _ptds/_ptsz variant when there is one.
void *resolveProc(const char *Name, int CudaVersion, bool PerThreadDefaultStream,
                  ProcStatus &Status);

/// Number of rows of the table and of ELF exports (for tests).
size_t procTableSize();
size_t exportCount();
/// The address of an export by its ELF name, or null.
void *exportAddress(const char *Name);

} // namespace reptx::loader
