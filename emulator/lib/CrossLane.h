// Cross-lane instructions beyond the plain permutes: DPP (data-parallel primitives, a modifier of
// VOP instructions), ds_swizzle_b32 and v_permlane*; the decoder's hooks for their syntax.
#pragma once

#include "Program.h"

#include "llvm/ADT/StringRef.h"

#include <string>

namespace reptx::emulator {

/// The 16-bit offset of `ds_swizzle_b32 ... offset:swizzle(MODE,...)` as LLVM's printer writes it
/// (QUAD_PERM, BITMASK_PERM, BROADCAST, SWAP, REVERSE); false when not one of those.
bool parseSwizzleOffset(llvm::StringRef Value, int64_t &Offset);

/// Parses one DPP modifier (quad_perm, row_*, wave_*, row_mask, bank_mask, bound_ctrl, fi, dpp8)
/// into I; returns false when T is not a DPP modifier, and sets Error when it is malformed.
bool parseDppModifier(llvm::StringRef T, Inst &I, std::string &Error);

/// Makes a decoded `*_dpp` instruction execute through the DPP source permutation: its own
/// semantics move to I.DppInner.
void wrapDpp(Inst &I);

} // namespace reptx::emulator
