// What a cache entry holds (a module's code object and an index of its kernels) and the entry file
// format: a checksummed header carrying the full key, then the zstd-compressed payload.
//
// File layout (little-endian):
//   0   8  magic "RPTXCENT"
//   8   4  format version (EntryFormatVersion)
//   12  4  key length K
//   16  8  payload size stored (compressed)
//   24  8  payload size uncompressed
//   32  8  XXH3-64 of the stored payload
//   40 16  XXH3-128 of the key text (canonical byte order), also the file's name
//   56  4  compression (1 = zstd)
//   60  4  reserved, 0
//   64  K  key text (Key::serialize)
//   64+K 8 XXH3-64 of bytes [0, 64+K): the header checksum
//   72+K   payload; the file ends exactly where it does
#pragma once

#include "reptx/cache/Key.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace reptx::cache {

/// One kernel of a module entry. Info is opaque to the cache: whatever the loader needs to launch
/// the kernel without parsing the code object again (descriptor offset, argument layout...).
struct KernelRecord {
  std::string Name;
  std::string Info;

  friend bool operator==(const KernelRecord &, const KernelRecord &) = default;
};

/// A module compiled for one target: its code object and the index of its kernels.
struct Entry {
  std::string CodeObject;
  std::vector<KernelRecord> Kernels; // kept sorted by name (sortKernels) for findKernel

  void sortKernels();
  /// Binary search in the (sorted) index.
  const KernelRecord *findKernel(llvm::StringRef Name) const;

  friend bool operator==(const Entry &, const Entry &) = default;
};

inline constexpr char EntryMagic[8] = {'R', 'P', 'T', 'X', 'C', 'E', 'N', 'T'};
inline constexpr uint32_t EntryFormatVersion = 1;
inline constexpr size_t EntryFixedHeaderSize = 64;
inline constexpr uint32_t CompressionZstd = 1;
/// Sanity bounds that keep a damaged header from asking for absurd allocations.
inline constexpr uint64_t MaxKeySize = 1 << 20;
inline constexpr uint64_t MaxPayloadSize = 4ull << 30;

/// The payload inside the compressed stream: the code object, then the kernel index. Decoding
/// takes the buffer by value and keeps it as the code object, so a hit copies nothing.
std::string encodePayload(const Entry &E);
llvm::Expected<Entry> decodePayload(std::string Bytes);

/// A parsed and checked entry header.
struct EntryHeader {
  uint32_t FormatVersion = 0;
  uint64_t StoredSize = 0;
  uint64_t UncompressedSize = 0;
  uint64_t PayloadChecksum = 0;
  Digest KeyDigest;
  llvm::StringRef KeyText; // points into the bytes given to parseEntryHeader
  uint64_t HeaderSize = 0; // where the payload starts
};

/// The complete bytes of an entry file.
llvm::Expected<std::string> encodeEntryFile(const Key &K, const Entry &E, int ZstdLevel = 3);

/// Size of the header that starts with Prefix (at least EntryFixedHeaderSize bytes), so a caller
/// reading a file piecewise knows how much to read for parseEntryHeader.
llvm::Expected<uint64_t> entryHeaderSize(llvm::StringRef Prefix);
/// Checks magic, version, bounds and the header checksum. FileSize is the whole file's length,
/// which must equal header plus stored payload exactly (a truncated or extended file fails).
/// Bytes needs to hold only the header.
llvm::Expected<EntryHeader> parseEntryHeader(llvm::StringRef Bytes, uint64_t FileSize);
/// Checks the payload checksum, decompresses to exactly the declared size and decodes.
llvm::Expected<Entry> decodeEntryPayload(llvm::StringRef File, const EntryHeader &H);
/// Everything parseEntryHeader and decodeEntryPayload check, plus: the key text is a canonical
/// key and its digest matches the header. For files whose key the caller does not know (verify,
/// import).
llvm::Expected<Digest> validateEntryFile(llvm::StringRef File);

} // namespace reptx::cache
