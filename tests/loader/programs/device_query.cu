// Device properties as cudart reports them from the driver's attributes.
#include "check.h"
#include <cstring>

int main() {
  int count = 0, driver = 0, runtime = 0;
  CHECK(cudaGetDeviceCount(&count));
  CHECK(cudaDriverGetVersion(&driver));
  CHECK(cudaRuntimeGetVersion(&runtime));
  cudaDeviceProp p;
  CHECK(cudaGetDeviceProperties(&p, 0));
  int smCount = 0;
  CHECK(cudaDeviceGetAttribute(&smCount, cudaDevAttrMultiProcessorCount, 0));
  size_t freeMem = 0, totalMem = 0;
  CHECK(cudaMemGetInfo(&freeMem, &totalMem));
  std::printf("%d device(s), driver %d, runtime %d\n", count, driver, runtime);
  std::printf("name '%s', cc %d.%d, %d SMs, warp %d, %zu MiB, maxThreadsPerBlock %d, "
              "sharedMemPerBlock %zu\n",
              p.name, p.major, p.minor, p.multiProcessorCount, p.warpSize, p.totalGlobalMem >> 20,
              p.maxThreadsPerBlock, p.sharedMemPerBlock);
  bool ok = count == 1 && driver >= 13000 && std::strstr(p.name, "reptx") && p.major >= 7 &&
            p.warpSize == 32 && p.maxThreadsPerBlock == 1024 && p.maxThreadsDim[0] == 1024 &&
            p.maxGridSize[0] == 2147483647 && p.sharedMemPerBlock == 48 * 1024 &&
            p.totalGlobalMem > (size_t(1) << 30) && smCount == p.multiProcessorCount &&
            smCount > 0 && totalMem == p.totalGlobalMem && freeMem <= totalMem &&
            p.regsPerBlock > 0 && p.l2CacheSize > 0;
  if (!ok) {
    std::printf("FAIL: implausible properties\n");
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}
