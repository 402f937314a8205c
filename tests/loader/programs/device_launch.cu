// Dynamic parallelism (kernels launched from device code, CUDA 12's device runtime): children
// with their own configurations and parameters, nesting, tail launches, device-side streams,
// the pending-launch limit, function attributes, occupancy and limits asked in device code.
// Expected values from host loops and the host API's answers.
#include "check.h"

struct Affine {
  double Scale;
  int Offset;
  char Tag;
};

// Writes Out[i] = Base + i * Step over a 2D grid of 2D blocks.
__global__ void fill2d(int *Out, int Width, int Height, int Base, int Step) {
  int X = blockIdx.x * blockDim.x + threadIdx.x, Y = blockIdx.y * blockDim.y + threadIdx.y;
  if (X < Width && Y < Height)
    Out[Y * Width + X] = Base + (Y * Width + X) * Step;
}

__global__ void fillParent(int *Out, int Width, int Height) {
  fill2d<<<dim3((Width + 15) / 16, (Height + 11) / 12), dim3(16, 12)>>>(Out, Width, Height, 7, 3);
}

// One child per parent thread, each over its own segment, with a by-value struct and double.
__global__ void affineChild(double *Out, const int *In, int N, Affine A) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N)
    Out[I] = In[I] * A.Scale + A.Offset + A.Tag;
}
__global__ void affineParent(double *Out, const int *In, int Segment, int Segments) {
  int S = blockIdx.x * blockDim.x + threadIdx.x;
  if (S >= Segments)
    return;
  Affine A{0.5 + S, S * 3, char('a' + S % 26)};
  affineChild<<<(Segment + 31) / 32, 32>>>(Out + S * Segment, In + S * Segment, Segment, A);
}

// Recursion: level L writes its marker and launches level L + 1 until Depth.
__global__ void nest(int *Marks, int Level, int Depth) {
  Marks[Level] = Level * 11 + 1;
  if (Level + 1 < Depth)
    nest<<<1, 1>>>(Marks, Level + 1, Depth);
}

// Ordering: children launched into the block's stream run one after the other, each after the
// children launched before it have finished; a tail launch runs after everything else.
__global__ void appendValue(int *Log, int Value) {
  int At = atomicAdd(&Log[0], 1);
  Log[1 + At] = Value;
}
__global__ void appendTwice(int *Log, int Value) {
  appendValue<<<1, 1>>>(Log, Value);
  appendValue<<<1, 1>>>(Log, Value + 1);
}
__global__ void ordered(int *Log) {
  appendValue<<<1, 1, 0, cudaStreamTailLaunch>>>(Log, 900);
  appendTwice<<<1, 1>>>(Log, 10);
  appendValue<<<1, 1>>>(Log, 20);
  cudaStream_t S;
  cudaStreamCreateWithFlags(&S, cudaStreamNonBlocking);
  appendValue<<<1, 1, 0, S>>>(Log, 30);
  cudaStreamDestroy(S);
  appendValue<<<1, 1, 0, cudaStreamFireAndForget>>>(Log, 40);
}

// Dynamic shared memory and the device runtime's answers (the device's attributes as the host
// sees them; device 1 does not exist; the thread's last error after failed calls).
__global__ void sharedChild(int *Out, int N) {
  extern __shared__ int Tile[];
  Tile[threadIdx.x] = threadIdx.x * 7;
  __syncthreads();
  if (threadIdx.x < N)
    Out[threadIdx.x] = Tile[N - 1 - threadIdx.x];
}
__global__ void runtimeParent(int *Out, int *Status, int N) {
  sharedChild<<<1, N, N * sizeof(int)>>>(Out, N);
  Status[0] = cudaGetLastError();
  int Device = -1, Count = -1;
  Status[1] = cudaGetDevice(&Device);
  Status[2] = Device;
  Status[3] = cudaGetDeviceCount(&Count);
  Status[4] = Count;
  int *P = nullptr;
  Status[5] = cudaMalloc(&P, 64);
  Status[6] = P != nullptr;
  if (P) {
    P[15] = 5;
    Status[7] = cudaFree(P);
  }
  int Units = -1, Warp = -1;
  Status[8] = cudaDeviceGetAttribute(&Units, cudaDevAttrMultiProcessorCount, 0);
  Status[9] = Units;
  Status[10] = cudaDeviceGetAttribute(&Warp, cudaDevAttrWarpSize, 0);
  Status[11] = Warp;
  Status[12] = cudaDeviceGetAttribute(&Warp, cudaDevAttrWarpSize, 1);
  Status[13] = cudaGetLastError(); // the failed query's error, then none
  Status[14] = cudaGetLastError();
  sharedChild<<<1, 2048>>>(Out, 0); // more threads than a block holds
  Status[15] = cudaPeekAtLastError();
  Status[16] = cudaGetLastError();
  Status[17] = cudaGetLastError();
}

// The device runtime's copies and fills (libcudadevrt runs them as kernels of its own): a fill,
// a copy, then a child that reads both, in the block's stream. (The fill is with zero: CUDA
// 13.0's libcudadevrt PTX stores 0 as the fill value whatever value is passed.)
__global__ void sumOf(int *Out, const int *A, const unsigned char *B, int N) {
  int S = 0;
  for (int I = 0; I < N; ++I)
    S += A[I] * 3 + B[I];
  *Out = S;
}
__global__ void copyFill(int *Out, int *A, const int *Src, unsigned char *B, int N) {
  cudaMemsetAsync(B + 3, 0, N - 5, 0);
  cudaMemcpyAsync(A, Src, N * sizeof(int), cudaMemcpyDeviceToDevice, 0);
  sumOf<<<1, 1>>>(Out, A, B, N);
}

// What device code asks of the device runtime besides launches: function attributes and
// occupancy (the same answers as the host API's), limits, cache and shared-memory configuration.
__global__ void __launch_bounds__(256) tileKernel(int *Out) {
  __shared__ int Tile[300];
  Tile[threadIdx.x] = threadIdx.x;
  __syncthreads();
  Out[threadIdx.x] = Tile[(threadIdx.x + 1) % blockDim.x];
}
__global__ void queries(long long *Out) {
  cudaFuncAttributes A;
  Out[0] = cudaFuncGetAttributes(&A, tileKernel);
  Out[1] = A.sharedSizeBytes;
  Out[2] = A.maxThreadsPerBlock;
  Out[3] = A.ptxVersion;
  Out[4] = A.binaryVersion;
  Out[5] = A.numRegs;
  Out[6] = A.localSizeBytes;
  int Blocks = -1;
  Out[7] = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&Blocks, tileKernel, 128, 0);
  Out[8] = Blocks;
  Out[9] = cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
      &Blocks, tileKernel, 64, 40000, cudaOccupancyDisableCachingOverride);
  Out[10] = Blocks;
  Out[11] = cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&Blocks, tileKernel, 64, 0, 7);
  Out[12] = cudaFuncGetAttributes(&A, reinterpret_cast<const void *>(Out)); // not a kernel
  size_t V = 0;
  Out[13] = cudaDeviceGetLimit(&V, cudaLimitStackSize);
  Out[14] = V;
  Out[15] = cudaDeviceGetLimit(&V, cudaLimitMallocHeapSize);
  Out[16] = V;
  Out[17] = cudaDeviceGetLimit(&V, cudaLimitDevRuntimePendingLaunchCount);
  Out[18] = V;
  Out[19] = cudaDeviceGetLimit(&V, static_cast<cudaLimit>(99));
  cudaFuncCache Cache = static_cast<cudaFuncCache>(7);
  Out[20] = cudaDeviceGetCacheConfig(&Cache);
  Out[21] = Cache;
  Out[22] = cudaGetLastError();
}

// Many launches: every thread of 8 blocks launches one.
__global__ void one(int *Out, int I) { Out[I] = I ^ 0x5a5a; }
__global__ void many(int *Out) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  one<<<1, 1>>>(Out, I);
}

int main() {
  size_t Pending = 0;
  CHECK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, 4096));
  CHECK(cudaDeviceGetLimit(&Pending, cudaLimitDevRuntimePendingLaunchCount));
  expect(Pending == 4096, "pending launch count", long(Pending));

  { // a 2D child launched with a 2D configuration from one host launch
    const int W = 70, H = 33;
    int *Out;
    CHECK(cudaMalloc(&Out, W * H * sizeof(int)));
    CHECK(cudaMemset(Out, 0, W * H * sizeof(int)));
    fillParent<<<1, 1>>>(Out, W, H);
    CHECK(cudaDeviceSynchronize());
    auto Got = toHost(Out, W * H);
    for (int I = 0; I < W * H; ++I)
      expect(Got[I] == 7 + I * 3, "2D child", I);
    CHECK(cudaFree(Out));
  }
  { // affine children, one per parent thread
    const int Segment = 100, Segments = 40;
    std::vector<int> In(Segment * Segments);
    for (size_t I = 0; I < In.size(); ++I)
      In[I] = int(I * 37 % 1001) - 500;
    int *DIn = toDevice(In);
    double *Out;
    CHECK(cudaMalloc(&Out, In.size() * sizeof(double)));
    affineParent<<<2, 32>>>(Out, DIn, Segment, Segments);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    auto Got = toHost(Out, In.size());
    for (int S = 0; S < Segments; ++S)
      for (int I = 0; I < Segment; ++I) {
        int K = S * Segment + I;
        double Want = In[K] * (0.5 + S) + S * 3 + char('a' + S % 26);
        expect(Got[K] == Want, "affine child", K);
      }
    CHECK(cudaFree(Out));
    CHECK(cudaFree(DIn));
  }
  { // nesting 20 levels deep
    const int Depth = 20;
    int *Marks;
    CHECK(cudaMalloc(&Marks, 32 * sizeof(int)));
    CHECK(cudaMemset(Marks, 0, 32 * sizeof(int)));
    nest<<<1, 1>>>(Marks, 0, Depth);
    CHECK(cudaDeviceSynchronize());
    auto Got = toHost(Marks, 32);
    for (int L = 0; L < 32; ++L)
      expect(Got[L] == (L < Depth ? L * 11 + 1 : 0), "nesting mark", L);
    CHECK(cudaFree(Marks));
  }
  { // ordering: 10, 11 (children of appendTwice) before 20; the tail launch last
    int *Log;
    CHECK(cudaMalloc(&Log, 16 * sizeof(int)));
    CHECK(cudaMemset(Log, 0, 16 * sizeof(int)));
    ordered<<<1, 1>>>(Log);
    CHECK(cudaDeviceSynchronize());
    auto Got = toHost(Log, 16);
    expect(Got[0] == 6, "launches logged", Got[0]);
    int Pos10 = -1, Pos11 = -1, Pos20 = -1, Pos900 = -1, Seen30 = 0, Seen40 = 0;
    for (int I = 1; I <= Got[0] && I < 16; ++I) {
      if (Got[I] == 10)
        Pos10 = I;
      if (Got[I] == 11)
        Pos11 = I;
      if (Got[I] == 20)
        Pos20 = I;
      if (Got[I] == 900)
        Pos900 = I;
      Seen30 += Got[I] == 30;
      Seen40 += Got[I] == 40;
    }
    expect(Pos10 > 0 && Pos11 > Pos10 && Pos20 > Pos11, "stream order 10 < 11 < 20", Pos20);
    expect(Pos900 == Got[0], "the tail launch runs last", Pos900);
    expect(Seen30 == 1 && Seen40 == 1, "created and fire-and-forget streams ran once", Seen30);
    CHECK(cudaFree(Log));
  }
  { // dynamic shared memory; the device runtime's own calls
    const int N = 96;
    int *Out, *Status;
    CHECK(cudaMalloc(&Out, N * sizeof(int)));
    CHECK(cudaMalloc(&Status, 18 * sizeof(int)));
    CHECK(cudaMemset(Status, 0xff, 18 * sizeof(int)));
    runtimeParent<<<1, 1>>>(Out, Status, N);
    CHECK(cudaDeviceSynchronize());
    auto Got = toHost(Out, N);
    for (int I = 0; I < N; ++I)
      expect(Got[I] == (N - 1 - I) * 7, "shared-memory child", I);
    int Units = 0;
    CHECK(cudaDeviceGetAttribute(&Units, cudaDevAttrMultiProcessorCount, 0));
    auto St = toHost(Status, 18);
    const int Bad = cudaErrorInvalidDevice, Config = cudaErrorInvalidConfiguration;
    const int Want[18] = {0, 0, 0, 0, 1, 0, 1, 0, 0, Units, 0, 32, Bad, Bad, 0, Config, Config, 0};
    for (int I = 0; I < 18; ++I)
      expect(St[I] == Want[I], "device runtime status", I);
    CHECK(cudaFree(Out));
    CHECK(cudaFree(Status));
  }
  { // device-side copies and fills
    const int N = 1000;
    std::vector<int> Src(N);
    long Want = 0;
    for (int I = 0; I < N; ++I) {
      Src[I] = I * 5 - 77;
      Want += Src[I] * 3 + (I >= 3 && I < N - 2 ? 0 : 0x5c);
    }
    int *DSrc = toDevice(Src), *A, *Out;
    unsigned char *B;
    CHECK(cudaMalloc(&A, N * sizeof(int)));
    CHECK(cudaMalloc(&B, N));
    CHECK(cudaMalloc(&Out, sizeof(int)));
    CHECK(cudaMemset(A, 0, N * sizeof(int)));
    CHECK(cudaMemset(B, 0x5c, N));
    copyFill<<<1, 1>>>(Out, A, DSrc, B, N);
    CHECK(cudaDeviceSynchronize());
    auto Got = toHost(Out, 1);
    expect(Got[0] == Want, "device-side copy and fill", Got[0]);
    auto GotA = toHost(A, N);
    for (int I = 0; I < N; ++I)
      expect(GotA[I] == Src[I], "device-side copy", I);
    CHECK(cudaFree(DSrc));
    CHECK(cudaFree(A));
    CHECK(cudaFree(B));
    CHECK(cudaFree(Out));
  }
  { // function attributes, occupancy and limits in device code
    const int N = 23;
    long long *Out;
    CHECK(cudaMalloc(&Out, N * sizeof(long long)));
    CHECK(cudaDeviceSetLimit(cudaLimitStackSize, 4096));
    size_t Heap = 0; // fixed since the device's malloc heap exists (device cudaMalloc above)
    CHECK(cudaDeviceGetLimit(&Heap, cudaLimitMallocHeapSize));
    queries<<<1, 1>>>(Out);
    CHECK(cudaDeviceSynchronize());
    auto Got = toHost(Out, N);
    cudaFuncAttributes A;
    CHECK(cudaFuncGetAttributes(&A, tileKernel));
    // The PTX version is the target the kernel's own unit was compiled for (nvcc's default,
    // compute_75), not libcudadevrt's newer one that the -rdc link also holds: CUB and Thrust pick
    // their tuning by it.
    expect(A.ptxVersion == 75 && A.sharedSizeBytes == 300 * 4 && A.maxThreadsPerBlock == 256,
           "host function attributes", A.ptxVersion);
    int Blocks128 = 0, Blocks64 = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&Blocks128, tileKernel, 128, 0));
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&Blocks64, tileKernel, 64, 40000));
    const long long Want[N] = {0,
                               300 * 4,
                               256,
                               75,
                               A.binaryVersion,
                               A.numRegs,
                               (long long)A.localSizeBytes,
                               0,
                               Blocks128,
                               0,
                               Blocks64,
                               cudaErrorInvalidValue,
                               cudaErrorInvalidValue, // libcudadevrt maps no error to 98
                               0,
                               4096,
                               0,
                               (long long)Heap,
                               0,
                               4096, // as set above
                               cudaErrorUnsupportedLimit,
                               0,
                               cudaFuncCachePreferNone,
                               cudaErrorInvalidValue}; // left by the failed attribute query
    for (int I = 0; I < N; ++I)
      expect(Got[I] == Want[I], "device-side query", I);
    CHECK(cudaFree(Out));
  }
  { // 8 x 256 launches at once
    const int N = 8 * 256;
    int *Out;
    CHECK(cudaMalloc(&Out, N * sizeof(int)));
    CHECK(cudaMemset(Out, 0, N * sizeof(int)));
    many<<<8, 256>>>(Out);
    CHECK(cudaDeviceSynchronize());
    auto Got = toHost(Out, N);
    for (int I = 0; I < N; ++I)
      expect(Got[I] == (I ^ 0x5a5a), "many launches", I);
    CHECK(cudaFree(Out));
  }
  if (failures)
    return 1;
  std::printf("PASS\n");
}
