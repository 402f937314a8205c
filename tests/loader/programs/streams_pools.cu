// The stream-ordered allocator's memory pools (the default pool's attributes and statistics, a
// created pool, the device's current pool), stream callbacks, stream ids, devices and attributes,
// the driver's stream memory operations (through cudaGetDriverEntryPointByVersion),
// cudaOccupancyAvailableDynamicSMemPerBlock and batched copies (cudaMemcpyBatchAsync). Allocation
// sizes are multiples of 2 MiB so that a pool's used-memory statistic is their exact sum; expected
// values are the CUDA Runtime API's definitions of each call.
#include "check.h"

#include <cstdint>
#include <cuda.h>

__global__ void fill(int *p, int v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] = v + i;
}
__global__ void useShared(int *out) {
  extern __shared__ int sh[];
  sh[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = sh[blockDim.x - 1 - threadIdx.x];
}

struct CallbackLog {
  int Calls = 0;
  cudaError_t Status = cudaErrorUnknown;
  int Seen = -1;
  const int *Host = nullptr;
};
static void CUDART_CB onStream(cudaStream_t, cudaError_t status, void *data) {
  auto *L = static_cast<CallbackLog *>(data);
  ++L->Calls;
  L->Status = status;
  L->Seen = L->Host[5];
}

constexpr size_t MiB = size_t(1) << 20;

static unsigned long long poolAttr(cudaMemPool_t p, cudaMemPoolAttr a) {
  unsigned long long v = 0;
  CHECK(cudaMemPoolGetAttribute(p, a, &v));
  return v;
}

static void pools() {
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  cudaMemPool_t def, cur;
  CHECK(cudaDeviceGetDefaultMemPool(&def, 0));
  CHECK(cudaDeviceGetMemPool(&cur, 0));
  expect(def == cur, "the default pool is current", 0);
  unsigned long long keep = ~0ull;
  CHECK(cudaMemPoolSetAttribute(def, cudaMemPoolAttrReleaseThreshold, &keep));
  expect(poolAttr(def, cudaMemPoolAttrReleaseThreshold) == keep, "release threshold", 0);
  int reuse = 0;
  CHECK(cudaMemPoolSetAttribute(def, cudaMemPoolReuseAllowOpportunistic, &reuse));
  int got = 1;
  CHECK(cudaMemPoolGetAttribute(def, cudaMemPoolReuseAllowOpportunistic, &got));
  expect(got == 0, "reuse attribute", got);
  unsigned long long base = poolAttr(def, cudaMemPoolAttrUsedMemCurrent);
  int *a, *b, *c;
  CHECK(cudaMallocAsync(&a, 2 * MiB, s));
  CHECK(cudaMallocAsync(&b, 4 * MiB, s));
  CHECK(cudaMallocAsync(&c, 2 * MiB, s));
  CHECK(cudaStreamSynchronize(s));
  expect(poolAttr(def, cudaMemPoolAttrUsedMemCurrent) == base + 8 * MiB, "used memory", 0);
  expect(poolAttr(def, cudaMemPoolAttrReservedMemCurrent) >= base + 8 * MiB, "reserved memory", 0);
  CHECK(cudaFreeAsync(b, s));
  CHECK(cudaStreamSynchronize(s));
  expect(poolAttr(def, cudaMemPoolAttrUsedMemCurrent) == base + 4 * MiB, "used after a free", 0);
  expect(poolAttr(def, cudaMemPoolAttrUsedMemHigh) >= base + 8 * MiB, "used high-water mark", 0);
  unsigned long long zero = 0;
  CHECK(cudaMemPoolSetAttribute(def, cudaMemPoolAttrUsedMemHigh, &zero));
  expect(poolAttr(def, cudaMemPoolAttrUsedMemHigh) == base + 4 * MiB, "high-water mark reset", 0);
  CHECK(cudaMemPoolTrimTo(def, 0));

  // A pool of its own, allocated from explicitly and then as the device's current pool.
  cudaMemPoolProps props = {};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = 0;
  cudaMemPool_t mine;
  CHECK(cudaMemPoolCreate(&mine, &props));
  cudaMemAccessDesc desc = {};
  desc.location = props.location;
  desc.flags = cudaMemAccessFlagsProtReadWrite;
  CHECK(cudaMemPoolSetAccess(mine, &desc, 1));
  cudaMemAccessFlags flags = cudaMemAccessFlagsProtNone;
  cudaMemLocation loc = props.location;
  CHECK(cudaMemPoolGetAccess(&flags, mine, &loc));
  expect(flags == cudaMemAccessFlagsProtReadWrite, "pool access", flags);
  int *d;
  const int n = 1000;
  CHECK(cudaMallocFromPoolAsync(&d, 2 * MiB, mine, s));
  fill<<<(n + 127) / 128, 128, 0, s>>>(d, 7, n);
  std::vector<int> h(n);
  CHECK(cudaMemcpyAsync(h.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost, s));
  CHECK(cudaStreamSynchronize(s));
  for (int i = 0; i < n; ++i)
    expect(h[i] == 7 + i, "memory from a created pool", i);
  expect(poolAttr(mine, cudaMemPoolAttrUsedMemCurrent) == 2 * MiB, "created pool's use", 0);
  CHECK(cudaDeviceSetMemPool(0, mine));
  CHECK(cudaDeviceGetMemPool(&cur, 0));
  expect(cur == mine, "current pool", 0);
  int *e;
  CHECK(cudaMallocAsync(&e, 4 * MiB, s));
  CHECK(cudaStreamSynchronize(s));
  expect(poolAttr(mine, cudaMemPoolAttrUsedMemCurrent) == 6 * MiB,
         "cudaMallocAsync from the "
         "current pool",
         0);
  CHECK(cudaDeviceSetMemPool(0, def));
  CHECK(cudaFreeAsync(e, s));
  CHECK(cudaFreeAsync(d, s));
  CHECK(cudaFreeAsync(a, s));
  CHECK(cudaFreeAsync(c, s));
  CHECK(cudaStreamSynchronize(s));
  expect(poolAttr(mine, cudaMemPoolAttrUsedMemCurrent) == 0, "created pool emptied", 0);
  CHECK(cudaMemPoolDestroy(mine));
  CHECK(cudaStreamDestroy(s));
}

static void streams() {
  cudaStream_t s1, s2;
  CHECK(cudaStreamCreate(&s1));
  CHECK(cudaStreamCreateWithPriority(&s2, cudaStreamNonBlocking, -1));
  unsigned long long id1 = 0, id2 = 0, again = 0;
  CHECK(cudaStreamGetId(s1, &id1));
  CHECK(cudaStreamGetId(s2, &id2));
  CHECK(cudaStreamGetId(s1, &again));
  expect(id1 != id2 && id1 == again, "stream ids", long(id1));
  int dev = -1;
  CHECK(cudaStreamGetDevice(s2, &dev));
  expect(dev == 0, "stream device", dev);
  int maxWindow = 0;
  CHECK(cudaDeviceGetAttribute(&maxWindow, cudaDevAttrMaxAccessPolicyWindowSize, 0));
  int *buf;
  CHECK(cudaMalloc(&buf, 1 << 20));
  cudaStreamAttrValue v = {};
  v.accessPolicyWindow.base_ptr = buf;
  v.accessPolicyWindow.num_bytes = std::min<size_t>(1 << 20, size_t(maxWindow));
  v.accessPolicyWindow.hitRatio = 0.5f;
  v.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
  v.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
  CHECK(cudaStreamSetAttribute(s1, cudaStreamAttributeAccessPolicyWindow, &v));
  cudaStreamAttrValue back = {};
  CHECK(cudaStreamGetAttribute(s1, cudaStreamAttributeAccessPolicyWindow, &back));
  expect(back.accessPolicyWindow.base_ptr == buf &&
             back.accessPolicyWindow.num_bytes == v.accessPolicyWindow.num_bytes &&
             back.accessPolicyWindow.hitRatio == 0.5f &&
             back.accessPolicyWindow.hitProp == cudaAccessPropertyPersisting,
         "access policy window", 0);
  CHECK(cudaStreamCopyAttributes(s2, s1));
  CHECK(cudaStreamGetAttribute(s2, cudaStreamAttributeAccessPolicyWindow, &back));
  expect(back.accessPolicyWindow.base_ptr == buf, "copied attributes", 0);
  cudaStreamAttrValue prio = {};
  CHECK(cudaStreamGetAttribute(s2, cudaStreamAttributePriority, &prio));
  int p = 0;
  CHECK(cudaStreamGetPriority(s2, &p));
  expect(prio.priority == p, "priority attribute", prio.priority);

  // A callback after a kernel and a copy: it sees the copied data and a successful status.
  int *host;
  CHECK(cudaMallocHost(&host, 64 * sizeof(int)));
  fill<<<1, 64, 0, s1>>>(buf, 100, 64);
  CHECK(cudaMemcpyAsync(host, buf, 64 * sizeof(int), cudaMemcpyDeviceToHost, s1));
  CallbackLog log;
  log.Host = host;
  CHECK(cudaStreamAddCallback(s1, onStream, &log, 0));
  CHECK(cudaStreamSynchronize(s1));
  expect(log.Calls == 1 && log.Status == cudaSuccess && log.Seen == 105, "stream callback",
         log.Seen);

  // Stream memory operations of the driver API.
  using WriteFn = CUresult (*)(CUstream, CUdeviceptr, cuuint32_t, unsigned);
  using Write64Fn = CUresult (*)(CUstream, CUdeviceptr, cuuint64_t, unsigned);
  WriteFn write32 = nullptr, wait32 = nullptr;
  Write64Fn write64 = nullptr, wait64 = nullptr;
  cudaDriverEntryPointQueryResult q;
  CHECK(cudaGetDriverEntryPointByVersion("cuStreamWriteValue32", (void **)&write32, 12000,
                                         cudaEnableDefault, &q));
  CHECK(cudaGetDriverEntryPointByVersion("cuStreamWaitValue32", (void **)&wait32, 12000,
                                         cudaEnableDefault, &q));
  CHECK(cudaGetDriverEntryPointByVersion("cuStreamWriteValue64", (void **)&write64, 12000,
                                         cudaEnableDefault, &q));
  CHECK(cudaGetDriverEntryPointByVersion("cuStreamWaitValue64", (void **)&wait64, 12000,
                                         cudaEnableDefault, &q));
  CUdeviceptr flag = CUdeviceptr(buf) + 256;
  expect(write32(s1, flag, 41, 0) == CUDA_SUCCESS, "cuStreamWriteValue32", 0);
  expect(wait32(s1, flag, 41, CU_STREAM_WAIT_VALUE_EQ) == CUDA_SUCCESS, "wait EQ", 0);
  expect(wait32(s1, flag, 40, CU_STREAM_WAIT_VALUE_GEQ) == CUDA_SUCCESS, "wait GEQ", 0);
  expect(wait32(s1, flag, 1, CU_STREAM_WAIT_VALUE_AND) == CUDA_SUCCESS, "wait AND", 0);
  expect(write64(s1, flag + 8, 0x123456789abcull, 0) == CUDA_SUCCESS, "cuStreamWriteValue64", 0);
  expect(wait64(s1, flag + 8, 0x123456789abcull, CU_STREAM_WAIT_VALUE_EQ) == CUDA_SUCCESS,
         "wait64 EQ", 0);
  CHECK(cudaStreamSynchronize(s1));
  unsigned words[4];
  CHECK(cudaMemcpy(words, (void *)flag, sizeof(words), cudaMemcpyDeviceToHost));
  expect(words[0] == 41 && words[2] == 0x56789abcu && words[3] == 0x1234u, "written values",
         long(words[0]));

  // The dynamic shared memory that keeps two blocks of 128 threads resident per multiprocessor.
  size_t smem = 0;
  CHECK(cudaOccupancyAvailableDynamicSMemPerBlock(&smem, useShared, 2, 128));
  int blocks = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, useShared, 128, smem));
  expect(smem >= 128 * sizeof(int) && blocks >= 2, "available dynamic shared memory", long(smem));
  useShared<<<1, 128, 128 * sizeof(int), s2>>>(buf);
  std::vector<int> r = toHost(buf, 128);
  for (int i = 0; i < 128; ++i)
    expect(r[i] == 127 - i, "dynamic shared memory", i);
  CHECK(cudaFreeHost(host));
  CHECK(cudaFree(buf));
  CHECK(cudaStreamDestroy(s1));
  CHECK(cudaStreamDestroy(s2));
}

// cudaMemcpyBatchAsync (CUDA 12.8): host to device, device to device at an offset and device to
// host in one stream-ordered batch under one attribute entry; a batch whose source access order
// is unset is refused, as is one on the legacy default stream.
void batchCopies() {
  const int n = 1000;
  std::vector<int> a(n), b(n, 0);
  for (int i = 0; i < n; ++i)
    a[i] = i * 7 + 1;
  int *d1, *d2;
  CHECK(cudaMalloc(&d1, n * sizeof(int)));
  CHECK(cudaMalloc(&d2, n * sizeof(int)));
  CHECK(cudaMemset(d2, 0, n * sizeof(int)));
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  void *dsts[3] = {d1, d2 + 500, b.data()};
  const void *srcs[3] = {a.data(), d1, d1 + 100};
  size_t sizes[3] = {n * sizeof(int), 500 * sizeof(int), 200 * sizeof(int)};
  cudaMemcpyAttributes attr = {};
  attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
  size_t first = 0;
  CHECK(cudaMemcpyBatchAsync(dsts, srcs, sizes, 3, &attr, &first, 1, s));
  CHECK(cudaStreamSynchronize(s));
  std::vector<int> o = toHost(d2, n);
  for (int i = 0; i < n; ++i)
    expect(o[i] == (i < 500 ? 0 : a[i - 500]), "cudaMemcpyBatchAsync device to device", i);
  for (int i = 0; i < n; ++i)
    expect(b[i] == (i < 200 ? a[100 + i] : 0), "cudaMemcpyBatchAsync device to host", i);
  attr.srcAccessOrder = cudaMemcpySrcAccessOrderInvalid;
  expect(cudaMemcpyBatchAsync(dsts, srcs, sizes, 3, &attr, &first, 1, s) == cudaErrorInvalidValue,
         "a batch without a source access order is refused", 0);
  attr.srcAccessOrder = cudaMemcpySrcAccessOrderAny;
  expect(cudaMemcpyBatchAsync(dsts, srcs, sizes, 3, &attr, &first, 1, cudaStreamLegacy) ==
             cudaErrorInvalidValue,
         "a batch on the legacy default stream is refused", 0);
  cudaGetLastError();
  CHECK(cudaStreamDestroy(s));
  CHECK(cudaFree(d1));
  CHECK(cudaFree(d2));
}

int main() {
  pools();
  streams();
  batchCopies();
  if (failures) {
    std::printf("%d failures\n", failures);
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}
