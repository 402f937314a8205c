#include "Log.h"

#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/stdout_sinks.h>

#include <cstdlib>
#include <mutex>
#include <set>
#include <string>

namespace reptx::loader {

namespace {

thread_local std::vector<std::string> *Captured = nullptr;
// Owned by the logger, which is never destroyed: no destructor runs at exit under a late log().
spdlog::sinks::sink *StderrSink = nullptr;

/// Error lines, to the ErrorCapture active on the logging thread.
class CaptureSink final : public spdlog::sinks::base_sink<spdlog::details::null_mutex> {
protected:
  void sink_it_(const spdlog::details::log_msg &Msg) override {
    if (Captured && Msg.level >= spdlog::level::err)
      Captured->emplace_back(Msg.payload.data(), Msg.payload.size());
  }
  void flush_() override {}
};

} // namespace

namespace {
void applyLevel(spdlog::logger &Logger, spdlog::level::level_enum Level) {
  StderrSink->set_level(Level);
  Logger.set_level(std::min(Level, spdlog::level::err));
}
} // namespace

spdlog::logger &log() {
  static spdlog::logger *L = [] {
    // Not registered in spdlog's global registry: the host program may use spdlog too. Errors
    // always reach the logger, for ErrorCapture; stderr shows the REPTX_LOG level.
    auto Stderr = std::make_shared<spdlog::sinks::stderr_sink_mt>();
    StderrSink = Stderr.get();
    auto *Logger = new spdlog::logger(
        "reptx",
        {Stderr, std::static_pointer_cast<spdlog::sinks::sink>(std::make_shared<CaptureSink>())});
    Logger->set_pattern("[reptx %l] %v");
    Logger->flush_on(spdlog::level::trace);
    const char *Level = std::getenv("REPTX_LOG");
    applyLevel(*Logger, Level && *Level ? spdlog::level::from_str(Level) : spdlog::level::warn);
    return Logger;
  }();
  return *L;
}

void setLogLevel(spdlog::level::level_enum Level) { applyLevel(log(), Level); }

ErrorCapture::ErrorCapture() : Outer(Captured) { Captured = &Lines; }
ErrorCapture::~ErrorCapture() { Captured = Outer; }

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
