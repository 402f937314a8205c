// Video instructions (PTX ISA 9.7.17). The host references follow the manual's pseudo-code:
// - scalar vadd, vsub, vabsdiff, vmin, vmax, vshl, vshr (9.7.17.1-2): a and b are the selected
//   byte/half-word/word sign- or zero-extended by their type, the operation is exact on those
//   values, .sat clamps to dtype's range, .add adds c, and d is the low 32 bits;
// - vmad (9.7.17.3): tmp[127:0] = ta * tb, negation as ~tmp + 1 or ~c + 1, .po's + 1, the scale's
//   right shift, .sat on the low 64 bits;
// - vset (9.7.17.4): compare(ta, tb) ? 1 : 0, then + c, unsigned min/max with c, or merged into
//   the byte or half-word of c that d.dsel names;
// - SIMD vop2/vop4 and vset2/vset4 (9.7.17.5-6): extractAndSignExt of the elements each selector
//   names in {b, a}, the operation per lane, .sat to the lane's range, then the mask's lanes
//   accumulated into c (.add) or merged over c's lanes.
#include "../Conformance.h"

#include <algorithm>
#include <cstdlib>

namespace reptx::conformance {

namespace {

using u64 = uint64_t;

struct Video {
  std::string Op;  // vadd, vsub, vabsdiff, vmin, vmax, vshl, vshr
  bool SD, SA, SB; // signed dtype, atype, btype
  bool Sat = false, Add = false;
  int Mode = 0;           // shifts: 1 .clamp, 2 .wrap
  std::string ASel, BSel; // "", "b0".."b3", "h0", "h1"
};

int64_t part(u64 R, const std::string &Sel, bool Signed) {
  uint32_t W = uint32_t(R);
  if (Sel.empty())
    return Signed ? int64_t(int32_t(W)) : int64_t(W);
  unsigned Shift = Sel[0] == 'b' ? (Sel[1] - '0') * 8 : (Sel[1] - '0') * 16;
  unsigned Bits = Sel[0] == 'b' ? 8 : 16;
  uint32_t P = (W >> Shift) & ((1u << Bits) - 1);
  if (Signed && (P >> (Bits - 1)))
    return int64_t(P) - (int64_t(1) << Bits);
  return P;
}

u64 reference(const Video &V, u64 A, u64 B, u64 C) {
  int64_t Ta = part(A, V.ASel, V.SA), Tb = part(B, V.BSel, V.SB), T = 0;
  if (V.Op == "vshl" || V.Op == "vshr") {
    int64_t N = V.Mode == 1 ? std::min<int64_t>(Tb, 32) : (Tb & 31);
    T = V.Op == "vshl" ? int64_t(uint64_t(Ta) << N) : (Ta >> N); // >> of a signed value: floor
  } else if (V.Op == "vadd") {
    T = Ta + Tb;
  } else if (V.Op == "vsub") {
    T = Ta - Tb;
  } else if (V.Op == "vabsdiff") {
    T = std::llabs(Ta - Tb);
  } else if (V.Op == "vmin") {
    T = std::min(Ta, Tb);
  } else {
    T = std::max(Ta, Tb);
  }
  if (V.Sat)
    T = std::clamp<int64_t>(T, V.SD ? INT32_MIN : 0, V.SD ? INT32_MAX : int64_t(UINT32_MAX));
  uint32_t D = uint32_t(T);
  if (V.Add)
    D += uint32_t(C);
  return D;
}

const std::vector<u64> Vals = {0,          1,          0x7fffffff, 0x80000000,
                               0xffffffff, 0x12345678, 0xfedcba98, 0x00ff80ff};
const std::vector<u64> Shifts = {0, 1, 5, 31, 32, 33, 100, 0xffffffff};
const std::vector<u64> Cs = {0, 0x80000001};
// c for the SIMD forms: zero (what nvcc passes for __vabsdiffu4), and lanes that differ.
const std::vector<u64> SimdCs = {0, 0x8001ff7f};

Case make(const Video &V) {
  auto T = [](bool S) { return std::string(S ? ".s32" : ".u32"); };
  std::string Name = V.Op + T(V.SD) + T(V.SA) + T(V.SB) + (V.Sat ? ".sat" : "") +
                     (V.Mode == 1   ? ".clamp"
                      : V.Mode == 2 ? ".wrap"
                                    : "") +
                     (V.Add ? ".add" : "");
  bool Shift = V.Op == "vshl" || V.Op == "vshr";
  std::vector<std::string> In = {"b32", "b32"};
  auto Rows = rows2(Vals, Shift ? Shifts : Vals);
  if (V.Add) {
    In.push_back("b32");
    Rows = rows3(Vals, Shift ? Shifts : Vals, Cs);
  }
  Case C = simple("video", Name, In, "b32", Rows, [V](auto &R) {
    return std::vector<u64>{reference(V, R[0], R[1], V.Add ? R[2] : 0)};
  });
  std::string Body = Name + " %d0, %a0" + (V.ASel.empty() ? "" : "." + V.ASel) + ", %a1" +
                     (V.BSel.empty() ? "" : "." + V.BSel) + (V.Add ? ", %a2;" : ";");
  C.Body = Body;
  if (!V.ASel.empty() || !V.BSel.empty())
    C.Name += " a." + (V.ASel.empty() ? "w" : V.ASel) + " b." + (V.BSel.empty() ? "w" : V.BSel);
  return C;
}

// ---------------------------------------------------------------- vmad

struct Vmad {
  bool SD, SA, SB;
  bool NegA = false, NegB = false, NegC = false, Po = false, Sat = false;
  int Scale = 0; // 7 or 15
  std::string ASel, BSel;
};

using s128 = __int128;
using u128 = unsigned __int128;

u64 referenceVmad(const Vmad &V, u64 A, u64 B, u64 C) {
  s128 Ta = part(A, V.ASel, V.SA), Tb = part(B, V.BSel, V.SB);
  bool NegProduct = V.NegA != V.NegB;
  bool SignedFinal = V.SA || V.SB || NegProduct || V.NegC;
  u128 Tmp = u128(Ta * Tb);
  uint32_t Cw = uint32_t(C);
  unsigned Lsb = 0;
  if (V.Po) {
    Lsb = 1;
  } else if (NegProduct) {
    Tmp = ~Tmp;
    Lsb = 1;
  } else if (V.NegC) {
    Cw = ~Cw;
    Lsb = 1;
  }
  u128 C128 = SignedFinal ? u128(s128(int32_t(Cw))) : u128(Cw);
  Tmp = Tmp + C128 + Lsb;
  if (V.Scale)
    Tmp = SignedFinal ? u128(s128(Tmp) >> V.Scale) : Tmp >> V.Scale;
  u64 R = u64(Tmp);
  if (V.Sat) {
    if (SignedFinal)
      R = u64(std::clamp<int64_t>(int64_t(R), INT32_MIN, INT32_MAX));
    else
      R = std::min<u64>(R, UINT32_MAX);
  }
  return uint32_t(R);
}

Case makeVmad(const Vmad &V);

Case makeVmad(bool SD, bool SA, bool SB, bool NegA = false, bool NegB = false, bool NegC = false,
              bool Po = false, bool Sat = false, int Scale = 0, std::string ASel = "",
              std::string BSel = "") {
  return makeVmad(Vmad{SD, SA, SB, NegA, NegB, NegC, Po, Sat, Scale, ASel, BSel});
}

Case makeVmad(const Vmad &V) {
  auto T = [](bool S) { return std::string(S ? ".s32" : ".u32"); };
  std::string Name = "vmad" + T(V.SD) + T(V.SA) + T(V.SB) + (V.Po ? ".po" : "") +
                     (V.Sat ? ".sat" : "") + (V.Scale ? ".shr" + std::to_string(V.Scale) : "");
  Case C = simple("video", Name, {"b32", "b32", "b32"}, "b32", rows3(Vals, Vals, Cs),
                  [V](auto &R) { return std::vector<u64>{referenceVmad(V, R[0], R[1], R[2])}; });
  auto Src = [](bool Neg, const char *Reg, const std::string &Sel) {
    return std::string(Neg ? "-" : "") + Reg + (Sel.empty() ? "" : "." + Sel);
  };
  C.Body = Name + " %d0, " + Src(V.NegA, "%a0", V.ASel) + ", " + Src(V.NegB, "%a1", V.BSel) + ", " +
           Src(V.NegC, "%a2", "") + ";";
  C.Name += std::string(V.NegA ? " -a" : "") + (V.NegB ? " -b" : "") + (V.NegC ? " -c" : "");
  if (!V.ASel.empty() || !V.BSel.empty())
    C.Name += " a." + (V.ASel.empty() ? "w" : V.ASel) + " b." + (V.BSel.empty() ? "w" : V.BSel);
  return C;
}

// ---------------------------------------------------------------- vset

struct Vset {
  bool SA, SB;
  std::string Cmp;  // eq ne lt le gt ge
  std::string Op2;  // "", add, min, max
  std::string DSel; // "", b0..b3, h0, h1 (merge into c)
  std::string ASel, BSel;
};

bool compare(const std::string &Cmp, int64_t A, int64_t B) {
  if (Cmp == "eq")
    return A == B;
  if (Cmp == "ne")
    return A != B;
  if (Cmp == "lt")
    return A < B;
  if (Cmp == "le")
    return A <= B;
  if (Cmp == "gt")
    return A > B;
  return A >= B;
}

u64 referenceVset(const Vset &V, u64 A, u64 B, u64 C) {
  uint32_t T = compare(V.Cmp, part(A, V.ASel, V.SA), part(B, V.BSel, V.SB)) ? 1 : 0;
  uint32_t Cw = uint32_t(C);
  if (V.Op2 == "add")
    return uint32_t(T + Cw);
  if (V.Op2 == "min")
    return std::min(T, Cw);
  if (V.Op2 == "max")
    return std::max(T, Cw);
  if (!V.DSel.empty()) {
    unsigned Shift = V.DSel[0] == 'b' ? (V.DSel[1] - '0') * 8 : (V.DSel[1] - '0') * 16;
    uint32_t Mask = (V.DSel[0] == 'b' ? 0xffu : 0xffffu) << Shift;
    return (Cw & ~Mask) | ((T << Shift) & Mask);
  }
  return T;
}

Case makeVset(const Vset &V);

Case makeVset(bool SA, bool SB, std::string Cmp, std::string Op2 = "", std::string DSel = "",
              std::string ASel = "", std::string BSel = "") {
  return makeVset(Vset{SA, SB, Cmp, Op2, DSel, ASel, BSel});
}

Case makeVset(const Vset &V) {
  auto T = [](bool S) { return std::string(S ? ".s32" : ".u32"); };
  std::string Name = "vset" + T(V.SA) + T(V.SB) + "." + V.Cmp + (V.Op2.empty() ? "" : "." + V.Op2);
  bool HasC = !V.Op2.empty() || !V.DSel.empty();
  std::vector<std::string> In = {"b32", "b32"};
  auto Rows = rows2(Vals, Vals);
  if (HasC) {
    In.push_back("b32");
    Rows = rows3(Vals, Vals, Cs);
  }
  Case C = simple("video", Name, In, "b32", Rows, [V, HasC](auto &R) {
    return std::vector<u64>{referenceVset(V, R[0], R[1], HasC ? R[2] : 0)};
  });
  C.Body = Name + " %d0" + (V.DSel.empty() ? "" : "." + V.DSel) + ", %a0" +
           (V.ASel.empty() ? "" : "." + V.ASel) + ", %a1" + (V.BSel.empty() ? "" : "." + V.BSel) +
           (HasC ? ", %a2;" : ";");
  if (!V.DSel.empty())
    C.Name += " d." + V.DSel;
  if (!V.ASel.empty() || !V.BSel.empty())
    C.Name += " a." + (V.ASel.empty() ? "w" : V.ASel) + " b." + (V.BSel.empty() ? "w" : V.BSel);
  return C;
}

// ---------------------------------------------------------------- SIMD: vop2, vop4, vset2, vset4

struct Simd {
  std::string Op; // vadd, vsub, vavrg, vabsdiff, vmin, vmax, vset
  int Lanes;      // 2 or 4
  bool SD, SA, SB;
  bool Sat = false, Add = false;
  std::string Cmp;              // vset
  std::string Mask, ASel, BSel; // "" for the defaults, else "h10", "b3210", ...
};

// Element E (0-3 half-words or 0-7 bytes) of {b, a}, extended by its type.
int64_t element(u64 A, u64 B, int Lanes, int E, bool Signed) {
  int W = 32 / Lanes;
  u64 Pair = (u64(uint32_t(B)) << 32) | uint32_t(A);
  u64 P = (Pair >> (E * W)) & ((u64(1) << W) - 1);
  if (Signed && (P >> (W - 1)))
    return int64_t(P) - (int64_t(1) << W);
  return int64_t(P);
}

u64 referenceSimd(const Simd &V, u64 A, u64 B, u64 C) {
  int W = 32 / V.Lanes;
  // A selector "hxy"/"bxyzw" names lane Lanes-1's element first.
  auto Sel = [&](const std::string &S, int Lane, int Default) {
    return S.empty() ? Default + Lane : S[S.size() - 1 - Lane] - '0';
  };
  auto InMask = [&](int Lane) {
    return V.Mask.empty() || V.Mask.find(char('0' + Lane), 1) != std::string::npos;
  };
  int64_t T[4] = {};
  for (int I = 0; I < V.Lanes; ++I) {
    int64_t Va = element(A, B, V.Lanes, Sel(V.ASel, I, 0), V.SA);
    int64_t Vb = element(A, B, V.Lanes, Sel(V.BSel, I, V.Lanes), V.SB);
    if (V.Op == "vset")
      T[I] = compare(V.Cmp, Va, Vb) ? 1 : 0;
    else if (V.Op == "vadd")
      T[I] = Va + Vb;
    else if (V.Op == "vsub")
      T[I] = Va - Vb;
    else if (V.Op == "vavrg")
      T[I] = Va + Vb >= 0 ? (Va + Vb + 1) >> 1 : (Va + Vb) >> 1;
    else if (V.Op == "vabsdiff")
      T[I] = std::llabs(Va - Vb);
    else if (V.Op == "vmin")
      T[I] = std::min(Va, Vb);
    else
      T[I] = std::max(Va, Vb);
    if (V.Sat)
      T[I] = V.SD ? std::clamp<int64_t>(T[I], -(int64_t(1) << (W - 1)), (int64_t(1) << (W - 1)) - 1)
                  : std::clamp<int64_t>(T[I], 0, (int64_t(1) << W) - 1);
  }
  uint32_t D = 0, Cw = uint32_t(C), LaneMask = uint32_t((u64(1) << W) - 1);
  if (V.Add) {
    D = Cw;
    for (int I = 0; I < V.Lanes; ++I)
      D += InMask(I) ? uint32_t(T[I]) : 0;
  } else {
    for (int I = 0; I < V.Lanes; ++I)
      D |= (InMask(I) ? uint32_t(T[I]) & LaneMask : (Cw >> (I * W)) & LaneMask) << (I * W);
  }
  return D;
}

Case makeSimd(const Simd &V);

Case makeSimd(std::string Op, int Lanes, bool SD, bool SA, bool SB, bool Sat = false,
              bool Add = false, std::string Cmp = "", std::string Mask = "", std::string ASel = "",
              std::string BSel = "") {
  return makeSimd(Simd{Op, Lanes, SD, SA, SB, Sat, Add, Cmp, Mask, ASel, BSel});
}

Case makeSimd(const Simd &V) {
  auto T = [](bool S) { return std::string(S ? ".s32" : ".u32"); };
  std::string Op = V.Op + std::to_string(V.Lanes);
  std::string Name = Op + (V.Op == "vset" ? "" : T(V.SD)) + T(V.SA) + T(V.SB) +
                     (V.Cmp.empty() ? "" : "." + V.Cmp) + (V.Sat ? ".sat" : "") +
                     (V.Add ? ".add" : "");
  Case C = simple("video", Name, {"b32", "b32", "b32"}, "b32", rows3(Vals, Vals, SimdCs),
                  [V](auto &R) { return std::vector<u64>{referenceSimd(V, R[0], R[1], R[2])}; });
  auto Sel = [](const std::string &S) { return S.empty() ? std::string() : "." + S; };
  C.Body = Name + " %d0" + Sel(V.Mask) + ", %a0" + Sel(V.ASel) + ", %a1" + Sel(V.BSel) + ", %a2;";
  if (!V.Mask.empty())
    C.Name += " d." + V.Mask;
  if (!V.ASel.empty() || !V.BSel.empty())
    C.Name += " a." + (V.ASel.empty() ? "default" : V.ASel) + " b." +
              (V.BSel.empty() ? "default" : V.BSel);
  return C;
}
} // namespace

void addVideoCases(CaseList &L) {
  // The form the toolkit's PTX uses (cuSPARSE): vshr.u32.u32.u32.clamp.add.
  L.push_back(make({"vshr", false, false, false, false, true, 1, "", ""}));
  L.push_back(make({"vshr", true, true, false, false, false, 2, "", ""}));
  L.push_back(make({"vshr", true, true, false, true, false, 1, "h1", "b0"}));
  L.push_back(make({"vshl", false, false, false, false, false, 1, "", ""}));
  L.push_back(make({"vshl", true, true, false, false, true, 2, "b2", ""}));
  L.push_back(make({"vadd", true, true, true, true, false, 0, "", ""}));
  L.push_back(make({"vadd", false, false, false, true, false, 0, "", ""}));
  L.push_back(make({"vadd", true, true, true, true, true, 0, "h0", "h1"}));
  L.push_back(make({"vsub", false, false, false, true, false, 0, "", ""}));
  L.push_back(make({"vsub", true, false, true, false, false, 0, "", ""}));
  L.push_back(make({"vabsdiff", false, true, true, true, false, 0, "b1", "b3"}));
  L.push_back(make({"vmin", true, false, true, false, false, 0, "h1", "b2"}));
  L.push_back(make({"vmax", false, true, false, false, true, 0, "b3", "h0"}));
  // vmad (9.7.17.3): the manual's twelve sign combinations, the scales, .po and .sat.
  L.push_back(makeVmad(false, false, false));
  L.push_back(makeVmad(false, false, false, false, false, false, false, true, 15, "h0", "h0"));
  L.push_back(makeVmad(true, false, false, true, false, false, false, true));
  L.push_back(makeVmad(true, false, false, false, false, true, false, true));
  L.push_back(makeVmad(true, false, true, false, true, false, false, false, 7));
  L.push_back(makeVmad(true, true, false, false, false, true, false, true, 15));
  L.push_back(makeVmad(true, true, true, false, false, false, true, true, 7, "b1", "h1"));
  L.push_back(makeVmad(true, true, true, true, false, false, false, false, 0, "", "b2"));
  L.push_back(makeVmad(false, false, false, false, false, false, true, false, 15));
  // vset (9.7.17.4): each comparison, the secondary operations and the merge.
  L.push_back(makeVset(true, false, "lt", "", "", "", ""));
  L.push_back(makeVset(false, false, "ne", "", "", "", "h1"));
  L.push_back(makeVset(true, true, "eq", "add", "", "b0", "b3"));
  L.push_back(makeVset(false, true, "le", "min", "", "", ""));
  L.push_back(makeVset(true, true, "gt", "max", "", "h1", "h0"));
  L.push_back(makeVset(false, false, "ge", "", "b2", "", ""));
  L.push_back(makeVset(true, false, "lt", "", "h1", "b1", ""));
  // SIMD (9.7.17.5-6). First what nvcc emits for __vabsdiffu4/__vabsdiffs4, __vsadu4 and
  // __vsadu2.
  L.push_back(makeSimd("vabsdiff", 4, false, false, false));
  L.push_back(makeSimd("vabsdiff", 4, false, false, false, false, true));
  L.push_back(makeSimd("vabsdiff", 2, false, false, false, false, true));
  for (int Lanes : {2, 4}) {
    std::string Rev = Lanes == 2 ? "h01" : "b0123", Mix = Lanes == 2 ? "h30" : "b5713";
    std::string Part = Lanes == 2 ? "h1" : "b20", AllB = Lanes == 2 ? "h22" : "b4444";
    L.push_back(makeSimd("vadd", Lanes, false, false, false));
    L.push_back(makeSimd("vadd", Lanes, true, true, true, true));
    L.push_back(makeSimd("vadd", Lanes, false, true, false, true, false, "", Part, Rev, Mix));
    L.push_back(makeSimd("vsub", Lanes, true, false, true, true));
    L.push_back(makeSimd("vsub", Lanes, false, false, false, true));
    L.push_back(makeSimd("vsub", Lanes, true, true, true, false, true, "", Part));
    L.push_back(makeSimd("vavrg", Lanes, true, true, true));
    L.push_back(makeSimd("vavrg", Lanes, false, false, false, false, true));
    L.push_back(makeSimd("vavrg", Lanes, true, true, false, true, false, "", "", Mix, AllB));
    L.push_back(makeSimd("vabsdiff", Lanes, true, true, true, true));
    L.push_back(makeSimd("vabsdiff", Lanes, false, true, true, false, true, "", Part));
    L.push_back(makeSimd("vmin", Lanes, true, false, true, false, true, "", "", Rev, ""));
    L.push_back(makeSimd("vmin", Lanes, false, false, false, true, false, "", Part));
    L.push_back(makeSimd("vmax", Lanes, true, true, true, true, false, "", "", "", Mix));
    L.push_back(makeSimd("vmax", Lanes, false, true, true, false, true));
    L.push_back(makeSimd("vset", Lanes, false, false, false, false, false, "eq"));
    L.push_back(makeSimd("vset", Lanes, false, true, false, false, true, "lt", "", Rev, ""));
    L.push_back(makeSimd("vset", Lanes, false, true, true, false, false, "ge", Part, "", Mix));
    L.push_back(makeSimd("vset", Lanes, false, false, true, false, false, "ne"));
    L.push_back(makeSimd("vset", Lanes, false, true, true, false, true, "gt"));
    L.push_back(makeSimd("vset", Lanes, false, false, false, false, false, "le", "", AllB, Rev));
  }
}

} // namespace reptx::conformance
