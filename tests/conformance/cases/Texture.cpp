// Texture fetches (PTX ISA 9.7.10.3, tex) on texture objects: tex.1d.v4.{f32,s32,u32}.s32 d,
// [t, {x}], CUDA's tex1Dfetch. Each case's module holds a texture's elements and a texture
// object descriptor (reptx/backend/TextureObject.h, as a loader's cuTexObjectCreate writes it)
// pointing at them; the handle is the descriptor's address. The host reference reads element x
// as the CUDA Programming Guide's texture fetching defines it: float channels as they are, half
// channels widened to float, 8- and 16-bit integer channels in normalized-float read mode
// divided by 2^n - 1 (unsigned) or 2^(n-1) - 1 and clamped to -1 (signed), in element-type read
// mode zero- or sign-extended, 32-bit integer channels as they are. reptx's own choices where
// CUDA's documentation is silent, not yet checked on NVIDIA hardware: channels the format lacks
// read (0, 0, 0, 1) (1.0 when the channels read as floats), and a coordinate outside
// [0, width) reads zeros.
#include "../Conformance.h"

#include "reptx/backend/TextureObject.h"

#include <algorithm>
#include <climits>
#include <cmath>

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
                  "};\n.global .align 8 .u64 $desc[8] = {$data, " + std::to_string(T.width()) +
                  ", " + std::to_string(u64(tx::Linear) | u64(T.Format) << 32) + ", " +
                  std::to_string(u64(T.Channels) | u64(Flags) << 32) + ", 0, 0, 0, 0};";
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
}

} // namespace reptx::conformance
