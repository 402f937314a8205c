// The backend's value placement after O3 (backend/lib/ValuePlacement.h). hoistCommonValues:
// identical pure values of sibling blocks are computed once in their common dominator, never
// around a loop that did not keep them live already and never when executing them on every path
// could trap. sinkToFirstUse: pure
// values move to just before their first user in the block, only when no operand's live range
// grows; loads, stores, calls, PHIs and values used in other blocks keep their places.
#include "ValuePlacement.h"
#include "LiftTestUtil.h"

#include "reptx/backend/Backend.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>

namespace {

// Runs STEP on @f of IR and returns its blocks as "name: instr instr | name: ..." (the named
// instructions, in order), or what went wrong.
std::string after(const std::string &IR, const std::function<void(llvm::Function &)> &Step) {
  llvm::LLVMContext Ctx;
  std::unique_ptr<llvm::Module> M;
  if (std::string Error = reptx::lifttest::runOnF(IR, Ctx, M, Step); !Error.empty())
    return Error;
  llvm::Function *F = M->getFunction("f");
  std::string Out;
  for (llvm::BasicBlock &B : *F) {
    Out += (Out.empty() ? "" : " | ") + B.getName().str() + ":";
    for (llvm::Instruction &I : B)
      if (I.hasName())
        Out += " " + I.getName().str();
  }
  return Out;
}

// The named instructions of block BB of @f after sinkToFirstUse, in order.
std::string orderAfterSinking(const std::string &IR, const std::string &BB = "entry") {
  std::string All = after(IR, [](llvm::Function &F) { reptx::backend::sinkToFirstUse(F); });
  std::string Prefix = BB + ":";
  for (size_t Start = 0; Start < All.size();) {
    size_t End = All.find(" | ", Start);
    std::string Block = All.substr(Start, End == std::string::npos ? End : End - Start);
    if (Block.rfind(Prefix, 0) == 0)
      return Block.size() > Prefix.size() ? Block.substr(Prefix.size() + 1) : "";
    if (End == std::string::npos)
      break;
    Start = End + 3;
  }
  return All;
}

std::string afterHoisting(const std::string &IR) {
  return after(IR, [](llvm::Function &F) { reptx::backend::hoistCommonValues(F); });
}

// transpose as nvcc writes it: each bounds-checked block computes the same shared-memory address
// again. The whole expression (both rounds: %m, then %a) moves to the common dominator.
TEST(ValuePlacement, SiblingBlocksShareOneComputation) {
  EXPECT_EQ(afterHoisting(R"(
define void @f(ptr addrspace(3) %tile, i32 %tx, i32 %ty, i1 %c1, i1 %c2) {
entry:
  br i1 %c1, label %one, label %mid
one:
  %m1 = mul nuw nsw i32 %ty, 132
  %a1 = add i32 %m1, %tx
  %p1 = getelementptr i8, ptr addrspace(3) %tile, i32 %a1
  store i32 1, ptr addrspace(3) %p1
  br label %mid
mid:
  br i1 %c2, label %two, label %exit
two:
  %m2 = mul nuw nsw i32 %ty, 132
  %a2 = add i32 %m2, %tx
  %p2 = getelementptr i8, ptr addrspace(3) %tile, i32 %a2
  %q2 = getelementptr i8, ptr addrspace(3) %p2, i32 1056
  store i32 2, ptr addrspace(3) %q2
  br label %exit
exit:
  ret void
}
)"),
            "entry: m1 a1 p1 | one: | mid: | two: q2 | exit:");
}

// A copy behind a loop stays: hoisting it would keep the value live around the loop.
TEST(ValuePlacement, NoHoistAroundALoop) {
  const std::string IR = R"(
define void @f(ptr addrspace(1) %p, i32 %x, i32 %n, i1 %c) {
entry:
  br i1 %c, label %one, label %loop
one:
  %m1 = mul i32 %x, 7
  store i32 %m1, ptr addrspace(1) %p
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ 0, %one ], [ %next, %loop ]
  %next = add i32 %i, 1
  %done = icmp eq i32 %next, %n
  br i1 %done, label %two, label %loop
two:
  %m2 = mul i32 %x, 7
  store i32 %m2, ptr addrspace(1) %p
  ret void
}
)";
  EXPECT_EQ(afterHoisting(IR), "entry: | one: m1 | loop: i next done | two: m2");
}

// nvcc's loop unrolled by 4 and its remainder loop, each with the same lane values hoisted in
// front of it (the lane count, then an expression on it): the values live through the first loop
// already, so the second loop's copies go, and the whole expression is computed once before both.
// A copy that only the code after the first loop would keep live through it stays (%o2).
TEST(ValuePlacement, HoistPastALoopThatUsesTheValueAlready) {
  const std::string IR = R"(
define void @f(ptr addrspace(1) %p, i32 %x, i32 %n, i1 %c) {
entry:
  br i1 %c, label %rest, label %pre
pre:
  %l1 = call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0)
  %h1 = call i32 @llvm.amdgcn.mbcnt.hi(i32 -1, i32 %l1)
  %s1 = shl i32 %h1, 2
  %o1 = mul i32 %x, 7
  store i32 %o1, ptr addrspace(1) %p
  br label %loop
loop:
  %i = phi i32 [ 0, %pre ], [ %next, %loop ]
  %v = add i32 %i, %s1
  store i32 %v, ptr addrspace(1) %p
  %next = add i32 %i, 1
  %done = icmp eq i32 %next, %n
  br i1 %done, label %rest, label %loop
rest:
  br label %pre2
pre2:
  %l2 = call i32 @llvm.amdgcn.mbcnt.lo(i32 -1, i32 0)
  %h2 = call i32 @llvm.amdgcn.mbcnt.hi(i32 -1, i32 %l2)
  %s2 = shl i32 %h2, 2
  %o2 = mul i32 %x, 7
  store i32 %s2, ptr addrspace(1) %p
  store i32 %o2, ptr addrspace(1) %p
  ret void
}
declare i32 @llvm.amdgcn.mbcnt.lo(i32, i32)
declare i32 @llvm.amdgcn.mbcnt.hi(i32, i32)
)";
  EXPECT_EQ(afterHoisting(IR),
            "entry: l1 h1 s1 | pre: o1 | loop: i v next done | rest: | pre2: o2");
}

// A division that could trap is not executed where the program did not execute it; two shapes
// that differ only in a flag or a predicate are different values.
TEST(ValuePlacement, NoHoistOfWhatCouldTrapOrDiffers) {
  // Block N ("1" is %one, "2" is %two): the same expression tree, with the add's flag and the
  // compare's predicate given.
  auto Branch = [](const std::string &N, const std::string &Flag, const std::string &Pred) {
    std::string B = N == "1" ? "one:\n" : "two:\n";
    B += "  %d" + N + " = udiv i32 %x, %y\n";
    B += "  %s" + N + " = add " + Flag + " i32 %x, %y\n";
    B += "  %k" + N + " = icmp " + Pred + " i32 %x, %y\n";
    B += "  %z" + N + " = zext i1 %k" + N + " to i32\n";
    B += "  %t" + N + " = add i32 %d" + N + ", %s" + N + "\n";
    B += "  %u" + N + " = add i32 %t" + N + ", %z" + N + "\n";
    B += "  store i32 %u" + N + ", ptr addrspace(1) %p\n  ret void\n";
    return B;
  };
  const std::string IR = "define void @f(ptr addrspace(1) %p, i32 %x, i32 %y, i1 %c) {\n"
                         "entry:\n  br i1 %c, label %one, label %two\n" +
                         Branch("1", "nsw", "slt") + Branch("2", "nuw", "ult") + "}\n";
  EXPECT_EQ(afterHoisting(IR), "entry: | one: d1 s1 k1 z1 t1 u1 | two: d2 s2 k2 z2 t2 u2");
}

// The hoisted copy loses nsw/nuw: on the paths that did not compute it, it must not be poison
// where the original was defined.
TEST(ValuePlacement, HoistedCopyDropsPoisonFlags) {
  const std::string IR = R"(
define i32 @f(i32 %x, i1 %c) {
entry:
  br i1 %c, label %one, label %two
one:
  %a1 = add nsw i32 %x, 5
  ret i32 %a1
two:
  %a2 = add nsw i32 %x, 5
  ret i32 %a2
}
)";
  std::string Text;
  after(IR, [&](llvm::Function &F) {
    reptx::backend::hoistCommonValues(F);
    llvm::raw_string_ostream OS(Text);
    F.getEntryBlock().front().print(OS);
  });
  EXPECT_EQ(Text, "  %a1 = add i32 %x, 5");
}

// vadd as nvcc writes it: all three addresses first, then the loads, the add and the store.
TEST(ValuePlacement, AddressesMoveNextToTheirLoads) {
  EXPECT_EQ(orderAfterSinking(R"(
define void @f(i64 %a, i64 %b, i64 %c, i32 %i) {
entry:
  %off = mul i64 4, 4
  %wide = sext i32 %i to i64
  %o = shl i64 %wide, 2
  %pa.i = add i64 %a, %o
  %pb.i = add i64 %b, %o
  %pa = inttoptr i64 %pa.i to ptr addrspace(1)
  %pb = inttoptr i64 %pb.i to ptr addrspace(1)
  %x = load float, ptr addrspace(1) %pb
  %y = load float, ptr addrspace(1) %pa
  %s = fadd float %y, %x
  %pc.i = add i64 %c, %o
  %pc = inttoptr i64 %pc.i to ptr addrspace(1)
  store float %s, ptr addrspace(1) %pc
  ret void
}
)"),
            // %off has no user: it stays. %o is used after the loads, so %pa.i may follow it down;
            // %wide and %o move to their first user, %pb.i's address chain.
            "off wide o pb.i pb x pa.i pa y s pc.i pc");
}

// Moving %sum to its user would keep both loaded values live across the call instead of %sum.
TEST(ValuePlacement, NoMoveThatLengthensAnOperandsLiveRange) {
  EXPECT_EQ(orderAfterSinking(R"(
declare void @g()
define void @f(ptr addrspace(1) %p, i32 %a, i32 %b) {
entry:
  %x = load i32, ptr addrspace(1) %p
  %y = load i32, ptr addrspace(1) %p
  %sum = add i32 %x, %y
  call void @g()
  store i32 %sum, ptr addrspace(1) %p
  ret void
}
)"),
            "x y sum");
}

// ...but a chain moves as a whole when it is the only user of what it computes.
TEST(ValuePlacement, ChainsMoveTogether) {
  EXPECT_EQ(orderAfterSinking(R"(
declare void @g()
define void @f(ptr addrspace(1) %p, i32 %a, i32 %b) {
entry:
  %x = mul i32 %a, 3
  %y = mul i32 %b, 5
  %sum = add i32 %x, %y
  %v = load i32, ptr addrspace(1) %p
  store i32 %v, ptr addrspace(1) %p
  store i32 %sum, ptr addrspace(1) %p
  ret void
}
)"),
            // The latest-defined operand is placed first, so %x ends up next to %sum.
            "v y x sum");
}

// A loop whose exit test reads ExitOn (%i or %next): %twice = %i * 2 is used after a call and
// a load, %next feeds the PHI and %out is used after the loop.
std::string loop(const std::string &ExitOn) {
  return R"(
declare i32 @h(i32)
define void @f(ptr addrspace(1) %p, i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %next, %loop ]
  %twice = shl i32 %i, 1
  %next = add i32 %i, 1
  %out = mul i32 %n, 7
  %c = call i32 @h(i32 %i)
  %v = load i32, ptr addrspace(1) %p
  %w = add i32 %v, %twice
  store i32 %w, ptr addrspace(1) %p
  %done = icmp eq i32 )" +
         ExitOn + R"(, %n
  br i1 %done, label %exit, label %loop
exit:
  store i32 %out, ptr addrspace(1) %p
  ret void
}
)";
}

// Loads, calls and PHIs stay in order; a value used in another block or by a PHI stays.
TEST(ValuePlacement, MemoryCallsPhisAndLiveOutValuesStay) {
  // %next feeds the PHI (stays), %out is used in %exit (stays); %twice moves to %w (%i is
  // live until %done anyway), and %done is already next to the branch.
  EXPECT_EQ(orderAfterSinking(loop("%i"), "loop"), "i next out c v twice w done");
}

// Without a later use of %i, moving %twice would keep %i live across the call: it stays.
TEST(ValuePlacement, LoopValueStaysWhenItsOperandWouldLiveLonger) {
  EXPECT_EQ(orderAfterSinking(loop("%next"), "loop"), "i twice next out c v w done");
}

// loadArgumentsWhereUsed on kernel IR with AMDGPU's data layout (i64 8-byte aligned): the
// blocks, then each moved argument's kernarg offset ("p@8"), or what went wrong.
std::string afterLoadingArguments(const std::string &Body) {
  std::string Offsets;
  std::string Blocks =
      after("target datalayout = \"" + reptx::backend::dataLayout() + "\"\n" + Body,
            [&](llvm::Function &F) {
              if (!reptx::backend::loadArgumentsWhereUsed(F))
                Offsets = " (unchanged)";
              for (llvm::BasicBlock &B : F)
                for (llvm::Instruction &I : B)
                  if (auto *G = llvm::dyn_cast<llvm::GetElementPtrInst>(&I);
                      G && G->getName().ends_with(".kernarg")) {
                    auto *C = llvm::dyn_cast<llvm::ConstantInt>(G->getOperand(1));
                    Offsets += " " + G->getName().drop_back(8).str() + "@" +
                               (C ? std::to_string(C->getZExtValue()) : "?");
                  }
            });
  return Blocks + " ||" + Offsets;
}

// The kernel shape of nvcc's `if (i < n) { p[i] = ...; for (...) q[...] = ...; }`: %n, which the
// entry block compares, stays an argument; %p (its cvta.to.global casts hoisted to the entry by
// O3, moving along) and %q (used in a loop: loaded before it, its cast out of the loop) load
// together where both are needed, at their PTX offsets; the narrow %h (scalar loads read
// dwords) and the unused %r stay.
const char *const BoundsCheckedKernel = R"(
define amdgpu_kernel void @f(i32 %n, i64 %p, i64 %q, i16 %h, i64 %r) {
entry:
  %i = call i32 @llvm.amdgcn.workitem.id.x()
  %c = icmp ult i32 %i, %n
  %pp = inttoptr i64 %p to ptr
  %pg = addrspacecast ptr %pp to ptr addrspace(1)
  br i1 %c, label %then, label %exit
then:
  %hz = zext i16 %h to i32
  %v = add i32 %i, %hz
  store i32 %v, ptr addrspace(1) %pg
  br label %loop
loop:
  %k = phi i32 [ 0, %then ], [ %k1, %loop ]
  %qp = inttoptr i64 %q to ptr addrspace(1)
  store i32 %k, ptr addrspace(1) %qp
  %k1 = add i32 %k, 1
  %d = icmp ult i32 %k1, %n
  br i1 %d, label %loop, label %exit
exit:
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
)";

TEST(ValuePlacement, ArgumentsLoadWhereTheyAreUsed) {
  EXPECT_EQ(afterLoadingArguments(BoundsCheckedKernel),
            "entry: i c | then: p.kernarg p.load pp pg q.kernarg q.load qp hz v | loop: k k1 d | "
            "exit: || p@8 q@16");
}

// scan_block's shape: one pointer is used under the bounds check, the other after a loop under
// a second one. Loaded together they would share nothing but the entry block (where the
// load-store vectorizer merges them and the halves cross into the blocks using them, copied
// into VGPRs); each loads in its own block instead.
TEST(ValuePlacement, ArgumentsSharingOnlyTheEntryLoadApart) {
  EXPECT_EQ(afterLoadingArguments(R"(
define amdgpu_kernel void @f(i64 %a, i64 %b, i32 %n) {
entry:
  %c = icmp ult i32 0, %n
  br i1 %c, label %one, label %mid
one:
  %pa = inttoptr i64 %a to ptr addrspace(1)
  store i32 1, ptr addrspace(1) %pa
  br label %mid
mid:
  br i1 %c, label %two, label %exit
two:
  %pb = inttoptr i64 %b to ptr addrspace(1)
  store i32 2, ptr addrspace(1) %pb
  br label %exit
exit:
  ret void
}
)"),
            "entry: c | one: a.kernarg a.load pa | mid: | two: b.kernarg b.load pb | exit: || "
            "a@0 b@8");
}

// Nothing moves where the entry block uses the argument, or where a loop right after the entry
// uses it (its place out of the loop is the entry); nor in a function that is not a kernel (its
// arguments come in registers).
TEST(ValuePlacement, ArgumentsTheEntryNeedsStay) {
  EXPECT_EQ(afterLoadingArguments(R"(
define amdgpu_kernel void @f(i64 %a, i32 %n) {
entry:
  %pa = inttoptr i64 %a to ptr addrspace(1)
  store i32 0, ptr addrspace(1) %pa
  br label %loop
loop:
  %k = phi i32 [ 0, %entry ], [ %k1, %loop ]
  %k1 = add i32 %k, %n
  %d = icmp ult i32 %k1, 100
  br i1 %d, label %loop, label %exit
exit:
  ret void
}
)"),
            "entry: pa | loop: k k1 d | exit: || (unchanged)");
  std::string Function = BoundsCheckedKernel;
  Function.erase(Function.find("amdgpu_kernel "), 14);
  EXPECT_EQ(afterLoadingArguments(Function),
            "entry: i c pp pg | then: hz v | loop: k qp k1 d | exit: || (unchanged)");
}

std::string afterShiftAfterMerge(const std::string &IR) {
  return after(IR, [](llvm::Function &F) { reptx::backend::shiftAfterMerge(F); });
}

// scan_block after its loop: InstCombine pushed `Cur << 12` into the loop's exit (a phi of 0 and
// the shifted value). The shift moves below the merge, on the phi of 0 and Cur, where it fuses
// with the add (v_lshl_or) and 0 needs no register of its own.
TEST(ValuePlacement, ShiftMovesBelowTheMergeOfItsAdd) {
  EXPECT_EQ(afterShiftAfterMerge(R"(
define i32 @f(i32 %cur, i32 %base, i1 %c) {
entry:
  br i1 %c, label %loopexit, label %merge
loopexit:
  %s = shl nuw nsw i32 %cur, 12
  br label %merge
merge:
  %p = phi i32 [ 0, %entry ], [ %s, %loopexit ]
  %a = add i32 %base, %p
  ret i32 %a
}
)"),
            "entry: | loopexit: | merge: p.unshifted p a");
  // Two shifts by the same amount become one.
  EXPECT_EQ(afterShiftAfterMerge(R"(
define i32 @f(i32 %x, i32 %y, i32 %base, i1 %c) {
entry:
  br i1 %c, label %one, label %two
one:
  %s1 = shl i32 %x, 4
  br label %merge
two:
  %s2 = shl i32 %y, 4
  br label %merge
merge:
  %p = phi i32 [ %s1, %one ], [ %s2, %two ]
  %a = or i32 %base, %p
  ret i32 %a
}
)"),
            "entry: | one: | two: | merge: p.unshifted p a");
}

// What stays: a user that cannot fuse the shift (here a store, as a bf16 widened into the high
// half feeds a float), a constant that is not a shifted value, different amounts, a shift with
// another use, and a loop header's phi (a recurrence).
TEST(ValuePlacement, ShiftStaysAboveOtherMerges) {
  auto Merge = [](const std::string &Left, const std::string &Use) {
    return R"(
define i32 @f(i32 %x, i32 %y, i32 %base, i1 %c, ptr addrspace(1) %q) {
entry:
  %t = shl i32 %y, 12
  br i1 %c, label %one, label %merge
one:
  %s = shl i32 %x, 12
  br label %merge
merge:
  %p = phi i32 [ )" +
           Left + R"(, %entry ], [ %s, %one ]
)" + Use + R"(
  ret i32 %base
}
)";
  };
  const std::string Fused = "  %a = add i32 %base, %p";
  EXPECT_EQ(afterShiftAfterMerge(Merge("0", "  store i32 %p, ptr addrspace(1) %q")),
            "entry: t | one: s | merge: p");
  EXPECT_EQ(afterShiftAfterMerge(Merge("5", Fused)), "entry: t | one: s | merge: p a");
  EXPECT_EQ(afterShiftAfterMerge(Merge("8192", Fused)), "entry: t | one: | merge: p.unshifted p a");
  EXPECT_EQ(afterShiftAfterMerge(Merge("%t", Fused + "\n  store i32 %t, ptr addrspace(1) %q")),
            "entry: t | one: s | merge: p a");
  EXPECT_EQ(afterShiftAfterMerge(R"(
define i32 @f(i32 %x, i32 %n) {
entry:
  br label %loop
loop:
  %p = phi i32 [ 0, %entry ], [ %s, %loop ]
  %a = add i32 %p, 1
  %s = shl i32 %a, 2
  %done = icmp ugt i32 %s, %n
  br i1 %done, label %exit, label %loop
exit:
  ret i32 %a
}
)"),
            "entry: | loop: p a s done | exit:");
}

} // namespace
