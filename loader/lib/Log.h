// Logging of the loader (spdlog, to stderr). REPTX_LOG=off|error|warn|info|debug|trace selects the
// level (default warn); trace logs every implemented driver call.
#pragma once

#include <spdlog/spdlog.h>

namespace reptx::loader {

spdlog::logger &log();

/// What an entry point that is not implemented does: logs its name once (warning level) and
/// returns CUDA_ERROR_NOT_SUPPORTED (801).
int notSupported(const char *Name);

} // namespace reptx::loader
