// Device printf (CUDA's vprintf system call): each thread prints three lines whose arguments
// cover every argument size and alignment of the packed argument buffer (4-byte ints, 8-byte
// longs, floats promoted to double, strings as addresses, `*` width and precision), and stores
// what printf returned.
#include <cstdio>

extern "C" __global__ void printf_kernel(const char *s, int *ret, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n)
    return;
  int a = printf("t=%d u=%u x=%x ld=%ld f=%f s=%s c=%c\n", t, unsigned(t) * 3u, t * 17,
                 long(t) * -100000000000L, t * 0.5f, s, 'a' + t % 26);
  int b = printf("no arguments\n");
  int c = printf("%*d|%.*f|%hhd|%p|%%\n", 5, t, 2, double(t) / 3, (signed char)(t - 40), ret + t);
  ret[3 * t] = a;
  ret[3 * t + 1] = b;
  ret[3 * t + 2] = c;
}
