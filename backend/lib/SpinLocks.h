// Spin locks taken by lanes of one wave (PTX's independent thread scheduling, sm_70 and later):
// compileObject runs moveCriticalSectionsIntoSpinLoops on every function after the O3 pipeline.
#pragma once

namespace llvm {
class Function;
} // namespace llvm

namespace reptx::backend {

/// A loop that leaves only when an atomic it executes (cmpxchg, atomicrmw) says so, followed by
/// code that ends with an atomic or a store to the same address (nvcc's `while
/// (atomicCAS(&L, 0, 1) != 0); ...; atomicExch(&L, 0);`), deadlocks on AMDGPU when two lanes of
/// one wave contend: the lane that took the lock waits, masked off, at the loop's exit for the
/// others, which spin on a lock it never releases. With the independent thread scheduling of
/// sm_70 and later the holder runs on and releases it. The critical section (the blocks from the
/// loop's exit up to that release: single-entry, acyclic, no convergent operation and no call
/// other than a non-convergent intrinsic) moves into the loop: the exit branch goes to it, it
/// ends in a new latch that leaves the loop for the lanes that ran it and repeats for the others.
/// Each thread executes the same operations in the same order as before; only the wave's
/// interleaving of its lanes changes, to one that independent scheduling allows. Returns whether
/// anything changed.
bool moveCriticalSectionsIntoSpinLoops(llvm::Function &F);

} // namespace reptx::backend
