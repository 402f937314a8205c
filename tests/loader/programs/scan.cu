// Inclusive prefix sum: each block scans its 256 elements with warp shuffles (__shfl_up_sync)
// and a shared array of warp totals; a second kernel adds the preceding blocks' totals.
#include "check.h"
#include <vector>

constexpr int Block = 256;

__device__ int warpScan(int v) {
  int lane = threadIdx.x % 32;
  for (int d = 1; d < 32; d *= 2) {
    int o = __shfl_up_sync(0xffffffffu, v, d);
    if (lane >= d)
      v += o;
  }
  return v;
}

__global__ void blockScan(const int *in, int *out, int *blockSums, int n) {
  __shared__ int warpTotals[Block / 32];
  int i = blockIdx.x * Block + threadIdx.x;
  int v = i < n ? in[i] : 0;
  v = warpScan(v);
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 31)
    warpTotals[warp] = v;
  __syncthreads();
  if (warp == 0) {
    int t = lane < Block / 32 ? warpTotals[lane] : 0;
    t = warpScan(t);
    if (lane < Block / 32)
      warpTotals[lane] = t;
  }
  __syncthreads();
  if (warp > 0)
    v += warpTotals[warp - 1];
  if (i < n)
    out[i] = v;
  if (threadIdx.x == Block - 1)
    blockSums[blockIdx.x] = v;
}

__global__ void addOffsets(int *out, const int *blockSums, int n) {
  int i = blockIdx.x * Block + threadIdx.x;
  int offset = 0;
  for (int b = 0; b < blockIdx.x; ++b)
    offset += blockSums[b];
  if (i < n)
    out[i] += offset;
}

int main() {
  const int n = 1000, blocks = (n + Block - 1) / Block;
  std::vector<int> in(n), out(n);
  unsigned s = 12345;
  for (int i = 0; i < n; ++i) {
    s = s * 1103515245u + 12345u;
    in[i] = int((s >> 16) % 201) - 100;
  }
  int *din, *dout, *dsums;
  CHECK(cudaMalloc(&din, n * sizeof(int)));
  CHECK(cudaMalloc(&dout, n * sizeof(int)));
  CHECK(cudaMalloc(&dsums, blocks * sizeof(int)));
  CHECK(cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  blockScan<<<blocks, Block>>>(din, dout, dsums, n);
  CHECK(cudaGetLastError());
  addOffsets<<<blocks, Block>>>(dout, dsums, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost));
  int ref = 0;
  for (int i = 0; i < n; ++i) {
    ref += in[i];
    if (out[i] != ref) {
      std::printf("FAIL: out[%d] = %d, expected %d\n", i, out[i], ref);
      return 1;
    }
  }
  CHECK(cudaFree(din));
  CHECK(cudaFree(dout));
  CHECK(cudaFree(dsums));
  std::printf("PASS\n");
  return 0;
}
