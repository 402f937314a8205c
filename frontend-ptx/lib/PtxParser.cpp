// The PTX recursive-descent parser (PTX ISA manual §4-§11 for the grammar). It builds the arena
// AST of Ast.h, reports errors with locations and recovers at the next statement, so a file's
// errors all come out in one run. Instruction validation against the instruction table happens
// in PtxValidate.cpp once an instruction is built.
#include "PtxInternal.h"
#include "PtxLexer.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FormatVariadic.h"

#include "llvm/Support/SaveAndRestore.h"
#include "llvm/Support/SwapByteOrder.h"
// Inlined: names and spellings are short, a call into the library costs as much as the hash.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>

namespace reptx::ptx {

llvm::StringRef stateSpaceName(StateSpace S) {
  switch (S) {
  case StateSpace::None:
    return "";
  case StateSpace::Reg:
    return ".reg";
  case StateSpace::SReg:
    return ".sreg";
  case StateSpace::Const:
    return ".const";
  case StateSpace::Global:
    return ".global";
  case StateSpace::Local:
    return ".local";
  case StateSpace::Param:
    return ".param";
  case StateSpace::Shared:
    return ".shared";
  case StateSpace::Tex:
    return ".tex";
  case StateSpace::Surf:
    return ".surf";
  case StateSpace::Sampler:
    return ".sampler";
  }
  return "";
}

StateSpace stateSpaceFromName(llvm::StringRef S) {
  if (S.size() < 4 || S[0] != '.')
    return StateSpace::None;
  switch (S[1]) {
  case 'r':
    return S == ".reg" ? StateSpace::Reg : StateSpace::None;
  case 's':
    return S == ".shared"    ? StateSpace::Shared
           : S == ".sreg"    ? StateSpace::SReg
           : S == ".surf"    ? StateSpace::Surf
           : S == ".sampler" ? StateSpace::Sampler
                             : StateSpace::None;
  case 'c':
    return S == ".const" ? StateSpace::Const : StateSpace::None;
  case 'g':
    return S == ".global" ? StateSpace::Global : StateSpace::None;
  case 'l':
    return S == ".local" ? StateSpace::Local : StateSpace::None;
  case 'p':
    return S == ".param" ? StateSpace::Param : StateSpace::None;
  case 't':
    return S == ".tex" ? StateSpace::Tex : StateSpace::None;
  default:
    return StateSpace::None;
  }
}

bool isTypeName(llvm::StringRef S) {
  static const llvm::StringRef Types[] = {
      ".b8",      ".b16",    ".b32",        ".b64",     ".b128",   ".u8",     ".u16",    ".u32",
      ".u64",     ".s8",     ".s16",        ".s32",     ".s64",    ".f16",    ".f16x2",  ".f32",
      ".f64",     ".bf16",   ".bf16x2",     ".tf32",    ".pred",   ".e4m3",   ".e5m2",   ".e4m3x2",
      ".e5m2x2",  ".e2m3",   ".e3m2",       ".e2m1",    ".e2m3x2", ".e3m2x2", ".e2m1x2", ".ue8m0",
      ".ue8m0x2", ".texref", ".samplerref", ".surfref", ".s2f6x2", ".u128",   ".s128",   ".f128"};
  for (llvm::StringRef T : Types)
    if (S == T)
      return true;
  return false;
}

namespace {

class Parser {
public:
  Parser(Module &M, std::vector<Diagnostic> &Errors, const ParseOptions &Opts)
      : M(M), Errors(Errors), Opts(Opts), Lex(M.source()) {
    Lex.next(Cur);
    Lex.next(Ahead);
  }

  void parseModule() {
    while (Cur.K != Tok::Eof && !tooManyErrors()) {
      uint32_t Start = Cur.Offset;
      if (!parseTopLevel())
        recoverTopLevel();
      if (Cur.Offset == Start && Cur.K != Tok::Eof)
        advance(); // guarantee progress
    }
  }

private:
  Module &M;
  std::vector<Diagnostic> &Errors;
  const ParseOptions &Opts;

public:
  Validator V{M, Errors, Opts};

private:
  Lexer Lex;
  Token Cur, Ahead;
  unsigned BraceDepth = 0;
  // Parameters of a .callprototype may be named '_' (nvcc writes `(.param .b32 _)`).
  bool InPrototype = false;
  // Nesting of blocks, initializer braces, expressions (each operator of a chain counts: the tree
  // is as deep as the chain is long) and operands. The parser, the printer and equivalent() recurse
  // over these, so deeper input is an error rather than a stack overflow.
  static constexpr unsigned MaxNesting = 256;
  unsigned Nesting = 0;
  // Operand elements of the instruction being parsed: they live until it is encoded.
  llvm::BumpPtrAllocator Scratch;
  llvm::DenseMap<uint64_t, const Expr *> IntLeaves; // shared integer leaves of expressions

  // Names of up to 16 bytes (registers, components, labels) are looked up in a direct-mapped
  // cache keyed by their bytes before the Module's intern table: no hashing of the text, no string
  // compare.
  struct CachedName {
    uint64_t Key[2] = {0, 0}; // the name's bytes, zero-padded (names contain no NUL); 0: empty
    Symbol Sym;
  };
  // Sized from the input (about one entry per 512 bytes, 64 to 2048 entries): a small module
  // has few names, and the cache is part of the parser's peak memory.
  unsigned NameCacheBits =
      std::clamp(unsigned(llvm::Log2_64_Ceil(M.source().size() / 512 + 1)), 6u, 11u);
  std::unique_ptr<CachedName[]> NameCache{new CachedName[size_t(1) << NameCacheBits]};
  Symbol name(llvm::StringRef S) {
    if (S.empty() || S.size() > 16)
      return M.intern(S);
    uint64_t Key[2] = {0, 0};
    if (llvm::sys::IsLittleEndianHost && S.data() + 16 <= M.source().end()) {
      std::memcpy(Key, S.data(), 16);
      if (S.size() <= 8) {
        if (S.size() < 8)
          Key[0] &= (uint64_t(1) << (8 * S.size())) - 1;
        Key[1] = 0;
      } else if (S.size() < 16) {
        Key[1] &= (uint64_t(1) << (8 * (S.size() - 8))) - 1;
      }
    } else {
      std::memcpy(Key, S.data(), S.size());
    }
    uint64_t H = (Key[0] ^ (Key[1] * 0xC2B2AE3D27D4EB4FULL)) * 0x9E3779B97F4A7C15ULL;
    CachedName &C = NameCache[H >> (64 - NameCacheBits)];
    if (C.Key[0] != Key[0] || C.Key[1] != Key[1]) {
      C.Key[0] = Key[0];
      C.Key[1] = Key[1];
      C.Sym = M.intern(S);
    }
    return C.Sym;
  }
  // The chunks of the open blocks' statements (StatementList), innermost block's last; BlockCount
  // statements of the innermost block are written. When a block closes, its partly filled last
  // chunk is copied to an allocation of its exact size and kept in FreeChunks for the next block.
  std::vector<Statement *> Chunks, FreeChunks;
  uint32_t BlockCount = 0;
  void push(const Statement &S) {
    unsigned I = BlockCount & (StatementList::ChunkSize - 1);
    if (I == 0) {
      if (FreeChunks.empty()) {
        Chunks.push_back(M.arena().Allocate<Statement>(StatementList::ChunkSize));
      } else {
        Chunks.push_back(FreeChunks.back());
        FreeChunks.pop_back();
      }
    }
    new (&Chunks.back()[I]) Statement(S);
    ++BlockCount;
  }

public:
  /// Bytes of the parser's scratch memory (for the module's high-water mark).
  size_t scratchBytes() const {
    size_t BodyBytes = (Chunks.capacity() + FreeChunks.capacity()) * sizeof(Statement *);
    return Scratch.getTotalMemory() + IntLeaves.getMemorySize() +
           (size_t(1) << NameCacheBits) * sizeof(CachedName) +
           SpellingTable.capacity() * sizeof(SpellingSlot) + BodyBytes + V.memoryBytes();
  }

private:
  // Distinct spellings ("ld.global.v4.f32") by their text, which is looked up here straight from
  // the source (not interned): its first occurrence in the source is the key.
  struct SpellingSlot {
    uint32_t Hash = 0;
    uint32_t Size = 0;
    const char *Text = nullptr; // nullptr: empty
    const Validator::Spelling *Sp = nullptr;
  };
  std::vector<SpellingSlot> SpellingTable = std::vector<SpellingSlot>(64);
  size_t SpellingCount = 0;
  /// Whether N bytes of the source at A and B are the same, 8 at a time.
  static bool sameText(const char *A, const char *B, size_t N) {
    for (; N >= 8; A += 8, B += 8, N -= 8) {
      uint64_t X, Y;
      std::memcpy(&X, A, 8);
      std::memcpy(&Y, B, 8);
      if (X != Y)
        return false;
    }
    for (size_t I = 0; I < N; ++I)
      if (A[I] != B[I])
        return false;
    return true;
  }
  /// The spelling's slot in SpellingTable; its Sp is null for a spelling not seen before.
  const Validator::Spelling *&spellingSlot(llvm::StringRef S) {
    if ((SpellingCount + 1) * 2 > SpellingTable.size())
      growOpenTable(SpellingTable, SpellingTable.size() * 2,
                    [](const SpellingSlot &E) { return E.Text != nullptr; });
    uint32_t H = uint32_t(XXH3_64bits(S.data(), S.size()));
    size_t Mask = SpellingTable.size() - 1;
    for (size_t I = H & Mask;; I = (I + 1) & Mask) {
      SpellingSlot &E = SpellingTable[I];
      if (!E.Text) {
        E = {H, uint32_t(S.size()), S.data(), nullptr};
        ++SpellingCount;
        return E.Sp;
      }
      if (E.Hash == H && E.Size == S.size() && sameText(E.Text, S.data(), S.size()))
        return E.Sp;
    }
  }
  llvm::ArrayRef<Operand> scratchCopy(llvm::ArrayRef<Operand> A) {
    if (A.empty())
      return {};
    Operand *P = Scratch.Allocate<Operand>(A.size());
    std::uninitialized_copy(A.begin(), A.end(), P);
    return {P, A.size()};
  }

  // ---------------------------------------------------------------- tokens

  void advance() {
    Cur = Ahead;
    Lex.next(Ahead);
  }
  bool tooManyErrors() const { return Errors.size() >= Opts.MaxErrors; }

  void error(uint32_t Offset, const llvm::Twine &Msg) {
    if (!tooManyErrors())
      Errors.push_back({Loc{Offset}, Msg.str()});
  }
  void error(const llvm::Twine &Msg) { error(Cur.Offset, Msg); }

  std::string describe(const Token &T) const {
    switch (T.K) {
    case Tok::Eof:
      return "end of file";
    case Tok::Error:
      // The lexer turns malformed literals into error tokens; name what they were meant to be.
      if (T.Text.starts_with("\""))
        return ("unterminated string " + T.Text).str();
      if (T.Text.size() > 1 && T.Text[0] == '0' && llvm::StringRef("fFdD").contains(T.Text[1]))
        return ("invalid floating-point literal '" + T.Text + "'").str();
      if (!T.Text.empty() && T.Text[0] >= '0' && T.Text[0] <= '9')
        return ("invalid integer literal '" + T.Text + "'").str();
      return ("invalid token '" + T.Text + "'").str();
    default:
      return ("'" + T.Text + "'").str();
    }
  }

  bool accept(char C) {
    if (Cur.is(C)) {
      advance();
      return true;
    }
    return false;
  }
  bool expect(char C, llvm::StringRef What = "") {
    if (accept(C))
      return true;
    error(llvm::formatv("expected '{0}'{1}{2}, found {3}", C, What.empty() ? "" : " ", What,
                        describe(Cur)));
    return false;
  }
  bool isDot(llvm::StringRef S) const { return Cur.K == Tok::Dot && Cur.Text == S; }
  /// Enters one more nesting level (the caller restores Nesting with a SaveAndRestore).
  bool deeper() {
    if (++Nesting <= MaxNesting)
      return true;
    error(llvm::formatv("nested more than {0} levels deep", MaxNesting));
    return false;
  }

  /// Skips to just after the next ';' at the current brace depth, or to a '}' closing it.
  void recoverStatement() {
    unsigned Depth = 0;
    while (Cur.K != Tok::Eof) {
      if (Cur.is('{'))
        ++Depth;
      else if (Cur.is('}')) {
        if (Depth == 0)
          return;
        --Depth;
      } else if (Cur.is(';') && Depth == 0) {
        advance();
        return;
      }
      advance();
    }
  }
  void recoverTopLevel() {
    // Skip to the next module-level directive at brace depth 0.
    unsigned Depth = 0;
    while (Cur.K != Tok::Eof) {
      if (Cur.is('{'))
        ++Depth;
      else if (Cur.is('}')) {
        if (Depth > 0)
          --Depth;
        advance();
        if (Depth == 0)
          return;
        continue;
      } else if (Depth == 0 && Cur.is(';')) {
        advance();
        return;
      }
      advance();
    }
  }

  // ---------------------------------------------------------------- literals

  bool intValue(const Token &T, int64_t &V, bool *Unsigned = nullptr) {
    llvm::StringRef S = T.Text;
    bool U = false;
    if (S.ends_with("U") || S.ends_with("u")) {
      U = true;
      S = S.drop_back();
    }
    unsigned Radix = 10;
    if (S.starts_with_insensitive("0x")) {
      Radix = 16;
      S = S.drop_front(2);
    } else if (S.starts_with_insensitive("0b")) {
      Radix = 2;
      S = S.drop_front(2);
    } else if (S.size() > 1 && S[0] == '0') {
      Radix = 8;
      S = S.drop_front(1);
    }
    uint64_t X = 0;
    if (parseUnsigned(S, Radix, X)) {
      error(T.Offset, "invalid integer literal '" + T.Text + "'");
      return false;
    }
    V = int64_t(X);
    if (Unsigned)
      *Unsigned = U;
    return true;
  }

  bool floatValue(const Token &T, uint64_t &Bits, bool &IsDouble) {
    llvm::StringRef S = T.Text;
    if (S.size() > 2 && S[0] == '0' && (S[1] == 'f' || S[1] == 'F' || S[1] == 'd' || S[1] == 'D')) {
      IsDouble = S[1] == 'd' || S[1] == 'D';
      return !parseUnsigned(S.drop_front(2), 16, Bits);
    }
    double D = 0;
    if (S.getAsDouble(D, /*AllowInexact=*/true)) {
      error(T.Offset, "invalid floating-point literal '" + T.Text + "'");
      return false;
    }
    IsDouble = true;
    std::memcpy(&Bits, &D, 8);
    return true;
  }

  bool parseUInt(uint32_t &Out, llvm::StringRef What) {
    if (Cur.K != Tok::Int) {
      error(llvm::formatv("expected {0}, found {1}", What, describe(Cur)));
      return false;
    }
    int64_t V = 0;
    if (!intValue(Cur, V))
      return false;
    if (V < 0 || V > int64_t(UINT32_MAX)) {
      error(llvm::formatv("{0} {1} is out of range", What, Cur.Text));
      return false;
    }
    Out = uint32_t(V);
    advance();
    return true;
  }

  // ---------------------------------------------------------------- module level

  bool parseTopLevel() {
    if (Cur.K != Tok::Dot) {
      error("expected a directive at module scope, found " + describe(Cur));
      return false;
    }
    llvm::StringRef D = Cur.Text;
    if (D == ".version")
      return parseVersion();
    if (D == ".target")
      return parseTarget();
    if (D == ".address_size") {
      advance();
      uint32_t N = 0, NOff = Cur.Offset;
      if (!parseUInt(N, "address size"))
        return false;
      if (N != 32 && N != 64)
        error(NOff, "address size must be 32 or 64");
      M.AddressSize = N;
      return true;
    }
    if (D == ".file" || D == ".loc") {
      TopLevel T;
      T.K = TopLevel::Directive;
      T.R = rawToEndOfLine();
      M.Items.push_back(T);
      return true;
    }
    if (D == ".section")
      return parseSection();
    if (D == ".pragma") {
      TopLevel T;
      T.K = TopLevel::Directive;
      T.R = parsePragma();
      if (!T.R)
        return false;
      M.Items.push_back(T);
      return true;
    }
    if (D == ".alias")
      return parseAlias();
    uint32_t Start = Cur.Offset;
    uint8_t Link = parseLinkage();
    if (isDot(".entry") || isDot(".func"))
      return parseFunction(Start, Link);
    if (Cur.K == Tok::Dot) {
      llvm::SmallVector<VarDecl, 1> Vars;
      if (!parseVarDecl(Start, Link, Vars, /*InFunction=*/false))
        return false;
      for (VarDecl &VD : Vars) {
        TopLevel T;
        T.K = TopLevel::Var;
        T.V = M.make<VarDecl>(VD);
        M.Items.push_back(T);
        V.declareGlobal(*T.V);
      }
      return expect(';', "after a declaration");
    }
    error("expected a declaration after linkage, found " + describe(Cur));
    return false;
  }

  bool parseVersion() {
    uint32_t Off = Cur.Offset;
    advance();
    if (Cur.K != Tok::Float) {
      error("expected a version number like 9.0, found " + describe(Cur));
      return false;
    }
    auto [Maj, Min] = Cur.Text.split('.');
    if (Maj.getAsInteger(10, M.VersionMajor) || Min.getAsInteger(10, M.VersionMinor) ||
        Min.empty()) {
      error("invalid version '" + Cur.Text + "'");
      return false;
    }
    if (M.VersionMajor > 9 || (M.VersionMajor == 9 && M.VersionMinor > 1) || M.VersionMajor < 1)
      error(Off, llvm::formatv("unsupported PTX ISA version {0}.{1} (reptx reads 1.0 to 9.1)",
                               M.VersionMajor, M.VersionMinor));
    advance();
    return true;
  }

  bool parseTarget() {
    advance();
    do {
      if (Cur.K != Tok::Ident) {
        error("expected a target name, found " + describe(Cur));
        return false;
      }
      llvm::StringRef T = Cur.Text;
      bool Known = T == "texmode_unified" || T == "texmode_independent" || T == "debug" ||
                   T == "map_f64_to_f32";
      if (!Known && T.starts_with("sm_")) {
        llvm::StringRef N = T.drop_front(3);
        if (N.ends_with("a") || N.ends_with("f"))
          N = N.drop_back();
        unsigned X;
        Known = !N.getAsInteger(10, X);
      } else if (!Known && T.starts_with("compute_")) {
        unsigned X;
        Known = !T.drop_front(8).rtrim("af").getAsInteger(10, X);
      }
      if (!Known)
        error("unknown target '" + T + "'");
      M.Targets.push_back(M.intern(T));
      advance();
    } while (accept(','));
    return true;
  }

  const RawDirective *rawToEndOfLine() {
    uint32_t Start = Cur.Offset;
    Symbol Name = M.intern(Cur.Text);
    Lex.reset(Cur.Offset + Cur.Text.size());
    Lex.skipLine();
    uint32_t End = Lex.offset();
    Lex.next(Cur);
    Lex.next(Ahead);
    auto *R = M.make<RawDirective>();
    R->L = {Start};
    R->Name = Name;
    R->Text = M.source().slice(Start, End).rtrim();
    return R;
  }

  const RawDirective *parsePragma() {
    // The text ends with the last string, not at the ';': a comment before the ';' would
    // swallow the ';' that the printer appends.
    uint32_t Start = Cur.Offset, End = Start;
    advance();
    do {
      if (Cur.K != Tok::String) {
        error("expected a string after .pragma, found " + describe(Cur));
        return nullptr;
      }
      End = Cur.Offset + uint32_t(Cur.Text.size());
      advance();
    } while (accept(','));
    if (!expect(';', "after .pragma"))
      return nullptr;
    auto *R = M.make<RawDirective>();
    R->L = {Start};
    R->Name = M.intern(".pragma");
    R->Text = M.source().slice(Start, End).rtrim();
    return R;
  }

  bool parseSection() {
    uint32_t Start = Cur.Offset;
    advance();
    if (Cur.K != Tok::Dot && Cur.K != Tok::Ident) {
      error("expected a section name after .section, found " + describe(Cur));
      return false;
    }
    advance();
    if (!expect('{', "to open the section"))
      return false;
    unsigned Depth = 1;
    while (Cur.K != Tok::Eof && Depth) {
      if (Cur.is('{'))
        ++Depth;
      else if (Cur.is('}'))
        --Depth;
      if (Depth)
        advance();
    }
    if (Depth) {
      error(Start, "unterminated .section: missing '}'");
      return false;
    }
    uint32_t End = Cur.Offset + 1;
    advance();
    auto *R = M.make<RawDirective>();
    R->L = {Start};
    R->Name = M.intern(".section");
    R->Text = M.source().slice(Start, End);
    TopLevel T;
    T.K = TopLevel::Directive;
    T.R = R;
    M.Items.push_back(T);
    return true;
  }

  bool parseAlias() {
    advance();
    if (Cur.K != Tok::Ident) {
      error("expected a function name after .alias, found " + describe(Cur));
      return false;
    }
    TopLevel T;
    T.K = TopLevel::Alias;
    T.AliasName = M.intern(Cur.Text);
    advance();
    if (!expect(','))
      return false;
    if (Cur.K != Tok::Ident) {
      error("expected the aliased function name, found " + describe(Cur));
      return false;
    }
    T.AliasTarget = M.intern(Cur.Text);
    advance();
    expect(';', "after .alias");
    M.Items.push_back(T);
    return true;
  }

  uint8_t parseLinkage() {
    uint8_t L = LinkNone;
    while (Cur.K == Tok::Dot) {
      if (Cur.Text == ".visible")
        L |= LinkVisible;
      else if (Cur.Text == ".extern")
        L |= LinkExtern;
      else if (Cur.Text == ".weak")
        L |= LinkWeak;
      else if (Cur.Text == ".common")
        L |= LinkCommon;
      else
        break;
      advance();
    }
    return L;
  }

  // ---------------------------------------------------------------- declarations

  /// Parses `[space] [.align N] [.vN] type [.ptr ...] name[<N>][dims][= init] {, name...}`;
  /// the state space may be absent only for parameters of old-style .func lists.
  bool parseVarDecl(uint32_t Start, uint8_t Link, llvm::SmallVectorImpl<VarDecl> &Out,
                    bool InFunction, bool AllowMany = true) {
    VarDecl Base;
    Base.L = {Start};
    Base.Linkage = Link;
    llvm::SmallVector<TypeName, 2> Attrs;
    bool SawPtr = false;
    while (Cur.K == Tok::Dot) {
      llvm::StringRef D = Cur.Text;
      StateSpace S = stateSpaceFromName(D);
      if (S != StateSpace::None) {
        if (SawPtr)
          Base.PtrSpace = S;
        else if (Base.Space != StateSpace::None) {
          error(llvm::formatv("more than one state space in a declaration ('{0}' after '{1}')", D,
                              stateSpaceName(Base.Space)));
          return false;
        } else
          Base.Space = S;
        advance();
      } else if (D == ".align") {
        advance();
        uint32_t A = 0, AOff = Cur.Offset;
        if (!parseUInt(A, "alignment"))
          return false;
        if (A == 0 || (A & (A - 1))) {
          error(AOff, llvm::formatv("alignment {0} is not a power of two", A));
          return false;
        }
        (SawPtr ? Base.PtrAlign : Base.Align) = A;
      } else if (D == ".v2" || D == ".v4" || D == ".v8") {
        Base.VectorWidth = uint8_t(D[2] - '0');
        advance();
      } else if (D == ".ptr") {
        SawPtr = true;
        Base.IsPtr = true;
        advance();
      } else if (isTypeName(D)) {
        if (!Base.Type.empty()) {
          error(llvm::formatv("more than one type in a declaration ('{0}' after '{1}')", D,
                              Base.Type));
          return false;
        }
        Base.Type = M.intern(D);
        advance();
      } else if (D == ".attribute") {
        uint32_t AStart = Cur.Offset;
        advance();
        if (!expect('(', "after .attribute"))
          return false;
        while (Cur.K == Tok::Dot)
          advance();
        uint32_t AEnd = Cur.Offset + 1;
        if (!expect(')', "to close .attribute"))
          return false;
        Attrs.push_back(M.intern(M.source().slice(AStart, AEnd)));
      } else if (D == ".managed" || D == ".unified") {
        Attrs.push_back(M.intern(D));
        advance();
      } else {
        error("unexpected '" + D + "' in a declaration");
        return false;
      }
    }
    if (Base.Space == StateSpace::None && InFunction) {
      error(Start, "declaration without a state space");
      return false;
    }
    if (Base.Type.empty()) {
      error("expected a type in the declaration, found " + describe(Cur));
      return false;
    }
    Base.Attributes = M.copy(llvm::ArrayRef<TypeName>(Attrs));
    do {
      VarDecl D = Base;
      if (Cur.K != Tok::Ident && !(InPrototype && Cur.K == Tok::Sink)) {
        error("expected a name in the declaration, found " + describe(Cur));
        return false;
      }
      D.L = {Cur.Offset};
      D.Name = M.intern(Cur.Text);
      advance();
      if (Cur.is('<')) {
        advance();
        if (!parseUInt(D.RangeCount, "register count") || !expect('>', "after the register count"))
          return false;
        // Any state space may use the shorthand (ptxas accepts `.shared .b32 s<4>`).
      }
      llvm::SmallVector<const Expr *, 2> Dims;
      while (Cur.is('[')) {
        advance();
        if (Cur.is(']')) {
          Dims.push_back(nullptr);
        } else {
          const Expr *E = parseExpr();
          if (!E)
            return false;
          Dims.push_back(E);
        }
        if (!expect(']', "to close the array dimension"))
          return false;
      }
      D.Dims = M.copy(llvm::ArrayRef<const Expr *>(Dims));
      if (accept('=')) {
        D.Init = parseInitializer();
        if (!D.Init)
          return false;
      }
      Out.push_back(D);
    } while (AllowMany && accept(','));
    return true;
  }

  const Expr *parseInitializer() {
    llvm::SaveAndRestore Nest(Nesting);
    if (Cur.is('{') && !deeper())
      return nullptr;
    if (Cur.is('{')) {
      uint32_t Start = Cur.Offset;
      advance();
      llvm::SmallVector<const Expr *, 16> Elems;
      if (!Cur.is('}')) {
        do {
          const Expr *E = parseInitializer();
          if (!E)
            return nullptr;
          Elems.push_back(E);
        } while (accept(','));
      }
      if (!expect('}', "to close the initializer"))
        return nullptr;
      auto *E = M.make<Expr>();
      E->K = Expr::Braces;
      E->L = {Start};
      E->Args = M.copy(llvm::ArrayRef<const Expr *>(Elems));
      return E;
    }
    return parseExpr();
  }

  // Constant expressions, C precedence (PTX ISA §4.6.2).
  static int precedence(const Token &T) {
    if (T.K == Tok::Shl || T.K == Tok::Shr)
      return 5;
    if (T.K != Tok::Punct)
      return -1;
    switch (T.P) {
    case '*':
    case '/':
    case '%':
      return 7;
    case '+':
    case '-':
      return 6;
    case '<':
    case '>':
      return 4;
    case '&':
      return 3;
    case '^':
      return 2;
    case '|':
      return 1;
    default:
      return -1;
    }
  }

  const Expr *parseExpr(int MinPrec = 0) {
    llvm::SaveAndRestore Nest(Nesting);
    const Expr *L = parseUnary();
    while (L) {
      int Prec = precedence(Cur);
      if (Prec < MinPrec || Prec < 0)
        break;
      if (!deeper())
        return nullptr;
      char Op = Cur.K == Tok::Shl ? '<' : Cur.K == Tok::Shr ? '>' : Cur.P;
      if (Cur.K == Tok::Punct && (Cur.P == '<' || Cur.P == '>'))
        break; // comparison operators are not used in constant initializers
      uint32_t Off = Cur.Offset;
      advance();
      const Expr *R = parseExpr(Prec + 1);
      if (!R)
        return nullptr;
      auto *E = M.make<Expr>();
      E->K = Expr::Binary;
      E->L = {Off};
      E->Op = Op;
      const Expr *Args[] = {L, R};
      E->Args = M.copy(llvm::ArrayRef<const Expr *>(Args));
      L = E;
    }
    return L;
  }

  const Expr *parseUnary() {
    llvm::SaveAndRestore Nest(Nesting);
    if (!deeper())
      return nullptr;
    uint32_t Off = Cur.Offset;
    if (Cur.is('-') || Cur.is('+') || Cur.is('~') || Cur.is('!')) {
      char Op = Cur.P;
      advance();
      const Expr *A = parseUnary();
      if (!A)
        return nullptr;
      auto *E = M.make<Expr>();
      E->K = Expr::Unary;
      E->L = {Off};
      E->Op = Op;
      E->Args = M.copy(llvm::ArrayRef<const Expr *>(&A, 1));
      return E;
    }
    if (accept('(')) {
      const Expr *E = parseExpr();
      if (!E || !expect(')', "to close the expression"))
        return nullptr;
      return E;
    }
    if (Cur.K == Tok::Int) {
      int64_t Value = 0;
      if (!intValue(Cur, Value))
        return nullptr;
      advance();
      // Integer leaves are shared: initializers of byte arrays repeat few values, and a leaf's
      // location (its first occurrence) is only used while parsing.
      // (The map's two reserved keys, -1 and -2, are not shared.)
      const Expr *Fresh = nullptr;
      const Expr *&Leaf = uint64_t(Value) >= UINT64_MAX - 1 ? Fresh : IntLeaves[uint64_t(Value)];
      if (!Leaf) {
        auto *E = M.make<Expr>();
        E->L = {Off};
        E->K = Expr::Int;
        E->IntValue = Value;
        Leaf = E;
      }
      return Leaf;
    }
    auto *E = M.make<Expr>();
    E->L = {Off};
    if (Cur.K == Tok::Float) {
      E->K = Expr::Float;
      if (!floatValue(Cur, E->FloatBits, E->IsDouble))
        return nullptr;
      advance();
      return E;
    }
    if (Cur.K == Tok::Ident) {
      if ((Cur.Text == "generic" || Cur.Text == "mask") && Ahead.is('(')) {
        E->K = Expr::Generic;
        E->Sym = M.intern(Cur.Text);
        advance();
        advance();
        const Expr *A = parseExpr();
        if (!A || !expect(')', "to close generic()"))
          return nullptr;
        E->Args = M.copy(llvm::ArrayRef<const Expr *>(&A, 1));
        return E;
      }
      E->K = Expr::Name;
      E->Sym = M.intern(Cur.Text);
      advance();
      return E;
    }
    error("expected a constant expression, found " + describe(Cur));
    return nullptr;
  }

  // ---------------------------------------------------------------- functions

  bool parseParamList(llvm::SmallVectorImpl<VarDecl> &Out) {
    if (!expect('('))
      return false;
    if (accept(')'))
      return true;
    do {
      uint32_t Start = Cur.Offset;
      if (Cur.K != Tok::Dot) {
        error("expected a parameter declaration, found " + describe(Cur));
        return false;
      }
      llvm::SmallVector<VarDecl, 1> One;
      if (!parseVarDecl(Start, LinkNone, One, /*InFunction=*/false, /*AllowMany=*/false))
        return false;
      for (VarDecl &D : One) {
        if (D.Space == StateSpace::None)
          D.Space = StateSpace::Param;
        if (D.Space != StateSpace::Param && D.Space != StateSpace::Reg)
          error(D.L.Offset, llvm::formatv("parameter '{0}' must be in .param or .reg space, "
                                          "not {1}",
                                          D.Name, stateSpaceName(D.Space)));
        Out.push_back(D);
      }
    } while (accept(','));
    return expect(')', "to close the parameter list");
  }

  bool parseDims(uint32_t (&Out)[3], llvm::StringRef What) {
    advance();
    for (int I = 0; I < 3; ++I) {
      if (!parseUInt(Out[I], What))
        return false;
      if (!accept(','))
        break;
    }
    return true;
  }

  bool parseFunction(uint32_t Start, uint8_t Link) {
    auto *F = M.make<Function>();
    F->L = {Start};
    F->Linkage = Link;
    F->IsEntry = isDot(".entry");
    advance();
    llvm::SmallVector<VarDecl, 2> Returns, Params;
    if (!F->IsEntry && Cur.is('(')) {
      if (!parseParamList(Returns))
        return false;
    }
    if (Cur.K != Tok::Ident) {
      error("expected a function name, found " + describe(Cur));
      return false;
    }
    F->Name = M.intern(Cur.Text);
    advance();
    if (Cur.is('(') && !parseParamList(Params))
      return false;
    F->Returns = M.copy(llvm::ArrayRef<VarDecl>(Returns));
    F->Params = M.copy(llvm::ArrayRef<VarDecl>(Params));
    llvm::SmallVector<const RawDirective *, 2> Pragmas;
    while (Cur.K == Tok::Dot) {
      llvm::StringRef D = Cur.Text;
      bool Ok = true;
      if (D == ".maxntid")
        Ok = parseDims(F->MaxNTid, "thread count");
      else if (D == ".reqntid")
        Ok = parseDims(F->ReqNTid, "thread count");
      else if (D == ".reqnctapercluster")
        Ok = parseDims(F->ReqNCtaPerCluster, "CTA count");
      else if (D == ".minnctapersm") {
        advance();
        Ok = parseUInt(F->MinNCtaPerSm, "CTA count");
      } else if (D == ".maxnctapersm") {
        advance();
        uint32_t Ignored;
        Ok = parseUInt(Ignored, "CTA count");
      } else if (D == ".maxnreg") {
        advance();
        Ok = parseUInt(F->MaxNReg, "register count");
      } else if (D == ".maxclusterrank") {
        advance();
        Ok = parseUInt(F->MaxClusterRank, "cluster rank");
      } else if (D == ".explicitcluster") {
        F->ExplicitCluster = true;
        advance();
      } else if (D == ".blocksareclusters") {
        F->BlocksAreClusters = true;
        advance();
      } else if (D == ".noreturn") {
        F->NoReturn = true;
        advance();
      } else if (D == ".pragma") {
        if (const RawDirective *R = parsePragma())
          Pragmas.push_back(R);
        else
          Ok = false;
      } else {
        error("unexpected '" + D + "' in a function header");
        return false;
      }
      if (!Ok)
        return false;
    }
    F->Pragmas = M.copy(llvm::ArrayRef<const RawDirective *>(Pragmas));
    if (Cur.is('{')) {
      V.beginFunction(*F);
      F->Body = parseBlock();
      V.endFunction();
    } else {
      expect(';', "or a body after the function header");
    }
    TopLevel T;
    T.K = TopLevel::Func;
    T.F = F;
    M.Items.push_back(T);
    V.declareFunction(*F);
    return true;
  }

  // ---------------------------------------------------------------- bodies

  const Block *parseBlock() {
    auto *B = M.make<Block>();
    B->L = {Cur.Offset};
    advance(); // {
    ++BraceDepth;
    V.pushScope();
    size_t Begin = Chunks.size(); // this block's chunks: Chunks[Begin...]
    llvm::SaveAndRestore Count(BlockCount, uint32_t(0));
    while (!Cur.is('}')) {
      if (Cur.K == Tok::Eof) {
        error(B->L.Offset, "unterminated block: missing '}'");
        break;
      }
      if (tooManyErrors())
        break;
      uint32_t StartOff = Cur.Offset;
      if (!parseStatement())
        recoverStatement(); // syntax error: skip to the next statement

      if (Cur.Offset == StartOff && !Cur.is('}') && Cur.K != Tok::Eof)
        advance();
    }
    if (Cur.is('}'))
      advance();
    --BraceDepth;
    V.popScope();
    if (uint32_t N = BlockCount) {
      if (unsigned Tail = N & (StatementList::ChunkSize - 1)) {
        Statement *Exact = M.arena().Allocate<Statement>(Tail);
        std::uninitialized_copy_n(Chunks.back(), Tail, Exact);
        FreeChunks.push_back(Chunks.back());
        Chunks.back() = Exact;
      }
      size_t NumChunks = Chunks.size() - Begin;
      auto *P = M.arena().Allocate<const Statement *>(NumChunks);
      std::copy(Chunks.begin() + ptrdiff_t(Begin), Chunks.end(), P);
      B->Body = StatementList(P, N);
    }
    // Memory peaks when a function's body is complete (or a large block's).
    if (BraceDepth == 0 || BlockCount > 4096) {
      M.setParserBytes(scratchBytes());
      M.notePeak();
    }
    Chunks.resize(Begin);
    return B;
  }

  bool parseStatement() {
    Statement S;
    S.L = {Cur.Offset};
    if (Cur.is('{')) {
      llvm::SaveAndRestore Nest(Nesting);
      if (!deeper())
        return false;
      S.K = Statement::Scope;
      S.B = parseBlock();
      push(S);
      return true;
    }
    if (Cur.K == Tok::Ident && Ahead.is(':')) {
      S.K = Statement::Label;
      Symbol LabelName = name(Cur.Text);
      S.Sym = Module::symbolId(LabelName);
      advance();
      advance();
      if (isDot(".callprototype")) {
        // Kept in the body as a label statement so the printer writes it back in place.
        if (!parsePrototype(LabelName, S.L.Offset))
          return false;
        push(S);
        return true;
      }
      if (isDot(".branchtargets") || isDot(".calltargets")) {
        V.declareLabel(LabelName, S.L.Offset);
        Statement D;
        D.L = {Cur.Offset};
        D.K = Statement::Directive;
        D.R = parseTargetList();
        push(S);
        if (!D.R)
          return false;
        push(D);
        return true;
      }
      V.declareLabel(LabelName, S.L.Offset);
      push(S);
      return true;
    }
    if (Cur.K == Tok::Dot) {
      llvm::StringRef D = Cur.Text;
      if (D == ".loc" || D == ".file") {
        S.K = Statement::Directive;
        S.R = rawToEndOfLine();
        push(S);
        return true;
      }
      if (D == ".pragma") {
        S.K = Statement::Directive;
        S.R = parsePragma();
        if (!S.R)
          return false;
        push(S);
        return true;
      }
      uint8_t Link = parseLinkage();
      llvm::SmallVector<VarDecl, 4> Vars;
      if (!parseVarDecl(S.L.Offset, Link, Vars, /*InFunction=*/true))
        return false;
      if (!expect(';', "after a declaration"))
        return false;
      for (VarDecl &VD : Vars) {
        Statement DS;
        DS.K = Statement::Decl;
        DS.L = VD.L;
        DS.D = M.make<VarDecl>(VD);
        V.declareLocal(*DS.D);
        push(DS);
      }
      return true;
    }
    if (Cur.is('@') || Cur.K == Tok::Ident) {
      S.K = Statement::Instr;
      if (!parseInstruction(S))
        return false;
      push(S);
      return true;
    }
    error("expected an instruction, declaration or label, found " + describe(Cur));
    return false;
  }

  /// `.branchtargets L0, L1, ...;` or `.calltargets f0, f1, ...;` (PTX ISA, "Control Flow
  /// Directives"): names separated by commas. Kept as a directive whose text is the normalized
  /// list ("NAME A, B"), which the printer writes back and the lifter reads; anything else in it
  /// is an error.
  const RawDirective *parseTargetList() {
    uint32_t Start = Cur.Offset;
    Symbol Name = M.intern(Cur.Text);
    advance();
    std::string Text = Name.str();
    for (bool First = true;; First = false) {
      if (Cur.K != Tok::Ident) {
        error(llvm::formatv("expected a name in the {0} list, found {1}", Name, describe(Cur)));
        return nullptr;
      }
      Text += (First ? " " : ", ") + Cur.Text.str();
      advance();
      if (!accept(','))
        break;
    }
    if (!expect(';', "to end the directive"))
      return nullptr;
    auto *R = M.make<RawDirective>();
    R->L = {Start};
    R->Name = Name;
    R->Text = M.intern(Text);
    return R;
  }

  bool parsePrototype(Symbol Name, uint32_t Start) {
    auto *P = M.make<Prototype>();
    P->L = {Start};
    P->Name = Name;
    advance(); // .callprototype
    llvm::SaveAndRestore InProto(InPrototype, true);
    llvm::SmallVector<VarDecl, 2> Returns, Params;
    if (Cur.is('(') && !parseParamList(Returns))
      return false;
    if (Cur.K != Tok::Sink) {
      error("expected '_' in .callprototype, found " + describe(Cur));
      return false;
    }
    advance();
    if (Cur.is('(') && !parseParamList(Params))
      return false;
    if (isDot(".noreturn")) {
      P->NoReturn = true;
      advance();
    }
    if (!expect(';', "after .callprototype"))
      return false;
    P->Returns = M.copy(llvm::ArrayRef<VarDecl>(Returns));
    P->Params = M.copy(llvm::ArrayRef<VarDecl>(Params));
    M.Prototypes.push_back(P);
    V.declarePrototype(*P);
    return true;
  }

  // ---------------------------------------------------------------- instructions

  /// Parses an instruction into S: the operands are parsed into scratch memory, validated, then
  /// encoded into the Module's compact operand stream.
  bool parseInstruction(Statement &S) {
    Scratch.Reset();
    Instruction I;
    Instruction *IP = &I;
    IP->L = {Cur.Offset};
    if (accept('@')) {
      if (accept('!'))
        IP->GuardNegated = true;
      if (Cur.K != Tok::Ident) {
        error("expected a predicate register after '@', found " + describe(Cur));
        return false;
      }
      IP->Guard = name(Cur.Text);
      V.useRegister(IP->Guard, Cur.Offset);
      advance();
    }
    if (Cur.K != Tok::Ident) {
      error("expected an instruction opcode, found " + describe(Cur));
      return false;
    }
    uint32_t OpOff = Cur.Offset;
    // The spelling "ld.global.nc.v4.f32" is interned as a whole: a module repeats few distinct
    // spellings, so its split into opcode and modifiers and its validation are done once each.
    uint32_t SpellEnd = Cur.Offset + uint32_t(Cur.Text.size());
    llvm::StringRef Op = Cur.Text;
    advance();
    while (Cur.K == Tok::Dot && !Cur.SpaceBefore) {
      SpellEnd = Cur.Offset + uint32_t(Cur.Text.size());
      advance();
    }
    const Validator::Spelling *&Sp = spellingSlot(M.source().slice(OpOff, SpellEnd));
    if (!Sp) {
      llvm::SmallVector<Symbol, 8> Mods;
      Lexer L(M.source().slice(OpOff, SpellEnd));
      L.next(); // the opcode
      for (Token T = L.next(); T.K == Tok::Dot; T = L.next())
        Mods.push_back(M.intern(T.Text));
      Sp = V.addSpelling(M.intern(Op), M.copy(llvm::ArrayRef<Symbol>(Mods)));
    }
    IP->Opcode = Sp->Opcode;
    IP->Mods = Sp->Mods;
    llvm::SmallVector<Operand, 6> Ops;
    if (!Cur.is(';')) {
      do {
        Operand O;
        if (!parseOperand(O))
          return false;
        Ops.push_back(O);
      } while (accept(','));
    }
    if (!expect(';', "after the instruction operands"))
      return false;
    if (Ops.size() > UINT16_MAX) {
      error(IP->L.Offset, llvm::formatv("more than {0} operands", UINT16_MAX));
      return false;
    }
    IP->Ops = Ops;
    V.checkInstruction(I, *Sp, OpOff);
    S.Sym = Sp->Index;
    S.Ops = M.encodeOperands(I);
    return true;
  }

  bool parseNameOperand(Operand &O) {
    O.K = Operand::Name;
    O.L = {Cur.Offset};
    O.Sym = name(Cur.Text);
    uint32_t Off = Cur.Offset;
    advance();
    if (Cur.K == Tok::Dot && !Cur.SpaceBefore) {
      // %tid.x, %r1.y: component selector
      O.Component = name(Cur.Text);
      advance();
    }
    V.useName(O.Sym, Off);
    return true;
  }

  bool parseOperand(Operand &O) {
    llvm::SaveAndRestore Nest(Nesting);
    if (!deeper())
      return false;
    O.L = {Cur.Offset};
    if (Cur.is('!')) {
      advance();
      if (Cur.K != Tok::Ident) {
        error("expected a predicate after '!', found " + describe(Cur));
        return false;
      }
      parseNameOperand(O);
      O.Negated = true;
      return true;
    }
    if (Cur.is('-') && Ahead.K == Tok::Ident) {
      advance();
      parseNameOperand(O);
      O.Minus = true;
      return true;
    }
    if (Cur.is('[')) {
      advance();
      O.K = Operand::Address;
      llvm::SmallVector<Operand, 3> Elems;
      if (Cur.K == Tok::Ident) {
        Operand Base;
        parseNameOperand(Base);
        Elems.push_back(Base);
        if (Cur.is('+') || Cur.is('-')) {
          bool Neg = Cur.is('-');
          advance();
          if (Cur.is('-')) {
            Neg = !Neg;
            advance();
          }
          if (Cur.K != Tok::Int) {
            error("expected an integer offset in the address, found " + describe(Cur));
            return false;
          }
          int64_t V = 0;
          if (!intValue(Cur, V))
            return false;
          // Negated in uint64_t: the offset may be INT64_MIN (wraps to itself, like ptxas).
          O.IntValue = Neg ? int64_t(0 - uint64_t(V)) : V;
          advance();
        }
      } else if (Cur.K == Tok::Int) {
        if (!intValue(Cur, O.IntValue))
          return false;
        advance();
        // The AST has no place for an immediate base followed by more elements ([5, {%r}]).
        if (Cur.is(',')) {
          error("expected ']' after an immediate address, found " + describe(Cur));
          return false;
        }
      } else {
        error("expected a register, variable or address in '[ ]', found " + describe(Cur));
        return false;
      }
      while (accept(',')) {
        Operand E;
        if (!parseOperand(E))
          return false;
        Elems.push_back(E);
      }
      if (!expect(']', "to close the address"))
        return false;
      O.Elems = scratchCopy(Elems);
      return true;
    }
    if (Cur.is('{') || Cur.is('(')) {
      char Close = Cur.is('{') ? '}' : ')';
      O.K = Cur.is('{') ? Operand::Vector : Operand::List;
      advance();
      llvm::SmallVector<Operand, 8> Elems;
      if (!Cur.is(Close)) {
        do {
          Operand E;
          if (!parseOperand(E))
            return false;
          Elems.push_back(E);
        } while (accept(','));
      }
      if (!expect(Close, Close == '}' ? "to close the vector" : "to close the list"))
        return false;
      O.Elems = scratchCopy(Elems);
      return true;
    }
    // d|p: a value and a predicate destination (shfl, match.all, elect; d may be the sink `_`).
    auto ParsePair = [&]() {
      advance();
      Operand Second;
      if (Cur.K != Tok::Ident) {
        error("expected a predicate after '|', found " + describe(Cur));
        return false;
      }
      parseNameOperand(Second);
      Operand Pair[2] = {O, Second};
      O = Operand();
      O.K = Operand::Pair;
      O.L = Pair[0].L;
      O.Elems = scratchCopy(Pair);
      return true;
    };
    if (Cur.K == Tok::Sink) {
      O.K = Operand::Sink;
      O.L = {Cur.Offset};
      advance();
      return Cur.is('|') ? ParsePair() : true;
    }
    if (Cur.K == Tok::Ident) {
      if (Ahead.is('+') || Ahead.is('-') || Ahead.is('(')) {
        // var+4, generic(var): a constant expression.
        if (Ahead.is('(') && Cur.Text != "generic") {
          error("unexpected '(' after '" + Cur.Text + "'");
          return false;
        }
        O.K = Operand::ExprOp;
        O.E = parseExpr();
        return O.E != nullptr;
      }
      parseNameOperand(O);
      return Cur.is('|') ? ParsePair() : true;
    }
    if (Cur.K == Tok::Int || (Cur.is('-') && Ahead.K == Tok::Int)) {
      bool Neg = accept('-');
      O.K = Operand::Int;
      if (!intValue(Cur, O.IntValue, &O.Unsigned))
        return false;
      if (Neg)
        O.IntValue = int64_t(0 - uint64_t(O.IntValue)); // INT64_MIN is a valid literal
      advance();
      return true;
    }
    if (Cur.K == Tok::Float || (Cur.is('-') && Ahead.K == Tok::Float)) {
      bool Neg = accept('-');
      O.K = Operand::Float;
      if (!floatValue(Cur, O.FloatBits, O.IsDouble))
        return false;
      if (Neg)
        O.FloatBits ^= O.IsDouble ? (uint64_t(1) << 63) : (uint64_t(1) << 31);
      advance();
      return true;
    }
    error("expected an operand, found " + describe(Cur));
    return false;
  }
};

} // namespace

// ---------------------------------------------------------------- Module

Module::Module(std::string Name, std::string Source)
    : Name(std::move(Name)), Source(std::move(Source)) {}

/// Names are short (registers are 2-8 bytes): an inline loop beats a call to memcmp.
static inline bool sameBytes(const char *A, const char *B, size_t N) {
  for (size_t I = 0; I < N; ++I)
    if (A[I] != B[I])
      return false;
  return true;
}

Symbol Module::intern(llvm::StringRef S) {
  if ((InternCount + 1) * 4 > InternTable.size() * 3) {
    size_t Size = 256;
    while (Size < Source.size() / 128) // about one distinct name per 100 bytes of PTX
      Size *= 2;
    size_t OldBytes =
        growOpenTable(InternTable, InternTable.empty() ? Size : InternTable.size() * 2,
                      [](const InternSlot &E) { return E.IdPlus1 != 0; });
    notePeak(OldBytes); // both tables were live
  }
  uint32_t H = uint32_t(XXH3_64bits(S.data(), S.size()));
  size_t Mask = InternTable.size() - 1;
  for (size_t I = H & Mask;; I = (I + 1) & Mask) {
    InternSlot &E = InternTable[I];
    if (!E.IdPlus1) {
      // [4-byte id][4-byte size][bytes][NUL]: symbolId() and symbol() read them back.
      char *P = Arena.Allocate<char>(S.size() + 9) + 8;
      uint32_t Id = uint32_t(SymbolsById.size()), Size = uint32_t(S.size());
      std::memcpy(P - 8, &Id, 4);
      std::memcpy(P - 4, &Size, 4);
      std::memcpy(P, S.data(), S.size());
      P[S.size()] = '\0';
      E = {H, Id + 1};
      ++InternCount;
      if (SymbolsById.size() == SymbolsById.capacity()) {
        size_t Old = SymbolsById.capacity() * sizeof(const char *);
        SymbolsById.reserve(std::max<size_t>(256, SymbolsById.capacity() * 3 / 2));
        notePeak(Old); // the old array was live while the new one was filled
      }
      SymbolsById.push_back(P);
      return Symbol(P, S.size());
    }
    if (E.Hash == H) {
      const char *P = SymbolsById[E.IdPlus1 - 1];
      uint32_t Size;
      std::memcpy(&Size, P - 4, 4);
      if (Size == S.size() && sameBytes(P, S.data(), S.size()))
        return Symbol(P, Size);
    }
  }
}

// ---------------------------------------------------------------- operand streams

/// One 32-bit word of an instruction's operand stream. The stream starts with a header word
/// (operand count, guard flags; the guard's symbol id follows when there is one), then each
/// operand in pre-order: a node word (kind, flags, a 20-bit inline value), its extension words
/// (a 32-bit value, a 64-bit value, a component), then its elements. Operand locations are not
/// kept: the validator has checked the operands when they are encoded.
struct OpNode {
  uint32_t W;
};
static_assert(sizeof(OpNode) == 4);

namespace {

enum NodeFlags : uint32_t {
  NNegated = 1,
  NMinus = 2,
  NIsDouble = 4,
  NUnsigned = 8,   // Int: U suffix
  NF32High = 8,    // Float (f32, so no U suffix): the value is V << 12 (low 12 bits zero)
  NWide = 16,      // next two words: the 64-bit value (Int, Float, ExprOp pointer)
  NComponent = 32, // next word: the component's symbol id
  NOffset = 64,    // Address: next two words: the 64-bit offset
  NBig = 128,      // next word: the 32-bit value (V does not fit in 20 bits)
};
constexpr unsigned KindBits = 4, FlagBits = 8, ValueShift = KindBits + FlagBits;
constexpr uint32_t MaxInline = (1u << (32 - ValueShift)) - 1;
// Header word: operand count (16 bits), then these.
constexpr uint32_t HGuard = 1u << 16, HGuardNegated = 1u << 17;

uint32_t nodeKind(uint32_t W) { return W & ((1u << KindBits) - 1); }
uint32_t nodeFlags(uint32_t W) { return (W >> KindBits) & ((1u << FlagBits) - 1); }

struct Encoder {
  llvm::SmallVector<uint32_t, 24> Out;

  /// A node word with V inline (V must fit in the word's top 20 bits, or be a 20-bit two's
  /// complement value truncated to them).
  void inlined(Operand::Kind K, uint32_t Flags, uint32_t V) {
    Out.push_back(uint32_t(K) | Flags << KindBits | V << ValueShift);
  }
  /// A node word whose 32-bit value is the next word.
  void big(Operand::Kind K, uint32_t Flags, uint32_t V) {
    inlined(K, Flags | NBig, 0);
    Out.push_back(V);
  }
  void node(Operand::Kind K, uint32_t Flags, uint32_t V) {
    if (V > MaxInline)
      big(K, Flags, V);
    else
      inlined(K, Flags, V);
  }
  void words64(uint64_t X) {
    Out.push_back(uint32_t(X));
    Out.push_back(uint32_t(X >> 32));
  }
  void wide(Operand::Kind K, uint32_t Flags, uint64_t X) {
    inlined(K, Flags | NWide, 0);
    words64(X);
  }
  void one(const Operand &O) {
    uint32_t Flags = (O.Negated ? NNegated : 0) | (O.Minus ? NMinus : 0);
    switch (O.K) {
    case Operand::Name:
      if (!O.Component.empty()) {
        big(O.K, Flags | NComponent, Module::symbolId(O.Sym));
        Out.push_back(Module::symbolId(O.Component));
        return;
      }
      node(O.K, Flags, Module::symbolId(O.Sym));
      return;
    case Operand::Int:
      if (O.Unsigned)
        Flags |= NUnsigned;
      // Inline: a 20-bit two's complement value; a 32-bit one in the next word.
      if (O.IntValue >= -int64_t(MaxInline / 2 + 1) && O.IntValue <= int64_t(MaxInline / 2))
        inlined(O.K, Flags, uint32_t(O.IntValue));
      else if (O.IntValue == int64_t(int32_t(O.IntValue)))
        big(O.K, Flags, uint32_t(O.IntValue));
      else
        wide(O.K, Flags, uint64_t(O.IntValue));
      return;
    case Operand::Float:
      if (O.IsDouble)
        wide(O.K, Flags | NIsDouble, O.FloatBits);
      else if ((O.FloatBits & 0xFFF) == 0)
        inlined(O.K, Flags | NF32High, uint32_t(O.FloatBits) >> 12);
      else
        node(O.K, Flags, uint32_t(O.FloatBits));
      return;
    case Operand::Sink:
      inlined(O.K, Flags, 0);
      return;
    case Operand::ExprOp: {
      uint64_t P = 0;
      std::memcpy(&P, &O.E, sizeof O.E);
      wide(O.K, Flags, P);
      return;
    }
    case Operand::Vector:
    case Operand::Address:
    case Operand::List:
    case Operand::Pair:
      if (O.K == Operand::Address && O.IntValue) {
        big(O.K, Flags | NOffset, uint32_t(O.Elems.size()));
        words64(uint64_t(O.IntValue));
      } else {
        node(O.K, Flags, uint32_t(O.Elems.size()));
      }
      for (const Operand &E : O.Elems)
        one(E);
      return;
    }
  }
};

/// A node's value and the words after its node word (P points past the node word).
struct NodeValue {
  uint32_t V;
  const OpNode *P;
};
NodeValue nodeValue(uint32_t W, const OpNode *P) {
  if (nodeFlags(W) & NBig)
    return {P->W, P + 1};
  return {W >> ValueShift, P};
}
uint64_t wideValue(const OpNode *P) { return uint64_t(P[0].W) | uint64_t(P[1].W) << 32; }

/// Moves past one operand's words, counting the operands (itself and its elements) in Count.
const OpNode *skipOne(const OpNode *P, size_t &Count) {
  uint32_t W = (P++)->W;
  ++Count;
  auto [V, Next] = nodeValue(W, P);
  P = Next;
  uint32_t Flags = nodeFlags(W);
  if (Flags & NComponent)
    ++P;
  if (Flags & (NWide | NOffset))
    P += 2;
  switch (nodeKind(W)) {
  case Operand::Vector:
  case Operand::Address:
  case Operand::List:
  case Operand::Pair:
    for (uint32_t I = 0; I < V; ++I)
      P = skipOne(P, Count);
    break;
  default:
    break;
  }
  return P;
}

} // namespace

const OpNode *Module::encodeOperands(const Instruction &I) {
  if (I.Ops.empty() && I.Guard.empty())
    return nullptr;
  Encoder E;
  uint32_t Header = uint32_t(I.Ops.size());
  if (!I.Guard.empty())
    Header |= HGuard | (I.GuardNegated ? HGuardNegated : 0);
  E.Out.push_back(Header);
  if (!I.Guard.empty())
    E.Out.push_back(symbolId(I.Guard));
  for (const Operand &O : I.Ops)
    E.one(O);
  OpNode *P = Arena.Allocate<OpNode>(E.Out.size());
  std::memcpy(P, E.Out.data(), E.Out.size() * sizeof(OpNode));
  return P;
}

namespace {

struct Decoder {
  const Module &M;
  Loc L;
  std::vector<Operand> &Store;

  const OpNode *one(const OpNode *P, size_t Index) {
    uint32_t W = (P++)->W;
    auto [V, Next] = nodeValue(W, P);
    P = Next;
    uint32_t Flags = nodeFlags(W);
    Operand O;
    O.K = Operand::Kind(nodeKind(W));
    O.L = L;
    O.Negated = Flags & NNegated;
    O.Minus = Flags & NMinus;
    switch (O.K) {
    case Operand::Name:
      O.Sym = M.symbol(V);
      if (Flags & NComponent)
        O.Component = M.symbol((P++)->W);
      break;
    case Operand::Int:
      O.Unsigned = Flags & NUnsigned;
      if (Flags & NWide) {
        O.IntValue = int64_t(wideValue(P));
        P += 2;
      } else if (Flags & NBig) {
        O.IntValue = int32_t(V);
      } else {
        O.IntValue = int32_t(W) >> ValueShift; // sign-extends the 20-bit value
      }
      break;
    case Operand::Float:
      O.IsDouble = Flags & NIsDouble;
      if (Flags & NWide) {
        O.FloatBits = wideValue(P);
        P += 2;
      } else {
        O.FloatBits = Flags & NF32High ? uint64_t(V) << 12 : V;
      }
      break;
    case Operand::Sink:
      break;
    case Operand::ExprOp: {
      uint64_t X = wideValue(P);
      P += 2;
      std::memcpy(&O.E, &X, sizeof O.E);
      break;
    }
    case Operand::Vector:
    case Operand::Address:
    case Operand::List:
    case Operand::Pair: {
      if (Flags & NOffset) {
        O.IntValue = int64_t(wideValue(P));
        P += 2;
      }
      size_t First = Store.size();
      Store.resize(First + V);
      for (uint32_t I = 0; I < V; ++I)
        P = one(P, First + I);
      O.Elems = llvm::ArrayRef<Operand>(Store.data() + First, V);
      break;
    }
    }
    Store[Index] = O;
    return P;
  }
};

} // namespace

void Module::decode(const Statement &S, Instruction &Out) const {
  Out.L = S.L;
  const SpellingInfo &Sp = Spellings[S.Sym];
  Out.Opcode = Sp.Opcode;
  Out.Mods = Sp.Mods;
  Out.Family = Sp.Family < 0 ? 0 : uint16_t(Sp.Family);
  Out.Guard = Symbol();
  Out.GuardNegated = false;
  Out.Storage.clear();
  Out.Ops = {};
  if (!S.Ops)
    return;
  const OpNode *Start = S.Ops;
  uint32_t Header = (Start++)->W;
  unsigned NumOps = Header & 0xFFFF;
  if (Header & HGuard) {
    Out.Guard = symbol((Start++)->W);
    Out.GuardNegated = Header & HGuardNegated;
  }
  size_t Count = 0;
  const OpNode *P = Start;
  for (unsigned I = 0; I < NumOps; ++I)
    P = skipOne(P, Count);
  // Reserved up front: elements are referenced by pointer while later ones are appended.
  Out.Storage.reserve(Count);
  Out.Storage.resize(NumOps);
  Decoder D{*this, S.L, Out.Storage};
  P = Start;
  for (unsigned I = 0; I < NumOps; ++I)
    P = D.one(P, I);
  Out.Ops = llvm::ArrayRef<Operand>(Out.Storage.data(), NumOps);
}

void Module::finishParse() {
  // The symbol table keeps its slack: fitting it would copy it, and the copy would raise the peak.
  notePeak();
}

size_t Module::memoryBytes() const {
  size_t N = sizeof(*this) + Name.capacity() + Source.capacity() + Arena.getTotalMemory();
  N += InternTable.capacity() * sizeof(InternSlot) + SymbolsById.capacity() * sizeof(const char *);
  N += Spellings.capacity() * sizeof(SpellingInfo) + LineStarts.capacity() * sizeof(uint32_t);
  N += Items.capacity() * sizeof(TopLevel) + Prototypes.capacity() * sizeof(const Prototype *);
  if (Targets.capacity() > 2) // beyond the inline storage
    N += Targets.capacity() * sizeof(Symbol);
  return N;
}

std::pair<unsigned, unsigned> Module::lineCol(Loc L) const {
  // Lifting threads share a module (backend's parts): the table is built once, by one of them.
  std::call_once(LinesOnce, [this] {
    LineStarts.push_back(0);
    for (size_t I = 0; I < Source.size(); ++I)
      if (Source[I] == '\n')
        LineStarts.push_back(uint32_t(I + 1));
  });
  auto It = std::upper_bound(LineStarts.begin(), LineStarts.end(), L.Offset);
  unsigned Line = unsigned(It - LineStarts.begin());
  return {Line, L.Offset - LineStarts[Line - 1] + 1};
}

llvm::StringRef Module::lineText(Loc L) const {
  auto [Line, Col] = lineCol(L);
  size_t Start = LineStarts[Line - 1];
  size_t End = Source.find('\n', Start);
  return llvm::StringRef(Source).slice(Start, End == std::string::npos ? Source.size() : End);
}

ParseResult parse(std::string Name, std::string Source, const ParseOptions &Opts) {
  ParseResult R;
  R.M = std::make_unique<Module>(std::move(Name), std::move(Source));
  // Locations are 32-bit offsets and symbol ids 29-bit (a distinct name takes at least 2 bytes).
  if (R.M->source().size() >= MaxSourceBytes) {
    R.Errors.push_back({Loc{0}, llvm::formatv("the PTX text is {0} bytes; at most {1} are read",
                                              R.M->source().size(), MaxSourceBytes - 1)});
    return R;
  }
  Parser P(*R.M, R.Errors, Opts);
  P.parseModule();
  P.V.finishModule();
  R.M->setParserBytes(P.scratchBytes());
  R.M->finishParse();
  if (R.M->VersionMajor == 0 && R.Errors.empty())
    R.Errors.push_back({Loc{0}, "missing .version directive"});
  // Report in source order; errors found at the end of a function or module come last otherwise.
  std::vector<std::pair<uint32_t, size_t>> Order;
  for (size_t I = 0; I < R.Errors.size(); ++I)
    Order.emplace_back(R.Errors[I].L.Offset, I);
  std::sort(Order.begin(), Order.end());
  std::vector<Diagnostic> Sorted;
  for (auto &[Off, I] : Order)
    Sorted.push_back(std::move(R.Errors[I]));
  R.Errors = std::move(Sorted);
  return R;
}

void printDiagnostic(llvm::raw_ostream &OS, const Module &M, const Diagnostic &D) {
  auto [Line, Col] = M.lineCol(D.L);
  OS << M.name() << ":" << Line << ":" << Col << ": error: " << D.Message << "\n";
  llvm::StringRef Text = M.lineText(D.L);
  OS << Text << "\n";
  for (unsigned I = 1; I < Col && I <= Text.size(); ++I)
    OS << (Text[I - 1] == '\t' ? '\t' : ' ');
  OS << "^\n";
}

llvm::Error toError(const ParseResult &R) {
  if (R.Errors.empty())
    return llvm::Error::success();
  std::string S;
  llvm::raw_string_ostream OS(S);
  for (const Diagnostic &D : R.Errors)
    printDiagnostic(OS, *R.M, D);
  return llvm::createStringError(llvm::inconvertibleErrorCode(), S);
}

} // namespace reptx::ptx
