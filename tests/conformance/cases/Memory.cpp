// Memory (PTX ISA 9.7.9.8-9.7.9.16): ld/st in every state space and vector width, .volatile,
// .relaxed/.acquire/.release with scopes, .nc and ldu, cache hints and eviction policies
// (createpolicy, applypriority, discard), prefetch, cp.async, local
// stack arrays, static and dynamic shared memory. Data comes from the per-thread inputs and the
// scratch buffer; the expected values are the stored ones.
#include "../Conformance.h"

namespace reptx::conformance {

namespace {

using u64 = uint64_t;

Case Mem(std::string Name, std::vector<std::string> In, std::vector<std::string> Out,
         std::string Body, std::vector<std::vector<u64>> Rows, std::function<void(RefContext &)> F,
         std::vector<u64> Scratch = {}, std::string Decls = {}) {
  Case C;
  C.Family = "memory";
  C.Name = std::move(Name);
  C.InTypes = std::move(In);
  C.OutTypes = std::move(Out);
  C.Body = std::move(Body);
  C.Rows = std::move(Rows);
  C.Ref = std::move(F);
  C.Scratch = std::move(Scratch);
  C.ModuleDecls = std::move(Decls);
  return C;
}

std::vector<std::vector<u64>> ids(unsigned N) {
  std::vector<std::vector<u64>> R;
  for (unsigned I = 0; I < N; ++I)
    R.push_back({I});
  return R;
}

std::vector<u64> words(unsigned N, u64 Mul) {
  std::vector<u64> W(N);
  for (unsigned I = 0; I < N; ++I)
    W[I] = (I + 1) * Mul ^ (u64(I) << 40);
  return W;
}

// %rd9 = scratch + a0 * Stride
std::string at(unsigned Stride) {
  return "mul.wide.u32 %rd9, %a0, " + std::to_string(Stride) +
         ";\n add.u64 %rd9, %scratch, %rd9;\n";
}

} // namespace

void addMemoryCases(CaseList &L) {
  const unsigned N = 40;
  const std::vector<u64> W = words(4 * N, 0x9e3779b97f4a7c15ull);
  auto Lo = [](u64 V) { return V & 0xffffffff; };
  // Loads in each width: the scratch words, viewed as bytes.
  auto Bytes = [W](size_t Off, unsigned Size) {
    u64 V = 0;
    for (unsigned I = 0; I < Size; ++I)
      V |= ((W[(Off + I) / 8] >> (8 * ((Off + I) % 8))) & 0xff) << (8 * I);
    return V;
  };
  L.push_back(Mem(
      "ld.global.v4.u32", {"u32"}, {"u32", "u32", "u32", "u32"},
      at(16) + " ld.global.v4.u32 {%d0, %d1, %d2, %d3}, [%rd9];", ids(N),
      [Bytes](RefContext &C) {
        for (size_t T = 0; T < C.In.size(); ++T)
          for (unsigned K = 0; K < 4; ++K)
            C.Out[T][K] = Bytes(T * 16 + K * 4, 4);
      },
      W));
  // Ordered vector accesses (8.3, "Vector Data-types": ordered accesses to each element): an
  // acquire v4 load of the thread's 16 bytes, then a relaxed v2 store of two of them swapped.
  L.push_back(Mem(
      "ld.acquire.v4.st.relaxed.v2", {"u32"}, {"u32", "u32", "u32", "u32"},
      at(16) + " ld.acquire.gpu.global.v4.u32 {%d0, %d1, %d2, %d3}, [%rd9];\n"
               " st.relaxed.gpu.global.v2.u32 [%rd9], {%d1, %d0};",
      ids(N),
      [Bytes](RefContext &C) {
        for (size_t T = 0; T < C.In.size(); ++T) {
          for (unsigned K = 0; K < 4; ++K)
            C.Out[T][K] = Bytes(T * 16 + K * 4, 4);
          C.Scratch[2 * T] = (C.Out[T][0] << 32) | C.Out[T][1];
        }
      },
      W));
  L.push_back(Mem(
      "ld.global.v2.f64", {"u32"}, {"f64", "f64"}, at(16) + " ld.global.v2.f64 {%d0, %d1}, [%rd9];",
      ids(N),
      [W](RefContext &C) {
        for (size_t T = 0; T < C.In.size(); ++T)
          C.Out[T] = {W[2 * T], W[2 * T + 1]};
      },
      W));
  L.push_back(Mem(
      "ld.global.v4.u16.s8", {"u32"}, {"u16", "u16", "u16", "u16", "s16"},
      at(8) + " ld.global.v4.u16 {%d0, %d1, %d2, %d3}, [%rd9];\n"
              " ld.global.s8 %d4, [%rd9+3];",
      ids(N),
      [Bytes](RefContext &C) {
        for (size_t T = 0; T < C.In.size(); ++T) {
          for (unsigned K = 0; K < 4; ++K)
            C.Out[T][K] = Bytes(T * 8 + K * 2, 2);
          C.Out[T][4] = uint16_t(int16_t(int8_t(Bytes(T * 8 + 3, 1))));
        }
      },
      W));
  // Stores of every width, vector stores, then the scratch checked.
  L.push_back(Mem(
      "st.global.widths", {"u32", "b64"}, {},
      at(32) + " st.global.u8 [%rd9], %a1;\n shr.u64 %rd1, %a1, 8;\n"
               " cvt.u16.u64 %h0, %rd1;\n st.global.u16 [%rd9+2], %h0;\n"
               " cvt.u32.u64 %r0, %a1;\n st.global.u32 [%rd9+4], %r0;\n"
               " st.global.v2.u32 [%rd9+8], {%r0, %a0};\n"
               " st.global.v2.b64 [%rd9+16], {%a1, %rd1};",
      [] {
        std::vector<std::vector<u64>> R;
        for (unsigned I = 0; I < 16; ++I)
          R.push_back({I, 0x0102030405060708ull * (I + 1)});
        return R;
      }(),
      [](RefContext &C) {
        for (size_t T = 0; T < C.In.size(); ++T) {
          u64 V = C.In[T][1];
          u64 W0 = C.Scratch[4 * T];
          W0 = (W0 & ~0xffull) | (V & 0xff);
          W0 = (W0 & ~0xffff0000ull) | (((V >> 8) & 0xffff) << 16);
          W0 = (W0 & 0xffffffffull) | ((V & 0xffffffff) << 32);
          C.Scratch[4 * T] = W0;
          C.Scratch[4 * T + 1] = (V & 0xffffffff) | (T << 32);
          C.Scratch[4 * T + 2] = V;
          C.Scratch[4 * T + 3] = V >> 8;
        }
      },
      words(64, 0x5555)));
  auto LoadKind = [&](std::string Name, std::string Instr) {
    L.push_back(Mem(
        Name, {"u32"}, {"u32"}, at(8) + " " + Instr + " %d0, [%rd9];", ids(N),
        [W, Lo](RefContext &C) {
          for (size_t T = 0; T < C.In.size(); ++T)
            C.Out[T][0] = Lo(W[T]);
        },
        W));
  };
  LoadKind("ld.volatile.global", "ld.volatile.global.u32");
  LoadKind("ld.relaxed.gpu", "ld.relaxed.gpu.global.u32");
  LoadKind("ld.acquire.sys", "ld.acquire.sys.global.u32");
  LoadKind("ld.acquire.cta", "ld.acquire.cta.u32");
  LoadKind("ld.global.nc", "ld.global.nc.u32");
  LoadKind("ld.global.nc.L1::no_allocate", "ld.global.nc.L1::no_allocate.u32");
  LoadKind("ld.global.cg", "ld.global.cg.u32");
  LoadKind("ld.global.cs", "ld.global.cs.u32");
  LoadKind("ld.global.lu", "ld.global.lu.u32");
  LoadKind("ld.global.L2::128B", "ld.global.L2::128B.u32");
  LoadKind("ldu.global", "ldu.global.u32");
  L.push_back(Mem(
      "st.release.gpu.relaxed.sys", {"u32"}, {},
      at(8) + " st.release.gpu.global.u32 [%rd9], %a0;\n"
              " st.relaxed.sys.global.u32 [%rd9+4], %gid;\n"
              " st.volatile.global.u8 [%rd9+3], %h9;",
      ids(N),
      [](RefContext &C) {
        for (size_t T = 0; T < C.In.size(); ++T)
          C.Scratch[T] = T | (T << 32); // byte 3 of T < 2^24 is 0 either way
      },
      std::vector<u64>(N, 0xffffffffffffffffull)));
  L.back().Body = "mov.b16 %h9, 0;\n " + L.back().Body;
  L.push_back(Mem(
      "st.global.wb.cs.cg", {"u32"}, {},
      at(8) + " st.global.wb.u32 [%rd9], %a0;\n st.global.cs.u16 [%rd9+4], %h9;\n"
              " st.global.cg.u16 [%rd9+6], %h9;",
      ids(N),
      [](RefContext &C) {
        for (size_t T = 0; T < C.In.size(); ++T)
          C.Scratch[T] = T | (0x7777777700000000ull);
      },
      std::vector<u64>(N, 0)));
  L.back().Body = "mov.b16 %h9, 0x7777;\n " + L.back().Body;
  L.push_back(Mem(
      "prefetch", {"u32"}, {"u32"},
      at(8) + " prefetch.global.L2 [%rd9];\n prefetch.global.L1 [%rd9];\n"
              " prefetchu.L1 [%rd9];\n ld.global.u32 %d0, [%rd9];",
      ids(N),
      [W, Lo](RefContext &C) {
        for (size_t T = 0; T < C.In.size(); ++T)
          C.Out[T][0] = Lo(W[T]);
      },
      W));
  // Cache eviction policies (9.7.9.16-18): createpolicy in its three forms feeding the
  // .L2::cache_hint operand of loads and a store, applypriority, and discard of a line no thread
  // reads. The policies are opaque: the data must be what it would be without them.
  L.push_back(Mem(
      "cache_policy", {"u32"}, {"u32", "u32"},
      at(8) + " createpolicy.fractional.L2::evict_last.b64 %rd10, 0f3F000000;\n"
              " createpolicy.fractional.L2::evict_first.L2::evict_unchanged.b64 %rd11;\n"
              " createpolicy.range.global.L2::evict_last.L2::evict_first.b64 %rd12, [%rd9], "
              "64, 128;\n"
              " createpolicy.cvt.L2.b64 %rd13, %rd10;\n"
              " applypriority.global.L2::evict_normal [%rd9], 128;\n"
              " ld.global.L2::cache_hint.u32 %d0, [%rd9], %rd10;\n"
              " ld.global.nc.L2::cache_hint.u32 %r10, [%rd9+4], %rd11;\n"
              " add.u32 %r10, %r10, %a0;\n"
              " st.global.L2::cache_hint.u32 [%rd9+4], %r10, %rd12;\n"
              " ld.global.L2::cache_hint.u32 %d1, [%rd9+4], %rd13;\n"
              " add.u64 %rd14, %scratch, 1024;\n discard.global.L2 [%rd14], 128;",
      ids(N),
      [W, Lo](RefContext &C) {
        for (size_t T = 0; T < C.In.size(); ++T) {
          C.Out[T][0] = Lo(W[T]);
          C.Out[T][1] = ((W[T] >> 32) + T) & 0xffffffff;
          C.Scratch[T] = Lo(W[T]) | (C.Out[T][1] << 32);
        }
      },
      W));
  // A stack array indexed dynamically: local memory (5.1.5).
  L.push_back(Mem(
      "local.stack_array", {"u32", "u32"}, {"u32", "u32"},
      ".local .align 4 .b8 $arr[64];\n mov.u64 %rd0, $arr;\n"
      " mov.u32 %r0, 0;\n$Lfill:\n mul.wide.u32 %rd1, %r0, 4;\n"
      " add.u64 %rd2, %rd0, %rd1;\n mad.lo.u32 %r1, %r0, %a1, %gid;\n"
      " st.local.u32 [%rd2], %r1;\n add.u32 %r0, %r0, 1;\n"
      " setp.lt.u32 %p0, %r0, 16;\n @%p0 bra $Lfill;\n"
      " and.b32 %r2, %a0, 15;\n mul.wide.u32 %rd1, %r2, 4;\n add.u64 %rd2, %rd0, %rd1;\n"
      " ld.local.u32 %d0, [%rd2];\n ld.local.v2.u32 {%r3, %d1}, [%rd0+8];",
      [] {
        std::vector<std::vector<u64>> R;
        for (unsigned I = 0; I < 24; ++I)
          R.push_back({I * 7, I + 3});
        return R;
      }(),
      [](RefContext &C) {
        for (size_t T = 0; T < C.In.size(); ++T) {
          u64 I = C.In[T][0] & 15;
          C.Out[T][0] = uint32_t(I * C.In[T][1] + T);
          C.Out[T][1] = uint32_t(3 * C.In[T][1] + T);
        }
      }));
  // A generic pointer to a thread's local array (cvta.local, 5.1.5, 6.4.1.1) that makes a round
  // trip through global memory, so that no compiler can tell its state space: in even threads
  // the stores and loads through it reach the thread's own local memory, in odd ones (which
  // swap in their scratch word's address) global memory, through the same flat instructions.
  L.push_back(Mem(
      "local.generic_pointer", {"u32"}, {"u32", "u32"},
      ".local .align 8 .b8 $loc[16];\n mov.u64 %rd0, $loc;\n cvta.local.u64 %rd1, %rd0;\n" + at(8) +
          " mul.lo.u32 %r1, %gid, 7;\n st.local.u32 [%rd0], %r1;\n st.local.u32 [%rd0+4], 0;\n"
          " ld.global.u64 %rd3, [%rd9];\n st.volatile.global.u64 [%rd9], %rd1;\n"
          " ld.volatile.global.u64 %rd2, [%rd9];\n st.global.u64 [%rd9], %rd3;\n"
          " and.b32 %r0, %gid, 1;\n setp.eq.u32 %p0, %r0, 0;\n selp.b64 %rd2, %rd2, %rd9, %p0;\n"
          " add.u32 %r2, %a0, 0x1000;\n st.u32 [%rd2+4], %r2;\n ld.u32 %d0, [%rd2];\n"
          " ld.local.u32 %d1, [%rd0+4];",
      ids(N),
      [W](RefContext &C) {
        for (size_t T = 0; T < C.In.size(); ++T) {
          u64 Stored = T + 0x1000;
          if (T % 2 == 0) {
            C.Out[T] = {T * 7, Stored};
          } else {
            C.Out[T] = {W[T] & 0xffffffff, 0};
            C.Scratch[T] = (W[T] & 0xffffffff) | (Stored << 32);
          }
        }
      },
      std::vector<u64>(W.begin(), W.begin() + N)));
  // cvta.param (PTX 7.7; nvcc -G takes kernel parameters' addresses): the generic address of a
  // kernel parameter reads the parameter's value, here the input and scratch pointers.
  L.push_back(Mem(
      "cvta.param", {"u32"}, {"u32", "u32"},
      "mov.u64 %rd1, $in;\n cvta.param.u64 %rd2, %rd1;\n ld.u64 %rd3, [%rd2];\n"
      " cvta.to.global.u64 %rd3, %rd3;\n mul.wide.u32 %rd4, %gid, 8;\n add.u64 %rd3, %rd3, %rd4;\n"
      " ld.global.u32 %d0, [%rd3];\n mov.u64 %rd5, $scratch;\n cvta.param.u64 %rd5, %rd5;\n"
      " ld.u64 %rd6, [%rd5];\n ld.param.u64 %rd7, [$scratch];\n setp.eq.u64 %p0, %rd6, %rd7;\n"
      " selp.u32 %d1, 1, 0, %p0;",
      ids(N), [](RefContext &C) {
        for (size_t T = 0; T < C.In.size(); ++T)
          C.Out[T] = {C.In[T][0], 1};
      }));
  // Static shared memory: each thread writes its slot, reads its neighbour's after bar.sync.
  L.push_back(Mem(
      "shared.static", {"u32"}, {"u32", "u16"},
      "mov.u32 %r0, %tid.x;\n mov.u32 %r5, %ntid.x;\n shl.b32 %r1, %r0, 2;\n"
      " mov.u32 %r2, $sh;\n add.u32 %r3, %r2, %r1;\n st.shared.u32 [%r3], %a0;\n"
      " mov.u32 %r8, $sh2;\n add.u32 %r8, %r8, %r1;\n"
      " st.shared.u16 [%r8], %h9;\n bar.sync 0;\n"
      " add.u32 %r4, %r0, 1;\n rem.u32 %r4, %r4, %r5;\n shl.b32 %r4, %r4, 2;\n"
      " add.u32 %r6, %r2, %r4;\n ld.shared.u32 %d0, [%r6];\n"
      " mov.u32 %r7, $sh2;\n add.u32 %r7, %r7, %r4;\n ld.shared.u16 %d1, [%r7];",
      [] {
        std::vector<std::vector<u64>> R;
        for (unsigned I = 0; I < 96; ++I)
          R.push_back({I * 1000 + 1});
        return R;
      }(),
      [](RefContext &C) {
        unsigned B = C.BlockThreads;
        for (size_t T = 0; T < C.In.size(); ++T) {
          size_t Base = T / B * B, Nb = Base + (T - Base + 1) % B;
          C.Out[T] = {C.In[Nb][0], uint16_t(Nb * 3)};
        }
      },
      {}, ".shared .align 4 .b8 $sh[256];\n.shared .align 4 .b8 $sh2[256];"));
  L.back().Body = "mul.lo.u32 %r9, %gid, 3;\n cvt.u16.u32 %h9, %r9;\n " + L.back().Body;
  L.back().Block = 48;
  // Dynamic shared memory: extern .shared, sized at launch.
  L.push_back(Mem(
      "shared.dynamic", {"u32"}, {"u32"},
      "mov.u32 %r0, %tid.x;\n mov.u32 %r5, %ntid.x;\n mov.u64 %rd0, $dyn;\n"
      " mul.wide.u32 %rd1, %r0, 8;\n add.u64 %rd2, %rd0, %rd1;\n"
      " cvt.u64.u32 %rd3, %a0;\n st.shared.u64 [%rd2], %rd3;\n bar.sync 0;\n"
      " sub.u32 %r1, %r5, 1;\n sub.u32 %r1, %r1, %r0;\n mul.wide.u32 %rd1, %r1, 8;\n"
      " add.u64 %rd2, %rd0, %rd1;\n ld.shared.u32 %d0, [%rd2];",
      [] {
        std::vector<std::vector<u64>> R;
        for (unsigned I = 0; I < 64; ++I)
          R.push_back({I * I + 5});
        return R;
      }(),
      [](RefContext &C) {
        unsigned B = C.BlockThreads;
        for (size_t T = 0; T < C.In.size(); ++T) {
          size_t Base = T / B * B;
          C.Out[T][0] = C.In[Base + B - 1 - (T - Base)][0];
        }
      },
      {}, ".extern .shared .align 8 .b8 $dyn[];"));
  L.back().Block = 64;
  L.back().DynamicShared = 64 * 8;
  // cp.async (9.7.9.25): global -> shared copies complete at cp.async.wait_all / wait_group.
  L.push_back(Mem(
      "cp.async.ca.cg", {"u32"}, {"u32", "u32", "u32"},
      at(16) + " mov.u32 %r0, %tid.x;\n mov.u32 %r1, $cp;\n mad.lo.u32 %r2, %r0, 32, %r1;\n"
               " cp.async.ca.shared.global [%r2], [%rd9+4], 4;\n"
               " cp.async.commit_group;\n cp.async.wait_group 0;\n"
               " cp.async.cg.shared.global [%r2+16], [%rd9], 16;\n"
               " cp.async.wait_all;\n bar.sync 0;\n ld.shared.u32 %d0, [%r2];\n"
               " ld.shared.u32 %d1, [%r2+16];\n ld.shared.u32 %d2, [%r2+28];",
      ids(32),
      [Bytes](RefContext &C) {
        for (size_t T = 0; T < C.In.size(); ++T)
          C.Out[T] = {Bytes(T * 16 + 4, 4), Bytes(T * 16, 4), Bytes(T * 16 + 12, 4)};
      },
      W, ".shared .align 16 .b8 $cp[1024];"));
  // A vector of one element, `{%r}`, stands for the element (ptxas accepts it; NCCL's inline
  // assembly loads with `ld.relaxed.gpu.u64 {%0}, [%1];`).
  L.push_back(Mem(
      "ld.st.one.element.vector", {"u32"}, {"u64"},
      at(8) + " ld.relaxed.gpu.global.u64 {%d0}, [%rd9];\n st.global.u32 [%rd9], {%a0};", ids(N),
      [W](RefContext &C) {
        for (size_t T = 0; T < C.In.size(); ++T) {
          C.Out[T] = {W[T]};
          C.Scratch[T] = (W[T] & ~0xffffffffull) | T;
        }
      },
      W));

  // ld.param of kernel parameters is in every case; .param arrays in functions: see control.
}

} // namespace reptx::conformance
