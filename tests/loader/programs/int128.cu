// 128-bit integers in device code as nvcc compiles them: multiplication, shifts and comparisons
// in 64-bit pieces, and division and remainder (unsigned and signed, by a constant and by a
// runtime value) as a long division on 32-bit words whose correction steps read the carry flag
// after a subtraction (subc.cc, then addc: 1 means nothing was borrowed). Checked against the
// host's __int128.
#include "check.h"
#include <cstdint>
#include <vector>

using u128 = unsigned __int128;
using s128 = __int128;

constexpr int Ops = 9;

__global__ void wide(const unsigned long long *in, u128 *out, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n)
    return;
  u128 a = (u128(in[4 * t]) << 64) | in[4 * t + 1];
  u128 b = (u128(in[4 * t + 2]) << 64) | in[4 * t + 3];
  s128 sa = s128(a), sb = s128(b | 1);
  u128 *r = out + Ops * t;
  r[0] = a * b;
  r[1] = (a >> (t % 128)) ^ (b << (t % 97));
  r[2] = a / 12345;
  r[3] = a % 1000000007;
  r[4] = a / (b | 1);
  r[5] = a % (b | 1);
  r[6] = u128(sa / sb);
  r[7] = u128(sa % -98765);
  r[8] = (a < b) + 2 * (sa < sb) + 4 * (a == b);
}

int main() {
  const int n = 512;
  std::vector<unsigned long long> in(4 * n);
  uint64_t s = 0x853c49e6748fea9bull;
  for (auto &x : in) {
    s ^= s << 13; // xorshift64
    s ^= s >> 7;
    s ^= s << 17;
    x = s;
  }
  for (int t = 0; t < n; t += 5) // small values and small divisors too
    in[4 * t] = 0;
  for (int t = 0; t < n; t += 7) {
    in[4 * t + 2] = 0;
    in[4 * t + 3] >>= (t % 60);
  }
  in[0] = in[1] = 0; // 0 / x
  unsigned long long *dIn;
  u128 *dOut;
  CHECK(cudaMalloc(&dIn, in.size() * sizeof(in[0])));
  CHECK(cudaMalloc(&dOut, Ops * n * sizeof(u128)));
  CHECK(cudaMemcpy(dIn, in.data(), in.size() * sizeof(in[0]), cudaMemcpyHostToDevice));
  wide<<<(n + 127) / 128, 128>>>(dIn, dOut, n);
  CHECK(cudaGetLastError());
  std::vector<u128> out(Ops * n);
  CHECK(cudaMemcpy(out.data(), dOut, out.size() * sizeof(u128), cudaMemcpyDeviceToHost));
  const char *names[Ops] = {"mul",  "shifts", "udiv 12345",  "urem 1e9+7", "udiv",
                            "urem", "sdiv",   "srem -98765", "compare"};
  for (int t = 0; t < n; ++t) {
    u128 a = (u128(in[4 * t]) << 64) | in[4 * t + 1];
    u128 b = (u128(in[4 * t + 2]) << 64) | in[4 * t + 3];
    s128 sa = s128(a), sb = s128(b | 1);
    u128 e[Ops] = {a * b,
                   (a >> (t % 128)) ^ (b << (t % 97)),
                   a / 12345,
                   a % 1000000007,
                   a / (b | 1),
                   a % (b | 1),
                   u128(sa / sb),
                   u128(sa % -98765),
                   u128((a < b) + 2 * (sa < sb) + 4 * (a == b))};
    for (int k = 0; k < Ops; ++k)
      if (out[Ops * t + k] != e[k] && failures++ < 10)
        std::printf("FAIL: %s at %d: %016llx%016llx, expected %016llx%016llx\n", names[k], t,
                    (unsigned long long)(out[Ops * t + k] >> 64),
                    (unsigned long long)out[Ops * t + k], (unsigned long long)(e[k] >> 64),
                    (unsigned long long)e[k]);
  }
  if (failures)
    return 1;
  std::printf("PASS\n");
  return 0;
}
