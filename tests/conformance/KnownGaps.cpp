// Cases that exercise something reptx does not do yet: each is skipped with the reason, so the
// suite stays green while the gap is visible (the skip count is printed at the end of the run).
// Remove an entry when the gap closes.
#include "Conformance.h"

#include <map>

namespace reptx::conformance {

std::string knownGap(const Case &C) {
  static const std::map<std::string, std::string> Gaps = {
      // Lifter (ir/): forms it rejects with "directed rounding ... not supported".
      {"float/div.rz.f32", "lifter: div.rz/rm/rp.f32 (directed rounding) not supported"},
      {"float/div.rm.f32", "lifter: div.rz/rm/rp.f32 (directed rounding) not supported"},
      {"float/div.rp.f32", "lifter: div.rz/rm/rp.f32 (directed rounding) not supported"},
      {"float/rcp.rz.f32", "lifter: rcp.rz.f32 (directed rounding) not supported"},
      {"float/sqrt.rp.f32", "lifter: sqrt.rp.f32 (directed rounding) not supported"},
      {"float/div.rz.f64", "lifter: div.rz/rm.f64 (directed rounding) not supported"},
      {"float/div.rm.f64", "lifter: div.rz/rm.f64 (directed rounding) not supported"},
      {"float/sqrt.rz.f64", "lifter: sqrt.rz.f64 (directed rounding) not supported"},
      // Lifter: instructions it does not lift yet.
      {"float/max.xorsign.abs.f32", "lifter: max.xorsign.abs not lifted"},
      {"float/testp.finite.f32", "lifter: testp not lifted"},
      {"float/testp.infinite.f32", "lifter: testp not lifted"},
      {"float/testp.number.f32", "lifter: testp not lifted"},
      {"float/testp.notanumber.f32", "lifter: testp not lifted"},
      {"float/testp.normal.f32", "lifter: testp not lifted"},
      {"float/testp.subnormal.f32", "lifter: testp not lifted"},
      {"float/testp.normal.f64", "lifter: testp not lifted"},
      {"compare/set.lt.u32.f32", "lifter: set with a float source ('unsupported type')"},
      {"compare/set.eq.f32.s32", "lifter: set with a float destination ('unsupported type')"},
      {"compare/set.gt.or.s32.u32", "lifter: set.CmpOp.BoolOp ('unsupported type')"},
      {"compare/slct.s32.f32", "lifter: slct with an f32 selector ('unsupported type')"},
      {"compare/slct.f32.s32", "lifter: slct.f32 ('unsupported type')"},
      {"convert/cvt.pack.sat.u8.s32.b32", "lifter: cvt.pack not lifted"},
      {"move/isspacep", "lifter: isspacep not lifted"},
      {"memory/prefetch", "lifter: prefetch/prefetchu not lifted"},
      {"barrier/nanosleep", "lifter: nanosleep not lifted"},
      {"control/brx.idx", "lifter: brx.idx not lifted"},
      // Parser (frontend-ptx/).
      {"barrier/barrier.cta.sync", "parser: 'barrier.cta' (PTX 8.0 spelling) unknown modifier"},
      // Semantics differences.
      {"half/min.f16", "lifter: min.f16 of two NaNs gives a quiet input NaN, not PTX's canonical "
                       "0x7fff"},
      {"half/min.NaN.f16x2", "lifter: min.NaN.f16x2 with a NaN operand gives the quieted input, "
                             "not PTX's canonical 0x7fff"},
      {"float/rsqrt.approx.f64", "lifter/backend: rsqrt.approx.f64(+inf) gives NaN, PTX +0"},
  };
  auto It = Gaps.find(C.Family + "/" + C.Name);
  return It == Gaps.end() ? std::string() : It->second;
}

} // namespace reptx::conformance
