// reptx-compile-worker: compiles one PTX module in a process of its own, so that an LLVM fatal
// error, a crash or a hang ends only this process (backend/README.md, "Isolation"). Started by
// reptx::backend::compilePtxIsolated with the request on stdin and fd 3 for the reply; not meant
// to be run by hand.
#include "reptx/backend/Isolated.h"

#include "llvm/Support/InitLLVM.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv) {
  llvm::InitLLVM X(argc, argv);
  if (argc != 3 || std::strcmp(argv[1], "--parent-pid") != 0 || ::fcntl(3, F_GETFD) < 0) {
    std::fprintf(stderr, "reptx-compile-worker: internal helper of reptx; not meant to be run "
                         "by hand\n");
    return 1;
  }
  // Die with the parent (a killed `reptx prewarm` must not leave workers compiling on); if it is
  // already gone, stop now.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != std::atoi(argv[2]))
    return 1;
  int Code = reptx::backend::runCompileWorker(0, 3);
  std::fflush(nullptr);
  // Skip static destructors and the leak check at exit: the reply is written, nothing else
  // matters, and a leak report would only slow the parent down.
  ::_exit(Code);
}
