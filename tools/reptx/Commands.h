// The reptx subcommands. Each registers its options on the CLI11 app and returns the exit code
// when run: 0 success, 1 usage error, 2 bad or unreadable input.
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <CLI/CLI.hpp>

#include <functional>

namespace reptx::tool {

enum ExitCode { ExitOk = 0, ExitUsage = 1, ExitBadInput = 2 };

using Runner = std::function<int()>;

Runner addListCommand(CLI::App &App);
Runner addExtractCommand(CLI::App &App);
Runner addParseCommand(CLI::App &App);
Runner addCoverageCommand(CLI::App &App);
Runner addCompileCommand(CLI::App &App);
Runner addCacheCommand(CLI::App &App);
Runner addPrewarmCommand(CLI::App &App);
Runner addEmulateCommand(CLI::App &App);
Runner addRunCommand(CLI::App &App);
Runner addCensusCommand(CLI::App &App);

/// Prints "reptx: error: MSG" to stderr.
void reportError(const std::string &Msg);

/// Writes Bytes to Path (created or truncated). Fails, a full disk included, with "PATH: WHY".
llvm::Error writeFile(const std::string &Path, llvm::StringRef Bytes);

} // namespace reptx::tool
