// The launch ABI of wave64 single mode (backend/README.md, "Wave64 single mode"): a PTX block of
// N threads runs as a one-dimensional hardware work-group of 64 * ceil(N / 32) work-items, in
// which lane L < 32 of wave W is PTX thread 32 * W + L; the kernel reads the PTX block size from
// its leading 16-byte argument {ntid.x, ntid.y, ntid.z, 0}.
#include "reptx/emulator/PtxLaunch.h"

#include "llvm/ADT/Twine.h"

#include <cstring>

using namespace llvm;

namespace reptx::emulator {

bool isWave64Single(const Kernel &K) {
  for (const KernelArgInfo &A : K.Args)
    if (!A.isHidden())
      return A.Name == Wave64SingleArgName && A.Offset == 0 && A.Size == 16;
  return false;
}

Error applyWave64SingleLaunch(const Kernel &K, DispatchParams &P) {
  if (!isWave64Single(K))
    return Error::success();
  Dim3 Block = P.WorkgroupSize;
  uint64_t Threads = Block.count();
  if (Threads > Wave64SingleMaxThreads)
    return createStringError("launch of '" + K.Name + "': a block of " + Twine(Threads) +
                             " threads exceeds the " + Twine(Wave64SingleMaxThreads) +
                             " of wave64 single mode");
  if (P.GridSize.X % Block.X || P.GridSize.Y % Block.Y || P.GridSize.Z % Block.Z)
    return createStringError("launch of '" + K.Name +
                             "': the grid must be a whole number of blocks in wave64 single mode");
  Dim3 Blocks = {P.GridSize.X / Block.X, P.GridSize.Y / Block.Y, P.GridSize.Z / Block.Z};
  uint32_t Hw = wave64SingleWorkgroupSize(Threads);
  P.WorkgroupSize = {Hw, 1, 1};
  P.GridSize = {Blocks.X * Hw, Blocks.Y, Blocks.Z};
  writeWave64SingleHeader(P.Kernargs, Block);
  return Error::success();
}

void writeWave64SingleHeader(std::vector<uint8_t> &Kernargs, Dim3 Block) {
  const uint32_t Header[4] = {Block.X, Block.Y, Block.Z, 0};
  if (Kernargs.size() < sizeof(Header))
    Kernargs.resize(sizeof(Header));
  std::memcpy(Kernargs.data(), Header, sizeof(Header));
}

Expected<DispatchParams> ptxLaunch(const CodeObject &CO, StringRef Name, Dim3 Blocks,
                                   Dim3 BlockSize, std::vector<uint8_t> PtxArgs) {
  const Kernel *K = CO.findKernel(Name);
  if (!K)
    return createStringError("no kernel named '" + Name + "' in the code object");
  if (isWave64Single(*K))
    PtxArgs.insert(PtxArgs.begin(), 16, 0);
  DispatchParams P = DispatchParams::blocks(Name, Blocks, BlockSize, std::move(PtxArgs));
  if (Error E = applyWave64SingleLaunch(*K, P))
    return std::move(E);
  return P;
}

} // namespace reptx::emulator
