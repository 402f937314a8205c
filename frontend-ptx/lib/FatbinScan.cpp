// Finding fatbin containers in a file: ELF sections through libelf (executables, shared objects,
// relocatable objects and the members of ar archives), __fatBinC_Wrapper_t records and their
// relocations, a validated magic scan for containers no wrapper points to (NVIDIA's libraries keep
// them in .ldata, .cask_resource and .rodata), and bare .fatbin files. fatbin-format.md §1-§4.
#include "FatbinInternal.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Process.h"

#include <gelf.h>
#include <libelf.h>

#include <algorithm>
#include <cstring>
#include <mutex>

namespace reptx::fatbin {

namespace {

constexpr uint32_t R_X86_64_64_ = 1;
constexpr uint32_t R_X86_64_RELATIVE_ = 8;
constexpr uint32_t R_AARCH64_ABS64_ = 257;
constexpr uint32_t R_AARCH64_RELATIVE_ = 1027;

struct SectionInfo {
  std::string Name; // qualified with the archive member name when inside an archive
  std::string BareName;
  uint64_t Offset = 0; // file offset
  uint64_t Size = 0;
  uint64_t Addr = 0;
  uint64_t Flags = 0;
  bool IsFatbin = false; // .nv_fatbin or __nv_relfatbin: containers back to back, strict
};

bool isFatbinSection(llvm::StringRef Name) {
  return Name == ".nv_fatbin" || Name == "__nv_relfatbin";
}

void initLibelf() {
  static std::once_flag Once;
  std::call_once(Once, [] { elf_version(EV_CURRENT); });
}

struct ElfCloser {
  void operator()(Elf *E) const { elf_end(E); }
};
using ElfPtr = std::unique_ptr<Elf, ElfCloser>;

} // namespace

struct Scanner {
  FatbinFile &F;
  std::vector<SectionInfo> Sections;
  std::vector<std::pair<uint64_t, uint64_t>> PendingWrapperTargets; // (wrapper idx, file offset)

  explicit Scanner(FatbinFile &F) : F(F) {}

  llvm::Error fail(const llvm::Twine &Msg) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), F.Path + ": " + Msg);
  }

  uint64_t size() const { return F.Bytes.size(); }

  llvm::Error run() {
    const uint8_t *D = F.Bytes.data();
    // Nothing to scan; saying so beats listing a file with no containers as if it were valid.
    if (size() == 0)
      return fail("empty file");
    if (size() >= 4 && readLE<uint32_t>(D) == ContainerMagic) {
      F.Kind = FileKind::BareFatbin;
    } else if (size() >= 8 && std::memcmp(D, "!<arch>\n", 8) == 0) {
      F.Kind = FileKind::Archive;
      if (auto Err = scanElfImages())
        return Err;
    } else if (size() >= 4 && std::memcmp(D,
                                          "\x7f"
                                          "ELF",
                                          4) == 0) {
      if (auto Err = scanElfImages())
        return Err;
    } else {
      F.Kind = FileKind::Other;
    }
    if (auto Err = scanContainers())
      return Err;
    if (auto Err = checkCoverage())
      return Err;
    return resolveWrappers();
  }

  // ---------------------------------------------------------------- ELF

  llvm::Error scanElfImages() {
    initLibelf();
    // libelf rejects a short ELF header only as "invalid ELF file data"; say what is wrong.
    if (F.Kind != FileKind::Archive) {
      size_t Need = size() > EI_CLASS && F.Bytes[EI_CLASS] == ELFCLASS32 ? sizeof(Elf32_Ehdr)
                                                                         : sizeof(Elf64_Ehdr);
      if (size() < Need)
        return fail(llvm::formatv("truncated ELF header ({0} of {1} bytes)", size(), Need));
    }
    // libelf only reads the image here; the mapping is private, so nothing reaches the file.
    ElfPtr Top(elf_memory(reinterpret_cast<char *>(const_cast<uint8_t *>(F.Bytes.data())), size()));
    if (!Top)
      return fail(llvm::formatv("not a readable ELF file or archive: {0}", elf_errmsg(-1)));
    if (elf_kind(Top.get()) == ELF_K_ELF)
      return scanElf(Top.get(), 0, size(), "");
    if (elf_kind(Top.get()) != ELF_K_AR)
      return fail("not a readable ELF file or archive");
    // Members of an elf_memory() image must be opened with the command it was read with
    // (ELF_C_READ_MMAP); ELF_C_READ fails with "invalid file descriptor" and would end the walk
    // before the first member.
    Elf_Cmd Cmd = ELF_C_READ_MMAP;
    while (true) {
      ElfPtr Member(elf_begin(-1, Cmd, Top.get()));
      if (!Member)
        break;
      Elf_Arhdr *AH = elf_getarhdr(Member.get());
      if (!AH)
        return fail(llvm::formatv("archive member header unreadable: {0}", elf_errmsg(-1)));
      // AH points into the archive's state, which elf_next overwrites with the next member's
      // header (or clears at the end): copy what is needed before advancing.
      std::string MemberName = AH->ar_name ? AH->ar_name : "";
      uint64_t ArSize = AH->ar_size;
      Cmd = elf_next(Member.get());
      if (elf_kind(Member.get()) != ELF_K_ELF)
        continue; // symbol tables, long-name tables, non-ELF members
      int64_t Base = elf_getbase(Member.get());
      if (Base < 0 || uint64_t(Base) > size())
        return fail(llvm::formatv("archive member '{0}' lies outside the file", MemberName));
      uint64_t MemberSize = std::min<uint64_t>(ArSize, size() - Base);
      if (auto Err = scanElf(Member.get(), Base, MemberSize, MemberName))
        return Err;
      if (Cmd == ELF_C_NULL)
        break;
    }
    return llvm::Error::success();
  }

  llvm::Error scanElf(Elf *E, uint64_t Base, uint64_t ImageSize, llvm::StringRef Member) {
    std::string Where = Member.empty() ? std::string() : (Member + ": ").str();
    GElf_Ehdr Eh;
    if (!gelf_getehdr(E, &Eh))
      return fail(llvm::formatv("{0}bad ELF header: {1}", Where, elf_errmsg(-1)));
    if (Member.empty()) {
      F.Kind = Eh.e_type == ET_REL   ? FileKind::ELFRelocatable
               : Eh.e_type == ET_DYN ? FileKind::ELFSharedObject
                                     : FileKind::ELFExecutable;
    }
    size_t ShStrNdx = 0;
    if (elf_getshdrstrndx(E, &ShStrNdx) != 0)
      return fail(llvm::formatv("{0}section name table unreadable: {1}", Where, elf_errmsg(-1)));

    size_t FirstSection = Sections.size();
    std::vector<size_t> IndexToSection; // ELF section index -> position in Sections, or npos
    size_t NumSections = 0;
    if (elf_getshdrnum(E, &NumSections) != 0)
      return fail(llvm::formatv("{0}section table unreadable: {1}", Where, elf_errmsg(-1)));
    // Offsets in messages are file offsets; inside an archive the ELF image is a member.
    llvm::StringRef Image = Member.empty() ? "file" : "archive member";
    // libelf reports no sections at all when the section header table lies (partly) past the
    // end of the image, which would hide every fatbin section of a truncated file. With
    // extended numbering (e_shnum 0) at least entry 0 must be there.
    if (Eh.e_shoff != 0) {
      uint64_t Count = std::max<uint64_t>({NumSections, Eh.e_shnum, 1});
      uint64_t EntrySize =
          Eh.e_ident[EI_CLASS] == ELFCLASS32 ? sizeof(Elf32_Shdr) : sizeof(Elf64_Shdr);
      if (Eh.e_shoff > ImageSize || Count > (ImageSize - Eh.e_shoff) / EntrySize)
        return fail(llvm::formatv("{0}section header table at {1:x} ({2} entries of {3} bytes) "
                                  "extends past the end of the {4} at {5:x}",
                                  Where, Base + Eh.e_shoff, Count, EntrySize, Image,
                                  Base + ImageSize));
    }
    IndexToSection.assign(NumSections, SIZE_MAX);

    Elf_Scn *WrapperScn = nullptr;
    size_t WrapperIndex = 0;
    for (Elf_Scn *Scn = elf_nextscn(E, nullptr); Scn; Scn = elf_nextscn(E, Scn)) {
      GElf_Shdr Sh;
      if (!gelf_getshdr(Scn, &Sh))
        return fail(llvm::formatv("{0}section header unreadable: {1}", Where, elf_errmsg(-1)));
      const char *Name = elf_strptr(E, ShStrNdx, Sh.sh_name);
      if (!Name)
        return fail(
            llvm::formatv("{0}section {1} has an invalid name offset", Where, elf_ndxscn(Scn)));
      if (Sh.sh_type == SHT_NOBITS || Sh.sh_type == SHT_NULL)
        continue;
      if (Sh.sh_offset > ImageSize || Sh.sh_size > ImageSize - Sh.sh_offset)
        return fail(llvm::formatv("{0}section '{1}' (offset {2:x}, size {3:x}) extends past the "
                                  "end of the {4} at {5:x}",
                                  Where, Name, Base + Sh.sh_offset, Sh.sh_size, Image,
                                  Base + ImageSize));
      SectionInfo S;
      S.BareName = Name;
      S.Name = Member.empty() ? S.BareName : (Member + ":" + Name).str();
      S.Offset = Base + Sh.sh_offset;
      S.Size = Sh.sh_size;
      S.Addr = Sh.sh_addr;
      S.Flags = Sh.sh_flags;
      S.IsFatbin = isFatbinSection(Name);
      IndexToSection[elf_ndxscn(Scn)] = Sections.size();
      Sections.push_back(std::move(S));
      if (llvm::StringRef(Name) == ".nvFatBinSegment") {
        WrapperScn = Scn;
        WrapperIndex = elf_ndxscn(Scn);
      }
    }
    // A position-independent executable is ET_DYN too; its program interpreter tells it from a
    // shared library.
    if (Member.empty() && Eh.e_type == ET_DYN)
      for (size_t I = FirstSection; I < Sections.size(); ++I)
        if (Sections[I].BareName == ".interp")
          F.Kind = FileKind::ELFExecutable;
    if (!WrapperScn)
      return llvm::Error::success();
    if (Eh.e_ident[EI_CLASS] != ELFCLASS64)
      return fail(
          llvm::formatv("{0}32-bit ELF files with fatbin wrappers are not supported", Where));

    const SectionInfo &WS = Sections[IndexToSection[WrapperIndex]];
    if (WS.Size % WrapperSize != 0)
      return fail(llvm::formatv("{0}section .nvFatBinSegment at {1:x}: size {2} is not a multiple "
                                "of the {3}-byte wrapper record",
                                Where, WS.Offset, WS.Size, WrapperSize));
    bool Relocatable = Eh.e_type == ET_REL;
    for (uint64_t Off = 0; Off < WS.Size; Off += WrapperSize) {
      const uint8_t *P = F.Bytes.data() + WS.Offset + Off;
      Wrapper W;
      W.Offset = WS.Offset + Off;
      uint32_t Magic = readLE<uint32_t>(P);
      W.Version = readLE<uint32_t>(P + 4);
      W.Data = readLE<uint64_t>(P + 8);
      W.PrelinkedList = readLE<uint64_t>(P + 16);
      if (Magic != WrapperMagic)
        return fail(llvm::formatv("{0}wrapper at {1:x}: bad magic {2:x8} (expected {3:x8})", Where,
                                  W.Offset, Magic, WrapperMagic));
      if (W.Version != 1 && W.Version != 2)
        return fail(llvm::formatv("{0}wrapper at {1:x}: unsupported version {2}", Where, W.Offset,
                                  W.Version));
      llvm::Expected<uint64_t> Target =
          Relocatable ? relocatedTarget(E, Eh, WrapperIndex, Off + 8, IndexToSection, Where, W)
                      : loadedTarget(E, Eh, WS.Addr + Off + 8, FirstSection, Where, W);
      if (!Target)
        return Target.takeError();
      W.ContainerOffset = *Target;
      F.Wrappers.push_back(W);
    }
    return llvm::Error::success();
  }

  /// In a relocatable object the wrapper's data field is 0 plus an absolute relocation against
  /// the fatbin section (fatbin-format.md §2).
  llvm::Expected<uint64_t> relocatedTarget(Elf *E, const GElf_Ehdr &Eh, size_t WrapperIndex,
                                           uint64_t FieldOffset,
                                           const std::vector<size_t> &IndexToSection,
                                           llvm::StringRef Where, const Wrapper &W) {
    for (Elf_Scn *Scn = elf_nextscn(E, nullptr); Scn; Scn = elf_nextscn(E, Scn)) {
      GElf_Shdr Sh;
      if (!gelf_getshdr(Scn, &Sh) || Sh.sh_type != SHT_RELA || Sh.sh_info != WrapperIndex)
        continue;
      Elf_Data *RD = elf_getdata(Scn, nullptr);
      if (!RD)
        return fail(llvm::formatv("{0}wrapper at {1:x}: relocation section unreadable: {2}", Where,
                                  W.Offset, elf_errmsg(-1)));
      Elf_Scn *SymScn = elf_getscn(E, Sh.sh_link);
      Elf_Data *SD = SymScn ? elf_getdata(SymScn, nullptr) : nullptr;
      if (!SD)
        return fail(llvm::formatv("{0}wrapper at {1:x}: symbol table {2} of its relocations is "
                                  "unreadable",
                                  Where, W.Offset, Sh.sh_link));
      size_t N = Sh.sh_entsize ? Sh.sh_size / Sh.sh_entsize : 0;
      uint64_t SegmentSize = Sections[IndexToSection[WrapperIndex]].Size;
      for (size_t I = 0; I < N; ++I) {
        GElf_Rela R;
        if (!gelf_getrela(RD, int(I), &R))
          return fail(
              llvm::formatv("{0}wrapper at {1:x}: relocation {2} unreadable", Where, W.Offset, I));
        // Otherwise it would only show up as "no relocation fills its data pointer".
        if (R.r_offset >= SegmentSize)
          return fail(llvm::formatv("{0}wrapper at {1:x}: relocation {2} targets offset {3:x}, "
                                    "past the end of .nvFatBinSegment ({4} bytes)",
                                    Where, W.Offset, I, R.r_offset, SegmentSize));
        if (R.r_offset != FieldOffset)
          continue;
        uint32_t Type = GELF_R_TYPE(R.r_info);
        bool Abs64 = (Eh.e_machine == EM_X86_64 && Type == R_X86_64_64_) ||
                     (Eh.e_machine == EM_AARCH64 && Type == R_AARCH64_ABS64_);
        if (!Abs64)
          return fail(llvm::formatv("{0}wrapper at {1:x}: unsupported relocation type {2}", Where,
                                    W.Offset, Type));
        GElf_Sym Sym;
        if (!gelf_getsym(SD, int(GELF_R_SYM(R.r_info)), &Sym))
          return fail(llvm::formatv("{0}wrapper at {1:x}: relocation names symbol {2}, which "
                                    "does not exist",
                                    Where, W.Offset, GELF_R_SYM(R.r_info)));
        if (Sym.st_shndx == SHN_UNDEF || Sym.st_shndx >= IndexToSection.size() ||
            IndexToSection[Sym.st_shndx] == SIZE_MAX)
          return fail(llvm::formatv("{0}wrapper at {1:x}: relocation symbol lies in no section "
                                    "of the file (section index {2})",
                                    Where, W.Offset, Sym.st_shndx));
        const SectionInfo &S = Sections[IndexToSection[Sym.st_shndx]];
        uint64_t Rel = Sym.st_value + uint64_t(R.r_addend) + W.Data;
        if (Rel >= S.Size)
          return fail(llvm::formatv("{0}wrapper at {1:x}: relocation points {2:x} bytes into "
                                    "section '{3}', which has only {4:x}",
                                    Where, W.Offset, Rel, S.Name, S.Size));
        return S.Offset + Rel;
      }
    }
    return fail(llvm::formatv("{0}wrapper at {1:x}: no relocation fills its data pointer", Where,
                              W.Offset));
  }

  /// In executables and shared objects the data field holds the container's link-time address,
  /// with a RELATIVE relocation for it; some linkers leave the field 0 and keep the address only in
  /// the relocation's addend.
  llvm::Expected<uint64_t> loadedTarget(Elf *E, const GElf_Ehdr &Eh, uint64_t FieldVA,
                                        size_t FirstSection, llvm::StringRef Where,
                                        const Wrapper &W) {
    uint64_t VA = W.Data;
    if (VA == 0) {
      for (Elf_Scn *Scn = elf_nextscn(E, nullptr); Scn && VA == 0; Scn = elf_nextscn(E, Scn)) {
        GElf_Shdr Sh;
        if (!gelf_getshdr(Scn, &Sh) || Sh.sh_type != SHT_RELA || !Sh.sh_entsize)
          continue;
        Elf_Data *RD = elf_getdata(Scn, nullptr);
        if (!RD)
          continue;
        for (size_t I = 0, N = Sh.sh_size / Sh.sh_entsize; I < N; ++I) {
          GElf_Rela R;
          if (!gelf_getrela(RD, int(I), &R) || R.r_offset != FieldVA)
            continue;
          uint32_t Type = GELF_R_TYPE(R.r_info);
          if ((Eh.e_machine == EM_X86_64 && Type == R_X86_64_RELATIVE_) ||
              (Eh.e_machine == EM_AARCH64 && Type == R_AARCH64_RELATIVE_))
            VA = uint64_t(R.r_addend);
          break;
        }
      }
      if (VA == 0)
        return fail(llvm::formatv("{0}wrapper at {1:x}: null data pointer", Where, W.Offset));
    }
    for (size_t I = FirstSection; I < Sections.size(); ++I) {
      const SectionInfo &S = Sections[I];
      if (!(S.Flags & SHF_ALLOC) || VA < S.Addr || VA - S.Addr >= S.Size)
        continue;
      return S.Offset + (VA - S.Addr);
    }
    return fail(llvm::formatv("{0}wrapper at {1:x}: data pointer {2:x} lies outside every "
                              "section of the file",
                              Where, W.Offset, VA));
  }

  // ---------------------------------------------------------------- containers

  const SectionInfo *sectionAt(uint64_t Off) const {
    for (const SectionInfo &S : Sections)
      if (Off >= S.Offset && Off - S.Offset < S.Size)
        return &S;
    return nullptr;
  }

  llvm::Error scanContainers() {
    const uint8_t Magic[4] = {0x50, 0xED, 0x55, 0xBA};
    const uint8_t *D = F.Bytes.data();
    uint64_t N = size();
    std::sort(Sections.begin(), Sections.end(),
              [](const SectionInfo &A, const SectionInfo &B) { return A.Offset < B.Offset; });
    uint64_t P = 0;
    while (P + 4 <= N) {
      const void *Hit = memmem(D + P, N - P, Magic, 4);
      if (!Hit)
        break;
      uint64_t Q = static_cast<const uint8_t *>(Hit) - D;
      const SectionInfo *S = sectionAt(Q);
      bool Strict = F.Kind == FileKind::BareFatbin || (S && S->IsFatbin);
      uint64_t Limit = (S && S->IsFatbin) ? S->Offset + S->Size : N;
      Container C;
      C.Section = S ? S->Name : "<raw>";
      C.Origin = F.Kind == FileKind::BareFatbin ? ContainerOrigin::Bare
                 : (S && S->IsFatbin)           ? ContainerOrigin::Section
                                                : ContainerOrigin::Scan;
      if (auto Err = parseContainer(F.Path, F.Bytes, F.Opts, Q, Limit, C)) {
        if (Strict)
          return Err;
        llvm::consumeError(std::move(Err));
        ++F.Rejected;
        P = Q + 4;
        continue;
      }
      P = std::max(C.end(), Q + 4);
      F.Containers.push_back(std::move(C));
    }
    return llvm::Error::success();
  }

  /// Fatbin sections and bare fatbins hold containers back to back with zero padding between
  /// them; anything else there means the input is damaged.
  llvm::Error checkCoverage() {
    auto Check = [&](uint64_t Begin, uint64_t End, llvm::StringRef What) -> llvm::Error {
      uint64_t P = Begin;
      auto It = std::lower_bound(F.Containers.begin(), F.Containers.end(), Begin,
                                 [](const Container &C, uint64_t O) { return C.Offset < O; });
      while (P < End) {
        uint64_t Next = (It != F.Containers.end() && It->Offset < End) ? It->Offset : End;
        for (uint64_t I = P; I < Next; ++I) {
          if (F.Bytes[I] == 0)
            continue;
          // Most often a container whose magic was damaged: show what stands there instead.
          std::string Found;
          if (End - I >= 4)
            Found = llvm::formatv(": expected the container magic {0:x8} or zero padding, found "
                                  "{1:x8}",
                                  ContainerMagic, readLE<uint32_t>(F.Bytes.data() + I));
          return fail(llvm::formatv("{0}: bytes at {1:x} are not part of any fatbin container{2}",
                                    What, I, Found));
        }
        if (Next == End)
          break;
        P = It->end();
        ++It;
      }
      return llvm::Error::success();
    };
    if (F.Kind == FileKind::BareFatbin)
      return Check(0, size(), "bare fatbin");
    for (const SectionInfo &S : Sections)
      if (S.IsFatbin)
        if (auto Err = Check(S.Offset, S.Offset + S.Size,
                             llvm::formatv("section '{0}' at {1:x}", S.Name, S.Offset).str()))
          return Err;
    return llvm::Error::success();
  }

  llvm::Error resolveWrappers() {
    for (Wrapper &W : F.Wrappers) {
      uint64_t T = *W.ContainerOffset;
      auto It = std::upper_bound(F.Containers.begin(), F.Containers.end(), T,
                                 [](uint64_t O, const Container &C) { return O < C.Offset; });
      if (It != F.Containers.begin()) {
        Container &Prev = *std::prev(It);
        if (Prev.Offset == T) {
          if (Prev.Origin == ContainerOrigin::Scan)
            Prev.Origin = ContainerOrigin::Wrapper;
          continue;
        }
        if (T < Prev.end())
          return fail(llvm::formatv("wrapper at {0:x} points to {1:x}, inside the container at "
                                    "{2:x}",
                                    W.Offset, T, Prev.Offset));
      }
      // The magic scan did not accept a container there: parse strictly to say why.
      Container C;
      if (auto Err = parseContainer(F.Path, F.Bytes, F.Opts, T, size(), C)) {
        // The container error already starts with the file name; name it only once.
        std::string Msg = llvm::toString(std::move(Err));
        llvm::StringRef Why(Msg);
        Why.consume_front(F.Path + ": ");
        return fail(llvm::formatv("wrapper at {0:x} points to {1:x}: {2}", W.Offset, T, Why));
      }
      return fail(llvm::formatv("wrapper at {0:x} points to {1:x}, which overlaps another "
                                "container",
                                W.Offset, T));
    }
    return llvm::Error::success();
  }
};

llvm::Expected<FatbinFile> scanFile(llvm::StringRef Path, const ScanOptions &Opts) {
  auto Fail = [&](const llvm::Twine &Msg) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), Path + ": " + Msg);
  };
  int FD = -1;
  if (std::error_code EC = llvm::sys::fs::openFileForRead(Path, FD))
    return Fail(EC.message());
  llvm::sys::fs::file_status St;
  if (std::error_code EC = llvm::sys::fs::status(FD, St)) {
    llvm::sys::Process::SafelyCloseFileDescriptor(FD);
    return Fail(EC.message());
  }
  if (St.type() == llvm::sys::fs::file_type::directory_file) {
    llvm::sys::Process::SafelyCloseFileDescriptor(FD);
    return Fail("is a directory");
  }
  FatbinFile F;
  F.Path = Path.str();
  F.Opts = Opts;
  F.Store = std::make_unique<FatbinFile::Storage>();
  uint64_t Size = St.getSize();
  if (Size > 0) {
    std::error_code EC;
    auto Region = std::make_unique<llvm::sys::fs::mapped_file_region>(
        llvm::sys::fs::convertFDToNativeFile(FD), llvm::sys::fs::mapped_file_region::priv, Size, 0,
        EC);
    llvm::sys::Process::SafelyCloseFileDescriptor(FD);
    if (EC)
      return Fail("cannot map file: " + EC.message());
    F.Bytes =
        llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(Region->const_data()), Size);
    F.Store->Region = std::move(Region);
  } else {
    llvm::sys::Process::SafelyCloseFileDescriptor(FD);
  }
  Scanner S(F);
  if (auto Err = S.run())
    return std::move(Err);
  return std::move(F);
}

uint64_t elfImageSize(const uint8_t *Image) {
  constexpr uint64_t Limit = uint64_t(1) << 30;
  Elf64_Ehdr Eh;
  std::memcpy(&Eh, Image, sizeof Eh);
  if (std::memcmp(Eh.e_ident, ELFMAG, SELFMAG) != 0 || Eh.e_ident[EI_CLASS] != ELFCLASS64 ||
      Eh.e_ident[EI_DATA] != ELFDATA2LSB || (Eh.e_shnum && Eh.e_shentsize != sizeof(Elf64_Shdr)) ||
      (Eh.e_phnum && Eh.e_phentsize != sizeof(Elf64_Phdr)) || Eh.e_shoff > Limit ||
      Eh.e_phoff > Limit)
    return 0;
  uint64_t End =
      std::max<uint64_t>({sizeof Eh, Eh.e_shoff + uint64_t(Eh.e_shnum) * sizeof(Elf64_Shdr),
                          Eh.e_phoff + uint64_t(Eh.e_phnum) * sizeof(Elf64_Phdr)});
  if (End > Limit)
    return 0;
  for (unsigned I = 0; I < Eh.e_shnum; ++I) {
    Elf64_Shdr Sh;
    std::memcpy(&Sh, Image + Eh.e_shoff + I * sizeof Sh, sizeof Sh);
    if (Sh.sh_type == SHT_NOBITS)
      continue;
    if (Sh.sh_offset > Limit || Sh.sh_size > Limit || Sh.sh_offset + Sh.sh_size > Limit)
      return 0;
    End = std::max(End, Sh.sh_offset + Sh.sh_size);
  }
  return End;
}

llvm::Expected<std::vector<std::string>> cubinKernels(llvm::ArrayRef<uint8_t> Bytes) {
  auto Fail = [](const llvm::Twine &Msg) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "cubin: " + Msg);
  };
  initLibelf();
  ElfPtr E(elf_memory(reinterpret_cast<char *>(const_cast<uint8_t *>(Bytes.data())), Bytes.size()));
  if (!E || elf_kind(E.get()) != ELF_K_ELF)
    return Fail(llvm::formatv("not a readable ELF image: {0}", elf_errmsg(-1)));
  std::vector<std::string> Kernels;
  for (Elf_Scn *Scn = elf_nextscn(E.get(), nullptr); Scn; Scn = elf_nextscn(E.get(), Scn)) {
    GElf_Shdr Sh;
    if (!gelf_getshdr(Scn, &Sh))
      return Fail(llvm::formatv("section header unreadable: {0}", elf_errmsg(-1)));
    if (Sh.sh_type != SHT_SYMTAB || Sh.sh_entsize == 0)
      continue;
    Elf_Data *Data = elf_getdata(Scn, nullptr);
    if (!Data)
      return Fail(llvm::formatv("symbol table unreadable: {0}", elf_errmsg(-1)));
    for (size_t I = 0, N = Sh.sh_size / Sh.sh_entsize; I < N; ++I) {
      GElf_Sym Sym;
      if (!gelf_getsym(Data, int(I), &Sym))
        return Fail(llvm::formatv("symbol {0} unreadable: {1}", I, elf_errmsg(-1)));
      if (GELF_ST_TYPE(Sym.st_info) != STT_FUNC || !(Sym.st_other & 0x10))
        continue;
      const char *Name = elf_strptr(E.get(), Sh.sh_link, Sym.st_name);
      if (!Name)
        return Fail(llvm::formatv("name of symbol {0} unreadable: {1}", I, elf_errmsg(-1)));
      Kernels.emplace_back(Name);
    }
  }
  return Kernels;
}

llvm::Expected<FatbinFile> scanBuffer(llvm::ArrayRef<uint8_t> Bytes, llvm::StringRef Name,
                                      const ScanOptions &Opts) {
  FatbinFile F;
  F.Path = Name.str();
  F.Opts = Opts;
  F.Store = std::make_unique<FatbinFile::Storage>();
  F.Store->Copy.assign(Bytes.begin(), Bytes.end());
  F.Bytes = F.Store->Copy;
  Scanner S(F);
  if (auto Err = S.run())
    return std::move(Err);
  return std::move(F);
}

} // namespace reptx::fatbin
