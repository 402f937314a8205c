// Separate compilation (-rdc=true): the kernel here calls __device__ functions and reads a
// __device__ variable defined in rdc_lib.cu; nvlink joins them. Both units have a static
// function `scale` of their own.
#include "check.h"
#include <vector>

extern __device__ float polynomial(float x); // rdc_lib.cu
extern __device__ int clampIndex(int i, int n);
extern __device__ float bias;
extern __device__ float libScale(float x); // rdc_lib.cu: uses its own static `scale`

// Internal to this unit; rdc_lib.cu has a different function of the same name.
static __device__ __noinline__ float scale(float x) { return 10.0f * x; }

__global__ void apply(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = polynomial(in[clampIndex(i + 1, n)]) + bias + scale(1.0f) + libScale(1.0f);
}

int main() {
  const int n = 200;
  std::vector<float> in(n), out(n);
  for (int i = 0; i < n; ++i)
    in[i] = float(i % 17) - 8.0f;
  float b = 0.5f;
  CHECK(cudaMemcpyToSymbol(bias, &b, sizeof(float)));
  float *din, *dout;
  CHECK(cudaMalloc(&din, n * sizeof(float)));
  CHECK(cudaMalloc(&dout, n * sizeof(float)));
  CHECK(cudaMemcpy(din, in.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  apply<<<(n + 63) / 64, 64>>>(din, dout, n);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(out.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    float x = in[i + 1 < n ? i + 1 : n - 1];
    float ref = (2.0f * x - 3.0f) * x + 1.0f + 0.5f + 10.0f + 100.0f;
    if (out[i] != ref) {
      std::printf("FAIL: out[%d] = %f, expected %f\n", i, out[i], ref);
      return 1;
    }
  }
  CHECK(cudaFree(din));
  CHECK(cudaFree(dout));
  std::printf("PASS\n");
  return 0;
}
