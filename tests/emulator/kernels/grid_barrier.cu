// Emulator test kernel: every work-group's first work-item arrives at a grid-wide counter and
// spins until all have arrived, as a cooperative launch's grid barrier does. Work-groups that
// run one after another never see the others arrive; a cooperative dispatch, with every
// work-group resident, completes and every work-item reads the full count.
#include "emu_shim.h"

extern "C" __global__ void grid_barrier(unsigned *Counter, unsigned *Out) {
  if (threadIdx.x == 0) {
    __atomic_fetch_add(Counter, 1u, __ATOMIC_RELEASE);
    while (__atomic_load_n(Counter, __ATOMIC_ACQUIRE) < gridDim.x) {
    }
  }
  __syncthreads();
  Out[blockIdx.x * blockDim.x + threadIdx.x] = __atomic_load_n(Counter, __ATOMIC_RELAXED);
}
