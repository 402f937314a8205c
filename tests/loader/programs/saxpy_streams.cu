// saxpy in chunks on two streams with async copies from pinned memory, events for ordering and
// timing, cudaStreamWaitEvent and cudaLaunchHostFunc.
#include "check.h"
#include <cmath>

__global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}

static int HostCalls = 0;
static void CUDART_CB onHost(void *p) { ++*static_cast<int *>(p); }

int main() {
  const int n = 4096, chunks = 4, per = n / chunks;
  float *x, *y;
  CHECK(cudaMallocHost(&x, n * sizeof(float)));
  CHECK(cudaMallocHost(&y, n * sizeof(float)));
  for (int i = 0; i < n; ++i) {
    x[i] = float(i % 97);
    y[i] = float(i % 13) - 6.0f;
  }
  float *dx, *dy;
  CHECK(cudaMalloc(&dx, n * sizeof(float)));
  CHECK(cudaMalloc(&dy, n * sizeof(float)));
  cudaStream_t s[2];
  CHECK(cudaStreamCreate(&s[0]));
  CHECK(cudaStreamCreateWithFlags(&s[1], cudaStreamNonBlocking));
  cudaEvent_t start, stop, done[2];
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventCreateWithFlags(&done[0], cudaEventDisableTiming));
  CHECK(cudaEventCreateWithFlags(&done[1], cudaEventDisableTiming));
  CHECK(cudaEventRecord(start, 0));
  for (int c = 0; c < chunks; ++c) {
    cudaStream_t st = s[c % 2];
    size_t off = size_t(c) * per;
    CHECK(cudaMemcpyAsync(dx + off, x + off, per * sizeof(float), cudaMemcpyHostToDevice, st));
    CHECK(cudaMemcpyAsync(dy + off, y + off, per * sizeof(float), cudaMemcpyHostToDevice, st));
    saxpy<<<per / 128, 128, 0, st>>>(per, 2.5f, dx + off, dy + off);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyAsync(y + off, dy + off, per * sizeof(float), cudaMemcpyDeviceToHost, st));
    CHECK(cudaLaunchHostFunc(st, onHost, &HostCalls));
  }
  CHECK(cudaEventRecord(done[1], s[1]));
  CHECK(cudaStreamWaitEvent(s[0], done[1], 0));
  CHECK(cudaEventRecord(done[0], s[0]));
  CHECK(cudaEventRecord(stop, 0));
  CHECK(cudaEventSynchronize(stop));
  CHECK(cudaStreamSynchronize(s[0]));
  CHECK(cudaStreamSynchronize(s[1]));
  if (cudaEventQuery(done[0]) != cudaSuccess || cudaStreamQuery(s[1]) != cudaSuccess) {
    std::printf("FAIL: work not complete after synchronisation\n");
    return 1;
  }
  float ms = -1;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  if (!(ms >= 0.0f)) {
    std::printf("FAIL: elapsed time %f\n", ms);
    return 1;
  }
  if (cudaEventElapsedTime(&ms, done[0], stop) == cudaSuccess) {
    std::printf("FAIL: elapsed time on an event without timing\n");
    return 1;
  }
  if (HostCalls != chunks) {
    std::printf("FAIL: %d host functions ran, expected %d\n", HostCalls, chunks);
    return 1;
  }
  for (int i = 0; i < n; ++i) {
    float expect = 2.5f * float(i % 97) + (float(i % 13) - 6.0f);
    if (y[i] != expect) {
      std::printf("FAIL: y[%d] = %f, expected %f\n", i, y[i], expect);
      return 1;
    }
  }
  for (int i = 0; i < 2; ++i) {
    CHECK(cudaStreamDestroy(s[i]));
    CHECK(cudaEventDestroy(done[i]));
  }
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  CHECK(cudaFreeHost(x));
  CHECK(cudaFreeHost(y));
  CHECK(cudaFree(dx));
  CHECK(cudaFree(dy));
  std::printf("PASS (%.3f ms)\n", ms);
  return 0;
}
