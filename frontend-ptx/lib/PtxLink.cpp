// PTX-level linking of -rdc translation units (Link.h).
#include "reptx/frontend-ptx/Link.h"

#include "reptx/frontend-ptx/Parser.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/Twine.h"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <vector>

namespace reptx::ptx {

namespace {

/// The comment line before each unit of a linked text: this, the unit's number, " sm_XX".
constexpr llvm::StringLiteral UnitMarker = "\n// ---- unit ";

bool isIdentStart(char C) {
  return (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z') || C == '_' || C == '$' || C == '%';
}
bool isIdentChar(char C) { return isIdentStart(C) || (C >= '0' && C <= '9'); }

/// Text with the identifiers of Renames replaced (comments and string literals untouched), and
/// the .version/.target/.address_size directives removed when StripHeader.
std::string rewrite(llvm::StringRef Text, const llvm::StringMap<std::string> &Renames,
                    bool StripHeader) {
  std::string Out;
  Out.reserve(Text.size() + 64);
  size_t I = 0, N = Text.size();
  bool LineStart = true; // only whitespace since the last newline
  while (I < N) {
    char C = Text[I];
    if (C == '/' && I + 1 < N && Text[I + 1] == '/') {
      size_t E = Text.find('\n', I);
      E = E == llvm::StringRef::npos ? N : E;
      Out.append(Text.data() + I, E - I);
      I = E;
      continue;
    }
    if (C == '/' && I + 1 < N && Text[I + 1] == '*') {
      size_t E = Text.find("*/", I + 2);
      E = E == llvm::StringRef::npos ? N : E + 2;
      Out.append(Text.data() + I, E - I);
      I = E;
      LineStart = false;
      continue;
    }
    if (C == '"') {
      size_t E = I + 1;
      while (E < N && Text[E] != '"' && Text[E] != '\n')
        E += Text[E] == '\\' ? 2 : 1;
      E = std::min(N, E + 1);
      Out.append(Text.data() + I, E - I);
      I = E;
      LineStart = false;
      continue;
    }
    if (StripHeader && LineStart && C == '.') {
      llvm::StringRef Rest = Text.substr(I);
      if (Rest.starts_with(".version") || Rest.starts_with(".target") ||
          Rest.starts_with(".address_size")) {
        size_t E = Text.find('\n', I);
        I = E == llvm::StringRef::npos ? N : E;
        continue;
      }
    }
    if (isIdentStart(C) && (I == 0 || !isIdentChar(Text[I - 1])) &&
        (I == 0 || Text[I - 1] != '.')) {
      size_t E = I + 1;
      while (E < N && isIdentChar(Text[E]))
        ++E;
      llvm::StringRef Id = Text.slice(I, E);
      auto It = Renames.find(Id);
      if (It != Renames.end())
        Out += It->second;
      else
        Out += Id;
      I = E;
      LineStart = false;
      continue;
    }
    Out += C;
    if (C == '\n')
      LineStart = true;
    else if (C != ' ' && C != '\t' && C != '\r')
      LineStart = false;
    ++I;
  }
  return Out;
}

} // namespace

std::vector<UnitSymbol> unitSymbols(const Module &M) {
  std::vector<UnitSymbol> Out;
  for (const TopLevel &T : M.Items) {
    if (T.K == TopLevel::Func) {
      Out.push_back({T.F->Name.str(), T.F->Linkage, T.F->Body != nullptr, true, StateSpace::None,
                     std::string()});
    } else if (T.K == TopLevel::Var) {
      std::string Base = T.V->RangeCount ? T.V->Name.str() : std::string();
      for (std::string &Name : T.V->declaredNames()) // v<4>: v0..v3
        Out.push_back(
            {std::move(Name), T.V->Linkage, !(T.V->Linkage & LinkExtern), false, T.V->Space, Base});
    }
  }
  return Out;
}

llvm::Expected<std::string> linkPtx(llvm::ArrayRef<PtxUnit> Units) {
  if (Units.empty())
    return llvm::createStringError("no PTX to link");
  if (Units.size() == 1)
    return Units[0].Text;
  std::vector<std::unique_ptr<Module>> Mods;
  std::vector<std::map<std::string, UnitSymbol>> Syms(Units.size());
  for (size_t U = 0; U < Units.size(); ++U) {
    ptx::ParseResult P = parse(Units[U].Name, Units[U].Text);
    if (!P.ok())
      return toError(P);
    // A definition decides the linkage; an .extern declaration only records the name.
    for (UnitSymbol &S : unitSymbols(*P.M)) {
      auto [It, New] = Syms[U].try_emplace(S.Name, S);
      if (!New && S.Definition)
        It->second = std::move(S);
    }
    if (U > 0 && P.M->AddressSize != Mods[0]->AddressSize)
      return llvm::createStringError("%s and %s have different address sizes",
                                     Units[0].Name.c_str(), Units[U].Name.c_str());
    Mods.push_back(std::move(P.M));
  }
  // Which unit defines each visible symbol; a second definition is a link error.
  std::map<std::string, size_t> VisibleDef;
  for (size_t U = 0; U < Units.size(); ++U)
    for (const auto &[Name, D] : Syms[U])
      if (D.Definition && (D.Linkage & LinkVisible) && !VisibleDef.emplace(Name, U).second)
        return llvm::createStringError("'%s' is defined in both %s and %s", Name.c_str(),
                                       Units[VisibleDef[Name]].Name.c_str(), Units[U].Name.c_str());
  uint32_t Major = 0, Minor = 0;
  for (const auto &M : Mods)
    if (std::tie(M->VersionMajor, M->VersionMinor) > std::tie(Major, Minor))
      std::tie(Major, Minor) = std::tie(M->VersionMajor, M->VersionMinor);
  // The newest target among the units (what is valid for an older target stays valid for a newer
  // one; units with PTX for different targets link when a unit, such as libcudadevrt's, has PTX
  // for a newer target only).
  auto SmOf = [](const Module &M) {
    unsigned N = 0;
    for (llvm::StringRef T : M.Targets)
      if (T.consume_front("sm_")) {
        T.consumeInteger(10, N);
        break;
      }
    return N;
  };
  const Module *Newest = Mods[0].get();
  for (const auto &M : Mods)
    if (SmOf(*M) > SmOf(*Newest))
      Newest = M.get();
  std::string Out =
      (".version " + llvm::Twine(Major) + "." + llvm::Twine(Minor) + "\n.target ").str();
  for (size_t I = 0; I < Newest->Targets.size(); ++I)
    Out += (I ? ", " : "") + Newest->Targets[I].str();
  Out +=
      "\n.address_size " + std::to_string(Mods[0]->AddressSize ? Mods[0]->AddressSize : 64) + "\n";
  for (size_t U = 0; U < Units.size(); ++U) {
    llvm::StringMap<std::string> Renames;
    for (const auto &[Name, D] : Syms[U]) {
      if (!D.Definition)
        continue;
      bool Rename = false;
      if (D.Linkage == LinkNone) {
        for (size_t O = 0; O < Units.size() && !Rename; ++O)
          Rename = O != U && Syms[O].count(Name);
      } else if ((D.Linkage & LinkWeak) || (D.Linkage & LinkCommon)) {
        Rename = VisibleDef.count(Name);
        for (size_t O = 0; O < U && !Rename; ++O) {
          auto It = Syms[O].find(Name);
          Rename = It != Syms[O].end() && It->second.Definition;
        }
      }
      if (Rename && D.Base.empty()) {
        Renames[Name] = Name + "$rdc" + std::to_string(U);
      } else if (Rename) {
        // `v<4>` becomes `v$rdcU<4>`, which declares v$rdcU0..3: a use of v1 becomes v$rdcU1.
        std::string To = D.Base + "$rdc" + std::to_string(U);
        Renames[Name] = To + llvm::StringRef(Name).drop_front(D.Base.size()).str();
        Renames[D.Base] = To;
      }
    }
    // No unit names here: they hold load addresses, and the text is the cache key.
    Out += std::string(UnitMarker) + std::to_string(U) + " sm_" + std::to_string(SmOf(*Mods[U])) +
           "\n";
    Out += rewrite(Units[U].Text, Renames, /*StripHeader=*/true);
    Out += "\n";
  }
  return Out;
}

namespace {

/// The offset just past the '}' that closes the first '{' at or after From, skipping comments and
/// string literals; npos when there is none.
size_t bodyEnd(llvm::StringRef Text, size_t From) {
  int Depth = 0;
  for (size_t I = From; I < Text.size(); ++I) {
    char C = Text[I];
    if (C == '/' && I + 1 < Text.size() && Text[I + 1] == '/') {
      I = Text.find('\n', I);
      if (I == llvm::StringRef::npos)
        return llvm::StringRef::npos;
    } else if (C == '/' && I + 1 < Text.size() && Text[I + 1] == '*') {
      I = Text.find("*/", I + 2);
      if (I == llvm::StringRef::npos)
        return llvm::StringRef::npos;
      ++I;
    } else if (C == '"') {
      I = Text.find('"', I + 1);
      if (I == llvm::StringRef::npos)
        return llvm::StringRef::npos;
    } else if (C == '{') {
      ++Depth;
    } else if (C == '}') {
      if (--Depth == 0)
        return I + 1;
      if (Depth < 0)
        return llvm::StringRef::npos;
    }
  }
  return llvm::StringRef::npos;
}

} // namespace

std::string withoutKernels(const Module &M, llvm::function_ref<bool(llvm::StringRef)> Keep) {
  llvm::StringRef Text = M.source();
  std::vector<std::pair<size_t, size_t>> Cuts; // [begin, end) of each kernel to cut
  for (const TopLevel &T : M.Items) {
    if (T.K != TopLevel::Func || !T.F->IsEntry || !T.F->Body || Keep(T.F->Name))
      continue;
    size_t Begin = T.F->L.Offset, End = bodyEnd(Text, Begin);
    if (Begin < Text.size() && End != llvm::StringRef::npos)
      Cuts.emplace_back(Begin, End);
  }
  llvm::sort(Cuts);
  std::string Out;
  Out.reserve(Text.size());
  size_t At = 0;
  for (auto [Begin, End] : Cuts) {
    if (Begin < At) // overlapping: cannot happen for distinct definitions; keep the text
      continue;
    Out.append(Text.data() + At, Begin - At);
    Out.append(size_t(Text.substr(Begin, End - Begin).count('\n')), '\n');
    At = End;
  }
  Out.append(Text.data() + At, Text.size() - At);
  return Out;
}

std::vector<LinkedUnit> linkedUnits(llvm::StringRef Text) {
  std::vector<LinkedUnit> Units;
  for (size_t At = Text.find(UnitMarker); At != llvm::StringRef::npos;
       At = Text.find(UnitMarker, At + 1)) {
    llvm::StringRef Rest = Text.substr(At + UnitMarker.size());
    unsigned N = 0, Arch = 0;
    if (Rest.consumeInteger(10, N) || N != Units.size() || !Rest.consume_front(" sm_") ||
        Rest.consumeInteger(10, Arch))
      continue;
    Units.push_back({At, Arch});
  }
  return Units;
}

unsigned linkedUnitArch(llvm::ArrayRef<LinkedUnit> Units, size_t Offset) {
  auto It = std::upper_bound(Units.begin(), Units.end(), Offset,
                             [](size_t O, const LinkedUnit &U) { return O < U.Offset; });
  return It == Units.begin() ? 0 : std::prev(It)->Arch;
}

bool linksRdcUnits(const fatbin::FatbinFile &F) {
  return F.kind() == fatbin::FileKind::ELFExecutable ||
         F.kind() == fatbin::FileKind::ELFSharedObject;
}

std::vector<RdcImage> rdcImages(const fatbin::FatbinFile &F) {
  std::vector<RdcImage> Images;
  if (!linksRdcUnits(F))
    return Images;
  std::vector<const fatbin::Container *> Units;
  // The compute capabilities at which a unit's choice can change: its entries' targets (a PTX
  // target reached, SASS that starts to run) and the next major version after each cubin's (the
  // SASS stops running there).
  std::set<uint32_t> Arches;
  for (const fatbin::Container &C : F.containers())
    if (C.relocatableUnit()) {
      Units.push_back(&C);
      for (const fatbin::Entry &E : C.Entries) {
        Arches.insert(E.Arch);
        if (E.Kind == fatbin::EntryKind::Cubin)
          Arches.insert((E.Arch / 10 + 1) * 10);
      }
    }
  std::set<std::vector<const fatbin::Entry *>> Seen;
  for (uint32_t Arch : Arches) {
    RdcImage I;
    for (const fatbin::Container *C : Units)
      if (const fatbin::Entry *E = fatbin::bestPtxEntry(*C, Arch))
        I.Units.push_back(E);
    if (I.Units.size() != Units.size() || !Seen.insert(I.Units).second)
      continue;
    I.Arch = Arch;
    Images.push_back(std::move(I));
  }
  return Images;
}

llvm::Expected<std::string> linkImage(const fatbin::FatbinFile &F, const RdcImage &I) {
  std::vector<PtxUnit> Texts;
  for (const fatbin::Entry *E : I.Units) {
    auto Text = F.ptxText(*E);
    if (!Text)
      return Text.takeError();
    Texts.push_back({F.describe(*E), std::move(*Text)});
  }
  return linkPtx(Texts);
}

} // namespace reptx::ptx
