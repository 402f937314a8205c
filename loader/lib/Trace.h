// REPTX_LOG=trace: one line per driver API call, with its arguments and its result, e.g.
//   [reptx trace] cuMemAlloc_v2(Ptr=0x7ffd4a10c2d8, Bytes=4096) -> CUDA_SUCCESS
// Each implemented entry point starts with `REPTX_TRACE(itsName, its, parameters);`. With tracing
// off that is one branch on a flag read once at load time (TraceEnabled, Log.cpp). With tracing on,
// the entry point calls itself once more inside a TraceScope (which makes the inner call, and any
// entry point it calls in turn, skip tracing), formats the arguments, logs the line with the
// result, and returns that result: nothing needs to change at the entry point's returns, and a call
// reaching one entry point through another (cuMemFreeAsync -> cuMemFree_v2) logs once, as the
// application made it. Arguments are formatted after the call, by value (an output pointer is
// shown as the pointer, not what it points to). Stubs log through notSupported (Log.cpp).
#pragma once

#include "CudaApi.h"
#include "Log.h"

#include <string>
#include <type_traits>

namespace reptx::loader::trace {

/// Marks the current thread as inside a traced call while it lives.
class Scope {
public:
  Scope() { InTracedCall = true; }
  ~Scope() { InTracedCall = false; }
  Scope(const Scope &) = delete;
  Scope &operator=(const Scope &) = delete;
};

inline bool active() { return TraceEnabled && !InTracedCall; }

// The formatting of one value: a pointer in hex (NULL when null), `const char *` as a quoted
// string (bounded, escaped), a CUdeviceptr (a device address) in hex, a CUresult by name, other
// integers and enumerations in decimal, bool as true/false, a structure passed by value as {...}.
void appendPointer(std::string &Out, const void *P);
void appendString(std::string &Out, const char *S);
void appendResult(std::string &Out, CUresult R);
void appendSigned(std::string &Out, long long V);
void appendUnsigned(std::string &Out, unsigned long long V);
void appendHex(std::string &Out, unsigned long long V);

template <typename T> void appendValue(std::string &Out, const T &V) {
  if constexpr (std::is_same_v<T, CUresult>)
    appendResult(Out, V);
  else if constexpr (std::is_same_v<T, const char *>)
    appendString(Out, V);
  else if constexpr (std::is_same_v<T, bool>)
    Out += V ? "true" : "false";
  else if constexpr (std::is_same_v<T, CUdeviceptr>)
    appendHex(Out, V);
  else if constexpr (std::is_enum_v<T>)
    appendSigned(Out, static_cast<long long>(V));
  else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>)
    appendSigned(Out, V);
  else if constexpr (std::is_integral_v<T>)
    appendUnsigned(Out, V);
  else if constexpr (std::is_pointer_v<T> && std::is_function_v<std::remove_pointer_t<T>>)
    appendPointer(Out, reinterpret_cast<const void *>(V));
  else if constexpr (std::is_pointer_v<T>)
    appendPointer(Out, static_cast<const void *>(V));
  else
    Out += "{...}";
}

/// Appends the next name of the comma-separated list Names (as the macro stringizes the
/// parameters), advancing Names past it.
void appendName(std::string &Out, const char *&Names);

/// `Name(p1=v1, p2=v2, ...)`, the names taken from Names ("p1, p2, ...").
template <typename... Args>
std::string formatCall(const char *Name, const char *Names, const Args &...A) {
  std::string Out = Name;
  Out += '(';
  bool First = true;
  auto One = [&](const auto &V) {
    if (!First)
      Out += ", ";
    First = false;
    appendName(Out, Names);
    Out += '=';
    appendValue(Out, V);
  };
  (One(A), ...);
  Out += ')';
  return Out;
}

/// Writes a finished line at trace level.
void emit(const std::string &Line);

/// Logs `Name(args) -> Result` and returns Result.
template <typename R, typename... Args>
R finish(const char *Name, const char *Names, R Result, const Args &...A) {
  std::string Line = formatCall(Name, Names, A...);
  Line += " -> ";
  appendValue(Line, Result);
  emit(Line);
  return Result;
}

} // namespace reptx::loader::trace

/// The first statement of a traced entry point: its own name, then every parameter in order.
#define REPTX_TRACE(Fn, ...)                                                                       \
  do {                                                                                             \
    if (::reptx::loader::trace::active()) [[unlikely]] {                                           \
      ::reptx::loader::trace::Scope TraceScope_;                                                   \
      return ::reptx::loader::trace::finish(#Fn, #__VA_ARGS__,                                     \
                                            Fn(__VA_ARGS__) __VA_OPT__(, ) __VA_ARGS__);           \
    }                                                                                              \
  } while (false)

/// The same for an export-table function that returns nothing: logs `Name(args)`.
#define REPTX_TRACE_VOID(Fn, ...)                                                                  \
  do {                                                                                             \
    if (::reptx::loader::trace::active()) [[unlikely]] {                                           \
      {                                                                                            \
        ::reptx::loader::trace::Scope TraceScope_;                                                 \
        Fn(__VA_ARGS__);                                                                           \
      }                                                                                            \
      ::reptx::loader::trace::emit(                                                                \
          ::reptx::loader::trace::formatCall(#Fn, #__VA_ARGS__ __VA_OPT__(, ) __VA_ARGS__));       \
      return;                                                                                      \
    }                                                                                              \
  } while (false)
