// Comparison and selection (PTX ISA 9.7.7 setp/set/selp/slct, 9.7.3.x unordered comparisons):
// ordered comparisons are false when an operand is NaN, the u-forms true; .and/.or/.xor combine
// with a predicate operand; set writes 0xffffffff / 1.0f.
#include "../../support/PtxCompare.h"
#include "../Conformance.h"

#include <cmath>
#include <limits>

namespace reptx::conformance {

namespace {

using u64 = uint64_t;

const std::vector<u64> FV = {f32(1.0f),  f32(-1.0f), f32(0.0f),
                             f32(-0.0f), 0x7fc00000, f32(std::numeric_limits<float>::infinity())};

Case Cmp(std::string Op, std::vector<std::string> In, std::string Out,
         std::vector<std::vector<u64>> Rows, RowFn F) {
  return simple("compare", std::move(Op), std::move(In), std::move(Out), std::move(Rows),
                std::move(F));
}

bool fcmp(const std::string &C, float A, float B) { return test::ptxFloatCompare(C, A, B); }

} // namespace

void addCompareCases(CaseList &L) {
  for (std::string C :
       {"eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"})
    L.push_back(Cmp("setp." + C + ".f32", {"f32", "f32"}, "pred", rows2(FV, FV), [C](auto &R) {
      return std::vector<u64>{fcmp(C, asF32(R[0]), asF32(R[1])) ? 1u : 0u};
    }));
  L.push_back(Cmp("setp.ltu.f64", {"f64", "f64"}, "pred",
                  rows2({f64(1.0), f64(-2.0), 0x7ff8000000000000ull}, {f64(1.0), f64(3.0)}),
                  [](auto &R) {
                    double A = asF64(R[0]), B = asF64(R[1]);
                    return std::vector<u64>{(std::isnan(A) || A < B) ? 1u : 0u};
                  }));
  const std::vector<u64> IV = {0, 1, 0x7fffffff, 0x80000000, 0xffffffff};
  L.push_back(Cmp("setp.lt.s32", {"s32", "s32"}, "pred", rows2(IV, IV), [](auto &R) {
    return std::vector<u64>{int32_t(R[0]) < int32_t(R[1]) ? 1u : 0u};
  }));
  L.push_back(Cmp("setp.lo.u32", {"u32", "u32"}, "pred", rows2(IV, IV), [](auto &R) {
    return std::vector<u64>{uint32_t(R[0]) < uint32_t(R[1]) ? 1u : 0u};
  }));
  L.push_back(Cmp("setp.hs.u32", {"u32", "u32"}, "pred", rows2(IV, IV), [](auto &R) {
    return std::vector<u64>{uint32_t(R[0]) >= uint32_t(R[1]) ? 1u : 0u};
  }));
  L.push_back(
      Cmp("setp.ge.s64", {"s64", "s64"}, "pred",
          rows2({0, 1, 0x8000000000000000ull, 0xffffffffffffffffull},
                {0, 0x8000000000000000ull, 0xffffffffffffffffull}),
          [](auto &R) { return std::vector<u64>{int64_t(R[0]) >= int64_t(R[1]) ? 1u : 0u}; }));
  L.push_back(Cmp("setp.ne.b16", {"b16", "b16"}, "pred", rows2({0, 0x8000, 0xffff}, {0, 0xffff}),
                  [](auto &R) { return std::vector<u64>{R[0] != R[1] ? 1u : 0u}; }));
  // Predicate combination and the second destination (9.7.7.1): p = cmp OP c, q = !cmp OP c.
  for (std::string Bop : {"and", "or", "xor"}) {
    Case C;
    C.Family = "compare";
    C.Name = "setp.lt." + Bop + ".s32.pq";
    C.InTypes = {"s32", "s32", "pred"};
    C.OutTypes = {"pred", "pred"};
    C.Body = "setp.lt." + Bop + ".s32 %d0|%d1, %a0, %a1, %a2;";
    C.Rows = rows3({0, 5, 0xfffffffb}, {0, 5}, {0, 1});
    C.Ref = perThread([Bop](auto &R) {
      bool T = int32_t(R[0]) < int32_t(R[1]), Cc = R[2] != 0;
      auto Op = [&](bool X) { return Bop == "and" ? X && Cc : Bop == "or" ? X || Cc : X != Cc; };
      return std::vector<u64>{Op(T), Op(!T)};
    });
    L.push_back(C);
  }
  L.push_back(Cmp("setp.gtu.and.f32", {"f32", "f32", "pred"}, "pred",
                  rows3(FV, {f32(0.0f), 0x7fc00000}, {0, 1}), [](auto &R) {
                    return std::vector<u64>{fcmp("gtu", asF32(R[0]), asF32(R[1])) && R[2]};
                  }));
  L.push_back(Cmp("set.lt.u32.f32", {"f32", "f32"}, "u32", rows2(FV, FV), [](auto &R) {
    return std::vector<u64>{fcmp("lt", asF32(R[0]), asF32(R[1])) ? 0xffffffffu : 0u};
  }));
  L.push_back(Cmp("set.eq.f32.s32", {"s32", "s32"}, "f32", rows2(IV, IV),
                  [](auto &R) { return std::vector<u64>{R[0] == R[1] ? f32(1.0f) : f32(0.0f)}; }));
  L.push_back(
      Cmp("set.gt.or.s32.u32", {"u32", "u32", "pred"}, "s32", rows3(IV, IV, {0, 1}), [](auto &R) {
        bool T = uint32_t(R[0]) > uint32_t(R[1]) || R[2];
        return std::vector<u64>{T ? 0xffffffffu : 0u};
      }));
  L.push_back(Cmp("selp.b32", {"b32", "b32", "pred"}, "b32",
                  rows3({0x11111111}, {0x22222222}, {0, 1}),
                  [](auto &R) { return std::vector<u64>{R[2] ? R[0] : R[1]}; }));
  L.push_back(Cmp("selp.f64", {"f64", "f64", "pred"}, "f64",
                  rows3({f64(-0.0)}, {f64(2.5), 0x7ff0000000000001ull}, {0, 1}),
                  [](auto &R) { return std::vector<u64>{R[2] ? R[0] : R[1]}; }));
  // slct: d = c >= 0 ? a : b, with -0.0 >= 0 true and NaN false for f32 c (9.7.7.4).
  L.push_back(
      Cmp("slct.s32.f32", {"s32", "s32", "f32"}, "s32",
          rows3({7}, {0xfffffff9}, {f32(1.0f), f32(-1.0f), f32(0.0f), f32(-0.0f), 0x7fc00000}),
          [](auto &R) {
            float Cc = asF32(R[2]);
            return std::vector<u64>{Cc >= 0.0f ? R[0] : R[1]};
          }));
  L.push_back(Cmp("slct.f32.s32", {"f32", "f32", "s32"}, "f32",
                  rows3({f32(1.5f)}, {f32(-2.5f)}, {0, 1, 0x80000000, 0xffffffff}),
                  [](auto &R) { return std::vector<u64>{int32_t(R[2]) >= 0 ? R[0] : R[1]}; }));
  // set on f64 with an unordered comparison, .xor with a negated predicate (9.7.7.2):
  // d = ((a gtu b) ^ !c) ? 0xffffffff : 0.
  const double DInf = std::numeric_limits<double>::infinity();
  const std::vector<u64> DV = {f64(1.0), f64(-0.0), f64(0.0), 0x7ff8000000000000ull, f64(-DInf)};
  {
    Case C = Cmp("set.gtu.xor.u32.f64", {"f64", "f64", "pred"}, "u32", rows3(DV, DV, {0, 1}),
                 [](auto &R) {
                   double A = asF64(R[0]), B = asF64(R[1]);
                   bool T = std::isnan(A) || std::isnan(B) || A > B;
                   return std::vector<u64>{(T != (R[2] == 0)) ? 0xffffffffu : 0u};
                 });
    C.Body = "set.gtu.xor.u32.f64 %d0, %a0, %a1, !%a2;";
    L.push_back(C);
  }
  // set.ftz on f32: subnormal operands compare as zeros of their sign, -0 == +0.
  const float Den = std::numeric_limits<float>::denorm_min();
  const std::vector<u64> SubV = {f32(0.0f), f32(-Den), f32(Den * 3), f32(-1.0f), 0x7fc00000};
  auto Ftz = [](float X) {
    return std::fpclassify(X) == FP_SUBNORMAL ? std::copysign(0.0f, X) : X;
  };
  L.push_back(Cmp("set.lt.ftz.f32.f32", {"f32", "f32"}, "f32", rows2(SubV, SubV), [Ftz](auto &R) {
    return std::vector<u64>{f32(fcmp("lt", Ftz(asF32(R[0])), Ftz(asF32(R[1]))) ? 1.0f : 0.0f)};
  }));
  L.push_back(Cmp("set.lt.s32.f32", {"f32", "f32"}, "s32", rows2(SubV, SubV), [](auto &R) {
    return std::vector<u64>{fcmp("lt", asF32(R[0]), asF32(R[1])) ? 0xffffffffu : 0u};
  }));
  L.push_back(
      Cmp("set.num.and.u32.f32", {"f32", "f32", "pred"}, "u32", rows3(FV, FV, {0, 1}), [](auto &R) {
        bool T = fcmp("num", asF32(R[0]), asF32(R[1])) && R[2];
        return std::vector<u64>{T ? 0xffffffffu : 0u};
      }));
  // set with a 16-bit signed source and the unsigned-only hs comparison.
  L.push_back(Cmp("set.le.u32.s16", {"s16", "s16"}, "u32",
                  rows2({0, 0x7fff, 0x8000, 0xffff}, {0, 0xffff, 0x8000}), [](auto &R) {
                    return std::vector<u64>{int16_t(R[0]) <= int16_t(R[1]) ? 0xffffffffu : 0u};
                  }));
  L.push_back(Cmp("set.hs.f32.s64", {"s64", "s64"}, "f32",
                  rows2({0, 1, 0x8000000000000000ull}, {0xffffffffffffffffull, 1}),
                  [](auto &R) { return std::vector<u64>{f32(R[0] >= R[1] ? 1.0f : 0.0f)}; }));
  // slct on an f32 selector with and without .ftz: -denorm is < 0, but flushes to -0 >= 0.
  const std::vector<u64> SelV = {f32(Den),   f32(-Den),
                                 f32(-0.0f), 0x7fc00000,
                                 0xffc00000, f32(-std::numeric_limits<float>::infinity()),
                                 f32(2.0f)};
  L.push_back(Cmp("slct.u32.f32", {"u32", "u32", "f32"}, "u32", rows3({0xaaaa5555}, {17}, SelV),
                  [](auto &R) { return std::vector<u64>{asF32(R[2]) >= 0.0f ? R[0] : R[1]}; }));
  L.push_back(Cmp("slct.ftz.b64.f32", {"b64", "b64", "f32"}, "b64",
                  rows3({0x123456789abcdef0ull}, {0xfedcba9876543210ull}, SelV), [Ftz](auto &R) {
                    return std::vector<u64>{Ftz(asF32(R[2])) >= 0.0f ? R[0] : R[1]};
                  }));
  L.push_back(Cmp("slct.u16.s32", {"u16", "u16", "s32"}, "u16",
                  rows3({0xbeef}, {0x1234}, {0, 0x7fffffff, 0x80000000, 0xffffffff}),
                  [](auto &R) { return std::vector<u64>{int32_t(R[2]) >= 0 ? R[0] : R[1]}; }));
  L.push_back(Cmp("slct.f64.s32", {"f64", "f64", "s32"}, "f64",
                  rows3({0x7ff8000000000123ull}, {f64(-0.0)}, {1, 0x80000000}),
                  [](auto &R) { return std::vector<u64>{int32_t(R[2]) >= 0 ? R[0] : R[1]}; }));
}

} // namespace reptx::conformance
