// libcu++'s cuda::barrier and cuda::pipeline as nvcc compiles them for sm_80: mbarrier objects
// in shared memory (init, arrive, test_wait by state and by phase parity, inval) and
// cp.async.mbarrier.arrive behind cuda::memcpy_async. A block exchanges values through shared
// memory across a cuda::barrier twice; a two-stage pipeline sums three tiles copied
// asynchronously; cooperative_groups::memcpy_async reverses a tile. Checked against the host.
#include "check.h"
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda/barrier>
#include <cuda/pipeline>
#include <vector>

namespace cg = cooperative_groups;

constexpr int N = 128;

__global__ void exchange(const int *in, int *out) {
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  __shared__ int data[N];
  int t = threadIdx.x;
  if (t == 0)
    init(&bar, blockDim.x);
  __syncthreads();
  data[t] = in[t];
  bar.arrive_and_wait();
  int first = data[(t + 5) % N];
  bar.arrive_and_wait(); // every thread has read before anyone writes again
  data[t] = first * 2;
  bar.arrive_and_wait();
  out[t] = data[(t + 7) % N];
}

__global__ void pipelined(const float *in, float *out, int stages) {
  __shared__ float buf[2][N];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> state;
  auto block = cg::this_thread_block();
  auto pipe = cuda::make_pipeline(block, &state);
  float acc = 0;
  for (int s = 0; s < stages; ++s) {
    pipe.producer_acquire();
    cuda::memcpy_async(block, buf[s % 2], in + s * N, sizeof(float) * N, pipe);
    pipe.producer_commit();
    pipe.consumer_wait();
    acc += buf[s % 2][threadIdx.x];
    block.sync();
    pipe.consumer_release();
  }
  out[threadIdx.x] = acc;
}

__global__ void reverse(const float *in, float *out) {
  extern __shared__ float tile[];
  auto block = cg::this_thread_block();
  cg::memcpy_async(block, tile, in + blockIdx.x * N, sizeof(float) * N);
  cg::wait(block);
  out[blockIdx.x * N + threadIdx.x] = tile[N - 1 - threadIdx.x];
}

int main() {
  std::vector<int> in(N);
  for (int i = 0; i < N; ++i)
    in[i] = i * 37 % 101;
  int *dIn, *dOut;
  CHECK(cudaMalloc(&dIn, N * sizeof(int)));
  CHECK(cudaMalloc(&dOut, N * sizeof(int)));
  CHECK(cudaMemcpy(dIn, in.data(), N * sizeof(int), cudaMemcpyHostToDevice));
  exchange<<<1, N>>>(dIn, dOut);
  CHECK(cudaGetLastError());
  std::vector<int> out(N);
  CHECK(cudaMemcpy(out.data(), dOut, N * sizeof(int), cudaMemcpyDeviceToHost));
  for (int t = 0; t < N; ++t)
    if (out[t] != in[((t + 7) % N + 5) % N] * 2 && failures++ < 10)
      std::printf("FAIL: cuda::barrier exchange at %d: %d\n", t, out[t]);

  const int stages = 3;
  std::vector<float> f(stages * N);
  for (int i = 0; i < stages * N; ++i)
    f[i] = float(i) * 0.5f;
  float *dF, *dG;
  CHECK(cudaMalloc(&dF, f.size() * sizeof(float)));
  CHECK(cudaMalloc(&dG, f.size() * sizeof(float)));
  CHECK(cudaMemcpy(dF, f.data(), f.size() * sizeof(float), cudaMemcpyHostToDevice));
  pipelined<<<1, N>>>(dF, dG, stages);
  CHECK(cudaGetLastError());
  std::vector<float> g(f.size());
  CHECK(cudaMemcpy(g.data(), dG, N * sizeof(float), cudaMemcpyDeviceToHost));
  for (int t = 0; t < N; ++t) {
    float e = 0;
    for (int s = 0; s < stages; ++s)
      e += f[s * N + t];
    if (g[t] != e && failures++ < 10)
      std::printf("FAIL: cuda::pipeline at %d: %g, expected %g\n", t, g[t], e);
  }

  reverse<<<stages, N, N * sizeof(float)>>>(dF, dG);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(g.data(), dG, g.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (int b = 0; b < stages; ++b)
    for (int t = 0; t < N; ++t)
      if (g[b * N + t] != f[b * N + N - 1 - t] && failures++ < 10)
        std::printf("FAIL: cg::memcpy_async at %d\n", b * N + t);
  if (failures)
    return 1;
  std::printf("PASS\n");
  return 0;
}
