// cp.async (global -> shared, 4/8/16 bytes, with src-size zero fill and the ignore-src
// predicate) with commit_group/wait_group, and tanh.approx.f32. Blocks of 64 threads; thread t
// copies 16 bytes of row t with src-size = t % 17 (bytes past it must be zero), 8 bytes with
// .ca, and 4 bytes unless t is odd (ignore-src: zeros).
extern "C" __global__ void async_copy(const unsigned char *src, unsigned char *out, const float *x,
                                      float *y, int n) {
  __shared__ __align__(16) unsigned char tile[64 * 32];
  int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  const unsigned char *row = src + (size_t)i * 32;
  unsigned dst = (unsigned)__cvta_generic_to_shared(tile + t * 32);
  unsigned srcsize = t % 17;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(row), "r"(srcsize));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(dst + 16), "l"(row + 16));
  asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %2, 0;\n\t"
               "cp.async.ca.shared.global [%0], [%1], 4, p;\n\t}" ::"r"(dst + 24),
               "l"(row + 24), "r"(t & 1));
  asm volatile("cp.async.commit_group;");
  asm volatile("cp.async.wait_group 0;");
  __syncthreads();
  for (int k = 0; k < 28; ++k)
    out[(size_t)i * 28 + k] = tile[t * 32 + k];
  if (i < n) {
    float r;
    asm("tanh.approx.f32 %0, %1;" : "=f"(r) : "f"(x[i]));
    y[i] = r;
  }
}
