// Half-precision arithmetic (PTX ISA 9.7.4): f16, f16x2, bf16 and bf16x2 add, sub, mul, fma, neg,
// abs, min, max, ex2 and tanh.
#include "Lifter.h"

using namespace llvm;

namespace reptx::ir {

Error liftHalf(FunctionLifter &L, const ptx::Instruction &I) {
  return L.unsupported("half-precision arithmetic is not lifted yet");
}

} // namespace reptx::ir
