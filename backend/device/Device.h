// Common definitions of the device helper library (backend/device/*.cpp): compiled by clang-22 for
// amdgcn-amd-amdhsa at build time, once per wave size (REPTX_WAVE_SIZE 32 or 64), into bitcode
// that the backend links into every module before optimizing (backend/README.md).
//
// A helper defines one reptx intrinsic (ir/include/reptx/ir/Intrinsics.h) under its exact name:
//
//   REPTX_HELPER("reptx.laneid", u32, laneid, ()) { return laneId(); }
//
// Warps on waves: a wave32 wave is one PTX warp. A wave64 wave holds two warps, lanes 0-31 and
// 32-63 (packed mode), or one warp in lanes 0-31 with lanes 32-63 never active (single mode); in
// both cases a warp is the 32-lane half of the wave that the calling lane belongs to, so one
// wave64 variant serves both modes.
#pragma once

#ifndef REPTX_WAVE_SIZE
#error "REPTX_WAVE_SIZE must be 32 or 64"
#endif

namespace reptx::device {

using u32 = unsigned int;
using s32 = int;
using u64 = unsigned long long;
/// Words in global memory (address space 1), for helpers that address device memory directly.
using GlobalU8 = __attribute__((address_space(1))) unsigned char;
using GlobalU16 = __attribute__((address_space(1))) unsigned short;
using GlobalU32 = __attribute__((address_space(1))) u32;
using GlobalU64 = __attribute__((address_space(1))) u64;
/// Four 32-bit words, as the texture and surface helpers return them.
using u32x4 = u32 __attribute__((ext_vector_type(4)));

/// Defines the helper for the intrinsic Symbol: an extern "C" function whose symbol is Symbol.
#define REPTX_HELPER(Symbol, Ret, Name, Params)                                                    \
  extern "C" Ret Name Params __asm__(Symbol);                                                      \
  extern "C" Ret Name Params

#if REPTX_WAVE_SIZE == 64
using WaveMask = u64;
inline WaveMask ballot(bool P) { return __builtin_amdgcn_ballot_w64(P); }
/// The lane's index in the hardware wave (AMD ISA: V_MBCNT_LO/HI_U32_B32 of an all-ones mask).
inline u32 hwLane() { return __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u)); }
inline u32 ctzMask(WaveMask M) { return u32(__builtin_ctzll(M)); }
#else
using WaveMask = u32;
inline WaveMask ballot(bool P) { return __builtin_amdgcn_ballot_w32(P); }
inline u32 hwLane() { return __builtin_amdgcn_mbcnt_lo(~0u, 0u); }
inline u32 ctzMask(WaveMask M) { return u32(__builtin_ctz(M)); }
#endif

/// First hardware lane of the calling lane's warp: 0, or 32 in the upper half of a wave64.
inline u32 warpBase() { return REPTX_WAVE_SIZE == 64 ? hwLane() & 32 : 0; }
/// %laneid (PTX ISA 10.3): the lane's position in its 32-thread warp.
inline u32 laneId() { return hwLane() & 31; }
/// The 32 bits of a wave-wide lane mask that belong to the warp whose first lane is Base.
inline u32 warpBits(WaveMask M, u32 Base) { return u32(M >> Base); }
inline u32 warpBits(WaveMask M) { return warpBits(M, warpBase()); }
/// The active lanes of the calling lane's warp, bit i = lane i.
inline u32 activeLanes() { return warpBits(ballot(true)); }

/// The value V of lane Lane (0-31) of the calling lane's warp (AMD ISA: DS_BPERMUTE_B32, which
/// takes a byte address; an inactive source lane reads 0).
inline u32 readWarpLane(u32 V, u32 Lane) {
  return u32(__builtin_amdgcn_ds_bpermute(s32((warpBase() + Lane) << 2), s32(V)));
}
/// V of hardware lane Lane, which must be uniform across the wave (V_READLANE_B32).
inline u32 readLaneUniform(u32 V, u32 Lane) {
  return u32(__builtin_amdgcn_readlane(s32(V), s32(Lane)));
}

} // namespace reptx::device
