// Emulator test kernel: per-block float sum through __shared__ memory and __syncthreads, finished
// with a 32-lane shuffle (ds_bpermute), plus one ballot mask per wave (v_cmp into an SGPR pair).
// Blocks of exactly 256 threads; elements past N count as zero.
#include "emu_shim.h"

extern "C" __global__ void __launch_bounds__(256)
    block_reduce(const float *__restrict__ In, float *__restrict__ Sums,
                 unsigned long long *__restrict__ Ballots, int N) {
  __shared__ float Partial[256];
  unsigned Tid = threadIdx.x;
  unsigned I = blockIdx.x * 256 + Tid;
  float V = I < (unsigned)N ? In[I] : 0.0f;
  unsigned long long Mask = ballot(V > 0.0f);
  if (laneId() == 0)
    Ballots[(blockIdx.x * 256 + Tid) / warpSize] = Mask;
  Partial[Tid] = V;
  __syncthreads();
  for (unsigned Stride = 128; Stride >= 32; Stride >>= 1) {
    if (Tid < Stride)
      Partial[Tid] += Partial[Tid + Stride];
    __syncthreads();
  }
  if (Tid < 32) {
    float X = Partial[Tid];
    for (unsigned D = 16; D > 0; D >>= 1)
      X += __builtin_bit_cast(float, shflDown32(__builtin_bit_cast(unsigned, X), D));
    if (Tid == 0)
      Sums[blockIdx.x] = X;
  }
}
