// A fake libcuda.so.1 for the LD_AUDIT tests: its only entry point reports the driver version
// 1234, which no real driver (and not reptx, 13000 or more) reports, so a program's output shows
// which libcuda.so.1 it reached.
__attribute__((visibility("default"))) int cuDriverGetVersion(int *Version) {
  *Version = 1234;
  return 0; // CUDA_SUCCESS
}
