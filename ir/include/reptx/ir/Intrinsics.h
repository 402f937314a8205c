// The reptx intrinsics: the GPU operations of lifted IR, declared by name and defined by a
// backend for its target. All take and return i32 unless noted.
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace reptx::ir::intrinsics {

// Special registers (PTX ISA 10, "Special Registers"): %tid, %ntid, %ctaid, %nctaid, each with
// .x/.y/.z, e.g. `i32 @reptx.tid.x()`. No side effects.
inline constexpr llvm::StringLiteral SpecialRegisters[] = {
    "reptx.tid.x",   "reptx.tid.y",    "reptx.tid.z",    "reptx.ntid.x",
    "reptx.ntid.y",  "reptx.ntid.z",   "reptx.ctaid.x",  "reptx.ctaid.y",
    "reptx.ctaid.z", "reptx.nctaid.x", "reptx.nctaid.y", "reptx.nctaid.z"};

// `void @reptx.barrier.sync()`: bar.sync 0 / barrier.sync 0 (PTX ISA 9.7.13.1): every thread of
// the CTA waits, and memory operations before it are visible to the CTA after it.
inline constexpr llvm::StringLiteral BarrierSync = "reptx.barrier.sync";

// `void @reptx.assertfail()`: CUDA's device-side assert failed (the `__assertfail` system call):
// the kernel stops with an error. Does not return.
inline constexpr llvm::StringLiteral AssertFail = "reptx.assertfail";

} // namespace reptx::ir::intrinsics
