// Conditional graph nodes through the runtime API (CUDA 12.4+): a WHILE loop whose body halves
// the values above a bound until none is left, its condition set by a kernel of the body with
// cudaGraphSetConditional; an IF/else on the number of rounds; a SWITCH on a value the host
// writes between launches; a WHILE body captured from a stream (cudaStreamBeginCaptureToGraph).
// Expected values from the same loops on the host.
#include "check.h"

__global__ void halve(float *X, int N, float Bound, unsigned *Above) {
  int I = blockIdx.x * blockDim.x + threadIdx.x;
  if (I < N && X[I] > Bound) {
    X[I] *= 0.5f;
    if (X[I] > Bound)
      atomicAdd(Above, 1u);
  }
}
// Ends the loop when no value is above the bound; counts the rounds.
__global__ void check(cudaGraphConditionalHandle Loop, unsigned *Above, unsigned *Rounds) {
  ++*Rounds;
  cudaGraphSetConditional(Loop, *Above != 0);
  *Above = 0;
}
__global__ void decide(cudaGraphConditionalHandle H, const unsigned *Value, unsigned Threshold) {
  cudaGraphSetConditional(H, *Value > Threshold);
}
__global__ void pick(cudaGraphConditionalHandle H, const unsigned *Value) {
  cudaGraphSetConditional(H, *Value);
}
__global__ void write(unsigned *Out, unsigned V) { *Out = V; }
__global__ void countdown(cudaGraphConditionalHandle H, unsigned *Left, unsigned *Ticks) {
  --*Left;
  ++*Ticks;
  cudaGraphSetConditional(H, *Left != 0);
}

cudaGraphNode_t kernel(cudaGraph_t G, void *F, dim3 Grid, dim3 Block, void **Args,
                       const cudaGraphNode_t *Deps, size_t NumDeps) {
  cudaGraphNodeParams P = {};
  P.type = cudaGraphNodeTypeKernel;
  P.kernel.func = F;
  P.kernel.gridDim = Grid;
  P.kernel.blockDim = Block;
  P.kernel.kernelParams = Args;
  cudaGraphNode_t N;
  CHECK(cudaGraphAddNode(&N, G, Deps, nullptr, NumDeps, &P));
  return N;
}

// A conditional node after Deps; its body graphs go to Bodies.
cudaGraphNode_t conditional(cudaGraph_t G, cudaGraphConditionalHandle H,
                            cudaGraphConditionalNodeType Type, unsigned Size,
                            const cudaGraphNode_t *Deps, size_t NumDeps,
                            std::vector<cudaGraph_t> &Bodies) {
  cudaGraphNodeParams P = {};
  P.type = cudaGraphNodeTypeConditional;
  P.conditional.handle = H;
  P.conditional.type = Type;
  P.conditional.size = Size;
  cudaGraphNode_t N;
  CHECK(cudaGraphAddNode(&N, G, Deps, nullptr, NumDeps, &P));
  Bodies.assign(P.conditional.phGraph_out, P.conditional.phGraph_out + Size);
  return N;
}

int main() {
  const int N = 1000;
  const float Bound = 1.5f;
  std::vector<float> X(N);
  for (int I = 0; I < N; ++I)
    X[I] = 1.0f + float((I * 37) % 1000);
  float *DX = toDevice(X);
  unsigned *Words; // above, rounds, pick value, if result, switch result, left, ticks
  CHECK(cudaMalloc(&Words, 7 * sizeof(unsigned)));
  CHECK(cudaMemset(Words, 0, 7 * sizeof(unsigned)));
  unsigned *Above = Words, *Rounds = Words + 1, *Value = Words + 2, *IfOut = Words + 3,
           *SwitchOut = Words + 4, *Left = Words + 5, *Ticks = Words + 6;

  cudaGraph_t G;
  CHECK(cudaGraphCreate(&G, 0));
  cudaGraphConditionalHandle Loop, Branch, Pick;
  CHECK(cudaGraphConditionalHandleCreate(&Loop, G, 1, cudaGraphCondAssignDefault));
  CHECK(cudaGraphConditionalHandleCreate(&Branch, G));
  CHECK(cudaGraphConditionalHandleCreate(&Pick, G));

  std::vector<cudaGraph_t> LoopBodies;
  cudaGraphNode_t WhileNode =
      conditional(G, Loop, cudaGraphCondTypeWhile, 1, nullptr, 0, LoopBodies);
  cudaGraph_t Body = LoopBodies[0];
  int Count = N;
  float B = Bound;
  void *HalveArgs[] = {&DX, &Count, &B, &Above};
  cudaGraphNode_t Halve =
      kernel(Body, (void *)halve, dim3((N + 127) / 128), dim3(128), HalveArgs, nullptr, 0);
  void *CheckArgs[] = {&Loop, &Above, &Rounds};
  kernel(Body, (void *)check, dim3(1), dim3(1), CheckArgs, &Halve, 1);

  unsigned Threshold = 8;
  void *DecideArgs[] = {&Branch, &Rounds, &Threshold};
  cudaGraphNode_t Decide = kernel(G, (void *)decide, dim3(1), dim3(1), DecideArgs, &WhileNode, 1);
  std::vector<cudaGraph_t> IfBodies;
  cudaGraphNode_t IfNode = conditional(G, Branch, cudaGraphCondTypeIf, 2, &Decide, 1, IfBodies);
  unsigned Many = 1, Few = 2;
  void *ManyArgs[] = {&IfOut, &Many}, *FewArgs[] = {&IfOut, &Few};
  kernel(IfBodies[0], (void *)write, dim3(1), dim3(1), ManyArgs, nullptr, 0);
  kernel(IfBodies[1], (void *)write, dim3(1), dim3(1), FewArgs, nullptr, 0);

  void *PickArgs[] = {&Pick, &Value};
  cudaGraphNode_t SetPick = kernel(G, (void *)pick, dim3(1), dim3(1), PickArgs, &IfNode, 1);
  std::vector<cudaGraph_t> CaseBodies;
  cudaGraphNode_t SwitchNode =
      conditional(G, Pick, cudaGraphCondTypeSwitch, 4, &SetPick, 1, CaseBodies);
  unsigned Cases[4] = {40, 41, 42, 43};
  void *CaseArgs[4][2];
  for (int K = 0; K < 4; ++K) {
    CaseArgs[K][0] = &SwitchOut;
    CaseArgs[K][1] = &Cases[K];
    kernel(CaseBodies[K], (void *)write, dim3(1), dim3(1), CaseArgs[K], nullptr, 0);
  }

  // A last WHILE loop whose body is captured from a stream into the node's body graph: it counts
  // *Left down to 0.
  cudaGraphConditionalHandle Down;
  CHECK(cudaGraphConditionalHandleCreate(&Down, G, 1, cudaGraphCondAssignDefault));
  std::vector<cudaGraph_t> CountBodies;
  cudaGraphNode_t CountNode =
      conditional(G, Down, cudaGraphCondTypeWhile, 1, &SwitchNode, 1, CountBodies);
  cudaStream_t St;
  CHECK(cudaStreamCreate(&St));
  cudaGraph_t CountBody = CountBodies[0], Captured = nullptr;
  CHECK(cudaStreamBeginCaptureToGraph(St, CountBody, nullptr, nullptr, 0,
                                      cudaStreamCaptureModeGlobal));
  countdown<<<1, 1, 0, St>>>(Down, Left, Ticks);
  CHECK(cudaStreamEndCapture(St, &Captured));
  expect(Captured == CountBody, "the capture's graph is the body", 0);
  size_t BodyNodes = 0;
  CHECK(cudaGraphGetNodes(CountBody, nullptr, &BodyNodes));
  expect(BodyNodes == 1, "captured body nodes", long(BodyNodes));

  cudaGraphExec_t E;
  CHECK(cudaGraphInstantiate(&E, G, 0));
  // Host reference of the loop: rounds until no value is above the bound.
  auto HostRounds = [&](std::vector<float> &V) {
    unsigned R = 0;
    bool More = true;
    while (More) {
      unsigned A = 0;
      for (float &F : V)
        if (F > Bound) {
          F *= 0.5f;
          if (F > Bound)
            ++A;
        }
      ++R;
      More = A != 0;
    }
    return R;
  };
  std::vector<float> Ref = X;
  unsigned WantRounds = HostRounds(Ref);
  for (unsigned Launch = 0; Launch < 3; ++Launch) {
    unsigned V = Launch * 2; // 0, 2, 4 (no case)
    unsigned Count = 3 + Launch;
    CHECK(cudaMemcpyAsync(Value, &V, sizeof(V), cudaMemcpyHostToDevice, St));
    CHECK(cudaMemcpyAsync(Left, &Count, sizeof(Count), cudaMemcpyHostToDevice, St));
    CHECK(cudaGraphLaunch(E, St));
    CHECK(cudaStreamSynchronize(St));
    auto Got = toHost(Words, 7);
    // Later launches: every value is at or below the bound, so the loop runs its one round.
    unsigned Rounds = Launch == 0 ? WantRounds : WantRounds + Launch;
    expect(Got[1] == Rounds, "rounds", Got[1]);
    expect(Got[3] == (Rounds > Threshold ? 1u : 2u), "if/else", Got[3]);
    expect(Got[4] == (V < 4 ? 40 + V : 42), "switch", Got[4]);
    expect(Got[5] == 0, "counted down", Got[5]);
    expect(Got[6] == 3 * (Launch + 1) + Launch * (Launch + 1) / 2, "countdown ticks", Got[6]);
  }
  auto GotX = toHost(DX, N);
  for (int K = 0; K < N; ++K)
    expect(GotX[K] == Ref[K], "halved values", K);
  CHECK(cudaGraphExecDestroy(E));
  CHECK(cudaGraphDestroy(G));
  CHECK(cudaStreamDestroy(St));
  CHECK(cudaFree(DX));
  CHECK(cudaFree(Words));
  if (failures)
    return 1;
  std::printf("PASS (%u rounds)\n", WantRounds);
}
