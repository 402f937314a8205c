// Warp-level operations (PTX ISA 9.7.9.6 shfl.sync, 9.7.13.8-13 vote.sync, match.sync,
// activemask, redux.sync, elect.sync, bar.warp.sync) on 32-lane warps, which are whole wave32
// waves or halves of wave64 waves (Device.h). Every operation only sees the lanes of the calling
// lane's own warp; ballots are taken over the whole wave and cut to the warp's 32 bits.
#include "Device.h"

namespace reptx::device {
namespace {

enum class ShflMode { Up, Down, Bfly, Idx };

// shfl.sync d|p, a, b, c, membermask (PTX ISA 9.7.9.6): b is the source lane or lane offset,
// c packs the clamp value (bits 0-4) and the segment mask (bits 8-12). Returns d in bits 0-31 and
// p in bit 32; a lane whose source lies outside its segment keeps its own value with p = 0.
// A valid source of up, down and bfly lies in the caller's own warp, so its hardware lane is the
// caller's moved by b (or xor b): hwLane() -/+/^ (P ? b : 0), which folds into the permute address
// (V_ADD_LSHL) instead of rebuilding warp base + lane.
template <ShflMode Mode> u64 shfl(u32 A, u32 B, u32 C) {
  u32 Hw = hwLane();
  s32 Lane = s32(Hw & 31);
  s32 Bval = s32(B & 31), Cval = s32(C & 31), Seg = s32((C >> 8) & 31);
  s32 MaxLane = (Lane & Seg) | (Cval & ~Seg);
  s32 MinLane = Lane & Seg;
  bool P;
  u32 Src;
  switch (Mode) {
  case ShflMode::Up:
    P = Lane - Bval >= MaxLane;
    Src = Hw - u32(P ? Bval : 0);
    break;
  case ShflMode::Down:
    P = Lane + Bval <= MaxLane;
    Src = Hw + u32(P ? Bval : 0);
    break;
  case ShflMode::Bfly:
    P = (Lane ^ Bval) <= MaxLane;
    Src = Hw ^ u32(P ? Bval : 0);
    break;
  case ShflMode::Idx: {
    s32 J = MinLane | (Bval & ~Seg);
    P = J <= MaxLane;
    Src = P ? warpBase() + u32(J) : Hw;
    break;
  }
  }
  return u64(u32(__builtin_amdgcn_ds_bpermute(s32(Src << 2), s32(A)))) | (u64(P) << 32);
}

// Reduction over the active lanes of the caller's warp named in the caller's membermask
// (redux.sync, PTX ISA 9.7.13.11). Lanes with different membermasks may execute one redux.sync
// together (cooperative groups' tiles of 16 lanes reduce each over their own half of the warp), so
// each lane accumulates the lanes of its own mask. The loop is uniform: it visits once, with
// V_READLANE, every active lane of the wave named in its own mask; an inactive lane's value is
// never read.
//
// The common case, every lane of each warp in the wave active and naming its whole warp (a full
// warp's __reduce_add_sync, cooperative groups' reduce over a whole warp), is a butterfly of five
// lane exchanges within each 32-lane warp instead of a visit of every lane; the branch is uniform
// (its condition comes from ballots).
template <typename Op> u32 redux(u32 V, u32 Mask, u32 Identity, Op F) {
  WaveMask Active = ballot(true);
  bool WholeWarps = ballot(Mask == ~0u) == Active;
  for (unsigned W = 0; W < REPTX_WAVE_SIZE; W += 32) {
    u32 Part = u32(Active >> W);
    WholeWarps = WholeWarps && (Part == 0 || Part == ~0u);
  }
  if (WholeWarps) {
    u32 Hw = hwLane(), X = V;
    for (u32 Off = 16; Off; Off >>= 1)
      X = F(X, u32(__builtin_amdgcn_ds_bpermute(s32((Hw ^ Off) << 2), s32(X))));
    return X;
  }
  WaveMask Rem = ballot((Mask >> laneId()) & 1);
  u32 Hw = hwLane();
  u32 Acc = Identity;
  while (Rem) {
    u32 L = ctzMask(Rem);
    u32 X = readLaneUniform(V, L);
    if (((L ^ Hw) >> 5) == 0 && ((Mask >> (L & 31)) & 1))
      Acc = F(Acc, X);
    Rem &= Rem - 1;
  }
  return Acc;
}

// match.any (PTX ISA 9.7.13.9): the lanes of the own warp (active, in the caller's membermask)
// holding the same value. A uniform loop takes the first unvisited lane of the wave as leader,
// compares every lane with the leader's value and settles that group; each lane keeps the part of
// it that its own membermask names (tiles of one warp may match together).
template <typename T> u32 matchAny(T V, u32 Mask) {
  WaveMask Rem = ballot((Mask >> laneId()) & 1);
  u32 Result = 0;
  while (Rem) {
    u32 L = ctzMask(Rem);
    T X;
    if constexpr (sizeof(T) == 8)
      X = T(readLaneUniform(u32(V), L)) | (T(readLaneUniform(u32(V >> 32), L)) << 32);
    else
      X = readLaneUniform(V, L);
    WaveMask Eq = ballot(V == X) & Rem;
    if (REPTX_WAVE_SIZE == 64)
      Eq &= (L & 32) ? ~WaveMask(0xffffffffu) : WaveMask(0xffffffffu);
    if ((Eq >> hwLane()) & 1)
      Result = warpBits(Eq, L & 32) & Mask;
    Rem &= ~Eq;
  }
  return Result;
}

// match.all (PTX ISA 9.7.13.9): membermask's active lanes if all hold the same value, else 0;
// bit 32 of the result is the predicate.
template <typename T> u64 matchAll(T V, u32 Mask) {
  u32 Act = activeLanes() & Mask;
  u32 First = Act ? u32(__builtin_ctz(Act)) : laneId();
  T X;
  if constexpr (sizeof(T) == 8)
    X = T(readWarpLane(u32(V), First)) | (T(readWarpLane(u32(V >> 32), First)) << 32);
  else
    X = readWarpLane(V, First);
  u32 Eq = warpBits(ballot(V == X)) & Act;
  return Eq == Act ? u64(Act) | (u64(1) << 32) : 0;
}

} // namespace

REPTX_HELPER("reptx.laneid", u32, reptx_laneid, ()) { return laneId(); }
REPTX_HELPER("reptx.activemask", u32, reptx_activemask, ()) { return activeLanes(); }

REPTX_HELPER("reptx.shfl.up", u64, reptx_shfl_up, (u32 A, u32 B, u32 C, u32)) {
  return shfl<ShflMode::Up>(A, B, C);
}
REPTX_HELPER("reptx.shfl.down", u64, reptx_shfl_down, (u32 A, u32 B, u32 C, u32)) {
  return shfl<ShflMode::Down>(A, B, C);
}
REPTX_HELPER("reptx.shfl.bfly", u64, reptx_shfl_bfly, (u32 A, u32 B, u32 C, u32)) {
  return shfl<ShflMode::Bfly>(A, B, C);
}
REPTX_HELPER("reptx.shfl.idx", u64, reptx_shfl_idx, (u32 A, u32 B, u32 C, u32)) {
  return shfl<ShflMode::Idx>(A, B, C);
}

// vote.sync (PTX ISA 9.7.13.8) over the active lanes of the own warp named in membermask.
REPTX_HELPER("reptx.vote.all", bool, reptx_vote_all, (bool P, u32 Mask)) {
  u32 Act = activeLanes() & Mask;
  return (warpBits(ballot(P)) & Act) == Act;
}
REPTX_HELPER("reptx.vote.any", bool, reptx_vote_any, (bool P, u32 Mask)) {
  return (warpBits(ballot(P)) & Mask) != 0;
}
REPTX_HELPER("reptx.vote.uni", bool, reptx_vote_uni, (bool P, u32 Mask)) {
  u32 Act = activeLanes() & Mask;
  u32 True = warpBits(ballot(P)) & Act;
  return True == 0 || True == Act;
}
REPTX_HELPER("reptx.vote.ballot", u32, reptx_vote_ballot, (bool P, u32 Mask)) {
  return warpBits(ballot(P)) & Mask;
}

REPTX_HELPER("reptx.match.any.b32", u32, reptx_match_any_b32, (u32 V, u32 Mask)) {
  return matchAny(V, Mask);
}
REPTX_HELPER("reptx.match.any.b64", u32, reptx_match_any_b64, (u64 V, u32 Mask)) {
  return matchAny(V, Mask);
}
REPTX_HELPER("reptx.match.all.b32", u64, reptx_match_all_b32, (u32 V, u32 Mask)) {
  return matchAll(V, Mask);
}
REPTX_HELPER("reptx.match.all.b64", u64, reptx_match_all_b64, (u64 V, u32 Mask)) {
  return matchAll(V, Mask);
}

REPTX_HELPER("reptx.redux.add", u32, reptx_redux_add, (u32 V, u32 Mask)) {
  return redux(V, Mask, 0u, [](u32 A, u32 B) { return A + B; });
}
REPTX_HELPER("reptx.redux.umin", u32, reptx_redux_umin, (u32 V, u32 Mask)) {
  return redux(V, Mask, ~0u, [](u32 A, u32 B) { return A < B ? A : B; });
}
REPTX_HELPER("reptx.redux.umax", u32, reptx_redux_umax, (u32 V, u32 Mask)) {
  return redux(V, Mask, 0u, [](u32 A, u32 B) { return A > B ? A : B; });
}
REPTX_HELPER("reptx.redux.smin", u32, reptx_redux_smin, (u32 V, u32 Mask)) {
  return redux(V, Mask, 0x7fffffffu, [](u32 A, u32 B) { return s32(A) < s32(B) ? A : B; });
}
REPTX_HELPER("reptx.redux.smax", u32, reptx_redux_smax, (u32 V, u32 Mask)) {
  return redux(V, Mask, 0x80000000u, [](u32 A, u32 B) { return s32(A) > s32(B) ? A : B; });
}
REPTX_HELPER("reptx.redux.and", u32, reptx_redux_and, (u32 V, u32 Mask)) {
  return redux(V, Mask, ~0u, [](u32 A, u32 B) { return A & B; });
}
REPTX_HELPER("reptx.redux.or", u32, reptx_redux_or, (u32 V, u32 Mask)) {
  return redux(V, Mask, 0u, [](u32 A, u32 B) { return A | B; });
}
REPTX_HELPER("reptx.redux.xor", u32, reptx_redux_xor, (u32 V, u32 Mask)) {
  return redux(V, Mask, 0u, [](u32 A, u32 B) { return A ^ B; });
}

// elect.sync (PTX ISA 9.7.13.13): the lowest active lane of membermask leads; returns its laneid.
REPTX_HELPER("reptx.elect", u32, reptx_elect, (u32 Mask)) {
  u32 Act = activeLanes() & Mask;
  return Act ? u32(__builtin_ctz(Act)) : laneId();
}

// bar.warp.sync (PTX ISA 9.7.13.3): the lanes of a wave execute in lockstep, so no lane can be
// ahead of another; what remains is the memory ordering among the warp's threads, given by a
// work-group-scope fence (the narrowest scope whose fence orders accesses of other lanes), and a
// wave barrier that keeps the compiler from moving code across.
REPTX_HELPER("reptx.warp.sync", void, reptx_warp_sync, (u32)) {
  __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "workgroup");
  __builtin_amdgcn_wave_barrier();
}

} // namespace reptx::device
