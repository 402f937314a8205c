// CUDA's SIMD intrinsics on packed bytes and half-words (CUDA Math API, "SIMD Intrinsics"):
// nvcc emits the PTX video instructions vabsdiff4 (for __vabsdiffu4, __vabsdiffs4, __vsads4) and
// vabsdiff2/vabsdiff4 .add (for __vsadu2, __vsadu4) and inlines the others as integer code. Each
// result is checked against a host computation of the documented per-lane meaning.
#include "check.h"
#include <cstdint>
#include <cstdlib>
#include <vector>

constexpr int Ops = 13;

__global__ void simd(const unsigned *a, const unsigned *b, unsigned *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  unsigned x = a[i], y = b[i];
  unsigned *o = out + i * Ops;
  o[0] = __vabsdiffu4(x, y);
  o[1] = __vabsdiffs4(x, y);
  o[2] = __vsadu4(x, y);
  o[3] = __vsads4(x, y);
  o[4] = __vsadu2(x, y);
  o[5] = __vsads2(x, y);
  o[6] = __vabsdiffu2(x, y);
  o[7] = __vabsdiffs2(x, y);
  o[8] = __vaddss4(x, y);
  o[9] = __vavgu4(x, y);
  o[10] = __vcmpgeu4(x, y);
  o[11] = __vmaxs2(x, y);
  o[12] = __vsubss2(x, y);
}

// Lane K (Bits wide) of V, zero- or sign-extended.
int lane(unsigned V, int Bits, int K, bool Signed) {
  unsigned P = (V >> (K * Bits)) & ((1u << Bits) - 1);
  return Signed && (P >> (Bits - 1)) ? int(P) - (1 << Bits) : int(P);
}

template <class F> unsigned perLane(unsigned X, unsigned Y, int Bits, bool Signed, F Fn) {
  unsigned R = 0;
  for (int K = 0; K < 32 / Bits; ++K)
    R |= (unsigned(Fn(lane(X, Bits, K, Signed), lane(Y, Bits, K, Signed))) & ((1u << Bits) - 1))
         << (K * Bits);
  return R;
}

unsigned sad(unsigned X, unsigned Y, int Bits, bool Signed) {
  unsigned S = 0;
  for (int K = 0; K < 32 / Bits; ++K)
    S += unsigned(std::abs(lane(X, Bits, K, Signed) - lane(Y, Bits, K, Signed)));
  return S;
}

int clampTo(int V, int Lo, int Hi) { return V < Lo ? Lo : V > Hi ? Hi : V; }

void reference(unsigned X, unsigned Y, unsigned *R) {
  auto AbsDiff = [](int A, int B) { return std::abs(A - B); };
  R[0] = perLane(X, Y, 8, false, AbsDiff);
  R[1] = perLane(X, Y, 8, true, AbsDiff);
  R[2] = sad(X, Y, 8, false);
  R[3] = sad(X, Y, 8, true);
  R[4] = sad(X, Y, 16, false);
  R[5] = sad(X, Y, 16, true);
  R[6] = perLane(X, Y, 16, false, AbsDiff);
  R[7] = perLane(X, Y, 16, true, AbsDiff);
  R[8] = perLane(X, Y, 8, true, [](int A, int B) { return clampTo(A + B, -128, 127); });
  R[9] = perLane(X, Y, 8, false, [](int A, int B) { return (A + B + 1) >> 1; });
  R[10] = perLane(X, Y, 8, false, [](int A, int B) { return A >= B ? 0xff : 0; });
  R[11] = perLane(X, Y, 16, true, [](int A, int B) { return A > B ? A : B; });
  R[12] = perLane(X, Y, 16, true, [](int A, int B) { return clampTo(A - B, -32768, 32767); });
}

int main() {
  // Edge lanes (0, 0x7f/0x80, 0xff; 0x7fff/0x8000) first, then pseudo-random words.
  std::vector<unsigned> a = {0, 0xffffffff, 0x7f807f80, 0x80008000, 0x00ff00ff, 0x7fff8000},
                        b = {0xffffffff, 0, 0x807f807f, 0x7fff7fff, 0xff00ff00, 0x80007fff};
  unsigned s = 12345;
  while (a.size() < 1000) {
    s = s * 1664525u + 1013904223u;
    a.push_back(s);
    s = s * 1664525u + 1013904223u;
    b.push_back(s);
  }
  int n = int(a.size());
  unsigned *da, *db, *dout;
  CHECK(cudaMalloc(&da, n * sizeof(unsigned)));
  CHECK(cudaMalloc(&db, n * sizeof(unsigned)));
  CHECK(cudaMalloc(&dout, n * Ops * sizeof(unsigned)));
  CHECK(cudaMemcpy(da, a.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
  simd<<<(n + 127) / 128, 128>>>(da, db, dout, n);
  CHECK(cudaGetLastError());
  std::vector<unsigned> out(n * Ops);
  CHECK(cudaMemcpy(out.data(), dout, out.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
  const char *Names[Ops] = {"__vabsdiffu4", "__vabsdiffs4", "__vsadu4",     "__vsads4",  "__vsadu2",
                            "__vsads2",     "__vabsdiffu2", "__vabsdiffs2", "__vaddss4", "__vavgu4",
                            "__vcmpgeu4",   "__vmaxs2",     "__vsubss2"};
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    unsigned R[Ops];
    reference(a[i], b[i], R);
    for (int k = 0; k < Ops; ++k)
      if (out[i * Ops + k] != R[k] && bad++ < 10)
        std::printf("FAIL: %s(0x%08x, 0x%08x) = 0x%08x, expected 0x%08x\n", Names[k], a[i], b[i],
                    out[i * Ops + k], R[k]);
  }
  if (bad)
    return 1;
  std::printf("PASS: %d words, %d intrinsics\n", n, Ops);
  return 0;
}
