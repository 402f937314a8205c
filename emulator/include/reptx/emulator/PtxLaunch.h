// CUDA-style launches of kernels that reptx compiled from PTX: the launch ABI of wave64 single
// mode (backend/README.md, "Wave64 single mode"), in which a kernel's first explicit argument,
// named `__reptx_wave64_single`, carries the PTX block size and each 32-thread PTX warp occupies
// a 64-lane hardware wave (lanes 32-63 idle).
#pragma once

#include "reptx/emulator/CodeObject.h"
#include "reptx/emulator/Dispatch.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace reptx::emulator {

/// Name of the leading kernel argument of wave64 single mode.
inline constexpr llvm::StringLiteral Wave64SingleArgName = "__reptx_wave64_single";

/// Whether K was compiled in wave64 single mode (its first explicit argument has that name).
bool isWave64Single(const Kernel &K);

/// The most PTX threads in a block of a wave64 single-mode kernel (the hardware's 1024
/// work-items, two per PTX thread).
inline constexpr uint32_t Wave64SingleMaxThreads = 512;
/// The one-dimensional hardware work-group of a PTX block of Threads threads in wave64 single
/// mode: 64 work-items per 32-thread warp.
inline uint32_t wave64SingleWorkgroupSize(uint64_t Threads) {
  return uint32_t((Threads + 31) / 32 * 64);
}
/// Writes the PTX block size into the leading 16-byte argument {ntid.x, ntid.y, ntid.z, 0} of a
/// wave64 single-mode kernel's kernarg segment (grown to 16 bytes if shorter).
void writeWave64SingleHeader(std::vector<uint8_t> &Kernargs, Dim3 Block);

/// Turns a CUDA-style launch P (DispatchParams::blocks: P.WorkgroupSize is the PTX block,
/// P.GridSize blocks times block) of K into its hardware launch when K is a wave64 single-mode
/// kernel: work-groups of 64 work-items per PTX warp, one-dimensional, and the PTX block size
/// written into bytes 0-15 of P.Kernargs (which must hold the other explicit arguments at their
/// metadata offsets). Other kernels are left as they are. Errors: a PTX block of more than 512
/// threads (the hardware's 1024 work-items).
llvm::Error applyWave64SingleLaunch(const Kernel &K, DispatchParams &P);

/// A CUDA-style launch of the kernel named Kernel: Blocks blocks of BlockSize threads, PtxArgs
/// the kernel parameters laid out as the PTX parameter list (from offset 0). For a wave64
/// single-mode kernel the arguments move behind the leading 16-byte argument and the launch
/// becomes the hardware one (applyWave64SingleLaunch).
llvm::Expected<DispatchParams> ptxLaunch(const CodeObject &CO, llvm::StringRef Kernel, Dim3 Blocks,
                                         Dim3 BlockSize, std::vector<uint8_t> PtxArgs);

} // namespace reptx::emulator
