// Device printf: `i32 @reptx.vprintf(i64 format, i64 args)`, CUDA's `vprintf` system call (the
// lowering of printf in device code). Nothing is formatted on the device: each call appends one
// record {size, argument bytes, format address, copy of the argument buffer} to the buffer whose
// address the loader wrote into `__reptx_printf_buffer`, and the loader formats the records on
// the host at its next synchronisation point. Layout and scanner: reptx/backend/PrintfFormat.h.
#include "Device.h"

#include "../include/reptx/backend/PrintfFormat.h"

// The device address of the printf buffer, 0 when the loader gave none. External (protected
// visibility, so also a dynamic symbol of the code object) so that a loader finds and writes it;
// it is linked only into modules that call printf.
extern "C" {
[[gnu::visibility("protected")]] __attribute__((address_space(1)))
reptx::device::u64 __reptx_printf_buffer = 0;
}

namespace reptx::device {

namespace pf = reptx::printf_format;

/// Returns the number of arguments the format string consumes (a `*` width or precision counts
/// as one), or -1 when there is no buffer or the record does not fit (the buffer's overflow flag
/// is set then).
REPTX_HELPER("reptx.vprintf", s32, reptx_vprintf, (u64 Format, u64 Args)) {
  const char *F = reinterpret_cast<const char *>(Format);
  u64 Buf = __reptx_printf_buffer;
  if (!Buf || !F)
    return -1;
  auto At = [F](unsigned I) { return F[I]; };
  unsigned Bytes = 0;
  s32 Count = 0;
  for (unsigned I = 0; At(I);) {
    if (At(I) != '%') {
      ++I;
      continue;
    }
    pf::Spec S;
    I = pf::scanSpec(At, I, S);
    if (!S.Known)
      break;
    if (S.StarWidth) {
      pf::place(Bytes, 4);
      ++Count;
    }
    if (S.StarPrecision) {
      pf::place(Bytes, 4);
      ++Count;
    }
    if (unsigned B = pf::argBytes(S.Kind)) {
      pf::place(Bytes, B);
      ++Count;
    }
  }
  if (!Args)
    Bytes = 0;
  u32 RecordBytes = pf::RecordHeaderBytes + ((Bytes + 7) & ~7u);
  auto *Header = reinterpret_cast<GlobalU64 *>(Buf);
  u64 Capacity = Header[0];
  u64 Offset = __scoped_atomic_fetch_add(&Header[1], u64(RecordBytes), __ATOMIC_RELAXED,
                                         __MEMORY_SCOPE_DEVICE);
  if (Offset + RecordBytes > Capacity) {
    __scoped_atomic_store_n(reinterpret_cast<GlobalU32 *>(Buf + 16), 1u, __ATOMIC_RELAXED,
                            __MEMORY_SCOPE_DEVICE);
    return -1;
  }
  u64 Record = Buf + pf::HeaderBytes + Offset;
  auto *Words = reinterpret_cast<GlobalU32 *>(Record);
  Words[0] = RecordBytes;
  Words[1] = Bytes;
  *reinterpret_cast<GlobalU64 *>(Record + 8) = Format;
  // Every argument is 4 or 8 bytes at its natural alignment, so the buffer is whole words.
  const u32 *Src = reinterpret_cast<const u32 *>(Args);
  for (unsigned I = 0; I < Bytes / 4; ++I)
    Words[4 + I] = Src[I];
  if (Bytes & 4)
    Words[4 + Bytes / 4] = 0; // the padding to 8 bytes
  return Count;
}

} // namespace reptx::device
