// Logging of the loader (spdlog, to stderr). REPTX_LOG=off|error|warn|info|debug|trace selects the
// level (default warn); trace logs every implemented driver call.
#pragma once

#include <spdlog/spdlog.h>

#include <string>
#include <vector>

namespace reptx::loader {

spdlog::logger &log();
/// What REPTX_LOG sets: the lowest level written to stderr (errors reach the logger anyway, for
/// ErrorCapture).
void setLogLevel(spdlog::level::level_enum Level);

/// The error lines logged on this thread while it lives, whatever REPTX_LOG says (what a driver
/// call that failed tells its caller in a JIT error log buffer).
class ErrorCapture {
public:
  ErrorCapture();
  ~ErrorCapture();
  ErrorCapture(const ErrorCapture &) = delete;
  ErrorCapture &operator=(const ErrorCapture &) = delete;
  const std::vector<std::string> &lines() const { return Lines; }

private:
  std::vector<std::string> Lines;
  std::vector<std::string> *Outer;
};

/// REPTX_LOG=trace, read once when the library is loaded: the one branch each entry point takes
/// for tracing (Trace.h).
extern bool TraceEnabled;
/// Set while a traced driver call runs on this thread (trace::Scope): the calls it makes in turn
/// are not logged again.
extern thread_local bool InTracedCall;

/// What an entry point that is not implemented does: logs its name once (warning level) and
/// returns CUDA_ERROR_NOT_SUPPORTED (801); with REPTX_LOG=trace also every call, as
/// `Name(...) -> CUDA_ERROR_NOT_SUPPORTED` (its arguments are unknown to the stub).
int notSupported(const char *Name);

} // namespace reptx::loader
