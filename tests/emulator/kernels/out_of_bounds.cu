// Emulator test kernel: writes one element past the end of its output when Extra > 0, so the
// emulator must stop the dispatch with a located out-of-bounds report. Also holds a kernel using
// an instruction the emulator deliberately leaves unimplemented (v_sad_u8).
#include "emu_shim.h"

extern "C" __global__ void out_of_bounds(unsigned *__restrict__ Out, int N, int Extra) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N + Extra)
    Out[I] = static_cast<unsigned>(I);
}

extern "C" __global__ void unsupported(unsigned *__restrict__ Out) {
  unsigned I = threadIdx.x;
  Out[I] = __builtin_amdgcn_sad_u8(I, I * 3u, 7u);
}
