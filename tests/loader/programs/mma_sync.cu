// Warp-level matrix multiply-accumulate through inline PTX, as tensor-core kernels use it: mma.sync
// (f16, bf16, tf32, s8 with and without .satfinite, f64, f16 accumulators) and ldmatrix (.x2, .x4,
// .trans), single tiles and a tiled GEMM looping over K through shared memory, against a host
// computation. Inputs are small integers and binary fractions, so every product and sum is exact.
#include "check.h"
#include <cstdint>
#include <cstring>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

// D (16 x 8, f32) = A (16 x 16, f16, row-major) * B (16 x 8) + C, A and B through ldmatrix from
// shared memory: B as [n][k] (x2) or, with Trans, as [k][n] (x2.trans). One warp per tile.
template <bool Bf16, bool Trans>
__global__ void mma16816(const uint16_t *A, const uint16_t *B, const float *C, float *D) {
  // Two warps per block, a tile each (the two warps of a wave64 wave in packed mode).
  __shared__ __align__(16) uint16_t AsAll[2][16 * 16], BsAll[2][16 * 8];
  int L = threadIdx.x % 32, W = threadIdx.x / 32, Tile = blockIdx.x * 2 + W;
  uint16_t *As = AsAll[W], *Bs = BsAll[W];
  for (int I = L; I < 256; I += 32)
    As[I] = A[Tile * 256 + I];
  for (int I = L; I < 128; I += 32)
    Bs[I] = B[Tile * 128 + I];
  __syncwarp();
  unsigned a[4], b[2];
  // ldmatrix.x4: lanes 8m..8m+7 address the rows of matrix m = (rows (m % 2) * 8.., cols (m / 2)
  // * 8..).
  int M = L / 8, R = L % 8;
  unsigned Aaddr = (unsigned)__cvta_generic_to_shared(&As[((M % 2) * 8 + R) * 16 + (M / 2) * 8]);
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3])
               : "r"(Aaddr));
  if (!Trans) {
    // Bs[n][k]: matrix 0 = k 0-7, matrix 1 = k 8-15 (lanes 0-15 give the addresses).
    unsigned Baddr = (unsigned)__cvta_generic_to_shared(&Bs[(L % 8) * 16 + ((L / 8) % 2) * 8]);
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];"
                 : "=r"(b[0]), "=r"(b[1])
                 : "r"(Baddr));
  } else {
    // Bs[k][n]: matrix 0 = rows k 0-7, matrix 1 = rows k 8-15, transposed on the way.
    unsigned Baddr = (unsigned)__cvta_generic_to_shared(&Bs[(L % 16) * 8]);
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];"
                 : "=r"(b[0]), "=r"(b[1])
                 : "r"(Baddr));
  }
  int G = L >> 2, T = L & 3;
  float c[4], d[4];
  for (int I = 0; I < 4; ++I)
    c[I] = C[Tile * 128 + (G + 8 * (I / 2)) * 8 + 2 * T + (I & 1)];
  if (Bf16)
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, "
                 "{%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]),
                   "f"(c[1]), "f"(c[2]), "f"(c[3]));
  else
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
                 "{%8,%9}, {%10,%11,%12,%13};"
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]),
                   "f"(c[1]), "f"(c[2]), "f"(c[3]));
  for (int I = 0; I < 4; ++I)
    D[Tile * 128 + (G + 8 * (I / 2)) * 8 + 2 * T + (I & 1)] = d[I];
}

// m16n8k16 with f16 accumulators; fragments loaded directly from global memory (A row-major 16x16,
// B as [n][k], C and D 16 x 8 f16).
__global__ void mma16816_f16acc(const uint16_t *A, const uint16_t *B, const uint16_t *C,
                                uint16_t *D) {
  int L = threadIdx.x, G = L >> 2, T = L & 3;
  auto pair = [](const uint16_t *P) { return (unsigned)P[0] | ((unsigned)P[1] << 16); };
  unsigned a[4] = {pair(&A[G * 16 + 2 * T]), pair(&A[(G + 8) * 16 + 2 * T]),
                   pair(&A[G * 16 + 2 * T + 8]), pair(&A[(G + 8) * 16 + 2 * T + 8])};
  unsigned b[2] = {pair(&B[G * 16 + 2 * T]), pair(&B[G * 16 + 2 * T + 8])};
  unsigned c[2] = {pair(&C[G * 8 + 2 * T]), pair(&C[(G + 8) * 8 + 2 * T])}, d[2];
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};"
      : "=r"(d[0]), "=r"(d[1])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]));
  D[G * 8 + 2 * T] = d[0] & 0xffff;
  D[G * 8 + 2 * T + 1] = d[0] >> 16;
  D[(G + 8) * 8 + 2 * T] = d[1] & 0xffff;
  D[(G + 8) * 8 + 2 * T + 1] = d[1] >> 16;
}

// m16n8k8 tf32: A 16 x 8 row-major f32, B as [n][k] (8 x 8), C/D 16 x 8 f32.
__global__ void mma1688_tf32(const float *A, const float *B, const float *C, float *D) {
  int L = threadIdx.x, G = L >> 2, T = L & 3;
  unsigned a[4] = {__float_as_uint(A[G * 8 + T]), __float_as_uint(A[(G + 8) * 8 + T]),
                   __float_as_uint(A[G * 8 + T + 4]), __float_as_uint(A[(G + 8) * 8 + T + 4])};
  unsigned b[2] = {__float_as_uint(B[G * 8 + T]), __float_as_uint(B[G * 8 + T + 4])};
  float c[4], d[4];
  for (int I = 0; I < 4; ++I)
    c[I] = C[(G + 8 * (I / 2)) * 8 + 2 * T + (I & 1)];
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
               "{%8,%9}, {%10,%11,%12,%13};"
               : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]),
                 "f"(c[1]), "f"(c[2]), "f"(c[3]));
  for (int I = 0; I < 4; ++I)
    D[(G + 8 * (I / 2)) * 8 + 2 * T + (I & 1)] = d[I];
}

// m16n8k32 with s8 operands (.satfinite, or wrapping): A 16 x 32 row-major bytes, B as [n][k]
// (8 x 32), C/D 16 x 8 s32.
template <int Kind> // 0: .satfinite, 1: wrapping
__global__ void mma16832(const uint8_t *A, const uint8_t *B, const int *C, int *D) {
  int L = threadIdx.x, G = L >> 2, T = L & 3;
  auto quad = [](const uint8_t *P) {
    unsigned V;
    memcpy(&V, P, 4);
    return V;
  };
  unsigned a[4] = {quad(&A[G * 32 + 4 * T]), quad(&A[(G + 8) * 32 + 4 * T]),
                   quad(&A[G * 32 + 4 * T + 16]), quad(&A[(G + 8) * 32 + 4 * T + 16])};
  unsigned b[2] = {quad(&B[G * 32 + 4 * T]), quad(&B[G * 32 + 4 * T + 16])};
  int c[4], d[4];
  for (int I = 0; I < 4; ++I)
    c[I] = C[(G + 8 * (I / 2)) * 8 + 2 * T + (I & 1)];
  if (Kind == 0)
    asm volatile("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 {%0,%1,%2,%3}, "
                 "{%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]),
                   "r"(c[1]), "r"(c[2]), "r"(c[3]));
  else
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
                 "{%8,%9}, {%10,%11,%12,%13};"
                 : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]),
                   "r"(c[1]), "r"(c[2]), "r"(c[3]));
  for (int I = 0; I < 4; ++I)
    D[(G + 8 * (I / 2)) * 8 + 2 * T + (I & 1)] = d[I];
}

// m8n8k4 f64: A 8 x 4 row-major, B 4 x 8 row-major, C/D 8 x 8.
__global__ void mma884_f64(const double *A, const double *B, const double *C, double *D) {
  int L = threadIdx.x, G = L >> 2, T = L & 3;
  double a = A[G * 4 + T], b = B[T * 8 + G], c0 = C[G * 8 + 2 * T], c1 = C[G * 8 + 2 * T + 1], d0,
         d1;
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%4,%5};"
               : "=d"(d0), "=d"(d1)
               : "d"(a), "d"(b), "d"(c0), "d"(c1));
  D[G * 8 + 2 * T] = d0;
  D[G * 8 + 2 * T + 1] = d1;
}

// C (M x N, f32) = A (M x K, f16, row-major) * B (K x N, f16, row-major): blocks of 4 warps own
// 32 x 32 tiles, each warp a 16 x 16 quarter (two m16n8 accumulators); every step of 16 along K
// stages the block's A and B slices in shared memory, loads A with ldmatrix.x4 and B with
// ldmatrix.x4.trans (both n halves at once), and multiplies.
__global__ void hgemm(const __half *A, const __half *B, float *C, int M, int N, int K) {
  __shared__ __align__(16) __half As[32][16 + 8], Bs[16][32 + 8]; // padded rows (16-byte multiples)
  int Warp = threadIdx.x / 32, L = threadIdx.x % 32, G = L >> 2, T = L & 3;
  int Row0 = blockIdx.y * 32, Col0 = blockIdx.x * 32, Wr = (Warp / 2) * 16, Wc = (Warp % 2) * 16;
  float Acc[2][4] = {};
  for (int K0 = 0; K0 < K; K0 += 16) {
    for (int I = threadIdx.x; I < 32 * 16; I += blockDim.x) {
      As[I / 16][I % 16] = A[(size_t)(Row0 + I / 16) * K + K0 + I % 16];
      Bs[I / 32][I % 32] = B[(size_t)(K0 + I / 32) * N + Col0 + I % 32];
    }
    __syncthreads();
    unsigned a[4], b[4];
    int Mx = L / 8, R = L % 8;
    unsigned Aaddr = (unsigned)__cvta_generic_to_shared(&As[Wr + (Mx % 2) * 8 + R][(Mx / 2) * 8]);
    asm volatile("ldmatrix.sync.aligned.x4.m8n8.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3])
                 : "r"(Aaddr));
    // Matrices: (k 0-7, n 0-7), (k 8-15, n 0-7), (k 0-7, n 8-15), (k 8-15, n 8-15).
    unsigned Baddr = (unsigned)__cvta_generic_to_shared(&Bs[(Mx % 2) * 8 + R][Wc + (Mx / 2) * 8]);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(b[0]), "=r"(b[1]), "=r"(b[2]), "=r"(b[3])
                 : "r"(Baddr));
    for (int H = 0; H < 2; ++H)
      asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, "
                   "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                   : "+f"(Acc[H][0]), "+f"(Acc[H][1]), "+f"(Acc[H][2]), "+f"(Acc[H][3])
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[2 * H]), "r"(b[2 * H + 1]));
    __syncthreads();
  }
  for (int H = 0; H < 2; ++H)
    for (int I = 0; I < 4; ++I)
      C[(size_t)(Row0 + Wr + G + 8 * (I / 2)) * N + Col0 + Wc + 8 * H + 2 * T + (I & 1)] =
          Acc[H][I];
}

static uint16_t f2h(float F) {
  __half H = __float2half_rn(F);
  uint16_t U;
  memcpy(&U, &H, 2);
  return U;
}
static float h2f(uint16_t U) {
  __half H;
  memcpy(&H, &U, 2);
  return __half2float(H);
}
static uint16_t f2bf(float F) {
  __nv_bfloat16 H = __float2bfloat16_rn(F);
  uint16_t U;
  memcpy(&U, &H, 2);
  return U;
}

int main() {
  unsigned Seed = 12345;
  auto rnd = [&](int Lo, int Hi) {
    Seed = Seed * 1103515245u + 12345u;
    return Lo + (int)((Seed >> 16) % (unsigned)(Hi - Lo + 1));
  };
  // 1. f16 / bf16 with ldmatrix, both B layouts, 3 tiles.
  for (int Variant = 0; Variant < 4; ++Variant) {
    bool Bf = Variant & 1, Trans = Variant & 2;
    const int Tiles = 6;
    std::vector<float> Af(Tiles * 256), Bf_(Tiles * 128), C(Tiles * 128);
    for (auto &V : Af)
      V = rnd(-8, 8) * 0.5f;
    for (auto &V : Bf_)
      V = rnd(-8, 8); // B[k][n] logical
    for (auto &V : C)
      V = rnd(-100, 100);
    std::vector<uint16_t> A(Tiles * 256), B(Tiles * 128);
    for (int I = 0; I < Tiles * 256; ++I)
      A[I] = Bf ? f2bf(Af[I]) : f2h(Af[I]);
    for (int Tl = 0; Tl < Tiles; ++Tl)
      for (int K = 0; K < 16; ++K)
        for (int N = 0; N < 8; ++N) {
          float V = Bf_[Tl * 128 + K * 8 + N];
          B[Tl * 128 + (Trans ? K * 8 + N : N * 16 + K)] = Bf ? f2bf(V) : f2h(V);
        }
    auto *dA = toDevice(A);
    auto *dB = toDevice(B);
    auto *dC = toDevice(C);
    float *dD;
    CHECK(cudaMalloc(&dD, Tiles * 128 * 4));
    auto K_ = Bf ? (Trans ? mma16816<true, true> : mma16816<true, false>)
                 : (Trans ? mma16816<false, true> : mma16816<false, false>);
    K_<<<Tiles / 2, 64>>>(dA, dB, dC, dD);
    CHECK(cudaGetLastError());
    auto D = toHost(dD, Tiles * 128);
    for (int Tl = 0; Tl < Tiles; ++Tl)
      for (int M = 0; M < 16; ++M)
        for (int N = 0; N < 8; ++N) {
          float E = C[Tl * 128 + M * 8 + N];
          for (int K = 0; K < 16; ++K)
            E += Af[Tl * 256 + M * 16 + K] * Bf_[Tl * 128 + K * 8 + N];
          EXPECT(D[Tl * 128 + M * 8 + N] == E, "m16n8k16 %s%s tile %d D[%d][%d] = %g, expected %g",
                 Bf ? "bf16" : "f16", Trans ? " trans" : "", Tl, M, N, D[Tl * 128 + M * 8 + N], E);
        }
  }
  // 2. f16 accumulators.
  {
    std::vector<float> Af(256), Bk(128), Cf(128);
    for (auto &V : Af)
      V = rnd(-4, 4);
    for (auto &V : Bk)
      V = rnd(-4, 4) * 0.25f;
    for (auto &V : Cf)
      V = rnd(-20, 20) * 0.5f;
    std::vector<uint16_t> A(256), B(128), C(128);
    for (int I = 0; I < 256; ++I)
      A[I] = f2h(Af[I]);
    for (int K = 0; K < 16; ++K)
      for (int N = 0; N < 8; ++N)
        B[N * 16 + K] = f2h(Bk[K * 8 + N]);
    for (int I = 0; I < 128; ++I)
      C[I] = f2h(Cf[I]);
    auto *dA = toDevice(A);
    auto *dB = toDevice(B);
    auto *dC = toDevice(C);
    uint16_t *dD;
    CHECK(cudaMalloc(&dD, 256));
    mma16816_f16acc<<<1, 32>>>(dA, dB, dC, dD);
    CHECK(cudaGetLastError());
    auto D = toHost(dD, 128);
    for (int M = 0; M < 16; ++M)
      for (int N = 0; N < 8; ++N) {
        float E = Cf[M * 8 + N];
        for (int K = 0; K < 16; ++K)
          E += Af[M * 16 + K] * Bk[K * 8 + N];
        EXPECT(h2f(D[M * 8 + N]) == E, "f16 acc D[%d][%d] = %g, expected %g", M, N,
               h2f(D[M * 8 + N]), E);
      }
  }
  // 3. tf32 (values with at most 11 significant bits, as cvt.rna.tf32.f32 leaves them).
  {
    std::vector<float> A(128), Bn(64), C(128);
    for (auto &V : A)
      V = rnd(-16, 16) * 0.125f;
    for (auto &V : Bn)
      V = rnd(-16, 16);
    for (auto &V : C)
      V = rnd(-50, 50);
    auto *dA = toDevice(A);
    auto *dB = toDevice(Bn);
    auto *dC = toDevice(C);
    float *dD;
    CHECK(cudaMalloc(&dD, 512));
    mma1688_tf32<<<1, 32>>>(dA, dB, dC, dD);
    CHECK(cudaGetLastError());
    auto D = toHost(dD, 128);
    for (int M = 0; M < 16; ++M)
      for (int N = 0; N < 8; ++N) {
        float E = C[M * 8 + N];
        for (int K = 0; K < 8; ++K)
          E += A[M * 8 + K] * Bn[N * 8 + K];
        EXPECT(D[M * 8 + N] == E, "tf32 D[%d][%d] = %g, expected %g", M, N, D[M * 8 + N], E);
      }
  }
  // 4. s8, saturating and wrapping, accumulators near the ends of the s32 range.
  for (int Kind = 0; Kind < 2; ++Kind) {
    std::vector<uint8_t> A(512), B(256);
    std::vector<int> C(128);
    for (auto &V : A)
      V = (uint8_t)(int8_t)rnd(-128, 127);
    for (auto &V : B)
      V = (uint8_t)(int8_t)rnd(-128, 127);
    for (int I = 0; I < 128; ++I)
      C[I] = I % 3 == 0   ? 0x7fff0000 + rnd(0, 100)
             : I % 3 == 1 ? -0x7fff0000 - rnd(0, 100)
                          : rnd(-1000, 1000);
    auto *dA = toDevice(A);
    auto *dB = toDevice(B);
    auto *dC = toDevice(C);
    int *dD;
    CHECK(cudaMalloc(&dD, 512));
    (Kind == 0 ? mma16832<0> : mma16832<1>)<<<1, 32>>>(dA, dB, dC, dD);
    CHECK(cudaGetLastError());
    auto D = toHost(dD, 128);
    for (int M = 0; M < 16; ++M)
      for (int N = 0; N < 8; ++N) {
        {
          long long E = C[M * 8 + N];
          for (int K = 0; K < 32; ++K)
            E += (long long)(int8_t)A[M * 32 + K] * (int8_t)B[N * 32 + K];
          int Want = Kind == 0
                         ? (int)std::max<long long>(INT32_MIN, std::min<long long>(INT32_MAX, E))
                         : (int)(uint32_t)E;
          EXPECT(D[M * 8 + N] == Want, "s8 %s D[%d][%d] = %d, expected %d", Kind ? "wrap" : "sat",
                 M, N, D[M * 8 + N], Want);
        }
      }
  }
  // 5. f64.
  {
    std::vector<double> A(32), B(32), C(64);
    for (auto &V : A)
      V = rnd(-1000, 1000) * 0.001;
    for (auto &V : B)
      V = rnd(-1000, 1000) * 0.01;
    for (auto &V : C)
      V = rnd(-1000, 1000);
    auto *dA = toDevice(A);
    auto *dB = toDevice(B);
    auto *dC = toDevice(C);
    double *dD;
    CHECK(cudaMalloc(&dD, 512));
    mma884_f64<<<1, 32>>>(dA, dB, dC, dD);
    CHECK(cudaGetLastError());
    auto D = toHost(dD, 64);
    for (int M = 0; M < 8; ++M)
      for (int N = 0; N < 8; ++N) {
        double E = C[M * 8 + N];
        for (int K = 0; K < 4; ++K)
          E = std::fma(A[M * 4 + K], B[K * 8 + N], E);
        EXPECT(D[M * 8 + N] == E, "f64 D[%d][%d] = %.17g, expected %.17g", M, N, D[M * 8 + N], E);
      }
  }
  // 6. A tiled GEMM, 96 x 64 x 80.
  {
    const int M = 96, N = 64, K = 80;
    std::vector<float> Af(M * K), Bf(K * N);
    for (auto &V : Af)
      V = rnd(-6, 6) * 0.5f;
    for (auto &V : Bf)
      V = rnd(-6, 6);
    std::vector<__half> A(M * K), B(K * N);
    for (int I = 0; I < M * K; ++I)
      A[I] = __float2half_rn(Af[I]);
    for (int I = 0; I < K * N; ++I)
      B[I] = __float2half_rn(Bf[I]);
    auto *dA = toDevice(A);
    auto *dB = toDevice(B);
    float *dC;
    CHECK(cudaMalloc(&dC, M * N * 4));
    hgemm<<<dim3(N / 32, M / 32), 128>>>(dA, dB, dC, M, N, K);
    CHECK(cudaGetLastError());
    auto C = toHost(dC, M * N);
    for (int R = 0; R < M; ++R)
      for (int Cl = 0; Cl < N; ++Cl) {
        float E = 0;
        for (int Kk = 0; Kk < K; ++Kk)
          E += Af[R * K + Kk] * Bf[Kk * N + Cl];
        EXPECT(C[R * N + Cl] == E, "hgemm C[%d][%d] = %g, expected %g", R, Cl, C[R * N + Cl], E);
      }
  }
  return report();
}
