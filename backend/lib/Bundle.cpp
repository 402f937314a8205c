// Clang offload bundles (the uncompressed binary format of clang-offload-bundler, which HIP uses
// for fat binaries): "__CLANG_OFFLOAD_BUNDLE__", the number of entries (u64), per entry its offset,
// size and ID length (u64 each) and its ID, then the entries' bytes at their offsets. LLVM reads
// this format (llvm/Object/OffloadBundle.h) but has no writer outside clang's driver.
#include "reptx/backend/Backend.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

using namespace llvm;

namespace reptx::backend {

std::vector<uint8_t> offloadBundle(ArrayRef<BundleEntry> Entries) {
  constexpr StringRef Magic = "__CLANG_OFFLOAD_BUNDLE__";
  constexpr uint64_t Alignment = 4096; // hipcc's -bundle-align: code objects on page boundaries
  struct Item {
    std::string ID;
    ArrayRef<uint8_t> Bytes;
    uint64_t Offset = 0;
  };
  // The host entry is empty; clang-offload-bundler expects one, and HIP runtimes skip it. Its
  // target-ID field (after the triple) is empty, as clang writes it.
  std::vector<Item> Items;
  Items.push_back({"host-" + Triple::normalize(sys::getProcessTriple()) + "-", {}});
  for (const BundleEntry &E : Entries)
    Items.push_back({"hipv4-amdgcn-amd-amdhsa--" + E.Arch, E.CodeObject});

  uint64_t Header = Magic.size() + 8;
  for (const Item &I : Items)
    Header += 24 + I.ID.size();
  uint64_t End = alignTo(Header, Alignment);
  for (Item &I : Items) {
    I.Offset = alignTo(End, Alignment);
    End = I.Offset + I.Bytes.size();
  }
  std::vector<uint8_t> Out(End, 0);
  uint8_t *P = Out.data();
  auto Put = [&](const void *Data, size_t Size) {
    std::memcpy(P, Data, Size);
    P += Size;
  };
  auto U64 = [&](uint64_t V) {
    support::endian::write64le(P, V);
    P += 8;
  };
  Put(Magic.data(), Magic.size());
  U64(Items.size());
  for (const Item &I : Items) {
    U64(I.Offset);
    U64(I.Bytes.size());
    U64(I.ID.size());
    Put(I.ID.data(), I.ID.size());
  }
  for (const Item &I : Items)
    if (!I.Bytes.empty())
      std::memcpy(Out.data() + I.Offset, I.Bytes.data(), I.Bytes.size());
  return Out;
}

} // namespace reptx::backend
