// One kernel dispatch: the HSA kernel dispatch packet and kernarg segment (explicit and hidden
// arguments) in device memory, the initial wave state the HSA runtime and hardware set up from
// the kernel descriptor, and the scheduler that runs work-groups one after another (a window of
// them interleaved once one runs long without finishing; for a cooperative dispatch, all at
// once) while interleaving the waves of a work-group and completing its barriers (AMDGPUUsage,
// "Initial Kernel Execution State", "Kernel Dispatch", "Code Object V5 Metadata" hidden
// arguments; HSA Platform System Architecture, "Kernel Dispatch Packet").
#include "DeviceImpl.h"
#include "Wave.h"

#include "llvm/Support/Endian.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstring>

using namespace llvm;

namespace reptx::emulator {

/// The largest dynamic stack per work-item a dispatch may ask for.
constexpr uint64_t MaxDynamicStackSize = 1024 * 1024;

char ExecutionError::ID = 0;

static StringRef faultKindName(FaultKind K) {
  switch (K) {
  case FaultKind::MemoryViolation:
    return "memory violation";
  case FaultKind::UnsupportedInstruction:
    return "unsupported instruction";
  case FaultKind::InvalidProgramCounter:
    return "invalid program counter";
  case FaultKind::InstructionLimit:
    return "instruction limit exceeded";
  case FaultKind::Trap:
    return "trap";
  }
  return "fault";
}

void ExecutionError::log(raw_ostream &OS) const {
  OS << faultKindName(F.Kind) << " in kernel '" << F.Kernel << "', work-group (" << F.Workgroup.X
     << "," << F.Workgroup.Y << "," << F.Workgroup.Z << "), wave " << F.Wave;
  if (F.Lane)
    OS << ", lane " << *F.Lane;
  OS << ", pc " << format_hex(F.Pc, 0);
  if (F.InKernel)
    OS << " <" << F.Kernel << "+" << format_hex(F.KernelOffset, 0) << ">";
  else
    OS << " (in a function the kernel called)";
  OS << " '" << F.Instruction << "': " << F.Detail;
}

std::error_code ExecutionError::convertToErrorCode() const { return inconvertibleErrorCode(); }

namespace {

Error invalid(const Twine &Message) {
  return createStringError(std::make_error_code(std::errc::invalid_argument), Message);
}

// The HSA kernel dispatch packet (hsa_kernel_dispatch_packet_t, 64 bytes).
struct DispatchPacket {
  uint16_t Header;
  uint16_t Setup;
  uint16_t WorkgroupSize[3];
  uint16_t Reserved0;
  uint32_t GridSize[3];
  uint32_t PrivateSegmentSize;
  uint32_t GroupSegmentSize;
  uint64_t KernelObject;
  uint64_t KernargAddress;
  uint64_t Reserved2;
  uint64_t CompletionSignal;
};
static_assert(sizeof(DispatchPacket) == 64);

constexpr uint16_t PacketTypeKernelDispatch = 2;
constexpr uint16_t FenceScopeSystem = 2;
// amd_queue_t is 256 bytes; the emulator provides a zeroed one for kernels that ask for the
// queue pointer (code object v4 and older read apertures from it when no aperture registers
// exist, which is never the case from GFX9 on).
constexpr uint64_t QueueSize = 256;
constexpr uint32_t MaxLdsSize = 65536;
// Instructions a wave runs before the scheduler moves to the next wave of its work-group.
constexpr uint64_t Quantum = 4096;
// Rounds a work-group of an ordinary dispatch runs without finishing before later work-groups
// join it (it may be waiting for one of them), and rounds without any work-group finishing
// before the window of resident work-groups grows.
constexpr uint64_t StallRounds = 256;
// The most work-groups resident at once when they are interleaved in an ordinary dispatch.
constexpr uint64_t MaxWindow = 64;

struct Allocations {
  Memory &Mem;
  std::vector<uint64_t> Bases;
  ~Allocations() {
    for (uint64_t B : Bases)
      consumeError(Mem.release(B));
  }
  Expected<uint64_t> add(uint64_t Size, StringRef Label, bool ReadOnly) {
    auto A = Mem.allocate(Size, Label, ReadOnly);
    if (A)
      Bases.push_back(*A);
    return A;
  }
};

uint32_t ceilDiv(uint32_t A, uint32_t B) { return uint32_t((uint64_t(A) + B - 1) / B); }

// Value of a hidden kernel argument, or nullopt for kinds left zero.
std::optional<uint64_t> hiddenValue(StringRef Kind, const DispatchParams &P, const Dim3 &Blocks,
                                    unsigned Dims, uint64_t QueueAddress) {
  const uint32_t Grid[3] = {P.GridSize.X, P.GridSize.Y, P.GridSize.Z};
  const uint32_t Wg[3] = {P.WorkgroupSize.X, P.WorkgroupSize.Y, P.WorkgroupSize.Z};
  const uint32_t Count[3] = {Blocks.X, Blocks.Y, Blocks.Z};
  static const char Axis[] = {'x', 'y', 'z'};
  for (unsigned D = 0; D < 3; ++D) {
    if (Kind == (Twine("hidden_block_count_") + Twine(Axis[D])).str())
      return Count[D];
    if (Kind == (Twine("hidden_group_size_") + Twine(Axis[D])).str())
      return Wg[D];
    if (Kind == (Twine("hidden_remainder_") + Twine(Axis[D])).str())
      return Grid[D] % Wg[D];
    if (Kind == (Twine("hidden_global_offset_") + Twine(Axis[D])).str())
      return 0;
  }
  if (Kind == "hidden_grid_dims")
    return Dims;
  if (Kind == "hidden_dynamic_lds_size")
    return P.DynamicLdsSize;
  if (Kind == "hidden_private_base")
    return PrivateApertureBase >> 32;
  if (Kind == "hidden_shared_base")
    return SharedApertureBase >> 32;
  if (Kind == "hidden_queue_ptr")
    return QueueAddress;
  // hidden_none, hidden_hostcall_buffer, hidden_multigrid_sync_arg, hidden_heap_v1,
  // hidden_default_queue, hidden_completion_action, hidden_printf_buffer: null / zero.
  return std::nullopt;
}

class DispatchRun {
public:
  DispatchRun(Memory &Mem, const CodeObject &CO, const Kernel &K, const DispatchParams &P)
      : Mem(Mem), CO(CO), K(K), P(P), Allocs{Mem, {}} {}

  Expected<DispatchResult> run(uint64_t DispatchId, uint64_t LoadBase);

private:
  // A work-group in flight: its LDS and its waves.
  struct Resident {
    Workgroup Group;
    std::vector<std::unique_ptr<Wave>> Waves;
    unsigned NumWaves = 0;
  };

  Error setUp(uint64_t DispatchId, uint64_t LoadBase);
  void startWorkgroup(Resident &R, Dim3 Id);
  Expected<bool> stepWorkgroup(Resident &R);
  Error runCooperative();
  Error runInOrder();
  Error runWindow(uint64_t &Next);
  Dim3 groupId(uint64_t Index) const;
  void initWave(Wave &W, Workgroup &G, unsigned Index, unsigned Threads, const Dim3 &Size);
  Error faultError(const Wave &W) const;

  Memory &Mem;
  const CodeObject &CO;
  const Kernel &K;
  const DispatchParams &P;
  Allocations Allocs;
  DispatchContext Ctx;
  Dim3 Blocks;
  uint64_t PacketAddress = 0, KernargAddress = 0, QueueAddress = 0, Id = 0;
  uint32_t EntryIndex = 0;
  unsigned NumVgprs = 0;
  Resident One; // reused across work-groups when they run one after another
  std::vector<std::unique_ptr<Resident>> More; // the others of an interleaved window
  DispatchResult Result;
};

Error DispatchRun::setUp(uint64_t DispatchId, uint64_t LoadBase) {
  const KernelDescriptor &D = K.Descriptor;
  const TargetInfo &T = CO.target();
  const uint32_t Grid[3] = {P.GridSize.X, P.GridSize.Y, P.GridSize.Z};
  const uint32_t Wg[3] = {P.WorkgroupSize.X, P.WorkgroupSize.Y, P.WorkgroupSize.Z};
  for (unsigned I = 0; I < 3; ++I) {
    if (Grid[I] == 0 || Wg[I] == 0)
      return invalid("dispatch of '" + K.Name + "': grid and work-group sizes must be at least 1");
    if (Wg[I] > 1024)
      return invalid("dispatch of '" + K.Name + "': work-group dimension " + Twine(Wg[I]) +
                     " exceeds 1024");
    if (K.UniformWorkgroupSize && Grid[I] % Wg[I] != 0)
      return invalid("dispatch of '" + K.Name +
                     "': the kernel requires uniform work-groups, but the grid size " +
                     Twine(Grid[I]) + " is not a multiple of the work-group size " + Twine(Wg[I]));
  }
  uint64_t Flat = P.WorkgroupSize.count();
  if (Flat > K.MaxFlatWorkgroupSize || Flat > 1024)
    return invalid("dispatch of '" + K.Name + "': work-group of " + Twine(Flat) +
                   " work-items exceeds the kernel's maximum of " +
                   Twine(std::min<uint32_t>(K.MaxFlatWorkgroupSize, 1024)));
  // Private (scratch) memory: the fixed size, plus room for a dynamic stack (calls through
  // pointers, recursion) when the kernel has one.
  if (P.DynamicStackSize > MaxDynamicStackSize)
    return invalid("dispatch of '" + K.Name + "': a dynamic stack of " + Twine(P.DynamicStackSize) +
                   " bytes per work-item exceeds " + Twine(MaxDynamicStackSize));
  Ctx.PrivatePerLane =
      K.PrivateSegmentFixedSize + (D.usesDynamicStack() ? uint32_t(P.DynamicStackSize) : 0);
  uint64_t Lds = uint64_t(K.GroupSegmentFixedSize) + P.DynamicLdsSize;
  if (Lds > MaxLdsSize)
    return invalid("dispatch of '" + K.Name + "': " + Twine(Lds) + " bytes of LDS exceed " +
                   Twine(MaxLdsSize));
  if (P.Kernargs.size() > K.KernargSegmentSize)
    return invalid("dispatch of '" + K.Name + "': " + Twine(P.Kernargs.size()) +
                   " bytes of kernel arguments exceed the " + Twine(K.KernargSegmentSize) +
                   "-byte kernarg segment");
  for (const KernelArgInfo &A : K.Args)
    if (!A.isHidden() && uint64_t(A.Offset) + A.Size > P.Kernargs.size())
      return invalid(
          "dispatch of '" + K.Name + "': argument " +
          (A.Name.empty() ? Twine("at offset ") + Twine(A.Offset) : Twine("'") + A.Name + "'") +
          " lies past the " + Twine(P.Kernargs.size()) +
          " bytes of explicit kernel arguments given");

  Blocks = {ceilDiv(Grid[0], Wg[0]), ceilDiv(Grid[1], Wg[1]), ceilDiv(Grid[2], Wg[2])};
  unsigned Dims = P.GridSize.Z > 1 ? 3 : P.GridSize.Y > 1 ? 2 : 1;
  Id = DispatchId;

  // Queue, packet and kernarg segment, as the HSA runtime would place them.
  auto Queue = Allocs.add(QueueSize, "queue", true);
  if (!Queue)
    return Queue.takeError();
  QueueAddress = *Queue;
  // The HSA runtime hands out kernarg buffers from a pool in 16-byte-aligned, padded blocks, and
  // LLVM relies on that: it widens scalar loads past the segment's end (an s_load_b128 at offset
  // 8 of a 20-byte segment on gfx11). Pad the same way so such loads read zeros, not a fault.
  std::vector<uint8_t> Kernarg(
      std::max<uint64_t>((uint64_t(K.KernargSegmentSize) + 15) / 16 * 16 + 16, 16), 0);
  std::copy(P.Kernargs.begin(), P.Kernargs.end(), Kernarg.begin());
  for (const KernelArgInfo &A : K.Args) {
    if (!A.isHidden())
      continue;
    std::optional<uint64_t> V = hiddenValue(A.ValueKind, P, Blocks, Dims, QueueAddress);
    if (!V)
      continue;
    uint64_t LE = support::endian::byte_swap(*V, llvm::endianness::little);
    std::memcpy(Kernarg.data() + A.Offset, &LE, std::min<uint32_t>(A.Size, 8));
  }
  auto KA = Allocs.add(Kernarg.size(), "kernarg segment", true);
  if (!KA)
    return KA.takeError();
  KernargAddress = *KA;
  if (Error E = Mem.hostWrite(KernargAddress, Kernarg.data(), Kernarg.size(), true))
    return E;

  DispatchPacket Packet = {};
  Packet.Header = uint16_t(PacketTypeKernelDispatch | (1u << 8) | (FenceScopeSystem << 9) |
                           (FenceScopeSystem << 11));
  Packet.Setup = uint16_t(Dims);
  for (unsigned I = 0; I < 3; ++I) {
    Packet.WorkgroupSize[I] = uint16_t(Wg[I]);
    Packet.GridSize[I] = Grid[I];
  }
  Packet.PrivateSegmentSize = K.PrivateSegmentFixedSize;
  Packet.GroupSegmentSize = uint32_t(Lds);
  Packet.KernelObject = LoadBase + K.DescriptorAddress;
  Packet.KernargAddress = KernargAddress;
  auto PA = Allocs.add(sizeof(Packet), "dispatch packet", true);
  if (!PA)
    return PA.takeError();
  PacketAddress = *PA;
  if (Error E = Mem.hostWrite(PacketAddress, &Packet, sizeof(Packet), true))
    return E;

  // Context shared by the waves.
  Ctx.Mem = &Mem;
  Ctx.Prog = &CO.program(K.WavefrontSize);
  Ctx.K = &K;
  Ctx.Target = T;
  Ctx.LoadBase = LoadBase;
  Ctx.MaxInstructionsPerWave = P.MaxInstructionsPerWave;
  // FLOAT_DENORM_MODE: 0 flushes inputs and results, 1 keeps denormal inputs, 2 keeps denormal
  // results, 3 keeps both (AMDGPUUsage, "Floating Point Denorm Mode Enumeration Values").
  unsigned M32 = D.floatDenormMode32(), M64 = D.floatDenormMode16_64();
  Ctx.FlushF32In = M32 == 0 || M32 == 2;
  Ctx.FlushF32Out = M32 == 0 || M32 == 1;
  Ctx.FlushF64In = M64 == 0 || M64 == 2;
  Ctx.FlushF64Out = M64 == 0 || M64 == 1;
  Ctx.Dx10Clamp = D.enableDx10Clamp();
  Ctx.RegistersChecked.assign(Ctx.Prog->Insts.size(), 0);
  auto Entry = Ctx.Prog->indexOf(K.EntryAddress);
  if (!Entry)
    return invalid("kernel '" + K.Name + "': entry point is not an instruction");
  EntryIndex = *Entry;

  // VGPRs per lane from GRANULATED_WORKITEM_VGPR_COUNT: granules of 8 on gfx90a/gfx94x (unified
  // VGPR+AGPR file) and on GFX10+ in wave32, of 4 otherwise (AMDGPUUsage, "compute_pgm_rsrc1").
  unsigned Granule =
      (T.UnifiedVgprFile || (T.Family != GfxFamily::GFX9 && K.WavefrontSize == 32)) ? 8 : 4;
  NumVgprs = (D.granulatedWorkitemVgprCount() + 1) * Granule;
  NumVgprs = std::max(NumVgprs, 3u);

  // User SGPRs must fit in USER_SGPR_COUNT; the system SGPRs follow it.
  unsigned User = (D.enableSgprPrivateSegmentBuffer() ? 4 : 0) +
                  (D.enableSgprDispatchPtr() ? 2 : 0) + (D.enableSgprQueuePtr() ? 2 : 0) +
                  (D.enableSgprKernargSegmentPtr() ? 2 : 0) + (D.enableSgprDispatchId() ? 2 : 0) +
                  (D.enableSgprFlatScratchInit() ? 2 : 0) +
                  (D.enableSgprPrivateSegmentSize() ? 1 : 0);
  if (User > D.userSgprCount())
    return invalid("kernel '" + K.Name + "': the descriptor enables " + Twine(User) +
                   " user SGPRs but USER_SGPR_COUNT is " + Twine(D.userSgprCount()));
  return Error::success();
}

void DispatchRun::initWave(Wave &W, Workgroup &G, unsigned Index, unsigned Threads,
                           const Dim3 &Size) {
  const KernelDescriptor &D = K.Descriptor;
  W.Ctx = &Ctx;
  W.Group = &G;
  W.Index = Index;
  W.Size = K.WavefrontSize;
  std::fill(std::begin(W.S), std::end(W.S), 0u);
  W.Scc = false;
  W.NumVgprs = NumVgprs;
  W.V.assign(size_t(NumVgprs + Wave::DppScratchVgprs) * W.Size, 0);
  W.Private.assign(size_t(Ctx.PrivatePerLane) * W.Size, 0);
  W.AccOffset = CO.target().UnifiedVgprFile ? std::min(D.accumOffset(), NumVgprs) : 0;
  W.Pc = EntryIndex;
  W.Executed = 0;
  W.Status = WaveStatus::Ready;
  W.Fault = WaveFault();
  // MODE from COMPUTE_PGM_RSRC1: FLOAT_ROUND_MODE_32/_16_64 and FLOAT_DENORM_MODE_32/_16_64 are
  // bits 19:12, laid out like MODE's bits 7:0; DX10_CLAMP (21) and IEEE_MODE (23).
  // GFX12's MODE has neither bit. LLVM compiles for it as for DX10_CLAMP = 1 (saturation through
  // the clamp bit, which must then turn NaN into 0) and IEEE = 0, and so runs the emulator.
  bool Gfx12 = CO.target().Family == GfxFamily::GFX12;
  W.Mode = ((D.ComputePgmRsrc1 >> 12) & 0xff) | (D.enableDx10Clamp() || Gfx12 ? 1u << 8 : 0) |
           (D.enableIeeeMode() && !Gfx12 ? 1u << 9 : 0);

  // User SGPRs in the documented order, then the system SGPRs from USER_SGPR_COUNT on.
  unsigned R = 0;
  auto Put64 = [&](uint64_t V) {
    W.S[R] = uint32_t(V);
    W.S[R + 1] = uint32_t(V >> 32);
    R += 2;
  };
  if (D.enableSgprPrivateSegmentBuffer())
    R += 4; // no scratch: an all-zero buffer resource
  if (D.enableSgprDispatchPtr())
    Put64(PacketAddress);
  if (D.enableSgprQueuePtr())
    Put64(QueueAddress);
  if (D.enableSgprKernargSegmentPtr())
    Put64(KernargAddress);
  if (D.enableSgprDispatchId())
    Put64(Id);
  if (D.enableSgprFlatScratchInit())
    R += 2;
  if (D.enableSgprPrivateSegmentSize())
    W.S[R++] = K.PrivateSegmentFixedSize;
  R = D.userSgprCount();
  const uint32_t GroupId[3] = {G.Id.X, G.Id.Y, G.Id.Z};
  for (unsigned Dim = 0; Dim < 3; ++Dim)
    if (D.enableWorkgroupId(Dim))
      W.S[R++] = GroupId[Dim];
  // GFX12 architected SGPRs: the hardware also puts the work-group ids in TTMP9 (x) and TTMP7
  // (y in bits 15:0, z in 31:16), where LLVM reads them (AMDGPUUsage, "Initial Kernel Execution
  // State").
  if (CO.target().Family == GfxFamily::GFX12) {
    W.S[sreg::Ttmp0 + 9] = GroupId[0];
    W.S[sreg::Ttmp0 + 7] = (GroupId[1] & 0xffff) | (GroupId[2] << 16);
  }
  if (D.enableWorkgroupInfo()) {
    unsigned WavesInGroup = (Threads + W.Size - 1) / W.Size;
    W.S[R++] = (Index == 0 ? 1u << 31 : 0u) | (WavesInGroup & 0x3f);
  }
  if (D.enablePrivateSegment())
    W.S[R++] = 0; // scratch wave offset

  // EXEC covers the wave's work-items; work-item IDs go to v0 (packed as X | Y << 10 | Z << 20)
  // or to v0, v1, v2.
  unsigned First = Index * W.Size;
  unsigned Count = std::min(W.Size, Threads - First);
  W.setExec(Count == 64 ? ~0ull : (uint64_t(1) << Count) - 1);
  unsigned IdDims = D.vgprWorkitemId();
  for (unsigned L = 0; L < Count; ++L) {
    unsigned Flat = First + L;
    uint32_t X = Flat % Size.X, Y = (Flat / Size.X) % Size.Y, Z = Flat / (Size.X * Size.Y);
    if (IdDims < 1)
      Y = 0;
    if (IdDims < 2)
      Z = 0;
    if (CO.target().PackedWorkItemIds) {
      W.vcol(0)[L] = X | (Y << 10) | (Z << 20);
    } else {
      W.vcol(0)[L] = X;
      if (IdDims >= 1)
        W.vcol(1)[L] = Y;
      if (IdDims >= 2)
        W.vcol(2)[L] = Z;
    }
  }
}

Error DispatchRun::faultError(const Wave &W) const {
  const Program &Prog = *Ctx.Prog;
  Fault F;
  F.Kind = W.Fault.Kind;
  F.Kernel = K.Name;
  F.Workgroup = W.Group->Id;
  F.Wave = W.Index;
  F.Lane = W.Fault.Lane;
  F.Address = W.Fault.Address;
  F.Detail = W.Fault.Detail;
  if (W.Pc < Prog.Insts.size()) {
    F.Pc = Prog.Insts[W.Pc].Address;
    F.Instruction = Prog.Text[W.Pc];
    F.Mnemonic = Prog.Mnemonic[W.Pc];
    if (F.Kind == FaultKind::UnsupportedInstruction && !Prog.McName[W.Pc].empty())
      F.Detail += " (LLVM opcode " + Prog.McName[W.Pc] + ")";
  } else {
    F.Pc = Prog.CodeEnd;
  }
  F.KernelOffset = F.Pc - K.EntryAddress;
  F.InKernel = F.Pc >= K.EntryAddress && (!K.CodeSize || F.Pc < K.EntryAddress + K.CodeSize);
  return make_error<ExecutionError>(std::move(F));
}

void DispatchRun::startWorkgroup(Resident &R, Dim3 GroupId) {
  R.Group.Id = GroupId;
  // Whole dwords: the hardware allocates LDS in blocks of 128 dwords or more, and LLVM does 8-
  // and 16-bit atomics (PTX atom.add.f16, atom.cas.b16) on the dword that contains the value.
  R.Group.Lds.assign((size_t(K.GroupSegmentFixedSize) + P.DynamicLdsSize + 3) & ~size_t(3), 0);
  // A partial work-group at the end of the grid has the remaining work-items only.
  Dim3 Size = {std::min(P.WorkgroupSize.X, P.GridSize.X - GroupId.X * P.WorkgroupSize.X),
               std::min(P.WorkgroupSize.Y, P.GridSize.Y - GroupId.Y * P.WorkgroupSize.Y),
               std::min(P.WorkgroupSize.Z, P.GridSize.Z - GroupId.Z * P.WorkgroupSize.Z)};
  unsigned Threads = unsigned(Size.count());
  R.NumWaves = (Threads + K.WavefrontSize - 1) / K.WavefrontSize;
  while (R.Waves.size() < R.NumWaves)
    R.Waves.push_back(std::make_unique<Wave>());
  for (unsigned I = 0; I < R.NumWaves; ++I)
    initWave(*R.Waves[I], R.Group, I, Threads, Size);
  Result.Waves += R.NumWaves;
}

// One round over the work-group's waves, each running up to Quantum instructions; a barrier
// completes once every wave that has not ended waits at it (waves that ended no longer take part,
// AMD ISA manuals, "S_BARRIER"). True when every wave has ended.
Expected<bool> DispatchRun::stepWorkgroup(Resident &R) {
  unsigned Live = 0, Waiting = 0;
  for (unsigned I = 0; I < R.NumWaves; ++I) {
    Wave &W = *R.Waves[I];
    if (W.Status == WaveStatus::Ready) {
      uint64_t Before = W.Executed;
      Step S = runWave(W, Quantum);
      Result.Instructions += W.Executed - Before;
      if (S == Step::Fault)
        return faultError(W);
    }
    if (W.Status != WaveStatus::Ended)
      ++Live;
    if (W.Status == WaveStatus::AtBarrier)
      ++Waiting;
  }
  if (Live == 0) {
    ++Result.Workgroups;
    return true;
  }
  if (Waiting == Live)
    for (unsigned I = 0; I < R.NumWaves; ++I)
      if (R.Waves[I]->Status == WaveStatus::AtBarrier)
        R.Waves[I]->Status = WaveStatus::Ready;
  return false;
}

// Every work-group resident at once, their rounds interleaved, so that one can wait for another
// (a grid-wide barrier spins until every work-group has arrived).
Error DispatchRun::runCooperative() {
  uint64_t WavesPerGroup = (P.WorkgroupSize.count() + K.WavefrontSize - 1) / K.WavefrontSize;
  uint64_t Waves = Blocks.count() * WavesPerGroup;
  // Registers and scratch of every wave at once.
  uint64_t Bytes = Waves * K.WavefrontSize * (uint64_t(NumVgprs) * 4 + Ctx.PrivatePerLane);
  if (Waves > DispatchParams::MaxCooperativeWaves || Bytes > DispatchParams::MaxCooperativeBytes)
    return invalid("cooperative dispatch of '" + K.Name + "': " + Twine(Blocks.count()) +
                   " work-groups of " + Twine(WavesPerGroup) + " waves (" + Twine(Bytes >> 20) +
                   " MiB of registers and scratch) exceed what the emulator holds at once (" +
                   Twine(DispatchParams::MaxCooperativeWaves) + " waves, " +
                   Twine(DispatchParams::MaxCooperativeBytes >> 20) + " MiB)");
  std::vector<Resident> All(Blocks.count());
  size_t N = 0;
  for (uint32_t Z = 0; Z < Blocks.Z; ++Z)
    for (uint32_t Y = 0; Y < Blocks.Y; ++Y)
      for (uint32_t X = 0; X < Blocks.X; ++X)
        startWorkgroup(All[N++], {X, Y, Z});
  std::vector<bool> Done(All.size(), false);
  for (size_t Left = All.size(); Left;)
    for (size_t I = 0; I < All.size(); ++I) {
      if (Done[I])
        continue;
      auto Finished = stepWorkgroup(All[I]);
      if (!Finished)
        return Finished.takeError();
      if (*Finished) {
        Done[I] = true;
        --Left;
      }
    }
  return Error::success();
}

Dim3 DispatchRun::groupId(uint64_t Index) const {
  uint64_t XY = uint64_t(Blocks.X) * Blocks.Y;
  return {uint32_t(Index % Blocks.X), uint32_t(Index / Blocks.X % Blocks.Y), uint32_t(Index / XY)};
}

// Work-groups one after another in grid order, as long as each finishes. One that runs
// StallRounds rounds without finishing may wait for a later work-group (a flag that a block
// further on sets, which a GPU running both at once would see), so the dispatch goes on with a
// window of resident work-groups (runWindow).
Error DispatchRun::runInOrder() {
  const uint64_t Total = Blocks.count();
  for (uint64_t Next = 0; Next < Total;) {
    startWorkgroup(One, groupId(Next++));
    for (uint64_t Rounds = 1;; ++Rounds) {
      auto Finished = stepWorkgroup(One);
      if (!Finished)
        return Finished.takeError();
      if (*Finished)
        break;
      if (Rounds >= StallRounds && Next < Total)
        return runWindow(Next);
    }
  }
  return Error::success();
}

// The work-groups in flight, their rounds interleaved; a finished one makes room for the next in
// grid order, and StallRounds rounds with none finishing double the window (up to MaxWindow, and
// what the emulator holds at once), so that a work-group waiting for a later one sees it run.
Error DispatchRun::runWindow(uint64_t &Next) {
  const uint64_t Total = Blocks.count();
  uint64_t WavesPerGroup = (P.WorkgroupSize.count() + K.WavefrontSize - 1) / K.WavefrontSize;
  uint64_t GroupBytes =
      WavesPerGroup * K.WavefrontSize * (uint64_t(NumVgprs) * 4 + Ctx.PrivatePerLane);
  uint64_t Limit =
      std::min({MaxWindow, DispatchParams::MaxCooperativeWaves / WavesPerGroup,
                DispatchParams::MaxCooperativeBytes / std::max<uint64_t>(GroupBytes, 1)});
  std::vector<Resident *> Active = {&One};
  auto Grow = [&] {
    uint64_t Want = std::min<uint64_t>(Limit, Active.size() * 2);
    while (Active.size() < Want && Next < Total) {
      More.push_back(std::make_unique<Resident>());
      startWorkgroup(*More.back(), groupId(Next++));
      Active.push_back(More.back().get());
    }
  };
  Grow();
  for (uint64_t Stalled = 0; !Active.empty();) {
    bool AnyFinished = false;
    for (size_t I = 0; I < Active.size();) {
      auto Finished = stepWorkgroup(*Active[I]);
      if (!Finished)
        return Finished.takeError();
      if (!*Finished) {
        ++I;
        continue;
      }
      AnyFinished = true;
      if (Next < Total) {
        startWorkgroup(*Active[I], groupId(Next++));
        ++I;
      } else {
        Active.erase(Active.begin() + long(I));
      }
    }
    Stalled = AnyFinished ? 0 : Stalled + 1;
    if (Stalled >= StallRounds) {
      Grow();
      Stalled = 0;
    }
  }
  return Error::success();
}

Expected<DispatchResult> DispatchRun::run(uint64_t DispatchId, uint64_t LoadBase) {
  if (Error E = setUp(DispatchId, LoadBase))
    return std::move(E);
  if (Error E = P.Cooperative ? runCooperative() : runInOrder())
    return std::move(E);
  return Result;
}

} // namespace

Expected<DispatchResult> runDispatch(Memory &Mem, uint64_t DispatchId, const CodeObject &CO,
                                     uint64_t LoadBase, const DispatchParams &Params) {
  const Kernel *K = CO.findKernel(Params.KernelName);
  if (!K) {
    std::string Names;
    for (const Kernel &Each : CO.kernels())
      Names += (Names.empty() ? "" : ", ") + Each.Name;
    return invalid("no kernel named '" + Params.KernelName +
                   "' in the code object (kernels: " + Names + ")");
  }
  DispatchRun Run(Mem, CO, *K, Params);
  return Run.run(DispatchId, LoadBase);
}

} // namespace reptx::emulator
