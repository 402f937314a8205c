// Exact rounding helpers for the narrow float formats (f16, bf16, f32 from f64, the FP8 formats)
// built from integer and IEEE operations that every backend implements exactly. Values may be
// scalars or <2 x ...> vectors (the packed x2 forms); every helper works element-wise.
//
// The technique: an operation is computed exactly, or rounded to odd (the truncated value with
// its last bit set when inexact), in a wider format with at least two more bits of precision
// than the destination; one final rounding to the destination is then correctly rounded
// (rounding to odd composes with any later rounding to a narrower format, Boldo & Melquiond,
// "Emulation of FMA and correctly rounded sums: proved algorithms using rounding to odd").
#pragma once

#include "llvm/IR/IRBuilder.h"

namespace reptx::ir {

/// A rounding direction of PTX (9.7.3: .rn .rz .rm .rp) or round-to-odd (internal).
enum class Rounding { Nearest, Zero, Down, Up, Odd };

/// The integer type of V's bit width (element-wise for vectors).
llvm::Type *intTypeLike(llvm::Type *T);

/// Rounds a wider float Wide (double or float, scalar or vector) to the narrower IEEE type
/// Narrow (float or half, same vector shape) with the given rounding, exactly: the nearest-even
/// conversion is corrected by one step where the direction asks for the other neighbour.
/// NaN stays NaN; overflow gives infinity or the largest finite value as the direction says.
llvm::Value *roundNarrow(llvm::IRBuilder<> &B, llvm::Value *Wide, llvm::Type *Narrow, Rounding R);

/// bf16 bits (i16 or <2 x i16>) to float (exact).
llvm::Value *bf16ToFloat(llvm::IRBuilder<> &B, llvm::Value *Bits);
/// float to bf16 bits with the given rounding; NaN becomes the canonical NaN 0x7fff.
llvm::Value *floatToBf16(llvm::IRBuilder<> &B, llvm::Value *F, Rounding R);
/// A double (exact or rounded to odd) to bf16 bits with the given rounding.
llvm::Value *doubleToBf16(llvm::IRBuilder<> &B, llvm::Value *D, Rounding R);
/// A double (exact or rounded to odd) to half with the given rounding.
llvm::Value *doubleToHalf(llvm::IRBuilder<> &B, llvm::Value *D, Rounding R);

/// a*b + c for double operands whose product is exact in double (operands of at most 26
/// significant bits: f16, bf16, f32 values), rounded to odd in double: exact enough for a final
/// rounding to any format of 51 bits or less.
llvm::Value *fmaToOddDouble(llvm::IRBuilder<> &B, llvm::Value *A, llvm::Value *Bv, llvm::Value *C);

/// An integer (iN, signed or not) converted to double, rounded to odd when it does not fit.
llvm::Value *intToOddDouble(llvm::IRBuilder<> &B, llvm::Value *X, bool Signed);

} // namespace reptx::ir
