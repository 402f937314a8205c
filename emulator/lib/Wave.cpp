// The interpreter loop of one wave, and scalar operand reads (SGPRs, inline constants, literals,
// special sources).
#include "Wave.h"

#include "llvm/Support/raw_ostream.h"

namespace reptx::emulator {

namespace {

// Bit patterns of the inline floating-point constants at 16, 32 and 64 bits (AMD ISA manuals,
// "Inline Constants"; 1/(2*pi) from GFX8 on).
uint64_t floatConstBits(FloatConstValue C, unsigned Bits) {
  static const uint16_t F16[] = {0x3800, 0xb800, 0x3c00, 0xbc00, 0x4000,
                                 0xc000, 0x4400, 0xc400, 0x3118};
  static const uint32_t F32[] = {0x3f000000, 0xbf000000, 0x3f800000, 0xbf800000, 0x40000000,
                                 0xc0000000, 0x40800000, 0xc0800000, 0x3e22f983};
  static const uint64_t F64[] = {0x3fe0000000000000, 0xbfe0000000000000, 0x3ff0000000000000,
                                 0xbff0000000000000, 0x4000000000000000, 0xc000000000000000,
                                 0x4010000000000000, 0xc010000000000000, 0x3fc45f306dc9c882};
  unsigned I = unsigned(C);
  if (Bits <= 16)
    return F16[I];
  if (Bits <= 32)
    return F32[I];
  return F64[I];
}

} // namespace

uint64_t Wave::scalar(const Operand &O, unsigned Bits, NumKind K) const {
  switch (O.Kind) {
  case OperandKind::Sgpr: {
    if (O.Reg == sreg::Null)
      return 0;
    uint64_t X = S[O.Reg];
    if (Bits > 32 && O.Reg + 1u < sreg::FileSize)
      X |= uint64_t(S[O.Reg + 1]) << 32;
    if (O.Half == 2)
      X >>= 16;
    return X;
  }
  case OperandKind::IntConst:
    return uint64_t(O.Value);
  case OperandKind::FloatConst:
    return floatConstBits(FloatConstValue(O.Value), Bits);
  case OperandKind::Literal:
    // A 32-bit literal feeding a 64-bit operand: the high half of a double, sign-extended for
    // signed integers, zero-extended otherwise (AMDGPUUsage, "AMDGPU Operand Syntax", literals).
    if (Bits <= 32 || O.Lit64)
      return uint64_t(O.Value);
    if (K == NumKind::Float)
      return uint64_t(uint32_t(O.Value)) << 32;
    if (K == NumKind::Signed)
      return uint64_t(int64_t(int32_t(O.Value)));
    return uint64_t(uint32_t(O.Value));
  case OperandKind::Special:
    switch (SpecialSource(O.Value)) {
    case SpecialSource::Scc:
      return Scc;
    case SpecialSource::ExecZ:
      return exec() == 0;
    case SpecialSource::VccZ:
      return vcc() == 0;
    // The aperture registers hold the 64-bit base; read as 32 bits they give the low half.
    case SpecialSource::SharedBase:
      return Bits > 32 ? SharedApertureBase : uint32_t(SharedApertureBase);
    case SpecialSource::SharedLimit:
      return Bits > 32 ? SharedApertureBase + ApertureSize - 1
                       : uint32_t(SharedApertureBase + ApertureSize - 1);
    case SpecialSource::PrivateBase:
      return Bits > 32 ? PrivateApertureBase : uint32_t(PrivateApertureBase);
    case SpecialSource::PrivateLimit:
      return Bits > 32 ? PrivateApertureBase + ApertureSize - 1
                       : uint32_t(PrivateApertureBase + ApertureSize - 1);
    case SpecialSource::PopsExitingWaveId:
      return 0;
    }
    return 0;
  case OperandKind::Vgpr:
  case OperandKind::Agpr:
    return vcol(vgprIndex(O))[0];
  case OperandKind::None:
  case OperandKind::Off:
    return 0;
  }
  return 0;
}

namespace {

// Register ranges the decoder accepted may still exceed what the kernel descriptor allocated.
bool checkRegisters(Wave &W, const Inst &I) {
  for (unsigned K = 0; K < I.NumOps; ++K) {
    const Operand &O = I.Ops[K];
    if ((O.Kind == OperandKind::Vgpr || O.Kind == OperandKind::Agpr) && !W.vgprInRange(O)) {
      std::string D;
      llvm::raw_string_ostream OS(D);
      OS << (O.Kind == OperandKind::Agpr ? "AGPR a" : "VGPR v") << O.Reg << " (+" << O.Dwords
         << ") lies beyond the " << W.NumVgprs << " VGPRs the kernel descriptor allocates";
      W.fault(FaultKind::UnsupportedInstruction, D);
      return false;
    }
  }
  return true;
}

} // namespace

Step runWave(Wave &W, uint64_t Quantum) {
  const Program &P = *W.Ctx->Prog;
  for (; Quantum; --Quantum) {
    if (W.Pc >= P.Insts.size())
      return W.fault(FaultKind::InvalidProgramCounter, "execution ran past the end of the code");
    const Inst &I = P.Insts[W.Pc];
    if (W.Executed >= W.Ctx->MaxInstructionsPerWave)
      return W.fault(FaultKind::InstructionLimit, "the wave executed " +
                                                      std::to_string(W.Executed) +
                                                      " instructions, the dispatch's limit");
    ++W.Executed;
    if (!I.Op)
      return W.fault(FaultKind::UnsupportedInstruction,
                     "unsupported instruction '" + P.Mnemonic[W.Pc] + "'");
    if (!I.Problem.empty())
      return W.fault(FaultKind::UnsupportedInstruction,
                     "unsupported form of '" + P.Mnemonic[W.Pc] + "': " + I.Problem);
    if (W.Pc >= W.Ctx->RegistersChecked.size() || !W.Ctx->RegistersChecked[W.Pc]) {
      if (!checkRegisters(W, I))
        return Step::Fault;
      if (W.Pc < W.Ctx->RegistersChecked.size())
        W.Ctx->RegistersChecked[W.Pc] = 1;
    }
    Step S = I.Op->Exec(W, I);
    switch (S) {
    case Step::Next:
      ++W.Pc;
      break;
    case Step::Jump:
      break;
    case Step::Barrier:
      ++W.Pc;
      W.Status = WaveStatus::AtBarrier;
      return S;
    case Step::End:
      W.Status = WaveStatus::Ended;
      return S;
    case Step::Fault:
      return S;
    }
  }
  return Step::Next;
}

} // namespace reptx::emulator
