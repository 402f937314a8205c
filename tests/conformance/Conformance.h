// The PTX conformance suite (issue 5): table-driven cases, one file per instruction family
// (cases/*.cpp), each a small PTX kernel with inputs and a host reference written from the PTX
// ISA manual. Driver.cpp runs every case on gfx942 packed, gfx942 single and gfx1100.
//
// A case's kernel is generated from a template (Conformance.cpp, kernelText()):
//   .entry NAME(.param .u64 in, .param .u64 out, .param .u64 scratch)
// Each thread computes its flat id %gid (x fastest over the whole grid, PTX ISA 10.1), loads its
// operands %a0, %a1, ... (types InTypes) from in[gid * InTypes.size() + k] (8-byte slots), runs
// Body, and stores %d0, %d1, ... (types OutTypes) to out[gid * OutTypes.size() + k] (8-byte
// slots, zero-filled before the launch, so narrower stores leave the upper bytes 0). `scratch`
// (%scratch, a global address) is a shared buffer of Scratch.size() 64-bit words, checked after
// the launch. The pools %r<64> (.b32), %rd<64> (.b64), %p<16> (.pred), %f<64> (.f32),
// %fd<64> (.f64), %h<64> (.b16) and %tid.x-based %gid (.u32) are declared; `$` in Body and
// ModuleDecls is replaced by a prefix unique to the case (for module-scope names and labels).
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace reptx::conformance {

// An expected output slot that is not checked (its value is unspecified by the PTX ISA).
inline constexpr uint64_t Any = 0xa11a11a11a11a11aull;
// An expected floating-point zero whose sign the PTX ISA leaves open (the .sat clamp of a
// negative or -0 result): +0 and -0 both match.
inline constexpr uint64_t AnyZero = 0x2e202e202e202e20ull;

struct RefContext {
  const std::vector<std::vector<uint64_t>> &In; // per thread
  std::vector<std::vector<uint64_t>> &Out;      // per thread, pre-sized
  std::vector<uint64_t> &Scratch;               // initial contents in, expected contents out
  unsigned BlockThreads;                        // threads per block
};

struct Case {
  std::string Family;
  std::string Name;
  std::vector<std::string> InTypes;  // PTX types: u8..u64, s*, b*, f32, f64, pred, ...
  std::vector<std::string> OutTypes; // same; pred is stored as a u32 0/1
  std::string Body;
  std::vector<std::vector<uint64_t>> Rows; // inputs, one row per thread
  std::function<void(RefContext &)> Ref;
  std::string ModuleDecls;
  std::vector<uint64_t> Scratch; // initial scratch words
  unsigned Block = 0;            // threads per block (1-D); 0: all rows in one block
  unsigned DynamicShared = 0;    // bytes of `extern .shared` memory per block
  double RelTol = 0;             // f32/f64 outputs compared within this relative error when > 0
  std::string Skip;              // a known reptx limitation: the case is skipped with this reason
  // When set, the dispatch must stop with an error whose message contains this text (trap);
  // outputs are not compared then.
  std::string ExpectError;
};

using CaseList = std::vector<Case>;

// Cases of each family (cases/*.cpp).
void addIntegerCases(CaseList &L);
void addFloatCases(CaseList &L);
void addHalfCases(CaseList &L);
void addCompareCases(CaseList &L);
void addConvertCases(CaseList &L);
void addMoveCases(CaseList &L);
void addMemoryCases(CaseList &L);
void addAtomicCases(CaseList &L);
void addBarrierCases(CaseList &L);
void addFenceCases(CaseList &L);
void addWarpCases(CaseList &L);
void addVideoCases(CaseList &L);
void addMatrixCases(CaseList &L);
void addControlCases(CaseList &L);
void addSpecialCases(CaseList &L);
void addTextureCases(CaseList &L);

// The known reptx gap that makes a case skip (KnownGaps.cpp), or empty.
std::string knownGap(const Case &C);

// Every case, in family order.
const CaseList &allCases();
// The kernel text of a family's cases (one entry per case, named caseKernelName()).
std::string moduleText(const std::vector<const Case *> &Cases);
std::string caseKernelName(const Case &C);

// ---- helpers for case tables

inline uint64_t f32(float F) {
  uint32_t U;
  std::memcpy(&U, &F, 4);
  return U;
}
inline float asF32(uint64_t V) {
  uint32_t U = uint32_t(V);
  float F;
  std::memcpy(&F, &U, 4);
  return F;
}
inline uint64_t f64(double D) {
  uint64_t U;
  std::memcpy(&U, &D, 8);
  return U;
}
inline double asF64(uint64_t V) {
  double D;
  std::memcpy(&D, &V, 8);
  return D;
}

// A unary/binary/ternary case whose reference is a function of one thread's row.
using RowFn = std::function<std::vector<uint64_t>(const std::vector<uint64_t> &)>;
inline std::function<void(RefContext &)> perThread(RowFn F) {
  return [F](RefContext &C) {
    for (size_t T = 0; T < C.In.size(); ++T)
      C.Out[T] = F(C.In[T]);
  };
}

// Rows from a list of values for unary operations, or the cross product of two lists.
inline std::vector<std::vector<uint64_t>> rows1(const std::vector<uint64_t> &A) {
  std::vector<std::vector<uint64_t>> R;
  for (uint64_t X : A)
    R.push_back({X});
  return R;
}
inline std::vector<std::vector<uint64_t>> rows2(const std::vector<uint64_t> &A,
                                                const std::vector<uint64_t> &B) {
  std::vector<std::vector<uint64_t>> R;
  for (uint64_t X : A)
    for (uint64_t Y : B)
      R.push_back({X, Y});
  return R;
}
inline std::vector<std::vector<uint64_t>> rows3(const std::vector<uint64_t> &A,
                                                const std::vector<uint64_t> &B,
                                                const std::vector<uint64_t> &C) {
  std::vector<std::vector<uint64_t>> R;
  for (uint64_t X : A)
    for (uint64_t Y : B)
      for (uint64_t Z : C)
        R.push_back({X, Y, Z});
  return R;
}

// A case of one instruction `OP %d0, %a0[, %a1[, %a2]];` of the given types.
inline Case simple(std::string Family, std::string Op, std::vector<std::string> In, std::string Out,
                   std::vector<std::vector<uint64_t>> Rows, RowFn F) {
  Case C;
  C.Family = std::move(Family);
  C.Name = Op;
  std::string Body = Op + " %d0";
  for (size_t I = 0; I < In.size(); ++I)
    Body += ", %a" + std::to_string(I);
  C.Body = Body + ";";
  C.InTypes = std::move(In);
  C.OutTypes = {std::move(Out)};
  C.Rows = std::move(Rows);
  C.Ref = perThread(std::move(F));
  return C;
}

} // namespace reptx::conformance
