// The backend's removal of min/max.f32 NaN canonicalizations that nothing observes
// (backend/lib/MinMaxNaN.h): the select of PTX's canonical NaN after a min/max goes where the
// value only reaches other min/max, comparisons, fabs, phis and lane moves of its bits, and stays
// where a store, arithmetic or a bit operation could see the NaN's payload or sign. Execution with
// NaN operands: conformance cases float.max.min.f32.chain and warp.shfl.sync.bfly.warp_max_nan.
#include "MinMaxNaN.h"
#include "LiftTestUtil.h"

#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace {

// Runs the step on @f of BODY (declarations added) and returns the names of the selects left,
// space-separated, or what went wrong.
std::string selectsLeft(const std::string &Body) {
  std::string IR = "declare float @llvm.maximumnum.f32(float, float)\n"
                   "declare float @llvm.minimumnum.f32(float, float)\n"
                   "declare float @llvm.maxnum.f32(float, float)\n"
                   "declare float @llvm.fabs.f32(float)\n"
                   "declare i32 @llvm.amdgcn.update.dpp.i32(i32, i32, i32, i32, i32, i1)\n"
                   "declare i64 @reptx.shfl.down(i32, i32, i32, i32)\n" +
                   Body;
  llvm::LLVMContext Ctx;
  std::string Error;
  std::unique_ptr<llvm::Module> M = reptx::lifttest::parseIR(IR, Ctx, Error);
  if (!M)
    return "PARSE ERROR: " + Error;
  reptx::backend::dropUnobservedNaNCanonicalization(*M->getFunction("f"));
  std::string Broken;
  llvm::raw_string_ostream BrokenOS(Broken);
  if (llvm::verifyModule(*M, &BrokenOS))
    return "INVALID: " + Broken;
  std::string Out;
  for (llvm::Instruction &I : llvm::instructions(*M->getFunction("f")))
    if (llvm::isa<llvm::SelectInst>(I))
      Out += (Out.empty() ? "" : " ") + I.getName().str();
  return Out;
}

// One canonicalizing step: %<name> = the canonical select of %<name>.m = OP(A, B), its test
// written as InstCombine leaves it (fcmp uno x, 0.0).
std::string step(const std::string &Name, const std::string &A, const std::string &B,
                 const std::string &Op = "maximumnum") {
  return "  %" + Name + ".m = call float @llvm." + Op + ".f32(float " + A + ", float " + B +
         ")\n  %" + Name + ".u = fcmp uno float %" + Name + ".m, 0.0\n  %" + Name +
         " = select i1 %" + Name + ".u, float 0x7FFFFFFFE0000000, float %" + Name + ".m\n";
}

// A warp max-reduction as ir/ lifts it after the shuffle specialization: every step's value is
// moved to another lane (DPP, or the shfl helper) and used by the next max; only the last one is
// stored.
TEST(MinMaxNaN, ReductionKeepsOnlyTheLastCanonicalization) {
  std::string Body =
      "define void @f(float %x, ptr addrspace(1) %p) {\nentry:\n" + step("s1", "%x", "%x") +
      "  %b1 = bitcast float %s1 to i32\n"
      "  %d1 = call i32 @llvm.amdgcn.update.dpp.i32(i32 poison, i32 %b1, i32 177, "
      "i32 15, i32 15, i1 true)\n"
      "  %f1 = bitcast i32 %d1 to float\n" +
      step("s2", "%s1", "%f1") +
      "  %b2 = bitcast float %s2 to i32\n"
      "  %h = call i64 @reptx.shfl.down(i32 %b2, i32 1, i32 31, i32 -1)\n"
      "  %t = trunc i64 %h to i32\n  %hi = lshr i64 %h, 32\n"
      "  %f2 = bitcast i32 %t to float\n" +
      step("s3", "%s2", "%f2") + "  store float %s3, ptr addrspace(1) %p\n  ret void\n}\n";
  EXPECT_EQ(selectsLeft(Body), "s3");
}

// A value that is also stored, or bit-cast and operated on, or added, or given to maxnum keeps
// its select; one that goes through fabs, a comparison, a phi or a min with the same property
// loses it.
TEST(MinMaxNaN, ObservedValuesKeepTheirCanonicalNaN) {
  std::string Body =
      "define void @f(float %x, float %y, i1 %c, ptr addrspace(1) %p) {\nentry:\n" +
      step("stored", "%x", "%y") + "  store float %stored, ptr addrspace(1) %p\n" +
      step("bits", "%x", "%y") + "  %i = bitcast float %bits to i32\n  %j = xor i32 %i, 1\n" +
      "  store i32 %j, ptr addrspace(1) %p\n" + step("added", "%x", "%y") +
      "  %a = fadd float %added, 1.0\n  store float %a, ptr addrspace(1) %p\n" +
      step("viafabs", "%x", "%y") + "  %fa = call float @llvm.fabs.f32(float %viafabs)\n" +
      step("afterfabs", "%fa", "%y", "minimumnum") +
      "  store float %afterfabs, ptr addrspace(1) %p\n" + step("cmp", "%x", "%y") +
      "  %lt = fcmp olt float %cmp, %y\n  %z = select i1 %lt, float %x, float %y\n"
      "  store float %z, ptr addrspace(1) %p\n  br i1 %c, label %a1, label %a2\n"
      "a1:\n" +
      step("inphi", "%x", "%y") +
      "  br label %a2\na2:\n  %ph = phi float [ %x, %entry ], [ %inphi, %a1 ]\n" +
      step("last", "%ph", "%y") + "  store float %last, ptr addrspace(1) %p\n" +
      step("tomaxnum", "%x", "%y") +
      "  %mn = call float @llvm.maxnum.f32(float %tomaxnum, float %y)\n"
      "  store float %mn, ptr addrspace(1) %p\n  ret void\n}\n";
  EXPECT_EQ(selectsLeft(Body), "stored bits added afterfabs z last tomaxnum");
}

// The form InstCombine leaves a min/max of a canonicalized value in: OP(select (uno m), NaN, m), y)
// folded to `select (uno m), y, OP(m, y)` (or with `ord` and the arms swapped), which is OP(m, y)
// but for the NaN it gives when both are NaNs: the select goes where that NaN is unobserved (here
// the next step's operand, either order, min or max), and stays where it is stored, where its arm
// is not OP's other operand, and for maxnum (a signaling NaN gives a NaN there).
TEST(MinMaxNaN, SelectsFoldedIntoTheNextMinMax) {
  std::string Body =
      "define void @f(float %x, float %y1, float %y2, float %y3, float %y4, float %y5, "
      "ptr addrspace(1) %p) {\nentry:\n"
      "  %m1 = call float @llvm.maximumnum.f32(float %x, float %y1)\n"
      "  %u1 = fcmp uno float %m1, 0.0\n"
      "  %m2 = call float @llvm.maximumnum.f32(float %m1, float %y2)\n"
      "  %f2 = select i1 %u1, float %y2, float %m2\n"
      "  %u2 = fcmp uno float %f2, 0.0\n"
      "  %m3 = call float @llvm.maximumnum.f32(float %y3, float %f2)\n"
      "  %f3 = select i1 %u2, float %y3, float %m3\n"
      "  %o3 = fcmp ord float %f3, %f3\n"
      "  %m4 = call float @llvm.minimumnum.f32(float %f3, float %y4)\n"
      "  %f4 = select i1 %o3, float %m4, float %y4\n" +
      step("last", "%f4", "%y5") +
      "  store float %last, ptr addrspace(1) %p\n"
      "  %stored = select i1 %u1, float %y2, float %m2\n"
      "  store float %stored, ptr addrspace(1) %p\n"
      "  %wrongarm = select i1 %u1, float %y5, float %m2\n"
      "  %w = call float @llvm.maximumnum.f32(float %wrongarm, float %y5)\n"
      "  %mn = call float @llvm.maxnum.f32(float %m1, float %y2)\n"
      "  %withmaxnum = select i1 %u1, float %y2, float %mn\n"
      "  %v = call float @llvm.maximumnum.f32(float %w, float %withmaxnum)\n" +
      step("end", "%v", "%y1") + "  store float %end, ptr addrspace(1) %p\n  ret void\n}\n";
  EXPECT_EQ(selectsLeft(Body), "last stored wrongarm withmaxnum end");
}

} // namespace
