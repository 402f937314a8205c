// Device printf: threads of several blocks print lines with every common conversion (%d %u %x
// %ld %lld %f %e %g %s %c %p, width/precision/flags, %%), a second kernel prints more, and the
// limit query reports the FIFO size. After the device output, the program prints the marker line
// "== host reference ==" and the same lines formatted by the host's printf from the same values;
// tests/loader/check_printf.sh compares the two parts (sorted: CUDA defines no order between
// threads). printf's return values (the number of arguments) are checked here.
#include "check.h"

#include <cstring>

#define LINE_FMT                                                                                   \
  "[%d,%d] d=%d u=%u x=%x ld=%ld lld=%lld f=%f e=%e g=%g s=%s c=%c p=%p w=[%5.2f] l=[%-8d] "       \
  "z=[%05d] %%\n"

__device__ float fvalue(int t) { return t * 0.25f - 3.0f; }
__host__ __device__ long long llvalue(int t) { return (long long)t * -123456789012LL; }

__global__ void lines(const char *names, int *ret, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n)
    return;
  float f = fvalue(t);
  ret[2 * t] = printf(LINE_FMT, blockIdx.x, threadIdx.x, t - 20, unsigned(t) * 2654435761u,
                      t * 4099, long(t) << 33, llvalue(t), f, double(f) * 1e10, f / 7.0f,
                      names + 6 * (t % 3), 'A' + t % 26, ret + t, f, t, t * 3);
  if (threadIdx.x == 0)
    ret[2 * t + 1] = printf("block %d of %d done\n", blockIdx.x, gridDim.x);
}

__global__ void tail(int n) { printf("second kernel, %d %s\n", n, "literal"); }

int main() {
  const int blocks = 3, threads = 40, n = 100;
  const char names[] = "alpha\0bravo\0charl"; // three 6-byte strings
  char *dnames;
  int *dret;
  CHECK(cudaMalloc(&dnames, sizeof(names)));
  CHECK(cudaMalloc(&dret, 2 * n * sizeof(int)));
  CHECK(cudaMemcpy(dnames, names, sizeof(names), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dret, 0xff, 2 * n * sizeof(int)));
  size_t fifo = 0;
  CHECK(cudaDeviceGetLimit(&fifo, cudaLimitPrintfFifoSize));
  if (fifo != (1u << 20)) {
    std::printf("FAIL: printf FIFO size %zu, expected 1 MiB\n", fifo);
    return 1;
  }
  CHECK(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 4u << 20));
  CHECK(cudaDeviceGetLimit(&fifo, cudaLimitPrintfFifoSize));
  if (fifo != (4u << 20)) {
    std::printf("FAIL: printf FIFO size %zu after setting 4 MiB\n", fifo);
    return 1;
  }
  lines<<<blocks, threads>>>(dnames, dret, n);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  tail<<<1, 2>>>(7);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  int ret[2 * n];
  CHECK(cudaMemcpy(ret, dret, sizeof(ret), cudaMemcpyDeviceToHost));
  std::fflush(stdout);

  std::printf("== host reference ==\n");
  for (int b = 0; b < blocks; ++b)
    for (int x = 0; x < threads; ++x) {
      int t = b * threads + x;
      if (t >= n)
        continue;
      float f = t * 0.25f - 3.0f;
      std::printf(LINE_FMT, b, x, t - 20, unsigned(t) * 2654435761u, t * 4099, long(t) << 33,
                  llvalue(t), f, double(f) * 1e10, f / 7.0f, names + 6 * (t % 3), 'A' + t % 26,
                  (void *)(dret + t), f, t, t * 3);
      if (x == 0)
        std::printf("block %d of %d done\n", b, blocks);
    }
  for (int i = 0; i < 2; ++i)
    std::printf("second kernel, %d %s\n", 7, "literal");
  std::printf("== end ==\n");
  for (int t = 0; t < n; ++t) {
    int want0 = 16, want1 = t % threads == 0 ? 2 : -1;
    if (ret[2 * t] != want0 || ret[2 * t + 1] != want1) {
      std::printf("FAIL: thread %d: printf returned %d and %d, expected %d and %d\n", t, ret[2 * t],
                  ret[2 * t + 1], want0, want1);
      return 1;
    }
  }
  std::printf("PASS\n");
  return 0;
}
