// cuBLAS's level-1 and level-2 routines through reptx: libcublas ships their kernels as PTX (for
// sm_120), which the loader recompiles; the handle's setup asks the driver's tools tables
// and limits. Integer-valued data keep every float sum exact.
#include "check.h"
#include <cmath>
#include <cublas_v2.h>

int main() {
  cublasHandle_t H;
  CHECK_STATUS(cublasCreate(&H));
  const int N = 1000;
  std::vector<float> X(N), Y(N);
  for (int I = 0; I < N; ++I) {
    X[I] = float(I % 13) - 6;
    Y[I] = float(I % 7) - 3;
  }
  float *DX = toDevice(X), *DY = toDevice(Y);

  // asum, dot, nrm2, iamax/iamin
  float Asum = 0, Dot = 0, Ref = 0;
  CHECK_STATUS(cublasSasum(H, N, DX, 1, &Asum));
  for (float V : X)
    Ref += std::fabs(V);
  expect(Asum == Ref, "sasum", long(Asum));
  CHECK_STATUS(cublasSdot(H, N, DX, 1, DY, 1, &Dot));
  Ref = 0;
  for (int I = 0; I < N; ++I)
    Ref += X[I] * Y[I];
  expect(Dot == Ref, "sdot", long(Dot));
  int Imax = 0, Imin = 0;
  std::vector<float> P(N, 1.0f);
  P[417] = -9;
  P[600] = 9;
  P[3] = 0.5f;
  P[900] = -0.5f;
  float *DP = toDevice(P);
  CHECK_STATUS(cublasIsamax(H, N, DP, 1, &Imax));
  CHECK_STATUS(cublasIsamin(H, N, DP, 1, &Imin));
  expect(Imax == 418, "isamax (1-based, first of equal magnitudes)", Imax);
  expect(Imin == 4, "isamin", Imin);
  std::vector<float> Sq(64, 0.0f);
  Sq[5] = 3;
  Sq[40] = 4;
  float *DSq = toDevice(Sq);
  float Nrm = 0;
  CHECK_STATUS(cublasSnrm2(H, 64, DSq, 1, &Nrm));
  expect(Nrm == 5.0f, "snrm2", long(Nrm * 1000));

  // axpy, scal, strided copy and swap
  float Alpha = 3, Half = 0.5f;
  CHECK_STATUS(cublasSaxpy(H, N, &Alpha, DX, 1, DY, 1));
  CHECK_STATUS(cublasSscal(H, N, &Half, DY, 1));
  std::vector<float> Out = toHost(DY, N);
  for (int I = 0; I < N; ++I)
    expect(Out[I] == (3 * X[I] + Y[I]) * 0.5f, "saxpy+sscal", I);
  CHECK_STATUS(cublasScopy(H, N / 2, DX, 2, DY, 1)); // every second X into Y[0..N/2)
  Out = toHost(DY, N);
  for (int I = 0; I < N / 2; ++I)
    expect(Out[I] == X[2 * I], "scopy strided", I);
  CHECK_STATUS(cublasSswap(H, N, DX, 1, DY, 1));
  std::vector<float> OutX = toHost(DX, N), OutY = toHost(DY, N);
  for (int I = 0; I < N; ++I)
    expect(OutY[I] == X[I] && OutX[I] == Out[I], "sswap", I);

  // double precision dot and axpy
  std::vector<double> A(N), B(N);
  for (int I = 0; I < N; ++I) {
    A[I] = I % 11 - 5;
    B[I] = 0.25 * (I % 5);
  }
  double *DA = toDevice(A), *DB = toDevice(B);
  double DDot = 0, DRef = 0;
  for (int I = 0; I < N; ++I)
    DRef += A[I] * B[I];
  CHECK_STATUS(cublasDdot(H, N, DA, 1, DB, 1, &DDot));
  expect(DDot == DRef, "ddot", long(DDot));

  // gemv, both orientations, column-major M x K with lda > M
  const int M = 37, K = 23, Lda = 40;
  std::vector<float> G(Lda * K), V(K), W(M), U(M, 1.0f);
  for (int J = 0; J < K; ++J)
    for (int I = 0; I < Lda; ++I)
      G[I + J * Lda] = I < M ? float((I * 3 + J * 5) % 9) - 4 : 1e6f;
  for (int J = 0; J < K; ++J)
    V[J] = float(J % 4) - 1;
  for (int I = 0; I < M; ++I)
    W[I] = float(I % 3);
  float *DG = toDevice(G), *DV = toDevice(V), *DW = toDevice(W), *DU = toDevice(U);
  float One = 1, Two = 2;
  CHECK_STATUS(cublasSgemv(H, CUBLAS_OP_N, M, K, &Two, DG, Lda, DV, 1, &One, DW, 1));
  std::vector<float> GW = toHost(DW, M);
  for (int I = 0; I < M; ++I) {
    float R = 0;
    for (int J = 0; J < K; ++J)
      R += G[I + J * Lda] * V[J];
    expect(GW[I] == 2 * R + W[I], "sgemv N", I);
  }
  // rank-1 update
  CHECK_STATUS(cublasSger(H, M, K, &One, DU, 1, DV, 1, DG, Lda));
  std::vector<float> G2 = toHost(DG, Lda * K);
  for (int J = 0; J < K; ++J)
    for (int I = 0; I < M; ++I)
      expect(G2[I + J * Lda] == G[I + J * Lda] + V[J], "sger", I + J * Lda);
  expect(G2[M] == 1e6f, "sger leaves rows past M", M);

  CHECK_STATUS(cublasDestroy(H));
  if (failures)
    return 1;
  std::printf("PASS\n");
  return 0;
}
