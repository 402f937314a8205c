// Where values are computed, after the O3 pipeline and before code generation: compileObject
// runs loadArgumentsWhereUsed, shiftAfterMerge, hoistCommonValues, then sinkToFirstUse, on every
// function.
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

/// Computes once what nvcc computes again in sibling blocks: identical pure values (arithmetic,
/// casts, compares, GEPs, selects, the lane count v_mbcnt; safe to execute on any path) in blocks
/// none of which dominates the others move to their nearest common dominator, provided that every
/// block between it and each copy is loop-free at the dominator's level (at most 32 of them), or
/// lies in a loop nested there that a copy defined in front of it feeds (directly, or through the
/// expression it starts in its block), so a live range never grows around a loop that did not
/// keep the value live already: nvcc's 4x-unrolled loop and its remainder loop, each with the
/// same lane values in front, share one computation. Repeats until nothing moves (at most 8
/// rounds), so whole expressions follow their operands; deterministic (groups in program order).
/// Returns whether anything moved.
bool hoistCommonValues(llvm::Function &F);

/// Loads each kernel argument that the entry block does not use from the kernarg segment where
/// it is needed: in the nearest common dominator of its uses, outside every loop. AMDGPU's
/// argument lowering loads them all in the entry block, where the load-store vectorizer merges
/// neighbours (two pointers into one s_load_dwordx4) whose halves then cross into the blocks
/// using them, copied into VGPRs; clang's kernels, whose restrict pointers the lowering leaves
/// alone, get each pointer loaded where it is used. Offsets are the kernarg layout of the
/// arguments' types (natural alignment, in order). Returns whether anything changed.
bool loadArgumentsWhereUsed(llvm::Function &F);

/// Shifts after a merge what its predecessors shift before it: a phi (not in a loop header) whose
/// incoming values are all `shl x, C` with one use, or constants with their low C bits clear, and
/// whose users are all adds or ors, becomes `shl (phi x | constant >> C), C` at the
/// top of its block. InstCombine pushes a shift
/// of a phi with a constant into the predecessors (scan_block's `Buf[Cur]` after its loop:
/// phi(0, Cur << 12)); there the constant needs a register of its own on one path and the shift
/// cannot fuse with its user in the merge block (v_lshl_or, v_lshl_add). Returns whether anything
/// changed.
bool shiftAfterMerge(llvm::Function &F);

} // namespace reptx::backend
