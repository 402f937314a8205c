// Shared by the loader test programs: abort with a message when a CUDA runtime call fails.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(X)                                                                                   \
  do {                                                                                             \
    cudaError_t E_ = (X);                                                                          \
    if (E_ != cudaSuccess) {                                                                       \
      std::printf("FAIL: %s:%d: %s -> %s\n", __FILE__, __LINE__, #X, cudaGetErrorString(E_));      \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)
