// Crash safety of `reptx prewarm` on a shared cache (issue 6, acceptance 1, at ctest scale): four
// prewarm processes fill one cache from the same modules at once and are SIGKILLed at random
// moments, again and again; then `reptx cache verify` finds no corrupt entry, a last prewarm
// completes, and every module's cached code object is byte-identical to a fresh compile.
// bench/prewarm_kill.sh runs the same with 200 kills.
#include "PrewarmTestUtil.h"

#include "reptx/driver/Driver.h"

#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <random>
#include <spawn.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char **environ;

using namespace reptx;
using namespace reptx::test;

namespace {

class CrashSafetyTest : public TempDirTest {
protected:
  /// Starts `reptx ARGS` with REPTX_CACHE_PATH=Dir/cache, output to Log.
  pid_t start(const std::vector<std::string> &Args, const std::string &Log) {
    std::vector<std::string> Env;
    for (char **E = environ; *E; ++E)
      if (!llvm::StringRef(*E).starts_with("REPTX_CACHE_"))
        Env.push_back(*E);
    Env.push_back("REPTX_CACHE_PATH=" + path("cache"));
    std::vector<char *> EnvP, ArgV;
    for (std::string &S : Env)
      EnvP.push_back(S.data());
    EnvP.push_back(nullptr);
    std::string Tool = REPTX_TOOL;
    ArgV.push_back(Tool.data());
    std::vector<std::string> A = Args;
    for (std::string &S : A)
      ArgV.push_back(S.data());
    ArgV.push_back(nullptr);
    posix_spawn_file_actions_t FA;
    posix_spawn_file_actions_init(&FA);
    posix_spawn_file_actions_addopen(&FA, 1, Log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
    posix_spawn_file_actions_adddup2(&FA, 1, 2);
    pid_t Pid = -1;
    int E = posix_spawn(&Pid, Tool.c_str(), &FA, nullptr, ArgV.data(), EnvP.data());
    posix_spawn_file_actions_destroy(&FA);
    EXPECT_EQ(E, 0);
    return Pid;
  }
  int wait(pid_t Pid) {
    int Status = 0;
    while (::waitpid(Pid, &Status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(Status) ? WEXITSTATUS(Status) : 128 + WTERMSIG(Status);
  }
  int runTool(const std::vector<std::string> &Args, std::string &Out) {
    std::string Log = path("run.log");
    std::filesystem::remove(Log);
    int Exit = wait(start(Args, Log));
    Out = readFile(Log);
    return Exit;
  }
};

TEST_F(CrashSafetyTest, FourPrewarmsKilledAtRandomThenVerifyAndCompare) {
  const std::vector<std::string> Names = {"saxpy",     "vector_add", "vec_copy",    "int_mix",
                                          "int_bits",  "shared_rev", "atomics",     "convert",
                                          "float_ops", "index2d",    "const_table", "pack"};
  std::filesystem::create_directories(path("in"));
  for (const std::string &N : Names)
    std::filesystem::copy_file(std::string(REPTX_LIFT_KERNEL_DIR) + "/" + N + ".ptx",
                               path("in/" + N + ".ptx"));
  const std::vector<std::string> Prewarm = {"prewarm", path("in"), "--arch",       "gfx942,gfx1100",
                                            "--jobs",  "1",        "--no-progress"};

  std::mt19937 Rng(20261121);
  pid_t Procs[4];
  for (pid_t &P : Procs)
    P = start(Prewarm, path("kill.log"));
  unsigned Kills = 0, Finished = 0, Clears = 0;
  std::string Out;
  auto Until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  for (unsigned Round = 1; Kills < 40 && std::chrono::steady_clock::now() < Until; ++Round) {
    std::this_thread::sleep_for(
        std::chrono::milliseconds(std::uniform_int_distribution<int>(20, 400)(Rng)));
    pid_t &P = Procs[Rng() % 4];
    int Status = 0;
    if (::waitpid(P, &Status, WNOHANG) == P) {
      ++Finished; // it completed before being killed: start another
    } else {
      ::kill(P, SIGKILL);
      wait(P);
      ++Kills;
    }
    P = start(Prewarm, path("kill.log"));
    // Runs that find everything cached store nothing: empty the cache now and then (while the
    // others keep storing), so that the kills keep landing in compiles and stores.
    if (Round % 8 == 0) {
      EXPECT_EQ(runTool({"cache", "clear"}, Out), 0) << Out;
      ++Clears;
    }
  }
  for (pid_t P : Procs) {
    ::kill(P, SIGKILL);
    wait(P);
    ++Kills;
  }
  std::printf("%u prewarm processes SIGKILLed, %u finished on their own, %u cache clears\n", Kills,
              Finished, Clears);
  EXPECT_GE(Kills, 20u);

  EXPECT_EQ(runTool({"cache", "verify"}, Out), 0) << Out;
  EXPECT_NE(Out.find(" 0 corrupt"), std::string::npos) << Out;

  EXPECT_EQ(runTool({"prewarm", path("in"), "--arch", "gfx942,gfx1100", "--json"}, Out), 0) << Out;
  EXPECT_NE(Out.find("\"modules\": 12"), std::string::npos) << Out;
  EXPECT_EQ(Out.find("\"kernels_failed\": 1"), std::string::npos) << Out;
  EXPECT_EQ(runTool({"cache", "verify"}, Out), 0) << Out;

  // Every cached result against a fresh compile, byte for byte.
  cache::Config Cfg;
  Cfg.WritablePath = path("cache");
  driver::Compiler::Options WithCache, Fresh;
  WithCache.CacheConfig = Cfg;
  Fresh.UseCache = false;
  auto C = driver::Compiler::create(WithCache);
  auto F = driver::Compiler::create(Fresh);
  ASSERT_TRUE(C && F);
  for (const std::string &N : Names)
    for (const char *Arch : {"gfx942", "gfx1100"}) {
      SCOPED_TRACE(N + " " + Arch);
      driver::ModuleSource S{path("in/" + N + ".ptx"), readFile(path("in/" + N + ".ptx")), ""};
      auto Hit = (*C)->compile(S, {Arch, 5, "packed"});
      auto New = (*F)->compile(S, {Arch, 5, "packed"});
      ASSERT_TRUE(Hit && New);
      EXPECT_EQ(Hit->From, driver::Result::Origin::CacheHit);
      EXPECT_FALSE(Hit->CodeObject.empty());
      EXPECT_EQ(Hit->CodeObject, New->CodeObject);
      EXPECT_EQ(Hit->Kernels, New->Kernels);
    }
}

} // namespace
