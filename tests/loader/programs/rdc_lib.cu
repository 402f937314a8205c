// The second translation unit of the rdc program (rdc_main.cu), compiled with -rdc=true.
__device__ float bias = 0.0f;

__device__ float polynomial(float x) { return (2.0f * x - 3.0f) * x + 1.0f; }

__device__ int clampIndex(int i, int n) { return i < n ? i : n - 1; }

static __device__ __noinline__ float scale(float x) { return 100.0f * x; }

__device__ float libScale(float x) { return scale(x); }
