// Instruction order inside blocks, after the O3 pipeline and before code generation.
#pragma once

namespace llvm {
class Function;
} // namespace llvm

namespace reptx::backend {

/// Moves every side-effect-free, non-memory value (arithmetic, casts, compares, address
/// computations; not loads, stores or calls) whose users all sit later in its own block to just
/// before its first user, provided that no operand computed in the block then lives longer (it is
/// used there anyway, or moves along); everything else keeps its order. PTX from nvcc computes the
/// addresses of a block up front; on AMDGPU the machine scheduler keeps the IR's order wherever
/// register pressure is low, so those values would stay live across the loads. The result is a
/// function of the input alone (no pointer-keyed order).
void sinkToFirstUse(llvm::Function &F);

} // namespace reptx::backend
