// Reading the cache configuration from the environment, and size strings.
#include "reptx/cache/Config.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"

#include <fmt/format.h>

#include <cstdlib>

namespace reptx::cache {

llvm::Expected<uint64_t> parseSize(llvm::StringRef Text) {
  llvm::StringRef S = Text.trim();
  llvm::StringRef Digits = S.take_while(llvm::isDigit);
  llvm::StringRef Suffix = S.drop_front(Digits.size()).trim();
  uint64_t N = 0;
  if (Digits.empty() || Digits.getAsInteger(10, N))
    return llvm::createStringError("bad size '%s': expected a number with an optional K, M, G "
                                   "or T suffix",
                                   Text.str().c_str());
  unsigned Shift = 0;
  if (!Suffix.empty()) {
    switch (llvm::toLower(Suffix[0])) {
    case 'k':
      Shift = 10;
      break;
    case 'm':
      Shift = 20;
      break;
    case 'g':
      Shift = 30;
      break;
    case 't':
      Shift = 40;
      break;
    case 'b':
      break;
    default:
      return llvm::createStringError("bad size '%s': unknown suffix", Text.str().c_str());
    }
    llvm::StringRef Rest = Shift ? Suffix.drop_front() : Suffix;
    if (!Rest.empty() && !Rest.equals_insensitive("b") && !Rest.equals_insensitive("ib"))
      return llvm::createStringError("bad size '%s': unknown suffix", Text.str().c_str());
  }
  if (Shift && N > (UINT64_MAX >> Shift))
    return llvm::createStringError("bad size '%s': too large", Text.str().c_str());
  return N << Shift;
}

std::string formatSize(uint64_t Bytes) {
  static const char *Units[] = {"KiB", "MiB", "GiB", "TiB"};
  if (Bytes < 1024)
    return fmt::format("{} B", Bytes);
  double V = Bytes;
  int U = -1;
  while (V >= 1024 && U < 3) {
    V /= 1024;
    ++U;
  }
  return fmt::format("{:.1f} {}", V, Units[U]);
}

namespace {

llvm::Expected<bool> parseBool(llvm::StringRef Name, llvm::StringRef V) {
  std::string L = V.trim().lower();
  if (L.empty() || L == "0" || L == "false" || L == "no" || L == "off")
    return false;
  if (L == "1" || L == "true" || L == "yes" || L == "on")
    return true;
  return llvm::createStringError("%s='%s': expected 1 or 0", Name.str().c_str(), V.str().c_str());
}

llvm::Error requireAbsolute(llvm::StringRef Name, llvm::StringRef Path) {
  if (llvm::sys::path::is_absolute(Path))
    return llvm::Error::success();
  return llvm::createStringError("%s: '%s' is not an absolute path", Name.str().c_str(),
                                 Path.str().c_str());
}

} // namespace

llvm::Expected<Config> configFromEnvironment(EnvLookup Get) {
  Config C;
  if (std::optional<std::string> V = Get("REPTX_CACHE_DISABLE")) {
    auto Off = parseBool("REPTX_CACHE_DISABLE", *V);
    if (!Off)
      return Off.takeError();
    C.Enabled = !*Off;
  }

  std::optional<std::string> Path = Get("REPTX_CACHE_PATH");
  if (Path && !Path->empty()) {
    if (auto E = requireAbsolute("REPTX_CACHE_PATH", *Path))
      return std::move(E);
    C.WritablePath = *Path;
  } else if (std::optional<std::string> Xdg = Get("XDG_CACHE_HOME");
             Xdg && llvm::sys::path::is_absolute(*Xdg)) {
    // The XDG spec says a relative XDG_CACHE_HOME is invalid and must be ignored.
    C.WritablePath = *Xdg + "/reptx";
  } else if (std::optional<std::string> Home = Get("HOME");
             Home && llvm::sys::path::is_absolute(*Home)) {
    C.WritablePath = *Home + "/.cache/reptx";
  }
  // Otherwise no writable layer: lookups in the read-only layers only.

  if (std::optional<std::string> V = Get("REPTX_CACHE_READONLY_PATHS")) {
    llvm::SmallVector<llvm::StringRef, 4> Parts;
    llvm::StringRef(*V).split(Parts, ':', -1, /*KeepEmpty=*/false);
    for (llvm::StringRef P : Parts) {
      if (auto E = requireAbsolute("REPTX_CACHE_READONLY_PATHS", P))
        return std::move(E);
      C.ReadOnlyPaths.push_back(P.str());
    }
  }

  if (std::optional<std::string> V = Get("REPTX_CACHE_MAXSIZE"); V && !V->empty()) {
    auto Size = parseSize(*V);
    if (!Size)
      return llvm::createStringError("REPTX_CACHE_MAXSIZE: %s",
                                     llvm::toString(Size.takeError()).c_str());
    C.MaxSize = *Size;
  }
  return C;
}

llvm::Expected<Config> configFromProcessEnvironment() {
  return configFromEnvironment([](llvm::StringRef Name) -> std::optional<std::string> {
    const char *V = std::getenv(Name.str().c_str());
    return V ? std::optional<std::string>(V) : std::nullopt;
  });
}

} // namespace reptx::cache
