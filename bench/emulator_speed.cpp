// Emulator speed in wave-instructions per second on one core, on code reptx itself generates:
// PTX of our own kernels (tests/lift/kernels, nvcc output) parsed, lifted and compiled for gfx942
// (wave64) and gfx1100 (wave32), then dispatched on the emulator. Compilation is outside the
// timed loop.
#include "reptx/backend/Backend.h"
#include "reptx/emulator/CodeObject.h"
#include "reptx/emulator/Device.h"
#include "reptx/emulator/Dispatch.h"
#include "reptx/frontend-ptx/Parser.h"
#include "reptx/ir/Lift.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/MemoryBuffer.h"

#include <benchmark/benchmark.h>

#include <memory>
#include <vector>

using namespace reptx;

namespace {

std::unique_ptr<emulator::CodeObject> build(const char *Kernel, const char *Arch) {
  std::string Path = std::string(REPTX_LIFT_KERNEL_DIR) + "/" + Kernel + ".ptx";
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  if (!Buf)
    return nullptr;
  ptx::ParseResult P = ptx::parse(Path, (*Buf)->getBuffer().str());
  if (!P.ok())
    return nullptr;
  llvm::LLVMContext Ctx;
  auto L = ir::liftModule(*P.M, Ctx);
  if (!L || !L->Failures.empty()) {
    if (!L)
      llvm::consumeError(L.takeError());
    return nullptr;
  }
  backend::CompileOptions Opts;
  Opts.Arch = Arch;
  auto Obj = backend::compile(*L->M, Opts);
  if (!Obj) {
    llvm::consumeError(Obj.takeError());
    return nullptr;
  }
  auto CO = emulator::CodeObject::load(Obj->Bytes);
  if (!CO) {
    llvm::consumeError(CO.takeError());
    return nullptr;
  }
  return std::move(*CO);
}

void run(benchmark::State &State, const char *Kernel, const char *Arch, bool Saxpy) {
  auto CO = build(Kernel, Arch);
  if (!CO) {
    State.SkipWithError("compiling the kernel failed");
    return;
  }
  emulator::Device Dev;
  constexpr uint32_t N = 1 << 18;
  std::vector<float> X(N, 1.5f), Y(N, 2.0f);
  auto XA = Dev.allocateArray<float>(X), YA = Dev.allocateArray<float>(Y);
  if (!XA || !YA) {
    llvm::consumeError(XA.takeError());
    llvm::consumeError(YA.takeError());
    State.SkipWithError("allocation failed");
    return;
  }
  emulator::KernargBuilder K;
  emulator::DispatchParams P;
  if (Saxpy) {
    K.add(int32_t(N)).add(0.5f).addPointer(*XA).addPointer(*YA);
    P = emulator::DispatchParams::blocks(Kernel, {256, 1, 1}, {256, 1, 1}, K.take());
  } else {
    K.addPointer(*XA).addPointer(*YA);
    P = emulator::DispatchParams::blocks(Kernel, {N / 128, 1, 1}, {128, 1, 1}, K.take());
  }
  uint64_t Instructions = 0;
  for (auto _ : State) {
    auto R = Dev.dispatch(*CO, P);
    if (!R) {
      State.SkipWithError(llvm::toString(R.takeError()).c_str());
      return;
    }
    Instructions += R->Instructions;
  }
  State.counters["wave_instructions/s"] =
      benchmark::Counter(double(Instructions), benchmark::Counter::kIsRate);
}

} // namespace

BENCHMARK_CAPTURE(run, saxpy_gfx942, "saxpy", "gfx942", true)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(run, saxpy_gfx1100, "saxpy", "gfx1100", true)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(run, shared_rev_gfx942, "shared_rev", "gfx942", false)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(run, shared_rev_gfx1100, "shared_rev", "gfx1100", false)
    ->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
