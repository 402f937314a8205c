// Inclusive scan of each block in shared memory, double-buffered (Hillis-Steele), with a partial
// last block: after the loop, nvcc's PTX shifts the buffer index (Cur << 12) in the loop's exit,
// which the backend moves below the merge (shiftAfterMerge). A block of one thread skips the
// loop.
extern "C" __global__ void block_scan(const int *__restrict__ In, int *__restrict__ Out, int N) {
  __shared__ int Buf[2][1024];
  unsigned T = threadIdx.x;
  int I = blockIdx.x * blockDim.x + T;
  int Cur = 0;
  Buf[0][T] = I < N ? In[I] : 0;
  __syncthreads();
  for (unsigned Off = 1; Off < blockDim.x; Off <<= 1) {
    int X = Buf[Cur][T];
    if (T >= Off)
      X += Buf[Cur][T - Off];
    Cur ^= 1;
    Buf[Cur][T] = X;
    __syncthreads();
  }
  if (I < N)
    Out[I] = Buf[Cur][T];
}
