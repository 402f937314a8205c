// Cooperative groups' tiles wider than a warp (thread_block_tile<64> and <128>), whose warps wait
// on each other at shared-memory barriers. Built twice: for sm_80 (cg_tiles) the barriers and
// exchange slots live in the shared memory NVIDIA reserves per block, reached through
// %reserved_smem_offset_1 (cooperative_groups/details/memory.h); for sm_75 (cg_tiles_sm75) in the
// block_tile_memory the kernel declares, waited on with ld.acquire.cta. Each tile sums its
// threads' values (cg::reduce), broadcasts its first thread's value (shfl) and tells whether a
// value passes a threshold (any), checked against a host computation.
#include "check.h"
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <vector>

namespace cg = cooperative_groups;

template <unsigned Size> __device__ void tileWork(const int *in, int *out) {
  __shared__ cg::block_tile_memory<256> scratch; // unused where reserved shared memory serves
  cg::thread_block block = cg::this_thread_block(scratch);
  cg::thread_block_tile<Size> tile = cg::tiled_partition<Size>(block);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = in[i];
  int sum = cg::reduce(tile, v, cg::plus<int>());
  int first = tile.shfl(v, 0);
  tile.sync();
  int big = tile.any(v > 900) ? 1 : 0;
  out[i * 3 + 0] = sum;
  out[i * 3 + 1] = first;
  out[i * 3 + 2] = big + 2 * int(tile.meta_group_rank());
}

__global__ void tiles64(const int *in, int *out) { tileWork<64>(in, out); }
__global__ void tiles128(const int *in, int *out) { tileWork<128>(in, out); }

int check(const std::vector<int> &in, const std::vector<int> &out, int tile, int block,
          const char *name) {
  int bad = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    size_t t0 = i / tile * tile;
    int sum = 0, any = 0;
    for (size_t j = t0; j < t0 + tile; ++j) {
      sum += in[j];
      any |= in[j] > 900;
    }
    int want[3] = {sum, in[t0], any + 2 * int(i % block / tile)};
    for (int k = 0; k < 3; ++k)
      if (out[i * 3 + k] != want[k] && bad++ < 5)
        std::printf("FAIL: %s thread %zu value %d: %d, expected %d\n", name, i, k, out[i * 3 + k],
                    want[k]);
  }
  return bad;
}

int main() {
  const int blocks = 4, block = 256, n = blocks * block;
  std::vector<int> in(n), out(n * 3);
  unsigned s = 99;
  for (int &v : in) {
    s = s * 1664525u + 1013904223u;
    v = int(s >> 22); // 0..1023
  }
  int *din, *dout;
  CHECK(cudaMalloc(&din, n * sizeof(int)));
  CHECK(cudaMalloc(&dout, n * 3 * sizeof(int)));
  CHECK(cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  int bad = 0;
  tiles64<<<blocks, block>>>(din, dout);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(out.data(), dout, out.size() * sizeof(int), cudaMemcpyDeviceToHost));
  bad += check(in, out, 64, block, "thread_block_tile<64>");
  tiles128<<<blocks, block>>>(din, dout);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(out.data(), dout, out.size() * sizeof(int), cudaMemcpyDeviceToHost));
  bad += check(in, out, 128, block, "thread_block_tile<128>");
  if (bad)
    return 1;
  std::printf("PASS: %d threads in tiles of 64 and 128\n", n);
  return 0;
}
