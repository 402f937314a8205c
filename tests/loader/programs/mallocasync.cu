// Stream-ordered allocation: cudaMallocAsync / cudaFreeAsync on a stream, with async copies and a
// launch on the same stream, and the device's default memory pool.
#include "check.h"
#include <vector>

__global__ void square(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] * in[i];
}

int main() {
  const int n = 600;
  std::vector<float> in(n), out(n);
  for (int i = 0; i < n; ++i)
    in[i] = 0.25f * i - 40.0f;
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  for (int round = 0; round < 3; ++round) {
    float *din, *dout;
    CHECK(cudaMallocAsync(&din, n * sizeof(float), s));
    CHECK(cudaMallocAsync(&dout, n * sizeof(float), s));
    CHECK(cudaMemcpyAsync(din, in.data(), n * sizeof(float), cudaMemcpyHostToDevice, s));
    square<<<(n + 255) / 256, 256, 0, s>>>(din, dout, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyAsync(out.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost, s));
    CHECK(cudaFreeAsync(din, s));
    CHECK(cudaFreeAsync(dout, s));
    CHECK(cudaStreamSynchronize(s));
    for (int i = 0; i < n; ++i)
      if (out[i] != in[i] * in[i]) {
        std::printf("FAIL: round %d: out[%d] = %f, expected %f\n", round, i, out[i], in[i] * in[i]);
        return 1;
      }
    for (int i = 0; i < n; ++i)
      in[i] += 1.0f;
  }
  CHECK(cudaStreamDestroy(s));
  std::printf("PASS\n");
  return 0;
}
