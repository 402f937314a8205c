// multimem (PTX ISA 9.7.9.13): ld_reduce, st and red on a multimem address, which names one
// location in each device of a multicast object (sm_90 NVLink SHARP; NCCL's NVLS algorithms).
// reptx drives one device, so a multicast object has one member: ld_reduce reduces one loaded
// value (the value itself: a min, max, add, and, or or xor of one operand, whatever the
// accumulation precision), st stores it once, red is one reduction. Each is lifted as the ld, st
// or red of the same ordering, scope, space, vector width and type. Not lifted: multimem.cp (bulk
// copies to or from multicast memory), red on floating-point types (whose rounding the ISA does
// not state) and on 8-bit float types.
#include "Lifter.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSwitch.h"

using namespace llvm;

namespace reptx::ir {

Error liftMultimem(FunctionLifter &L, const ptx::Instruction &I) {
  if (I.Mods.empty())
    return L.unsupported();
  StringRef Sub = I.Mods[0];
  StringRef Opcode = StringSwitch<StringRef>(Sub)
                         .Case(".ld_reduce", "ld")
                         .Case(".st", "st")
                         .Case(".red", "red")
                         .Default("");
  if (Opcode.empty())
    return L.unsupported("multimem" + Sub + " is not supported");
  bool Vector = false;
  SmallVector<ptx::Symbol, 8> Mods;
  for (StringRef M : I.Mods.drop_front()) {
    if (M == ".weak" || M.starts_with(".acc::"))
      continue; // .weak: a plain access; one operand needs no accumulation precision
    if (M == ".v2" || M == ".v4" || M == ".v8")
      Vector = true;
    // A load or store moves the bits: packed halves as .b32, single halves as .b16.
    if (Opcode != "red") {
      if (M == ".f16x2" || M == ".bf16x2")
        M = ".b32";
      else if (M == ".f16" || M == ".bf16")
        M = ".b16";
      else if (M == ".add" || M == ".min" || M == ".max" || M == ".and" || M == ".or" ||
               M == ".xor")
        continue;
    }
    if (M.starts_with(".e4m3") || M.starts_with(".e5m2"))
      return L.unsupported("multimem on 8-bit floating-point types is not supported");
    Mods.push_back(M);
  }
  // red on floating-point types: the ISA leaves the rounding and subnormal handling of the
  // reduction unstated, which red's own float forms differ on; only integer forms are lifted.
  if (Opcode == "red" && (Vector || llvm::any_of(Mods, [](StringRef M) {
                            return M.starts_with(".f") || M.starts_with(".bf");
                          })))
    return L.unsupported("multimem.red on floating-point types or vectors is not supported");

  ptx::Instruction J;
  J.L = I.L;
  J.Guard = I.Guard;
  J.GuardNegated = I.GuardNegated;
  J.Opcode = Opcode;
  J.Mods = Mods;
  J.Ops = I.Ops;
  J.Family = I.Family;
  const ptx::Instruction *Saved = L.Cur;
  L.Cur = &J;
  Error E = Opcode == "red" ? liftAtomic(L, J) : liftMemory(L, J);
  L.Cur = Saved;
  return E;
}

} // namespace reptx::ir
