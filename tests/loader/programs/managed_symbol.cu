// `__managed__` variables (cuLibraryGetManaged): initialised from the image, written by host code
// directly, updated by kernels, read back by host code after cudaDeviceSynchronize; a kernel also
// reaches one through a pointer the host takes of it.
#include "check.h"

#include <cstdint>

constexpr int N = 300;

__managed__ int table[N];
__managed__ long long total = 5;
__managed__ float scale = 1.5f;

__global__ void scaleTable(int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) {
    table[i] = table[i] * k + i;
    atomicAdd(reinterpret_cast<unsigned long long *>(&total), (unsigned long long)table[i]);
  }
}

__global__ void applyScale(const int *t, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N)
    out[i] = t[i] * scale;
}

int main() {
  // Initial values come from the image.
  if (total != 5 || scale != 1.5f) {
    std::printf("FAIL: initial total %lld scale %f\n", total, scale);
    return 1;
  }
  for (int i = 0; i < N; ++i)
    table[i] = i - 100;
  scale = 0.25f;
  long long expectedTotal = total;
  int expected[N];
  for (int round = 0; round < 2; ++round) {
    int k = round == 0 ? 3 : -2;
    scaleTable<<<(N + 127) / 128, 128>>>(k);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    for (int i = 0; i < N; ++i) {
      int before = round == 0 ? i - 100 : expected[i];
      expected[i] = before * k + i;
      expectedTotal += expected[i];
    }
    for (int i = 0; i < N; ++i)
      if (table[i] != expected[i]) {
        std::printf("FAIL: round %d table[%d] = %d, expected %d\n", round, i, table[i],
                    expected[i]);
        return 1;
      }
    if (total != expectedTotal) {
      std::printf("FAIL: round %d total %lld, expected %lld\n", round, total, expectedTotal);
      return 1;
    }
  }
  // The host's address of a __managed__ variable works in kernels and in copies.
  float *out;
  CHECK(cudaMallocManaged(&out, N * sizeof(float)));
  applyScale<<<(N + 63) / 64, 64>>>(table, out);
  CHECK(cudaDeviceSynchronize());
  for (int i = 0; i < N; ++i)
    if (out[i] != expected[i] * 0.25f) {
      std::printf("FAIL: out[%d] = %f, expected %f\n", i, out[i], expected[i] * 0.25f);
      return 1;
    }
  int copy[N];
  CHECK(cudaMemcpy(copy, table, sizeof(copy), cudaMemcpyDefault));
  int *symbol;
  CHECK(cudaGetSymbolAddress(reinterpret_cast<void **>(&symbol), table));
  if (symbol != table) {
    std::printf("FAIL: cudaGetSymbolAddress %p, host address %p\n", (void *)symbol, (void *)table);
    return 1;
  }
  for (int i = 0; i < N; ++i)
    if (copy[i] != expected[i]) {
      std::printf("FAIL: copy[%d] = %d, expected %d\n", i, copy[i], expected[i]);
      return 1;
    }
  CHECK(cudaFree(out));
  std::printf("PASS managed_symbol (total %lld)\n", total);
  return 0;
}
