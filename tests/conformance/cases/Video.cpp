// Scalar video instructions (PTX ISA 9.7.17.1-2): vadd, vsub, vabsdiff, vmin, vmax, vshl, vshr.
// The host reference follows the manual's semantics: a and b are the selected byte/half-word/word
// sign- or zero-extended by their type, the operation is exact on those values, .sat clamps to
// dtype's range, .add adds c, and d is the low 32 bits.
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
}

} // namespace reptx::conformance
