// Block-local reversal through shared memory with a barrier (bar.sync, ld/st.shared).
extern "C" __global__ void __launch_bounds__(128) shared_rev(const unsigned *in, unsigned *out) {
  __shared__ unsigned tile[128];
  unsigned t = threadIdx.x;
  unsigned base = blockIdx.x * blockDim.x;
  tile[t] = in[base + t];
  __syncthreads();
  out[base + t] = tile[blockDim.x - 1 - t];
}
