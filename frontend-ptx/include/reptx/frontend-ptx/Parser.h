// PTX parser entry points and diagnostics. The parser is a hand-written lexer and recursive-descent
// parser; it recovers at statement boundaries, so one run reports every error of a file.
#pragma once

#include "reptx/frontend-ptx/Ast.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>
#include <vector>

namespace reptx::ptx {

struct Diagnostic {
  Loc L;
  std::string Message;
};

/// The largest PTX text parse() reads, exclusive (512 MiB: locations are 32-bit offsets, symbol
/// ids 29 bits). The toolkit's largest text is 40 MB.
constexpr size_t MaxSourceBytes = size_t(1) << 29;

struct ParseOptions {
  /// Stop collecting after this many errors.
  unsigned MaxErrors = 50;
  /// Validate instructions against the instruction table (unknown opcodes, modifiers, operand
  /// counts) and check that registers are declared.
  bool Validate = true;
};

struct ParseResult {
  std::unique_ptr<Module> M; // always set, possibly partial when there are errors
  std::vector<Diagnostic> Errors;
  bool ok() const { return Errors.empty(); }
};

/// Parses PTX text. Name is used in diagnostics (a file name).
ParseResult parse(std::string Name, std::string Source, const ParseOptions &Opts = {});

/// Writes a diagnostic like a compiler: `file:line:col: error: message`, the source line and a
/// caret under the column.
void printDiagnostic(llvm::raw_ostream &OS, const Module &M, const Diagnostic &D);
/// All errors of a result as one llvm::Error (success when there are none).
llvm::Error toError(const ParseResult &R);

/// Writes the module back as valid PTX (normalized layout: one statement per line).
void print(llvm::raw_ostream &OS, const Module &M);

/// Structural equality of two modules (locations ignored). On a difference, Why says where.
bool equivalent(const Module &A, const Module &B, std::string *Why = nullptr);

} // namespace reptx::ptx
