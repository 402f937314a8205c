// Linked against the fake libcuda.so.1 with -lcuda and a DT_RPATH or DT_RUNPATH naming its
// directory (tests/loader/CMakeLists.txt); prints the driver version the libcuda.so.1 the dynamic
// linker chose reports.
#include <stdio.h>

int cuDriverGetVersion(int *Version);

int main(void) {
  int Version = 0;
  if (cuDriverGetVersion(&Version) != 0) {
    printf("FAIL: cuDriverGetVersion\n");
    return 1;
  }
  printf("cuDriverGetVersion: %d\n", Version);
  return 0;
}
