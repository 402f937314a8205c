// Argument formatting of REPTX_LOG=trace (Trace.h).
#include "Trace.h"

#include <cinttypes>
#include <cstdio>

namespace reptx::loader::trace {

void appendHex(std::string &Out, unsigned long long V) {
  char Buf[24];
  std::snprintf(Buf, sizeof(Buf), "0x%llx", V);
  Out += Buf;
}

void appendPointer(std::string &Out, const void *P) {
  if (!P)
    Out += "NULL";
  else
    appendHex(Out, reinterpret_cast<uintptr_t>(P));
}

void appendSigned(std::string &Out, long long V) { Out += std::to_string(V); }

void appendUnsigned(std::string &Out, unsigned long long V) { Out += std::to_string(V); }

void appendString(std::string &Out, const char *S) {
  if (!S) {
    Out += "NULL";
    return;
  }
  constexpr size_t Limit = 96; // long enough for every entry-point and kernel name in practice
  Out += '"';
  size_t N = 0;
  for (; S[N] && N < Limit; ++N) {
    unsigned char C = static_cast<unsigned char>(S[N]);
    if (C == '"' || C == '\\') {
      Out += '\\';
      Out += char(C);
    } else if (C < 0x20 || C >= 0x7f) {
      char Buf[8];
      std::snprintf(Buf, sizeof(Buf), "\\x%02x", C);
      Out += Buf;
    } else {
      Out += char(C);
    }
  }
  Out += '"';
  if (S[N])
    Out += "...";
}

void appendResult(std::string &Out, CUresult R) {
  const char *Name = nullptr;
  // cuGetErrorName is itself traced, but the caller is inside a Scope (or tracing is off).
  if (cuGetErrorName(R, &Name) == CUDA_SUCCESS && Name) {
    Out += Name;
    return;
  }
  Out += "CUresult(";
  Out += std::to_string(static_cast<int>(R));
  Out += ')';
}

void appendName(std::string &Out, const char *&Names) {
  while (*Names == ' ' || *Names == ',')
    ++Names;
  const char *Begin = Names;
  while (*Names && *Names != ',')
    ++Names;
  const char *End = Names;
  while (End > Begin && End[-1] == ' ')
    --End;
  Out.append(Begin, End);
}

void emit(const std::string &Line) { log().trace("{}", Line); }

} // namespace reptx::loader::trace
