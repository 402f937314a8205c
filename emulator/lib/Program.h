// The emulator's internal form of decoded machine code: instructions with their operands already
// resolved (register numbers and ranges, constants, modifiers, branch targets) and bound to their
// semantics, so the interpreter never decodes again.
#pragma once

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace reptx::emulator {

struct Wave;
struct Inst;

// Canonical indices of the scalar register file. SGPRs and the special registers live in one
// array so that ranges such as vcc or exec read like any other SGPR pair; the layout follows
// the GFX9 scalar operand encoding (AMD "Vega" ISA, "Scalar ALU operands"), with NULL added.
namespace sreg {
constexpr unsigned NumSgprs = 106;
constexpr unsigned VccLo = 106, VccHi = 107;
constexpr unsigned Ttmp0 = 108; // ttmp0..ttmp15
constexpr unsigned M0 = 124;
constexpr unsigned Null = 125;
constexpr unsigned ExecLo = 126, ExecHi = 127;
constexpr unsigned FileSize = 128;
} // namespace sreg

enum class OperandKind : uint8_t {
  None,
  Sgpr,       // scalar register file index (see sreg), Dwords consecutive
  Vgpr,       // VGPR number, Dwords consecutive
  Agpr,       // AGPR number (gfx90a/gfx94x: mapped above ACCUM_OFFSET in the unified file)
  IntConst,   // inline integer constant, Value sign-extended
  FloatConst, // inline floating-point constant, Value indexes FloatConstValue
  Literal,    // 32-bit literal (Value), or 64-bit with Lit64
  Special,    // Value is a SpecialSource
  Off,        // "off": no scalar address
};

enum class SpecialSource : uint8_t {
  Scc,
  ExecZ,
  VccZ,
  SharedBase,
  SharedLimit,
  PrivateBase,
  PrivateLimit,
  PopsExitingWaveId,
};

// The inline constants 0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 4.0, -4.0 and 1/(2*pi), in the order the
// FloatConst operands index them; the bit pattern depends on the width the instruction reads.
enum class FloatConstValue : uint8_t {
  Half,
  NegHalf,
  One,
  NegOne,
  Two,
  NegTwo,
  Four,
  NegFour,
  InvTwoPi
};

struct Operand {
  OperandKind Kind = OperandKind::None;
  uint8_t Dwords = 1; // registers in a range
  uint8_t Half = 0;   // true16 halves: 0 whole register, 1 ".l", 2 ".h"
  bool Neg = false;   // "-x" / neg(x)
  bool Abs = false;   // "|x|" / abs(x)
  bool Lit64 = false; // lit64(...)
  bool Sext = false;  // SDWA sext(x)
  uint8_t Sel = 0;    // SDWA source select: 0 DWORD, 1-4 BYTE_0-3, 5-6 WORD_0-1
  uint16_t Reg = 0;   // first register
  int64_t Value = 0;  // constants and specials
};

// Step results a semantic handler returns to the interpreter loop.
enum class Step : uint8_t {
  Next,    // continue with the next instruction
  Jump,    // the handler set the wave's program counter
  Barrier, // continue with the next instruction once the work-group's barrier completes
  End,     // s_endpgm
  Fault,   // the handler recorded a fault in the wave
};

using Handler = Step (*)(Wave &, const Inst &);
// Lane-wise part of a VALU operation: writes the result of every active lane to Out, for VOPD
// which must read all sources of both halves before writing either destination.
using LaneCompute = bool (*)(Wave &, const Inst &, uint64_t *Out);

struct OpDef {
  llvm::StringRef Name;
  Handler Exec = nullptr;
  LaneCompute Compute = nullptr; // only for single-VGPR-result VALU operations
  int8_t NumOperands = -1;       // expected operand count, -1 when the handler checks
  uint8_t ResultBits = 32;       // width of the VGPR result (for Compute)
  bool IgnoreOperands = false;   // no-ops whose operand syntax is not parsed (s_waitcnt...)
  bool IsBranch = false;         // the last operand is a SIMM16 branch offset in dwords
  uint8_t NumDsts = 1;           // destination operands before the sources (SDWA selects)
};

struct Inst {
  const OpDef *Op = nullptr; // null: no semantics for this mnemonic
  uint64_t Address = 0;      // code object virtual address
  uint32_t Index = 0;        // position in Program::Insts
  uint8_t Size = 0;          // bytes
  uint8_t NumOps = 0;
  bool Clamp = false;
  uint8_t Omod = 0;      // 0 none, 1 mul:2, 2 mul:4, 3 div:2
  uint8_t OpSel = 0;     // op_sel bits (packed ops)
  uint8_t OpSelHi = 0x7; // op_sel_hi bits (packed ops), all set by default
  uint8_t NegLo = 0, NegHi = 0;
  bool Sdwa = false;          // SDWA form: operand selects and the destination select below
  uint8_t DstSel = 0;         // SDWA dst_sel (encoded like Operand::Sel)
  uint8_t DstUnused = 0;      // SDWA dst_unused: 0 UNUSED_PAD, 1 UNUSED_SEXT, 2 UNUSED_PRESERVE
  uint8_t SrcSel[2] = {0, 0}; // SDWA src0_sel/src1_sel as parsed (copied to the operands)
  bool HasOffset = false;
  bool Offen = false, Idxen = false; // MUBUF: vaddr holds the offset / the index
  int32_t Offset = 0;                // memory "offset:" / "offset0:"
  int32_t Offset1 = 0;               // "offset1:"
  int32_t Imm = 0;                   // SOPP/SOPK immediate (branch offsets sign-extended)
  uint32_t Target = UINT32_MAX;      // branch target index
  uint32_t Second = UINT32_MAX;      // VOPD: index of the Y half in Program::Extra
  Operand Ops[6];
  // DPP (AMD ISA manuals, "DPP"): src0 is read from another lane per DppCtrl (DPP16 control as
  // encoded: quad_perm, row_shl/shr/ror, wave_*, row_mirror, row_bcast, row_share, row_xmask) or
  // the DPP8 lane selects, under row/bank masks; the operation itself is DppInner.
  const OpDef *DppInner = nullptr;
  uint16_t DppCtrl = 0;
  uint32_t Dpp8 = 0; // 3 bits per lane of a group of 8
  uint8_t DppRowMask = 0xf, DppBankMask = 0xf;
  bool IsDpp8 = false, DppBoundCtrl = false, DppFetchInactive = false;
  std::string Problem; // why the instruction cannot execute although Op is set
};

class Program {
public:
  std::vector<Inst> Insts;           // in address order
  std::vector<Inst> Extra;           // VOPD second halves
  std::vector<std::string> Text;     // printed instruction, by index
  std::vector<std::string> Mnemonic; // by index
  std::vector<std::string> McName;   // LLVM MC opcode name, by index
  uint64_t CodeBegin = 0, CodeEnd = 0;

  // Instruction index at a code object virtual address.
  std::optional<uint32_t> indexOf(uint64_t Address) const {
    if (Address < CodeBegin || Address >= CodeEnd || (Address & 3))
      return std::nullopt;
    uint32_t I = IndexByWord[(Address - CodeBegin) / 4];
    if (I == UINT32_MAX)
      return std::nullopt;
    return I;
  }
  std::vector<uint32_t> IndexByWord;
};

// Looks up the semantics of a canonical mnemonic (no _e32/_e64 suffix).
const OpDef *findOpDef(llvm::StringRef Mnemonic);
// Every mnemonic with semantics, sorted.
std::vector<std::string> supportedMnemonics();

} // namespace reptx::emulator
