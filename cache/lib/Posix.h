// Thin POSIX helpers for the cache: an owning file descriptor, errno-carrying llvm::Errors and
// directory walking relative to a directory descriptor, so nothing inside a cache is reached
// through a path that could traverse a symlink.
#pragma once

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace reptx::cache::posix {

/// An owned file descriptor.
class Fd {
public:
  Fd() = default;
  explicit Fd(int F) : F(F) {}
  Fd(Fd &&O) noexcept : F(O.release()) {}
  Fd &operator=(Fd &&O) noexcept {
    if (this != &O) {
      reset();
      F = O.release();
    }
    return *this;
  }
  Fd(const Fd &) = delete;
  Fd &operator=(const Fd &) = delete;
  ~Fd() { reset(); }

  int get() const { return F; }
  explicit operator bool() const { return F >= 0; }
  int release() {
    int R = F;
    F = -1;
    return R;
  }
  void reset() {
    if (F >= 0)
      ::close(F);
    F = -1;
  }

private:
  int F = -1;
};

/// An error carrying errno as its std::error_code, so callers can tell a full disk apart.
llvm::Error errnoError(int Err, const llvm::Twine &What);
/// Consumes E: its message, and in Err the errno it carries (0 when it carries none).
std::string takeMessage(llvm::Error E, int &Err);

/// Reads exactly N bytes at Offset (short files give an error).
llvm::Error preadAll(int Fd, char *Buf, size_t N, uint64_t Offset, const llvm::Twine &Path);
llvm::Error writeAll(int Fd, llvm::StringRef Bytes, const llvm::Twine &Path);

/// Calls Fn with the name of every directory entry except "." and "..".
llvm::Error forEachName(int DirFd, const llvm::Twine &Path,
                        llvm::function_ref<void(llvm::StringRef)> Fn);

/// lstat relative to a directory descriptor.
int statAt(int DirFd, llvm::StringRef Name, struct stat &St);

int64_t mtimeNs(const struct stat &St);

} // namespace reptx::cache::posix
