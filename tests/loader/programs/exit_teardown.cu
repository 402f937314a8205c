// CUDA calls from exit handlers. A singleton made on first use after cudart's initialisation is
// destroyed at exit before cudart's own exit handler runs (handlers run in reverse order), and
// after exit() has destroyed the main thread's thread_local objects: its destructor copies back
// the result of a kernel that main left unsynchronised, checks it against the host's values and
// frees its memory and stream. main also leaves a printf kernel queued, whose line must appear.
#include "check.h"
#include <cstdio>
#include <cstdlib>
#include <vector>

constexpr int N = 1000;

__global__ void triple(int *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = 3 * i + 1;
}

__global__ void hello(int v) { printf("queued kernel says %d\n", v); }

// No CHECK here: exit() must not be called from an exit handler.
#define TEARDOWN_CHECK(X)                                                                          \
  do {                                                                                             \
    cudaError_t E_ = (X);                                                                          \
    if (E_ != cudaSuccess) {                                                                       \
      std::printf("FAIL: %s:%d: %s -> %s\n", __FILE__, __LINE__, #X, cudaGetErrorString(E_));      \
      std::fflush(stdout);                                                                         \
      std::_Exit(1);                                                                               \
    }                                                                                              \
  } while (0)

struct Pool {
  int *Buffer = nullptr;
  cudaStream_t Stream = nullptr;
  Pool() {
    CHECK(cudaMalloc(&Buffer, N * sizeof(int)));
    CHECK(cudaStreamCreate(&Stream));
  }
  ~Pool() {
    std::vector<int> Host(N, -1);
    TEARDOWN_CHECK(
        cudaMemcpyAsync(Host.data(), Buffer, N * sizeof(int), cudaMemcpyDeviceToHost, Stream));
    TEARDOWN_CHECK(cudaStreamSynchronize(Stream));
    for (int I = 0; I < N; ++I)
      if (Host[I] != 3 * I + 1) {
        std::printf("FAIL: element %d is %d, expected %d\n", I, Host[I], 3 * I + 1);
        std::fflush(stdout);
        std::_Exit(1);
      }
    TEARDOWN_CHECK(cudaStreamDestroy(Stream));
    TEARDOWN_CHECK(cudaFree(Buffer));
    std::printf("teardown: %d values back, memory and stream freed\nPASS\n", N);
    std::fflush(stdout);
  }
};

Pool &pool() {
  static Pool P; // constructed after cudart's initialisation: destroyed before its teardown
  return P;
}

int main() {
  CHECK(cudaFree(nullptr)); // cudart initialised (and its exit handler registered) first
  triple<<<(N + 255) / 256, 256, 0, pool().Stream>>>(pool().Buffer, N);
  CHECK(cudaGetLastError());
  hello<<<1, 1>>>(7);
  CHECK(cudaGetLastError());
  return 0; // nothing synchronised: the pool's destructor and cudart's teardown do it
}
