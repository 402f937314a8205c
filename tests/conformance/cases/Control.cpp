// Control flow (PTX ISA 9.7.12, 9.7.19): bra/bra.uni, brx.idx, direct and indirect calls with
// .param arguments and results, recursion, exit, trap, brkpt, pmevent, predicated execution.
#include "../Conformance.h"

namespace reptx::conformance {

namespace {

using u64 = uint64_t;

Case Cf(std::string Name, std::vector<std::string> In, std::vector<std::string> Out,
        std::string Body, std::vector<std::vector<u64>> Rows, RowFn F, std::string Decls = {}) {
  Case C;
  C.Family = "control";
  C.Name = std::move(Name);
  C.InTypes = std::move(In);
  C.OutTypes = std::move(Out);
  C.Body = std::move(Body);
  C.Rows = std::move(Rows);
  C.Ref = perThread(std::move(F));
  C.ModuleDecls = std::move(Decls);
  return C;
}

std::vector<std::vector<u64>> range(unsigned N, unsigned Mul = 1) {
  std::vector<std::vector<u64>> R;
  for (unsigned I = 0; I < N; ++I)
    R.push_back({I * Mul});
  return R;
}

} // namespace

void addControlCases(CaseList &L) {
  // A data-dependent loop: Collatz steps (divergent trip counts across lanes).
  L.push_back(Cf("bra.loop", {"u32"}, {"u32"},
                 "add.u32 %r0, %a0, 1;\n mov.u32 %d0, 0;\n$Lloop:\n setp.eq.u32 %p0, %r0, 1;\n"
                 " @%p0 bra $Ldone;\n and.b32 %r1, %r0, 1;\n setp.eq.u32 %p1, %r1, 0;\n"
                 " @%p1 shr.u32 %r0, %r0, 1;\n @!%p1 mad.lo.u32 %r0, %r0, 3, 1;\n"
                 " add.u32 %d0, %d0, 1;\n bra $Lloop;\n$Ldone:",
                 range(64), [](auto &R) {
                   u64 N = R[0] + 1, Steps = 0;
                   while (N != 1)
                     N = (N & 1) ? 3 * N + 1 : N / 2, ++Steps;
                   return std::vector<u64>{Steps};
                 }));
  L.push_back(Cf("bra.uni", {"u32"}, {"u32"},
                 "mov.u32 %d0, %a0;\n bra.uni $Lskip;\n mov.u32 %d0, 0;\n$Lskip:\n"
                 " add.u32 %d0, %d0, 1;",
                 range(8), [](auto &R) { return std::vector<u64>{R[0] + 1}; }));
  L.push_back(Cf("predicated.negated", {"s32"}, {"s32"},
                 "setp.lt.s32 %p0, %a0, 0;\n mov.s32 %d0, %a0;\n @%p0 neg.s32 %d0, %a0;\n"
                 " @!%p0 add.s32 %d0, %d0, 100;",
                 rows1({0, 5, 0xfffffffb, 0x80000001}), [](auto &R) {
                   int32_t V = int32_t(uint32_t(R[0]));
                   return std::vector<u64>{uint32_t(V < 0 ? -V : V + 100)};
                 }));
  // brx.idx (9.7.12.3) through a .branchtargets list.
  L.push_back(Cf("brx.idx", {"u32"}, {"u32"},
                 "rem.u32 %r0, %a0, 4;\n$Ltab: .branchtargets $L0, $L1, $L2, $L3;\n"
                 " brx.idx %r0, $Ltab;\n$L0:\n mov.u32 %d0, 100;\n bra $Lend;\n"
                 "$L1:\n mov.u32 %d0, 201;\n bra $Lend;\n$L2:\n mov.u32 %d0, 302;\n bra $Lend;\n"
                 "$L3:\n mov.u32 %d0, 403;\n$Lend:",
                 range(16, 7), [](auto &R) {
                   const u64 T[] = {100, 201, 302, 403};
                   return std::vector<u64>{T[R[0] % 4]};
                 }));
  const char *Fn = ".func (.param .b32 $r) $sq(.param .b32 $x, .param .b32 $y)\n{\n"
                   " .reg .b32 %t<4>;\n ld.param.b32 %t0, [$x];\n ld.param.b32 %t1, [$y];\n"
                   " mad.lo.u32 %t2, %t0, %t0, %t1;\n st.param.b32 [$r], %t2;\n ret;\n}\n";
  L.push_back(Cf(
      "call.direct", {"u32", "u32"}, {"u32"},
      "{\n .param .b32 pa;\n .param .b32 pb;\n .param .b32 pr;\n"
      " st.param.b32 [pa], %a0;\n st.param.b32 [pb], %a1;\n"
      " call (pr), $sq, (pa, pb);\n ld.param.b32 %d0, [pr];\n}",
      rows2({0, 3, 0xffff}, {1, 0x80000000}),
      [](auto &R) { return std::vector<u64>{uint32_t(R[0] * R[0] + R[1])}; }, Fn));
  // Indirect call through .callprototype (9.7.12.5) with a function address chosen per thread.
  L.push_back(Cf(
      "call.indirect", {"u32"}, {"u32"},
      "and.b32 %r0, %a0, 1;\n setp.eq.u32 %p0, %r0, 0;\n mov.u64 %rd0, $f0;\n"
      " mov.u64 %rd1, $f1;\n selp.b64 %rd2, %rd0, %rd1, %p0;\n"
      "{\n $Lproto: .callprototype (.param .b32 _) _ (.param .b32 _);\n"
      " .param .b32 pa;\n .param .b32 pr;\n st.param.b32 [pa], %a0;\n"
      " call (pr), %rd2, (pa), $Lproto;\n ld.param.b32 %d0, [pr];\n}",
      range(12, 3), [](auto &R) { return std::vector<u64>{(R[0] & 1) ? R[0] * 3 : R[0] + 7}; },
      ".func (.param .b32 $r) $f0(.param .b32 $x)\n{\n .reg .b32 %t<2>;\n"
      " ld.param.b32 %t0, [$x];\n add.u32 %t1, %t0, 7;\n st.param.b32 [$r], %t1;\n"
      " ret;\n}\n"
      ".func (.param .b32 $r) $f1(.param .b32 $x)\n{\n .reg .b32 %t<2>;\n"
      " ld.param.b32 %t0, [$x];\n mul.lo.u32 %t1, %t0, 3;\n st.param.b32 [$r], %t1;\n"
      " ret;\n}\n"));
  // Recursion: fib(n) computed by a recursive .func.
  L.push_back(Cf(
      "call.recursive", {"u32"}, {"u32"},
      "{\n .param .b32 pa;\n .param .b32 pr;\n st.param.b32 [pa], %a0;\n"
      " call (pr), $fib, (pa);\n ld.param.b32 %d0, [pr];\n}",
      range(12),
      [](auto &R) {
        u64 A = 0, B = 1;
        for (u64 I = 0; I < R[0]; ++I) {
          u64 T = A + B;
          A = B;
          B = T;
        }
        return std::vector<u64>{A};
      },
      ".func (.param .b32 $r) $fib(.param .b32 $n)\n{\n .reg .b32 %t<8>;\n"
      " .reg .pred %q;\n ld.param.b32 %t0, [$n];\n setp.lt.u32 %q, %t0, 2;\n"
      " @%q bra $Lbase;\n sub.u32 %t1, %t0, 1;\n sub.u32 %t2, %t0, 2;\n"
      " {\n .param .b32 a;\n .param .b32 r;\n st.param.b32 [a], %t1;\n"
      " call (r), $fib, (a);\n ld.param.b32 %t3, [r];\n }\n"
      " {\n .param .b32 a;\n .param .b32 r;\n st.param.b32 [a], %t2;\n"
      " call (r), $fib, (a);\n ld.param.b32 %t4, [r];\n }\n"
      " add.u32 %t5, %t3, %t4;\n st.param.b32 [$r], %t5;\n ret;\n"
      "$Lbase:\n st.param.b32 [$r], %t0;\n ret;\n}\n"));
  // A .param aggregate passed by value and a 64-bit result, several returns.
  L.push_back(Cf(
      "call.param_array", {"u32", "u32"}, {"u64"},
      "{\n .param .align 8 .b8 pa[16];\n .param .b64 pr;\n st.param.b32 [pa], %a0;\n"
      " st.param.b32 [pa+4], %a1;\n cvt.u64.u32 %rd0, %a1;\n st.param.b64 [pa+8], %rd0;\n"
      " call (pr), $agg, (pa);\n ld.param.b64 %d0, [pr];\n}",
      rows2({1, 0x80000000}, {2, 0xffffffff}),
      [](auto &R) { return std::vector<u64>{R[0] > R[1] ? R[0] : (R[0] << 32) + R[1] + R[1]}; },
      ".func (.param .b64 $r) $agg(.param .align 8 .b8 $s[16])\n{\n .reg .b32 %t<3>;\n"
      " .reg .b64 %u<4>;\n .reg .pred %q;\n ld.param.b32 %t0, [$s];\n"
      " ld.param.b32 %t1, [$s+4];\n ld.param.b64 %u0, [$s+8];\n"
      " setp.gt.u32 %q, %t0, %t1;\n @%q bra $Lbig;\n cvt.u64.u32 %u1, %t0;\n"
      " shl.b64 %u1, %u1, 32;\n add.u64 %u1, %u1, %u0;\n cvt.u64.u32 %u2, %t1;\n"
      " add.u64 %u1, %u1, %u2;\n st.param.b64 [$r], %u1;\n ret;\n$Lbig:\n"
      " cvt.u64.u32 %u3, %t0;\n st.param.b64 [$r], %u3;\n ret;\n}\n"));
  // A void function that writes through a pointer argument.
  L.push_back(Cf(
      "call.void_pointer", {"u32"}, {"u32"},
      "{\n .param .b64 pp;\n .param .b32 pv;\n st.param.b64 [pp], %oa;\n"
      " st.param.b32 [pv], %a0;\n call $store, (pp, pv);\n}\n"
      " ld.global.u32 %d0, [%oa];",
      range(10, 11), [](auto &R) { return std::vector<u64>{R[0] ^ 0x5a5a}; },
      ".func $store(.param .b64 $p, .param .b32 $v)\n{\n .reg .b64 %u;\n"
      " .reg .b32 %t<2>;\n ld.param.b64 %u, [$p];\n ld.param.b32 %t0, [$v];\n"
      " xor.b32 %t1, %t0, 0x5a5a;\n st.global.u32 [%u], %t1;\n ret;\n}\n"));
  // exit: odd threads leave before storing (their output stays 0).
  L.push_back(Cf("exit", {"u32"}, {"u32"},
                 "and.b32 %r0, %gid, 1;\n setp.ne.u32 %p0, %r0, 0;\n @%p0 exit;\n"
                 " add.u32 %d0, %a0, 1;",
                 range(40, 5),
                 [](auto &R) { return std::vector<u64>{(R[0] / 5) & 1 ? 0 : R[0] + 1}; }));
  // trap (9.7.19.4) aborts the kernel: thread 5 traps, the dispatch stops with an error.
  {
    Case C =
        Cf("trap", {"u32"}, {"u32"}, "setp.eq.u32 %p0, %a0, 5;\n @%p0 trap;\n add.u32 %d0, %a0, 1;",
           range(32), [](auto &R) { return std::vector<u64>{R[0] + 1}; });
    C.ExpectError = "trap";
    L.push_back(C);
    // brkpt (9.7.19.1) with no debugger attached: reptx traps.
    C.Name = "brkpt";
    C.Body = "setp.eq.u32 %p0, %a0, 9;\n @%p0 brkpt;\n add.u32 %d0, %a0, 1;";
    L.push_back(C);
  }
  // A trap no thread reaches, and pmevent (9.7.19.3), change nothing.
  L.push_back(Cf("trap.not_taken", {"u32"}, {"u32"},
                 "setp.gt.u32 %p0, %a0, 100;\n @%p0 trap;\n pmevent 3;\n pmevent.mask 0x5;\n"
                 " add.u32 %d0, %a0, 1;",
                 range(32), [](auto &R) { return std::vector<u64>{R[0] + 1}; }));
  // ret from the kernel.
  L.push_back(Cf("ret.early", {"u32"}, {"u32"},
                 "setp.gt.u32 %p0, %a0, 20;\n @%p0 ret;\n mul.lo.u32 %d0, %a0, 2;", range(40),
                 [](auto &R) { return std::vector<u64>{R[0] > 20 ? 0 : R[0] * 2}; }));
  // Nested divergence: if/else inside a loop with a per-lane trip count.
  L.push_back(Cf("divergent.nested", {"u32"}, {"u32"},
                 "mov.u32 %r0, 0;\n mov.u32 %d0, 0;\n$Lh:\n setp.ge.u32 %p0, %r0, %a0;\n"
                 " @%p0 bra $Lx;\n and.b32 %r1, %r0, 1;\n setp.eq.u32 %p1, %r1, 0;\n"
                 " @%p1 bra $Leven;\n add.u32 %d0, %d0, %r0;\n bra $Lnext;\n$Leven:\n"
                 " mad.lo.u32 %d0, %d0, 3, 1;\n$Lnext:\n add.u32 %r0, %r0, 1;\n bra $Lh;\n$Lx:",
                 range(48), [](auto &R) {
                   uint32_t D = 0;
                   for (uint32_t I = 0; I < R[0]; ++I)
                     D = (I & 1) ? D + I : D * 3 + 1;
                   return std::vector<u64>{D};
                 }));
}

} // namespace reptx::conformance
