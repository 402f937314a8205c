// POSIX helpers for the cache (see Posix.h).
#include "Posix.h"

#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <vector>

namespace reptx::cache::posix {

llvm::Error errnoError(int Err, const llvm::Twine &What) {
  return llvm::createStringError(std::error_code(Err, std::generic_category()), "%s: %s",
                                 What.str().c_str(), std::strerror(Err));
}

std::string takeMessage(llvm::Error E, int &Err) {
  Err = 0;
  std::string Msg;
  llvm::handleAllErrors(std::move(E), [&](const llvm::ErrorInfoBase &B) {
    std::error_code EC = B.convertToErrorCode();
    if (EC.category() == std::generic_category())
      Err = EC.value();
    Msg = B.message();
  });
  return Msg;
}

llvm::Error preadAll(int Fd, char *Buf, size_t N, uint64_t Offset, const llvm::Twine &Path) {
  size_t Done = 0;
  while (Done < N) {
    ssize_t R = ::pread(Fd, Buf + Done, N - Done, Offset + Done);
    if (R < 0) {
      if (errno == EINTR)
        continue;
      return errnoError(errno, "read " + Path);
    }
    if (R == 0)
      return llvm::createStringError("read %s: file shorter than expected", Path.str().c_str());
    Done += R;
  }
  return llvm::Error::success();
}

llvm::Error writeAll(int Fd, llvm::StringRef Bytes, const llvm::Twine &Path) {
  size_t Done = 0;
  while (Done < Bytes.size()) {
    ssize_t R = ::write(Fd, Bytes.data() + Done, Bytes.size() - Done);
    if (R < 0) {
      if (errno == EINTR)
        continue;
      return errnoError(errno, "write " + Path);
    }
    Done += R;
  }
  return llvm::Error::success();
}

llvm::Error forEachName(int DirFd, const llvm::Twine &Path,
                        llvm::function_ref<void(llvm::StringRef)> Fn) {
  // fdopendir takes ownership of its descriptor, so walk a duplicate.
  int Dup = ::openat(DirFd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (Dup < 0)
    return errnoError(errno, "open " + Path);
  DIR *D = ::fdopendir(Dup);
  if (!D) {
    int Err = errno;
    ::close(Dup);
    return errnoError(Err, "open " + Path);
  }
  // Collect first: the callback may remove entries, which readdir need not tolerate well.
  std::vector<std::string> Names;
  errno = 0;
  while (dirent *E = ::readdir(D)) {
    llvm::StringRef N(E->d_name);
    if (N != "." && N != "..")
      Names.push_back(N.str());
    errno = 0;
  }
  int Err = errno;
  ::closedir(D);
  if (Err)
    return errnoError(Err, "read directory " + Path);
  for (const std::string &N : Names)
    Fn(N);
  return llvm::Error::success();
}

int statAt(int DirFd, llvm::StringRef Name, struct stat &St) {
  return ::fstatat(DirFd, Name.str().c_str(), &St, AT_SYMLINK_NOFOLLOW);
}

int64_t mtimeNs(const struct stat &St) {
  return int64_t(St.st_mtim.tv_sec) * 1000000000 + St.st_mtim.tv_nsec;
}

} // namespace reptx::cache::posix
