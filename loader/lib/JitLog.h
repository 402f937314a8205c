// The JIT log buffers of the driver API (CUjit_option CU_JIT_INFO_LOG_BUFFER,
// CU_JIT_ERROR_LOG_BUFFER and their _SIZE_BYTES options), as cuLinkCreate, cuModuleLoadDataEx and
// cuLibraryLoadData take them.
#pragma once

#include "CudaApi.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

namespace reptx::loader {

/// A log buffer given by CU_JIT_{INFO,ERROR}_LOG_BUFFER and its _SIZE_BYTES option: messages are
/// appended, the buffer always holds as much of them as fits with a terminating NUL, and the size
/// option's slot is overwritten with the bytes filled (terminator included), as the CUDA Driver
/// API documents for CUjit_option.
struct LogSink {
  char *Buffer = nullptr;
  size_t Capacity = 0;
  void **SizeSlot = nullptr; // the caller's optionValues entry of the _SIZE_BYTES option
  std::string Text;

  void add(const std::string &Line) {
    Text += Line;
    Text += '\n';
    publish();
  }
  void publish() {
    if (!Buffer || !Capacity)
      return;
    size_t N = std::min(Text.size(), Capacity - 1);
    std::memcpy(Buffer, Text.data(), N);
    Buffer[N] = '\0';
    if (SizeSlot)
      *SizeSlot = reinterpret_cast<void *>(uintptr_t(Text.empty() ? 0 : N + 1));
  }
  /// Nothing logged yet: an empty buffer, and a size slot that says so.
  void clear() {
    if (Buffer && Capacity)
      Buffer[0] = '\0';
    if (SizeSlot)
      *SizeSlot = nullptr;
  }
};

/// Takes option I into Info or Error if it is one of the four log options; false otherwise.
inline bool takeLogOption(CUjit_option Option, void **Value, LogSink &Info, LogSink &Error) {
  auto Word = reinterpret_cast<uintptr_t>(*Value);
  switch (Option) {
  case CU_JIT_INFO_LOG_BUFFER:
    Info.Buffer = static_cast<char *>(*Value);
    return true;
  case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES:
    Info.Capacity = unsigned(Word);
    Info.SizeSlot = Value;
    return true;
  case CU_JIT_ERROR_LOG_BUFFER:
    Error.Buffer = static_cast<char *>(*Value);
    return true;
  case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES:
    Error.Capacity = unsigned(Word);
    Error.SizeSlot = Value;
    return true;
  default:
    return false;
  }
}

} // namespace reptx::loader
