// An AMDGPU HSA code object loaded for emulation: the ELF image, its kernels (descriptor and
// metadata) and the machine code decoded once into the emulator's internal form.
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace reptx::emulator {

// GPU generations whose instruction semantics differ in ways the emulator cares about.
enum class GfxFamily { GFX9, GFX10, GFX11, GFX12 };

struct TargetInfo {
  std::string Processor; // "gfx942"
  std::string TargetId;  // amdhsa.target, e.g. "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-"
  GfxFamily Family = GfxFamily::GFX9;
  unsigned Major = 9, Minor = 0, Stepping = 0;
  // gfx90a, gfx94x/95x and gfx11+ pass the work-item IDs packed into v0 (AMDGPUUsage, "Initial
  // Kernel Execution State").
  bool PackedWorkItemIds = false;
  // gfx90a and gfx94x/95x allocate VGPRs and AGPRs from one unified file (ACCUM_OFFSET).
  bool UnifiedVgprFile = false;
};

// The 64-byte kernel descriptor (AMDGPUUsage, "Kernel Descriptor"), with accessors for the
// COMPUTE_PGM_RSRC1/2/3 and kernel_code_properties fields the emulator uses.
struct KernelDescriptor {
  static constexpr size_t Size = 64;

  uint32_t GroupSegmentFixedSize = 0;
  uint32_t PrivateSegmentFixedSize = 0;
  uint32_t KernargSize = 0;
  int64_t KernelCodeEntryByteOffset = 0;
  uint32_t ComputePgmRsrc3 = 0;
  uint32_t ComputePgmRsrc1 = 0;
  uint32_t ComputePgmRsrc2 = 0;
  uint16_t KernelCodeProperties = 0;
  uint16_t KernargPreload = 0;

  static llvm::Expected<KernelDescriptor> parse(llvm::ArrayRef<uint8_t> Bytes);

  // COMPUTE_PGM_RSRC1
  unsigned granulatedWorkitemVgprCount() const { return ComputePgmRsrc1 & 0x3f; }
  unsigned floatDenormMode32() const { return (ComputePgmRsrc1 >> 16) & 3; }
  unsigned floatDenormMode16_64() const { return (ComputePgmRsrc1 >> 18) & 3; }
  unsigned floatRoundMode32() const { return (ComputePgmRsrc1 >> 12) & 3; }
  bool enableDx10Clamp() const { return (ComputePgmRsrc1 >> 21) & 1; }
  bool enableIeeeMode() const { return (ComputePgmRsrc1 >> 23) & 1; }
  // COMPUTE_PGM_RSRC2
  bool enablePrivateSegment() const { return ComputePgmRsrc2 & 1; }
  unsigned userSgprCount() const { return (ComputePgmRsrc2 >> 1) & 0x1f; }
  bool enableWorkgroupId(unsigned Dim) const { return (ComputePgmRsrc2 >> (7 + Dim)) & 1; }
  bool enableWorkgroupInfo() const { return (ComputePgmRsrc2 >> 10) & 1; }
  // 0: X only, 1: X and Y, 2: X, Y and Z.
  unsigned vgprWorkitemId() const { return (ComputePgmRsrc2 >> 11) & 3; }
  // COMPUTE_PGM_RSRC3 (gfx90a/gfx94x): ACCUM_OFFSET, the first AGPR in the unified file.
  unsigned accumOffset() const { return ((ComputePgmRsrc3 & 0x3f) + 1) * 4; }
  // kernel_code_properties
  bool enableSgprPrivateSegmentBuffer() const { return KernelCodeProperties & (1u << 0); }
  bool enableSgprDispatchPtr() const { return KernelCodeProperties & (1u << 1); }
  bool enableSgprQueuePtr() const { return KernelCodeProperties & (1u << 2); }
  bool enableSgprKernargSegmentPtr() const { return KernelCodeProperties & (1u << 3); }
  bool enableSgprDispatchId() const { return KernelCodeProperties & (1u << 4); }
  bool enableSgprFlatScratchInit() const { return KernelCodeProperties & (1u << 5); }
  bool enableSgprPrivateSegmentSize() const { return KernelCodeProperties & (1u << 6); }
  bool enableWavefrontSize32() const { return KernelCodeProperties & (1u << 10); }
  bool usesDynamicStack() const { return KernelCodeProperties & (1u << 11); }
};

// One entry of a kernel's ".args" metadata (AMDGPUUsage, "Code Object V3+ Metadata").
struct KernelArgInfo {
  std::string Name;      // may be empty
  std::string ValueKind; // "by_value", "global_buffer", "hidden_block_count_x", ...
  uint32_t Offset = 0;
  uint32_t Size = 0;
  bool isHidden() const { return llvm::StringRef(ValueKind).starts_with("hidden_"); }
};

struct Kernel {
  std::string Name;
  std::string Symbol;             // "<name>.kd"
  uint64_t DescriptorAddress = 0; // virtual address in the code object
  uint64_t EntryAddress = 0;      // virtual address of the first instruction
  uint64_t CodeSize = 0;          // size of the kernel's function symbol, 0 when unknown
  KernelDescriptor Descriptor;
  std::vector<KernelArgInfo> Args;
  uint32_t KernargSegmentSize = 0;
  uint32_t KernargSegmentAlign = 0;
  uint32_t GroupSegmentFixedSize = 0;
  uint32_t PrivateSegmentFixedSize = 0;
  uint32_t WavefrontSize = 64;
  uint32_t MaxFlatWorkgroupSize = 1024;
  uint32_t SgprCount = 0;
  uint32_t VgprCount = 0; // on gfx90a/gfx942 the unified file: VGPRs and AGPRs together
  uint32_t AgprCount = 0;
  uint32_t SgprSpillCount = 0;
  uint32_t VgprSpillCount = 0;
  bool UsesDynamicStack = false; // recursion or calls of unknown stack use: scratch beyond
                                 // PrivateSegmentFixedSize
  bool UniformWorkgroupSize = false;
};

// One decoded instruction, as LLVM's AMDGPU printer writes it.
struct DisassembledInstruction {
  uint64_t Address = 0;
  unsigned Size = 0;
  std::string Text;
  bool Supported = false; // the emulator has semantics for it
};

class Program; // internal: the decoded machine code

class CodeObject {
public:
  // Parses and decodes an HSA code object (code object v3 to v6, ELF64 little endian,
  // EM_AMDGPU). The bytes are copied. Instructions the emulator cannot execute do not fail the
  // load; executing them fails the dispatch.
  static llvm::Expected<std::unique_ptr<CodeObject>> load(llvm::ArrayRef<uint8_t> Bytes);
  ~CodeObject();
  CodeObject(const CodeObject &) = delete;
  CodeObject &operator=(const CodeObject &) = delete;

  const TargetInfo &target() const;
  // The code object version: 3, 4, 5 or 6.
  unsigned version() const;
  llvm::ArrayRef<Kernel> kernels() const;
  const Kernel *findKernel(llvm::StringRef Name) const;

  // The decoded instructions of a kernel's function (up to its symbol size).
  std::vector<DisassembledInstruction> disassemble(const Kernel &K) const;

  // Internal interface for the Device.
  uint64_t uniqueId() const;
  llvm::ArrayRef<uint8_t> image() const; // PT_LOAD segments laid out at their virtual addresses
  uint64_t imageBase() const;            // virtual address of image()[0]
  struct Relocation {
    uint64_t Offset; // virtual address of the 64-bit field
    uint32_t Type;
    int64_t Addend;
    std::optional<uint64_t> SymbolValue; // defined symbol's virtual address
    std::string SymbolName;
  };
  llvm::ArrayRef<Relocation> relocations() const;
  const Program &program(unsigned WaveSize) const;

private:
  CodeObject();
  struct Impl;
  std::unique_ptr<Impl> P;
};

} // namespace reptx::emulator
