// The second module of the multimod program (multimod_main.cu).
#include "check.h"

__global__ void offset(float *v, int n, float add) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] += add;
}

__global__ void twice(float *v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    v[i] = 2.0f * v[i];
}

void launchOffset(float *v, int n, float add) { offset<<<(n + 63) / 64, 64>>>(v, n, add); }
void launchTwice(float *v, int n) { twice<<<(n + 63) / 64, 64>>>(v, n); }
