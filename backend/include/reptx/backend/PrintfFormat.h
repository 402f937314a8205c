// Device printf (CUDA's `vprintf` system call): the layout of the buffer that the device helper
// library (backend/device/Printf.cpp) fills and a loader drains, and the format-string scanner
// both sides use to find the arguments. Header-only and freestanding (no library includes), so
// that the device helpers, compiled by clang-22 for amdgcn, and host code share it.
//
// The argument buffer that nvcc passes to vprintf holds each argument at its natural alignment
// in call order: int, unsigned, char and short (promoted to int) take 4 bytes; long, long long,
// size_t, pointers (%s, %p, %n) and float (promoted to double) take 8. A `*` width or precision
// consumes an int before the value it applies to (C11 7.21.6.1, "The fprintf function").
//
// Buffer layout (little-endian, in device memory, at the address the code object's global
// `__reptx_printf_buffer` holds; 0 there means no buffer):
//   0  u64 capacity   bytes available for records (after the 32-byte header)
//   8  u64 used       bytes of records reserved so far (bumped atomically; may exceed capacity
//                     when a reservation did not fit, whose record is then not written)
//   16 u32 overflowed set to 1 when a record did not fit
//   20 u32, 24 u64    reserved (0)
//   32 records, back to back, each 8-byte aligned:
//        u32 record bytes (16 + args bytes rounded up to 8), u32 args bytes,
//        u64 format string (generic address), args bytes copied from the argument buffer.
#pragma once

namespace reptx::printf_format {

inline constexpr unsigned HeaderBytes = 32;
inline constexpr unsigned RecordHeaderBytes = 16;
/// The symbol of the code object's 64-bit global holding the buffer's device address.
inline constexpr const char BufferSymbol[] = "__reptx_printf_buffer";

/// What a conversion consumes from the argument buffer.
enum class ArgKind : unsigned char {
  None,    // %% or an unknown conversion (which ends the scan)
  Int32,   // d i u o x X c (without l/ll/z/j/t/q), %lc, and a `*` width or precision
  Int64,   // d i u o x X with l, ll, z, j, t or q
  Double,  // e E f F g G a A (L too: the device has no long double)
  String,  // %s: a generic address of a NUL-terminated string (%ls: of wchar_t)
  Pointer, // %p
  Count,   // %n: a pointer, never written through
};

inline constexpr unsigned argBytes(ArgKind K) {
  return K == ArgKind::None ? 0 : K == ArgKind::Int32 ? 4 : 8;
}

/// One conversion specification, `%[flags][width][.precision][length]conversion`.
struct Spec {
  unsigned Begin = 0, End = 0; // the spec's characters: [Begin, End), Format[Begin] == '%'
  bool StarWidth = false, StarPrecision = false;
  char Length[3] = {0, 0, 0}; // "", "hh", "h", "l", "ll", "z", "j", "t", "L", "q"
  char Conversion = 0;
  ArgKind Kind = ArgKind::None;
  bool Known = false; // false: unknown or missing conversion character; stop there
};

/// Scans the conversion specification at Format[I] == '%' (At(i) returns the i-th character, 0
/// at or past the end). Returns the index after it.
template <typename CharAt> constexpr unsigned scanSpec(CharAt At, unsigned I, Spec &S) {
  S = Spec();
  S.Begin = I++;
  auto IsDigit = [](char C) { return C >= '0' && C <= '9'; };
  for (char C = At(I); C == '-' || C == '+' || C == ' ' || C == '#' || C == '0' || C == '\'';
       C = At(I))
    ++I;
  if (At(I) == '*') {
    S.StarWidth = true;
    ++I;
  } else {
    while (IsDigit(At(I)))
      ++I;
  }
  if (At(I) == '.') {
    ++I;
    if (At(I) == '*') {
      S.StarPrecision = true;
      ++I;
    } else {
      while (IsDigit(At(I)))
        ++I;
    }
  }
  char L = At(I);
  if (L == 'h' || L == 'l') {
    S.Length[0] = L;
    ++I;
    if (At(I) == L) {
      S.Length[1] = L;
      ++I;
    }
  } else if (L == 'z' || L == 'j' || L == 't' || L == 'L' || L == 'q') {
    S.Length[0] = L;
    ++I;
  }
  char C = At(I);
  S.Conversion = C;
  if (C == 0) {
    S.End = I;
    return I;
  }
  ++I;
  S.End = I;
  S.Known = true;
  bool Long = S.Length[0] == 'l' || S.Length[0] == 'z' || S.Length[0] == 'j' ||
              S.Length[0] == 't' || S.Length[0] == 'q';
  switch (C) {
  case '%':
    S.Kind = ArgKind::None;
    break;
  case 'd':
  case 'i':
  case 'u':
  case 'o':
  case 'x':
  case 'X':
    S.Kind = Long ? ArgKind::Int64 : ArgKind::Int32;
    break;
  case 'c':
    S.Kind = ArgKind::Int32;
    break;
  case 'e':
  case 'E':
  case 'f':
  case 'F':
  case 'g':
  case 'G':
  case 'a':
  case 'A':
    S.Kind = ArgKind::Double;
    break;
  case 's':
    S.Kind = ArgKind::String;
    break;
  case 'p':
    S.Kind = ArgKind::Pointer;
    break;
  case 'n':
    S.Kind = ArgKind::Count;
    break;
  default:
    S.Known = false;
    break;
  }
  return I;
}

/// Places an argument of Bytes at its natural alignment after Offset; returns its offset.
inline constexpr unsigned place(unsigned &Offset, unsigned Bytes) {
  unsigned At = (Offset + Bytes - 1) / Bytes * Bytes;
  Offset = At + Bytes;
  return At;
}

/// Bytes of the argument buffer that the format string's conversions read (the end of the last
/// argument). The scan stops at the end of the string or at an unknown conversion.
template <typename CharAt> constexpr unsigned argumentBytes(CharAt At) {
  unsigned Offset = 0;
  for (unsigned I = 0; At(I);) {
    if (At(I) != '%') {
      ++I;
      continue;
    }
    Spec S;
    I = scanSpec(At, I, S);
    if (!S.Known)
      break;
    if (S.StarWidth)
      place(Offset, 4);
    if (S.StarPrecision)
      place(Offset, 4);
    if (unsigned B = argBytes(S.Kind))
      place(Offset, B);
  }
  return Offset;
}

} // namespace reptx::printf_format
