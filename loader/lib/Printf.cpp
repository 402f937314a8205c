// Device printf: the device's printf FIFO and its draining (Printf.h). Kernels append records
// through the device helper library (backend/device/Printf.cpp); the host formats them here,
// conversion by conversion with the C library's snprintf, the way CUDA's driver prints device
// printf output at its synchronisation points (CUDA C++ Programming Guide, "Formatted Output").
#include "Printf.h"

#include "reptx/backend/PrintfFormat.h"
#include "reptx/ir/Intrinsics.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <cwchar>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace reptx::loader {

namespace {

namespace pf = reptx::printf_format;

/// The printf state of a device: its FIFO and the symbols of the loaded code objects that point
/// at it.
struct Fifo {
  std::mutex M;
  size_t Size = DefaultPrintfFifoSize;            // CU_LIMIT_PRINTF_FIFO_SIZE: header + records
  uint64_t Address = 0;                           // 0 until a module with printf is loaded
  std::map<const LoadedCode *, uint64_t> Symbols; // code object -> address of its symbol
};

Fifo &fifo(Device &D) { return perDevice<Fifo>(D); }

/// Allocates the FIFO (F.M held) and writes its empty header: capacity, used 0, no overflow.
bool allocateFifo(Device &D, Fifo &F) {
  uint64_t Bytes = std::max<uint64_t>(F.Size, pf::HeaderBytes + 64);
  auto A = D.Backend->allocate(Bytes);
  if (!A) {
    log().error("printf FIFO of {} bytes: {}", Bytes, llvm::toString(A.takeError()));
    return false;
  }
  uint64_t Header[4] = {Bytes - pf::HeaderBytes, 0, 0, 0};
  if (llvm::Error E = D.Backend->copyToDevice(*A, Header, sizeof(Header))) {
    log().error("printf FIFO: {}", llvm::toString(std::move(E)));
    llvm::consumeError(D.Backend->release(*A));
    return false;
  }
  F.Address = *A;
  return true;
}

bool pointAt(Device &D, uint64_t Symbol, uint64_t Buffer) {
  if (llvm::Error E = D.Backend->copyToDevice(Symbol, &Buffer, sizeof(Buffer))) {
    log().error("printf: writing {}: {}", pf::BufferSymbol, llvm::toString(std::move(E)));
    return false;
  }
  return true;
}

/// Reads a NUL-terminated string of 1- or 4-byte units at Address from the device: at most Max
/// units, never past the end of the allocation that holds it.
std::vector<uint8_t> readUnits(ExecBackend &B, uint64_t Address, unsigned Unit, size_t Max) {
  std::vector<uint8_t> Out;
  uint64_t Base, Size;
  if (B.findAllocation(Address, Base, Size)) {
    size_t Avail = size_t(std::min<uint64_t>(Base + Size - Address, uint64_t(Max) * Unit));
    Out.resize(Avail / Unit * Unit);
    if (llvm::Error E = B.copyToHost(Out.data(), Address, Out.size())) {
      llvm::consumeError(std::move(E));
      Out.clear();
    }
  } else {
    // Memory the backend does not track by allocation (HIP): unit by unit until a fault.
    for (size_t I = 0; I < Max; ++I) {
      uint8_t C[4] = {0, 0, 0, 0};
      if (llvm::Error E = B.copyToHost(C, Address + I * Unit, Unit)) {
        llvm::consumeError(std::move(E));
        break;
      }
      Out.insert(Out.end(), C, C + Unit);
      if (!std::memcmp(C, "\0\0\0\0", Unit))
        break;
    }
  }
  for (size_t I = 0; I + Unit <= Out.size(); I += Unit)
    if (!std::memcmp(&Out[I], "\0\0\0\0", Unit)) {
      Out.resize(I);
      break;
    }
  return Out;
}

template <typename T> void appendf(std::string &Out, const std::string &Spec, T Value) {
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wformat-nonliteral"
  int N = std::snprintf(nullptr, 0, Spec.c_str(), Value);
  if (N <= 0)
    return;
  size_t Old = Out.size();
  Out.resize(Old + size_t(N) + 1);
  std::snprintf(&Out[Old], size_t(N) + 1, Spec.c_str(), Value);
  Out.resize(Old + size_t(N));
#pragma clang diagnostic pop
}

bool isFlag(char C) { return C == '-' || C == '+' || C == ' ' || C == '#' || C == '0'; }

} // namespace

std::string formatRecord(const std::string &Format, const uint8_t *Args, size_t ArgBytes,
                         const std::function<std::string(uint64_t, bool)> &ReadString) {
  std::string Out;
  auto At = [&Format](unsigned I) -> char { return I < Format.size() ? Format[I] : 0; };
  unsigned Offset = 0;
  // An argument the buffer does not hold (the format asks for more than was passed) reads 0.
  auto Take = [&](unsigned Bytes) -> uint64_t {
    unsigned O = pf::place(Offset, Bytes);
    uint64_t V = 0;
    if (O + Bytes <= ArgBytes)
      std::memcpy(&V, Args + O, Bytes);
    return V;
  };
  for (unsigned I = 0; I < Format.size();) {
    if (Format[I] != '%') {
      Out += Format[I++];
      continue;
    }
    pf::Spec S;
    unsigned Next = pf::scanSpec(At, I, S);
    if (!S.Known) {
      Out.append(Format, I, std::string::npos);
      break;
    }
    if (S.Conversion == '%') {
      Out += '%';
      I = Next;
      continue;
    }
    // The specification again, with `*` replaced by the values and the host's length modifier.
    std::string Spec = "%";
    unsigned J = I + 1;
    for (; isFlag(At(J)) || At(J) == '\''; ++J)
      if (At(J) != '\'') // grouping is a locale matter; CUDA prints without it
        Spec += At(J);
    if (S.StarWidth) {
      Spec += std::to_string(int32_t(Take(4))); // a negative width is the '-' flag and a width
      ++J;
    } else {
      while (At(J) >= '0' && At(J) <= '9')
        Spec += At(J++);
    }
    if (At(J) == '.') {
      ++J;
      if (S.StarPrecision) {
        int32_t P = int32_t(Take(4));
        if (P >= 0) // a negative precision is taken as if it were omitted
          Spec += "." + std::to_string(P);
        ++J;
      } else {
        Spec += '.';
        while (At(J) >= '0' && At(J) <= '9')
          Spec += At(J++);
      }
    }
    char C = S.Conversion;
    switch (S.Kind) {
    case pf::ArgKind::Int32: {
      uint32_t V = uint32_t(Take(4));
      if (C == 'c' && S.Length[0] == 'l') {
        appendf(Out, Spec + "lc", wint_t(V));
      } else if (C == 'c') {
        appendf(Out, Spec + "c", int32_t(V));
      } else {
        std::string Len = S.Length[0] == 'h' ? (S.Length[1] == 'h' ? "hh" : "h") : "";
        if (C == 'd' || C == 'i')
          appendf(Out, Spec + Len + C, int32_t(V));
        else
          appendf(Out, Spec + Len + C, V);
      }
      break;
    }
    case pf::ArgKind::Int64: {
      uint64_t V = Take(8);
      if (C == 'd' || C == 'i')
        appendf(Out, Spec + "ll" + C, static_cast<long long>(V));
      else
        appendf(Out, Spec + "ll" + C, static_cast<unsigned long long>(V));
      break;
    }
    case pf::ArgKind::Double: {
      uint64_t Bits = Take(8);
      double D;
      std::memcpy(&D, &Bits, 8);
      appendf(Out, Spec + C, D);
      break;
    }
    case pf::ArgKind::String: {
      uint64_t P = Take(8);
      bool Wide = S.Length[0] == 'l';
      if (!P) {
        appendf(Out, Spec + "s", "(null)");
      } else if (Wide) {
        std::string Raw = ReadString(P, true);
        std::wstring W(Raw.size() / 4, L'\0');
        for (size_t K = 0; K < W.size(); ++K) {
          uint32_t U;
          std::memcpy(&U, Raw.data() + 4 * K, 4);
          W[K] = wchar_t(U);
        }
        appendf(Out, Spec + "ls", W.c_str());
      } else {
        std::string Str = ReadString(P, false);
        appendf(Out, Spec + "s", Str.c_str());
      }
      break;
    }
    case pf::ArgKind::Pointer:
      appendf(Out, Spec + "p", reinterpret_cast<void *>(uintptr_t(Take(8))));
      break;
    case pf::ArgKind::Count:
      Take(8); // %n: the device pointer is not written (CUDA ignores it too)
      break;
    case pf::ArgKind::None:
      break;
    }
    I = Next;
  }
  return Out;
}

void printfAttach(Device &D, const LoadedCode &Code) {
  uint64_t Symbol = 0, Size = 0;
  if (!Code.symbol(pf::BufferSymbol, Symbol, Size))
    return;
  Fifo &F = fifo(D);
  std::lock_guard<std::mutex> L(F.M);
  if (!F.Address && !allocateFifo(D, F))
    return; // printf returns -1 on the device
  if (pointAt(D, Symbol, F.Address))
    F.Symbols[&Code] = Symbol;
  log().debug("printf FIFO at {:#x} ({} bytes)", F.Address, F.Size);
}

namespace {

bool drainLocked(Device &D, Fifo &F) {
  ExecBackend &B = *D.Backend;
  if (!F.Address || B.exiting()) // drained by the exit handler (Driver::init)
    return false;
  uint64_t Header[3];
  if (llvm::Error E = B.copyToHost(Header, F.Address, sizeof(Header))) {
    log().error("printf FIFO: {}", llvm::toString(std::move(E)));
    return false;
  }
  uint64_t Capacity = Header[0], Used = Header[1];
  bool Overflowed = uint32_t(Header[2]) != 0;
  if (!Used && !Overflowed)
    return false;
  uint64_t Valid = std::min(Used, Capacity);
  std::vector<uint8_t> Records(Valid);
  if (llvm::Error E = B.copyToHost(Records.data(), F.Address + pf::HeaderBytes, Valid)) {
    log().error("printf FIFO: {}", llvm::toString(std::move(E)));
    return false;
  }
  std::map<uint64_t, std::string> Formats;
  auto ReadString = [&B](uint64_t P, bool Wide) {
    std::vector<uint8_t> S = readUnits(B, P, Wide ? 4 : 1, 1 << 20);
    return std::string(S.begin(), S.end());
  };
  std::string Out;
  bool Assert = false;
  for (uint64_t At = 0; At + pf::RecordHeaderBytes <= Valid;) {
    uint32_t Size, Bytes;
    uint64_t Format;
    std::memcpy(&Size, &Records[At], 4);
    std::memcpy(&Bytes, &Records[At + 4], 4);
    std::memcpy(&Format, &Records[At + 8], 8);
    // A record that was reserved but did not fit was never written (its size reads 0), and
    // nothing after it was written either.
    if (Size < pf::RecordHeaderBytes || At + Size > Valid || Bytes > Size - pf::RecordHeaderBytes)
      break;
    auto It = Formats.find(Format);
    if (It == Formats.end())
      It = Formats.emplace(Format, ReadString(Format, false)).first;
    Assert |= It->second == ir::intrinsics::AssertFormat;
    Out += formatRecord(It->second, &Records[At + pf::RecordHeaderBytes], Bytes, ReadString);
    At += Size;
  }
  if (!Out.empty()) {
    std::fwrite(Out.data(), 1, Out.size(), stdout);
    std::fflush(stdout);
  }
  if (Overflowed)
    log().warn("device printf: the FIFO ({} bytes) overflowed and output was lost; raise "
               "cudaLimitPrintfFifoSize",
               F.Size);
  uint64_t Reset[2] = {0, 0}; // used, overflowed
  if (llvm::Error E = B.copyToDevice(F.Address + 8, Reset, sizeof(Reset)))
    log().error("printf FIFO: {}", llvm::toString(std::move(E)));
  return Assert;
}

} // namespace

bool printfDrain(Device &D) {
  Fifo &F = fifo(D);
  std::lock_guard<std::mutex> L(F.M);
  return drainLocked(D, F);
}

void printfDetach(Device &D, const LoadedCode &Code) {
  Fifo &F = fifo(D);
  std::lock_guard<std::mutex> L(F.M);
  if (!F.Symbols.count(&Code))
    return;
  drainLocked(D, F); // the format strings live in the code object
  F.Symbols.erase(&Code);
}

bool printfAttached(Device &D) {
  Fifo &F = fifo(D);
  std::lock_guard<std::mutex> L(F.M);
  return F.Address != 0;
}

size_t printfFifoSize(Device &D) {
  Fifo &F = fifo(D);
  std::lock_guard<std::mutex> L(F.M);
  return F.Size;
}

CUresult setPrintfFifoSize(Device &D, size_t Bytes) {
  Fifo &F = fifo(D);
  std::lock_guard<std::mutex> L(F.M);
  if (Bytes == F.Size)
    return CUDA_SUCCESS;
  F.Size = Bytes;
  if (!F.Address)
    return CUDA_SUCCESS;
  // CUDA refuses a change after a kernel with printf ran; reptx drains and moves to a new FIFO.
  drainLocked(D, F);
  uint64_t Old = F.Address;
  F.Address = 0;
  if (!allocateFifo(D, F)) {
    F.Address = Old;
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  llvm::consumeError(D.Backend->release(Old));
  for (auto &[Code, Symbol] : F.Symbols)
    pointAt(D, Symbol, F.Address);
  return CUDA_SUCCESS;
}

} // namespace reptx::loader
