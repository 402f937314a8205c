// An out-of-bounds store: the launch succeeds, the next synchronisation reports
// cudaErrorIllegalAddress, and the process keeps running.
#include "check.h"

__global__ void writeFar(int *p, long long offset) { p[offset + threadIdx.x] = 1; }

int main() {
  int *d;
  CHECK(cudaMalloc(&d, 64 * sizeof(int)));
  writeFar<<<1, 32>>>(d, 1ll << 30); // 4 GiB past the allocation
  cudaError_t launch = cudaGetLastError();
  cudaError_t sync = cudaDeviceSynchronize();
  if (launch != cudaSuccess || sync != cudaErrorIllegalAddress) {
    std::printf("FAIL: launch %s, sync %s (expected cudaErrorIllegalAddress)\n",
                cudaGetErrorName(launch), cudaGetErrorName(sync));
    return 1;
  }
  std::printf("PASS (%s)\n", cudaGetErrorName(sync));
  return 0;
}
