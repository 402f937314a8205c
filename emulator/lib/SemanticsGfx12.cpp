// GFX12 (gfx1201) spellings and scalar instructions that the AMDGPU backend emits for lifted PTX
// on gfx1201 and that earlier families lack (AMD RDNA4 ISA, "SOP2", "SOP1" and "VOP3"): the
// 64-bit scalar add and subtract without carry and multiply, SALU float arithmetic, compares and
// conversions, the VOP3 transcendentals with SGPR results, and the GFX12 names of the 64-bit
// multiply-adds. (The sub-dword scalar loads are
// with the other loads, SemanticsMemory.cpp.)
#include "Semantics.h"

#include <cmath>
#include <cstdint>

namespace reptx::emulator::sem {

void addGfx12Ops(TableBuilder &T) {
  T.add(sop<+[](uint64_t A, uint64_t B) { return A + B; }>("s_add_nc_u64"));
  T.add(sop<+[](uint64_t A, uint64_t B) { return A - B; }>("s_sub_nc_u64"));
  T.add(sop<+[](uint64_t A, uint64_t B) { return A * B; }>("s_mul_u64"));
  T.add(saluFloat<+[](float A, float B) { return A * B; }>("s_mul_f32"));
  T.add(saluFloat<+[](float A, float B) { return A + B; }>("s_add_f32"));
  T.add(saluFloat<+[](float A, float B) { return A - B; }>("s_sub_f32"));
  T.add(saluFloat<+[](uint32_t A) { return float(A); }>("s_cvt_f32_u32"));
  T.add(saluFloat<+[](int32_t A) { return float(A); }>("s_cvt_f32_i32"));
  // Float to integer: round toward zero, NaN to 0, out-of-range values saturate.
  T.add(saluFloat<+[](float A) -> uint32_t {
    if (std::isnan(A) || A <= 0.0f)
      return 0;
    return A >= 4294967296.0f ? UINT32_MAX : uint32_t(A);
  }>("s_cvt_u32_f32"));
  T.add(saluFloat<+[](float A) -> int32_t {
    if (std::isnan(A))
      return 0;
    if (A <= -2147483648.0f)
      return INT32_MIN;
    return A >= 2147483648.0f ? INT32_MAX : int32_t(A);
  }>("s_cvt_i32_f32"));
  // SALU float arithmetic, rounding and conversions (saluFloat: MODE's rounding and denormals,
  // as the VALU forms). s_min_num_f32/s_max_num_f32 are with v_min_f32 (SemanticsVector.cpp) and
  // the f16 forms with the VALU f16 ones (SemanticsHalf.cpp).
  T.add(
      saluFloat<+[](float A, float B, float D) { return std::fma(A, B, D); }, true>("s_fmac_f32"));
  T.add(saluFloat<+[](float A, float B, float K) { return std::fma(A, B, K); }>("s_fmaak_f32"));
  T.add(saluFloat<+[](float A, float K, float B) { return std::fma(A, K, B); }>("s_fmamk_f32"));
  T.add(saluFloat<+[](float A) { return std::trunc(A); }>("s_trunc_f32"));
  T.add(saluFloat<+[](float A) { return std::ceil(A); }>("s_ceil_f32"));
  T.add(saluFloat<+[](float A) { return std::floor(A); }>("s_floor_f32"));
  T.add(saluFloat<+[](float A) { return std::nearbyint(A); }>("s_rndne_f32"));
  // VOP3 transcendentals with an SGPR result (correctly rounded host results, as v_exp_f32...).
  T.add(saluFloat<+[](float A) { return std::exp2(A); }>("v_s_exp_f32"));
  T.add(saluFloat<+[](float A) { return std::log2(A); }>("v_s_log_f32"));
  T.add(saluFloat<+[](float A) { return 1.0f / A; }>("v_s_rcp_f32"));
  T.add(saluFloat<+[](float A) { return 1.0f / std::sqrt(A); }>("v_s_rsq_f32"));
  T.add(saluFloat<+[](float A) { return std::sqrt(A); }>("v_s_sqrt_f32"));
  // SOPC: SCC from an IEEE comparison.
  forEachFloatCond(
      [&]<CmpCond C>(llvm::StringRef Cond) {
        T.add(saluFloatCmp<&compare<float, C>>(T.intern("s_cmp_" + Cond.str() + "_f32")));
      },
      /*WithConstant=*/false);
  T.alias("v_mad_co_u64_u32", "v_mad_u64_u32");
  T.alias("v_mad_co_i64_i32", "v_mad_i64_i32");
}

} // namespace reptx::emulator::sem
