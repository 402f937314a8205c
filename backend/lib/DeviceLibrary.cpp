// Links the device helper library into lifted modules: reads the embedded bitcode of the
// target's wave size lazily, links the helpers that the module's reptx intrinsic declarations name
// (Linker::LinkOnlyNeeded), and makes them internal, always-inline and target-neutral so that the
// O3 pipeline inlines them into the kernels.
#include "DeviceLibrary.h"

#include "reptx/backend/Backend.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/AttributeMask.h"
#include "llvm/IR/Function.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/xxhash.h"

#include <cstdio>

using namespace llvm;

namespace reptx::backend {

namespace {

// alignas: the bitcode reader wants 4-byte-aligned input.
alignas(16) const unsigned char Wave32Bitcode[] = {
#include "DeviceLibraryWave32.inc"
};
alignas(16) const unsigned char Wave64Bitcode[] = {
#include "DeviceLibraryWave64.inc"
};

// Attributes of the helper's compilation that must not reach the target's code: the processor and
// its features (taken from the target machine instead), and the AMDGPU hints clang derived for
// the processor it compiled for.
void makeTargetNeutral(Function &F) {
  AttributeMask Drop;
  for (Attribute A : F.getAttributes().getFnAttrs())
    if (A.isStringAttribute()) {
      StringRef K = A.getKindAsString();
      if (K == "target-cpu" || K == "target-features" || K == "tune-cpu" ||
          K.starts_with("amdgpu-") || K == "uniform-work-group-size")
        Drop.addAttribute(K);
    }
  F.removeFnAttrs(Drop);
}

} // namespace

StringRef deviceLibraryBitcode(unsigned WaveSize) {
  if (WaveSize == 64)
    return StringRef(reinterpret_cast<const char *>(Wave64Bitcode), sizeof(Wave64Bitcode));
  return StringRef(reinterpret_cast<const char *>(Wave32Bitcode), sizeof(Wave32Bitcode));
}

std::string helperLibraryDigest() {
  std::string Both = deviceLibraryBitcode(32).str() + deviceLibraryBitcode(64).str();
  XXH128_hash_t H = xxh3_128bits(arrayRefFromStringRef(Both));
  char Hex[33];
  std::snprintf(Hex, sizeof(Hex), "%016llx%016llx", (unsigned long long)H.high64,
                (unsigned long long)H.low64);
  return Hex;
}

Error linkDeviceLibrary(Module &M, unsigned WaveSize) {
  SmallVector<Function *, 16> Wanted;
  for (Function &F : M)
    if (F.isDeclaration() && F.getName().starts_with("reptx."))
      Wanted.push_back(&F);
  if (Wanted.empty())
    return Error::success();
  // Lazily: the linker materializes only the helpers it links and what they call, instead of
  // every function body of the library being read for each module compiled (a large text is
  // compiled in parts, each one a module).
  auto Lib = getLazyBitcodeModule(MemoryBufferRef(deviceLibraryBitcode(WaveSize),
                                                  "reptx-device-wave" + std::to_string(WaveSize)),
                                  M.getContext());
  if (!Lib)
    return createStringError("device helper library: " + toString(Lib.takeError()));
  // The library's module flags (code object version, wchar_size...) are the module's business.
  if (NamedMDNode *Flags = (*Lib)->getModuleFlagsMetadata())
    (*Lib)->eraseNamedMetadata(Flags);
  (*Lib)->setTargetTriple(M.getTargetTriple());
  (*Lib)->setDataLayout(M.getDataLayout());
  SmallVector<std::string, 16> Linked;
  for (Function *F : Wanted) {
    Function *H = (*Lib)->getFunction(F->getName());
    if (!H || H->isDeclaration())
      continue;
    if (H->getFunctionType() != F->getFunctionType())
      return createStringError("device helper library: '" + F->getName() +
                               "' has a different type in the library");
    Linked.push_back(F->getName().str());
  }
  if (Linked.empty())
    return Error::success();
  SmallPtrSet<Function *, 32> Before;
  for (Function &F : M)
    if (!F.isDeclaration())
      Before.insert(&F);
  if (Linker::linkModules(M, std::move(*Lib), Linker::LinkOnlyNeeded))
    return createStringError("device helper library: linking failed");
  for (Function &F : M)
    if (!F.isDeclaration() && !Before.count(&F))
      makeTargetNeutral(F);
  for (const std::string &Name : Linked) {
    Function *F = M.getFunction(Name);
    if (!F || F->isDeclaration())
      return createStringError("device helper library: '" + Name + "' was not linked");
    F->setLinkage(GlobalValue::InternalLinkage);
    F->removeFnAttr(Attribute::NoInline);
    F->removeFnAttr(Attribute::OptimizeNone);
    // An mma helper is some 250 instructions (the lane exchanges of a whole tile); inlined at each
    // of the hundreds of mma.sync of a cuBLASLt kernel it made register allocation take minutes
    // (libcublasLt c1743.e2: 479 s of CPU, 25 s as calls), so it stays one function per module.
    // So do the sampled texture fetches: addressing, filtering and the conversion of every
    // format for up to eight texels make some 2,000-4,000 instructions (gfx942), once per module
    // instead of once per tex/tld4.
    if (F->getName().starts_with("reptx.mma.") || F->getName() == "reptx.tex.sample" ||
        F->getName() == "reptx.tex.gather") {
      F->addFnAttr(Attribute::NoInline);
      continue;
    }
    F->addFnAttr(Attribute::AlwaysInline);
  }
  return Error::success();
}

} // namespace reptx::backend
