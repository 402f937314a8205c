// Per-bin spin locks taken with atomicCAS and released with atomicExch, as code written for
// independent thread scheduling (sm_70+) does: each thread adds its value to its bin's two-word
// sum and count under the bin's lock, so lanes of one warp (and warps of one wave) contend.
extern "C" __global__ void locked_bins(const int *In, int *Locks, volatile long long *Sum,
                                       volatile int *Count, int N, int Bins) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I >= N)
    return;
  int V = In[I];
  int B = (V & 0x7fffffff) % Bins;
  while (atomicCAS(&Locks[B], 0, 1) != 0) {
  }
  __threadfence();
  Sum[B] += V;
  Count[B] += 1;
  __threadfence();
  atomicExch(&Locks[B], 0);
}
