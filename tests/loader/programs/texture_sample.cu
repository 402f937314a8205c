// Sampled textures: CUDA arrays (cudaMallocArray, cudaMalloc3DArray, layered and cube-map too)
// filled by cudaMemcpy2DToArray and cudaMemcpy3D, and pitched memory (cudaMallocPitch), read by
// tex1D, tex2D, tex3D, tex2DLayered, tex2DLod, tex2Dgather, texCubemap and texCubemapLayered with
// point and linear filtering, unnormalized and normalized coordinates, and the clamp, wrap, mirror
// and border address modes. Every sample is checked against a host computation of the CUDA
// Programming Guide's "Texture Fetching" appendix: a normalized coordinate wrapped (x - floor(x))
// or mirrored and scaled by the size; point sampling reads texel floor(x); linear filtering blends
// texels floor(x - 0.5) and the next with the weight frac(x - 0.5) in 9-bit fixed point with 8
// fractional bits (reptx rounds it to nearest, not yet checked on NVIDIA hardware); out-of-range
// texels are clamped, repeated, mirrored or read as the border color. Also the array copied back
// and its description.
#include "check.h"
#include <cmath>
#include <cstdint>
#include <cstring>

struct Sampler {
  int Size[3] = {1, 1, 1};
  cudaTextureAddressMode Mode[3] = {cudaAddressModeClamp, cudaAddressModeClamp,
                                    cudaAddressModeClamp};
  bool Linear = false, Normalized = false;
  float Border = 0.0f;
};

// One dimension: texels I[0], I[1] (-1: the border) and the weight of I[1].
struct Axis {
  long I[2];
  float Alpha;
};

Axis axis(const Sampler &S, int D, float X) {
  long N = S.Size[D];
  cudaTextureAddressMode M = S.Mode[D];
  if (!S.Normalized && (M == cudaAddressModeWrap || M == cudaAddressModeMirror))
    M = cudaAddressModeClamp;
  if (S.Normalized) {
    float F = std::floor(X);
    if (M == cudaAddressModeWrap)
      X = X - F;
    else if (M == cudaAddressModeMirror)
      X = (long(F) % 2 != 0) ? 1.0f - (X - F) : X - F;
    X = X * float(N);
  }
  Axis A;
  A.Alpha = 0.0f;
  float B = S.Linear ? X - 0.5f : X;
  long I0 = long(std::floor(B));
  if (S.Linear)
    A.Alpha = std::nearbyint((B - std::floor(B)) * 256.0f) / 256.0f;
  for (int K = 0; K < 2; ++K) {
    long I = I0 + K;
    if (M == cudaAddressModeWrap)
      I = ((I % N) + N) % N;
    else if (M == cudaAddressModeMirror) {
      long R = ((I % (2 * N)) + 2 * N) % (2 * N);
      I = R < N ? R : 2 * N - 1 - R;
    } else if (M == cudaAddressModeBorder)
      I = (I >= 0 && I < N) ? I : -1;
    else
      I = I < 0 ? 0 : I >= N ? N - 1 : I;
    A.I[K] = I;
  }
  return A;
}

// Channel C of the texture at (X, Y, Z) by the rules above; Texel(x, y, z, c) reads an element.
template <class F> float sampleRef(const Sampler &S, int Dims, const float *X, int C, F Texel) {
  Axis A[3];
  for (int D = 0; D < 3; ++D)
    A[D] = D < Dims ? axis(S, D, X[D]) : Axis{{0, 0}, 0.0f};
  auto At = [&](int I, int J, int K) {
    if (A[0].I[I] < 0 || A[1].I[J] < 0 || A[2].I[K] < 0)
      return S.Border;
    return Texel(A[0].I[I], A[1].I[J], A[2].I[K], C);
  };
  if (!S.Linear)
    return At(0, 0, 0);
  float Sum = 0.0f;
  bool First = true;
  for (int K = 0; K < (Dims > 2 ? 2 : 1); ++K)
    for (int J = 0; J < (Dims > 1 ? 2 : 1); ++J)
      for (int I = 0; I < 2; ++I) {
        float W = I ? A[0].Alpha : 1.0f - A[0].Alpha;
        if (Dims > 1)
          W = W * (J ? A[1].Alpha : 1.0f - A[1].Alpha);
        if (Dims > 2)
          W = W * (K ? A[2].Alpha : 1.0f - A[2].Alpha);
        float P = W * At(I, J, K);
        Sum = First ? P : Sum + P;
        First = false;
      }
  return Sum;
}

__global__ void sample1D(cudaTextureObject_t t, const float *x, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = tex1D<float>(t, x[i]);
}
template <class T> __global__ void sample2D(cudaTextureObject_t t, const float2 *x, T *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = tex2D<T>(t, x[i].x, x[i].y);
}
__global__ void sampleLayered(cudaTextureObject_t t, const float4 *x, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = tex2DLayered<float>(t, x[i].x, x[i].y, int(x[i].z));
}
__global__ void gather(cudaTextureObject_t t, const float4 *x, float4 *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int comp = int(x[i].z);
    out[i] = comp == 0   ? tex2Dgather<float4>(t, x[i].x, x[i].y, 0)
             : comp == 1 ? tex2Dgather<float4>(t, x[i].x, x[i].y, 1)
             : comp == 2 ? tex2Dgather<float4>(t, x[i].x, x[i].y, 2)
                         : tex2Dgather<float4>(t, x[i].x, x[i].y, 3);
  }
}
__global__ void sampleLod(cudaTextureObject_t t, const float4 *x, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = tex2DLod<float>(t, x[i].x, x[i].y, x[i].z);
}
// x[i].w is the cube of a layered cube map (texCubemapLayered), or -1 for texCubemap.
__global__ void sampleCube(cudaTextureObject_t t, const float4 *x, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = x[i].w < 0 ? texCubemap<float>(t, x[i].x, x[i].y, x[i].z)
                        : texCubemapLayered<float>(t, x[i].x, x[i].y, x[i].z, int(x[i].w));
}
__global__ void sample3D(cudaTextureObject_t t, const float4 *x, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = tex3D<float>(t, x[i].x, x[i].y, x[i].z);
}
cudaTextureObject_t textureOf(const cudaResourceDesc &res, const Sampler &S,
                              cudaTextureReadMode read) {
  cudaTextureDesc tex;
  std::memset(&tex, 0, sizeof(tex));
  for (int D = 0; D < 3; ++D)
    tex.addressMode[D] = S.Mode[D];
  tex.filterMode = S.Linear ? cudaFilterModeLinear : cudaFilterModePoint;
  tex.readMode = read;
  tex.normalizedCoords = S.Normalized;
  for (int C = 0; C < 4; ++C)
    tex.borderColor[C] = S.Border;
  cudaTextureObject_t t = 0;
  CHECK(cudaCreateTextureObject(&t, &res, &tex, nullptr));
  return t;
}
cudaResourceDesc arrayResource(cudaArray_t a) {
  cudaResourceDesc res;
  std::memset(&res, 0, sizeof(res));
  res.resType = cudaResourceTypeArray;
  res.res.array.array = a;
  return res;
}

// Coordinates over [-1.5, N + 1.5) texels in each of Dims dimensions (divided by N when
// normalized), at steps that are not multiples of 1/256.
std::vector<float4> coordinates(const Sampler &S, int Dims, int PerDim) {
  std::vector<float4> X;
  int Count[3] = {PerDim, Dims > 1 ? PerDim : 1, Dims > 2 ? PerDim : 1};
  for (int K = 0; K < Count[2]; ++K)
    for (int J = 0; J < Count[1]; ++J)
      for (int I = 0; I < Count[0]; ++I) {
        int Idx[3] = {I, J, K};
        float C[3] = {0, 0, 0};
        for (int D = 0; D < Dims; ++D) {
          float T = -1.5f + (S.Size[D] + 3.0f) * (Idx[D] + 0.37f) / PerDim;
          C[D] = S.Normalized ? T / S.Size[D] * 2.5f : T; // normalized: several periods
        }
        X.push_back({C[0], C[1], C[2], 0.0f});
      }
  return X;
}

bool same(float a, float b) { return std::memcmp(&a, &b, 4) == 0; }

// Dense floats, w x h x d (d slices or layers), into an array by cudaMemcpy3D.
void copyToArray(cudaArray_t a, std::vector<float> &data, int w, int h, int d) {
  cudaMemcpy3DParms p;
  std::memset(&p, 0, sizeof(p));
  p.srcPtr = make_cudaPitchedPtr(data.data(), w * sizeof(float), w, h);
  p.dstArray = a;
  p.extent = make_cudaExtent(w, h, d);
  p.kind = cudaMemcpyHostToDevice;
  CHECK(cudaMemcpy3D(&p));
}

template <class T, class K, class Out>
std::vector<Out> run(K kernel, cudaTextureObject_t t, const std::vector<T> &x) {
  T *dx = toDevice(x);
  Out *dout;
  CHECK(cudaMalloc(&dout, x.size() * sizeof(Out)));
  kernel<<<int((x.size() + 127) / 128), 128>>>(t, dx, dout, int(x.size()));
  CHECK(cudaGetLastError());
  std::vector<Out> h = toHost(dout, x.size());
  CHECK(cudaFree(dx));
  CHECK(cudaFree(dout));
  return h;
}

std::vector<float2> xy(const std::vector<float4> &X) {
  std::vector<float2> R;
  for (const float4 &P : X)
    R.push_back({P.x, P.y});
  return R;
}

int main() {
  // A 2D float array, 37 x 23.
  const int W = 37, H = 23;
  std::vector<float> img(W * H);
  for (int i = 0; i < W * H; ++i)
    img[i] = std::ldexp(float((i * 7919) % 211) - 105.0f, i % 5 - 2);
  cudaChannelFormatDesc fdesc = cudaCreateChannelDesc<float>();
  cudaArray_t a2;
  CHECK(cudaMallocArray(&a2, &fdesc, W, H));
  CHECK(cudaMemcpy2DToArray(a2, 0, 0, img.data(), W * sizeof(float), W * sizeof(float), H,
                            cudaMemcpyHostToDevice));
  auto imgTexel = [&](long x, long y, long, int) { return img[y * W + x]; };

  struct Config {
    const char *Name;
    Sampler S;
  };
  Sampler Base;
  Base.Size[0] = W;
  Base.Size[1] = H;
  std::vector<Config> configs;
  configs.push_back({"point clamp", Base});
  Sampler L = Base;
  L.Linear = true;
  configs.push_back({"linear clamp", L});
  Sampler LB = L;
  LB.Mode[0] = LB.Mode[1] = cudaAddressModeBorder;
  LB.Border = 0.75f;
  configs.push_back({"linear border", LB});
  Sampler NW = L;
  NW.Normalized = true;
  NW.Mode[0] = NW.Mode[1] = cudaAddressModeWrap;
  configs.push_back({"linear normalized wrap", NW});
  Sampler NM = NW;
  NM.Mode[0] = NM.Mode[1] = cudaAddressModeMirror;
  configs.push_back({"linear normalized mirror", NM});
  Sampler PW = NW;
  PW.Linear = false;
  configs.push_back({"point normalized wrap", PW});
  for (const Config &c : configs) {
    cudaTextureObject_t t = textureOf(arrayResource(a2), c.S, cudaReadModeElementType);
    std::vector<float4> X = coordinates(c.S, 2, 48);
    std::vector<float> got =
        run<float2, decltype(&sample2D<float>), float>(sample2D<float>, t, xy(X));
    for (size_t i = 0; i < X.size(); ++i) {
      float want = sampleRef(c.S, 2, &X[i].x, 0, imgTexel);
      EXPECT(same(got[i], want), "tex2D %s at (%g, %g): %.9g, expected %.9g", c.Name, X[i].x,
             X[i].y, got[i], want);
    }
    CHECK(cudaDestroyTextureObject(t));
  }

  // The array copied back, and its description.
  std::vector<float> back(W * H);
  CHECK(cudaMemcpy2DFromArray(back.data(), W * sizeof(float), a2, 0, 0, W * sizeof(float), H,
                              cudaMemcpyDeviceToHost));
  EXPECT(back == img, "cudaMemcpy2DFromArray: the array's contents differ");
  cudaChannelFormatDesc got;
  cudaExtent ext;
  unsigned flags = 1;
  CHECK(cudaArrayGetInfo(&got, &ext, &flags, a2));
  EXPECT(ext.width == size_t(W) && ext.height == size_t(H) && ext.depth == 0 && got.x == 32 &&
             got.f == cudaChannelFormatKindFloat && flags == 0,
         "cudaArrayGetInfo: %zu x %zu x %zu, %d bits, kind %d, flags %u", ext.width, ext.height,
         ext.depth, got.x, int(got.f), flags);

  // uchar4 image read as normalized floats, filtered, with a border.
  const int CW = 19, CH = 11;
  std::vector<uchar4> rgba(CW * CH);
  for (int i = 0; i < CW * CH; ++i)
    rgba[i] = make_uchar4(uint8_t(i * 37 + 11), uint8_t(i * 91), uint8_t(255 - i), uint8_t(i * 5));
  cudaChannelFormatDesc cdesc = cudaCreateChannelDesc<uchar4>();
  cudaArray_t ac;
  CHECK(cudaMallocArray(&ac, &cdesc, CW, CH));
  CHECK(cudaMemcpy2DToArray(ac, 0, 0, rgba.data(), CW * 4, CW * 4, CH, cudaMemcpyHostToDevice));
  Sampler CS;
  CS.Size[0] = CW;
  CS.Size[1] = CH;
  CS.Linear = true;
  CS.Mode[0] = cudaAddressModeBorder;
  cudaTextureObject_t tc = textureOf(arrayResource(ac), CS, cudaReadModeNormalizedFloat);
  std::vector<float4> XC = coordinates(CS, 2, 30);
  std::vector<float4> gc =
      run<float2, decltype(&sample2D<float4>), float4>(sample2D<float4>, tc, xy(XC));
  auto rgbaTexel = [&](long x, long y, long, int c) {
    const uchar4 &p = rgba[y * CW + x];
    unsigned char v = c == 0 ? p.x : c == 1 ? p.y : c == 2 ? p.z : p.w;
    return float(v) / 255.0f;
  };
  for (size_t i = 0; i < XC.size(); ++i) {
    const float *g = &gc[i].x;
    for (int c = 0; c < 4; ++c) {
      float want = sampleRef(CS, 2, &XC[i].x, c, rgbaTexel);
      EXPECT(same(g[c], want),
             "tex2D uchar4 normalized at (%g, %g) channel %d: %.9g, expected %.9g", XC[i].x,
             XC[i].y, c, g[c], want);
    }
  }
  // In element-type read mode an integer texture is point-sampled.
  std::vector<int> ints(W * H);
  for (int i = 0; i < W * H; ++i)
    ints[i] = i * 104729 - 1000000;
  cudaChannelFormatDesc idesc = cudaCreateChannelDesc<int>();
  cudaArray_t ai;
  CHECK(cudaMallocArray(&ai, &idesc, W, H));
  CHECK(cudaMemcpy2DToArray(ai, 0, 0, ints.data(), W * 4, W * 4, H, cudaMemcpyHostToDevice));
  cudaTextureObject_t ti = textureOf(arrayResource(ai), Base, cudaReadModeElementType);
  std::vector<float4> XI = coordinates(Base, 2, 40);
  std::vector<int> gi = run<float2, decltype(&sample2D<int>), int>(sample2D<int>, ti, xy(XI));
  for (size_t i = 0; i < XI.size(); ++i) {
    Axis ax = axis(Base, 0, XI[i].x), ay = axis(Base, 1, XI[i].y);
    int want = ints[ay.I[0] * W + ax.I[0]];
    EXPECT(gi[i] == want, "tex2D<int> at (%g, %g): %d, expected %d", XI[i].x, XI[i].y, gi[i], want);
  }

  // Pitched memory: float2 rows in a cudaMallocPitch allocation, filtered with clamping.
  const int PW2 = 21, PH2 = 13;
  std::vector<float2> pv(PW2 * PH2);
  for (int i = 0; i < PW2 * PH2; ++i)
    pv[i] = make_float2(float(i % 17) * 0.5f - 3.0f, float(i * i % 29) - 14.0f);
  float2 *dp;
  size_t pitch;
  CHECK(cudaMallocPitch(&dp, &pitch, PW2 * sizeof(float2), PH2));
  CHECK(cudaMemcpy2D(dp, pitch, pv.data(), PW2 * sizeof(float2), PW2 * sizeof(float2), PH2,
                     cudaMemcpyHostToDevice));
  cudaResourceDesc pres;
  std::memset(&pres, 0, sizeof(pres));
  pres.resType = cudaResourceTypePitch2D;
  pres.res.pitch2D.devPtr = dp;
  pres.res.pitch2D.desc = cudaCreateChannelDesc<float2>();
  pres.res.pitch2D.width = PW2;
  pres.res.pitch2D.height = PH2;
  pres.res.pitch2D.pitchInBytes = pitch;
  Sampler PS;
  PS.Size[0] = PW2;
  PS.Size[1] = PH2;
  PS.Linear = true;
  cudaTextureObject_t tp = textureOf(pres, PS, cudaReadModeElementType);
  std::vector<float4> XP = coordinates(PS, 2, 36);
  std::vector<float2> gp =
      run<float2, decltype(&sample2D<float2>), float2>(sample2D<float2>, tp, xy(XP));
  auto pTexel = [&](long x, long y, long, int c) {
    return c == 0 ? pv[y * PW2 + x].x : pv[y * PW2 + x].y;
  };
  for (size_t i = 0; i < XP.size(); ++i)
    for (int c = 0; c < 2; ++c) {
      float want = sampleRef(PS, 2, &XP[i].x, c, pTexel);
      float g = c == 0 ? gp[i].x : gp[i].y;
      EXPECT(same(g, want), "tex2D pitch2D float2 at (%g, %g) channel %d: %.9g, expected %.9g",
             XP[i].x, XP[i].y, c, g, want);
    }

  // A 3D float array, 9 x 7 x 5, filled by cudaMemcpy3D and filtered.
  const int VW = 9, VH = 7, VD = 5;
  std::vector<float> vol(VW * VH * VD);
  for (int i = 0; i < VW * VH * VD; ++i)
    vol[i] = float((i * 37) % 101) * 0.25f - 12.0f;
  cudaArray_t a3;
  CHECK(cudaMalloc3DArray(&a3, &fdesc, make_cudaExtent(VW, VH, VD)));
  copyToArray(a3, vol, VW, VH, VD);
  Sampler VS;
  VS.Size[0] = VW;
  VS.Size[1] = VH;
  VS.Size[2] = VD;
  VS.Linear = true;
  cudaTextureObject_t t3 = textureOf(arrayResource(a3), VS, cudaReadModeElementType);
  std::vector<float4> X3 = coordinates(VS, 3, 14);
  std::vector<float> g3 = run<float4, decltype(&sample3D), float>(sample3D, t3, X3);
  auto vTexel = [&](long x, long y, long z, int) { return vol[(z * VH + y) * VW + x]; };
  for (size_t i = 0; i < X3.size(); ++i) {
    float want = sampleRef(VS, 3, &X3[i].x, 0, vTexel);
    EXPECT(same(g3[i], want), "tex3D at (%g, %g, %g): %.9g, expected %.9g", X3[i].x, X3[i].y,
           X3[i].z, g3[i], want);
  }

  // tex2DLod on a texture of one level: every level of detail reads it.
  {
    cudaTextureObject_t t = textureOf(arrayResource(a2), L, cudaReadModeElementType);
    std::vector<float4> X = coordinates(L, 2, 20);
    for (size_t i = 0; i < X.size(); ++i)
      X[i].z = float(i % 7) * 0.5f;
    std::vector<float> got = run<float4, decltype(&sampleLod), float>(sampleLod, t, X);
    for (size_t i = 0; i < X.size(); ++i) {
      float want = sampleRef(L, 2, &X[i].x, 0, imgTexel);
      EXPECT(same(got[i], want), "tex2DLod at (%g, %g) level %g: %.9g, expected %.9g", X[i].x,
             X[i].y, X[i].z, got[i], want);
    }
    CHECK(cudaDestroyTextureObject(t));
  }

  // tex2Dgather on the uchar4 image (an array made for gathers): each component of the four
  // texels of the bilinear footprint, counter-clockwise from the lower left (PTX ISA, tld4):
  // (x0, y1), (x1, y1), (x1, y0), (x0, y0).
  {
    cudaArray_t ag;
    CHECK(cudaMallocArray(&ag, &cdesc, CW, CH, cudaArrayTextureGather));
    CHECK(cudaMemcpy2DToArray(ag, 0, 0, rgba.data(), CW * 4, CW * 4, CH, cudaMemcpyHostToDevice));
    Sampler GS = CS;
    GS.Linear = false; // gathers read the bilinear footprint whatever the filter mode
    GS.Mode[0] = cudaAddressModeClamp;
    cudaTextureObject_t t = textureOf(arrayResource(ag), GS, cudaReadModeNormalizedFloat);
    std::vector<float4> X = coordinates(GS, 2, 16);
    size_t n = X.size();
    for (size_t i = 0; i < n; ++i)
      for (int c = 1; c < 4; ++c)
        X.push_back({X[i].x, X[i].y, float(c), 0.0f});
    std::vector<float4> got = run<float4, decltype(&gather), float4>(gather, t, X);
    Sampler Lin = GS;
    Lin.Linear = true;
    for (size_t i = 0; i < X.size(); ++i) {
      Axis ax = axis(Lin, 0, X[i].x), ay = axis(Lin, 1, X[i].y);
      int c = int(X[i].z);
      long order[4][2] = {
          {ax.I[0], ay.I[1]}, {ax.I[1], ay.I[1]}, {ax.I[1], ay.I[0]}, {ax.I[0], ay.I[0]}};
      const float *g = &got[i].x;
      for (int k = 0; k < 4; ++k) {
        float want = rgbaTexel(order[k][0], order[k][1], 0, c);
        EXPECT(same(g[k], want), "tex2Dgather at (%g, %g) comp %d texel %d: %.9g, expected %.9g",
               X[i].x, X[i].y, c, k, g[k], want);
      }
    }
    CHECK(cudaDestroyTextureObject(t));
    CHECK(cudaFreeArray(ag));
  }

  // A layered 2D array of 3 layers of 11 x 6 floats, filtered within each layer.
  {
    const int LW = 11, LH = 6, LN = 3;
    std::vector<float> lay(LW * LH * LN);
    for (int i = 0; i < LW * LH * LN; ++i)
      lay[i] = float((i * 53) % 97) * 0.5f - 20.0f;
    cudaArray_t al;
    CHECK(cudaMalloc3DArray(&al, &fdesc, make_cudaExtent(LW, LH, LN), cudaArrayLayered));
    copyToArray(al, lay, LW, LH, LN);
    Sampler LS;
    LS.Size[0] = LW;
    LS.Size[1] = LH;
    LS.Linear = true;
    cudaTextureObject_t t = textureOf(arrayResource(al), LS, cudaReadModeElementType);
    std::vector<float4> X;
    for (int layer = 0; layer < LN; ++layer)
      for (float4 p : coordinates(LS, 2, 18))
        X.push_back({p.x, p.y, float(layer), 0.0f});
    std::vector<float> got = run<float4, decltype(&sampleLayered), float>(sampleLayered, t, X);
    for (size_t i = 0; i < X.size(); ++i) {
      int layer = int(X[i].z);
      auto layerTexel = [&](long x, long y, long, int) {
        return lay[(size_t(layer) * LH + y) * LW + x];
      };
      float want = sampleRef(LS, 2, &X[i].x, 0, layerTexel);
      EXPECT(same(got[i], want), "tex2DLayered at (%g, %g) layer %d: %.9g, expected %.9g", X[i].x,
             X[i].y, layer, got[i], want);
    }
    CHECK(cudaDestroyTextureObject(t));
    CHECK(cudaFreeArray(al));
  }

  // Cube maps of 4 x 4 faces, one cube and three layered, point-sampled and filtered within a
  // face (CUDA Programming Guide, "Cubemap Textures": the face of the direction's coordinate of
  // largest magnitude m, +x, -x, +y, -y, +z, -z, addressed at ((s / m + 1) / 2, (t / m + 1) / 2)
  // with (s, t) = (-z, -y), (z, -y), (x, z), (x, -z), (x, -y), (-x, -y)). Directions into every
  // face, none on a tie between two magnitudes.
  for (bool layered : {false, true}) {
    const int CW = 4, Cubes = layered ? 3 : 1, Layers = 6 * Cubes;
    std::vector<float> faces(CW * CW * Layers);
    for (int i = 0; i < CW * CW * Layers; ++i)
      faces[i] = float((i * 29) % 83) * 0.25f - 7.0f;
    cudaArray_t acube;
    CHECK(cudaMalloc3DArray(&acube, &fdesc, make_cudaExtent(CW, CW, Layers),
                            cudaArrayCubemap | (layered ? cudaArrayLayered : 0)));
    copyToArray(acube, faces, CW, CW, Layers);
    for (bool linear : {false, true}) {
      Sampler CS;
      CS.Size[0] = CS.Size[1] = CW;
      CS.Linear = linear;
      CS.Normalized = true;
      cudaTextureObject_t t = textureOf(arrayResource(acube), CS, cudaReadModeElementType);
      std::vector<float4> X;
      for (int cube = 0; cube < Cubes; ++cube)
        for (int face = 0; face < 6; ++face)
          for (float u = 0.05f; u < 1.0f; u += 0.137f)
            for (float v = 0.03f; v < 1.0f; v += 0.211f) {
              float m = 1.0f + 0.75f * float(face), s = (2 * u - 1) * m, tt = (2 * v - 1) * m;
              const float d[6][3] = {{m, -tt, -s}, {-m, -tt, s}, {s, m, tt},
                                     {s, -m, -tt}, {s, -tt, m},  {-s, -tt, -m}};
              X.push_back({d[face][0], d[face][1], d[face][2], layered ? float(cube) : -1.0f});
            }
      std::vector<float> got = run<float4, decltype(&sampleCube), float>(sampleCube, t, X);
      for (size_t i = 0; i < X.size(); ++i) {
        float x = X[i].x, y = X[i].y, z = X[i].z, ax = std::fabs(x), ay = std::fabs(y),
              az = std::fabs(z), m, s, tt;
        int face;
        if (ax > ay && ax > az)
          face = x >= 0 ? 0 : 1, m = ax, s = x >= 0 ? -z : z, tt = -y;
        else if (ay > az)
          face = y >= 0 ? 2 : 3, m = ay, s = x, tt = y >= 0 ? z : -z;
        else
          face = z >= 0 ? 4 : 5, m = az, s = z >= 0 ? x : -x, tt = -y;
        int layer = (layered ? int(X[i].w) : 0) * 6 + face;
        float uv[2] = {(s / m + 1.0f) * 0.5f, (tt / m + 1.0f) * 0.5f};
        auto faceTexel = [&](long a, long b, long, int) {
          return faces[(size_t(layer) * CW + b) * CW + a];
        };
        float want = sampleRef(CS, 2, uv, 0, faceTexel);
        EXPECT(same(got[i], want), "%s%s at (%g, %g, %g) cube %g: %.9g, expected %.9g",
               layered ? "texCubemapLayered" : "texCubemap", linear ? " linear" : "", x, y, z,
               X[i].w, got[i], want);
      }
      CHECK(cudaDestroyTextureObject(t));
    }
    CHECK(cudaFreeArray(acube));
  }

  // A 1D array, normalized coordinates, wrapped.
  cudaArray_t a1;
  CHECK(cudaMallocArray(&a1, &fdesc, W, 0));
  CHECK(cudaMemcpy2DToArray(a1, 0, 0, img.data(), W * sizeof(float), W * sizeof(float), 1,
                            cudaMemcpyHostToDevice));
  Sampler S1;
  S1.Size[0] = W;
  S1.Linear = true;
  S1.Normalized = true;
  S1.Mode[0] = cudaAddressModeWrap;
  cudaTextureObject_t t1 = textureOf(arrayResource(a1), S1, cudaReadModeElementType);
  std::vector<float4> X1 = coordinates(S1, 1, 400);
  std::vector<float> x1;
  for (const float4 &P : X1)
    x1.push_back(P.x);
  std::vector<float> g1 = run<float, decltype(&sample1D), float>(sample1D, t1, x1);
  for (size_t i = 0; i < X1.size(); ++i) {
    float want = sampleRef(S1, 1, &X1[i].x, 0, imgTexel);
    EXPECT(same(g1[i], want), "tex1D normalized wrap at %g: %.9g, expected %.9g", X1[i].x, g1[i],
           want);
  }

  for (cudaTextureObject_t t : {tc, ti, tp, t3, t1})
    CHECK(cudaDestroyTextureObject(t));
  for (cudaArray_t a : {a2, ac, ai, a3, a1})
    CHECK(cudaFreeArray(a));
  CHECK(cudaFree(dp));
  return report();
}
