// The PTX instruction table: one declarative entry per instruction family of the PTX ISA manual
// (chapter 9, "Instruction Set"), giving the opcode, its modifier groups with their allowed values
// and the operand count. The parser validates every instruction against it, and
// docs/ptx-coverage.md is generated from it (`reptx coverage`).
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace reptx::ptx {

struct ModifierGroup {
  std::string Name;                // "type", "rnd", "ftz"
  std::vector<std::string> Values; // ".u32", ".rn" (with the dot)
  bool Required = false;
  unsigned Max = 1; // how many values of the group one instruction may carry
};

struct InstructionFamily {
  llvm::StringRef Opcode;   // "add"
  llvm::StringRef Category; // "integer", "float", "memory", ... (the lifting file's name)
  llvm::StringRef Section;  // PTX ISA manual section, e.g. "9.7.1.1"
  unsigned MinOps = 0, MaxOps = 0;
  std::vector<ModifierGroup> Groups;
  /// What each operand position accepts, one letter per position (legend in
  /// InstructionTable.cpp); empty when the family's forms are too varied to check.
  llvm::StringRef Operands;
  /// Modifiers (with the dot) of forms whose operands Operands does not describe.
  std::vector<std::string> OperandsExcept;

  /// The group a modifier belongs to, or -1.
  int groupOf(llvm::StringRef Mod) const;
};

/// Every family, in table order.
llvm::ArrayRef<InstructionFamily> instructionFamilies();
/// The family of an opcode (the first dotted component), or null when PTX has no such opcode.
const InstructionFamily *lookupFamily(llvm::StringRef Opcode);
/// Index of a family in instructionFamilies().
unsigned familyIndex(const InstructionFamily &F);

} // namespace reptx::ptx
