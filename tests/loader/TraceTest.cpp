// REPTX_LOG=trace (loader/lib/Trace.h): the formatting of arguments and results, and the
// REPTX_TRACE mechanism (the entry point's body runs once, one line per call made from outside,
// none for the calls a traced call makes in turn, nothing with tracing off).
#include "Trace.h"

#include <gtest/gtest.h>

#include <string>

using namespace reptx::loader;
using namespace reptx::loader::trace;

namespace {

TEST(Trace, FormatsPointersSizesAndDeviceAddresses) {
  auto *Ptr = reinterpret_cast<CUdeviceptr *>(uintptr_t(0x7ffd4a10c2d8));
  EXPECT_EQ(formatCall("cuMemAlloc_v2", "Ptr, Bytes", Ptr, size_t(4096)),
            "cuMemAlloc_v2(Ptr=0x7ffd4a10c2d8, Bytes=4096)");
  // A CUdeviceptr is an address: hex; a size_t and an unsigned int are counts: decimal.
  EXPECT_EQ(formatCall("cuMemsetD32_v2", "Dst, Value, N", CUdeviceptr(0x7f0000001000ULL), 0xffu,
                       size_t(0)),
            "cuMemsetD32_v2(Dst=0x7f0000001000, Value=255, N=0)");
  void *Null = nullptr;
  CUstream Stream = nullptr;
  EXPECT_EQ(formatCall("f", "P, S", Null, Stream), "f(P=NULL, S=NULL)");
  EXPECT_EQ(formatCall("cuCtxSynchronize", ""), "cuCtxSynchronize()");
}

TEST(Trace, FormatsStringsEnumsAndResults) {
  const char *Name = "_Z6vecaddPfS_\"x\"\n";
  const char *None = nullptr;
  EXPECT_EQ(formatCall("cuModuleGetFunction", "Name, Other", Name, None),
            "cuModuleGetFunction(Name=\"_Z6vecaddPfS_\\\"x\\\"\\x0a\", Other=NULL)");
  std::string Long(100, 'a');
  const char *LongName = Long.c_str();
  EXPECT_EQ(formatCall("g", "S", LongName), "g(S=\"" + std::string(96, 'a') + "\"...)");
  // Enumerations and signed integers in decimal, bool by name, structures by value elided.
  CUfunction_attribute Attr = CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK; // 0
  CUmemLocation Location{};
  EXPECT_EQ(formatCall("h", "Attr, Dev, Flag, Location", Attr, -5, true, Location),
            "h(Attr=0, Dev=-5, Flag=true, Location={...})");
  std::string Out;
  appendValue(Out, CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(Out, "CUDA_ERROR_INVALID_VALUE");
  Out.clear();
  appendValue(Out, CUresult(9)); // no name in cuda.h (cudaErrorInvalidConfiguration's value)
  EXPECT_EQ(Out, "CUresult(9)");
  Out.clear();
  appendValue(Out, CUDA_SUCCESS);
  EXPECT_EQ(Out, "CUDA_SUCCESS");
}

int InnerCalls = 0;
int OuterCalls = 0;

CUresult inner(int X) {
  REPTX_TRACE(inner, X);
  ++InnerCalls;
  return X < 0 ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

CUresult outer(const char *Name, CUdeviceptr Dst) {
  REPTX_TRACE(outer, Name, Dst);
  ++OuterCalls;
  return inner(-1);
}

std::string tracedOutput(bool Enabled) {
  bool Saved = TraceEnabled;
  TraceEnabled = Enabled;
  setLogLevel(spdlog::level::trace);
  testing::internal::CaptureStderr();
  CUresult R = outer("k", 0x1000);
  EXPECT_EQ(inner(3), CUDA_SUCCESS);
  std::string Text = testing::internal::GetCapturedStderr();
  TraceEnabled = Saved;
  EXPECT_EQ(R, CUDA_ERROR_INVALID_VALUE);
  return Text;
}

TEST(Trace, OneLinePerOutsideCallAndNothingWhenOff) {
  InnerCalls = OuterCalls = 0;
  EXPECT_EQ(tracedOutput(true),
            "[reptx trace] outer(Name=\"k\", Dst=0x1000) -> CUDA_ERROR_INVALID_VALUE\n"
            "[reptx trace] inner(X=3) -> CUDA_SUCCESS\n");
  EXPECT_EQ(OuterCalls, 1); // the body ran once although the entry point called itself
  EXPECT_EQ(InnerCalls, 2);
  EXPECT_FALSE(InTracedCall);
  InnerCalls = OuterCalls = 0;
  EXPECT_EQ(tracedOutput(false), "");
  EXPECT_EQ(OuterCalls, 1);
  EXPECT_EQ(InnerCalls, 2);
}

} // namespace
