// f16, f16x2, bf16 and bf16x2 arithmetic (PTX ISA 9.7.4): host references in _Float16 (whose
// operations round once, like the PTX .rn forms; float intermediates are exact or their double
// rounding innocuous for add/sub/mul) and bf16 rounded to nearest even from float by bit
// arithmetic.
#include "../../support/PtxCompare.h"
#include "../Conformance.h"

#include <bit>
#include <cmath>

namespace reptx::conformance {

namespace {

using u64 = uint64_t;
using u16 = uint16_t;

float h2f(u64 H) { return float(std::bit_cast<_Float16>(u16(H))); }
u64 f2h(float F) { return std::bit_cast<u16>(_Float16(F)); }
float bf2f(u64 B) { return std::bit_cast<float>(uint32_t(u16(B)) << 16); }
u64 f2bf(float F) {
  uint32_t U = std::bit_cast<uint32_t>(F);
  if (std::isnan(F))
    return 0x7fff; // canonical NaN
  U += 0x7fff + ((U >> 16) & 1);
  return U >> 16;
}
// Exact results in double, then one rounding to the target (fma: the product of two halves is
// exact in double and the test values keep the sum exact).
u64 fmaH(u64 A, u64 B, u64 C) { return f2h(float(double(h2f(A)) * h2f(B) + h2f(C))); }
u64 fmaBf(u64 A, u64 B, u64 C) {
  double D = double(bf2f(A)) * bf2f(B) + bf2f(C);
  return f2bf(float(D)); // float(D) exact for the test values (<= 24 significant bits)
}

const std::vector<u64> H = {0x0000, 0x8000, 0x3c00, 0xbe00, 0x7bff, 0xfbff,
                            0x0001, 0x8400, 0x7c00, 0x3555, 0x4900};
const std::vector<u64> BF = {0x0000, 0x8000, 0x3f80, 0xbfc0, 0x7f7f,
                             0x4049, 0x3eab, 0x7f80, 0x0001};

Case Hc(std::string Op, std::vector<std::string> In, std::string Out,
        std::vector<std::vector<u64>> Rows, RowFn F) {
  return simple("half", std::move(Op), std::move(In), std::move(Out), std::move(Rows),
                std::move(F));
}

// Applies a per-half function to both halves of packed operands.
template <typename Fn> u64 packed2(u64 A, u64 B, Fn G) {
  return G(A & 0xffff, B & 0xffff) | (G((A >> 16) & 0xffff, (B >> 16) & 0xffff) << 16);
}

std::vector<u64> pairs(const std::vector<u64> &V) {
  std::vector<u64> R;
  for (size_t I = 0; I < V.size(); ++I)
    R.push_back(V[I] | (V[(I + 3) % V.size()] << 16));
  return R;
}

u64 minH(u64 A, u64 B, bool Nan) {
  float X = h2f(A), Y = h2f(B);
  if (std::isnan(X) || std::isnan(Y)) {
    if (Nan || (std::isnan(X) && std::isnan(Y)))
      return 0x7fff;
    return std::isnan(X) ? B : A;
  }
  if (X == 0 && Y == 0)
    return (A & 0x8000) ? A : B;
  return X < Y ? A : B;
}

} // namespace

// set on half sources and with half destinations (PTX ISA 9.7.7.1): true is all ones for an
// integer destination (per 16-bit half for packed sources) and 1.0 in the destination's format
// for f16/bf16; false is 0. .ftz flushes subnormal half inputs to zeros of their sign first.
void addHalfSetCases(CaseList &L) {
  using test::ptxFloatCompare;
  auto FtzH = [](u64 X) { return (X & 0x7c00) == 0 ? (X & 0x8000) : X; };
  L.push_back(
      Hc("set.eq.u32.f16x2", {"f16x2", "f16x2"}, "u32", rows2(pairs(H), pairs(H)), [](auto &R) {
        return std::vector<u64>{
            packed2(R[0], R[1], [](u64 A, u64 B) -> u64 { return h2f(A) == h2f(B) ? 0xffff : 0; })};
      }));
  L.push_back(Hc("set.gt.ftz.s32.f16x2", {"f16x2", "f16x2"}, "s32", rows2(pairs(H), pairs(H)),
                 [FtzH](auto &R) {
                   return std::vector<u64>{packed2(R[0], R[1], [FtzH](u64 A, u64 B) -> u64 {
                     return h2f(FtzH(A)) > h2f(FtzH(B)) ? 0xffff : 0;
                   })};
                 }));
  L.push_back(Hc("set.ltu.f16x2.f16x2", {"f16x2", "f16x2"}, "f16x2", rows2(pairs(H), pairs(H)),
                 [](auto &R) {
                   return std::vector<u64>{packed2(R[0], R[1], [](u64 A, u64 B) -> u64 {
                     return ptxFloatCompare("ltu", h2f(A), h2f(B)) ? 0x3c00 : 0;
                   })};
                 }));
  L.push_back(Hc("set.eq.bf16x2.bf16x2", {"bf16x2", "bf16x2"}, "bf16x2",
                 rows2(pairs(BF), pairs(BF)), [](auto &R) {
                   return std::vector<u64>{packed2(R[0], R[1], [](u64 A, u64 B) -> u64 {
                     return bf2f(A) == bf2f(B) ? 0x3f80 : 0;
                   })};
                 }));
  L.push_back(Hc("set.ne.u16.bf16", {"bf16", "bf16"}, "u16", rows2(BF, BF), [](auto &R) {
    return std::vector<u64>{ptxFloatCompare("ne", bf2f(R[0]), bf2f(R[1])) ? 0xffffu : 0u};
  }));
  L.push_back(Hc("set.le.s32.f16", {"f16", "f16"}, "s32", rows2(H, H), [](auto &R) {
    return std::vector<u64>{h2f(R[0]) <= h2f(R[1]) ? 0xffffffffu : 0u};
  }));
  L.push_back(
      Hc("set.gt.and.f16.f16", {"f16", "f16", "pred"}, "f16", rows3(H, H, {0, 1}),
         [](auto &R) { return std::vector<u64>{h2f(R[0]) > h2f(R[1]) && R[2] ? 0x3c00u : 0u}; }));
  L.push_back(Hc("set.geu.xor.bf16x2.bf16x2", {"bf16x2", "bf16x2", "pred"}, "bf16x2",
                 rows3(pairs(BF), pairs(BF), {0, 1}), [](auto &R) {
                   bool C = R[2] != 0;
                   return std::vector<u64>{packed2(R[0], R[1], [C](u64 A, u64 B) -> u64 {
                     return ptxFloatCompare("geu", bf2f(A), bf2f(B)) != C ? 0x3f80 : 0;
                   })};
                 }));
  // A half destination for a wider source: the comparison in the source type.
  const std::vector<u64> FV = {f32(0), f32(-0.0f), f32(1.5f), f32(-2), f32(NAN), f32(INFINITY)};
  L.push_back(Hc("set.lt.f16.f32", {"f32", "f32"}, "f16", rows2(FV, FV), [](auto &R) {
    return std::vector<u64>{asF32(R[0]) < asF32(R[1]) ? 0x3c00u : 0u};
  }));
  L.push_back(Hc("set.nan.bf16.f32", {"f32", "f32"}, "bf16", rows2(FV, FV), [](auto &R) {
    return std::vector<u64>{ptxFloatCompare("nan", asF32(R[0]), asF32(R[1])) ? 0x3f80u : 0u};
  }));
}

void addHalfCases(CaseList &L) {
  addHalfSetCases(L);
  L.push_back(Hc("add.f16", {"f16", "f16"}, "f16", rows2(H, H),
                 [](auto &R) { return std::vector<u64>{f2h(h2f(R[0]) + h2f(R[1]))}; }));
  L.push_back(Hc("sub.rn.f16", {"f16", "f16"}, "f16", rows2(H, H),
                 [](auto &R) { return std::vector<u64>{f2h(h2f(R[0]) - h2f(R[1]))}; }));
  L.push_back(Hc("mul.rn.f16", {"f16", "f16"}, "f16", rows2(H, H),
                 [](auto &R) { return std::vector<u64>{f2h(h2f(R[0]) * h2f(R[1]))}; }));
  L.push_back(
      Hc("add.rn.f16x2", {"f16x2", "f16x2"}, "f16x2", rows2(pairs(H), pairs(H)), [](auto &R) {
        return std::vector<u64>{
            packed2(R[0], R[1], [](u64 A, u64 B) { return f2h(h2f(A) + h2f(B)); })};
      }));
  L.push_back(Hc("mul.f16x2", {"f16x2", "f16x2"}, "f16x2", rows2(pairs(H), pairs(H)), [](auto &R) {
    return std::vector<u64>{packed2(R[0], R[1], [](u64 A, u64 B) { return f2h(h2f(A) * h2f(B)); })};
  }));
  L.push_back(Hc("add.sat.f16", {"f16", "f16"}, "f16", rows2(H, H), [](auto &R) {
    float S = float(_Float16(h2f(R[0]) + h2f(R[1])));
    S = std::isnan(S) ? 0.0f : std::fmin(std::fmax(S, 0.0f), 1.0f);
    return std::vector<u64>{S == 0 ? AnyZero : f2h(S)};
  }));
  const std::vector<u64> HF = {0x3c00, 0xbe00, 0x3555, 0x4900, 0x0000, 0x8000, 0x2e66};
  L.push_back(Hc("fma.rn.f16", {"f16", "f16", "f16"}, "f16", rows3(HF, HF, HF),
                 [](auto &R) { return std::vector<u64>{fmaH(R[0], R[1], R[2])}; }));
  // .relu clamps negative results to +0 (9.7.4.4).
  L.push_back(Hc("fma.rn.relu.f16", {"f16", "f16", "f16"}, "f16", rows3(HF, HF, HF), [](auto &R) {
    u64 D = fmaH(R[0], R[1], R[2]);
    return std::vector<u64>{(D & 0x8000) ? 0 : D};
  }));
  L.push_back(Hc("fma.rn.f16x2", {"f16x2", "f16x2", "f16x2"}, "f16x2",
                 rows3(pairs(HF), {0x3c00bc00, 0x49003555}, {0x00003c00}), [](auto &R) {
                   u64 Lo = fmaH(R[0] & 0xffff, R[1] & 0xffff, R[2] & 0xffff);
                   u64 Hi = fmaH(R[0] >> 16, R[1] >> 16, R[2] >> 16);
                   return std::vector<u64>{Lo | (Hi << 16)};
                 }));
  L.push_back(
      Hc("min.f16", {"f16", "f16"}, "f16",
         rows2({0x3c00, 0x8000, 0x0000, 0x7e00, 0xbe00}, {0x3c00, 0x8000, 0x0000, 0x7e00, 0xbe00}),
         [](auto &R) { return std::vector<u64>{minH(R[0], R[1], false)}; }));
  L.push_back(Hc(
      "min.NaN.f16x2", {"f16x2", "f16x2"}, "f16x2",
      rows2({0x3c007e00, 0x80000000, 0xbe003c00}, {0x3c00bc00, 0x7e000000}), [](auto &R) {
        return std::vector<u64>{packed2(R[0], R[1], [](u64 A, u64 B) { return minH(A, B, true); })};
      }));
  L.push_back(Hc("max.f16", {"f16", "f16"}, "f16", rows2(H, H), [](auto &R) {
    float X = h2f(R[0]), Y = h2f(R[1]);
    if (X == 0 && Y == 0)
      return std::vector<u64>{(R[0] & 0x8000) ? R[1] : R[0]};
    return std::vector<u64>{X > Y ? R[0] : R[1]};
  }));
  L.push_back(Hc("neg.f16", {"f16"}, "f16", rows1(H),
                 [](auto &R) { return std::vector<u64>{R[0] ^ 0x8000}; }));
  L.push_back(Hc("abs.f16x2", {"f16x2"}, "f16x2", rows1(pairs(H)),
                 [](auto &R) { return std::vector<u64>{R[0] & 0x7fff7fff}; }));
  L.push_back(Hc("add.rn.bf16", {"bf16", "bf16"}, "bf16", rows2(BF, BF),
                 [](auto &R) { return std::vector<u64>{f2bf(bf2f(R[0]) + bf2f(R[1]))}; }));
  L.push_back(
      Hc("mul.rn.bf16x2", {"bf16x2", "bf16x2"}, "bf16x2", rows2(pairs(BF), pairs(BF)), [](auto &R) {
        return std::vector<u64>{
            packed2(R[0], R[1], [](u64 A, u64 B) { return f2bf(bf2f(A) * bf2f(B)); })};
      }));
  const std::vector<u64> BFF = {0x3f80, 0xbfc0, 0x4049, 0x0000, 0x3eab};
  L.push_back(Hc("fma.rn.bf16", {"bf16", "bf16", "bf16"}, "bf16", rows3(BFF, BFF, BFF),
                 [](auto &R) { return std::vector<u64>{fmaBf(R[0], R[1], R[2])}; }));
  L.push_back(Hc("fma.rn.relu.bf16x2", {"bf16x2", "bf16x2", "bf16x2"}, "bf16x2",
                 rows3(pairs(BFF), {0x3f80bfc0}, {0x3eab0000, 0xc0400000}), [](auto &R) {
                   auto One = [](u64 A, u64 B, u64 C) {
                     u64 D = fmaBf(A, B, C);
                     return (D & 0x8000) ? u64(0) : D;
                   };
                   return std::vector<u64>{One(R[0] & 0xffff, R[1] & 0xffff, R[2] & 0xffff) |
                                           (One(R[0] >> 16, R[1] >> 16, R[2] >> 16) << 16)};
                 }));
  L.push_back(Hc("neg.bf16", {"bf16"}, "bf16", rows1(BF),
                 [](auto &R) { return std::vector<u64>{R[0] ^ 0x8000}; }));
  L.push_back(Hc("max.bf16", {"bf16", "bf16"}, "bf16", rows2(BFF, BFF), [](auto &R) {
    float X = bf2f(R[0]), Y = bf2f(R[1]);
    if (X == 0 && Y == 0)
      return std::vector<u64>{(R[0] & 0x8000) ? R[1] : R[0]};
    return std::vector<u64>{X > Y ? R[0] : R[1]};
  }));
  // abs/neg of an f16 widened to f32: the conversion takes them as its |x| / -x source modifiers,
  // which act on the half's sign bit (bit 15), not on bit 31 of the register.
  for (const char *Op : {"abs", "neg"}) {
    bool Abs = Op[0] == 'a';
    Case C = Hc(std::string(Op) + ".f16", {"f16"}, "f32", rows1(H), [Abs](auto &R) {
      float X = h2f(R[0]);
      return std::vector<u64>{f32(Abs ? std::fabs(X) : -X)};
    });
    C.Name = std::string(Op) + ".f16.cvt.f32";
    C.Body = std::string(Op) + ".f16 %h0, %a0;\n cvt.f32.f16 %d0, %h0;";
    L.push_back(C);
  }
  // ex2.approx.f16: max relative error 2^-9.9 (9.7.4.10); checked through an f32 conversion.
  Case E = Hc("ex2.approx.f16", {"f16"}, "f32", rows1({0x0000, 0x3c00, 0xc100, 0x4500, 0x3555}),
              [](auto &R) { return std::vector<u64>{f32(std::exp2(h2f(R[0])))}; });
  E.Body = "ex2.approx.f16 %h0, %a0;\n cvt.f32.f16 %d0, %h0;";
  E.RelTol = 1.1e-3;
  L.push_back(E);
  Case T = Hc("tanh.approx.f16", {"f16"}, "f32", rows1({0x0000, 0x3c00, 0xc100, 0x3555}),
              [](auto &R) { return std::vector<u64>{f32(std::tanh(h2f(R[0])))}; });
  T.Body = "tanh.approx.f16 %h0, %a0;\n cvt.f32.f16 %d0, %h0;";
  T.RelTol = 2e-3;
  L.push_back(T);
}

} // namespace reptx::conformance
