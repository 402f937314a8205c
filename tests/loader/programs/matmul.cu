// Tiled matrix multiply: 16x16 tiles staged in shared memory, __syncthreads between phases;
// sizes that are not multiples of the tile. Small integers keep every float sum exact.
#include "check.h"
#include <vector>

constexpr int Tile = 16;

__global__ void matmul(const float *A, const float *B, float *C, int M, int N, int K) {
  __shared__ float As[Tile][Tile];
  __shared__ float Bs[Tile][Tile];
  int row = blockIdx.y * Tile + threadIdx.y, col = blockIdx.x * Tile + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < (K + Tile - 1) / Tile; ++t) {
    int ka = t * Tile + threadIdx.x, kb = t * Tile + threadIdx.y;
    As[threadIdx.y][threadIdx.x] = row < M && ka < K ? A[row * K + ka] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = kb < K && col < N ? B[kb * N + col] : 0.0f;
    __syncthreads();
    for (int k = 0; k < Tile; ++k)
      acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < M && col < N)
    C[row * N + col] = acc;
}

int main() {
  const int M = 37, N = 45, K = 53;
  std::vector<float> a(M * K), b(K * N), c(M * N);
  for (int i = 0; i < M * K; ++i)
    a[i] = float((i * 7) % 11) - 5.0f;
  for (int i = 0; i < K * N; ++i)
    b[i] = float((i * 5) % 13) - 6.0f;
  float *da, *db, *dc;
  CHECK(cudaMalloc(&da, a.size() * sizeof(float)));
  CHECK(cudaMalloc(&db, b.size() * sizeof(float)));
  CHECK(cudaMalloc(&dc, c.size() * sizeof(float)));
  CHECK(cudaMemcpy(da, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice));
  dim3 block(Tile, Tile), grid((N + Tile - 1) / Tile, (M + Tile - 1) / Tile);
  matmul<<<grid, block>>>(da, db, dc, M, N, K);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(c.data(), dc, c.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float ref = 0.0f;
      for (int k = 0; k < K; ++k)
        ref += a[i * K + k] * b[k * N + j];
      if (c[i * N + j] != ref) {
        std::printf("FAIL: C[%d][%d] = %f, expected %f\n", i, j, c[i * N + j], ref);
        return 1;
      }
    }
  CHECK(cudaFree(da));
  CHECK(cudaFree(db));
  CHECK(cudaFree(dc));
  std::printf("PASS\n");
  return 0;
}
