// cuSPARSE through reptx: libcusparse ships its kernels as PTX (for sm_120), which the loader
// recompiles. SpMV with three algorithms and transposed, SpMM, and CSR-to-CSC conversion of a
// random 3,000 x 2,000 matrix, each against the same product or conversion on the host.
// Integer-valued data keep every float sum exact.
#include "check.h"
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cusparse.h>

// A random sparse matrix (m x k) in CSR with integer-valued floats, so every sum is exact.
struct Csr {
  int m, k;
  std::vector<int> row, col;
  std::vector<float> val;
};
Csr makeCsr(int m, int k, unsigned seed, int per) {
  Csr A{m, k, {0}, {}, {}};
  uint32_t s = seed;
  auto rnd = [&] {
    s = s * 1664525u + 1013904223u;
    return s >> 8;
  };
  for (int i = 0; i < m; ++i) {
    int cnt = rnd() % per;
    std::vector<int> cols;
    for (int j = 0; j < cnt; ++j)
      cols.push_back(rnd() % k);
    std::sort(cols.begin(), cols.end());
    cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
    for (int c : cols) {
      A.col.push_back(c);
      A.val.push_back(float(int(rnd() % 9) - 4));
    }
    A.row.push_back(int(A.col.size()));
  }
  return A;
}

int main() {
  cusparseHandle_t h;
  CHECK_STATUS(cusparseCreate(&h));
  const int m = 3000, k = 2000, ncols = 8;
  Csr A = makeCsr(m, k, 12345, 40);
  int nnz = int(A.col.size());
  std::vector<float> x(k), B(size_t(k) * ncols);
  for (int i = 0; i < k; ++i)
    x[i] = float(i % 7 - 3);
  for (size_t i = 0; i < B.size(); ++i)
    B[i] = float(int(i % 5) - 2);
  int *dRow = toDevice(A.row), *dCol = toDevice(A.col);
  float *dVal = toDevice(A.val), *dX = toDevice(x), *dB = toDevice(B);
  float *dY, *dC;
  CHECK(cudaMalloc(&dY, m * 4));
  CHECK(cudaMalloc(&dC, size_t(m) * ncols * 4));
  cusparseSpMatDescr_t mA;
  CHECK_STATUS(cusparseCreateCsr(&mA, m, k, nnz, dRow, dCol, dVal, CUSPARSE_INDEX_32I,
                                 CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
  cusparseDnVecDescr_t vx, vy;
  CHECK_STATUS(cusparseCreateDnVec(&vx, k, dX, CUDA_R_32F));
  CHECK_STATUS(cusparseCreateDnVec(&vy, m, dY, CUDA_R_32F));
  float alpha = 2, beta = 0;
  std::vector<float> want(m, 0);
  for (int i = 0; i < m; ++i)
    for (int j = A.row[i]; j < A.row[i + 1]; ++j)
      want[i] += 2 * A.val[j] * x[A.col[j]];
  for (auto alg : {CUSPARSE_SPMV_ALG_DEFAULT, CUSPARSE_SPMV_CSR_ALG1, CUSPARSE_SPMV_CSR_ALG2}) {
    CHECK(cudaMemset(dY, 0, m * 4));
    size_t bs = 0;
    CHECK_STATUS(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, mA, vx, &beta,
                                         vy, CUDA_R_32F, alg, &bs));
    void *buf;
    CHECK(cudaMalloc(&buf, bs + 1));
    CHECK_STATUS(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, mA, vx, &beta, vy,
                              CUDA_R_32F, alg, buf));
    auto r = toHost(dY, m);
    for (int i = 0; i < m; ++i)
      expect(r[i] == want[i], "spmv", i + 100000 * int(alg));
    CHECK(cudaFree(buf));
  }
  { // transpose SpMV
    std::vector<float> xt(m), wantT(k, 0);
    for (int i = 0; i < m; ++i)
      xt[i] = float(i % 5 - 2);
    for (int i = 0; i < m; ++i)
      for (int j = A.row[i]; j < A.row[i + 1]; ++j)
        wantT[A.col[j]] += A.val[j] * xt[i];
    float *dXt = toDevice(xt), *dYt;
    CHECK(cudaMalloc(&dYt, k * 4));
    cusparseDnVecDescr_t vxt, vyt;
    CHECK_STATUS(cusparseCreateDnVec(&vxt, m, dXt, CUDA_R_32F));
    CHECK_STATUS(cusparseCreateDnVec(&vyt, k, dYt, CUDA_R_32F));
    float one = 1;
    size_t bs = 0;
    CHECK_STATUS(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_TRANSPOSE, &one, mA, vxt, &beta, vyt,
                                         CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, &bs));
    void *buf;
    CHECK(cudaMalloc(&buf, bs + 1));
    CHECK_STATUS(cusparseSpMV(h, CUSPARSE_OPERATION_TRANSPOSE, &one, mA, vxt, &beta, vyt,
                              CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, buf));
    auto r = toHost(dYt, k);
    for (int i = 0; i < k; ++i)
      expect(r[i] == wantT[i], "spmv^T", i);
  }
  { // SpMM: C = A * B (B dense k x ncols, column-major)
    cusparseDnMatDescr_t mB, mC;
    CHECK_STATUS(cusparseCreateDnMat(&mB, k, ncols, k, dB, CUDA_R_32F, CUSPARSE_ORDER_COL));
    CHECK_STATUS(cusparseCreateDnMat(&mC, m, ncols, m, dC, CUDA_R_32F, CUSPARSE_ORDER_COL));
    float one = 1;
    size_t bs = 0;
    CHECK_STATUS(cusparseSpMM_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                         CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mA, mB, &beta, mC,
                                         CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT, &bs));
    void *buf;
    CHECK(cudaMalloc(&buf, bs + 1));
    CHECK_STATUS(cusparseSpMM(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                              &one, mA, mB, &beta, mC, CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT, buf));
    auto r = toHost(dC, size_t(m) * ncols);
    for (int c = 0; c < ncols; ++c)
      for (int i = 0; i < m; ++i) {
        float w = 0;
        for (int j = A.row[i]; j < A.row[i + 1]; ++j)
          w += A.val[j] * B[size_t(c) * k + A.col[j]];
        expect(r[size_t(c) * m + i] == w, "spmm", c * m + i);
      }
  }
  { // CSR -> CSC
    int *cPtr, *cRow;
    float *cVal;
    CHECK(cudaMalloc(&cPtr, (k + 1) * 4));
    CHECK(cudaMalloc(&cRow, nnz * 4));
    CHECK(cudaMalloc(&cVal, nnz * 4));
    size_t bs = 0;
    CHECK_STATUS(cusparseCsr2cscEx2_bufferSize(
        h, m, k, nnz, dVal, dRow, dCol, cVal, cPtr, cRow, CUDA_R_32F, CUSPARSE_ACTION_NUMERIC,
        CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, &bs));
    void *buf;
    CHECK(cudaMalloc(&buf, bs + 1));
    CHECK_STATUS(cusparseCsr2cscEx2(h, m, k, nnz, dVal, dRow, dCol, cVal, cPtr, cRow, CUDA_R_32F,
                                    CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO,
                                    CUSPARSE_CSR2CSC_ALG1, buf));
    auto p = toHost(cPtr, k + 1);
    auto rr = toHost(cRow, nnz);
    auto vv = toHost(cVal, nnz);
    std::vector<int> wp(k + 1, 0);
    for (int c : A.col)
      wp[c + 1]++;
    for (int i = 0; i < k; ++i)
      wp[i + 1] += wp[i];
    std::vector<int> fill(wp.begin(), wp.end() - 1), wr(nnz);
    std::vector<float> wv(nnz);
    for (int i = 0; i < m; ++i)
      for (int j = A.row[i]; j < A.row[i + 1]; ++j) {
        int d = fill[A.col[j]]++;
        wr[d] = i;
        wv[d] = A.val[j];
      }
    for (int i = 0; i <= k; ++i)
      expect(p[i] == wp[i], "csc ptr", i);
    for (int i = 0; i < nnz; ++i)
      expect(rr[i] == wr[i] && vv[i] == wv[i], "csc entry", i);
  }
  if (failures)
    return 1;
  std::printf("PASS\n");
}
