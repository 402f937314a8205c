// mbarrier objects in shared memory (PTX ISA 9.7.13.15): the helpers behind @reptx.mbarrier.*
// (ir/include/reptx/ir/Intrinsics.h). The 64-bit object holds the arrivals the current phase
// still waits for (bits 0-19), the arrivals each phase expects (bits 20-39) and the current
// phase's parity (bit 63). The arrival that brings the pending count to zero completes the phase:
// it flips the parity and starts the next phase with the expected count. Arrivals are
// compare-and-swap loops at work-group scope (release and acquire), so the lanes of a wave
// arrive one after another. The state an arrival returns is the object's phase and pending
// count before it (PTX: the state captures the phase prior to the arrive-on operation).
#include "Device.h"

namespace reptx::device {

namespace {

using LdsU64 = __attribute__((address_space(3))) u64;

constexpr u64 CountMask = (u64(1) << 20) - 1;
constexpr u64 PhaseBit = u64(1) << 63;

u64 load(LdsU64 *Bar, int Order) {
  return __scoped_atomic_load_n(Bar, Order, __MEMORY_SCOPE_WRKGRP);
}

} // namespace

REPTX_HELPER("reptx.mbarrier.init", void, reptx_mbarrier_init, (LdsU64 * Bar, u32 Count)) {
  u64 C = Count & CountMask;
  __scoped_atomic_store_n(Bar, C | (C << 20), __ATOMIC_RELAXED, __MEMORY_SCOPE_WRKGRP);
}

REPTX_HELPER("reptx.mbarrier.arrive", u64, reptx_mbarrier_arrive,
             (LdsU64 * Bar, u32 Count, bool Drop)) {
  u64 Old = load(Bar, __ATOMIC_RELAXED), New, State;
  do {
    u64 Phase = Old & PhaseBit;
    u64 Pending = Old & CountMask, Expected = (Old >> 20) & CountMask;
    // More arrivals than pending ones are undefined behaviour in PTX; they complete the phase.
    Pending = Pending > Count ? Pending - Count : 0;
    if (Drop)
      Expected = Expected > Count ? Expected - Count : 0;
    State = Old & (PhaseBit | CountMask);
    New = Pending ? Phase | (Expected << 20) | Pending
                  : (Phase ^ PhaseBit) | (Expected << 20) | Expected;
  } while (!__scoped_atomic_compare_exchange_n(Bar, &Old, New, false, __ATOMIC_ACQ_REL,
                                               __ATOMIC_RELAXED, __MEMORY_SCOPE_WRKGRP));
  return State;
}

REPTX_HELPER("reptx.mbarrier.test_wait", bool, reptx_mbarrier_test_wait,
             (LdsU64 * Bar, u64 State)) {
  return ((load(Bar, __ATOMIC_ACQUIRE) ^ State) & PhaseBit) != 0;
}

REPTX_HELPER("reptx.mbarrier.test_wait.parity", bool, reptx_mbarrier_test_wait_parity,
             (LdsU64 * Bar, u32 Parity)) {
  return (load(Bar, __ATOMIC_ACQUIRE) >> 63) != (Parity & 1);
}

} // namespace reptx::device
