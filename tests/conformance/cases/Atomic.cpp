// Atomics (PTX ISA 9.7.13.5 atom, 9.7.13.6 red): every operation and type. Each thread applies the
// operation once to a private word (so the returned old value is known) and once to a word that
// all threads share (its final value is order independent for these inputs: integer operations
// commute, inc/dec use one bound, float sums are exact).
#include "../Conformance.h"

#include <bit>
#include <cmath>

namespace reptx::conformance {

namespace {

using u64 = uint64_t;

using OpFn = std::function<u64(u64 Old, u64 B)>;

// Case "atom.SPACE.OP.TYPE" (or red when Red): a0 is the operand; d0 the old private value.
Case Atom(std::string Instr, std::string Type, std::vector<u64> Vals, u64 Init, OpFn F,
          unsigned Bits, bool Red = false, bool CheckShared = true) {
  Case C;
  C.Family = "atomic";
  C.Name = Instr;
  C.InTypes = {Type == "f16" || Type == "bf16"       ? Type
               : Type == "f16x2" || Type == "bf16x2" ? "b32"
                                                     : Type};
  std::string RegT = C.InTypes[0];
  C.OutTypes = Red ? std::vector<std::string>{} : std::vector<std::string>{RegT};
  std::string Addr = "mul.wide.u32 %rd9, %gid, 8;\n add.u64 %rd9, %rd9, %scratch;\n"
                     " add.u64 %rd9, %rd9, 8;\n";
  if (Red)
    C.Body = Addr + " " + Instr + " [%rd9], %a0;\n " + Instr + " [%scratch], %a0;";
  else
    C.Body = Addr + " " + Instr + " %d0, [%rd9], %a0;\n " + Instr + " %d1, [%scratch], %a0;";
  if (!Red)
    C.OutTypes.push_back(RegT);
  const unsigned N = 64;
  for (unsigned I = 0; I < N; ++I)
    C.Rows.push_back({Vals[I % Vals.size()]});
  C.Scratch.assign(N + 1, Init);
  u64 Mask = Bits == 64 ? ~0ull : (1ull << Bits) - 1;
  C.Ref = [=](RefContext &X) {
    u64 Shared = X.Scratch[0];
    for (size_t T = 0; T < X.In.size(); ++T) {
      u64 Old = X.Scratch[1 + T];
      X.Scratch[1 + T] = (Old & ~Mask) | (F(Old & Mask, X.In[T][0] & Mask) & Mask);
      if (!Red)
        X.Out[T] = {Old & Mask, Any};
      Shared = (Shared & ~Mask) | (F(Shared & Mask, X.In[T][0] & Mask) & Mask);
    }
    X.Scratch[0] = CheckShared ? Shared : Any;
  };
  return C;
}

u64 h(float F) { return std::bit_cast<uint16_t>(_Float16(F)); }
float hf(u64 V) { return float(std::bit_cast<_Float16>(uint16_t(V))); }
u64 bf(float F) { return std::bit_cast<uint32_t>(F) >> 16; } // exact for the test values
float bff(u64 V) { return std::bit_cast<float>(uint32_t(V & 0xffff) << 16); }

// A spin lock at scratch word 0 guarding the counter at word 1: each of Threads threads (blocks
// of Block, 0: one block) runs Take (returns holding the lock), adds %gid to the counter with
// volatile accesses and runs Give (the release); the counter must end at the sum of the ids.
Case SpinLock(std::string Name, const std::string &Take, const std::string &Give, unsigned Threads,
              unsigned Block = 0) {
  Case C;
  C.Family = "atomic";
  C.Name = std::move(Name);
  C.Body = Take +
           " ld.volatile.global.u32 %r1, [%scratch+8];\n add.u32 %r1, %r1, %gid;\n"
           " st.volatile.global.u32 [%scratch+8], %r1;\n" +
           Give;
  C.Rows.assign(Threads, std::vector<u64>{});
  C.Scratch = {0, 0};
  C.Block = Block;
  C.Ref = [](RefContext &X) { X.Scratch[1] = u64(X.Out.size()) * (X.Out.size() - 1) / 2; };
  return C;
}

const char *const CasTake = "$Lretry:\n atom.global.cas.b32 %r0, [%scratch], 0, 1;\n"
                            " setp.ne.u32 %p0, %r0, 0;\n @%p0 bra $Lretry;\n";
const char *const ExchGive = " membar.gl;\n atom.global.exch.b32 %r2, [%scratch], 0;";

} // namespace

void addAtomicCases(CaseList &L) {
  const std::vector<u64> I32 = {1, 5, 0xffffffff, 0x80000000, 0x7fffffff, 1234567, 0, 42};
  const std::vector<u64> I64 = {1, 0xffffffffffffffffull, 0x8000000000000000ull, 0x123456789ull, 7};
  auto S32 = [](u64 V) { return int32_t(uint32_t(V)); };
  L.push_back(Atom(
      "atom.global.add.u32", "u32", I32, 100, [](u64 A, u64 B) { return A + B; }, 32));
  L.push_back(Atom(
      "atom.global.add.u64", "u64", I64, 3, [](u64 A, u64 B) { return A + B; }, 64));
  L.push_back(Atom(
      "atom.global.min.s32", "s32", I32, 17,
      [S32](u64 A, u64 B) { return u64(uint32_t(std::min(S32(A), S32(B)))); }, 32));
  L.push_back(Atom(
      "atom.global.max.s32", "s32", I32, 17,
      [S32](u64 A, u64 B) { return u64(uint32_t(std::max(S32(A), S32(B)))); }, 32));
  L.push_back(Atom(
      "atom.global.min.u32", "u32", I32, 17, [](u64 A, u64 B) { return std::min(A, B); }, 32));
  L.push_back(Atom(
      "atom.global.max.u32", "u32", I32, 17, [](u64 A, u64 B) { return std::max(A, B); }, 32));
  L.push_back(Atom(
      "atom.global.min.s64", "s64", I64, 17,
      [](u64 A, u64 B) { return u64(std::min(int64_t(A), int64_t(B))); }, 64));
  L.push_back(Atom(
      "atom.global.max.u64", "u64", I64, 17, [](u64 A, u64 B) { return std::max(A, B); }, 64));
  L.push_back(Atom(
      "atom.global.max.s64", "s64", I64, 17,
      [](u64 A, u64 B) { return u64(std::max(int64_t(A), int64_t(B))); }, 64));
  L.push_back(Atom(
      "atom.global.min.u64", "u64", I64, 17, [](u64 A, u64 B) { return std::min(A, B); }, 64));
  L.push_back(Atom(
      "atom.global.or.b64", "b64", I64, 0x100, [](u64 A, u64 B) { return A | B; }, 64));
  // inc/dec (9.7.13.5): d = old >= b ? 0 : old + 1; d = (old == 0 || old > b) ? b : old - 1.
  L.push_back(Atom(
      "atom.global.inc.u32", "u32", {13}, 5, [](u64 A, u64 B) { return A >= B ? 0 : A + 1; }, 32));
  L.push_back(Atom(
      "atom.global.dec.u32", "u32", {13}, 5,
      [](u64 A, u64 B) { return (A == 0 || A > B) ? B : A - 1; }, 32));
  L.push_back(Atom(
      "atom.global.and.b32", "b32", I32, 0xfffffffe, [](u64 A, u64 B) { return A & B; }, 32));
  L.push_back(Atom(
      "atom.global.or.b32", "b32", I32, 0x100, [](u64 A, u64 B) { return A | B; }, 32));
  L.push_back(Atom(
      "atom.global.xor.b32", "b32", I32, 0x100, [](u64 A, u64 B) { return A ^ B; }, 32));
  L.push_back(Atom(
      "atom.global.and.b64", "b64", I64, ~0ull, [](u64 A, u64 B) { return A & B; }, 64));
  L.push_back(Atom(
      "atom.global.xor.b64", "b64", I64, 5, [](u64 A, u64 B) { return A ^ B; }, 64));
  L.push_back(Atom(
      "atom.global.exch.b32", "b32", I32, 99, [](u64, u64 B) { return B; }, 32, false, false));
  L.push_back(Atom(
      "atom.global.exch.b64", "b64", I64, 99, [](u64, u64 B) { return B; }, 64, false, false));
  const std::vector<u64> FV = {f32(1.0f), f32(-0.5f), f32(2.25f), f32(3.0f)};
  L.push_back(Atom(
      "atom.global.add.f32", "f32", FV, f32(10.0f),
      [](u64 A, u64 B) { return f32(asF32(A) + asF32(B)); }, 32));
  L.push_back(Atom(
      "atom.global.add.f64", "f64", {f64(1.5), f64(-0.25), f64(8.0)}, f64(1.0),
      [](u64 A, u64 B) { return f64(asF64(A) + asF64(B)); }, 64));
  L.push_back(Atom(
      "atom.global.add.noftz.f16", "f16", {h(1.0f), h(-0.5f), h(0.25f)}, h(2.0f),
      [](u64 A, u64 B) { return h(hf(A) + hf(B)); }, 16));
  L.push_back(Atom(
      "atom.global.add.noftz.f16x2", "f16x2", {h(1.0f) | h(2.0f) << 16, h(-0.5f) | h(0.25f) << 16},
      h(2.0f) | h(-4.0f) << 16,
      [](u64 A, u64 B) { return h(hf(A) + hf(B)) | h(hf(A >> 16) + hf(B >> 16)) << 16; }, 32));
  L.push_back(Atom(
      "atom.global.add.noftz.bf16", "bf16", {bf(1.0f), bf(-0.5f), bf(0.25f)}, bf(2.0f),
      [](u64 A, u64 B) { return bf(bff(A) + bff(B)); }, 16));
  L.push_back(Atom(
      "atom.global.add.noftz.bf16x2", "bf16x2",
      {bf(1.0f) | bf(2.0f) << 16, bf(-0.5f) | bf(1.0f) << 16}, bf(2.0f) | bf(-4.0f) << 16,
      [](u64 A, u64 B) { return bf(bff(A) + bff(B)) | bf(bff(A >> 16) + bff(B >> 16)) << 16; },
      32));
  // Scopes and orderings (9.7.13.5): the same semantics.
  L.push_back(Atom(
      "atom.relaxed.gpu.global.add.u32", "u32", I32, 0, [](u64 A, u64 B) { return A + B; }, 32));
  L.push_back(Atom(
      "atom.acquire.cta.global.or.b32", "b32", I32, 0, [](u64 A, u64 B) { return A | B; }, 32));
  L.push_back(Atom(
      "atom.release.sys.global.max.u32", "u32", I32, 0, [](u64 A, u64 B) { return std::max(A, B); },
      32));
  L.push_back(Atom(
      "atom.acq_rel.gpu.add.u64", "u64", I64, 0, [](u64 A, u64 B) { return A + B; }, 64));
  L.push_back(Atom(
      "red.global.add.u32", "u32", I32, 7, [](u64 A, u64 B) { return A + B; }, 32, true));
  L.push_back(Atom(
      "red.global.min.s32", "s32", I32, 7,
      [S32](u64 A, u64 B) { return u64(uint32_t(std::min(S32(A), S32(B)))); }, 32, true));
  L.push_back(Atom(
      "red.relaxed.gpu.global.add.f32", "f32", FV, 0,
      [](u64 A, u64 B) { return f32(asF32(A) + asF32(B)); }, 32, true));
  L.push_back(Atom(
      "red.global.xor.b64", "b64", I64, 0, [](u64 A, u64 B) { return A ^ B; }, 64, true));
  L.push_back(Atom(
      "red.global.inc.u32", "u32", {9}, 0, [](u64 A, u64 B) { return A >= B ? 0 : A + 1; }, 32,
      true));
  L.push_back(Atom(
      "red.global.add.noftz.f16x2", "f16x2", {h(1.0f) | h(0.5f) << 16}, 0,
      [](u64 A, u64 B) { return h(hf(A) + hf(B)) | h(hf(A >> 16) + hf(B >> 16)) << 16; }, 32,
      true));
  // cas (9.7.13.5): d = old; *a = old == b ? c : old. Odd threads' compare values match.
  for (std::string T : {"b32", "b64", "b16"}) {
    Case C;
    C.Family = "atomic";
    C.Name = "atom.global.cas." + T;
    C.InTypes = {T, T};
    C.OutTypes = {T};
    C.Body = "mul.wide.u32 %rd9, %gid, 8;\n add.u64 %rd9, %rd9, %scratch;\n"
             " atom.global.cas." +
             T + " %d0, [%rd9], %a0, %a1;";
    unsigned Bits = T == "b16" ? 16 : T == "b32" ? 32 : 64;
    u64 Mask = Bits == 64 ? ~0ull : (1ull << Bits) - 1;
    for (unsigned I = 0; I < 40; ++I) {
      u64 Init = (0x1234567890abcdefull * (I + 1));
      C.Scratch.push_back(Init);
      C.Rows.push_back({(I & 1) ? Init & Mask : (Init + 1) & Mask, 0xfedcba9876543210ull & Mask});
    }
    C.Ref = [Mask](RefContext &X) {
      for (size_t I = 0; I < X.In.size(); ++I) {
        u64 Old = X.Scratch[I] & Mask;
        X.Out[I] = {Old};
        if (Old == X.In[I][0])
          X.Scratch[I] = (X.Scratch[I] & ~Mask) | X.In[I][1];
      }
    };
    L.push_back(C);
  }
  // A spin lock built from cas and exch: every thread of the block increments a counter; then
  // the same lock taken by two warps (one wave in gfx942's packed mode).
  L.push_back(SpinLock("cas.spinlock", CasTake, ExchGive, 16, 16));
  L.push_back(SpinLock("cas.spinlock.two_warps", CasTake, ExchGive, 64, 64));
  // A critical section with a branch, released by st.release; the value it computes is used
  // after the release (each thread's own, whatever the order).
  {
    Case C;
    C.Family = "atomic";
    C.Name = "cas.spinlock.branch_release_store";
    C.OutTypes = {"u32"};
    C.Body = "$Lretry:\n atom.global.cas.b32 %r0, [%scratch], 0, 1;\n setp.ne.u32 %p0, %r0, 0;\n"
             " @%p0 bra $Lretry;\n ld.volatile.global.u32 %r1, [%scratch+8];\n"
             " and.b32 %r4, %gid, 1;\n setp.eq.u32 %p1, %r4, 0;\n mov.u32 %r5, %gid;\n"
             " @%p1 bra $Leven;\n shl.b32 %r5, %gid, 1;\n$Leven:\n add.u32 %r1, %r1, %r5;\n"
             " st.volatile.global.u32 [%scratch+8], %r1;\n"
             " st.release.gpu.global.u32 [%scratch], 0;\n mov.u32 %d0, %r5;";
    C.Rows.assign(32, std::vector<u64>{});
    C.Scratch = {0, 0};
    C.Ref = [](RefContext &X) {
      u64 Sum = 0;
      for (u64 G = 0; G < X.Out.size(); ++G) {
        X.Out[G] = {G % 2 ? 2 * G : G};
        Sum += X.Out[G][0];
      }
      X.Scratch[1] = Sum;
    };
    L.push_back(C);
  }
  // A lock in shared memory, taken by 64 threads (two warps), then a barrier after the release.
  {
    Case C;
    C.Family = "atomic";
    C.Name = "cas.spinlock.shared";
    C.OutTypes = {"u32"};
    C.ModuleDecls = ".shared .align 8 .u32 $lk[2];";
    C.Body = "mov.u32 %r9, %tid.x;\n setp.ne.u32 %p2, %r9, 0;\n @%p2 bra $Linit;\n"
             " st.shared.v2.u32 [$lk], {0, 0};\n$Linit:\n bar.sync 0;\n$Lretry:\n"
             " atom.shared.cas.b32 %r0, [$lk], 0, 1;\n setp.ne.u32 %p0, %r0, 0;\n"
             " @%p0 bra $Lretry;\n ld.volatile.shared.u32 %r1, [$lk+4];\n"
             " add.u32 %r1, %r1, %gid;\n st.volatile.shared.u32 [$lk+4], %r1;\n"
             " atom.shared.exch.b32 %r2, [$lk], 0;\n bar.sync 0;\n ld.shared.u32 %d0, [$lk+4];";
    C.Rows.assign(64, std::vector<u64>{});
    C.Block = 64;
    C.Ref = [](RefContext &X) {
      for (auto &O : X.Out)
        O = {63 * 64 / 2};
    };
    L.push_back(C);
  }
  // Test and test-and-set: wait while the lock reads taken (ld.volatile), then try the cas; a
  // lock taken by exch and released by a relaxed atomic store; a failed try that backs off with
  // nanosleep before the next (a spin loop of two blocks).
  L.push_back(SpinLock("cas.spinlock.test_and_test_and_set",
                       "$Lwait:\n ld.volatile.global.u32 %r7, [%scratch];\n"
                       " setp.ne.u32 %p3, %r7, 0;\n @%p3 bra $Lwait;\n"
                       " atom.global.cas.b32 %r0, [%scratch], 0, 1;\n setp.ne.u32 %p0, %r0, 0;\n"
                       " @%p0 bra $Lwait;\n",
                       ExchGive, 32));
  L.push_back(SpinLock("exch.spinlock",
                       "$Lretry:\n atom.global.exch.b32 %r0, [%scratch], 1;\n"
                       " setp.ne.u32 %p0, %r0, 0;\n @%p0 bra $Lretry;\n",
                       " st.relaxed.gpu.global.u32 [%scratch], 0;", 32));
  L.push_back(SpinLock("cas.spinlock.backoff",
                       "$Lretry:\n atom.global.cas.b32 %r0, [%scratch], 0, 1;\n"
                       " setp.eq.u32 %p0, %r0, 0;\n @%p0 bra $Lgot;\n nanosleep.u32 20;\n"
                       " bra.uni $Lretry;\n$Lgot:\n",
                       ExchGive, 32));
  // Each thread takes the lock three times (the spin loop inside another loop).
  {
    Case C;
    C.Family = "atomic";
    C.Name = "cas.spinlock.repeated";
    C.Body =
        "mov.u32 %r6, 0;\n$Louter:\n$Lretry:\n atom.global.cas.b32 %r0, [%scratch], 0, 1;\n"
        " setp.ne.u32 %p0, %r0, 0;\n @%p0 bra $Lretry;\n"
        " ld.volatile.global.u32 %r1, [%scratch+8];\n add.u32 %r1, %r1, 1;\n"
        " st.volatile.global.u32 [%scratch+8], %r1;\n atom.global.exch.b32 %r2, [%scratch], 0;\n"
        " add.u32 %r6, %r6, 1;\n setp.lt.u32 %p1, %r6, 3;\n @%p1 bra $Louter;";
    C.Rows.assign(32, std::vector<u64>{});
    C.Scratch = {0, 0};
    C.Ref = [](RefContext &X) { X.Scratch[1] = 96; };
    L.push_back(C);
  }
  // Shared-memory atomics, read back after a barrier.
  {
    Case C;
    C.Family = "atomic";
    C.Name = "atom.shared.add.max.cas";
    C.InTypes = {"u32"};
    C.OutTypes = {"u32", "u32", "u32"};
    C.ModuleDecls = ".shared .align 8 .u32 $sm[4];";
    C.Body = "mov.u32 %r9, %tid.x;\n setp.ne.u32 %p0, %r9, 0;\n @%p0 bra $Linit;\n"
             " st.shared.v2.u32 [$sm], {%r9, %r9};\n st.shared.u32 [$sm+8], %r9;\n$Linit:\n"
             " bar.sync 0;\n atom.shared.add.u32 %r0, [$sm], %a0;\n"
             " atom.shared.max.u32 %r1, [$sm+4], %a0;\n red.shared.add.u32 [$sm+8], 1;\n"
             " bar.sync 0;\n ld.shared.u32 %d0, [$sm];\n ld.shared.u32 %d1, [$sm+4];\n"
             " ld.shared.u32 %d2, [$sm+8];";
    for (unsigned I = 0; I < 96; ++I)
      C.Rows.push_back({u64(I * 37 % 101)});
    C.Block = 96;
    C.Ref = [](RefContext &X) {
      uint32_t Sum = 0, Max = 0;
      for (auto &R : X.In)
        Sum += uint32_t(R[0]), Max = std::max(Max, uint32_t(R[0]));
      for (auto &O : X.Out)
        O = {Sum, Max, 96};
    };
    L.push_back(C);
  }
  // 64-bit min, max, and, or, xor and exch in shared memory (ds_max_u64, ds_min_i64, ds_and_b64,
  // ds_wrxchg_rtn_b64, ...): each result is independent of the order the threads arrive in.
  {
    Case C;
    C.Family = "atomic";
    C.Name = "atom.shared.b64.minmax.logic";
    C.InTypes = {"u32"};
    C.OutTypes = {"u64", "u64", "u64", "u64", "u64", "u64", "u64"};
    C.ModuleDecls = ".shared .align 8 .u64 $sq[6];";
    C.Body =
        "mov.u32 %r9, %tid.x;\n setp.ne.u32 %p0, %r9, 0;\n @%p0 bra $Linit;\n"
        " st.shared.v2.u64 [$sq], {0, 0x7fffffffffffffff};\n"
        " st.shared.v2.u64 [$sq+16], {0xffffffffffffffff, 0};\n"
        " st.shared.v2.u64 [$sq+32], {0, 0x123456789};\n"
        "$Linit:\n bar.sync 0;\n cvt.u64.u32 %rd0, %a0;\n shl.b64 %rd1, %rd0, 33;\n"
        " cvt.u64.u32 %rd2, %r9;\n or.b64 %rd1, %rd1, %rd2;\n"
        " atom.shared.max.u64 %rd3, [$sq], %rd1;\n sub.s64 %rd4, %rd0, 50;\n"
        " atom.shared.min.s64 %rd5, [$sq+8], %rd4;\n and.b32 %r1, %a0, 63;\n"
        " mov.u64 %rd12, 1;\n shl.b64 %rd6, %rd12, %r1;\n not.b64 %rd7, %rd6;\n"
        " atom.shared.and.b64 %rd8, [$sq+16], %rd7;\n atom.shared.or.b64 %rd9, [$sq+24], %rd6;\n"
        " mul.lo.u64 %rd10, %rd0, 0x9e3779b97f4a7c15;\n"
        " atom.shared.xor.b64 %rd11, [$sq+32], %rd10;\n bar.sync 0;\n"
        " ld.shared.u64 %d0, [$sq];\n ld.shared.u64 %d1, [$sq+8];\n"
        " ld.shared.u64 %d2, [$sq+16];\n ld.shared.u64 %d3, [$sq+24];\n"
        " ld.shared.u64 %d4, [$sq+32];\n mov.u64 %d6, 0;\n @%p0 bra $Lread;\n"
        " atom.shared.exch.b64 %d6, [$sq+40], %rd1;\n$Lread:\n bar.sync 0;\n"
        " ld.shared.u64 %d5, [$sq+40];";
    for (unsigned I = 0; I < 96; ++I)
      C.Rows.push_back({u64(I * 37 % 101)});
    C.Block = 96;
    C.Ref = [](RefContext &X) {
      u64 Max = 0, And = ~u64(0), Or = 0, Xor = 0;
      int64_t Min = INT64_MAX;
      for (size_t T = 0; T < X.In.size(); ++T) {
        u64 A = X.In[T][0];
        Max = std::max(Max, A << 33 | T);
        Min = std::min(Min, int64_t(A) - 50);
        And &= ~(u64(1) << (A % 64));
        Or |= u64(1) << (A % 64);
        Xor ^= A * 0x9e3779b97f4a7c15ull;
      }
      // Thread 0 alone exchanges: it gets the initial value back, everyone reads its value.
      for (size_t T = 0; T < X.Out.size(); ++T)
        X.Out[T] = {Max, u64(Min), And, Or, Xor, X.In[0][0] << 33, T ? u64(0) : u64(0x123456789)};
    };
    L.push_back(C);
  }
  // Floating-point adds in shared memory (ds_add_f64 and ds_add_f32 on gfx942): quarters and
  // halves sum exactly in any order.
  {
    Case C;
    C.Family = "atomic";
    C.Name = "atom.shared.add.f64.f32";
    C.InTypes = {"u32"};
    C.OutTypes = {"u64", "u32", "u64"};
    C.ModuleDecls = ".shared .align 8 .f64 $sd[2];";
    C.Body = "mov.u32 %r9, %tid.x;\n setp.ne.u32 %p0, %r9, 0;\n"
             " @%p0 bra $Linit;\n st.shared.v2.f64 [$sd], {0d0000000000000000, "
             "0d0000000000000000};\n$Linit:\n"
             " bar.sync 0;\n cvt.rn.f64.u32 %fd0, %a0;\n mul.f64 %fd0, %fd0, 0d3FD0000000000000;\n"
             " atom.shared.add.f64 %fd1, [$sd], %fd0;\n cvt.rn.f32.u32 %f0, %a0;\n"
             " mul.f32 %f0, %f0, 0f3F000000;\n red.shared.add.f32 [$sd+8], %f0;\n bar.sync 0;\n"
             " ld.shared.f64 %fd2, [$sd];\n mov.b64 %d0, %fd2;\n ld.shared.f32 %f1, [$sd+8];\n"
             " mov.b32 %d1, %f1;\n setp.le.f64 %p1, %fd1, %fd2;\n selp.u64 %d2, 1, 0, %p1;";
    for (unsigned I = 0; I < 96; ++I)
      C.Rows.push_back({u64(I * 37 % 101)});
    C.Block = 96;
    C.Ref = [](RefContext &X) {
      double Sum = 0;
      float Half = 0;
      for (auto &R : X.In)
        Sum += double(R[0]) * 0.25, Half += float(R[0]) * 0.5f;
      // The value each thread got back is one of the partial sums, never above the total.
      for (auto &O : X.Out)
        O = {std::bit_cast<u64>(Sum), std::bit_cast<uint32_t>(Half), 1};
    };
    L.push_back(C);
  }
}

} // namespace reptx::conformance
