// Device memory (allocation, bounds-checked host copies, guard space between allocations) and
// dispatch validation errors (unknown kernel, bad sizes, missing arguments, runaway waves), and
// reserved ranges with host memory mapped at chosen addresses.
#include "TestUtil.h"

#include <vector>

using namespace reptx::emulator;
using namespace reptx::emulator::test;

namespace {

std::string errorOf(llvm::Error E) { return E ? llvm::toString(std::move(E)) : ""; }

template <typename T> std::string errorOf(llvm::Expected<T> E) {
  return E ? "" : llvm::toString(E.takeError());
}

TEST(Device, AllocateWriteReadAndBounds) {
  Device Dev;
  EMU_ASSERT_OK_AND_ASSIGN(A, Dev.allocate(100, "a"));
  EMU_ASSERT_OK_AND_ASSIGN(B, Dev.allocate(100, "b"));
  EXPECT_GE(A, uint64_t(1) << 32) << "addresses need all 64 bits";
  EXPECT_GE(B, A + 100 + 0x10000) << "allocations are separated by guard space";
  // Fresh memory is zero.
  EMU_ASSERT_OK_AND_ASSIGN(Zero, Dev.readArray<uint8_t>(A, 100));
  for (uint8_t X : Zero)
    EXPECT_EQ(X, 0);
  std::vector<uint8_t> Data(100);
  for (size_t I = 0; I < Data.size(); ++I)
    Data[I] = uint8_t(I * 7);
  EMU_ASSERT_OK(Dev.write(A, Data));
  EMU_ASSERT_OK_AND_ASSIGN(Back, Dev.readArray<uint8_t>(A, 100));
  EXPECT_EQ(Back, Data);

  auto Info = Dev.findAllocation(A + 50);
  ASSERT_TRUE(Info.has_value());
  EXPECT_EQ(Info->Address, A);
  EXPECT_EQ(Info->Size, 100u);
  EXPECT_EQ(Info->Label, "a");
  EXPECT_FALSE(Dev.findAllocation(A + 100).has_value());

  std::vector<uint8_t> Two(2);
  EXPECT_NE(errorOf(Dev.write(A + 99, Two)).find("past the end"), std::string::npos);
  EXPECT_NE(errorOf(Dev.read(A - 1, Two)), "");
  EMU_ASSERT_OK(Dev.release(A));
  EXPECT_NE(errorOf(Dev.read(A, Two)).find("not inside any allocation"), std::string::npos);
  EXPECT_NE(errorOf(Dev.release(A)), "");
  EXPECT_NE(errorOf(Dev.allocate(uint64_t(1) << 40)), "");
}

// Virtual memory management: a reserved range no allocation takes, host memory mapped at chosen
// addresses in it (next to each other, unguarded; read-only refuses writes), overlaps refused,
// and host memory registered where it lies, next to other registered memory.
TEST(Device, ReservedRangesAndMappingsAtChosenAddresses) {
  Device Dev;
  EMU_ASSERT_OK_AND_ASSIGN(R, Dev.reserveAddressRange(3 << 21, 1 << 21));
  EXPECT_EQ(R % (1 << 21), 0u);
  EMU_ASSERT_OK_AND_ASSIGN(A, Dev.allocate(100, "after"));
  EXPECT_GE(A, R + (3 << 21)) << "allocations stay out of a reserved range";
  std::vector<uint8_t> Chunk0(1 << 21, 0), Chunk1(1 << 21, 0);
  EMU_ASSERT_OK(Dev.mapMemoryAt(R, Chunk0.data(), Chunk0.size(), "c0", false));
  EMU_ASSERT_OK(Dev.mapMemoryAt(R + (1 << 21), Chunk1.data(), Chunk1.size(), "c1", true));
  EXPECT_NE(errorOf(Dev.mapMemoryAt(R + 4096, Chunk1.data(), 4096, "over", false)).find("overlaps"),
            std::string::npos);
  std::vector<uint8_t> Data = {1, 2, 3, 4};
  EMU_ASSERT_OK(Dev.write(R + (1 << 21) - 4, Data));
  EXPECT_EQ(Chunk0[(1 << 21) - 1], 4);
  EXPECT_NE(errorOf(Dev.write(R + (1 << 21), Data)), "") << "read-only mapping";
  Chunk1[8] = 9;
  EMU_ASSERT_OK_AND_ASSIGN(Back, Dev.readArray<uint8_t>(R + (1 << 21) + 8, 1));
  EXPECT_EQ(Back[0], 9);
  EMU_ASSERT_OK(Dev.release(R + (1 << 21)));
  EXPECT_FALSE(Dev.findAllocation(R + (1 << 21)).has_value());
  EXPECT_NE(errorOf(Dev.reserveAddressRange(4096, 3)), "") << "alignment not a power of two";

  // Registered host memory: two neighbours in the heap, each mapped where it lies.
  std::vector<uint8_t> Heap(8192);
  EMU_ASSERT_OK(Dev.mapHostMemory(Heap.data(), 4096, "first", /*Guarded=*/false).takeError());
  EMU_ASSERT_OK(
      Dev.mapHostMemory(Heap.data() + 4096, 4096, "second", /*Guarded=*/false).takeError());
  EXPECT_NE(errorOf(Dev.mapHostMemory(Heap.data() + 100, 10, "inside", false)), "");
}

TEST(Device, DispatchValidation) {
  EMU_ASSERT_OK_AND_ASSIGN(CO, loadKernelObject("block_reduce", "gfx942"));
  Device Dev;
  EMU_ASSERT_OK_AND_ASSIGN(Buf, Dev.allocate(4096));
  auto Args = [&] {
    return KernargBuilder().addPointer(Buf).addPointer(Buf).addPointer(Buf).add(16).take();
  };
  std::string E =
      errorOf(Dev.dispatch(*CO, DispatchParams::blocks("nope", {1, 1, 1}, {256, 1, 1}, Args())));
  EXPECT_NE(E.find("no kernel named 'nope'"), std::string::npos) << E;
  EXPECT_NE(E.find("block_reduce"), std::string::npos) << E;

  E = errorOf(
      Dev.dispatch(*CO, DispatchParams::blocks("block_reduce", {1, 1, 1}, {512, 1, 1}, Args())));
  EXPECT_NE(E.find("exceeds the kernel's maximum of 256"), std::string::npos) << E;

  E = errorOf(
      Dev.dispatch(*CO, DispatchParams::blocks("block_reduce", {0, 1, 1}, {256, 1, 1}, Args())));
  EXPECT_NE(E.find("at least 1"), std::string::npos) << E;

  // clang marks the kernel uniform-work-group-size: a partial work-group is rejected.
  DispatchParams Partial = DispatchParams::blocks("block_reduce", {1, 1, 1}, {256, 1, 1}, Args());
  Partial.GridSize.X = 300;
  E = errorOf(Dev.dispatch(*CO, Partial));
  EXPECT_NE(E.find("uniform work-groups"), std::string::npos) << E;

  E = errorOf(Dev.dispatch(*CO, DispatchParams::blocks("block_reduce", {1, 1, 1}, {256, 1, 1},
                                                       KernargBuilder().addPointer(Buf).take())));
  EXPECT_NE(E.find("lies past the 8 bytes of explicit kernel arguments"), std::string::npos) << E;

  DispatchParams TooMuchLds =
      DispatchParams::blocks("block_reduce", {1, 1, 1}, {256, 1, 1}, Args());
  TooMuchLds.DynamicLdsSize = 65536;
  E = errorOf(Dev.dispatch(*CO, TooMuchLds));
  EXPECT_NE(E.find("bytes of LDS exceed"), std::string::npos) << E;
}

TEST(Device, RunawayWaveHitsInstructionLimit) {
  EMU_ASSERT_OK_AND_ASSIGN(CO, loadKernelObject("loop_branch", "gfx1100"));
  Device Dev;
  const int N = 64;
  std::vector<uint32_t> In(N, 27); // 111 Collatz steps
  EMU_ASSERT_OK_AND_ASSIGN(DIn, Dev.allocateArray<uint32_t>(In));
  EMU_ASSERT_OK_AND_ASSIGN(DOut, Dev.allocate(N * 4));
  EMU_ASSERT_OK_AND_ASSIGN(DQuot, Dev.allocate(N * 4));
  auto P = DispatchParams::blocks(
      "loop_branch", {1, 1, 1}, {64, 1, 1},
      KernargBuilder().addPointer(DIn).addPointer(DOut).addPointer(DQuot).add(N).take());
  P.MaxInstructionsPerWave = 200;
  auto R = Dev.dispatch(*CO, P);
  ASSERT_FALSE(static_cast<bool>(R));
  std::string Message;
  auto F = takeFault(R.takeError(), Message);
  ASSERT_TRUE(F.has_value()) << Message;
  EXPECT_EQ(F->Kind, FaultKind::InstructionLimit);
  EXPECT_NE(Message.find("instruction limit exceeded"), std::string::npos) << Message;
  // The same dispatch with the default limit completes.
  P.MaxInstructionsPerWave = DispatchParams().MaxInstructionsPerWave;
  EMU_ASSERT_OK(Dev.dispatch(*CO, P).takeError());
  EMU_ASSERT_OK_AND_ASSIGN(Out, Dev.readArray<uint32_t>(DOut, N));
  EXPECT_EQ(Out[0], 111u);
  EXPECT_EQ(Out[3], 111u);
}

TEST(Device, CodeObjectIsMappedOnceAndReadOnly) {
  EMU_ASSERT_OK_AND_ASSIGN(CO, loadKernelObject("vector_add", "gfx942"));
  Device Dev;
  EMU_ASSERT_OK_AND_ASSIGN(Base1, Dev.loadCodeObject(*CO));
  EMU_ASSERT_OK_AND_ASSIGN(Base2, Dev.loadCodeObject(*CO));
  EXPECT_EQ(Base1, Base2);
  const Kernel &K = CO->kernels()[0];
  // The kernel descriptor is readable at its mapped address.
  EMU_ASSERT_OK_AND_ASSIGN(Desc, Dev.readArray<uint8_t>(Base1 + K.DescriptorAddress, 64));
  auto Parsed = KernelDescriptor::parse(Desc);
  ASSERT_TRUE(static_cast<bool>(Parsed)) << llvm::toString(Parsed.takeError());
  EXPECT_EQ(Parsed->ComputePgmRsrc2, K.Descriptor.ComputePgmRsrc2);
  std::vector<uint8_t> One(1);
  EXPECT_NE(errorOf(Dev.write(Base1 + K.DescriptorAddress, One)).find("read-only"),
            std::string::npos);
}

} // namespace
