// `reptx emulate`: run one kernel of an AMDGPU code object on the emulator, with arguments from the
// command line and buffers from files, and print a per-dispatch summary. For debugging.
#include "Commands.h"

#include "reptx/emulator/CodeObject.h"
#include "reptx/emulator/Device.h"
#include "reptx/emulator/Dispatch.h"
#include "reptx/emulator/PtxLaunch.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Object/OffloadBundle.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <optional>

namespace reptx::tool {

namespace {

using namespace reptx::emulator;

struct EmulateOpts {
  std::string Path, Kernel, Grid = "1", Block = "1", Arch;
  std::vector<std::string> Args;
  uint32_t DynamicLds = 0;
  uint64_t MaxInstructions = uint64_t(1) << 26;
  bool List = false, Disassemble = false;
};

bool parseDim(const std::string &S, Dim3 &D) {
  llvm::SmallVector<llvm::StringRef, 3> Parts;
  llvm::StringRef(S).split(Parts, ',');
  if (Parts.empty() || Parts.size() > 3)
    return false;
  uint32_t *Out[3] = {&D.X, &D.Y, &D.Z};
  for (size_t I = 0; I < Parts.size(); ++I)
    if (Parts[I].trim().getAsInteger(10, *Out[I]) || *Out[I] == 0)
      return false;
  return true;
}

/// A buffer argument whose contents go back to a file after the dispatch.
struct OutputBuffer {
  uint64_t Address;
  uint64_t Size;
  std::string File;
};

/// The code object of a file: the file itself, or from a clang offload bundle (`reptx compile
/// --bundle`, hipcc's fat binaries, compressed or not) the entry of Arch, or its only AMDGPU entry
/// when Arch is empty. The bundle is read by LLVM's reader (llvm/Object/OffloadBundle.h), not
/// reptx's writer. A compressed bundle ("CCOB", clang-offload-bundler -compress) is decompressed
/// into Storage.
llvm::Expected<llvm::StringRef> codeObjectOf(llvm::StringRef Bytes, const std::string &Path,
                                             const std::string &Arch,
                                             std::unique_ptr<llvm::MemoryBuffer> &Storage) {
  if (Bytes.starts_with("CCOB")) {
    // LLVM allocates the size the header declares before decompressing (and aborts when it
    // cannot): a declared size past any real bundle is an error here.
    auto Header = llvm::object::CompressedOffloadBundle::CompressedBundleHeader::tryParse(Bytes);
    if (!Header)
      return llvm::createStringError(
          Path + ": not a valid compressed offload bundle: " + llvm::toString(Header.takeError()));
    if (Header->UncompressedFileSize > (size_t(1) << 30))
      return llvm::createStringError(Path + ": the compressed offload bundle declares " +
                                     llvm::Twine(Header->UncompressedFileSize) +
                                     " bytes uncompressed (more than 1 GiB)");
    auto In = llvm::MemoryBuffer::getMemBuffer(Bytes, Path, /*RequiresNullTerminator=*/false);
    auto D = llvm::object::CompressedOffloadBundle::decompress(*In);
    if (!D)
      return llvm::createStringError(
          Path + ": not a valid compressed offload bundle: " + llvm::toString(D.takeError()));
    Storage = std::move(*D);
    Bytes = Storage->getBuffer();
    if (!Bytes.starts_with("__CLANG_OFFLOAD_BUNDLE__"))
      return llvm::createStringError(Path + ": the compressed data is not an offload bundle");
  }
  if (!Bytes.starts_with("__CLANG_OFFLOAD_BUNDLE__")) {
    if (!Arch.empty())
      return llvm::createStringError(Path + ": --arch picks an entry of an offload bundle, and "
                                            "this is not one");
    return Bytes;
  }
  auto FB = llvm::object::OffloadBundleFatBin::create(llvm::MemoryBufferRef(Bytes, Path), 0, Path);
  if (!FB)
    return llvm::createStringError(
        Path + ": not a valid offload bundle: " + llvm::toString(FB.takeError()));
  std::vector<std::string> Have;
  std::optional<llvm::StringRef> Found;
  for (const llvm::object::OffloadBundleEntry &E : (*FB)->getEntries()) {
    // hipv4-amdgcn-amd-amdhsa--gfx942[:sramecc+:xnack-]
    auto [Triple, TargetId] = llvm::StringRef(E.ID).split("--");
    if (!Triple.ends_with("amdgcn-amd-amdhsa"))
      continue;
    llvm::StringRef Proc = TargetId.split(':').first;
    Have.push_back(TargetId.str());
    if (E.Offset > Bytes.size() || E.Size > Bytes.size() - E.Offset)
      return llvm::createStringError(Path + ": entry " + E.ID + " lies outside the file");
    if (Arch.empty() ? !Found : Proc == Arch)
      Found = Bytes.substr(E.Offset, E.Size);
  }
  if (Have.empty())
    return llvm::createStringError(Path + ": the offload bundle has no AMDGPU code object");
  if (Arch.empty() && Have.size() > 1)
    return llvm::createStringError(Path + ": the offload bundle holds " + llvm::join(Have, ", ") +
                                   ": choose one with --arch");
  if (!Found)
    return llvm::createStringError(Path + ": no " + Arch + " code object in the offload bundle (" +
                                   llvm::join(Have, ", ") + ")");
  return *Found;
}

int runEmulate(const EmulateOpts &O) {
  auto Buf = llvm::MemoryBuffer::getFile(O.Path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!Buf) {
    reportError(O.Path + ": " + Buf.getError().message());
    return ExitBadInput;
  }
  std::unique_ptr<llvm::MemoryBuffer> Decompressed;
  auto Bytes = codeObjectOf((*Buf)->getBuffer(), O.Path, O.Arch, Decompressed);
  if (!Bytes) {
    reportError(llvm::toString(Bytes.takeError()));
    return ExitBadInput;
  }
  auto CO = CodeObject::load(
      llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(Bytes->data()), Bytes->size()));
  if (!CO) {
    reportError(O.Path + ": " + llvm::toString(CO.takeError()));
    return ExitBadInput;
  }
  if (O.List) {
    for (const Kernel &K : (*CO)->kernels()) {
      llvm::outs() << fmt::format("{}: wave{}, kernarg {} bytes, LDS {} bytes, scratch {} bytes\n",
                                  K.Name, K.WavefrontSize, K.KernargSegmentSize,
                                  K.GroupSegmentFixedSize, K.PrivateSegmentFixedSize);
      for (const KernelArgInfo &A : K.Args)
        if (!A.isHidden())
          llvm::outs() << fmt::format("  +{:<4} {:>2} bytes  {} {}\n", A.Offset, A.Size,
                                      A.ValueKind, A.Name);
    }
    return ExitOk;
  }
  const Kernel *K = (*CO)->findKernel(O.Kernel);
  if (!K) {
    reportError(fmt::format("{}: no kernel named '{}' (use --list)", O.Path, O.Kernel));
    return ExitUsage;
  }
  if (O.Disassemble) {
    unsigned Unsupported = 0;
    for (const DisassembledInstruction &I : (*CO)->disassemble(*K)) {
      llvm::outs() << fmt::format("{:8x}  {}{}\n", I.Address, I.Text,
                                  I.Supported ? "" : "    ; not implemented by the emulator");
      Unsupported += !I.Supported;
    }
    llvm::outs() << fmt::format("; {} instruction(s) without emulator semantics\n", Unsupported);
    return ExitOk;
  }

  Dim3 Grid, Block;
  if (!parseDim(O.Grid, Grid) || !parseDim(O.Block, Block)) {
    reportError("--grid and --block take X[,Y[,Z]] with positive integers");
    return ExitUsage;
  }
  std::vector<const KernelArgInfo *> Explicit;
  // A wave64 single-mode kernel's leading argument is the launch's business, not the user's.
  bool Single = isWave64Single(*K);
  for (const KernelArgInfo &A : K->Args)
    if (!A.isHidden() && !(Single && A.Offset == 0 && A.Name == Wave64SingleArgName))
      Explicit.push_back(&A);
  if (O.Args.size() != Explicit.size()) {
    reportError(fmt::format("kernel '{}' takes {} argument(s), {} given with --arg", K->Name,
                            Explicit.size(), O.Args.size()));
    return ExitUsage;
  }

  Device Dev;
  std::vector<uint8_t> Kernargs;
  std::vector<OutputBuffer> Outputs;
  for (size_t I = 0; I < O.Args.size(); ++I) {
    const KernelArgInfo &A = *Explicit[I];
    auto [Kind, Rest] = llvm::StringRef(O.Args[I]).split(':');
    uint8_t Value[8] = {};
    unsigned Size = 0;
    auto Bad = [&](const std::string &Why) {
      reportError(fmt::format("--arg '{}': {}", O.Args[I], Why));
      return ExitUsage;
    };
    if (Kind == "u32" || Kind == "i32" || Kind == "u64" || Kind == "i64") {
      int64_t V = 0;
      if (Rest.getAsInteger(0, V))
        return Bad("not an integer");
      Size = Kind.ends_with("32") ? 4 : 8;
      std::memcpy(Value, &V, Size); // little-endian host: the low bytes
    } else if (Kind == "f32" || Kind == "f64") {
      double D = 0;
      if (Rest.getAsDouble(D))
        return Bad("not a number");
      if (Kind == "f32") {
        float F = float(D);
        std::memcpy(Value, &F, 4);
        Size = 4;
      } else {
        std::memcpy(Value, &D, 8);
        Size = 8;
      }
    } else if (Kind == "in" || Kind == "inout" || Kind == "out") {
      std::vector<uint8_t> Data;
      std::string File = Rest.str();
      if (Kind == "out") {
        auto [Name, Bytes] = Rest.rsplit(':');
        uint64_t N = 0;
        if (Bytes.getAsInteger(10, N))
          return Bad("expected out:FILE:BYTES");
        File = Name.str();
        Data.assign(N, 0);
      } else {
        auto In = llvm::MemoryBuffer::getFile(File, false, false);
        if (!In) {
          reportError(File + ": " + In.getError().message());
          return ExitBadInput;
        }
        Data.assign((*In)->getBufferStart(), (*In)->getBufferEnd());
      }
      auto Addr = Dev.allocate(std::max<uint64_t>(Data.size(), 1), A.Name);
      if (!Addr) {
        reportError(llvm::toString(Addr.takeError()));
        return ExitBadInput;
      }
      if (!Data.empty())
        if (llvm::Error E = Dev.write(*Addr, Data)) {
          reportError(llvm::toString(std::move(E)));
          return ExitBadInput;
        }
      if (Kind != "in")
        Outputs.push_back({*Addr, Data.size(), File});
      std::memcpy(Value, &*Addr, 8);
      Size = 8;
    } else {
      return Bad("expected u32:, i32:, u64:, i64:, f32:, f64:, in:, out: or inout:");
    }
    if (Size != A.Size)
      return Bad(fmt::format("the kernel's argument {} ('{}') is {} bytes", I, A.Name, A.Size));
    if (Kernargs.size() < A.Offset + Size)
      Kernargs.resize(A.Offset + Size);
    std::memcpy(Kernargs.data() + A.Offset, Value, Size);
  }

  DispatchParams P = DispatchParams::blocks(K->Name, Grid, Block, std::move(Kernargs));
  P.DynamicLdsSize = O.DynamicLds;
  P.MaxInstructionsPerWave = O.MaxInstructions;
  if (llvm::Error E = applyWave64SingleLaunch(*K, P)) {
    reportError(llvm::toString(std::move(E)));
    return ExitUsage;
  }
  auto Start = std::chrono::steady_clock::now();
  auto R = Dev.dispatch(**CO, P);
  double Secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
  if (!R) {
    reportError(llvm::toString(R.takeError()));
    return ExitBadInput;
  }
  for (const OutputBuffer &Out : Outputs) {
    std::vector<uint8_t> Data(Out.Size);
    if (llvm::Error E = Dev.read(Out.Address, Data)) {
      reportError(llvm::toString(std::move(E)));
      return ExitBadInput;
    }
    if (llvm::Error E = writeFile(
            Out.File, llvm::StringRef(reinterpret_cast<const char *>(Data.data()), Data.size()))) {
      reportError(llvm::toString(std::move(E)));
      return ExitBadInput;
    }
  }
  llvm::outs() << fmt::format("{}: {} work-group(s), {} wave(s), {} wave instruction(s) in "
                              "{:.3f} s ({:.1f} M wave-instructions/s)\n",
                              K->Name, R->Workgroups, R->Waves, R->Instructions, Secs,
                              Secs > 0 ? double(R->Instructions) / Secs / 1e6 : 0.0);
  return ExitOk;
}

} // namespace

Runner addEmulateCommand(CLI::App &App) {
  auto *Cmd = App.add_subcommand("emulate", "Run a kernel of an AMDGPU code object on the "
                                            "emulator (debugging)");
  auto O = std::make_shared<EmulateOpts>();
  Cmd->add_option("code-object", O->Path,
                  "HSA code object (.hsaco), or a clang offload bundle (reptx compile --bundle)")
      ->required();
  Cmd->add_option("--arch", O->Arch,
                  "The target whose code object to take from an offload bundle (gfx942, ...)");
  Cmd->add_option("--kernel", O->Kernel, "Kernel name");
  Cmd->add_option("--grid", O->Grid, "Work-groups: X[,Y[,Z]] (default 1)");
  Cmd->add_option("--block", O->Block, "Work-group size: X[,Y[,Z]] (default 1)");
  Cmd->add_option("--arg", O->Args,
                  "Kernel arguments in order: u32:V i32:V u64:V i64:V f32:V f64:V, or buffers "
                  "in:FILE, inout:FILE (written back), out:FILE:BYTES (zeroed, written)");
  Cmd->add_option("--dynamic-lds", O->DynamicLds, "Dynamic LDS bytes per work-group");
  Cmd->add_option("--max-instructions", O->MaxInstructions,
                  "Stop a wave after this many instructions (watchdog)");
  Cmd->add_flag("--list", O->List, "List the kernels and their arguments");
  Cmd->add_flag("--disassemble", O->Disassemble,
                "Print the kernel's instructions, marking those the emulator lacks");
  return [O] {
    if (!O->List && O->Kernel.empty()) {
      reportError("--kernel is required (or --list)");
      return int(ExitUsage);
    }
    return runEmulate(*O);
  };
}

} // namespace reptx::tool
