// The PTX lexer: one pass over the text, no allocation per token. Tokens point into the source.
// PTX ISA manual §4 (syntax): identifiers, `.`-directives and modifiers, integer literals in
// decimal, hex, octal and binary with an optional U suffix, 0f/0d float bit patterns, decimal
// floats, strings, punctuation; // and /* */ comments.
#pragma once

#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace reptx::ptx {

enum class Tok : uint8_t {
  Eof,
  Ident,  // foo, %r1, $L__BB0_1, _Z3fooPf
  Dot,    // .reg, .b32, .x4, .1d (Text includes the dot)
  Int,    // 123, 0x1F, 017, 0b101, 42U
  Float,  // 0f3F800000, 0d3FF0000000000000, 1.5, 1e-3
  String, // "..." (Text includes the quotes)
  Sink,   // _
  Punct,  // one character: , ; : { } [ ] ( ) + - * / % & | ^ ~ ! @ < > = ?
  Shl,    // <<
  Shr,    // >>
  Error,  // an unexpected character or malformed literal
};

struct Token {
  Tok K = Tok::Eof;
  char P = 0;               // the character for Punct
  bool SpaceBefore = false; // whitespace or a comment separates it from the previous token
  uint32_t Offset = 0;
  llvm::StringRef Text;
  bool is(char C) const { return K == Tok::Punct && P == C; }
};

/// Character classes of the lexer, one table lookup per character.
enum : uint8_t { CharIdentStart = 1, CharIdentChar = 2, CharBlank = 4, CharPunct = 8 };
struct CharClassTable {
  uint8_t Of[256] = {};
  constexpr CharClassTable() {
    for (unsigned C = 0; C < 256; ++C) {
      bool Letter = (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z');
      if (Letter)
        Of[C] |= CharIdentStart;
      if (Letter || (C >= '0' && C <= '9') || C == '_' || C == '$')
        Of[C] |= CharIdentChar;
      if (C == ' ' || C == '\t' || C == '\n' || C == '\r' || C == '\f' || C == '\v')
        Of[C] |= CharBlank;
    }
    for (const char *P = ",;:{}[]()+-*/%&|^~!@<>=?"; *P; ++P)
      Of[static_cast<unsigned char>(*P)] |= CharPunct;
  }
};
inline constexpr CharClassTable CharClasses{};

class Lexer {
public:
  explicit Lexer(llvm::StringRef Src) : B(Src.data()), P(Src.data()), E(Src.data() + Src.size()) {}

  Token next() {
    Token T;
    next(T);
    return T;
  }

  /// Lexes the next token into T, field by field: the parser's lookahead token is filled in place
  /// rather than copied from a temporary (a copy of a just-written struct stalls the store
  /// buffer).
  void next(Token &T) {
    T.P = 0;
    T.SpaceBefore = skipSpace();
    T.Offset = uint32_t(P - B);
    if (P >= E) {
      T.K = Tok::Eof;
      T.Text = llvm::StringRef();
      return;
    }
    const char *S = P;
    unsigned char C = *P;
    if (isIdentStart(C) || ((C == '%' || C == '$' || C == '_') && P + 1 < E &&
                            isIdentChar(static_cast<unsigned char>(P[1])))) {
      ++P;
      scanIdentChars();
      T.K = Tok::Ident;
    } else if (C == '_') {
      ++P;
      T.K = Tok::Sink;
    } else if (C == '.' && P + 1 < E && isIdentChar(static_cast<unsigned char>(P[1]))) {
      ++P;
      scanIdentChars();
      // Qualified modifiers: .L2::cache_hint, .shared::cta, .acc::f32.
      while (P + 2 < E && P[0] == ':' && P[1] == ':' &&
             isIdentChar(static_cast<unsigned char>(P[2]))) {
        P += 2;
        while (P < E && isIdentChar(static_cast<unsigned char>(*P)))
          ++P;
      }
      T.K = Tok::Dot;
    } else if (C >= '0' && C <= '9') {
      T.K = lexNumber();
    } else if (C == '"') {
      ++P;
      while (P < E && *P != '"' && *P != '\n') {
        if (*P == '\\' && P + 1 < E)
          ++P;
        ++P;
      }
      if (P < E && *P == '"') {
        ++P;
        T.K = Tok::String;
      } else {
        T.K = Tok::Error; // unterminated string
      }
    } else if (C == '<' && P + 1 < E && P[1] == '<') {
      P += 2;
      T.K = Tok::Shl;
    } else if (C == '>' && P + 1 < E && P[1] == '>') {
      P += 2;
      T.K = Tok::Shr;
    } else if (isPunct(C)) {
      ++P;
      T.K = Tok::Punct;
      T.P = char(C);
    } else {
      ++P;
      T.K = Tok::Error;
    }
    T.Text = llvm::StringRef(S, P - S);
  }

  /// Moves past the end of the current line (for directives without a terminator: .loc, .file).
  void skipLine() {
    while (P < E && *P != '\n')
      ++P;
  }
  uint32_t offset() const { return uint32_t(P - B); }
  void reset(uint32_t Off) { P = B + Off; }

  static bool isIdentStart(unsigned char C) { return CharClasses.Of[C] & CharIdentStart; }
  static bool isIdentChar(unsigned char C) { return CharClasses.Of[C] & CharIdentChar; }

private:
  /// Moves P past identifier characters. The text is a std::string's (or a slice of one that
  /// ends where a token ends), so a NUL or another non-identifier character stops the loop without
  /// a bounds check per character; P is clamped to the end all the same.
  void scanIdentChars() {
    while (isIdentChar(static_cast<unsigned char>(*P)))
      ++P;
    if (P > E)
      P = E;
  }

  static bool isPunct(unsigned char C) { return CharClasses.Of[C] & CharPunct; }

  /// Skips blanks and comments; true when anything was skipped.
  bool skipSpace() {
    const char *S = P;
    while (P < E) {
      char C = *P;
      if (CharClasses.Of[static_cast<unsigned char>(C)] & CharBlank) {
        ++P;
      } else if (C == '/' && P + 1 < E && P[1] == '/') {
        while (P < E && *P != '\n')
          ++P;
      } else if (C == '/' && P + 1 < E && P[1] == '*') {
        const char *End = static_cast<const char *>(memmem(P + 2, E - P - 2, "*/", 2));
        P = End ? End + 2 : E;
      } else {
        break;
      }
    }
    return P != S;
  }

  static bool isHex(unsigned char C) {
    return (C >= '0' && C <= '9') || (C >= 'a' && C <= 'f') || (C >= 'A' && C <= 'F');
  }

  Tok lexNumber() {
    const char *S = P;
    if (*P == '0' && P + 1 < E) {
      char X = P[1];
      if (X == 'f' || X == 'F' || X == 'd' || X == 'D') {
        size_t Want = (X == 'f' || X == 'F') ? 8 : 16;
        P += 2;
        const char *H = P;
        while (P < E && isHex(static_cast<unsigned char>(*P)))
          ++P;
        if (size_t(P - H) != Want || (P < E && isIdentChar(static_cast<unsigned char>(*P)))) {
          while (P < E && isIdentChar(static_cast<unsigned char>(*P)))
            ++P;
          return Tok::Error;
        }
        return Tok::Float;
      }
      if (X == 'x' || X == 'X' || X == 'b' || X == 'B') {
        P += 2;
        while (P < E && isIdentChar(static_cast<unsigned char>(*P)))
          ++P;
        return Tok::Int; // digits validated when the value is converted
      }
    }
    while (P < E && *P >= '0' && *P <= '9')
      ++P;
    bool IsFloat = false;
    if (P < E && *P == '.' &&
        !(P + 1 < E && Lexer::isIdentStart(static_cast<unsigned char>(P[1])))) {
      IsFloat = true;
      ++P;
      while (P < E && *P >= '0' && *P <= '9')
        ++P;
    }
    if (P < E && (*P == 'e' || *P == 'E') && P + 1 < E &&
        ((P[1] >= '0' && P[1] <= '9') ||
         ((P[1] == '+' || P[1] == '-') && P + 2 < E && P[2] >= '0' && P[2] <= '9'))) {
      IsFloat = true;
      P += 2;
      while (P < E && *P >= '0' && *P <= '9')
        ++P;
    }
    if (IsFloat)
      return Tok::Float;
    if (P < E && (*P == 'U' || *P == 'u'))
      ++P;
    if (P < E && isIdentChar(static_cast<unsigned char>(*P))) {
      while (P < E && isIdentChar(static_cast<unsigned char>(*P)))
        ++P;
      (void)S;
      return Tok::Error;
    }
    return Tok::Int;
  }

  const char *B, *P, *E;
};

} // namespace reptx::ptx
