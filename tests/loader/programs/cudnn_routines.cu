// cuDNN's legacy operations through reptx: libcudnn_ops and libcudnn_cnn ship their kernels as PTX
// (for sm_120/sm_121), which the loader recompiles. Activation, softmax, bias addition, pooling
// and the convolution forward algorithms that need no cuBLAS GEMM (implicit GEMM, implicit
// precomputed GEMM and GEMM; FFT and Winograd call libcublasLt's SASS-only kernels, which no PTX
// recompiler can run), each against a host computation. Small integer and half-integer data keep
// every float sum exact.
#include "check.h"
#include <cmath>
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
    std::vector<float> Out = toHost(DOut, Ref.size());
    for (size_t I = 0; I < Ref.size(); ++I)
      EXPECT(Out[I] == Ref[I], "convolution algorithm %d at %zu = %g, expected %g", int(Algo), I,
             Out[I], Ref[I]);
    if (DWork)
      CHECK(cudaFree(DWork));
  }
  CHECK(cudaDeviceSynchronize());
  CHECK_STATUS(cudnnDestroy(H));
  return report();
}
