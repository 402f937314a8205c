// A warp-shuffle reduction: each warp sums its 32 values with shfl.down, lane 0 of each warp
// stores the warp's sum in shared memory, and warp 0 sums those with shfl.bfly.
extern "C" __global__ void warp_reduce(const unsigned *in, unsigned *warp_sums,
                                       unsigned *block_sums, int n) {
  __shared__ unsigned partial[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = i < n ? in[i] : 0u;
  for (int off = 16; off > 0; off >>= 1)
    v += __shfl_down_sync(0xffffffffu, v, off);
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = (blockDim.x + 31) >> 5;
  if (lane == 0) {
    warp_sums[blockIdx.x * warps + warp] = v;
    partial[warp] = v;
  }
  __syncthreads();
  if (warp == 0) {
    unsigned s = lane < warps ? partial[lane] : 0u;
    for (int off = 16; off > 0; off >>= 1)
      s += __shfl_xor_sync(0xffffffffu, s, off);
    if (lane == 0)
      block_sums[blockIdx.x] = s;
  }
}

// The same tree on floats: every step rounds, so the host reference must add in the same order.
extern "C" __global__ void warp_reduce_f32(const float *in, float *warp_sums) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = in[i];
  for (int off = 16; off > 0; off >>= 1)
    v += __shfl_down_sync(0xffffffffu, v, off);
  if ((threadIdx.x & 31) == 0)
    warp_sums[i >> 5] = v;
}
