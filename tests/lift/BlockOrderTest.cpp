// The backend's block ordering step after O3 (backend/lib/BlockOrder.h): pure values move to just
// before their first user in the block, and only when no operand's live range grows; loads,
// stores, calls, PHIs and values used in other blocks keep their places.
#include "BlockOrder.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace {

// The named instructions of block BB of @f after sinkToFirstUse, in order.
std::string orderAfterSinking(const std::string &IR, const std::string &BB = "entry") {
  llvm::LLVMContext Ctx;
  llvm::SMDiagnostic Err;
  std::unique_ptr<llvm::Module> M = llvm::parseAssemblyString(IR, Err, Ctx);
  if (!M) {
    std::string S;
    llvm::raw_string_ostream OS(S);
    Err.print("BlockOrderTest", OS);
    return "PARSE ERROR: " + S;
  }
  llvm::Function *F = M->getFunction("f");
  reptx::backend::sinkToFirstUse(*F);
  std::string Broken;
  llvm::raw_string_ostream BrokenOS(Broken);
  if (llvm::verifyModule(*M, &BrokenOS))
    return "INVALID: " + Broken;
  std::string Names;
  for (llvm::BasicBlock &B : *F)
    if (B.getName() == BB)
      for (llvm::Instruction &I : B)
        if (I.hasName())
          Names += (Names.empty() ? "" : " ") + I.getName().str();
  return Names;
}

// vadd as nvcc writes it: all three addresses first, then the loads, the add and the store.
TEST(BlockOrder, AddressesMoveNextToTheirLoads) {
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
TEST(BlockOrder, NoMoveThatLengthensAnOperandsLiveRange) {
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
TEST(BlockOrder, ChainsMoveTogether) {
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
TEST(BlockOrder, MemoryCallsPhisAndLiveOutValuesStay) {
  // %next feeds the PHI (stays), %out is used in %exit (stays); %twice moves to %w (%i is
  // live until %done anyway), and %done is already next to the branch.
  EXPECT_EQ(orderAfterSinking(loop("%i"), "loop"), "i next out c v twice w done");
}

// Without a later use of %i, moving %twice would keep %i live across the call: it stays.
TEST(BlockOrder, LoopValueStaysWhenItsOperandWouldLiveLonger) {
  EXPECT_EQ(orderAfterSinking(loop("%next"), "loop"), "i twice next out c v w done");
}

} // namespace
