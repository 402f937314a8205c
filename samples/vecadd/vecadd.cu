// Self-checking vector addition: the bundled sample that reptx is demonstrated on. It adds two
// vectors on the GPU, recomputes the sum on the host and prints PASS when every element agrees.
// The exit status is non-zero on any failure, including a missing or failing CUDA device.
#include <cmath>
#include <cstdio>
#include <vector>

__global__ void vecAdd(const float *Left, const float *Right, float *Sum, int Count) {
  int Index = blockIdx.x * blockDim.x + threadIdx.x;
  if (Index < Count)
    Sum[Index] = Left[Index] + Right[Index];
}

// Reports a failed CUDA call; returns true when the call succeeded.
static bool check(cudaError_t Status, const char *What) {
  if (Status == cudaSuccess)
    return true;
  std::printf("FAIL: %s: %s\n", What, cudaGetErrorString(Status));
  return false;
}

int main() {
  // Not a multiple of the block size, so the bounds check in the kernel matters.
  const int Count = 100000;
  const int BlockSize = 256;
  const size_t Bytes = Count * sizeof(float);

  std::vector<float> Left(Count), Right(Count), Sum(Count, 0.0f);
  for (int I = 0; I < Count; ++I) {
    Left[I] = 0.5f * I;
    Right[I] = 1000.0f - 0.25f * I;
  }

  float *DevLeft = nullptr, *DevRight = nullptr, *DevSum = nullptr;
  bool Ok = check(cudaMalloc(&DevLeft, Bytes), "cudaMalloc") &&
            check(cudaMalloc(&DevRight, Bytes), "cudaMalloc") &&
            check(cudaMalloc(&DevSum, Bytes), "cudaMalloc") &&
            check(cudaMemcpy(DevLeft, Left.data(), Bytes, cudaMemcpyHostToDevice), "cudaMemcpy") &&
            check(cudaMemcpy(DevRight, Right.data(), Bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
  if (Ok) {
    vecAdd<<<(Count + BlockSize - 1) / BlockSize, BlockSize>>>(DevLeft, DevRight, DevSum, Count);
    Ok = check(cudaGetLastError(), "kernel launch") &&
         check(cudaMemcpy(Sum.data(), DevSum, Bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
  }
  cudaFree(DevLeft);
  cudaFree(DevRight);
  cudaFree(DevSum);
  if (!Ok)
    return 1;

  int Mismatches = 0;
  for (int I = 0; I < Count; ++I) {
    // One float addition on either side: the results must agree exactly.
    float Expected = Left[I] + Right[I];
    if (Sum[I] != Expected) {
      if (++Mismatches <= 5)
        std::printf("mismatch at %d: got %g, expected %g\n", I, Sum[I], Expected);
    }
  }
  if (Mismatches) {
    std::printf("FAIL: %d of %d elements differ\n", Mismatches, Count);
    return 1;
  }
  std::printf("PASS: %d elements\n", Count);
  return 0;
}
