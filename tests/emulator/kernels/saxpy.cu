// Emulator test kernel: Y = A*X + Y with a by-value float argument (contracted to an FMA with
// -ffp-contract=on) and a grid-stride loop that reads gridDim from the hidden kernel arguments.
#include "emu_shim.h"

extern "C" __global__ void saxpy(float A, const float *__restrict__ X, float *__restrict__ Y,
                                 int N) {
  for (int I = blockIdx.x * blockDim.x + threadIdx.x; I < N; I += gridDim.x * blockDim.x)
    Y[I] = A * X[I] + Y[I];
}
