// The backend's spin-lock restructuring (backend/lib/SpinLocks.h): the critical section after a
// loop that spins on an atomic moves into that loop when it ends in an atomic or a store to the
// lock's address; a CAS loop that takes no lock, a section with a barrier or a call, and a lock
// released on one path only stay as they are. Execution (lanes of one wave taking the lock in
// turn, on gfx942 packed and single and gfx1100): conformance cases atomic.cas.spinlock*.
#include "SpinLocks.h"
#include "LiftTestUtil.h"

#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace {

// Runs the step on @f of IR and returns its blocks as "name: successors | ..." followed by the
// latch's phis ("phis: name name"), or what went wrong.
std::string after(const std::string &IR) {
  llvm::LLVMContext Ctx;
  std::unique_ptr<llvm::Module> M;
  bool Changed = false;
  auto Step = [&](llvm::Function &F) {
    Changed = reptx::backend::moveCriticalSectionsIntoSpinLoops(F);
  };
  if (std::string Error = reptx::lifttest::runOnF(IR, Ctx, M, Step); !Error.empty())
    return Error;
  llvm::Function *F = M->getFunction("f");
  std::string Out = Changed ? "" : "unchanged: ";
  std::string Phis;
  for (llvm::BasicBlock &B : *F) {
    Out += B.getName().str() + ":";
    for (llvm::BasicBlock *S : llvm::successors(&B))
      Out += " " + S->getName().str();
    Out += " | ";
    if (B.getName() == "spin.latch")
      for (llvm::PHINode &P : B.phis())
        Phis += " " + P.getName().str();
  }
  return Out + "phis:" + Phis;
}

// nvcc's `while (atomicCAS(&Lock, 0, 1) != 0); Counter += V; atomicExch(&Lock, 0); return V2;`
// after O3, with the section's branch and a value computed in it used after the release.
TEST(SpinLocks, CriticalSectionMovesIntoTheSpinLoop) {
  EXPECT_EQ(after(R"(
define i32 @f(ptr addrspace(1) %lock, ptr addrspace(1) %counter, i32 %v) {
entry:
  br label %retry
retry:
  %pair = cmpxchg ptr addrspace(1) %lock, i32 0, i32 1 syncscope("agent") monotonic monotonic
  %won = extractvalue { i32, i1 } %pair, 1
  br i1 %won, label %section, label %retry
section:
  %old = load volatile i32, ptr addrspace(1) %counter
  %odd = trunc i32 %v to i1
  br i1 %odd, label %twice, label %add
twice:
  %v2 = shl i32 %v, 1
  br label %add
add:
  %inc = phi i32 [ %v, %section ], [ %v2, %twice ]
  %sum = add i32 %old, %inc
  store volatile i32 %sum, ptr addrspace(1) %counter
  %was = atomicrmw xchg ptr addrspace(1) %lock, i32 0 syncscope("agent") monotonic
  ret i32 %inc
}
)"),
            "entry: retry | retry: section spin.latch | section: twice add | twice: add | "
            "add: spin.latch | spin.latch: add.released retry | add.released: | phis: spin.done "
            "inc.spin");
}

// A CAS loop that updates a value (atomicAdd on floats done by hand) takes no lock: nothing after
// it writes the word again.
TEST(SpinLocks, CasLoopWithoutAReleaseStays) {
  EXPECT_EQ(after(R"(
define void @f(ptr addrspace(1) %p, ptr addrspace(1) %q, float %x) {
entry:
  %first = load i32, ptr addrspace(1) %p
  br label %loop
loop:
  %assumed = phi i32 [ %first, %entry ], [ %seen, %loop ]
  %f = bitcast i32 %assumed to float
  %s = fadd float %f, %x
  %new = bitcast float %s to i32
  %pair = cmpxchg ptr addrspace(1) %p, i32 %assumed, i32 %new syncscope("agent") monotonic monotonic
  %seen = extractvalue { i32, i1 } %pair, 0
  %ok = extractvalue { i32, i1 } %pair, 1
  br i1 %ok, label %done, label %loop
done:
  store i32 %seen, ptr addrspace(1) %q
  ret void
}
)"),
            "unchanged: entry: loop | loop: done loop | done: | phis:");
}

// A barrier (convergent) or a call in the section: it must keep running with the lanes it ran
// with, so the section stays after the loop; so does a lock released on one path only, and a
// section that code after the release can enter again.
TEST(SpinLocks, SectionWithABarrierACallOrOnePathReleaseStays) {
  auto Spin = [](const std::string &Section) {
    return "declare void @llvm.amdgcn.s.barrier()\n"
           "declare void @g()\n"
           "define void @f(ptr addrspace(1) %lock, ptr addrspace(1) %c, i1 %k) {\n"
           "entry:\n  br label %retry\nretry:\n"
           "  %pair = cmpxchg ptr addrspace(1) %lock, i32 0, i32 1 monotonic monotonic\n"
           "  %won = extractvalue { i32, i1 } %pair, 1\n"
           "  br i1 %won, label %section, label %retry\n"
           "section:\n" +
           Section + "}\n";
  };
  EXPECT_EQ(after(Spin("  call void @llvm.amdgcn.s.barrier()\n"
                       "  store atomic i32 0, ptr addrspace(1) %lock monotonic, align 4\n"
                       "  ret void\n")),
            "unchanged: entry: retry | retry: section retry | section: | phis:");
  EXPECT_EQ(after(Spin("  call void @g()\n"
                       "  store atomic i32 0, ptr addrspace(1) %lock monotonic, align 4\n"
                       "  ret void\n")),
            "unchanged: entry: retry | retry: section retry | section: | phis:");
  EXPECT_EQ(after(Spin("  br i1 %k, label %rel, label %keep\n"
                       "rel:\n  store atomic i32 0, ptr addrspace(1) %lock monotonic, align 4\n"
                       "  ret void\n"
                       "keep:\n  store i32 1, ptr addrspace(1) %c\n  ret void\n")),
            "unchanged: entry: retry | retry: section retry | section: rel keep | rel: | keep: | "
            "phis:");
  // A way back into the section from after the release (an irreducible cycle, which LoopInfo
  // does not see as a loop): not single-entry.
  EXPECT_EQ(after(Spin("  br i1 %k, label %a, label %z\na:\n  br label %z\n"
                       "z:\n  store atomic i32 0, ptr addrspace(1) %lock monotonic, align 4\n"
                       "  br label %t\nt:\n  br i1 %k, label %a, label %out\nout:\n  ret void\n")),
            "unchanged: entry: retry | retry: section retry | section: a z | a: z | z: t | "
            "t: a out | out: | phis:");
}

} // namespace
