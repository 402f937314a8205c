// CUDA graphs and stream capture (Graph.h): the Driver API's "Graph Management" entry points, the
// capture entry points of "Stream Management", the capture of stream operations and graph
// launches. Graph objects are not synchronized (as CUDA's are not: one thread builds a graph);
// the capture state of streams and events is, under one mutex.
#include "Graph.h"
#include "Printf.h"
#include "Trace.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <queue>
#include <set>
#include <unordered_set>

using namespace reptx::loader;

// ------------------------------------------------------------------ graphs and nodes

void GraphNode::pointAtArgs() {
  ArgPointers.clear();
  if (K)
    for (const PtxParam &P : K->Params)
      ArgPointers.push_back(Args.data() + P.Offset);
}

GraphNode *Graph::add(std::unique_ptr<GraphNode> N, llvm::ArrayRef<GraphNode *> Deps) {
  N->Owner = this;
  N->Deps.assign(Deps.begin(), Deps.end());
  Nodes.push_back(std::move(N));
  return Nodes.back().get();
}

namespace {

std::mutex MemoryMutex;
std::set<CUdeviceptr> &graphMemory() {
  static auto *S = new std::set<CUdeviceptr>; // never destroyed: graphs may outlive static data
  return *S;
}

} // namespace

GraphMemory::~GraphMemory() {
  {
    std::lock_guard<std::mutex> L(MemoryMutex);
    graphMemory().erase(Ptr);
  }
  if (llvm::Error E = Ctx->Dev->Backend->release(Ptr))
    log().warn("graph memory {:#x}: {}", Ptr, llvm::toString(std::move(E)));
}

ConditionalHandle::~ConditionalHandle() {
  if (llvm::Error E = Dev->Backend->release(Ptr))
    log().warn("conditional handle {:#x}: {}", Ptr, llvm::toString(std::move(E)));
}

bool reptx::loader::graphOwnsMemory(CUdeviceptr Ptr) {
  std::lock_guard<std::mutex> L(MemoryMutex);
  return graphMemory().count(Ptr) != 0;
}

namespace {

/// An instantiated graph: its own copy of the graph, and which of its nodes each node of the
/// graphs it was made or updated from became.
struct GraphExec {
  Tag T = Tag::GraphExec;
  std::unique_ptr<Graph> G;
  std::unordered_map<const GraphNode *, GraphNode *> Nodes;
  cuuint64_t Flags = 0;
  ~GraphExec() { T = Tag{}; }
};

Graph *asGraph(CUgraph H) {
  auto *G = reinterpret_cast<Graph *>(H);
  return G && G->T == Tag::Graph ? G : nullptr;
}
GraphNode *asNode(CUgraphNode H) {
  auto *N = reinterpret_cast<GraphNode *>(H);
  return N && N->T == Tag::GraphNode ? N : nullptr;
}
GraphExec *asExec(CUgraphExec H) {
  auto *E = reinterpret_cast<GraphExec *>(H);
  return E && E->T == Tag::GraphExec ? E : nullptr;
}
Event *asEvent(CUevent H) {
  auto *E = reinterpret_cast<Event *>(H);
  return E && E->T == Tag::Event ? E : nullptr;
}
CUgraph handle(Graph *G) { return reinterpret_cast<CUgraph>(G); }

// The nodes of G that Deps names, each once (false: a handle that is not one of G's nodes, or a
// repeat).
bool nodesOf(const Graph &G, const CUgraphNode *Deps, size_t NumDeps,
             std::vector<GraphNode *> &Out) {
  if (NumDeps && !Deps)
    return false;
  Out.clear();
  for (size_t I = 0; I < NumDeps; ++I) {
    GraphNode *N = asNode(Deps[I]);
    if (!N || N->Owner != &G || std::find(Out.begin(), Out.end(), N) != Out.end())
      return false;
    Out.push_back(N);
  }
  return true;
}

bool isDefaultEdge(const CUgraphEdgeData &E) {
  static const CUgraphEdgeData Zero{};
  return std::memcmp(&E, &Zero, sizeof(E)) == 0;
}
// Whether E may join From to a node of type To (cuda.h, CUgraphEdgeData and
// CUgraphDependencyType): only kernel nodes have ports; a programmatic edge joins two kernel
// nodes from the PROGRAMMATIC or LAUNCH_ORDER port, and the PROGRAMMATIC port needs one; no node
// has a downstream port; the reserved bytes are zero.
bool validEdge(const GraphNode &From, CUgraphNodeType To, const CUgraphEdgeData &E) {
  if (isDefaultEdge(E))
    return true;
  for (unsigned char R : E.reserved)
    if (R)
      return false;
  if (E.to_port || E.type > CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC ||
      E.from_port > CU_GRAPH_KERNEL_NODE_PORT_LAUNCH_ORDER ||
      From.Type != CU_GRAPH_NODE_TYPE_KERNEL)
    return false;
  if (E.type == CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC)
    return To == CU_GRAPH_NODE_TYPE_KERNEL && E.from_port != CU_GRAPH_KERNEL_NODE_PORT_DEFAULT;
  return E.from_port != CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC;
}
// A capturing stream's next operation depends on Node as well, through an edge with data E (a
// node it depends on already keeps its edge).
void addCaptureDep(Stream &St, GraphNode *Node, const CUgraphEdgeData &E) {
  if (std::find(St.CaptureDeps.begin(), St.CaptureDeps.end(), Node) != St.CaptureDeps.end())
    return;
  St.CaptureDeps.push_back(Node);
  if (St.CaptureEdges.empty() && isDefaultEdge(E))
    return;
  St.CaptureEdges.resize(St.CaptureDeps.size() - 1); // full dependencies before it
  St.CaptureEdges.push_back(E);
}
// Its next operation depends on Nodes alone, through edges with the data Edges gives (null: full
// dependencies).
void setCaptureDeps(Stream &St, llvm::ArrayRef<GraphNode *> Nodes,
                    const CUgraphEdgeData *Edges = nullptr) {
  St.CaptureDeps.clear();
  St.CaptureEdges.clear();
  for (size_t I = 0; I < Nodes.size(); ++I)
    addCaptureDep(St, Nodes[I], Edges ? Edges[I] : CUgraphEdgeData{});
}
// Edge data that may join From to a node of a type not known yet (a capture's next operation).
bool validCaptureEdge(const GraphNode &From, const CUgraphEdgeData &E) {
  return validEdge(From, CU_GRAPH_NODE_TYPE_KERNEL, E);
}

// The data of the edge From -> To (all zero for a full dependency).
CUgraphEdgeData edgeData(const GraphNode &To, const GraphNode *From) {
  auto It = To.EdgeData.find(From);
  return It == To.EdgeData.end() ? CUgraphEdgeData{} : It->second;
}
// Records the data of the edge From -> To (nothing for a full dependency).
void setEdgeData(GraphNode &To, const GraphNode *From, const CUgraphEdgeData &E) {
  if (isDefaultEdge(E))
    To.EdgeData.erase(From);
  else
    To.EdgeData[From] = E;
}
CUgraphNode handle(GraphNode *N) { return reinterpret_cast<CUgraphNode>(N); }

const char *typeName(CUgraphNodeType T) {
  static const char *const Names[] = {
      "kernel",       "memcpy",       "memset",           "host",           "graph",     "empty",
      "wait event",   "event record", "semaphore signal", "semaphore wait", "mem alloc", "mem free",
      "batch mem op", "conditional"};
  return unsigned(T) < std::size(Names) ? Names[T] : "unknown";
}

std::unique_ptr<Graph> cloneGraph(const Graph &G,
                                  std::unordered_map<const GraphNode *, GraphNode *> &Map);

// Everything a node does (not its graph or dependencies).
void copyParams(GraphNode &To, const GraphNode &From) {
  To.Type = From.Type;
  To.Ctx = From.Ctx;
  To.K = From.K;
  To.Dims = From.Dims;
  To.Args = From.Args;
  To.pointAtArgs();
  To.Attributes = From.Attributes;
  To.Copy = From.Copy;
  To.Fill = From.Fill;
  To.Host = From.Host;
  std::unordered_map<const GraphNode *, GraphNode *> Sub;
  To.Child = From.Child ? cloneGraph(*From.Child, Sub) : nullptr;
  if (To.Child)
    To.Child->NodeOwned = true;
  To.Ev = From.Ev;
  To.Memory = From.Memory;
  To.FreePtr = From.FreePtr;
  To.MemOps = From.MemOps;
  To.MemOpFlags = From.MemOpFlags;
  To.Condition = From.Condition;
  To.ConditionType = From.ConditionType;
  To.Bodies.clear();
  To.BodyHandles.clear();
  for (const auto &Body : From.Bodies) {
    std::unordered_map<const GraphNode *, GraphNode *> BodyMap;
    To.Bodies.push_back(cloneGraph(*Body, BodyMap));
    To.Bodies.back()->NodeOwned = true;
    To.BodyHandles.push_back(reinterpret_cast<CUgraph>(To.Bodies.back().get()));
  }
}

// A copy of G; Map receives original -> copy for every node. An edge may point to a node added
// later (cuGraphAddDependencies), so the nodes are made first and their edges then.
std::unique_ptr<Graph> cloneGraph(const Graph &G,
                                  std::unordered_map<const GraphNode *, GraphNode *> &Map) {
  auto C = std::make_unique<Graph>();
  C->Handles = G.Handles;
  for (const auto &N : G.Nodes) {
    auto M = std::make_unique<GraphNode>();
    copyParams(*M, *N);
    M->Enabled = N->Enabled;
    Map[N.get()] = C->add(std::move(M), {});
  }
  for (const auto &N : G.Nodes) {
    for (GraphNode *D : N->Deps)
      Map[N.get()]->Deps.push_back(Map.at(D));
    for (auto &[From, E] : N->EdgeData)
      Map[N.get()]->EdgeData[Map.at(From)] = E;
  }
  return C;
}

// The nodes in an order that keeps every dependency, ties broken by the order they were added
// (so a captured stream runs in its own order); false when the edges have a cycle.
bool topologicalOrder(const Graph &G, std::vector<GraphNode *> &Order) {
  size_t N = G.Nodes.size();
  std::unordered_map<const GraphNode *, size_t> Index;
  for (size_t I = 0; I < N; ++I)
    Index[G.Nodes[I].get()] = I;
  std::vector<size_t> Pending(N);
  std::vector<std::vector<size_t>> Dependents(N);
  for (size_t I = 0; I < N; ++I)
    for (const GraphNode *D : G.Nodes[I]->Deps) {
      ++Pending[I];
      Dependents[Index.at(D)].push_back(I);
    }
  std::priority_queue<size_t, std::vector<size_t>, std::greater<size_t>> Ready;
  for (size_t I = 0; I < N; ++I)
    if (!Pending[I])
      Ready.push(I);
  Order.clear();
  while (!Ready.empty()) {
    size_t I = Ready.top();
    Ready.pop();
    Order.push_back(G.Nodes[I].get());
    for (size_t J : Dependents[I])
      if (--Pending[J] == 0)
        Ready.push(J);
  }
  return Order.size() == N;
}

CUresult runGraph(const Graph &G, CUstream S, Context *C);

// A conditional node: reads its condition once the nodes before it have finished (and, in a
// WHILE loop, again after each run of the body) and runs the body it selects.
CUresult runConditional(const GraphNode &N, CUstream S, Context *C) {
  auto Value = [&](uint32_t &V) {
    if (llvm::Error E = C->Dev->Backend->copyToHost(&V, N.Condition, sizeof(V))) {
      log().error("graph launch: conditional node's condition {:#x}: {}", N.Condition,
                  llvm::toString(std::move(E)));
      return false;
    }
    return true;
  };
  uint32_t V = 0;
  if (!Value(V))
    return CUDA_ERROR_ILLEGAL_ADDRESS;
  switch (N.ConditionType) {
  case CU_GRAPH_COND_TYPE_IF:
    if (V)
      return runGraph(*N.Bodies[0], S, C);
    return N.Bodies.size() == 2 ? runGraph(*N.Bodies[1], S, C) : CUDA_SUCCESS;
  case CU_GRAPH_COND_TYPE_WHILE:
    while (V) {
      if (CUresult R = runGraph(*N.Bodies[0], S, C))
        return R;
      if (CUresult R = C->Sticky.load())
        return R;
      if (!Value(V))
        return CUDA_ERROR_ILLEGAL_ADDRESS;
    }
    return CUDA_SUCCESS;
  case CU_GRAPH_COND_TYPE_SWITCH:
    return V < N.Bodies.size() ? runGraph(*N.Bodies[V], S, C) : CUDA_SUCCESS;
  }
  return CUDA_ERROR_INVALID_VALUE;
}

// At the start of a launch: the conditions made with CU_GRAPH_COND_ASSIGN_DEFAULT, of the graph
// and of the graphs inside its nodes, take their default value.
CUresult assignDefaults(const Graph &G, Context *C) {
  for (const auto &H : G.Handles)
    if (H->Flags & CU_GRAPH_COND_ASSIGN_DEFAULT)
      if (llvm::Error E = C->Dev->Backend->copyToDevice(H->Ptr, &H->Default, sizeof(H->Default))) {
        log().error("graph launch: conditional handle {:#x}: {}", H->Ptr,
                    llvm::toString(std::move(E)));
        return CUDA_ERROR_ILLEGAL_ADDRESS;
      }
  for (const auto &N : G.Nodes) {
    if (N->Child)
      if (CUresult R = assignDefaults(*N->Child, C))
        return R;
    for (const auto &Body : N->Bodies)
      if (CUresult R = assignDefaults(*Body, C))
        return R;
  }
  return CUDA_SUCCESS;
}

// Runs the graph's nodes on stream S (of context C), one after another.
CUresult runGraph(const Graph &G, CUstream S, Context *C) {
  std::vector<GraphNode *> Order;
  if (!topologicalOrder(G, Order))
    return CUDA_ERROR_INVALID_VALUE;
  for (GraphNode *N : Order) {
    if (!N->Enabled)
      continue;
    CUresult R = CUDA_SUCCESS;
    switch (N->Type) {
    case CU_GRAPH_NODE_TYPE_KERNEL:
      R = runKernel(N->K, N->Dims, S, N->Args);
      break;
    case CU_GRAPH_NODE_TYPE_MEMCPY:
      R = runCopy(N->Copy, C);
      break;
    case CU_GRAPH_NODE_TYPE_MEMSET:
      R = runFill(N->Fill, C);
      if (R == CUDA_SUCCESS)
        noteSubmitted(C, S);
      break;
    case CU_GRAPH_NODE_TYPE_HOST:
      contextSynchronize(C); // the node's dependencies have completed (and printed)
      N->Host.fn(N->Host.userData);
      break;
    case CU_GRAPH_NODE_TYPE_GRAPH:
      R = runGraph(*N->Child, S, C);
      break;
    case CU_GRAPH_NODE_TYPE_CONDITIONAL:
      R = runConditional(*N, S, C);
      break;
    case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
      if (asEvent(reinterpret_cast<CUevent>(N->Ev)))
        R = recordEvent(N->Ev, C);
      break;
    case CU_GRAPH_NODE_TYPE_MEM_FREE:
      // The graph's own allocations stay until the graph goes; another allocation is freed.
      if (!graphOwnsMemory(N->FreePtr))
        if (llvm::Error E = C->Dev->Backend->release(N->FreePtr)) {
          log().error("graph launch: mem free node {:#x}: {}", N->FreePtr,
                      llvm::toString(std::move(E)));
          R = CUDA_ERROR_INVALID_VALUE;
        }
      break;
    case CU_GRAPH_NODE_TYPE_BATCH_MEM_OP:
      R = runBatchMemOps(S, unsigned(N->MemOps.size()), N->MemOps.data(), N->MemOpFlags);
      break;
    default: // empty, wait event (its event has completed), mem alloc (allocated at capture)
      break;
    }
    if (R) {
      log().error("graph launch: {} node failed ({})", typeName(N->Type), int(R));
      return R;
    }
  }
  return CUDA_SUCCESS;
}

// ------------------------------------------------------------------ capture state

std::mutex CaptureMutex;
std::atomic<int> LiveCaptures{0};
uint64_t NextCaptureId = 1;
thread_local CUstreamCaptureMode ThreadMode = CU_STREAM_CAPTURE_MODE_GLOBAL;

std::map<uint64_t, Capture *> &captures() {
  static auto *M = new std::map<uint64_t, Capture *>;
  return *M;
}

// The calling thread's per-thread default stream (CU_STREAM_PER_THREAD) of its current context,
// as a stream object made on first use, so that it can capture and join captures as CUDA allows
// (only the legacy stream cannot); null without a current context. A capture it has when the
// thread ends ends with it.
Stream *perThreadStream() {
  struct Streams {
    std::map<Context *, std::unique_ptr<Stream>> ByContext;
    ~Streams() {
      for (auto &[C, St] : ByContext)
        forgetStream(St.get());
    }
  };
  Streams &Mine = threadObject<Streams>(); // also in exit handlers
  Context *C = currentContext();
  if (!C)
    return nullptr;
  std::unique_ptr<Stream> &St = Mine.ByContext[C];
  if (!St) {
    St = std::make_unique<Stream>();
    St->Id = newStreamId();
    St->Ctx = C;
  }
  return St.get();
}

Stream *asStream(CUstream S) {
  if (S == CU_STREAM_PER_THREAD)
    return perThreadStream();
  if (reinterpret_cast<uintptr_t>(S) <= 2)
    return nullptr;
  auto *St = reinterpret_cast<Stream *>(S);
  return St->T == Tag::Stream ? St : nullptr;
}

// Ends a capture (CaptureMutex held): every stream leaves it.
void endCapture(Capture *Cap) {
  for (Stream *St : Cap->Streams) {
    St->Cap = nullptr;
    setCaptureDeps(*St, {});
  }
  captures().erase(Cap->Id);
  LiveCaptures.fetch_sub(1, std::memory_order_release);
  delete Cap;
}

// Every stream that joined the capture has been joined back into its origin: each one's last
// nodes are the origin's last nodes or come before them.
bool joined(const Capture &Cap) {
  std::unordered_set<const GraphNode *> Before;
  std::vector<const GraphNode *> Work(Cap.Origin->CaptureDeps.begin(),
                                      Cap.Origin->CaptureDeps.end());
  while (!Work.empty()) {
    const GraphNode *N = Work.back();
    Work.pop_back();
    if (Before.insert(N).second)
      Work.insert(Work.end(), N->Deps.begin(), N->Deps.end());
  }
  for (const Stream *St : Cap.Streams)
    for (const GraphNode *N : St->CaptureDeps)
      if (!Before.count(N))
        return false;
  return true;
}

} // namespace

Capture *reptx::loader::captureOf(CUstream S) {
  if (LiveCaptures.load(std::memory_order_acquire) == 0)
    return nullptr;
  Stream *St = asStream(S);
  if (!St)
    return nullptr;
  std::lock_guard<std::mutex> L(CaptureMutex);
  return St->Cap;
}

CUresult reptx::loader::capture(CUstream S, std::unique_ptr<GraphNode> N) {
  Stream *St = asStream(S);
  std::lock_guard<std::mutex> L(CaptureMutex);
  Capture *Cap = St ? St->Cap : nullptr;
  if (!Cap)
    return CUDA_ERROR_ILLEGAL_STATE;
  if (Cap->Invalidated)
    return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
  // Edge data the dependencies were given (cuStreamBeginCaptureToGraph,
  // cuStreamUpdateCaptureDependencies_v2) must suit this node.
  for (size_t I = 0; I < St->CaptureEdges.size(); ++I)
    if (!validEdge(*St->CaptureDeps[I], N->Type, St->CaptureEdges[I]))
      return CUDA_ERROR_INVALID_VALUE;
  GraphNode *Node = Cap->graph().add(std::move(N), St->CaptureDeps);
  for (size_t I = 0; I < St->CaptureEdges.size(); ++I)
    setEdgeData(*Node, St->CaptureDeps[I], St->CaptureEdges[I]);
  if (Node->Programmatic) // CUDA's capture of programmatic stream serialization
    for (GraphNode *D : Node->Deps)
      if (D->Type == CU_GRAPH_NODE_TYPE_KERNEL)
        Node->EdgeData[D] = {
            CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC, 0, CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC, {}};
  setCaptureDeps(*St, {Node});
  return CUDA_SUCCESS;
}

CUresult reptx::loader::captureRefuses(CUstream S) {
  if (!captureOf(S))
    return CUDA_SUCCESS;
  std::lock_guard<std::mutex> L(CaptureMutex);
  if (Capture *Cap = asStream(S)->Cap)
    Cap->Invalidated = true;
  return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
}

// The CUDA Programming Guide's rules ("Cross-stream Dependencies and Events", "Prohibited and
// Unhandled Operations"; cuThreadExchangeStreamCaptureMode): in the global mode a thread may not
// make a potentially unsafe call while it has a capture that is not relaxed, or another thread
// has a global one; in the thread-local mode, while it has one that is not relaxed; in the relaxed
// mode it may. The thread's own captures are invalidated by the call.
CUresult reptx::loader::captureForbidsUnsafeCall() {
  if (LiveCaptures.load(std::memory_order_acquire) == 0 ||
      ThreadMode == CU_STREAM_CAPTURE_MODE_RELAXED)
    return CUDA_SUCCESS;
  std::lock_guard<std::mutex> L(CaptureMutex);
  auto Me = std::this_thread::get_id();
  bool Forbidden = false;
  for (auto &[Id, Cap] : captures()) {
    if (Cap->Thread == Me && Cap->Mode != CU_STREAM_CAPTURE_MODE_RELAXED) {
      Cap->Invalidated = true;
      Forbidden = true;
    } else if (Cap->Thread != Me && Cap->Mode == CU_STREAM_CAPTURE_MODE_GLOBAL &&
               ThreadMode == CU_STREAM_CAPTURE_MODE_GLOBAL) {
      Forbidden = true;
    }
  }
  if (Forbidden)
    log().error("a call that may synchronize was made while a stream captures (CUDA's "
                "cudaErrorStreamCaptureUnsupported)");
  return Forbidden ? CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED : CUDA_SUCCESS;
}

CUresult reptx::loader::captureEventRecord(CUstream S, Event *Ev, bool &Handled) {
  Handled = false;
  if (!captureOf(S))
    return CUDA_SUCCESS;
  std::lock_guard<std::mutex> L(CaptureMutex);
  Stream *St = asStream(S);
  if (!St->Cap)
    return CUDA_SUCCESS;
  Handled = true;
  if (St->Cap->Invalidated)
    return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
  Ev->CaptureId = St->Cap->Id;
  Ev->CaptureNodes = St->CaptureDeps;
  return CUDA_SUCCESS;
}

CUresult reptx::loader::captureStreamWait(CUstream S, Event *Ev) {
  if (LiveCaptures.load(std::memory_order_acquire) == 0)
    return CUDA_SUCCESS;
  std::lock_guard<std::mutex> L(CaptureMutex);
  auto It = Ev->CaptureId ? captures().find(Ev->CaptureId) : captures().end();
  if (It == captures().end()) // an event from outside any capture: its work has completed
    return CUDA_SUCCESS;
  Capture *Cap = It->second;
  Stream *St = asStream(S);
  if (!St) // the legacy default stream cannot join a capture
    return CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
  if (St->Cap && St->Cap != Cap)
    return CUDA_ERROR_STREAM_CAPTURE_MERGE;
  if (Cap->Invalidated)
    return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
  if (!St->Cap) {
    St->Cap = Cap;
    Cap->Streams.push_back(St);
    setCaptureDeps(*St, Ev->CaptureNodes);
    return CUDA_SUCCESS;
  }
  for (GraphNode *N : Ev->CaptureNodes)
    addCaptureDep(*St, N, CUgraphEdgeData{});
  return CUDA_SUCCESS;
}

// A mem alloc node's memory, allocated when the node is made (by a capture's cuMemAllocAsync or
// cuGraphAddMemAllocNode); null when the device has no room.
static std::unique_ptr<GraphNode> allocNode(Context *C, size_t Bytes, const char *What) {
  auto A = C->Dev->Backend->allocate(Bytes);
  if (!A) {
    log().warn("{}({}): {}", What, Bytes, llvm::toString(A.takeError()));
    return nullptr;
  }
  auto M = std::make_shared<GraphMemory>();
  M->Ctx = C;
  M->Ptr = *A;
  M->Bytes = Bytes;
  {
    std::lock_guard<std::mutex> L(MemoryMutex);
    graphMemory().insert(*A);
  }
  auto N = std::make_unique<GraphNode>();
  N->Type = CU_GRAPH_NODE_TYPE_MEM_ALLOC;
  N->Ctx = C;
  N->Memory = std::move(M);
  return N;
}

CUresult reptx::loader::captureAlloc(CUstream S, Context *C, size_t Bytes, CUdeviceptr &Ptr) {
  auto N = allocNode(C, Bytes, "cuMemAllocAsync in a stream capture");
  if (!N)
    return CUDA_ERROR_OUT_OF_MEMORY;
  CUdeviceptr A = N->Memory->Ptr;
  if (CUresult R = capture(S, std::move(N)))
    return R; // the allocation goes with the node
  Ptr = A;
  return CUDA_SUCCESS;
}

CUresult reptx::loader::captureFree(CUstream S, CUdeviceptr Ptr) {
  if (!Ptr)
    return CUDA_ERROR_INVALID_VALUE;
  auto N = std::make_unique<GraphNode>();
  N->Type = CU_GRAPH_NODE_TYPE_MEM_FREE;
  N->FreePtr = Ptr;
  return capture(S, std::move(N));
}

void reptx::loader::forgetStream(Stream *St) {
  std::lock_guard<std::mutex> L(CaptureMutex);
  Capture *Cap = St->Cap;
  if (!Cap)
    return;
  if (Cap->Origin == St) {
    endCapture(Cap);
    return;
  }
  Cap->Streams.erase(std::find(Cap->Streams.begin(), Cap->Streams.end(), St));
  St->Cap = nullptr;
}

// ------------------------------------------------------------------ capture entry points

static CUresult beginCapture(CUstream S, CUstreamCaptureMode Mode, Graph *Into = nullptr,
                             llvm::ArrayRef<GraphNode *> Deps = {},
                             const CUgraphEdgeData *Edges = nullptr) {
  Context *C;
  if (CUresult R = streamContext(S, C))
    return R;
  Stream *St = asStream(S);
  if (!St) {
    log().error("cuStreamBeginCapture: the legacy default stream cannot be captured (CUDA's "
                "rule); capture a created stream or the per-thread default stream");
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
  }
  if (Mode != CU_STREAM_CAPTURE_MODE_GLOBAL && Mode != CU_STREAM_CAPTURE_MODE_THREAD_LOCAL &&
      Mode != CU_STREAM_CAPTURE_MODE_RELAXED)
    return CUDA_ERROR_INVALID_VALUE;
  std::lock_guard<std::mutex> L(CaptureMutex);
  if (St->Cap)
    return CUDA_ERROR_ILLEGAL_STATE;
  auto *Cap = new Capture;
  Cap->Id = NextCaptureId++;
  if (Into)
    Cap->Into = Into;
  else
    Cap->G = std::make_unique<Graph>();
  Cap->Mode = Mode;
  Cap->Origin = St;
  Cap->Streams.push_back(St);
  Cap->Thread = std::this_thread::get_id();
  captures()[Cap->Id] = Cap;
  LiveCaptures.fetch_add(1, std::memory_order_release);
  St->Cap = Cap;
  setCaptureDeps(*St, Deps, Edges);
  return CUDA_SUCCESS;
}

// cuStreamBeginCaptureToGraph: a capture that adds to an existing graph (a conditional node's
// body, say) after the given nodes of it; its end returns that graph.
static CUresult beginCaptureToGraph(CUstream S, CUgraph H, const CUgraphNode *Deps,
                                    const CUgraphEdgeData *Edges, size_t NumDeps,
                                    CUstreamCaptureMode Mode) {
  Graph *G = asGraph(H);
  std::vector<GraphNode *> D;
  if (!G || !nodesOf(*G, Deps, NumDeps, D))
    return CUDA_ERROR_INVALID_VALUE;
  for (size_t I = 0; Edges && I < D.size(); ++I)
    if (!validCaptureEdge(*D[I], Edges[I]))
      return CUDA_ERROR_INVALID_VALUE;
  return beginCapture(S, Mode, G, D, Edges);
}

CUresult cuStreamBeginCapture(CUstream hStream) {
  REPTX_TRACE(cuStreamBeginCapture, hStream);
  return beginCapture(hStream, CU_STREAM_CAPTURE_MODE_GLOBAL);
}
CUresult cuStreamBeginCapture_ptsz(CUstream hStream) {
  REPTX_TRACE(cuStreamBeginCapture_ptsz, hStream);
  hStream = perThreadDefault(hStream);
  return beginCapture(hStream, CU_STREAM_CAPTURE_MODE_GLOBAL);
}
CUresult cuStreamBeginCapture_v2(CUstream hStream, CUstreamCaptureMode mode) {
  REPTX_TRACE(cuStreamBeginCapture_v2, hStream, mode);
  return beginCapture(hStream, mode);
}
CUresult cuStreamBeginCapture_v2_ptsz(CUstream hStream, CUstreamCaptureMode mode) {
  REPTX_TRACE(cuStreamBeginCapture_v2_ptsz, hStream, mode);
  hStream = perThreadDefault(hStream);
  return beginCapture(hStream, mode);
}

CUresult cuStreamBeginCaptureToGraph(CUstream hStream, CUgraph hGraph,
                                     const CUgraphNode *dependencies,
                                     const CUgraphEdgeData *dependencyData, size_t numDependencies,
                                     CUstreamCaptureMode mode) {
  REPTX_TRACE(cuStreamBeginCaptureToGraph, hStream, hGraph, dependencies, dependencyData,
              numDependencies, mode);
  return beginCaptureToGraph(hStream, hGraph, dependencies, dependencyData, numDependencies, mode);
}
CUresult cuStreamBeginCaptureToGraph_ptsz(CUstream hStream, CUgraph hGraph,
                                          const CUgraphNode *dependencies,
                                          const CUgraphEdgeData *dependencyData,
                                          size_t numDependencies, CUstreamCaptureMode mode) {
  REPTX_TRACE(cuStreamBeginCaptureToGraph_ptsz, hStream, hGraph, dependencies, dependencyData,
              numDependencies, mode);
  hStream = perThreadDefault(hStream);
  return beginCaptureToGraph(hStream, hGraph, dependencies, dependencyData, numDependencies, mode);
}

// The graph of a capture that every joined stream has rejoined; an invalidated or unjoined
// capture ends without one.
static CUresult endCaptureCall(CUstream S, CUgraph *Out) {
  if (!Out)
    return CUDA_ERROR_INVALID_VALUE;
  Context *C;
  if (CUresult R = streamContext(S, C))
    return R;
  Stream *St = asStream(S);
  std::lock_guard<std::mutex> L(CaptureMutex);
  Capture *Cap = St ? St->Cap : nullptr;
  if (!Cap)
    return CUDA_ERROR_ILLEGAL_STATE;
  if (Cap->Origin != St)
    return CUDA_ERROR_STREAM_CAPTURE_UNMATCHED;
  if (Cap->Mode != CU_STREAM_CAPTURE_MODE_RELAXED && Cap->Thread != std::this_thread::get_id())
    return CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD;
  *Out = nullptr;
  CUresult R = CUDA_SUCCESS;
  if (Cap->Invalidated) {
    R = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
  } else if (!joined(*Cap)) {
    log().error("cuStreamEndCapture: a stream that joined the capture was not joined back");
    R = CUDA_ERROR_STREAM_CAPTURE_UNJOINED;
  } else {
    *Out = Cap->Into ? handle(Cap->Into) : handle(Cap->G.release());
  }
  endCapture(Cap);
  return R;
}

CUresult cuStreamEndCapture(CUstream hStream, CUgraph *phGraph) {
  REPTX_TRACE(cuStreamEndCapture, hStream, phGraph);
  return endCaptureCall(hStream, phGraph);
}
CUresult cuStreamEndCapture_ptsz(CUstream hStream, CUgraph *phGraph) {
  REPTX_TRACE(cuStreamEndCapture_ptsz, hStream, phGraph);
  hStream = perThreadDefault(hStream);
  return endCaptureCall(hStream, phGraph);
}

static CUresult captureInfo(CUstream S, CUstreamCaptureStatus *Status, cuuint64_t *Id, CUgraph *G,
                            const CUgraphNode **Deps, const CUgraphEdgeData **Edges,
                            size_t *NumDeps) {
  Context *C;
  if (CUresult R = streamContext(S, C))
    return R;
  if (!Status || (Edges && !Deps))
    return CUDA_ERROR_INVALID_VALUE;
  if (!captureOf(S)) {
    *Status = CU_STREAM_CAPTURE_STATUS_NONE;
    return CUDA_SUCCESS;
  }
  std::lock_guard<std::mutex> L(CaptureMutex);
  Stream *St = asStream(S);
  Capture *Cap = St->Cap;
  if (!Cap) {
    *Status = CU_STREAM_CAPTURE_STATUS_NONE;
    return CUDA_SUCCESS;
  }
  *Status =
      Cap->Invalidated ? CU_STREAM_CAPTURE_STATUS_INVALIDATED : CU_STREAM_CAPTURE_STATUS_ACTIVE;
  if (Id)
    *Id = Cap->Id;
  if (G)
    *G = handle(&Cap->graph());
  if (Deps)
    *Deps = reinterpret_cast<const CUgraphNode *>(St->CaptureDeps.data());
  if (Edges) {
    // One per dependency; all zero (full dependencies) unless some were given data.
    struct ZeroEdges {
      std::vector<CUgraphEdgeData> Edges;
    };
    std::vector<CUgraphEdgeData> &Zero = threadObject<ZeroEdges>().Edges;
    Zero.assign(St->CaptureDeps.size(), CUgraphEdgeData{});
    *Edges = St->CaptureEdges.empty() ? Zero.data() : St->CaptureEdges.data();
  }
  if (NumDeps)
    *NumDeps = St->CaptureDeps.size();
  return CUDA_SUCCESS;
}

CUresult cuStreamGetCaptureInfo(CUstream hStream, CUstreamCaptureStatus *captureStatus_out,
                                cuuint64_t *id_out) {
  REPTX_TRACE(cuStreamGetCaptureInfo, hStream, captureStatus_out, id_out);
  return captureInfo(hStream, captureStatus_out, id_out, nullptr, nullptr, nullptr, nullptr);
}
CUresult cuStreamGetCaptureInfo_ptsz(CUstream hStream, CUstreamCaptureStatus *captureStatus_out,
                                     cuuint64_t *id_out) {
  REPTX_TRACE(cuStreamGetCaptureInfo_ptsz, hStream, captureStatus_out, id_out);
  hStream = perThreadDefault(hStream);
  return captureInfo(hStream, captureStatus_out, id_out, nullptr, nullptr, nullptr, nullptr);
}
CUresult cuStreamGetCaptureInfo_v2(CUstream hStream, CUstreamCaptureStatus *captureStatus_out,
                                   cuuint64_t *id_out, CUgraph *graph_out,
                                   const CUgraphNode **dependencies_out,
                                   size_t *numDependencies_out) {
  REPTX_TRACE(cuStreamGetCaptureInfo_v2, hStream, captureStatus_out, id_out, graph_out,
              dependencies_out, numDependencies_out);
  return captureInfo(hStream, captureStatus_out, id_out, graph_out, dependencies_out, nullptr,
                     numDependencies_out);
}
CUresult cuStreamGetCaptureInfo_v2_ptsz(CUstream hStream, CUstreamCaptureStatus *captureStatus_out,
                                        cuuint64_t *id_out, CUgraph *graph_out,
                                        const CUgraphNode **dependencies_out,
                                        size_t *numDependencies_out) {
  REPTX_TRACE(cuStreamGetCaptureInfo_v2_ptsz, hStream, captureStatus_out, id_out, graph_out,
              dependencies_out, numDependencies_out);
  hStream = perThreadDefault(hStream);
  return captureInfo(hStream, captureStatus_out, id_out, graph_out, dependencies_out, nullptr,
                     numDependencies_out);
}
CUresult cuStreamGetCaptureInfo_v3(CUstream hStream, CUstreamCaptureStatus *captureStatus_out,
                                   cuuint64_t *id_out, CUgraph *graph_out,
                                   const CUgraphNode **dependencies_out,
                                   const CUgraphEdgeData **edgeData_out,
                                   size_t *numDependencies_out) {
  REPTX_TRACE(cuStreamGetCaptureInfo_v3, hStream, captureStatus_out, id_out, graph_out,
              dependencies_out, edgeData_out, numDependencies_out);
  return captureInfo(hStream, captureStatus_out, id_out, graph_out, dependencies_out, edgeData_out,
                     numDependencies_out);
}
CUresult cuStreamGetCaptureInfo_v3_ptsz(CUstream hStream, CUstreamCaptureStatus *captureStatus_out,
                                        cuuint64_t *id_out, CUgraph *graph_out,
                                        const CUgraphNode **dependencies_out,
                                        const CUgraphEdgeData **edgeData_out,
                                        size_t *numDependencies_out) {
  REPTX_TRACE(cuStreamGetCaptureInfo_v3_ptsz, hStream, captureStatus_out, id_out, graph_out,
              dependencies_out, edgeData_out, numDependencies_out);
  hStream = perThreadDefault(hStream);
  return captureInfo(hStream, captureStatus_out, id_out, graph_out, dependencies_out, edgeData_out,
                     numDependencies_out);
}

static CUresult updateCaptureDeps(CUstream S, CUgraphNode *Deps, size_t N, unsigned Flags,
                                  const CUgraphEdgeData *Edges = nullptr) {
  Context *C;
  if (CUresult R = streamContext(S, C))
    return R;
  if ((N && !Deps) || Flags > CU_STREAM_SET_CAPTURE_DEPENDENCIES)
    return CUDA_ERROR_INVALID_VALUE;
  Stream *St = asStream(S);
  std::lock_guard<std::mutex> L(CaptureMutex);
  if (!St || !St->Cap)
    return CUDA_ERROR_ILLEGAL_STATE;
  std::vector<GraphNode *> New;
  for (size_t I = 0; I < N; ++I) {
    GraphNode *Node = asNode(Deps[I]);
    if (!Node || Node->Owner != &St->Cap->graph() || (Edges && !validCaptureEdge(*Node, Edges[I])))
      return CUDA_ERROR_INVALID_VALUE;
    New.push_back(Node);
  }
  if (Flags == CU_STREAM_SET_CAPTURE_DEPENDENCIES)
    setCaptureDeps(*St, {});
  for (size_t I = 0; I < New.size(); ++I)
    addCaptureDep(*St, New[I], Edges ? Edges[I] : CUgraphEdgeData{});
  return CUDA_SUCCESS;
}

CUresult cuStreamUpdateCaptureDependencies(CUstream hStream, CUgraphNode *dependencies,
                                           size_t numDependencies, unsigned int flags) {
  REPTX_TRACE(cuStreamUpdateCaptureDependencies, hStream, dependencies, numDependencies, flags);
  return updateCaptureDeps(hStream, dependencies, numDependencies, flags);
}
CUresult cuStreamUpdateCaptureDependencies_ptsz(CUstream hStream, CUgraphNode *dependencies,
                                                size_t numDependencies, unsigned int flags) {
  REPTX_TRACE(cuStreamUpdateCaptureDependencies_ptsz, hStream, dependencies, numDependencies,
              flags);
  hStream = perThreadDefault(hStream);
  return updateCaptureDeps(hStream, dependencies, numDependencies, flags);
}
CUresult cuStreamUpdateCaptureDependencies_v2(CUstream hStream, CUgraphNode *dependencies,
                                              const CUgraphEdgeData *dependencyData,
                                              size_t numDependencies, unsigned int flags) {
  REPTX_TRACE(cuStreamUpdateCaptureDependencies_v2, hStream, dependencies, dependencyData,
              numDependencies, flags);
  return updateCaptureDeps(hStream, dependencies, numDependencies, flags, dependencyData);
}
CUresult cuStreamUpdateCaptureDependencies_v2_ptsz(CUstream hStream, CUgraphNode *dependencies,
                                                   const CUgraphEdgeData *dependencyData,
                                                   size_t numDependencies, unsigned int flags) {
  REPTX_TRACE(cuStreamUpdateCaptureDependencies_v2_ptsz, hStream, dependencies, dependencyData,
              numDependencies, flags);
  hStream = perThreadDefault(hStream);
  return updateCaptureDeps(hStream, dependencies, numDependencies, flags, dependencyData);
}

CUresult cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode *mode) {
  REPTX_TRACE(cuThreadExchangeStreamCaptureMode, mode);
  if (!mode ||
      (*mode != CU_STREAM_CAPTURE_MODE_GLOBAL && *mode != CU_STREAM_CAPTURE_MODE_THREAD_LOCAL &&
       *mode != CU_STREAM_CAPTURE_MODE_RELAXED))
    return CUDA_ERROR_INVALID_VALUE;
  std::swap(*mode, ThreadMode);
  return CUDA_SUCCESS;
}

// ------------------------------------------------------------------ building graphs

CUresult cuGraphCreate(CUgraph *phGraph, unsigned int flags) {
  REPTX_TRACE(cuGraphCreate, phGraph, flags);
  if (!phGraph || flags)
    return CUDA_ERROR_INVALID_VALUE;
  *phGraph = handle(new Graph);
  return CUDA_SUCCESS;
}

CUresult cuGraphDestroy(CUgraph hGraph) {
  REPTX_TRACE(cuGraphDestroy, hGraph);
  Graph *G = asGraph(hGraph);
  if (!G || G->NodeOwned) // a node's child or body graph goes with its node
    return CUDA_ERROR_INVALID_VALUE;
  delete G;
  return CUDA_SUCCESS;
}

CUresult cuGraphClone(CUgraph *phGraphClone, CUgraph originalGraph) {
  REPTX_TRACE(cuGraphClone, phGraphClone, originalGraph);
  Graph *G = asGraph(originalGraph);
  if (!phGraphClone || !G)
    return CUDA_ERROR_INVALID_VALUE;
  std::unordered_map<const GraphNode *, GraphNode *> Map;
  auto C = cloneGraph(*G, Map);
  C->Originals = std::move(Map);
  *phGraphClone = handle(C.release());
  return CUDA_SUCCESS;
}

CUresult cuGraphNodeFindInClone(CUgraphNode *phNode, CUgraphNode hOriginalNode,
                                CUgraph hClonedGraph) {
  REPTX_TRACE(cuGraphNodeFindInClone, phNode, hOriginalNode, hClonedGraph);
  Graph *G = asGraph(hClonedGraph);
  if (!phNode || !G)
    return CUDA_ERROR_INVALID_VALUE;
  auto It = G->Originals.find(reinterpret_cast<const GraphNode *>(hOriginalNode));
  if (It == G->Originals.end() || !asNode(handle(It->second)))
    return CUDA_ERROR_INVALID_VALUE;
  *phNode = handle(It->second);
  return CUDA_SUCCESS;
}

namespace {

// Adds a node to a graph after the given nodes of the same graph (no repeats), with the data of
// those edges when given (cuGraphAddNode_v2; null: full dependencies).
CUresult addNode(CUgraphNode *Out, CUgraph H, const CUgraphNode *Deps, size_t NumDeps,
                 std::unique_ptr<GraphNode> N, const CUgraphEdgeData *Edges = nullptr) {
  Graph *G = asGraph(H);
  std::vector<GraphNode *> D;
  if (!Out || !G || !nodesOf(*G, Deps, NumDeps, D))
    return CUDA_ERROR_INVALID_VALUE;
  for (size_t I = 0; Edges && I < D.size(); ++I)
    if (!validEdge(*D[I], N->Type, Edges[I]))
      return CUDA_ERROR_INVALID_VALUE;
  if (!N->Ctx)
    N->Ctx = currentContext();
  GraphNode *Node = G->add(std::move(N), D);
  for (size_t I = 0; Edges && I < D.size(); ++I)
    setEdgeData(*Node, D[I], Edges[I]);
  *Out = handle(Node);
  return CUDA_SUCCESS;
}

// A kernel node's launch from either layout of CUDA_KERNEL_NODE_PARAMS: the arguments are copied.
template <typename P> CUresult setKernel(GraphNode &N, const P *Params, CUkernel Kern) {
  if (!Params)
    return CUDA_ERROR_INVALID_VALUE;
  Kernel *K = asKernel(Params->func ? static_cast<const void *>(Params->func)
                                    : static_cast<const void *>(Kern));
  if (!K)
    return CUDA_ERROR_INVALID_VALUE;
  std::vector<uint8_t> Args;
  if (CUresult R = kernelArgs(*K, Params->kernelParams, Params->extra, Args))
    return R;
  N.Type = CU_GRAPH_NODE_TYPE_KERNEL;
  N.K = K;
  // The cooperative attribute (cuGraphKernelNodeSetAttribute) stays with the node.
  N.Dims = {Params->gridDimX,  Params->gridDimY,  Params->gridDimZ,       Params->blockDimX,
            Params->blockDimY, Params->blockDimZ, Params->sharedMemBytes, N.Dims.Cooperative};
  N.Args = std::move(Args);
  N.pointAtArgs();
  return CUDA_SUCCESS;
}

template <typename P> CUresult getKernel(CUgraphNode H, P *Out) {
  GraphNode *N = asNode(H);
  if (!N || !Out || N->Type != CU_GRAPH_NODE_TYPE_KERNEL)
    return CUDA_ERROR_INVALID_VALUE;
  Out->func = reinterpret_cast<CUfunction>(N->K);
  Out->gridDimX = N->Dims.GridX;
  Out->gridDimY = N->Dims.GridY;
  Out->gridDimZ = N->Dims.GridZ;
  Out->blockDimX = N->Dims.BlockX;
  Out->blockDimY = N->Dims.BlockY;
  Out->blockDimZ = N->Dims.BlockZ;
  Out->sharedMemBytes = N->Dims.DynamicShared;
  Out->kernelParams = N->ArgPointers.empty() ? nullptr : N->ArgPointers.data();
  Out->extra = nullptr;
  return CUDA_SUCCESS;
}

CUkernel kernOf(const CUDA_KERNEL_NODE_PARAMS_v1 *) { return nullptr; }
CUkernel kernOf(const CUDA_KERNEL_NODE_PARAMS_v2 *P) { return P ? P->kern : nullptr; }

template <typename P>
CUresult addKernelNode(CUgraphNode *Out, CUgraph G, const CUgraphNode *Deps, size_t NumDeps,
                       const P *Params) {
  auto N = std::make_unique<GraphNode>();
  if (CUresult R = setKernel(*N, Params, kernOf(Params)))
    return R;
  return addNode(Out, G, Deps, NumDeps, std::move(N));
}

template <typename P> CUresult setKernelNode(CUgraphNode H, const P *Params) {
  GraphNode *N = asNode(H);
  if (!N || N->Type != CU_GRAPH_NODE_TYPE_KERNEL)
    return CUDA_ERROR_INVALID_VALUE;
  return setKernel(*N, Params, kernOf(Params));
}

// The checks of a copy, memset and host node's parameters.
bool validParams(const CUDA_MEMCPY3D *P) { return P && !P->reserved0 && !P->reserved1; }
bool validParams(const CUDA_MEMSET_NODE_PARAMS *P) {
  return P && P->dst && (P->elementSize == 1 || P->elementSize == 2 || P->elementSize == 4);
}
bool validParams(const CUDA_HOST_NODE_PARAMS *P) { return P && P->fn; }

// A node of type T whose parameters are Field: added to a graph, read, or written (in a graph's
// node or an executable's copy).
template <typename P>
CUresult addParamsNode(CUgraphNode *Out, CUgraph G, const CUgraphNode *Deps, size_t NumDeps,
                       CUgraphNodeType T, P GraphNode::*Field, const P *In, CUcontext Ctx) {
  if (!validParams(In))
    return CUDA_ERROR_INVALID_VALUE;
  auto N = std::make_unique<GraphNode>();
  N->Type = T;
  N->Ctx = reinterpret_cast<Context *>(Ctx);
  N.get()->*Field = *In;
  return addNode(Out, G, Deps, NumDeps, std::move(N));
}
template <typename P>
CUresult readParams(GraphNode *N, CUgraphNodeType T, P GraphNode::*Field, P *Out) {
  if (!N || N->Type != T || !Out)
    return CUDA_ERROR_INVALID_VALUE;
  *Out = N->*Field;
  return CUDA_SUCCESS;
}
template <typename P>
CUresult writeParams(GraphNode *N, CUgraphNodeType T, P GraphNode::*Field, const P *In) {
  if (!N || N->Type != T || !validParams(In))
    return CUDA_ERROR_INVALID_VALUE;
  N->*Field = *In;
  return CUDA_SUCCESS;
}

CUresult addChildGraphNode(CUgraphNode *Out, CUgraph H, const CUgraphNode *Deps, size_t NumDeps,
                           CUgraph ChildGraph) {
  Graph *Child = asGraph(ChildGraph);
  if (!Child || Child == asGraph(H) || Child->Moved)
    return CUDA_ERROR_INVALID_VALUE;
  auto N = std::make_unique<GraphNode>();
  N->Type = CU_GRAPH_NODE_TYPE_GRAPH;
  std::unordered_map<const GraphNode *, GraphNode *> Map; // the child is copied
  N->Child = cloneGraph(*Child, Map);
  N->Child->NodeOwned = true;
  return addNode(Out, H, Deps, NumDeps, std::move(N));
}

// Whether G holds Inner among its nodes' child and body graphs, at any depth.
bool holds(const Graph &G, const Graph *Inner) {
  for (const auto &N : G.Nodes) {
    if (N->Child && (N->Child.get() == Inner || holds(*N->Child, Inner)))
      return true;
    for (const auto &Body : N->Bodies)
      if (Body.get() == Inner || holds(*Body, Inner))
        return true;
  }
  return false;
}

// A child graph node that takes the graph itself (CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE): the
// graph is the node's from then on, goes with it, and is what cuGraphChildGraphNodeGetGraph
// answers. A graph that is a node's already, the parent itself, or one holding the parent is
// refused.
CUresult addMovedChildGraphNode(CUgraphNode *Out, CUgraph H, const CUgraphNode *Deps,
                                size_t NumDeps, CUgraph ChildGraph) {
  Graph *Child = asGraph(ChildGraph), *Parent = asGraph(H);
  std::vector<GraphNode *> D;
  if (!Out || !Child || !Parent || Child == Parent || Child->NodeOwned || holds(*Child, Parent) ||
      !nodesOf(*Parent, Deps, NumDeps, D))
    return CUDA_ERROR_INVALID_VALUE; // checked first: a refused node must not take the graph
  auto N = std::make_unique<GraphNode>();
  N->Type = CU_GRAPH_NODE_TYPE_GRAPH;
  N->Child.reset(Child);
  Child->NodeOwned = Child->Moved = true;
  return addNode(Out, H, Deps, NumDeps, std::move(N));
}

// The node of type T (a graph's, or an executable's copy of it).
GraphNode *nodeOfType(CUgraphNode H, CUgraphNodeType T) {
  GraphNode *N = asNode(H);
  return N && N->Type == T ? N : nullptr;
}

} // namespace

CUresult cuGraphAddKernelNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                              const CUgraphNode *dependencies, size_t numDependencies,
                              const CUDA_KERNEL_NODE_PARAMS_v1 *nodeParams) {
  REPTX_TRACE(cuGraphAddKernelNode, phGraphNode, hGraph, dependencies, numDependencies, nodeParams);
  return addKernelNode(phGraphNode, hGraph, dependencies, numDependencies, nodeParams);
}
CUresult cuGraphAddKernelNode_v2(CUgraphNode *phGraphNode, CUgraph hGraph,
                                 const CUgraphNode *dependencies, size_t numDependencies,
                                 const CUDA_KERNEL_NODE_PARAMS_v2 *nodeParams) {
  REPTX_TRACE(cuGraphAddKernelNode_v2, phGraphNode, hGraph, dependencies, numDependencies,
              nodeParams);
  return addKernelNode(phGraphNode, hGraph, dependencies, numDependencies, nodeParams);
}
CUresult cuGraphKernelNodeGetParams(CUgraphNode hNode, CUDA_KERNEL_NODE_PARAMS_v1 *nodeParams) {
  REPTX_TRACE(cuGraphKernelNodeGetParams, hNode, nodeParams);
  return getKernel(hNode, nodeParams);
}
CUresult cuGraphKernelNodeGetParams_v2(CUgraphNode hNode, CUDA_KERNEL_NODE_PARAMS_v2 *nodeParams) {
  REPTX_TRACE(cuGraphKernelNodeGetParams_v2, hNode, nodeParams);
  if (CUresult R = getKernel(hNode, nodeParams))
    return R;
  // A CUkernel and a CUfunction are one object: cudart finds its entry function by the kernel.
  nodeParams->kern = reinterpret_cast<CUkernel>(asNode(hNode)->K);
  nodeParams->ctx = reinterpret_cast<CUcontext>(asNode(hNode)->Ctx);
  return CUDA_SUCCESS;
}
CUresult cuGraphKernelNodeSetParams(CUgraphNode hNode,
                                    const CUDA_KERNEL_NODE_PARAMS_v1 *nodeParams) {
  REPTX_TRACE(cuGraphKernelNodeSetParams, hNode, nodeParams);
  return setKernelNode(hNode, nodeParams);
}
CUresult cuGraphKernelNodeSetParams_v2(CUgraphNode hNode,
                                       const CUDA_KERNEL_NODE_PARAMS_v2 *nodeParams) {
  REPTX_TRACE(cuGraphKernelNodeSetParams_v2, hNode, nodeParams);
  return setKernelNode(hNode, nodeParams);
}

CUresult cuGraphAddMemcpyNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                              const CUgraphNode *dependencies, size_t numDependencies,
                              const CUDA_MEMCPY3D *copyParams, CUcontext ctx) {
  REPTX_TRACE(cuGraphAddMemcpyNode, phGraphNode, hGraph, dependencies, numDependencies, copyParams,
              ctx);
  return addParamsNode(phGraphNode, hGraph, dependencies, numDependencies,
                       CU_GRAPH_NODE_TYPE_MEMCPY, &GraphNode::Copy, copyParams, ctx);
}
CUresult cuGraphMemcpyNodeGetParams(CUgraphNode hNode, CUDA_MEMCPY3D *nodeParams) {
  REPTX_TRACE(cuGraphMemcpyNodeGetParams, hNode, nodeParams);
  return readParams(asNode(hNode), CU_GRAPH_NODE_TYPE_MEMCPY, &GraphNode::Copy, nodeParams);
}
CUresult cuGraphMemcpyNodeSetParams(CUgraphNode hNode, const CUDA_MEMCPY3D *nodeParams) {
  REPTX_TRACE(cuGraphMemcpyNodeSetParams, hNode, nodeParams);
  return writeParams(asNode(hNode), CU_GRAPH_NODE_TYPE_MEMCPY, &GraphNode::Copy, nodeParams);
}

CUresult cuGraphAddMemsetNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                              const CUgraphNode *dependencies, size_t numDependencies,
                              const CUDA_MEMSET_NODE_PARAMS *memsetParams, CUcontext ctx) {
  REPTX_TRACE(cuGraphAddMemsetNode, phGraphNode, hGraph, dependencies, numDependencies,
              memsetParams, ctx);
  return addParamsNode(phGraphNode, hGraph, dependencies, numDependencies,
                       CU_GRAPH_NODE_TYPE_MEMSET, &GraphNode::Fill, memsetParams, ctx);
}
CUresult cuGraphMemsetNodeGetParams(CUgraphNode hNode, CUDA_MEMSET_NODE_PARAMS *nodeParams) {
  REPTX_TRACE(cuGraphMemsetNodeGetParams, hNode, nodeParams);
  return readParams(asNode(hNode), CU_GRAPH_NODE_TYPE_MEMSET, &GraphNode::Fill, nodeParams);
}
CUresult cuGraphMemsetNodeSetParams(CUgraphNode hNode, const CUDA_MEMSET_NODE_PARAMS *nodeParams) {
  REPTX_TRACE(cuGraphMemsetNodeSetParams, hNode, nodeParams);
  return writeParams(asNode(hNode), CU_GRAPH_NODE_TYPE_MEMSET, &GraphNode::Fill, nodeParams);
}

CUresult cuGraphAddHostNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                            const CUgraphNode *dependencies, size_t numDependencies,
                            const CUDA_HOST_NODE_PARAMS *nodeParams) {
  REPTX_TRACE(cuGraphAddHostNode, phGraphNode, hGraph, dependencies, numDependencies, nodeParams);
  return addParamsNode(phGraphNode, hGraph, dependencies, numDependencies, CU_GRAPH_NODE_TYPE_HOST,
                       &GraphNode::Host, nodeParams, nullptr);
}
CUresult cuGraphHostNodeGetParams(CUgraphNode hNode, CUDA_HOST_NODE_PARAMS *nodeParams) {
  REPTX_TRACE(cuGraphHostNodeGetParams, hNode, nodeParams);
  return readParams(asNode(hNode), CU_GRAPH_NODE_TYPE_HOST, &GraphNode::Host, nodeParams);
}
CUresult cuGraphHostNodeSetParams(CUgraphNode hNode, const CUDA_HOST_NODE_PARAMS *nodeParams) {
  REPTX_TRACE(cuGraphHostNodeSetParams, hNode, nodeParams);
  return writeParams(asNode(hNode), CU_GRAPH_NODE_TYPE_HOST, &GraphNode::Host, nodeParams);
}

CUresult cuGraphAddChildGraphNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                  const CUgraphNode *dependencies, size_t numDependencies,
                                  CUgraph childGraph) {
  REPTX_TRACE(cuGraphAddChildGraphNode, phGraphNode, hGraph, dependencies, numDependencies,
              childGraph);
  return addChildGraphNode(phGraphNode, hGraph, dependencies, numDependencies, childGraph);
}
CUresult cuGraphChildGraphNodeGetGraph(CUgraphNode hNode, CUgraph *phGraph) {
  REPTX_TRACE(cuGraphChildGraphNodeGetGraph, hNode, phGraph);
  GraphNode *N = nodeOfType(hNode, CU_GRAPH_NODE_TYPE_GRAPH);
  if (!N || !phGraph)
    return CUDA_ERROR_INVALID_VALUE;
  *phGraph = handle(N->Child.get());
  return CUDA_SUCCESS;
}

CUresult cuGraphAddEmptyNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                             const CUgraphNode *dependencies, size_t numDependencies) {
  REPTX_TRACE(cuGraphAddEmptyNode, phGraphNode, hGraph, dependencies, numDependencies);
  return addNode(phGraphNode, hGraph, dependencies, numDependencies, std::make_unique<GraphNode>());
}

static CUresult addEventNode(CUgraphNode *Out, CUgraph G, const CUgraphNode *Deps, size_t NumDeps,
                             CUevent E, CUgraphNodeType Type) {
  Event *Ev = asEvent(E);
  if (!Ev)
    return CUDA_ERROR_INVALID_VALUE;
  auto N = std::make_unique<GraphNode>();
  N->Type = Type;
  N->Ev = Ev;
  return addNode(Out, G, Deps, NumDeps, std::move(N));
}
static CUresult nodeEvent(CUgraphNode H, CUgraphNodeType Type, CUevent *Out) {
  GraphNode *N = nodeOfType(H, Type);
  if (!N || !Out)
    return CUDA_ERROR_INVALID_VALUE;
  *Out = reinterpret_cast<CUevent>(N->Ev);
  return CUDA_SUCCESS;
}
static CUresult setNodeEvent(GraphNode *N, CUgraphNodeType Type, CUevent E) {
  Event *Ev = asEvent(E);
  if (!N || N->Type != Type || !Ev)
    return CUDA_ERROR_INVALID_VALUE;
  N->Ev = Ev;
  return CUDA_SUCCESS;
}

CUresult cuGraphAddEventRecordNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                   const CUgraphNode *dependencies, size_t numDependencies,
                                   CUevent event) {
  REPTX_TRACE(cuGraphAddEventRecordNode, phGraphNode, hGraph, dependencies, numDependencies, event);
  return addEventNode(phGraphNode, hGraph, dependencies, numDependencies, event,
                      CU_GRAPH_NODE_TYPE_EVENT_RECORD);
}
CUresult cuGraphEventRecordNodeGetEvent(CUgraphNode hNode, CUevent *event_out) {
  REPTX_TRACE(cuGraphEventRecordNodeGetEvent, hNode, event_out);
  return nodeEvent(hNode, CU_GRAPH_NODE_TYPE_EVENT_RECORD, event_out);
}
CUresult cuGraphEventRecordNodeSetEvent(CUgraphNode hNode, CUevent event) {
  REPTX_TRACE(cuGraphEventRecordNodeSetEvent, hNode, event);
  return setNodeEvent(asNode(hNode), CU_GRAPH_NODE_TYPE_EVENT_RECORD, event);
}
CUresult cuGraphAddEventWaitNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                 const CUgraphNode *dependencies, size_t numDependencies,
                                 CUevent event) {
  REPTX_TRACE(cuGraphAddEventWaitNode, phGraphNode, hGraph, dependencies, numDependencies, event);
  return addEventNode(phGraphNode, hGraph, dependencies, numDependencies, event,
                      CU_GRAPH_NODE_TYPE_WAIT_EVENT);
}
CUresult cuGraphEventWaitNodeGetEvent(CUgraphNode hNode, CUevent *event_out) {
  REPTX_TRACE(cuGraphEventWaitNodeGetEvent, hNode, event_out);
  return nodeEvent(hNode, CU_GRAPH_NODE_TYPE_WAIT_EVENT, event_out);
}
CUresult cuGraphEventWaitNodeSetEvent(CUgraphNode hNode, CUevent event) {
  REPTX_TRACE(cuGraphEventWaitNodeSetEvent, hNode, event);
  return setNodeEvent(asNode(hNode), CU_GRAPH_NODE_TYPE_WAIT_EVENT, event);
}

// cuGraphAddMemAllocNode: pinned device memory of device 0, allocated now and the graph's (its
// clones' and executables') until the last of them goes, as a captured cuMemAllocAsync's.
static CUresult addMemAllocNode(CUgraphNode *Out, CUgraph H, const CUgraphNode *Deps,
                                size_t NumDeps, CUDA_MEM_ALLOC_NODE_PARAMS *P) {
  if (!P || !P->bytesize || P->poolProps.allocType != CU_MEM_ALLOCATION_TYPE_PINNED ||
      P->poolProps.location.type != CU_MEM_LOCATION_TYPE_DEVICE || P->poolProps.location.id != 0 ||
      (P->accessDescCount && !P->accessDescs))
    return CUDA_ERROR_INVALID_VALUE;
  Context *C = currentContext();
  if (!C)
    return CUDA_ERROR_INVALID_CONTEXT;
  if (!asGraph(H) || asGraph(H)->Moved)
    return CUDA_ERROR_INVALID_VALUE;
  auto N = allocNode(C, P->bytesize, "cuGraphAddMemAllocNode");
  if (!N)
    return CUDA_ERROR_OUT_OF_MEMORY;
  CUdeviceptr A = N->Memory->Ptr;
  if (CUresult R = addNode(Out, H, Deps, NumDeps, std::move(N)))
    return R;
  P->dptr = A;
  return CUDA_SUCCESS;
}
static CUresult addMemFreeNode(CUgraphNode *Out, CUgraph H, const CUgraphNode *Deps, size_t NumDeps,
                               CUdeviceptr Ptr) {
  if (!Ptr || (asGraph(H) && asGraph(H)->Moved))
    return CUDA_ERROR_INVALID_VALUE;
  auto N = std::make_unique<GraphNode>();
  N->Type = CU_GRAPH_NODE_TYPE_MEM_FREE;
  N->FreePtr = Ptr;
  return addNode(Out, H, Deps, NumDeps, std::move(N));
}

// ------------------------------------------------------------------ cuGraphAddNode, conditions

// A conditional node: its handle must have been made for the graph; its bodies are new empty
// graphs that the node owns, returned in P.phGraph_out.
static CUresult addConditionalNode(CUgraphNode *Out, CUgraph H, const CUgraphNode *Deps,
                                   size_t NumDeps, CUDA_CONDITIONAL_NODE_PARAMS &P) {
  Graph *G = asGraph(H);
  if (!G)
    return CUDA_ERROR_INVALID_VALUE;
  bool Known = std::any_of(G->Handles.begin(), G->Handles.end(),
                           [&](const auto &C) { return C->Ptr == P.handle; });
  unsigned Max = P.type == CU_GRAPH_COND_TYPE_IF       ? 2
                 : P.type == CU_GRAPH_COND_TYPE_WHILE  ? 1
                 : P.type == CU_GRAPH_COND_TYPE_SWITCH ? 65536
                                                       : 0;
  if (!Known || !P.size || P.size > Max) {
    log().error("cuGraphAddNode: conditional node with {}", !Known
                                                                ? "a handle not made for its graph"
                                                                : "a number of bodies its type "
                                                                  "does not allow");
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (P.ctx && !Driver::get().validContext(P.ctx))
    return CUDA_ERROR_INVALID_CONTEXT;
  auto N = std::make_unique<GraphNode>();
  N->Type = CU_GRAPH_NODE_TYPE_CONDITIONAL;
  N->Ctx = reinterpret_cast<Context *>(P.ctx);
  N->Condition = P.handle;
  N->ConditionType = P.type;
  for (unsigned I = 0; I < P.size; ++I) {
    N->Bodies.push_back(std::make_unique<Graph>());
    N->Bodies.back()->NodeOwned = true;
    N->BodyHandles.push_back(handle(N->Bodies.back().get()));
  }
  GraphNode *Made = N.get();
  if (CUresult R = addNode(Out, H, Deps, NumDeps, std::move(N)))
    return R;
  P.phGraph_out = Made->BodyHandles.data();
  return CUDA_SUCCESS;
}

// A batch memory operation node's operations and context, checked as cuStreamBatchMemOp checks
// them; a null context is the current one.
static CUresult setMemOps(GraphNode &N, const CUDA_BATCH_MEM_OP_NODE_PARAMS *P) {
  if (!P)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult R = checkBatchMemOps(P->count, P->paramArray, P->flags))
    return R;
  Context *C = P->ctx ? reinterpret_cast<Context *>(P->ctx) : currentContext();
  if (!C || (P->ctx && !Driver::get().validContext(P->ctx)))
    return CUDA_ERROR_INVALID_CONTEXT;
  N.Type = CU_GRAPH_NODE_TYPE_BATCH_MEM_OP;
  N.Ctx = C;
  N.MemOps.assign(P->paramArray, P->paramArray + P->count);
  N.MemOpFlags = P->flags;
  return CUDA_SUCCESS;
}

static CUresult addBatchMemOpNode(CUgraphNode *Out, CUgraph H, const CUgraphNode *Deps,
                                  size_t NumDeps, const CUDA_BATCH_MEM_OP_NODE_PARAMS *P) {
  auto N = std::make_unique<GraphNode>();
  if (CUresult R = setMemOps(*N, P))
    return R;
  return addNode(Out, H, Deps, NumDeps, std::move(N));
}

static CUresult addTypedNode(CUgraphNode *Out, CUgraph H, const CUgraphNode *Deps, size_t NumDeps,
                             CUgraphNodeParams *P);

// cuGraphAddNode(_v2): a node of any type reptx has, from the generic description, with edge data
// when given.
static CUresult addNodeOfParams(CUgraphNode *Out, CUgraph H, const CUgraphNode *Deps,
                                const CUgraphEdgeData *Edges, size_t NumDeps,
                                CUgraphNodeParams *P) {
  if (!Out || !P || P->reserved0[0] || P->reserved0[1] || P->reserved0[2] || P->reserved2)
    return CUDA_ERROR_INVALID_VALUE;
  if (P->type == CU_GRAPH_NODE_TYPE_KERNEL) {
    auto N = std::make_unique<GraphNode>();
    if (CUresult R = setKernel(*N, &P->kernel, P->kernel.kern))
      return R;
    if (!P->kernel.func && P->kernel.ctx)
      N->Ctx = reinterpret_cast<Context *>(P->kernel.ctx);
    return addNode(Out, H, Deps, NumDeps, std::move(N), Edges); // programmatic edges allowed
  }
  // Into any other node, edges are full dependencies, or edges from a kernel's launch-order port.
  for (size_t I = 0; Edges && I < NumDeps; ++I)
    if (GraphNode *From = Deps ? asNode(Deps[I]) : nullptr;
        From && !validEdge(*From, P->type, Edges[I]))
      return CUDA_ERROR_INVALID_VALUE;
  CUgraphNode Added = nullptr;
  CUresult R = addTypedNode(&Added, H, Deps, NumDeps, P);
  if (R == CUDA_SUCCESS) {
    for (size_t I = 0; Edges && I < NumDeps; ++I)
      setEdgeData(*asNode(Added), asNode(Deps[I]), Edges[I]);
    *Out = Added;
  }
  return R;
}

// cuGraphAddNode's nodes other than kernels.
static CUresult addTypedNode(CUgraphNode *Out, CUgraph H, const CUgraphNode *Deps, size_t NumDeps,
                             CUgraphNodeParams *P) {
  switch (P->type) {
  case CU_GRAPH_NODE_TYPE_MEMCPY:
    if (P->memcpy.flags || P->memcpy.reserved)
      return CUDA_ERROR_INVALID_VALUE;
    return addParamsNode(Out, H, Deps, NumDeps, CU_GRAPH_NODE_TYPE_MEMCPY, &GraphNode::Copy,
                         &P->memcpy.copyParams, P->memcpy.copyCtx);
  case CU_GRAPH_NODE_TYPE_MEMSET: {
    const CUDA_MEMSET_NODE_PARAMS_v2 &M = P->memset;
    CUDA_MEMSET_NODE_PARAMS Fill{M.dst, M.pitch, M.value, M.elementSize, M.width, M.height};
    return addParamsNode(Out, H, Deps, NumDeps, CU_GRAPH_NODE_TYPE_MEMSET, &GraphNode::Fill, &Fill,
                         M.ctx);
  }
  case CU_GRAPH_NODE_TYPE_HOST:
    return addParamsNode(Out, H, Deps, NumDeps, CU_GRAPH_NODE_TYPE_HOST, &GraphNode::Host, &P->host,
                         nullptr);
  case CU_GRAPH_NODE_TYPE_GRAPH:
    if (P->graph.ownership == CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE)
      return addMovedChildGraphNode(Out, H, Deps, NumDeps, P->graph.graph);
    if (P->graph.ownership != CU_GRAPH_CHILD_GRAPH_OWNERSHIP_CLONE)
      return CUDA_ERROR_INVALID_VALUE;
    return addChildGraphNode(Out, H, Deps, NumDeps, P->graph.graph);
  case CU_GRAPH_NODE_TYPE_EMPTY:
    return addNode(Out, H, Deps, NumDeps, std::make_unique<GraphNode>());
  case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
    return addEventNode(Out, H, Deps, NumDeps, P->eventRecord.event,
                        CU_GRAPH_NODE_TYPE_EVENT_RECORD);
  case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
    return addEventNode(Out, H, Deps, NumDeps, P->eventWait.event, CU_GRAPH_NODE_TYPE_WAIT_EVENT);
  case CU_GRAPH_NODE_TYPE_CONDITIONAL:
    return addConditionalNode(Out, H, Deps, NumDeps, P->conditional);
  case CU_GRAPH_NODE_TYPE_MEM_ALLOC:
    return addMemAllocNode(Out, H, Deps, NumDeps, &P->alloc);
  case CU_GRAPH_NODE_TYPE_MEM_FREE:
    return addMemFreeNode(Out, H, Deps, NumDeps, P->free.dptr);
  case CU_GRAPH_NODE_TYPE_BATCH_MEM_OP:
    return addBatchMemOpNode(Out, H, Deps, NumDeps, &P->memOp);
  default:
    log().error("cuGraphAddNode: {} nodes are not supported by reptx", typeName(P->type));
    return CUDA_ERROR_NOT_SUPPORTED;
  }
}

CUresult cuGraphAddBatchMemOpNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                  const CUgraphNode *dependencies, size_t numDependencies,
                                  const CUDA_BATCH_MEM_OP_NODE_PARAMS *nodeParams) {
  REPTX_TRACE(cuGraphAddBatchMemOpNode, phGraphNode, hGraph, dependencies, numDependencies,
              nodeParams);
  return addBatchMemOpNode(phGraphNode, hGraph, dependencies, numDependencies, nodeParams);
}
// The operations' array it returns is the node's own, valid until its parameters change.
CUresult cuGraphBatchMemOpNodeGetParams(CUgraphNode hNode,
                                        CUDA_BATCH_MEM_OP_NODE_PARAMS *nodeParams_out) {
  REPTX_TRACE(cuGraphBatchMemOpNodeGetParams, hNode, nodeParams_out);
  GraphNode *N = nodeOfType(hNode, CU_GRAPH_NODE_TYPE_BATCH_MEM_OP);
  if (!N || !nodeParams_out)
    return CUDA_ERROR_INVALID_VALUE;
  *nodeParams_out = {reinterpret_cast<CUcontext>(N->Ctx), unsigned(N->MemOps.size()),
                     N->MemOps.data(), N->MemOpFlags};
  return CUDA_SUCCESS;
}
CUresult cuGraphBatchMemOpNodeSetParams(CUgraphNode hNode,
                                        const CUDA_BATCH_MEM_OP_NODE_PARAMS *nodeParams) {
  REPTX_TRACE(cuGraphBatchMemOpNodeSetParams, hNode, nodeParams);
  GraphNode *N = nodeOfType(hNode, CU_GRAPH_NODE_TYPE_BATCH_MEM_OP);
  if (!N)
    return CUDA_ERROR_INVALID_VALUE;
  return setMemOps(*N, nodeParams);
}

CUresult cuGraphAddNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                        size_t numDependencies, CUgraphNodeParams *nodeParams) {
  REPTX_TRACE(cuGraphAddNode, phGraphNode, hGraph, dependencies, numDependencies, nodeParams);
  return addNodeOfParams(phGraphNode, hGraph, dependencies, nullptr, numDependencies, nodeParams);
}
CUresult cuGraphAddNode_v2(CUgraphNode *phGraphNode, CUgraph hGraph,
                           const CUgraphNode *dependencies, const CUgraphEdgeData *dependencyData,
                           size_t numDependencies, CUgraphNodeParams *nodeParams) {
  REPTX_TRACE(cuGraphAddNode_v2, phGraphNode, hGraph, dependencies, dependencyData, numDependencies,
              nodeParams);
  return addNodeOfParams(phGraphNode, hGraph, dependencies, dependencyData, numDependencies,
                         nodeParams);
}

CUresult cuGraphConditionalHandleCreate(CUgraphConditionalHandle *pHandle_out, CUgraph hGraph,
                                        CUcontext ctx, unsigned int defaultLaunchValue,
                                        unsigned int flags) {
  REPTX_TRACE(cuGraphConditionalHandleCreate, pHandle_out, hGraph, ctx, defaultLaunchValue, flags);
  Graph *G = asGraph(hGraph);
  if (!pHandle_out || !G || (flags & ~unsigned(CU_GRAPH_COND_ASSIGN_DEFAULT)))
    return CUDA_ERROR_INVALID_VALUE;
  Context *C = ctx ? reinterpret_cast<Context *>(ctx) : currentContext();
  if (!C || (ctx && !Driver::get().validContext(ctx)))
    return CUDA_ERROR_INVALID_CONTEXT;
  auto A = C->Dev->Backend->allocate(sizeof(uint32_t));
  if (!A) {
    log().error("conditional handle: {}", llvm::toString(A.takeError()));
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  auto H = std::make_shared<ConditionalHandle>();
  H->Dev = C->Dev;
  H->Ptr = *A;
  H->Default = defaultLaunchValue;
  H->Flags = flags;
  if (llvm::Error E = C->Dev->Backend->copyToDevice(H->Ptr, &H->Default, sizeof(H->Default))) {
    log().error("conditional handle: {}", llvm::toString(std::move(E)));
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  G->Handles.push_back(std::move(H));
  *pHandle_out = *A;
  return CUDA_SUCCESS;
}

CUresult cuGraphAddMemAllocNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                const CUgraphNode *dependencies, size_t numDependencies,
                                CUDA_MEM_ALLOC_NODE_PARAMS *nodeParams) {
  REPTX_TRACE(cuGraphAddMemAllocNode, phGraphNode, hGraph, dependencies, numDependencies,
              nodeParams);
  return addMemAllocNode(phGraphNode, hGraph, dependencies, numDependencies, nodeParams);
}
CUresult cuGraphMemAllocNodeGetParams(CUgraphNode hNode, CUDA_MEM_ALLOC_NODE_PARAMS *params_out) {
  REPTX_TRACE(cuGraphMemAllocNodeGetParams, hNode, params_out);
  GraphNode *N = nodeOfType(hNode, CU_GRAPH_NODE_TYPE_MEM_ALLOC);
  if (!N || !N->Memory || !params_out)
    return CUDA_ERROR_INVALID_VALUE;
  *params_out = {};
  params_out->poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  params_out->poolProps.location = {CU_MEM_LOCATION_TYPE_DEVICE, 0};
  params_out->bytesize = N->Memory->Bytes;
  params_out->dptr = N->Memory->Ptr;
  return CUDA_SUCCESS;
}
CUresult cuGraphAddMemFreeNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                               const CUgraphNode *dependencies, size_t numDependencies,
                               CUdeviceptr dptr) {
  REPTX_TRACE(cuGraphAddMemFreeNode, phGraphNode, hGraph, dependencies, numDependencies, dptr);
  return addMemFreeNode(phGraphNode, hGraph, dependencies, numDependencies, dptr);
}

CUresult cuGraphMemFreeNodeGetParams(CUgraphNode hNode, CUdeviceptr *dptr_out) {
  REPTX_TRACE(cuGraphMemFreeNodeGetParams, hNode, dptr_out);
  GraphNode *N = nodeOfType(hNode, CU_GRAPH_NODE_TYPE_MEM_FREE);
  if (!N || !dptr_out)
    return CUDA_ERROR_INVALID_VALUE;
  *dptr_out = N->FreePtr;
  return CUDA_SUCCESS;
}

// ------------------------------------------------------------------ graph structure

namespace {

// The list-returning queries' convention: with a null array, the count; otherwise up to *Count
// entries, the rest of the array set to null, and *Count the number written.
template <typename T, typename Fill>
CUresult listOut(T *Array, size_t *Count, size_t Total, Fill F) {
  if (!Count)
    return CUDA_ERROR_INVALID_VALUE;
  if (!Array) {
    *Count = Total;
    return CUDA_SUCCESS;
  }
  size_t N = std::min(*Count, Total);
  for (size_t I = 0; I < N; ++I)
    F(I);
  for (size_t I = N; I < *Count; ++I)
    Array[I] = T{};
  *Count = N;
  return CUDA_SUCCESS;
}

struct Edge {
  GraphNode *From, *To;
};
std::vector<Edge> edgesOf(const Graph &G) {
  std::vector<Edge> E;
  for (const auto &N : G.Nodes)
    for (GraphNode *D : N->Deps)
      E.push_back({D, N.get()});
  return E;
}

CUresult getEdges(CUgraph H, CUgraphNode *From, CUgraphNode *To, CUgraphEdgeData *Data,
                  size_t *Count) {
  Graph *G = asGraph(H);
  if (!G || !Count || (!From != !To))
    return CUDA_ERROR_INVALID_VALUE;
  std::vector<Edge> E = edgesOf(*G);
  for (size_t I = 0; From && Data && I < std::min(*Count, E.size()); ++I)
    Data[I] = edgeData(*E[I].To, E[I].From);
  if (From)
    listOut(To, Count, E.size(), [&](size_t I) { To[I] = handle(E[I].To); });
  return listOut(From, Count, E.size(), [&](size_t I) { From[I] = handle(E[I].From); });
}

CUresult getDependencies(CUgraphNode H, CUgraphNode *Out, CUgraphEdgeData *Data, size_t *Count) {
  GraphNode *N = asNode(H);
  if (!N)
    return CUDA_ERROR_INVALID_VALUE;
  for (size_t I = 0; Out && Data && Count && I < std::min(*Count, N->Deps.size()); ++I)
    Data[I] = edgeData(*N, N->Deps[I]);
  return listOut(Out, Count, N->Deps.size(), [&](size_t I) { Out[I] = handle(N->Deps[I]); });
}

CUresult getDependents(CUgraphNode H, CUgraphNode *Out, CUgraphEdgeData *Data, size_t *Count) {
  GraphNode *N = asNode(H);
  if (!N)
    return CUDA_ERROR_INVALID_VALUE;
  std::vector<GraphNode *> D;
  for (const auto &M : N->Owner->Nodes)
    if (std::find(M->Deps.begin(), M->Deps.end(), N) != M->Deps.end())
      D.push_back(M.get());
  for (size_t I = 0; Out && Data && Count && I < std::min(*Count, D.size()); ++I)
    Data[I] = edgeData(*D[I], N);
  return listOut(Out, Count, D.size(), [&](size_t I) { Out[I] = handle(D[I]); });
}

// Adds (Add) or removes the edges From[i] -> To[i], with their data (null: full dependencies,
// as cuda.h says); an edge is removed only with its own data.
CUresult changeDependencies(CUgraph H, const CUgraphNode *From, const CUgraphNode *To,
                            const CUgraphEdgeData *Data, size_t N, bool Add) {
  Graph *G = asGraph(H);
  if (!G || (N && (!From || !To)))
    return CUDA_ERROR_INVALID_VALUE;
  for (size_t I = 0; I < N; ++I) {
    GraphNode *A = asNode(From[I]), *B = asNode(To[I]);
    if (!A || !B || A->Owner != G || B->Owner != G || A == B)
      return CUDA_ERROR_INVALID_VALUE;
    const CUgraphEdgeData E = Data ? Data[I] : CUgraphEdgeData{};
    if (!validEdge(*A, B->Type, E))
      return CUDA_ERROR_INVALID_VALUE;
    auto It = std::find(B->Deps.begin(), B->Deps.end(), A);
    if (Add == (It != B->Deps.end()))
      return CUDA_ERROR_INVALID_VALUE; // already there, or not there
    if (!Add) {
      CUgraphEdgeData Had = edgeData(*B, A);
      if (std::memcmp(&Had, &E, sizeof(E)))
        return CUDA_ERROR_INVALID_VALUE;
    }
  }
  for (size_t I = 0; I < N; ++I) {
    GraphNode *A = asNode(From[I]), *B = asNode(To[I]);
    if (Add) {
      B->Deps.push_back(A);
      setEdgeData(*B, A, Data ? Data[I] : CUgraphEdgeData{});
    } else {
      B->Deps.erase(std::find(B->Deps.begin(), B->Deps.end(), A));
      B->EdgeData.erase(A);
    }
  }
  return CUDA_SUCCESS;
}

} // namespace

CUresult cuGraphNodeGetType(CUgraphNode hNode, CUgraphNodeType *type) {
  REPTX_TRACE(cuGraphNodeGetType, hNode, type);
  GraphNode *N = asNode(hNode);
  if (!N || !type)
    return CUDA_ERROR_INVALID_VALUE;
  *type = N->Type;
  return CUDA_SUCCESS;
}

CUresult cuGraphGetNodes(CUgraph hGraph, CUgraphNode *nodes, size_t *numNodes) {
  REPTX_TRACE(cuGraphGetNodes, hGraph, nodes, numNodes);
  Graph *G = asGraph(hGraph);
  if (!G)
    return CUDA_ERROR_INVALID_VALUE;
  return listOut(nodes, numNodes, G->Nodes.size(),
                 [&](size_t I) { nodes[I] = handle(G->Nodes[I].get()); });
}

CUresult cuGraphGetRootNodes(CUgraph hGraph, CUgraphNode *rootNodes, size_t *numRootNodes) {
  REPTX_TRACE(cuGraphGetRootNodes, hGraph, rootNodes, numRootNodes);
  Graph *G = asGraph(hGraph);
  if (!G)
    return CUDA_ERROR_INVALID_VALUE;
  std::vector<GraphNode *> Roots;
  for (const auto &N : G->Nodes)
    if (N->Deps.empty())
      Roots.push_back(N.get());
  return listOut(rootNodes, numRootNodes, Roots.size(),
                 [&](size_t I) { rootNodes[I] = handle(Roots[I]); });
}

CUresult cuGraphGetEdges(CUgraph hGraph, CUgraphNode *from, CUgraphNode *to, size_t *numEdges) {
  REPTX_TRACE(cuGraphGetEdges, hGraph, from, to, numEdges);
  return getEdges(hGraph, from, to, nullptr, numEdges);
}
CUresult cuGraphGetEdges_v2(CUgraph hGraph, CUgraphNode *from, CUgraphNode *to,
                            CUgraphEdgeData *edgeData, size_t *numEdges) {
  REPTX_TRACE(cuGraphGetEdges_v2, hGraph, from, to, edgeData, numEdges);
  return getEdges(hGraph, from, to, edgeData, numEdges);
}
CUresult cuGraphNodeGetDependencies(CUgraphNode hNode, CUgraphNode *dependencies,
                                    size_t *numDependencies) {
  REPTX_TRACE(cuGraphNodeGetDependencies, hNode, dependencies, numDependencies);
  return getDependencies(hNode, dependencies, nullptr, numDependencies);
}
CUresult cuGraphNodeGetDependencies_v2(CUgraphNode hNode, CUgraphNode *dependencies,
                                       CUgraphEdgeData *edgeData, size_t *numDependencies) {
  REPTX_TRACE(cuGraphNodeGetDependencies_v2, hNode, dependencies, edgeData, numDependencies);
  return getDependencies(hNode, dependencies, edgeData, numDependencies);
}
CUresult cuGraphNodeGetDependentNodes(CUgraphNode hNode, CUgraphNode *dependentNodes,
                                      size_t *numDependentNodes) {
  REPTX_TRACE(cuGraphNodeGetDependentNodes, hNode, dependentNodes, numDependentNodes);
  return getDependents(hNode, dependentNodes, nullptr, numDependentNodes);
}
CUresult cuGraphNodeGetDependentNodes_v2(CUgraphNode hNode, CUgraphNode *dependentNodes,
                                         CUgraphEdgeData *edgeData, size_t *numDependentNodes) {
  REPTX_TRACE(cuGraphNodeGetDependentNodes_v2, hNode, dependentNodes, edgeData, numDependentNodes);
  return getDependents(hNode, dependentNodes, edgeData, numDependentNodes);
}
CUresult cuGraphAddDependencies(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to,
                                size_t numDependencies) {
  REPTX_TRACE(cuGraphAddDependencies, hGraph, from, to, numDependencies);
  return changeDependencies(hGraph, from, to, nullptr, numDependencies, true);
}
CUresult cuGraphAddDependencies_v2(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to,
                                   const CUgraphEdgeData *edgeData, size_t numDependencies) {
  REPTX_TRACE(cuGraphAddDependencies_v2, hGraph, from, to, edgeData, numDependencies);
  return changeDependencies(hGraph, from, to, edgeData, numDependencies, true);
}
CUresult cuGraphRemoveDependencies(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to,
                                   size_t numDependencies) {
  REPTX_TRACE(cuGraphRemoveDependencies, hGraph, from, to, numDependencies);
  return changeDependencies(hGraph, from, to, nullptr, numDependencies, false);
}
CUresult cuGraphRemoveDependencies_v2(CUgraph hGraph, const CUgraphNode *from,
                                      const CUgraphNode *to, const CUgraphEdgeData *edgeData,
                                      size_t numDependencies) {
  REPTX_TRACE(cuGraphRemoveDependencies_v2, hGraph, from, to, edgeData, numDependencies);
  return changeDependencies(hGraph, from, to, edgeData, numDependencies, false);
}

CUresult cuGraphDestroyNode(CUgraphNode hNode) {
  REPTX_TRACE(cuGraphDestroyNode, hNode);
  GraphNode *N = asNode(hNode);
  if (!N)
    return CUDA_ERROR_INVALID_VALUE;
  Graph &G = *N->Owner;
  for (auto &M : G.Nodes) {
    M->Deps.erase(std::remove(M->Deps.begin(), M->Deps.end(), N), M->Deps.end());
    M->EdgeData.erase(N);
  }
  G.Nodes.erase(std::find_if(G.Nodes.begin(), G.Nodes.end(),
                             [&](const std::unique_ptr<GraphNode> &M) { return M.get() == N; }));
  return CUDA_SUCCESS;
}

CUresult cuGraphDebugDotPrint(CUgraph hGraph, const char *path, unsigned int flags) {
  REPTX_TRACE(cuGraphDebugDotPrint, hGraph, path, flags);
  Graph *G = asGraph(hGraph);
  if (!G || !path)
    return CUDA_ERROR_INVALID_VALUE;
  std::FILE *F = std::fopen(path, "w");
  if (!F)
    return CUDA_ERROR_OPERATING_SYSTEM;
  std::fprintf(F, "digraph reptx_graph {\n");
  std::unordered_map<const GraphNode *, size_t> Index;
  for (size_t I = 0; I < G->Nodes.size(); ++I) {
    const GraphNode &N = *G->Nodes[I];
    Index[&N] = I;
    std::fprintf(F, "  n%zu [label=\"%zu: %s%s%s\"];\n", I, I, typeName(N.Type), N.K ? " " : "",
                 N.K ? N.K->Name.c_str() : "");
  }
  for (const Edge &E : edgesOf(*G))
    std::fprintf(F, "  n%zu -> n%zu;\n", Index[E.From], Index[E.To]);
  std::fprintf(F, "}\n");
  return std::fclose(F) == 0 ? CUDA_SUCCESS : CUDA_ERROR_OPERATING_SYSTEM;
}

// ------------------------------------------------------------------ executable graphs

namespace {

enum : cuuint64_t { InstantiateDeviceLaunch = 4 }; // CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH

CUresult instantiate(CUgraphExec *Out, CUgraph H, cuuint64_t Flags, CUgraphNode *ErrNode,
                     CUgraphInstantiateResult *Result) {
  auto Finish = [&](CUgraphInstantiateResult Why, CUresult R) {
    if (Result)
      *Result = Why;
    return R;
  };
  Graph *G = asGraph(H);
  if (!Out || !G || G->Moved)
    return Finish(CUDA_GRAPH_INSTANTIATE_ERROR, CUDA_ERROR_INVALID_VALUE);
  if (ErrNode)
    *ErrNode = nullptr;
  if (Flags & InstantiateDeviceLaunch) {
    log().error("cuGraphInstantiate: graphs launched from the device are not supported by reptx");
    return Finish(CUDA_GRAPH_INSTANTIATE_NODE_OPERATION_NOT_SUPPORTED, CUDA_ERROR_NOT_SUPPORTED);
  }
  std::function<bool(const Graph &)> Acyclic = [&](const Graph &Sub) {
    std::vector<GraphNode *> Order;
    if (!topologicalOrder(Sub, Order))
      return false;
    for (const GraphNode *N : Order)
      if (N->Child && !Acyclic(*N->Child))
        return false;
    for (const GraphNode *N : Order)
      for (const auto &Body : N->Bodies)
        if (!Acyclic(*Body))
          return false;
    return true;
  };
  if (!Acyclic(*G)) {
    log().error("cuGraphInstantiate: the graph's dependencies form a cycle");
    return Finish(CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE, CUDA_ERROR_INVALID_VALUE);
  }
  auto E = std::make_unique<GraphExec>();
  E->G = cloneGraph(*G, E->Nodes);
  E->Flags = Flags;
  *Out = reinterpret_cast<CUgraphExec>(E.release());
  return Finish(CUDA_GRAPH_INSTANTIATE_SUCCESS, CUDA_SUCCESS);
}

CUresult instantiateWithLog(CUgraphExec *Out, CUgraph G, CUgraphNode *ErrNode, char *Log,
                            size_t LogSize) {
  CUresult R = instantiate(Out, G, 0, ErrNode, nullptr);
  if (R && Log && LogSize)
    std::snprintf(Log, LogSize, "reptx: graph instantiation failed (%d)", int(R));
  return R;
}

CUresult instantiateWithParams(CUgraphExec *Out, CUgraph G, CUDA_GRAPH_INSTANTIATE_PARAMS *P) {
  if (!P)
    return CUDA_ERROR_INVALID_VALUE;
  return instantiate(Out, G, P->flags, &P->hErrNode_out, &P->result_out);
}

// The executable's copy of a node of a graph it was made or updated from (or its own node).
GraphNode *execNode(GraphExec *E, CUgraphNode H) {
  if (!E)
    return nullptr;
  auto It = E->Nodes.find(reinterpret_cast<const GraphNode *>(H));
  if (It != E->Nodes.end())
    return It->second;
  GraphNode *N = asNode(H);
  return N && N->Owner == E->G.get() ? N : nullptr;
}

// Whether From can update To (cuGraphExecUpdate): the same nodes, in the same order, of the same
// types, with the same edges and edge data; memory nodes cannot change.
CUgraphExecUpdateResult updatable(const Graph &To, const Graph &From, const GraphNode *&ErrNode) {
  if (To.Nodes.size() != From.Nodes.size())
    return CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED;
  std::unordered_map<const GraphNode *, size_t> IndexTo, IndexFrom;
  for (size_t I = 0; I < To.Nodes.size(); ++I) {
    IndexTo[To.Nodes[I].get()] = I;
    IndexFrom[From.Nodes[I].get()] = I;
  }
  for (size_t I = 0; I < To.Nodes.size(); ++I) {
    const GraphNode &A = *To.Nodes[I], &B = *From.Nodes[I];
    ErrNode = &B;
    if (A.Type != B.Type)
      return CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED;
    std::vector<std::pair<size_t, uint64_t>> DA, DB; // upstream node, edge data
    auto Data = [](const GraphNode &To, const GraphNode *From) {
      CUgraphEdgeData E = edgeData(To, From);
      uint64_t Bits;
      std::memcpy(&Bits, &E, sizeof(Bits));
      return Bits;
    };
    for (const GraphNode *D : A.Deps)
      DA.emplace_back(IndexTo.at(D), Data(A, D));
    for (const GraphNode *D : B.Deps)
      DB.emplace_back(IndexFrom.at(D), Data(B, D));
    std::sort(DA.begin(), DA.end());
    std::sort(DB.begin(), DB.end());
    if (DA != DB)
      return CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED;
    if (A.Type == CU_GRAPH_NODE_TYPE_MEM_ALLOC || A.Type == CU_GRAPH_NODE_TYPE_MEM_FREE)
      return CU_GRAPH_EXEC_UPDATE_ERROR_NOT_SUPPORTED;
    if (A.Type == CU_GRAPH_NODE_TYPE_GRAPH) {
      const GraphNode *Inner = nullptr;
      if (auto R = updatable(*A.Child, *B.Child, Inner); R != CU_GRAPH_EXEC_UPDATE_SUCCESS)
        return R;
    }
  }
  ErrNode = nullptr;
  return CU_GRAPH_EXEC_UPDATE_SUCCESS;
}

// Takes From's parameters into To (checked by `updatable`); Map receives From's nodes.
void update(Graph &To, const Graph &From, std::unordered_map<const GraphNode *, GraphNode *> *Map) {
  for (size_t I = 0; I < To.Nodes.size(); ++I) {
    GraphNode &A = *To.Nodes[I];
    const GraphNode &B = *From.Nodes[I];
    if (A.Type == CU_GRAPH_NODE_TYPE_GRAPH) {
      update(*A.Child, *B.Child, nullptr);
    } else {
      auto Deps = std::move(A.Deps);
      bool Enabled = A.Enabled;
      copyParams(A, B);
      A.Deps = std::move(Deps);
      A.Enabled = Enabled;
    }
    if (Map)
      (*Map)[&B] = &A;
  }
}

CUresult execUpdate(CUgraphExec HE, CUgraph HG, CUgraphExecUpdateResult &Result,
                    CUgraphNode &ErrNode) {
  GraphExec *E = asExec(HE);
  Graph *G = asGraph(HG);
  ErrNode = nullptr;
  Result = CU_GRAPH_EXEC_UPDATE_ERROR;
  if (!E || !G || G->Moved)
    return CUDA_ERROR_INVALID_VALUE;
  const GraphNode *Err = nullptr;
  Result = updatable(*E->G, *G, Err);
  if (Result != CU_GRAPH_EXEC_UPDATE_SUCCESS) {
    ErrNode = handle(const_cast<GraphNode *>(Err));
    return CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE;
  }
  update(*E->G, *G, &E->Nodes);
  return CUDA_SUCCESS;
}

template <typename P> CUresult execKernelSetParams(CUgraphExec HE, CUgraphNode H, const P *Params) {
  GraphNode *N = execNode(asExec(HE), H);
  if (!N || N->Type != CU_GRAPH_NODE_TYPE_KERNEL)
    return CUDA_ERROR_INVALID_VALUE;
  return setKernel(*N, Params, kernOf(Params));
}

CUresult launchGraph(CUgraphExec HE, CUstream S) {
  GraphExec *E = asExec(HE);
  if (!E)
    return CUDA_ERROR_INVALID_VALUE;
  Context *C;
  if (CUresult R = streamContext(S, C))
    return R;
  if (captureOf(S)) {
    // Launched into a capture: the capture's graph takes the executable's graph as a child.
    auto N = std::make_unique<GraphNode>();
    N->Type = CU_GRAPH_NODE_TYPE_GRAPH;
    N->Ctx = C;
    std::unordered_map<const GraphNode *, GraphNode *> Map;
    N->Child = cloneGraph(*E->G, Map);
    return capture(S, std::move(N));
  }
  if (CUresult R = C->Sticky.load())
    return R;
  if (CUresult R = assignDefaults(*E->G, C))
    return R;
  return runGraph(*E->G, S, C);
}

CUresult uploadGraph(CUgraphExec HE, CUstream S) {
  Context *C;
  if (!asExec(HE))
    return CUDA_ERROR_INVALID_VALUE;
  return streamContext(S, C); // kernels compile on first use; nothing to upload
}

} // namespace

CUresult cuGraphInstantiate(CUgraphExec *phGraphExec, CUgraph hGraph, CUgraphNode *phErrorNode,
                            char *logBuffer, size_t bufferSize) {
  REPTX_TRACE(cuGraphInstantiate, phGraphExec, hGraph, phErrorNode, logBuffer, bufferSize);
  return instantiateWithLog(phGraphExec, hGraph, phErrorNode, logBuffer, bufferSize);
}
CUresult cuGraphInstantiate_v2(CUgraphExec *phGraphExec, CUgraph hGraph, CUgraphNode *phErrorNode,
                               char *logBuffer, size_t bufferSize) {
  REPTX_TRACE(cuGraphInstantiate_v2, phGraphExec, hGraph, phErrorNode, logBuffer, bufferSize);
  return instantiateWithLog(phGraphExec, hGraph, phErrorNode, logBuffer, bufferSize);
}
CUresult cuGraphInstantiateWithFlags(CUgraphExec *phGraphExec, CUgraph hGraph,
                                     unsigned long long flags) {
  REPTX_TRACE(cuGraphInstantiateWithFlags, phGraphExec, hGraph, flags);
  return instantiate(phGraphExec, hGraph, flags, nullptr, nullptr);
}
CUresult cuGraphInstantiateWithParams(CUgraphExec *phGraphExec, CUgraph hGraph,
                                      CUDA_GRAPH_INSTANTIATE_PARAMS *instantiateParams) {
  REPTX_TRACE(cuGraphInstantiateWithParams, phGraphExec, hGraph, instantiateParams);
  return instantiateWithParams(phGraphExec, hGraph, instantiateParams);
}
CUresult cuGraphInstantiateWithParams_ptsz(CUgraphExec *phGraphExec, CUgraph hGraph,
                                           CUDA_GRAPH_INSTANTIATE_PARAMS *instantiateParams) {
  REPTX_TRACE(cuGraphInstantiateWithParams_ptsz, phGraphExec, hGraph, instantiateParams);
  return instantiateWithParams(phGraphExec, hGraph, instantiateParams);
}

CUresult cuGraphExecGetFlags(CUgraphExec hGraphExec, cuuint64_t *flags) {
  REPTX_TRACE(cuGraphExecGetFlags, hGraphExec, flags);
  GraphExec *E = asExec(hGraphExec);
  if (!E || !flags)
    return CUDA_ERROR_INVALID_VALUE;
  *flags = E->Flags;
  return CUDA_SUCCESS;
}

CUresult cuGraphUpload(CUgraphExec hGraphExec, CUstream hStream) {
  REPTX_TRACE(cuGraphUpload, hGraphExec, hStream);
  return uploadGraph(hGraphExec, hStream);
}
CUresult cuGraphUpload_ptsz(CUgraphExec hGraphExec, CUstream hStream) {
  REPTX_TRACE(cuGraphUpload_ptsz, hGraphExec, hStream);
  hStream = perThreadDefault(hStream);
  return uploadGraph(hGraphExec, hStream);
}
CUresult cuGraphLaunch(CUgraphExec hGraphExec, CUstream hStream) {
  REPTX_TRACE(cuGraphLaunch, hGraphExec, hStream);
  return launchGraph(hGraphExec, hStream);
}
CUresult cuGraphLaunch_ptsz(CUgraphExec hGraphExec, CUstream hStream) {
  REPTX_TRACE(cuGraphLaunch_ptsz, hGraphExec, hStream);
  hStream = perThreadDefault(hStream);
  return launchGraph(hGraphExec, hStream);
}
CUresult cuGraphExecDestroy(CUgraphExec hGraphExec) {
  REPTX_TRACE(cuGraphExecDestroy, hGraphExec);
  GraphExec *E = asExec(hGraphExec);
  if (!E)
    return CUDA_ERROR_INVALID_VALUE;
  delete E;
  return CUDA_SUCCESS;
}

CUresult cuGraphExecUpdate(CUgraphExec hGraphExec, CUgraph hGraph, CUgraphNode *hErrorNode_out,
                           CUgraphExecUpdateResult *updateResult_out) {
  REPTX_TRACE(cuGraphExecUpdate, hGraphExec, hGraph, hErrorNode_out, updateResult_out);
  if (!hErrorNode_out || !updateResult_out)
    return CUDA_ERROR_INVALID_VALUE;
  return execUpdate(hGraphExec, hGraph, *updateResult_out, *hErrorNode_out);
}
CUresult cuGraphExecUpdate_v2(CUgraphExec hGraphExec, CUgraph hGraph,
                              CUgraphExecUpdateResultInfo *resultInfo) {
  REPTX_TRACE(cuGraphExecUpdate_v2, hGraphExec, hGraph, resultInfo);
  if (!resultInfo)
    return CUDA_ERROR_INVALID_VALUE;
  resultInfo->errorFromNode = nullptr;
  return execUpdate(hGraphExec, hGraph, resultInfo->result, resultInfo->errorNode);
}

CUresult cuGraphExecKernelNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                        const CUDA_KERNEL_NODE_PARAMS_v1 *nodeParams) {
  REPTX_TRACE(cuGraphExecKernelNodeSetParams, hGraphExec, hNode, nodeParams);
  return execKernelSetParams(hGraphExec, hNode, nodeParams);
}
CUresult cuGraphExecKernelNodeSetParams_v2(CUgraphExec hGraphExec, CUgraphNode hNode,
                                           const CUDA_KERNEL_NODE_PARAMS_v2 *nodeParams) {
  REPTX_TRACE(cuGraphExecKernelNodeSetParams_v2, hGraphExec, hNode, nodeParams);
  return execKernelSetParams(hGraphExec, hNode, nodeParams);
}
CUresult cuGraphExecMemcpyNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                        const CUDA_MEMCPY3D *copyParams, CUcontext ctx) {
  REPTX_TRACE(cuGraphExecMemcpyNodeSetParams, hGraphExec, hNode, copyParams, ctx);
  return writeParams(execNode(asExec(hGraphExec), hNode), CU_GRAPH_NODE_TYPE_MEMCPY,
                     &GraphNode::Copy, copyParams);
}
CUresult cuGraphExecMemsetNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                        const CUDA_MEMSET_NODE_PARAMS *memsetParams,
                                        CUcontext ctx) {
  REPTX_TRACE(cuGraphExecMemsetNodeSetParams, hGraphExec, hNode, memsetParams, ctx);
  return writeParams(execNode(asExec(hGraphExec), hNode), CU_GRAPH_NODE_TYPE_MEMSET,
                     &GraphNode::Fill, memsetParams);
}
CUresult cuGraphExecHostNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                      const CUDA_HOST_NODE_PARAMS *nodeParams) {
  REPTX_TRACE(cuGraphExecHostNodeSetParams, hGraphExec, hNode, nodeParams);
  return writeParams(execNode(asExec(hGraphExec), hNode), CU_GRAPH_NODE_TYPE_HOST, &GraphNode::Host,
                     nodeParams);
}
CUresult cuGraphExecChildGraphNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                            CUgraph childGraph) {
  REPTX_TRACE(cuGraphExecChildGraphNodeSetParams, hGraphExec, hNode, childGraph);
  GraphNode *N = execNode(asExec(hGraphExec), hNode);
  Graph *Child = asGraph(childGraph);
  if (!N || N->Type != CU_GRAPH_NODE_TYPE_GRAPH || !Child)
    return CUDA_ERROR_INVALID_VALUE;
  const GraphNode *Err = nullptr;
  if (updatable(*N->Child, *Child, Err) != CU_GRAPH_EXEC_UPDATE_SUCCESS)
    return CUDA_ERROR_INVALID_VALUE;
  update(*N->Child, *Child, nullptr);
  return CUDA_SUCCESS;
}
CUresult cuGraphExecEventRecordNodeSetEvent(CUgraphExec hGraphExec, CUgraphNode hNode,
                                            CUevent event) {
  REPTX_TRACE(cuGraphExecEventRecordNodeSetEvent, hGraphExec, hNode, event);
  return setNodeEvent(execNode(asExec(hGraphExec), hNode), CU_GRAPH_NODE_TYPE_EVENT_RECORD, event);
}
CUresult cuGraphExecEventWaitNodeSetEvent(CUgraphExec hGraphExec, CUgraphNode hNode,
                                          CUevent event) {
  REPTX_TRACE(cuGraphExecEventWaitNodeSetEvent, hGraphExec, hNode, event);
  return setNodeEvent(execNode(asExec(hGraphExec), hNode), CU_GRAPH_NODE_TYPE_WAIT_EVENT, event);
}

// cuGraphNodeSetParams / cuGraphExecNodeSetParams: new parameters, of the node's own type, for a
// graph's node or an executable's copy of one (Exec). A conditional node's cannot change.
static CUresult setNodeParams(GraphNode *N, const CUgraphNodeParams *P, bool Exec) {
  if (!N || !P || N->Type != P->type)
    return CUDA_ERROR_INVALID_VALUE;
  switch (P->type) {
  case CU_GRAPH_NODE_TYPE_KERNEL:
    return setKernel(*N, &P->kernel, P->kernel.kern);
  case CU_GRAPH_NODE_TYPE_MEMCPY:
    return writeParams(N, CU_GRAPH_NODE_TYPE_MEMCPY, &GraphNode::Copy, &P->memcpy.copyParams);
  case CU_GRAPH_NODE_TYPE_MEMSET: {
    const CUDA_MEMSET_NODE_PARAMS_v2 &M = P->memset;
    CUDA_MEMSET_NODE_PARAMS Fill{M.dst, M.pitch, M.value, M.elementSize, M.width, M.height};
    return writeParams(N, CU_GRAPH_NODE_TYPE_MEMSET, &GraphNode::Fill, &Fill);
  }
  case CU_GRAPH_NODE_TYPE_HOST:
    return writeParams(N, CU_GRAPH_NODE_TYPE_HOST, &GraphNode::Host, &P->host);
  case CU_GRAPH_NODE_TYPE_GRAPH: {
    Graph *Child = asGraph(P->graph.graph);
    const GraphNode *Err = nullptr;
    if (!Exec)
      return CUDA_ERROR_NOT_SUPPORTED; // a graph's child graph node keeps its graph
    if (!Child || updatable(*N->Child, *Child, Err) != CU_GRAPH_EXEC_UPDATE_SUCCESS)
      return CUDA_ERROR_INVALID_VALUE;
    update(*N->Child, *Child, nullptr);
    return CUDA_SUCCESS;
  }
  case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
    return setNodeEvent(N, CU_GRAPH_NODE_TYPE_EVENT_RECORD, P->eventRecord.event);
  case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
    return setNodeEvent(N, CU_GRAPH_NODE_TYPE_WAIT_EVENT, P->eventWait.event);
  case CU_GRAPH_NODE_TYPE_EMPTY:
    return CUDA_SUCCESS;
  case CU_GRAPH_NODE_TYPE_BATCH_MEM_OP:
    return setMemOps(*N, &P->memOp);
  default:
    log().error("cuGraph{}NodeSetParams: the parameters of {} nodes cannot be changed",
                Exec ? "Exec" : "", typeName(P->type));
    return CUDA_ERROR_NOT_SUPPORTED;
  }
}

// The attributes a kernel node has (CUkernelNodeAttrID in cuda.h's documentation). Only
// COOPERATIVE changes what a launch does (every block resident at once); the others are kept and
// read back.
static bool kernelNodeAttribute(CUkernelNodeAttrID A) {
  switch (A) {
  case CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW:
  case CU_LAUNCH_ATTRIBUTE_COOPERATIVE:
  case CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION:
  case CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
  case CU_LAUNCH_ATTRIBUTE_PRIORITY:
  case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP:
  case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN:
    return true;
  default:
    return false;
  }
}

CUresult cuGraphKernelNodeGetAttribute(CUgraphNode hNode, CUkernelNodeAttrID attr,
                                       CUkernelNodeAttrValue *value_out) {
  REPTX_TRACE(cuGraphKernelNodeGetAttribute, hNode, attr, value_out);
  GraphNode *N = nodeOfType(hNode, CU_GRAPH_NODE_TYPE_KERNEL);
  if (!N || !value_out || !kernelNodeAttribute(attr))
    return CUDA_ERROR_INVALID_VALUE;
  *value_out = CUkernelNodeAttrValue{};
  if (attr == CU_LAUNCH_ATTRIBUTE_COOPERATIVE)
    value_out->cooperative = N->Dims.Cooperative ? 1 : 0;
  else if (auto It = N->Attributes.find(attr); It != N->Attributes.end())
    *value_out = It->second;
  return CUDA_SUCCESS;
}
CUresult cuGraphKernelNodeSetAttribute(CUgraphNode hNode, CUkernelNodeAttrID attr,
                                       const CUkernelNodeAttrValue *value) {
  REPTX_TRACE(cuGraphKernelNodeSetAttribute, hNode, attr, value);
  GraphNode *N = nodeOfType(hNode, CU_GRAPH_NODE_TYPE_KERNEL);
  if (!N || !value || !kernelNodeAttribute(attr))
    return CUDA_ERROR_INVALID_VALUE;
  if (attr == CU_LAUNCH_ATTRIBUTE_COOPERATIVE)
    N->Dims.Cooperative = value->cooperative != 0;
  else
    N->Attributes[attr] = *value;
  return CUDA_SUCCESS;
}
CUresult cuGraphKernelNodeCopyAttributes(CUgraphNode dst, CUgraphNode src) {
  REPTX_TRACE(cuGraphKernelNodeCopyAttributes, dst, src);
  GraphNode *To = nodeOfType(dst, CU_GRAPH_NODE_TYPE_KERNEL);
  GraphNode *From = nodeOfType(src, CU_GRAPH_NODE_TYPE_KERNEL);
  if (!To || !From)
    return CUDA_ERROR_INVALID_VALUE;
  To->Attributes = From->Attributes;
  To->Dims.Cooperative = From->Dims.Cooperative;
  return CUDA_SUCCESS;
}

CUresult cuGraphExecBatchMemOpNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                            const CUDA_BATCH_MEM_OP_NODE_PARAMS *nodeParams) {
  REPTX_TRACE(cuGraphExecBatchMemOpNodeSetParams, hGraphExec, hNode, nodeParams);
  GraphNode *N = execNode(asExec(hGraphExec), hNode);
  if (!N || N->Type != CU_GRAPH_NODE_TYPE_BATCH_MEM_OP)
    return CUDA_ERROR_INVALID_VALUE;
  return setMemOps(*N, nodeParams);
}

CUresult cuGraphNodeSetParams(CUgraphNode hNode, CUgraphNodeParams *nodeParams) {
  REPTX_TRACE(cuGraphNodeSetParams, hNode, nodeParams);
  return setNodeParams(asNode(hNode), nodeParams, false);
}
CUresult cuGraphExecNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                  CUgraphNodeParams *nodeParams) {
  REPTX_TRACE(cuGraphExecNodeSetParams, hGraphExec, hNode, nodeParams);
  return setNodeParams(execNode(asExec(hGraphExec), hNode), nodeParams, true);
}

CUresult cuGraphNodeSetEnabled(CUgraphExec hGraphExec, CUgraphNode hNode, unsigned int isEnabled) {
  REPTX_TRACE(cuGraphNodeSetEnabled, hGraphExec, hNode, isEnabled);
  GraphNode *N = execNode(asExec(hGraphExec), hNode);
  if (!N)
    return CUDA_ERROR_INVALID_VALUE;
  N->Enabled = isEnabled != 0;
  return CUDA_SUCCESS;
}
CUresult cuGraphNodeGetEnabled(CUgraphExec hGraphExec, CUgraphNode hNode, unsigned int *isEnabled) {
  REPTX_TRACE(cuGraphNodeGetEnabled, hGraphExec, hNode, isEnabled);
  GraphNode *N = execNode(asExec(hGraphExec), hNode);
  if (!N || !isEnabled)
    return CUDA_ERROR_INVALID_VALUE;
  *isEnabled = N->Enabled;
  return CUDA_SUCCESS;
}
