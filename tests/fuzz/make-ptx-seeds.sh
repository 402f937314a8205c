#!/usr/bin/env bash
# Rebuilds the nvcc-generated part of the PTX parser fuzzer's seed corpus (tests/fuzz/corpus/ptx/
# nvcc-*.ptx) from small CUDA kernels written here: arithmetic, shared memory, atomics, warp
# shuffles and votes, device functions and calls, loops, f16, local arrays, printf, textures,
# indirect calls and -G debug info, each small so that mutations stay cheap. It also refreshes the
# copies of the repository's own PTX: the fatbin fixtures (fixture-*), the parser's invalid
# snippets (invalid-*, error paths) and valid edge cases (valid-*). The hand-written seeds
# (grammar-*.ptx) and the reproducers of past findings (crash-*, leak-*, timeout-*, oom-*,
# roundtrip-*) are kept.
#
# Usage: tests/fuzz/make-ptx-seeds.sh [CUDA_HOME]   (default /usr/local/cuda)
set -euo pipefail

CUDA_HOME=${1:-/usr/local/cuda}
NVCC=$CUDA_HOME/bin/nvcc
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$HERE/corpus/ptx
# A fixed directory, not mktemp: -G and -lineinfo record the source path and the working
# directory (.file, DWARF comp_dir), so reruns give byte-identical seeds.
WORK=/tmp/reptx-ptx-seeds
rm -rf "$WORK"
mkdir -p "$WORK"
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"

cat >arith.cu <<'EOF'
extern "C" __global__ void arith(int *O, const int *A, unsigned S, long long W, double D) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  int X = A[I];
  unsigned U = (unsigned)X >> (S & 31);
  O[I] = X * 7 + (X << 3) - (X / 5) + (X % 9) + __popc(U) + __clz(X) + __brev(U) + min(X, 3);
  O[I + 1] = (int)(W * X + (long long)(D * 1.5)) ^ __mulhi(X, 12345) ^ __byte_perm(X, U, 0x5410);
}
extern "C" __global__ void fmath(float *O, const float *A, double *P) {
  int I = threadIdx.x;
  float X = A[I];
  O[I] = __fdividef(X, 3.0f) + sqrtf(X) + __expf(X) + fmaf(X, 2.0f, 1.0f) + rsqrtf(X) + fabsf(X);
  P[I] = sin((double)X) + rint((double)X) + (double)(X > 0.5f ? X : -X);
}
EOF

cat >shared.cu <<'EOF'
extern "C" __global__ void reduce(float *Out, const float *In, int N) {
  __shared__ float Tile[256];
  extern __shared__ float Dyn[];
  unsigned T = threadIdx.x;
  Tile[T] = T < N ? In[blockIdx.x * 256 + T] : 0.0f;
  Dyn[T] = Tile[T];
  __syncthreads();
  for (unsigned S = 128; S > 0; S >>= 1) {
    if (T < S)
      Tile[T] += Tile[T + S];
    __syncthreads();
  }
  if (T == 0)
    Out[blockIdx.x] = Tile[0] + Dyn[1];
}
EOF

cat >atomics.cu <<'EOF'
extern "C" __global__ void atomics(int *C, unsigned *U, float *F, double *D,
                                   unsigned long long *L) {
  atomicAdd(C, 1);
  atomicMax(C + 1, (int)threadIdx.x);
  atomicCAS(U, 0u, threadIdx.x);
  atomicExch(U + 1, 7u);
  atomicInc(U + 2, 100u);
  atomicAnd(U + 3, 0xF0u);
  atomicAdd(F, 1.5f);
  atomicAdd(D, 2.5);
  atomicAdd(L, 1ull);
  __threadfence();
  __shared__ int S;
  atomicOr(&S, 1);
  atomicAdd_block(C + 2, 1);
  atomicAdd_system(C + 3, 1);
}
EOF

cat >warp.cu <<'EOF'
extern "C" __global__ void warp(int *O, const int *A) {
  int V = A[threadIdx.x];
  for (int D = 16; D > 0; D /= 2)
    V += __shfl_down_sync(0xffffffff, V, D);
  V += __shfl_xor_sync(0xffffffff, V, 1) + __shfl_sync(0x0000ffff, V, 3, 16);
  unsigned B = __ballot_sync(0xffffffff, V > 0);
  int All = __all_sync(0xffffffff, V != 0), Any = __any_sync(0xffffffff, V == 3);
  unsigned M = __match_any_sync(0xffffffff, V);
  __syncwarp();
  O[threadIdx.x] = V + __popc(B) + All + Any + M + __reduce_add_sync(0xffffffff, V);
}
EOF

cat >calls.cu <<'EOF'
__device__ __noinline__ float poly(float X, int N) {
  float R = 0;
  for (int I = 0; I < N; ++I)
    R = R * X + I;
  return R;
}
struct Pair {
  int A;
  double B;
};
__device__ __noinline__ Pair mk(int A, double B) { return {A, B}; }
__device__ int Table[4] = {1, 2, 3, 4};
__device__ int *Ptr = Table + 2;
__constant__ float Coef[3] = {0.5f, 1.0f, 2.0f};
extern "C" __global__ void calls(float *O, int N) {
  int I = threadIdx.x;
  Pair P = mk(I, 2.0);
  O[I] = poly(O[I] * Coef[I % 3], N) + P.B + P.A + Table[I & 3] + *Ptr;
}
EOF

cat >loops.cu <<'EOF'
extern "C" __global__ void loops(int *O, const int *A, int N) {
  int S = 0;
#pragma unroll 1
  for (int I = 0; I < N; ++I) {
    if (A[I] < 0)
      continue;
    if (A[I] == 42)
      break;
    S += A[I];
  }
  int J = 0;
  while (S > 100 && J < N) {
    S -= A[J++];
  }
  switch (S & 7) {
  case 0: S = 1; break;
  case 1: S = 10; break;
  case 2: S = 100; break;
  case 3: S = 7; break;
  case 5: S = -3; break;
  default: S = 0;
  }
  O[threadIdx.x] = S;
}
EOF

cat >half.cu <<'EOF'
#include <cuda_bf16.h>
#include <cuda_fp16.h>
extern "C" __global__ void halves(__half *O, const __half2 *A, __nv_bfloat16 *B) {
  int I = threadIdx.x;
  __half2 V = __hfma2(A[I], A[I + 1], __float2half2_rn(1.0f));
  O[I] = __hadd(__low2half(V), __high2half(V));
  B[I] = __float2bfloat16(__half2float(O[I]) * 3.0f) + B[I + 1];
}
EOF

cat >local.cu <<'EOF'
extern "C" __global__ void local(int *O, const int *Idx) {
  int Arr[32];
  for (int I = 0; I < 32; ++I)
    Arr[I] = I * threadIdx.x;
  O[threadIdx.x] = Arr[Idx[threadIdx.x] & 31];
}
EOF

cat >printf.cu <<'EOF'
#include <cstdio>
extern "C" __global__ void hello(int N, float X) {
  printf("thread %d of %d: x=%f \"quoted\"\n", threadIdx.x, N, X);
}
EOF

cat >texture.cu <<'EOF'
extern "C" __global__ void tex(float *O, cudaTextureObject_t T, cudaSurfaceObject_t S) {
  int X = threadIdx.x, Y = blockIdx.x;
  float V = tex2D<float>(T, X + 0.5f, Y + 0.5f) + tex1Dfetch<float>(T, X);
  surf2Dwrite(V, S, X * 4, Y);
  O[Y * blockDim.x + X] = V;
}
EOF

cat >indirect.cu <<'EOF'
typedef float (*Fn)(float);
__device__ __noinline__ float twice(float X) { return 2 * X; }
__device__ __noinline__ float neg(float X) { return -X; }
__device__ Fn Fns[2] = {twice, neg};
extern "C" __global__ void indirect(float *O, int K) {
  O[threadIdx.x] = Fns[K & 1](O[threadIdx.x]);
}
EOF

cat >misc.cu <<'EOF'
extern "C" __global__ void __launch_bounds__(128, 2) misc(unsigned long long *O, int *F) {
  O[0] = clock64();
  O[1] = __activemask();
  unsigned Sm;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(Sm));
  O[2] = Sm + __ldg(F) + __ldcs(F + 1);
  __stcs(F + 2, 5);
  if (F[3] < 0)
    __trap();
  __nanosleep(100);
  O[3] = __funnelshift_l(O[0], O[1], 3);
}
EOF

nv() { "$NVCC" "$@"; }
A80='-arch=sm_80'
nv -ptx $A80 -o nvcc-arith.ptx arith.cu
nv -ptx $A80 -o nvcc-shared.ptx shared.cu
nv -ptx -arch=sm_90 -o nvcc-atomics.sm90.ptx atomics.cu
nv -ptx $A80 -o nvcc-warp.ptx warp.cu
nv -ptx $A80 -o nvcc-calls.ptx calls.cu
nv -ptx $A80 -rdc=true -o nvcc-calls-rdc.ptx calls.cu
nv -ptx $A80 -o nvcc-loops.ptx loops.cu
nv -ptx -arch=sm_75 -o nvcc-half.sm75.ptx half.cu
nv -ptx $A80 -o nvcc-half.ptx half.cu
nv -ptx $A80 -o nvcc-local.ptx local.cu
nv -ptx $A80 -o nvcc-printf.ptx printf.cu
nv -ptx $A80 -o nvcc-texture.ptx texture.cu
nv -ptx $A80 -rdc=true -o nvcc-indirect.ptx indirect.cu
nv -ptx $A80 -o nvcc-misc.ptx misc.cu
# Debug info: .file/.loc in bodies and DWARF .section blocks.
nv -ptx $A80 -G -o nvcc-loops-debug.ptx loops.cu
nv -ptx $A80 -lineinfo -o nvcc-shared-lineinfo.ptx shared.cu
# 32-bit addressing is gone from nvcc 13; -arch=sm_100a gives the newest target spelling.
nv -ptx -arch=sm_100a -o nvcc-warp.sm100a.ptx warp.cu

mkdir -p "$OUT"
rm -f "$OUT"/nvcc-*.ptx "$OUT"/fixture-*.ptx "$OUT"/invalid-*.ptx "$OUT"/valid-*.ptx
cp nvcc-*.ptx "$OUT"/
REPO=$(cd "$HERE/../.." && pwd)
copy() { # copy PREFIX FILES...: the repository's PTX under a prefix that says where it came from
  local Prefix=$1 F
  shift
  for F in "$@"; do
    [[ -f $F ]] && cp "$F" "$OUT/$Prefix-$(basename "$F")"
  done
  return 0
}
copy fixture "$REPO"/tests/fatbin/fixtures/expected/*.ptx
copy invalid "$REPO"/tests/ptx/invalid/*.ptx
copy valid "$REPO"/tests/ptx/valid/*.ptx
du -cb "$OUT" | tail -1
