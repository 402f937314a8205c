// Texture fetches (PTX ISA 9.7.10.3, tex): the helpers behind @reptx.tex.1d.fetch and
// @reptx.tex.sample (ir/include/reptx/ir/Intrinsics.h), which read a texture object's descriptor
// (reptx/backend/TextureObject.h) and then the elements, converted as the texture unit does and,
// for sampled textures, addressed and filtered as the CUDA Programming Guide's "Texture
// Fetching" appendix defines it.
// Textures are read-only while a kernel runs (CUDA does not keep the texture cache coherent with
// the kernel's own stores), so plain loads suffice.
#include "Device.h"

#include "../include/reptx/backend/TextureObject.h"

namespace reptx::device {

namespace {

namespace tx = reptx::texture_object;

using u32x4 = u32 __attribute__((ext_vector_type(4)));
using GlobalU8 = __attribute__((address_space(1))) unsigned char;
using GlobalU16 = __attribute__((address_space(1))) unsigned short;

using GlobalDescriptor = __attribute__((address_space(1))) const tx::Descriptor;

u32 bits(float F) { return __builtin_bit_cast(u32, F); }

// Channel C of the element at P, as the 32-bit register a fetch returns: floats as floats, halves
// widened to float, 8- and 16-bit integers normalized to float when Normalized, otherwise
// zero- or sign-extended; 32-bit integers as they are.
u32 channel(u64 P, u32 Format, u32 C, bool Normalized) {
  switch (Format) {
  case tx::UInt8: {
    u32 V = reinterpret_cast<GlobalU8 *>(P)[C];
    return Normalized ? bits(float(V) / 255.0f) : V;
  }
  case tx::SInt8: {
    s32 V = static_cast<signed char>(reinterpret_cast<GlobalU8 *>(P)[C]);
    return Normalized ? bits(__builtin_fmaxf(float(V) / 127.0f, -1.0f)) : u32(V);
  }
  case tx::UInt16: {
    u32 V = reinterpret_cast<GlobalU16 *>(P)[C];
    return Normalized ? bits(float(V) / 65535.0f) : V;
  }
  case tx::SInt16: {
    s32 V = static_cast<short>(reinterpret_cast<GlobalU16 *>(P)[C]);
    return Normalized ? bits(__builtin_fmaxf(float(V) / 32767.0f, -1.0f)) : u32(V);
  }
  case tx::Half:
    return bits(float(__builtin_bit_cast(_Float16, reinterpret_cast<GlobalU16 *>(P)[C])));
  default: // 32-bit integers and floats
    return reinterpret_cast<GlobalU32 *>(P)[C];
  }
}

// Element (X, Y, Z) of a texture whose indices are in range, one register per channel; channels
// the format lacks read 0, the fourth 1 (1.0 when AsFloat).
u32x4 element(GlobalDescriptor *D, s32 X, s32 Y, s32 Z, bool Normalized, bool AsFloat) {
  u32 Format = D->Format, Channels = D->Channels;
  u64 P = D->Base + u64(Z) * D->SlicePitch + u64(Y) * D->RowPitch +
          u64(X) * Channels * tx::channelBytes(Format);
  u32x4 R = {0, 0, 0, AsFloat ? bits(1.0f) : 1u};
  R[0] = channel(P, Format, 0, Normalized);
  if (Channels > 1)
    R[1] = channel(P, Format, 1, Normalized);
  if (Channels > 2) {
    R[2] = channel(P, Format, 2, Normalized);
    R[3] = channel(P, Format, 3, Normalized);
  }
  return R;
}

// A texel index of one dimension of N elements under an address mode (Wrap and Mirror repeat,
// Clamp clamps); false for Border when the index is outside the texture.
bool address(s32 &I, s32 N, u32 Mode) {
  switch (Mode) {
  case tx::Wrap:
    I %= N;
    if (I < 0)
      I += N;
    return true;
  case tx::Mirror: {
    s32 M = I % (2 * N);
    if (M < 0)
      M += 2 * N;
    I = M < N ? M : 2 * N - 1 - M;
    return true;
  }
  case tx::Border:
    return I >= 0 && I < N;
  default:
    I = I < 0 ? 0 : I >= N ? N - 1 : I;
    return true;
  }
}

// floor(F) as an index; NaN and values beyond +-2^30 are clamped so that the conversion is defined.
s32 index(float F) {
  return s32(__builtin_fminf(__builtin_fmaxf(__builtin_floorf(F), -1073741824.0f), 1073741824.0f));
}

// The two texels (I0, I0 + 1) and the weight Alpha of I0 + 1 that one coordinate of one dimension
// of N elements selects (PTX ISA tex; CUDA Programming Guide, "Texture Fetching"): a normalized
// coordinate is first wrapped or mirrored into [0, 1) and scaled by N; point sampling takes
// floor(x), linear filtering floor(x - 0.5) and its successor with Alpha = frac(x - 0.5) in 9-bit
// fixed point with 8 fractional bits.
struct Taps {
  s32 I[2];
  bool In[2];
  float Alpha;
};

Taps taps(float X, s32 N, u32 Mode, bool NormalizedCoords, bool Linear) {
  if (!NormalizedCoords && (Mode == tx::Wrap || Mode == tx::Mirror))
    Mode = tx::Clamp;
  if (NormalizedCoords) {
    if (Mode == tx::Wrap) {
      X = X - __builtin_floorf(X);
    } else if (Mode == tx::Mirror) {
      float F = __builtin_floorf(X);
      bool Odd = __builtin_fmodf(F, 2.0f) != 0.0f;
      X = Odd ? 1.0f - (X - F) : X - F;
    }
    X = X * float(N);
  }
  Taps T;
  T.Alpha = 0.0f;
  if (Linear) {
    float B = X - 0.5f;
    float F = __builtin_floorf(B);
    T.Alpha = __builtin_rintf((B - F) * 256.0f) / 256.0f;
    T.I[0] = index(F);
  } else {
    T.I[0] = index(X);
  }
  T.I[1] = T.I[0] + 1;
  T.In[0] = address(T.I[0], N, Mode);
  T.In[1] = address(T.I[1], N, Mode);
  return T;
}

} // namespace

// tex.{1d,2d,3d}.v4.{f32,s32,u32}.f32 d, [t, {x, y, z}] on a texture object (CUDA's tex1D, tex2D,
// tex3D on CUDA arrays and pitched memory): the texture sampled at the first Dims coordinates,
// one register per channel, as element() reads them. Textures that read as floats (float and
// half formats, 8- and 16-bit integers in normalized-float read mode) are filtered linearly when
// the descriptor says so; the others are point-sampled. A texel outside the texture under the
// Border address mode reads the border color. A null handle or a descriptor of no known kind
// reads zeros.
REPTX_HELPER("reptx.tex.sample", u32x4, reptx_tex_sample,
             (u64 Handle, u32 Dims, float X, float Y, float Z)) {
#pragma clang fp contract(off)
  u32x4 Zero = {0, 0, 0, 0};
  if (!Handle)
    return Zero;
  GlobalDescriptor *D = reinterpret_cast<GlobalDescriptor *>(Handle);
  u32 Kind = D->Kind, Format = D->Format, Channels = D->Channels, Flags = D->Flags;
  u32 Bytes = tx::channelBytes(Format);
  if ((Kind != tx::Linear && Kind != tx::Pitch2D && Kind != tx::Array) || Bytes == 0 ||
      Channels == 0 || Channels > 4 || Dims == 0 || Dims > 3)
    return Zero;
  bool Normalized = (Flags & tx::ReadNormalizedFloat) && Bytes < 4;
  bool AsFloat = Format == tx::Half || Format == tx::Float || Normalized;
  bool Linear = AsFloat && D->Filter == tx::LinearFilter;
  bool NormCoords = Flags & tx::NormalizedCoordinates;
  u64 Sizes[3] = {D->Width, Kind == tx::Linear ? 1 : D->Height, Kind == tx::Linear ? 1 : D->Depth};
  float Coords[3] = {X, Y, Z};
  Taps T[3];
  for (u32 K = 0; K < 3; ++K) {
    u64 N = Sizes[K] ? Sizes[K] : 1;
    if (N > 0x40000000u)
      return Zero;
    if (K < Dims) {
      T[K] = taps(Coords[K], s32(N), D->Address[K], NormCoords, Linear);
    } else {
      T[K].I[0] = T[K].I[1] = 0;
      T[K].In[0] = T[K].In[1] = true;
      T[K].Alpha = 0.0f;
    }
  }
  u32x4 Border;
  for (u32 C = 0; C < 4; ++C) {
    float V = D->BorderColor[C];
    Border[C] = AsFloat ? bits(V) : u32(s32(V));
  }
  auto Texel = [&](u32 A, u32 B, u32 C) {
    if (!T[0].In[A] || !T[1].In[B] || !T[2].In[C])
      return Border;
    return element(D, T[0].I[A], T[1].I[B], T[2].I[C], Normalized, AsFloat);
  };
  if (!Linear)
    return Texel(0, 0, 0);
  // Sum over the 2^Dims texels of w = wx * wy * wz times the texel, x fastest, in this order
  // (the host references compute the same sum).
  float Sum[4];
  bool First = true;
  u32 Ny = Dims > 1 ? 2 : 1, Nz = Dims > 2 ? 2 : 1;
  for (u32 C = 0; C < Nz; ++C)
    for (u32 B = 0; B < Ny; ++B)
      for (u32 A = 0; A < 2; ++A) {
        float W = A ? T[0].Alpha : 1.0f - T[0].Alpha;
        if (Dims > 1)
          W = W * (B ? T[1].Alpha : 1.0f - T[1].Alpha);
        if (Dims > 2)
          W = W * (C ? T[2].Alpha : 1.0f - T[2].Alpha);
        u32x4 E = Texel(A, B, C);
        for (u32 Ch = 0; Ch < 4; ++Ch) {
          u32 V = E[Ch]; // (__builtin_bit_cast of a vector element reads element 0 in clang 22)
          float P = W * __builtin_bit_cast(float, V);
          Sum[Ch] = First ? P : Sum[Ch] + P;
        }
        First = false;
      }
  u32x4 R;
  for (u32 Ch = 0; Ch < 4; ++Ch)
    R[Ch] = bits(Sum[Ch]);
  return R;
}

// tex.1d.v4.{f32,s32,u32}.s32 d, [t, {x}] on a texture object (CUDA's tex1Dfetch): element x of a
// linear texture, one register per channel. Channels the format does not have read 0, except the
// fourth, 1 (1.0 when the channels read as floats). A coordinate outside [0, width), a null handle
// or a descriptor of another kind reads zeros.
REPTX_HELPER("reptx.tex.1d.fetch", u32x4, reptx_tex_1d_fetch, (u64 Handle, s32 X)) {
  u32x4 R = {0, 0, 0, 0};
  if (!Handle)
    return R;
  GlobalDescriptor *D = reinterpret_cast<GlobalDescriptor *>(Handle);
  u32 Format = D->Format, Channels = D->Channels, Bytes = tx::channelBytes(Format);
  if (D->Kind != tx::Linear || X < 0 || u64(X) >= D->Width || Bytes == 0 || Channels == 0 ||
      Channels > 4)
    return R;
  bool Normalized = (D->Flags & tx::ReadNormalizedFloat) && Bytes < 4;
  bool AsFloat = Format == tx::Half || Format == tx::Float || Normalized;
  return element(D, X, 0, 0, Normalized, AsFloat);
}

} // namespace reptx::device
