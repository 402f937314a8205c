// A 2D grid of 2D blocks (matrix transpose with a partial edge) and cudaMemcpy2D on pitched
// memory from cudaMallocPitch.
#include "check.h"
#include <vector>

__global__ void transpose(const float *in, size_t inPitch, float *out, int rows, int cols) {
  int x = blockIdx.x * blockDim.x + threadIdx.x; // column
  int y = blockIdx.y * blockDim.y + threadIdx.y; // row
  if (x < cols && y < rows) {
    const float *row =
        reinterpret_cast<const float *>(reinterpret_cast<const char *>(in) + y * inPitch);
    out[x * rows + y] = row[x];
  }
}

int main() {
  const int rows = 37, cols = 50;
  std::vector<float> a(rows * cols), t(rows * cols);
  for (int i = 0; i < rows * cols; ++i)
    a[i] = float(i) * 0.25f;
  float *din, *dout;
  size_t pitch = 0;
  CHECK(cudaMallocPitch(&din, &pitch, cols * sizeof(float), rows));
  CHECK(cudaMalloc(&dout, rows * cols * sizeof(float)));
  CHECK(cudaMemcpy2D(din, pitch, a.data(), cols * sizeof(float), cols * sizeof(float), rows,
                     cudaMemcpyHostToDevice));
  dim3 block(16, 8), grid((cols + 15) / 16, (rows + 7) / 8);
  transpose<<<grid, block>>>(din, pitch, dout, rows, cols);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(t.data(), dout, rows * cols * sizeof(float), cudaMemcpyDeviceToHost));
  for (int y = 0; y < rows; ++y)
    for (int x = 0; x < cols; ++x)
      if (t[x * rows + y] != a[y * cols + x]) {
        std::printf("FAIL: t[%d][%d] = %f\n", x, y, t[x * rows + y]);
        return 1;
      }
  std::printf("PASS\n");
  return 0;
}
