// CUDA graphs and stream capture (ApiGraph.cpp): graphs of nodes with their dependencies, built
// node by node or recorded from streams between cuStreamBeginCapture and cuStreamEndCapture, and
// instantiated graphs (executables) that run their nodes in dependency order on a stream. Every
// stream operation completes before its call returns (ApiMemory.cpp), so a launched graph runs
// its nodes one after another in a topological order, which keeps every dependency.
//
// The stream operations of ApiMemory.cpp and ApiModule.cpp ask `captureOf` first: while their
// stream captures, they record a node (`capture`) instead of running, and a graph launch runs the
// same node through the same code (`runKernel`, `runCopy`, `runFill`) on the launch's stream.
#pragma once

#include "Driver.h"

#include <map>
#include <memory>
#include <thread>
#include <unordered_map>
#include <vector>

namespace reptx::loader {

struct Graph;

/// Memory that cuMemAllocAsync allocated while a stream captured: it belongs to the graph (and to
/// every clone and executable of it) and is released with the last of them. Until then cuMemFree
/// and cuMemFreeAsync of it outside a graph leave it alone (`graphOwnsMemory`).
struct GraphMemory {
  Context *Ctx = nullptr;
  CUdeviceptr Ptr = 0;
  size_t Bytes = 0;
  ~GraphMemory();
};

/// The condition of conditional nodes (cuGraphConditionalHandleCreate): a 32-bit value in device
/// memory whose address is the handle (cudaGraphSetConditional in device code stores to it). It
/// belongs to the graph it was made for, to that graph's clones and executables, and is released
/// with the last of them.
struct ConditionalHandle {
  Device *Dev = nullptr; // (devices live as long as the process; a context may go first)
  CUdeviceptr Ptr = 0;
  unsigned Default = 0; // written when made, and at each launch with CU_GRAPH_COND_ASSIGN_DEFAULT
  unsigned Flags = 0;
  ~ConditionalHandle();
};

/// One node of a graph: what it does and the nodes it waits for.
struct GraphNode {
  Tag T = Tag::GraphNode;
  Graph *Owner = nullptr;
  CUgraphNodeType Type = CU_GRAPH_NODE_TYPE_EMPTY;
  std::vector<GraphNode *> Deps; // incoming edges, in the order they were added
  // The incoming edges that are not full dependencies (edge data other than all zero:
  // programmatic dependent launch between kernel nodes), by their upstream node. The node still
  // runs after all of Deps have finished, a schedule such edges allow.
  std::map<const GraphNode *, CUgraphEdgeData> EdgeData;
  // A captured launch with CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION: its edges from
  // kernel nodes become programmatic ones (capture()).
  bool Programmatic = false;
  Context *Ctx = nullptr; // where kernels, copies and fills run

  // CU_GRAPH_NODE_TYPE_KERNEL: the launch, its arguments in the PTX .param layout (copied when
  // the node was made) and, for cuGraphKernelNodeGetParams, a pointer to each argument.
  Kernel *K = nullptr;
  LaunchDims Dims;
  std::vector<uint8_t> Args;
  std::vector<void *> ArgPointers;
  // Its attributes (cuGraphKernelNodeSetAttribute) other than COOPERATIVE, which is Dims's.
  std::map<int, CUlaunchAttributeValue> Attributes;
  // CU_GRAPH_NODE_TYPE_MEMCPY / MEMSET / HOST.
  CUDA_MEMCPY3D Copy{};
  CUDA_MEMSET_NODE_PARAMS Fill{};
  CUDA_HOST_NODE_PARAMS Host{};
  // CU_GRAPH_NODE_TYPE_GRAPH: the child graph, a copy owned by the node.
  std::unique_ptr<Graph> Child;
  // CU_GRAPH_NODE_TYPE_EVENT_RECORD / WAIT_EVENT.
  Event *Ev = nullptr;
  // CU_GRAPH_NODE_TYPE_MEM_ALLOC (Memory set) / MEM_FREE (FreePtr).
  std::shared_ptr<GraphMemory> Memory;
  CUdeviceptr FreePtr = 0;
  // CU_GRAPH_NODE_TYPE_BATCH_MEM_OP: the operations (copied when set) and their flags.
  std::vector<CUstreamBatchMemOpParams> MemOps;
  unsigned MemOpFlags = 0;
  // CU_GRAPH_NODE_TYPE_CONDITIONAL: the condition, the kind (IF runs Bodies[0] when it is nonzero,
  // else Bodies[1] if there is one; WHILE runs Bodies[0] while it is nonzero; SWITCH runs
  // Bodies[value] if there is one) and the body graphs, owned by the node (BodyHandles is the
  // array cuGraphAddNode returns in phGraph_out).
  CUgraphConditionalHandle Condition = 0;
  CUgraphConditionalNodeType ConditionType = CU_GRAPH_COND_TYPE_IF;
  std::vector<std::unique_ptr<Graph>> Bodies;
  std::vector<CUgraph> BodyHandles;
  bool Enabled = true; // cuGraphNodeSetEnabled (in an executable's copy)

  ~GraphNode() { T = Tag{}; }
  /// Points ArgPointers at the arguments in Args (after Args was set or copied).
  void pointAtArgs();
};

/// A graph: its nodes, in the order they were added.
struct Graph {
  Tag T = Tag::Graph;
  std::vector<std::unique_ptr<GraphNode>> Nodes;
  std::unordered_map<const GraphNode *, GraphNode *> Originals; // of a clone: original -> copy
  std::vector<std::shared_ptr<ConditionalHandle>> Handles;      // made for this graph
  bool NodeOwned = false; // a child or body graph of a node: cuGraphDestroy refuses it
  // A graph the user made and moved into a child graph node (CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE):
  // it cannot be instantiated, updated from, added to another node or given memory nodes.
  bool Moved = false;
  ~Graph() { T = Tag{}; }
  GraphNode *add(std::unique_ptr<GraphNode> N, llvm::ArrayRef<GraphNode *> Deps);
};

/// A stream capture in progress: the graph it builds and the streams that take part (the one it
/// began on, and those that waited on an event recorded in it).
struct Capture {
  uint64_t Id = 0;
  std::unique_ptr<Graph> G; // the graph it builds, or null when it adds to Into
  Graph *Into = nullptr;    // cuStreamBeginCaptureToGraph: an existing graph (not owned)
  CUstreamCaptureMode Mode = CU_STREAM_CAPTURE_MODE_GLOBAL;
  Stream *Origin = nullptr;
  std::vector<Stream *> Streams; // every stream in it, Origin first
  std::thread::id Thread;        // that began it
  bool Invalidated = false;
  Graph &graph() { return Into ? *Into : *G; }
};

/// The capture the stream takes part in, or null: an operation on it records a node instead of
/// running. The legacy default stream never captures.
Capture *captureOf(CUstream S);

/// Records a node made by a stream operation on a capturing stream: it depends on the stream's
/// last nodes and becomes its last node. CUDA_ERROR_STREAM_CAPTURE_INVALIDATED when the capture
/// was invalidated by an earlier call.
CUresult capture(CUstream S, std::unique_ptr<GraphNode> N);

/// A call on a capturing stream that a capture cannot hold: one that waits for the stream's work
/// (cuStreamSynchronize, cuStreamQuery), a stream callback, a stream memory operation. Invalidates
/// the capture and answers CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED; CUDA_SUCCESS when S does not
/// capture.
CUresult captureRefuses(CUstream S);

/// A call CUDA forbids while a capture of this thread's mode is in progress (cuMemAlloc,
/// cuCtxSynchronize, synchronous copies: "potentially unsafe" in the CUDA Programming Guide's
/// words): CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED in that case, else CUDA_SUCCESS.
CUresult captureForbidsUnsafeCall();

/// cuEventRecord on a stream that may be capturing: `Handled` is set when the capture took the
/// call (the event now carries the stream's last nodes); otherwise the caller records the event.
CUresult captureEventRecord(CUstream S, Event *Ev, bool &Handled);
/// cuStreamWaitEvent on an event recorded in a capture: the stream joins that capture (a fork),
/// or, already in it, depends on the event's nodes too (a join). Nothing to do otherwise.
CUresult captureStreamWait(CUstream S, Event *Ev);

/// cuMemAllocAsync / cuMemFreeAsync on a capturing stream: a graph allocation and its free node.
CUresult captureAlloc(CUstream S, Context *C, size_t Bytes, CUdeviceptr &Ptr);
CUresult captureFree(CUstream S, CUdeviceptr Ptr);
/// True when Ptr is memory a graph allocated (cuMemFree leaves it to the graph).
bool graphOwnsMemory(CUdeviceptr Ptr);

/// A stream is going away: it leaves its capture (which ends, invalidated, if it began there).
void forgetStream(Stream *S);

// The operations a node runs, shared with the stream entry points (ApiMemory.cpp, ApiModule.cpp).
/// cuStreamBatchMemOp's operations: whether they (and the flags) are valid, CUDA_SUCCESS or
/// CUDA_ERROR_INVALID_VALUE; and running them on S in order, checked first.
CUresult checkBatchMemOps(unsigned Count, const CUstreamBatchMemOpParams *Ops, unsigned Flags);
CUresult runBatchMemOps(CUstream S, unsigned Count, const CUstreamBatchMemOpParams *Ops,
                        unsigned Flags);
/// The kernel's arguments in its PTX .param layout from cuLaunchKernel's kernelParams or extra.
CUresult kernelArgs(const Kernel &K, void **Params, void **Extra, std::vector<uint8_t> &Out);
/// Launches K with arguments in its .param layout on S (which must not be capturing).
CUresult runKernel(Kernel *K, const LaunchDims &D, CUstream S, const std::vector<uint8_t> &Args);
CUresult runCopy(const CUDA_MEMCPY3D &P, Context *C);
CUresult runFill(const CUDA_MEMSET_NODE_PARAMS &P, Context *C);
/// Records the event in context C's queue (cuEventRecord without a capture): its host timestamp,
/// and on an asynchronous backend the device's event.
CUresult recordEvent(Event *Ev, Context *C);

} // namespace reptx::loader
