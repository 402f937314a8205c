// Thrust and CUB, as programs use them: thrust::sort, transform and reduce; cub::DeviceRadixSort
// (pairs), DeviceScan, DeviceSelect and DeviceReduce with their temporary-storage queries. CUB
// picks each algorithm's tuning from the PTX version that cudaFuncGetAttributes reports for its
// EmptyKernel, which must be the PTX's own target (sm_75 here, nvcc's default), not the device's
// compute capability, or the host launches kernels with another tuning's sizes. Every result is
// checked against the host's std::sort, partial sums and filter.
#include "check.h"
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cub/cub.cuh>
#include <numeric>
#include <thrust/device_vector.h>
#include <thrust/functional.h>
#include <thrust/reduce.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <vector>

struct SquarePlusOne { // one rounding on both sides (nvcc would contract x * x + 1 anyway)
  __host__ __device__ float operator()(float x) const { return fmaf(x, x, 1.0f); }
};
struct Above10 {
  __host__ __device__ bool operator()(int x) const { return x > 10; }
};

int main() {
  const int n = 50000;
  std::vector<unsigned> keys(n);
  std::vector<int> vals(n), in(n);
  uint64_t s = 7;
  for (int i = 0; i < n; ++i) {
    s ^= s << 13; // xorshift64
    s ^= s >> 7;
    s ^= s << 17;
    keys[i] = unsigned(s);
    vals[i] = i;
    in[i] = int(keys[i] % 100) - 50;
  }

  thrust::device_vector<unsigned> dk(keys.begin(), keys.end());
  thrust::sort(dk.begin(), dk.end());
  std::vector<unsigned> sorted(n);
  thrust::copy(dk.begin(), dk.end(), sorted.begin());
  std::vector<unsigned> ref = keys;
  std::sort(ref.begin(), ref.end());
  expect(sorted == ref, "thrust::sort", 0);

  thrust::device_vector<float> f(n);
  thrust::sequence(f.begin(), f.end(), 0.0f, 0.001f);
  thrust::transform(f.begin(), f.end(), f.begin(), SquarePlusOne());
  double sum = thrust::reduce(f.begin(), f.end(), 0.0, thrust::plus<double>());
  std::vector<float> hf(n);
  thrust::copy(f.begin(), f.end(), hf.begin());
  double exact = 0;
  for (int i = 0; i < n; ++i) {
    float x = 0.0f + float(i) * 0.001f; // thrust::sequence's init + i * step, in float
    expect(hf[i] == SquarePlusOne()(x), "thrust::transform", i);
    exact += double(hf[i]);
  }
  // Any order of the double additions of these 50,000 values is within this of the exact sum.
  expect(std::fabs(sum - exact) <= 1e-9 * exact, "thrust::reduce", 0);

  unsigned *dKeys = toDevice(keys), *dKeysOut;
  int *dVals = toDevice(vals), *dValsOut, *dIn = toDevice(in), *dOut, *dCount;
  CHECK(cudaMalloc(&dKeysOut, n * sizeof(unsigned)));
  CHECK(cudaMalloc(&dValsOut, n * sizeof(int)));
  CHECK(cudaMalloc(&dOut, n * sizeof(int)));
  CHECK(cudaMalloc(&dCount, sizeof(int)));

  void *temp = nullptr;
  size_t bytes = 0;
  CHECK(cub::DeviceRadixSort::SortPairs(temp, bytes, dKeys, dKeysOut, dVals, dValsOut, n));
  CHECK(cudaMalloc(&temp, bytes));
  CHECK(cub::DeviceRadixSort::SortPairs(temp, bytes, dKeys, dKeysOut, dVals, dValsOut, n));
  std::vector<unsigned> k2 = toHost(dKeysOut, n);
  std::vector<int> v2 = toHost(dValsOut, n);
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return keys[a] < keys[b]; });
  for (int i = 0; i < n; ++i)
    expect(k2[i] == keys[order[i]] && v2[i] == order[i], "cub::DeviceRadixSort::SortPairs", i);

  temp = nullptr;
  CHECK(cub::DeviceScan::InclusiveSum(temp, bytes, dIn, dOut, n));
  CHECK(cudaMalloc(&temp, bytes));
  CHECK(cub::DeviceScan::InclusiveSum(temp, bytes, dIn, dOut, n));
  std::vector<int> scan = toHost(dOut, n);
  int acc = 0;
  for (int i = 0; i < n; ++i) {
    acc += in[i];
    expect(scan[i] == acc, "cub::DeviceScan::InclusiveSum", i);
  }

  temp = nullptr;
  CHECK(cub::DeviceSelect::If(temp, bytes, dIn, dOut, dCount, n, Above10()));
  CHECK(cudaMalloc(&temp, bytes));
  CHECK(cub::DeviceSelect::If(temp, bytes, dIn, dOut, dCount, n, Above10()));
  std::vector<int> selected;
  for (int v : in)
    if (v > 10)
      selected.push_back(v);
  int count = toHost(dCount, 1)[0];
  expect(count == int(selected.size()), "cub::DeviceSelect::If count", count);
  if (count == int(selected.size()))
    expect(toHost(dOut, count) == selected, "cub::DeviceSelect::If", 0);

  temp = nullptr;
  CHECK(cub::DeviceReduce::Sum(temp, bytes, dIn, dCount, n));
  CHECK(cudaMalloc(&temp, bytes));
  CHECK(cub::DeviceReduce::Sum(temp, bytes, dIn, dCount, n));
  expect(toHost(dCount, 1)[0] == acc, "cub::DeviceReduce::Sum", 0);

  if (failures)
    return 1;
  std::printf("PASS\n");
  return 0;
}
