// Compiling in a child process: the parent side (spawn the worker, send the request, collect the
// reply under a deadline, judge how the worker ended), the worker side (runCompileWorker) and the
// framing they share. See backend/README.md, "Isolation".
//
// Frame (little-endian): "RXWF", u32 type, u32 protocol version, u32 0, u64 payload length, the
// payload, u64 XXH3-64 of everything before it. A request is one frame on the worker's stdin; the
// reply is exactly one frame on its fd 3 followed by end of file. The worker's stdout and stderr
// go to a third pipe that the parent keeps the tail of, for messages.
#include "reptx/backend/Isolated.h"

#include "reptx/frontend-ptx/Parser.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELF.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <functional>
#include <mutex>
#include <poll.h>
#include <set>
#include <spawn.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char **environ;

using namespace llvm;

namespace reptx::backend {

namespace {

// --- Framing ------------------------------------------------------------------------------------

constexpr char FrameMagic[4] = {'R', 'X', 'W', 'F'};
constexpr uint32_t ProtocolVersion = 2; // 2: CompileOptions::Threads
constexpr size_t FrameHeaderSize = 24;
constexpr uint64_t MaxFrameSize = 2ull << 30;

enum FrameType : uint32_t { RequestFrame = 1, ResultFrame = 2, ErrorFrame = 3, FatalFrame = 4 };

struct Writer {
  std::string S;
  void u32(uint32_t V) {
    char B[4];
    support::endian::write32le(B, V);
    S.append(B, 4);
  }
  void u64(uint64_t V) {
    char B[8];
    support::endian::write64le(B, V);
    S.append(B, 8);
  }
  void str(StringRef V) {
    u64(V.size());
    S.append(V.data(), V.size());
  }
  void strs(ArrayRef<std::string> V) {
    u32(V.size());
    for (const std::string &X : V)
      str(X);
  }
};

struct Reader {
  StringRef D;
  bool u32(uint32_t &V) {
    if (D.size() < 4)
      return false;
    V = support::endian::read32le(D.data());
    D = D.drop_front(4);
    return true;
  }
  bool u64(uint64_t &V) {
    if (D.size() < 8)
      return false;
    V = support::endian::read64le(D.data());
    D = D.drop_front(8);
    return true;
  }
  bool str(std::string &V) {
    uint64_t N;
    if (!u64(N) || N > D.size())
      return false;
    V = D.take_front(N).str();
    D = D.drop_front(N);
    return true;
  }
  bool strs(std::vector<std::string> &V) {
    uint32_t N;
    if (!u32(N) || N > D.size() / 8)
      return false;
    V.resize(N);
    for (std::string &X : V)
      if (!str(X))
        return false;
    return true;
  }
};

std::string frame(FrameType T, StringRef Payload) {
  Writer W;
  W.S.append(FrameMagic, 4);
  W.u32(T);
  W.u32(ProtocolVersion);
  W.u32(0);
  W.u64(Payload.size());
  W.S.append(Payload.data(), Payload.size());
  W.u64(xxh3_64bits(W.S));
  return std::move(W.S);
}

/// Exactly one well-formed frame and nothing after it.
Expected<std::pair<FrameType, StringRef>> unframe(StringRef Bytes) {
  if (Bytes.empty())
    return createStringError("no reply");
  if (Bytes.size() < FrameHeaderSize + 8 || !Bytes.starts_with(StringRef(FrameMagic, 4)))
    return createStringError("not a frame (%zu bytes)", Bytes.size());
  Reader R{Bytes.drop_front(4)};
  uint32_t Type = 0, Version = 0, Zero = 0;
  uint64_t Len = 0;
  R.u32(Type);
  R.u32(Version);
  R.u32(Zero);
  R.u64(Len);
  if (Version != ProtocolVersion || Zero != 0)
    return createStringError("protocol version %u", Version);
  if (Len > MaxFrameSize || Bytes.size() != FrameHeaderSize + Len + 8)
    return createStringError("frame length %llu does not match the %zu bytes received",
                             (unsigned long long)Len, Bytes.size());
  uint64_t Sum = support::endian::read64le(Bytes.data() + FrameHeaderSize + Len);
  if (Sum != xxh3_64bits(Bytes.take_front(FrameHeaderSize + Len)))
    return createStringError("frame checksum mismatch");
  if (Type < RequestFrame || Type > FatalFrame)
    return createStringError("unknown frame type %u", Type);
  return std::make_pair(FrameType(Type), Bytes.substr(FrameHeaderSize, Len));
}

struct Request {
  PtxModule M;
  CompileOptions Opts;
  KernelSelection Sel;
};

std::string encodeRequest(const Request &Q) {
  Writer W;
  W.str(Q.M.Name);
  W.str(Q.M.Text);
  W.str(Q.Opts.Arch);
  W.u32(Q.Opts.CodeObjectVersion);
  W.u32(unsigned(Q.Opts.Wave64));
  W.u32(Q.Opts.Threads);
  W.strs(Q.Sel.Only);
  W.strs(Q.Sel.Exclude);
  return frame(RequestFrame, W.S);
}

bool decodeRequest(StringRef P, Request &Q) {
  Reader R{P};
  uint32_t Wave64 = 0;
  bool Ok = R.str(Q.M.Name) && R.str(Q.M.Text) && R.str(Q.Opts.Arch) &&
            R.u32(Q.Opts.CodeObjectVersion) && R.u32(Wave64) && Wave64 <= 1 &&
            R.u32(Q.Opts.Threads) && R.strs(Q.Sel.Only) && R.strs(Q.Sel.Exclude) && R.D.empty();
  Q.Opts.Wave64 = CompileOptions::Wave64Mode(Wave64);
  return Ok;
}

std::string encodeResult(const ModuleResult &M) {
  Writer W;
  W.str(StringRef(reinterpret_cast<const char *>(M.CodeObject.data()), M.CodeObject.size()));
  W.strs(M.Kernels);
  W.u32(M.Failures.size());
  for (const ir::KernelFailure &F : M.Failures) {
    W.str(F.Kernel);
    W.str(F.Message);
  }
  return frame(ResultFrame, W.S);
}

bool decodeResult(StringRef P, ModuleResult &M) {
  Reader R{P};
  std::string Code;
  uint32_t N = 0;
  if (!R.str(Code) || !R.strs(M.Kernels) || !R.u32(N) || N > R.D.size() / 16)
    return false;
  M.CodeObject.assign(Code.begin(), Code.end());
  M.Failures.resize(N);
  for (ir::KernelFailure &F : M.Failures)
    if (!R.str(F.Kernel) || !R.str(F.Message))
      return false;
  return R.D.empty() && (M.CodeObject.empty() == M.Kernels.empty());
}

std::string encodeMessage(FrameType T, StringRef Msg) {
  Writer W;
  W.str(Msg);
  return frame(T, W.S);
}

bool writeAll(int Fd, StringRef Data) {
  while (!Data.empty()) {
    ssize_t N = ::write(Fd, Data.data(), Data.size());
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      return false;
    Data = Data.drop_front(N);
  }
  return true;
}

// --- Parent side --------------------------------------------------------------------------------

/// How one worker run ended.
struct WorkerRun {
  enum Kind { Result, CompileError, Fatal, Crashed, TimedOut, BadReply } K = BadReply;
  ModuleResult R;
  std::string Message;
};

/// The last Max bytes of Text, from a line start when possible, stripped.
std::string tail(StringRef Text, size_t Max = 1500) {
  Text = Text.trim();
  if (Text.size() > Max) {
    Text = Text.take_back(Max);
    size_t NL = Text.find('\n');
    if (NL != StringRef::npos && NL + 1 < Text.size())
      Text = Text.drop_front(NL + 1);
  }
  return Text.str();
}

/// An fd at 10 or above, close-on-exec, so that the child's dup2 targets 0-3 never alias it.
int highFd(int Fd) {
  int H = ::fcntl(Fd, F_DUPFD_CLOEXEC, 10);
  ::close(Fd);
  return H;
}

struct Fds {
  int V[6] = {-1, -1, -1, -1, -1, -1};
  ~Fds() {
    for (int F : V)
      if (F >= 0)
        ::close(F);
  }
  void close(int I) {
    if (V[I] >= 0)
      ::close(V[I]);
    V[I] = -1;
  }
};

// The worker's temporary directory, removed with whatever it left there when the worker has been
// waited for (the destructor runs after the waitpid loop of runWorker). The parent holds a lock
// on it (flock, released by the kernel however the parent ends) for as long as it exists.
struct WorkerTempDir {
  SmallString<128> Path;
  int LockFd = -1;
  ~WorkerTempDir() {
    if (!Path.empty())
      sys::fs::remove_directories(Path);
    if (LockFd >= 0)
      ::close(LockFd);
  }
};

// A process killed while its worker ran (a prewarm stopped with SIGKILL, a program that hosts the
// loader crashing) leaves its worker's directory behind: the first worker a process starts in a
// temporary directory removes every reptx-worker-* directory that no process holds the lock of
// (whatever its PID namespace: the lock lives with the file) and that is older than a minute
// (one just created is locked a moment later).
void removeOrphanedWorkerDirs(StringRef TmpRoot) {
  static std::mutex Mutex;
  static std::set<std::string> Swept;
  std::lock_guard<std::mutex> Lock(Mutex);
  if (!Swept.insert(TmpRoot.str()).second)
    return;
  std::error_code EC;
  const auto Now = std::chrono::system_clock::now();
  for (sys::fs::directory_iterator I(TmpRoot, EC), E; I != E && !EC; I.increment(EC)) {
    if (!sys::path::filename(I->path()).starts_with("reptx-worker-"))
      continue;
    sys::fs::file_status St;
    if (sys::fs::status(I->path(), St, /*Follow=*/false) ||
        St.type() != sys::fs::file_type::directory_file ||
        Now - St.getLastModificationTime() < std::chrono::minutes(1))
      continue;
    int Fd = ::open(I->path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
    if (Fd < 0)
      continue;
    if (::flock(Fd, LOCK_EX | LOCK_NB) == 0)
      sys::fs::remove_directories(I->path());
    ::close(Fd);
  }
}

Expected<WorkerRun> runWorker(const std::string &Worker, const Request &Q, unsigned Timeout) {
  // 0/1: request socket (parent, child); 2/3: reply pipe (parent reads 2); 4/5: log pipe.
  Fds F;
  int S[2], P[2], L[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, S) != 0)
    return createStringError(std::error_code(errno, std::generic_category()), "socketpair");
  F.V[0] = S[0];
  F.V[1] = S[1];
  if (::pipe2(P, O_CLOEXEC) != 0)
    return createStringError(std::error_code(errno, std::generic_category()), "pipe");
  F.V[2] = P[0];
  F.V[3] = P[1];
  if (::pipe2(L, O_CLOEXEC) != 0)
    return createStringError(std::error_code(errno, std::generic_category()), "pipe");
  F.V[4] = L[0];
  F.V[5] = L[1];
  for (int I : {1, 3, 5})
    if ((F.V[I] = highFd(F.V[I])) < 0)
      return createStringError(std::error_code(errno, std::generic_category()), "fcntl");

  posix_spawn_file_actions_t FA;
  posix_spawn_file_actions_init(&FA);
  posix_spawn_file_actions_adddup2(&FA, F.V[5], 1);
  posix_spawn_file_actions_adddup2(&FA, F.V[5], 2);
  posix_spawn_file_actions_adddup2(&FA, F.V[1], 0);
  posix_spawn_file_actions_adddup2(&FA, F.V[3], 3);
  std::string Parent = std::to_string(::getpid());
  char *Argv[] = {const_cast<char *>(Worker.c_str()), const_cast<char *>("--parent-pid"),
                  Parent.data(), nullptr};
  // The worker gets this process's environment without the sanitizer runtimes in LD_PRELOAD: a
  // host program that loads the instrumented libcuda.so.1 preloads libclang_rt.asan (`reptx run`
  // in sanitizer builds), which the worker, linked with its own static runtime, refuses.
  // It also gets a temporary directory of its own (TMPDIR), removed once it has ended: a worker
  // killed or crashed in the middle of a link leaves lld's files behind, and a prewarm that times
  // out on many modules would otherwise fill /tmp with them.
  WorkerTempDir Tmp;
  {
    SmallString<128> Root;
    sys::path::system_temp_directory(/*ErasedOnReboot=*/true, Root);
    removeOrphanedWorkerDirs(Root);
  }
  if (sys::fs::createUniqueDirectory("reptx-worker-" + Twine(::getpid()), Tmp.Path)) {
    Tmp.Path.clear(); // the worker falls back to the system's temporary directory
  } else {
    Tmp.LockFd = ::open(Tmp.Path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (Tmp.LockFd >= 0)
      ::flock(Tmp.LockFd, LOCK_EX);
  }
  std::vector<std::string> EnvStore;
  std::vector<char *> Env;
  for (char **E = environ; *E; ++E) {
    StringRef Var(*E);
    if (!Tmp.Path.empty() && Var.starts_with("TMPDIR="))
      continue;
    if (!Var.starts_with("LD_PRELOAD=")) {
      Env.push_back(*E);
      continue;
    }
    SmallVector<StringRef, 4> Parts;
    Var.drop_front(strlen("LD_PRELOAD=")).split(Parts, ':', -1, /*KeepEmpty=*/false);
    std::string Kept;
    for (StringRef Lib : Parts)
      if (!sys::path::filename(Lib).starts_with("libclang_rt.asan") &&
          !sys::path::filename(Lib).starts_with("libclang_rt.ubsan"))
        Kept += (Kept.empty() ? "" : ":") + Lib.str();
    if (!Kept.empty())
      EnvStore.push_back("LD_PRELOAD=" + Kept);
  }
  if (!Tmp.Path.empty())
    EnvStore.push_back(("TMPDIR=" + Tmp.Path).str());
  for (std::string &S : EnvStore)
    Env.push_back(S.data());
  Env.push_back(nullptr);
  pid_t Pid = -1;
  int Err = ::posix_spawn(&Pid, Worker.c_str(), &FA, nullptr, Argv, Env.data());
  posix_spawn_file_actions_destroy(&FA);
  if (Err != 0)
    return createStringError(std::error_code(Err, std::generic_category()),
                             "cannot start the compile worker " + Worker);
  F.close(1);
  F.close(3);
  F.close(5);
  for (int I : {0, 2, 4})
    ::fcntl(F.V[I], F_SETFL, ::fcntl(F.V[I], F_GETFL) | O_NONBLOCK);

  using Clock = std::chrono::steady_clock;
  const auto Deadline = Clock::now() + std::chrono::seconds(Timeout ? Timeout : 1u << 30);
  const std::string Out = encodeRequest(Q);
  size_t Sent = 0;
  std::string Reply, Log;
  bool TimedOut = false, Oversized = false;
  char Buf[65536];
  while (F.V[0] >= 0 || F.V[2] >= 0 || F.V[4] >= 0) {
    pollfd PF[3];
    int Idx[3], N = 0;
    for (int I : {0, 2, 4})
      if (F.V[I] >= 0) {
        PF[N] = {F.V[I], short(I == 0 ? POLLOUT : POLLIN), 0};
        Idx[N++] = I;
      }
    auto Left = std::chrono::duration_cast<std::chrono::milliseconds>(Deadline - Clock::now());
    if (Left.count() <= 0) {
      TimedOut = true;
      break;
    }
    int R = ::poll(PF, N, int(std::min<int64_t>(Left.count(), 1 << 30)));
    if (R < 0 && errno == EINTR)
      continue;
    if (R < 0)
      break;
    for (int J = 0; J < N; ++J) {
      if (!PF[J].revents)
        continue;
      int I = Idx[J];
      if (I == 0) {
        ssize_t W =
            ::send(F.V[0], Out.data() + Sent, Out.size() - Sent, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (W > 0)
          Sent += W;
        if ((W < 0 && errno != EAGAIN && errno != EINTR) || Sent == Out.size())
          F.close(0); // done, or the worker is gone (its exit status tells why)
        continue;
      }
      ssize_t Got = ::read(F.V[I], Buf, sizeof Buf);
      if (Got < 0 && (errno == EAGAIN || errno == EINTR))
        continue;
      if (Got <= 0) {
        F.close(I);
        continue;
      }
      std::string &Dst = I == 2 ? Reply : Log;
      Dst.append(Buf, Got);
      if (I == 4 && Log.size() > (1 << 20))
        Log.erase(0, Log.size() - (64 << 10));
      if (I == 2 && Reply.size() > MaxFrameSize + FrameHeaderSize + 8) {
        Oversized = true;
        F.close(I);
      }
    }
    if (Oversized)
      break;
  }
  if (TimedOut || Oversized)
    ::kill(Pid, SIGKILL);
  // The pipes are closed; the worker should be exiting. Keep to the deadline all the same.
  int Status = 0;
  for (;;) {
    pid_t W = ::waitpid(Pid, &Status, WNOHANG);
    if (W == Pid)
      break;
    if (W < 0 && errno == ECHILD) {
      // Reaped by someone else: the host program ignores SIGCHLD or reaps every child (a loader
      // lives in other people's programs). Judge by the reply alone.
      Status = 0;
      break;
    }
    if (W < 0 && errno != EINTR)
      return createStringError(std::error_code(errno, std::generic_category()), "waitpid");
    if (!TimedOut && Clock::now() > Deadline) {
      TimedOut = true;
      ::kill(Pid, SIGKILL);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }

  WorkerRun Run;
  std::string LogTail = tail(Log);
  auto WithLog = [&](std::string Msg) {
    if (!LogTail.empty())
      Msg += "; worker output: " + LogTail;
    return Msg;
  };
  if (TimedOut) {
    Run.K = WorkerRun::TimedOut;
    Run.Message = WithLog("compile worker timed out after " + std::to_string(Timeout) +
                          " s (the limit: reptx --timeout, REPTX_COMPILE_TIMEOUT)");
    return Run;
  }
  if (WIFSIGNALED(Status)) {
    int Sig = WTERMSIG(Status);
    Run.K = WorkerRun::Crashed;
    Run.Message = WithLog("compile worker crashed (signal " + std::to_string(Sig) + ", " +
                          ::strsignal(Sig) + ")");
    return Run;
  }
  int Exit = WIFEXITED(Status) ? WEXITSTATUS(Status) : -1;
  auto Frame = unframe(Reply);
  if (!Frame) {
    std::string Why = toString(Frame.takeError());
    if (Reply.empty() && Exit != 0) {
      Run.K = WorkerRun::Crashed;
      Run.Message =
          WithLog("compile worker crashed (exit status " + std::to_string(Exit) + ", no reply)");
    } else {
      Run.K = WorkerRun::BadReply;
      Run.Message = WithLog("unreadable reply from the compile worker (exit status " +
                            std::to_string(Exit) + "): " + Why);
    }
    return Run;
  }
  auto [Type, Payload] = *Frame;
  Reader R{Payload};
  std::string Msg;
  switch (Type) {
  case ResultFrame:
    if (Exit == 0 && decodeResult(Payload, Run.R)) {
      Run.K = WorkerRun::Result;
      return Run;
    }
    Run.Message = WithLog("malformed result from the compile worker (exit status " +
                          std::to_string(Exit) + ")");
    return Run;
  case ErrorFrame:
  case FatalFrame:
    if (!R.str(Msg) || !R.D.empty()) {
      Run.Message = WithLog("malformed message from the compile worker");
      return Run;
    }
    Run.K = Type == ErrorFrame ? WorkerRun::CompileError : WorkerRun::Fatal;
    Run.Message = Type == ErrorFrame ? Msg : "LLVM fatal error: " + Msg;
    return Run;
  default:
    Run.Message = WithLog("unexpected frame from the compile worker");
    return Run;
  }
}

/// The kernels (`.entry` with a body) of a PTX text, parsed without validation: only the names
/// are needed, to retry kernel by kernel.
std::vector<std::string> kernelsOf(const PtxModule &M) {
  ptx::ParseOptions PO;
  PO.Validate = false;
  ptx::ParseResult R = ptx::parse(M.Name, M.Text, PO);
  std::vector<std::string> Names;
  for (const ptx::TopLevel &T : R.M->Items)
    if (T.K == ptx::TopLevel::Func && T.F->IsEntry && T.F->Body)
      Names.push_back(T.F->Name.str());
  return Names;
}

// --- Worker side --------------------------------------------------------------------------------

int FatalReplyFd = -1;

void onFatalError(void *, const char *Reason, bool) {
  std::string F = encodeMessage(FatalFrame, Reason ? Reason : "unknown");
  writeAll(FatalReplyFd, F);
  ::_exit(70);
}

/// REPTX_TEST_WORKER_FAULT: tests make the worker fail in each way the parent must survive.
void injectFault(const Request &Q, int ReplyFd) {
  const char *Env = std::getenv("REPTX_TEST_WORKER_FAULT");
  if (!Env || !*Env)
    return;
  auto [What, Kernel] = StringRef(Env).split(':');
  if (!Kernel.empty()) {
    // Only when this run compiles that kernel.
    if (!Q.Sel.selects(Kernel) || !StringRef(Q.M.Text).contains(".entry " + Kernel.str()))
      return;
  }
  if (What == "crash") {
    ::raise(SIGSEGV);
    ::_exit(99); // in case SIGSEGV is caught and returns
  }
  if (What == "fatal")
    report_fatal_error("injected by REPTX_TEST_WORKER_FAULT");
  if (What == "hang")
    for (;;)
      ::pause();
  if (What == "garbage") {
    writeAll(ReplyFd, "this is not a frame");
    ::_exit(0);
  }
  if (What == "exit")
    ::_exit(3);
  if (What == "litter") {
    // Killed in the middle of a link: lld's directory and a partial output are left behind.
    SmallString<128> Dir;
    if (!sys::fs::createUniqueDirectory("reptx-lld", Dir)) {
      sys::path::append(Dir, "kernels.hsaco.tmp");
      std::error_code EC;
      raw_fd_ostream(Dir, EC) << "partial";
    }
    ::raise(SIGKILL);
  }
}

} // namespace

Expected<ModuleResult> compilePtxIsolated(const PtxModule &M, const CompileOptions &Opts,
                                          const IsolationOptions &Iso, const KernelSelection &Sel) {
  std::string Worker = Iso.WorkerPath;
  if (Worker.empty()) {
    auto W = findCompileWorker();
    if (!W)
      return W.takeError();
    Worker = *W;
  }
  auto Fail = [&](const std::string &Kernel, const WorkerRun &Run) {
    return ir::KernelFailure{Kernel, M.Name + ": " + Opts.Arch + ": kernel '" + Kernel +
                                         "': " + Run.Message};
  };
  auto Run = runWorker(Worker, {M, Opts, Sel}, Iso.TimeoutSeconds);
  if (!Run)
    return Run.takeError();
  if (Run->K == WorkerRun::Result)
    return std::move(Run->R);
  if (Run->K == WorkerRun::CompileError)
    return createStringError(Run->Message);

  // The worker died or misbehaved on the whole module: find the kernels at fault.
  std::vector<std::string> Kernels = kernelsOf(M);
  llvm::erase_if(Kernels, [&](const std::string &K) { return !Sel.selects(K); });
  ModuleResult Out;
  Out.Deterministic = Run->K == WorkerRun::Fatal;
  if (Kernels.empty())
    return createStringError(M.Name + ": " + Opts.Arch + ": " + Run->Message);
  if (Kernels.size() == 1 || Run->K == WorkerRun::TimedOut) {
    // A timeout is not searched: each probe could take as long again. Every kernel fails with
    // it (not cached, so a run with a longer timeout tries again).
    for (const std::string &K : Kernels)
      Out.Failures.push_back(Fail(K, *Run));
    return Out;
  }
  // Bisection: a group that compiles is good; one that fails is split in halves down to single
  // kernels, which are the ones at fault. k bad kernels out of n cost about 2k log2(n) workers.
  KernelSelection Rest = Sel;
  std::function<Error(ArrayRef<std::string>)> Probe = [&](ArrayRef<std::string> Group) -> Error {
    auto Try =
        runWorker(Worker, {M, Opts, {std::vector<std::string>(Group), {}}}, Iso.TimeoutSeconds);
    if (!Try)
      return Try.takeError();
    if (Try->K == WorkerRun::Result) {
      // Kernels that fail in the worker's own way (lifting, backend errors) are reported by it.
      for (ir::KernelFailure &F : Try->R.Failures) {
        Rest.Exclude.push_back(F.Kernel);
        Out.Failures.push_back(std::move(F));
      }
      return Error::success();
    }
    if (Group.size() == 1) {
      Out.Deterministic &= Try->K == WorkerRun::Fatal || Try->K == WorkerRun::CompileError;
      Rest.Exclude.push_back(Group[0]);
      Out.Failures.push_back(Fail(Group[0], *Try));
      return Error::success();
    }
    size_t Half = Group.size() / 2;
    if (Error E = Probe(Group.take_front(Half)))
      return E;
    return Probe(Group.drop_front(Half));
  };
  size_t Half = Kernels.size() / 2;
  if (Error E = Probe(ArrayRef<std::string>(Kernels).take_front(Half)))
    return std::move(E);
  if (Error E = Probe(ArrayRef<std::string>(Kernels).drop_front(Half)))
    return std::move(E);
  if (all_of(Kernels, [&](const std::string &K) { return is_contained(Rest.Exclude, K); }))
    return Out;
  auto Final = runWorker(Worker, {M, Opts, Rest}, Iso.TimeoutSeconds);
  if (!Final)
    return Final.takeError();
  if (Final->K == WorkerRun::Result) {
    Out.CodeObject = std::move(Final->R.CodeObject);
    Out.Kernels = std::move(Final->R.Kernels);
    append_range(Out.Failures, Final->R.Failures);
    return Out;
  }
  // The halves compile apart, not together.
  Out.Deterministic &= Final->K == WorkerRun::Fatal || Final->K == WorkerRun::CompileError;
  for (const std::string &K : Kernels)
    if (!is_contained(Rest.Exclude, K)) {
      WorkerRun Together = *Final;
      Together.Message = "(compiled with the module's other kernels) " + Final->Message;
      Out.Failures.push_back(Fail(K, Together));
    }
  return Out;
}

Expected<std::string> findCompileWorker() {
  const char *Name = "reptx-compile-worker";
  if (const char *Env = std::getenv("REPTX_COMPILE_WORKER"); Env && *Env) {
    if (!sys::path::is_absolute(Env))
      return createStringError("REPTX_COMPILE_WORKER must be an absolute path, not '%s'", Env);
    if (!sys::fs::can_execute(Env))
      return createStringError("REPTX_COMPILE_WORKER: %s is not an executable", Env);
    return std::string(Env);
  }
  std::vector<std::string> Dirs;
  auto AddDirOf = [&](StringRef File) {
    SmallString<256> Real;
    if (sys::fs::real_path(File, Real))
      return;
    StringRef Dir = sys::path::parent_path(Real);
    for (const char *Rel : {"", "../libexec/reptx", "../bin"}) {
      SmallString<256> D(Dir);
      sys::path::append(D, Rel);
      Dirs.push_back(std::string(D));
    }
  };
  Dl_info Info;
  if (::dladdr(reinterpret_cast<void *>(&findCompileWorker), &Info) && Info.dli_fname)
    AddDirOf(Info.dli_fname);
  AddDirOf("/proc/self/exe");
  for (const std::string &D : Dirs) {
    SmallString<256> P(D);
    sys::path::append(P, Name);
    sys::path::remove_dots(P, /*remove_dot_dot=*/true);
    if (sys::fs::can_execute(P) && !sys::fs::is_directory(P))
      return std::string(P);
  }
  return createStringError("the compile worker '%s' was not found next to this program (set "
                           "REPTX_COMPILE_WORKER to its absolute path)",
                           Name);
}

Expected<std::string> binaryIdentity(StringRef Path) {
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!Buf)
    return createStringError(Buf.getError(), Path + ": " + Buf.getError().message());
  StringRef Bytes = (*Buf)->getBuffer();
  if (auto Elf = object::ELF64LEFile::create(Bytes)) {
    if (auto Phdrs = Elf->program_headers()) {
      for (const auto &Ph : *Phdrs) {
        if (Ph.p_type != ELF::PT_NOTE)
          continue;
        Error Err = Error::success();
        for (const auto &Note : Elf->notes(Ph, Err))
          if (Note.getType() == ELF::NT_GNU_BUILD_ID && Note.getName() == "GNU") {
            std::string Hex;
            for (uint8_t B : Note.getDesc(Ph.p_align))
              Hex += "0123456789abcdef"[B >> 4], Hex += "0123456789abcdef"[B & 15];
            consumeError(std::move(Err));
            return Hex;
          }
        consumeError(std::move(Err));
      }
    } else {
      consumeError(Phdrs.takeError());
    }
  } else {
    consumeError(Elf.takeError());
  }
  char Hex[17];
  std::snprintf(Hex, sizeof Hex, "%016llx", (unsigned long long)xxh3_64bits(Bytes));
  return std::string("xxh3:") + Hex;
}

int runCompileWorker(int RequestFd, int ReplyFd) {
  FatalReplyFd = ReplyFd;
  install_fatal_error_handler(onFatalError, nullptr);
  std::string In;
  char Buf[65536];
  for (;;) {
    ssize_t N = ::read(RequestFd, Buf, sizeof Buf);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      break;
    In.append(Buf, N);
    if (In.size() > MaxFrameSize + FrameHeaderSize + 8)
      break;
  }
  Request Q;
  auto F = unframe(In);
  if (!F || F->first != RequestFrame || !decodeRequest(F->second, Q)) {
    std::string Why = F ? "malformed request" : "bad request: " + toString(F.takeError());
    return writeAll(ReplyFd, encodeMessage(ErrorFrame, Why)) ? 2 : 3;
  }
  injectFault(Q, ReplyFd);
  auto R = compilePtx(Q.M, Q.Opts, Q.Sel);
  std::string Reply = R ? encodeResult(*R) : encodeMessage(ErrorFrame, toString(R.takeError()));
  return writeAll(ReplyFd, Reply) ? 0 : 3;
}

} // namespace reptx::backend
