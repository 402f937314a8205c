// Kernels of the static code-quality benchmark (issue 4, acceptance 5; bench/quality/README.md).
// One CUDA source, compiled twice: by nvcc to PTX (then by reptx to gfx942) and natively by
// clang-22 in HIP mode through cuda_shim.h. Each kernel is a common CUDA idiom with a loop whose
// trip count is known only at run time, so that both compilers keep a hot loop to compare.
// Block sizes are fixed by __launch_bounds__ where a kernel depends on them.
#include "cuda_shim.h"

#define FULL_MASK 0xffffffffu

// NVCC_UNROLL marks the loops that nvcc (NVVM) unrolls by 4 on its own (a runtime trip count:
// main loop plus remainder). It is empty, so the PTX does not depend on it; run.sh -u builds the
// native baseline once more with QUALITY_NVCC_UNROLL defined, unrolling the same loops by 4, to
// tell that choice of nvcc's apart from code generation.
#ifdef QUALITY_NVCC_UNROLL
#define NVCC_UNROLL _Pragma("unroll 4")
#else
#define NVCC_UNROLL
#endif

static __device__ __forceinline__ float warpSum(float V) {
#pragma unroll
  for (int D = 16; D > 0; D >>= 1)
    V += __shfl_down_sync(FULL_MASK, V, D);
  return V;
}

// Butterfly forms leave the result in every lane.
static __device__ __forceinline__ float warpAllSum(float V) {
#pragma unroll
  for (int M = 16; M > 0; M >>= 1)
    V += __shfl_xor_sync(FULL_MASK, V, M);
  return V;
}

static __device__ __forceinline__ float warpAllMax(float V) {
#pragma unroll
  for (int M = 16; M > 0; M >>= 1)
    V = fmaxf(V, __shfl_xor_sync(FULL_MASK, V, M));
  return V;
}

// 256-thread blocks: eight warps, partial results through shared memory.
static __device__ __forceinline__ float blockAllSum(float V, float *Scratch) {
  V = warpAllSum(V);
  if ((threadIdx.x & 31) == 0)
    Scratch[threadIdx.x >> 5] = V;
  __syncthreads();
  V = Scratch[threadIdx.x & 7];
  __syncthreads();
  return warpAllSum(V);
}

static __device__ __forceinline__ float blockAllMax(float V, float *Scratch) {
  V = warpAllMax(V);
  if ((threadIdx.x & 31) == 0)
    Scratch[threadIdx.x >> 5] = V;
  __syncthreads();
  V = Scratch[threadIdx.x & 7];
  __syncthreads();
  return warpAllMax(V);
}

// 1. c = a + b, grid-stride loop.
extern "C" __global__ void vadd(const float *__restrict__ A, const float *__restrict__ B,
                                float *__restrict__ C, int N) {
  for (int I = blockIdx.x * blockDim.x + threadIdx.x; I < N; I += blockDim.x * gridDim.x)
    C[I] = A[I] + B[I];
}

// 2. Sum of In into *Out: grid-stride accumulation, warp shuffles, shared memory, one float
// atomic per block.
extern "C" __global__ void __launch_bounds__(256)
    reduce_sum(const float *__restrict__ In, float *__restrict__ Out, int N) {
  __shared__ float WarpSums[8];
  float V = 0.0f;
  for (int I = blockIdx.x * 256 + threadIdx.x; I < N; I += 256 * gridDim.x)
    V += In[I];
  V = warpSum(V);
  unsigned Lane = threadIdx.x & 31, Warp = threadIdx.x >> 5;
  if (Lane == 0)
    WarpSums[Warp] = V;
  __syncthreads();
  if (Warp == 0) {
    V = warpSum(Lane < 8 ? WarpSums[Lane] : 0.0f);
    if (Lane == 0)
      atomicAdd(Out, V);
  }
}

// 3. C = A * B for N x N matrices (N a multiple of 16), 16 x 16 shared-memory tiles.
extern "C" __global__ void __launch_bounds__(256)
    sgemm_tiled(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C,
                int N) {
  __shared__ float As[16][16];
  __shared__ float Bs[16][16];
  int Row = blockIdx.y * 16 + threadIdx.y, Col = blockIdx.x * 16 + threadIdx.x;
  float Acc = 0.0f;
  for (int T = 0; T < N; T += 16) {
    As[threadIdx.y][threadIdx.x] = A[Row * N + T + threadIdx.x];
    Bs[threadIdx.y][threadIdx.x] = B[(T + threadIdx.y) * N + Col];
    __syncthreads();
#pragma unroll
    for (int K = 0; K < 16; ++K)
      Acc += As[threadIdx.y][K] * Bs[K][threadIdx.x];
    __syncthreads();
  }
  C[Row * N + Col] = Acc;
}

// 4. 256-bin byte histogram: shared-memory atomics, then one global atomic per bin and block.
extern "C" __global__ void __launch_bounds__(256)
    histogram256(const unsigned char *__restrict__ Data, unsigned *__restrict__ Bins, int N) {
  __shared__ unsigned Local[256];
  Local[threadIdx.x] = 0;
  __syncthreads();
  for (int I = blockIdx.x * 256 + threadIdx.x; I < N; I += 256 * gridDim.x)
    atomicAdd(&Local[Data[I]], 1u);
  __syncthreads();
  atomicAdd(&Bins[threadIdx.x], Local[threadIdx.x]);
}

// 5. Inclusive scan of each block's elements (Hillis-Steele, double-buffered shared memory).
extern "C" __global__ void __launch_bounds__(1024)
    scan_block(const int *__restrict__ In, int *__restrict__ Out, int N) {
  __shared__ int Buf[2][1024];
  unsigned T = threadIdx.x;
  int I = blockIdx.x * blockDim.x + T;
  int Cur = 0;
  Buf[0][T] = I < N ? In[I] : 0;
  __syncthreads();
  for (unsigned Off = 1; Off < blockDim.x; Off <<= 1) {
    int X = Buf[Cur][T];
    if (T >= Off)
      X += Buf[Cur][T - Off];
    Cur ^= 1;
    Buf[Cur][T] = X;
    __syncthreads();
  }
  if (I < N)
    Out[I] = Buf[Cur][T];
}

// 6. Inclusive scan of each row with one warp per row: 32 elements per step with warp shuffles,
// the running total broadcast from lane 31.
extern "C" __global__ void __launch_bounds__(32)
    scan_rows_warp(const int *__restrict__ In, int *__restrict__ Out, int Cols) {
  const int *Row = In + (size_t)blockIdx.x * Cols;
  int *Res = Out + (size_t)blockIdx.x * Cols;
  unsigned Lane = threadIdx.x;
  int Carry = 0;
  NVCC_UNROLL
  for (int Base = 0; Base < Cols; Base += 32) {
    int C = Base + Lane;
    int V = C < Cols ? Row[C] : 0;
#pragma unroll
    for (unsigned D = 1; D < 32; D <<= 1) {
      int U = __shfl_up_sync(FULL_MASK, V, D);
      if (Lane >= D)
        V += U;
    }
    if (C < Cols)
      Res[C] = V + Carry;
    Carry += __shfl_sync(FULL_MASK, V, 31);
  }
}

// 7. Out = In^T for a W x H matrix, 32 x 32 tiles through padded shared memory, 32 x 8 threads.
extern "C" __global__ void __launch_bounds__(256)
    transpose(const float *__restrict__ In, float *__restrict__ Out, int W, int H) {
  __shared__ float Tile[32][33];
  int X = blockIdx.x * 32 + threadIdx.x, Y = blockIdx.y * 32 + threadIdx.y;
  for (int J = 0; J < 32; J += 8)
    if (X < W && Y + J < H)
      Tile[threadIdx.y + J][threadIdx.x] = In[(Y + J) * W + X];
  __syncthreads();
  X = blockIdx.y * 32 + threadIdx.x;
  Y = blockIdx.x * 32 + threadIdx.y;
  for (int J = 0; J < 32; J += 8)
    if (X < H && Y + J < W)
      Out[(Y + J) * H + X] = Tile[threadIdx.x][threadIdx.y + J];
}

// 8. 5-point Jacobi step on an Nx x Ny grid; each thread marches down one column, keeping the
// rows above and at the current point in registers.
extern "C" __global__ void stencil5(const float *__restrict__ In, float *__restrict__ Out, int Nx,
                                    int Ny) {
  int X = blockIdx.x * blockDim.x + threadIdx.x;
  if (X < 1 || X >= Nx - 1)
    return;
  float Up = In[X], Mid = In[Nx + X];
  NVCC_UNROLL
  for (int Y = 1; Y < Ny - 1; ++Y) {
    float Down = In[(Y + 1) * Nx + X];
    Out[Y * Nx + X] = 0.2f * (Mid + Up + Down + In[Y * Nx + X - 1] + In[Y * Nx + X + 1]);
    Up = Mid;
    Mid = Down;
  }
}

// 9. Row-wise softmax, one 256-thread block per row.
extern "C" __global__ void __launch_bounds__(256)
    softmax_rows(const float *__restrict__ X, float *__restrict__ Y, int Cols) {
  __shared__ float Scratch[8];
  const float *Row = X + (size_t)blockIdx.x * Cols;
  float *Res = Y + (size_t)blockIdx.x * Cols;
  float M = -__builtin_inff();
  NVCC_UNROLL
  for (int C = threadIdx.x; C < Cols; C += 256)
    M = fmaxf(M, Row[C]);
  M = blockAllMax(M, Scratch);
  float S = 0.0f;
  NVCC_UNROLL
  for (int C = threadIdx.x; C < Cols; C += 256)
    S += __expf(Row[C] - M);
  float Inv = 1.0f / blockAllSum(S, Scratch);
  NVCC_UNROLL
  for (int C = threadIdx.x; C < Cols; C += 256)
    Res[C] = __expf(Row[C] - M) * Inv;
}

// 10. Layer normalisation of each row with gain and bias, one 256-thread block per row.
extern "C" __global__ void __launch_bounds__(256)
    layernorm_rows(const float *__restrict__ X, const float *__restrict__ Gamma,
                   const float *__restrict__ Beta, float *__restrict__ Y, int Cols) {
  __shared__ float Scratch[8];
  const float *Row = X + (size_t)blockIdx.x * Cols;
  float *Res = Y + (size_t)blockIdx.x * Cols;
  float S = 0.0f, Sq = 0.0f;
  NVCC_UNROLL
  for (int C = threadIdx.x; C < Cols; C += 256) {
    float V = Row[C];
    S += V;
    Sq += V * V;
  }
  float Mean = blockAllSum(S, Scratch) / Cols;
  float Var = blockAllSum(Sq, Scratch) / Cols - Mean * Mean;
  float Rstd = rsqrtf(Var + 1e-5f);
  NVCC_UNROLL
  for (int C = threadIdx.x; C < Cols; C += 256)
    Res[C] = (Row[C] - Mean) * Rstd * Gamma[C] + Beta[C];
}

// 11. Batch of independent 16 x 16 products C[b] = A[b] * B[b]; 16 x 16 threads, blocks loop
// over the batch.
extern "C" __global__ void __launch_bounds__(256)
    batched_gemm16(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C,
                   int Batch) {
  __shared__ float As[16][17];
  __shared__ float Bs[16][17];
  unsigned Tx = threadIdx.x, Ty = threadIdx.y;
  for (int Mat = blockIdx.x; Mat < Batch; Mat += gridDim.x) {
    size_t Base = (size_t)Mat * 256;
    As[Ty][Tx] = A[Base + Ty * 16 + Tx];
    Bs[Ty][Tx] = B[Base + Ty * 16 + Tx];
    __syncthreads();
    float Acc = 0.0f;
#pragma unroll
    for (int K = 0; K < 16; ++K)
      Acc += As[Ty][K] * Bs[K][Tx];
    C[Base + Ty * 16 + Tx] = Acc;
    __syncthreads();
  }
}

// 12. y = A x for a CSR matrix, one thread per row.
extern "C" __global__ void spmv_csr(const int *__restrict__ RowPtr, const int *__restrict__ ColIdx,
                                    const float *__restrict__ Vals, const float *__restrict__ X,
                                    float *__restrict__ Y, int Rows) {
  int R = blockIdx.x * blockDim.x + threadIdx.x;
  if (R >= Rows)
    return;
  float S = 0.0f;
  NVCC_UNROLL
  for (int J = RowPtr[R]; J < RowPtr[R + 1]; ++J)
    S += Vals[J] * X[ColIdx[J]];
  Y[R] = S;
}
