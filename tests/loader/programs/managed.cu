// Managed memory: cudaMallocManaged, written and read by host code directly through the pointer,
// updated by kernels in between; pointer attributes report it as managed; prefetch and advice.
#include "check.h"

__global__ void update(int *v, int n, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] = v[i] * k + i;
}

int main() {
  const int n = 777;
  int *v;
  CHECK(cudaMallocManaged(&v, n * sizeof(int)));
  for (int i = 0; i < n; ++i)
    v[i] = i - 300;
  cudaPointerAttributes attr;
  CHECK(cudaPointerGetAttributes(&attr, v));
  if (attr.type != cudaMemoryTypeManaged || attr.devicePointer != v || attr.hostPointer != v) {
    std::printf("FAIL: attributes type %d device %p host %p\n", int(attr.type), attr.devicePointer,
                attr.hostPointer);
    return 1;
  }
  cudaMemLocation loc{};
  loc.type = cudaMemLocationTypeDevice;
  loc.id = 0;
  CHECK(cudaMemAdvise(v, n * sizeof(int), cudaMemAdviseSetPreferredLocation, loc));
  CHECK(cudaMemPrefetchAsync(v, n * sizeof(int), loc, 0, 0));
  update<<<(n + 127) / 128, 128>>>(v, n, 3);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  for (int i = 0; i < n; ++i)
    if (v[i] != (i - 300) * 3 + i) {
      std::printf("FAIL: after launch 1, v[%d] = %d, expected %d\n", i, v[i], (i - 300) * 3 + i);
      return 1;
    }
  for (int i = 0; i < n; ++i)
    v[i] = -v[i];
  update<<<(n + 127) / 128, 128>>>(v, n, 2);
  CHECK(cudaDeviceSynchronize());
  for (int i = 0; i < n; ++i) {
    int ref = -((i - 300) * 3 + i) * 2 + i;
    if (v[i] != ref) {
      std::printf("FAIL: after launch 2, v[%d] = %d, expected %d\n", i, v[i], ref);
      return 1;
    }
  }
  CHECK(cudaFree(v));
  std::printf("PASS\n");
  return 0;
}
