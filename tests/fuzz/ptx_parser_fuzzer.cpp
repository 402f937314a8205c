// libFuzzer target for the PTX parser: every input is parsed as PTX text and every diagnostic is
// formatted (line/column lookup, source line and caret). When an input parses without errors, the
// module is printed, the text re-parsed, and the two ASTs compared: the printer promises valid PTX
// that means the same thing, so a re-parse error or a difference is a finding (__builtin_trap)
// like a sanitizer report, crash, leak, timeout or OOM. See README.md for how to build and run it.
#include "reptx/frontend-ptx/Parser.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace {

// Enough errors to exercise recovery after several bad statements, few enough that an input of
// nothing but errors does not spend its time formatting diagnostics.
constexpr unsigned FuzzMaxErrors = 20;

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  using namespace reptx::ptx;
  ParseOptions Opts;
  Opts.MaxErrors = FuzzMaxErrors;
  ParseResult R = parse("fuzz.ptx", std::string(reinterpret_cast<const char *>(Data), Size), Opts);
  if (!R.M)
    __builtin_trap(); // the module is documented as always set
  if (!R.ok()) {
    std::string Text;
    llvm::raw_string_ostream OS(Text);
    for (const Diagnostic &D : R.Errors)
      printDiagnostic(OS, *R.M, D);
    // toError formats the same diagnostics through llvm::Error; consume it as a string so the
    // message building runs too.
    (void)llvm::toString(toError(R));
    return 0;
  }
  if (llvm::Error E = toError(R))
    __builtin_trap(); // no errors must mean success

  std::string Printed;
  llvm::raw_string_ostream PS(Printed);
  print(PS, *R.M);
  ParseResult Again = parse("fuzz-printed.ptx", Printed, Opts);
  if (!Again.ok()) {
    // Keep the evidence in the fuzzer's output: the message says which printed line failed.
    for (const Diagnostic &D : Again.Errors)
      printDiagnostic(llvm::errs(), *Again.M, D);
    llvm::errs() << "--- printed module ---\n" << Printed << "--- end ---\n";
    __builtin_trap();
  }
  std::string Why;
  if (!equivalent(*R.M, *Again.M, &Why)) {
    llvm::errs() << "round trip changed the module: " << Why << "\n--- printed module ---\n"
                 << Printed << "--- end ---\n";
    __builtin_trap();
  }
  return 0;
}
