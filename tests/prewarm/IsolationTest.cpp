// Compiling in the worker process: the same code object as in process, and every way a worker can
// fail (crash, LLVM fatal error, hang, garbage on its reply channel, exit without a reply) is an
// error or a kernel failure naming the module, target and kernel, after which this process
// compiles on. With several kernels, only the one at fault is lost.
#include "PrewarmTestUtil.h"

#include "llvm/Support/Error.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <sys/file.h>
#include <unistd.h>

using namespace reptx;
using namespace reptx::test;

namespace {

class IsolationTest : public TempDirTest {};

backend::CompileOptions target(const char *Arch) {
  backend::CompileOptions O;
  O.Arch = Arch;
  return O;
}

TEST_F(IsolationTest, WorkerMatchesInProcessCompile) {
  for (const char *Arch : {"gfx942", "gfx1100"}) {
    backend::PtxModule M = liftKernel("saxpy");
    auto In = backend::compilePtx(M, target(Arch));
    ASSERT_TRUE(!!In) << llvm::toString(In.takeError());
    auto Iso = backend::compilePtxIsolated(M, target(Arch));
    ASSERT_TRUE(!!Iso) << llvm::toString(Iso.takeError());
    EXPECT_TRUE(Iso->Failures.empty());
    EXPECT_TRUE(Iso->Deterministic);
    ASSERT_EQ(In->Kernels.size(), 1u);
    EXPECT_EQ(Iso->Kernels, In->Kernels);
    EXPECT_EQ(Iso->CodeObject, In->CodeObject) << Arch;
    EXPECT_EQ(kernelSymbols(Iso->CodeObject), std::set<std::string>{In->Kernels[0]});
  }
}

struct FaultCase {
  const char *Fault;
  const char *Expect; // in the failure message
  bool Deterministic;
};

TEST_F(IsolationTest, EveryWorkerFailureIsReportedAndTheParentGoesOn) {
  backend::PtxModule M = liftKernel("vector_add");
  auto Ok = backend::compilePtx(M, target("gfx942"));
  ASSERT_TRUE(!!Ok) << llvm::toString(Ok.takeError());
  ASSERT_EQ(Ok->Kernels.size(), 1u);
  const std::string Kernel = Ok->Kernels[0];
  backend::IsolationOptions Iso;
  Iso.TimeoutSeconds = 3;
  // Under ASan a SIGSEGV is reported by the sanitizer, which then exits with status 1.
  const FaultCase Cases[] = {
      {"crash", "compile worker crashed (", false},
      {"fatal", "LLVM fatal error: injected by REPTX_TEST_WORKER_FAULT", true},
      {"hang", "compile worker timed out after 3 s", false},
      {"garbage", "unreadable reply from the compile worker (exit status 0): not a frame", false},
      {"exit", "compile worker crashed (exit status 3, no reply)", false},
  };
  for (const FaultCase &C : Cases) {
    SCOPED_TRACE(C.Fault);
    ::setenv("REPTX_TEST_WORKER_FAULT", C.Fault, 1);
    auto Start = std::chrono::steady_clock::now();
    auto R = backend::compilePtxIsolated(M, target("gfx942"), Iso);
    double S = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
    ASSERT_TRUE(!!R) << llvm::toString(R.takeError());
    EXPECT_TRUE(R->CodeObject.empty());
    EXPECT_TRUE(R->Kernels.empty());
    ASSERT_EQ(R->Failures.size(), 1u);
    EXPECT_EQ(R->Failures[0].Kernel, Kernel);
    const std::string &Msg = R->Failures[0].Message;
    EXPECT_NE(Msg.find(M.Name + ": gfx942: kernel '" + Kernel + "': "), std::string::npos) << Msg;
    EXPECT_NE(Msg.find(C.Expect), std::string::npos) << Msg;
    EXPECT_EQ(R->Deterministic, C.Deterministic);
    EXPECT_LT(S, 30.0);
  }
  // This process is unharmed and the next compile works.
  ::unsetenv("REPTX_TEST_WORKER_FAULT");
  auto After = backend::compilePtxIsolated(M, target("gfx942"), Iso);
  ASSERT_TRUE(!!After) << llvm::toString(After.takeError());
  EXPECT_EQ(After->CodeObject, Ok->CodeObject);
}

TEST_F(IsolationTest, OneCrashingKernelLeavesTheOthersCompiled) {
  for (const char *Fault : {"crash:bad", "fatal:bad"}) {
    SCOPED_TRACE(Fault);
    ::setenv("REPTX_TEST_WORKER_FAULT", Fault, 1);
    auto R = backend::compilePtxIsolated(threeKernels(), target("gfx1100"));
    ASSERT_TRUE(!!R) << llvm::toString(R.takeError());
    EXPECT_EQ(R->Kernels, (std::vector<std::string>{"first", "last"}));
    EXPECT_EQ(kernelSymbols(R->CodeObject), (std::set<std::string>{"first", "last"}));
    ASSERT_EQ(R->Failures.size(), 1u);
    EXPECT_EQ(R->Failures[0].Kernel, "bad");
    EXPECT_NE(R->Failures[0].Message.find("three.ptx: gfx1100: kernel 'bad': "), std::string::npos)
        << R->Failures[0].Message;
    // A fatal error repeats; a crash might not (out of memory, a signal from outside).
    EXPECT_EQ(R->Deterministic, llvm::StringRef(Fault).starts_with("fatal"));
  }
  // A hang is not searched kernel by kernel: every kernel fails with the timeout, uncached.
  ::setenv("REPTX_TEST_WORKER_FAULT", "hang:bad", 1);
  backend::IsolationOptions Short;
  Short.TimeoutSeconds = 2;
  auto Hang = backend::compilePtxIsolated(threeKernels(), target("gfx1100"), Short);
  ASSERT_TRUE(!!Hang) << llvm::toString(Hang.takeError());
  EXPECT_TRUE(Hang->CodeObject.empty());
  ASSERT_EQ(Hang->Failures.size(), 3u);
  for (const ir::KernelFailure &F : Hang->Failures)
    EXPECT_NE(F.Message.find("timed out after 2 s"), std::string::npos) << F.Message;
  EXPECT_FALSE(Hang->Deterministic);

  // Without the fault all three compile.
  ::unsetenv("REPTX_TEST_WORKER_FAULT");
  auto R = backend::compilePtxIsolated(threeKernels(), target("gfx1100"));
  ASSERT_TRUE(!!R) << llvm::toString(R.takeError());
  EXPECT_EQ(kernelSymbols(R->CodeObject), (std::set<std::string>{"first", "bad", "last"}));
}

TEST_F(IsolationTest, AKilledWorkerLeavesNoTemporaryFiles) {
  // A worker killed in the middle of a link (a timeout, the OOM killer) cannot clean up after
  // lld; the parent removes the temporary directory it gave the worker. Here the worker leaves a
  // directory and a partial output in its temporary directory and kills itself.
  std::string Tmp = path("tmp");
  ASSERT_TRUE(std::filesystem::create_directory(Tmp));
  const char *Old = std::getenv("TMPDIR");
  std::string Saved = Old ? Old : "";
  // Directories of workers whose parent was killed: one unlocked and older than a minute goes;
  // one that a live process holds the lock of stays, however old; so does a fresh one.
  auto Hours = [](int H) {
    return std::filesystem::file_time_type::clock::now() - std::chrono::hours(H);
  };
  std::string Orphan = Tmp + "/reptx-worker-999999-0a1b2c";
  std::string Held = Tmp + "/reptx-worker-999999-3d4e5f";
  std::string Fresh = Tmp + "/reptx-worker-999999-6a7b8c";
  ASSERT_TRUE(std::filesystem::create_directories(Orphan + "/reptx-lld-000000"));
  ASSERT_TRUE(std::filesystem::create_directory(Held));
  ASSERT_TRUE(std::filesystem::create_directory(Fresh));
  std::filesystem::last_write_time(Orphan, Hours(2));
  std::filesystem::last_write_time(Held, Hours(2));
  int HeldFd = ::open(Held.c_str(), O_RDONLY | O_DIRECTORY);
  ASSERT_GE(HeldFd, 0);
  ASSERT_EQ(::flock(HeldFd, LOCK_EX), 0);
  ::setenv("TMPDIR", Tmp.c_str(), 1);
  ::setenv("REPTX_TEST_WORKER_FAULT", "litter", 1);
  auto R = backend::compilePtxIsolated(liftKernel("saxpy"), target("gfx942"));
  ::unsetenv("REPTX_TEST_WORKER_FAULT");
  // And a worker that compiles and links leaves nothing either.
  auto Ok = backend::compilePtxIsolated(liftKernel("saxpy"), target("gfx942"));
  if (Old)
    ::setenv("TMPDIR", Saved.c_str(), 1);
  else
    ::unsetenv("TMPDIR");
  ASSERT_TRUE(!!R) << llvm::toString(R.takeError());
  ASSERT_EQ(R->Failures.size(), 1u);
  EXPECT_NE(R->Failures[0].Message.find("compile worker crashed (signal 9"), std::string::npos)
      << R->Failures[0].Message;
  ASSERT_TRUE(!!Ok) << llvm::toString(Ok.takeError());
  EXPECT_EQ(Ok->Kernels.size(), 1u);
  ::close(HeldFd);
  std::vector<std::string> Left;
  for (const auto &E : std::filesystem::recursive_directory_iterator(Tmp))
    Left.push_back(E.path().string());
  std::sort(Left.begin(), Left.end());
  EXPECT_EQ(Left, (std::vector<std::string>{Held, Fresh}));
}

TEST_F(IsolationTest, ModuleLevelErrors) {
  // PTX that does not parse: an error with the location, from the worker.
  auto R = backend::compilePtxIsolated({"broken.ptx", ".version 8.0\n.target sm_80\nfoo bar;\n"},
                                       target("gfx942"));
  ASSERT_FALSE(!!R);
  std::string Msg = llvm::toString(R.takeError());
  EXPECT_NE(Msg.find("broken.ptx:3"), std::string::npos) << Msg;

  // No worker at the given path: an error, not a crash.
  backend::IsolationOptions Iso;
  Iso.WorkerPath = path("no-such-worker");
  R = backend::compilePtxIsolated(liftKernel("saxpy"), target("gfx942"), Iso);
  ASSERT_FALSE(!!R);
  Msg = llvm::toString(R.takeError());
  EXPECT_NE(Msg.find("cannot start the compile worker"), std::string::npos) << Msg;

  // The worker refuses to run by hand.
  auto W = backend::findCompileWorker();
  ASSERT_TRUE(!!W) << llvm::toString(W.takeError());
  EXPECT_NE(std::system(("'" + *W + "' 2>/dev/null").c_str()), 0);
}

TEST_F(IsolationTest, WorksWhenTheHostIgnoresSigchld) {
  // A loader lives in programs that may ignore SIGCHLD (children reaped by the kernel, waitpid
  // fails with ECHILD): the reply alone decides.
  auto Old = ::signal(SIGCHLD, SIG_IGN);
  auto R = backend::compilePtxIsolated(liftKernel("saxpy"), target("gfx942"));
  ::setenv("REPTX_TEST_WORKER_FAULT", "fatal", 1);
  auto F = backend::compilePtxIsolated(liftKernel("saxpy"), target("gfx942"));
  ::signal(SIGCHLD, Old);
  ASSERT_TRUE(!!R) << llvm::toString(R.takeError());
  EXPECT_EQ(R->Kernels.size(), 1u);
  EXPECT_TRUE(R->Failures.empty());
  ASSERT_TRUE(!!F) << llvm::toString(F.takeError());
  ASSERT_EQ(F->Failures.size(), 1u);
  EXPECT_NE(F->Failures[0].Message.find("LLVM fatal error"), std::string::npos);
}

TEST_F(IsolationTest, BinaryIdentityIsTheBuildId) {
  auto W = backend::findCompileWorker();
  ASSERT_TRUE(!!W) << llvm::toString(W.takeError());
  auto Id = backend::binaryIdentity(*W);
  ASSERT_TRUE(!!Id) << llvm::toString(Id.takeError());
  EXPECT_FALSE(Id->empty());
  // A file without a build-id note: a content hash.
  std::string P = path("plain");
  FILE *F = std::fopen(P.c_str(), "w");
  std::fputs("not an ELF file", F);
  std::fclose(F);
  auto Plain = backend::binaryIdentity(P);
  ASSERT_TRUE(!!Plain);
  EXPECT_TRUE(llvm::StringRef(*Plain).starts_with("xxh3:")) << *Plain;
}

} // namespace
