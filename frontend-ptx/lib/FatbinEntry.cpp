// Fatbin container and entry headers (fatbin-format.md §3-§8): validation of every field read
// from the file, and payload decompression (zstd frames, LZ4 raw blocks) bounded by the size the
// header declares.
#include "FatbinInternal.h"

#include "llvm/Support/FormatVariadic.h"

#include <cstring>
#include <lz4.h>
#include <zstd.h>
#include <zstd_errors.h>

namespace reptx::fatbin {

llvm::StringRef kindName(EntryKind K) {
  switch (K) {
  case EntryKind::PTX:
    return "ptx";
  case EntryKind::Cubin:
    return "elf";
  case EntryKind::LTOIR:
    return "ltoir";
  }
  return "unknown";
}

llvm::StringRef compressionName(Compression C) {
  switch (C) {
  case Compression::None:
    return "none";
  case Compression::Zstd:
    return "zstd";
  case Compression::LZ4:
    return "lz4";
  }
  return "unknown";
}

llvm::StringRef fileKindName(FileKind K) {
  switch (K) {
  case FileKind::ELFExecutable:
    return "ELF executable";
  case FileKind::ELFSharedObject:
    return "ELF shared object";
  case FileKind::ELFRelocatable:
    return "ELF relocatable object";
  case FileKind::Archive:
    return "ar archive";
  case FileKind::BareFatbin:
    return "fatbin";
  case FileKind::Other:
    return "other";
  }
  return "other";
}

const Entry *bestPtxEntry(const Container &C, uint32_t MaxArch) {
  const Entry *Best = nullptr, *Newer = nullptr;
  bool Sass = false;
  for (const Entry &E : C.Entries) {
    if (E.Kind == EntryKind::PTX && E.Arch <= MaxArch && (!Best || E.Arch > Best->Arch))
      Best = &E;
    if (E.Kind == EntryKind::PTX && E.Arch > MaxArch && (!Newer || E.Arch < Newer->Arch))
      Newer = &E;
    if (E.Kind == EntryKind::Cubin)
      Sass |= E.Flags & FlagArchSpecific ? E.Arch == MaxArch
                                         : E.Arch / 10 == MaxArch / 10 && E.Arch <= MaxArch;
  }
  return Best ? Best : Sass ? Newer : nullptr;
}

std::string archName(uint32_t Arch, uint64_t Flags) {
  std::string S = "sm_" + std::to_string(Arch);
  if (Flags & FlagArchSpecific)
    S += 'a';
  else if (Flags & FlagFamilySpecific)
    S += 'f';
  return S;
}

Compression Entry::compression() const {
  if (Flags & FlagCompressZstd)
    return Compression::Zstd;
  if (Flags & FlagCompressLZ4)
    return Compression::LZ4;
  return Compression::None;
}

namespace {

llvm::Error containerError(llvm::StringRef Path, uint64_t Off, const llvm::Twine &Msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 llvm::formatv("{0}: container at {1:x}: ", Path, Off) + Msg);
}

/// A string stored inside the entry header: [Off, Off+Size) relative to the entry start.
bool headerString(const uint8_t *Entry, uint32_t HeaderSize, uint64_t Off, uint64_t Size,
                  bool CutAtNul, std::string &Out) {
  if (Off > HeaderSize || Size > HeaderSize - Off)
    return false;
  Out.assign(reinterpret_cast<const char *>(Entry + Off), Size);
  if (CutAtNul)
    Out.resize(strnlen(Out.data(), Out.size()));
  return true;
}

} // namespace

llvm::Error parseContainer(llvm::StringRef Path, llvm::ArrayRef<uint8_t> Bytes,
                           const ScanOptions &Opts, uint64_t Off, uint64_t Limit, Container &C) {
  if (Limit > Bytes.size() || Off > Limit || Limit - Off < ContainerHeaderSize)
    return containerError(Path, Off, "truncated header (16 bytes needed)");
  const uint8_t *H = Bytes.data() + Off;
  if (readLE<uint32_t>(H) != ContainerMagic)
    return containerError(
        Path, Off,
        llvm::formatv("bad magic {0:x8} (expected {1:x8})", readLE<uint32_t>(H), ContainerMagic));
  C.Offset = Off;
  C.Version = readLE<uint16_t>(H + 4);
  C.HeaderSize = readLE<uint16_t>(H + 6);
  C.FatSize = readLE<uint64_t>(H + 8);
  if (C.Version != 1)
    return containerError(Path, Off, llvm::formatv("unsupported version {0}", C.Version));
  if (C.HeaderSize != ContainerHeaderSize)
    return containerError(Path, Off, llvm::formatv("unexpected header size {0}", C.HeaderSize));
  uint64_t Avail = Limit - Off - C.HeaderSize;
  if (C.FatSize > Avail)
    return containerError(Path, Off,
                          llvm::formatv("size {0} extends past the end of its section or file "
                                        "({1} bytes available)",
                                        C.FatSize, Avail));
  uint64_t P = Off + C.HeaderSize;
  uint64_t End = P + C.FatSize;
  C.Entries.clear();
  while (P < End) {
    unsigned Index = C.Entries.size();
    auto Fail = [&](const llvm::Twine &Msg) {
      return containerError(Path, Off, llvm::formatv("entry {0} at {1:x}: ", Index, P) + Msg);
    };
    if (End - P < EntryFixedHeaderSize) {
      for (uint64_t I = P; I < End; ++I)
        if (Bytes[I] != 0)
          return Fail(llvm::formatv("{0} trailing bytes, too few for an entry header", End - P));
      break;
    }
    const uint8_t *E = Bytes.data() + P;
    Entry En;
    En.Offset = P;
    uint16_t Kind = readLE<uint16_t>(E);
    uint16_t HeaderVersion = readLE<uint16_t>(E + 2);
    En.HeaderSize = readLE<uint32_t>(E + 4);
    En.PayloadSize = readLE<uint64_t>(E + 8);
    En.CompressedSize = readLE<uint32_t>(E + 0x10);
    uint32_t AuxDesc = readLE<uint32_t>(E + 0x14);
    En.Minor = readLE<uint16_t>(E + 0x18);
    En.Major = readLE<uint16_t>(E + 0x1a);
    En.Arch = readLE<uint32_t>(E + 0x1c);
    uint32_t IdentOff = readLE<uint32_t>(E + 0x20);
    uint32_t IdentSize = readLE<uint32_t>(E + 0x24);
    En.Flags = readLE<uint64_t>(E + 0x28);
    En.UncompressedSize = readLE<uint64_t>(E + 0x38);

    if (Kind != 1 && Kind != 2 && Kind != 8)
      return Fail(llvm::formatv("unknown entry kind {0}", Kind));
    En.Kind = EntryKind(Kind);
    if (HeaderVersion != 0x0101)
      return Fail(llvm::formatv("unsupported entry header version {0:x4}", HeaderVersion));
    if (En.HeaderSize < EntryFixedHeaderSize)
      return Fail(llvm::formatv("header size {0} is smaller than {1}", En.HeaderSize,
                                EntryFixedHeaderSize));
    if (En.HeaderSize > End - P)
      return Fail(llvm::formatv("header size {0} extends past the container end", En.HeaderSize));
    if (En.PayloadSize > End - P - En.HeaderSize)
      return Fail(llvm::formatv("payload size {0} extends past the container end ({1} bytes left)",
                                En.PayloadSize, End - P - En.HeaderSize));
    bool Zstd = En.Flags & FlagCompressZstd, Lz4 = En.Flags & FlagCompressLZ4;
    if (Zstd && Lz4)
      return Fail("flags ask for both zstd and LZ4 compression");
    if (En.CompressedSize > En.PayloadSize)
      return Fail(llvm::formatv("compressed size {0} exceeds the payload size {1}",
                                En.CompressedSize, En.PayloadSize));
    if ((Zstd || Lz4) && !En.encrypted()) {
      if (En.CompressedSize == 0)
        return Fail("compressed entry without a compressed size");
      if (En.UncompressedSize == 0)
        return Fail("compressed entry without a decompressed size");
    }
    if (En.declaredSize() > Opts.MaxEntrySize)
      return Fail(llvm::formatv("declared size {0} exceeds the limit of {1} bytes",
                                En.declaredSize(), Opts.MaxEntrySize));
    if (AuxDesc) {
      if (AuxDesc > En.HeaderSize || En.HeaderSize - AuxDesc < 8)
        return Fail(llvm::formatv("options descriptor at +{0:x} lies outside the {1}-byte header",
                                  AuxDesc, En.HeaderSize));
      uint32_t AuxOff = readLE<uint32_t>(E + AuxDesc);
      uint32_t AuxSize = readLE<uint32_t>(E + AuxDesc + 4);
      // The older fatbinary that built cuFFT writes {0, 0}: no options (fatbin-format.md §6).
      if (AuxOff && AuxSize &&
          !headerString(E, En.HeaderSize, AuxOff, AuxSize, /*CutAtNul=*/false, En.Aux))
        return Fail(llvm::formatv("options string (+{0:x}, {1} bytes) lies outside the {2}-byte "
                                  "header",
                                  AuxOff, AuxSize, En.HeaderSize));
    }
    if (IdentOff &&
        !headerString(E, En.HeaderSize, IdentOff, IdentSize, /*CutAtNul=*/true, En.Ident))
      return Fail(llvm::formatv("identifier (+{0:x}, {1} bytes) lies outside the {2}-byte header",
                                IdentOff, IdentSize, En.HeaderSize));
    P += En.HeaderSize + En.PayloadSize;
    C.Entries.push_back(std::move(En));
  }
  return llvm::Error::success();
}

// ---------------------------------------------------------------- FatbinFile

FatbinFile::FatbinFile() = default;
FatbinFile::FatbinFile(FatbinFile &&) noexcept = default;
FatbinFile &FatbinFile::operator=(FatbinFile &&) noexcept = default;
FatbinFile::~FatbinFile() = default;

std::string FatbinFile::describe(const Entry &E) const {
  for (const Container &C : Containers)
    if (E.Offset >= C.Offset && E.Offset < C.end())
      for (size_t I = 0; I < C.Entries.size(); ++I)
        if (C.Entries[I].Offset == E.Offset)
          return llvm::formatv("{0}: container at {1:x}: entry {2} at {3:x}", Path, C.Offset, I,
                               E.Offset);
  return llvm::formatv("{0}: entry at {1:x}", Path, E.Offset);
}

namespace {

struct ZstdContext {
  ZSTD_DCtx *Ctx = ZSTD_createDCtx();
  ~ZstdContext() { ZSTD_freeDCtx(Ctx); }
};

// Decompresses (or copies) entry E of F into Out, a contiguous byte container (std::vector of
// bytes for payload(), std::string for ptxText(), so that a text is not copied again).
template <class Buffer>
llvm::Error decodePayload(const FatbinFile &F, const Entry &E, uint64_t MaxEntrySize, Buffer &Out) {
  auto Fail = [&](const llvm::Twine &Msg) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), F.describe(E) + ": " + Msg);
  };
  llvm::ArrayRef<uint8_t> Bytes = F.bytes();
  auto Data = [&] { return reinterpret_cast<char *>(Out.data()); };
  if (E.encrypted())
    return Fail("payload is encrypted (LTO-IR, flag 0x10000) and cannot be decoded");
  if (E.dataOffset() > Bytes.size() || E.storedSize() > Bytes.size() - E.dataOffset())
    return Fail("payload lies outside the file");
  const uint8_t *Src = Bytes.data() + E.dataOffset();
  size_t SrcSize = E.storedSize();
  uint64_t Declared = E.declaredSize();
  if (Declared > MaxEntrySize)
    return Fail(
        llvm::formatv("declared size {0} exceeds the limit of {1} bytes", Declared, MaxEntrySize));
  switch (E.compression()) {
  case Compression::None:
    Out.resize(SrcSize);
    if (SrcSize)
      std::memcpy(Data(), Src, SrcSize);
    return llvm::Error::success();
  case Compression::Zstd: {
    unsigned long long FrameSize = ZSTD_getFrameContentSize(Src, SrcSize);
    if (FrameSize == ZSTD_CONTENTSIZE_ERROR)
      return Fail("not a zstd frame");
    if (FrameSize != ZSTD_CONTENTSIZE_UNKNOWN && FrameSize != Declared)
      return Fail(llvm::formatv("zstd frame holds {0} bytes but the header declares {1}", FrameSize,
                                Declared));
    Out.resize(Declared);
    thread_local ZstdContext Z;
    size_t R = ZSTD_decompressDCtx(Z.Ctx, Data(), Out.size(), Src, SrcSize);
    if (ZSTD_isError(R)) {
      if (ZSTD_getErrorCode(R) == ZSTD_error_dstSize_tooSmall)
        return Fail(
            llvm::formatv("zstd data decompresses to more than the declared {0} bytes", Declared));
      return Fail(llvm::formatv("corrupt zstd data: {0}", ZSTD_getErrorName(R)));
    }
    if (R != Declared)
      return Fail(llvm::formatv("zstd data decompresses to {0} bytes, the header declares {1}", R,
                                Declared));
    return llvm::Error::success();
  }
  case Compression::LZ4: {
    if (Declared > uint64_t(LZ4_MAX_INPUT_SIZE) || SrcSize > size_t(LZ4_MAX_INPUT_SIZE))
      return Fail("LZ4 block too large");
    Out.resize(Declared);
    int R = LZ4_decompress_safe(reinterpret_cast<const char *>(Src), Data(), int(SrcSize),
                                int(Declared));
    if (R < 0) {
      // LZ4_decompress_safe fails alike for damaged data and for output past the buffer; a
      // partial decode that fills the buffer cleanly tells a bomb from a damaged block.
      int Partial = LZ4_decompress_safe_partial(reinterpret_cast<const char *>(Src), Data(),
                                                int(SrcSize), int(Declared), int(Declared));
      if (Partial >= 0 && uint64_t(Partial) == Declared)
        return Fail(
            llvm::formatv("LZ4 block decompresses to more than the declared {0} bytes", Declared));
      return Fail(llvm::formatv("corrupt LZ4 block (error at input byte {0})", -R - 1));
    }
    if (uint64_t(R) != Declared)
      return Fail(llvm::formatv("LZ4 block decompresses to {0} bytes, the header declares {1}", R,
                                Declared));
    return llvm::Error::success();
  }
  }
  return Fail("unknown compression");
}

} // namespace

llvm::Expected<std::vector<uint8_t>> FatbinFile::payload(const Entry &E) const {
  std::vector<uint8_t> Out;
  if (llvm::Error Err = decodePayload(*this, E, Opts.MaxEntrySize, Out))
    return std::move(Err);
  return Out;
}

llvm::Expected<std::string> FatbinFile::ptxText(const Entry &E) const {
  if (E.Kind != EntryKind::PTX)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   describe(E) + ": not a PTX entry");
  std::string Text;
  if (llvm::Error Err = decodePayload(*this, E, Opts.MaxEntrySize, Text))
    return std::move(Err);
  Text.resize(strnlen(Text.data(), Text.size()));
  return Text;
}

unsigned countPtxKernels(llvm::StringRef Text) {
  unsigned N = 0;
  size_t I = 0, Size = Text.size();
  while (I < Size) {
    char Ch = Text[I];
    if (Ch == '/' && I + 1 < Size && Text[I + 1] == '/') {
      I = Text.find('\n', I);
      if (I == llvm::StringRef::npos)
        break;
      continue;
    }
    if (Ch == '/' && I + 1 < Size && Text[I + 1] == '*') {
      I = Text.find("*/", I + 2);
      if (I == llvm::StringRef::npos)
        break;
      I += 2;
      continue;
    }
    if (Ch == '"') {
      I = Text.find('"', I + 1);
      if (I == llvm::StringRef::npos)
        break;
      ++I;
      continue;
    }
    if (Ch == '.' && (I == 0 || isspace(static_cast<unsigned char>(Text[I - 1]))) &&
        Text.substr(I).starts_with(".entry") &&
        (I + 6 == Size || isspace(static_cast<unsigned char>(Text[I + 6])))) {
      ++N;
      I += 6;
      continue;
    }
    ++I;
  }
  return N;
}

} // namespace reptx::fatbin
