// The PTX abstract syntax tree. Nodes live in the Module's arena and are never freed one by one;
// names are interned in the Module (equal names share one Symbol), and every node records the byte
// offset of its first token, from which the Module computes file:line:col on demand.
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Allocator.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace reptx::ptx {

/// An interned name: a register, variable, function, label or string literal contents.
using Symbol = llvm::StringRef;

/// Opcode and modifier spellings are interned too; an instruction keeps them as written, in the
/// order written (ptxas accepts non-canonical order).
struct Loc {
  uint32_t Offset = 0;
};

enum class StateSpace : uint8_t {
  None,
  Reg,
  SReg,
  Const,
  Global,
  Local,
  Param,
  Shared,
  Tex,
  Surf,
  Sampler,
};
llvm::StringRef stateSpaceName(StateSpace S); // ".global", "" for None

/// A type as written: ".u32", ".f16x2", ".pred", ".texref"... (interned).
using TypeName = llvm::StringRef;

// ---------------------------------------------------------------- expressions and operands

struct Expr; // constant expressions in initializers and array sizes

struct Operand {
  enum Kind : uint8_t {
    Name,    // register, special register, variable, function, label: Sym
    Int,     // integer literal: IntValue (two's complement, 64 bits)
    Float,   // 0fXXXXXXXX / 0dXXXXXXXXXXXXXXXX or decimal: FloatBits, IsDouble
    Sink,    // _
    Vector,  // {a, b, c}: Elems
    Address, // [base+offset] or [a, {b}] (textures): Elems[0] base (may be absent), IntValue
    List,    // (a, b) in call: Elems
    Pair,    // %r|%p dual destination: Elems[0], Elems[1]
    ExprOp,  // a constant expression operand: E
  };
  Kind K = Name;
  bool Negated = false; // !%p
  bool Minus = false;   // -%r (negated source in some forms)
  Loc L; // while parsing: where the operand starts; decoded from a Module: its instruction's
  Symbol Sym;
  int64_t IntValue = 0;
  uint64_t FloatBits = 0;
  bool IsDouble = false;
  bool Unsigned = false; // integer literal with U suffix
  llvm::ArrayRef<Operand> Elems;
  const Expr *E = nullptr;
  // For Name operands: "%r1.x" component selectors on vector registers.
  Symbol Component;
};

struct Expr {
  enum Kind : uint8_t { Int, Float, Name, Unary, Binary, Generic, Braces, Cond };
  Kind K = Int;
  Loc L;
  char Op = 0; // '+', '-', '*', '/', '%', '&', '|', '^', '<' (<<), '>' (>>), '~', '!'
  int64_t IntValue = 0;
  uint64_t FloatBits = 0;
  bool IsDouble = false;
  Symbol Sym;
  llvm::ArrayRef<const Expr *> Args; // operands / brace elements / generic(name)
};

// ---------------------------------------------------------------- declarations

enum Linkage : uint8_t {
  LinkNone = 0,
  LinkVisible = 1,
  LinkExtern = 2,
  LinkWeak = 4,
  LinkCommon = 8
};

/// `.reg .b32 %r<100>;`, `.shared .align 16 .b8 smem[1024];`, `.global .u32 g = 5;`,
/// `.param .u64 .ptr .global .align 8 p`.
struct VarDecl {
  Loc L;
  uint8_t Linkage = LinkNone;
  StateSpace Space = StateSpace::None;
  uint32_t Align = 0;      // 0: none written
  uint8_t VectorWidth = 0; // .v2/.v4/.v8: 2/4/8
  TypeName Type;
  Symbol Name;
  uint32_t RangeCount = 0;           // %r<100>: 100 (declares %r0..%r99)
  llvm::ArrayRef<const Expr *> Dims; // [N][M]; a null entry is [] (size from initializer)
  const Expr *Init = nullptr;        // = value / = {...}
  // .param .ptr attributes
  bool IsPtr = false;
  StateSpace PtrSpace = StateSpace::None;
  uint32_t PtrAlign = 0;
  llvm::ArrayRef<TypeName> Attributes; // other qualifiers: .attribute(.managed), .unified...

  /// The names it declares: its own, or name0..nameN-1 for `name<N>` (PTX ISA 5.4.7,
  /// "Parameterized Variable Names", in any state space).
  std::vector<std::string> declaredNames() const {
    std::vector<std::string> Names;
    if (!RangeCount)
      Names.push_back(Name.str());
    for (uint32_t K = 0; K < RangeCount; ++K)
      Names.push_back(Name.str() + std::to_string(K));
    return Names;
  }
};

/// An instruction as consumers see it: decoded from the compact Statement by Module::decode or
/// Module::instruction (the tree itself keeps instructions inline in their Statement and operands
/// in an 8-byte-per-node stream). Ops and their elements live in Storage, so an Instruction can be
/// moved but not copied.
struct Instruction {
  Loc L;
  Symbol Guard; // predicate register; empty when unguarded
  bool GuardNegated = false;
  Symbol Opcode;               // "ld"
  llvm::ArrayRef<Symbol> Mods; // ".global", ".v4", ".f32" (as written, in order)
  llvm::ArrayRef<Operand> Ops;
  uint16_t Family = 0;          // index into the instruction table
  std::vector<Operand> Storage; // backing store of Ops and their elements (decoded instructions)

  Instruction() = default;
  Instruction(Instruction &&) = default;
  Instruction &operator=(Instruction &&) = default;
  Instruction(const Instruction &) = delete;
  Instruction &operator=(const Instruction &) = delete;
};

struct Block;

/// A directive that appears inside a body or at module scope and that the tree keeps verbatim:
/// .loc, .pragma, .file, .section (DWARF), .maxnreg inside bodies, and so on.
struct RawDirective {
  Loc L;
  Symbol Name;          // ".loc"
  llvm::StringRef Text; // the directive's text up to (not including) its terminator
};

/// One 32-bit word of an instruction's operand stream (private to the Module's encoding).
struct OpNode;

/// A statement of a body, 16 bytes. An instruction is stored inline: its spelling (opcode and
/// modifiers, one entry per distinct spelling in the Module) and a stream of 32-bit words in the
/// arena holding its operand count, its guard and its operands in pre-order (null for an
/// instruction with neither); Module::decode gives the Instruction view.
struct Statement {
  enum Kind : uint8_t { Instr, Decl, Label, Scope, Directive };
  Loc L;
  Kind K : 3;
  uint32_t Sym : 29; // Instr: spelling index (Module::spelling); Label: name (symbol id)
  union {
    const OpNode *Ops; // Instr
    const VarDecl *D;
    const Block *B;
    const RawDirective *R;
  };
  Statement() : K(Instr), Sym(0), Ops(nullptr) {}
};
static_assert(sizeof(Statement) == 16);

/// The statements of a block, in chunks of ChunkSize statements in the Module's arena (the parser
/// writes each statement where it stays; a block's last chunk is cut to its size).
class StatementList {
public:
  static constexpr unsigned ChunkBits = 4, ChunkSize = 1u << ChunkBits;
  StatementList() = default;
  StatementList(const Statement *const *Chunks, uint32_t Count) : Chunks(Chunks), Count(Count) {}
  size_t size() const { return Count; }
  bool empty() const { return Count == 0; }
  const Statement &operator[](size_t I) const {
    return Chunks[I >> ChunkBits][I & (ChunkSize - 1)];
  }
  class iterator {
  public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = Statement;
    using difference_type = std::ptrdiff_t;
    using pointer = const Statement *;
    using reference = const Statement &;
    iterator(const Statement *const *Chunks, uint32_t I) : Chunks(Chunks), I(I) {}
    reference operator*() const { return Chunks[I >> ChunkBits][I & (ChunkSize - 1)]; }
    pointer operator->() const { return &**this; }
    iterator &operator++() {
      ++I;
      return *this;
    }
    bool operator==(const iterator &O) const { return I == O.I; }
    bool operator!=(const iterator &O) const { return I != O.I; }

  private:
    const Statement *const *Chunks;
    uint32_t I;
  };
  iterator begin() const { return {Chunks, 0}; }
  iterator end() const { return {Chunks, Count}; }

private:
  const Statement *const *Chunks = nullptr;
  uint32_t Count = 0;
};

/// A `{ ... }` scope: its own declarations, labels and statements.
struct Block {
  Loc L;
  StatementList Body;
};

struct Param {
  VarDecl Var;
};

struct Function {
  Loc L;
  uint8_t Linkage = LinkNone;
  bool IsEntry = false;
  bool NoReturn = false;
  Symbol Name;
  llvm::ArrayRef<VarDecl> Returns;
  llvm::ArrayRef<VarDecl> Params;
  // Performance directives.
  uint32_t MaxNTid[3] = {0, 0, 0};
  uint32_t ReqNTid[3] = {0, 0, 0};
  uint32_t MinNCtaPerSm = 0;
  uint32_t MaxNReg = 0;
  uint32_t MaxClusterRank = 0;
  uint32_t ReqNCtaPerCluster[3] = {0, 0, 0};
  bool ExplicitCluster = false;
  bool BlocksAreClusters = false;
  llvm::ArrayRef<const RawDirective *> Pragmas; // .pragma before the body
  const Block *Body = nullptr;                  // null: declaration only
};

/// `.callprototype` declarations live inside bodies as labels: `proto: .callprototype ...;`
struct Prototype {
  Loc L;
  Symbol Name;
  llvm::ArrayRef<VarDecl> Returns;
  llvm::ArrayRef<VarDecl> Params;
  bool NoReturn = false;
};

struct TopLevel {
  enum Kind : uint8_t { Func, Var, Directive, Alias };
  Kind K = Func;
  const Function *F = nullptr;
  const VarDecl *V = nullptr;
  const RawDirective *R = nullptr;
  Symbol AliasName, AliasTarget; // .alias a, b;
};

/// A parsed PTX module. Owns the source text and all nodes.
class Module {
public:
  explicit Module(std::string Name, std::string Source);
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;

  llvm::StringRef name() const { return Name; }
  llvm::StringRef source() const { return Source; }

  // .version, .target, .address_size
  uint32_t VersionMajor = 0, VersionMinor = 0;
  llvm::SmallVector<Symbol, 2> Targets; // "sm_80", "texmode_independent", "debug"...
  uint32_t AddressSize = 0;             // 0: not written
  std::vector<TopLevel> Items;
  std::vector<const Prototype *> Prototypes;

  /// A distinct opcode spelling ("ld.global.v4.f32"): its opcode, modifiers and family.
  struct SpellingInfo {
    Symbol Opcode;
    llvm::ArrayRef<Symbol> Mods;
    int Family = -1; // -1: not in the instruction table
  };
  const SpellingInfo &spelling(uint32_t Index) const { return Spellings[Index]; }
  uint32_t addSpelling(Symbol Opcode, llvm::ArrayRef<Symbol> Mods, int Family) {
    Spellings.push_back({Opcode, Mods, Family});
    return uint32_t(Spellings.size() - 1);
  }
  /// The instruction-table family of an instruction statement (0 when unknown).
  uint16_t family(const Statement &S) const {
    int F = Spellings[S.Sym].Family;
    return F < 0 ? 0 : uint16_t(F);
  }
  /// The name of a label statement.
  Symbol label(const Statement &S) const { return symbol(S.Sym); }
  /// Decodes an instruction statement into Out (reusing Out's storage).
  void decode(const Statement &S, Instruction &Out) const;
  Instruction instruction(const Statement &S) const {
    Instruction I;
    decode(S, I);
    return I;
  }

  /// Every byte the module owns: source, arena, intern and side tables.
  size_t memoryBytes() const;

  /// 1-based line and column of a location. Thread-safe, as is every const member.
  std::pair<unsigned, unsigned> lineCol(Loc L) const;
  llvm::StringRef lineText(Loc L) const;

  // Arena allocation used by the parser.
  llvm::BumpPtrAllocator &arena() { return Arena; }
  Symbol intern(llvm::StringRef S);
  /// The symbol with id Id, and the id of an interned symbol (stored just before its bytes).
  Symbol symbol(uint32_t Id) const {
    const char *P = SymbolsById[Id];
    uint32_t Size;
    std::memcpy(&Size, P - 4, 4);
    return Symbol(P, Size);
  }
  static uint32_t symbolId(Symbol S) {
    uint32_t Id;
    std::memcpy(&Id, S.data() - 8, 4);
    return Id;
  }
  /// Called once parsing is done: records the final memory as a candidate peak.
  void finishParse();
  /// The high-water mark of memoryBytes() during the parse, with the parser's own scratch memory
  /// (token caches, the statements of the open blocks, validator tables) and the transient copies
  /// of growing tables; kept by the parser at the points where memory peaks.
  size_t peakBytes() const { return PeakBytes; }
  /// Records the current memory as a candidate peak: memoryBytes(), the parser's scratch as last
  /// reported (setParserBytes) and Extra (a buffer about to be released).
  void notePeak(size_t Extra = 0) {
    PeakBytes = std::max(PeakBytes, memoryBytes() + ParserBytes + Extra);
  }
  void setParserBytes(size_t N) { ParserBytes = N; }
  /// Stores an instruction's guard and operands (parsed, validated) as its operand stream.
  const OpNode *encodeOperands(const Instruction &I);

  template <typename T> llvm::ArrayRef<T> copy(llvm::ArrayRef<T> A) {
    if (A.empty())
      return {};
    T *P = Arena.Allocate<T>(A.size());
    std::uninitialized_copy(A.begin(), A.end(), P);
    return {P, A.size()};
  }
  template <typename T, typename... Args> T *make(Args &&...As) {
    return new (Arena.Allocate<T>()) T(std::forward<Args>(As)...);
  }
  size_t arenaBytes() const { return Arena.getTotalMemory(); }

private:
  std::string Name;
  std::string Source;
  llvm::BumpPtrAllocator Arena;
  // Open-addressing table of interned names (32 bits of the hash stored, so a probe compares
  // bytes only on a likely match); its strings live in Arena as [id][size][bytes][NUL].
  // Interning is the parser's hottest operation.
  struct InternSlot {
    uint32_t Hash;
    uint32_t IdPlus1; // 0: empty
  };
  std::vector<InternSlot> InternTable;
  size_t InternCount = 0;
  std::vector<const char *> SymbolsById;
  std::vector<SpellingInfo> Spellings;
  mutable std::vector<uint32_t> LineStarts; // built by the first lineCol (LinesOnce)
  mutable std::once_flag LinesOnce;
  size_t PeakBytes = 0, ParserBytes = 0;
};

} // namespace reptx::ptx
