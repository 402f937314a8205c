// The CUDA toolkit's library files (CUDA_HOME/lib64 and lib: shared libraries and archives,
// regular files only, each once by real path), for the corpus tools of this folder.
#pragma once

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <regex>
#include <set>
#include <string>

namespace reptx::corpus {

inline std::set<std::string> toolkitLibraries(llvm::StringRef CudaHome) {
  std::set<std::string> Files;
  std::regex Lib(R"((\.so(\.\d+)*|\.a)$)");
  for (const char *Sub : {"lib64", "lib"}) {
    std::error_code EC;
    llvm::SmallString<256> Dir(CudaHome);
    llvm::sys::path::append(Dir, Sub);
    for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC; It.increment(EC)) {
      llvm::sys::fs::file_status St;
      if (llvm::sys::fs::status(It->path(), St, /*Follow=*/false) ||
          St.type() != llvm::sys::fs::file_type::regular_file)
        continue;
      if (!std::regex_search(llvm::sys::path::filename(It->path()).str(), Lib))
        continue;
      llvm::SmallString<256> Real;
      if (!llvm::sys::fs::real_path(It->path(), Real))
        Files.insert(std::string(Real));
    }
  }
  return Files;
}

} // namespace reptx::corpus
