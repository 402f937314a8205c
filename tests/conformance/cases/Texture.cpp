// Texture and surface instructions (PTX ISA 9.7.10-11) on texture and surface objects. Each
// case's module holds the texture's (surface's) memory and an object descriptor
// (reptx/backend/TextureObject.h, as a loader's cuTexObjectCreate writes it) pointing at it; the
// handle is the descriptor's address.
// - tex.1d.v4.*.s32 (tex1Dfetch): the host reference reads element x as the CUDA Programming
//   Guide's texture fetching defines it: float channels as they are, half channels widened to
//   float, 8- and 16-bit integer channels in normalized-float read mode divided by 2^n - 1
//   (unsigned) or 2^(n-1) - 1 and clamped to -1 (signed), in element-type read mode zero- or
//   sign-extended, 32-bit integer channels as they are.
// - tex.{1d,2d,3d,a1d,a2d}.v4.*.f32, tex.level and tld4 on CUDA arrays and pitched memory: the
//   same elements, addressed (clamp, wrap, mirror, border; normalized coordinates) and filtered
//   (point, linear with 8-bit fractional weights) as the Guide's "Texture Fetching" appendix
//   defines it; tld4 returns the bilinear footprint's texels in the PTX ISA's order.
// - suld.b/sust.b: the bytes at byte x, row y, slice z; outside the surface .zero reads zeros
//   and drops stores, .clamp takes the nearest access, .trap stops the kernel.
// reptx's own choices where CUDA's documentation is silent, not yet checked on NVIDIA hardware:
// channels the format lacks read (0, 0, 0, 1) (1.0 when the channels read as floats), a
// tex1Dfetch coordinate outside [0, width) reads zeros, linear weights are rounded to nearest,
// and a layer beyond the last reads the nearest one.
#include "../Conformance.h"

#include "reptx/backend/TextureObject.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <optional>

namespace reptx::conformance {

namespace {

using u64 = uint64_t;
namespace tx = reptx::texture_object;

// IEEE binary16 to binary32, exactly (every half is a float).
float halfToFloat(uint16_t H) {
  int Sign = H >> 15, Exp = (H >> 10) & 31, Man = H & 1023;
  float V;
  if (Exp == 0)
    V = std::ldexp(float(Man), -24);
  else if (Exp == 31)
    V = Man ? NAN : INFINITY;
  else
    V = std::ldexp(float(Man | 1024), Exp - 25);
  return Sign ? -V : V;
}

struct Texture {
  unsigned Format, Channels;
  bool Normalized;
  std::vector<uint8_t> Data; // Width * Channels * channelBytes(Format) bytes
  unsigned width() const { return Data.size() / (Channels * tx::channelBytes(Format)); }
};

// The channel register of element X, channel C (C < Channels).
uint32_t channelRef(const Texture &T, unsigned X, unsigned C) {
  unsigned Bytes = tx::channelBytes(T.Format);
  const uint8_t *P = T.Data.data() + (size_t(X) * T.Channels + C) * Bytes;
  uint32_t Raw = 0;
  std::memcpy(&Raw, P, Bytes);
  bool Norm = T.Normalized && Bytes < 4;
  switch (T.Format) {
  case tx::UInt8:
    return Norm ? uint32_t(f32(float(Raw) / 255.0f)) : Raw;
  case tx::UInt16:
    return Norm ? uint32_t(f32(float(Raw) / 65535.0f)) : Raw;
  case tx::SInt8: {
    int32_t V = int8_t(Raw);
    return Norm ? uint32_t(f32(std::max(float(V) / 127.0f, -1.0f))) : uint32_t(V);
  }
  case tx::SInt16: {
    int32_t V = int16_t(Raw);
    return Norm ? uint32_t(f32(std::max(float(V) / 32767.0f, -1.0f))) : uint32_t(V);
  }
  case tx::Half:
    return uint32_t(f32(halfToFloat(uint16_t(Raw))));
  default:
    return Raw;
  }
}

std::vector<u64> fetchRef(const Texture &T, int64_t X) {
  std::vector<u64> R(4, 0);
  if (X < 0 || X >= int64_t(T.width()))
    return R;
  bool AsFloat = T.Format == tx::Half || T.Format == tx::Float ||
                 (T.Normalized && tx::channelBytes(T.Format) < 4);
  R[3] = AsFloat ? f32(1.0f) : 1;
  for (unsigned C = 0; C < T.Channels; ++C)
    R[C] = channelRef(T, unsigned(X), C);
  return R;
}

template <class E> std::vector<uint8_t> bytesOf(std::initializer_list<E> Elems) {
  std::vector<uint8_t> B(Elems.size() * sizeof(E));
  if (!B.empty()) // an empty list's data() may be null, which memcpy must not get
    std::memcpy(B.data(), std::data(Elems), B.size());
  return B;
}

// tex.1d.v4.DType.s32 of the texture at each row's coordinate: in range, just outside it and far
// outside it.
Case fetch(std::string Name, std::string DType, Texture T) {
  Case C;
  C.Family = "texture";
  C.Name = std::move(Name);
  C.InTypes = {"s32"};
  C.OutTypes = {DType, DType, DType, DType};
  std::string Bytes;
  for (uint8_t B : T.Data)
    Bytes += (Bytes.empty() ? "" : ", ") + std::to_string(B);
  unsigned Flags = T.Normalized ? tx::ReadNormalizedFloat : 0;
  C.ModuleDecls = ".global .align 16 .b8 $data[" + std::to_string(T.Data.size()) + "] = {" + Bytes +
                  "};\n.global .align 8 .u64 $desc[16] = {$data, " + std::to_string(T.width()) +
                  ", " + std::to_string(u64(tx::Linear) | u64(T.Format) << 32) + ", " +
                  std::to_string(u64(T.Channels) | u64(Flags) << 32) +
                  ", 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};";
  C.Body =
      "mov.u64 %rd1, $desc;\n tex.1d.v4." + DType + ".s32 {%d0, %d1, %d2, %d3}, [%rd1, {%a0}];";
  int W = int(T.width());
  std::vector<int64_t> Xs = {-1, W, W + 1, INT_MAX, INT_MIN};
  for (int X = 0; X < W; ++X)
    Xs.push_back(X);
  for (int64_t X : Xs)
    C.Rows.push_back({u64(uint32_t(int32_t(X)))});
  C.Ref = perThread(
      [T](const std::vector<u64> &Row) { return fetchRef(T, int32_t(uint32_t(Row[0]))); });
  return C;
}

// A sampled texture (a CUDA array or pitched memory) and its sampler state.
struct Sampled {
  unsigned Format = 0, Channels = 1;
  bool NormalizedRead = false;
  unsigned Dims = 1;            // of the tex instruction: 1, 2 or 3
  unsigned W = 1, H = 1, D = 1; // elements, rows, slices
  unsigned Kind = tx::Array;    // or tx::Pitch2D
  unsigned PadBytes = 0;        // bytes after each row (pitched memory), filled with 0xEE
  unsigned Address[3] = {tx::Clamp, tx::Clamp, tx::Clamp};
  bool LinearFilter = false, NormalizedCoords = false;
  bool Layered = false; // D counts layers; the fetch is tex.a1d/a2d with a layer coordinate
  // A cube map (Dims 3, W == H, D = 6 layers per cube: tex.cube, or tex.acube when Layered too).
  bool Cube = false;
  float Border[4] = {0, 0, 0, 0};
  std::vector<uint8_t> Elements; // W * H * D elements, densely
  size_t elementBytes() const { return size_t(Channels) * tx::channelBytes(Format); }
  size_t rowPitch() const { return W * elementBytes() + PadBytes; }
  bool asFloat() const {
    return Format == tx::Half || Format == tx::Float ||
           (NormalizedRead && tx::channelBytes(Format) < 4);
  }
};

// The texture's memory: rows of rowPitch() bytes, the padding 0xEE.
std::vector<uint8_t> memoryOf(const Sampled &T) {
  std::vector<uint8_t> M(T.rowPitch() * T.H * T.D, 0xEE);
  for (size_t Row = 0; Row < size_t(T.H) * T.D; ++Row)
    std::memcpy(M.data() + Row * T.rowPitch(), T.Elements.data() + Row * T.W * T.elementBytes(),
                T.W * T.elementBytes());
  return M;
}

// CUDA Programming Guide, "Texture Fetching": one dimension's texel indices i and i + 1 and the
// weight of i + 1 for coordinate X over N texels. Normalized coordinates are wrapped
// (x - floor(x)) or mirrored (the same, or 1 minus it when floor(x) is odd) and scaled by N; point
// sampling reads floor(x); linear filtering reads floor(x - 0.5) and its successor, weighted by
// frac(x - 0.5) rounded to 8 fractional bits. Out-of-range indices repeat (wrap, mirror), clamp,
// or read the border (nullopt). Wrap and mirror act as clamp on unnormalized coordinates.
struct Axis {
  std::optional<int64_t> I[2];
  float Alpha = 0;
};

Axis axisRef(float X, int64_t N, unsigned Mode, bool Norm, bool Linear) {
  if (!Norm && (Mode == tx::Wrap || Mode == tx::Mirror))
    Mode = tx::Clamp;
  if (Norm) {
    float F = std::floor(X);
    if (Mode == tx::Wrap)
      X = X - F;
    else if (Mode == tx::Mirror)
      X = (int64_t(F) % 2 != 0) ? 1.0f - (X - F) : X - F;
    X = X * float(N);
  }
  Axis A;
  int64_t I0;
  if (Linear) {
    float B = X - 0.5f, F = std::floor(B);
    A.Alpha = std::nearbyint((B - F) * 256.0f) / 256.0f;
    I0 = int64_t(F);
  } else {
    I0 = int64_t(std::floor(X));
  }
  for (int K = 0; K < 2; ++K) {
    int64_t I = I0 + K;
    switch (Mode) {
    case tx::Wrap:
      A.I[K] = ((I % N) + N) % N;
      break;
    case tx::Mirror: {
      int64_t M = ((I % (2 * N)) + 2 * N) % (2 * N);
      A.I[K] = M < N ? M : 2 * N - 1 - M;
      break;
    }
    case tx::Border:
      if (I >= 0 && I < N)
        A.I[K] = I;
      break;
    default:
      A.I[K] = std::clamp<int64_t>(I, 0, N - 1);
    }
  }
  return A;
}

// The four channel registers of texel (X, Y, Z), or of the border color when any is nullopt.
std::vector<uint32_t> texelRef(const Sampled &T, std::optional<int64_t> X, std::optional<int64_t> Y,
                               std::optional<int64_t> Z) {
  std::vector<uint32_t> R(4, 0);
  if (!X || !Y || !Z) {
    for (int C = 0; C < 4; ++C)
      R[C] = T.asFloat() ? uint32_t(f32(T.Border[C])) : uint32_t(int32_t(T.Border[C]));
    return R;
  }
  Texture Row{T.Format, T.Channels, T.NormalizedRead, {}};
  size_t At = ((size_t(*Z) * T.H + size_t(*Y)) * T.W + size_t(*X)) * T.elementBytes();
  Row.Data.assign(T.Elements.begin() + At, T.Elements.begin() + At + T.elementBytes());
  std::vector<u64> E = fetchRef(Row, 0);
  for (int C = 0; C < 4; ++C)
    R[C] = uint32_t(E[C]);
  return R;
}

// The axes of a fetch at Coords (layer Layer of a layered texture), with linear filtering's two
// texels per dimension when Linear.
std::vector<Axis> axesRef(const Sampled &T, const std::vector<float> &Coords, int64_t Layer,
                          bool Linear) {
  int64_t Sizes[3] = {T.W, T.H, T.D};
  std::vector<Axis> A(3);
  for (unsigned K = 0; K < 3; ++K)
    A[K] = K < T.Dims ? axisRef(Coords[K], Sizes[K], T.Address[K], T.NormalizedCoords, Linear)
                      : Axis{{0, 0}, 0.0f};
  if (T.Layered) {
    int64_t L = std::clamp<int64_t>(Layer, 0, T.D - 1); // a layer beyond them: the nearest
    A[2] = Axis{{L, L}, 0.0f};
  }
  return A;
}

std::vector<u64> sampleRef(const Sampled &T, const std::vector<float> &Coords, int64_t Layer) {
  bool Linear = T.LinearFilter && T.asFloat();
  std::vector<Axis> A = axesRef(T, Coords, Layer, Linear);
  std::vector<u64> Out(4);
  if (!Linear) {
    std::vector<uint32_t> E = texelRef(T, A[0].I[0], A[1].I[0], A[2].I[0]);
    for (int C = 0; C < 4; ++C)
      Out[C] = E[C];
    return Out;
  }
  // The weighted sum over the 2^Dims texels, x fastest, each weight wx * wy * wz.
  float Sum[4] = {0, 0, 0, 0};
  bool First = true;
  unsigned Ny = T.Dims > 1 ? 2 : 1, Nz = T.Dims > 2 && !T.Layered ? 2 : 1;
  for (unsigned Z = 0; Z < Nz; ++Z)
    for (unsigned Y = 0; Y < Ny; ++Y)
      for (unsigned X = 0; X < 2; ++X) {
        float W = X ? A[0].Alpha : 1.0f - A[0].Alpha;
        if (Ny > 1)
          W = W * (Y ? A[1].Alpha : 1.0f - A[1].Alpha);
        if (Nz > 1)
          W = W * (Z ? A[2].Alpha : 1.0f - A[2].Alpha);
        std::vector<uint32_t> E = texelRef(T, A[0].I[X], A[1].I[Y], A[2].I[Z]);
        for (int C = 0; C < 4; ++C) {
          float P = W * asF32(E[C]);
          Sum[C] = First ? P : Sum[C] + P;
        }
        First = false;
      }
  for (int C = 0; C < 4; ++C)
    Out[C] = f32(Sum[C]);
  return Out;
}

// CUDA Programming Guide, "Cubemap Textures": the face of direction (X, Y, Z) is that of its
// coordinate of largest magnitude m (+x, -x, +y, -y, +z, -z: 0 to 5), addressed with normalized
// coordinates ((s / m + 1) / 2, (t / m + 1) / 2), (s, t) being (-z, -y), (z, -y), (x, z), (x, -z),
// (x, -y), (-x, -y) on the six faces; cube Layer (the nearest there is) is layers 6 Layer to
// 6 Layer + 5. Sampled within the face, clamped at its edges.
std::vector<u64> cubeRef(const Sampled &T, const std::vector<float> &Dir, int64_t Layer) {
  float X = Dir[0], Y = Dir[1], Z = Dir[2];
  float AX = std::fabs(X), AY = std::fabs(Y), AZ = std::fabs(Z), M, S, Tc;
  int64_t Face;
  if (AX > AY && AX > AZ) {
    Face = X >= 0 ? 0 : 1, M = AX, S = X >= 0 ? -Z : Z, Tc = -Y;
  } else if (AY > AX && AY > AZ) {
    Face = Y >= 0 ? 2 : 3, M = AY, S = X, Tc = Y >= 0 ? Z : -Z;
  } else {
    Face = Z >= 0 ? 4 : 5, M = AZ, S = Z >= 0 ? X : -X, Tc = -Y;
  }
  Sampled F = T;
  F.Cube = false;
  F.Dims = 2;
  F.Layered = true;
  F.NormalizedCoords = true;
  F.Address[0] = F.Address[1] = F.Address[2] = tx::Clamp;
  int64_t Cube = std::clamp<int64_t>(Layer, 0, T.D / 6 - 1);
  return sampleRef(F, {(S / M + 1.0f) * 0.5f, (Tc / M + 1.0f) * 0.5f, 0.0f}, Cube * 6 + Face);
}

// tld4 (PTX ISA 9.7.10.4): channel Comp of the bilinear footprint's four texels, counter-clockwise
// from the lower left: (i0, j1), (i1, j1), (i1, j0), (i0, j0).
std::vector<u64> gatherRef(const Sampled &T, const std::vector<float> &Coords, int64_t Layer,
                           int Comp) {
  std::vector<Axis> A = axesRef(T, Coords, Layer, /*Linear=*/true);
  const unsigned Order[4][2] = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};
  std::vector<u64> Out(4);
  for (int K = 0; K < 4; ++K)
    Out[K] = texelRef(T, A[0].I[Order[K][0]], A[1].I[Order[K][1]], A[2].I[0])[Comp];
  return Out;
}

// How a case fetches: tex, tex.level (a level of detail that a one-level texture ignores), or
// tld4 of a component.
struct Fetch {
  enum { Tex, Level, Gather } Kind = Tex;
  int Comp = 0; // tld4's component
};

// tex.{1d,2d,3d,a1d,a2d}.v4.DType.f32 (or the Fetch's form) of the texture at each row's
// coordinates; a layered texture's rows start with the layer.
Case sample(std::string Name, std::string DType, Sampled T, std::vector<std::vector<float>> Coords,
            Fetch How = {}, std::vector<int32_t> Layers = {0}) {
  Case C;
  C.Family = "texture";
  C.Name = std::move(Name);
  if (T.Layered)
    C.InTypes.push_back("s32");
  for (unsigned K = 0; K < T.Dims; ++K)
    C.InTypes.push_back("f32");
  if (How.Kind == Fetch::Level)
    C.InTypes.push_back("f32");
  C.OutTypes = {DType, DType, DType, DType};
  std::string Bytes;
  for (uint8_t B : memoryOf(T))
    Bytes += (Bytes.empty() ? "" : ", ") + std::to_string(B);
  unsigned Flags = (T.NormalizedRead ? tx::ReadNormalizedFloat : 0) |
                   (T.NormalizedCoords ? tx::NormalizedCoordinates : 0) |
                   (T.Layered || T.Cube ? tx::Layered : 0) | (T.Cube ? tx::Cubemap : 0);
  auto Pair = [](u64 Lo, u64 Hi) { return std::to_string(Lo | Hi << 32); };
  std::vector<std::string> Words = {
      "$data",
      std::to_string(T.W),
      Pair(T.Kind, T.Format),
      Pair(T.Channels, Flags),
      std::to_string(T.H),
      std::to_string(T.D),
      std::to_string(T.rowPitch()),
      std::to_string(T.rowPitch() * T.H),
      Pair(T.Address[0], T.Address[1]),
      Pair(T.Address[2], T.LinearFilter ? tx::LinearFilter : tx::PointFilter),
      Pair(f32(T.Border[0]), f32(T.Border[1])),
      Pair(f32(T.Border[2]), f32(T.Border[3])),
      "0",
      "0",
      "0",
      "0"};
  std::string Desc;
  for (const std::string &W : Words)
    Desc += (Desc.empty() ? "" : ", ") + W;
  C.ModuleDecls = ".global .align 16 .b8 $data[" + std::to_string(memoryOf(T).size()) + "] = {" +
                  Bytes + "};\n.global .align 8 .u64 $desc[16] = {" + Desc + "};";
  // The coordinate vector: [layer,] x[, y[, z]], padded to four when three are given.
  std::vector<std::string> Xs;
  for (size_t I = 0; I < (T.Layered ? 1 : 0) + T.Dims; ++I)
    Xs.push_back("%a" + std::to_string(I));
  if (Xs.size() == 3)
    Xs.push_back(Xs.back());
  std::string Vec;
  for (const std::string &X : Xs)
    Vec += (Vec.empty() ? "" : ", ") + X;
  std::string Geometry = std::string(T.Layered ? "a" : "") +
                         (T.Cube ? std::string("cube") : std::to_string(T.Dims) + "d");
  std::string Op = How.Kind == Fetch::Gather  ? "tld4." + std::string(1, "rgba"[How.Comp]) + "."
                   : How.Kind == Fetch::Level ? "tex.level."
                                              : "tex.";
  std::string Lod = How.Kind == Fetch::Level ? ", %a" + std::to_string(C.InTypes.size() - 1) : "";
  C.Body = "mov.u64 %rd1, $desc;\n " + Op + Geometry + ".v4." + DType +
           ".f32 {%d0, %d1, %d2, %d3}, [%rd1, {" + Vec + "}]" + Lod + ";";
  for (int32_t Layer : Layers)
    for (const std::vector<float> &X : Coords) {
      std::vector<u64> Row;
      if (T.Layered)
        Row.push_back(uint32_t(Layer));
      for (unsigned K = 0; K < T.Dims; ++K)
        Row.push_back(f32(X[K]));
      if (How.Kind == Fetch::Level)
        Row.push_back(f32(float(Row.size()) * 0.75f)); // any level reads the only one
      C.Rows.push_back(Row);
    }
  C.Ref = perThread([T, How](const std::vector<u64> &Row) {
    size_t First = T.Layered ? 1 : 0;
    int64_t Layer = T.Layered ? int32_t(uint32_t(Row[0])) : 0;
    std::vector<float> X(3, 0.0f);
    for (unsigned K = 0; K < T.Dims; ++K)
      X[K] = asF32(uint32_t(Row[First + K]));
    return How.Kind == Fetch::Gather ? gatherRef(T, X, Layer, How.Comp)
           : T.Cube                  ? cubeRef(T, X, Layer)
                                     : sampleRef(T, X, Layer);
  });
  return C;
}

// Coordinates of a Dims-dimensional texture of sizes N: texel centres, edges, fractions between
// texels, and points outside on both sides; normalized (divided by N) when Norm.
std::vector<std::vector<float>> coordinates(unsigned Dims, std::vector<unsigned> N, bool Norm) {
  std::vector<float> Steps = {0.5f, 0.0f, 1.25f, 1.5f, 1.75f, 2.1f, -0.3f, -1.6f, 2.9f};
  std::vector<std::vector<float>> Out;
  for (size_t I = 0; I < Steps.size(); ++I)
    for (size_t J = 0; J < (Dims > 1 ? Steps.size() : 1); J += 2)
      for (size_t K = 0; K < (Dims > 2 ? Steps.size() : 1); K += 3) {
        std::vector<float> X = {Steps[I] * N[0] / 2.0f, Steps[(I + J) % Steps.size()] * N[1] / 2.0f,
                                Steps[(I + K) % Steps.size()] * N[2] / 2.0f};
        if (Norm)
          for (unsigned D = 0; D < 3; ++D)
            X[D] = X[D] / float(N[D]);
        Out.push_back(X);
      }
  return Out;
}

// A surface (a CUDA array) of W x H x D elements of Bytes bytes (layers when D > 1 and
// Layered), its memory dense, byte i = i * 37 + 11.
struct Surface {
  unsigned W, H, D, Bytes;
  bool Layered = false;
  size_t rowBytes() const { return size_t(W) * Bytes; }
  std::vector<uint8_t> memory() const {
    std::vector<uint8_t> M(rowBytes() * H * D);
    for (size_t I = 0; I < M.size(); ++I)
      M[I] = uint8_t(I * 37 + 11);
    return M;
  }
};

// The module declarations of a surface object over S: its memory and a descriptor of kind Array
// (format u8 with Bytes channels stands for any Bytes-byte element: surfaces address bytes).
std::string surfaceDecls(const Surface &S) {
  std::string Bytes;
  for (uint8_t B : S.memory())
    Bytes += (Bytes.empty() ? "" : ", ") + std::to_string(B);
  auto Pair = [](u64 Lo, u64 Hi) { return std::to_string(Lo | Hi << 32); };
  return ".global .align 16 .b8 $data[" + std::to_string(S.memory().size()) + "] = {" + Bytes +
         "};\n.global .align 8 .u64 $desc[16] = {$data, " + std::to_string(S.W) + ", " +
         Pair(tx::Array, tx::UInt8) + ", " + Pair(S.Bytes, S.Layered ? tx::Layered : 0) + ", " +
         std::to_string(S.H) + ", " + std::to_string(S.D) + ", " + std::to_string(S.rowBytes()) +
         ", " + std::to_string(S.rowBytes() * S.H) + ", 0, 0, 0, 0, 0, 0, 0, 0};";
}

// PTX ISA 9.7.11.1: the byte offset of an access of N bytes at byte X, row Y, slice Z, or nullopt
// outside the surface under .zero; .clamp takes the nearest access inside (x aligned down to N).
std::optional<size_t> surfaceOffset(const Surface &S, int64_t X, int64_t Y, int64_t Z, unsigned N,
                                    bool Clamp) {
  bool Inside = X >= 0 && X + N <= int64_t(S.rowBytes()) && Y >= 0 && Y < int64_t(S.H) && Z >= 0 &&
                Z < int64_t(S.D);
  if (!Inside) {
    if (!Clamp)
      return std::nullopt;
    X = std::clamp<int64_t>(X, 0, int64_t(S.rowBytes()) - N) / N * N;
    Y = std::clamp<int64_t>(Y, 0, S.H - 1);
    Z = std::clamp<int64_t>(Z, 0, S.D - 1);
  }
  return (size_t(Z) * S.H + size_t(Y)) * S.rowBytes() + size_t(X);
}

// suld.b.GEOM[.vN].bBITS.MODE of the surface at each row's (x bytes, y, z / layer); each element
// zero-extended into its register. Rows: in range and outside on every side.
Case surfaceLoad(std::string Geometry, unsigned Count, unsigned ElemBytes, std::string Mode,
                 Surface S) {
  Case C;
  C.Family = "texture";
  C.Name = "suld.b." + Geometry + (Count > 1 ? ".v" + std::to_string(Count) : "") + ".b" +
           std::to_string(ElemBytes * 8) + "." + Mode;
  unsigned Dims = Geometry == "1d" || Geometry == "a1d" ? 1 : Geometry == "3d" ? 3 : 2;
  bool Layered = Geometry[0] == 'a';
  unsigned NCoords = Dims + (Layered ? 1 : 0);
  C.InTypes.assign(NCoords, "s32");
  std::string Reg = ElemBytes == 8 ? "b64" : ElemBytes == 4 ? "b32" : "b16";
  C.OutTypes.assign(Count, Reg);
  C.ModuleDecls = surfaceDecls(S);
  std::string Xs, Ds;
  for (unsigned I = 0; I < (NCoords == 3 ? 4 : NCoords); ++I)
    Xs += (I ? ", %a" : "%a") + std::to_string(std::min(I, NCoords - 1));
  for (unsigned I = 0; I < Count; ++I)
    Ds += (I ? ", %d" : "%d") + std::to_string(I);
  C.Body = "mov.u64 %rd1, $desc;\n " + C.Name + " {" + Ds + "}, [%rd1, {" + Xs + "}];";
  unsigned N = ElemBytes * Count;
  std::vector<int64_t> XB = {
      0, int64_t(N), int64_t(S.rowBytes()) - N, -int64_t(N), int64_t(S.rowBytes()), 1000};
  std::vector<int64_t> YZ = {0, 1, -1, 2, 7};
  for (int64_t X : XB)
    for (int64_t Y : YZ)
      for (int64_t Z : (NCoords > 2 ? YZ : std::vector<int64_t>{0})) {
        std::vector<u64> Row;
        if (Layered)
          Row.push_back(uint32_t(int32_t(Dims == 1 ? Y : Z)));
        Row.push_back(uint32_t(int32_t(X)));
        if (Dims > 1)
          Row.push_back(uint32_t(int32_t(Y)));
        if (Dims > 2)
          Row.push_back(uint32_t(int32_t(Z)));
        C.Rows.push_back(Row);
      }
  bool Clamp = Mode == "clamp";
  C.Ref = perThread([S, Dims, Layered, Count, ElemBytes, N, Clamp](const std::vector<u64> &Row) {
    auto V = [&](size_t I) { return int64_t(int32_t(uint32_t(Row[I]))); };
    size_t At = Layered ? 1 : 0;
    int64_t X = V(At), Y = Dims > 1 ? V(At + 1) : 0, Z = Dims > 2 ? V(At + 2) : 0;
    if (Layered)
      Z = V(0); // the layer is the slice
    std::optional<size_t> Off = surfaceOffset(S, X, Y, Z, N, Clamp);
    std::vector<u64> Out(Count, 0);
    std::vector<uint8_t> M = S.memory();
    if (Off)
      for (unsigned E = 0; E < Count; ++E)
        std::memcpy(&Out[E], M.data() + *Off + E * ElemBytes, ElemBytes);
    return Out;
  });
  return C;
}

// sust.b.2d.b32.zero then suld.b.2d.b32.zero at the same (x bytes, y) of each row: the value
// stored, or 0 outside the surface (the store ignored). Each thread writes its own element.
Case surfaceStore(Surface S) {
  Case C;
  C.Family = "texture";
  C.Name = "sust.b.2d.b32.zero";
  C.InTypes = {"s32", "s32", "u32"};
  C.OutTypes = {"b32"};
  C.ModuleDecls = surfaceDecls(S);
  C.Body = "mov.u64 %rd1, $desc;\n sust.b.2d.b32.zero [%rd1, {%a0, %a1}], %a2;\n"
           " suld.b.2d.b32.zero %d0, [%rd1, {%a0, %a1}];";
  for (unsigned Y = 0; Y < S.H; ++Y)
    for (unsigned X = 0; X < S.W; ++X)
      C.Rows.push_back({X * 4, Y, 0x9e3779b9u * (Y * S.W + X + 1)});
  for (int64_t X : {int64_t(-4), int64_t(S.rowBytes()), int64_t(4000)})
    C.Rows.push_back({uint32_t(int32_t(X)), 0, 0x12345678});
  C.Rows.push_back({0, uint32_t(-1), 0x12345678});
  C.Ref = perThread([S](const std::vector<u64> &Row) {
    int64_t X = int32_t(uint32_t(Row[0])), Y = int32_t(uint32_t(Row[1]));
    bool Inside = surfaceOffset(S, X, Y, 0, 4, false).has_value();
    return std::vector<u64>{Inside ? Row[2] : 0};
  });
  return C;
}

} // namespace

void addTextureCases(CaseList &L) {
  using tx::Float, tx::Half, tx::SInt16, tx::SInt32, tx::SInt8, tx::UInt16, tx::UInt32, tx::UInt8;
  std::initializer_list<float> Floats = {1.5f,     -0.0f, 3.0e38f, -INFINITY,
                                         1.0e-40f, 7.25f, -2.0f,   0.1f};
  L.push_back(fetch("tex.1d.v4.f32.float4", "f32", {Float, 4, false, bytesOf(Floats)}));
  L.push_back(fetch("tex.1d.v4.f32.float2", "f32", {Float, 2, false, bytesOf(Floats)}));
  L.push_back(fetch("tex.1d.v4.f32.float1", "f32", {Float, 1, false, bytesOf(Floats)}));
  // Halves: 1.0, -2.5, the largest, the smallest subnormal, -0, +inf, 65504's neighbour, 1/3.
  std::initializer_list<uint16_t> Halves = {0x3c00, 0xc100, 0x7bff, 0x0001,
                                            0x8000, 0x7c00, 0x7bfe, 0x3555};
  L.push_back(fetch("tex.1d.v4.f32.half2", "f32", {Half, 2, false, bytesOf(Halves)}));
  L.push_back(fetch("tex.1d.v4.f32.half1", "f32", {Half, 1, true, bytesOf(Halves)}));
  std::initializer_list<uint8_t> U8 = {0, 1, 127, 128, 200, 254, 255, 77};
  L.push_back(fetch("tex.1d.v4.f32.uchar4.normalized", "f32", {UInt8, 4, true, bytesOf(U8)}));
  L.push_back(fetch("tex.1d.v4.u32.uchar4", "u32", {UInt8, 4, false, bytesOf(U8)}));
  std::initializer_list<int8_t> S8 = {0, 1, -1, 127, -127, -128, 64, -64};
  L.push_back(fetch("tex.1d.v4.f32.char2.normalized", "f32", {SInt8, 2, true, bytesOf(S8)}));
  L.push_back(fetch("tex.1d.v4.s32.char4", "s32", {SInt8, 4, false, bytesOf(S8)}));
  std::initializer_list<uint16_t> U16 = {0, 1, 32768, 65535, 12345, 65534};
  L.push_back(fetch("tex.1d.v4.f32.ushort1.normalized", "f32", {UInt16, 1, true, bytesOf(U16)}));
  L.push_back(fetch("tex.1d.v4.u32.ushort2", "u32", {UInt16, 2, false, bytesOf(U16)}));
  std::initializer_list<int16_t> S16 = {0, -32768, -32767, 32767, -1, 1000, -1000, 7};
  L.push_back(fetch("tex.1d.v4.f32.short4.normalized", "f32", {SInt16, 4, true, bytesOf(S16)}));
  L.push_back(fetch("tex.1d.v4.s32.short2", "s32", {SInt16, 2, false, bytesOf(S16)}));
  std::initializer_list<int32_t> S32 = {INT_MIN, -1, 0, INT_MAX, 123456789, -987654321, 5, 6};
  L.push_back(fetch("tex.1d.v4.s32.int4", "s32", {SInt32, 4, false, bytesOf(S32)}));
  // 32-bit integers are never normalized, whatever the read mode.
  L.push_back(fetch("tex.1d.v4.u32.uint1.normalized", "u32", {UInt32, 1, true, bytesOf(S32)}));

  // Sampled textures (tex1D, tex2D, tex3D): every address mode and both filters.
  auto Tex = [](unsigned Format, unsigned Channels, bool NormRead, std::vector<uint8_t> E,
                unsigned Dims, unsigned W, unsigned H = 1, unsigned D = 1) {
    Sampled T{};
    T.Format = Format;
    T.Channels = Channels;
    T.NormalizedRead = NormRead;
    T.Dims = Dims;
    T.W = W;
    T.H = H;
    T.D = D;
    T.Elements = std::move(E);
    return T;
  };
  auto Tex2D = [&](unsigned Format, unsigned Channels, bool NormRead, std::vector<uint8_t> E,
                   unsigned W, unsigned H) { return Tex(Format, Channels, NormRead, E, 2, W, H); };
  {
    Sampled T = Tex2D(Float, 1, false,
                      bytesOf<float>({1.0f, -2.0f, 4.5f, 8.0f, 0.25f, 3.0f, -6.0f, 7.0f, 10.0f,
                                      0.0f, 2.5f, -1.0f}),
                      4, 3);
    L.push_back(
        sample("tex.2d.v4.f32.f32.float1.point.clamp", "f32", T, coordinates(2, {4, 3, 1}, false)));
    T.LinearFilter = true;
    L.push_back(sample("tex.2d.v4.f32.f32.float1.linear.clamp", "f32", T,
                       coordinates(2, {4, 3, 1}, false)));
    T.NormalizedCoords = true;
    T.Address[0] = T.Address[1] = tx::Wrap;
    L.push_back(sample("tex.2d.v4.f32.f32.float1.linear.normalized.wrap", "f32", T,
                       coordinates(2, {4, 3, 1}, true)));
    T.Address[0] = T.Address[1] = tx::Mirror;
    L.push_back(sample("tex.2d.v4.f32.f32.float1.linear.normalized.mirror", "f32", T,
                       coordinates(2, {4, 3, 1}, true)));
    T.LinearFilter = false;
    T.Address[0] = tx::Wrap;
    L.push_back(sample("tex.2d.v4.f32.f32.float1.point.normalized.wrap.mirror", "f32", T,
                       coordinates(2, {4, 3, 1}, true)));
    // Wrap and mirror read as clamp on unnormalized coordinates.
    T.NormalizedCoords = false;
    T.LinearFilter = true;
    L.push_back(sample("tex.2d.v4.f32.f32.float1.linear.unnormalized.wrap.mirror", "f32", T,
                       coordinates(2, {4, 3, 1}, false)));
    // Pitched memory: rows padded with bytes the fetch must not read.
    T.Kind = tx::Pitch2D;
    T.PadBytes = 20;
    T.Address[0] = T.Address[1] = tx::Clamp;
    L.push_back(sample("tex.2d.v4.f32.f32.float1.linear.pitch2d", "f32", T,
                       coordinates(2, {4, 3, 1}, false)));
  }
  {
    Sampled T = Tex2D(Float, 4, false,
                      bytesOf<float>({1.5f, -0.0f, 3.0e38f, 2.0f, 7.25f, -2.0f, 0.1f, 9.0f, -5.5f,
                                      4.0f, 1.0e-3f, 6.0f, 0.5f, 0.75f, -1.0e30f, 8.0f}),
                      2, 2);
    T.LinearFilter = true;
    T.Address[0] = T.Address[1] = tx::Border;
    T.Border[0] = 1.0f;
    T.Border[1] = -2.0f;
    T.Border[2] = 0.5f;
    T.Border[3] = 3.0f;
    L.push_back(sample("tex.2d.v4.f32.f32.float4.linear.border", "f32", T,
                       coordinates(2, {2, 2, 1}, false)));
    T.LinearFilter = false;
    L.push_back(sample("tex.2d.v4.f32.f32.float4.point.border", "f32", T,
                       coordinates(2, {2, 2, 1}, false)));
  }
  {
    // The classic image: uchar4 read as normalized floats, filtered.
    std::vector<uint8_t> Rgba;
    for (unsigned I = 0; I < 5 * 3 * 4; ++I)
      Rgba.push_back(uint8_t(I * 37 + 11));
    Sampled T = Tex2D(UInt8, 4, true, Rgba, 5, 3);
    T.LinearFilter = true;
    L.push_back(sample("tex.2d.v4.f32.f32.uchar4.normalized.linear", "f32", T,
                       coordinates(2, {5, 3, 1}, false)));
    // In element-type read mode the filter mode is ignored: point sampling.
    T.NormalizedRead = false;
    L.push_back(sample("tex.2d.v4.u32.f32.uchar4.linear.is.point", "u32", T,
                       coordinates(2, {5, 3, 1}, false)));
  }
  {
    Sampled T = Tex2D(Half, 2, false, bytesOf(Halves), 2, 2);
    T.LinearFilter = true;
    L.push_back(
        sample("tex.2d.v4.f32.f32.half2.linear", "f32", T, coordinates(2, {2, 2, 1}, false)));
    Sampled S = Tex2D(SInt16, 2, true, bytesOf(S16), 2, 2);
    S.LinearFilter = true;
    S.Address[0] = S.Address[1] = tx::Border;
    S.Border[0] = -1.0f;
    L.push_back(sample("tex.2d.v4.f32.f32.short2.normalized.linear.border", "f32", S,
                       coordinates(2, {2, 2, 1}, false)));
    Sampled I = Tex2D(SInt32, 2, false, bytesOf(S32), 2, 2);
    I.Address[0] = I.Address[1] = tx::Border;
    I.Border[0] = -7.0f;
    I.Border[1] = 9.0f;
    L.push_back(
        sample("tex.2d.v4.s32.f32.int2.point.border", "s32", I, coordinates(2, {2, 2, 1}, false)));
  }
  {
    Sampled T = Tex(Float, 1, false, bytesOf(Floats), 1, 8);
    T.LinearFilter = true;
    T.NormalizedCoords = true;
    T.Address[0] = tx::Wrap;
    L.push_back(sample("tex.1d.v4.f32.f32.float1.linear.normalized.wrap", "f32", T,
                       coordinates(1, {8, 1, 1}, true)));
    T.LinearFilter = false;
    T.Address[0] = tx::Border;
    L.push_back(sample("tex.1d.v4.f32.f32.float1.point.normalized.border", "f32", T,
                       coordinates(1, {8, 1, 1}, true)));
  }
  {
    Sampled T = Tex(Float, 1, false,
                    bytesOf<float>({1.0f, -2.0f, 4.5f, 8.0f, 0.25f, 3.0f, -6.0f, 7.0f, 10.0f, 0.0f,
                                    2.5f, -1.0f}),
                    3, 3, 2, 2);
    L.push_back(
        sample("tex.3d.v4.f32.f32.float1.point.clamp", "f32", T, coordinates(3, {3, 2, 2}, false)));
    T.LinearFilter = true;
    L.push_back(sample("tex.3d.v4.f32.f32.float1.linear.clamp", "f32", T,
                       coordinates(3, {3, 2, 2}, false)));
    T.NormalizedCoords = true;
    T.Address[0] = tx::Wrap;
    T.Address[1] = tx::Mirror;
    T.Address[2] = tx::Border;
    L.push_back(sample("tex.3d.v4.f32.f32.float1.linear.normalized.wrap.mirror.border", "f32", T,
                       coordinates(3, {3, 2, 2}, true)));
  }
  {
    // Layered textures: a fetch filters within its layer; a layer beyond the last reads the
    // nearest one.
    std::vector<float> Layer3;
    for (int I = 0; I < 3 * 5; ++I)
      Layer3.push_back(float(I * 7 % 11) - 5.0f);
    Sampled T = Tex(Float, 1, false, {}, 1, 5, 1, 3);
    T.Elements.resize(Layer3.size() * 4);
    std::memcpy(T.Elements.data(), Layer3.data(), T.Elements.size());
    T.Layered = true;
    T.LinearFilter = true;
    L.push_back(sample("tex.a1d.v4.f32.f32.float1.linear", "f32", T,
                       coordinates(1, {5, 1, 1}, false), {}, {-1, 0, 1, 2, 3}));
    Sampled U = Tex(UInt8, 4, true, {}, 2, 3, 2, 2);
    for (unsigned I = 0; I < 3 * 2 * 2 * 4; ++I)
      U.Elements.push_back(uint8_t(I * 53 + 7));
    U.Layered = true;
    U.LinearFilter = true;
    U.Address[0] = tx::Border;
    L.push_back(sample("tex.a2d.v4.f32.f32.uchar4.normalized.linear.border", "f32", U,
                       coordinates(2, {3, 2, 1}, false), {}, {0, 1, 9}));
  }
  {
    // Cube maps (texCubemap, texCubemapLayered): directions into each face at points between its
    // texels and near its edges, some scaled, none on a tie between two coordinates' magnitudes.
    std::vector<std::vector<float>> Dirs;
    for (int Face = 0; Face < 6; ++Face)
      for (float U : {0.2f, 0.7f, 0.97f})
        for (float V : {0.3f, 0.8f, 0.02f})
          for (float M : {1.0f, 3.5f}) {
            float S = (2 * U - 1) * M, T = (2 * V - 1) * M;
            const float Dir[6][3] = {{M, -T, -S}, {-M, -T, S}, {S, M, T},
                                     {S, -M, -T}, {S, -T, M},  {-S, -T, -M}};
            Dirs.push_back({Dir[Face][0], Dir[Face][1], Dir[Face][2]});
          }
    std::vector<float> Faces;
    for (int I = 0; I < 6 * 4; ++I)
      Faces.push_back(float(I / 4 * 10 + I % 4));
    Sampled T = Tex(Float, 1, false, {}, 3, 2, 2, 6);
    T.Elements.resize(Faces.size() * 4);
    std::memcpy(T.Elements.data(), Faces.data(), T.Elements.size());
    T.Cube = true;
    L.push_back(sample("tex.cube.v4.f32.f32.float1", "f32", T, Dirs));
    Sampled U = Tex(UInt8, 4, true, {}, 3, 3, 3, 12);
    for (unsigned I = 0; I < 3 * 3 * 12 * 4; ++I)
      U.Elements.push_back(uint8_t(I * 37 + 11));
    U.Cube = true;
    U.Layered = true;
    U.LinearFilter = true;
    U.Address[0] = tx::Border; // a cube map clamps at its faces' edges, whatever the mode
    L.push_back(
        sample("tex.acube.v4.f32.f32.uchar4.normalized.linear", "f32", U, Dirs, {}, {0, 1, 5, -1}));
  }
  {
    // tex2Dgather: each component of the bilinear footprint, whatever the filter mode; and
    // tex2DLod on a one-level texture.
    std::vector<uint8_t> Rgba;
    for (unsigned I = 0; I < 4 * 3 * 4; ++I)
      Rgba.push_back(uint8_t(I * 29 + 3));
    Sampled T = Tex2D(UInt8, 4, true, Rgba, 4, 3);
    for (int Comp = 0; Comp < 4; ++Comp)
      L.push_back(sample(std::string("tld4.") + "rgba"[Comp] + ".2d.v4.f32.f32.uchar4.normalized",
                         "f32", T, coordinates(2, {4, 3, 1}, false), {Fetch::Gather, Comp}));
    Sampled I = Tex2D(SInt32, 1, false, bytesOf(S32), 4, 2);
    I.Address[0] = I.Address[1] = tx::Border;
    I.Border[0] = 77.0f;
    L.push_back(sample("tld4.r.2d.v4.s32.f32.int1.border", "s32", I,
                       coordinates(2, {4, 2, 1}, false), {Fetch::Gather, 0}));
    Sampled F = Tex2D(Float, 1, false, bytesOf(Floats), 4, 2);
    F.LinearFilter = true;
    L.push_back(sample("tex.level.2d.v4.f32.f32.float1.linear", "f32", F,
                       coordinates(2, {4, 2, 1}, false), {Fetch::Level}));
  }
  // Surfaces: loads in range and outside under .zero and .clamp, of every element size and
  // vector width, in one to three dimensions and layered; a store read back.
  L.push_back(surfaceLoad("2d", 1, 4, "zero", {6, 4, 1, 4}));
  L.push_back(surfaceLoad("2d", 1, 4, "clamp", {6, 4, 1, 4}));
  L.push_back(surfaceLoad("2d", 4, 1, "zero", {5, 3, 1, 4}));
  L.push_back(surfaceLoad("2d", 2, 2, "clamp", {5, 3, 1, 4}));
  L.push_back(surfaceLoad("1d", 1, 8, "clamp", {7, 1, 1, 8}));
  L.push_back(surfaceLoad("1d", 1, 1, "zero", {9, 1, 1, 1}));
  L.push_back(surfaceLoad("3d", 2, 4, "zero", {3, 3, 3, 8}));
  L.push_back(surfaceLoad("3d", 4, 4, "clamp", {2, 2, 3, 16}));
  L.push_back(surfaceLoad("2d", 2, 8, "zero", {3, 2, 1, 16}));
  Surface Layers{4, 3, 2, 2};
  Layers.Layered = true;
  L.push_back(surfaceLoad("a2d", 1, 2, "zero", Layers));
  Surface Layers1{6, 1, 3, 4};
  Layers1.Layered = true;
  L.push_back(surfaceLoad("a1d", 1, 4, "clamp", Layers1));
  L.push_back(surfaceStore({5, 4, 1, 4}));
  // .trap: an access outside the surface stops the kernel with an error.
  Case Trap = surfaceLoad("2d", 1, 4, "trap", {6, 4, 1, 4});
  Trap.ExpectError = "trap";
  L.push_back(Trap);
}

} // namespace reptx::conformance
