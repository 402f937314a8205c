// Several modules: this file and multimod_lib.cu each hold kernels (two fatbins, registered
// separately by cudart); a kernel of each runs on the same data.
#include "check.h"
#include <vector>

void launchOffset(float *v, int n, float add); // multimod_lib.cu
void launchTwice(float *v, int n);             // multimod_lib.cu

__global__ void scale(float *v, int n, float k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] *= k;
}

int main() {
  const int n = 300;
  std::vector<float> h(n);
  for (int i = 0; i < n; ++i)
    h[i] = float(i);
  float *d;
  CHECK(cudaMalloc(&d, n * sizeof(float)));
  CHECK(cudaMemcpy(d, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  scale<<<(n + 127) / 128, 128>>>(d, n, 3.0f);
  launchOffset(d, n, 5.0f);
  launchTwice(d, n);
  scale<<<(n + 127) / 128, 128>>>(d, n, 0.5f);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    float ref = (float(i) * 3.0f + 5.0f) * 2.0f * 0.5f;
    if (h[i] != ref) {
      std::printf("FAIL: v[%d] = %f, expected %f\n", i, h[i], ref);
      return 1;
    }
  }
  CHECK(cudaFree(d));
  std::printf("PASS\n");
  return 0;
}
