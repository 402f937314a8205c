// Every export of libcuda.so.1 (generated/DriverExports.inc) as a weak definition that returns
// CUDA_ERROR_NOT_SUPPORTED: an implemented entry point (a strong definition in another file of
// this library, with the ABI reptx/loader/DriverApi.h declares) replaces it at link time. The
// stubs take no arguments and return an int in the ABI's return register, which is safe to call
// with any argument list under the x86-64 System V and AArch64 calling conventions (the caller
// owns the argument area). This file must not include CudaApi.h (its prototypes would conflict).
#include "Log.h"

#define REPTX_EXPORT(N)                                                                            \
  extern "C" __attribute__((weak, visibility("default"))) int N() {                                \
    return reptx::loader::notSupported(#N);                                                        \
  }
#include "generated/DriverExports.inc"
#undef REPTX_EXPORT
