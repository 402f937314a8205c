// Kernel generation for the conformance cases (see Conformance.h for the template).
#include "Conformance.h"

#include <fmt/format.h>

namespace reptx::conformance {

namespace {

// Register type declared for an operand of PTX type T.
std::string regType(const std::string &T) {
  if (T == "pred")
    return "pred";
  if (T == "u8" || T == "s8" || T == "b8")
    return std::string(1, T[0]) + "16";
  if (T == "f16" || T == "bf16")
    return "b16";
  if (T == "f16x2" || T == "bf16x2")
    return "b32";
  return T;
}

// Type of the ld/st moving an operand of PTX type T.
std::string memType(const std::string &T) {
  if (T == "f16" || T == "bf16")
    return "b16";
  if (T == "f16x2" || T == "bf16x2")
    return "b32";
  return T;
}

std::string replaceDollar(const std::string &S, const std::string &Prefix) {
  std::string R;
  for (char Ch : S)
    if (Ch == '$')
      R += Prefix;
    else
      R += Ch;
  return R;
}

} // namespace

std::string caseKernelName(const Case &C) {
  std::string N = "conf_" + C.Family + "_";
  for (char Ch : C.Name)
    N += (std::isalnum(static_cast<unsigned char>(Ch)) ? Ch : '_');
  return N;
}

static std::string entryText(const Case &C) {
  std::string K = caseKernelName(C);
  std::string Prefix = K + "_";
  std::string S = fmt::format(".visible .entry {}(.param .u64 {}_in, .param .u64 {}_out, "
                              ".param .u64 {}_scratch)\n{{\n",
                              K, K, K, K);
  S += "  .reg .b32 %r<64>;\n  .reg .b64 %rd<64>;\n  .reg .pred %p<16>;\n  .reg .f32 %f<64>;\n"
       "  .reg .f64 %fd<64>;\n  .reg .b16 %h<64>;\n"
       "  .reg .u32 %gid, %cx, %cy, %cz, %nx, %ny, %nz, %tx, %ty, %tz;\n"
       "  .reg .u64 %in, %out, %scratch, %ia, %oa, %off;\n  .reg .u32 %ptmp;\n";
  for (size_t I = 0; I < C.InTypes.size(); ++I)
    S += fmt::format("  .reg .{} %a{};\n", regType(C.InTypes[I]), I);
  for (size_t I = 0; I < C.OutTypes.size(); ++I)
    S += fmt::format("  .reg .{} %d{};\n", regType(C.OutTypes[I]), I);
  S += fmt::format("  ld.param.u64 %in, [{}_in];\n  ld.param.u64 %out, [{}_out];\n"
                   "  ld.param.u64 %scratch, [{}_scratch];\n",
                   K, K, K);
  S += "  cvta.to.global.u64 %in, %in;\n  cvta.to.global.u64 %out, %out;\n"
       "  cvta.to.global.u64 %scratch, %scratch;\n";
  // gid = ((ctaid.z * nctaid.y + ctaid.y) * nctaid.x + ctaid.x) * (ntid.x*ntid.y*ntid.z)
  //       + (tid.z * ntid.y + tid.y) * ntid.x + tid.x
  S += "  mov.u32 %cz, %ctaid.z;\n  mov.u32 %ny, %nctaid.y;\n  mov.u32 %cy, %ctaid.y;\n"
       "  mad.lo.u32 %gid, %cz, %ny, %cy;\n  mov.u32 %nx, %nctaid.x;\n  mov.u32 %cx, %ctaid.x;\n"
       "  mad.lo.u32 %gid, %gid, %nx, %cx;\n  mov.u32 %nx, %ntid.x;\n  mov.u32 %ny, %ntid.y;\n"
       "  mov.u32 %nz, %ntid.z;\n  mul.lo.u32 %cx, %nx, %ny;\n  mul.lo.u32 %cx, %cx, %nz;\n"
       "  mov.u32 %tz, %tid.z;\n  mov.u32 %ty, %tid.y;\n  mov.u32 %tx, %tid.x;\n"
       "  mad.lo.u32 %cy, %tz, %ny, %ty;\n  mad.lo.u32 %cy, %cy, %nx, %tx;\n"
       "  mad.lo.u32 %gid, %gid, %cx, %cy;\n";
  S += fmt::format("  mul.wide.u32 %off, %gid, {};\n  add.u64 %ia, %in, %off;\n",
                   C.InTypes.size() * 8);
  S += fmt::format("  mul.wide.u32 %off, %gid, {};\n  add.u64 %oa, %out, %off;\n",
                   C.OutTypes.size() * 8);
  for (size_t I = 0; I < C.InTypes.size(); ++I) {
    if (C.InTypes[I] == "pred")
      S += fmt::format("  ld.global.u32 %ptmp, [%ia+{}];\n  setp.ne.u32 %a{}, %ptmp, 0;\n", I * 8,
                       I);
    else
      S += fmt::format("  ld.global.{} %a{}, [%ia+{}];\n", memType(C.InTypes[I]), I, I * 8);
  }
  S += replaceDollar(C.Body, Prefix) + "\n";
  for (size_t I = 0; I < C.OutTypes.size(); ++I) {
    if (C.OutTypes[I] == "pred")
      S += fmt::format("  selp.u32 %ptmp, 1, 0, %d{};\n  st.global.u32 [%oa+{}], %ptmp;\n", I,
                       I * 8);
    else
      S += fmt::format("  st.global.{} [%oa+{}], %d{};\n", memType(C.OutTypes[I]), I * 8, I);
  }
  S += "  ret;\n}\n";
  return S;
}

std::string moduleText(const std::vector<const Case *> &Cases) {
  std::string S = ".version 8.5\n.target sm_90\n.address_size 64\n\n";
  for (const Case *C : Cases)
    S += replaceDollar(C->ModuleDecls, caseKernelName(*C) + "_") + "\n";
  for (const Case *C : Cases)
    S += entryText(*C) + "\n";
  return S;
}

const CaseList &allCases() {
  static const CaseList L = [] {
    CaseList L;
    addIntegerCases(L);
    addFloatCases(L);
    addHalfCases(L);
    addCompareCases(L);
    addConvertCases(L);
    addMoveCases(L);
    addMemoryCases(L);
    addAtomicCases(L);
    addBarrierCases(L);
    addFenceCases(L);
    addWarpCases(L);
    addControlCases(L);
    addVideoCases(L);
    addMatrixCases(L);
    addSpecialCases(L);
    addTextureCases(L);
    for (Case &C : L)
      if (C.Skip.empty())
        C.Skip = knownGap(C);
    return L;
  }();
  return L;
}

} // namespace reptx::conformance
