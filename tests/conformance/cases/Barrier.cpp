// Barriers (PTX ISA 9.7.13.1 bar/barrier, 9.7.13.2 bar.red, 9.7.13.3 bar.warp.sync, 9.7.13.9
// nanosleep): every thread's write before the barrier is visible to every thread after it;
// bar.red reduces a predicate over the block; named barriers with thread counts let a producer
// warp hand data to consumer warps.
#include "../Conformance.h"

namespace reptx::conformance {

namespace {

using u64 = uint64_t;

Case B(std::string Name, std::vector<std::string> Out, std::string Body,
       std::function<void(RefContext &)> F, unsigned Threads, unsigned Block,
       std::string Decls = {}) {
  Case C;
  C.Family = "barrier";
  C.Name = std::move(Name);
  C.InTypes = {"u32"};
  C.OutTypes = std::move(Out);
  C.Body = std::move(Body);
  for (unsigned I = 0; I < Threads; ++I)
    C.Rows.push_back({u64((I * 2654435761u) >> 7)});
  C.Ref = std::move(F);
  C.Block = Block;
  C.ModuleDecls = std::move(Decls);
  return C;
}

// Thread T reads the value its mirror thread (block size - 1 - t) wrote before the barrier.
std::string mirror(const std::string &Barrier) {
  return "mov.u32 %r0, %tid.x;\n mov.u32 %r1, %ntid.x;\n shl.b32 %r2, %r0, 2;\n"
         " mov.u32 %r3, $buf;\n add.u32 %r4, %r3, %r2;\n st.shared.u32 [%r4], %a0;\n " +
         Barrier +
         "\n sub.u32 %r5, %r1, 1;\n sub.u32 %r5, %r5, %r0;\n shl.b32 %r5, %r5, 2;\n"
         " add.u32 %r6, %r3, %r5;\n ld.shared.u32 %d0, [%r6];";
}
void mirrorRef(RefContext &C) {
  unsigned Bk = C.BlockThreads;
  for (size_t T = 0; T < C.In.size(); ++T) {
    size_t Base = T / Bk * Bk;
    C.Out[T][0] = C.In[Base + Bk - 1 - (T - Base)][0];
  }
}
const char *Buf = ".shared .align 4 .b8 $buf[2048];";

} // namespace

void addBarrierCases(CaseList &L) {
  L.push_back(B("bar.sync.0", {"u32"}, mirror("bar.sync 0;"), mirrorRef, 192, 96, Buf));
  L.push_back(B("barrier.sync", {"u32"}, mirror("barrier.sync 0;"), mirrorRef, 160, 80, Buf));
  L.push_back(B("barrier.sync.aligned", {"u32"}, mirror("barrier.sync.aligned 0;"), mirrorRef, 128,
                128, Buf));
  L.push_back(B("bar.sync.count", {"u32"}, mirror("bar.sync 1, 64;"), mirrorRef, 128, 64, Buf));
  L.push_back(
      B("barrier.cta.sync", {"u32"}, mirror("barrier.cta.sync 2;"), mirrorRef, 96, 96, Buf));
  L.push_back(B("bar.cta.sync.reg", {"u32"}, mirror("mov.u32 %r9, 3;\n bar.sync %r9;"), mirrorRef,
                100, 50, Buf));
  // Named barrier 1 with 64 threads: warp 0 produces, warp 1 consumes (bar.arrive / bar.sync).
  L.push_back(B(
      "bar.arrive.named", {"u32"},
      "mov.u32 %r0, %tid.x;\n mov.u32 %r3, $buf;\n setp.ge.u32 %p0, %r0, 32;\n"
      " @%p0 bra $Lconsume;\n shl.b32 %r2, %r0, 2;\n add.u32 %r4, %r3, %r2;\n"
      " st.shared.u32 [%r4], %a0;\n bar.arrive 1, 64;\n mov.u32 %d0, 0;\n"
      " bra.uni $Ldone;\n$Lconsume:\n bar.sync 1, 64;\n sub.u32 %r2, %r0, 32;\n"
      " shl.b32 %r2, %r2, 2;\n add.u32 %r4, %r3, %r2;\n ld.shared.u32 %d0, [%r4];\n"
      "$Ldone:",
      [](RefContext &C) {
        for (size_t T = 0; T < C.In.size(); ++T)
          C.Out[T][0] = (T % 64) < 32 ? 0 : C.In[T - 32][0];
      },
      128, 64, Buf));
  L.push_back(B(
      "barrier.arrive.named", {"u32"},
      "mov.u32 %r0, %tid.x;\n mov.u32 %r3, $buf;\n setp.ge.u32 %p0, %r0, 32;\n"
      " @%p0 bra $Lconsume;\n shl.b32 %r2, %r0, 2;\n add.u32 %r4, %r3, %r2;\n"
      " st.shared.u32 [%r4], %a0;\n barrier.arrive 5, 96;\n mov.u32 %d0, 0;\n"
      " bra.uni $Ldone;\n$Lconsume:\n barrier.sync 5, 96;\n and.b32 %r2, %r0, 31;\n"
      " shl.b32 %r2, %r2, 2;\n add.u32 %r4, %r3, %r2;\n ld.shared.u32 %d0, [%r4];\n"
      "$Ldone:",
      [](RefContext &C) {
        for (size_t T = 0; T < C.In.size(); ++T)
          C.Out[T][0] = (T % 96) < 32 ? 0 : C.In[T / 96 * 96 + T % 32][0];
      },
      192, 96, Buf));
  // bar.red (9.7.13.2): popc counts the threads whose predicate is true, and/or combine them.
  auto RedRef = [](int Kind) {
    return [Kind](RefContext &C) {
      unsigned Bk = C.BlockThreads;
      for (size_t Base = 0; Base < C.In.size(); Base += Bk) {
        unsigned Pop = 0, All = 1, AnyV = 0;
        for (size_t T = Base; T < Base + Bk; ++T) {
          bool P = C.In[T][0] % 3 == 0;
          Pop += P, All &= P, AnyV |= P;
        }
        for (size_t T = Base; T < Base + Bk; ++T)
          C.Out[T][0] = Kind == 0 ? Pop : Kind == 1 ? All : AnyV;
      }
    };
  };
  L.push_back(B("bar.red.popc.u32", {"u32"},
                "rem.u32 %r0, %a0, 3;\n setp.eq.u32 %p0, %r0, 0;\n bar.red.popc.u32 %d0, 0, %p0;",
                RedRef(0), 200, 100));
  L.push_back(B("bar.red.and.pred", {"pred"},
                "rem.u32 %r0, %a0, 3;\n setp.eq.u32 %p0, %r0, 0;\n bar.red.and.pred %d0, 0, %p0;",
                RedRef(1), 64, 64));
  L.push_back(B("bar.red.or.pred", {"pred"},
                "rem.u32 %r0, %a0, 3;\n setp.eq.u32 %p0, %r0, 0;\n bar.red.or.pred %d0, 1, %p0;",
                RedRef(2), 128, 64));
  L.push_back(B("barrier.red.popc.aligned", {"u32"},
                "rem.u32 %r0, %a0, 3;\n setp.eq.u32 %p0, %r0, 0;\n"
                " barrier.red.popc.aligned.u32 %d0, 2, %p0;",
                RedRef(0), 96, 96));
  // bar.red.and over a block where every predicate is true.
  L.push_back(B(
      "bar.red.and.all_true", {"pred"},
      "setp.ne.u32 %p0, %a0, 0xffffffff;\n bar.red.and.pred %d0, 0, %p0;",
      [](RefContext &C) {
        for (auto &O : C.Out)
          O[0] = 1;
      },
      48, 48));
  L.push_back(B(
      "bar.warp.sync", {"u32"},
      "mov.u32 %r0, %tid.x;\n shl.b32 %r2, %r0, 2;\n mov.u32 %r3, $buf;\n"
      " add.u32 %r4, %r3, %r2;\n st.shared.u32 [%r4], %a0;\n bar.warp.sync -1;\n"
      " xor.b32 %r5, %r0, 1;\n shl.b32 %r5, %r5, 2;\n add.u32 %r6, %r3, %r5;\n"
      " ld.shared.u32 %d0, [%r6];",
      [](RefContext &C) {
        for (size_t T = 0; T < C.In.size(); ++T)
          C.Out[T][0] = C.In[T ^ 1][0];
      },
      64, 64, Buf));
  L.push_back(B(
      "nanosleep", {"u32"},
      "nanosleep.u32 100;\n mov.u32 %r0, 7;\n nanosleep.u32 %r0;\n"
      " add.u32 %d0, %a0, 1;",
      [](RefContext &C) {
        for (size_t T = 0; T < C.In.size(); ++T)
          C.Out[T][0] = uint32_t(C.In[T][0] + 1);
      },
      32, 32));
  // griddepcontrol (9.7.13.12): the grids this one depends on have completed (none here), and
  // launching dependents early is a hint.
  L.push_back(B(
      "griddepcontrol", {"u32"},
      "griddepcontrol.wait;\n mul.lo.u32 %d0, %a0, 3;\n griddepcontrol.launch_dependents;",
      [](RefContext &C) {
        for (size_t T = 0; T < C.In.size(); ++T)
          C.Out[T][0] = uint32_t(C.In[T][0] * 3);
      },
      64, 64));
}

} // namespace reptx::conformance
