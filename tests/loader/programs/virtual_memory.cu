// CUDA's virtual memory management as allocators use it (PyTorch's expandable segments, vLLM's
// sleep mode): a reserved range grown by mapping 2 MiB physical chunks one after another, used by
// copies and a kernel across the chunk boundary, one chunk mapped twice (both addresses show the
// same bytes), access taken away and given back, everything unmapped, released and freed.
// Expected values are computed on the host.
#include "check.h"
#include <cstdint>
#include <cuda.h>

__global__ void scale(int *p, size_t n, int k) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n)
    p[i] = p[i] * k + int(i % 1000);
}

int main() {
  CHECK(cudaFree(nullptr)); // the primary context, current
  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = 0;
  size_t gran = 0;
  CHECK_STATUS(cuMemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  expect(gran > 0 && (gran & (gran - 1)) == 0, "granularity is a power of two", long(gran));

  // Reserve three chunks; map two physical chunks one after the other.
  CUdeviceptr base = 0;
  CHECK_STATUS(cuMemAddressReserve(&base, 3 * gran, 0, 0, 0));
  CUmemGenericAllocationHandle h0, h1;
  CHECK_STATUS(cuMemCreate(&h0, gran, &prop, 0));
  CHECK_STATUS(cuMemCreate(&h1, gran, &prop, 0));
  CHECK_STATUS(cuMemMap(base, gran, 0, h0, 0));
  CHECK_STATUS(cuMemMap(base + gran, gran, 0, h1, 0));
  CUmemAccessDesc access = {};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CHECK_STATUS(cuMemSetAccess(base, 2 * gran, &access, 1));
  unsigned long long flags = 0;
  CHECK_STATUS(cuMemGetAccess(&flags, &prop.location, base + gran + 4));
  expect(flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE, "cuMemGetAccess", long(flags));

  // A buffer that spans the boundary between the two chunks.
  const size_t n = gran / sizeof(int);         // ints in one chunk
  const size_t first = n - 1000, count = 3000; // 1000 in the first chunk, 2000 in the second
  int *buf = reinterpret_cast<int *>(base) + first;
  std::vector<int> host(count);
  for (size_t i = 0; i < count; ++i)
    host[i] = int(i * 3 + 1);
  CHECK(cudaMemcpy(buf, host.data(), count * sizeof(int), cudaMemcpyHostToDevice));
  scale<<<(count + 255) / 256, 256>>>(buf, count, 5);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<int> out = toHost(buf, count);
  for (size_t i = 0; i < count; ++i)
    expect(out[i] == host[i] * 5 + int(i % 1000), "kernel across the chunk boundary", long(i));

  // The second physical chunk mapped again at the third place: both show the same bytes.
  CHECK_STATUS(cuMemMap(base + 2 * gran, gran, 0, h1, 0));
  CHECK_STATUS(cuMemSetAccess(base + 2 * gran, gran, &access, 1));
  std::vector<int> alias = toHost(reinterpret_cast<int *>(base + 2 * gran), 2000);
  for (size_t i = 0; i < 2000; ++i)
    expect(alias[i] == out[1000 + i], "the same chunk mapped twice", long(i));
  CHECK(cudaMemset(reinterpret_cast<int *>(base + 2 * gran) + 10, 0, sizeof(int)));
  int ten = -1;
  CHECK(cudaMemcpy(&ten, reinterpret_cast<int *>(base + gran) + 10, sizeof(int),
                   cudaMemcpyDeviceToHost));
  expect(ten == 0, "a write through one mapping shows through the other", ten);

  // The handle of an address; the properties it was made with.
  CUmemGenericAllocationHandle retained = 0;
  CHECK_STATUS(cuMemRetainAllocationHandle(&retained, reinterpret_cast<void *>(base + gran + 64)));
  expect(retained == h1, "cuMemRetainAllocationHandle", long(retained));
  CHECK_STATUS(cuMemRelease(retained));
  CUmemAllocationProp got = {};
  CHECK_STATUS(cuMemGetAllocationPropertiesFromHandle(&got, h0));
  expect(got.type == CU_MEM_ALLOCATION_TYPE_PINNED && got.location.id == 0,
         "cuMemGetAllocationPropertiesFromHandle", got.type);

  // Access taken away: copies fail; given back: the data is still there.
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_NONE;
  CHECK_STATUS(cuMemSetAccess(base, gran, &access, 1));
  int probe = 0;
  expect(cuMemcpyDtoH(&probe, base, sizeof(int)) != CUDA_SUCCESS, "no access, no copy", 0);
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CHECK_STATUS(cuMemSetAccess(base, gran, &access, 1));
  CHECK_STATUS(cuMemcpyDtoH(&probe, reinterpret_cast<CUdeviceptr>(buf), sizeof(int)));
  expect(probe == out[0], "access given back", probe);

  // Partial unmaps and a busy range are refused; then everything goes.
  expect(cuMemUnmap(base, gran / 2) == CUDA_ERROR_INVALID_VALUE, "half a mapping", 0);
  expect(cuMemAddressFree(base, 3 * gran) == CUDA_ERROR_INVALID_VALUE, "free while mapped", 0);
  expect(cuMemMap(base, gran, 0, h0, 0) == CUDA_ERROR_INVALID_VALUE, "map over a mapping", 0);
  CHECK_STATUS(cuMemUnmap(base, 3 * gran));
  CHECK_STATUS(cuMemRelease(h0));
  CHECK_STATUS(cuMemRelease(h1));
  CHECK_STATUS(cuMemAddressFree(base, 3 * gran));
  if (failures)
    return 1;
  std::printf("PASS\n");
  return 0;
}
