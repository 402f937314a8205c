// Opcode census: which machine instructions a code object uses, and whether the emulator has
// semantics for each (`reptx census`, tests/census).
#pragma once

#include "reptx/emulator/CodeObject.h"

#include <cstdint>
#include <map>
#include <string>

namespace reptx::emulator {

struct MnemonicUse {
  uint64_t Count = 0;    // instructions with this mnemonic
  bool Supported = true; // every one of them has semantics the emulator can execute
  std::string Example;   // one unsupported instance (printed form), when not Supported
  std::string Problem;   // why it cannot execute, when known
};

/// Adds every decoded instruction of CO's code (all kernels and the functions they call: the
/// whole code range, decoded for the wave size of its kernels) to Uses, keyed by the canonical
/// mnemonic the emulator's op table uses (no _e32/_e64/_sdwa/_dpp suffix).
void addCensus(const CodeObject &CO, std::map<std::string, MnemonicUse> &Uses);

} // namespace reptx::emulator
