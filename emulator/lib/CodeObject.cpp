// Loading an HSA code object: ELF checks, the loadable image, kernels found through their ".kd"
// symbols and the NT_AMDGPU_METADATA note, kernel descriptors, dynamic relocations, and the
// decoded machine code (AMDGPUUsage, "Code Object V3 to V6", "ELF Code Object", "Kernel
// Descriptor", "Code Object Metadata").
#include "reptx/emulator/CodeObject.h"

#include "Decoder.h"
#include "Program.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/BinaryFormat/MsgPackDocument.h"
#include "llvm/BinaryFormat/MsgPackReader.h"
#include "llvm/Object/ELF.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/Endian.h"

#include <atomic>
#include <map>

using namespace llvm;
using namespace llvm::object;

namespace reptx::emulator {

namespace {

Error malformed(const Twine &Message) {
  return createStringError(std::make_error_code(std::errc::invalid_argument),
                           "malformed code object: " + Message);
}
Error unsupported(const Twine &Message) {
  return createStringError(std::make_error_code(std::errc::not_supported),
                           "unsupported code object: " + Message);
}

constexpr uint64_t MaxImageSize = uint64_t(1) << 30;

// Processor properties the emulator needs, from the processor name.
Expected<TargetInfo> targetFor(StringRef Processor, StringRef TargetId) {
  TargetInfo T;
  T.Processor = Processor.str();
  T.TargetId = TargetId.str();
  StringRef Name = Processor;
  if (!Name.consume_front("gfx"))
    return unsupported("processor '" + Processor + "' is not a gfx target");
  // Generic targets: gfx9-generic, gfx9-4-generic, gfx10-1-generic, gfx11-generic, ...
  if (Name.ends_with("-generic")) {
    StringRef Version = Name.drop_back(8);
    auto [Major, Minor] = Version.split('-');
    if (Major.getAsInteger(10, T.Major) || (!Minor.empty() && Minor.getAsInteger(10, T.Minor)))
      return unsupported("processor '" + Processor + "'");
  } else {
    // gfxMMms: the last two characters are minor and stepping (hex digits).
    if (Name.size() < 3)
      return unsupported("processor '" + Processor + "'");
    StringRef Major = Name.drop_back(2);
    if (Major.getAsInteger(10, T.Major) || !isHexDigit(Name[Name.size() - 2]) ||
        !isHexDigit(Name.back()))
      return unsupported("processor '" + Processor + "'");
    T.Minor = hexDigitValue(Name[Name.size() - 2]);
    T.Stepping = hexDigitValue(Name.back());
  }
  switch (T.Major) {
  case 9:
    T.Family = GfxFamily::GFX9;
    break;
  case 10:
    T.Family = GfxFamily::GFX10;
    break;
  case 11:
    T.Family = GfxFamily::GFX11;
    break;
  case 12:
    T.Family = GfxFamily::GFX12;
    break;
  default:
    return unsupported("processor '" + Processor + "': only GFX9 to GFX12 are emulated");
  }
  bool Gfx90aOr94x = T.Major == 9 && (T.Minor >= 4 || (T.Minor == 0 && T.Stepping == 0xa));
  T.UnifiedVgprFile = Gfx90aOr94x;
  T.PackedWorkItemIds = Gfx90aOr94x || T.Major >= 11;
  return T;
}

// --- msgpack metadata helpers

// Whether a MessagePack blob is complete, with string keys in every map (as AMDGPU metadata has)
// and bounded nesting. LLVM 22's msgpack::Document::readFromBlob crashes (so does llvm-readelf
// --notes) on some blobs whose map keys are arrays or maps, e.g. {[1]: [2], {3: ...}: ...}, so a
// blob that fails this is rejected before the Document reads it.
bool mapKeysAreStrings(StringRef Blob) {
  msgpack::Reader R(Blob);
  struct Level {
    size_t Left; // elements (arrays) or pairs (maps) still to come
    bool Map;
    bool WantKey;
  };
  SmallVector<Level, 16> Stack;
  do {
    msgpack::Object O;
    Expected<bool> Got = R.read(O);
    if (!Got) {
      consumeError(Got.takeError());
      return false;
    }
    if (!*Got)
      return false; // the blob ends inside a container
    if (!Stack.empty()) {
      Level &L = Stack.back();
      if (L.Map && L.WantKey) {
        if (O.Kind != msgpack::Type::String)
          return false;
        L.WantKey = false;
      } else {
        L.WantKey = true;
        --L.Left;
      }
    }
    if (O.Kind == msgpack::Type::Array || O.Kind == msgpack::Type::Map) {
      if (Stack.size() >= 64)
        return false;
      Stack.push_back({O.Length, O.Kind == msgpack::Type::Map, true});
    }
    while (!Stack.empty() && Stack.back().Left == 0)
      Stack.pop_back();
  } while (!Stack.empty());
  return true;
}

std::optional<msgpack::DocNode> lookup(msgpack::DocNode &Map, StringRef Key) {
  if (!Map.isMap())
    return std::nullopt;
  auto &M = Map.getMap();
  auto It = M.find(Key);
  if (It == M.end())
    return std::nullopt;
  return It->second;
}

std::optional<uint64_t> getUInt(msgpack::DocNode &Map, StringRef Key) {
  auto N = lookup(Map, Key);
  if (!N)
    return std::nullopt;
  if (N->getKind() == msgpack::Type::UInt)
    return N->getUInt();
  if (N->getKind() == msgpack::Type::Int && N->getInt() >= 0)
    return uint64_t(N->getInt());
  return std::nullopt;
}

std::optional<std::string> getString(msgpack::DocNode &Map, StringRef Key) {
  auto N = lookup(Map, Key);
  if (!N || N->getKind() != msgpack::Type::String)
    return std::nullopt;
  return N->getString().str();
}

std::optional<bool> getBool(msgpack::DocNode &Map, StringRef Key) {
  auto N = lookup(Map, Key);
  if (!N)
    return std::nullopt;
  if (N->getKind() == msgpack::Type::Boolean)
    return N->getBool();
  if (N->getKind() == msgpack::Type::UInt)
    return N->getUInt() != 0;
  return std::nullopt;
}

uint32_t clamp32(std::optional<uint64_t> V, uint32_t Default) {
  if (!V)
    return Default;
  return *V > UINT32_MAX ? UINT32_MAX : uint32_t(*V);
}

std::atomic<uint64_t> NextId{1};

} // namespace

Expected<KernelDescriptor> KernelDescriptor::parse(ArrayRef<uint8_t> B) {
  if (B.size() < Size)
    return malformed("kernel descriptor has " + Twine(B.size()) + " bytes, expected 64");
  using namespace support::endian;
  KernelDescriptor D;
  D.GroupSegmentFixedSize = read32le(B.data() + 0);
  D.PrivateSegmentFixedSize = read32le(B.data() + 4);
  D.KernargSize = read32le(B.data() + 8);
  D.KernelCodeEntryByteOffset = int64_t(read64le(B.data() + 16));
  D.ComputePgmRsrc3 = read32le(B.data() + 44);
  D.ComputePgmRsrc1 = read32le(B.data() + 48);
  D.ComputePgmRsrc2 = read32le(B.data() + 52);
  D.KernelCodeProperties = read16le(B.data() + 56);
  D.KernargPreload = read16le(B.data() + 58);
  return D;
}

struct CodeObject::Impl {
  uint64_t Id = 0;
  TargetInfo Target;
  unsigned Version = 0;
  std::vector<uint8_t> Bytes;
  std::vector<uint8_t> Image;
  uint64_t ImageBase = 0;
  std::vector<Kernel> Kernels;
  std::vector<Relocation> Relocations;
  std::map<unsigned, std::unique_ptr<Program>> Programs; // by wave size
};

CodeObject::CodeObject() : P(std::make_unique<Impl>()) {}
CodeObject::~CodeObject() = default;

const TargetInfo &CodeObject::target() const { return P->Target; }
unsigned CodeObject::version() const { return P->Version; }
ArrayRef<Kernel> CodeObject::kernels() const { return P->Kernels; }
uint64_t CodeObject::uniqueId() const { return P->Id; }
ArrayRef<uint8_t> CodeObject::image() const { return P->Image; }
uint64_t CodeObject::imageBase() const { return P->ImageBase; }
ArrayRef<CodeObject::Relocation> CodeObject::relocations() const { return P->Relocations; }

const Kernel *CodeObject::findKernel(StringRef Name) const {
  for (const Kernel &K : P->Kernels)
    if (K.Name == Name)
      return &K;
  return nullptr;
}

const Program &CodeObject::program(unsigned WaveSize) const {
  auto It = P->Programs.find(WaveSize);
  if (It == P->Programs.end())
    It = P->Programs.begin(); // load() decodes every wave size a kernel uses
  return *It->second;
}

std::vector<DisassembledInstruction> CodeObject::disassemble(const Kernel &K) const {
  std::vector<DisassembledInstruction> Out;
  const Program &Prog = program(K.WavefrontSize);
  std::optional<uint32_t> First = Prog.indexOf(K.EntryAddress);
  if (!First)
    return Out;
  uint64_t End = K.CodeSize ? K.EntryAddress + K.CodeSize : Prog.CodeEnd;
  for (uint32_t I = *First; I < Prog.Insts.size() && Prog.Insts[I].Address < End; ++I) {
    const Inst &In = Prog.Insts[I];
    Out.push_back({In.Address, In.Size, Prog.Text[I], In.Op && In.Problem.empty()});
  }
  return Out;
}

Expected<std::unique_ptr<CodeObject>> CodeObject::load(ArrayRef<uint8_t> Input) {
  std::unique_ptr<CodeObject> CO(new CodeObject());
  Impl &I = *CO->P;
  I.Id = NextId++;
  I.Bytes.assign(Input.begin(), Input.end());
  StringRef Data(reinterpret_cast<const char *>(I.Bytes.data()), I.Bytes.size());

  if (Data.size() < sizeof(ELF64LE::Ehdr) || !Data.starts_with("\x7f"
                                                               "ELF"))
    return malformed("not an ELF file");
  const auto *Ehdr = reinterpret_cast<const ELF64LE::Ehdr *>(Data.data());
  if (Ehdr->e_ident[ELF::EI_CLASS] != ELF::ELFCLASS64 ||
      Ehdr->e_ident[ELF::EI_DATA] != ELF::ELFDATA2LSB)
    return malformed("not a 64-bit little-endian ELF file");
  if (Ehdr->e_machine != ELF::EM_AMDGPU)
    return unsupported("e_machine is " + Twine(unsigned(Ehdr->e_machine)) + ", not EM_AMDGPU");
  if (Ehdr->e_ident[ELF::EI_OSABI] != ELF::ELFOSABI_AMDGPU_HSA)
    return unsupported("OS ABI is " + Twine(unsigned(Ehdr->e_ident[ELF::EI_OSABI])) +
                       ", not AMDGPU HSA");
  unsigned AbiVersion = Ehdr->e_ident[ELF::EI_ABIVERSION];
  if (AbiVersion < ELF::ELFABIVERSION_AMDGPU_HSA_V3 ||
      AbiVersion > ELF::ELFABIVERSION_AMDGPU_HSA_V6)
    return unsupported("ABI version " + Twine(AbiVersion) +
                       " (only code object versions 3 to 6 are supported)");
  I.Version = AbiVersion + 2;

  auto ObjOrErr = ELF64LEObjectFile::create(MemoryBufferRef(Data, "code object"));
  if (!ObjOrErr)
    return malformed(toString(ObjOrErr.takeError()));
  const ELF64LEObjectFile &Obj = *ObjOrErr;
  const ELF64LEFile &File = Obj.getELFFile();

  // --- loadable image
  auto Phdrs = File.program_headers();
  if (!Phdrs)
    return malformed(toString(Phdrs.takeError()));
  uint64_t Lo = UINT64_MAX, Hi = 0;
  for (const auto &Ph : *Phdrs) {
    if (Ph.p_type != ELF::PT_LOAD)
      continue;
    if (Ph.p_filesz > Ph.p_memsz || Ph.p_offset > Data.size() ||
        Ph.p_filesz > Data.size() - Ph.p_offset || Ph.p_memsz > MaxImageSize ||
        Ph.p_vaddr > MaxImageSize)
      return malformed("PT_LOAD segment exceeds the file or the 1 GiB image limit");
    Lo = std::min<uint64_t>(Lo, Ph.p_vaddr);
    Hi = std::max<uint64_t>(Hi, Ph.p_vaddr + Ph.p_memsz);
  }
  if (Lo == UINT64_MAX)
    return malformed("no PT_LOAD segment");
  I.ImageBase = Lo;
  I.Image.assign(Hi - Lo, 0);
  for (const auto &Ph : *Phdrs)
    if (Ph.p_type == ELF::PT_LOAD && Ph.p_filesz)
      std::memcpy(I.Image.data() + (Ph.p_vaddr - Lo), Data.data() + Ph.p_offset, Ph.p_filesz);
  auto ImageRange = [&](uint64_t VAddr, uint64_t Size) -> std::optional<ArrayRef<uint8_t>> {
    if (VAddr < I.ImageBase || VAddr - I.ImageBase > I.Image.size() ||
        Size > I.Image.size() - (VAddr - I.ImageBase))
      return std::nullopt;
    return ArrayRef<uint8_t>(I.Image).slice(VAddr - I.ImageBase, Size);
  };

  // --- metadata note
  std::optional<msgpack::Document> Doc;
  auto Sections = File.sections();
  if (!Sections)
    return malformed(toString(Sections.takeError()));
  // Returns false when a metadata note is not valid MessagePack.
  auto ScanNotes = [&](auto &&Notes) {
    for (const auto &Note : Notes) {
      if (Note.getName() != "AMDGPU" || Note.getType() != ELF::NT_AMDGPU_METADATA)
        continue;
      ArrayRef<uint8_t> Desc = Note.getDesc(4);
      StringRef Blob(reinterpret_cast<const char *>(Desc.data()), Desc.size());
      Doc.emplace();
      if (!mapKeysAreStrings(Blob) || !Doc->readFromBlob(Blob, /*Multi=*/false))
        return false;
    }
    return true;
  };
  for (const auto &Ph : *Phdrs) {
    if (Ph.p_type != ELF::PT_NOTE || Doc)
      continue;
    Error Err = Error::success();
    bool Ok = ScanNotes(File.notes(Ph, Err));
    if (Err)
      return malformed(toString(std::move(Err)));
    if (!Ok)
      return malformed("NT_AMDGPU_METADATA is not valid MessagePack");
  }
  for (const auto &Sec : *Sections) {
    if (Sec.sh_type != ELF::SHT_NOTE || Doc)
      continue;
    Error Err = Error::success();
    bool Ok = ScanNotes(File.notes(Sec, Err));
    if (Err)
      return malformed(toString(std::move(Err)));
    if (!Ok)
      return malformed("NT_AMDGPU_METADATA is not valid MessagePack");
  }
  if (!Doc)
    return malformed("no NT_AMDGPU_METADATA note");
  msgpack::DocNode &Root = Doc->getRoot();

  // --- target
  std::string TargetId = getString(Root, "amdhsa.target").value_or("");
  StringRef Processor;
  if (!TargetId.empty()) {
    // "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-"
    StringRef Id = TargetId;
    size_t Dashes = Id.find("--");
    if (Dashes == StringRef::npos)
      return malformed("amdhsa.target '" + TargetId + "'");
    Processor = Id.substr(Dashes + 2).split(':').first;
  } else {
    // No amdhsa.target: the processor from e_flags, for the targets reptx compiles for (LLVM's
    // ObjectFile::tryGetCPUName returned a dangling name for some corrupted e_flags: found by
    // tests/fuzz/codeobject_fuzzer).
    switch (File.getHeader().e_flags & ELF::EF_AMDGPU_MACH) {
    case ELF::EF_AMDGPU_MACH_AMDGCN_GFX90A:
      Processor = "gfx90a";
      break;
    case ELF::EF_AMDGPU_MACH_AMDGCN_GFX942:
      Processor = "gfx942";
      break;
    case ELF::EF_AMDGPU_MACH_AMDGCN_GFX1030:
      Processor = "gfx1030";
      break;
    case ELF::EF_AMDGPU_MACH_AMDGCN_GFX1100:
      Processor = "gfx1100";
      break;
    case ELF::EF_AMDGPU_MACH_AMDGCN_GFX1201:
      Processor = "gfx1201";
      break;
    default:
      break;
    }
  }
  if (Processor.empty())
    return malformed("cannot tell the processor (no amdhsa.target, unknown e_flags)");
  auto Target = targetFor(Processor, TargetId);
  if (!Target)
    return Target.takeError();
  I.Target = *Target;

  // --- symbols: "<kernel>.kd" descriptors and the kernels' function symbols. Read through the
  // ELFFile, whose symbol tables are bounds-checked as a whole: ObjectFile's symbol iterators take
  // their end from a section size nothing checked, and a corrupted one made billions of failing
  // lookups (a hang). .symtab first, then .dynsym; the first symbol of a name wins.
  std::map<std::string, std::pair<uint64_t, uint64_t>> Symbols; // name -> (value, size)
  for (unsigned Type : {ELF::SHT_SYMTAB, ELF::SHT_DYNSYM})
    for (const auto &Sec : *Sections) {
      if (Sec.sh_type != Type)
        continue;
      auto Syms = File.symbols(&Sec);
      if (!Syms)
        return malformed(toString(Syms.takeError()));
      auto Strings = File.getStringTableForSymtab(Sec, *Sections);
      if (!Strings)
        return malformed(toString(Strings.takeError()));
      for (const auto &Sym : *Syms) {
        Expected<StringRef> Name = Sym.getName(*Strings);
        if (!Name) {
          consumeError(Name.takeError());
          continue;
        }
        Symbols.emplace(Name->str(), std::make_pair(uint64_t(Sym.st_value), uint64_t(Sym.st_size)));
      }
    }

  // --- kernels from the metadata
  auto KernelsNode = lookup(Root, "amdhsa.kernels");
  if (!KernelsNode || !KernelsNode->isArray())
    return malformed("metadata has no amdhsa.kernels array");
  for (msgpack::DocNode &KN : KernelsNode->getArray()) {
    Kernel K;
    auto Name = getString(KN, ".name");
    auto Symbol = getString(KN, ".symbol");
    if (!Name || !Symbol)
      return malformed("a kernel's metadata lacks .name or .symbol");
    K.Name = *Name;
    K.Symbol = *Symbol;
    auto Sym = Symbols.find(K.Symbol);
    if (Sym == Symbols.end())
      return malformed("kernel '" + K.Name + "': no symbol '" + K.Symbol + "'");
    K.DescriptorAddress = Sym->second.first;
    auto DescBytes = ImageRange(K.DescriptorAddress, KernelDescriptor::Size);
    if (!DescBytes)
      return malformed("kernel '" + K.Name + "': descriptor outside the loaded image");
    auto Desc = KernelDescriptor::parse(*DescBytes);
    if (!Desc)
      return Desc.takeError();
    K.Descriptor = *Desc;
    K.EntryAddress = K.DescriptorAddress + uint64_t(K.Descriptor.KernelCodeEntryByteOffset);
    auto Fn = Symbols.find(K.Name);
    if (Fn != Symbols.end() && Fn->second.first == K.EntryAddress)
      K.CodeSize = Fn->second.second;
    K.KernargSegmentSize = clamp32(getUInt(KN, ".kernarg_segment_size"), K.Descriptor.KernargSize);
    K.KernargSegmentAlign = clamp32(getUInt(KN, ".kernarg_segment_align"), 8);
    K.GroupSegmentFixedSize =
        clamp32(getUInt(KN, ".group_segment_fixed_size"), K.Descriptor.GroupSegmentFixedSize);
    K.PrivateSegmentFixedSize =
        clamp32(getUInt(KN, ".private_segment_fixed_size"), K.Descriptor.PrivateSegmentFixedSize);
    unsigned DescriptorWave =
        I.Target.Family != GfxFamily::GFX9 && K.Descriptor.enableWavefrontSize32() ? 32 : 64;
    K.WavefrontSize = clamp32(getUInt(KN, ".wavefront_size"), DescriptorWave);
    if (K.WavefrontSize != DescriptorWave)
      return malformed("kernel '" + K.Name + "': metadata wavefront size " +
                       Twine(K.WavefrontSize) + " disagrees with the descriptor (" +
                       Twine(DescriptorWave) + ")");
    K.MaxFlatWorkgroupSize = clamp32(getUInt(KN, ".max_flat_workgroup_size"), 1024);
    K.SgprCount = clamp32(getUInt(KN, ".sgpr_count"), 0);
    K.VgprCount = clamp32(getUInt(KN, ".vgpr_count"), 0);
    K.AgprCount = clamp32(getUInt(KN, ".agpr_count"), 0);
    K.SgprSpillCount = clamp32(getUInt(KN, ".sgpr_spill_count"), 0);
    K.VgprSpillCount = clamp32(getUInt(KN, ".vgpr_spill_count"), 0);
    K.UsesDynamicStack = getBool(KN, ".uses_dynamic_stack").value_or(false);
    K.UniformWorkgroupSize = getBool(KN, ".uniform_work_group_size").value_or(false);
    if (auto Args = lookup(KN, ".args"); Args && Args->isArray()) {
      for (msgpack::DocNode &AN : Args->getArray()) {
        KernelArgInfo A;
        A.Name = getString(AN, ".name").value_or("");
        A.ValueKind = getString(AN, ".value_kind").value_or("");
        auto Offset = getUInt(AN, ".offset");
        auto Size = getUInt(AN, ".size");
        if (!Offset || !Size || A.ValueKind.empty())
          return malformed("kernel '" + K.Name + "': argument without .offset/.size/.value_kind");
        A.Offset = clamp32(Offset, 0);
        A.Size = clamp32(Size, 0);
        if (uint64_t(A.Offset) + A.Size > K.KernargSegmentSize)
          return malformed("kernel '" + K.Name + "': argument at offset " + Twine(A.Offset) +
                           " exceeds the " + Twine(K.KernargSegmentSize) + "-byte kernarg segment");
        K.Args.push_back(std::move(A));
      }
    }
    I.Kernels.push_back(std::move(K));
  }

  // --- dynamic relocations (applied when the image is mapped into a device)
  for (const auto &Sec : *Sections) {
    if (Sec.sh_type != ELF::SHT_RELA)
      continue;
    auto Relas = File.relas(Sec);
    if (!Relas)
      return malformed(toString(Relas.takeError()));
    const ELF64LE::Shdr *SymTab = nullptr;
    if (auto S = File.getSection(Sec.sh_link))
      SymTab = *S;
    else
      consumeError(S.takeError());
    for (const auto &R : *Relas) {
      Relocation Rel;
      Rel.Offset = R.r_offset;
      Rel.Type = R.getType(false);
      Rel.Addend = R.r_addend;
      if (R.getSymbol(false) && SymTab) {
        auto Sym = File.getRelocationSymbol(R, SymTab);
        if (!Sym)
          return malformed(toString(Sym.takeError()));
        if (*Sym) {
          if ((*Sym)->st_shndx != ELF::SHN_UNDEF)
            Rel.SymbolValue = (*Sym)->st_value;
          auto StrTab = File.getStringTableForSymtab(*SymTab);
          if (!StrTab)
            return malformed(toString(StrTab.takeError()));
          auto N = (*Sym)->getName(*StrTab);
          if (!N)
            return malformed(toString(N.takeError()));
          Rel.SymbolName = N->str();
        }
      }
      I.Relocations.push_back(std::move(Rel));
    }
  }

  // --- machine code, decoded once per wave size the kernels use
  std::vector<CodeRange> Ranges;
  for (const auto &Sec : *Sections) {
    if (!(Sec.sh_flags & ELF::SHF_EXECINSTR) || Sec.sh_type != ELF::SHT_PROGBITS)
      continue;
    auto Contents = File.getSectionContents(Sec);
    if (!Contents)
      return malformed(toString(Contents.takeError()));
    if (Sec.sh_addr > UINT64_MAX - Contents->size())
      return malformed("an executable section ends past the end of the address space");
    Ranges.push_back({Sec.sh_addr, *Contents});
  }
  std::vector<unsigned> WaveSizes;
  for (const Kernel &K : I.Kernels)
    if (std::find(WaveSizes.begin(), WaveSizes.end(), K.WavefrontSize) == WaveSizes.end())
      WaveSizes.push_back(K.WavefrontSize);
  if (WaveSizes.empty())
    WaveSizes.push_back(I.Target.Family == GfxFamily::GFX9 ? 64 : 32);
  std::vector<uint64_t> Entries;
  for (const Kernel &K : I.Kernels)
    Entries.push_back(K.EntryAddress);
  for (unsigned WS : WaveSizes) {
    auto Prog = decodeProgram(I.Target, WS, Ranges, Entries);
    if (!Prog)
      return Prog.takeError();
    I.Programs[WS] = std::move(*Prog);
  }
  for (const Kernel &K : I.Kernels)
    if (!I.Programs[K.WavefrontSize]->indexOf(K.EntryAddress))
      return malformed("kernel '" + K.Name + "': entry point " + utohexstr(K.EntryAddress, false) +
                       " is not an instruction");
  return std::move(CO);
}

} // namespace reptx::emulator
