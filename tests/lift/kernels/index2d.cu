// A 2-D index computation with a bounds check on both axes and 64-bit row offsets into a pitched
// array (row stride in elements).
extern "C" __global__ void index2d(unsigned *out, int width, int height, int stride,
                                   unsigned seed) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < width && y < height)
    out[(long long)y * stride + x] = (unsigned)(x * 1000 + y) ^ seed;
}
