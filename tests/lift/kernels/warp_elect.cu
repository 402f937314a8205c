// elect.sync (sm_90) in a divergent region, and bar.warp.sync ordering shared-memory exchange
// within a warp.
extern "C" __global__ void warp_elect(unsigned *out, unsigned *leaders, int n) {
  __shared__ unsigned buf[1024];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  unsigned lane = threadIdx.x & 31;
  buf[threadIdx.x] = i * 7u;
  __syncwarp(__activemask());
  out[i * 3] = buf[threadIdx.x ^ 1];
  if (lane >= 5 && lane % 4 != 0) {
    unsigned leader, is;
    asm volatile("{ .reg .pred p; elect.sync %0|p, %2; selp.u32 %1, 1, 0, p; }"
                 : "=r"(leader), "=r"(is)
                 : "r"(__activemask()));
    out[i * 3 + 1] = leader;
    out[i * 3 + 2] = is;
    if (is)
      atomicAdd(&leaders[i >> 5], 1u);
  }
}
