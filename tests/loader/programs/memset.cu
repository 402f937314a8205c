// cudaMemset (bytes), cudaMemsetAsync and device-to-device copies, checked by a kernel and on
// the host.
#include "check.h"
#include <vector>

__global__ void countBytes(const unsigned char *p, int n, unsigned char v, int *matches) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && p[i] == v)
    atomicAdd(matches, 1);
}

int main() {
  const int n = 1000;
  unsigned char *a, *b;
  int *matches;
  CHECK(cudaMalloc(&a, n));
  CHECK(cudaMalloc(&b, n));
  CHECK(cudaMalloc(&matches, sizeof(int)));
  CHECK(cudaMemset(a, 0xab, n));
  CHECK(cudaMemsetAsync(a + 100, 0x11, 50, 0));
  CHECK(cudaMemcpy(b, a, n, cudaMemcpyDeviceToDevice));
  CHECK(cudaMemset(matches, 0, sizeof(int)));
  countBytes<<<4, 256>>>(b, n, 0xab, matches);
  CHECK(cudaGetLastError());
  int m = 0;
  CHECK(cudaMemcpy(&m, matches, sizeof(int), cudaMemcpyDeviceToHost));
  std::vector<unsigned char> h(n);
  CHECK(cudaMemcpy(h.data(), b, n, cudaMemcpyDefault));
  for (int i = 0; i < n; ++i) {
    unsigned char expect = (i >= 100 && i < 150) ? 0x11 : 0xab;
    if (h[i] != expect) {
      std::printf("FAIL: byte %d = %#x\n", i, h[i]);
      return 1;
    }
  }
  if (m != n - 50) {
    std::printf("FAIL: %d bytes matched on the device, expected %d\n", m, n - 50);
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}
