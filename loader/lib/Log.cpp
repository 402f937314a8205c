#include "Log.h"

#include <spdlog/sinks/stdout_sinks.h>

#include <cstdlib>
#include <mutex>
#include <set>
#include <string>

namespace reptx::loader {

spdlog::logger &log() {
  static spdlog::logger *L = [] {
    // Not registered in spdlog's global registry: the host program may use spdlog too.
    auto *Logger = new spdlog::logger("reptx", std::make_shared<spdlog::sinks::stderr_sink_mt>());
    Logger->set_pattern("[reptx %l] %v");
    const char *Level = std::getenv("REPTX_LOG");
    Logger->set_level(Level && *Level ? spdlog::level::from_str(Level) : spdlog::level::warn);
    Logger->flush_on(spdlog::level::trace);
    return Logger;
  }();
  return *L;
}

bool TraceEnabled = log().should_log(spdlog::level::trace);
thread_local bool InTracedCall = false;

int notSupported(const char *Name) {
  if (TraceEnabled && !InTracedCall)
    log().trace("{}(...) -> CUDA_ERROR_NOT_SUPPORTED", Name);
  static std::mutex M;
  static std::set<std::string> Seen;
  {
    std::lock_guard<std::mutex> Lock(M);
    if (Seen.insert(Name).second)
      log().warn("{} is not supported by reptx (returning CUDA_ERROR_NOT_SUPPORTED)", Name);
  }
  return 801; // CUDA_ERROR_NOT_SUPPORTED
}

} // namespace reptx::loader
