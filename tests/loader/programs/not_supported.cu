// Runtime calls whose driver entry points reptx does not implement (mipmapped arrays, IPC) fail
// with cudaErrorNotSupported (801, mapped by cudart from CUDA_ERROR_NOT_SUPPORTED); the program
// keeps running and its kernels still work.
#include "check.h"

__global__ void inc(int *v) { v[threadIdx.x] += threadIdx.x; }

int main() {
  cudaMipmappedArray_t array;
  cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
  cudaError_t e = cudaMallocMipmappedArray(&array, &desc, make_cudaExtent(64, 64, 0), 4);
  if (e != cudaErrorNotSupported) {
    std::printf("FAIL: cudaMallocMipmappedArray: %s (%d), expected cudaErrorNotSupported\n",
                cudaGetErrorName(e), int(e));
    return 1;
  }
  cudaGetLastError();
  int *d;
  CHECK(cudaMalloc(&d, 32 * sizeof(int)));
  cudaIpcMemHandle_t handle;
  e = cudaIpcGetMemHandle(&handle, d);
  if (e != cudaErrorNotSupported) {
    std::printf("FAIL: cudaIpcGetMemHandle: %s (%d), expected cudaErrorNotSupported\n",
                cudaGetErrorName(e), int(e));
    return 1;
  }
  cudaGetLastError();
  CHECK(cudaMemset(d, 0, 32 * sizeof(int)));
  inc<<<1, 32>>>(d);
  CHECK(cudaGetLastError());
  int h[32];
  CHECK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 32; ++i)
    if (h[i] != i) {
      std::printf("FAIL: v[%d] = %d\n", i, h[i]);
      return 1;
    }
  CHECK(cudaFree(d));
  std::printf("PASS\n");
  return 0;
}
