// The CUDA C++ warp matrix API (nvcuda::wmma, mma.h): every shape and operand type it offers on
// sm_80 (f16 m16n16k16/m32n8k16/m8n32k16 with f32 and f16 accumulators, bf16, s8/u8, tf32
// m16n16k8, f64 m8n8k4), every layout of A, B and the accumulators, loads from global and shared
// memory with padded strides, fill_fragment and element-wise fragment arithmetic (the order of a
// fragment's elements is unspecified, so only uniform operations), against a host computation.
// Inputs are small integers and binary fractions, so every product and sum is exact.
#include "check.h"
#include <cstdint>
#include <cstring>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

// D = Alpha * (A * B + C) + Beta for one M x N x K tile per warp (two warps per block, tiles W and
// W + 1 of the batch). A is M x K with leading dimension Lda, B K x N (Ldb), C and D M x N (Ldc),
// each in the layout its template parameter names; with Shared, A and B go through shared memory
// first (leading dimensions padded by 8 elements).
template <int M, int N, int K, typename T, typename TAcc, typename LA, typename LB, bool CRow,
          bool Shared>
__global__ void tile(const T *A, const T *B, const TAcc *C, TAcc *D, int Lda, int Ldb, int Ldc,
                     TAcc Alpha, TAcc Beta) {
  using Elem =
      typename std::conditional<std::is_same<T, wmma::precision::tf32>::value, float, T>::type;
  int W = blockIdx.x * 2 + threadIdx.x / 32;
  constexpr bool ARow0 = std::is_same<LA, wmma::row_major>::value,
                 BRow0 = std::is_same<LB, wmma::row_major>::value;
  const Elem *Ap = reinterpret_cast<const Elem *>(A) + (size_t)W * (ARow0 ? M : K) * Lda;
  const Elem *Bp = reinterpret_cast<const Elem *>(B) + (size_t)W * (BRow0 ? K : N) * Ldb;
  const TAcc *Cp = C + (size_t)W * (M > N ? M : N) * Ldc;
  TAcc *Dp = D + (size_t)W * (M > N ? M : N) * Ldc;
  wmma::fragment<wmma::matrix_a, M, N, K, T, LA> Fa;
  wmma::fragment<wmma::matrix_b, M, N, K, T, LB> Fb;
  wmma::fragment<wmma::accumulator, M, N, K, TAcc> Fc, Fd;
  constexpr bool ARow = std::is_same<LA, wmma::row_major>::value,
                 BRow = std::is_same<LB, wmma::row_major>::value;
  if (Shared) {
    constexpr int LdaS = (ARow ? K : M) + 8 * (sizeof(Elem) == 1 ? 2 : 1),
                  LdbS = (BRow ? N : K) + 8 * (sizeof(Elem) == 1 ? 2 : 1);
    __shared__ __align__(32) Elem As[2][(ARow ? M : K) * LdaS], Bs[2][(BRow ? K : N) * LdbS];
    int L = threadIdx.x % 32, Wl = threadIdx.x / 32;
    for (int I = L; I < M * K; I += 32) {
      int Major = I / (ARow ? K : M), Minor = I % (ARow ? K : M);
      As[Wl][Major * LdaS + Minor] = Ap[Major * Lda + Minor];
    }
    for (int I = L; I < K * N; I += 32) {
      int Major = I / (BRow ? N : K), Minor = I % (BRow ? N : K);
      Bs[Wl][Major * LdbS + Minor] = Bp[Major * Ldb + Minor];
    }
    __syncwarp();
    wmma::load_matrix_sync(Fa, As[Wl], LdaS);
    wmma::load_matrix_sync(Fb, Bs[Wl], LdbS);
  } else {
    wmma::load_matrix_sync(Fa, Ap, Lda);
    wmma::load_matrix_sync(Fb, Bp, Ldb);
  }
  if (std::is_same<T, wmma::precision::tf32>::value)
    for (int I = 0; I < Fa.num_elements; ++I)
      Fa.x[I] = wmma::__float_to_tf32(Fa.x[I]);
  wmma::load_matrix_sync(Fc, Cp, Ldc, CRow ? wmma::mem_row_major : wmma::mem_col_major);
  wmma::fill_fragment(Fd, TAcc(0));
  wmma::mma_sync(Fd, Fa, Fb, Fc);
  for (int I = 0; I < Fd.num_elements; ++I)
    Fd.x[I] = Fd.x[I] * Alpha + Beta;
  wmma::store_matrix_sync(Dp, Fd, Ldc, CRow ? wmma::mem_col_major : wmma::mem_row_major);
}

static float h2f(__half H) { return __half2float(H); }
template <typename X> double val(X V) { return (double)V; }
template <> double val(__half V) { return h2f(V); }
template <> double val(__nv_bfloat16 V) { return __bfloat162float(V); }

unsigned Seed = 777;
int rnd(int Lo, int Hi) {
  Seed = Seed * 1103515245u + 12345u;
  return Lo + (int)((Seed >> 16) % (unsigned)(Hi - Lo + 1));
}

template <int M, int N, int K, typename T, typename TAcc, typename LA, typename LB, bool CRow,
          bool Shared, typename Elem, typename MakeElem>
void run(const char *Name, MakeElem Make, double Scale, TAcc Alpha, TAcc Beta) {
  constexpr bool ARow = std::is_same<LA, wmma::row_major>::value,
                 BRow = std::is_same<LB, wmma::row_major>::value;
  const int Tiles = 4, Pad = 8; // leading dimensions with padding in global memory too
  int Lda = (ARow ? K : M) + Pad * (Shared ? 0 : 1), Ldb = (BRow ? N : K) + Pad * (Shared ? 0 : 1),
      Ldc = (M > N ? M : N) + 4;
  if (Shared) {
    Lda = ARow ? K : M;
    Ldb = BRow ? N : K;
  }
  // C is read in one layout and D written in the other: both fit in max(M, N) x Ldc.
  int ASize = (ARow ? M : K) * Lda, BSize = (BRow ? K : N) * Ldb, CSize = (M > N ? M : N) * Ldc;
  int AStride = ASize, BStride = BSize, CStride = CSize;
  std::vector<Elem> A(Tiles * AStride), B(Tiles * BStride);
  std::vector<TAcc> C(Tiles * CStride), D(Tiles * CStride, TAcc(0));
  std::vector<double> Av(A.size()), Bv(B.size());
  for (size_t I = 0; I < A.size(); ++I) {
    double X = rnd(-6, 6) * Scale;
    A[I] = Make(X);
    Av[I] = val(A[I]);
  }
  for (size_t I = 0; I < B.size(); ++I) {
    double X = rnd(-6, 6);
    B[I] = Make(X);
    Bv[I] = val(B[I]);
  }
  for (auto &V : C)
    V = TAcc(rnd(-40, 40));
  auto *dA = toDevice(A);
  auto *dB = toDevice(B);
  auto *dC = toDevice(C);
  auto *dD = toDevice(D);
  tile<M, N, K, T, TAcc, LA, LB, CRow, Shared>
      <<<Tiles / 2, 64>>>(reinterpret_cast<const T *>(dA), reinterpret_cast<const T *>(dB), dC, dD,
                          Lda, Ldb, Ldc, Alpha, Beta);
  CHECK(cudaGetLastError());
  auto Got = toHost(dD, D.size());
  int Bad = 0;
  for (int W = 0; W < Tiles; ++W)
    for (int R = 0; R < M; ++R)
      for (int Cl = 0; Cl < N; ++Cl) {
        double E = val(C[W * CStride + (CRow ? R * Ldc + Cl : Cl * Ldc + R)]);
        for (int Kk = 0; Kk < K; ++Kk)
          E += Av[W * AStride + (ARow ? R * Lda + Kk : Kk * Lda + R)] *
               Bv[W * BStride + (BRow ? Kk * Ldb + Cl : Cl * Ldb + Kk)];
        E = E * val(Alpha) + val(Beta);
        double G = val(
            Got[W * CStride + (CRow ? Cl * Ldc + R : R * Ldc + Cl)]); // stored in the other layout
        if (G != E && Bad++ < 3)
          std::printf("%s tile %d D[%d][%d] = %g, expected %g\n", Name, W, R, Cl, G, E);
      }
  EXPECT(Bad == 0, "%s: %d elements differ", Name, Bad);
}

int main() {
  auto H = [](double X) { return __float2half_rn((float)X); };
  auto Bf = [](double X) { return __float2bfloat16_rn((float)X); };
  auto S8 = [](double X) { return (signed char)X; };
  auto U8 = [](double X) { return (unsigned char)(X + 6); };
  auto F = [](double X) { return (float)X; };
  using R = wmma::row_major;
  using Cm = wmma::col_major;
  run<16, 16, 16, __half, float, R, Cm, true, false, __half>("f16 m16n16k16 row.col f32", H, 0.5,
                                                             2.0f, 1.0f);
  run<16, 16, 16, __half, float, Cm, R, false, true, __half>("f16 m16n16k16 col.row f32 shared", H,
                                                             0.5, 1.0f, -3.0f);
  run<16, 16, 16, __half, __half, R, R, true, true, __half>(
      "f16 m16n16k16 row.row f16 shared", H, 0.25, __float2half(1.0f), __float2half(0.5f));
  run<32, 8, 16, __half, float, R, Cm, true, false, __half>("f16 m32n8k16 row.col f32", H, 0.5,
                                                            1.0f, 0.0f);
  run<32, 8, 16, __half, __half, Cm, R, false, true, __half>(
      "f16 m32n8k16 col.row f16 shared", H, 0.25, __float2half(2.0f), __float2half(0.0f));
  run<8, 32, 16, __half, float, R, R, false, false, __half>("f16 m8n32k16 row.row f32", H, 0.5,
                                                            1.0f, 2.0f);
  run<8, 32, 16, __half, float, Cm, Cm, true, true, __half>("f16 m8n32k16 col.col f32 shared", H,
                                                            0.5, 1.0f, 0.0f);
  run<16, 16, 16, __nv_bfloat16, float, R, Cm, true, false, __nv_bfloat16>("bf16 m16n16k16", Bf,
                                                                           0.5, 1.0f, 0.0f);
  run<32, 8, 16, __nv_bfloat16, float, Cm, R, true, true, __nv_bfloat16>("bf16 m32n8k16 shared", Bf,
                                                                         0.5, 1.0f, 1.0f);
  run<8, 32, 16, __nv_bfloat16, float, R, Cm, false, false, __nv_bfloat16>("bf16 m8n32k16", Bf, 0.5,
                                                                           1.0f, 0.0f);
  run<16, 16, 16, signed char, int, R, Cm, true, false, signed char>("s8 m16n16k16", S8, 1, 3, -7);
  run<32, 8, 16, signed char, int, R, Cm, false, true, signed char>("s8 m32n8k16 shared", S8, 1, 1,
                                                                    0);
  run<8, 32, 16, unsigned char, int, R, Cm, true, false, unsigned char>("u8 m8n32k16", U8, 1, 1, 5);
  run<16, 16, 8, wmma::precision::tf32, float, R, Cm, true, false, float>("tf32 m16n16k8", F, 0.125,
                                                                          1.0f, 0.0f);
  run<16, 16, 8, wmma::precision::tf32, float, Cm, R, false, true, float>("tf32 m16n16k8 shared", F,
                                                                          0.125, 1.0f, 0.0f);
  run<8, 8, 4, double, double, R, Cm, true, false, double>(
      "f64 m8n8k4", [](double X) { return X; }, 0.125, 1.0, 0.0);
  run<8, 8, 4, double, double, Cm, R, false, true, double>(
      "f64 m8n8k4 shared", [](double X) { return X; }, 0.125, 2.0, 1.0);
  return report();
}
