// Emulator test kernel: element-wise float addition, the simplest global-memory kernel.
#include "emu_shim.h"

extern "C" __global__ void vector_add(const float *__restrict__ A, const float *__restrict__ B,
                                      float *__restrict__ C, int N) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    C[I] = A[I] + B[I];
}
