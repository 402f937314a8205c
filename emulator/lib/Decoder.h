// Decodes AMDGPU machine code with LLVM's MC disassembler into the emulator's Program form.
#pragma once

#include "Program.h"
#include "reptx/emulator/CodeObject.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>
#include <vector>

namespace reptx::emulator {

struct CodeRange {
  uint64_t Address = 0; // code object virtual address of Bytes[0]
  llvm::ArrayRef<uint8_t> Bytes;
};

// Decodes every instruction of the ranges (executable sections) for one wave size; instructions
// that do not decode or have no semantics become entries that fault when executed. SplitPoints
// are addresses known to start instructions (kernel entries), at which a large code object is
// cut into pieces that decode on several threads: Threads of them, or with 0 one per core (at
// most 16) when the code is 256 kB or more, else one.
llvm::Expected<std::unique_ptr<Program>> decodeProgram(const TargetInfo &Target, unsigned WaveSize,
                                                       llvm::ArrayRef<CodeRange> Ranges,
                                                       llvm::ArrayRef<uint64_t> SplitPoints = {},
                                                       unsigned Threads = 0);

// Parses one instruction as LLVM's AMDGPU printer writes it ("v_add_f32_e64 v0, -v1, s2 clamp")
// into I (Op, operands, modifiers, immediates). VOPD halves go to Extra. Returns the mnemonic.
std::string parseInstruction(llvm::StringRef Text, unsigned WaveSize, Inst &I,
                             std::vector<Inst> &Extra);

// The mnemonic without its encoding suffix (_e32, _e64), as the semantics table names it.
llvm::StringRef canonicalMnemonic(llvm::StringRef Mnemonic);

} // namespace reptx::emulator
