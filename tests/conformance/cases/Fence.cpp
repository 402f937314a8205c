// Memory fences (PTX ISA 9.7.13.4 membar/fence): a message-passing pattern between the warps of a
// block, through global memory with a fence between the data and the flag on the producer side
// and between the flag and the data on the consumer side; the consumer must see the data.
#include "../Conformance.h"

namespace reptx::conformance {

namespace {

using u64 = uint64_t;

Case Fn(std::string Name, std::string Fence) {
  Case C;
  C.Family = "fence";
  C.Name = Name;
  C.InTypes = {"u32"};
  C.OutTypes = {"u32"};
  // Thread t < 32 writes data[t] then flag[t]; thread t + 32 waits for flag[t] then reads data[t].
  C.Body = "mov.u32 %r0, %tid.x;\n and.b32 %r1, %r0, 31;\n mul.wide.u32 %rd0, %r1, 8;\n"
           " add.u64 %rd1, %scratch, %rd0;\n add.u64 %rd2, %rd1, 256;\n"
           " setp.ge.u32 %p0, %r0, 32;\n @%p0 bra $Lconsumer;\n"
           " st.volatile.global.u32 [%rd1], %a0;\n " +
           Fence +
           "\n st.volatile.global.u32 [%rd2], 1;\n mov.u32 %d0, 0;\n bra.uni $Ldone;\n"
           "$Lconsumer:\n ld.volatile.global.u32 %r2, [%rd2];\n setp.eq.u32 %p1, %r2, 0;\n"
           " @%p1 bra $Lconsumer;\n " +
           Fence + "\n ld.volatile.global.u32 %d0, [%rd1];\n$Ldone:";
  for (unsigned I = 0; I < 64; ++I)
    C.Rows.push_back({u64(I * 977 + 3)});
  C.Scratch.assign(64, 0);
  C.Block = 64;
  C.Ref = [](RefContext &X) {
    for (size_t T = 0; T < X.In.size(); ++T)
      X.Out[T][0] = T < 32 ? 0 : X.In[T - 32][0];
    for (size_t T = 0; T < 32; ++T) {
      X.Scratch[T] = X.In[T][0];
      X.Scratch[32 + T] = 1;
    }
  };
  return C;
}

} // namespace

void addFenceCases(CaseList &L) {
  L.push_back(Fn("membar.cta", "membar.cta;"));
  L.push_back(Fn("membar.gl", "membar.gl;"));
  L.push_back(Fn("membar.sys", "membar.sys;"));
  L.push_back(Fn("fence.sc.cta", "fence.sc.cta;"));
  L.push_back(Fn("fence.sc.gpu", "fence.sc.gpu;"));
  L.push_back(Fn("fence.acq_rel.gpu", "fence.acq_rel.gpu;"));
  L.push_back(Fn("fence.acq_rel.sys", "fence.acq_rel.sys;"));
  L.push_back(Fn("fence.acq_rel.cluster", "fence.acq_rel.cluster;"));
}

} // namespace reptx::conformance
