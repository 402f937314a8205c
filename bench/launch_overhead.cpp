// Launch overhead of reptx's libcuda.so.1 on the emulator backend (issue 7, acceptance 4):
// cuLaunchKernel of an empty kernel through the driver API, linked against our libcuda.
//   cold, empty cache : a new process's first launch (module load, compile in the worker, cache
//                       store, load, launch, synchronize)
//   cold, warm cache  : the same in a new process whose persistent cache already holds the module
//   warm              : later launches in a process (cuLaunchKernel alone, and with
//   cuCtxSynchronize)
// Usage: bench_launch_overhead [ROUNDS] [LAUNCHES]; prints a table (bench/RESULTS.md).
#include "reptx/loader/DriverApi.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <spawn.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char **environ;

namespace {

const char *EmptyKernelPtx = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry empty(.param .u64 p)
{
  ret;
}
)";

using Clock = std::chrono::steady_clock;
double usSince(Clock::time_point T) {
  return std::chrono::duration<double, std::micro>(Clock::now() - T).count();
}

#define CK(X)                                                                                      \
  do {                                                                                             \
    CUresult R_ = (X);                                                                             \
    if (R_ != CUDA_SUCCESS) {                                                                      \
      std::fprintf(stderr, "%s failed: %d\n", #X, int(R_));                                        \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

void initContext() {
  CUdevice D;
  CUcontext C;
  CK(cuInit(0));
  CK(cuDeviceGet(&D, 0));
  CK(cuDevicePrimaryCtxRetain(&C, D));
  CK(cuCtxSetCurrent(C));
}

/// Loads the module and looks the kernel up (the compile, or the cache lookup, happens here).
CUfunction loadKernel(CUmodule &M) {
  CK(cuModuleLoadData(&M, EmptyKernelPtx));
  CUfunction F;
  CK(cuModuleGetFunction(&F, M, "empty"));
  return F;
}

void launch(CUfunction F) {
  unsigned long long Arg = 0;
  void *Params[] = {&Arg};
  CK(cuLaunchKernel(F, 1, 1, 1, 32, 1, 1, 0, nullptr, Params, nullptr));
}

/// The child: cuInit and the context, then module load, kernel lookup, the first launch and its
/// synchronisation, each timed; prints microseconds.
int firstLaunch() {
  auto T0 = Clock::now();
  initContext();
  double Init = usSince(T0);
  auto T1 = Clock::now();
  CUmodule M;
  CUfunction F = loadKernel(M);
  launch(F);
  CK(cuCtxSynchronize());
  std::printf("%.1f %.1f\n", Init, usSince(T1));
  return 0;
}

/// Runs this program with --first in a new process; returns {init, first launch} in µs.
std::pair<double, double> child(const char *Self) {
  int Pipe[2];
  if (pipe(Pipe) != 0)
    std::exit(1);
  posix_spawn_file_actions_t FA;
  posix_spawn_file_actions_init(&FA);
  posix_spawn_file_actions_adddup2(&FA, Pipe[1], 1);
  posix_spawn_file_actions_addclose(&FA, Pipe[0]);
  char *Argv[] = {const_cast<char *>(Self), const_cast<char *>("--first"), nullptr};
  pid_t Pid;
  if (posix_spawn(&Pid, Self, &FA, nullptr, Argv, environ) != 0)
    std::exit(1);
  posix_spawn_file_actions_destroy(&FA);
  close(Pipe[1]);
  char Buf[256] = {};
  size_t N = 0;
  ssize_t R;
  while ((R = read(Pipe[0], Buf + N, sizeof(Buf) - 1 - N)) > 0)
    N += size_t(R);
  close(Pipe[0]);
  int Status = 0;
  waitpid(Pid, &Status, 0);
  double A = 0, B = 0;
  if (!WIFEXITED(Status) || WEXITSTATUS(Status) != 0 || std::sscanf(Buf, "%lf %lf", &A, &B) != 2) {
    std::fprintf(stderr, "child failed: %s\n", Buf);
    std::exit(1);
  }
  return {A, B};
}

double median(std::vector<double> V) {
  std::sort(V.begin(), V.end());
  return V[V.size() / 2];
}

} // namespace

int main(int Argc, char **Argv) {
  if (Argc > 1 && std::strcmp(Argv[1], "--first") == 0)
    return firstLaunch();
  int Rounds = Argc > 1 ? std::atoi(Argv[1]) : 5;
  int Launches = Argc > 2 ? std::atoi(Argv[2]) : 2000;
  char Self[4096];
  ssize_t L = readlink("/proc/self/exe", Self, sizeof(Self) - 1);
  if (L <= 0)
    return 1;
  Self[L] = 0;
  setenv("REPTX_DEVICE", "emulator", 1);
  std::vector<double> ColdSetup, Cold, HitSetup, Hit;
  for (int I = 0; I < Rounds; ++I) {
    char Dir[] = "/tmp/reptx-launch-bench-XXXXXX";
    if (!mkdtemp(Dir))
      return 1;
    setenv("REPTX_CACHE_PATH", Dir, 1);
    auto [S0, C0] = child(Self); // empty cache: compile + store
    auto [S1, C1] = child(Self); // the entry is there now
    ColdSetup.push_back(S0);
    Cold.push_back(C0);
    HitSetup.push_back(S1);
    Hit.push_back(C1);
    std::string Rm = std::string("rm -rf ") + Dir;
    if (std::system(Rm.c_str()) != 0)
      return 1;
  }
  // Warm: this process, after its first launch.
  char Dir[] = "/tmp/reptx-launch-bench-XXXXXX";
  if (!mkdtemp(Dir))
    return 1;
  setenv("REPTX_CACHE_PATH", Dir, 1);
  initContext();
  CUmodule M;
  CUfunction F = loadKernel(M);
  launch(F);
  CK(cuCtxSynchronize());
  std::vector<double> LaunchOnly, LaunchSync;
  for (int I = 0; I < Launches; ++I) {
    auto T = Clock::now();
    launch(F);
    LaunchOnly.push_back(usSince(T));
    CK(cuCtxSynchronize());
    LaunchSync.push_back(usSince(T));
  }
  std::string Rm = std::string("rm -rf ") + Dir;
  if (std::system(Rm.c_str()) != 0)
    return 1;
  std::printf("empty kernel, 1 block of 32 threads, emulator backend; medians of %d rounds "
              "(cold) and %d launches (warm)\n",
              Rounds, Launches);
  std::printf("| launch | module load + cuModuleGetFunction (compile or cache hit) + launch + "
              "sync | cuInit + primary context before it |\n|---|---|---|\n");
  std::printf("| cold, empty cache (compile in the worker + store) | %.0f us | %.0f us |\n",
              median(Cold), median(ColdSetup));
  std::printf("| cold, warm persistent cache (hit) | %.0f us | %.0f us |\n", median(Hit),
              median(HitSetup));
  std::printf("| warm: cuLaunchKernel | %.1f us | |\n", median(LaunchOnly));
  std::printf("| warm: cuLaunchKernel + cuCtxSynchronize | %.1f us | |\n", median(LaunchSync));
  return 0;
}
