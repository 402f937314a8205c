// GFX12 (gfx1201) spellings and scalar instructions that the AMDGPU backend emits for lifted PTX
// on gfx1201 and that earlier families lack (AMD RDNA4 ISA, "SOP2", "SOP1" and "VOP3"): the
// 64-bit scalar add and subtract without carry and multiply, SALU float multiply and
// conversions, and the GFX12 names of the 64-bit multiply-adds. (The sub-dword scalar loads are
// with the other loads, SemanticsMemory.cpp.)
#include "Semantics.h"

#include <cmath>
#include <cstdint>

namespace reptx::emulator::sem {

void addGfx12Ops(TableBuilder &T) {
  T.add(sop<+[](uint64_t A, uint64_t B) { return A + B; }>("s_add_nc_u64"));
  T.add(sop<+[](uint64_t A, uint64_t B) { return A - B; }>("s_sub_nc_u64"));
  T.add(sop<+[](uint64_t A, uint64_t B) { return A * B; }>("s_mul_u64"));
  T.add(sop<+[](float A, float B) { return A * B; }>("s_mul_f32"));
  T.add(sop<+[](float A, float B) { return A + B; }>("s_add_f32"));
  T.add(sop<+[](float A, float B) { return A - B; }>("s_sub_f32"));
  T.add(sop<+[](uint32_t A) { return float(A); }>("s_cvt_f32_u32"));
  T.add(sop<+[](int32_t A) { return float(A); }>("s_cvt_f32_i32"));
  // Float to integer: round toward zero, NaN to 0, out-of-range values saturate.
  T.add(sop<+[](float A) -> uint32_t {
    if (std::isnan(A) || A <= 0.0f)
      return 0;
    return A >= 4294967296.0f ? UINT32_MAX : uint32_t(A);
  }>("s_cvt_u32_f32"));
  T.add(sop<+[](float A) -> int32_t {
    if (std::isnan(A))
      return 0;
    if (A <= -2147483648.0f)
      return INT32_MIN;
    return A >= 2147483648.0f ? INT32_MAX : int32_t(A);
  }>("s_cvt_i32_f32"));
  T.alias("v_mad_co_u64_u32", "v_mad_u64_u32");
  T.alias("v_mad_co_i64_i32", "v_mad_i64_i32");
}

} // namespace reptx::emulator::sem
