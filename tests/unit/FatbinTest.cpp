// Unit tests of the fatbin container decoder on images built byte by byte in the test, so every
// expected value is known independently of the code under test.
#include "reptx/frontend-ptx/Fatbin.h"

#include <gtest/gtest.h>
#include <lz4.h>
#include <zstd.h>

#include <cstddef>
#include <cstring>
#include <elf.h>

using namespace reptx::fatbin;

namespace {

template <typename T> void put(std::vector<uint8_t> &B, size_t Off, T V) {
  if (B.size() < Off + sizeof(T))
    B.resize(Off + sizeof(T));
  std::memcpy(B.data() + Off, &V, sizeof(T));
}

struct EntrySpec {
  uint16_t Kind = 1;
  uint32_t Arch = 80;
  uint16_t Major = 9, Minor = 0;
  uint64_t Flags = Flag64Bit | FlagLinux;
  std::string Payload; // uncompressed bytes
  Compression Comp = Compression::None;
  std::string Options; // aux string
};

/// Builds one entry the way fatbinary 13.0 lays it out (fatbin-format.md §4, §8).
std::vector<uint8_t> buildEntry(const EntrySpec &S) {
  std::string Stored = S.Payload;
  uint64_t Flags = S.Flags;
  uint32_t CSize = 0;
  uint64_t USize = 0;
  if (S.Comp == Compression::Zstd) {
    Stored.resize(ZSTD_compressBound(S.Payload.size()));
    Stored.resize(
        ZSTD_compress(Stored.data(), Stored.size(), S.Payload.data(), S.Payload.size(), 5));
    Flags |= FlagCompressZstd;
  } else if (S.Comp == Compression::LZ4) {
    Stored.resize(LZ4_compressBound(S.Payload.size()));
    Stored.resize(
        LZ4_compress_default(S.Payload.data(), Stored.data(), S.Payload.size(), Stored.size()));
    Flags |= FlagCompressLZ4;
  }
  if (S.Comp != Compression::None) {
    CSize = Stored.size();
    USize = S.Payload.size();
  }
  uint32_t Header = 64;
  std::vector<uint8_t> B(64, 0);
  if (!S.Options.empty()) {
    put<uint32_t>(B, 0x14, 0x40);
    put<uint32_t>(B, 0x40, 0x48);
    put<uint32_t>(B, 0x44, S.Options.size());
    B.resize(0x48);
    B.insert(B.end(), S.Options.begin(), S.Options.end());
    B.push_back(0);
    Header = (B.size() + 7) & ~7u;
    B.resize(Header, 0);
  }
  uint64_t Payload = (Stored.size() + 7) & ~uint64_t(7);
  put<uint16_t>(B, 0, S.Kind);
  put<uint16_t>(B, 2, 0x0101);
  put<uint32_t>(B, 4, Header);
  put<uint64_t>(B, 8, Payload);
  put<uint32_t>(B, 0x10, CSize);
  put<uint16_t>(B, 0x18, S.Minor);
  put<uint16_t>(B, 0x1a, S.Major);
  put<uint32_t>(B, 0x1c, S.Arch);
  put<uint64_t>(B, 0x28, Flags);
  put<uint64_t>(B, 0x38, USize);
  B.insert(B.end(), Stored.begin(), Stored.end());
  B.resize(Header + Payload, 0);
  return B;
}

std::vector<uint8_t> buildContainer(const std::vector<EntrySpec> &Entries) {
  std::vector<uint8_t> Body;
  for (const EntrySpec &E : Entries) {
    auto B = buildEntry(E);
    Body.insert(Body.end(), B.begin(), B.end());
  }
  std::vector<uint8_t> C(16, 0);
  put<uint32_t>(C, 0, ContainerMagic);
  put<uint16_t>(C, 4, 1);
  put<uint16_t>(C, 6, 16);
  put<uint64_t>(C, 8, Body.size());
  C.insert(C.end(), Body.begin(), Body.end());
  return C;
}

const std::string Ptx = "\n.version 9.0\n.target sm_80\n.address_size 64\n"
                        ".visible .entry k1(\n.param .u64 p\n)\n{\nret;\n}\n"
                        ".entry k2()\n{\nret;\n}\n";

std::string ptxPayload() { return Ptx + std::string(1, '\0'); }

std::string errorOf(llvm::Error E) { return llvm::toString(std::move(E)); }

} // namespace

TEST(Fatbin, BareContainerEveryCompression) {
  std::vector<EntrySpec> Specs(3);
  Compression Kinds[] = {Compression::None, Compression::Zstd, Compression::LZ4};
  for (int I = 0; I < 3; ++I) {
    Specs[I].Payload = ptxPayload();
    Specs[I].Comp = Kinds[I];
    Specs[I].Arch = 75 + I;
  }
  Specs[1].Options = "--compile-only  ";
  auto Bytes = buildContainer(Specs);
  auto F = scanBuffer(Bytes, "mem.fatbin");
  ASSERT_TRUE(bool(F)) << errorOf(F.takeError());
  EXPECT_EQ(F->kind(), FileKind::BareFatbin);
  ASSERT_EQ(F->containers().size(), 1u);
  const Container &C = F->containers()[0];
  EXPECT_EQ(C.Offset, 0u);
  EXPECT_EQ(C.end(), Bytes.size());
  ASSERT_EQ(C.Entries.size(), 3u);
  for (int I = 0; I < 3; ++I) {
    const Entry &E = C.Entries[I];
    EXPECT_EQ(E.compression(), Kinds[I]);
    EXPECT_EQ(E.Arch, unsigned(75 + I));
    EXPECT_EQ(E.declaredSize(),
              I == 0 ? (ptxPayload().size() + 7) & ~size_t(7) : ptxPayload().size());
    auto Text = F->ptxText(E);
    ASSERT_TRUE(bool(Text)) << errorOf(Text.takeError());
    EXPECT_EQ(*Text, Ptx);
  }
  EXPECT_EQ(C.Entries[1].Aux, "--compile-only  ");
  EXPECT_EQ(C.Entries[0].Aux, "");
}

TEST(Fatbin, ArchNamesCarrySuffixes) {
  EXPECT_EQ(archName(90, FlagArchSpecific), "sm_90a");
  EXPECT_EQ(archName(103, FlagFamilySpecific), "sm_103f");
  EXPECT_EQ(archName(120, 0), "sm_120");
}

TEST(Fatbin, CubinPayloadIsReturnedWhole) {
  EntrySpec S;
  S.Kind = 2;
  S.Major = 1;
  S.Minor = 8;
  S.Payload = std::string("\x7f"
                          "ELF",
                          4) +
              std::string(60, '\x01');
  S.Comp = Compression::Zstd;
  auto F = scanBuffer(buildContainer({S}), "cubin.fatbin");
  ASSERT_TRUE(bool(F)) << errorOf(F.takeError());
  auto Data = F->payload(F->containers()[0].Entries[0]);
  ASSERT_TRUE(bool(Data)) << errorOf(Data.takeError());
  EXPECT_EQ(std::string(Data->begin(), Data->end()), S.Payload);
}

TEST(Fatbin, ContainerMagicInsideOtherBytesIsFound) {
  // A raw (non-ELF) file with two containers at unaligned offsets and junk around them, like
  // the .ldata blobs of cuFFT: the scan must find both at their exact offsets.
  EntrySpec S;
  S.Payload = ptxPayload();
  auto C = buildContainer({S});
  std::vector<uint8_t> File = {'j', 'u', 'n', 'k', 'x'};
  File.insert(File.end(), C.begin(), C.end());
  File.insert(File.end(), {1, 2, 3});
  size_t Second = File.size();
  File.insert(File.end(), C.begin(), C.end());
  auto F = scanBuffer(File, "blob.bin");
  ASSERT_TRUE(bool(F)) << errorOf(F.takeError());
  EXPECT_EQ(F->kind(), FileKind::Other);
  ASSERT_EQ(F->containers().size(), 2u);
  EXPECT_EQ(F->containers()[0].Offset, 5u);
  EXPECT_EQ(F->containers()[1].Offset, Second);
  EXPECT_EQ(F->containers()[0].Section, "<raw>");
}

TEST(Fatbin, LenientScanSkipsImplausibleMagic) {
  // The magic followed by garbage outside a fatbin section is an immediate in code, not a
  // container: skipped and counted, never an error.
  std::vector<uint8_t> File = {0, 0, 0, 0};
  put<uint32_t>(File, 4, ContainerMagic);
  put<uint32_t>(File, 8, 0xdeadbeef);
  File.resize(64, 0xcc);
  auto F = scanBuffer(File, "code.bin");
  ASSERT_TRUE(bool(F)) << errorOf(F.takeError());
  EXPECT_EQ(F->containers().size(), 0u);
  EXPECT_EQ(F->rejectedCandidates(), 1u);
}

TEST(Fatbin, StrictErrorsNameFileOffsetAndProblem) {
  EntrySpec S;
  S.Payload = ptxPayload();
  S.Comp = Compression::Zstd;
  auto Good = buildContainer({S});

  auto Lying = Good;
  put<uint64_t>(Lying, 8, Good.size()); // fat_size 16 bytes too large
  auto F = scanBuffer(Lying, "lying.fatbin");
  ASSERT_FALSE(bool(F));
  EXPECT_EQ(errorOf(F.takeError()), "lying.fatbin: container at 0x0: size " +
                                        std::to_string(Good.size()) +
                                        " extends past the end of its section or file (" +
                                        std::to_string(Good.size() - 16) + " bytes available)");

  auto BadKind = Good;
  put<uint16_t>(BadKind, 16, 5);
  F = scanBuffer(BadKind, "kind.fatbin");
  ASSERT_FALSE(bool(F));
  EXPECT_EQ(errorOf(F.takeError()), "kind.fatbin: container at 0x0: entry 0 at 0x10: unknown "
                                    "entry kind 5");

  auto Huge = Good;
  put<uint64_t>(Huge, 16 + 0x38, uint64_t(1) << 40);
  F = scanBuffer(Huge, "huge.fatbin");
  ASSERT_FALSE(bool(F));
  EXPECT_NE(errorOf(F.takeError()).find("exceeds the limit of 1073741824 bytes"),
            std::string::npos);
}

TEST(Fatbin, DecompressionIsBoundedByDeclaredSize) {
  // A zstd bomb: 1 MiB of zeros declared as 100 bytes. The frame's own content size betrays it
  // first; with the content size stripped, decompression must stop at the declared size.
  EntrySpec S;
  S.Kind = 2;
  S.Payload = std::string(1 << 20, '\0');
  S.Comp = Compression::Zstd;
  auto Bytes = buildContainer({S});
  put<uint64_t>(Bytes, 16 + 0x38, 100);
  auto F = scanBuffer(Bytes, "bomb.fatbin");
  ASSERT_TRUE(bool(F)) << errorOf(F.takeError());
  auto Data = F->payload(F->containers()[0].Entries[0]);
  ASSERT_FALSE(bool(Data));
  EXPECT_EQ(errorOf(Data.takeError()),
            "bomb.fatbin: container at 0x0: entry 0 at 0x10: zstd frame holds 1048576 bytes but "
            "the header declares 100");

  EntrySpec L = S;
  L.Comp = Compression::LZ4;
  Bytes = buildContainer({L});
  put<uint64_t>(Bytes, 16 + 0x38, 100);
  F = scanBuffer(Bytes, "lz4bomb.fatbin");
  ASSERT_TRUE(bool(F)) << errorOf(F.takeError());
  Data = F->payload(F->containers()[0].Entries[0]);
  ASSERT_FALSE(bool(Data));
  EXPECT_NE(errorOf(Data.takeError()).find("more than the declared 100 bytes"), std::string::npos);
}

TEST(Fatbin, EncryptedEntriesAreListedButNotDecoded) {
  EntrySpec S;
  S.Kind = 8;
  S.Flags |= FlagEncrypted;
  S.Payload = "opaque-bytes";
  auto F = scanBuffer(buildContainer({S}), "lto.fatbin");
  ASSERT_TRUE(bool(F)) << errorOf(F.takeError());
  const Entry &E = F->containers()[0].Entries[0];
  EXPECT_EQ(E.Kind, EntryKind::LTOIR);
  EXPECT_TRUE(E.encrypted());
  auto Data = F->payload(E);
  ASSERT_FALSE(bool(Data));
  EXPECT_NE(errorOf(Data.takeError()).find("encrypted"), std::string::npos);
}

TEST(Fatbin, CountsKernelsNotMentions) {
  EXPECT_EQ(countPtxKernels(Ptx), 2u);
  EXPECT_EQ(countPtxKernels("// .entry in a comment\n/* .entry */ .func f()\n"), 0u);
  EXPECT_EQ(countPtxKernels(".file 1 \"a .entry b\"\n.weak .entry w()\n"), 1u);
  EXPECT_EQ(countPtxKernels(".entry\tk()"), 1u);
  EXPECT_EQ(countPtxKernels(".entryx k()"), 0u);
}

TEST(Fatbin, MissingFileIsAnError) {
  auto F = scanFile("/nonexistent/reptx-test-file");
  ASSERT_FALSE(bool(F));
  EXPECT_NE(errorOf(F.takeError()).find("/nonexistent/reptx-test-file: "), std::string::npos);
}

namespace {

/// A minimal cubin: ELF64 header, .shstrtab, .strtab, .symtab (entries marked st_other 0x10, a
/// device function and a variable that are not), the section header table, then one program
/// header at the very end (where nvcc puts it).
std::vector<uint8_t> buildCubin() {
  std::string ShStr = std::string("\0.shstrtab\0.strtab\0.symtab\0", 27);
  std::string Str = std::string("\0kern_a\0dev_f\0var_v\0kern_b\0", 27);
  struct Sym {
    uint32_t Name;
    unsigned Type, Other;
  };
  std::vector<Sym> Syms = {{0, 0, 0},
                           {1, STT_FUNC, 0x10},
                           {8, STT_FUNC, 0},
                           {14, STT_OBJECT, 0x10},
                           {20, STT_FUNC, 0x10}};
  std::vector<uint8_t> B(sizeof(Elf64_Ehdr), 0);
  auto Append = [&](const void *P, size_t N) {
    size_t Off = B.size();
    B.insert(B.end(), static_cast<const uint8_t *>(P), static_cast<const uint8_t *>(P) + N);
    return Off;
  };
  size_t ShStrOff = Append(ShStr.data(), ShStr.size());
  size_t StrOff = Append(Str.data(), Str.size());
  B.resize((B.size() + 7) & ~size_t(7), 0);
  size_t SymOff = B.size();
  for (const Sym &S : Syms) {
    Elf64_Sym E{};
    E.st_name = S.Name;
    E.st_info = ELF64_ST_INFO(S.Name ? STB_GLOBAL : STB_LOCAL, S.Type);
    E.st_other = S.Other;
    E.st_shndx = S.Name ? 1 : 0;
    Append(&E, sizeof E);
  }
  size_t ShOff = B.size();
  Elf64_Shdr Sh[4]{};
  Sh[1] = {1, SHT_STRTAB, 0, 0, ShStrOff, ShStr.size(), 0, 0, 1, 0};
  Sh[2] = {11, SHT_STRTAB, 0, 0, StrOff, Str.size(), 0, 0, 1, 0};
  Sh[3] = {19, SHT_SYMTAB,       0, 0, SymOff, Syms.size() * sizeof(Elf64_Sym), 2, 1,
           8,  sizeof(Elf64_Sym)};
  Append(Sh, sizeof Sh);
  size_t PhOff = B.size();
  Elf64_Phdr Ph{};
  Ph.p_type = PT_LOAD;
  Append(&Ph, sizeof Ph);
  Elf64_Ehdr Eh{};
  std::memcpy(Eh.e_ident, ELFMAG, SELFMAG);
  Eh.e_ident[EI_CLASS] = ELFCLASS64;
  Eh.e_ident[EI_DATA] = ELFDATA2LSB;
  Eh.e_ident[EI_VERSION] = EV_CURRENT;
  Eh.e_type = ET_EXEC;
  Eh.e_machine = 190; // EM_CUDA
  Eh.e_version = EV_CURRENT;
  Eh.e_phoff = PhOff;
  Eh.e_shoff = ShOff;
  Eh.e_ehsize = sizeof Eh;
  Eh.e_phentsize = sizeof(Elf64_Phdr);
  Eh.e_phnum = 1;
  Eh.e_shentsize = sizeof(Elf64_Shdr);
  Eh.e_shnum = 4;
  Eh.e_shstrndx = 1;
  std::memcpy(B.data(), &Eh, sizeof Eh);
  return B;
}

} // namespace

// What the loader says of a SASS-only image it refuses: its kernels (entry-marked function
// symbols only), found from a bare pointer (the size from the headers alone).
TEST(Fatbin, CubinKernelsAndImageSize) {
  std::vector<uint8_t> C = buildCubin();
  EXPECT_EQ(elfImageSize(C.data()), C.size());
  auto K = cubinKernels(C);
  ASSERT_TRUE(bool(K)) << errorOf(K.takeError());
  EXPECT_EQ(*K, (std::vector<std::string>{"kern_a", "kern_b"}));

  // Section data past the header tables counts as well.
  std::vector<uint8_t> Moved = C;
  Elf64_Ehdr Eh;
  std::memcpy(&Eh, Moved.data(), sizeof Eh);
  Elf64_Shdr Sym;
  std::memcpy(&Sym, Moved.data() + Eh.e_shoff + 3 * sizeof Sym, sizeof Sym);
  size_t NewOff = Moved.size() + 8;
  Moved.resize(NewOff, 0);
  Moved.insert(Moved.end(), C.begin() + Sym.sh_offset, C.begin() + Sym.sh_offset + Sym.sh_size);
  Sym.sh_offset = NewOff;
  std::memcpy(Moved.data() + Eh.e_shoff + 3 * sizeof Sym, &Sym, sizeof Sym);
  EXPECT_EQ(elfImageSize(Moved.data()), Moved.size());
  K = cubinKernels(Moved);
  ASSERT_TRUE(bool(K)) << errorOf(K.takeError());
  EXPECT_EQ(K->size(), 2u);

  // Not a 64-bit little-endian ELF header, or one describing more than 1 GiB: size 0.
  std::vector<uint8_t> Bad = C;
  Bad[EI_CLASS] = ELFCLASS32;
  EXPECT_EQ(elfImageSize(Bad.data()), 0u);
  Bad = C;
  uint64_t Far = uint64_t(1) << 31;
  std::memcpy(Bad.data() + offsetof(Elf64_Ehdr, e_shoff), &Far, 8);
  EXPECT_EQ(elfImageSize(Bad.data()), 0u);
  std::vector<uint8_t> NotElf(64, 0x11);
  EXPECT_EQ(elfImageSize(NotElf.data()), 0u);
  auto NotKernels = cubinKernels(NotElf);
  ASSERT_FALSE(bool(NotKernels));
  EXPECT_NE(errorOf(NotKernels.takeError()).find("not a readable ELF image"), std::string::npos);
}
