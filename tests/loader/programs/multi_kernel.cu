// Several kernels of one module used in sequence, a template instantiation and a struct passed
// by value.
#include "check.h"
#include <vector>

struct Affine {
  int mul;
  long long add;
  char tag;
};

__global__ void fill(int *p, int n, int v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = v + i;
}

__global__ void apply(int *p, int n, Affine f) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = int(p[i] * f.mul + f.add) + f.tag;
}

template <typename T> __global__ void square(T *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = p[i] * p[i];
}

int main() {
  const int n = 300;
  int *d;
  CHECK(cudaMalloc(&d, n * sizeof(int)));
  fill<<<3, 128>>>(d, n, 5);
  Affine f{3, -7, 2};
  apply<<<3, 128>>>(d, n, f);
  square<int><<<2, 256>>>(d, n);
  CHECK(cudaGetLastError());
  std::vector<int> h(n);
  CHECK(cudaMemcpy(h.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) {
    int v = (5 + i) * 3 - 7 + 2;
    if (h[i] != v * v) {
      std::printf("FAIL: h[%d] = %d, expected %d\n", i, h[i], v * v);
      return 1;
    }
  }
  std::printf("PASS\n");
  return 0;
}
