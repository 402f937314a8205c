// Special registers (PTX ISA 10): thread and block ids and sizes, lane and warp ids, lane masks,
// clocks (monotonic), timers and sizes of shared memory.
#include "../Conformance.h"

namespace reptx::conformance {

namespace {

using u64 = uint64_t;

Case Sp(std::string Name, std::vector<std::string> Out, std::string Body,
        std::function<void(RefContext &)> F, unsigned Threads, unsigned Block) {
  Case C;
  C.Family = "special";
  C.Name = std::move(Name);
  C.OutTypes = std::move(Out);
  C.Body = std::move(Body);
  C.Rows.assign(Threads, {});
  C.Ref = std::move(F);
  C.Block = Block;
  return C;
}

} // namespace

void addSpecialCases(CaseList &L) {
  // WARP_SZ, the predefined warp-size constant (PTX ISA 5.4), as an operand.
  L.push_back(Sp(
      "WARP_SZ", {"u32", "u32"},
      "mov.u32 %d0, WARP_SZ;\n mov.u32 %r0, %tid.x;\n rem.u32 %d1, %r0, WARP_SZ;",
      [](RefContext &C) {
        for (size_t T = 0; T < C.In.size(); ++T)
          C.Out[T] = {32, (T % C.BlockThreads) % 32};
      },
      96, 96));
  L.push_back(Sp(
      "tid.ntid.ctaid.nctaid", {"u32", "u32", "u32", "u32", "u32", "u32"},
      "mov.u32 %d0, %tid.x;\n mov.u32 %d1, %ntid.x;\n mov.u32 %d2, %ctaid.x;\n"
      " mov.u32 %d3, %nctaid.x;\n mov.u32 %r0, %tid.y;\n mov.u32 %r1, %tid.z;\n"
      " add.u32 %d4, %r0, %r1;\n mov.u32 %r2, %ntid.y;\n mov.u32 %r3, %nctaid.z;\n"
      " add.u32 %d5, %r2, %r3;",
      [](RefContext &C) {
        size_t Blocks = C.In.size() / C.BlockThreads;
        for (size_t T = 0; T < C.In.size(); ++T)
          C.Out[T] = {T % C.BlockThreads, C.BlockThreads, T / C.BlockThreads, Blocks, 0, 2};
      },
      210, 70));
  L.push_back(Sp(
      "laneid.warpid.nwarpid", {"u32", "u32"},
      "mov.u32 %d0, %laneid;\n mov.u32 %r0, %warpid;\n mov.u32 %r1, %nwarpid;\n"
      " setp.lt.u32 %p0, %r0, %r1;\n selp.u32 %d1, 1, 0, %p0;",
      [](RefContext &C) {
        for (size_t T = 0; T < C.In.size(); ++T)
          C.Out[T] = {(T % C.BlockThreads) % 32, 1};
      },
      200, 100));
  L.push_back(Sp(
      "lanemask", {"u32", "u32", "u32", "u32", "u32"},
      "mov.u32 %d0, %lanemask_eq;\n mov.u32 %d1, %lanemask_lt;\n"
      " mov.u32 %d2, %lanemask_le;\n mov.u32 %d3, %lanemask_gt;\n"
      " mov.u32 %d4, %lanemask_ge;",
      [](RefContext &C) {
        for (size_t T = 0; T < C.In.size(); ++T) {
          uint32_t L = (T % C.BlockThreads) % 32, Eq = 1u << L;
          C.Out[T] = {Eq, Eq - 1, (Eq - 1) | Eq, ~((Eq - 1) | Eq), ~(Eq - 1)};
        }
      },
      192, 96));
  L.push_back(Sp(
      "clock.clock64", {"u32", "u32"},
      "mov.u64 %rd0, %clock64;\n mov.u32 %r0, %clock;\n add.u32 %r1, %r0, 1;\n"
      " mov.u64 %rd1, %clock64;\n setp.ge.u64 %p0, %rd1, %rd0;\n"
      " selp.u32 %d0, 1, 0, %p0;\n mov.u32 %r2, %clock;\n sub.u32 %r3, %r2, %r0;\n"
      " setp.lt.u32 %p1, %r3, 0x40000000;\n selp.u32 %d1, 1, 0, %p1;",
      [](RefContext &C) {
        for (auto &O : C.Out)
          O = {1, 1};
      },
      64, 64));
  L.push_back(Sp(
      "globaltimer", {"u32"},
      "mov.u64 %rd0, %globaltimer;\n mov.u64 %rd1, %globaltimer;\n"
      " setp.ge.u64 %p0, %rd1, %rd0;\n selp.u32 %d0, 1, 0, %p0;",
      [](RefContext &C) {
        for (auto &O : C.Out)
          O = {1};
      },
      32, 32));
  L.push_back(Sp(
      "smid.nsmid.gridid", {"u32", "u32"},
      "mov.u32 %r0, %smid;\n mov.u32 %r1, %nsmid;\n setp.lt.u32 %p0, %r0, %r1;\n"
      " selp.u32 %d0, 1, 0, %p0;\n mov.u64 %rd0, %gridid;\n mov.u32 %d1, 1;",
      [](RefContext &C) {
        for (auto &O : C.Out)
          O = {1, 1};
      },
      32, 32));
  {
    Case C = Sp(
        "dynamic_smem_size", {"u32", "u32"},
        "mov.u32 %d0, %dynamic_smem_size;\n mov.u32 %r0, %total_smem_size;\n"
        " setp.ge.u32 %p0, %r0, %d0;\n selp.u32 %d1, 1, 0, %p0;",
        [](RefContext &C) {
          for (auto &O : C.Out)
            O = {256, 1};
        },
        32, 32);
    C.DynamicShared = 256;
    L.push_back(C);
  }
}

} // namespace reptx::conformance
