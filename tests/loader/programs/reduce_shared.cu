// Sum reduction in static shared memory with __syncthreads, one partial sum per block.
#include "check.h"
#include <vector>

__global__ void blockSum(const int *in, long long *out, int n) {
  __shared__ long long buf[256];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  buf[t] = i < n ? in[i] : 0;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s)
      buf[t] += buf[t + s];
    __syncthreads();
  }
  if (t == 0)
    out[blockIdx.x] = buf[0];
}

int main() {
  const int n = 5000, threads = 256, blocks = (n + threads - 1) / threads;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i)
    in[i] = (i * 7919) % 1000 - 500;
  int *din;
  long long *dout;
  CHECK(cudaMalloc(&din, n * sizeof(int)));
  CHECK(cudaMalloc(&dout, blocks * sizeof(long long)));
  CHECK(cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  blockSum<<<blocks, threads>>>(din, dout, n);
  CHECK(cudaGetLastError());
  std::vector<long long> out(blocks);
  CHECK(cudaMemcpy(out.data(), dout, blocks * sizeof(long long), cudaMemcpyDeviceToHost));
  for (int b = 0; b < blocks; ++b) {
    long long expect = 0;
    for (int i = b * threads; i < n && i < (b + 1) * threads; ++i)
      expect += in[i];
    if (out[b] != expect) {
      std::printf("FAIL: block %d sum %lld, expected %lld\n", b, out[b], expect);
      return 1;
    }
  }
  CHECK(cudaFree(din));
  CHECK(cudaFree(dout));
  std::printf("PASS\n");
  return 0;
}
