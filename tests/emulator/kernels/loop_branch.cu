// Emulator test kernel: divergent control flow. Threads branch on threadIdx.x; one side runs a
// data-dependent loop (Collatz steps), the other a loop whose trip count depends on the lane, so
// EXEC masking, loops and re-convergence all matter. Also a signed division by a lane-dependent
// (never zero) divisor, and a 2-D index built from gridDim/blockDim.
#include "emu_shim.h"

extern "C" __global__ void loop_branch(const unsigned *__restrict__ In, unsigned *__restrict__ Out,
                                       int *__restrict__ Quot, int N) {
  unsigned I = (blockIdx.y * gridDim.x + blockIdx.x) * (blockDim.x * blockDim.y) +
               threadIdx.y * blockDim.x + threadIdx.x;
  if (I >= (unsigned)N)
    return;
  unsigned X = In[I];
  unsigned R;
  if (threadIdx.x % 3 == 0) {
    unsigned Steps = 0;
    while (X > 1 && Steps < 500) {
      X = (X & 1) ? 3 * X + 1 : X >> 1;
      ++Steps;
    }
    R = Steps;
  } else {
    R = X;
    for (unsigned K = 0; K < (threadIdx.x & 7) + threadIdx.y; ++K)
      R = (R * 2654435761u) ^ (R >> 13);
  }
  Out[I] = R;
  Quot[I] = static_cast<int>(R >> 1) / (static_cast<int>(threadIdx.x | 1) - 8);
}
