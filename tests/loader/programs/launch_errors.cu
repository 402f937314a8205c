// Launch errors: a block of 2048 threads and a grid y of 70000 are cudaErrorInvalidConfiguration;
// more dynamic shared memory than a block may have is cudaErrorInvalidValue. None is sticky: a
// valid launch afterwards works.
#include "check.h"

__global__ void fill(int *out, int v) {
  extern __shared__ int dyn[];
  (void)dyn;
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

int expect(cudaError_t got, cudaError_t want, const char *what) {
  if (got != want) {
    std::printf("FAIL: %s: %s (%d), expected %s (%d)\n", what, cudaGetErrorName(got), int(got),
                cudaGetErrorName(want), int(want));
    return 1;
  }
  return 0;
}

int main() {
  int *d;
  CHECK(cudaMalloc(&d, 64 * sizeof(int)));
  int bad = 0;
  fill<<<1, 2048>>>(d, 1);
  bad |= expect(cudaGetLastError(), cudaErrorInvalidConfiguration, "2048 threads per block");
  fill<<<dim3(1, 70000), 32>>>(d, 1);
  bad |= expect(cudaGetLastError(), cudaErrorInvalidConfiguration, "grid y of 70000");
  fill<<<1, dim3(32, 1, 128)>>>(d, 1);
  bad |= expect(cudaGetLastError(), cudaErrorInvalidConfiguration, "block z of 128");
  fill<<<1, 32, 1 << 20>>>(d, 1);
  bad |= expect(cudaGetLastError(), cudaErrorInvalidValue, "1 MiB of dynamic shared memory");
  bad |= expect(cudaGetLastError(), cudaSuccess, "the error is cleared once read");
  fill<<<2, 32, 1024>>>(d, 42);
  bad |= expect(cudaGetLastError(), cudaSuccess, "a valid launch");
  bad |= expect(cudaDeviceSynchronize(), cudaSuccess, "synchronize");
  int h[64];
  CHECK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 64; ++i)
    if (h[i] != 42) {
      std::printf("FAIL: out[%d] = %d\n", i, h[i]);
      return 1;
    }
  CHECK(cudaFree(d));
  if (bad)
    return 1;
  std::printf("PASS\n");
  return 0;
}
