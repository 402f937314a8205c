// 64-bin histogram: per-block counts with shared-memory atomicAdd, merged into the global
// histogram with global atomicAdd; plus atomicMax and atomicCAS-based counting.
#include "check.h"
#include <vector>

constexpr int Bins = 64;

__global__ void histogram(const unsigned char *data, int n, unsigned *hist, int *maxValue,
                          unsigned *evens) {
  __shared__ unsigned local[Bins];
  for (int b = threadIdx.x; b < Bins; b += blockDim.x)
    local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    atomicAdd(&local[data[i] % Bins], 1u);
    atomicMax(maxValue, int(data[i]));
    if (data[i] % 2 == 0) {
      unsigned old = *evens, seen;
      do {
        seen = old;
        old = atomicCAS(evens, seen, seen + 1);
      } while (old != seen);
    }
  }
  __syncthreads();
  for (int b = threadIdx.x; b < Bins; b += blockDim.x)
    atomicAdd(&hist[b], local[b]);
}

int main() {
  const int n = 5000;
  std::vector<unsigned char> data(n);
  unsigned s = 7;
  for (int i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    data[i] = (unsigned char)(s >> 24);
  }
  unsigned char *dd;
  unsigned *dh, *de;
  int *dm;
  CHECK(cudaMalloc(&dd, n));
  CHECK(cudaMalloc(&dh, Bins * sizeof(unsigned)));
  CHECK(cudaMalloc(&dm, sizeof(int)));
  CHECK(cudaMalloc(&de, sizeof(unsigned)));
  CHECK(cudaMemcpy(dd, data.data(), n, cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dh, 0, Bins * sizeof(unsigned)));
  CHECK(cudaMemset(dm, 0, sizeof(int)));
  CHECK(cudaMemset(de, 0, sizeof(unsigned)));
  histogram<<<8, 128>>>(dd, n, dh, dm, de);
  CHECK(cudaGetLastError());
  std::vector<unsigned> hist(Bins), ref(Bins, 0);
  int maxValue = 0, refMax = 0;
  unsigned evens = 0, refEvens = 0;
  CHECK(cudaMemcpy(hist.data(), dh, Bins * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&maxValue, dm, sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&evens, de, sizeof(unsigned), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    ++ref[data[i] % Bins];
    refMax = data[i] > refMax ? data[i] : refMax;
    refEvens += data[i] % 2 == 0;
  }
  for (int b = 0; b < Bins; ++b)
    if (hist[b] != ref[b]) {
      std::printf("FAIL: bin %d = %u, expected %u\n", b, hist[b], ref[b]);
      return 1;
    }
  if (maxValue != refMax || evens != refEvens) {
    std::printf("FAIL: max %d (expected %d), evens %u (expected %u)\n", maxValue, refMax, evens,
                refEvens);
    return 1;
  }
  CHECK(cudaFree(dd));
  CHECK(cudaFree(dh));
  CHECK(cudaFree(dm));
  CHECK(cudaFree(de));
  std::printf("PASS\n");
  return 0;
}
