// Texture objects over linear memory (cudaCreateTextureObject with cudaResourceTypeLinear) read
// with tex1Dfetch: float, half, 8- and 16-bit integer and 32-bit integer textures, in
// element-type and normalized-float read modes. Each fetched value is checked against a host
// computation of what the CUDA Programming Guide's texture fetching defines: element x as stored,
// halves widened to float, 8- and 16-bit integers in normalized-float mode divided by 2^n - 1
// (unsigned) or 2^(n-1) - 1 and clamped to -1 (signed). Also the descriptors read back and the
// errors the runtime must return.
#include "check.h"
#include <cmath>
#include <cstdint>
#include <cstring>
#include <cuda_fp16.h>

constexpr int N = 1000;

// out[i] = element i of the texture (element n - 1 - i when reversed: the coordinate is not the
// thread's index then), read as T.
template <class T> __global__ void fetch(cudaTextureObject_t t, T *out, int n, bool reversed) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = tex1Dfetch<T>(t, reversed ? n - 1 - i : i);
}

template <class T>
cudaTextureObject_t texture(const T *d, size_t bytes, cudaChannelFormatDesc desc,
                            cudaTextureReadMode mode) {
  cudaResourceDesc res;
  std::memset(&res, 0, sizeof(res));
  res.resType = cudaResourceTypeLinear;
  res.res.linear.devPtr = const_cast<T *>(d);
  res.res.linear.desc = desc;
  res.res.linear.sizeInBytes = bytes;
  cudaTextureDesc tex;
  std::memset(&tex, 0, sizeof(tex));
  tex.readMode = mode;
  cudaTextureObject_t t = 0;
  CHECK(cudaCreateTextureObject(&t, &res, &tex, nullptr));
  return t;
}

void expectValue(bool ok, const char *what, int i, double got, double want) {
  EXPECT(ok, "%s[%d] = %.9g, expected %.9g", what, i, got, want);
}
bool same(float a, float b) { return std::memcmp(&a, &b, 4) == 0; }

int main() {
  const int blocks = (N + 127) / 128;
  std::vector<float> f(4 * N);
  for (int i = 0; i < 4 * N; ++i)
    f[i] = std::ldexp(float(i % 97) - 48.5f, i % 13 - 6);
  float *df = toDevice(f);

  // float4, element type; read in reverse order.
  cudaTextureObject_t t4 =
      texture(df, f.size() * 4, cudaCreateChannelDesc<float4>(), cudaReadModeElementType);
  float4 *o4;
  CHECK(cudaMalloc(&o4, N * sizeof(float4)));
  fetch<<<blocks, 128>>>(t4, o4, N, true);
  CHECK(cudaGetLastError());
  std::vector<float4> h4 = toHost(o4, N);
  for (int i = 0; i < N; ++i) {
    const float *w = &f[4 * (N - 1 - i)];
    expectValue(same(h4[i].x, w[0]) && same(h4[i].y, w[1]) && same(h4[i].z, w[2]) &&
                    same(h4[i].w, w[3]),
                "float4", i, h4[i].x, w[0]);
  }

  // The same memory as 1- and 2-channel float textures (element x at 4x and 8x bytes).
  cudaTextureObject_t t1 =
      texture(df, N * 4, cudaCreateChannelDesc<float>(), cudaReadModeElementType);
  float *o1;
  CHECK(cudaMalloc(&o1, N * sizeof(float)));
  fetch<<<blocks, 128>>>(t1, o1, N, false);
  std::vector<float> h1 = toHost(o1, N);
  for (int i = 0; i < N; ++i)
    expectValue(same(h1[i], f[i]), "float", i, h1[i], f[i]);
  cudaTextureObject_t t2 =
      texture(df, N * 8, cudaCreateChannelDesc<float2>(), cudaReadModeElementType);
  float2 *o2;
  CHECK(cudaMalloc(&o2, N * sizeof(float2)));
  fetch<<<blocks, 128>>>(t2, o2, N, false);
  std::vector<float2> h2 = toHost(o2, N);
  for (int i = 0; i < N; ++i)
    expectValue(same(h2[i].x, f[2 * i]) && same(h2[i].y, f[2 * i + 1]), "float2", i, h2[i].y,
                f[2 * i + 1]);

  // Halves, read as floats (a half texture always returns float).
  std::vector<__half> hv(N);
  std::vector<float> hf(N);
  for (int i = 0; i < N; ++i) {
    hv[i] = __float2half(f[i] * 3.0f);
    hf[i] = __half2float(hv[i]);
  }
  __half *dh = toDevice(hv);
  cudaTextureObject_t th = texture(dh, N * 2, cudaCreateChannelDescHalf(), cudaReadModeElementType);
  fetch<<<blocks, 128>>>(th, o1, N, false);
  h1 = toHost(o1, N);
  for (int i = 0; i < N; ++i)
    expectValue(same(h1[i], hf[i]), "half", i, h1[i], hf[i]);

  // Bytes: uchar4 as elements, and the same bytes as one normalized unsigned char channel.
  std::vector<unsigned char> b(4 * N);
  for (int i = 0; i < 4 * N; ++i)
    b[i] = uint8_t(i * 37 + 11);
  unsigned char *db = toDevice(b);
  cudaTextureObject_t tb =
      texture(db, b.size(), cudaCreateChannelDesc<uchar4>(), cudaReadModeElementType);
  uchar4 *ob;
  CHECK(cudaMalloc(&ob, N * sizeof(uchar4)));
  fetch<<<blocks, 128>>>(tb, ob, N, false);
  std::vector<uchar4> hb = toHost(ob, N);
  for (int i = 0; i < N; ++i)
    expectValue(hb[i].x == b[4 * i] && hb[i].y == b[4 * i + 1] && hb[i].z == b[4 * i + 2] &&
                    hb[i].w == b[4 * i + 3],
                "uchar4", i, hb[i].w, b[4 * i + 3]);
  cudaTextureObject_t tbn =
      texture(db, N, cudaCreateChannelDesc<unsigned char>(), cudaReadModeNormalizedFloat);
  fetch<<<blocks, 128>>>(tbn, o1, N, false);
  h1 = toHost(o1, N);
  for (int i = 0; i < N; ++i)
    expectValue(same(h1[i], float(b[i]) / 255.0f), "uchar normalized", i, h1[i], b[i] / 255.0);

  // Signed 16-bit: short2 as elements, and one normalized channel (-32768 clamps to -1).
  std::vector<short> s(2 * N);
  for (int i = 0; i < 2 * N; ++i)
    s[i] = short(i * 7919 - 32768);
  short *ds = toDevice(s);
  cudaTextureObject_t ts =
      texture(ds, s.size() * 2, cudaCreateChannelDesc<short2>(), cudaReadModeElementType);
  short2 *os;
  CHECK(cudaMalloc(&os, N * sizeof(short2)));
  fetch<<<blocks, 128>>>(ts, os, N, false);
  std::vector<short2> hs = toHost(os, N);
  for (int i = 0; i < N; ++i)
    expectValue(hs[i].x == s[2 * i] && hs[i].y == s[2 * i + 1], "short2", i, hs[i].y, s[2 * i + 1]);
  cudaTextureObject_t tsn =
      texture(ds, N * 2, cudaCreateChannelDesc<short>(), cudaReadModeNormalizedFloat);
  fetch<<<blocks, 128>>>(tsn, o1, N, false);
  h1 = toHost(o1, N);
  for (int i = 0; i < N; ++i) {
    float want = std::fmax(float(s[i]) / 32767.0f, -1.0f);
    expectValue(same(h1[i], want), "short normalized", i, h1[i], want);
  }

  // 32-bit integers.
  std::vector<int> iv(N);
  for (int i = 0; i < N; ++i)
    iv[i] = int(uint32_t(i) * 2654435761u);
  int *di = toDevice(iv);
  cudaTextureObject_t ti =
      texture(di, N * 4, cudaCreateChannelDesc<int>(), cudaReadModeElementType);
  int *oi;
  CHECK(cudaMalloc(&oi, N * sizeof(int)));
  fetch<<<blocks, 128>>>(ti, oi, N, false);
  std::vector<int> hi = toHost(oi, N);
  for (int i = 0; i < N; ++i)
    expectValue(hi[i] == iv[i], "int", i, hi[i], iv[i]);

  // The descriptors read back.
  cudaResourceDesc rd;
  CHECK(cudaGetTextureObjectResourceDesc(&rd, tbn));
  expectValue(rd.resType == cudaResourceTypeLinear && rd.res.linear.devPtr == db &&
                  rd.res.linear.sizeInBytes == size_t(N) && rd.res.linear.desc.x == 8 &&
                  rd.res.linear.desc.f == cudaChannelFormatKindUnsigned,
              "resource desc", 0, double(rd.res.linear.sizeInBytes), N);
  cudaTextureDesc td;
  CHECK(cudaGetTextureObjectTextureDesc(&td, tbn));
  expectValue(td.readMode == cudaReadModeNormalizedFloat, "texture desc read mode", 0, td.readMode,
              cudaReadModeNormalizedFloat);

  // Errors: an address not aligned to textureAlignment, and 3 channels.
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  expectValue(prop.textureAlignment == 512, "textureAlignment", 0, double(prop.textureAlignment),
              512);
  cudaResourceDesc bad;
  std::memset(&bad, 0, sizeof(bad));
  bad.resType = cudaResourceTypeLinear;
  bad.res.linear.devPtr = df + 1;
  bad.res.linear.desc = cudaCreateChannelDesc<float>();
  bad.res.linear.sizeInBytes = 64;
  cudaTextureDesc plain;
  std::memset(&plain, 0, sizeof(plain));
  cudaTextureObject_t none = 0;
  cudaError_t e = cudaCreateTextureObject(&none, &bad, &plain, nullptr);
  expectValue(e == cudaErrorInvalidValue, "misaligned texture: error", 0, e, cudaErrorInvalidValue);
  cudaGetLastError();

  for (cudaTextureObject_t t : {t4, t1, t2, th, tb, tbn, ts, tsn, ti})
    CHECK(cudaDestroyTextureObject(t));
  CHECK(cudaFree(df));
  CHECK(cudaFree(dh));
  CHECK(cudaFree(db));
  CHECK(cudaFree(ds));
  CHECK(cudaFree(di));
  return report();
}
