// __constant__ and __device__ variables through cudaMemcpyToSymbol / FromSymbol and
// cudaGetSymbolAddress, including an initialized __device__ variable.
#include "check.h"

__constant__ float coeff[4];
__device__ int counter = 42;
__device__ float result[64];

__global__ void poly(int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float x = float(i);
    result[i] = coeff[0] + x * (coeff[1] + x * (coeff[2] + x * coeff[3]));
  }
  if (i == 0)
    counter += 1;
}

int main() {
  const float c[4] = {1.0f, -2.0f, 0.5f, 0.25f};
  CHECK(cudaMemcpyToSymbol(coeff, c, sizeof(c)));
  int start = 0;
  CHECK(cudaMemcpyFromSymbol(&start, counter, sizeof(int)));
  if (start != 42) {
    std::printf("FAIL: counter starts at %d, expected 42\n", start);
    return 1;
  }
  poly<<<1, 64>>>(64);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  float r[64];
  CHECK(cudaMemcpyFromSymbol(r, result, sizeof(r)));
  for (int i = 0; i < 64; ++i) {
    float x = float(i);
    float expect = c[0] + x * (c[1] + x * (c[2] + x * c[3]));
    if (r[i] != expect) {
      std::printf("FAIL: result[%d] = %f, expected %f\n", i, r[i], expect);
      return 1;
    }
  }
  int after = 0;
  CHECK(cudaMemcpyFromSymbol(&after, counter, sizeof(int)));
  void *addr = nullptr;
  CHECK(cudaGetSymbolAddress(&addr, result));
  float r5 = 0;
  CHECK(cudaMemcpy(&r5, static_cast<float *>(addr) + 5, sizeof(float), cudaMemcpyDeviceToHost));
  if (after != 43 || r5 != r[5]) {
    std::printf("FAIL: counter %d (expected 43), result[5] via address %f\n", after, r5);
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}
