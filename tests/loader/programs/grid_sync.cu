// Cooperative groups' grid-wide barrier: a cooperative launch (cudaLaunchCooperativeKernel) of as
// many blocks as the device holds at once (cudaOccupancyMaxActiveBlocksPerMultiprocessor times
// the multiprocessors, capped), whose threads read, after each grid.sync(), values that threads of
// other blocks wrote before it: a ring rotation repeated for several rounds, checked against a
// host computation. grid.is_valid() is true in a cooperative launch and false in an ordinary one.
#include "check.h"
#include <cooperative_groups.h>
#include <vector>

namespace cg = cooperative_groups;

constexpr int Rounds = 5;

__global__ void rotate(int *a, int *b, int n, int *valid) {
  cg::grid_group grid = cg::this_grid();
  int i = int(grid.thread_rank());
  if (i == 0)
    *valid = grid.is_valid();
  for (int r = 0; r < Rounds; ++r) {
    // Each round moves every value one block further round the ring and adds the round.
    int from = (i + blockDim.x) % n;
    b[i] = a[from] + r;
    grid.sync();
    a[i] = b[i];
    grid.sync();
  }
}

__global__ void validity(int *valid) {
  if (blockIdx.x == 0 && threadIdx.x == 0)
    *valid = cg::this_grid().is_valid();
}

int main() {
  const int block = 128;
  int perUnit = 0, units = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perUnit, rotate, block, 0));
  CHECK(cudaDeviceGetAttribute(&units, cudaDevAttrMultiProcessorCount, 0));
  int blocks = perUnit * units < 12 ? perUnit * units : 12;
  int n = blocks * block;
  std::vector<int> a(n), out(n);
  for (int i = 0; i < n; ++i)
    a[i] = i * 7 + 3;
  int *da, *db, *dvalid;
  CHECK(cudaMalloc(&da, n * sizeof(int)));
  CHECK(cudaMalloc(&db, n * sizeof(int)));
  CHECK(cudaMalloc(&dvalid, sizeof(int)));
  CHECK(cudaMemcpy(da, a.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dvalid, 0xff, sizeof(int)));
  void *args[] = {&da, &db, &n, &dvalid};
  CHECK(cudaLaunchCooperativeKernel((void *)rotate, blocks, block, args, 0, nullptr));
  CHECK(cudaDeviceSynchronize());
  int valid = -1;
  CHECK(cudaMemcpy(out.data(), da, n * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&valid, dvalid, sizeof(int), cudaMemcpyDeviceToHost));
  std::vector<int> ref = a, next(n);
  for (int r = 0; r < Rounds; ++r) {
    for (int i = 0; i < n; ++i)
      next[i] = ref[(i + block) % n] + r;
    ref = next;
  }
  int bad = 0;
  for (int i = 0; i < n; ++i)
    if (out[i] != ref[i] && bad++ < 5)
      std::printf("FAIL: element %d: %d, expected %d\n", i, out[i], ref[i]);
  if (valid != 1) {
    std::printf("FAIL: grid.is_valid() in a cooperative launch: %d\n", valid);
    ++bad;
  }
  // An ordinary launch has no grid workspace.
  validity<<<2, 32>>>(dvalid);
  CHECK(cudaDeviceSynchronize());
  CHECK(cudaMemcpy(&valid, dvalid, sizeof(int), cudaMemcpyDeviceToHost));
  if (valid != 0) {
    std::printf("FAIL: grid.is_valid() in an ordinary launch: %d\n", valid);
    ++bad;
  }
  // More blocks than fit at once: the launch is refused.
  void *args2[] = {&da, &db, &n, &dvalid};
  cudaError_t tooLarge =
      cudaLaunchCooperativeKernel((void *)rotate, perUnit * units + 1, block, args2, 0, nullptr);
  if (tooLarge != cudaErrorCooperativeLaunchTooLarge) {
    std::printf("FAIL: a cooperative launch of %d blocks: %s\n", perUnit * units + 1,
                cudaGetErrorString(tooLarge));
    ++bad;
  }
  if (bad)
    return 1;
  std::printf("PASS: %d blocks of %d threads, %d grid syncs\n", blocks, block, 2 * Rounds);
  return 0;
}
