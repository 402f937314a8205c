// Atomics (atom/red in global and shared memory): a histogram built in shared memory and merged
// into global memory, plus max, min, and/or/xor, exchange, compare-and-swap, inc/dec and float add.
extern "C" __global__ void atomics(const unsigned *in, unsigned *hist, int *stats, float *fsum,
                                   unsigned *counters, int n) {
  __shared__ unsigned local[16];
  unsigned t = threadIdx.x;
  if (t < 16)
    local[t] = 0;
  __syncthreads();
  int i = blockIdx.x * blockDim.x + t;
  if (i < n) {
    unsigned v = in[i];
    atomicAdd(&local[v & 15], 1u);
    atomicMax(&stats[0], (int)v);
    atomicMin(&stats[1], (int)v);
    atomicOr((unsigned *)&stats[2], v & 0xf0f0);
    atomicAnd((unsigned *)&stats[3], v | 0x0f0f0000u);
    atomicXor((unsigned *)&stats[4], v);
    atomicAdd(fsum, (float)(v & 255));
    atomicInc(&counters[0], 1000u);
    atomicDec(&counters[1], 1000000u);
    atomicCAS(&counters[2], 0u, v | 1u); // only the first succeeds
    unsigned old = atomicExch(&counters[3], v);
    (void)old;
  }
  __syncthreads();
  if (t < 16)
    atomicAdd(&hist[t], local[t]);
}
