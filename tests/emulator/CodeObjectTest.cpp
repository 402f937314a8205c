// Code object loading: target, kernels, metadata arguments and kernel descriptor fields of the
// clang-built test objects, code object v5, and malformed inputs rejected with errors.
#include "TestUtil.h"

#include "llvm/Object/ELF.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cstring>
#include <vector>

using namespace reptx::emulator;
using namespace reptx::emulator::test;

namespace {

std::vector<uint8_t> fileBytes(const std::string &Path) {
  auto Buffer = llvm::MemoryBuffer::getFile(Path);
  if (!Buffer)
    return {};
  llvm::StringRef B = (*Buffer)->getBuffer();
  return std::vector<uint8_t>(B.begin(), B.end());
}

std::string loadError(llvm::ArrayRef<uint8_t> Bytes) {
  auto CO = CodeObject::load(Bytes);
  if (CO)
    return "";
  return llvm::toString(CO.takeError());
}

TEST(CodeObject, Gfx942KernelsMetadataAndDescriptor) {
  EMU_ASSERT_OK_AND_ASSIGN(CO, loadKernelObject("block_reduce", "gfx942"));
  EXPECT_EQ(CO->target().Processor, "gfx942");
  EXPECT_EQ(CO->target().Family, GfxFamily::GFX9);
  EXPECT_TRUE(CO->target().PackedWorkItemIds);
  EXPECT_TRUE(CO->target().UnifiedVgprFile);
  EXPECT_EQ(CO->version(), 6u);
  ASSERT_EQ(CO->kernels().size(), 1u);
  const Kernel &K = CO->kernels()[0];
  EXPECT_EQ(K.Name, "block_reduce");
  EXPECT_EQ(K.Symbol, "block_reduce.kd");
  EXPECT_EQ(K.WavefrontSize, 64u);
  EXPECT_EQ(K.GroupSegmentFixedSize, 1024u);
  EXPECT_EQ(K.Descriptor.GroupSegmentFixedSize, 1024u);
  EXPECT_EQ(K.MaxFlatWorkgroupSize, 256u);
  EXPECT_EQ(K.PrivateSegmentFixedSize, 0u);
  EXPECT_TRUE(K.Descriptor.enableSgprKernargSegmentPtr());
  EXPECT_TRUE(K.Descriptor.enableWorkgroupId(0));
  EXPECT_FALSE(K.Descriptor.enableWavefrontSize32());
  EXPECT_EQ(K.EntryAddress, K.DescriptorAddress + uint64_t(K.Descriptor.KernelCodeEntryByteOffset));
  EXPECT_GT(K.CodeSize, 0u);
  // Explicit arguments first, at their natural alignment.
  ASSERT_GE(K.Args.size(), 4u);
  EXPECT_EQ(K.Args[0].ValueKind, "global_buffer");
  EXPECT_EQ(K.Args[0].Offset, 0u);
  EXPECT_EQ(K.Args[3].ValueKind, "by_value");
  EXPECT_EQ(K.Args[3].Offset, 24u);
  EXPECT_EQ(K.Args[3].Size, 4u);
  EXPECT_NE(CO->findKernel("block_reduce"), nullptr);
  EXPECT_EQ(CO->findKernel("nope"), nullptr);
}

TEST(CodeObject, Gfx1100IsWave32WithHiddenArguments) {
  EMU_ASSERT_OK_AND_ASSIGN(CO, loadKernelObject("saxpy", "gfx1100"));
  EXPECT_EQ(CO->target().Family, GfxFamily::GFX11);
  EXPECT_FALSE(CO->target().UnifiedVgprFile);
  const Kernel *K = CO->findKernel("saxpy");
  ASSERT_NE(K, nullptr);
  EXPECT_EQ(K->WavefrontSize, 32u);
  EXPECT_TRUE(K->Descriptor.enableWavefrontSize32());
  bool HasBlockCount = false;
  for (const KernelArgInfo &A : K->Args)
    if (A.ValueKind == "hidden_block_count_x") {
      HasBlockCount = true;
      EXPECT_TRUE(A.isHidden());
      EXPECT_EQ(A.Size, 4u);
    }
  EXPECT_TRUE(HasBlockCount);
}

TEST(CodeObject, DisassemblyCoversTheKernel) {
  EMU_ASSERT_OK_AND_ASSIGN(CO, loadKernelObject("vector_add", "gfx1100"));
  const Kernel *K = CO->findKernel("vector_add");
  ASSERT_NE(K, nullptr);
  auto Insts = CO->disassemble(*K);
  ASSERT_FALSE(Insts.empty());
  EXPECT_EQ(Insts.front().Address, K->EntryAddress);
  uint64_t Bytes = 0;
  bool SawEnd = false;
  for (const DisassembledInstruction &I : Insts) {
    Bytes += I.Size;
    SawEnd |= I.Text == "s_endpgm";
    EXPECT_TRUE(I.Supported || I.Text.starts_with("s_code_end")) << I.Text;
  }
  EXPECT_EQ(Bytes, K->CodeSize);
  EXPECT_TRUE(SawEnd);
}

TEST(CodeObject, CodeObjectV5LoadsAndRuns) {
  EMU_ASSERT_OK_AND_ASSIGN(CO, loadKernelObject("vector_add", "gfx942", ".cov5"));
  EXPECT_EQ(CO->version(), 5u);
  const int N = 77;
  std::vector<float> A(N), B(N);
  for (int I = 0; I < N; ++I) {
    A[I] = float(I) * 0.5f;
    B[I] = 1.0f / float(I + 1);
  }
  Device Dev;
  EMU_ASSERT_OK_AND_ASSIGN(DA, Dev.allocateArray<float>(A));
  EMU_ASSERT_OK_AND_ASSIGN(DB, Dev.allocateArray<float>(B));
  EMU_ASSERT_OK_AND_ASSIGN(DC, Dev.allocate(N * 4));
  EMU_ASSERT_OK(
      Dev.dispatch(*CO,
                   DispatchParams::blocks(
                       "vector_add", {2, 1, 1}, {40, 1, 1},
                       KernargBuilder().addPointer(DA).addPointer(DB).addPointer(DC).add(N).take()))
          .takeError());
  EMU_ASSERT_OK_AND_ASSIGN(C, Dev.readArray<float>(DC, N));
  for (int I = 0; I < N; ++I)
    EXPECT_EQ(C[I], A[I] + B[I]) << I;
}

TEST(CodeObject, CodeObjectV4ReadsTheDispatchPacket) {
  EMU_ASSERT_OK_AND_ASSIGN(CO, loadKernelObject("vector_add", "gfx90a", ".cov4"));
  EXPECT_EQ(CO->version(), 4u);
  const Kernel &K = CO->kernels()[0];
  // Code object v4 passes the private segment buffer and the dispatch pointer as well.
  EXPECT_TRUE(K.Descriptor.enableSgprPrivateSegmentBuffer());
  EXPECT_TRUE(K.Descriptor.enableSgprDispatchPtr());
  const int N = 300;
  std::vector<float> A(N), B(N);
  for (int I = 0; I < N; ++I) {
    A[I] = float(I);
    B[I] = float(N - I) * 0.125f;
  }
  Device Dev;
  EMU_ASSERT_OK_AND_ASSIGN(DA, Dev.allocateArray<float>(A));
  EMU_ASSERT_OK_AND_ASSIGN(DB, Dev.allocateArray<float>(B));
  EMU_ASSERT_OK_AND_ASSIGN(DC, Dev.allocate(N * 4));
  EMU_ASSERT_OK(
      Dev.dispatch(*CO,
                   DispatchParams::blocks(
                       "vector_add", {3, 1, 1}, {100, 1, 1},
                       KernargBuilder().addPointer(DA).addPointer(DB).addPointer(DC).add(N).take()))
          .takeError());
  EMU_ASSERT_OK_AND_ASSIGN(C, Dev.readArray<float>(DC, N));
  for (int I = 0; I < N; ++I)
    EXPECT_EQ(C[I], A[I] + B[I]) << I;
}

TEST(CodeObject, MalformedInputsAreErrors) {
  EXPECT_NE(loadError({}).find("not an ELF file"), std::string::npos);
  std::vector<uint8_t> Text(200, 'x');
  EXPECT_NE(loadError(Text).find("not an ELF file"), std::string::npos);

  std::vector<uint8_t> Good = fileBytes(kernelPath("vector_add", "gfx942"));
  ASSERT_FALSE(Good.empty());
  ASSERT_EQ(loadError(Good), "");

  // Truncated anywhere: an error, never a crash.
  for (size_t Size : {size_t(16), size_t(64), size_t(100), Good.size() / 2, Good.size() - 1}) {
    std::vector<uint8_t> Cut(Good.begin(), Good.begin() + Size);
    EXPECT_NE(loadError(Cut), "") << "truncated to " << Size;
  }
  // Another machine.
  std::vector<uint8_t> Wrong = Good;
  Wrong[18] = 62; // e_machine = EM_X86_64
  Wrong[19] = 0;
  EXPECT_NE(loadError(Wrong).find("not EM_AMDGPU"), std::string::npos) << loadError(Wrong);
  // Code object v2.
  std::vector<uint8_t> Old = Good;
  Old[8] = 0; // EI_ABIVERSION
  EXPECT_NE(loadError(Old).find("ABI version 0"), std::string::npos) << loadError(Old);
  // Metadata that LLVM's msgpack::Document reader crashes on (llvm-readelf --notes too): its root
  // replaced by a map whose keys are arrays, {[1]: [2], {3: ...}: ...}. The loader checks that
  // every map key is a string before the Document reads the blob.
  std::vector<uint8_t> Key = {0xae}; // the root map's first key, "amdhsa.kernels" (fixstr 14)
  for (char C : llvm::StringRef("amdhsa.kernels"))
    Key.push_back(uint8_t(C));
  auto At = std::search(Good.begin(), Good.end(), Key.begin(), Key.end());
  ASSERT_NE(At, Good.end());
  std::vector<uint8_t> Bad = Good;
  const uint8_t Root[] = {0x82, 0x91, 0x01, 0x91, 0x02, 0x82, 0x03};
  std::copy(std::begin(Root), std::end(Root), Bad.begin() + (At - Good.begin()) - 1);
  EXPECT_NE(loadError(Bad).find("NT_AMDGPU_METADATA is not valid MessagePack"), std::string::npos)
      << loadError(Bad);
  // A symbol table whose size is huge (a multiple of the entry size, past the end of the file):
  // an error at once, not 2^40 failing symbol lookups.
  {
    std::vector<uint8_t> Big = Good;
    auto U64 = [&](size_t Off) {
      uint64_t V = 0;
      std::memcpy(&V, Big.data() + Off, 8);
      return V;
    };
    uint64_t ShOff = U64(0x28);
    uint16_t ShNum = 0;
    std::memcpy(&ShNum, Big.data() + 0x3c, 2);
    unsigned Patched = 0;
    for (unsigned I = 0; I < ShNum; ++I) {
      size_t Hdr = ShOff + I * 64;
      uint32_t Type = 0;
      std::memcpy(&Type, Big.data() + Hdr + 4, 4);
      if (Type != 11 /* SHT_DYNSYM */ && Type != 2 /* SHT_SYMTAB */)
        continue;
      uint64_t Size = uint64_t(24) << 40;
      std::memcpy(Big.data() + Hdr + 0x20, &Size, 8);
      ++Patched;
    }
    ASSERT_GT(Patched, 0u);
    EXPECT_NE(loadError(Big).find("greater than the file size"), std::string::npos)
        << loadError(Big);
  }
  // Code that ends with an instruction whose literal constant would follow the end of .text
  // (v_cndmask_b32 with a literal source, 0x000000ff, for gfx90a): LLVM's AMDGPU disassembler
  // crashes when it is given only those 4 bytes (llvm-mc -disassemble too); the decoder pads
  // its window, and the instruction is undecodable, the load an ordinary success or error.
  {
    std::vector<uint8_t> Code = fileBytes(kernelPath("vector_add", "gfx90a"));
    ASSERT_FALSE(Code.empty());
    auto Obj = llvm::object::ELF64LEFile::create(
        llvm::StringRef(reinterpret_cast<const char *>(Code.data()), Code.size()));
    ASSERT_TRUE(!!Obj) << llvm::toString(Obj.takeError());
    auto Sections = Obj->sections();
    ASSERT_TRUE(!!Sections) << llvm::toString(Sections.takeError());
    bool Patched = false;
    for (const auto &Sec : *Sections)
      if ((Sec.sh_flags & llvm::ELF::SHF_EXECINSTR) && Sec.sh_size >= 4) {
        const uint8_t Tail[] = {0xff, 0x00, 0x00, 0x00};
        std::copy(std::begin(Tail), std::end(Tail), Code.begin() + Sec.sh_offset + Sec.sh_size - 4);
        Patched = true;
      }
    ASSERT_TRUE(Patched);
    auto CO = CodeObject::load(Code);
    if (!CO)
      llvm::consumeError(CO.takeError());
  }
  // Every single-byte corruption of the header and the first program headers is handled.
  for (size_t I = 0; I < 64 + 56 * 2; ++I) {
    std::vector<uint8_t> Bad = Good;
    Bad[I] ^= 0xa5;
    auto CO = CodeObject::load(Bad);
    if (!CO)
      llvm::consumeError(CO.takeError());
  }
}

} // namespace
