// Opcode census over the decoded program of a code object (see Census.h).
#include "reptx/emulator/Census.h"

#include "Program.h"

namespace reptx::emulator {

void addCensus(const CodeObject &CO, std::map<std::string, MnemonicUse> &Uses) {
  unsigned WaveSize = CO.kernels().empty() ? 64 : CO.kernels().front().WavefrontSize;
  const Program &Prog = CO.program(WaveSize);
  auto Add = [&](const Inst &In, const std::string &Mnemonic, const std::string &Text) {
    MnemonicUse &U = Uses[Mnemonic];
    ++U.Count;
    if (!In.Op || !In.Problem.empty()) {
      if (U.Supported) {
        U.Example = Text;
        U.Problem = In.Op ? In.Problem : "no semantics for the mnemonic";
      }
      U.Supported = false;
    }
  };
  for (size_t I = 0; I < Prog.Insts.size(); ++I) {
    const Inst &In = Prog.Insts[I];
    llvm::StringRef M = Prog.Mnemonic[I];
    size_t Sep = M.find(" :: ");
    // VOPD: each half counts as an instruction of its own (Decoder.cpp, parseInstruction).
    if (Sep != llvm::StringRef::npos && In.Second + 1 < Prog.Extra.size()) {
      Add(Prog.Extra[In.Second], M.substr(0, Sep).str(), Prog.Text[I]);
      Add(Prog.Extra[In.Second + 1], M.substr(Sep + 4).str(), Prog.Text[I]);
      continue;
    }
    Add(In, M.str(), Prog.Text[I]);
  }
}

} // namespace reptx::emulator
