// Minimal CUDA spellings for the emulator's test kernels, compiled by clang-22 in HIP mode with
// -nogpuinc -nogpulib (no ROCm headers, no device libraries): each CUDA name maps onto a clang
// AMDGPU builtin.
#pragma once

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define __launch_bounds__(n) __attribute__((amdgpu_flat_work_group_size(1, n)))
#define EMU_INLINE static __device__ inline __attribute__((always_inline))

// threadIdx/blockIdx/blockDim/gridDim as objects with x/y/z properties, the way CUDA spells them.
// gridDim comes from the code object v5 hidden arguments (hidden_block_count_{x,y,z} at offsets
// 0/4/8 of the implicit kernel arguments), which is what the emulator fills in.
EMU_INLINE unsigned emuGridDim(int D) {
  return static_cast<const unsigned *>(__builtin_amdgcn_implicitarg_ptr())[D];
}
#define EMU_DIM3(NAME, X, Y, Z)                                                                    \
  struct NAME##Type {                                                                              \
    __declspec(property(get = getX)) unsigned x;                                                   \
    __declspec(property(get = getY)) unsigned y;                                                   \
    __declspec(property(get = getZ)) unsigned z;                                                   \
    static __device__ inline unsigned getX() { return X; }                                         \
    static __device__ inline unsigned getY() { return Y; }                                         \
    static __device__ inline unsigned getZ() { return Z; }                                         \
  };                                                                                               \
  extern const __device__ __attribute__((weak)) NAME##Type NAME;
EMU_DIM3(threadIdx, __builtin_amdgcn_workitem_id_x(), __builtin_amdgcn_workitem_id_y(),
         __builtin_amdgcn_workitem_id_z())
EMU_DIM3(blockIdx, __builtin_amdgcn_workgroup_id_x(), __builtin_amdgcn_workgroup_id_y(),
         __builtin_amdgcn_workgroup_id_z())
EMU_DIM3(blockDim, __builtin_amdgcn_workgroup_size_x(), __builtin_amdgcn_workgroup_size_y(),
         __builtin_amdgcn_workgroup_size_z())
EMU_DIM3(gridDim, emuGridDim(0), emuGridDim(1), emuGridDim(2))
#undef EMU_DIM3

#define warpSize (__builtin_amdgcn_wavefrontsize())

EMU_INLINE void __syncthreads() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

// Lane index within the wave (v_mbcnt_lo/hi of an all-ones mask).
EMU_INLINE unsigned laneId() {
  return __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
}

// CUDA __shfl_down over 32-lane groups: a lane whose source falls outside its group keeps its own
// value. ds_bpermute addresses lanes in bytes.
EMU_INLINE unsigned shflDown32(unsigned V, unsigned Delta) {
  unsigned Lane = laneId();
  unsigned Src = ((Lane & 31) + Delta < 32) ? Lane + Delta : Lane;
  return __builtin_amdgcn_ds_bpermute(static_cast<int>(Src << 2), static_cast<int>(V));
}

// Ballot as a 64-bit mask on every wave size (the upper half is zero on wave32).
EMU_INLINE unsigned long long ballot(bool P) { return __builtin_amdgcn_ballot_w64(P); }
