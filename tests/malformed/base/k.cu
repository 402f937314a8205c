// Smallest useful CUDA program: one kernel and a host launch, so every nvcc output kind
// (object, bare fatbin, executable) carries a fatbin with one cubin and one PTX entry.
__global__ void scale(float *x, float a) { x[threadIdx.x] *= a; }

int main() {
  scale<<<1, 1>>>(nullptr, 2.0f);
  return 0;
}
