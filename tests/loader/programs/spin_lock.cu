// Records updated under per-key spin locks (atomicCAS to take, atomicExch to release), as code
// written for independent thread scheduling (sm_70 and later) does: threads of one warp contend
// for the same key, so the thread holding a lock must run on and release it while its warp's
// other threads spin. Each record's three fields change together under the lock only.
#include "check.h"
#include <vector>

constexpr int Keys = 5;

struct Record {
  unsigned long long Count;
  double SumSq;
  int Max;
};

__global__ void update(const int *in, int n, int *locks, Record *records) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int v = in[i];
  int k = v % Keys;
  while (atomicCAS(&locks[k], 0, 1) != 0) {
  }
  __threadfence();
  volatile Record *r = &records[k];
  r->Count = r->Count + 1;
  r->SumSq = r->SumSq + double(v) * double(v);
  r->Max = r->Max > v ? r->Max : v;
  __threadfence();
  atomicExch(&locks[k], 0);
}

int main() {
  const int n = 3000;
  std::vector<int> in(n);
  unsigned s = 11;
  for (int i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    in[i] = int(s >> 20);
  }
  int *din, *dlocks;
  Record *drec;
  CHECK(cudaMalloc(&din, n * sizeof(int)));
  CHECK(cudaMalloc(&dlocks, Keys * sizeof(int)));
  CHECK(cudaMalloc(&drec, Keys * sizeof(Record)));
  CHECK(cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dlocks, 0, Keys * sizeof(int)));
  CHECK(cudaMemset(drec, 0, Keys * sizeof(Record)));
  update<<<(n + 255) / 256, 256>>>(din, n, dlocks, drec);
  CHECK(cudaGetLastError());
  std::vector<Record> got(Keys), ref(Keys, Record{0, 0.0, 0});
  std::vector<int> locks(Keys);
  CHECK(cudaMemcpy(got.data(), drec, Keys * sizeof(Record), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(locks.data(), dlocks, Keys * sizeof(int), cudaMemcpyDeviceToHost));
  for (int v : in) {
    Record &r = ref[v % Keys];
    r.Count += 1;
    r.SumSq += double(v) * double(v); // exact: every partial sum is below 2^53
    r.Max = r.Max > v ? r.Max : v;
  }
  for (int k = 0; k < Keys; ++k)
    if (got[k].Count != ref[k].Count || got[k].SumSq != ref[k].SumSq || got[k].Max != ref[k].Max ||
        locks[k] != 0) {
      std::printf("FAIL: key %d: count %llu (expected %llu), sum of squares %.0f (%.0f), max %d "
                  "(%d), lock %d\n",
                  k, got[k].Count, ref[k].Count, got[k].SumSq, ref[k].SumSq, got[k].Max, ref[k].Max,
                  locks[k]);
      return 1;
    }
  std::printf("PASS: %d updates under %d spin locks\n", n, Keys);
  return 0;
}
