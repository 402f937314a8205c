// The LLVM options the backend sets are process-wide, and lld's driver resets every LLVM option
// to its default at each link. These tests compile and link in one process, as corpus_compile and
// a compile worker that retries kernels one at a time do, and check that the options still hold
// for the compiles after a link.
#include "LiftTestUtil.h"

#include "reptx/backend/Backend.h"
#include "reptx/backend/Isolated.h"

#include "llvm/Support/CommandLine.h"

#include <gtest/gtest.h>

using namespace reptx;

namespace {

// The value of a boolean LLVM option, by name.
bool boolOption(llvm::StringRef Name) {
  auto &Options = llvm::cl::getRegisteredOptions();
  auto It = Options.find(Name);
  if (It == Options.end()) {
    ADD_FAILURE() << "no LLVM option " << Name.str();
    return false;
  }
  return static_cast<llvm::cl::opt<bool> *>(It->second)->getValue();
}

void compileAndLink() {
  backend::CompileOptions Opts;
  Opts.Arch = "gfx942";
  auto Text = lifttest::readKernelPtx("vector_add");
  ASSERT_TRUE(bool(Text)) << llvm::toString(Text.takeError());
  auto R = backend::compilePtx({"vector_add.ptx", *Text}, Opts);
  ASSERT_TRUE(bool(R)) << llvm::toString(R.takeError());
  ASSERT_EQ(R->Kernels.size(), 1u);
  EXPECT_FALSE(R->CodeObject.empty());
}

// AMDGPU's straight-line scalar passes stay off after links (before the fix, the first link
// turned them back on for every later compile of the process).
TEST(LlvmOptions, ScalarIrPassesStayOffAcrossLinks) {
  compileAndLink();
  EXPECT_FALSE(boolOption("amdgpu-scalar-ir-passes")) << "after the first link";
  compileAndLink();
  EXPECT_FALSE(boolOption("amdgpu-scalar-ir-passes")) << "after the second link";
}

// A tool's options (setLlvmOptions) hold across links too; an unknown one is an error that
// names it and leaves the backend's own options set.
TEST(LlvmOptions, ToolOptionsStayAcrossLinksAndBadOnesAreRejected) {
  ASSERT_FALSE(boolOption("disable-post-ra"));
  llvm::Error E = backend::setLlvmOptions({"-disable-post-ra"});
  ASSERT_FALSE(bool(E)) << llvm::toString(std::move(E));
  EXPECT_TRUE(boolOption("disable-post-ra"));
  compileAndLink();
  EXPECT_TRUE(boolOption("disable-post-ra")) << "after a link";
  EXPECT_FALSE(boolOption("amdgpu-scalar-ir-passes"));

  llvm::Error Bad = backend::setLlvmOptions({"-no-such-llvm-option-xyz"});
  ASSERT_TRUE(bool(Bad));
  EXPECT_NE(llvm::toString(std::move(Bad)).find("no-such-llvm-option-xyz"), std::string::npos);
  EXPECT_FALSE(boolOption("disable-post-ra")) << "a rejected list replaces the earlier one";
  EXPECT_FALSE(boolOption("amdgpu-scalar-ir-passes"));
}

} // namespace
