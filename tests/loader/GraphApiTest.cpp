// The structure side of CUDA graphs through the driver API (CUDA Driver API, "Graph Management"):
// the list queries' convention, edges added and removed, destroyed nodes, cycles refused at
// instantiation, clones, memset/memcpy nodes and the DOT dump, on the emulator. Expected values
// are the documented semantics of each entry point; tests/loader/programs/graphs.cu covers
// capture and launches through cudart.
#include "CudaApi.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

class GraphApi : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    setenv("REPTX_BACKEND", "emulator", 1);
    ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
    ASSERT_EQ(cuDevicePrimaryCtxRetain(&Ctx, 0), CUDA_SUCCESS);
  }
  static void TearDownTestSuite() { cuDevicePrimaryCtxRelease_v2(0); }
  void SetUp() override {
    ASSERT_EQ(cuCtxSetCurrent(Ctx), CUDA_SUCCESS);
    ASSERT_EQ(cuGraphCreate(&G, 0), CUDA_SUCCESS);
  }
  void TearDown() override { EXPECT_EQ(cuGraphDestroy(G), CUDA_SUCCESS); }

  CUgraphNode empty(std::vector<CUgraphNode> Deps = {}) {
    CUgraphNode N = nullptr;
    EXPECT_EQ(cuGraphAddEmptyNode(&N, G, Deps.data(), Deps.size()), CUDA_SUCCESS);
    return N;
  }

  static CUcontext Ctx;
  CUgraph G = nullptr;
};
CUcontext GraphApi::Ctx = nullptr;

TEST_F(GraphApi, ListQueriesCountFillAndClearTheRest) {
  CUgraphNode A = empty(), B = empty({A}), C = empty({A});
  size_t N = 0;
  ASSERT_EQ(cuGraphGetNodes(G, nullptr, &N), CUDA_SUCCESS);
  EXPECT_EQ(N, 3u);
  // A larger array: every node, the rest null, the count of nodes written.
  CUgraphNode Nodes[5];
  std::fill(std::begin(Nodes), std::end(Nodes), reinterpret_cast<CUgraphNode>(uintptr_t(1)));
  N = 5;
  ASSERT_EQ(cuGraphGetNodes(G, Nodes, &N), CUDA_SUCCESS);
  EXPECT_EQ(N, 3u);
  EXPECT_EQ(Nodes[0], A);
  EXPECT_EQ(Nodes[1], B);
  EXPECT_EQ(Nodes[2], C);
  EXPECT_EQ(Nodes[3], nullptr);
  EXPECT_EQ(Nodes[4], nullptr);
  // A smaller one: as many as fit.
  N = 2;
  ASSERT_EQ(cuGraphGetNodes(G, Nodes, &N), CUDA_SUCCESS);
  EXPECT_EQ(N, 2u);
  EXPECT_EQ(cuGraphGetNodes(G, Nodes, nullptr), CUDA_ERROR_INVALID_VALUE);

  CUgraphNode From[2], To[2];
  N = 2;
  ASSERT_EQ(cuGraphGetEdges_v2(G, From, To, nullptr, &N), CUDA_SUCCESS);
  EXPECT_EQ(N, 2u);
  EXPECT_EQ(From[0], A);
  EXPECT_EQ(To[0], B);
  EXPECT_EQ(From[1], A);
  EXPECT_EQ(To[1], C);
  CUgraphNode Dependents[2];
  N = 2;
  ASSERT_EQ(cuGraphNodeGetDependentNodes_v2(A, Dependents, nullptr, &N), CUDA_SUCCESS);
  EXPECT_EQ(N, 2u);
  EXPECT_EQ(Dependents[0], B);
  EXPECT_EQ(Dependents[1], C);
}

TEST_F(GraphApi, EdgesAddedRemovedAndDroppedWithTheirNodes) {
  CUgraphNode A = empty(), B = empty(), C = empty({A});
  // A repeated edge, an edge that is not there, a node of another graph: invalid.
  EXPECT_EQ(cuGraphAddDependencies_v2(G, &A, &C, nullptr, 1), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuGraphRemoveDependencies_v2(G, &B, &C, nullptr, 1), CUDA_ERROR_INVALID_VALUE);
  CUgraph Other;
  ASSERT_EQ(cuGraphCreate(&Other, 0), CUDA_SUCCESS);
  CUgraphNode Foreign;
  ASSERT_EQ(cuGraphAddEmptyNode(&Foreign, Other, nullptr, 0), CUDA_SUCCESS);
  EXPECT_EQ(cuGraphAddDependencies_v2(G, &Foreign, &C, nullptr, 1), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuGraphAddEmptyNode(&Foreign, G, &Foreign, 1), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuGraphDestroy(Other), CUDA_SUCCESS);

  ASSERT_EQ(cuGraphAddDependencies_v2(G, &B, &C, nullptr, 1), CUDA_SUCCESS);
  size_t N = 0;
  ASSERT_EQ(cuGraphNodeGetDependencies_v2(C, nullptr, nullptr, &N), CUDA_SUCCESS);
  EXPECT_EQ(N, 2u);
  ASSERT_EQ(cuGraphRemoveDependencies_v2(G, &A, &C, nullptr, 1), CUDA_SUCCESS);
  CUgraphNode Dep = nullptr;
  N = 1;
  ASSERT_EQ(cuGraphNodeGetDependencies_v2(C, &Dep, nullptr, &N), CUDA_SUCCESS);
  EXPECT_EQ(N, 1u);
  EXPECT_EQ(Dep, B);
  // Destroying B drops its edge: C becomes a root, beside A.
  ASSERT_EQ(cuGraphDestroyNode(B), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphGetRootNodes(G, nullptr, &N), CUDA_SUCCESS);
  EXPECT_EQ(N, 2u);
  ASSERT_EQ(cuGraphGetEdges_v2(G, nullptr, nullptr, nullptr, &N), CUDA_SUCCESS);
  EXPECT_EQ(N, 0u);
}

TEST_F(GraphApi, ACycleIsRefusedAtInstantiation) {
  CUgraphNode A = empty(), B = empty({A}), C = empty({B});
  ASSERT_EQ(cuGraphAddDependencies_v2(G, &C, &A, nullptr, 1), CUDA_SUCCESS);
  CUgraphExec E = nullptr;
  CUDA_GRAPH_INSTANTIATE_PARAMS P = {};
  EXPECT_EQ(cuGraphInstantiateWithParams(&E, G, &P), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(P.result_out, CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE);
  ASSERT_EQ(cuGraphRemoveDependencies_v2(G, &C, &A, nullptr, 1), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphInstantiateWithParams(&E, G, &P), CUDA_SUCCESS);
  EXPECT_EQ(P.result_out, CUDA_GRAPH_INSTANTIATE_SUCCESS);
  ASSERT_EQ(cuGraphLaunch(E, nullptr), CUDA_SUCCESS);
  EXPECT_EQ(cuGraphExecDestroy(E), CUDA_SUCCESS);
}

TEST_F(GraphApi, MemsetAndCopyNodesRunInDependencyOrder) {
  CUdeviceptr D = 0;
  ASSERT_EQ(cuMemAlloc_v2(&D, 64 * 4), CUDA_SUCCESS);
  // Rows 0..3 of 16 words each, pitch 64 bytes: the fill sets 8 words of each row to 0x01020304,
  // then the copy brings the whole buffer to the host.
  ASSERT_EQ(cuMemsetD8_v2(D, 0xee, 64 * 4), CUDA_SUCCESS);
  CUDA_MEMSET_NODE_PARAMS Fill = {D, 64, 0x01020304u, 4, 8, 4};
  CUgraphNode Set, Copy;
  ASSERT_EQ(cuGraphAddMemsetNode(&Set, G, nullptr, 0, &Fill, Ctx), CUDA_SUCCESS);
  std::vector<uint32_t> Host(64, 0);
  CUDA_MEMCPY3D P = {};
  P.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  P.srcDevice = D;
  P.dstMemoryType = CU_MEMORYTYPE_HOST;
  P.dstHost = Host.data();
  P.WidthInBytes = 64 * 4;
  P.Height = P.Depth = 1;
  // Added before the fill it depends on, as an edge may be.
  ASSERT_EQ(cuGraphAddMemcpyNode(&Copy, G, nullptr, 0, &P, Ctx), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphAddDependencies_v2(G, &Set, &Copy, nullptr, 1), CUDA_SUCCESS);
  CUgraphExec E;
  ASSERT_EQ(cuGraphInstantiateWithFlags(&E, G, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphLaunch(E, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  for (int I = 0; I < 64; ++I)
    EXPECT_EQ(Host[I], I % 16 < 8 ? 0x01020304u : 0xeeeeeeeeu) << I;
  // A memset node of another element size is refused.
  Fill.elementSize = 3;
  EXPECT_EQ(cuGraphExecMemsetNodeSetParams(E, Set, &Fill, Ctx), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuGraphExecDestroy(E), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFree_v2(D), CUDA_SUCCESS);
}

TEST_F(GraphApi, ClonesMapTheirNodesAndDotPrintShowsEdges) {
  CUgraphNode A = empty(), B = empty({A});
  CUgraph Clone;
  ASSERT_EQ(cuGraphClone(&Clone, G), CUDA_SUCCESS);
  CUgraphNode InClone = nullptr;
  ASSERT_EQ(cuGraphNodeFindInClone(&InClone, B, Clone), CUDA_SUCCESS);
  EXPECT_NE(InClone, B);
  CUgraphNode Dep = nullptr;
  size_t N = 1;
  ASSERT_EQ(cuGraphNodeGetDependencies_v2(InClone, &Dep, nullptr, &N), CUDA_SUCCESS);
  CUgraphNode CloneOfA = nullptr;
  ASSERT_EQ(cuGraphNodeFindInClone(&CloneOfA, A, Clone), CUDA_SUCCESS);
  EXPECT_EQ(Dep, CloneOfA);
  EXPECT_EQ(cuGraphNodeFindInClone(&InClone, B, G), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuGraphDestroy(Clone), CUDA_SUCCESS);

  std::string Path = "graph_api_test_" + std::to_string(getpid()) + ".dot";
  ASSERT_EQ(cuGraphDebugDotPrint(G, Path.c_str(), 0), CUDA_SUCCESS);
  std::ifstream In(Path);
  std::stringstream Text;
  Text << In.rdbuf();
  std::remove(Path.c_str());
  EXPECT_NE(Text.str().find("n0 -> n1;"), std::string::npos) << Text.str();
}

} // namespace
