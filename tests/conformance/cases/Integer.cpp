// Integer family (PTX ISA 9.7.1 integer arithmetic, 9.7.8 logic and shift): references written
// from the manual's pseudocode with host integer arithmetic.
#include "../Conformance.h"

#include <bit>
#include <climits>

namespace reptx::conformance {

namespace {

using u32 = uint32_t;
using s32 = int32_t;
using u64 = uint64_t;
using s64 = int64_t;

const std::vector<u64> V32 = {
    0, 1, 2, 7, 31, 32, 33, 0x7fffffff, 0x80000000, 0xffffffff, 0xfffffffe, 0x12345678, 0x9abcdef0};
const std::vector<u64> S32 = {0, 1, 5, 0x7fffffff, 0x80000000, 0xffffffff, 0xfffffff9, 0x1234};
const std::vector<u64> V64 = {0,
                              1,
                              0x7fffffffffffffffull,
                              0x8000000000000000ull,
                              0xffffffffffffffffull,
                              0x123456789abcdef0ull,
                              0xfedcba9876543210ull,
                              64,
                              63};

u64 z32(s64 V) { return u64(u32(V)); }

Case I(std::string Op, std::vector<std::string> In, std::string Out,
       std::vector<std::vector<u64>> Rows, RowFn F) {
  return simple("integer", std::move(Op), std::move(In), std::move(Out), std::move(Rows),
                std::move(F));
}

s64 sat32(s64 V) { return V > INT32_MAX ? INT32_MAX : V < INT32_MIN ? INT32_MIN : V; }

// PTX ISA 9.7.8.7 prmt: the byte selected by a 4-bit selector (msb: replicate sign).
u32 prmtDefault(u32 A, u32 B, u32 C) {
  u64 Src = (u64(B) << 32) | A;
  u32 R = 0;
  for (int I = 0; I < 4; ++I) {
    u32 Sel = (C >> (4 * I)) & 0xf;
    u32 Byte = (Src >> (8 * (Sel & 7))) & 0xff;
    if (Sel & 8)
      Byte = (Byte & 0x80) ? 0xff : 0;
    R |= Byte << (8 * I);
  }
  return R;
}
u32 prmtMode(const std::string &M, u32 A, u32 B, u32 C) {
  u64 Src = (u64(B) << 32) | A;
  auto Byte = [&](unsigned I) { return u32((Src >> (8 * (I & 7))) & 0xff); };
  unsigned S = C & 3;
  unsigned Sel[4];
  if (M == "f4e")
    for (int I = 0; I < 4; ++I)
      Sel[I] = (S + I) & 7;
  else if (M == "b4e")
    for (int I = 0; I < 4; ++I)
      Sel[I] = (8 + S - I) & 7;
  else if (M == "rc8")
    for (int I = 0; I < 4; ++I)
      Sel[I] = S;
  else if (M == "ecl") {
    unsigned T[4][4] = {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}};
    for (int I = 0; I < 4; ++I)
      Sel[I] = T[S][I];
  } else if (M == "ecr") {
    unsigned T[4][4] = {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}};
    for (int I = 0; I < 4; ++I)
      Sel[I] = T[S][I];
  } else { // rc16
    unsigned T[4][4] = {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}};
    for (int I = 0; I < 4; ++I)
      Sel[I] = T[S][I];
  }
  u32 R = 0;
  for (int I = 0; I < 4; ++I)
    R |= Byte(Sel[I]) << (8 * I);
  return R;
}

} // namespace

void addIntegerCases(CaseList &L) {
  auto rs = [](u64 V) { return s32(u32(V)); };
  L.push_back(I("add.s32", {"s32", "s32"}, "s32", rows2(V32, V32),
                [](auto &R) { return std::vector<u64>{z32(s64(u32(R[0]) + u32(R[1])))}; }));
  L.push_back(I("add.sat.s32", {"s32", "s32"}, "s32", rows2(S32, S32),
                [rs](auto &R) { return std::vector<u64>{z32(sat32(s64(rs(R[0])) + rs(R[1])))}; }));
  L.push_back(I("sub.u32", {"u32", "u32"}, "u32", rows2(V32, V32),
                [](auto &R) { return std::vector<u64>{u32(R[0]) - u32(R[1])}; }));
  L.push_back(I("sub.sat.s32", {"s32", "s32"}, "s32", rows2(S32, S32),
                [rs](auto &R) { return std::vector<u64>{z32(sat32(s64(rs(R[0])) - rs(R[1])))}; }));
  L.push_back(I("add.u64", {"u64", "u64"}, "u64", rows2(V64, V64),
                [](auto &R) { return std::vector<u64>{R[0] + R[1]}; }));
  L.push_back(I("sub.s64", {"s64", "s64"}, "s64", rows2(V64, V64),
                [](auto &R) { return std::vector<u64>{R[0] - R[1]}; }));
  L.push_back(I("add.u16", {"u16", "u16"}, "u16",
                rows2({0, 1, 0x7fff, 0x8000, 0xffff}, {0, 1, 0xffff, 0x1234}),
                [](auto &R) { return std::vector<u64>{uint16_t(R[0] + R[1])}; }));
  L.push_back(I("mul.lo.s32", {"s32", "s32"}, "s32", rows2(V32, V32),
                [](auto &R) { return std::vector<u64>{u32(u32(R[0]) * u32(R[1]))}; }));
  L.push_back(I("mul.hi.s32", {"s32", "s32"}, "s32", rows2(V32, V32),
                [rs](auto &R) { return std::vector<u64>{z32((s64(rs(R[0])) * rs(R[1])) >> 32)}; }));
  L.push_back(I("mul.hi.u32", {"u32", "u32"}, "u32", rows2(V32, V32),
                [](auto &R) { return std::vector<u64>{(u64(u32(R[0])) * u32(R[1])) >> 32}; }));
  L.push_back(I("mul.wide.s32", {"s32", "s32"}, "s64", rows2(V32, V32),
                [rs](auto &R) { return std::vector<u64>{u64(s64(rs(R[0])) * rs(R[1]))}; }));
  L.push_back(I("mul.wide.u32", {"u32", "u32"}, "u64", rows2(V32, V32),
                [](auto &R) { return std::vector<u64>{u64(u32(R[0])) * u32(R[1])}; }));
  L.push_back(I("mul.lo.u64", {"u64", "u64"}, "u64", rows2(V64, V64),
                [](auto &R) { return std::vector<u64>{R[0] * R[1]}; }));
  L.push_back(I("mul.hi.u64", {"u64", "u64"}, "u64", rows2(V64, V64), [](auto &R) {
    return std::vector<u64>{u64((unsigned __int128)R[0] * R[1] >> 64)};
  }));
  L.push_back(I("mul.hi.s64", {"s64", "s64"}, "s64", rows2(V64, V64), [](auto &R) {
    return std::vector<u64>{u64((__int128)s64(R[0]) * s64(R[1]) >> 64)};
  }));
  // 16-bit multiplies (AMDGPU's 16-bit VALU forms: GFX9's v_mad_legacy_u16 among them).
  const std::vector<u64> V16 = {0, 1, 2, 9, 0x7fff, 0x8000, 0xffff, 0xfff7, 0x1234, 0xabcd};
  const std::vector<u64> C16 = {0, 1, 0x8000, 0xfffe};
  auto s16 = [](u64 V) { return s32(int16_t(uint16_t(V))); };
  L.push_back(I("mul.lo.u16", {"u16", "u16"}, "u16", rows2(V16, V16),
                [](auto &R) { return std::vector<u64>{uint16_t(u32(R[0]) * u32(R[1]))}; }));
  L.push_back(I("mul.lo.s16", {"s16", "s16"}, "s16", rows2(V16, V16),
                [s16](auto &R) { return std::vector<u64>{uint16_t(u32(s16(R[0]) * s16(R[1])))}; }));
  L.push_back(I("mul.hi.u16", {"u16", "u16"}, "u16", rows2(V16, V16), [](auto &R) {
    return std::vector<u64>{(u32(uint16_t(R[0])) * u32(uint16_t(R[1]))) >> 16};
  }));
  L.push_back(I("mul.hi.s16", {"s16", "s16"}, "s16", rows2(V16, V16), [s16](auto &R) {
    return std::vector<u64>{uint16_t(u32((s16(R[0]) * s16(R[1])) >> 16))};
  }));
  L.push_back(I("mul.wide.u16", {"u16", "u16"}, "u32", rows2(V16, V16), [](auto &R) {
    return std::vector<u64>{u32(uint16_t(R[0])) * u32(uint16_t(R[1]))};
  }));
  L.push_back(I("mul.wide.s16", {"s16", "s16"}, "s32", rows2(V16, V16),
                [s16](auto &R) { return std::vector<u64>{u32(s16(R[0]) * s16(R[1]))}; }));
  L.push_back(I("mad.lo.u16", {"u16", "u16", "u16"}, "u16", rows3(V16, V16, C16), [](auto &R) {
    return std::vector<u64>{uint16_t(u32(R[0]) * u32(R[1]) + u32(R[2]))};
  }));
  L.push_back(I("mad.lo.s16", {"s16", "s16", "s16"}, "s16", rows3(V16, V16, C16), [s16](auto &R) {
    return std::vector<u64>{uint16_t(u32(s16(R[0]) * s16(R[1]) + s16(R[2])))};
  }));
  L.push_back(I("mad.hi.s16", {"s16", "s16", "s16"}, "s16", rows3(V16, V16, C16), [s16](auto &R) {
    return std::vector<u64>{uint16_t(u32(((s16(R[0]) * s16(R[1])) >> 16) + s16(R[2])))};
  }));
  L.push_back(I("mad.wide.u16", {"u16", "u16", "u32"}, "u32",
                rows3(V16, V16, {0, 1, 0xffffffff, 0x80000000}), [](auto &R) {
                  return std::vector<u64>{
                      u32(u32(uint16_t(R[0])) * u32(uint16_t(R[1])) + u32(R[2]))};
                }));
  L.push_back(I(
      "mad.wide.s16", {"s16", "s16", "s32"}, "s32", rows3(V16, V16, {0, 1, 0xffffffff, 0x80000000}),
      [s16](auto &R) { return std::vector<u64>{u32(u32(s16(R[0]) * s16(R[1])) + u32(R[2]))}; }));
  L.push_back(I("mad.lo.s32", {"s32", "s32", "s32"}, "s32", rows3(S32, S32, {0, 1, 0x80000000}),
                [](auto &R) { return std::vector<u64>{u32(u32(R[0]) * u32(R[1]) + u32(R[2]))}; }));
  L.push_back(
      I("mad.hi.u32", {"u32", "u32", "u32"}, "u32", rows3(S32, S32, {0, 0xffffffff}), [](auto &R) {
        return std::vector<u64>{u32((u64(u32(R[0])) * u32(R[1])) >> 32) + u32(R[2])};
      }));
  L.push_back(I("mad.hi.sat.s32", {"s32", "s32", "s32"}, "s32",
                rows3(S32, S32, {0, 0x7fffffff, 0x80000000}), [rs](auto &R) {
                  s64 Hi = (s64(rs(R[0])) * rs(R[1])) >> 32;
                  return std::vector<u64>{z32(sat32(Hi + rs(R[2])))};
                }));
  L.push_back(I("mad.wide.s32", {"s32", "s32", "s64"}, "s64",
                rows3(S32, S32, {0, 0x8000000000000000ull, 5}),
                [rs](auto &R) { return std::vector<u64>{u64(s64(rs(R[0])) * rs(R[1])) + R[2]}; }));
  L.push_back(I("mul24.lo.s32", {"s32", "s32"}, "s32", rows2(S32, {3, 0x00800000, 0xff7fffff}),
                [](auto &R) {
                  auto S24 = [](u64 V) { return s64(s32(u32(V) << 8) >> 8); };
                  return std::vector<u64>{z32(S24(R[0]) * S24(R[1]))};
                }));
  L.push_back(I("mad24.lo.u32", {"u32", "u32", "u32"}, "u32",
                rows3(V32, {3, 0x01ffffff}, {1, 0xffffffff}), [](auto &R) {
                  return std::vector<u64>{
                      u32((u64(u32(R[0]) & 0xffffff) * (u32(R[1]) & 0xffffff)) + u32(R[2]))};
                }));
  L.push_back(I("mul24.hi.u32", {"u32", "u32"}, "u32", rows2(V32, {3, 0x00ffffff}), [](auto &R) {
    u64 P = u64(u32(R[0]) & 0xffffff) * (u32(R[1]) & 0xffffff); // 48 bits
    return std::vector<u64>{u32(P >> 16)};
  }));
  // Division by zero yields an unspecified value (PTX ISA 9.7.1.8): not checked.
  L.push_back(I("div.s32", {"s32", "s32"}, "s32", rows2(S32, S32), [rs](auto &R) {
    s32 A = rs(R[0]), B = rs(R[1]);
    if (B == 0 || (A == INT32_MIN && B == -1))
      return std::vector<u64>{Any};
    return std::vector<u64>{z32(A / B)};
  }));
  L.push_back(I("div.u32", {"u32", "u32"}, "u32", rows2(V32, V32), [](auto &R) {
    return std::vector<u64>{u32(R[1]) ? u64(u32(R[0]) / u32(R[1])) : Any};
  }));
  L.push_back(I("rem.s32", {"s32", "s32"}, "s32", rows2(S32, S32), [rs](auto &R) {
    s32 A = rs(R[0]), B = rs(R[1]);
    if (B == 0 || (A == INT32_MIN && B == -1))
      return std::vector<u64>{Any};
    return std::vector<u64>{z32(A % B)}; // sign of the dividend (9.7.1.9)
  }));
  L.push_back(I("rem.u32", {"u32", "u32"}, "u32", rows2(V32, V32), [](auto &R) {
    return std::vector<u64>{u32(R[1]) ? u64(u32(R[0]) % u32(R[1])) : Any};
  }));
  L.push_back(I("div.s64", {"s64", "s64"}, "s64", rows2(V64, V64), [](auto &R) {
    s64 A = s64(R[0]), B = s64(R[1]);
    if (B == 0 || (A == INT64_MIN && B == -1))
      return std::vector<u64>{Any};
    return std::vector<u64>{u64(A / B)};
  }));
  L.push_back(I("rem.u64", {"u64", "u64"}, "u64", rows2(V64, V64),
                [](auto &R) { return std::vector<u64>{R[1] ? R[0] % R[1] : Any}; }));
  L.push_back(I("abs.s32", {"s32"}, "s32", rows1(S32), [rs](auto &R) {
    s32 A = rs(R[0]);
    return std::vector<u64>{A == INT32_MIN ? u64(0x80000000u) : z32(A < 0 ? -A : A)};
  }));
  L.push_back(
      I("neg.s64", {"s64"}, "s64", rows1(V64), [](auto &R) { return std::vector<u64>{0 - R[0]}; }));
  L.push_back(I("min.s32", {"s32", "s32"}, "s32", rows2(S32, S32),
                [rs](auto &R) { return std::vector<u64>{z32(std::min(rs(R[0]), rs(R[1])))}; }));
  L.push_back(I("max.u32", {"u32", "u32"}, "u32", rows2(V32, V32),
                [](auto &R) { return std::vector<u64>{std::max(u32(R[0]), u32(R[1]))}; }));
  L.push_back(I("max.relu.s32", {"s32", "s32"}, "s32", rows2(S32, S32), [rs](auto &R) {
    return std::vector<u64>{z32(std::max(0, std::max(rs(R[0]), rs(R[1]))))};
  }));
  // .u16x2/.s16x2 (sm_90): each half-word on its own; add and sub wrap, .relu clamps at 0.
  {
    const std::vector<u64> P16 = {0,          0x7fff8000, 0x80007fff, 0xffff0001, 0x0001ffff,
                                  0x12349abc, 0xfedc0010, 0x80008000, 0x7fff7fff};
    auto Halves = [](int Op, bool Signed, bool Relu) {
      return [=](auto &R) {
        u32 D = 0;
        for (int H = 0; H < 2; ++H) {
          uint16_t A = uint16_t(R[0] >> (16 * H)), B = uint16_t(R[1] >> (16 * H));
          s32 X = Signed ? s32(int16_t(A)) : s32(A), Y = Signed ? s32(int16_t(B)) : s32(B);
          s32 V = Op == 0 ? X + Y : Op == 1 ? X - Y : Op == 2 ? std::min(X, Y) : std::max(X, Y);
          if (Relu)
            V = std::max(V, 0);
          D |= u32(uint16_t(V)) << (16 * H);
        }
        return std::vector<u64>{D};
      };
    };
    const char *Ops[] = {"add", "sub", "min", "max"};
    for (int Op = 0; Op < 4; ++Op)
      for (bool Signed : {false, true})
        L.push_back(I(std::string(Ops[Op]) + (Signed ? ".s16x2" : ".u16x2"), {"u32", "u32"}, "u32",
                      rows2(P16, P16), Halves(Op, Signed, false)));
    L.push_back(I("min.relu.s16x2", {"u32", "u32"}, "u32", rows2(P16, P16), Halves(2, true, true)));
    L.push_back(I("max.relu.s16x2", {"u32", "u32"}, "u32", rows2(P16, P16), Halves(3, true, true)));
  }
  L.push_back(I("min.u64", {"u64", "u64"}, "u64", rows2(V64, V64),
                [](auto &R) { return std::vector<u64>{std::min(R[0], R[1])}; }));
  L.push_back(I("max.s64", {"s64", "s64"}, "s64", rows2(V64, V64),
                [](auto &R) { return std::vector<u64>{u64(std::max(s64(R[0]), s64(R[1])))}; }));
  L.push_back(
      I("sad.u32", {"u32", "u32", "u32"}, "u32", rows3(V32, {5, 0xffffffff}, {0, 10}), [](auto &R) {
        u32 A = u32(R[0]), B = u32(R[1]);
        return std::vector<u64>{u32((A < B ? B - A : A - B) + u32(R[2]))};
      }));
  L.push_back(
      I("sad.s32", {"s32", "s32", "s32"}, "s32", rows3(S32, {5, 0x80000000}, {7}), [rs](auto &R) {
        s64 A = rs(R[0]), B = rs(R[1]);
        return std::vector<u64>{u32(u32(A < B ? B - A : A - B) + u32(R[2]))};
      }));
  L.push_back(I("popc.b32", {"b32"}, "u32", rows1(V32),
                [](auto &R) { return std::vector<u64>{u64(std::popcount(u32(R[0])))}; }));
  L.push_back(I("popc.b64", {"b64"}, "u32", rows1(V64),
                [](auto &R) { return std::vector<u64>{u64(std::popcount(R[0]))}; }));
  L.push_back(I("clz.b32", {"b32"}, "u32", rows1(V32),
                [](auto &R) { return std::vector<u64>{u64(std::countl_zero(u32(R[0])))}; }));
  L.push_back(I("clz.b64", {"b64"}, "u32", rows1(V64),
                [](auto &R) { return std::vector<u64>{u64(std::countl_zero(R[0]))}; }));
  // bfind: position of the most significant non-sign bit, 0xffffffff when none (9.7.1.16).
  L.push_back(I("bfind.u32", {"u32"}, "u32", rows1(V32), [](auto &R) {
    u32 A = u32(R[0]);
    return std::vector<u64>{A ? u64(31 - std::countl_zero(A)) : 0xffffffffu};
  }));
  L.push_back(I("bfind.s32", {"s32"}, "u32", rows1(V32), [](auto &R) {
    u32 A = u32(R[0]);
    if (A & 0x80000000u)
      A = ~A;
    return std::vector<u64>{A ? u64(31 - std::countl_zero(A)) : 0xffffffffu};
  }));
  L.push_back(I("bfind.shiftamt.u64", {"u64"}, "u32", rows1(V64), [](auto &R) {
    return std::vector<u64>{R[0] ? u64(std::countl_zero(R[0])) : 0xffffffffu};
  }));
  L.push_back(I("brev.b32", {"b32"}, "b32", rows1(V32), [](auto &R) {
    u32 A = u32(R[0]), B = 0;
    for (int I = 0; I < 32; ++I)
      B |= ((A >> I) & 1) << (31 - I);
    return std::vector<u64>{B};
  }));
  L.push_back(I("brev.b64", {"b64"}, "b64", rows1(V64), [](auto &R) {
    u64 B = 0;
    for (int I = 0; I < 64; ++I)
      B |= ((R[0] >> I) & 1) << (63 - I);
    return std::vector<u64>{B};
  }));
  // bfe (9.7.1.19): pos and len are the low 8 bits of b and c; the field is sign-extended for
  // signed types from bit min(pos+len-1, 31).
  auto Bfe = [](u64 A, u32 Pos, u32 Len, bool Signed) {
    Pos &= 0xff;
    Len &= 0xff;
    u32 X = u32(A);
    bool Sbit = Signed && (Len == 0 ? false : (X >> std::min(Pos + Len - 1, 31u)) & 1);
    u32 D = 0;
    for (u32 I = 0; I < 32; ++I)
      D |= u32(I < Len && Pos + I <= 31 ? (X >> (Pos + I)) & 1 : Sbit) << I;
    return D;
  };
  L.push_back(I("bfe.u32", {"u32", "u32", "u32"}, "u32",
                rows3({0x9abcdef0, 0xffffffff}, {0, 4, 28, 40}, {0, 8, 32, 0x104}), [Bfe](auto &R) {
                  return std::vector<u64>{Bfe(R[0], u32(R[1]), u32(R[2]), false)};
                }));
  L.push_back(I("bfe.s32", {"s32", "u32", "u32"}, "s32",
                rows3({0x9abcdef0, 0x7fffffff}, {0, 4, 28, 40}, {0, 8, 4, 32}), [Bfe](auto &R) {
                  return std::vector<u64>{Bfe(R[0], u32(R[1]), u32(R[2]), true)};
                }));
  L.push_back(I(
      "bfi.b32", {"b32", "b32", "u32", "u32"}, "b32",
      [] {
        std::vector<std::vector<u64>> Rw;
        for (u64 P : {0, 4, 28, 40})
          for (u64 Ln : {0, 8, 32, 0x108})
            Rw.push_back({0xabcd, 0x12345678, P, Ln});
        return Rw;
      }(),
      [](auto &R) {
        u32 A = u32(R[0]), B = u32(R[1]), Pos = u32(R[2]) & 0xff, Len = u32(R[3]) & 0xff;
        for (u32 I = 0; I < Len && Pos + I <= 31; ++I)
          B = (B & ~(1u << (Pos + I))) | (((A >> I) & 1) << (Pos + I));
        return std::vector<u64>{B};
      }));
  L.push_back(
      I("prmt.b32", {"b32", "b32", "b32"}, "b32",
        rows3({0x80ff7f01}, {0x44332211},
              {0x3210, 0x7654, 0x0000, 0x8888, 0xf0e1, 0x4c3a, 0xffff1234}),
        [](auto &R) { return std::vector<u64>{prmtDefault(u32(R[0]), u32(R[1]), u32(R[2]))}; }));
  for (std::string M : {"f4e", "b4e", "rc8", "ecl", "ecr", "rc16"})
    L.push_back(I("prmt.b32." + M, {"b32", "b32", "b32"}, "b32",
                  rows3({0x80ff7f01}, {0x44332211}, {0, 1, 2, 3, 7}), [M](auto &R) {
                    return std::vector<u64>{prmtMode(M, u32(R[0]), u32(R[1]), u32(R[2]))};
                  }));
  // shf (9.7.8.6): funnel shift of b:a; .clamp limits the amount to 32, .wrap takes it mod 32.
  L.push_back(I("shf.l.wrap.b32", {"b32", "b32", "u32"}, "b32",
                rows3({0x12345678}, {0x9abcdef0}, {0, 4, 31, 32, 36}), [](auto &R) {
                  u64 V = (u64(u32(R[1])) << 32) | u32(R[0]);
                  u32 N = u32(R[2]) & 31;
                  return std::vector<u64>{u32((V << N) >> 32)};
                }));
  L.push_back(I("shf.r.clamp.b32", {"b32", "b32", "u32"}, "b32",
                rows3({0x12345678}, {0x9abcdef0}, {0, 4, 31, 32, 36}), [](auto &R) {
                  u64 V = (u64(u32(R[1])) << 32) | u32(R[0]);
                  u32 N = std::min(u32(R[2]), 32u);
                  return std::vector<u64>{u32(V >> N)};
                }));
  L.push_back(I("shf.l.clamp.b32", {"b32", "b32", "u32"}, "b32",
                rows3({0x12345678}, {0x9abcdef0}, {0, 4, 32, 100}), [](auto &R) {
                  u64 V = (u64(u32(R[1])) << 32) | u32(R[0]);
                  u32 N = std::min(u32(R[2]), 32u);
                  return std::vector<u64>{u32((V << N) >> 32)};
                }));
  L.push_back(I("shf.r.wrap.b32", {"b32", "b32", "u32"}, "b32",
                rows3({0x12345678}, {0x9abcdef0}, {0, 4, 32, 36}), [](auto &R) {
                  u64 V = (u64(u32(R[1])) << 32) | u32(R[0]);
                  return std::vector<u64>{u32(V >> (u32(R[2]) & 31))};
                }));
  // Shift amounts >= the width give 0 (or the sign for shr.s), 9.7.8.8/9.
  L.push_back(I("shl.b32", {"b32", "u32"}, "b32", rows2({0x9abcdef1, 1}, {0, 1, 31, 32, 33, 200}),
                [](auto &R) {
                  u32 N = u32(R[1]);
                  return std::vector<u64>{N >= 32 ? 0 : u32(u32(R[0]) << N)};
                }));
  L.push_back(
      I("shr.u32", {"u32", "u32"}, "u32", rows2({0x9abcdef1, 1}, {0, 1, 31, 32, 200}), [](auto &R) {
        u32 N = u32(R[1]);
        return std::vector<u64>{N >= 32 ? 0 : u32(R[0]) >> N};
      }));
  L.push_back(I("shr.s32", {"s32", "u32"}, "s32",
                rows2({0x9abcdef1, 0x7bcdef01}, {0, 1, 31, 32, 200}), [rs](auto &R) {
                  u32 N = std::min(u32(R[1]), 31u);
                  return std::vector<u64>{z32(rs(R[0]) >> N)};
                }));
  L.push_back(I("shl.b64", {"b64", "u32"}, "b64", rows2({0x9abcdef012345671ull}, {0, 1, 63, 64}),
                [](auto &R) {
                  u32 N = u32(R[1]);
                  return std::vector<u64>{N >= 64 ? 0 : R[0] << N};
                }));
  L.push_back(I("shr.s64", {"s64", "u32"}, "s64", rows2({0x9abcdef012345671ull, 5}, {0, 4, 64}),
                [](auto &R) {
                  u32 N = std::min(u32(R[1]), 63u);
                  return std::vector<u64>{u64(s64(R[0]) >> N)};
                }));
  L.push_back(I("and.b32", {"b32", "b32"}, "b32", rows2(V32, V32),
                [](auto &R) { return std::vector<u64>{u32(R[0] & R[1])}; }));
  L.push_back(I("or.b64", {"b64", "b64"}, "b64", rows2(V64, V64),
                [](auto &R) { return std::vector<u64>{R[0] | R[1]}; }));
  L.push_back(I("xor.b32", {"b32", "b32"}, "b32", rows2(V32, V32),
                [](auto &R) { return std::vector<u64>{u32(R[0] ^ R[1])}; }));
  L.push_back(I("not.b32", {"b32"}, "b32", rows1(V32),
                [](auto &R) { return std::vector<u64>{u32(~R[0])}; }));
  L.push_back(I("cnot.b32", {"b32"}, "b32", rows1(V32),
                [](auto &R) { return std::vector<u64>{u32(R[0]) == 0 ? 1u : 0u}; }));
  L.push_back(I("and.pred", {"pred", "pred"}, "pred", rows2({0, 1}, {0, 1}),
                [](auto &R) { return std::vector<u64>{R[0] & R[1]}; }));
  L.push_back(I("xor.pred", {"pred", "pred"}, "pred", rows2({0, 1}, {0, 1}),
                [](auto &R) { return std::vector<u64>{R[0] ^ R[1]}; }));
  for (u32 Lut : {0x96u, 0xe8u, 0x1eu, 0x00u, 0xffu, 0x80u}) {
    Case C = I("lop3.b32.0x" + std::to_string(Lut), {"b32", "b32", "b32"}, "b32",
               rows3({0xf0f0f0f0, 0x12345678}, {0xcccccccc, 0}, {0xaaaaaaaa, 0xffffffff}),
               [Lut](auto &R) {
                 u32 A = u32(R[0]), B = u32(R[1]), Cc = u32(R[2]), D = 0;
                 for (int I = 0; I < 32; ++I) {
                   unsigned Idx = (((A >> I) & 1) << 2) | (((B >> I) & 1) << 1) | ((Cc >> I) & 1);
                   D |= ((Lut >> Idx) & 1) << I;
                 }
                 return std::vector<u64>{D};
               });
    C.Body = "lop3.b32 %d0, %a0, %a1, %a2, " + std::to_string(Lut) + ";";
    L.push_back(C);
  }
  auto Dp4a = [](u32 A, u32 B, u32 C, bool SA, bool SB) {
    s64 Acc = SA || SB ? s64(s32(C)) : s64(C);
    for (int I = 0; I < 4; ++I) {
      s64 X = SA ? s64(int8_t(A >> (8 * I))) : s64((A >> (8 * I)) & 0xff);
      s64 Y = SB ? s64(int8_t(B >> (8 * I))) : s64((B >> (8 * I)) & 0xff);
      Acc += X * Y;
    }
    return u32(Acc);
  };
  L.push_back(I("dp4a.u32.u32", {"u32", "u32", "u32"}, "u32",
                rows3({0xff80017f, 0x01020304}, {0xffffffff, 0x80808080}, {0, 0xffffff00}),
                [Dp4a](auto &R) {
                  return std::vector<u64>{Dp4a(u32(R[0]), u32(R[1]), u32(R[2]), false, false)};
                }));
  L.push_back(I("dp4a.s32.s32", {"s32", "s32", "s32"}, "s32",
                rows3({0xff80017f, 0x01020304}, {0xffffffff, 0x80808080}, {0, 0xffffff00}),
                [Dp4a](auto &R) {
                  return std::vector<u64>{Dp4a(u32(R[0]), u32(R[1]), u32(R[2]), true, true)};
                }));
  L.push_back(I("dp4a.s32.u32", {"s32", "u32", "s32"}, "s32",
                rows3({0xff80017f}, {0xffffffff, 0x80808080}, {0, 5}), [Dp4a](auto &R) {
                  return std::vector<u64>{Dp4a(u32(R[0]), u32(R[1]), u32(R[2]), true, false)};
                }));
  // dp2a.lo/hi: two 16-bit halves of a times bytes 0-1 (lo) or 2-3 (hi) of b (9.7.1.24).
  for (bool Hi : {false, true})
    L.push_back(
        I(std::string("dp2a.") + (Hi ? "hi" : "lo") + ".s32.s32", {"s32", "s32", "s32"}, "s32",
          rows3({0x8000ffff, 0x00020003}, {0x80ff017f, 0x04030201}, {0, 100}), [Hi](auto &R) {
            u32 A = u32(R[0]), B = u32(R[1]);
            s64 Acc = s32(u32(R[2]));
            for (int I = 0; I < 2; ++I)
              Acc += s64(int16_t(A >> (16 * I))) * s64(int8_t(B >> (8 * (I + (Hi ? 2 : 0)))));
            return std::vector<u64>{u32(Acc)};
          }));
  // szext (9.7.1.26): sign- or zero-extend the low b bits; .clamp limits b to 32, .wrap b mod 32.
  L.push_back(I("szext.clamp.s32", {"b32", "u32"}, "b32",
                rows2({0x000000f0, 0x12345678}, {0, 4, 8, 31, 32, 40}), [](auto &R) {
                  u32 N = std::min(u32(R[1]), 32u), A = u32(R[0]);
                  if (N == 0)
                    return std::vector<u64>{0};
                  if (N >= 32)
                    return std::vector<u64>{A};
                  return std::vector<u64>{u32(s32(A << (32 - N)) >> (32 - N))};
                }));
  L.push_back(I("szext.wrap.u32", {"b32", "u32"}, "b32",
                rows2({0x000000f0, 0x12345678}, {0, 4, 8, 31, 33}), [](auto &R) {
                  u32 N = u32(R[1]) & 31, A = u32(R[0]);
                  return std::vector<u64>{N == 0 ? 0 : A & u32((u64(1) << N) - 1)};
                }));
  // bmsk (9.7.1.25): a mask of b bits from position a.
  L.push_back(I("bmsk.clamp.b32", {"b32", "b32"}, "b32",
                rows2({0, 4, 31, 32, 40}, {0, 1, 8, 31, 32, 40}), [](auto &R) {
                  u32 A = std::min(u32(R[0]), 32u), B = std::min(u32(R[1]), 32u);
                  u64 M = ((u64(1) << B) - 1) << A;
                  return std::vector<u64>{u32(M)};
                }));
  L.push_back(
      I("bmsk.wrap.b32", {"b32", "b32"}, "b32", rows2({0, 4, 31, 33}, {0, 1, 8, 33}), [](auto &R) {
        u32 A = u32(R[0]) & 31, B = u32(R[1]) & 31;
        u64 M = ((u64(1) << B) - 1) << A;
        return std::vector<u64>{u32(M)};
      }));
  // fns (9.7.1.27): the position of the n-th set bit from base in direction of offset's sign.
  L.push_back(I("fns.b32", {"b32", "u32", "s32"}, "b32",
                rows3({0x90000101, 0xffffffff, 0}, {0, 3, 31}, {1, 2, -1ull & 0xffffffff, 3}),
                [](auto &R) {
                  u32 Mask = u32(R[0]), Base = u32(R[1]);
                  s32 Off = s32(u32(R[2]));
                  if (Off == 0)
                    return std::vector<u64>{Base};
                  int N = Off > 0 ? Off : -Off;
                  if (Off > 0) {
                    for (int P = int(Base); P < 32; ++P)
                      if ((Mask >> P) & 1 && --N == 0)
                        return std::vector<u64>{u64(P)};
                  } else {
                    for (int P = int(Base); P >= 0; --P)
                      if ((Mask >> P) & 1 && --N == 0)
                        return std::vector<u64>{u64(P)};
                  }
                  return std::vector<u64>{0xffffffffu};
                }));
  // Carry chains: a 96-bit add / subtract / multiply-add in 32-bit pieces (9.7.2).
  auto Chain = [](std::string Family, std::string Name, std::string Body, auto F) {
    Case C;
    C.Family = Family;
    C.Name = Name;
    C.InTypes = {"u64", "u64"};
    C.OutTypes = {"u64", "u32"};
    C.Body = Body;
    C.Rows = rows2({0, 1, 0xffffffffull, 0xffffffffffffffffull, 0x8000000180000001ull},
                   {0, 1, 0xffffffffull, 0xffffffffffffffffull, 0x123456789ull});
    C.Ref = perThread(F);
    return C;
  };
  L.push_back(Chain("integer", "add.cc.addc",
                    "mov.b64 {%r0, %r1}, %a0;\n mov.b64 {%r2, %r3}, %a1;\n"
                    " add.cc.u32 %r4, %r0, %r2;\n addc.cc.u32 %r5, %r1, %r3;\n"
                    " addc.u32 %d1, 0, 0;\n mov.b64 %d0, {%r4, %r5};",
                    [](auto &R) {
                      unsigned __int128 S = (unsigned __int128)R[0] + R[1];
                      return std::vector<u64>{u64(S), u64(S >> 64)};
                    }));
  L.push_back(Chain("integer", "sub.cc.subc",
                    "mov.b64 {%r0, %r1}, %a0;\n mov.b64 {%r2, %r3}, %a1;\n"
                    " sub.cc.u32 %r4, %r0, %r2;\n subc.cc.u32 %r5, %r1, %r3;\n"
                    " subc.u32 %d1, 0, 0;\n mov.b64 %d0, {%r4, %r5};",
                    [](auto &R) {
                      // the final subc computes 0 - 0 - borrow
                      return std::vector<u64>{R[0] - R[1], R[0] < R[1] ? 0xffffffffu : 0u};
                    }));
  // The flag is one bit for both (9.7.2): after a subtraction it is the carry of a + ~b + 1, 1
  // when nothing was borrowed, as nvcc's own 128-bit division reads it (addc after subc.cc); a
  // subc after an addition subtracts 1 - CF.
  L.push_back(Chain("integer", "sub.cc.subc.addc",
                    "mov.b64 {%r0, %r1}, %a0;\n mov.b64 {%r2, %r3}, %a1;\n"
                    " sub.cc.u32 %r4, %r0, %r2;\n subc.cc.u32 %r5, %r1, %r3;\n"
                    " addc.u32 %d1, 0, 0;\n mov.b64 %d0, {%r4, %r5};",
                    [](auto &R) {
                      return std::vector<u64>{R[0] - R[1], R[0] >= R[1] ? 1u : 0u};
                    }));
  L.push_back(Chain("integer", "add.cc.subc",
                    "mov.b64 {%r0, %r1}, %a0;\n mov.b64 {%r2, %r3}, %a1;\n"
                    " add.cc.u32 %r4, %r0, %r2;\n subc.cc.u32 %r5, %r1, %r3;\n"
                    " addc.u32 %d1, 0, 0;\n mov.b64 %d0, {%r4, %r5};",
                    [](auto &R) {
                      u32 A0 = u32(R[0]), A1 = u32(R[0] >> 32), B0 = u32(R[1]),
                          B1 = u32(R[1] >> 32);
                      u64 Sum = u64(A0) + B0;
                      u64 Borrow = 1 - (Sum >> 32);
                      u32 Hi = A1 - B1 - u32(Borrow);
                      bool NoBorrow = u64(A1) >= u64(B1) + Borrow;
                      return std::vector<u64>{(u64(Hi) << 32) | u32(Sum), NoBorrow ? 1u : 0u};
                    }));
  L.push_back(Chain("integer", "mad.cc.madc",
                    "mov.b64 {%r0, %r1}, %a0;\n mov.b64 {%r2, %r3}, %a1;\n"
                    " mad.lo.cc.u32 %r4, %r0, %r2, %r1;\n madc.hi.cc.u32 %r5, %r0, %r2, %r3;\n"
                    " addc.u32 %d1, 0, 0;\n mov.b64 %d0, {%r4, %r5};",
                    [](auto &R) {
                      u32 A0 = u32(R[0]), A1 = u32(R[0] >> 32), B0 = u32(R[1]),
                          B1 = u32(R[1] >> 32);
                      u64 P = u64(A0) * B0;
                      u64 Lo = u64(u32(P)) + A1;
                      u64 Hi = (P >> 32) + B1 + (Lo >> 32);
                      return std::vector<u64>{(u64(u32(Hi)) << 32) | u32(Lo), Hi >> 32};
                    }));
}

} // namespace reptx::conformance
