// Shared helpers of the prewarm tests: a private temporary directory per test, reading the PTX of
// the lifting tests' kernels, and the kernel symbols of a code object.
#pragma once

#include "reptx/backend/Isolated.h"

#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>

namespace reptx::test {

inline std::string readFile(const std::string &Path) {
  auto B = llvm::MemoryBuffer::getFile(Path);
  if (!B)
    return "";
  return (*B)->getBuffer().str();
}

/// tests/lift/kernels/<Name>.ptx as a module.
inline backend::PtxModule liftKernel(const std::string &Name) {
  std::string Path = std::string(REPTX_LIFT_KERNEL_DIR) + "/" + Name + ".ptx";
  return {Path, readFile(Path)};
}

/// The kernels a code object defines (its .kd symbols), read independently of the backend.
inline std::set<std::string> kernelSymbols(llvm::ArrayRef<uint8_t> Bytes) {
  std::set<std::string> Names;
  auto Obj = llvm::object::ObjectFile::createELFObjectFile(llvm::MemoryBufferRef(
      llvm::StringRef(reinterpret_cast<const char *>(Bytes.data()), Bytes.size()), "co"));
  if (!Obj) {
    llvm::consumeError(Obj.takeError());
    return Names;
  }
  for (const llvm::object::SymbolRef &S : (*Obj)->symbols())
    if (auto N = S.getName(); N && N->ends_with(".kd"))
      Names.insert(N->drop_back(3).str());
    else if (!N)
      llvm::consumeError(N.takeError());
  return Names;
}

inline std::set<std::string> kernelSymbols(llvm::StringRef Bytes) {
  return kernelSymbols(
      llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(Bytes.data()), Bytes.size()));
}

/// A fresh directory under TMPDIR, removed after the test; REPTX_TEST_WORKER_FAULT cleared.
class TempDirTest : public ::testing::Test {
protected:
  void SetUp() override {
    ::unsetenv("REPTX_TEST_WORKER_FAULT");
    const char *T = std::getenv("TMPDIR");
    std::string Templ = std::string(T && *T ? T : "/tmp") + "/reptx-prewarm-test-XXXXXX";
    ASSERT_NE(::mkdtemp(Templ.data()), nullptr);
    Dir = Templ;
  }
  void TearDown() override {
    ::unsetenv("REPTX_TEST_WORKER_FAULT");
    std::error_code EC;
    std::filesystem::remove_all(Dir, EC);
  }
  std::string path(const std::string &Rel) const { return Dir + "/" + Rel; }
  std::string Dir;
};

/// Three kernels; tests make the worker fail on `bad` only.
inline backend::PtxModule threeKernels() {
  return {"three.ptx", R"(.version 8.0
.target sm_80
.address_size 64

.visible .entry first(.param .u64 p)
{
  .reg .b64 %rd<3>;
  .reg .b32 %r<2>;
  ld.param.u64 %rd1, [p];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, 1;
  st.global.u32 [%rd2], %r1;
  ret;
}

.visible .entry bad(.param .u64 p)
{
  .reg .b64 %rd<3>;
  .reg .b32 %r<2>;
  ld.param.u64 %rd1, [p];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, 2;
  st.global.u32 [%rd2], %r1;
  ret;
}

.visible .entry last(.param .u64 p)
{
  .reg .b64 %rd<3>;
  .reg .b32 %r<2>;
  ld.param.u64 %rd1, [p];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, 3;
  st.global.u32 [%rd2], %r1;
  ret;
}
)"};
}

} // namespace reptx::test
