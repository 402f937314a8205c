// Opens the libcuda.so.1 named by argv[1] (an absolute or relative path, as some programs and
// frameworks do) and prints the driver version it reports. Built without sanitizers, like the
// nvcc-built programs `reptx run` serves.
#include <dlfcn.h>
#include <stdio.h>

int main(int Argc, char **Argv) {
  if (Argc != 2) {
    fprintf(stderr, "usage: %s PATH/libcuda.so.1\n", Argv[0]);
    return 2;
  }
  void *Lib = dlopen(Argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!Lib) {
    printf("FAIL: dlopen: %s\n", dlerror());
    return 1;
  }
  int (*GetVersion)(int *) = (int (*)(int *))dlsym(Lib, "cuDriverGetVersion");
  int Version = 0;
  if (!GetVersion || GetVersion(&Version) != 0) {
    printf("FAIL: cuDriverGetVersion\n");
    return 1;
  }
  printf("cuDriverGetVersion: %d\n", Version);
  return 0;
}
