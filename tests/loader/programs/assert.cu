// A failing device assert: the kernel's message is printed in CUDA's format, the next
// synchronisation reports cudaErrorAssert (710), and the process keeps running.
#include "check.h"

#include <cassert>

__global__ void check(const int *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    assert(v[i] != 13);
}

int main() {
  int h[64];
  for (int i = 0; i < 64; ++i)
    h[i] = i;
  int *d;
  CHECK(cudaMalloc(&d, sizeof(h)));
  CHECK(cudaMemcpy(d, h, sizeof(h), cudaMemcpyHostToDevice));
  check<<<2, 32>>>(d, 12); // no element is 13: passes
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  check<<<2, 32>>>(d, 64); // v[13] == 13: block 0, thread 13 fails
  cudaError_t launch = cudaGetLastError();
  cudaError_t sync = cudaDeviceSynchronize();
  if (launch != cudaSuccess || sync != cudaErrorAssert) {
    std::printf("FAIL: launch %s, sync %s (expected cudaErrorAssert)\n", cudaGetErrorName(launch),
                cudaGetErrorName(sync));
    return 1;
  }
  std::printf("PASS (%s = %d)\n", cudaGetErrorName(sync), int(sync));
  return 0;
}
