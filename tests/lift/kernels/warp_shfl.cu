// shfl.sync in its four modes with the source lane/offset b and the packed clamp/segment operand c
// given at run time, the predicate destination captured, on the active lanes of each warp (the
// threads past n leave first, so the last warp may be partial).
#define SHFL(MODE, D, P, V, B, C, M)                                                               \
  asm volatile("{ .reg .pred q; shfl.sync." MODE                                                   \
               ".b32 %0|q, %2, %3, %4, %5; selp.u32 %1, 1, 0, q; }"                                \
               : "=r"(D), "=r"(P)                                                                  \
               : "r"(V), "r"(B), "r"(C), "r"(M))

extern "C" __global__ void warp_shfl(const unsigned *in, unsigned *out, int n, unsigned b,
                                     unsigned c) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  unsigned v = in[i], m = __activemask();
  unsigned d[4], p[4];
  SHFL("up", d[0], p[0], v, b, c, m);
  SHFL("down", d[1], p[1], v, b, c, m);
  SHFL("bfly", d[2], p[2], v, b, c, m);
  SHFL("idx", d[3], p[3], v, b, c, m);
  for (int k = 0; k < 4; ++k) {
    out[i * 8 + 2 * k] = d[k];
    out[i * 8 + 2 * k + 1] = p[k];
  }
}

// The CUDA intrinsics with constant operands (immediate b and c): width-16 segments.
extern "C" __global__ void warp_shfl_width16(const float *in, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = in[i];
  out[i * 4 + 0] = __shfl_up_sync(0xffffffffu, v, 3, 16);
  out[i * 4 + 1] = __shfl_down_sync(0xffffffffu, v, 5, 16);
  out[i * 4 + 2] = __shfl_xor_sync(0xffffffffu, v, 9, 16);
  out[i * 4 + 3] = __shfl_sync(0xffffffffu, v, 21, 16);
}
