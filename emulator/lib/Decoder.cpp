// Machine code decoding: LLVM's AMDGPU MC disassembler turns bytes into MCInsts, LLVM's AMDGPU
// instruction printer writes them in the documented assembler syntax (AMDGPUUsage, "AMDGPU
// Instruction Syntax", "AMDGPU Operand Syntax", "AMDGPU Modifier Syntax"), and that text is parsed
// once into Inst records: registers and ranges, inline constants, literals, modifiers. The printed
// syntax names every operand explicitly (implicit VCC included), which the raw MCInst does not.
#include "Decoder.h"

#include "CrossLane.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/MC/MCAsmInfo.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCDisassembler/MCDisassembler.h"
#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCInstPrinter.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/MCTargetOptions.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Triple.h"

#include <algorithm>
#include <iterator>
#include <mutex>
#include <thread>

extern "C" void LLVMInitializeAMDGPUTargetInfo();
extern "C" void LLVMInitializeAMDGPUTargetMC();
extern "C" void LLVMInitializeAMDGPUDisassembler();

using namespace llvm;

namespace reptx::emulator {

namespace {

void initializeAMDGPU() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUDisassembler();
  });
}

// --- operand syntax -------------------------------------------------------------------------

bool parseInt(StringRef T, int64_t &Out) {
  bool Negative = T.consume_front("-");
  uint64_t U;
  if (T.starts_with_insensitive("0x")) {
    if (T.drop_front(2).getAsInteger(16, U))
      return false;
  } else if (T.getAsInteger(10, U)) {
    return false;
  }
  Out = Negative ? -int64_t(U) : int64_t(U);
  return true;
}

// "v7", "v[4:5]", "s[0:1]", "a3", "ttmp[0:1]"; returns false when T is not a register range.
bool parseRegister(StringRef T, StringRef Prefix, unsigned &First, unsigned &Count) {
  if (!T.consume_front(Prefix))
    return false;
  if (T.consume_front("[")) {
    auto [Lo, Hi] = T.split(':');
    unsigned A, B;
    if (!Hi.consume_back("]") || Lo.getAsInteger(10, A) || Hi.getAsInteger(10, B) || B < A)
      return false;
    First = A;
    Count = B - A + 1;
    return true;
  }
  if (T.empty() || !isDigit(T[0]) || T.getAsInteger(10, First))
    return false;
  Count = 1;
  return true;
}

bool parseFloatConst(StringRef T, Operand &O) {
  static const struct {
    StringRef Text;
    FloatConstValue Value;
  } Table[] = {{"0.5", FloatConstValue::Half}, {"-0.5", FloatConstValue::NegHalf},
               {"1.0", FloatConstValue::One},  {"-1.0", FloatConstValue::NegOne},
               {"2.0", FloatConstValue::Two},  {"-2.0", FloatConstValue::NegTwo},
               {"4.0", FloatConstValue::Four}, {"-4.0", FloatConstValue::NegFour}};
  for (const auto &E : Table)
    if (T == E.Text) {
      O.Kind = OperandKind::FloatConst;
      O.Value = int64_t(E.Value);
      return true;
    }
  if (T.starts_with("0.1591")) { // 1/(2*pi), printed with the precision of the operand type
    O.Kind = OperandKind::FloatConst;
    O.Value = int64_t(FloatConstValue::InvTwoPi);
    return true;
  }
  return false;
}

// One source or destination operand. Returns an error message, empty on success.
std::string parseOperand(StringRef T, Operand &O) {
  T = T.trim();
  // Floating-point input modifiers: -x, |x|, -|x|, neg(x), abs(x).
  if (T.size() > 1 && T[0] == '-' && !isDigit(T[1])) {
    O.Neg = true;
    T = T.drop_front();
  }
  if (T.consume_front("neg(")) {
    if (!T.consume_back(")"))
      return "malformed neg()";
    O.Neg = !O.Neg;
  }
  if (T.size() > 2 && T.front() == '|' && T.back() == '|') {
    O.Abs = true;
    T = T.drop_front().drop_back();
  } else if (T.consume_front("abs(")) {
    if (!T.consume_back(")"))
      return "malformed abs()";
    O.Abs = true;
  }
  if (T.consume_front("sext(")) { // SDWA integer sign extension of the selected field
    if (!T.consume_back(")"))
      return "malformed sext()";
    O.Sext = true;
  }

  unsigned First, Count;
  if (T == "off") {
    O.Kind = OperandKind::Off;
    return {};
  }
  bool IsLit64 = T.starts_with("lit64(");
  if (T.consume_front("lit64(") || T.consume_front("lit(")) {
    O.Lit64 = IsLit64;
    if (!T.consume_back(")") || !parseInt(T, O.Value))
      return "malformed literal '" + T.str() + "'";
    O.Kind = OperandKind::Literal;
    return {};
  }
  // true16 register halves: v4.l / v4.h
  if (T.ends_with(".l") || T.ends_with(".h")) {
    O.Half = T.back() == 'l' ? 1 : 2;
    T = T.drop_back(2);
  }
  if (parseRegister(T, "v", First, Count)) {
    O.Kind = OperandKind::Vgpr;
    O.Reg = uint16_t(First);
    O.Dwords = uint8_t(Count);
    return {};
  }
  if (parseRegister(T, "a", First, Count)) {
    O.Kind = OperandKind::Agpr;
    O.Reg = uint16_t(First);
    O.Dwords = uint8_t(Count);
    return {};
  }
  if (parseRegister(T, "ttmp", First, Count)) {
    O.Kind = OperandKind::Sgpr;
    O.Reg = uint16_t(sreg::Ttmp0 + First);
    O.Dwords = uint8_t(Count);
    return First + Count <= 16 ? std::string() : "bad trap temporary " + T.str();
  }
  if (parseRegister(T, "s", First, Count)) {
    O.Kind = OperandKind::Sgpr;
    O.Reg = uint16_t(First);
    O.Dwords = uint8_t(Count);
    return First + Count <= sreg::NumSgprs ? std::string() : "bad SGPR " + T.str();
  }
  static const struct {
    StringRef Name;
    unsigned Reg, Dwords;
  } Named[] = {
      {"vcc", sreg::VccLo, 2},     {"vcc_lo", sreg::VccLo, 1},   {"vcc_hi", sreg::VccHi, 1},
      {"exec", sreg::ExecLo, 2},   {"exec_lo", sreg::ExecLo, 1}, {"exec_hi", sreg::ExecHi, 1},
      {"m0", sreg::M0, 1},         {"null", sreg::Null, 1},      {"flat_scratch", 102, 2},
      {"flat_scratch_lo", 102, 1}, {"flat_scratch_hi", 103, 1},  {"xnack_mask", 104, 2},
      {"xnack_mask_lo", 104, 1},   {"xnack_mask_hi", 105, 1}};
  for (const auto &N : Named)
    if (T == N.Name) {
      O.Kind = OperandKind::Sgpr;
      O.Reg = uint16_t(N.Reg);
      O.Dwords = uint8_t(N.Dwords);
      return {};
    }
  static const struct {
    StringRef Name;
    SpecialSource Source;
  } Specials[] = {{"scc", SpecialSource::Scc},
                  {"src_scc", SpecialSource::Scc},
                  {"execz", SpecialSource::ExecZ},
                  {"src_execz", SpecialSource::ExecZ},
                  {"vccz", SpecialSource::VccZ},
                  {"src_vccz", SpecialSource::VccZ},
                  {"src_shared_base", SpecialSource::SharedBase},
                  {"shared_base", SpecialSource::SharedBase},
                  {"src_shared_limit", SpecialSource::SharedLimit},
                  {"shared_limit", SpecialSource::SharedLimit},
                  {"src_private_base", SpecialSource::PrivateBase},
                  {"private_base", SpecialSource::PrivateBase},
                  {"src_private_limit", SpecialSource::PrivateLimit},
                  {"private_limit", SpecialSource::PrivateLimit},
                  {"src_pops_exiting_wave_id", SpecialSource::PopsExitingWaveId}};
  for (const auto &N : Specials)
    if (T == N.Name) {
      O.Kind = OperandKind::Special;
      O.Value = int64_t(N.Source);
      return {};
    }
  if (parseFloatConst(T, O))
    return {};
  // hwreg(NAME[, offset, size]) of s_getreg/s_setreg: the SIMM16 encoding (id [5:0], offset
  // [10:6], size-1 [15:11]; AMD ISA manuals, "S_GETREG_B32") as an integer constant.
  if (T.consume_front("hwreg(") && T.consume_back(")")) {
    SmallVector<StringRef, 3> Parts;
    T.split(Parts, ',');
    static const struct {
      StringRef Name;
      unsigned Id;
    } Regs[] = {{"HW_REG_MODE", 1},   {"HW_REG_STATUS", 2},       {"HW_REG_TRAPSTS", 3},
                {"HW_REG_HW_ID", 4},  {"HW_REG_GPR_ALLOC", 5},    {"HW_REG_LDS_ALLOC", 6},
                {"HW_REG_IB_STS", 7}, {"HW_REG_FLAT_SCR_LO", 20}, {"HW_REG_FLAT_SCR_HI", 21}};
    int64_t Id = -1, Off = 0, Size = 32;
    StringRef Name = Parts[0].trim();
    for (const auto &R : Regs)
      if (Name == R.Name)
        Id = R.Id;
    if ((Id < 0 && !parseInt(Name, Id)) ||
        (Parts.size() == 3 &&
         (!parseInt(Parts[1].trim(), Off) || !parseInt(Parts[2].trim(), Size))) ||
        (Parts.size() != 1 && Parts.size() != 3) || Id < 0 || Id > 63 || Off < 0 || Off > 31 ||
        Size < 1 || Size > 32)
      return "malformed hwreg operand";
    O.Kind = OperandKind::IntConst;
    O.Value = Id | (Off << 6) | ((Size - 1) << 11);
    return {};
  }
  // sendmsg(MSG_...) of s_sendmsg_rtn: the message id (RDNA3 ISA, "S_SENDMSG_RTN_B32/B64").
  if (T.consume_front("sendmsg(") && T.consume_back(")")) {
    static const struct {
      StringRef Name;
      unsigned Id;
    } Msgs[] = {{"MSG_RTN_GET_DOORBELL", 128}, {"MSG_RTN_GET_DDID", 129},
                {"MSG_RTN_GET_TMA", 130},      {"MSG_RTN_GET_REALTIME", 131},
                {"MSG_RTN_SAVE_WAVE", 132},    {"MSG_RTN_GET_TBA", 133}};
    for (const auto &M : Msgs)
      if (T.trim() == M.Name) {
        O.Kind = OperandKind::IntConst;
        O.Value = M.Id;
        return {};
      }
    if (parseInt(T.trim(), O.Value)) {
      O.Kind = OperandKind::IntConst;
      return {};
    }
    return "malformed sendmsg operand";
  }
  // The printer writes inline integer constants in decimal and literals in hex.
  if (parseInt(T, O.Value)) {
    StringRef Digits = T.starts_with("-") ? T.drop_front() : T;
    O.Kind = Digits.starts_with_insensitive("0x") ? OperandKind::Literal : OperandKind::IntConst;
    return {};
  }
  return "unrecognised operand '" + T.str() + "'";
}

// "[0,1,0]" -> bit mask
bool parseBitList(StringRef T, uint8_t &Bits) {
  if (!T.consume_front("[") || !T.consume_back("]"))
    return false;
  SmallVector<StringRef, 4> Parts;
  T.split(Parts, ',');
  Bits = 0;
  for (size_t I = 0; I < Parts.size(); ++I) {
    unsigned B;
    if (Parts[I].trim().getAsInteger(10, B) || B > 1)
      return false;
    Bits |= uint8_t(B << I);
  }
  return true;
}

std::string parseModifier(StringRef T, Inst &I) {
  auto [Name, Value] = T.split(':');
  int64_t N = 0;
  if (Name == "offset" || Name == "offset0" || Name == "offset1") {
    if (!parseInt(Value, N) && !(Name == "offset" && parseSwizzleOffset(Value, N)))
      return "malformed " + Name.str();
    (Name == "offset1" ? I.Offset1 : I.Offset) = int32_t(N);
    I.HasOffset = true;
    return {};
  }
  if (std::string E; parseDppModifier(T, I, E))
    return E;
  if (T == "clamp") {
    I.Clamp = true;
    return {};
  }
  if (T == "offen" || T == "idxen") {
    (T == "offen" ? I.Offen : I.Idxen) = true;
    return {};
  }
  if (T == "mul:2" || T == "mul:4" || T == "div:2") {
    I.Omod = T == "mul:2" ? 1 : T == "mul:4" ? 2 : 3;
    return {};
  }
  uint8_t Bits;
  if (Name == "op_sel" || Name == "op_sel_hi" || Name == "neg_lo" || Name == "neg_hi") {
    if (!parseBitList(Value, Bits))
      return "malformed " + Name.str();
    if (Name == "op_sel")
      I.OpSel = Bits;
    else if (Name == "op_sel_hi")
      I.OpSelHi = Bits;
    else
      (Name == "neg_lo" ? I.NegLo : I.NegHi) = Bits;
    return {};
  }
  // SDWA selects (AMD GFX9 ISA, "SDWA"): BYTE_0-3, WORD_0-1, DWORD.
  if (Name == "dst_sel" || Name == "src0_sel" || Name == "src1_sel") {
    static const StringRef Sels[] = {"DWORD",  "BYTE_0", "BYTE_1", "BYTE_2",
                                     "BYTE_3", "WORD_0", "WORD_1"};
    auto It = std::find(std::begin(Sels), std::end(Sels), Value);
    if (It == std::end(Sels))
      return "malformed " + Name.str();
    uint8_t Sel = uint8_t(It - std::begin(Sels));
    (Name == "dst_sel" ? I.DstSel : I.SrcSel[Name == "src1_sel" ? 1 : 0]) = Sel;
    return {};
  }
  if (Name == "dst_unused") {
    if (Value == "UNUSED_PAD")
      I.DstUnused = 0;
    else if (Value == "UNUSED_SEXT")
      I.DstUnused = 1;
    else if (Value == "UNUSED_PRESERVE")
      I.DstUnused = 2;
    else
      return "malformed dst_unused";
    return {};
  }
  // Cache-policy and scheduling bits change nothing in a sequential, coherent memory model.
  static const StringRef Ignored[] = {"glc", "slc", "dlc", "nt", "sc0", "sc1", "scc", "nv"};
  for (StringRef Word : Ignored)
    if (T == Word)
      return {};
  if (Name == "th" || Name == "scope")
    return {};
  return "unsupported modifier '" + T.str() + "'";
}

// Splits at commas outside brackets and parentheses.
SmallVector<StringRef, 8> splitOperands(StringRef T) {
  SmallVector<StringRef, 8> Parts;
  int Depth = 0;
  size_t Start = 0;
  for (size_t I = 0; I < T.size(); ++I) {
    char C = T[I];
    if (C == '[' || C == '(')
      ++Depth;
    else if (C == ']' || C == ')')
      --Depth;
    else if (C == ',' && Depth == 0) {
      Parts.push_back(T.slice(Start, I).trim());
      Start = I + 1;
    }
  }
  if (!T.trim().empty())
    Parts.push_back(T.substr(Start).trim());
  return Parts;
}

void setProblem(Inst &I, const std::string &P) {
  if (I.Problem.empty())
    I.Problem = P;
}

// Parses a single (non-VOPD) instruction.
std::string parseSingle(StringRef Text, unsigned WaveSize, Inst &I, bool InVopd) {
  Text = Text.trim();
  auto [MnemonicRef, Rest] = Text.split(' ');
  std::string Mnemonic = MnemonicRef.str();
  std::string Canonical = canonicalMnemonic(MnemonicRef).str();
  if (InVopd && StringRef(Canonical).starts_with("v_dual_"))
    Canonical = "v_" + Canonical.substr(7);
  I.Op = findOpDef(Canonical);
  if (!I.Op || I.Op->IgnoreOperands)
    return Mnemonic;

  SmallVector<StringRef, 8> Parts = splitOperands(Rest.trim());
  SmallVector<StringRef, 8> Modifiers;
  if (!Parts.empty()) {
    // Modifiers follow the last operand, separated by spaces.
    SmallVector<StringRef, 8> Words;
    Parts.back().split(Words, ' ', -1, false);
    Parts.back() = Words.front();
    Modifiers.append(Words.begin() + 1, Words.end());
  }
  if (Parts.size() > std::size(I.Ops)) {
    setProblem(I, "too many operands");
    return Mnemonic;
  }
  for (StringRef P : Parts) {
    Operand &O = I.Ops[I.NumOps++];
    std::string E = parseOperand(P, O);
    if (!E.empty())
      setProblem(I, E);
  }
  // The mixed-precision v_fma_mix*/v_mad_mix* print op_sel_hi only when set: their default is
  // all zeros (f32 sources), unlike the packed operations' all ones.
  if (StringRef(Canonical).contains("_mix"))
    I.OpSelHi = 0;
  for (StringRef M : Modifiers) {
    std::string E = parseModifier(M, I);
    if (!E.empty())
      setProblem(I, E);
  }
  if (StringRef(Mnemonic).ends_with("_sdwa")) {
    I.Sdwa = true;
    for (unsigned K = 0; K < 2; ++K) {
      unsigned Src = I.Op->NumDsts + K;
      if (Src < I.NumOps)
        I.Ops[Src].Sel = I.SrcSel[K];
    }
  }
  // VOPD v_dual_cndmask_b32 reads VCC_LO implicitly (RDNA3 ISA, "VOPD").
  if (InVopd && Canonical == "v_cndmask_b32" && I.NumOps == 3) {
    Operand &O = I.Ops[I.NumOps++];
    O.Kind = OperandKind::Sgpr;
    O.Reg = sreg::VccLo;
    O.Dwords = 1;
  }
  if (I.Op->IsBranch && I.NumOps >= 1) {
    const Operand &B = I.Ops[I.NumOps - 1];
    if (B.Kind != OperandKind::IntConst && B.Kind != OperandKind::Literal)
      setProblem(I, "malformed branch offset");
    I.Imm = int32_t(int16_t(uint16_t(B.Value))); // SIMM16, printed unsigned
  }
  if (I.Op->NumOperands >= 0 && I.NumOps != unsigned(I.Op->NumOperands))
    setProblem(I, "expected " + std::to_string(I.Op->NumOperands) + " operands, found " +
                      std::to_string(I.NumOps));
  if (StringRef(Mnemonic).ends_with("_dpp"))
    wrapDpp(I);
  return Mnemonic;
}

} // namespace

StringRef canonicalMnemonic(StringRef Mnemonic) {
  // DPP forms (v_mov_b32_dpp, v_add_nc_u32_e64_dpp) are their operation plus a source permutation.
  if (Mnemonic.ends_with("_dpp"))
    Mnemonic = Mnemonic.drop_back(4);
  if (Mnemonic.ends_with("_e32") || Mnemonic.ends_with("_e64"))
    return Mnemonic.drop_back(4);
  if (Mnemonic.ends_with("_sdwa"))
    return Mnemonic.drop_back(5);
  return Mnemonic;
}

std::string parseInstruction(StringRef Text, unsigned WaveSize, Inst &I, std::vector<Inst> &Extra) {
  Text = Text.trim();
  size_t Sep = Text.find(" :: ");
  if (Sep == StringRef::npos)
    return parseSingle(Text, WaveSize, I, /*InVopd=*/false);
  // VOPD: two VALU operations issued together; both read their sources before either writes.
  Inst X, Y;
  X.Address = Y.Address = I.Address;
  std::string MX = parseSingle(Text.substr(0, Sep), WaveSize, X, true);
  std::string MY = parseSingle(Text.substr(Sep + 4), WaveSize, Y, true);
  I.Op = findOpDef("v_dual");
  auto Check = [&](const Inst &H, const std::string &M) {
    if (!H.Op || !H.Op->Compute)
      setProblem(I, "VOPD component '" + M + "' is not supported");
    else if (!H.Problem.empty())
      setProblem(I, M + ": " + H.Problem);
  };
  Check(X, MX);
  Check(Y, MY);
  I.Second = uint32_t(Extra.size());
  Extra.push_back(std::move(X));
  Extra.push_back(std::move(Y));
  return MX + " :: " + MY;
}

namespace {

// LLVM's MC layer for one target and wave size: what decodes and prints instructions. One per
// thread (an MCContext and a disassembler are not shared).
struct McDecoder {
  Triple TT{"amdgcn-amd-amdhsa"};
  std::unique_ptr<MCRegisterInfo> MRI;
  std::unique_ptr<MCAsmInfo> MAI;
  std::unique_ptr<MCSubtargetInfo> STI;
  std::unique_ptr<MCInstrInfo> MII;
  std::unique_ptr<MCContext> Ctx;
  std::unique_ptr<MCDisassembler> Dis;
  std::unique_ptr<MCInstPrinter> Printer;
  GfxFamily Family = GfxFamily::GFX9;

  Error create(const TargetInfo &Target, unsigned WaveSize) {
    Family = Target.Family;
    std::string Err;
    const llvm::Target *T = TargetRegistry::lookupTarget(TT, Err);
    if (!T)
      return createStringError(std::make_error_code(std::errc::not_supported),
                               "AMDGPU target unavailable: " + Err);
    // Wave size changes how VCC-like operands decode on GFX10+; GFX9 is wave64 only and must not
    // be given +wavefrontsize32 (it would decode nothing).
    std::string Features;
    if (Target.Family != GfxFamily::GFX9)
      Features = WaveSize == 32 ? "+wavefrontsize32" : "+wavefrontsize64";
    MRI.reset(T->createMCRegInfo(TT));
    MCTargetOptions Options;
    MAI.reset(MRI ? T->createMCAsmInfo(*MRI, TT, Options) : nullptr);
    STI.reset(T->createMCSubtargetInfo(TT, Target.Processor, Features));
    MII.reset(T->createMCInstrInfo());
    if (!MRI || !MAI || !STI || !MII)
      return createStringError(std::make_error_code(std::errc::not_supported),
                               "cannot create the AMDGPU MC layer for " + Target.Processor);
    if (!STI->isCPUStringValid(Target.Processor))
      return createStringError(std::make_error_code(std::errc::not_supported),
                               "LLVM does not know the processor '" + Target.Processor + "'");
    Ctx = std::make_unique<MCContext>(TT, MAI.get(), MRI.get(), STI.get());
    Dis.reset(T->createMCDisassembler(*STI, *Ctx));
    Printer.reset(T->createMCInstPrinter(TT, MAI->getAssemblerDialect(), *MAI, *MII, *MRI));
    if (!Dis || !Printer)
      return createStringError(std::make_error_code(std::errc::not_supported),
                               "cannot create the AMDGPU disassembler for " + Target.Processor);
    return Error::success();
  }

  // Whether LLVM 22's AMDGPU disassembler would crash on the instruction at the start of Rest,
  // which no compiler writes but malformed code objects hold; llvm-mc -disassemble crashes on
  // each example below too (for gfx90a).
  // - A literal past the bytes it may read (the crash is in the error path of a literal it cannot
  //   read): past the end of what it is given ("0xff,0x00,0x00,0x00": v_cndmask_b32 with a
  //   literal), which size() prevents by padding, or past the target's longest instruction.
  //   On GFX9 that is 8 bytes, as no 64-bit encoding takes a literal there, so a 64-bit word
  //   with 255 (literal) in a scalar source or destination crashes it: VOP3 and VOP3P (bits
  //   31-26 110100) in src0-2 ("0x0c,0x00,0x85,0xd2,0x0c,0xff,0x01,0x00") or, for a VOPC opcode
  //   (below 0x100), in sdst ("0xff,0xf8,0x46,0xd0,0x80,0x00,0x00,0x00"); MUBUF and MTBUF
  //   (111000, 111010) in soffset ("0x00,0x00,0x00,0xe0,0x04,0x00,0xf6,0xff").
  // - SDWA (GFX9-10: VOP1, VOP2 or VOPC with 0xf9 as src0) with a source or (not VOPC)
  //   destination selector 7 or dst_unused 3, which do not exist; its printer indexes past its
  //   tables
  //   ("0xf9,0x00,0x7e,0x00,0x00,0x00,0x02,0x07").
  bool crashesLlvm(ArrayRef<uint8_t> Rest) const {
    if (Rest.size() < 8)
      return false; // size() pads the end of a range
    auto Word = [&](unsigned I) {
      return uint32_t(Rest[I]) | uint32_t(Rest[I + 1]) << 8 | uint32_t(Rest[I + 2]) << 16 |
             uint32_t(Rest[I + 3]) << 24;
    };
    uint32_t W0 = Word(0), W1 = Word(4);
    bool Gfx9 = Family == GfxFamily::GFX9;
    if (Gfx9 && (W0 >> 26 == 0x38 || W0 >> 26 == 0x3a))
      return W1 >> 24 == 255;
    if (Gfx9 && W0 >> 26 == 0x34) {
      for (unsigned Shift : {0u, 9u, 18u})
        if (((W1 >> Shift) & 0x1ff) == 255)
          return true;
      return ((W0 >> 16) & 0x3ff) < 0x100 && (W0 & 0xff) == 255;
    }
    bool Vop1 = W0 >> 25 == 0x3f, Vopc = W0 >> 25 == 0x3e, Vop2 = W0 >> 31 == 0;
    bool Sdwa = Family == GfxFamily::GFX9 || Family == GfxFamily::GFX10;
    if (Sdwa && (Vop1 || Vopc || Vop2) && (W0 & 0x1ff) == 0xf9) {
      unsigned DstSel = (W1 >> 8) & 7, DstUnused = (W1 >> 11) & 3;
      unsigned Src0Sel = (W1 >> 16) & 7, Src1Sel = (W1 >> 24) & 7;
      // VOPC's SDWA dword holds sdst where the others hold dst_sel and dst_unused.
      return (!Vopc && (DstSel == 7 || DstUnused == 3)) || Src0Sel == 7 || Src1Sel == 7;
    }
    return false;
  }

  // The size of the instruction at Off of R (4 bytes, or what is left, where none decodes).
  // Near the end of a range the disassembler is given the rest padded with zeros to 32 bytes,
  // more than any instruction takes, and an instruction reaching past the range is
  // undecodable (crashesLlvm).
  uint64_t size(const CodeRange &R, uint64_t Off, MCInst &MI, bool &Decoded) {
    uint64_t Size = 0;
    ArrayRef<uint8_t> Rest = R.Bytes.slice(Off), Window = Rest;
    if (crashesLlvm(Rest)) {
      Decoded = false;
      return 4;
    }
    uint8_t Padded[32] = {};
    if (Rest.size() < sizeof Padded) {
      std::copy(Rest.begin(), Rest.end(), Padded);
      Window = ArrayRef<uint8_t>(Padded);
    }
    Decoded = Dis->getInstruction(MI, Size, Window, R.Address + Off, nulls()) ==
                  MCDisassembler::Success &&
              Size && Size <= Rest.size();
    return Decoded ? Size : std::min<uint64_t>(4, Rest.size());
  }

  // Decodes every instruction of R onto the end of P's tables (and VOPD halves onto P.Extra),
  // entering them in P.IndexByWord unless it is empty.
  void decode(const CodeRange &R, unsigned WaveSize, Program &P) {
    std::string Text;
    for (uint64_t Off = 0; Off < R.Bytes.size();) {
      MCInst MI;
      bool Decoded;
      uint64_t Address = R.Address + Off;
      uint64_t Size = size(R, Off, MI, Decoded);
      Inst I;
      I.Address = Address;
      I.Index = uint32_t(P.Insts.size());
      std::string Mnemonic, McName;
      Text.clear();
      if (!Decoded) {
        uint32_t Word = 0;
        for (uint64_t B = 0; B < Size; ++B)
          Word |= uint32_t(R.Bytes[Off + B]) << (8 * B);
        Text = "<undecodable " + utohexstr(Word, false, 8) + ">";
        Mnemonic = "<undecodable>";
      } else {
        raw_string_ostream OS(Text);
        Printer->printInst(&MI, Address, "", *STI, OS);
        Text = StringRef(Text).trim().str();
        Mnemonic = parseInstruction(Text, WaveSize, I, P.Extra);
        McName = MII->getName(MI.getOpcode()).str();
      }
      I.Size = uint8_t(Size);
      if ((Address & 3) == 0 && !P.IndexByWord.empty())
        P.IndexByWord[(Address - P.CodeBegin) / 4] = I.Index;
      P.Insts.push_back(std::move(I));
      P.Text.push_back(Text);
      P.Mnemonic.push_back(std::move(Mnemonic));
      P.McName.push_back(std::move(McName));
      Off += Size;
    }
  }
};

// The ranges cut into about Count pieces of similar size that decode on their own: each range
// cut at the split points (instruction starts: kernel entries) nearest past equal shares.
std::vector<CodeRange> pieces(ArrayRef<CodeRange> Ranges, ArrayRef<uint64_t> SplitPoints,
                              unsigned Count) {
  std::vector<uint64_t> Cuts(SplitPoints.begin(), SplitPoints.end());
  std::sort(Cuts.begin(), Cuts.end());
  std::vector<CodeRange> Out;
  for (const CodeRange &R : Ranges) {
    uint64_t From = R.Address, End = R.Address + R.Bytes.size();
    for (unsigned K = 1; K < Count; ++K) {
      uint64_t Share = R.Address + R.Bytes.size() * K / Count;
      auto It = std::lower_bound(Cuts.begin(), Cuts.end(), std::max(Share, From + 1));
      while (It != Cuts.end() && (*It - R.Address) % 4)
        ++It;
      if (It == Cuts.end() || *It >= End)
        break;
      Out.push_back({From, R.Bytes.slice(From - R.Address, *It - From)});
      From = *It;
    }
    Out.push_back({From, R.Bytes.slice(From - R.Address, End - From)});
  }
  return Out;
}

/// Code objects of at least this many bytes of code decode on several threads.
constexpr uint64_t ParallelDecodeBytes = 256 * 1024;

} // namespace

Expected<std::unique_ptr<Program>> decodeProgram(const TargetInfo &Target, unsigned WaveSize,
                                                 ArrayRef<CodeRange> Ranges,
                                                 ArrayRef<uint64_t> SplitPoints, unsigned Threads) {
  initializeAMDGPU();
  McDecoder First;
  if (Error E = First.create(Target, WaveSize))
    return std::move(E);

  auto P = std::make_unique<Program>();
  if (Ranges.empty())
    return std::move(P);
  P->CodeBegin = UINT64_MAX;
  uint64_t CodeBytes = 0;
  for (const CodeRange &R : Ranges) {
    P->CodeBegin = std::min(P->CodeBegin, R.Address & ~uint64_t(3));
    P->CodeEnd = std::max(P->CodeEnd, R.Address + R.Bytes.size());
    CodeBytes += R.Bytes.size();
  }
  if (P->CodeEnd - P->CodeBegin > (uint64_t(1) << 30))
    return createStringError(std::make_error_code(std::errc::invalid_argument),
                             "executable sections span over 1 GiB");
  P->IndexByWord.assign((P->CodeEnd - P->CodeBegin + 3) / 4, UINT32_MAX);

  if (!Threads)
    Threads = CodeBytes >= ParallelDecodeBytes
                  ? std::clamp(std::thread::hardware_concurrency(), 1u, 16u)
                  : 1;
  // Room for as many instructions as there can be (each is 4 bytes or more): the tables never
  // grow by copying, and pages the reservation does not reach are never touched.
  auto Reserve = [](Program &Into, uint64_t Bytes, size_t Pieces) {
    size_t Most = size_t(Bytes / 4 + Pieces);
    Into.Insts.reserve(Most);
    Into.Text.reserve(Most);
    Into.Mnemonic.reserve(Most);
    Into.McName.reserve(Most);
  };
  Reserve(*P, CodeBytes, Ranges.size() + Threads);
  std::vector<CodeRange> Pieces = Threads > 1
                                      ? pieces(Ranges, SplitPoints, Threads)
                                      : std::vector<CodeRange>(Ranges.begin(), Ranges.end());
  if (Pieces.size() <= Ranges.size()) {
    for (const CodeRange &R : Ranges)
      First.decode(R, WaveSize, *P);
  } else {
    // A large code object (a library's hundreds of kernels) decodes in pieces of similar size
    // on as many threads, each with its own MC layer: the first piece into the program itself,
    // the others into parts appended to it in address order (each part's memory released once
    // it is in). Each piece starts at an instruction, so the program is the one a single thread
    // makes.
    std::vector<Program> Parts(Pieces.size());
    std::vector<std::string> Failed(Pieces.size()); // why a thread's MC layer was not made
    std::vector<std::thread> Pool;
    for (size_t I = 1; I < Pieces.size(); ++I)
      Pool.emplace_back([&, I] {
        McDecoder D;
        if (Error E = D.create(Target, WaveSize)) {
          Failed[I] = toString(std::move(E));
          return;
        }
        Reserve(Parts[I], Pieces[I].Bytes.size(), 1);
        D.decode(Pieces[I], WaveSize, Parts[I]);
      });
    First.decode(Pieces[0], WaveSize, *P);
    for (std::thread &T : Pool)
      T.join();
    for (const std::string &Why : Failed)
      if (!Why.empty())
        return createStringError(std::make_error_code(std::errc::not_supported), Why);
    for (size_t I = 1; I < Parts.size(); ++I) {
      Program &Part = Parts[I];
      uint32_t Base = uint32_t(P->Insts.size()), ExtraBase = uint32_t(P->Extra.size());
      for (Inst &In : Part.Insts) {
        In.Index += Base;
        if (In.Second != UINT32_MAX)
          In.Second += ExtraBase;
        if ((In.Address & 3) == 0)
          P->IndexByWord[(In.Address - P->CodeBegin) / 4] = In.Index;
        P->Insts.push_back(std::move(In));
      }
      std::move(Part.Extra.begin(), Part.Extra.end(), std::back_inserter(P->Extra));
      std::move(Part.Text.begin(), Part.Text.end(), std::back_inserter(P->Text));
      std::move(Part.Mnemonic.begin(), Part.Mnemonic.end(), std::back_inserter(P->Mnemonic));
      std::move(Part.McName.begin(), Part.McName.end(), std::back_inserter(P->McName));
      Part = Program();
    }
  }
  // Branch targets: PC of the next instruction + SIMM16 * 4 (AMD ISA manuals, SOPP "S_BRANCH").
  for (Inst &I : P->Insts) {
    if (!I.Op || !I.Op->IsBranch)
      continue;
    int64_t TargetAddress = int64_t(I.Address + I.Size) + int64_t(I.Imm) * 4;
    if (auto Index = P->indexOf(uint64_t(TargetAddress)))
      I.Target = *Index;
  }
  return std::move(P);
}

} // namespace reptx::emulator
