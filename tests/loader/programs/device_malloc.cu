// Device-side malloc, free, new and delete: the heap limit set before the first kernel, blocks
// that are handed out again after free (the loop below needs 25 times the heap without reuse),
// 16-byte alignment, blocks of concurrent threads that do not overlap, objects made with new in
// one kernel and deleted in a later one, NULL once the heap is exhausted, and the limit that
// cannot change any more once a kernel with malloc was loaded.
#include "check.h"
#include <cstdint>
#include <vector>

constexpr size_t HeapBytes = 128 << 10;
constexpr int Threads = 256, Rounds = 100;

// Each round, each thread allocates 1 to 7 ints (blocks of 32 or 64 bytes), fills them with its
// own pattern, checks them, and frees them.
__global__ void churn(int *sums, int *misaligned, int *nulls) {
  int t = blockIdx.x * blockDim.x + threadIdx.x, sum = 0;
  for (int r = 0; r < Rounds; ++r) {
    int n = (t + r) % 7 + 1;
    int *p = static_cast<int *>(malloc(n * sizeof(int)));
    if (!p)
      atomicAdd(nulls, 1);
    else if (reinterpret_cast<uintptr_t>(p) % 16)
      atomicAdd(misaligned, 1);
    for (int i = 0; p && i < n; ++i)
      p[i] = t * 1000 + r * 10 + i;
    __syncthreads(); // every thread's block is filled before any is read back
    for (int i = 0; p && i < n; ++i)
      sum += p[i] - t * 1000;
    free(p);
  }
  sums[t] = sum;
}

struct Node {
  int key;
  double weight;
  Node *next;
  __device__ Node(int k, Node *n) : key(k), weight(k * 0.5), next(n) {}
};

// Each thread builds a list of 1 to 4 nodes with new; a later kernel walks and deletes it.
__global__ void build(Node **heads) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  Node *head = nullptr;
  for (int k = 0; k <= t % 4; ++k)
    head = new Node(t * 10 + k, head);
  heads[t] = head;
}

__global__ void walk(Node **heads, double *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  double sum = 0;
  for (Node *n = heads[t]; n;) {
    sum += n->key + n->weight;
    Node *next = n->next;
    delete n;
    n = next;
  }
  out[t] = sum;
}

// One thread: a block larger than the heap is NULL; blocks of 16 KiB (32 KiB with the header)
// run out after at most four.
__global__ void exhaust(int *out) {
  out[0] = malloc(1 << 20) == nullptr;
  int n = 0;
  while (n < 100 && malloc(16 << 10))
    ++n;
  out[1] = n;
  free(nullptr); // does nothing
}

int main() {
  CHECK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, HeapBytes));
  size_t limit = 0;
  CHECK(cudaDeviceGetLimit(&limit, cudaLimitMallocHeapSize));
  if (limit != HeapBytes) {
    std::printf("FAIL: heap limit %zu, set %zu\n", limit, HeapBytes);
    return 1;
  }
  int *sums, *counts;
  CHECK(cudaMalloc(&sums, Threads * sizeof(int)));
  CHECK(cudaMalloc(&counts, 4 * sizeof(int)));
  CHECK(cudaMemset(counts, 0, 4 * sizeof(int)));
  churn<<<Threads / 128, 128>>>(sums, counts, counts + 1);
  CHECK(cudaDeviceSynchronize());
  std::vector<int> s(Threads), c(4);
  CHECK(cudaMemcpy(s.data(), sums, Threads * sizeof(int), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(c.data(), counts, 4 * sizeof(int), cudaMemcpyDeviceToHost));
  if (c[0] || c[1]) {
    std::printf("FAIL: churn: %d misaligned blocks, %d NULL returns\n", c[0], c[1]);
    ++failures;
  }
  for (int t = 0; t < Threads; ++t) {
    int e = 0;
    for (int r = 0; r < Rounds; ++r)
      for (int i = 0; i < (t + r) % 7 + 1; ++i)
        e += r * 10 + i;
    if (s[t] != e && failures++ < 10)
      std::printf("FAIL: churn thread %d: sum %d, expected %d\n", t, s[t], e);
  }

  Node **heads;
  double *out;
  CHECK(cudaMalloc(&heads, Threads * sizeof(Node *)));
  CHECK(cudaMalloc(&out, Threads * sizeof(double)));
  build<<<Threads / 64, 64>>>(heads);
  CHECK(cudaGetLastError());
  walk<<<Threads / 64, 64>>>(heads, out);
  std::vector<double> o(Threads);
  CHECK(cudaMemcpy(o.data(), out, Threads * sizeof(double), cudaMemcpyDeviceToHost));
  for (int t = 0; t < Threads; ++t) {
    double e = 0;
    for (int k = 0; k <= t % 4; ++k)
      e += (t * 10 + k) * 1.5;
    if (o[t] != e && failures++ < 10)
      std::printf("FAIL: list of thread %d: %g, expected %g\n", t, o[t], e);
  }

  exhaust<<<1, 1>>>(counts);
  CHECK(cudaMemcpy(c.data(), counts, 2 * sizeof(int), cudaMemcpyDeviceToHost));
  if (c[0] != 1 || c[1] > 4) {
    std::printf("FAIL: exhaustion: malloc(1 MiB) NULL %d, %d blocks of 16 KiB\n", c[0], c[1]);
    ++failures;
  }
  if (cudaDeviceSetLimit(cudaLimitMallocHeapSize, 2 * HeapBytes) != cudaErrorInvalidValue) {
    std::printf("FAIL: the heap limit changed after kernels used the heap\n");
    ++failures;
  }
  if (failures)
    return 1;
  std::printf("PASS\n");
  return 0;
}
