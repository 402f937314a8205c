// Private parts of the PTX frontend shared by the parser, the validator and the printer.
#pragma once

#include "reptx/frontend-ptx/InstructionTable.h"
#include "reptx/frontend-ptx/Parser.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"

#include <deque>
#include <vector>

namespace reptx::ptx {

StateSpace stateSpaceFromName(llvm::StringRef S);

/// StringRef::getAsInteger(Radix, uint64_t &) inline (radix 2 to 36; the parser converts every
/// literal and register number): true on error (no digits, a character that is not a digit of the
/// radix, overflow), and Out is left alone then.
inline bool parseUnsigned(llvm::StringRef S, unsigned Radix, uint64_t &Out) {
  if (S.empty())
    return true;
  uint64_t R = 0;
  for (char C : S) {
    unsigned D;
    if (C >= '0' && C <= '9')
      D = unsigned(C - '0');
    else if (C >= 'a' && C <= 'z')
      D = unsigned(C - 'a') + 10;
    else if (C >= 'A' && C <= 'Z')
      D = unsigned(C - 'A') + 10;
    else
      return true;
    if (D >= Radix || __builtin_mul_overflow(R, uint64_t(Radix), &R) ||
        __builtin_add_overflow(R, uint64_t(D), &R))
      return true;
  }
  Out = R;
  return false;
}
/// The same for a 32-bit result.
inline bool parseUnsigned(llvm::StringRef S, unsigned Radix, uint32_t &Out) {
  uint64_t X = 0;
  if (parseUnsigned(S, Radix, X) || X > UINT32_MAX)
    return true;
  Out = uint32_t(X);
  return false;
}
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
    struct Slot {
      char Kind;
      bool Optional;
    };
    llvm::SmallVector<Slot, 8> Slots; // the family's operand string, one slot per operand
  };
  /// Checks a spelling not seen before (the parser keeps the spellings it has seen).
  const Spelling *addSpelling(Symbol Opcode, llvm::ArrayRef<Symbol> Mods);
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
  /// The declaration of a name in scope (nullptr when it has none): a name bound to the
  /// parameter or outermost body scope is looked up once per function.
  const VarDecl *lookup(Symbol Name);
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
  // Names found in the parameter or outermost body scope, by symbol id: they stay visible for the
  // rest of the function, so later uses need no scope walk. Their declaration is the one in scope
  // as long as no nested block declares anything (InnerDecls == 0: nothing can shadow them) and
  // nothing is declared in those two scopes (a declaration there starts a new epoch).
  struct Binding {
    uint32_t Epoch = 0; // the BindEpoch it was bound in; 0: none
    uint32_t Decl = 0;  // LocalDecls index + 1; 0: a special register or WARP_SZ; Missing
  };
  // Bound to nothing in scope (a label, a global or an undeclared name): only while InnerDecls is
  // 0, since a nested block could declare it.
  static constexpr uint32_t Missing = UINT32_MAX;
  std::vector<Binding> Bindings;                       // by symbol id
  std::vector<const VarDecl *> LocalDecls;             // the bound declarations of this function
  llvm::DenseMap<const VarDecl *, uint32_t> DeclIndex; // LocalDecls index + 1 of each
  uint32_t BindEpoch = 0;
  size_t InnerDecls = 0; // declarations in the open blocks nested in the outermost body
  void bind(Symbol Name, uint32_t Decl) {
    uint32_t Id = Module::symbolId(Name);
    if (Id >= Bindings.size()) {
      size_t N = std::max<size_t>(Id + 1, Bindings.size() + Bindings.size() / 2);
      Bindings.reserve(N);
      Bindings.resize(N);
    }
    Bindings[Id] = {BindEpoch, Decl};
  }
  void bind(Symbol Name, const VarDecl *D) {
    // One entry per declaration: every register of a `%r<N>` range shares its entry.
    auto [It, New] = DeclIndex.try_emplace(D, uint32_t(LocalDecls.size() + 1));
    if (New)
      LocalDecls.push_back(D);
    bind(Name, It->second);
  }
  const Binding *bound(Symbol Name) const {
    uint32_t Id = Module::symbolId(Name);
    return Id < Bindings.size() && Bindings[Id].Epoch == BindEpoch ? &Bindings[Id] : nullptr;
  }
  const VarDecl *declOf(const Binding &B) const {
    return B.Decl ? LocalDecls[B.Decl - 1] : nullptr;
  }

public:
  /// Bytes of the validator's tables (for the parser's memory high-water mark).
  size_t memoryBytes() const;

private:
  std::deque<Spelling> Spellings;
};

/// Grows an open-addressing table (linear probing from Slot::Hash, power-of-two sizes) to
/// NewSize slots, moving every slot Used accepts. Returns the bytes of the old table, which was
/// live next to the new one while they were filled (for the memory high-water mark).
template <typename Slot, typename UsedFn>
size_t growOpenTable(std::vector<Slot> &Table, size_t NewSize, UsedFn Used) {
  std::vector<Slot> Old = std::move(Table);
  Table.assign(NewSize, Slot());
  size_t Mask = NewSize - 1;
  for (const Slot &E : Old)
    if (Used(E)) {
      size_t I = E.Hash & Mask;
      while (Used(Table[I]))
        I = (I + 1) & Mask;
      Table[I] = E;
    }
  return Old.capacity() * sizeof(Slot);
}

} // namespace reptx::ptx
