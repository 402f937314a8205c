// CUDA graphs: stream capture (one stream, several joined through events, the per-thread default
// stream), graphs built node by node, instantiation, repeated launches, parameter updates of an
// instantiated graph, graph memory allocations, and the errors of stream capture. Expected values
// from host computations.
#include "check.h"

#include <cstring>
#include <thread>

__global__ void scale(float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] *= a;
}
__global__ void addTo(float *y, const float *x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] += x[i];
}
__global__ void fillIota(int *x, int base, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] = base + i;
}

__global__ void addScalar(int *x, int v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    x[i] += v;
}

static int HostCalls = 0;
static void CUDART_CB countCall(void *p) { ++*static_cast<int *>(p); }

constexpr int N = 1000;
constexpr int Threads = 128, Blocks = (N + Threads - 1) / Threads;

// One stream captured: memset, copy in, two kernels, copy out, a host function. The graph reads
// the host input and writes the host output at each launch, not at capture.
static void captureOneStream() {
  float *x, *y;
  CHECK(cudaMalloc(&x, N * sizeof(float)));
  CHECK(cudaMalloc(&y, N * sizeof(float)));
  std::vector<float> in(N), out(N);
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  cudaStreamCaptureStatus st;
  CHECK(cudaStreamIsCapturing(s, &st));
  expect(st == cudaStreamCaptureStatusNone, "not capturing before", 0);
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CHECK(cudaStreamIsCapturing(s, &st));
  expect(st == cudaStreamCaptureStatusActive, "capturing", 0);
  unsigned long long id = 0;
  CHECK(cudaStreamGetCaptureInfo(s, &st, &id));
  expect(st == cudaStreamCaptureStatusActive && id != 0, "capture info", long(id));
  CHECK(cudaMemsetAsync(y, 0, N * sizeof(float), s));
  CHECK(cudaMemcpyAsync(x, in.data(), N * sizeof(float), cudaMemcpyHostToDevice, s));
  scale<<<Blocks, Threads, 0, s>>>(x, 3.0f, N);
  addTo<<<Blocks, Threads, 0, s>>>(y, x, N);
  addTo<<<Blocks, Threads, 0, s>>>(y, x, N);
  CHECK(cudaMemcpyAsync(out.data(), y, N * sizeof(float), cudaMemcpyDeviceToHost, s));
  CHECK(cudaLaunchHostFunc(s, countCall, &HostCalls));
  cudaGraph_t g;
  CHECK(cudaStreamEndCapture(s, &g));
  CHECK(cudaStreamIsCapturing(s, &st));
  expect(st == cudaStreamCaptureStatusNone, "not capturing after", 0);
  expect(HostCalls == 0, "nothing ran during capture", HostCalls);

  size_t count = 0;
  CHECK(cudaGraphGetNodes(g, nullptr, &count));
  expect(count == 7, "seven nodes", long(count));
  std::vector<cudaGraphNode_t> nodes(count);
  CHECK(cudaGraphGetNodes(g, nodes.data(), &count));
  const cudaGraphNodeType types[] = {cudaGraphNodeTypeMemset, cudaGraphNodeTypeMemcpy,
                                     cudaGraphNodeTypeKernel, cudaGraphNodeTypeKernel,
                                     cudaGraphNodeTypeKernel, cudaGraphNodeTypeMemcpy,
                                     cudaGraphNodeTypeHost};
  for (size_t i = 0; i < count && i < 7; ++i) {
    cudaGraphNodeType t;
    CHECK(cudaGraphNodeGetType(nodes[i], &t));
    expect(t == types[i], "node type in capture order", long(i));
  }
  size_t roots = 0, edges = 0;
  CHECK(cudaGraphGetRootNodes(g, nullptr, &roots));
  CHECK(cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &edges));
  expect(roots == 1 && edges == 6, "a chain", long(roots * 100 + edges));
  cudaKernelNodeParams kp;
  CHECK(cudaGraphKernelNodeGetParams(nodes[2], &kp));
  expect(kp.gridDim.x == Blocks && kp.blockDim.x == Threads && kp.sharedMemBytes == 0,
         "kernel node dims", kp.gridDim.x);
  expect(*static_cast<float **>(kp.kernelParams[0]) == x, "kernel node argument 0", 0);
  expect(*static_cast<float *>(kp.kernelParams[1]) == 3.0f, "kernel node argument 1", 1);

  cudaGraphExec_t e;
  CHECK(cudaGraphInstantiate(&e, g, 0));
  for (int launch = 0; launch < 5; ++launch) {
    for (int i = 0; i < N; ++i)
      in[i] = float(i * (launch + 1));
    CHECK(cudaGraphLaunch(e, s));
    CHECK(cudaStreamSynchronize(s));
    for (int i = 0; i < N; ++i)
      expect(out[i] == 6.0f * in[i], "captured graph result", launch * N + i);
  }
  expect(HostCalls == 5, "host node ran once per launch", HostCalls);

  // The scale factor of the first kernel changed in the instantiated graph only.
  float two = 2.0f;
  int n = N;
  void *args[] = {&x, &two, &n};
  kp.kernelParams = args;
  CHECK(cudaGraphExecKernelNodeSetParams(e, nodes[2], &kp));
  for (int i = 0; i < N; ++i)
    in[i] = float(i);
  CHECK(cudaGraphLaunch(e, s));
  CHECK(cudaStreamSynchronize(s));
  for (int i = 0; i < N; ++i)
    expect(out[i] == 4.0f * in[i], "after exec kernel node update", i);

  // A second capture of the same work with another factor updates the instantiated graph whole.
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  CHECK(cudaMemsetAsync(y, 0, N * sizeof(float), s));
  CHECK(cudaMemcpyAsync(x, in.data(), N * sizeof(float), cudaMemcpyHostToDevice, s));
  scale<<<Blocks, Threads, 0, s>>>(x, 5.0f, N);
  addTo<<<Blocks, Threads, 0, s>>>(y, x, N);
  addTo<<<Blocks, Threads, 0, s>>>(y, x, N);
  CHECK(cudaMemcpyAsync(out.data(), y, N * sizeof(float), cudaMemcpyDeviceToHost, s));
  CHECK(cudaLaunchHostFunc(s, countCall, &HostCalls));
  cudaGraph_t g2;
  CHECK(cudaStreamEndCapture(s, &g2));
  cudaGraphExecUpdateResultInfo info;
  CHECK(cudaGraphExecUpdate(e, g2, &info));
  expect(info.result == cudaGraphExecUpdateSuccess, "exec update", info.result);
  CHECK(cudaGraphLaunch(e, s));
  CHECK(cudaStreamSynchronize(s));
  for (int i = 0; i < N; ++i)
    expect(out[i] == 10.0f * in[i], "after exec update", i);

  // A graph of another shape cannot update it.
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  scale<<<Blocks, Threads, 0, s>>>(x, 5.0f, N);
  cudaGraph_t g3;
  CHECK(cudaStreamEndCapture(s, &g3));
  cudaError_t r = cudaGraphExecUpdate(e, g3, &info);
  expect(r == cudaErrorGraphExecUpdateFailure, "update with another topology fails", r);
  expect(info.result == cudaGraphExecUpdateErrorTopologyChanged, "topology changed", info.result);
  (void)cudaGetLastError();
  CHECK(cudaGraphDestroy(g3));
  CHECK(cudaGraphDestroy(g2));
  CHECK(cudaGraphExecDestroy(e));
  CHECK(cudaGraphDestroy(g));
  CHECK(cudaStreamDestroy(s));
  CHECK(cudaFree(x));
  CHECK(cudaFree(y));
}

// Fork and join through events: two branches on two streams, joined before the end.
static void captureForkJoin() {
  cudaStream_t s1, s2;
  CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
  cudaEvent_t fork, join;
  CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
  int *a, *b;
  CHECK(cudaMalloc(&a, N * sizeof(int)));
  CHECK(cudaMalloc(&b, N * sizeof(int)));
  std::vector<int> ha(N), hb(N);
  CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  CHECK(cudaEventRecord(fork, s1));
  CHECK(cudaStreamWaitEvent(s2, fork, 0));
  cudaStreamCaptureStatus st;
  CHECK(cudaStreamIsCapturing(s2, &st));
  expect(st == cudaStreamCaptureStatusActive, "joined stream captures", 0);
  fillIota<<<Blocks, Threads, 0, s1>>>(a, 100, N);
  fillIota<<<Blocks, Threads, 0, s2>>>(b, 7000, N);
  CHECK(cudaEventRecord(join, s2));
  CHECK(cudaStreamWaitEvent(s1, join, 0));
  CHECK(cudaMemcpyAsync(ha.data(), a, N * sizeof(int), cudaMemcpyDeviceToHost, s1));
  CHECK(cudaMemcpyAsync(hb.data(), b, N * sizeof(int), cudaMemcpyDeviceToHost, s1));
  cudaGraph_t g;
  CHECK(cudaStreamEndCapture(s1, &g));
  CHECK(cudaStreamIsCapturing(s2, &st));
  expect(st == cudaStreamCaptureStatusNone, "joined stream done", 0);
  size_t roots = 0, edges = 0, count = 0;
  CHECK(cudaGraphGetNodes(g, nullptr, &count));
  CHECK(cudaGraphGetRootNodes(g, nullptr, &roots));
  CHECK(cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &edges));
  // Two kernels as roots; the first copy waits for both; the second for the first.
  expect(count == 4 && roots == 2 && edges == 3, "fork/join shape",
         long(count * 10000 + roots * 100 + edges));
  cudaGraphExec_t e;
  CHECK(cudaGraphInstantiate(&e, g, 0));
  CHECK(cudaGraphLaunch(e, s1));
  CHECK(cudaStreamSynchronize(s1));
  for (int i = 0; i < N; ++i) {
    expect(ha[i] == 100 + i, "branch one", i);
    expect(hb[i] == 7000 + i, "branch two", i);
  }
  // Ending the capture while a joined stream has not come back is an error.
  CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  CHECK(cudaEventRecord(fork, s1));
  CHECK(cudaStreamWaitEvent(s2, fork, 0));
  fillIota<<<Blocks, Threads, 0, s2>>>(b, 1, N);
  cudaGraph_t bad = nullptr;
  cudaError_t r = cudaStreamEndCapture(s1, &bad);
  expect(r == cudaErrorStreamCaptureUnjoined, "unjoined capture", r);
  expect(bad == nullptr, "no graph from an unjoined capture", 0);
  (void)cudaGetLastError();
  CHECK(cudaGraphExecDestroy(e));
  CHECK(cudaGraphDestroy(g));
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  CHECK(cudaEventDestroy(fork));
  CHECK(cudaEventDestroy(join));
  CHECK(cudaStreamDestroy(s1));
  CHECK(cudaStreamDestroy(s2));
}

// A graph built node by node: a diamond of kernels after a memset, a child graph, an empty node
// and a host node; cloned and instantiated.
static void buildExplicitly() {
  int *a, *b;
  CHECK(cudaMalloc(&a, N * sizeof(int)));
  CHECK(cudaMalloc(&b, N * sizeof(int)));
  std::vector<int> ha(N, -1), hb(N, -1);
  cudaGraph_t g;
  CHECK(cudaGraphCreate(&g, 0));
  cudaGraphNode_t set, k1, k2, join, copyA, child, host;
  cudaMemsetParams mp = {};
  mp.dst = b;
  mp.value = 0x01010101;
  mp.elementSize = 4;
  mp.width = N;
  mp.height = 1;
  CHECK(cudaGraphAddMemsetNode(&set, g, nullptr, 0, &mp));
  int base = 40, n = N;
  void *args1[] = {&a, &base, &n};
  cudaKernelNodeParams kp = {};
  kp.func = reinterpret_cast<void *>(fillIota);
  kp.gridDim = dim3(Blocks);
  kp.blockDim = dim3(Threads);
  kp.kernelParams = args1;
  CHECK(cudaGraphAddKernelNode(&k1, g, &set, 1, &kp));
  base = 99; // parameters are copied when the node is made
  CHECK(cudaGraphAddEmptyNode(&k2, g, &set, 1));
  cudaGraphNode_t deps[] = {k1, k2};
  CHECK(cudaGraphAddEmptyNode(&join, g, deps, 2));
  CHECK(cudaGraphAddMemcpyNode1D(&copyA, g, &join, 1, ha.data(), a, N * sizeof(int),
                                 cudaMemcpyDeviceToHost));
  // The child: copy b to the host.
  cudaGraph_t sub;
  CHECK(cudaGraphCreate(&sub, 0));
  cudaGraphNode_t subCopy;
  CHECK(cudaGraphAddMemcpyNode1D(&subCopy, sub, nullptr, 0, hb.data(), b, N * sizeof(int),
                                 cudaMemcpyDeviceToHost));
  CHECK(cudaGraphAddChildGraphNode(&child, g, &join, 1, sub));
  cudaHostNodeParams hp = {countCall, &HostCalls};
  cudaGraphNode_t after[] = {copyA, child};
  CHECK(cudaGraphAddHostNode(&host, g, after, 2, &hp));
  size_t count = 0, roots = 0, edges = 0;
  CHECK(cudaGraphGetNodes(g, nullptr, &count));
  CHECK(cudaGraphGetRootNodes(g, nullptr, &roots));
  CHECK(cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &edges));
  expect(count == 7 && roots == 1 && edges == 8, "explicit graph shape",
         long(count * 10000 + roots * 100 + edges));
  size_t ndeps = 0;
  CHECK(cudaGraphNodeGetDependencies(join, nullptr, nullptr, &ndeps));
  expect(ndeps == 2, "join has two dependencies", long(ndeps));
  cudaGraph_t clone;
  CHECK(cudaGraphClone(&clone, g));
  cudaGraphExec_t e;
  CHECK(cudaGraphInstantiate(&e, clone, 0));
  int before = HostCalls;
  CHECK(cudaGraphLaunch(e, 0));
  CHECK(cudaDeviceSynchronize());
  for (int i = 0; i < N; ++i) {
    expect(ha[i] == 40 + i, "explicit kernel node", i);
    expect(hb[i] == 0x01010101, "memset then child copy", i);
  }
  expect(HostCalls == before + 1, "explicit host node", HostCalls);
  // The node's own parameters changed, then the graph instantiated again.
  base = 500;
  CHECK(cudaGraphKernelNodeSetParams(k1, &kp));
  cudaGraphExec_t e2;
  CHECK(cudaGraphInstantiate(&e2, g, 0));
  CHECK(cudaGraphLaunch(e2, 0));
  CHECK(cudaDeviceSynchronize());
  for (int i = 0; i < N; ++i)
    expect(ha[i] == 500 + i, "kernel node set params", i);
  CHECK(cudaGraphExecDestroy(e2));
  CHECK(cudaGraphExecDestroy(e));
  CHECK(cudaGraphDestroy(clone));
  CHECK(cudaGraphDestroy(g));
  CHECK(cudaGraphDestroy(sub));
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
}

// Memory allocated and freed inside a capture belongs to the graph.
static void graphMemory() {
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  std::vector<int> h(N);
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  int *t;
  CHECK(cudaMallocAsync(&t, N * sizeof(int), s));
  fillIota<<<Blocks, Threads, 0, s>>>(t, 3, N);
  CHECK(cudaMemcpyAsync(h.data(), t, N * sizeof(int), cudaMemcpyDeviceToHost, s));
  CHECK(cudaFreeAsync(t, s));
  cudaGraph_t g;
  CHECK(cudaStreamEndCapture(s, &g));
  cudaGraphExec_t e;
  CHECK(cudaGraphInstantiate(&e, g, 0));
  for (int launch = 0; launch < 2; ++launch) {
    std::fill(h.begin(), h.end(), 0);
    CHECK(cudaGraphLaunch(e, s));
    CHECK(cudaStreamSynchronize(s));
    for (int i = 0; i < N; ++i)
      expect(h[i] == 3 + i, "graph allocation", launch * N + i);
  }
  CHECK(cudaGraphExecDestroy(e));
  CHECK(cudaGraphDestroy(g));
  CHECK(cudaStreamDestroy(s));
}

// Synchronising a capturing stream is not allowed and invalidates the capture.
static void captureErrors() {
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  float *x;
  CHECK(cudaMalloc(&x, N * sizeof(float)));
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  scale<<<Blocks, Threads, 0, s>>>(x, 2.0f, N);
  cudaError_t r = cudaStreamSynchronize(s);
  expect(r == cudaErrorStreamCaptureUnsupported, "sync while capturing", r);
  cudaStreamCaptureStatus st;
  (void)cudaStreamIsCapturing(s, &st);
  expect(st == cudaStreamCaptureStatusInvalidated, "capture invalidated", st);
  cudaGraph_t g = nullptr;
  r = cudaStreamEndCapture(s, &g);
  expect(r == cudaErrorStreamCaptureInvalidated, "end of an invalidated capture", r);
  expect(g == nullptr, "no graph", 0);
  r = cudaStreamEndCapture(s, &g);
  expect(r == cudaErrorIllegalState, "end without a capture", r);
  r = cudaStreamBeginCapture(cudaStreamLegacy, cudaStreamCaptureModeGlobal);
  expect(r == cudaErrorStreamCaptureUnsupported, "capture of the legacy stream", r);
  (void)cudaGetLastError();
  CHECK(cudaFree(x));
  CHECK(cudaStreamDestroy(s));
}

// The per-thread default stream captures like a created one (only the legacy stream cannot): a
// kernel, a fill, a fork into a created stream and its join, launched twice; a second thread's
// per-thread stream is a stream of its own, not capturing meanwhile; in the per-thread build,
// stream 0 is that stream.
static void capturePerThreadStream() {
  cudaStream_t side;
  CHECK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
  cudaEvent_t fork, join;
  CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
  CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
  int *a, *b;
  CHECK(cudaMalloc(&a, N * sizeof(int)));
  CHECK(cudaMalloc(&b, N * sizeof(int)));
  cudaStream_t pt = cudaStreamPerThread;
  CHECK(cudaStreamBeginCapture(pt, cudaStreamCaptureModeThreadLocal));
  cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
  CHECK(cudaStreamIsCapturing(pt, &st));
  expect(st == cudaStreamCaptureStatusActive, "per-thread stream captures", st);
  std::thread other([&] {
    cudaStreamCaptureStatus o = cudaStreamCaptureStatusActive;
    CHECK(cudaStreamIsCapturing(cudaStreamPerThread, &o));
    expect(o == cudaStreamCaptureStatusNone, "another thread's per-thread stream", o);
  });
  other.join();
  fillIota<<<Blocks, Threads, 0, pt>>>(a, 40, N);
  CHECK(cudaMemsetAsync(b, 0, N * sizeof(int), pt));
  CHECK(cudaEventRecord(fork, pt));
  CHECK(cudaStreamWaitEvent(side, fork, 0));
  addScalar<<<Blocks, Threads, 0, side>>>(b, 3, N);
  CHECK(cudaEventRecord(join, side));
  CHECK(cudaStreamWaitEvent(pt, join, 0));
  addScalar<<<Blocks, Threads, 0, pt>>>(a, 1, N);
  cudaGraph_t g = nullptr;
  CHECK(cudaStreamEndCapture(pt, &g));
  size_t count = 0, edges = 0;
  CHECK(cudaGraphGetNodes(g, nullptr, &count));
  CHECK(cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &edges));
  // iota -> fill -> side kernel -> last kernel, and fill -> last kernel (the join adds the side
  // kernel to the stream's dependencies, the fill stays one).
  expect(count == 4 && edges == 4, "per-thread capture shape", long(count * 100 + edges));
  cudaGraphExec_t e;
  CHECK(cudaGraphInstantiate(&e, g, 0));
  for (int launch = 0; launch < 2; ++launch) {
    CHECK(cudaGraphLaunch(e, pt));
    CHECK(cudaStreamSynchronize(pt));
    auto ha = toHost(a, N), hb = toHost(b, N);
    for (int i = 0; i < N; ++i) {
      expect(ha[i] == 41 + i, "per-thread capture, kernels", i);
      expect(hb[i] == 3, "per-thread capture, fill and side kernel", i);
    }
  }
  CHECK(cudaGraphExecDestroy(e));
  CHECK(cudaGraphDestroy(g));
#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
  // Built with --default-stream per-thread, stream 0 is that stream (cudart passes the null
  // stream to the driver's _ptsz entry points): a capture begun on 0 takes launches on 0 and on
  // cudaStreamPerThread alike.
  CHECK(cudaMemset(a, 0, N * sizeof(int)));
  CHECK(cudaStreamBeginCapture(0, cudaStreamCaptureModeThreadLocal));
  fillIota<<<Blocks, Threads>>>(a, 7, N);
  addScalar<<<Blocks, Threads, 0, cudaStreamPerThread>>>(a, 5, N);
  CHECK(cudaStreamEndCapture(0, &g));
  auto untouched = toHost(a, N);
  expect(untouched[N - 1] == 0, "nothing runs while stream 0 captures", untouched[N - 1]);
  CHECK(cudaGraphGetNodes(g, nullptr, &count));
  expect(count == 2, "stream 0 capture nodes", long(count));
  CHECK(cudaGraphInstantiate(&e, g, 0));
  CHECK(cudaGraphLaunch(e, 0));
  CHECK(cudaStreamSynchronize(0));
  auto ha = toHost(a, N);
  for (int i = 0; i < N; ++i)
    expect(ha[i] == 12 + i, "stream 0 capture", i);
  CHECK(cudaGraphExecDestroy(e));
  CHECK(cudaGraphDestroy(g));
#endif
  CHECK(cudaEventDestroy(fork));
  CHECK(cudaEventDestroy(join));
  CHECK(cudaStreamDestroy(side));
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
}

// An instantiated graph launched into a capture becomes a child graph; nodes disabled in an
// instantiated graph; event record nodes; a capture's dependency set read and replaced.
static void graphsInGraphs() {
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  int *a, *b;
  CHECK(cudaMalloc(&a, N * sizeof(int)));
  CHECK(cudaMalloc(&b, N * sizeof(int)));
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  fillIota<<<Blocks, Threads, 0, s>>>(a, 10, N);
  cudaGraph_t inner;
  CHECK(cudaStreamEndCapture(s, &inner));
  cudaGraphExec_t innerExec;
  CHECK(cudaGraphInstantiate(&innerExec, inner, 0));

  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  CHECK(cudaGraphLaunch(innerExec, s));
  addScalar<<<Blocks, Threads, 0, s>>>(a, 5, N);
  cudaStreamCaptureStatus st;
  unsigned long long id = 0;
  cudaGraph_t capturing = nullptr;
  const cudaGraphNode_t *deps = nullptr;
  size_t ndeps = 0;
  CHECK(cudaStreamGetCaptureInfo(s, &st, &id, &capturing, &deps, nullptr, &ndeps));
  expect(capturing != nullptr && ndeps == 1, "one dependency after the kernel", long(ndeps));
  cudaGraphNode_t last = ndeps == 1 ? deps[0] : nullptr;
  cudaGraphNodeType t = cudaGraphNodeTypeEmpty;
  if (last)
    CHECK(cudaGraphNodeGetType(last, &t));
  expect(t == cudaGraphNodeTypeKernel, "the dependency is the kernel", t);
  // The next node starts a branch of its own: the dependency set emptied.
  CHECK(cudaStreamUpdateCaptureDependencies(s, nullptr, nullptr, 0,
                                            cudaStreamSetCaptureDependencies));
  fillIota<<<Blocks, Threads, 0, s>>>(b, 1000, N);
  cudaGraph_t outer;
  CHECK(cudaStreamEndCapture(s, &outer));
  size_t count = 0, roots = 0;
  CHECK(cudaGraphGetNodes(outer, nullptr, &count));
  CHECK(cudaGraphGetRootNodes(outer, nullptr, &roots));
  expect(count == 3 && roots == 2, "child graph, kernel and a second root",
         long(count * 100 + roots));
  std::vector<cudaGraphNode_t> nodes(count);
  CHECK(cudaGraphGetNodes(outer, nodes.data(), &count));
  int children = 0;
  cudaGraphNode_t lastKernel = nullptr;
  for (cudaGraphNode_t n : nodes) {
    CHECK(cudaGraphNodeGetType(n, &t));
    children += t == cudaGraphNodeTypeGraph;
    size_t nd = 0;
    CHECK(cudaGraphNodeGetDependencies(n, nullptr, nullptr, &nd));
    if (t == cudaGraphNodeTypeKernel && nd == 0)
      lastKernel = n;
  }
  expect(children == 1, "the launched graph is a child graph node", children);
  cudaGraphInstantiateParams ip = {};
  cudaGraphExec_t e;
  CHECK(cudaGraphInstantiateWithParams(&e, outer, &ip));
  expect(ip.result_out == cudaGraphInstantiateSuccess, "instantiated", ip.result_out);
  CHECK(cudaGraphLaunch(e, s));
  CHECK(cudaStreamSynchronize(s));
  std::vector<int> h = toHost(a, N), hb = toHost(b, N);
  for (int i = 0; i < N; ++i) {
    expect(h[i] == 10 + i + 5, "child graph, then a kernel", i);
    expect(hb[i] == 1000 + i, "the second root", i);
  }
  CHECK(cudaMemset(b, 0, N * sizeof(int)));
  CHECK(cudaGraphNodeSetEnabled(e, lastKernel, 0));
  unsigned enabled = 1;
  CHECK(cudaGraphNodeGetEnabled(e, lastKernel, &enabled));
  expect(enabled == 0, "disabled", 0);
  CHECK(cudaGraphLaunch(e, s));
  CHECK(cudaStreamSynchronize(s));
  h = toHost(a, N);
  hb = toHost(b, N);
  for (int i = 0; i < N; ++i) {
    expect(h[i] == 10 + i + 5, "enabled nodes ran again", i);
    expect(hb[i] == 0, "disabled kernel node skipped", i);
  }

  // Event record nodes around a kernel: both events complete, in order.
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  cudaGraph_t g;
  CHECK(cudaGraphCreate(&g, 0));
  cudaGraphNode_t n1, n2, n3;
  CHECK(cudaGraphAddEventRecordNode(&n1, g, nullptr, 0, start));
  int seven = 7, n = N;
  void *args[] = {&a, &seven, &n};
  cudaKernelNodeParams kp = {};
  kp.func = reinterpret_cast<void *>(addScalar);
  kp.gridDim = dim3(Blocks);
  kp.blockDim = dim3(Threads);
  kp.kernelParams = args;
  CHECK(cudaGraphAddKernelNode(&n2, g, &n1, 1, &kp));
  CHECK(cudaGraphAddEventRecordNode(&n3, g, &n2, 1, stop));
  cudaGraphExec_t ge;
  CHECK(cudaGraphInstantiate(&ge, g, 0));
  CHECK(cudaGraphLaunch(ge, s));
  CHECK(cudaEventSynchronize(stop));
  float ms = -1;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  expect(ms >= 0, "event record nodes recorded in order", long(ms));
  h = toHost(a, N);
  for (int i = 0; i < N; ++i)
    expect(h[i] == 10 + i + 12, "kernel between event nodes", i);
  CHECK(cudaGraphExecDestroy(ge));
  CHECK(cudaGraphDestroy(g));
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  CHECK(cudaGraphExecDestroy(e));
  CHECK(cudaGraphDestroy(outer));
  CHECK(cudaGraphExecDestroy(innerExec));
  CHECK(cudaGraphDestroy(inner));
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  CHECK(cudaStreamDestroy(s));
}

// cudaMalloc may synchronize: a capture in the global mode forbids it and is invalidated; a thread
// in the relaxed mode may call it (as PyTorch's allocator does while graphs are captured).
static void captureModes() {
  cudaStream_t s;
  CHECK(cudaStreamCreate(&s));
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  void *p = nullptr;
  cudaError_t r = cudaMalloc(&p, 256);
  expect(r == cudaErrorStreamCaptureUnsupported, "cudaMalloc while capturing", r);
  cudaGraph_t g = nullptr;
  r = cudaStreamEndCapture(s, &g);
  expect(r == cudaErrorStreamCaptureInvalidated, "capture invalidated by cudaMalloc", r);
  (void)cudaGetLastError();

  int *a;
  CHECK(cudaMalloc(&a, N * sizeof(int)));
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  CHECK(cudaThreadExchangeStreamCaptureMode(&mode));
  expect(mode == cudaStreamCaptureModeGlobal, "the thread's mode was global", mode);
  int *b;
  CHECK(cudaMalloc(&b, N * sizeof(int)));
  CHECK(cudaThreadExchangeStreamCaptureMode(&mode));
  expect(mode == cudaStreamCaptureModeRelaxed, "the thread's mode was relaxed", mode);
  fillIota<<<Blocks, Threads, 0, s>>>(b, 2, N);
  CHECK(cudaMemcpyAsync(a, b, N * sizeof(int), cudaMemcpyDeviceToDevice, s));
  CHECK(cudaStreamEndCapture(s, &g));
  cudaGraphExec_t e;
  CHECK(cudaGraphInstantiate(&e, g, 0));
  CHECK(cudaGraphLaunch(e, s));
  CHECK(cudaStreamSynchronize(s));
  std::vector<int> h = toHost(a, N);
  for (int i = 0; i < N; ++i)
    expect(h[i] == 2 + i, "capture with an allocation in the relaxed mode", i);
  CHECK(cudaGraphExecDestroy(e));
  CHECK(cudaGraphDestroy(g));
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  CHECK(cudaStreamDestroy(s));
}

int main() {
  captureOneStream();
  captureForkJoin();
  buildExplicitly();
  graphMemory();
  captureErrors();
  graphsInGraphs();
  captureModes();
  capturePerThreadStream();
  if (failures) {
    std::printf("%d failures\n", failures);
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}
