// Dynamic shared memory: each block reverses its slice through extern __shared__ storage sized
// at launch.
#include "check.h"
#include <vector>

__global__ void reverseBlocks(const int *in, int *out) {
  extern __shared__ int tile[];
  int t = threadIdx.x, base = blockIdx.x * blockDim.x;
  tile[t] = in[base + t];
  __syncthreads();
  out[base + t] = tile[blockDim.x - 1 - t];
}

int main() {
  const int block = 128, blocks = 6, n = block * blocks;
  std::vector<int> in(n), out(n);
  for (int i = 0; i < n; ++i)
    in[i] = i * 3 + 1;
  int *din, *dout;
  CHECK(cudaMalloc(&din, n * sizeof(int)));
  CHECK(cudaMalloc(&dout, n * sizeof(int)));
  CHECK(cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  reverseBlocks<<<blocks, block, block * sizeof(int)>>>(din, dout);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int b = 0; b < blocks; ++b)
    for (int t = 0; t < block; ++t)
      if (out[b * block + t] != in[b * block + block - 1 - t]) {
        std::printf("FAIL: out[%d] = %d\n", b * block + t, out[b * block + t]);
        return 1;
      }
  std::printf("PASS\n");
  return 0;
}
