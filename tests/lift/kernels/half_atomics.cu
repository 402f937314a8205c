// f16, f16x2, bf16 and bf16x2 atomics (PTX ISA 9.7.13.5: atom.add.noftz.{f16,f16x2,bf16,bf16x2},
// atom.cas.b16; sm_90 for the bf16 forms).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

// One thread per address: old values and the rounding of each atomic add.
extern "C" __global__ void half_atomic_round(__half *h, const __half *a, __half2 *h2,
                                             const __half2 *a2, __nv_bfloat16 *b,
                                             const __nv_bfloat16 *c, __nv_bfloat162 *b2,
                                             const __nv_bfloat162 *c2, unsigned *old, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  old[4 * i] = __half_as_ushort(atomicAdd(&h[i], a[i]));
  __half2 o2 = atomicAdd(&h2[i], a2[i]);
  old[4 * i + 1] = *reinterpret_cast<unsigned *>(&o2);
  old[4 * i + 2] = __bfloat16_as_ushort(atomicAdd(&b[i], c[i]));
  __nv_bfloat162 ob = atomicAdd(&b2[i], c2[i]);
  old[4 * i + 3] = *reinterpret_cast<unsigned *>(&ob);
}

// Contention: every thread adds into one of four global accumulators and into shared ones
// (values chosen by the test so that every partial sum is exact); atom.cas.b16 claims slots.
extern "C" __global__ void half_atomic_contend(const __half *a, const __half2 *a2,
                                               const __nv_bfloat16 *b, __half *acc,
                                               __half2 *acc2, __nv_bfloat16 *bacc,
                                               unsigned short *cas, unsigned *old, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  __shared__ __half sacc;
  __shared__ __half2 sacc2;
  if (threadIdx.x == 0) {
    sacc = __float2half(0.0f);
    sacc2 = __floats2half2_rn(0.0f, 0.0f);
  }
  __syncthreads();
  if (i < n) {
    old[4 * i] = __half_as_ushort(atomicAdd(&acc[i % 4], a[i]));
    __half2 o2 = atomicAdd(&acc2[i % 4], a2[i]);
    old[4 * i + 1] = *reinterpret_cast<unsigned *>(&o2);
    old[4 * i + 2] = __bfloat16_as_ushort(atomicAdd(&bacc[i % 4], b[i]));
    old[4 * i + 3] = atomicCAS(&cas[i % 8], (unsigned short)0xffff, (unsigned short)i);
    atomicAdd(&sacc, a[i]);
    atomicAdd(&sacc2, a2[i]);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    acc[4 + blockIdx.x] = sacc;
    acc2[4 + blockIdx.x] = sacc2;
  }
}
