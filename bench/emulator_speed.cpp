// Emulator speed in wave-instructions per second on one core (issue 5, acceptance 4), on code
// reptx itself generates: the twelve bench kernels of bench/quality/kernels.cu (their nvcc PTX,
// bench/quality/kernels.ptx) and two lifting-test kernels (tests/lift/kernels), parsed, lifted
// and compiled by reptx for gfx942 (wave64, packed warps) and gfx1100 (wave32), then dispatched
// on the emulator. Compilation and input set-up are outside the timed loop. Before timing, each
// bench kernel's first dispatch is checked against a host computation (bit-exact where the PTX
// rounds each operation once, within a tolerance where it uses approximations or atomics whose
// order differs from the host's).
//
// Counters: wave_instructions (per dispatch, the emulator's DispatchResult::Instructions) and
// wave_instructions/s; the geomean_<arch> rows give the geometric mean of the per-kernel rates
// of the bench kernels (the median over --benchmark_repetitions when there are several).
#include "reptx/backend/Backend.h"
#include "reptx/emulator/CodeObject.h"
#include "reptx/emulator/Device.h"
#include "reptx/emulator/Dispatch.h"
#include "reptx/emulator/PtxLaunch.h"
#include "reptx/frontend-ptx/Parser.h"
#include "reptx/ir/Lift.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/Support/MemoryBuffer.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <time.h>

using namespace reptx;

namespace {

// --- compilation (once per PTX file and target)

struct Built {
  std::unique_ptr<emulator::CodeObject> CO;
  std::string Error;
};

Built compilePtxFile(const std::string &Path, const char *Arch) {
  auto Buf = llvm::MemoryBuffer::getFile(Path);
  if (!Buf)
    return {nullptr, "cannot read " + Path};
  ptx::ParseResult P = ptx::parse(Path, (*Buf)->getBuffer().str());
  if (!P.ok())
    return {nullptr, "cannot parse " + Path};
  llvm::LLVMContext Ctx;
  auto L = ir::liftModule(*P.M, Ctx);
  if (!L)
    return {nullptr, llvm::toString(L.takeError())};
  if (!L->Failures.empty())
    return {nullptr, "a kernel of " + Path + " does not lift"};
  backend::CompileOptions Opts;
  Opts.Arch = Arch;
  auto Obj = backend::compile(*L->M, Opts);
  if (!Obj)
    return {nullptr, llvm::toString(Obj.takeError())};
  auto CO = emulator::CodeObject::load(Obj->Bytes);
  if (!CO)
    return {nullptr, llvm::toString(CO.takeError())};
  return {std::move(*CO), ""};
}

const Built &codeObject(const std::string &Path, const char *Arch) {
  static std::map<std::string, Built> Cache;
  std::string Key = Path + "|" + Arch;
  auto It = Cache.find(Key);
  if (It == Cache.end())
    It = Cache.emplace(Key, compilePtxFile(Path, Arch)).first;
  return It->second;
}

double threadCpuSeconds() {
  timespec T;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &T);
  return double(T.tv_sec) + double(T.tv_nsec) * 1e-9;
}

// --- rates recorded per target and kernel, for the geomean rows

std::map<std::string, std::map<std::string, std::vector<double>>> &recordedRates() {
  static std::map<std::string, std::map<std::string, std::vector<double>>> Rates;
  return Rates;
}

// --- inputs and host references

// Deterministic inputs: multiples of (Hi - Lo) / 65536 in [Lo, Hi), from a fixed seed.
std::vector<float> randomFloats(size_t N, unsigned Seed, float Lo = -1.0f, float Hi = 1.0f) {
  std::mt19937 G(Seed);
  std::vector<float> V(N);
  for (float &X : V)
    X = Lo + (Hi - Lo) * float(G() % 65536) / 65536.0f;
  return V;
}

std::vector<int32_t> randomInts(size_t N, unsigned Seed, int32_t Lo, int32_t Hi) {
  std::mt19937 G(Seed);
  std::vector<int32_t> V(N);
  for (int32_t &X : V)
    X = Lo + int32_t(G() % uint32_t(Hi - Lo + 1));
  return V;
}

template <typename T>
std::string compareExact(llvm::Expected<std::vector<T>> GotOrErr, const std::vector<T> &Want) {
  if (!GotOrErr)
    return llvm::toString(GotOrErr.takeError());
  const std::vector<T> &Got = *GotOrErr;
  if (Got.size() != Want.size())
    return "output size differs";
  for (size_t I = 0; I < Got.size(); ++I)
    if (std::memcmp(&Got[I], &Want[I], sizeof(T)) != 0)
      return "element " + std::to_string(I) + ": got " + std::to_string(Got[I]) + ", want " +
             std::to_string(Want[I]);
  return "";
}

std::string compareClose(llvm::Expected<std::vector<float>> GotOrErr,
                         const std::vector<double> &Want, double RelTol, double AbsTol) {
  if (!GotOrErr)
    return llvm::toString(GotOrErr.takeError());
  const std::vector<float> &Got = *GotOrErr;
  if (Got.size() != Want.size())
    return "output size differs";
  for (size_t I = 0; I < Got.size(); ++I)
    if (!(std::fabs(double(Got[I]) - Want[I]) <= AbsTol + RelTol * std::fabs(Want[I])))
      return "element " + std::to_string(I) + ": got " + std::to_string(Got[I]) + ", want " +
             std::to_string(Want[I]);
  return "";
}

// A prepared launch: the dispatch and a check of the first dispatch's output ("" when correct).
struct Launch {
  emulator::DispatchParams Params;
  std::function<std::string(emulator::Device &)> Check;
};

// Builds the PTX parameter list (natural alignment, as the .param declarations lay it out).
struct Args {
  emulator::KernargBuilder B;
  Args &ptr(uint64_t A) {
    B.addPointer(A);
    return *this;
  }
  Args &i32(int32_t V) {
    B.add(V);
    return *this;
  }
};

// Sets up one kernel's buffers on Dev and its launch.
using SetupFn = llvm::Expected<Launch> (*)(emulator::Device &, const emulator::CodeObject &);

template <typename T>
llvm::Expected<uint64_t> upload(emulator::Device &Dev, const std::vector<T> &V, const char *Name) {
  return Dev.allocateArray<T>(V, Name);
}

#define TRY(Var, Expr)                                                                             \
  auto Var##OrErr = (Expr);                                                                        \
  if (!Var##OrErr)                                                                                 \
    return Var##OrErr.takeError();                                                                 \
  uint64_t Var = *Var##OrErr;

llvm::Expected<Launch> launch(const emulator::CodeObject &CO, const char *Kernel,
                              emulator::Dim3 Blocks, emulator::Dim3 Block, Args &A,
                              std::function<std::string(emulator::Device &)> Check) {
  auto P = emulator::ptxLaunch(CO, Kernel, Blocks, Block, A.B.take());
  if (!P)
    return P.takeError();
  return Launch{std::move(*P), std::move(Check)};
}

// 1. vadd: 2^20 floats, 512 blocks of 256 threads (grid-stride, 8 elements per thread).
llvm::Expected<Launch> setupVadd(emulator::Device &Dev, const emulator::CodeObject &CO) {
  constexpr int N = 1 << 20;
  auto HA = randomFloats(N, 1), HB = randomFloats(N, 2);
  TRY(A, upload(Dev, HA, "A"));
  TRY(B, upload(Dev, HB, "B"));
  TRY(C, Dev.allocate(N * 4, "C"));
  Args K;
  K.ptr(A).ptr(B).ptr(C).i32(N);
  return launch(CO, "vadd", {512, 1, 1}, {256, 1, 1}, K, [=](emulator::Device &D) {
    std::vector<float> Want(N);
    for (int I = 0; I < N; ++I)
      Want[I] = HA[I] + HB[I];
    return compareExact(D.readArray<float>(C, N), Want);
  });
}

// 2. reduce_sum: 2^20 floats, 128 blocks of 256 threads; one float atomic per block (the order
// of the atomics, hence the rounding, is not the host's: within a tolerance).
llvm::Expected<Launch> setupReduceSum(emulator::Device &Dev, const emulator::CodeObject &CO) {
  constexpr int N = 1 << 20;
  auto HIn = randomFloats(N, 3);
  TRY(In, upload(Dev, HIn, "In"));
  TRY(Out, upload(Dev, std::vector<float>{0.0f}, "Out"));
  Args K;
  K.ptr(In).ptr(Out).i32(N);
  return launch(CO, "reduce_sum", {128, 1, 1}, {256, 1, 1}, K, [=](emulator::Device &D) {
    double Sum = 0;
    for (float X : HIn)
      Sum += X;
    return compareClose(D.readArray<float>(Out, 1), {Sum}, 1e-4, 1e-2);
  });
}

// 3. sgemm_tiled: 192 x 192 matrices, 12 x 12 blocks of 16 x 16 threads. Acc is one fma chain
// in k order (fma.rn.f32 in the PTX): bit-exact with std::fma.
llvm::Expected<Launch> setupSgemm(emulator::Device &Dev, const emulator::CodeObject &CO) {
  constexpr int N = 192;
  auto HA = randomFloats(N * N, 4), HB = randomFloats(N * N, 5);
  TRY(A, upload(Dev, HA, "A"));
  TRY(B, upload(Dev, HB, "B"));
  TRY(C, Dev.allocate(N * N * 4, "C"));
  Args K;
  K.ptr(A).ptr(B).ptr(C).i32(N);
  return launch(CO, "sgemm_tiled", {N / 16, N / 16, 1}, {16, 16, 1}, K, [=](emulator::Device &D) {
    std::vector<float> Want(N * N);
    for (int R = 0; R < N; ++R)
      for (int Col = 0; Col < N; ++Col) {
        float Acc = 0.0f;
        for (int Kk = 0; Kk < N; ++Kk)
          Acc = std::fma(HA[R * N + Kk], HB[Kk * N + Col], Acc);
        Want[R * N + Col] = Acc;
      }
    return compareExact(D.readArray<float>(C, N * N), Want);
  });
}

// 4. histogram256: 2^20 bytes, 64 blocks of 256 threads (64 shared atomics per thread).
llvm::Expected<Launch> setupHistogram(emulator::Device &Dev, const emulator::CodeObject &CO) {
  constexpr int N = 1 << 20;
  std::vector<uint8_t> HData(N);
  std::mt19937 G(6);
  for (uint8_t &X : HData)
    X = uint8_t((G() % 256) & (G() % 256)); // skewed towards low bins
  TRY(Data, upload(Dev, HData, "Data"));
  TRY(Bins, upload(Dev, std::vector<uint32_t>(256, 0), "Bins"));
  Args K;
  K.ptr(Data).ptr(Bins).i32(N);
  return launch(CO, "histogram256", {64, 1, 1}, {256, 1, 1}, K, [=](emulator::Device &D) {
    std::vector<uint32_t> Want(256, 0);
    for (uint8_t X : HData)
      ++Want[X];
    return compareExact(D.readArray<uint32_t>(Bins, 256), Want);
  });
}

// 5. scan_block: 2^17 ints, 128 blocks of 1024 threads (ten barrier steps per block).
llvm::Expected<Launch> setupScanBlock(emulator::Device &Dev, const emulator::CodeObject &CO) {
  constexpr int N = 1 << 17;
  auto HIn = randomInts(N, 7, -1000, 1000);
  TRY(In, upload(Dev, HIn, "In"));
  TRY(Out, Dev.allocate(N * 4, "Out"));
  Args K;
  K.ptr(In).ptr(Out).i32(N);
  return launch(CO, "scan_block", {N / 1024, 1, 1}, {1024, 1, 1}, K, [=](emulator::Device &D) {
    std::vector<int32_t> Want(N);
    for (int B = 0; B < N; B += 1024) {
      int32_t S = 0;
      for (int I = B; I < B + 1024; ++I)
        Want[I] = S += HIn[I];
    }
    return compareExact(D.readArray<int32_t>(Out, N), Want);
  });
}

// 6. scan_rows_warp: 1,024 rows of 500 ints (16 steps of 32, the last partial), one warp per row.
llvm::Expected<Launch> setupScanRows(emulator::Device &Dev, const emulator::CodeObject &CO) {
  constexpr int Rows = 1024, Cols = 500;
  auto HIn = randomInts(Rows * Cols, 8, -1000, 1000);
  TRY(In, upload(Dev, HIn, "In"));
  TRY(Out, Dev.allocate(Rows * Cols * 4, "Out"));
  Args K;
  K.ptr(In).ptr(Out).i32(Cols);
  return launch(CO, "scan_rows_warp", {Rows, 1, 1}, {32, 1, 1}, K, [=](emulator::Device &D) {
    std::vector<int32_t> Want(Rows * Cols);
    for (int R = 0; R < Rows; ++R) {
      int32_t S = 0;
      for (int C = 0; C < Cols; ++C)
        Want[R * Cols + C] = S += HIn[R * Cols + C];
    }
    return compareExact(D.readArray<int32_t>(Out, Rows * Cols), Want);
  });
}

// 7. transpose: a 1,024 x 768 matrix, 32 x 24 blocks of 32 x 8 threads.
llvm::Expected<Launch> setupTranspose(emulator::Device &Dev, const emulator::CodeObject &CO) {
  constexpr int W = 1024, H = 768;
  auto HIn = randomFloats(W * H, 9);
  TRY(In, upload(Dev, HIn, "In"));
  TRY(Out, Dev.allocate(W * H * 4, "Out"));
  Args K;
  K.ptr(In).ptr(Out).i32(W).i32(H);
  return launch(CO, "transpose", {W / 32, H / 32, 1}, {32, 8, 1}, K, [=](emulator::Device &D) {
    std::vector<float> Want(W * H);
    for (int Y = 0; Y < H; ++Y)
      for (int X = 0; X < W; ++X)
        Want[X * H + Y] = HIn[Y * W + X];
    return compareExact(D.readArray<float>(Out, W * H), Want);
  });
}

// 8. stencil5: a 4,096 x 128 grid, 16 blocks of 256 threads, each thread down one column.
llvm::Expected<Launch> setupStencil(emulator::Device &Dev, const emulator::CodeObject &CO) {
  constexpr int Nx = 4096, Ny = 128;
  auto HIn = randomFloats(Nx * Ny, 10);
  TRY(In, upload(Dev, HIn, "In"));
  TRY(Out, upload(Dev, std::vector<float>(Nx * Ny, 0.0f), "Out"));
  Args K;
  K.ptr(In).ptr(Out).i32(Nx).i32(Ny);
  return launch(CO, "stencil5", {Nx / 256, 1, 1}, {256, 1, 1}, K, [=](emulator::Device &D) {
    std::vector<float> Want(Nx * Ny, 0.0f);
    for (int Y = 1; Y < Ny - 1; ++Y)
      for (int X = 1; X < Nx - 1; ++X) {
        // ((((Mid + Up) + Down) + left) + right) * 0.2f, one rounding each (add.f32, mul.f32).
        float S = HIn[Y * Nx + X] + HIn[(Y - 1) * Nx + X];
        S = S + HIn[(Y + 1) * Nx + X];
        S = S + HIn[Y * Nx + X - 1];
        S = S + HIn[Y * Nx + X + 1];
        Want[Y * Nx + X] = 0.2f * S;
      }
    return compareExact(D.readArray<float>(Out, Nx * Ny), Want);
  });
}

// 9. softmax_rows: 256 rows of 1,000 floats, one block per row (ex2.approx: a tolerance).
llvm::Expected<Launch> setupSoftmax(emulator::Device &Dev, const emulator::CodeObject &CO) {
  constexpr int Rows = 256, Cols = 1000;
  auto HX = randomFloats(Rows * Cols, 11, -4.0f, 4.0f);
  TRY(X, upload(Dev, HX, "X"));
  TRY(Y, Dev.allocate(Rows * Cols * 4, "Y"));
  Args K;
  K.ptr(X).ptr(Y).i32(Cols);
  return launch(CO, "softmax_rows", {Rows, 1, 1}, {256, 1, 1}, K, [=](emulator::Device &D) {
    std::vector<double> Want(Rows * Cols);
    for (int R = 0; R < Rows; ++R) {
      double M = -INFINITY, S = 0;
      for (int C = 0; C < Cols; ++C)
        M = std::max(M, double(HX[R * Cols + C]));
      for (int C = 0; C < Cols; ++C)
        S += std::exp(double(HX[R * Cols + C]) - M);
      // blockAllSum (kernels.cu) reads Scratch[threadIdx.x & 7] into all 32 lanes of a warp
      // before the butterfly, so it returns four times the block's sum.
      for (int C = 0; C < Cols; ++C)
        Want[R * Cols + C] = std::exp(double(HX[R * Cols + C]) - M) / (4 * S);
    }
    return compareClose(D.readArray<float>(Y, Rows * Cols), Want, 1e-4, 1e-9);
  });
}

// 10. layernorm_rows: 256 rows of 1,000 floats, one block per row (rsqrt.approx: a tolerance).
llvm::Expected<Launch> setupLayernorm(emulator::Device &Dev, const emulator::CodeObject &CO) {
  constexpr int Rows = 256, Cols = 1000;
  auto HX = randomFloats(Rows * Cols, 12, -2.0f, 3.0f);
  auto HG = randomFloats(Cols, 13, 0.5f, 1.5f), HBeta = randomFloats(Cols, 14);
  TRY(X, upload(Dev, HX, "X"));
  TRY(Gamma, upload(Dev, HG, "Gamma"));
  TRY(Beta, upload(Dev, HBeta, "Beta"));
  TRY(Y, Dev.allocate(Rows * Cols * 4, "Y"));
  Args K;
  K.ptr(X).ptr(Gamma).ptr(Beta).ptr(Y).i32(Cols);
  return launch(CO, "layernorm_rows", {Rows, 1, 1}, {256, 1, 1}, K, [=](emulator::Device &D) {
    std::vector<double> Want(Rows * Cols);
    for (int R = 0; R < Rows; ++R) {
      double S = 0, Sq = 0;
      for (int C = 0; C < Cols; ++C) {
        double V = HX[R * Cols + C];
        S += V;
        Sq += V * V;
      }
      // Four times the sums, as blockAllSum returns them (see softmax_rows).
      double Mean = 4 * S / Cols, Rstd = 1.0 / std::sqrt(4 * Sq / Cols - Mean * Mean + 1e-5);
      for (int C = 0; C < Cols; ++C)
        Want[R * Cols + C] = (HX[R * Cols + C] - Mean) * Rstd * HG[C] + HBeta[C];
    }
    return compareClose(D.readArray<float>(Y, Rows * Cols), Want, 1e-4, 1e-4);
  });
}

// 11. batched_gemm16: 2,048 16 x 16 products, 256 blocks of 16 x 16 threads (8 per block).
llvm::Expected<Launch> setupBatchedGemm(emulator::Device &Dev, const emulator::CodeObject &CO) {
  constexpr int Batch = 2048;
  auto HA = randomFloats(Batch * 256, 15), HB = randomFloats(Batch * 256, 16);
  TRY(A, upload(Dev, HA, "A"));
  TRY(B, upload(Dev, HB, "B"));
  TRY(C, Dev.allocate(Batch * 256 * 4, "C"));
  Args K;
  K.ptr(A).ptr(B).ptr(C).i32(Batch);
  return launch(CO, "batched_gemm16", {256, 1, 1}, {16, 16, 1}, K, [=](emulator::Device &D) {
    std::vector<float> Want(Batch * 256);
    for (int M = 0; M < Batch; ++M)
      for (int R = 0; R < 16; ++R)
        for (int Col = 0; Col < 16; ++Col) {
          float Acc = 0.0f;
          for (int Kk = 0; Kk < 16; ++Kk)
            Acc = std::fma(HA[M * 256 + R * 16 + Kk], HB[M * 256 + Kk * 16 + Col], Acc);
          Want[M * 256 + R * 16 + Col] = Acc;
        }
    return compareExact(D.readArray<float>(C, Batch * 256), Want);
  });
}

// 12. spmv_csr: a CSR matrix of 2^16 rows with 4-28 non-zeros each (random columns of a 2^16
// vector), one thread per row, 256 blocks of 256. S is one fma chain per row: bit-exact.
llvm::Expected<Launch> setupSpmv(emulator::Device &Dev, const emulator::CodeObject &CO) {
  constexpr int Rows = 1 << 16;
  std::mt19937 G(17);
  std::vector<int32_t> HRowPtr(Rows + 1, 0), HCol;
  for (int R = 0; R < Rows; ++R) {
    int Nnz = 4 + int(G() % 25);
    for (int J = 0; J < Nnz; ++J)
      HCol.push_back(int32_t(G() % Rows));
    HRowPtr[R + 1] = int32_t(HCol.size());
  }
  auto HVals = randomFloats(HCol.size(), 18), HX = randomFloats(Rows, 19);
  TRY(RowPtr, upload(Dev, HRowPtr, "RowPtr"));
  TRY(ColIdx, upload(Dev, HCol, "ColIdx"));
  TRY(Vals, upload(Dev, HVals, "Vals"));
  TRY(X, upload(Dev, HX, "X"));
  TRY(Y, Dev.allocate(Rows * 4, "Y"));
  Args K;
  K.ptr(RowPtr).ptr(ColIdx).ptr(Vals).ptr(X).ptr(Y).i32(Rows);
  return launch(CO, "spmv_csr", {Rows / 256, 1, 1}, {256, 1, 1}, K, [=](emulator::Device &D) {
    std::vector<float> Want(Rows);
    for (int R = 0; R < Rows; ++R) {
      float S = 0.0f;
      for (int J = HRowPtr[R]; J < HRowPtr[R + 1]; ++J)
        S = std::fma(HVals[J], HX[HCol[J]], S);
      Want[R] = S;
    }
    return compareExact(D.readArray<float>(Y, Rows), Want);
  });
}

// The two lifting-test kernels the first version of this benchmark measured (kept so that
// figures stay comparable): saxpy over 2^18 floats, shared_rev through LDS and a barrier.
llvm::Expected<Launch> setupSaxpy(emulator::Device &Dev, const emulator::CodeObject &CO) {
  constexpr uint32_t N = 1 << 18;
  TRY(X, upload(Dev, std::vector<float>(N, 1.5f), "X"));
  TRY(Y, upload(Dev, std::vector<float>(N, 2.0f), "Y"));
  emulator::KernargBuilder K;
  K.add(int32_t(N)).add(0.5f).addPointer(X).addPointer(Y);
  Args A{std::move(K)};
  return launch(CO, "saxpy", {256, 1, 1}, {256, 1, 1}, A, nullptr);
}

llvm::Expected<Launch> setupSharedRev(emulator::Device &Dev, const emulator::CodeObject &CO) {
  constexpr uint32_t N = 1 << 18;
  TRY(X, upload(Dev, std::vector<float>(N, 1.5f), "X"));
  TRY(Y, upload(Dev, std::vector<float>(N, 2.0f), "Y"));
  Args A;
  A.ptr(X).ptr(Y);
  return launch(CO, "shared_rev", {N / 128, 1, 1}, {128, 1, 1}, A, nullptr);
}

#undef TRY

void run(benchmark::State &State, std::string PtxPath, const char *Kernel, const char *Arch,
         SetupFn Setup, bool Record) {
  const Built &B = codeObject(PtxPath, Arch);
  if (!B.CO) {
    State.SkipWithError(("compiling failed: " + B.Error).c_str());
    return;
  }
  emulator::Device Dev;
  auto L = Setup(Dev, *B.CO);
  if (!L) {
    State.SkipWithError(llvm::toString(L.takeError()).c_str());
    return;
  }
  // One dispatch outside the timed loop: warms up, and its output is checked.
  auto First = Dev.dispatch(*B.CO, L->Params);
  if (!First) {
    State.SkipWithError(llvm::toString(First.takeError()).c_str());
    return;
  }
  if (L->Check) {
    std::string Problem = L->Check(Dev);
    if (!Problem.empty()) {
      State.SkipWithError((std::string(Kernel) + " output wrong: " + Problem).c_str());
      return;
    }
  }
  uint64_t Instructions = 0;
  double CpuStart = threadCpuSeconds();
  for (auto _ : State) {
    auto R = Dev.dispatch(*B.CO, L->Params);
    if (!R) {
      State.SkipWithError(llvm::toString(R.takeError()).c_str());
      return;
    }
    Instructions += R->Instructions;
  }
  double CpuSeconds = threadCpuSeconds() - CpuStart;
  State.counters["wave_instructions"] = double(First->Instructions);
  // kIsRate divides by the CPU time of the timed loop (one core; other jobs on the machine do
  // not count against it).
  State.counters["wave_instructions/s"] =
      benchmark::Counter(double(Instructions), benchmark::Counter::kIsRate);
  if (Record && CpuSeconds > 0)
    recordedRates()[Arch][Kernel].push_back(double(Instructions) / CpuSeconds);
}

// Geometric mean of the bench kernels' rates on one target: per kernel the median of the
// recorded repetitions.
void geomean(benchmark::State &State, const char *Arch) {
  for (auto _ : State)
    benchmark::DoNotOptimize(Arch);
  auto &ByKernel = recordedRates()[Arch];
  if (ByKernel.empty()) {
    State.SkipWithError("no kernel rates recorded (run the kernel benchmarks first)");
    return;
  }
  double LogSum = 0, Min = INFINITY;
  for (auto &[Name, Rates] : ByKernel) {
    std::vector<double> R = Rates;
    std::sort(R.begin(), R.end());
    double Median = R.size() % 2 ? R[R.size() / 2] : (R[R.size() / 2 - 1] + R[R.size() / 2]) / 2;
    LogSum += std::log(Median);
    Min = std::min(Min, Median);
  }
  State.counters["kernels"] = double(ByKernel.size());
  State.counters["geomean_wave_instructions/s"] = std::exp(LogSum / double(ByKernel.size()));
  State.counters["min_wave_instructions/s"] = Min;
}

} // namespace

int main(int argc, char **argv) {
  struct BenchKernel {
    const char *Name;
    SetupFn Setup;
  };
  static const BenchKernel Bench[] = {
      {"vadd", setupVadd},
      {"reduce_sum", setupReduceSum},
      {"sgemm_tiled", setupSgemm},
      {"histogram256", setupHistogram},
      {"scan_block", setupScanBlock},
      {"scan_rows_warp", setupScanRows},
      {"transpose", setupTranspose},
      {"stencil5", setupStencil},
      {"softmax_rows", setupSoftmax},
      {"layernorm_rows", setupLayernorm},
      {"batched_gemm16", setupBatchedGemm},
      {"spmv_csr", setupSpmv},
  };
  static const char *const Archs[] = {"gfx942", "gfx1100"};
  const std::string BenchPtx = REPTX_BENCH_KERNELS_PTX;
  const std::string LiftDir = REPTX_LIFT_KERNEL_DIR;
  for (const char *Arch : Archs) {
    for (const BenchKernel &K : Bench)
      benchmark::RegisterBenchmark((std::string(K.Name) + "_" + Arch).c_str(), run, BenchPtx,
                                   K.Name, Arch, K.Setup, true)
          ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark((std::string("geomean_") + Arch).c_str(), geomean, Arch)
        ->Iterations(1)
        ->Unit(benchmark::kMillisecond);
  }
  for (const char *Arch : Archs) {
    benchmark::RegisterBenchmark((std::string("lift_saxpy_") + Arch).c_str(), run,
                                 LiftDir + "/saxpy.ptx", "saxpy", Arch, setupSaxpy, false)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark((std::string("lift_shared_rev_") + Arch).c_str(), run,
                                 LiftDir + "/shared_rev.ptx", "shared_rev", Arch, setupSharedRev,
                                 false)
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv))
    return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
