// Fixture source for the fatbin extraction tests. It has three kernels, a __device__ global and a
// non-inlined __device__ function, so every embedded PTX module holds .entry, .func and .global
// symbols. main() only exists so the same file also links into an executable; the tests never
// run it.
#include <cstdio>

__device__ float gOffset = 0.25f;

// __noinline__ keeps this a separate .func in the PTX instead of being folded into its callers.
__device__ __noinline__ float clampToUnit(float Value) { return fminf(fmaxf(Value, 0.0f), 1.0f); }

__global__ void affineClamp(float *Data, float Scale, int Count) {
  int Index = blockIdx.x * blockDim.x + threadIdx.x;
  if (Index < Count)
    Data[Index] = clampToUnit(Data[Index] * Scale + gOffset);
}

__global__ void byteHistogram(const unsigned char *Input, unsigned *Bins, int Count) {
  __shared__ unsigned LocalBins[256];
  for (int Bin = threadIdx.x; Bin < 256; Bin += blockDim.x)
    LocalBins[Bin] = 0;
  __syncthreads();
  for (int Index = blockIdx.x * blockDim.x + threadIdx.x; Index < Count;
       Index += gridDim.x * blockDim.x)
    atomicAdd(&LocalBins[Input[Index]], 1u);
  __syncthreads();
  for (int Bin = threadIdx.x; Bin < 256; Bin += blockDim.x)
    atomicAdd(&Bins[Bin], LocalBins[Bin]);
}

__global__ void dotProduct(const float *Left, const float *Right, float *Result, int Count) {
  __shared__ float Partial[128];
  int Index = blockIdx.x * blockDim.x + threadIdx.x;
  Partial[threadIdx.x] = Index < Count ? Left[Index] * Right[Index] : 0.0f;
  __syncthreads();
  for (unsigned Stride = blockDim.x / 2; Stride > 0; Stride /= 2) {
    if (threadIdx.x < Stride)
      Partial[threadIdx.x] += Partial[threadIdx.x + Stride];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    atomicAdd(Result, Partial[0]);
}

int main() {
  float *Values = nullptr;
  if (cudaMalloc(&Values, 128 * sizeof(float)) != cudaSuccess) {
    std::printf("no CUDA device\n");
    return 1;
  }
  affineClamp<<<1, 128>>>(Values, 2.0f, 128);
  dotProduct<<<1, 128>>>(Values, Values, Values, 64);
  cudaError_t Status = cudaDeviceSynchronize();
  cudaFree(Values);
  return Status == cudaSuccess ? 0 : 1;
}
