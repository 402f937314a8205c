// CUDA fatbinary discovery and decoding: finds every fatbin container in an ELF file (executable,
// shared library, relocatable object, ar archive) or a bare .fatbin, decodes the entry headers and
// decompresses payloads. The layout follows shared/reference/fatbin-format.md.
//
// Every size and offset read from the input is bounds-checked; malformed input yields an
// llvm::Error naming the file, the file offset of the container (and entry) and what is wrong.
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace reptx::fatbin {

inline constexpr uint32_t ContainerMagic = 0xBA55ED50; // fatbin container header
inline constexpr uint32_t WrapperMagic = 0x466243B1;   // __fatBinC_Wrapper_t
inline constexpr size_t ContainerHeaderSize = 16;
inline constexpr size_t EntryFixedHeaderSize = 64;
inline constexpr size_t WrapperSize = 24;

/// Entry header flag bits (fatbin-format.md §5).
enum EntryFlags : uint64_t {
  Flag64Bit = 0x1,
  FlagDebug = 0x2,
  FlagLinux = 0x10,
  FlagCompressLZ4 = 0x2000,
  FlagCompressZstd = 0x8000,
  FlagEncrypted = 0x10000,
  FlagArchSpecific = 0x100000,   // sm_XXa
  FlagFamilySpecific = 0x200000, // sm_XXf
};

enum class EntryKind : uint16_t { PTX = 1, Cubin = 2, LTOIR = 8 };
enum class Compression { None, Zstd, LZ4 };

llvm::StringRef kindName(EntryKind K);
llvm::StringRef compressionName(Compression C);
/// "sm_80", "sm_90a", "sm_103f".
std::string archName(uint32_t Arch, uint64_t Flags);

/// One entry of a container, as its header describes it. Offsets are file offsets.
struct Entry {
  uint64_t Offset = 0; // file offset of the entry header
  EntryKind Kind = EntryKind::PTX;
  uint32_t HeaderSize = 0;
  uint64_t PayloadSize = 0;    // bytes after the header up to the next entry
  uint32_t CompressedSize = 0; // exact stored length when compressed, else 0
  uint16_t Major = 0;          // PTX: ISA major; cubin: 1
  uint16_t Minor = 0;          // PTX: ISA minor; cubin: ELF ABI version
  uint32_t Arch = 0;           // SM number
  uint64_t Flags = 0;
  uint64_t UncompressedSize = 0; // declared decompressed size, 0 when not compressed
  std::string Aux;   // ptxas options (PTX), cicc options (LTO-IR), binary blob (sm_100+ cubin)
  std::string Ident; // source file name (-G / -lineinfo builds)

  Compression compression() const;
  bool encrypted() const { return Flags & FlagEncrypted; }
  /// File offset and length of the stored (possibly compressed) bytes.
  uint64_t dataOffset() const { return Offset + HeaderSize; }
  uint64_t storedSize() const { return CompressedSize ? CompressedSize : PayloadSize; }
  /// Size after decompression as declared by the header (PayloadSize when uncompressed).
  uint64_t declaredSize() const { return UncompressedSize ? UncompressedSize : PayloadSize; }
  std::string arch() const { return archName(Arch, Flags); }
};

/// Where a container was found.
enum class ContainerOrigin {
  Section, // inside .nv_fatbin or __nv_relfatbin
  Wrapper, // referenced by a __fatBinC_Wrapper_t but in another section
  Scan,    // a validated magic-scan hit in some other section (.ldata, .cask_resource, .rodata...)
  Bare,    // a bare .fatbin file
};

struct Container {
  uint64_t Offset = 0; // file offset of the container header
  uint16_t Version = 0;
  uint16_t HeaderSize = 0;
  uint64_t FatSize = 0;
  std::string Section; // "member.o:.nv_fatbin" inside archives, "<raw>" outside any section
  ContainerOrigin Origin = ContainerOrigin::Scan;
  std::vector<Entry> Entries;
  uint64_t end() const { return Offset + HeaderSize + FatSize; }
  /// A relocatable (-rdc) translation unit's container, in __nv_relfatbin: its PTX runs only
  /// linked with the other units of its image (fatbin-format.md §2).
  bool relocatableUnit() const { return llvm::StringRef(Section).ends_with("__nv_relfatbin"); }
};

/// The PTX entry reptx compiles for a device of compute capability MaxArch (86 for 8.6): the
/// highest PTX target at or below it (PTX is forward compatible, SASS is not). Where there is none
/// but the container holds SASS that such a device runs (the same major version and a minor at
/// most MaxArch's; an sm_XXa cubin only on XX itself), NVIDIA's driver would run that SASS, and
/// reptx, which can only recompile PTX, takes the oldest newer PTX instead (libcudadevrt's unit
/// in a -rdc program: SASS for sm_75 up, PTX for sm_121 only). Null otherwise.
const Entry *bestPtxEntry(const Container &C, uint32_t MaxArch);

/// A __fatBinC_Wrapper_t record found in .nvFatBinSegment.
struct Wrapper {
  uint64_t Offset = 0; // file offset of the record
  uint32_t Version = 0;
  uint64_t Data = 0; // the data field as stored (VA, or 0 + relocation in objects)
  std::optional<uint64_t> ContainerOffset; // file offset of the container it points to
  uint64_t PrelinkedList = 0; // version 2: VA of __cudaPrelinkedFatbins[] (filled at run time)
};

enum class FileKind { ELFExecutable, ELFSharedObject, ELFRelocatable, Archive, BareFatbin, Other };
llvm::StringRef fileKindName(FileKind K);

struct ScanOptions {
  /// Upper bound for one entry's declared decompressed size.
  uint64_t MaxEntrySize = uint64_t(1) << 30;
};

class FatbinFile;

/// Scans a file for fatbin containers. The file stays mapped for later decompression.
llvm::Expected<FatbinFile> scanFile(llvm::StringRef Path, const ScanOptions &Opts = {});
/// Scans bytes held in memory (copied); Name appears in error messages.
llvm::Expected<FatbinFile> scanBuffer(llvm::ArrayRef<uint8_t> Bytes, llvm::StringRef Name,
                                      const ScanOptions &Opts = {});

class FatbinFile {
public:
  FatbinFile(FatbinFile &&) noexcept;
  FatbinFile &operator=(FatbinFile &&) noexcept;
  ~FatbinFile();

  llvm::StringRef path() const { return Path; }
  FileKind kind() const { return Kind; }
  llvm::ArrayRef<uint8_t> bytes() const { return Bytes; }
  const std::vector<Container> &containers() const { return Containers; }
  const std::vector<Wrapper> &wrappers() const { return Wrappers; }
  /// Candidate magic hits outside fatbin sections that failed validation (not errors).
  unsigned rejectedCandidates() const { return Rejected; }

  /// Decompresses (or copies) an entry's payload; bounded by the declared size and
  /// ScanOptions::MaxEntrySize. Thread-safe. Encrypted entries give an error.
  llvm::Expected<std::vector<uint8_t>> payload(const Entry &E) const;
  /// A PTX entry's text: the payload up to (not including) its first NUL.
  llvm::Expected<std::string> ptxText(const Entry &E) const;

  /// "file: container at 0x..., entry N" — for messages about an entry.
  std::string describe(const Entry &E) const;

private:
  friend struct Scanner;
  friend llvm::Expected<FatbinFile> scanFile(llvm::StringRef, const ScanOptions &);
  friend llvm::Expected<FatbinFile> scanBuffer(llvm::ArrayRef<uint8_t>, llvm::StringRef,
                                               const ScanOptions &);
  FatbinFile();
  std::string Path;
  FileKind Kind = FileKind::Other;
  ScanOptions Opts;
  struct Storage;
  std::unique_ptr<Storage> Store;
  llvm::ArrayRef<uint8_t> Bytes;
  std::vector<Container> Containers;
  std::vector<Wrapper> Wrappers;
  unsigned Rejected = 0;
};

/// Counts the `.entry` kernels of a PTX text (directive tokens at statement level).
unsigned countPtxKernels(llvm::StringRef Text);

/// The size of the 64-bit little-endian ELF image at Image as its headers describe it (the
/// furthest end of the ELF header, the section and program header tables and every section's
/// data), or 0 when its header is not such an ELF header or describes more than 1 GiB. For an
/// image handed over as a bare pointer (a cubin given to cuModuleLoadData): it reads the header
/// and then only the section header table that header places within that 1 GiB.
uint64_t elfImageSize(const uint8_t *Image);

/// The kernels of a cubin, in symbol-table order: its function symbols marked as CUDA entry
/// points (st_other 0x10, which nvcc sets on `__global__` functions and not on device ones).
llvm::Expected<std::vector<std::string>> cubinKernels(llvm::ArrayRef<uint8_t> Elf);

} // namespace reptx::fatbin
