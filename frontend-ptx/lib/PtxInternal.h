// Private parts of the PTX frontend shared by the parser, the validator and the printer.
#pragma once

#include "reptx/frontend-ptx/InstructionTable.h"
#include "reptx/frontend-ptx/Parser.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"

#include <deque>

namespace reptx::ptx {

StateSpace stateSpaceFromName(llvm::StringRef S);
bool isTypeName(llvm::StringRef S);

/// Semantic checks done while parsing: names declared before use (with PTX's block scoping;
/// labels are function-wide; globals and functions module-wide) and instructions that match the
/// instruction table.
class Validator {
public:
  Validator(Module &M, std::vector<Diagnostic> &Errors, const ParseOptions &Opts)
      : M(M), Errors(Errors), Opts(Opts) {}

  void beginFunction(const Function &F);
  void endFunction();
  void pushScope();
  void popScope();
  void declareLocal(const VarDecl &D);
  void declareGlobal(const VarDecl &D);
  void declareFunction(const Function &F);
  void declarePrototype(const Prototype &P);
  void declareLabel(Symbol Name, uint32_t Offset);
  void useRegister(Symbol Name, uint32_t Offset) { useName(Name, Offset); }
  void useName(Symbol Name, uint32_t Offset);
  /// A distinct opcode spelling ("ld.global.v4.f32") with its split and the result of checking
  /// its modifiers against the instruction table.
  struct Spelling {
    Symbol Opcode;
    llvm::ArrayRef<Symbol> Mods;
    int Family = -1;
    std::string Error;       // empty when the modifiers are valid
    uint32_t ErrorDelta = 0; // offset of the error from the opcode
    uint32_t Index = 0;      // in the Module's spelling table
    // For checkOperands, worked out once per spelling: whether the family's operand string
    // describes this form, and the instruction type (for the width of memory-access values).
    bool CheckOperands = false;
    llvm::StringRef Type;
    unsigned TypeBits = 0;
  };
  const Spelling *spelling(Symbol Full) const {
    auto It = SpellingIndex.find(Full.data());
    return It == SpellingIndex.end() ? nullptr : &Spellings[It->second];
  }
  const Spelling *addSpelling(Symbol Full, Symbol Opcode, llvm::ArrayRef<Symbol> Mods);
  void checkInstruction(Instruction &I, const Spelling &S, uint32_t OpcodeOffset);
  void finishModule();

private:
  struct Range {
    llvm::StringRef Prefix;
    uint32_t Count;
    const VarDecl *D;
  };
  struct Scope {
    llvm::DenseMap<const char *, const VarDecl *> Names;
    llvm::SmallVector<Range, 8> Ranges;
  };
  struct Pending {
    Symbol Name;
    uint32_t Offset;
  };

  /// Scope index (0 = parameters) where Name is declared, or -1; Decl receives its declaration.
  int findScope(Symbol Name, const VarDecl **Decl = nullptr) const;
  /// Operand kinds and memory-access widths against the family's operand string.
  void checkOperands(const Instruction &I, const InstructionFamily &F, const Spelling &S);
  void error(uint32_t Offset, const llvm::Twine &Msg);

  Module &M;
  std::vector<Diagnostic> &Errors;
  const ParseOptions &Opts;
  std::vector<Scope> Scopes; // [0] = function parameters
  unsigned Depth = 0;        // scopes in use (vectors are reused between functions)
  bool InFunction = false;
  llvm::DenseMap<const char *, uint32_t> Labels;     // label -> offset, current function
  llvm::DenseMap<const char *, uint32_t> LabelBlock; // label -> serial of its { } block
  std::vector<uint32_t> BlockSerial;                 // per scope depth: serial of the open block
  uint32_t BlocksOpened = 0;
  std::vector<Range> GlobalRanges;      // module-scope %name<N> declarations
  std::vector<Pending> FunctionPending; // non-local names used in this function
  std::vector<Pending> ModulePending;   // names for module scope
  llvm::DenseSet<const char *> Globals; // variables, functions, prototypes
  // Names found in the parameter or outermost body scope: they stay visible for the rest of the
  // function, so later uses need no scope walk.
  llvm::DenseSet<const char *> FunctionWide;
  std::deque<Spelling> Spellings;
  llvm::DenseMap<const char *, unsigned> SpellingIndex;
};

} // namespace reptx::ptx
