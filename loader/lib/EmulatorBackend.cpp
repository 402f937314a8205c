// The emulator backend: device memory is emulator memory, kernels run on the CPU through
// emulator::Device::dispatch, one launch at a time (synchronous semantics: a launch has finished
// when the call returns, so streams and events only need to keep the host-side order).
#include "ExecBackend.h"
#include "Log.h"

#include "reptx/emulator/Device.h"
#include "reptx/emulator/PtxLaunch.h"

#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <utility>

namespace reptx::loader {

LoadedCode::~LoadedCode() = default;
ExecBackend::~ExecBackend() = default;

KernelMeta kernelMeta(const emulator::Kernel &K) {
  KernelMeta Meta;
  Meta.Name = K.Name;
  Meta.Wave64Single = emulator::isWave64Single(K);
  bool Leading = Meta.Wave64Single; // the single-mode block size: the launch's, not the user's
  for (const emulator::KernelArgInfo &A : K.Args)
    if (!A.isHidden() && !std::exchange(Leading, false))
      Meta.Args.push_back({A.Offset, A.Size});
  Meta.KernargSize = K.KernargSegmentSize;
  Meta.GroupSegmentSize = K.GroupSegmentFixedSize;
  Meta.PrivateSegmentSize = K.PrivateSegmentFixedSize;
  // Single mode: 64 work-items per 32-thread warp (PtxLaunch.h).
  Meta.MaxThreadsPerBlock = Meta.Wave64Single ? std::min<uint32_t>(K.MaxFlatWorkgroupSize / 2,
                                                                   emulator::Wave64SingleMaxThreads)
                                              : K.MaxFlatWorkgroupSize;
  Meta.Sgprs = K.SgprCount;
  Meta.Vgprs = K.VgprCount;
  Meta.WaveSize = K.WavefrontSize;
  return Meta;
}

namespace {

using namespace llvm;

constexpr uint64_t ManagedGuard = 0x10000; // emulator/lib/Memory.cpp's guard gap

struct SymbolInfo {
  uint64_t Value = 0, Size = 0;
};

/// Data symbols (global variables) of a code object, by name, at their virtual addresses.
std::map<std::string, SymbolInfo, std::less<>> dataSymbols(ArrayRef<uint8_t> Bytes) {
  std::map<std::string, SymbolInfo, std::less<>> Out;
  auto Buf = MemoryBuffer::getMemBuffer(
      StringRef(reinterpret_cast<const char *>(Bytes.data()), Bytes.size()), "", false);
  auto Obj = object::ObjectFile::createELFObjectFile(Buf->getMemBufferRef());
  if (!Obj) {
    consumeError(Obj.takeError());
    return Out;
  }
  for (const object::SymbolRef &S : (*Obj)->symbols()) {
    auto Type = S.getType();
    auto Name = S.getName();
    auto Value = S.getValue();
    if (!Type || !Name || !Value) {
      consumeError(Type.takeError());
      consumeError(Name.takeError());
      consumeError(Value.takeError());
      continue;
    }
    if (*Type != object::SymbolRef::ST_Data || Name->empty())
      continue;
    Out[Name->str()] = {*Value, object::ELFSymbolRef(S).getSize()};
  }
  return Out;
}

class EmulatorCode : public LoadedCode {
public:
  std::unique_ptr<emulator::CodeObject> CO;
  uint64_t Base = 0;
  std::map<std::string, KernelMeta, std::less<>> Kernels;
  std::map<std::string, SymbolInfo, std::less<>> Symbols;

  const KernelMeta *kernel(StringRef Name) const override {
    auto It = Kernels.find(Name);
    return It == Kernels.end() ? nullptr : &It->second;
  }
  bool symbol(StringRef Name, uint64_t &Address, uint64_t &Size) const override {
    auto It = Symbols.find(Name);
    if (It == Symbols.end())
      return false;
    Address = Base + It->second.Value;
    Size = It->second.Size;
    return true;
  }
};

class EmulatorBackend : public ExecBackend {
public:
  explicit EmulatorBackend(std::string Arch) : Arch(std::move(Arch)) {
    Dev.setCodeObjectsWritable(true);
    // Module variables at host-valid addresses: `__managed__` variables (cuLibraryGetManaged).
    Dev.setCodeObjectsHostMapped(true);
  }

  StringRef kind() const override { return "emulator"; }
  std::string deviceName() const override { return "reptx emulator (" + Arch + ")"; }
  std::string arch() const override { return Arch; }
  uint64_t totalMemory() const override { return uint64_t(16) << 30; }
  uint32_t computeUnits() const override { return 80; }

  Expected<uint64_t> allocate(uint64_t Size) override {
    std::lock_guard<std::mutex> L(M);
    // Whole 32-bit words: the helper library does 16-bit atomics (atom.cas.b16, atom.add.f16) on
    // the aligned word around them, as AMDGPU has no 16-bit atomics; a GPU's page-granular
    // memory always backs that word, so the emulator's must too.
    auto A = Dev.allocate(alignTo(Size, 4), "cuMemAlloc");
    if (A)
      Allocated += Size;
    return A;
  }
  /// Managed memory: host memory (page-aligned, zeroed) mapped into the emulator at its own
  /// address, so the pointer cudaMallocManaged returns is valid in host code and in kernels.
  Expected<uint64_t> allocateManaged(uint64_t Size) override {
    // With ManagedGuard bytes on each side: the emulator keeps that much unmapped space between
    // allocations, and host memory next to other mapped host memory would lie within it.
    uint64_t Rounded = (Size + 4095) / 4096 * 4096 + 2 * ManagedGuard;
    auto *Block = static_cast<uint8_t *>(std::aligned_alloc(4096, Rounded));
    if (!Block)
      return createStringError("out of host memory for " + std::to_string(Size) + " bytes");
    std::memset(Block, 0, Rounded);
    std::lock_guard<std::mutex> L(M);
    auto A = Dev.mapHostMemory(Block + ManagedGuard, Size, "cuMemAllocManaged");
    if (!A) {
      std::free(Block);
      return A.takeError();
    }
    Allocated += Size;
    Managed.insert(*A);
    return A;
  }
  bool managedMemory() const override { return true; }
  bool hostAccessibleVariables() const override { return true; }
  Error mapHost(void *Host, uint64_t Size, bool ReadOnly) override {
    std::lock_guard<std::mutex> L(M);
    auto A = Dev.mapHostMemory(Host, Size, "cuMemHostRegister", /*Guarded=*/false, ReadOnly);
    return A ? Error::success() : A.takeError();
  }
  Error unmapHost(void *Host) override {
    std::lock_guard<std::mutex> L(M);
    return Dev.release(reinterpret_cast<uint64_t>(Host));
  }
  Expected<uint64_t> reserveAddressRange(uint64_t Size, uint64_t Align) override {
    std::lock_guard<std::mutex> L(M);
    return Dev.reserveAddressRange(Size, Align);
  }
  Error mapPhysical(uint64_t Address, void *Host, uint64_t Size, bool ReadOnly) override {
    std::lock_guard<std::mutex> L(M);
    return Dev.mapMemoryAt(Address, Host, Size, "cuMemMap", ReadOnly);
  }
  Error unmapPhysical(uint64_t Address) override {
    std::lock_guard<std::mutex> L(M);
    return Dev.release(Address);
  }
  bool isManaged(uint64_t Address) const override {
    std::lock_guard<std::mutex> L(M);
    auto Info = Dev.findAllocation(Address);
    return Info && Managed.count(Info->Address);
  }
  Error release(uint64_t Address) override {
    std::lock_guard<std::mutex> L(M);
    auto Info = Dev.findAllocation(Address);
    if (Error E = Dev.release(Address))
      return E;
    if (Info)
      Allocated -= Info->Size;
    if (Managed.erase(Address))
      std::free(reinterpret_cast<uint8_t *>(Address) - ManagedGuard);
    return Error::success();
  }
  bool findAllocation(uint64_t Address, uint64_t &Base, uint64_t &Size) const override {
    std::lock_guard<std::mutex> L(M);
    auto Info = Dev.findAllocation(Address);
    if (!Info)
      return false;
    Base = Info->Address;
    Size = Info->Size;
    return true;
  }
  uint64_t allocatedBytes() const override {
    std::lock_guard<std::mutex> L(M);
    return Allocated;
  }
  // Copies into and out of device memory go allocation by allocation: a range may continue
  // from one allocation into one that starts where it ends (cuMemMap'ed pieces of a reserved
  // range, which CUDA lets a copy or a tensor span).
  template <typename Fn> Error byAllocation(uint64_t Address, size_t Size, Fn Piece) {
    for (size_t Done = 0; Done < Size;) {
      auto Info = Dev.findAllocation(Address + Done);
      size_t Part =
          Info ? std::min<uint64_t>(Size - Done, Info->Address + Info->Size - (Address + Done))
               : Size - Done;
      if (Error E = Piece(Address + Done, Done, Part))
        return E;
      Done += Part;
    }
    return Error::success();
  }
  Error write(uint64_t Dst, ArrayRef<uint8_t> Data) {
    return byAllocation(Dst, Data.size(), [&](uint64_t At, size_t Off, size_t N) {
      return Dev.write(At, Data.slice(Off, N));
    });
  }
  Error read(uint64_t Src, MutableArrayRef<uint8_t> Data) {
    return byAllocation(Src, Data.size(), [&](uint64_t At, size_t Off, size_t N) {
      return Dev.read(At, Data.slice(Off, N));
    });
  }
  Error copyToDevice(uint64_t Dst, const void *Src, size_t Bytes) override {
    std::lock_guard<std::mutex> L(M);
    return write(Dst, ArrayRef<uint8_t>(static_cast<const uint8_t *>(Src), Bytes));
  }
  Error copyToHost(void *Dst, uint64_t Src, size_t Bytes) override {
    std::lock_guard<std::mutex> L(M);
    return read(Src, MutableArrayRef<uint8_t>(static_cast<uint8_t *>(Dst), Bytes));
  }
  Error copyOnDevice(uint64_t Dst, uint64_t Src, size_t Bytes) override {
    std::lock_guard<std::mutex> L(M);
    std::vector<uint8_t> Tmp(Bytes);
    if (Error E = read(Src, Tmp))
      return E;
    return write(Dst, Tmp);
  }
  Error fill(uint64_t Dst, uint32_t Value, unsigned ElementSize, size_t Count) override {
    std::vector<uint8_t> Tmp(Count * ElementSize);
    for (size_t I = 0; I < Count; ++I)
      std::memcpy(&Tmp[I * ElementSize], &Value, ElementSize); // little-endian low bytes
    std::lock_guard<std::mutex> L(M);
    return write(Dst, Tmp);
  }

  Expected<std::unique_ptr<LoadedCode>> load(ArrayRef<uint8_t> Bytes) override {
    auto CO = emulator::CodeObject::load(Bytes);
    if (!CO)
      return CO.takeError();
    auto Code = std::make_unique<EmulatorCode>();
    Code->CO = std::move(*CO);
    {
      std::lock_guard<std::mutex> L(M);
      auto Base = Dev.loadCodeObject(*Code->CO);
      if (!Base)
        return Base.takeError();
      Code->Base = *Base;
    }
    for (const emulator::Kernel &K : Code->CO->kernels()) {
      Code->Kernels[K.Name] = kernelMeta(K);
    }
    Code->Symbols = dataSymbols(Bytes);
    return std::unique_ptr<LoadedCode>(std::move(Code));
  }

  Error launch(const LoadedCode &Code, const KernelMeta &K, const LaunchDims &D,
               std::vector<uint8_t> Kernargs, DeviceFault &Fault) override {
    const auto &EC = static_cast<const EmulatorCode &>(Code);
    auto P = emulator::DispatchParams::blocks(K.Name, {D.GridX, D.GridY, D.GridZ},
                                              {D.BlockX, D.BlockY, D.BlockZ}, std::move(Kernargs));
    P.DynamicLdsSize = D.DynamicShared;
    P.Cooperative = D.Cooperative;
    // Recursion and calls through pointers use the dynamic stack: at least the emulator's
    // default, and twice the CUDA stack limit the program set (an AMDGPU frame holds more than
    // the NVIDIA one of the same function: saved registers, wider alignment).
    P.DynamicStackSize = std::max<uint64_t>(P.DynamicStackSize, 2 * uint64_t(D.StackSize));
    std::lock_guard<std::mutex> L(M);
    auto R = Dev.dispatch(*EC.CO, P);
    Fault = DeviceFault::None;
    if (R) {
      log().trace("dispatch {}: {} work-groups, {} waves, {} wave instructions", K.Name,
                  R->Workgroups, R->Waves, R->Instructions);
      return Error::success();
    }
    // Faults become the context's sticky error; anything else is a launch failure too.
    handleAllErrors(
        R.takeError(),
        [&](const emulator::ExecutionError &E) {
          switch (E.fault().Kind) {
          case emulator::FaultKind::MemoryViolation:
            Fault = DeviceFault::IllegalAddress;
            break;
          case emulator::FaultKind::InstructionLimit:
            Fault = DeviceFault::Timeout;
            break;
          case emulator::FaultKind::UnsupportedInstruction:
          case emulator::FaultKind::InvalidProgramCounter:
            Fault = DeviceFault::IllegalInstruction;
            break;
          case emulator::FaultKind::Trap:
            Fault = DeviceFault::LaunchFailed;
            break;
          }
          log().error("kernel fault: {}", E.message());
        },
        [&](const ErrorInfoBase &E) {
          Fault = DeviceFault::LaunchFailed;
          log().error("launch of {} failed: {}", K.Name, E.message());
        });
    return Error::success();
  }

  Error synchronize(DeviceFault &Fault) override {
    Fault = DeviceFault::None;
    return Error::success();
  }

private:
  std::string Arch;
  mutable std::mutex M;
  emulator::Device Dev;
  uint64_t Allocated = 0;
  std::set<uint64_t> Managed; // bases of allocateManaged memory (host memory to free)
};

} // namespace

std::unique_ptr<ExecBackend> createEmulatorBackend(std::string Arch) {
  return std::make_unique<EmulatorBackend>(std::move(Arch));
}

Expected<std::unique_ptr<ExecBackend>> createBackend() {
  // REPTX_DEVICE is the documented name; REPTX_BACKEND, its older spelling, is still read.
  const char *Var = "REPTX_DEVICE";
  const char *Env = std::getenv(Var);
  if (!Env || !*Env) {
    Var = "REPTX_BACKEND";
    Env = std::getenv(Var);
  }
  std::string Kind = Env && *Env ? Env : "auto";
  const char *ArchEnv = std::getenv("REPTX_ARCH");
  std::string Arch = ArchEnv && *ArchEnv ? ArchEnv : "gfx942";
  if (Kind == "emulator")
    return createEmulatorBackend(Arch);
  if (Kind != "hip" && Kind != "auto")
    return createStringError(std::string(Var) + "='" + Kind + "': expected emulator, hip or auto");
  std::string Why;
  if (auto Hip = createHipBackend(Why))
    return std::move(Hip);
  if (Kind == "hip")
    return createStringError(std::string(Var) + "=hip: " + Why +
                             " (REPTX_DEVICE=emulator runs kernels on the CPU)");
  log().info("no HIP device ({}); using the emulator", Why);
  return createEmulatorBackend(Arch);
}

} // namespace reptx::loader
