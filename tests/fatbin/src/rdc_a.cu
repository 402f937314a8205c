// Fixture source for separate compilation (-rdc=true): the kernel here calls a __device__
// function and updates a __device__ variable that are both defined in rdc_b.cu, so its PTX has
// .extern .func and .extern .global declarations that only the device link resolves.
#include <cstdio>

extern __device__ unsigned gBlendCalls;
extern __device__ float blendWeights(float First, float Second, float Weight);

__global__ void blendArrays(const float *First, const float *Second, float *Out, float Weight,
                            int Count) {
  int Index = blockIdx.x * blockDim.x + threadIdx.x;
  if (Index >= Count)
    return;
  Out[Index] = blendWeights(First[Index], Second[Index], Weight);
  atomicAdd(&gBlendCalls, 1u);
}

int main() {
  float *Buffer = nullptr;
  if (cudaMalloc(&Buffer, 3 * 64 * sizeof(float)) != cudaSuccess) {
    std::printf("no CUDA device\n");
    return 1;
  }
  blendArrays<<<1, 64>>>(Buffer, Buffer + 64, Buffer + 128, 0.75f, 64);
  cudaError_t Status = cudaDeviceSynchronize();
  cudaFree(Buffer);
  return Status == cudaSuccess ? 0 : 1;
}
