// Emulator test kernel: the first work-group waits for a flag that the last one sets, as code
// that relies on a GPU running both at once does (not a cooperative launch). Every work-item
// then writes its work-group's index and whether the flag was seen set.
#include "emu_shim.h"

extern "C" __global__ void wait_for_later(unsigned *Flag, unsigned *Out) {
  if (blockIdx.x == 0 && threadIdx.x == 0)
    while (__atomic_load_n(Flag, __ATOMIC_ACQUIRE) == 0) {
    }
  if (blockIdx.x == gridDim.x - 1 && threadIdx.x == 0)
    __atomic_store_n(Flag, 1u, __ATOMIC_RELEASE);
  __syncthreads();
  Out[blockIdx.x * blockDim.x + threadIdx.x] =
      blockIdx.x * 2 + __atomic_load_n(Flag, __ATOMIC_RELAXED);
}
