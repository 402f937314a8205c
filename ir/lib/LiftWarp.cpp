// Warp-level instructions (PTX ISA 9.7.9.6 shfl, 9.7.13.8-13 vote, match, activemask, redux,
// elect) as calls to the reptx warp intrinsics of Intrinsics.h.
#include "Lifter.h"

using namespace llvm;

namespace reptx::ir {

Error liftWarp(FunctionLifter &L, const ptx::Instruction &I) {
  return L.unsupported("warp-level instructions are not lifted yet");
}

} // namespace reptx::ir
