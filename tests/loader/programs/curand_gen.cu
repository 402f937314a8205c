// cuRAND through reptx: the host API's device generators (libcurand's kernels, shipped as PTX for
// sm_121 and recompiled) against the same generators run on the host, and the device API
// (curand_kernel.h, compiled into this program's PTX) against a host Philox4x32-10 checked
// with the known-answer vectors of Salmon et al., "Parallel random numbers: as easy as 1, 2, 3".
#include "check.h"
#include <cmath>
#include <cstdint>
#include <curand.h>
#include <curand_kernel.h>

// Philox4x32-10: ten rounds of two 32x32->64 multiplications, the key bumped by the Weyl
// constants between rounds.
void philox(uint32_t Ctr[4], uint32_t K0, uint32_t K1, uint32_t Out[4]) {
  uint32_t C[4] = {Ctr[0], Ctr[1], Ctr[2], Ctr[3]};
  for (int R = 0; R < 10; ++R) {
    uint64_t P0 = uint64_t(0xD2511F53u) * C[0], P1 = uint64_t(0xCD9E8D57u) * C[2];
    uint32_t N[4] = {uint32_t(P1 >> 32) ^ C[1] ^ K0, uint32_t(P1), uint32_t(P0 >> 32) ^ C[3] ^ K1,
                     uint32_t(P0)};
    for (int I = 0; I < 4; ++I)
      C[I] = N[I];
    K0 += 0x9E3779B9u;
    K1 += 0xBB67AE85u;
  }
  for (int I = 0; I < 4; ++I)
    Out[I] = C[I];
}

// Each thread: its own subsequence of one seed, eight draws of four.
__global__ void draw(unsigned long long Seed, uint4 *Out) {
  int T = blockIdx.x * blockDim.x + threadIdx.x;
  curandStatePhilox4_32_10_t S;
  curand_init(Seed, T, 0, &S);
  for (int I = 0; I < 8; ++I)
    Out[T * 8 + I] = curand4(&S);
}

int main() {
  // The known-answer vectors (counter, key -> output).
  uint32_t Zero[4] = {0, 0, 0, 0}, Ones[4] = {~0u, ~0u, ~0u, ~0u}, Out[4];
  uint32_t Pi[4] = {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344};
  philox(Zero, 0, 0, Out);
  expect(Out[0] == 0x6627e8d5 && Out[1] == 0xe169c58d && Out[2] == 0xbc57ac4c &&
             Out[3] == 0x9b00dbd8,
         "host philox KAT 0", 0);
  philox(Ones, ~0u, ~0u, Out);
  expect(Out[0] == 0x408f276d && Out[1] == 0x41c83b0e && Out[2] == 0xa20bc7c6 &&
             Out[3] == 0x6d5451fd,
         "host philox KAT 1", 1);
  philox(Pi, 0xa4093822, 0x299f31d0, Out);
  expect(Out[0] == 0xd16cfe09 && Out[1] == 0x94fdcceb && Out[2] == 0x5001e420 &&
             Out[3] == 0x24126ea1,
         "host philox KAT 2", 2);

  const int N = 4096;
  // MRG32k3a passes too, but its seeding kernel (a skip-ahead for each of 81,920 states) takes
  // 14 s on the emulator.
  for (curandRngType_t Type :
       {CURAND_RNG_PSEUDO_XORWOW, CURAND_RNG_PSEUDO_PHILOX4_32_10, CURAND_RNG_PSEUDO_MTGP32}) {
    curandGenerator_t G, H;
    CHECK_STATUS(curandCreateGenerator(&G, Type));
    CHECK_STATUS(curandCreateGeneratorHost(&H, Type));
    CHECK_STATUS(curandSetPseudoRandomGeneratorSeed(G, 20261127));
    CHECK_STATUS(curandSetPseudoRandomGeneratorSeed(H, 20261127));
    unsigned *DBits;
    float *DF;
    CHECK(cudaMalloc(&DBits, N * 4));
    CHECK(cudaMalloc(&DF, N * 4));
    std::vector<unsigned> HBits(N);
    std::vector<float> HF(N);
    CHECK_STATUS(curandGenerate(G, DBits, N));
    CHECK_STATUS(curandGenerate(H, HBits.data(), N));
    std::vector<unsigned> Bits = toHost(DBits, N);
    for (int I = 0; I < N; ++I)
      expect(Bits[I] == HBits[I], "curandGenerate against the host generator", Type * 100000 + I);
    CHECK_STATUS(curandGenerateUniform(G, DF, N));
    CHECK_STATUS(curandGenerateUniform(H, HF.data(), N));
    std::vector<float> F = toHost(DF, N);
    for (int I = 0; I < N; ++I)
      expect(F[I] == HF[I] && F[I] > 0 && F[I] <= 1, "curandGenerateUniform", Type * 100000 + I);
    // Box-Muller through the device's approximate log and sine: within 4e-6 of the host's.
    CHECK_STATUS(curandGenerateNormal(G, DF, N, 1.0f, 2.0f));
    CHECK_STATUS(curandGenerateNormal(H, HF.data(), N, 1.0f, 2.0f));
    F = toHost(DF, N);
    for (int I = 0; I < N; ++I)
      expect(std::fabs(F[I] - HF[I]) <= 4e-6f, "curandGenerateNormal", Type * 100000 + I);
    CHECK(cudaFree(DBits));
    CHECK(cudaFree(DF));
    CHECK_STATUS(curandDestroyGenerator(G));
    CHECK_STATUS(curandDestroyGenerator(H));
  }

  // The device API: thread T's Philox has key = the seed and counter = (n, 0, T) for its n-th
  // group of four.
  const unsigned long long Seed = 0x0123456789abcdefull;
  const int Threads = 96;
  uint4 *D;
  CHECK(cudaMalloc(&D, Threads * 8 * sizeof(uint4)));
  draw<<<3, 32>>>(Seed, D);
  CHECK(cudaGetLastError());
  std::vector<uint4> Got = toHost(D, Threads * 8);
  for (int T = 0; T < Threads; ++T)
    for (int I = 0; I < 8; ++I) {
      uint32_t Ctr[4] = {uint32_t(I), 0, uint32_t(T), 0}, Want[4];
      philox(Ctr, uint32_t(Seed), uint32_t(Seed >> 32), Want);
      const uint4 &V = Got[T * 8 + I];
      expect(V.x == Want[0] && V.y == Want[1] && V.z == Want[2] && V.w == Want[3],
             "curand4 of curandStatePhilox4_32_10_t", T * 8 + I);
    }
  CHECK(cudaFree(D));
  if (failures)
    return 1;
  std::printf("PASS\n");
  return 0;
}
