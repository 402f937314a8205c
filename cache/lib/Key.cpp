// Canonical key serialization, its parser, digests and the compiler-identity helpers.
#include "reptx/cache/Key.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"

#include <xxhash.h>

#include <algorithm>
#include <cstring>
#include <link.h>

namespace reptx::cache {

std::string Digest::hex() const {
  uint8_t B[16];
  toBytes(B);
  return llvm::toHex(llvm::ArrayRef<uint8_t>(B, 16), /*LowerCase=*/true);
}

std::optional<Digest> Digest::fromHex(llvm::StringRef Hex) {
  if (Hex.size() != 32)
    return std::nullopt;
  uint64_t Halves[2];
  for (int I = 0; I < 2; ++I) {
    llvm::StringRef Part = Hex.substr(I * 16, 16);
    // Only lowercase: one spelling per digest, so one file name per entry.
    if (!llvm::all_of(Part, [](char C) { return llvm::isDigit(C) || (C >= 'a' && C <= 'f'); }))
      return std::nullopt;
    if (Part.getAsInteger(16, Halves[I]))
      return std::nullopt;
  }
  return Digest{Halves[0], Halves[1]};
}

void Digest::toBytes(uint8_t Out[16]) const {
  XXH128_canonical_t C;
  XXH128_canonicalFromHash(&C, XXH128_hash_t{Low, High});
  std::memcpy(Out, C.digest, 16);
}

Digest Digest::fromBytes(const uint8_t In[16]) {
  XXH128_canonical_t C;
  std::memcpy(C.digest, In, 16);
  XXH128_hash_t H = XXH128_hashFromCanonical(&C);
  return Digest{H.high64, H.low64};
}

Digest hashBytes(llvm::StringRef Bytes) {
  XXH128_hash_t H = XXH3_128bits(Bytes.data(), Bytes.size());
  return Digest{H.high64, H.low64};
}

std::string llvmVersion() { return LLVM_VERSION_STRING; }

std::optional<std::string> buildIdOf(const void *Address) {
  struct Search {
    uintptr_t Addr;
    std::optional<std::string> Id;
  } S{reinterpret_cast<uintptr_t>(Address), std::nullopt};
  dl_iterate_phdr(
      [](dl_phdr_info *Info, size_t, void *Data) -> int {
        auto *S = static_cast<Search *>(Data);
        bool Contains = false;
        for (int I = 0; I < Info->dlpi_phnum; ++I) {
          const ElfW(Phdr) &P = Info->dlpi_phdr[I];
          uintptr_t Start = Info->dlpi_addr + P.p_vaddr;
          if (P.p_type == PT_LOAD && S->Addr >= Start && S->Addr < Start + P.p_memsz)
            Contains = true;
        }
        if (!Contains)
          return 0;
        for (int I = 0; I < Info->dlpi_phnum; ++I) {
          const ElfW(Phdr) &P = Info->dlpi_phdr[I];
          if (P.p_type != PT_NOTE)
            continue;
          auto *Note = reinterpret_cast<const uint8_t *>(Info->dlpi_addr + P.p_vaddr);
          const uint8_t *End = Note + P.p_memsz;
          while (Note + sizeof(ElfW(Nhdr)) <= End) {
            ElfW(Nhdr) N;
            std::memcpy(&N, Note, sizeof(N));
            const uint8_t *Name = Note + sizeof(N);
            const uint8_t *Desc = Name + ((N.n_namesz + 3) & ~3u);
            const uint8_t *Next = Desc + ((N.n_descsz + 3) & ~3u);
            if (Next > End)
              break;
            if (N.n_type == NT_GNU_BUILD_ID && N.n_namesz == 4 &&
                std::memcmp(Name, "GNU", 4) == 0) {
              S->Id = llvm::toHex(llvm::ArrayRef<uint8_t>(Desc, N.n_descsz), true);
              return 1;
            }
            Note = Next;
          }
        }
        return 1;
      },
      &S);
  return S.Id;
}

namespace {

/// Percent-escapes every byte that could break the line structure or the name=value split, so
/// any string round-trips and the text stays one entry per line.
std::string escape(llvm::StringRef S) {
  std::string Out;
  Out.reserve(S.size());
  for (unsigned char C : S) {
    if (C < 0x20 || C >= 0x7f || C == '%' || C == '=') {
      Out += '%';
      Out += llvm::hexdigit(C >> 4, /*LowerCase=*/false);
      Out += llvm::hexdigit(C & 15, false);
    } else {
      Out += static_cast<char>(C);
    }
  }
  return Out;
}

std::optional<std::string> unescape(llvm::StringRef S) {
  std::string Out;
  Out.reserve(S.size());
  for (size_t I = 0; I < S.size(); ++I) {
    if (S[I] != '%') {
      Out += S[I];
      continue;
    }
    unsigned V = 0;
    if (I + 2 >= S.size() || S.substr(I + 1, 2).getAsInteger(16, V))
      return std::nullopt;
    Out += static_cast<char>(V);
    I += 2;
  }
  return Out;
}

void line(std::string &Out, llvm::StringRef Name, llvm::StringRef Value) {
  Out += Name;
  Out += '=';
  Out += escape(Value);
  Out += '\n';
}

/// Walks the lines of a serialized key in the fixed order serialize() writes them.
class LineReader {
public:
  explicit LineReader(llvm::StringRef Text) : Rest(Text) {}

  /// The next line's name and raw value; nullopt at the end.
  std::optional<std::pair<llvm::StringRef, llvm::StringRef>> peek() const {
    if (Rest.empty())
      return std::nullopt;
    llvm::StringRef Line = Rest.take_until([](char C) { return C == '\n'; });
    auto [Name, Value] = Line.split('=');
    return std::make_pair(Name, Value);
  }
  void next() {
    size_t NL = Rest.find('\n');
    Rest = NL == llvm::StringRef::npos ? llvm::StringRef() : Rest.drop_front(NL + 1);
  }
  llvm::Expected<std::string> take(llvm::StringRef Name) {
    auto L = peek();
    if (!L || L->first != Name)
      return llvm::createStringError("key: expected '%s' at line %u", Name.str().c_str(), LineNo);
    std::optional<std::string> V = unescape(L->second);
    if (!V)
      return llvm::createStringError("key: bad escape in '%s'", Name.str().c_str());
    next();
    ++LineNo;
    return std::move(*V);
  }
  template <typename T> llvm::Expected<T> takeNumber(llvm::StringRef Name) {
    auto V = take(Name);
    if (!V)
      return V.takeError();
    T N = 0;
    if (llvm::StringRef(*V).getAsInteger(10, N))
      return llvm::createStringError("key: '%s' is not a number", Name.str().c_str());
    return N;
  }
  bool atEnd() const { return Rest.empty(); }
  unsigned LineNo = 1;

private:
  llvm::StringRef Rest;
};

} // namespace

void Key::setPtx(llvm::StringRef Text) {
  PtxHash = hashBytes(Text);
  PtxSize = Text.size();
}

std::string Key::serialize() const {
  std::string Out;
  Out.reserve(512 + PtxasOptions.size());
  line(Out, "reptx-cache-key", std::to_string(SerializationVersion));
  line(Out, "ptx.xxh3-128", PtxHash.hex());
  line(Out, "ptx.size", std::to_string(PtxSize));
  line(Out, "ptxas.options", PtxasOptions);
  line(Out, "target.arch", Arch);
  std::vector<std::string> F = Features;
  std::sort(F.begin(), F.end());
  F.erase(std::unique(F.begin(), F.end()), F.end());
  for (const std::string &Feature : F)
    line(Out, "target.feature", Feature);
  line(Out, "target.wave-size", std::to_string(WaveSize));
  line(Out, "target.wave-mode", WaveMode);
  line(Out, "target.code-object-version", std::to_string(CodeObjectVersion));
  std::vector<std::pair<std::string, std::string>> O = Options;
  std::sort(O.begin(), O.end());
  O.erase(std::unique(O.begin(), O.end()), O.end());
  for (const auto &[Name, Value] : O) {
    Out += "option.";
    Out += escape(Name);
    Out += '=';
    Out += escape(Value);
    Out += '\n';
  }
  line(Out, "kernel", Kernel);
  line(Out, "compiler.reptx-version", Compiler.ReptxVersion);
  line(Out, "compiler.build-id", Compiler.BuildId);
  line(Out, "compiler.llvm-version", Compiler.LLVMVersion);
  line(Out, "compiler.helper-library", Compiler.HelperLibraryHash);
  return Out;
}

Digest Key::digest() const { return hashBytes(serialize()); }

llvm::Expected<Key> Key::parse(llvm::StringRef Text) {
  LineReader R(Text);
  Key K;
  auto Version = R.takeNumber<unsigned>("reptx-cache-key");
  if (!Version)
    return Version.takeError();
  if (*Version != SerializationVersion)
    return llvm::createStringError("key: serialization version %u is not %u", *Version,
                                   SerializationVersion);
  auto Hash = R.take("ptx.xxh3-128");
  if (!Hash)
    return Hash.takeError();
  std::optional<Digest> D = Digest::fromHex(*Hash);
  if (!D)
    return llvm::createStringError("key: bad PTX digest");
  K.PtxHash = *D;
  auto Size = R.takeNumber<uint64_t>("ptx.size");
  if (!Size)
    return Size.takeError();
  K.PtxSize = *Size;
  auto Opts = R.take("ptxas.options");
  if (!Opts)
    return Opts.takeError();
  K.PtxasOptions = std::move(*Opts);
  auto Arch = R.take("target.arch");
  if (!Arch)
    return Arch.takeError();
  K.Arch = std::move(*Arch);
  while (auto L = R.peek()) {
    if (L->first != "target.feature")
      break;
    auto F = R.take("target.feature");
    if (!F)
      return F.takeError();
    K.Features.push_back(std::move(*F));
  }
  auto Wave = R.takeNumber<unsigned>("target.wave-size");
  if (!Wave)
    return Wave.takeError();
  K.WaveSize = *Wave;
  auto Mode = R.take("target.wave-mode");
  if (!Mode)
    return Mode.takeError();
  K.WaveMode = std::move(*Mode);
  auto Cov = R.takeNumber<unsigned>("target.code-object-version");
  if (!Cov)
    return Cov.takeError();
  K.CodeObjectVersion = *Cov;
  while (auto L = R.peek()) {
    if (!L->first.starts_with("option."))
      break;
    std::optional<std::string> Name = unescape(L->first.drop_front(7));
    std::optional<std::string> Value = unescape(L->second);
    if (!Name || !Value)
      return llvm::createStringError("key: bad escape in an option");
    K.Options.emplace_back(std::move(*Name), std::move(*Value));
    R.next();
  }
  auto Kernel = R.take("kernel");
  if (!Kernel)
    return Kernel.takeError();
  K.Kernel = std::move(*Kernel);
  auto RV = R.take("compiler.reptx-version");
  if (!RV)
    return RV.takeError();
  K.Compiler.ReptxVersion = std::move(*RV);
  auto BI = R.take("compiler.build-id");
  if (!BI)
    return BI.takeError();
  K.Compiler.BuildId = std::move(*BI);
  auto LV = R.take("compiler.llvm-version");
  if (!LV)
    return LV.takeError();
  K.Compiler.LLVMVersion = std::move(*LV);
  auto HL = R.take("compiler.helper-library");
  if (!HL)
    return HL.takeError();
  K.Compiler.HelperLibraryHash = std::move(*HL);
  if (!R.atEnd())
    return llvm::createStringError("key: unexpected text after the last field");
  // One key, one text: anything else (unsorted options, escapes written differently, a missing
  // final newline) would give a second digest for the same key.
  if (K.serialize() != Text)
    return llvm::createStringError("key: not in canonical form");
  return K;
}

} // namespace reptx::cache
