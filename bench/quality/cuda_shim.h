// The CUDA names that bench/quality/kernels.cu uses, for clang-22 in HIP mode with no ROCm
// headers or device libraries (-nogpuinc -nogpulib): the native AMDGPU baseline of the static
// quality benchmark. Under nvcc this header is empty; nvcc brings the real CUDA runtime header.
//
// Everything maps to clang's AMDGPU builtins, choosing what a HIP port of the same CUDA code gets
// from the HIP headers (ROCm 6, code object v5), with CUDA's semantics kept where they differ:
// warps are 32 lanes wide, so the shuffles below work within each 32-lane half of a wave64 wave
// like HIP's __shfl_*(v, d, 32) (CUDA C++ Programming Guide, "Warp Shuffle Functions").
#pragma once

#if defined(__HIP__) && !defined(__CUDACC__)

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define __launch_bounds__(n) __attribute__((amdgpu_flat_work_group_size(1, n)))
#define __forceinline__ inline __attribute__((always_inline))

typedef __SIZE_TYPE__ size_t;

namespace quality_shim {
// One accessor per dimension; the property makes `threadIdx.x` a call like in HIP.
template <unsigned (*X)(), unsigned (*Y)(), unsigned (*Z)()> struct Dim3Reg {
  __declspec(property(get = getX)) unsigned x;
  __declspec(property(get = getY)) unsigned y;
  __declspec(property(get = getZ)) unsigned z;
  __device__ __forceinline__ unsigned getX() const { return X(); }
  __device__ __forceinline__ unsigned getY() const { return Y(); }
  __device__ __forceinline__ unsigned getZ() const { return Z(); }
};

__device__ __forceinline__ unsigned tidX() { return __builtin_amdgcn_workitem_id_x(); }
__device__ __forceinline__ unsigned tidY() { return __builtin_amdgcn_workitem_id_y(); }
__device__ __forceinline__ unsigned tidZ() { return __builtin_amdgcn_workitem_id_z(); }
__device__ __forceinline__ unsigned ctaX() { return __builtin_amdgcn_workgroup_id_x(); }
__device__ __forceinline__ unsigned ctaY() { return __builtin_amdgcn_workgroup_id_y(); }
__device__ __forceinline__ unsigned ctaZ() { return __builtin_amdgcn_workgroup_id_z(); }
__device__ __forceinline__ unsigned ntidX() { return __builtin_amdgcn_workgroup_size_x(); }
__device__ __forceinline__ unsigned ntidY() { return __builtin_amdgcn_workgroup_size_y(); }
__device__ __forceinline__ unsigned ntidZ() { return __builtin_amdgcn_workgroup_size_z(); }
// Code object v5 implicit kernel arguments: hidden_block_count_{x,y,z} are the first three u32
// (AMDGPU-Usage, "Code Object V5 Metadata"); HIP's gridDim reads them the same way.
__device__ __forceinline__ unsigned nctaid(unsigned D) {
  auto *P = (const __attribute__((opencl_constant)) unsigned *)__builtin_amdgcn_implicitarg_ptr();
  return P[D];
}
__device__ __forceinline__ unsigned nctaX() { return nctaid(0); }
__device__ __forceinline__ unsigned nctaY() { return nctaid(1); }
__device__ __forceinline__ unsigned nctaZ() { return nctaid(2); }

__device__ __forceinline__ unsigned laneId() {
  return __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
}
// ds_bpermute reads lane Src of the wave (byte address Src * 4).
__device__ __forceinline__ int permute(unsigned Src, int V) {
  return __builtin_amdgcn_ds_bpermute(static_cast<int>(Src << 2), V);
}
template <typename T> __device__ __forceinline__ int toBits(T V) {
  return __builtin_bit_cast(int, V);
}
template <typename T> __device__ __forceinline__ T fromBits(int V) {
  return __builtin_bit_cast(T, V);
}
} // namespace quality_shim

static const __device__
    quality_shim::Dim3Reg<quality_shim::tidX, quality_shim::tidY, quality_shim::tidZ>
        threadIdx;
static const __device__
    quality_shim::Dim3Reg<quality_shim::ctaX, quality_shim::ctaY, quality_shim::ctaZ>
        blockIdx;
static const __device__
    quality_shim::Dim3Reg<quality_shim::ntidX, quality_shim::ntidY, quality_shim::ntidZ>
        blockDim;
static const __device__
    quality_shim::Dim3Reg<quality_shim::nctaX, quality_shim::nctaY, quality_shim::nctaZ>
        gridDim;

static __device__ __forceinline__ void __syncthreads() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

// 32-lane warps inside the wave: a source lane outside the caller's 32-lane half gives the
// caller's own value, as CUDA defines for width 32.
template <typename T>
static __device__ __forceinline__ T __shfl_down_sync(unsigned, T V, unsigned D) {
  unsigned L = quality_shim::laneId();
  unsigned Src = (L & 31u) + D < 32u ? L + D : L;
  return quality_shim::fromBits<T>(quality_shim::permute(Src, quality_shim::toBits(V)));
}
template <typename T>
static __device__ __forceinline__ T __shfl_up_sync(unsigned, T V, unsigned D) {
  unsigned L = quality_shim::laneId();
  unsigned Src = (L & 31u) >= D ? L - D : L;
  return quality_shim::fromBits<T>(quality_shim::permute(Src, quality_shim::toBits(V)));
}
template <typename T>
static __device__ __forceinline__ T __shfl_xor_sync(unsigned, T V, unsigned M) {
  unsigned L = quality_shim::laneId();
  unsigned Src = L ^ (M & 31u);
  return quality_shim::fromBits<T>(quality_shim::permute(Src, quality_shim::toBits(V)));
}
template <typename T> static __device__ __forceinline__ T __shfl_sync(unsigned, T V, int S) {
  unsigned L = quality_shim::laneId();
  unsigned Src = (L & ~31u) | (static_cast<unsigned>(S) & 31u);
  return quality_shim::fromBits<T>(quality_shim::permute(Src, quality_shim::toBits(V)));
}

// CUDA atomics are relaxed and device-scoped (HIP: agent scope).
template <typename T> static __device__ __forceinline__ T atomicAdd(T *P, T V) {
  return __hip_atomic_fetch_add(P, V, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}

// CUDA's __expf is ex2.approx.f32 of x*log2(e) (CUDA Math API; nvcc's PTX), which without .ftz
// keeps subnormal results (PTX ISA 9.7.3.16): llvm.exp2, whose AMDGPU lowering scales inputs
// below -126 around v_exp_f32 for that, as it does for reptx's ex2.approx.f32. (v_exp_f32
// alone, __builtin_amdgcn_exp2f, flushes them: that is ex2.approx.ftz.f32.) rsqrtf is
// rsqrt.approx.
static __device__ __forceinline__ float __expf(float X) {
  return __builtin_exp2f(X * 1.4426950408889634f);
}
static __device__ __forceinline__ float rsqrtf(float X) { return __builtin_amdgcn_rsqf(X); }
static __device__ __forceinline__ float fmaxf(float A, float B) { return __builtin_fmaxf(A, B); }

#endif
