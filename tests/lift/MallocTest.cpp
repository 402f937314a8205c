// Device malloc and free (CUDA's `malloc`/`free` system calls; ir/lib/LiftCall.cpp,
// backend/device/Malloc.cpp): the lifted calls, and a kernel run twice in the emulator for every
// target (gfx90a, gfx942, gfx1030, gfx1100, gfx1201) against a heap laid out as
// reptx/backend/MallocHeap.h says, whose blocks, bump pointer and free list are checked after each
// allocating and each freeing kernel.
#include "LiftTestUtil.h"

#include "reptx/backend/MallocHeap.h"
#include "reptx/ir/Intrinsics.h"

#include "llvm/IR/Instructions.h"

#include <algorithm>
#include <cstdint>
#include <set>
#include <vector>

using namespace reptx;
using namespace reptx::emulator;
using namespace reptx::lifttest;

namespace {

namespace mh = reptx::malloc_heap;

// As nvcc declares and calls them. k: each thread takes a block of 24 bytes (a 64-byte block with
// its header), writes its thread id into it and publishes the address, and asks for `big` bytes
// (more than the heap: NULL). f, launched after k: the odd threads free their blocks.
const char *const MallocPtx = R"(.version 8.0
.target sm_80
.address_size 64
.extern .func (.param .b64 func_retval0) malloc(.param .b64 malloc_param_0);
.extern .func free(.param .b64 free_param_0);
.visible .entry k(.param .u64 out, .param .u64 big)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd6, [big];
  mov.u32 %r1, %tid.x;
  {
  .param .b64 param0;
  st.param.b64 [param0+0], 24;
  .param .b64 retval0;
  call.uni (retval0), malloc, (param0);
  ld.param.b64 %rd2, [retval0+0];
  }
  st.u32 [%rd2], %r1;
  mul.wide.u32 %rd3, %r1, 8;
  add.s64 %rd4, %rd1, %rd3;
  st.global.u64 [%rd4], %rd2;
  {
  .param .b64 param0;
  st.param.b64 [param0+0], %rd6;
  .param .b64 retval0;
  call.uni (retval0), malloc, (param0);
  ld.param.b64 %rd5, [retval0+0];
  }
  st.global.u64 [%rd4+512], %rd5;
  ret;
}
.visible .entry f(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<3>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 1;
  setp.eq.u32 %p1, %r2, 0;
  @%p1 bra $L_done;
  mul.wide.u32 %rd3, %r1, 8;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.u64 %rd2, [%rd4];
  {
  .param .b64 param0;
  st.param.b64 [param0+0], %rd2;
  call.uni free, (param0);
  }
$L_done:
  ret;
}
)";

TEST(MallocIR, MallocAndFreeBecomeReptxIntrinsics) {
  LIFT_ASSERT_OK_AND_ASSIGN(L, lift("malloc.ptx", MallocPtx));
  ASSERT_TRUE(L->R.Failures.empty()) << L->R.Failures[0].Message;
  llvm::Type *I64 = llvm::Type::getInt64Ty(*L->Ctx);
  llvm::Function *M = L->R.M->getFunction(ir::intrinsics::Malloc);
  llvm::Function *F = L->R.M->getFunction(ir::intrinsics::Free);
  ASSERT_NE(M, nullptr);
  ASSERT_NE(F, nullptr);
  EXPECT_EQ(M->getFunctionType(), llvm::FunctionType::get(I64, {I64}, false));
  EXPECT_EQ(F->getFunctionType(),
            llvm::FunctionType::get(llvm::Type::getVoidTy(*L->Ctx), {I64}, false));
  EXPECT_EQ(M->getNumUses(), 2u);
  EXPECT_EQ(F->getNumUses(), 1u);
  EXPECT_EQ(L->R.M->getFunction("malloc"), nullptr);
  EXPECT_EQ(L->R.M->getFunction("free"), nullptr);
}

TEST(MallocIR, MalformedCallIsAnErrorOfItsKernel) {
  const char *Ptx = R"(.version 8.0
.target sm_80
.address_size 64
.extern .func (.param .b64 func_retval0) malloc(.param .b64 malloc_param_0);
.visible .entry bad()
{
  {
  .param .b64 param0;
  st.param.b64 [param0+0], 8;
  call.uni malloc, (param0);
  }
  ret;
}
.visible .entry good()
{
  ret;
}
)";
  LIFT_ASSERT_OK_AND_ASSIGN(L, lift("inline.ptx", Ptx));
  ASSERT_EQ(L->R.Failures.size(), 1u);
  EXPECT_NE(L->R.Failures[0].Message.find("kernel 'bad'"), std::string::npos)
      << L->R.Failures[0].Message;
  EXPECT_NE(L->R.Failures[0].Message.find("'malloc' with 0 returns and 1 arguments"),
            std::string::npos)
      << L->R.Failures[0].Message;
}

class MallocExec : public ::testing::TestWithParam<std::string> {};

TEST_P(MallocExec, BlocksAreHandedOutFreedAndHandedOutAgain) {
  LIFT_ASSERT_OK_AND_ASSIGN(L, lift("malloc.ptx", MallocPtx));
  ASSERT_TRUE(L->R.Failures.empty());
  backend::CompileOptions Opts;
  Opts.Arch = GetParam();
  LIFT_ASSERT_OK_AND_ASSIGN(Obj, backend::compile(*L->R.M, Opts));
  LIFT_ASSERT_OK_AND_ASSIGN(CO, CodeObject::load(Obj.Bytes));
  LIFT_ASSERT_OK_AND_ASSIGN(Sym, dynamicSymbol(Obj.Bytes, mh::HeapSymbol));
  ASSERT_TRUE(Sym.has_value()) << "no dynamic symbol " << mh::HeapSymbol;
  EXPECT_EQ(Sym->Size, 8u);

  Device Dev;
  Dev.setCodeObjectsWritable(true);
  LIFT_ASSERT_OK_AND_ASSIGN(Base, Dev.loadCodeObject(*CO));
  const uint64_t Arena = 64 << 10;
  std::vector<uint64_t> Words((mh::HeaderBytes + Arena) / 8, 0); // an empty header, the arena
  Words[0] = Arena;
  LIFT_ASSERT_OK_AND_ASSIGN(Heap, Dev.allocateArray<uint64_t>(Words));
  ASSERT_FALSE(static_cast<bool>(
      Dev.write(Base + Sym->Value, {reinterpret_cast<const uint8_t *>(&Heap), 8})));
  uint64_t ArenaBase = Heap + mh::HeaderBytes;
  const unsigned N = 64, Class = 1; // 24 + 16 bytes: blocks of 2^(MinShift + 1) = 64
  LIFT_ASSERT_OK_AND_ASSIGN(Out, Dev.allocateArray<uint64_t>(std::vector<uint64_t>(2 * N, 7)));

  std::set<uint64_t> FreedBefore;
  for (int Run = 0; Run < 2; ++Run) {
    SCOPED_TRACE("run " + std::to_string(Run));
    auto R = Dev.dispatch(*CO, DispatchParams::blocks(
                                   "k", {1, 1, 1}, {N, 1, 1},
                                   KernargBuilder().addPointer(Out).add(uint64_t(1) << 40).take()));
    ASSERT_TRUE(static_cast<bool>(R)) << llvm::toString(R.takeError());
    LIFT_ASSERT_OK_AND_ASSIGN(Ptrs, Dev.readArray<uint64_t>(Out, 2 * N));
    std::set<uint64_t> Blocks, Freed;
    for (unsigned T = 0; T < N; ++T) {
      uint64_t P = Ptrs[T];
      ASSERT_GE(P, ArenaBase + mh::BlockHeaderBytes) << T;
      ASSERT_LT(P, ArenaBase + Arena) << T;
      EXPECT_EQ((P - ArenaBase - mh::BlockHeaderBytes) % 64, 0u) << T;
      EXPECT_EQ(P % 16, 0u) << T;
      EXPECT_EQ(Ptrs[N + T], 0u) << T << ": a block larger than the heap";
      LIFT_ASSERT_OK_AND_ASSIGN(Block, Dev.readArray<uint64_t>(P - mh::BlockHeaderBytes, 3));
      EXPECT_EQ(uint32_t(Block[2]), T); // the thread's id, written through the pointer
      EXPECT_EQ(Block[1], Class);       // the block header's class
      Blocks.insert(P);
      if (T % 2)
        Freed.insert(P - mh::BlockHeaderBytes - ArenaBase);
    }
    EXPECT_EQ(Blocks.size(), N) << "blocks handed out twice";
    for (uint64_t F : FreedBefore)
      EXPECT_TRUE(Blocks.count(ArenaBase + F + mh::BlockHeaderBytes)) << "not reused: " << F;

    R = Dev.dispatch(*CO, DispatchParams::blocks("f", {1, 1, 1}, {N, 1, 1},
                                                 KernargBuilder().addPointer(Out).take()));
    ASSERT_TRUE(static_cast<bool>(R)) << llvm::toString(R.takeError());
    LIFT_ASSERT_OK_AND_ASSIGN(H, Dev.readArray<uint64_t>(Heap, mh::HeaderBytes / 8));
    // The first run bumps 64 blocks; the second takes the 32 freed ones again and bumps 32.
    EXPECT_EQ(H[1], Run == 0 ? 64u * N : 64u * N + 32u * N);
    // The free list of the class holds exactly the blocks the odd threads freed.
    std::set<uint64_t> Listed;
    uint64_t Link = H[2 + Class] & ((uint64_t(1) << mh::OffsetBits) - 1);
    while (Link && Listed.size() <= N) {
      Listed.insert(Link - 1);
      LIFT_ASSERT_OK_AND_ASSIGN(Next, Dev.readArray<uint64_t>(ArenaBase + Link - 1, 1));
      Link = Next[0];
    }
    EXPECT_EQ(Listed, Freed);
    for (unsigned C = 0; C < mh::Classes; ++C)
      if (C != Class)
        EXPECT_EQ(H[2 + C], 0u) << "class " << C;
    FreedBefore = Freed;
  }
}

INSTANTIATE_TEST_SUITE_P(Targets, MallocExec,
                         ::testing::Values("gfx942", "gfx1100", "gfx90a", "gfx1030", "gfx1201"));

} // namespace
