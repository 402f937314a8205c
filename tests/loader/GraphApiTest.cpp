// The structure side of CUDA graphs through the driver API (CUDA Driver API, "Graph Management"):
// the list queries' convention, edges added and removed, destroyed nodes, cycles refused at
// instantiation, clones, memset/memcpy nodes, the DOT dump, conditional nodes driven by kernels,
// memory nodes made node by node, kernel node attributes, programmatic edges, batch memory
// operation nodes and child graphs moved into their node, on the emulator. Expected values are the
// documented semantics of each entry point; tests/loader/programs/graphs.cu covers capture and
// launches through cudart.
#include "CudaApi.h"
#include "PrimaryContextTest.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

class GraphApi : public reptx::loader::test::PrimaryContextTest {
protected:
  void SetUp() override {
    PrimaryContextTest::SetUp();
    ASSERT_EQ(cuGraphCreate(&G, 0), CUDA_SUCCESS);
  }
  void TearDown() override { EXPECT_EQ(cuGraphDestroy(G), CUDA_SUCCESS); }

  CUgraphNode empty(std::vector<CUgraphNode> Deps = {}) {
    CUgraphNode N = nullptr;
    EXPECT_EQ(cuGraphAddEmptyNode(&N, G, Deps.data(), Deps.size()), CUDA_SUCCESS);
    return N;
  }

  CUgraph G = nullptr;
};

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

// Kernels that drive conditional nodes through cudaGraphSetConditional, as nvcc emits the call:
// `step` counts *counter up and keeps the condition set while it is below limit; `choose` sets
// the condition to *value.
const char *ConditionPtx = R"(
.version 8.0
.target sm_80
.address_size 64
.extern .func cudaGraphSetConditional(.param .b64 handle, .param .b32 value);
.visible .entry step(.param .u64 handle, .param .u64 counter, .param .u32 limit)
{
  .reg .pred %p;
  .reg .b32 %r<5>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [handle];
  ld.param.u64 %rd2, [counter];
  ld.param.u32 %r1, [limit];
  ld.global.u32 %r2, [%rd2];
  add.s32 %r2, %r2, 1;
  st.global.u32 [%rd2], %r2;
  setp.lt.u32 %p, %r2, %r1;
  selp.u32 %r3, 1, 0, %p;
  {
  .param .b64 param0;
  st.param.b64 [param0+0], %rd1;
  .param .b32 param1;
  st.param.b32 [param1+0], %r3;
  call.uni cudaGraphSetConditional, (param0, param1);
  }
  ret;
}
.visible .entry choose(.param .u64 handle, .param .u64 value)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [handle];
  ld.param.u64 %rd2, [value];
  ld.global.u32 %r1, [%rd2];
  {
  .param .b64 param0;
  st.param.b64 [param0+0], %rd1;
  .param .b32 param1;
  st.param.b32 [param1+0], %r1;
  call.uni cudaGraphSetConditional, (param0, param1);
  }
  ret;
}
)";

// A kernel node of one thread through cuGraphAddNode_v2, after Deps through edges with the data
// Edges gives (null: full dependencies); Want is the result expected.
CUgraphNode kernelNode(CUgraph G, CUfunction F, void **Params, std::vector<CUgraphNode> Deps = {},
                       const CUgraphEdgeData *Edges = nullptr, CUresult Want = CUDA_SUCCESS) {
  CUgraphNodeParams P = {};
  P.type = CU_GRAPH_NODE_TYPE_KERNEL;
  P.kernel.func = F;
  P.kernel.gridDimX = P.kernel.gridDimY = P.kernel.gridDimZ = 1;
  P.kernel.blockDimX = P.kernel.blockDimY = P.kernel.blockDimZ = 1;
  P.kernel.kernelParams = Params;
  CUgraphNode N = nullptr;
  EXPECT_EQ(cuGraphAddNode_v2(&N, G, Deps.data(), Edges, Deps.size(), &P), Want);
  return N;
}

// A 32-bit memset node of one word through cuGraphAddNode.
CUgraphNode fillNode(CUgraph G, CUdeviceptr D, uint32_t V, CUcontext Ctx) {
  CUgraphNodeParams P = {};
  P.type = CU_GRAPH_NODE_TYPE_MEMSET;
  P.memset = {D, 4, V, 4, 1, 1, Ctx};
  CUgraphNode N = nullptr;
  EXPECT_EQ(cuGraphAddNode(&N, G, nullptr, 0, &P), CUDA_SUCCESS);
  return N;
}

// WHILE, IF with an else and SWITCH nodes (CUDA Driver API, cuGraphAddNode and
// cuGraphConditionalHandleCreate): bodies made by the node and filled afterwards, conditions set
// by kernels of the graph and, with CU_GRAPH_COND_ASSIGN_DEFAULT, reset at each launch; new
// parameters through cuGraphNodeSetParams and cuGraphExecNodeSetParams.
TEST_F(GraphApi, ConditionalNodesLoopAndChooseBodiesByKernelSetConditions) {
  CUmodule M;
  ASSERT_EQ(cuModuleLoadData(&M, ConditionPtx), CUDA_SUCCESS);
  CUfunction Step, Choose;
  ASSERT_EQ(cuModuleGetFunction(&Step, M, "step"), CUDA_SUCCESS);
  ASSERT_EQ(cuModuleGetFunction(&Choose, M, "choose"), CUDA_SUCCESS);
  CUdeviceptr Words;
  ASSERT_EQ(cuMemAlloc_v2(&Words, 4 * 4), CUDA_SUCCESS); // counter, value, if-result, switch
  ASSERT_EQ(cuMemsetD32_v2(Words, 0, 4), CUDA_SUCCESS);
  CUdeviceptr Counter = Words, Value = Words + 4, IfOut = Words + 8, SwitchOut = Words + 12;

  // while (cond) step(): the condition starts at 1 each launch; step clears it at limit 5.
  CUgraphConditionalHandle Loop, Branch, Pick;
  ASSERT_EQ(cuGraphConditionalHandleCreate(&Loop, G, Ctx, 1, CU_GRAPH_COND_ASSIGN_DEFAULT),
            CUDA_SUCCESS);
  EXPECT_EQ(cuGraphConditionalHandleCreate(&Branch, G, Ctx, 0, 2), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuGraphConditionalHandleCreate(&Branch, G, Ctx, 0, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphConditionalHandleCreate(&Pick, G, Ctx, 0, 0), CUDA_SUCCESS);
  CUgraphNodeParams W = {};
  W.type = CU_GRAPH_NODE_TYPE_CONDITIONAL;
  W.conditional = {Loop, CU_GRAPH_COND_TYPE_WHILE, 1, nullptr, Ctx};
  CUgraphNode WhileNode;
  ASSERT_EQ(cuGraphAddNode_v2(&WhileNode, G, nullptr, nullptr, 0, &W), CUDA_SUCCESS);
  ASSERT_NE(W.conditional.phGraph_out, nullptr);
  CUgraph LoopBody = W.conditional.phGraph_out[0];
  EXPECT_EQ(cuGraphDestroy(LoopBody), CUDA_ERROR_INVALID_VALUE); // the node's own
  uint32_t Limit = 5;
  void *StepParams[] = {&Loop, &Counter, &Limit};
  kernelNode(LoopBody, Step, StepParams);
  CUgraphNodeType Type;
  ASSERT_EQ(cuGraphNodeGetType(WhileNode, &Type), CUDA_SUCCESS);
  EXPECT_EQ(Type, CU_GRAPH_NODE_TYPE_CONDITIONAL);

  // After the loop: choose(Branch, value); if (Branch) IfOut = 11 else IfOut = 22.
  void *BranchParams[] = {&Branch, &Value};
  CUgraphNode SetBranch = kernelNode(G, Choose, BranchParams, {WhileNode});
  CUgraphNodeParams I = {};
  I.type = CU_GRAPH_NODE_TYPE_CONDITIONAL;
  I.conditional = {Branch, CU_GRAPH_COND_TYPE_IF, 2, nullptr, Ctx};
  CUgraphNode IfNode;
  ASSERT_EQ(cuGraphAddNode(&IfNode, G, &SetBranch, 1, &I), CUDA_SUCCESS);
  fillNode(I.conditional.phGraph_out[0], IfOut, 11, Ctx);
  fillNode(I.conditional.phGraph_out[1], IfOut, 22, Ctx);

  // Then choose(Pick, value); switch (Pick) { case 0..2: SwitchOut = 100 + case }.
  void *PickParams[] = {&Pick, &Value};
  CUgraphNode SetPick = kernelNode(G, Choose, PickParams, {IfNode});
  CUgraphNodeParams S = {};
  S.type = CU_GRAPH_NODE_TYPE_CONDITIONAL;
  S.conditional = {Pick, CU_GRAPH_COND_TYPE_SWITCH, 3, nullptr, Ctx};
  CUgraphNode SwitchNode;
  ASSERT_EQ(cuGraphAddNode(&SwitchNode, G, &SetPick, 1, &S), CUDA_SUCCESS);
  for (uint32_t K = 0; K < 3; ++K)
    fillNode(S.conditional.phGraph_out[K], SwitchOut, 100 + K, Ctx);

  // Refused: a WHILE with two bodies, a handle made for another graph.
  CUgraphNodeParams Bad = W;
  Bad.conditional.size = 2;
  CUgraphNode Refused;
  EXPECT_EQ(cuGraphAddNode(&Refused, G, nullptr, 0, &Bad), CUDA_ERROR_INVALID_VALUE);
  Bad = W;
  EXPECT_EQ(cuGraphAddNode(&Refused, LoopBody, nullptr, 0, &Bad), CUDA_ERROR_INVALID_VALUE);

  CUgraphExec E;
  ASSERT_EQ(cuGraphInstantiateWithFlags(&E, G, 0), CUDA_SUCCESS);
  auto Read = [&] {
    std::vector<uint32_t> H(4);
    EXPECT_EQ(cuMemcpyDtoH_v2(H.data(), Words, 16), CUDA_SUCCESS);
    return H;
  };
  // value 0: five steps, the else branch, case 0.
  ASSERT_EQ(cuGraphLaunch(E, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  EXPECT_EQ(Read(), (std::vector<uint32_t>{5, 0, 22, 100}));
  // value 2, counter left at 5: the loop's condition is 1 again, one step; the if branch; case 2.
  uint32_t Two = 2;
  ASSERT_EQ(cuMemcpyHtoD_v2(Value, &Two, 4), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphLaunch(E, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  EXPECT_EQ(Read(), (std::vector<uint32_t>{6, 2, 11, 102}));
  // value 7: no case matches, the switch result stays.
  uint32_t Seven = 7, Zero = 0;
  ASSERT_EQ(cuMemcpyHtoD_v2(Value, &Seven, 4), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyHtoD_v2(Counter, &Zero, 4), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphLaunch(E, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  EXPECT_EQ(Read(), (std::vector<uint32_t>{5, 7, 11, 102}));
  // A clone runs the same way.
  CUgraph Clone;
  ASSERT_EQ(cuGraphClone(&Clone, G), CUDA_SUCCESS);
  CUgraphExec E2;
  ASSERT_EQ(cuGraphInstantiateWithFlags(&E2, Clone, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD32_v2(Words, 0, 4), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphLaunch(E2, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  EXPECT_EQ(Read(), (std::vector<uint32_t>{5, 0, 22, 100}));
  EXPECT_EQ(cuGraphExecDestroy(E2), CUDA_SUCCESS);
  EXPECT_EQ(cuGraphDestroy(Clone), CUDA_SUCCESS);

  // New parameters through the generic entry points: the executable's switch reads a word that
  // holds 1 (case 1); the graph's if reads it too, which a new executable sees.
  CUdeviceptr One;
  ASSERT_EQ(cuMemAlloc_v2(&One, 4), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD32_v2(One, 1, 1), CUDA_SUCCESS);
  CUgraphNodeParams K = {};
  K.type = CU_GRAPH_NODE_TYPE_KERNEL;
  K.kernel.func = Choose;
  K.kernel.gridDimX = K.kernel.gridDimY = K.kernel.gridDimZ = 1;
  K.kernel.blockDimX = K.kernel.blockDimY = K.kernel.blockDimZ = 1;
  void *PickOne[] = {&Pick, &One};
  K.kernel.kernelParams = PickOne;
  ASSERT_EQ(cuGraphExecNodeSetParams(E, SetPick, &K), CUDA_SUCCESS);
  EXPECT_EQ(cuGraphExecNodeSetParams(E, IfNode, &K), CUDA_ERROR_INVALID_VALUE); // not a kernel
  EXPECT_EQ(cuGraphExecNodeSetParams(E, IfNode, &I), CUDA_ERROR_NOT_SUPPORTED);
  ASSERT_EQ(cuMemsetD32_v2(Words, 0, 4), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphLaunch(E, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  EXPECT_EQ(Read(), (std::vector<uint32_t>{5, 0, 22, 101}));
  void *BranchOne[] = {&Branch, &One};
  K.kernel.kernelParams = BranchOne;
  ASSERT_EQ(cuGraphNodeSetParams(SetBranch, &K), CUDA_SUCCESS);
  CUgraphExec E3;
  ASSERT_EQ(cuGraphInstantiateWithFlags(&E3, G, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD32_v2(Words, 0, 4), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphLaunch(E3, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  EXPECT_EQ(Read(), (std::vector<uint32_t>{5, 0, 11, 100}));
  EXPECT_EQ(cuGraphExecDestroy(E3), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFree_v2(One), CUDA_SUCCESS);
  EXPECT_EQ(cuGraphExecDestroy(E), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFree_v2(Words), CUDA_SUCCESS);
  EXPECT_EQ(cuModuleUnload(M), CUDA_SUCCESS);
}

// Memory nodes made node by node (cuGraphAddMemAllocNode, cuGraphAddNode of a mem free node):
// the allocation exists once the node is made, a fill and a copy use it, and the executable runs
// them at every launch; its parameters read back; a pool on the host is refused.
TEST_F(GraphApi, MemoryAllocAndFreeNodesMadeNodeByNode) {
  CUDA_MEM_ALLOC_NODE_PARAMS A = {};
  A.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  A.poolProps.location = {CU_MEM_LOCATION_TYPE_DEVICE, 0};
  A.bytesize = 256;
  CUgraphNode Alloc, Fill, Copy, Free;
  ASSERT_EQ(cuGraphAddMemAllocNode(&Alloc, G, nullptr, 0, &A), CUDA_SUCCESS);
  ASSERT_NE(A.dptr, 0u);
  CUDA_MEM_ALLOC_NODE_PARAMS Back = {};
  ASSERT_EQ(cuGraphMemAllocNodeGetParams(Alloc, &Back), CUDA_SUCCESS);
  EXPECT_EQ(Back.bytesize, 256u);
  EXPECT_EQ(Back.dptr, A.dptr);
  EXPECT_EQ(Back.poolProps.location.type, CU_MEM_LOCATION_TYPE_DEVICE);
  CUDA_MEMSET_NODE_PARAMS F = {A.dptr, 256, 0x5a5a5a5au, 4, 64, 1};
  ASSERT_EQ(cuGraphAddMemsetNode(&Fill, G, &Alloc, 1, &F, Ctx), CUDA_SUCCESS);
  std::vector<uint32_t> Host(64, 0);
  CUDA_MEMCPY3D P = {};
  P.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  P.srcDevice = A.dptr;
  P.dstMemoryType = CU_MEMORYTYPE_HOST;
  P.dstHost = Host.data();
  P.WidthInBytes = 256;
  P.Height = P.Depth = 1;
  ASSERT_EQ(cuGraphAddMemcpyNode(&Copy, G, &Fill, 1, &P, Ctx), CUDA_SUCCESS);
  CUgraphNodeParams FreeParams = {};
  FreeParams.type = CU_GRAPH_NODE_TYPE_MEM_FREE;
  FreeParams.free.dptr = A.dptr;
  ASSERT_EQ(cuGraphAddNode(&Free, G, &Copy, 1, &FreeParams), CUDA_SUCCESS);
  CUdeviceptr Freed = 0;
  ASSERT_EQ(cuGraphMemFreeNodeGetParams(Free, &Freed), CUDA_SUCCESS);
  EXPECT_EQ(Freed, A.dptr);
  CUgraphExec E;
  ASSERT_EQ(cuGraphInstantiateWithFlags(&E, G, 0), CUDA_SUCCESS);
  for (int Launch = 0; Launch < 2; ++Launch) {
    std::fill(Host.begin(), Host.end(), 0u);
    ASSERT_EQ(cuGraphLaunch(E, nullptr), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
    EXPECT_EQ(Host, std::vector<uint32_t>(64, 0x5a5a5a5au)) << "launch " << Launch;
  }
  EXPECT_EQ(cuGraphExecDestroy(E), CUDA_SUCCESS);
  A.poolProps.location.type = CUmemLocationType(2); // the host
  CUgraphNode Refused;
  EXPECT_EQ(cuGraphAddMemAllocNode(&Refused, G, nullptr, 0, &A), CUDA_ERROR_INVALID_VALUE);
}

// ConditionPtx's `step` counting its runs in a device word (its condition handle, made for the
// graph, unused: the limit is never reached).
struct StepCounter {
  CUmodule M = nullptr;
  CUfunction Step = nullptr;
  CUdeviceptr Counter = 0;
  CUgraphConditionalHandle Unused = 0;
  uint32_t Limit = 100;
  void *Params[3] = {&Unused, &Counter, &Limit};
  StepCounter(CUgraph G, CUcontext Ctx) {
    EXPECT_EQ(cuModuleLoadData(&M, ConditionPtx), CUDA_SUCCESS);
    EXPECT_EQ(cuModuleGetFunction(&Step, M, "step"), CUDA_SUCCESS);
    EXPECT_EQ(cuMemAlloc_v2(&Counter, 4), CUDA_SUCCESS);
    EXPECT_EQ(cuMemsetD32_v2(Counter, 0, 1), CUDA_SUCCESS);
    EXPECT_EQ(cuGraphConditionalHandleCreate(&Unused, G, Ctx, 0, 0), CUDA_SUCCESS);
  }
  ~StepCounter() {
    EXPECT_EQ(cuMemFree_v2(Counter), CUDA_SUCCESS);
    EXPECT_EQ(cuModuleUnload(M), CUDA_SUCCESS);
  }
  uint32_t count() const {
    uint32_t N = 0;
    EXPECT_EQ(cuMemcpyDtoH_v2(&N, Counter, 4), CUDA_SUCCESS);
    return N;
  }
};

// A kernel node's attributes: cooperative (kept across new parameters, and launched so), a
// priority kept and copied to another node; attributes a kernel node does not have, and nodes
// that are not kernels, are refused.
TEST_F(GraphApi, KernelNodeAttributesAreKeptCopiedAndLaunched) {
  StepCounter K(G, Ctx);
  CUfunction Step = K.Step;
  void **Params = K.Params;
  CUgraphNode A = kernelNode(G, Step, Params), B = kernelNode(G, Step, Params, {A});
  CUkernelNodeAttrValue V = {};
  ASSERT_EQ(cuGraphKernelNodeGetAttribute(A, CU_LAUNCH_ATTRIBUTE_COOPERATIVE, &V), CUDA_SUCCESS);
  EXPECT_EQ(V.cooperative, 0);
  V.cooperative = 1;
  ASSERT_EQ(cuGraphKernelNodeSetAttribute(A, CU_LAUNCH_ATTRIBUTE_COOPERATIVE, &V), CUDA_SUCCESS);
  V = {};
  V.priority = 3;
  ASSERT_EQ(cuGraphKernelNodeSetAttribute(A, CU_LAUNCH_ATTRIBUTE_PRIORITY, &V), CUDA_SUCCESS);
  CUDA_KERNEL_NODE_PARAMS_v2 P = {};
  ASSERT_EQ(cuGraphKernelNodeGetParams_v2(A, &P), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphKernelNodeSetParams_v2(A, &P), CUDA_SUCCESS);
  V = {};
  ASSERT_EQ(cuGraphKernelNodeGetAttribute(A, CU_LAUNCH_ATTRIBUTE_COOPERATIVE, &V), CUDA_SUCCESS);
  EXPECT_EQ(V.cooperative, 1);
  ASSERT_EQ(cuGraphKernelNodeCopyAttributes(B, A), CUDA_SUCCESS);
  V = {};
  ASSERT_EQ(cuGraphKernelNodeGetAttribute(B, CU_LAUNCH_ATTRIBUTE_PRIORITY, &V), CUDA_SUCCESS);
  EXPECT_EQ(V.priority, 3);
  EXPECT_EQ(cuGraphKernelNodeGetAttribute(A, CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY, &V),
            CUDA_ERROR_INVALID_VALUE);
  CUgraphNode Empty = empty();
  EXPECT_EQ(cuGraphKernelNodeGetAttribute(Empty, CU_LAUNCH_ATTRIBUTE_PRIORITY, &V),
            CUDA_ERROR_INVALID_VALUE);
  CUgraphExec E;
  ASSERT_EQ(cuGraphInstantiateWithFlags(&E, G, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphLaunch(E, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  EXPECT_EQ(K.count(), 2u);
  EXPECT_EQ(cuGraphExecDestroy(E), CUDA_SUCCESS);
}

// Programmatic dependent launch between kernel nodes (cuda.h, CUgraphEdgeData and
// CUgraphDependencyType): edges with data made, refused where cuda.h rules them out, read back,
// removed only with their data, cloned, compared by cuGraphExecUpdate; a captured launch with
// programmatic stream serialization gets programmatic edges from the kernels before it (the CUDA
// Programming Guide, "Programmatic Dependent Launch", use in graphs), a launch's programmatic
// event forks a capture, and a capture's dependencies carry edge data. Every node runs after all
// the nodes before it, a schedule such edges allow: the counter sees each kernel once.
TEST_F(GraphApi, ProgrammaticEdgesBetweenKernelNodes) {
  StepCounter K(G, Ctx);
  CUfunction Step = K.Step;
  void **Params = K.Params;
  const CUgraphEdgeData Programmatic = {
      CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC, 0, CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC, {}};
  const CUgraphEdgeData LaunchOrder = {
      CU_GRAPH_KERNEL_NODE_PORT_LAUNCH_ORDER, 0, CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC, {}};
  auto Kernel = [&](std::vector<CUgraphNode> Deps, const CUgraphEdgeData *Edges, CUresult Want) {
    return kernelNode(G, Step, Params, std::move(Deps), Edges, Want);
  };
  CUgraphNode A = Kernel({}, nullptr, CUDA_SUCCESS);
  CUgraphNode B = Kernel({A}, &Programmatic, CUDA_SUCCESS);
  // Refused: a programmatic edge into a memset node, a port of a node that is not a kernel, a
  // downstream port, the PROGRAMMATIC port on an ordinary edge, the DEFAULT port on a
  // programmatic one, reserved bytes.
  CUgraphNodeParams FillParams = {};
  FillParams.type = CU_GRAPH_NODE_TYPE_MEMSET;
  FillParams.memset = {K.Counter, 4, 0, 4, 1, 1, Ctx};
  CUgraphNode Refused = nullptr;
  EXPECT_EQ(cuGraphAddNode_v2(&Refused, G, &A, &Programmatic, 1, &FillParams),
            CUDA_ERROR_INVALID_VALUE);
  CUgraphNode Empty = empty();
  CUgraphEdgeData Bad = LaunchOrder;
  Bad.type = CU_GRAPH_DEPENDENCY_TYPE_DEFAULT;
  Kernel({Empty}, &Bad, CUDA_ERROR_INVALID_VALUE);
  Bad = Programmatic;
  Bad.to_port = 1;
  Kernel({A}, &Bad, CUDA_ERROR_INVALID_VALUE);
  Bad = Programmatic;
  Bad.type = CU_GRAPH_DEPENDENCY_TYPE_DEFAULT;
  Kernel({A}, &Bad, CUDA_ERROR_INVALID_VALUE);
  Bad = Programmatic;
  Bad.from_port = CU_GRAPH_KERNEL_NODE_PORT_DEFAULT;
  Kernel({A}, &Bad, CUDA_ERROR_INVALID_VALUE);
  Bad = Programmatic;
  Bad.reserved[4] = 1;
  Kernel({A}, &Bad, CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuGraphDestroyNode(Empty), CUDA_SUCCESS);
  // An edge with data added afterwards, from the launch-order port.
  CUgraphNode C = Kernel({}, nullptr, CUDA_SUCCESS);
  ASSERT_EQ(cuGraphAddDependencies_v2(G, &B, &C, &LaunchOrder, 1), CUDA_SUCCESS);

  auto Same = [](const CUgraphEdgeData &X, const CUgraphEdgeData &Y) {
    return std::memcmp(&X, &Y, sizeof(X)) == 0;
  };
  CUgraphNode From[2], To[2];
  CUgraphEdgeData Data[2];
  size_t N = 2;
  ASSERT_EQ(cuGraphGetEdges_v2(G, From, To, Data, &N), CUDA_SUCCESS);
  ASSERT_EQ(N, 2u);
  EXPECT_TRUE(From[0] == A && To[0] == B && Same(Data[0], Programmatic));
  EXPECT_TRUE(From[1] == B && To[1] == C && Same(Data[1], LaunchOrder));
  N = 1;
  ASSERT_EQ(cuGraphNodeGetDependentNodes_v2(B, To, Data, &N), CUDA_SUCCESS);
  EXPECT_TRUE(N == 1 && To[0] == C && Same(Data[0], LaunchOrder));
  // Removing with other data (none is a full dependency's) is refused; with its data it goes.
  const CUgraphEdgeData Default = {};
  EXPECT_EQ(cuGraphRemoveDependencies_v2(G, &A, &B, &Default, 1), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuGraphRemoveDependencies(G, &A, &B, 1), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuGraphRemoveDependencies_v2(G, &A, &B, &Programmatic, 1), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphAddDependencies_v2(G, &A, &B, &Programmatic, 1), CUDA_SUCCESS);

  // A clone keeps the data; an executable is not updated from a graph whose edge differs.
  CUgraph Copy;
  ASSERT_EQ(cuGraphClone(&Copy, G), CUDA_SUCCESS);
  N = 2;
  ASSERT_EQ(cuGraphGetEdges_v2(Copy, From, To, Data, &N), CUDA_SUCCESS);
  EXPECT_TRUE(N == 2 && Same(Data[0], Programmatic) && Same(Data[1], LaunchOrder));
  CUgraphExec E;
  ASSERT_EQ(cuGraphInstantiateWithFlags(&E, G, 0), CUDA_SUCCESS);
  CUgraphNode CopyC = nullptr;
  ASSERT_EQ(cuGraphNodeFindInClone(&CopyC, C, Copy), CUDA_SUCCESS);
  CUgraphNode CopyB = nullptr;
  ASSERT_EQ(cuGraphNodeFindInClone(&CopyB, B, Copy), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphRemoveDependencies_v2(Copy, &CopyB, &CopyC, &LaunchOrder, 1), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphAddDependencies_v2(Copy, &CopyB, &CopyC, nullptr, 1), CUDA_SUCCESS);
  CUgraphExecUpdateResultInfo Info = {};
  EXPECT_EQ(cuGraphExecUpdate_v2(E, Copy, &Info), CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE);
  EXPECT_EQ(Info.result, CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED);
  ASSERT_EQ(cuGraphDestroy(Copy), CUDA_SUCCESS);

  ASSERT_EQ(cuGraphLaunch(E, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  EXPECT_EQ(K.count(), 3u);
  EXPECT_EQ(cuGraphExecDestroy(E), CUDA_SUCCESS);

  // Capture: a launch with programmatic stream serialization after a kernel; its edge from the
  // kernel is programmatic, that of an ordinary launch after it is not.
  CUstream S;
  ASSERT_EQ(cuStreamCreate(&S, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamBeginCapture_v2(S, CU_STREAM_CAPTURE_MODE_RELAXED), CUDA_SUCCESS);
  ASSERT_EQ(cuLaunchKernel(Step, 1, 1, 1, 1, 1, 1, 0, S, Params, nullptr), CUDA_SUCCESS);
  CUlaunchAttribute Attr = {};
  Attr.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
  Attr.value.programmaticStreamSerializationAllowed = 1;
  CUlaunchConfig Config = {1, 1, 1, 1, 1, 1, 0, S, &Attr, 1};
  ASSERT_EQ(cuLaunchKernelEx(&Config, Step, Params, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuLaunchKernel(Step, 1, 1, 1, 1, 1, 1, 0, S, Params, nullptr), CUDA_SUCCESS);
  CUgraph Captured;
  ASSERT_EQ(cuStreamEndCapture(S, &Captured), CUDA_SUCCESS);
  N = 2;
  ASSERT_EQ(cuGraphGetEdges_v2(Captured, From, To, Data, &N), CUDA_SUCCESS);
  ASSERT_EQ(N, 2u);
  EXPECT_TRUE(Same(Data[0], Programmatic));
  EXPECT_TRUE(Same(Data[1], Default));
  ASSERT_EQ(cuGraphDestroy(Captured), CUDA_SUCCESS);

  // A launch's programmatic event, recorded in a capture, forks another stream into it (which a
  // launch that left it unrecorded would not: the second kernel would run at once).
  CUstream S2;
  ASSERT_EQ(cuStreamCreate(&S2, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  CUevent Fork, Join;
  ASSERT_EQ(cuEventCreate(&Fork, CU_EVENT_DISABLE_TIMING), CUDA_SUCCESS);
  ASSERT_EQ(cuEventCreate(&Join, CU_EVENT_DISABLE_TIMING), CUDA_SUCCESS);
  Attr = {};
  Attr.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT;
  Attr.value.programmaticEvent.event = Fork;
  Attr.value.programmaticEvent.flags = 1; // CU_EVENT_RECORD_EXTERNAL: refused
  EXPECT_EQ(cuLaunchKernelEx(&Config, Step, Params, nullptr), CUDA_ERROR_INVALID_VALUE);
  Attr.value.programmaticEvent.flags = 0;
  const uint32_t Before = K.count();
  ASSERT_EQ(cuStreamBeginCapture_v2(S, CU_STREAM_CAPTURE_MODE_RELAXED), CUDA_SUCCESS);
  ASSERT_EQ(cuLaunchKernelEx(&Config, Step, Params, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamWaitEvent(S2, Fork, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuLaunchKernel(Step, 1, 1, 1, 1, 1, 1, 0, S2, Params, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuEventRecord(Join, S2), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamWaitEvent(S, Join, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamEndCapture(S, &Captured), CUDA_SUCCESS);
  EXPECT_EQ(K.count(), Before); // nothing ran
  ASSERT_EQ(cuGraphGetNodes(Captured, nullptr, &N), CUDA_SUCCESS);
  EXPECT_EQ(N, 2u);
  ASSERT_EQ(cuGraphGetEdges_v2(Captured, nullptr, nullptr, nullptr, &N), CUDA_SUCCESS);
  EXPECT_EQ(N, 1u);
  ASSERT_EQ(cuGraphDestroy(Captured), CUDA_SUCCESS);
  ASSERT_EQ(cuEventDestroy_v2(Fork), CUDA_SUCCESS);
  ASSERT_EQ(cuEventDestroy_v2(Join), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamDestroy_v2(S2), CUDA_SUCCESS);

  // Capture dependencies with edge data: a capture into G after A through a programmatic edge,
  // reported by the capture's info; a memset cannot take it (refused, not captured), a kernel
  // does; dependencies set again with data.
  ASSERT_EQ(cuStreamBeginCaptureToGraph(S, G, &A, &Programmatic, 1, CU_STREAM_CAPTURE_MODE_RELAXED),
            CUDA_SUCCESS);
  CUstreamCaptureStatus Status;
  const CUgraphNode *Deps = nullptr;
  const CUgraphEdgeData *DepData = nullptr;
  size_t NumDeps = 0;
  ASSERT_EQ(cuStreamGetCaptureInfo_v3(S, &Status, nullptr, nullptr, &Deps, &DepData, &NumDeps),
            CUDA_SUCCESS);
  ASSERT_EQ(NumDeps, 1u);
  EXPECT_TRUE(Deps[0] == A && Same(DepData[0], Programmatic));
  EXPECT_EQ(cuMemsetD32Async(K.Counter, 0, 1, S), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuLaunchKernel(Step, 1, 1, 1, 1, 1, 1, 0, S, Params, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamGetCaptureInfo_v3(S, &Status, nullptr, nullptr, &Deps, &DepData, &NumDeps),
            CUDA_SUCCESS);
  ASSERT_EQ(NumDeps, 1u);
  CUgraphNode D = Deps[0];
  EXPECT_TRUE(Same(DepData[0], Default));
  ASSERT_EQ(cuStreamUpdateCaptureDependencies_v2(S, &A, &LaunchOrder, 1,
                                                 CU_STREAM_SET_CAPTURE_DEPENDENCIES),
            CUDA_SUCCESS);
  ASSERT_EQ(cuLaunchKernel(Step, 1, 1, 1, 1, 1, 1, 0, S, Params, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamGetCaptureInfo_v3(S, &Status, nullptr, nullptr, &Deps, &DepData, &NumDeps),
            CUDA_SUCCESS);
  CUgraphNode F = Deps[0];
  CUgraph Into = nullptr;
  ASSERT_EQ(cuStreamEndCapture(S, &Into), CUDA_SUCCESS);
  EXPECT_EQ(Into, G);
  N = 1;
  ASSERT_EQ(cuGraphNodeGetDependencies_v2(D, From, Data, &N), CUDA_SUCCESS);
  EXPECT_TRUE(N == 1 && From[0] == A && Same(Data[0], Programmatic));
  N = 1;
  ASSERT_EQ(cuGraphNodeGetDependencies_v2(F, From, Data, &N), CUDA_SUCCESS);
  EXPECT_TRUE(N == 1 && From[0] == A && Same(Data[0], LaunchOrder));
  ASSERT_EQ(cuStreamDestroy_v2(S), CUDA_SUCCESS);
}

// Batch memory operation nodes (cuGraphAddBatchMemOpNode, through cuGraphAddNode too): the
// operations copied when set and read back, refused as cuStreamBatchMemOp refuses them, run in
// dependency order at each launch (a write, then a wait it meets and another write), and new
// operations for the graph's node and for the executable's.
TEST_F(GraphApi, BatchMemoryOperationNodesRunInOrder) {
  CUdeviceptr Words; // A (u32) at 0, B (u32) at 4, C (u64) at 8
  ASSERT_EQ(cuMemAlloc_v2(&Words, 16), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD32_v2(Words, 0, 4), CUDA_SUCCESS);
  auto Write32 = [](CUdeviceptr At, uint32_t V) {
    CUstreamBatchMemOpParams Op = {};
    Op.writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_32;
    Op.writeValue.address = At;
    Op.writeValue.value = V;
    return Op;
  };
  CUstreamBatchMemOpParams First[2] = {Write32(Words, 5), {}};
  First[1].writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_64;
  First[1].writeValue.address = Words + 8;
  First[1].writeValue.value64 = 0x1122334455667788ull;
  CUstreamBatchMemOpParams Second[2] = {{}, Write32(Words + 4, 6)};
  Second[0].waitValue.operation = CU_STREAM_MEM_OP_WAIT_VALUE_32;
  Second[0].waitValue.address = Words;
  Second[0].waitValue.value = 5;
  Second[0].waitValue.flags = CU_STREAM_WAIT_VALUE_GEQ;
  CUDA_BATCH_MEM_OP_NODE_PARAMS P = {Ctx, 2, First, 0};
  CUgraphNode A = nullptr, B = nullptr;
  ASSERT_EQ(cuGraphAddBatchMemOpNode(&A, G, nullptr, 0, &P), CUDA_SUCCESS);
  CUgraphNodeParams Generic = {};
  Generic.type = CU_GRAPH_NODE_TYPE_BATCH_MEM_OP;
  Generic.memOp = {Ctx, 2, Second, 0};
  ASSERT_EQ(cuGraphAddNode(&B, G, &A, 1, &Generic), CUDA_SUCCESS);
  First[0].writeValue.value = 99; // the node holds a copy
  CUDA_BATCH_MEM_OP_NODE_PARAMS Got = {};
  ASSERT_EQ(cuGraphBatchMemOpNodeGetParams(A, &Got), CUDA_SUCCESS);
  EXPECT_EQ(Got.ctx, Ctx);
  EXPECT_EQ(Got.count, 2u);
  ASSERT_NE(Got.paramArray, nullptr);
  EXPECT_EQ(Got.paramArray[0].writeValue.value, 5u);
  EXPECT_EQ(Got.paramArray[1].operation, CU_STREAM_MEM_OP_WRITE_VALUE_64);
  CUgraphNodeType T;
  ASSERT_EQ(cuGraphNodeGetType(B, &T), CUDA_SUCCESS);
  EXPECT_EQ(T, CU_GRAPH_NODE_TYPE_BATCH_MEM_OP);
  // Refused: an unknown operation, flags, a node of another type.
  CUstreamBatchMemOpParams Unknown = {};
  Unknown.operation = CUstreamBatchMemOpType(99);
  CUDA_BATCH_MEM_OP_NODE_PARAMS Bad = {Ctx, 1, &Unknown, 0};
  CUgraphNode Refused = nullptr;
  EXPECT_EQ(cuGraphAddBatchMemOpNode(&Refused, G, nullptr, 0, &Bad), CUDA_ERROR_INVALID_VALUE);
  Bad = {Ctx, 2, First, 1};
  EXPECT_EQ(cuGraphAddBatchMemOpNode(&Refused, G, nullptr, 0, &Bad), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuGraphBatchMemOpNodeGetParams(empty(), &Got), CUDA_ERROR_INVALID_VALUE);

  auto Read = [&](uint32_t &WordA, uint32_t &WordB, uint64_t &WordC) {
    uint8_t Bytes[16];
    ASSERT_EQ(cuMemcpyDtoH_v2(Bytes, Words, 16), CUDA_SUCCESS);
    std::memcpy(&WordA, Bytes, 4);
    std::memcpy(&WordB, Bytes + 4, 4);
    std::memcpy(&WordC, Bytes + 8, 8);
  };
  CUgraphExec E;
  ASSERT_EQ(cuGraphInstantiateWithFlags(&E, G, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphLaunch(E, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  uint32_t WordA = 0, WordB = 0;
  uint64_t WordC = 0;
  Read(WordA, WordB, WordC);
  EXPECT_EQ(WordA, 5u);
  EXPECT_EQ(WordB, 6u);
  EXPECT_EQ(WordC, 0x1122334455667788ull);
  // The executable's first node now writes 7 to A only; the graph's own node is unchanged.
  CUstreamBatchMemOpParams Seven = Write32(Words, 7);
  P = {Ctx, 1, &Seven, 0};
  ASSERT_EQ(cuGraphExecBatchMemOpNodeSetParams(E, A, &P), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD32_v2(Words, 0, 4), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphLaunch(E, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  Read(WordA, WordB, WordC);
  EXPECT_EQ(WordA, 7u);
  EXPECT_EQ(WordB, 6u);
  EXPECT_EQ(WordC, 0u);
  ASSERT_EQ(cuGraphBatchMemOpNodeGetParams(A, &Got), CUDA_SUCCESS);
  EXPECT_EQ(Got.count, 2u);
  ASSERT_EQ(cuGraphBatchMemOpNodeSetParams(A, &P), CUDA_SUCCESS);
  ASSERT_EQ(cuGraphBatchMemOpNodeGetParams(A, &Got), CUDA_SUCCESS);
  EXPECT_EQ(Got.count, 1u);
  EXPECT_EQ(cuGraphExecDestroy(E), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFree_v2(Words), CUDA_SUCCESS);
}

// A child graph moved into its node (CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE, cuda.h): the node holds
// the graph itself, which runs with the parent, goes with it, and can no longer be destroyed,
// instantiated, updated from, moved or copied into another node, or given memory nodes.
TEST_F(GraphApi, ChildGraphMovedIntoItsNode) {
  CUdeviceptr Word;
  ASSERT_EQ(cuMemAlloc_v2(&Word, 4), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD32_v2(Word, 0, 1), CUDA_SUCCESS);
  CUgraph Child;
  ASSERT_EQ(cuGraphCreate(&Child, 0), CUDA_SUCCESS);
  CUgraphNode Fill = fillNode(Child, Word, 0x5eed, Ctx);
  ASSERT_NE(Fill, nullptr);
  CUgraphNodeParams P = {};
  P.type = CU_GRAPH_NODE_TYPE_GRAPH;
  P.graph = {Child, CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE};
  // Refused, the graph staying the user's: a dependency of another graph (Child's own node),
  // a graph moved into itself.
  CUgraphNode Node = nullptr;
  EXPECT_EQ(cuGraphAddNode(&Node, G, &Fill, 1, &P), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuGraphAddNode(&Node, Child, nullptr, 0, &P), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuGraphAddNode(&Node, G, nullptr, 0, &P), CUDA_SUCCESS);
  CUgraph Held = nullptr;
  ASSERT_EQ(cuGraphChildGraphNodeGetGraph(Node, &Held), CUDA_SUCCESS);
  EXPECT_EQ(Held, Child);
  // The graph is the node's now.
  EXPECT_EQ(cuGraphDestroy(Child), CUDA_ERROR_INVALID_VALUE);
  CUgraphExec E = nullptr;
  EXPECT_EQ(cuGraphInstantiateWithFlags(&E, Child, 0), CUDA_ERROR_INVALID_VALUE);
  CUgraphNode Again = nullptr;
  EXPECT_EQ(cuGraphAddNode(&Again, G, nullptr, 0, &P), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuGraphAddChildGraphNode(&Again, G, nullptr, 0, Child), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuGraphAddMemFreeNode(&Again, Child, nullptr, 0, Word), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuGraphInstantiateWithFlags(&E, G, 0), CUDA_SUCCESS);
  CUgraphExecUpdateResultInfo Info = {};
  EXPECT_EQ(cuGraphExecUpdate_v2(E, Child, &Info), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuGraphLaunch(E, nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
  uint32_t Got = 0;
  ASSERT_EQ(cuMemcpyDtoH_v2(&Got, Word, 4), CUDA_SUCCESS);
  EXPECT_EQ(Got, 0x5eedu);
  EXPECT_EQ(cuGraphExecDestroy(E), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFree_v2(Word), CUDA_SUCCESS);
  // TearDown's cuGraphDestroy of the parent destroys the child with it.
}

} // namespace
