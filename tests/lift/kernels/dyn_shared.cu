// Dynamic shared memory (extern __shared__, sized at launch): a block-wide rotation by one.
extern "C" __global__ void dyn_shared(const unsigned *in, unsigned *out) {
  extern __shared__ unsigned tile[];
  unsigned t = threadIdx.x;
  unsigned base = blockIdx.x * blockDim.x;
  tile[t] = in[base + t] * 2u;
  __syncthreads();
  out[base + t] = tile[(t + 1) % blockDim.x];
}
