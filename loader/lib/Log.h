// Logging of the loader (spdlog, to stderr). REPTX_LOG=off|error|warn|info|debug|trace selects the
// level (default warn); trace logs every implemented driver call.
#pragma once

#include <spdlog/spdlog.h>

namespace reptx::loader {

spdlog::logger &log();

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
