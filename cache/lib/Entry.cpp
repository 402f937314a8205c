// Entry payload encoding and the entry file format (see Entry.h for the layout). Every read is
// bounds-checked: a damaged file is an error, never an out-of-bounds access or a huge allocation.
#include "reptx/cache/Entry.h"

#include "llvm/Support/Endian.h"

#include <xxhash.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <tuple>

namespace reptx::cache {

namespace endian = llvm::support::endian;

void Entry::sortKernels() {
  // (Name, Info) order: deterministic even for repeated names, so equal entries encode equally.
  std::sort(Kernels.begin(), Kernels.end(), [](const KernelRecord &A, const KernelRecord &B) {
    return std::tie(A.Name, A.Info) < std::tie(B.Name, B.Info);
  });
}

const KernelRecord *Entry::findKernel(llvm::StringRef Name) const {
  auto It = std::lower_bound(Kernels.begin(), Kernels.end(), Name,
                             [](const KernelRecord &R, llvm::StringRef N) { return R.Name < N; });
  return It != Kernels.end() && It->Name == Name ? &*It : nullptr;
}

namespace {

constexpr char PayloadMagic[4] = {'R', 'X', 'P', '1'};

void put32(std::string &Out, uint32_t V) {
  char B[4];
  endian::write32le(B, V);
  Out.append(B, 4);
}

void put64(std::string &Out, uint64_t V) {
  char B[8];
  endian::write64le(B, V);
  Out.append(B, 8);
}

/// A bounds-checked little-endian reader over a byte string.
class Reader {
public:
  explicit Reader(llvm::StringRef B) : Bytes(B) {}
  bool u32(uint32_t &V) {
    if (Bytes.size() - Pos < 4)
      return false;
    V = endian::read32le(Bytes.data() + Pos);
    Pos += 4;
    return true;
  }
  bool u64(uint64_t &V) {
    if (Bytes.size() - Pos < 8)
      return false;
    V = endian::read64le(Bytes.data() + Pos);
    Pos += 8;
    return true;
  }
  bool bytes(uint64_t N, llvm::StringRef &V) {
    if (Bytes.size() - Pos < N)
      return false;
    V = Bytes.substr(Pos, N);
    Pos += N;
    return true;
  }
  bool atEnd() const { return Pos == Bytes.size(); }

private:
  llvm::StringRef Bytes;
  size_t Pos = 0;
};

llvm::Error bad(const char *What) { return llvm::createStringError("cache entry: %s", What); }

} // namespace

// Payload layout: the code object first, so decoding can hand the decompressed buffer over as
// the code object without copying it; then the kernel index (u32 count; per kernel u32 length and
// name, u32 length and info); then u64 code object size and the magic "RXP1".
std::string encodePayload(const Entry &E) {
  std::vector<const KernelRecord *> Sorted;
  for (const KernelRecord &K : E.Kernels)
    Sorted.push_back(&K);
  std::sort(Sorted.begin(), Sorted.end(), [](const KernelRecord *A, const KernelRecord *B) {
    return std::tie(A->Name, A->Info) < std::tie(B->Name, B->Info);
  });
  std::string Out = E.CodeObject;
  put32(Out, Sorted.size());
  for (const KernelRecord *K : Sorted) {
    put32(Out, K->Name.size());
    Out += K->Name;
    put32(Out, K->Info.size());
    Out += K->Info;
  }
  put64(Out, E.CodeObject.size());
  Out.append(PayloadMagic, 4);
  return Out;
}

llvm::Expected<Entry> decodePayload(std::string Bytes) {
  constexpr size_t Trailer = 12;
  if (Bytes.size() < Trailer ||
      llvm::StringRef(Bytes).take_back(4) != llvm::StringRef(PayloadMagic, 4))
    return bad("bad payload magic");
  uint64_t CodeSize = endian::read64le(Bytes.data() + Bytes.size() - Trailer);
  if (CodeSize > Bytes.size() - Trailer)
    return bad("bad code object size");
  Reader R(llvm::StringRef(Bytes).drop_front(CodeSize).drop_back(Trailer));
  uint32_t Count = 0;
  if (!R.u32(Count) || Count > Bytes.size() / 8)
    return bad("bad kernel count");
  Entry E;
  E.Kernels.reserve(Count);
  for (uint32_t I = 0; I < Count; ++I) {
    uint32_t NameLen = 0, InfoLen = 0;
    llvm::StringRef Name, Info;
    if (!R.u32(NameLen) || !R.bytes(NameLen, Name) || !R.u32(InfoLen) || !R.bytes(InfoLen, Info))
      return bad("truncated kernel index");
    if (!E.Kernels.empty() && Name < E.Kernels.back().Name)
      return bad("kernel index not sorted");
    E.Kernels.push_back({Name.str(), Info.str()});
  }
  if (!R.atEnd())
    return bad("bytes after the kernel index");
  Bytes.resize(CodeSize);
  E.CodeObject = std::move(Bytes);
  return E;
}

llvm::Expected<std::string> encodeEntryFile(const Key &K, const Entry &E, int ZstdLevel) {
  std::string KeyText = K.serialize();
  if (KeyText.size() > MaxKeySize)
    return bad("key too large");
  std::string Payload = encodePayload(E);
  if (Payload.size() > MaxPayloadSize)
    return bad("payload too large");
  std::string Out(EntryFixedHeaderSize + KeyText.size() + 8, '\0');
  size_t HeaderSize = Out.size();
  Out.resize(HeaderSize + ZSTD_compressBound(Payload.size()));
  size_t Stored = ZSTD_compress(Out.data() + HeaderSize, Out.size() - HeaderSize, Payload.data(),
                                Payload.size(), ZstdLevel);
  if (ZSTD_isError(Stored))
    return llvm::createStringError("cache entry: zstd: %s", ZSTD_getErrorName(Stored));
  Out.resize(HeaderSize + Stored);

  char *H = Out.data();
  std::memcpy(H, EntryMagic, 8);
  endian::write32le(H + 8, EntryFormatVersion);
  endian::write32le(H + 12, KeyText.size());
  endian::write64le(H + 16, Stored);
  endian::write64le(H + 24, Payload.size());
  endian::write64le(H + 32, XXH3_64bits(H + HeaderSize, Stored));
  hashBytes(KeyText).toBytes(reinterpret_cast<uint8_t *>(H + 40));
  endian::write32le(H + 56, CompressionZstd);
  endian::write32le(H + 60, 0);
  std::memcpy(H + EntryFixedHeaderSize, KeyText.data(), KeyText.size());
  size_t ChecksumAt = EntryFixedHeaderSize + KeyText.size();
  endian::write64le(H + ChecksumAt, XXH3_64bits(H, ChecksumAt));
  return Out;
}

llvm::Expected<uint64_t> entryHeaderSize(llvm::StringRef Prefix) {
  if (Prefix.size() < EntryFixedHeaderSize)
    return bad("shorter than its header");
  if (std::memcmp(Prefix.data(), EntryMagic, 8) != 0)
    return bad("bad magic");
  uint32_t KeyLen = endian::read32le(Prefix.data() + 12);
  if (KeyLen > MaxKeySize)
    return bad("key length out of range");
  return EntryFixedHeaderSize + KeyLen + 8;
}

llvm::Expected<EntryHeader> parseEntryHeader(llvm::StringRef Bytes, uint64_t FileSize) {
  auto Size = entryHeaderSize(Bytes);
  if (!Size)
    return Size.takeError();
  if (Bytes.size() < *Size || FileSize < *Size)
    return bad("truncated header");
  const char *P = Bytes.data();
  // The checksum first: after it matches, every field below is what the writer wrote.
  uint64_t ChecksumAt = *Size - 8;
  if (endian::read64le(P + ChecksumAt) != XXH3_64bits(P, ChecksumAt))
    return bad("header checksum mismatch");
  EntryHeader H;
  H.FormatVersion = endian::read32le(P + 8);
  if (H.FormatVersion != EntryFormatVersion)
    return llvm::createStringError("cache entry: format version %u is not %u", H.FormatVersion,
                                   EntryFormatVersion);
  H.StoredSize = endian::read64le(P + 16);
  H.UncompressedSize = endian::read64le(P + 24);
  H.PayloadChecksum = endian::read64le(P + 32);
  H.KeyDigest = Digest::fromBytes(reinterpret_cast<const uint8_t *>(P + 40));
  if (endian::read32le(P + 56) != CompressionZstd || endian::read32le(P + 60) != 0)
    return bad("unknown compression or reserved bits set");
  if (H.UncompressedSize > MaxPayloadSize || H.StoredSize > MaxPayloadSize)
    return bad("payload size out of range");
  H.KeyText = Bytes.substr(EntryFixedHeaderSize, ChecksumAt - EntryFixedHeaderSize);
  H.HeaderSize = *Size;
  if (FileSize != H.HeaderSize + H.StoredSize)
    return FileSize < H.HeaderSize + H.StoredSize ? bad("truncated payload")
                                                  : bad("bytes after the payload");
  return H;
}

llvm::Expected<Entry> decodeEntryPayload(llvm::StringRef File, const EntryHeader &H) {
  if (File.size() != H.HeaderSize + H.StoredSize)
    return bad("truncated payload");
  llvm::StringRef Stored = File.substr(H.HeaderSize);
  if (XXH3_64bits(Stored.data(), Stored.size()) != H.PayloadChecksum)
    return bad("payload checksum mismatch");
  // The frame must say exactly the declared size; decompressing into a buffer of that size
  // can't write past it.
  unsigned long long FrameSize = ZSTD_getFrameContentSize(Stored.data(), Stored.size());
  if (FrameSize != H.UncompressedSize)
    return bad("payload size disagrees with the header");
  // One decompression context per thread: creating one per lookup costs more than small
  // entries take to decompress.
  struct FreeDCtx {
    void operator()(ZSTD_DCtx *C) const { ZSTD_freeDCtx(C); }
  };
  thread_local std::unique_ptr<ZSTD_DCtx, FreeDCtx> DCtx(ZSTD_createDCtx());
  if (!DCtx)
    return bad("out of memory");
  std::string Payload(H.UncompressedSize, '\0');
  size_t N =
      ZSTD_decompressDCtx(DCtx.get(), Payload.data(), Payload.size(), Stored.data(), Stored.size());
  if (ZSTD_isError(N))
    return llvm::createStringError("cache entry: zstd: %s", ZSTD_getErrorName(N));
  if (N != H.UncompressedSize)
    return bad("payload shorter than declared");
  return decodePayload(std::move(Payload));
}

llvm::Expected<Digest> validateEntryFile(llvm::StringRef File) {
  auto H = parseEntryHeader(File, File.size());
  if (!H)
    return H.takeError();
  auto K = Key::parse(H->KeyText);
  if (!K)
    return K.takeError();
  if (hashBytes(H->KeyText) != H->KeyDigest)
    return bad("key digest mismatch");
  auto E = decodeEntryPayload(File, *H);
  if (!E)
    return E.takeError();
  return H->KeyDigest;
}

} // namespace reptx::cache
