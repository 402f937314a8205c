// Barriers (PTX ISA 9.7.13.1 bar/barrier, 9.7.13.2 bar.red, 9.7.13.3 bar.warp.sync, 9.7.13.9
// nanosleep): every thread's write before the barrier is visible to every thread after it;
// bar.red reduces a predicate over the block; named barriers with thread counts let a producer
// warp hand data to consumer warps; mbarrier objects (9.7.13.15) order the same exchanges.
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

  // mbarrier (9.7.13.15) in place of the CTA barrier: thread 0 initialises it for the whole
  // block, every thread arrives and waits until the phase completes (by the state arrive
  // returned), then reads the value its mirror thread wrote before arriving.
  const std::string MbInit = "mov.u32 %r0, %tid.x;\n mov.u32 %r1, %ntid.x;\n"
                             " setp.ne.u32 %p6, %r0, 0;\n @%p6 bra $Lmbi;\n"
                             " mbarrier.init.shared.b64 [$mb], %r1;\n$Lmbi:\n bar.sync 0;\n ";
  const std::string MbDecls = std::string(Buf) + "\n.shared .align 8 .b64 $mb;";
  L.push_back(B("mbarrier.arrive.test_wait", {"u32"},
                MbInit + mirror("mbarrier.arrive.shared.b64 %rd5, [$mb];\n$Lmbw:\n"
                                " mbarrier.test_wait.shared.b64 %p5, [$mb], %rd5;\n"
                                " @!%p5 bra $Lmbw;"),
                mirrorRef, 192, 96, MbDecls));
  // Two phases waited for by parity (as cuda::pipeline does), the second through a generic
  // address: the mirror's value after the first, the next thread's second value after the
  // second.
  L.push_back(B(
      "mbarrier.try_wait.parity", {"u32", "u32"},
      MbInit +
          mirror("mbarrier.arrive.shared.b64 _, [$mb];\n$Lmbw0:\n"
                 " mbarrier.try_wait.parity.shared.b64 %p5, [$mb], 0;\n @!%p5 bra $Lmbw0;") +
          "\n mov.u32 %r7, $buf2;\n add.u32 %r8, %r7, %r2;\n mul.lo.u32 %r9, %a0, 3;\n"
          " st.shared.u32 [%r8], %r9;\n mov.u64 %rd6, $mb;\n cvta.shared.u64 %rd6, %rd6;\n"
          " mbarrier.arrive.b64 %rd7, [%rd6];\n$Lmbw1:\n"
          " mbarrier.test_wait.parity.b64 %p5, [%rd6], 1;\n @!%p5 bra $Lmbw1;\n"
          " add.u32 %r10, %r0, 1;\n rem.u32 %r10, %r10, %r1;\n shl.b32 %r10, %r10, 2;\n"
          " add.u32 %r10, %r7, %r10;\n ld.shared.u32 %d1, [%r10];",
      [](RefContext &C) {
        mirrorRef(C);
        unsigned Bk = C.BlockThreads;
        for (size_t T = 0; T < C.In.size(); ++T) {
          size_t Base = T / Bk * Bk;
          C.Out[T][1] = uint32_t(C.In[Base + (T - Base + 1) % Bk][0] * 3);
        }
      },
      128, 64, MbDecls + "\n.shared .align 4 .b8 $buf2[2048];"));
  // One thread, its own object: arrival counts, arrive_drop, pending_count (of the state before
  // the arrival), and which phases count as completed for test_wait and test_wait.parity.
  // Expected 3; arrive (3 pending before it); arrive_drop 2 completes phase 0 and leaves 1
  // expected; arrive (1 pending before it) completes phase 1; phase 2 (parity 0) is current.
  L.push_back(B(
      "mbarrier.arrive_drop.pending_count", {"u32", "u32", "u32", "u32", "u32", "u32"},
      "mov.u32 %r0, %tid.x;\n shl.b32 %r0, %r0, 3;\n mov.u32 %r1, $mbs;\n add.u32 %r1, %r1, %r0;\n"
      " mbarrier.init.shared.b64 [%r1], 3;\n mbarrier.arrive.shared.b64 %rd1, [%r1];\n"
      " mbarrier.pending_count.b64 %d0, %rd1;\n mbarrier.test_wait.shared.b64 %p1, [%r1], %rd1;\n"
      " selp.u32 %d1, 1, 0, %p1;\n mbarrier.arrive_drop.shared.b64 %rd2, [%r1], 2;\n"
      " mbarrier.test_wait.shared.b64 %p1, [%r1], %rd1;\n selp.u32 %d2, 1, 0, %p1;\n"
      " mbarrier.arrive.shared.b64 %rd3, [%r1];\n mbarrier.pending_count.b64 %d3, %rd3;\n"
      " mbarrier.test_wait.parity.shared.b64 %p1, [%r1], 0;\n selp.u32 %d4, 1, 0, %p1;\n"
      " mbarrier.test_wait.parity.shared.b64 %p1, [%r1], 1;\n selp.u32 %d5, 1, 0, %p1;\n"
      " mbarrier.inval.shared.b64 [%r1];",
      [](RefContext &C) {
        for (auto &O : C.Out)
          O = {3, 0, 1, 1, 0, 1};
      },
      64, 64, ".shared .align 8 .b64 $mbs[64];"));
  // cp.async.mbarrier.arrive (9.7.9.25.3.4): with .noinc the copies' completion is one of the
  // expected arrivals, without it no change; the copied value is there once the phase completes.
  L.push_back(B(
      "cp.async.mbarrier.arrive", {"u32", "u32", "u32"},
      "mov.u32 %r0, %tid.x;\n shl.b32 %r2, %r0, 3;\n mov.u32 %r1, $mbs;\n add.u32 %r1, %r1, %r2;\n"
      " shl.b32 %r3, %r0, 2;\n mov.u32 %r4, $dst;\n add.u32 %r4, %r4, %r3;\n"
      " mbarrier.init.shared.b64 [%r1], 2;\n cp.async.ca.shared.global [%r4], [%ia], 4;\n"
      " cp.async.mbarrier.arrive.shared.b64 [%r1];\n"
      " cp.async.mbarrier.arrive.noinc.shared.b64 [%r1];\n"
      " mbarrier.arrive.shared.b64 %rd2, [%r1];\n mbarrier.pending_count.b64 %d0, %rd2;\n"
      " mbarrier.test_wait.shared.b64 %p1, [%r1], %rd2;\n selp.u32 %d1, 1, 0, %p1;\n"
      " ld.shared.u32 %d2, [%r4];",
      [](RefContext &C) {
        for (size_t T = 0; T < C.In.size(); ++T)
          C.Out[T] = {1, 1, uint32_t(C.In[T][0])};
      },
      64, 64, ".shared .align 8 .b64 $mbs[64];\n.shared .align 4 .b8 $dst[256];"));
}

} // namespace reptx::conformance
