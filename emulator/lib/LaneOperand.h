// Source operands prepared once per instruction for the lane loops of the VALU and memory
// semantics (the interpreter's hot path). Wave::lane() decides per lane what kind of operand it
// reads, which selects and modifiers apply and at which width; a LaneOperand makes those
// decisions once, so that reading lane L is a load (from the VGPR column, or of the broadcast
// scalar value) and two bit operations. Operands whose reads need more than that (SDWA selects,
// the high half of a true16 register, 64-bit reads of a single register) are not prepared, and
// their instruction takes the general per-lane path, which gives the same results.
#pragma once

#include "Wave.h"

#include <cstdint>

namespace reptx::emulator {

struct LaneOperand {
  // Lane L's raw bits are Lo[L * Stride] | Hi[L * Stride] << 32: VGPR columns (Stride 1), or
  // the value read once (Stride 0, pointing at Imm).
  const uint32_t *Lo = nullptr;
  const uint32_t *Hi = nullptr;
  unsigned Stride = 0;
  // neg/abs at the read width and the truncation to it: ((raw & And) ^ Xor).
  uint64_t And = ~uint64_t(0), Xor = 0;
  uint32_t Imm[2] = {0, 0};
  // Lane masks (bool sources: VCC, an SGPR pair, a carry-in): the whole mask, read once.
  uint64_t Mask = 0;

  LaneOperand() = default;
  LaneOperand(const LaneOperand &) = delete; // Lo/Hi may point into this object
  LaneOperand &operator=(const LaneOperand &) = delete;

  uint32_t at32(unsigned L) const { return uint32_t((Lo[L * Stride] & And) ^ Xor); }
  uint64_t at64(unsigned L) const {
    return ((uint64_t(Lo[L * Stride]) | uint64_t(Hi[L * Stride]) << 32) & And) ^ Xor;
  }
  bool maskBit(unsigned L) const { return (Mask >> L) & 1; }

  // Prepares O as a source read at Bits bits (1: a lane-mask operand; 16, 32 or 64) of kind K,
  // with the same result per lane as W.lane(O, L, Bits, K) (W.scalar for masks). False when
  // the operand needs the general path.
  bool prepare(const Wave &W, const Operand &O, unsigned Bits, NumKind K) {
    if (O.Sel)
      return false;
    if (Bits == 1) { // readLaneArg<bool>: bit L of the scalar operand read at the wave size
      Mask = W.scalar(O, W.Size);
      return true;
    }
    uint64_t Width = Bits < 64 ? (uint64_t(1) << Bits) - 1 : ~uint64_t(0);
    uint64_t Sign = uint64_t(1) << (Bits - 1);
    if (O.Kind == OperandKind::Vgpr || O.Kind == OperandKind::Agpr) {
      if (O.Half == 2 || (Bits > 32 && O.Dwords < 2))
        return false;
      unsigned R = W.vgprIndex(O);
      Lo = W.vcol(R);
      Hi = Bits > 32 ? W.vcol(R + 1) : nullptr; // at64 is only used for 64-bit reads
      Stride = 1;
      And = Width & (O.Abs ? ~Sign : ~uint64_t(0));
      Xor = O.Neg ? Sign : 0;
      return true;
    }
    uint64_t X = W.scalar(O, Bits, K) & Width;
    X = Wave::applyMods(O, X, Bits);
    Imm[0] = uint32_t(X);
    Imm[1] = uint32_t(X >> 32);
    Lo = &Imm[0];
    Hi = &Imm[1];
    Stride = 0;
    And = ~uint64_t(0);
    Xor = 0;
    return true;
  }
};

} // namespace reptx::emulator
