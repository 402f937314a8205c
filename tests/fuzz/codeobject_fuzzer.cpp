// libFuzzer target for the emulator's code object loader: every input goes through the path of
// `reptx emulate --list --disassemble` (CodeObject::load: ELF, program headers, symbols, the
// metadata note, kernel descriptors; then the disassembly of every kernel). Errors are the
// expected outcome for most inputs and are consumed; only sanitizer reports, crashes, leaks,
// timeouts and OOMs are findings. Seeds: the emulator tests' code objects (README.md).
#include "reptx/emulator/CodeObject.h"

#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  using namespace reptx::emulator;
  auto CO = CodeObject::load(llvm::ArrayRef<uint8_t>(Data, Size));
  if (!CO) {
    (void)llvm::toString(CO.takeError());
    return 0;
  }
  (void)(*CO)->target();
  (void)(*CO)->version();
  for (const Kernel &K : (*CO)->kernels()) {
    if ((*CO)->findKernel(K.Name) == nullptr)
      __builtin_trap(); // every listed kernel is found by its name
    for (const DisassembledInstruction &I : (*CO)->disassemble(K))
      (void)I.Text.size();
  }
  return 0;
}
