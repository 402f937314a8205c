// cuDNN's legacy operations through reptx: libcudnn_ops and libcudnn_cnn ship their kernels as PTX
// (for sm_120/sm_121), which the loader recompiles. Activation, softmax, bias addition, pooling,
// the convolution forward algorithms that need no cuBLAS GEMM (implicit GEMM, implicit
// precomputed GEMM and GEMM; FFT and Winograd call libcublasLt's SASS-only kernels, which no PTX
// recompiler can run), the fused convolution with bias and ReLU, both backward passes, batch
// normalization for inference, a layout transform, element-wise products, a reduction and a half
// precision NHWC convolution, each against a host computation. Small integer and half-integer data
// keep every float sum exact.
#include "check.h"
#include <algorithm>
#include <cmath>
#include <cuda_fp16.h>
#include <cudnn.h>

namespace {

// NCHW index.
int at(int N, int C, int H, int W, int n, int c, int h, int w) {
  (void)N;
  return ((n * C + c) * H + h) * W + w;
}

} // namespace

int main() {
  cudnnHandle_t H;
  CHECK_STATUS(cudnnCreate(&H));
  EXPECT(cudnnGetVersion() >= 90000, "cuDNN version %zu", cudnnGetVersion());
  const float One = 1, Zero = 0;

  // ---- activation (ReLU, exact; sigmoid and tanh within 2 ulp-ish) and softmax
  const int N = 2, C = 3, Hh = 4, W = 5, Count = N * C * Hh * W;
  std::vector<float> X(Count);
  for (int I = 0; I < Count; ++I)
    X[I] = float(I % 7) - 3.0f + 0.25f * float(I % 3);
  float *DX = toDevice(X), *DY = nullptr;
  CHECK(cudaMalloc(&DY, Count * sizeof(float)));
  cudnnTensorDescriptor_t T;
  CHECK_STATUS(cudnnCreateTensorDescriptor(&T));
  CHECK_STATUS(cudnnSetTensor4dDescriptor(T, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, C, Hh, W));
  cudnnActivationDescriptor_t Act;
  CHECK_STATUS(cudnnCreateActivationDescriptor(&Act));
  struct {
    cudnnActivationMode_t Mode;
    const char *Name;
    float Tolerance;
  } Modes[] = {{CUDNN_ACTIVATION_RELU, "relu", 0.0f},
               {CUDNN_ACTIVATION_SIGMOID, "sigmoid", 1e-6f},
               {CUDNN_ACTIVATION_TANH, "tanh", 1e-6f}};
  for (const auto &M : Modes) {
    CHECK_STATUS(cudnnSetActivationDescriptor(Act, M.Mode, CUDNN_NOT_PROPAGATE_NAN, 0.0));
    CHECK_STATUS(cudnnActivationForward(H, Act, &One, T, DX, &Zero, T, DY));
    std::vector<float> Y = toHost(DY, Count);
    for (int I = 0; I < Count; ++I) {
      double Ref = M.Mode == CUDNN_ACTIVATION_RELU      ? std::fmax(X[I], 0.0f)
                   : M.Mode == CUDNN_ACTIVATION_SIGMOID ? 1.0 / (1.0 + std::exp(-double(X[I])))
                                                        : std::tanh(double(X[I]));
      EXPECT(std::fabs(Y[I] - Ref) <= M.Tolerance, "%s(%g) = %.9g, expected %.9g", M.Name, X[I],
             Y[I], Ref);
    }
  }
  CHECK_STATUS(cudnnSoftmaxForward(H, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, &One, T,
                                   DX, &Zero, T, DY));
  std::vector<float> Y = toHost(DY, Count);
  for (int n = 0; n < N; ++n)
    for (int h = 0; h < Hh; ++h)
      for (int w = 0; w < W; ++w) {
        double Max = -1e30, Sum = 0;
        for (int c = 0; c < C; ++c)
          Max = std::fmax(Max, X[at(N, C, Hh, W, n, c, h, w)]);
        for (int c = 0; c < C; ++c)
          Sum += std::exp(X[at(N, C, Hh, W, n, c, h, w)] - Max);
        for (int c = 0; c < C; ++c) {
          int I = at(N, C, Hh, W, n, c, h, w);
          double Ref = std::exp(X[I] - Max) / Sum;
          EXPECT(std::fabs(Y[I] - Ref) <= 1e-6, "softmax at %d = %.9g, expected %.9g", I, Y[I],
                 Ref);
        }
      }

  // ---- bias addition: a 1xCx1x1 tensor broadcast over N, H and W, y = x + 2 * bias
  std::vector<float> Bias = {0.5f, -1.0f, 4.0f};
  float *DBias = toDevice(Bias);
  cudnnTensorDescriptor_t BiasT;
  CHECK_STATUS(cudnnCreateTensorDescriptor(&BiasT));
  CHECK_STATUS(cudnnSetTensor4dDescriptor(BiasT, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, C, 1, 1));
  CHECK(cudaMemcpy(DY, DX, Count * sizeof(float), cudaMemcpyDeviceToDevice));
  const float Two = 2;
  CHECK_STATUS(cudnnAddTensor(H, &Two, BiasT, DBias, &One, T, DY));
  Y = toHost(DY, Count);
  for (int I = 0; I < Count; ++I)
    EXPECT(Y[I] == X[I] + 2 * Bias[(I / (Hh * W)) % C], "add tensor at %d = %g", I, Y[I]);

  // ---- max and average pooling, 2x2 windows with stride 2 over 4x5 (the last column left out)
  cudnnPoolingDescriptor_t Pool;
  CHECK_STATUS(cudnnCreatePoolingDescriptor(&Pool));
  cudnnTensorDescriptor_t PoolT;
  CHECK_STATUS(cudnnCreateTensorDescriptor(&PoolT));
  CHECK_STATUS(cudnnSetTensor4dDescriptor(PoolT, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, C, 2, 2));
  for (cudnnPoolingMode_t Mode : {CUDNN_POOLING_MAX, CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING}) {
    CHECK_STATUS(
        cudnnSetPooling2dDescriptor(Pool, Mode, CUDNN_NOT_PROPAGATE_NAN, 2, 2, 0, 0, 2, 2));
    int On, Oc, Oh, Ow;
    CHECK_STATUS(cudnnGetPooling2dForwardOutputDim(Pool, T, &On, &Oc, &Oh, &Ow));
    EXPECT(On == N && Oc == C && Oh == 2 && Ow == 2, "pooling output %dx%dx%dx%d", On, Oc, Oh, Ow);
    CHECK_STATUS(cudnnPoolingForward(H, Pool, &One, T, DX, &Zero, PoolT, DY));
    Y = toHost(DY, N * C * 4);
    for (int n = 0; n < N; ++n)
      for (int c = 0; c < C; ++c)
        for (int h = 0; h < 2; ++h)
          for (int w = 0; w < 2; ++w) {
            float Max = -1e30f, Sum = 0;
            for (int i = 0; i < 2; ++i)
              for (int j = 0; j < 2; ++j) {
                float V = X[at(N, C, Hh, W, n, c, 2 * h + i, 2 * w + j)];
                Max = std::fmax(Max, V);
                Sum += V;
              }
            float Ref = Mode == CUDNN_POOLING_MAX ? Max : Sum / 4;
            float Got = Y[at(N, C, 2, 2, n, c, h, w)];
            EXPECT(Got == Ref, "pooling mode %d at (%d,%d,%d,%d) = %g, expected %g", int(Mode), n,
                   c, h, w, Got, Ref);
          }
  }

  // ---- convolution forward: 2 images of 2x6x6, 3 filters of 2x3x3, padding 1, stride 1
  const int Cn = 2, Cc = 2, Ch = 6, Cw = 6, K = 3, R = 3, S = 3;
  std::vector<float> In(Cn * Cc * Ch * Cw), Filter(K * Cc * R * S), Ref(Cn * K * Ch * Cw);
  for (size_t I = 0; I < In.size(); ++I)
    In[I] = float(int(I % 5) - 2);
  for (size_t I = 0; I < Filter.size(); ++I)
    Filter[I] = float(int(I % 3) - 1) * 0.5f;
  for (int n = 0; n < Cn; ++n)
    for (int k = 0; k < K; ++k)
      for (int y = 0; y < Ch; ++y)
        for (int x = 0; x < Cw; ++x) {
          float Sum = 0;
          for (int c = 0; c < Cc; ++c)
            for (int r = 0; r < R; ++r)
              for (int s = 0; s < S; ++s) {
                int iy = y + r - 1, ix = x + s - 1;
                if (iy >= 0 && iy < Ch && ix >= 0 && ix < Cw)
                  Sum +=
                      In[at(Cn, Cc, Ch, Cw, n, c, iy, ix)] * Filter[((k * Cc + c) * R + r) * S + s];
              }
          Ref[at(Cn, K, Ch, Cw, n, k, y, x)] = Sum;
        }
  float *DIn = toDevice(In), *DFilter = toDevice(Filter), *DOut = nullptr;
  CHECK(cudaMalloc(&DOut, Ref.size() * sizeof(float)));
  cudnnTensorDescriptor_t InT, OutT;
  cudnnFilterDescriptor_t FilterT;
  cudnnConvolutionDescriptor_t Conv;
  CHECK_STATUS(cudnnCreateTensorDescriptor(&InT));
  CHECK_STATUS(cudnnCreateTensorDescriptor(&OutT));
  CHECK_STATUS(cudnnCreateFilterDescriptor(&FilterT));
  CHECK_STATUS(cudnnCreateConvolutionDescriptor(&Conv));
  CHECK_STATUS(
      cudnnSetTensor4dDescriptor(InT, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, Cn, Cc, Ch, Cw));
  CHECK_STATUS(
      cudnnSetFilter4dDescriptor(FilterT, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, K, Cc, R, S));
  CHECK_STATUS(cudnnSetConvolution2dDescriptor(Conv, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                               CUDNN_DATA_FLOAT));
  CHECK_STATUS(cudnnSetConvolutionMathType(Conv, CUDNN_FMA_MATH));
  int On, Ok, Oh, Ow;
  CHECK_STATUS(cudnnGetConvolution2dForwardOutputDim(Conv, InT, FilterT, &On, &Ok, &Oh, &Ow));
  EXPECT(On == Cn && Ok == K && Oh == Ch && Ow == Cw, "convolution output %dx%dx%dx%d", On, Ok, Oh,
         Ow);
  CHECK_STATUS(
      cudnnSetTensor4dDescriptor(OutT, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, Cn, K, Ch, Cw));
  std::vector<float> Out;
  for (cudnnConvolutionFwdAlgo_t Algo :
       {CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM,
        CUDNN_CONVOLUTION_FWD_ALGO_GEMM}) {
    size_t Workspace = 0;
    CHECK_STATUS(
        cudnnGetConvolutionForwardWorkspaceSize(H, InT, FilterT, Conv, OutT, Algo, &Workspace));
    void *DWork = nullptr;
    if (Workspace)
      CHECK(cudaMalloc(&DWork, Workspace));
    CHECK(cudaMemset(DOut, 0xff, Ref.size() * sizeof(float))); // NaNs where nothing is written
    CHECK_STATUS(cudnnConvolutionForward(H, &One, InT, DIn, FilterT, DFilter, Conv, Algo, DWork,
                                         Workspace, &Zero, OutT, DOut));
    Out = toHost(DOut, Ref.size());
    for (size_t I = 0; I < Ref.size(); ++I)
      EXPECT(Out[I] == Ref[I], "convolution algorithm %d at %zu = %g, expected %g", int(Algo), I,
             Out[I], Ref[I]);
    if (DWork)
      CHECK(cudaFree(DWork));
  }

  // ---- fused convolution, bias and ReLU (cudnnConvolutionBiasActivationForward), then the
  // backward passes of the convolution on its result: data (algorithms 0 and 1) and filter
  // (algorithms 0 and 1)
  std::vector<float> ConvBias = {1.0f, -2.0f, 0.5f}, Fused(Ref.size());
  for (size_t I = 0; I < Ref.size(); ++I)
    Fused[I] = std::fmax(Ref[I] + ConvBias[(I / (Ch * Cw)) % K], 0.0f);
  float *DConvBias = toDevice(ConvBias), *DZ = nullptr;
  CHECK(cudaMalloc(&DZ, Ref.size() * sizeof(float)));
  CHECK(cudaMemset(DZ, 0, Ref.size() * sizeof(float)));
  cudnnTensorDescriptor_t ConvBiasT;
  CHECK_STATUS(cudnnCreateTensorDescriptor(&ConvBiasT));
  CHECK_STATUS(
      cudnnSetTensor4dDescriptor(ConvBiasT, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, K, 1, 1));
  CHECK_STATUS(
      cudnnSetActivationDescriptor(Act, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0));
  CHECK_STATUS(cudnnConvolutionBiasActivationForward(
      H, &One, InT, DIn, FilterT, DFilter, Conv, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM,
      nullptr, 0, &Zero, OutT, DZ, ConvBiasT, DConvBias, Act, OutT, DOut));
  Out = toHost(DOut, Ref.size());
  for (size_t I = 0; I < Ref.size(); ++I)
    EXPECT(Out[I] == Fused[I], "convolution+bias+relu at %zu = %g, expected %g", I, Out[I],
           Fused[I]);
  std::vector<float> DataRef(In.size(), 0.0f), FilterRef(Filter.size(), 0.0f);
  for (int n = 0; n < Cn; ++n)
    for (int k = 0; k < K; ++k)
      for (int y = 0; y < Ch; ++y)
        for (int x = 0; x < Cw; ++x)
          for (int c = 0; c < Cc; ++c)
            for (int r = 0; r < R; ++r)
              for (int s = 0; s < S; ++s) {
                int iy = y + r - 1, ix = x + s - 1;
                if (iy < 0 || iy >= Ch || ix < 0 || ix >= Cw)
                  continue;
                float G = Fused[at(Cn, K, Ch, Cw, n, k, y, x)];
                int F = ((k * Cc + c) * R + r) * S + s, I = at(Cn, Cc, Ch, Cw, n, c, iy, ix);
                DataRef[I] += G * Filter[F];
                FilterRef[F] += G * In[I];
              }
  float *DGrad = nullptr, *DFilterGrad = nullptr;
  CHECK(cudaMalloc(&DGrad, In.size() * sizeof(float)));
  CHECK(cudaMalloc(&DFilterGrad, Filter.size() * sizeof(float)));
  for (int A = 0; A < 2; ++A) {
    auto DataAlgo = cudnnConvolutionBwdDataAlgo_t(A);
    auto FilterAlgo = cudnnConvolutionBwdFilterAlgo_t(A);
    size_t Workspace = 0, FilterWorkspace = 0;
    CHECK_STATUS(cudnnGetConvolutionBackwardDataWorkspaceSize(H, FilterT, OutT, Conv, InT, DataAlgo,
                                                              &Workspace));
    CHECK_STATUS(cudnnGetConvolutionBackwardFilterWorkspaceSize(H, InT, OutT, Conv, FilterT,
                                                                FilterAlgo, &FilterWorkspace));
    Workspace = std::max(Workspace, FilterWorkspace);
    void *DWork = nullptr;
    if (Workspace)
      CHECK(cudaMalloc(&DWork, Workspace));
    CHECK_STATUS(cudnnConvolutionBackwardData(H, &One, FilterT, DFilter, OutT, DOut, Conv, DataAlgo,
                                              DWork, Workspace, &Zero, InT, DGrad));
    CHECK_STATUS(cudnnConvolutionBackwardFilter(H, &One, InT, DIn, OutT, DOut, Conv, FilterAlgo,
                                                DWork, Workspace, &Zero, FilterT, DFilterGrad));
    std::vector<float> Grad = toHost(DGrad, In.size()),
                       FilterGrad = toHost(DFilterGrad, Filter.size());
    for (size_t I = 0; I < In.size(); ++I)
      EXPECT(Grad[I] == DataRef[I], "backward data algorithm %d at %zu = %g, expected %g", A, I,
             Grad[I], DataRef[I]);
    for (size_t I = 0; I < Filter.size(); ++I)
      EXPECT(FilterGrad[I] == FilterRef[I], "backward filter algorithm %d at %zu = %g, expected %g",
             A, I, FilterGrad[I], FilterRef[I]);
    if (DWork)
      CHECK(cudaFree(DWork));
  }

  // ---- inference-time batch normalization, NCHW to NHWC, element-wise product, sum over H x W
  std::vector<float> Scale = {1, 2, 0.5f}, Shift = {0, 1, -1}, Mean = {0.5f, -1, 2},
                     Variance = {1, 4, 0.25f};
  float *DScale = toDevice(Scale), *DShift = toDevice(Shift), *DMean = toDevice(Mean),
        *DVariance = toDevice(Variance);
  cudnnTensorDescriptor_t BnT;
  CHECK_STATUS(cudnnCreateTensorDescriptor(&BnT));
  CHECK_STATUS(cudnnDeriveBNTensorDescriptor(BnT, T, CUDNN_BATCHNORM_SPATIAL));
  CHECK_STATUS(cudnnBatchNormalizationForwardInference(H, CUDNN_BATCHNORM_SPATIAL, &One, &Zero, T,
                                                       DX, T, DY, BnT, DScale, DShift, DMean,
                                                       DVariance, 1e-5));
  Y = toHost(DY, Count);
  for (int I = 0; I < Count; ++I) {
    int c = (I / (Hh * W)) % C;
    double Ref = Scale[c] * (X[I] - Mean[c]) / std::sqrt(Variance[c] + 1e-5) + Shift[c];
    EXPECT(std::fabs(Y[I] - Ref) <= 1e-5, "batch norm at %d = %.9g, expected %.9g", I, Y[I], Ref);
  }
  cudnnTensorDescriptor_t Nhwc;
  CHECK_STATUS(cudnnCreateTensorDescriptor(&Nhwc));
  CHECK_STATUS(cudnnSetTensor4dDescriptor(Nhwc, CUDNN_TENSOR_NHWC, CUDNN_DATA_FLOAT, N, C, Hh, W));
  CHECK_STATUS(cudnnTransformTensor(H, &One, T, DX, &Zero, Nhwc, DY));
  Y = toHost(DY, Count);
  for (int n = 0; n < N; ++n)
    for (int c = 0; c < C; ++c)
      for (int h = 0; h < Hh; ++h)
        for (int w = 0; w < W; ++w)
          EXPECT(Y[((n * Hh + h) * W + w) * C + c] == X[at(N, C, Hh, W, n, c, h, w)],
                 "NCHW to NHWC at (%d,%d,%d,%d)", n, c, h, w);
  cudnnOpTensorDescriptor_t Op;
  CHECK_STATUS(cudnnCreateOpTensorDescriptor(&Op));
  CHECK_STATUS(cudnnSetOpTensorDescriptor(Op, CUDNN_OP_TENSOR_MUL, CUDNN_DATA_FLOAT,
                                          CUDNN_NOT_PROPAGATE_NAN));
  CHECK_STATUS(cudnnOpTensor(H, Op, &One, T, DX, &Two, T, DX, &Zero, T, DY));
  Y = toHost(DY, Count);
  for (int I = 0; I < Count; ++I)
    EXPECT(Y[I] == X[I] * 2 * X[I], "op tensor at %d = %g", I, Y[I]);
  cudnnReduceTensorDescriptor_t Reduce;
  CHECK_STATUS(cudnnCreateReduceTensorDescriptor(&Reduce));
  CHECK_STATUS(cudnnSetReduceTensorDescriptor(Reduce, CUDNN_REDUCE_TENSOR_ADD, CUDNN_DATA_FLOAT,
                                              CUDNN_NOT_PROPAGATE_NAN,
                                              CUDNN_REDUCE_TENSOR_NO_INDICES, CUDNN_32BIT_INDICES));
  cudnnTensorDescriptor_t Sums;
  CHECK_STATUS(cudnnCreateTensorDescriptor(&Sums));
  CHECK_STATUS(cudnnSetTensor4dDescriptor(Sums, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, C, 1, 1));
  size_t ReduceWorkspace = 0;
  CHECK_STATUS(cudnnGetReductionWorkspaceSize(H, Reduce, T, Sums, &ReduceWorkspace));
  void *DReduceWork = nullptr;
  if (ReduceWorkspace)
    CHECK(cudaMalloc(&DReduceWork, ReduceWorkspace));
  CHECK_STATUS(cudnnReduceTensor(H, Reduce, nullptr, 0, DReduceWork, ReduceWorkspace, &One, T, DX,
                                 &Zero, Sums, DY));
  Y = toHost(DY, N * C);
  for (int I = 0; I < N * C; ++I) {
    float Sum = 0;
    for (int J = 0; J < Hh * W; ++J)
      Sum += X[I * Hh * W + J];
    EXPECT(Y[I] == Sum, "sum over H x W at %d = %g, expected %g", I, Y[I], Sum);
  }

  // ---- half precision NHWC convolution, implicit GEMM (the tensor-core algorithms are SASS)
  {
    const int C2 = 8, K2 = 8;
    std::vector<__half> Xh(Cn * Ch * Cw * C2), Wh(K2 * 3 * 3 * C2);
    for (size_t I = 0; I < Xh.size(); ++I)
      Xh[I] = __float2half(float(int(I % 5) - 2));
    for (size_t I = 0; I < Wh.size(); ++I)
      Wh[I] = __float2half(float(int(I % 3) - 1));
    __half *DXh = toDevice(Xh), *DWh = toDevice(Wh), *DYh = nullptr;
    CHECK(cudaMalloc(&DYh, Cn * Ch * Cw * K2 * sizeof(__half)));
    cudnnTensorDescriptor_t XhT, YhT;
    cudnnFilterDescriptor_t WhT;
    cudnnConvolutionDescriptor_t ConvH;
    CHECK_STATUS(cudnnCreateTensorDescriptor(&XhT));
    CHECK_STATUS(cudnnCreateTensorDescriptor(&YhT));
    CHECK_STATUS(cudnnCreateFilterDescriptor(&WhT));
    CHECK_STATUS(cudnnCreateConvolutionDescriptor(&ConvH));
    CHECK_STATUS(
        cudnnSetTensor4dDescriptor(XhT, CUDNN_TENSOR_NHWC, CUDNN_DATA_HALF, Cn, C2, Ch, Cw));
    CHECK_STATUS(
        cudnnSetTensor4dDescriptor(YhT, CUDNN_TENSOR_NHWC, CUDNN_DATA_HALF, Cn, K2, Ch, Cw));
    CHECK_STATUS(cudnnSetFilter4dDescriptor(WhT, CUDNN_DATA_HALF, CUDNN_TENSOR_NHWC, K2, C2, 3, 3));
    CHECK_STATUS(cudnnSetConvolution2dDescriptor(ConvH, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                                 CUDNN_DATA_FLOAT));
    CHECK_STATUS(cudnnConvolutionForward(H, &One, XhT, DXh, WhT, DWh, ConvH,
                                         CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, nullptr, 0,
                                         &Zero, YhT, DYh));
    std::vector<__half> Yh = toHost(DYh, Cn * Ch * Cw * K2);
    for (int n = 0; n < Cn; ++n)
      for (int y = 0; y < Ch; ++y)
        for (int x = 0; x < Cw; ++x)
          for (int k = 0; k < K2; ++k) {
            float Sum = 0;
            for (int r = 0; r < 3; ++r)
              for (int s = 0; s < 3; ++s)
                for (int c = 0; c < C2; ++c) {
                  int iy = y + r - 1, ix = x + s - 1;
                  if (iy >= 0 && iy < Ch && ix >= 0 && ix < Cw)
                    Sum += __half2float(Xh[((n * Ch + iy) * Cw + ix) * C2 + c]) *
                           __half2float(Wh[((k * 3 + r) * 3 + s) * C2 + c]);
                }
            float Got = __half2float(Yh[((n * Ch + y) * Cw + x) * K2 + k]);
            EXPECT(Got == Sum, "half NHWC convolution at (%d,%d,%d,%d) = %g, expected %g", n, y, x,
                   k, Got, Sum);
          }
  }

  CHECK(cudaDeviceSynchronize());
  CHECK_STATUS(cudnnDestroy(H));
  return report();
}
