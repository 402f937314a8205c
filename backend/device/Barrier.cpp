// Named barriers and barrier reductions (PTX ISA 9.7.13.1: bar.sync a, b / bar.arrive a, b /
// bar.red) on hardware with a single work-group barrier. A count that covers the whole CTA is
// s_barrier; a partial count is a software barrier in LDS: per barrier id an arrival counter and
// a generation number. Arrivals are counted per wave (the warps of a wave reach an .aligned
// barrier together): one lane, the lowest active, adds the wave's active lanes, and either
// completes the phase (resets the counter, publishes the reduction, bumps the generation) or
// waits for the generation to change. Only that lane runs the wait loop, so the other lanes of
// its wave cannot be scheduled ahead of it. bar.red always uses the software path (the result
// needs the counts) and takes the number of participants with a true predicate.
#include "Device.h"

namespace reptx::device {
namespace {

constexpr u32 NumBarriers = 16;

struct BarrierState {
  u32 Count[NumBarriers];     // arrivals of the current phase
  u32 Gen[NumBarriers];       // phase number
  u32 Trues[NumBarriers];     // bar.red: participants with a true predicate in this phase
  u32 Result[NumBarriers][2]; // bar.red: Trues | participants of the phase with Gen parity
  u32 Total[NumBarriers][2];
};

// One per work-group, in LDS; reptx.barrier.init zeroes it at the start of the kernel.
[[clang::loader_uninitialized]] __attribute__((address_space(3))) BarrierState State;

u32 load(__attribute__((address_space(3))) u32 *P) {
  return __scoped_atomic_load_n(P, __ATOMIC_ACQUIRE, __MEMORY_SCOPE_WRKGRP);
}

void fullBarrier() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

// Arrives at barrier Id with the calling wave's active lanes (Trues of them with a true
// predicate); waits for the phase to complete when Wait. Returns the phase's trues (bits 0-31)
// and participants (bits 32-63) when Wait.
u64 named(u32 Id, u32 Count, bool Wait, bool P) {
  Id &= NumBarriers - 1;
  WaveMask Act = ballot(true);
  u32 N = u32(__builtin_popcountll(Act));
  u32 T = u32(__builtin_popcountll(ballot(P)));
  u64 Out = 0;
  // G is defined in every lane: the compiler may hoist the loads that it indexes out of the
  // leader's branch, and they must stay inside the array.
  u32 G = 0;
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  if (hwLane() == ctzMask(Act)) {
    G = load(&State.Gen[Id]);
    __scoped_atomic_fetch_add(&State.Trues[Id], T, __ATOMIC_RELAXED, __MEMORY_SCOPE_WRKGRP);
    u32 Old =
        __scoped_atomic_fetch_add(&State.Count[Id], N, __ATOMIC_ACQ_REL, __MEMORY_SCOPE_WRKGRP);
    if (Old + N >= Count) {
      // The last arrival: publish the reduction for this phase, reset, open the next phase.
      u32 All =
          __scoped_atomic_exchange_n(&State.Trues[Id], 0u, __ATOMIC_RELAXED, __MEMORY_SCOPE_WRKGRP);
      State.Result[Id][G & 1] = All;
      State.Total[Id][G & 1] = Old + N;
      __scoped_atomic_store_n(&State.Count[Id], 0u, __ATOMIC_RELAXED, __MEMORY_SCOPE_WRKGRP);
      __scoped_atomic_fetch_add(&State.Gen[Id], 1u, __ATOMIC_RELEASE, __MEMORY_SCOPE_WRKGRP);
    } else if (Wait) {
      while (load(&State.Gen[Id]) == G)
        __builtin_amdgcn_s_sleep(1);
    }
    if (Wait)
      Out = u64(State.Result[Id][G & 1]) | (u64(State.Total[Id][G & 1]) << 32);
  }
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
  // Every lane of the wave gets the leader's answer.
  u32 Leader = ctzMask(Act);
  return u64(readLaneUniform(u32(Out), Leader)) |
         (u64(readLaneUniform(u32(Out >> 32), Leader)) << 32);
}

} // namespace

REPTX_HELPER("reptx.barrier.init", void, reptx_barrier_init, ()) {
  u32 *S = reinterpret_cast<u32 *>(&State);
  for (u32 I = hwLane(); I < sizeof(BarrierState) / 4; I += REPTX_WAVE_SIZE)
    if (__builtin_amdgcn_workitem_id_x() < REPTX_WAVE_SIZE &&
        __builtin_amdgcn_workitem_id_y() == 0 && __builtin_amdgcn_workitem_id_z() == 0)
      S[I] = 0;
  fullBarrier();
}

REPTX_HELPER("reptx.barrier.sync.count", void, reptx_barrier_sync_count,
             (u32 Id, u32 Count, u32 Cta)) {
  if (Count == 0 || Count >= Cta)
    fullBarrier();
  else
    named(Id, Count, true, false);
}

REPTX_HELPER("reptx.barrier.arrive", void, reptx_barrier_arrive, (u32 Id, u32 Count, u32 Cta)) {
  named(Id, Count == 0 ? Cta : Count, false, false);
}

REPTX_HELPER("reptx.barrier.red", u64, reptx_barrier_red, (u32 Id, u32 Count, u32 Cta, bool P)) {
  return named(Id, Count == 0 ? Cta : Count, true, P);
}

} // namespace reptx::device
