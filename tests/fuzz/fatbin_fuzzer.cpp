// libFuzzer target for the fatbin container parser: every input goes through the same path as
// `reptx list/extract` (scan, decompress every entry, PTX text, kernel count). Errors are the
// expected outcome for most inputs and are consumed; only sanitizer reports, crashes, leaks,
// timeouts and OOMs are findings. See README.md for how to build and run it.
#include "reptx/frontend-ptx/Fatbin.h"

#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>

namespace {

// Small enough that a declared size can never make one input allocate past -rss_limit_mb, large
// enough for every seed (the biggest real entries in the corpus are a few hundred KiB).
constexpr uint64_t FuzzMaxEntrySize = uint64_t(16) << 20;

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  using namespace reptx::fatbin;
  ScanOptions Opts;
  Opts.MaxEntrySize = FuzzMaxEntrySize;
  llvm::Expected<FatbinFile> File = scanBuffer(llvm::ArrayRef<uint8_t>(Data, Size), "fuzz", Opts);
  if (!File) {
    // toString (not consumeError) so that building the message, which formats values read from
    // the input, is exercised too.
    (void)llvm::toString(File.takeError());
    return 0;
  }
  (void)fileKindName(File->kind());
  for (const Container &C : File->containers()) {
    for (const Entry &E : C.Entries) {
      (void)E.arch();
      (void)File->describe(E);
      if (llvm::Expected<std::vector<uint8_t>> Bytes = File->payload(E)) {
        // The decoder promises the declared size exactly; a mismatch is a parser bug.
        if (Bytes->size() != E.declaredSize() && E.compression() != Compression::None)
          __builtin_trap();
      } else {
        (void)llvm::toString(Bytes.takeError());
      }
      if (E.Kind != EntryKind::PTX)
        continue;
      if (llvm::Expected<std::string> Text = File->ptxText(E))
        (void)countPtxKernels(*Text);
      else
        (void)llvm::toString(Text.takeError());
    }
  }
  return 0;
}
