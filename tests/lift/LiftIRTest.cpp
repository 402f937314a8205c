// IR-level tests of the lifter (the lifted form of edge cases, named in each test), per-kernel
// isolation of unsupported instructions, and the code objects the backend writes for all five
// targets (kernels, kernarg layout, LDS, wave size, work-group size bounds, no scratch).
#include "LiftTestUtil.h"

#include "llvm/IR/CallingConv.h"
#include "llvm/IR/ConstantRange.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <regex>
#include <set>
#include <string>

using namespace reptx;
using namespace reptx::lifttest;

namespace {

// A one-kernel module around BODY, with registers of every common type declared.
std::string kernel(const std::string &Body, const std::string &Name = "k") {
  return ".version 8.0\n.target sm_80\n.address_size 64\n"
         ".visible .entry " +
         Name +
         "(.param .u64 out)\n{\n"
         ".reg .pred %p<4>;\n.reg .b16 %h<4>;\n.reg .b32 %r<8>;\n.reg .b64 %rd<8>;\n"
         ".reg .f32 %f<8>;\n.reg .f64 %fd<4>;\n" +
         Body + "\nret;\n}\n";
}

// The lifted IR of one kernel, as text.
std::string liftedIR(const std::string &Body) {
  auto L = lift("t.ptx", kernel(Body));
  if (!L)
    return "ERROR: " + llvm::toString(L.takeError());
  if (!(*L)->R.Failures.empty())
    return "ERROR: " + (*L)->R.Failures[0].Message;
  std::string S;
  llvm::raw_string_ostream OS(S);
  (*L)->R.M->print(OS, nullptr);
  return S;
}

#define EXPECT_IR_HAS(IR, Needle) EXPECT_NE((IR).find(Needle), std::string::npos) << (IR)
#define EXPECT_IR_LACKS(IR, Needle) EXPECT_EQ((IR).find(Needle), std::string::npos) << (IR)

TEST(LiftIR, MulHiSignedSignExtendsUnsignedZeroExtends) {
  // mul.hi.s32 of -1 and 1 is -1 (0xffffffff); mul.hi.u32 of the same bits is 0.
  std::string S = liftedIR("mul.hi.s32 %r1, %r2, %r3;");
  EXPECT_IR_HAS(S, "sext i32");
  EXPECT_IR_HAS(S, "mul i64");
  EXPECT_IR_HAS(S, "lshr i64");
  std::string U = liftedIR("mul.hi.u32 %r1, %r2, %r3;");
  EXPECT_IR_HAS(U, "zext i32");
  EXPECT_IR_LACKS(U, "sext");
}

TEST(LiftIR, MulWideProducesDoubleWidth) {
  std::string S = liftedIR("mul.wide.s32 %rd1, %r2, %r3;");
  EXPECT_IR_HAS(S, "sext i32");
  EXPECT_IR_HAS(S, "mul i64");
  std::string M = liftedIR("mad.wide.u32 %rd1, %r2, %r3, %rd2;");
  EXPECT_IR_HAS(M, "zext i32");
  EXPECT_IR_HAS(M, "add i64");
}

TEST(LiftIR, ShrSignedClampsAmountUnsignedGivesZero) {
  // shr.s32 by 40 fills with the sign bit (amount clamped to 31); shr.u32 and shl by 40 give 0.
  std::string S = liftedIR("shr.s32 %r1, %r2, %r3;");
  EXPECT_IR_HAS(S, "ashr i32");
  EXPECT_IR_HAS(S, "@llvm.umin.i32(i32 %");
  EXPECT_IR_HAS(S, ", i32 31)");
  std::string U = liftedIR("shr.u32 %r1, %r2, %r3;");
  EXPECT_IR_HAS(U, "lshr i32");
  EXPECT_IR_HAS(U, "icmp uge i32");
  EXPECT_IR_HAS(U, "select i1");
  std::string L = liftedIR("shl.b64 %rd1, %rd2, %r3;");
  EXPECT_IR_HAS(L, "icmp uge i32");
  EXPECT_IR_HAS(L, ", 64");
  EXPECT_IR_HAS(L, "shl i64");
}

TEST(LiftIR, IntegerDivisionGuardsZeroAndOverflow) {
  // div.u32 by 0 gives 0xffffffff, rem by 0 gives the dividend; div.s32 INT_MIN/-1 wraps to
  // INT_MIN: the divisor is replaced by 1 in those cases, so LLVM never sees the undefined forms.
  std::string U = liftedIR("div.u32 %r1, %r2, %r3;");
  EXPECT_IR_HAS(U, "icmp eq i32");
  EXPECT_IR_HAS(U, "udiv i32");
  EXPECT_IR_HAS(U, "i32 -1");
  std::string S = liftedIR("div.s32 %r1, %r2, %r3;");
  EXPECT_IR_HAS(S, ", -2147483648");
  EXPECT_IR_HAS(S, "sdiv i32");
  std::string R = liftedIR("rem.s64 %rd1, %rd2, %rd3;");
  EXPECT_IR_HAS(R, "srem i64");
  EXPECT_IR_HAS(R, ", -9223372036854775808");
  // popc/clz of a .b64 return a 32-bit count; clz(0) = 64 (ctlz with zero defined).
  std::string C = liftedIR("clz.b64 %r1, %rd1;");
  EXPECT_IR_HAS(C, "@llvm.ctlz.i64(i64 %");
  EXPECT_IR_HAS(C, ", i1 false)");
  EXPECT_IR_HAS(C, "trunc i64");
  EXPECT_IR_HAS(liftedIR("brev.b32 %r1, %r2;"), "@llvm.bitreverse.i32");
}

TEST(LiftIR, MovPackAndUnpack) {
  // mov.b64 %rd, {lo, hi}: element 0 is the low half; the unpack form splits it again.
  std::string P = liftedIR("mov.b64 %rd1, {%r1, %r2};");
  EXPECT_IR_HAS(P, "zext i32");
  EXPECT_IR_HAS(P, "shl i64");
  EXPECT_IR_HAS(P, ", 32");
  std::string U = liftedIR("mov.b64 {%r1, %r2}, %rd1;\nmov.b32 {%h1, _}, %r3;");
  EXPECT_IR_HAS(U, "lshr i64");
  EXPECT_IR_HAS(U, "trunc i64");
  EXPECT_IR_HAS(U, "trunc i32");
}

TEST(LiftIR, AtomicsOrderingAndWrap) {
  std::string S = liftedIR("atom.global.inc.u32 %r1, [%rd1], 7;\n"
                           "atom.acquire.gpu.shared.dec.u32 %r2, [%r3], 9;\n"
                           "red.release.global.add.f32 [%rd1], %f1;\n"
                           "atom.acq_rel.cas.b64 %rd2, [%rd3], %rd4, %rd5;\n"
                           "atom.global.max.s32 %r4, [%rd1], %r5;");
  EXPECT_IR_HAS(S, "atomicrmw uinc_wrap ptr addrspace(1)");
  EXPECT_IR_HAS(S, "atomicrmw udec_wrap ptr addrspace(3)");
  EXPECT_IR_HAS(S, "i32 9 syncscope(\"gpu\") acquire");
  EXPECT_IR_HAS(S, "atomicrmw fadd ptr addrspace(1)");
  EXPECT_IR_HAS(S, "release");
  EXPECT_IR_HAS(S, "cmpxchg ptr %");
  EXPECT_IR_HAS(S, "syncscope(\"gpu\") acq_rel acquire"); // no scope written: .gpu
  EXPECT_IR_HAS(S, "atomicrmw max ptr addrspace(1)");
  EXPECT_IR_HAS(S, "monotonic");
}

TEST(LiftIR, SetpComparisons) {
  // Float: ordered (false on NaN) versus unordered (true on NaN); ne is ordered in PTX.
  EXPECT_IR_HAS(liftedIR("setp.ltu.f32 %p1, %f1, %f2;"), "fcmp ult float");
  EXPECT_IR_HAS(liftedIR("setp.lt.f32 %p1, %f1, %f2;"), "fcmp olt float");
  EXPECT_IR_HAS(liftedIR("setp.ne.f32 %p1, %f1, %f2;"), "fcmp one float");
  EXPECT_IR_HAS(liftedIR("setp.neu.f64 %p1, %fd1, %fd2;"), "fcmp une double");
  EXPECT_IR_HAS(liftedIR("setp.nan.f32 %p1, %f1, %f2;"), "fcmp uno float");
  EXPECT_IR_HAS(liftedIR("setp.num.f32 %p1, %f1, %f2;"), "fcmp ord float");
  // Integers: signedness from the type; lo/hs are unsigned even on .s32.
  EXPECT_IR_HAS(liftedIR("setp.lt.s32 %p1, %r1, %r2;"), "icmp slt i32");
  EXPECT_IR_HAS(liftedIR("setp.lt.u32 %p1, %r1, %r2;"), "icmp ult i32");
  EXPECT_IR_HAS(liftedIR("setp.lo.s32 %p1, %r1, %r2;"), "icmp ult i32");
  EXPECT_IR_HAS(liftedIR("setp.hs.u64 %p1, %rd1, %rd2;"), "icmp uge i64");
}

TEST(LiftIR, SetpBoolCombineAndDualDestination) {
  // setp.lt.and.s32 p|q, a, b, !c: p = (a<b) & !c, q = !(a<b) & !c.
  std::string S = liftedIR("setp.lt.and.s32 %p1|%p2, %r1, %r2, !%p3;");
  EXPECT_IR_HAS(S, "icmp slt i32");
  EXPECT_IR_HAS(S, "xor i1");
  EXPECT_IR_HAS(S, "and i1");
}

TEST(LiftIR, GuardedInstructionRunsInItsOwnBlock) {
  std::string S = liftedIR("@!%p1 add.s32 %r1, %r2, 1;");
  EXPECT_IR_HAS(S, "br i1");
  EXPECT_IR_HAS(S, "add i32");
}

TEST(LiftIR, FloatDivisionForms) {
  // .rn: the IEEE quotient; .approx/.full: fdiv with a 2 ulp !fpmath bound.
  std::string Rn = liftedIR("div.rn.f32 %f1, %f2, %f3;");
  EXPECT_IR_HAS(Rn, "fdiv float");
  EXPECT_IR_LACKS(Rn, "!fpmath");
  std::string Approx = liftedIR("div.approx.f32 %f1, %f2, %f3;");
  EXPECT_IR_HAS(Approx, "!fpmath");
  EXPECT_IR_HAS(liftedIR("div.rn.f64 %fd1, %fd2, %fd3;"), "fdiv double");
}

TEST(LiftIR, FloatMinMaxAndModifiers) {
  EXPECT_IR_HAS(liftedIR("min.f32 %f1, %f2, %f3;"), "@llvm.minimumnum.f32");
  EXPECT_IR_HAS(liftedIR("max.NaN.f32 %f1, %f2, %f3;"), "@llvm.maximum.f32");
  EXPECT_IR_HAS(liftedIR("fma.rn.f32 %f1, %f2, %f3, %f4;"), "@llvm.fma.f32");
  EXPECT_IR_HAS(liftedIR("neg.f32 %f1, %f2;"), "fneg float");
  EXPECT_IR_HAS(liftedIR("abs.f64 %fd1, %fd2;"), "@llvm.fabs.f64");
  // .ftz flushes subnormal inputs and results to a zero of the same sign.
  std::string Ftz = liftedIR("add.ftz.f32 %f1, %f2, %f3;");
  EXPECT_IR_HAS(Ftz, "@llvm.copysign.f32");
  EXPECT_IR_HAS(Ftz, "0x3810000000000000"); // FLT_MIN
  // .sat clamps to [0, 1] with NaN to 0.
  std::string Sat = liftedIR("mul.sat.f32 %f1, %f2, %f3;");
  EXPECT_IR_HAS(Sat, "@llvm.maxnum.f32");
  EXPECT_IR_HAS(Sat, "@llvm.minnum.f32");
}

TEST(LiftIR, SqrtReciprocalAndApproximations) {
  // .rn is correctly rounded (no fast-math flags); .approx is afn, the native approximation.
  std::string Rn = liftedIR("sqrt.rn.f32 %f1, %f2;\nrcp.rn.f64 %fd1, %fd2;");
  EXPECT_IR_HAS(Rn, "call float @llvm.sqrt.f32");
  EXPECT_IR_HAS(Rn, "fdiv double 1.0");
  EXPECT_IR_LACKS(Rn, "afn");
  std::string Ap = liftedIR("rsqrt.approx.ftz.f32 %f1, %f2;\nlg2.approx.f32 %f3, %f4;\n"
                            "ex2.approx.f32 %f5, %f6;\nsin.approx.f32 %f1, %f1;\n"
                            "rcp.approx.ftz.f64 %fd1, %fd2;");
  EXPECT_IR_HAS(Ap, "call afn float @llvm.sqrt.f32");
  EXPECT_IR_HAS(Ap, "fdiv afn float 1.0");
  EXPECT_IR_HAS(Ap, "call afn float @llvm.log2.f32");
  EXPECT_IR_HAS(Ap, "call afn float @llvm.exp2.f32");
  EXPECT_IR_HAS(Ap, "call afn float @llvm.sin.f32");
  EXPECT_IR_HAS(Ap, "fdiv afn double 1.0");
  EXPECT_IR_HAS(Ap, "@llvm.copysign.f32"); // .ftz on f32
}

TEST(LiftIR, VariableInitializers) {
  std::string Text =
      ".version 8.0\n.target sm_80\n.address_size 64\n"
      ".const .align 4 .s32 tab[4] = {-1, 2};\n"
      ".global .align 4 .f32 f[2] = {0f3F800000, 0d4000000000000000};\n"
      ".global .u64 p = generic(tab);\n"
      ".visible .entry k(.param .u64 o)\n{\n.reg .b32 %r<3>;\n"
      "ld.const.u32 %r1, [tab+4];\nld.global.u32 %r2, [f+4];\nret;\n}\n"
      ".visible .entry q()\n{\n.reg .b64 %rd<2>;\nld.global.u64 %rd1, [p];\nret;\n}\n";
  LIFT_ASSERT_OK_AND_ASSIGN(L, lift("init.ptx", Text));
  // -1 as four bytes, then 2, then zero padding; floats converted to the element type (2.0f).
  std::string S;
  llvm::raw_string_ostream OS(S);
  L->R.M->print(OS, nullptr);
  // Module variables keep their symbols and stay writable: the host reaches them by name
  // (cudaMemcpyToSymbol, cuModuleGetGlobal) whether or not the PTX says .visible.
  EXPECT_IR_HAS(S, "@tab = addrspace(4) global [16 x i8] "
                   "c\"\\FF\\FF\\FF\\FF\\02\\00\\00\\00\\00\\00\\00\\00\\00\\00\\00\\00\"");
  EXPECT_IR_HAS(S, "@f = addrspace(1) global [8 x i8] c\"\\00\\00\\80?\\00\\00\\00@\"");
  // An address initializer becomes a relocated constant: generic(tab) is tab's address.
  EXPECT_IR_HAS(S, "@p = addrspace(1) global <{ i64 }> <{ i64 ptrtoint (ptr addrspace(4) @tab to "
                   "i64) }>");
  EXPECT_TRUE(L->R.Failures.empty());
  EXPECT_EQ(L->R.Kernels, (std::vector<std::string>{"k", "q"}));
}

TEST(LiftIR, ConvertRoundingAndSaturation) {
  // Float to int: round as asked, then saturate (NaN gives 0): fptosi.sat / fptoui.sat.
  std::string Rni = liftedIR("cvt.rni.s32.f32 %r1, %f1;");
  EXPECT_IR_HAS(Rni, "@llvm.roundeven.f32");
  EXPECT_IR_HAS(Rni, "@llvm.fptosi.sat.i32.f32");
  EXPECT_IR_HAS(liftedIR("cvt.rmi.u32.f32 %r1, %f1;"), "@llvm.fptoui.sat.i32.f32");
  EXPECT_IR_HAS(liftedIR("cvt.rpi.s64.f64 %rd1, %fd1;"), "@llvm.ceil.f64");
  // Narrow integer sources are read at their own width: cvt.s32.s8 sign-extends the low byte.
  std::string S8 = liftedIR("cvt.s32.s8 %r1, %r2;");
  EXPECT_IR_HAS(S8, "trunc i32");
  EXPECT_IR_HAS(S8, "sext i8");
  // Integer saturation clamps to the destination range.
  std::string Sat = liftedIR("cvt.sat.u8.s32 %r1, %r2;");
  EXPECT_IR_HAS(Sat, "@llvm.smax");
  EXPECT_IR_HAS(Sat, "@llvm.smin");
  EXPECT_IR_HAS(liftedIR("cvt.rn.f32.f64 %f1, %fd1;"), "fptrunc double");
  EXPECT_IR_HAS(liftedIR("cvt.f64.f32 %fd1, %f1;"), "fpext float");
}

TEST(LiftIR, MemoryAndAddressSpaces) {
  std::string S = liftedIR("ld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd2, %rd1;\n"
                           "ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd2+16];\n"
                           "st.global.v2.u32 [%rd2], {%r1, %r2};\n"
                           "ld.global.s8 %r3, [%rd2+3];\nst.volatile.global.u16 [%rd2], %h1;");
  EXPECT_IR_HAS(S, "addrspacecast ptr %");
  EXPECT_IR_HAS(S, "to ptr addrspace(1)");
  EXPECT_IR_HAS(S, "load <4 x float>, ptr addrspace(1)");
  EXPECT_IR_HAS(S, "align 16");
  EXPECT_IR_HAS(S, "store <2 x i32>");
  EXPECT_IR_HAS(S, "load i8, ptr addrspace(1)");
  EXPECT_IR_HAS(S, "sext i8"); // ld.s8 into a 32-bit register sign-extends
  EXPECT_IR_HAS(S, "store volatile i16");
}

TEST(LiftIR, SpecialRegistersAndBarrierAreReptxIntrinsics) {
  std::string S = liftedIR("mov.u32 %r1, %tid.y;\nmov.u32 %r2, %nctaid.z;\nbar.sync 0;");
  EXPECT_IR_HAS(S, "call i32 @reptx.tid.y()");
  EXPECT_IR_HAS(S, "call i32 @reptx.nctaid.z()");
  EXPECT_IR_HAS(S, "call void @reptx.barrier.sync()");
  EXPECT_IR_LACKS(S, "amdgcn");
}

// mma.sync and ldmatrix are calls to reptx intrinsics named by shape and operand types
// (Intrinsics.h, "Warp-level matrix instructions"), with the fragment registers as the PTX names
// them: registers a shape does not have are 0, f16 accumulators are widened to f32 around the call
// and rounded back, and every ldmatrix matrix is one call with its index and .trans.
TEST(LiftIR, MatrixInstructionsAreReptxIntrinsics) {
  std::string S =
      liftedIR("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f0, %f1, %f2, %f3}, "
               "{%r0, %r1, %r2, %r3}, {%r4, %r5}, {%f4, %f5, %f6, %f7};");
  EXPECT_IR_HAS(S, "call <4 x float> @reptx.mma.m16n8k16.f16.f16(i32 ");
  EXPECT_IR_LACKS(S, "amdgcn");
  S = liftedIR("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%r6, %r7}, {%r0, %r1}, {%r2}, "
               "{%r4, %r5};");
  EXPECT_IR_HAS(S, "@reptx.mma.m16n8k8.f16.f16(i32 ");
  EXPECT_IR_HAS(S, ", i32 0, i32 0, i32 "); // a2, a3 and b1 do not exist in m16n8k8
  EXPECT_IR_HAS(S, "fpext half");
  EXPECT_IR_HAS(S, "fptrunc float");
  S = liftedIR("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.u8.s32 {%r0, %r1, %r2, %r3}, "
               "{%r4, %r5, %r6, %r7}, {%r4, %r5}, {%r0, %r1, %r2, %r3};");
  EXPECT_IR_HAS(S, "call <4 x i32> @reptx.mma.m16n8k32.s8.u8.satfinite(");
  S = liftedIR("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%fd0, %fd1}, {%fd2}, {%fd3}, "
               "{%fd0, %fd1};");
  EXPECT_IR_HAS(S, "call <2 x double> @reptx.mma.m8n8k4.f64.f64(double ");
  S = liftedIR("ldmatrix.sync.aligned.x4.trans.m8n8.shared.b16 {%r0, %r1, %r2, %r3}, [%r4];");
  size_t Calls = 0;
  for (size_t At = S.find("call i32 @reptx.ldmatrix.b16(ptr addrspace(3) ");
       At != std::string::npos;
       At = S.find("call i32 @reptx.ldmatrix.b16(ptr addrspace(3) ", At + 1))
    ++Calls;
  EXPECT_EQ(Calls, 4u) << S;
  EXPECT_IR_HAS(S, ", i32 0, i1 true)");
  EXPECT_IR_HAS(S, ", i32 3, i1 true)");
  S = liftedIR("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r0}, [%r4];");
  EXPECT_IR_HAS(S, ", i32 0, i1 false)");
  EXPECT_IR_LACKS(S, ", i32 1, i1 false)");
}

// Matrix forms that are not lifted fail their kernel with the reason and the instruction.
TEST(LiftIR, MatrixFormsNotLiftedNameTheirReason) {
  EXPECT_IR_HAS(liftedIR("mma.sync.aligned.m16n8k16.row.row.f32.f16.f16.f32 {%f0, %f1, %f2, %f3}, "
                         "{%r0, %r1, %r2, %r3}, {%r4, %r5}, {%f4, %f5, %f6, %f7};"),
                "only the .row.col layouts are lifted");
  EXPECT_IR_HAS(liftedIR("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f0, %f1, %f2, %f3}, "
                         "{%r0, %r1, %r2}, {%r4, %r5}, {%f4, %f5, %f6, %f7};"),
                "mma: wrong number of fragment registers");
  EXPECT_IR_HAS(liftedIR("mma.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32 {%r0, %r1, %r2, %r3}, "
                         "{%r4, %r5, %r6, %r7}, {%r4, %r5}, {%r0, %r1, %r2, %r3};"),
                "mma with .s4");
  // A shape the type does not have (16-bit operands go up to k16) fails in the lifter, not later
  // for want of a helper.
  EXPECT_IR_HAS(liftedIR("mma.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {%f0, %f1, %f2, %f3}, "
                         "{%r0, %r1, %r2, %r3}, {%r4, %r5}, {%f4, %f5, %f6, %f7};"),
                "mma: shape m16n8k32 is not lifted for .f16");
  EXPECT_IR_HAS(liftedIR("ldmatrix.sync.aligned.m16n16.x1.trans.shared.b8 {%r0, %r1}, [%r4];"),
                "ldmatrix: only .m8n8 .x1/.x2/.x4 .b16 is lifted");
  EXPECT_IR_HAS(liftedIR("wmma.load.a.sync.aligned.row.m8n8k32.shared.s4 {%r0}, [%r4], 32;"),
                "wmma: shape .m8n8k32 with .s4 is not lifted");
  EXPECT_IR_HAS(liftedIR("wmma.load.a.sync.aligned.row.m16n16k16.shared.f16 {%r0, %r1, %r2, %r3}, "
                         "[%r4], 16;"),
                "wmma: wrong number of fragment registers");
  EXPECT_IR_HAS(liftedIR("mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f0, %f1, %f2, "
                         "%f3}, {%r0, %r1}, {%r2, %r3}, {%f4, %f5, %f6, %f7}, %r4, 0x0;"),
                "sparse mma (mma.sp) is not lifted");
  EXPECT_IR_HAS(liftedIR("stmatrix.sync.aligned.m16n8.x1.trans.shared.b8 [%r4], {%r0};"),
                "stmatrix: only .m8n8 .x1/.x2/.x4 .b16 is lifted");
}

// wmma fragments take the mma.sync layouts (LiftMatrix.cpp): wmma.mma is one mma helper call per
// m16n8 tile of the shape (m16n16: 2, m32n8: 2, m8n32: 4), and loads and stores are per-lane
// accesses in the instruction's state space.
TEST(LiftIR, WmmaIsMmaSyncOnM16n8Tiles) {
  auto Count = [](const std::string &S, const std::string &Needle) {
    size_t N = 0;
    for (size_t At = S.find(Needle); At != std::string::npos; At = S.find(Needle, At + 1))
      ++N;
    return N;
  };
  std::string R8 = "{%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}";
  std::string F8 = "{%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7}";
  for (auto [Shape, Calls] :
       {std::pair<std::string, size_t>{"m16n16k16", 2}, {"m32n8k16", 2}, {"m8n32k16", 4}}) {
    std::string S = liftedIR("wmma.mma.sync.aligned.row.col." + Shape + ".f32.f32 " + F8 + ", " +
                             R8 + ", " + R8 + ", " + F8 + ";");
    EXPECT_EQ(Count(S, "call <4 x float> @reptx.mma.m16n8k16.f16.f16("), Calls) << Shape << S;
  }
  std::string S = liftedIR("wmma.mma.sync.aligned.row.col.m16n16k16.s32.s8.s8.s32.satfinite " + R8 +
                           ", {%r0, %r1}, {%r2, %r3}, " + R8 + ";");
  EXPECT_EQ(Count(S, "call <4 x i32> @reptx.mma.m16n8k16.s8.s8.satfinite("), 2u) << S;
  S = liftedIR("wmma.load.a.sync.aligned.col.m16n16k16.shared.f16 " + R8 + ", [%r4], 24;");
  EXPECT_IR_HAS(S, "load i16, ptr addrspace(3)");
  EXPECT_IR_HAS(S, "call i32 @reptx.laneid()");
  S = liftedIR("wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd1], " + F8 + ";");
  EXPECT_IR_HAS(S, "store i32 ");
  EXPECT_IR_HAS(S, "ptr addrspace(1)");
  S = liftedIR("wmma.mma.sync.aligned.row.col.m8n8k4.f64.f64.f64.f64.rn {%fd0, %fd1}, {%fd2}, "
               "{%fd3}, {%fd0, %fd1};");
  EXPECT_IR_HAS(S, "call <2 x double> @reptx.mma.m8n8k4.f64.f64(double ");
}

// %reserved_smem_offset_*: a 1 KiB shared block of the module's own, offset 1 at its middle (where
// cooperative groups keep multi-warp tile barriers); cap is the size, end its end.
TEST(LiftIR, ReservedSharedMemoryOffsetsAddressOneLdsBlock) {
  std::string S = liftedIR("mov.u32 %r1, %reserved_smem_offset_0;\n"
                           "mov.u32 %r2, %reserved_smem_offset_1;\n"
                           "mov.u32 %r3, %reserved_smem_offset_begin;\n"
                           "mov.u32 %r4, %reserved_smem_offset_end;\n"
                           "mov.u32 %r5, %reserved_smem_offset_cap;\n"
                           "ld.param.u64 %rd1, [out];\nst.u32 [%rd1], %r1;\nst.u32 [%rd1+4], %r2;\n"
                           "st.u32 [%rd1+8], %r3;\nst.u32 [%rd1+12], %r4;\nst.u32 [%rd1+16], %r5;");
  EXPECT_IR_HAS(S,
                "@reptx.reserved_smem = internal addrspace(3) global [1024 x i8] poison, align 16");
  EXPECT_IR_HAS(S, "store i32 ptrtoint (ptr addrspace(3) @reptx.reserved_smem to i32), ptr "
                   "addrspace(5) %r1");
  EXPECT_IR_HAS(S, "store i32 add (i32 ptrtoint (ptr addrspace(3) @reptx.reserved_smem to i32), "
                   "i32 512), ptr addrspace(5) %r2");
  EXPECT_IR_HAS(S, "store i32 ptrtoint (ptr addrspace(3) @reptx.reserved_smem to i32), ptr "
                   "addrspace(5) %r3");
  EXPECT_IR_HAS(S, "store i32 add (i32 ptrtoint (ptr addrspace(3) @reptx.reserved_smem to i32), "
                   "i32 1024), ptr addrspace(5) %r4");
  EXPECT_IR_HAS(S, "store i32 1024, ptr addrspace(5) %r5");
  // One block, however many reads.
  EXPECT_EQ(S.find("@reptx.reserved_smem ="), S.rfind("@reptx.reserved_smem ="));
  std::string Bad = liftedIR("mov.u32 %r1, %reserved_smem_offset_2;");
  EXPECT_IR_HAS(Bad, "ERROR:");
}

// %envregN: word N of the module's `reptx.envreg` (32 words of global memory the loader writes;
// a cooperative launch's grid workspace in words 1 and 2), an invariant load; %pmN reads 0.
TEST(LiftIR, EnvRegsReadTheLoadersWords) {
  std::string S = liftedIR("mov.u32 %r1, %envreg1;\nmov.u32 %r2, %envreg2;\n"
                           "mov.u32 %r3, %pm3;\nld.param.u64 %rd1, [out];\n"
                           "st.u32 [%rd1], %r1;\nst.u32 [%rd1+4], %r2;\nst.u32 [%rd1+8], %r3;");
  EXPECT_IR_HAS(S, "@reptx.envreg = addrspace(1) global [32 x i32] zeroinitializer, align 4");
  EXPECT_IR_HAS(S, "load i32, ptr addrspace(1) getelementptr inbounds ([32 x i32], ptr "
                   "addrspace(1) @reptx.envreg, i32 0, i32 1), align 4, !invariant.load");
  EXPECT_IR_HAS(S, "load i32, ptr addrspace(1) getelementptr inbounds ([32 x i32], ptr "
                   "addrspace(1) @reptx.envreg, i32 0, i32 2), align 4, !invariant.load");
  EXPECT_IR_HAS(S, "store i32 0, ptr addrspace(5) %r3");
  EXPECT_EQ(std::string(ir::EnvRegVariable), "reptx.envreg");
}

// An .extern variable declared by one -rdc unit and defined by another, in the module the loader
// links from them (frontend-ptx/lib/PtxLink.cpp): the definition is the variable, whichever comes
// first and whatever type and size the declaration gives (NCCL declares `.b8 ncclDevFuncTable[]`
// for a
// `.u64` table of 671 function addresses). With no definition the kernel fails, naming it.
TEST(LiftIR, ExternVariableIsTheDefinitionOfAnotherUnit) {
  const std::string Decl = ".extern .global .align 8 .b8 tbl[];\n";
  const std::string Def = ".visible .global .align 8 .u64 tbl[2] = {3, 4};\n";
  const std::string Kernel =
      ".visible .entry k(.param .u64 out)\n{\n.reg .b64 %rd<4>;\n"
      "ld.param.u64 %rd1, [out];\nmov.u64 %rd2, tbl;\n"
      "ld.global.u64 %rd3, [%rd2+8];\nst.global.u64 [%rd1], %rd3;\nret;\n}\n";
  const std::string Head = ".version 8.0\n.target sm_80\n.address_size 64\n";
  for (const std::string &Text :
       {Head + Def + Decl + Kernel, Head + Decl + Def + Kernel, Head + Decl + Kernel + Def}) {
    auto L = lift("t.ptx", Text);
    ASSERT_TRUE(bool(L)) << llvm::toString(L.takeError());
    ASSERT_TRUE((*L)->R.Failures.empty()) << (*L)->R.Failures[0].Message << "\n" << Text;
    std::string S;
    llvm::raw_string_ostream OS(S);
    (*L)->R.M->print(OS, nullptr);
    EXPECT_IR_HAS(S,
                  "@tbl = addrspace(1) global [16 x i8] c\"\\03\\00\\00\\00\\00\\00\\00\\00\\04");
  }
  auto L = lift("t.ptx", Head + Decl + Kernel);
  ASSERT_TRUE(bool(L)) << llvm::toString(L.takeError());
  ASSERT_EQ((*L)->R.Failures.size(), 1u);
  EXPECT_EQ((*L)->R.Failures[0].Message,
            "t.ptx:9: kernel 'k': variable 'tbl' is .extern and no module linked here defines it: "
            "'mov.u64 %rd2, tbl;'");
}

// A `__managed__` variable is not in the module: kernels load its address from a pointer slot
// the loader fills (ir::ManagedSlotSuffix), for `ld`/`st` through it and for its address taken
// with `mov`; an initializer that holds its address is refused, since the loader chooses it.
TEST(LiftIR, ManagedVariablesAreReachedThroughTheirSlot) {
  const std::string Head = ".version 8.0\n.target sm_80\n.address_size 64\n"
                           ".global .attribute(.managed) .align 4 .u32 ctr = 7;\n";
  const std::string Kernel = ".visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<3>;\n"
                             ".reg .b64 %rd<4>;\nld.param.u64 %rd1, [out];\n"
                             "ld.global.u32 %r1, [ctr+4];\nadd.s32 %r2, %r1, 1;\n"
                             "st.global.u32 [ctr], %r2;\nmov.u64 %rd2, ctr;\n"
                             "st.global.u64 [%rd1], %rd2;\nret;\n}\n";
  auto L = lift("t.ptx", Head + Kernel);
  ASSERT_TRUE(bool(L)) << llvm::toString(L.takeError());
  ASSERT_TRUE((*L)->R.Failures.empty()) << (*L)->R.Failures[0].Message;
  std::string S;
  llvm::raw_string_ostream OS(S);
  (*L)->R.M->print(OS, nullptr);
  EXPECT_IR_HAS(S, "@ctr.reptx.managed = addrspace(1) global ptr addrspace(1) null, align 8");
  EXPECT_IR_LACKS(S, "@ctr =");
  EXPECT_IR_HAS(S, "load ptr addrspace(1), ptr addrspace(1) @ctr.reptx.managed, align 8, "
                   "!invariant.load");
  EXPECT_IR_HAS(S, "getelementptr i8, ptr addrspace(1) %ctr, i64 4");
  EXPECT_IR_HAS(S, "ptrtoint ptr addrspace(1) %ctr");
  EXPECT_EQ(std::string(ir::ManagedSlotSuffix), ".reptx.managed");

  std::string UsesWhere = Kernel;
  UsesWhere.replace(UsesWhere.find("mov.u64 %rd2, ctr;"), 18, "ld.global.u64 %rd2, [where];");
  auto Bad = lift("t.ptx", Head + ".global .align 8 .u64 where = ctr;\n" + UsesWhere);
  ASSERT_TRUE(bool(Bad)) << llvm::toString(Bad.takeError());
  ASSERT_FALSE((*Bad)->R.Failures.empty());
  EXPECT_NE((*Bad)->R.Failures[0].Message.find(
                "initializer refers to the __managed__ variable 'ctr', whose address the loader "
                "chooses"),
            std::string::npos)
      << (*Bad)->R.Failures[0].Message;
}

TEST(LiftIR, UnsupportedInstructionFailsOnlyItsKernel) {
  // Kernel "bad" uses an instruction this slice does not lift; "good" must still lift.
  std::string Text = ".version 8.0\n.target sm_80\n.address_size 64\n"
                     ".visible .entry bad(.param .u32 x)\n{\n.reg .b32 %r<3>;\n"
                     "ld.param.u32 %r1, [x];\n"
                     "getctarank.shared::cluster.u32 %r2, %r1;\n"
                     "ret;\n}\n"
                     ".visible .entry good(.param .u32 x)\n{\nret;\n}\n";
  LIFT_ASSERT_OK_AND_ASSIGN(L, lift("iso.ptx", Text));
  ASSERT_EQ(L->R.Failures.size(), 1u);
  EXPECT_EQ(L->R.Failures[0].Kernel, "bad");
  const std::string &Msg = L->R.Failures[0].Message;
  EXPECT_NE(Msg.find("iso.ptx:8"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("kernel 'bad'"), std::string::npos) << Msg;
  EXPECT_NE(Msg.find("getctarank.shared::cluster.u32 %r2, %r1;"), std::string::npos) << Msg;
  ASSERT_EQ(L->R.Kernels.size(), 1u);
  EXPECT_EQ(L->R.Kernels[0], "good");
  EXPECT_EQ(L->R.M->getFunction("bad"), nullptr);
  // And the survivor compiles.
  backend::CompileOptions Opts;
  auto Obj = backend::compile(*L->R.M, Opts);
  ASSERT_TRUE(static_cast<bool>(Obj)) << llvm::toString(Obj.takeError());
  EXPECT_EQ(Obj->Kernels, std::vector<std::string>{"good"});
}

// Labels are scoped by { } blocks (LiftExec.ConstantExpressionsParameterizedNamesAndScopedLabels
// runs sibling and nested ones). A branch from outside every block that declares its label, which
// ptxas rejects ("Unknown symbol"), still goes to the only label of that name; with two, the kernel
// fails instead of branching to either.
TEST(LiftIR, BranchToALabelOfSeveralOuterBlocksFails) {
  std::string Body = "bra.uni L1;\n{\nL1:\nadd.u32 %r1, %r1, 1;\n}\n";
  EXPECT_IR_LACKS(liftedIR(Body), "ERROR");
  EXPECT_EQ(liftedIR(Body + "{\nL1:\nadd.u32 %r1, %r1, 2;\n}"),
            "ERROR: t.ptx:4: kernel 'k': a branch to label 'L1', which several { } blocks declare, "
            "none of them around the branch");
}

// A special register read as a type it cannot become (no f64 holds %ctaid's 32 bits) fails the
// kernel with its file, line, name and instruction, like any other operand error.
TEST(LiftIR, SpecialRegisterOfAnIncompatibleTypeNamesTheKernel) {
  EXPECT_EQ(liftedIR("mov.f64 %fd1, %ctaid.x;"),
            "ERROR: t.ptx:12: kernel 'k': %ctaid read as an incompatible type: "
            "'mov.f64 %fd1, %ctaid.x;'");
}

TEST(LiftIR, KernelParametersKeepPtxAlignment) {
  // A by-value structure `.param .align 8 .b8 s[24]` becomes [3 x i64] (8-byte aligned).
  std::string Text = ".version 8.0\n.target sm_80\n.address_size 64\n"
                     ".visible .entry k(.param .u32 a, .param .align 8 .b8 s[24], .param .f32 f)\n"
                     "{\n.reg .b32 %r<3>;\nld.param.u32 %r1, [s+12];\nret;\n}\n";
  LIFT_ASSERT_OK_AND_ASSIGN(L, lift("p.ptx", Text));
  ASSERT_TRUE(L->R.Failures.empty()) << L->R.Failures[0].Message;
  llvm::Function *F = L->R.M->getFunction("k");
  ASSERT_NE(F, nullptr);
  std::string S;
  llvm::raw_string_ostream OS(S);
  F->getFunctionType()->print(OS);
  EXPECT_EQ(S, "void (i32, [3 x i64], float)");
}

TEST(Backend, WorkGroupSizeFromReqntidAndMaxntid) {
  auto Attr = [](const std::string &Directive) -> std::string {
    std::string Text = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry k() " +
                       Directive + "\n{\nret;\n}\n";
    auto L = lift("w.ptx", Text);
    if (!L)
      return llvm::toString(L.takeError());
    backend::CompileOptions Opts;
    auto M = backend::prepareModule(*(*L)->R.M, Opts);
    if (!M)
      return llvm::toString(M.takeError());
    llvm::Function *F = (*M)->getFunction("k");
    EXPECT_EQ(F->getCallingConv(), llvm::CallingConv::AMDGPU_KERNEL);
    return F->getFnAttribute("amdgpu-flat-work-group-size").getValueAsString().str();
  };
  EXPECT_EQ(Attr(".reqntid 16, 4, 1"), "64,64");
  EXPECT_EQ(Attr(".maxntid 256, 1, 1"), "1,256");
  EXPECT_EQ(Attr(""), "1,1024");
}

// The special registers carry the bounds of a launch (the loader refuses blocks over 1024 by
// 1024 by 64 threads and grids over 2^31 - 1 by 65535 by 65535, as CUDA does), so that the
// optimizer knows, e.g., that %tid.x * 4 stays below 4096.
TEST(Backend, LaunchLimitsBoundTheSpecialRegisters) {
  std::string Text = ".version 8.0\n.target sm_80\n.address_size 64\n"
                     ".visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<7>;\n.reg .b64 %rd<2>;\n"
                     "ld.param.u64 %rd1, [out];\nmov.u32 %r1, %tid.x;\nmov.u32 %r2, %tid.z;\n"
                     "mov.u32 %r3, %ntid.y;\nmov.u32 %r4, %ctaid.x;\nmov.u32 %r5, %ctaid.y;\n"
                     "mov.u32 %r6, %nctaid.x;\nst.global.v4.u32 [%rd1], {%r1, %r2, %r3, %r4};\n"
                     "st.global.v2.u32 [%rd1+16], {%r5, %r6};\nret;\n}\n";
  LIFT_ASSERT_OK_AND_ASSIGN(L, lift("r.ptx", Text));
  ASSERT_TRUE(L->R.Failures.empty()) << L->R.Failures[0].Message;
  backend::CompileOptions Opts; // code object v5: sizes from the implicit kernel arguments
  LIFT_ASSERT_OK_AND_ASSIGN(M, backend::prepareModule(*L->R.M, Opts));
  auto Show = [](const llvm::ConstantRange &R) {
    return "[" + std::to_string(R.getLower().getZExtValue()) + "," +
           std::to_string(R.getUpper().getZExtValue()) + ")";
  };
  std::map<std::string, std::string> Ranges;
  for (llvm::Function &F : *M)
    for (llvm::BasicBlock &B : F)
      for (llvm::Instruction &I : B) {
        if (auto *CI = llvm::dyn_cast<llvm::CallInst>(&I);
            CI && CI->getCalledFunction() && CI->getCalledFunction()->isIntrinsic())
          if (std::optional<llvm::ConstantRange> R = CI->getRange())
            Ranges[CI->getCalledFunction()->getName().str()] = Show(*R);
        if (auto *LI = llvm::dyn_cast<llvm::LoadInst>(&I))
          if (llvm::MDNode *MD = LI->getMetadata(llvm::LLVMContext::MD_range))
            Ranges[F.getName().str()] = Show(llvm::getConstantRangeFromMetadata(*MD));
      }
  EXPECT_EQ(Ranges["llvm.amdgcn.workitem.id.x"], "[0,1024)");
  EXPECT_EQ(Ranges["llvm.amdgcn.workitem.id.z"], "[0,64)");
  EXPECT_EQ(Ranges["llvm.amdgcn.workgroup.id.x"], "[0,2147483647)");
  EXPECT_EQ(Ranges["llvm.amdgcn.workgroup.id.y"], "[0,65535)");
  EXPECT_EQ(Ranges["reptx.ntid.y"], "[1,1025)");
  EXPECT_EQ(Ranges["reptx.nctaid.x"], "[1,2147483648)");
}

TEST(Backend, DivisionLowering) {
  // div.rn.f32 must be the IEEE sequence (v_div_scale/v_div_fmas/v_div_fixup), div.approx.f32
  // the fast reciprocal one. The emulator cannot run the IEEE sequence yet, so float_div.ptx is
  // checked here rather than executed.
  auto Text = readKernelPtx("float_div");
  ASSERT_TRUE(static_cast<bool>(Text)) << llvm::toString(Text.takeError());
  std::string Approx = *Text;
  size_t At = Approx.find("div.rn.f32");
  ASSERT_NE(At, std::string::npos);
  Approx.replace(At, 10, "div.approx.f32");
  for (const char *Arch : {"gfx942", "gfx1100"}) {
    SCOPED_TRACE(Arch);
    for (bool Rn : {true, false}) {
      LIFT_ASSERT_OK_AND_ASSIGN(
          Code, kernelDisassembly("float_div.ptx", Rn ? *Text : Approx, "float_div", Arch));
      std::string Mnemonics;
      for (llvm::StringRef Line : llvm::split(llvm::StringRef(Code).rtrim('\n'), '\n'))
        Mnemonics += Line.take_until([](char C) { return C == ' '; }).str() + "\n";
      for (const char *M : {"v_div_scale_f32\n", "v_div_fmas_f32\n", "v_div_fixup_f32\n"})
        EXPECT_EQ(Mnemonics.find(M) != std::string::npos, Rn) << M << Mnemonics;
      EXPECT_NE(Mnemonics.find("v_rcp_f32"), std::string::npos) << Mnemonics;
    }
  }
}

// shfl.bfly and shfl.idx with constant lanes inside their segments (nvcc moves b and c into
// registers first) are fixed permutations: no ds_bpermute, but DPP (GFX9 quad_perm for xor 1;
// GFX10+ row_xmask for xor 1 and 5), ds_swizzle (GFX9 xor 5 and 16; idx in segments of 8, and
// of 32 on GFX9), v_readlane (GFX10+ idx of the whole warp) and v_permlanex16 (GFX10+ xor 16);
// a shfl.down keeps the helper's ds_bpermute. Their results are checked by execution in the
// conformance suite (warp family).
TEST(Backend, ConstantShufflesBecomeFixedPermutations) {
  std::string Text = ".version 8.0\n.target sm_80\n.address_size 64\n"
                     ".visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<8>;\n.reg .b64 %rd<3>;\n"
                     "ld.param.u64 %rd1, [out];\nmov.u32 %r1, %tid.x;\nmov.u32 %r2, 16;\n"
                     "mov.u32 %r3, 31;\nmov.u32 %r4, -1;\n"
                     "shfl.sync.bfly.b32 %r5, %r1, %r2, %r3, %r4;\nadd.u32 %r1, %r1, %r5;\n"
                     "shfl.sync.bfly.b32 %r5, %r1, 1, 31, -1;\nadd.u32 %r1, %r1, %r5;\n"
                     "shfl.sync.bfly.b32 %r5, %r1, 5, 31, -1;\nadd.u32 %r1, %r1, %r5;\n"
                     "shfl.sync.idx.b32 %r5, %r1, 3, 0x181f, -1;\nadd.u32 %r1, %r1, %r5;\n"
                     "shfl.sync.idx.b32 %r5, %r1, 7, 31, -1;\nadd.u32 %r1, %r1, %r5;\n"
                     "shfl.sync.down.b32 %r5, %r1, 1, 31, -1;\nadd.u32 %r1, %r1, %r5;\n"
                     "mul.wide.u32 %rd2, %r1, 4;\nadd.s64 %rd2, %rd1, %rd2;\n"
                     "st.global.u32 [%rd2], %r1;\nret;\n}\n";
  for (const char *Arch : {"gfx90a", "gfx942", "gfx1030", "gfx1100", "gfx1201"}) {
    SCOPED_TRACE(Arch);
    LIFT_ASSERT_OK_AND_ASSIGN(Code, kernelDisassembly("s.ptx", Text, "k", Arch));
    auto Count = [&](llvm::StringRef What) { return llvm::StringRef(Code).count(What); };
    EXPECT_EQ(Count("ds_bpermute_b32"), 1u) << Code;
    if (llvm::StringRef(Arch).starts_with("gfx9")) {
      EXPECT_EQ(Count("ds_swizzle_b32"), 4u) << Code;
      EXPECT_EQ(Count("v_readlane_b32"), 0u) << Code;
      EXPECT_EQ(Count("quad_perm:[1,0,3,2]"), 1u) << Code;
    } else {
      EXPECT_EQ(Count("ds_swizzle_b32"), 1u) << Code;
      EXPECT_EQ(Count("v_readlane_b32"), 1u) << Code;
      EXPECT_EQ(Count("v_permlanex16_b32"), 1u) << Code;
      EXPECT_EQ(Count("row_xmask:1 "), 1u) << Code;
      EXPECT_EQ(Count("row_xmask:5 "), 1u) << Code;
    }
  }
}

// The code objects of all five targets: every kernel present, kernarg offsets from the .param
// list, LDS size, wave size and .maxntid bound, no scratch.
class Backend : public ::testing::TestWithParam<std::string> {};

TEST_P(Backend, CodeObjectMetadata) {
  auto Text = readKernelPtx("shared_rev");
  ASSERT_TRUE(static_cast<bool>(Text)) << llvm::toString(Text.takeError());
  for (unsigned Cov : {4u, 5u, 6u}) {
    SCOPED_TRACE("code object v" + std::to_string(Cov));
    LIFT_ASSERT_OK_AND_ASSIGN(L, lift("shared_rev.ptx", *Text));
    backend::CompileOptions Opts;
    Opts.Arch = GetParam();
    Opts.CodeObjectVersion = Cov;
    LIFT_ASSERT_OK_AND_ASSIGN(Obj, backend::compile(*L->R.M, Opts));
    EXPECT_EQ(Obj.Kernels, std::vector<std::string>{"shared_rev"});
    LIFT_ASSERT_OK_AND_ASSIGN(CO, emulator::CodeObject::load(Obj.Bytes));
    const emulator::Kernel *K = CO->findKernel("shared_rev");
    ASSERT_NE(K, nullptr);
    EXPECT_EQ(K->GroupSegmentFixedSize, 512u); // __shared__ unsigned tile[128]
    EXPECT_EQ(K->PrivateSegmentFixedSize, 0u);
    EXPECT_EQ(K->MaxFlatWorkgroupSize, 128u); // .maxntid 128, 1, 1
    bool Wave64 = GetParam() == "gfx90a" || GetParam() == "gfx942";
    EXPECT_EQ(K->WavefrontSize, Wave64 ? 64u : 32u);
    std::vector<std::pair<uint32_t, uint32_t>> Explicit;
    for (const emulator::KernelArgInfo &A : K->Args)
      if (!A.isHidden())
        Explicit.push_back({A.Offset, A.Size});
    EXPECT_EQ(Explicit, (std::vector<std::pair<uint32_t, uint32_t>>{{0, 8}, {8, 8}}));
  }
}

INSTANTIATE_TEST_SUITE_P(AllTargets, Backend,
                         ::testing::Values("gfx90a", "gfx942", "gfx1030", "gfx1100", "gfx1201"),
                         [](const auto &Info) { return Info.param; });

TEST(Backend, RejectsUnknownTargetAndVersion) {
  auto Text = readKernelPtx("vector_add");
  ASSERT_TRUE(static_cast<bool>(Text));
  LIFT_ASSERT_OK_AND_ASSIGN(L, lift("vector_add.ptx", *Text));
  backend::CompileOptions Opts;
  Opts.Arch = "gfx803";
  auto Obj = backend::compile(*L->R.M, Opts);
  ASSERT_FALSE(static_cast<bool>(Obj));
  EXPECT_NE(llvm::toString(Obj.takeError()).find("unsupported target"), std::string::npos);
  Opts.Arch = "gfx942";
  Opts.CodeObjectVersion = 3;
  auto Obj3 = backend::compile(*L->R.M, Opts);
  ASSERT_FALSE(static_cast<bool>(Obj3));
  llvm::consumeError(Obj3.takeError());
}

} // namespace

TEST(LiftIR, CopysignTakesTheSignOfTheFirstSource) {
  // copysign.f32 d, a, b is b with a's sign (9.7.3.2): llvm.copysign(b, a), operands swapped.
  std::string S = liftedIR("copysign.f32 %f1, %f2, %f3;");
  // The value loaded from %f3 is the magnitude (first argument), the one from %f2 the sign.
  auto LoadedFrom = [&](const std::string &Reg) {
    size_t At = S.find("= load float, ptr addrspace(5) " + Reg + ",");
    if (At == std::string::npos)
      return std::string("<none>");
    size_t Start = S.rfind('%', At);
    return S.substr(Start, At - 1 - Start);
  };
  EXPECT_IR_HAS(S, "@llvm.copysign.f32(float " + LoadedFrom("%f3") + ", float " +
                       LoadedFrom("%f2") + ")");
}

TEST(LiftIR, MembarAndFenceBecomeFences) {
  EXPECT_IR_HAS(liftedIR("membar.gl;"), "fence syncscope(\"gpu\") seq_cst");
  EXPECT_IR_HAS(liftedIR("membar.cta;"), "fence syncscope(\"cta\") seq_cst");
  EXPECT_IR_HAS(liftedIR("membar.sys;"), "fence seq_cst");
  EXPECT_IR_HAS(liftedIR("fence.sc.gpu;"), "fence syncscope(\"gpu\") seq_cst");
  EXPECT_IR_HAS(liftedIR("fence.acq_rel.sys;"), "fence acq_rel");
}

TEST(LiftIR, OrderedAndInvariantLoads) {
  std::string S = liftedIR("ld.relaxed.gpu.global.u32 %r1, [%rd1];\n"
                           "ld.acquire.cta.shared.u32 %r2, [%r3];\n"
                           "st.release.sys.global.u32 [%rd1], %r2;\n"
                           "ld.global.nc.u32 %r4, [%rd2];\nld.global.u32 %r5, [%rd2];");
  EXPECT_IR_HAS(S, "load atomic i32, ptr addrspace(1) %");
  EXPECT_IR_HAS(S, "syncscope(\"gpu\") monotonic");
  EXPECT_IR_HAS(S, "syncscope(\"cta\") acquire");
  EXPECT_IR_HAS(S, "store atomic i32");
  EXPECT_IR_HAS(S, "!invariant.load");
}

// ld.global.nc data is read-only while the kernel runs (PTX ISA 9.7.9.9): the load joins an
// alias scope that every st/atom/red of the function is marked not to alias, so loads may be
// scheduled above stores. Plain loads and register slots stay unmarked.
TEST(LiftIR, ReadOnlyLoadsDoNotAliasTheKernelsWrites) {
  std::string S = liftedIR("ld.global.nc.f32 %f1, [%rd1];\nst.global.f32 [%rd2], %f1;\n"
                           "ld.global.f32 %f2, [%rd1+4];\natom.global.add.u32 %r1, [%rd2], 1;\n"
                           "red.global.add.f32 [%rd2], %f2;\n"
                           "atom.global.cas.b32 %r2, [%rd2], %r1, 0;\n");
  std::smatch M;
  ASSERT_TRUE(std::regex_search(S, M,
                                std::regex(R"(load float, ptr addrspace\(1\) %[0-9]+, align 4, )"
                                           R"(!invariant.load ![0-9]+, !alias.scope (![0-9]+))")))
      << S;
  std::string Scope = M[1];
  auto Count = [&](const std::string &Re) {
    std::regex R(Re);
    return std::distance(std::sregex_iterator(S.begin(), S.end(), R), std::sregex_iterator());
  };
  EXPECT_EQ(Count("store float .*!noalias " + Scope + "\\b"), 1) << S;
  EXPECT_EQ(Count("atomicrmw add .*!noalias " + Scope + "\\b"), 1) << S;
  EXPECT_EQ(Count("atomicrmw fadd .*!noalias " + Scope + "\\b"), 1) << S;
  EXPECT_EQ(Count("cmpxchg .*!noalias " + Scope + "\\b"), 1) << S;
  EXPECT_EQ(Count("!alias.scope"), 1) << S;         // the plain load is not in the scope
  EXPECT_EQ(Count("store i32 .*!noalias"), 0) << S; // register writes are not memory writes
  // Without read-only loads the writes carry no scope.
  std::string Plain = liftedIR("ld.global.f32 %f1, [%rd1];\nst.global.f32 [%rd2], %f1;\n"
                               "atom.global.add.u32 %r1, [%rd2], 1;\n");
  EXPECT_EQ(Plain.find("!noalias"), std::string::npos) << Plain;
}

TEST(LiftIR, CarryChainsKeepTheCarryFlagInOneSlot) {
  std::string S = liftedIR("add.cc.u32 %r1, %r2, %r3;\naddc.cc.u32 %r4, %r2, %r3;\n"
                           "addc.u32 %r5, %r2, %r3;\nsub.cc.u32 %r6, %r2, %r3;\n"
                           "subc.u32 %r7, %r2, %r3;\nmad.lo.cc.u32 %r6, %r2, %r3, %r1;\n"
                           "madc.hi.u32 %r7, %r2, %r3, %r1;");
  EXPECT_IR_HAS(S, "%cc.cf = alloca i1");
  EXPECT_IR_HAS(S, "call { i32, i1 } @llvm.uadd.with.overflow.i32");
  EXPECT_IR_HAS(S, "call { i32, i1 } @llvm.usub.with.overflow.i32"); // borrow for subtraction
  EXPECT_IR_HAS(S, "mul i64");                                       // mad.cc: the full product
}

TEST(LiftIR, BitFamiliesBoundEveryShift) {
  // shf.wrap is a funnel shift (amount mod 32); .clamp shifts a 64-bit pair by min(c, 32).
  std::string S =
      liftedIR("shf.l.wrap.b32 %r1, %r2, %r3, %r4;\nshf.r.clamp.b32 %r5, %r2, %r3, %r4;\n"
               "bfe.u32 %r6, %r2, %r3, %r4;\nprmt.b32.ecl %r7, %r2, %r3, %r4;\n"
               "lop3.b32 %r1, %r2, %r3, %r4, 0x96;\ndp4a.u32.s32 %r5, %r2, %r3, %r4;");
  EXPECT_IR_HAS(S, "@llvm.fshl.i32");
  EXPECT_IR_HAS(S, "@llvm.umin.i32");
  EXPECT_IR_HAS(S, "lshr i64");
  EXPECT_IR_LACKS(S, "ERROR");
}

TEST(LiftIR, FunctionsTakeTheirParamSlotsAsPointers) {
  std::string Text =
      ".version 8.0\n.target sm_80\n.address_size 64\n"
      ".func (.param .b32 r) twice(.param .b32 x)\n{\n.reg .b32 %r<3>;\n"
      "ld.param.b32 %r1, [x];\nadd.s32 %r2, %r1, %r1;\nst.param.b32 [r], %r2;\nret;\n}\n"
      ".visible .entry k(.param .u32 a)\n{\n.reg .b32 %r<3>;\nld.param.u32 %r1, [a];\n"
      "{\n.param .b32 p0;\nst.param.b32 [p0], %r1;\n.param .b32 r0;\n"
      "call.uni (r0), twice, (p0);\nld.param.b32 %r2, [r0];\n}\nret;\n}\n";
  LIFT_ASSERT_OK_AND_ASSIGN(L, lift("f.ptx", Text));
  ASSERT_TRUE(L->R.Failures.empty()) << L->R.Failures[0].Message;
  std::string S;
  llvm::raw_string_ostream OS(S);
  L->R.M->print(OS, nullptr);
  EXPECT_IR_HAS(S, "define internal void @twice(ptr addrspace(5) %r, ptr addrspace(5) %x)");
  EXPECT_IR_HAS(S, "call void @twice(ptr addrspace(5)");
}

TEST(LiftIR, KernelReachingAFailedFunctionFailsWithItsReason) {
  std::string Text =
      ".version 8.0\n.target sm_80\n.address_size 64\n"
      ".func bad()\n{\n.reg .b32 %r<3>;\ngetctarank.shared::cluster.u32 %r2, %r1;\nret;\n}\n"
      ".visible .entry uses()\n{\ncall.uni bad, ();\nret;\n}\n"
      ".visible .entry fine()\n{\nret;\n}\n";
  LIFT_ASSERT_OK_AND_ASSIGN(L, lift("g.ptx", Text));
  ASSERT_EQ(L->R.Failures.size(), 1u);
  EXPECT_EQ(L->R.Failures[0].Kernel, "uses");
  EXPECT_NE(L->R.Failures[0].Message.find("getctarank"), std::string::npos)
      << L->R.Failures[0].Message;
  EXPECT_EQ(L->R.Kernels, std::vector<std::string>{"fine"});
}

// A function that did not lift may also be reached only through its address: taken in the
// kernel, in a function the kernel calls, or in a variable's initializer (a table for indirect
// calls). Those kernels compile; the function becomes a stub that prints why through device
// printf and traps (loader.LinkApi.FunctionThatDidNotLiftTrapsWhenCalledThroughATable runs it).
TEST(LiftIR, FailedFunctionReachedOnlyByAddressBecomesATrappingStub) {
  std::string Text =
      ".version 8.0\n.target sm_80\n.address_size 64\n"
      ".func bad()\n{\n.reg .b32 %r<3>;\ngetctarank.shared::cluster.u32 %r2, %r1;\nret;\n}\n"
      ".visible .global .align 8 .u64 table[1] = {bad};\n"
      ".func helper()\n{\n.reg .b64 %rd<2>;\nmov.u64 %rd1, bad;\nret;\n}\n"
      ".visible .entry in_kernel(.param .u64 out)\n{\n.reg .b64 %rd<3>;\n"
      "ld.param.u64 %rd1, [out];\nmov.u64 %rd2, bad;\nst.global.u64 [%rd1], %rd2;\nret;\n}\n"
      ".visible .entry in_callee()\n{\ncall.uni helper, ();\nret;\n}\n"
      ".visible .entry in_table(.param .u64 out)\n{\n.reg .b64 %rd<3>;\n"
      "ld.param.u64 %rd1, [out];\nld.global.u64 %rd2, [table];\nst.global.u64 [%rd1], %rd2;\n"
      "ret;\n}\n"
      ".visible .entry fine(.param .u64 out)\n{\n.reg .b64 %rd<2>;\n.reg .b32 %r<2>;\n"
      "ld.param.u64 %rd1, [out];\nmov.u32 %r1, 7;\nst.global.u32 [%rd1], %r1;\nret;\n}\n";
  LIFT_ASSERT_OK_AND_ASSIGN(L, lift("t.ptx", Text));
  EXPECT_TRUE(L->R.Failures.empty()) << L->R.Failures[0].Message;
  EXPECT_EQ(L->R.Kernels, (std::vector<std::string>{"in_kernel", "in_callee", "in_table", "fine"}));
  llvm::Function *Bad = L->R.M->getFunction("bad");
  ASSERT_NE(Bad, nullptr);
  EXPECT_FALSE(Bad->isDeclaration());
  EXPECT_TRUE(Bad->hasInternalLinkage());
  std::string S;
  llvm::raw_string_ostream OS(S);
  Bad->print(OS);
  EXPECT_IR_HAS(S, "call i32 @reptx.vprintf(i64 ptrtoint (ptr addrspacecast (ptr addrspace(1) "
                   "@reptx.did_not_lift.bad to ptr) to i64), i64 0)");
  EXPECT_IR_HAS(S, "call void @llvm.trap()");
  llvm::GlobalVariable *Msg = L->R.M->getNamedGlobal("reptx.did_not_lift.bad");
  ASSERT_NE(Msg, nullptr);
  auto *Init = llvm::dyn_cast<llvm::ConstantDataArray>(Msg->getInitializer());
  ASSERT_NE(Init, nullptr);
  EXPECT_TRUE(Init->getAsCString().starts_with(
      "reptx: function 'bad', called through its address, was not recompiled: t.ptx:7: "
      "function 'bad': "))
      << Init->getAsCString().str();
  EXPECT_NE(Init->getAsCString().find("getctarank"), llvm::StringRef::npos);
  EXPECT_FALSE(llvm::verifyModule(*L->R.M, &llvm::errs()));
  backend::CompileOptions Opts;
  Opts.Arch = "gfx942";
  auto Obj = backend::compile(*L->R.M, Opts);
  ASSERT_TRUE(static_cast<bool>(Obj)) << llvm::toString(Obj.takeError());
  auto CO = emulator::CodeObject::load(Obj->Bytes);
  ASSERT_TRUE(static_cast<bool>(CO)) << llvm::toString(CO.takeError());
  EXPECT_EQ((*CO)->kernels().size(), 4u);
}

TEST(LiftIR, NamedBarriersAndReductionsAreReptxIntrinsics) {
  std::string S = liftedIR("bar.sync 1, 64;\nbar.arrive 2, 128;\nbar.red.popc.u32 %r1, 0, %p1;\n"
                           "barrier.sync 3;");
  EXPECT_IR_HAS(S, "call void @reptx.barrier.sync.count(i32 1, i32 64");
  EXPECT_IR_HAS(S, "call void @reptx.barrier.arrive(i32 2, i32 128");
  EXPECT_IR_HAS(S, "call i64 @reptx.barrier.red(i32 0, i32 0");
  EXPECT_IR_HAS(S, "call void @reptx.barrier.sync()"); // no count: the whole CTA
  EXPECT_IR_HAS(S, "call void @reptx.barrier.init()");
}

// tex1Dfetch (tex.1d.v4 with an s32 coordinate) on a texture object: one call of the reptx
// intrinsic, read-only, whose lanes go to the destinations as their type names them (f32 bitcast,
// u32/s32 as they are, a sink skipped); the coordinate may be written with or without braces.
// Other texture forms fail their kernel with the instruction named.
TEST(LiftIR, Tex1dFetchOnATextureObjectIsOneReadOnlyCall) {
  std::string F = liftedIR("ld.param.u64 %rd1, [out];\n"
                           "tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1}];");
  EXPECT_IR_HAS(F, "call <4 x i32> @reptx.tex.1d.fetch(i64 ");
  EXPECT_IR_HAS(F, "bitcast i32 ");
  EXPECT_IR_HAS(F, "declare <4 x i32> @reptx.tex.1d.fetch(i64, i32) #");
  EXPECT_IR_HAS(F, "memory(read)");
  std::string U = liftedIR("ld.param.u64 %rd1, [out];\n"
                           "tex.1d.v4.u32.s32 {%r1, %r2, _, %r4}, [%rd1, %r5];");
  EXPECT_IR_HAS(U, "call <4 x i32> @reptx.tex.1d.fetch(i64 ");
  EXPECT_IR_LACKS(U, "bitcast i32 ");
  // Unsupported forms name themselves.
  EXPECT_IR_HAS(liftedIR("tex.2d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r5, %r6}];"),
                "ERROR: t.ptx:");
  EXPECT_IR_HAS(liftedIR("tex.2d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r5, %r6}];"),
                "only tex.1d.v4 with an s32 coordinate (tex1Dfetch), "
                "tex.{1d,2d,3d,a1d,a2d,cube,acube}.v4 and tld4.{2d,a2d}.v4 with f32 coordinates "
                "are lifted");
  EXPECT_IR_HAS(liftedIR("tex.2dms.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %r5, %r6, %r6}];"),
                "only tex.1d.v4 with an s32 coordinate");
  EXPECT_IR_HAS(
      liftedIR("tld4.r.cube.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6, %f7, %f7}];"),
      "only tex.1d.v4 with an s32 coordinate");
  EXPECT_IR_HAS(liftedIR("tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5}];"),
                "a coordinate vector of 1 where the geometry has 2");
  EXPECT_IR_HAS(liftedIR("txq.width.b32 %r1, [%rd1];"), "unsupported instruction (txq, texture)");
  EXPECT_IR_HAS(liftedIR("sured.b.add.2d.u32.trap [%rd1, {%r1, %r2}], %r3;"),
                "unsupported instruction (sured, texture)");
}

// tex1D/tex2D/tex3D and the layered forms (tex.{1d,2d,3d,a1d,a2d}.v4 with f32 coordinates) on a
// texture object: one read-only call of @reptx.tex.sample with the geometry's dimension count,
// the layer (0 when not layered) and three coordinates, those the geometry lacks 0 (3d's fourth
// coordinate is ignored); .level and .grad (one-level textures) add nothing.
TEST(LiftIR, SampledTextureFetchIsOneReadOnlyCall) {
  std::string T2 = liftedIR("ld.param.u64 %rd1, [out];\n"
                            "tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}];");
  EXPECT_IR_HAS(T2, "call <4 x i32> @reptx.tex.sample(i64 ");
  EXPECT_IR_HAS(T2, "i32 2, i32 0, float ");
  EXPECT_IR_HAS(T2, "float 0.000000e+00)");
  EXPECT_IR_HAS(T2, "declare <4 x i32> @reptx.tex.sample(i64, i32, i32, float, float, float) #");
  EXPECT_IR_HAS(T2, "memory(read)");
  std::string T1 = liftedIR("ld.param.u64 %rd1, [out];\n"
                            "tex.1d.v4.s32.f32 {%r1, %r2, %r3, %r4}, [%rd1, {%f5}];");
  EXPECT_IR_HAS(T1, "i32 1, i32 0, float ");
  EXPECT_IR_HAS(T1, "float 0.000000e+00, float 0.000000e+00)");
  EXPECT_IR_LACKS(T1, "bitcast i32 ");
  std::string T3 =
      liftedIR("ld.param.u64 %rd1, [out];\n"
               "tex.3d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6, %f7, %f5}];");
  EXPECT_IR_HAS(T3, "i32 3, i32 0, float ");
  EXPECT_IR_LACKS(T3, "float 0.000000e+00)");
  // The layer is the first coordinate of a1d/a2d, an s32.
  std::string A2 =
      liftedIR("ld.param.u64 %rd1, [out];\n"
               "tex.a2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%r7, %f5, %f6, %f6}];");
  EXPECT_IR_HAS(A2, "@reptx.tex.sample(i64 %");
  EXPECT_IR_HAS(A2, ", i32 2, i32 %");
  std::string Lv =
      liftedIR("ld.param.u64 %rd1, [out];\n"
               "tex.level.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}], %f7;");
  EXPECT_IR_HAS(Lv, "i32 2, i32 0, float ");
  // A cube map's direction: dims 4; texCubemapLayered's cube index first.
  std::string Cube =
      liftedIR("ld.param.u64 %rd1, [out];\n"
               "tex.cube.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6, %f7, %f7}];");
  EXPECT_IR_HAS(Cube, "i32 4, i32 0, float ");
  EXPECT_IR_LACKS(Cube, "float 0.000000e+00)");
  std::string ACube =
      liftedIR("ld.param.u64 %rd1, [out];\n"
               "tex.acube.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%r7, %f5, %f6, %f7}];");
  EXPECT_IR_HAS(ACube, ", i32 4, i32 %");
}

// tex2Dgather (tld4.comp.2d): one read-only call of @reptx.tex.gather with the component's index.
// surf*Read/surf*Write (suld.b, sust.b): one call each with the byte x coordinate, the element
// size and count and the out-of-range mode; the data travels as bytes in four 32-bit words.
TEST(LiftIR, GatherAndSurfaceAccessesAreOneCallEach) {
  std::string G = liftedIR("ld.param.u64 %rd1, [out];\n"
                           "tld4.g.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}];");
  EXPECT_IR_HAS(G, "call <4 x i32> @reptx.tex.gather(i64 %");
  EXPECT_IR_HAS(G, ", i32 1, i32 0, float ");
  EXPECT_IR_HAS(G, "memory(read)");
  std::string L = liftedIR("ld.param.u64 %rd1, [out];\n"
                           "suld.b.2d.v4.b8.zero {%h0, %h1, %h2, %h3}, [%rd1, {%r3, %r2}];");
  EXPECT_IR_HAS(L, "call <4 x i32> @reptx.suld(i64 %");
  EXPECT_IR_HAS(L, "i32 1, i32 4, i32 2)"); // 1-byte elements, four of them, .zero
  EXPECT_IR_HAS(L, "bitcast <4 x i32> %");
  EXPECT_IR_HAS(L, "to <16 x i8>");
  std::string S = liftedIR("ld.param.u64 %rd1, [out];\n"
                           "sust.b.3d.v2.b32.clamp [%rd1, {%r1, %r2, %r3, %r3}], {%r4, %r5};");
  EXPECT_IR_HAS(S, "call void @reptx.sust(i64 %");
  EXPECT_IR_HAS(S, "i32 4, i32 2, i32 1, <4 x i32> %");
  EXPECT_IR_HAS(liftedIR("suld.b.2d.v4.b64.trap {%rd2, %rd3, %rd4, %rd5}, [%rd1, {%r1, %r2}];"),
                "a 256-bit surface access");
  EXPECT_IR_HAS(liftedIR("suld.p.2d.v4.b32.trap {%r1, %r2, %r3, %r4}, [%rd1, {%r1, %r2}];"),
                "only suld.b/sust.b");
}
