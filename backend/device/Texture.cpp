// Texture fetches (PTX ISA 9.7.10.3, tex): the helpers behind @reptx.tex.1d.fetch and
// @reptx.tex.sample (ir/include/reptx/ir/Intrinsics.h), which read a texture object's descriptor
// (reptx/backend/TextureObject.h) and then the elements, converted as the texture unit does and,
// for sampled textures, addressed and filtered as the CUDA Programming Guide's "Texture
// Fetching" appendix defines it.
// Textures are read-only while a kernel runs (CUDA does not keep the texture cache coherent with
// the kernel's own stores), so plain loads suffice.
#include "Device.h"

#include "../include/reptx/backend/TextureObject.h"

// No fused multiply-adds: the addressing and filtering round each step as the host references do.
#pragma clang fp contract(off)

namespace reptx::device {

namespace {

namespace tx = reptx::texture_object;

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

namespace {

// What one sampled fetch reads: the texels of each dimension's taps and how elements read.
struct Footprint {
  GlobalDescriptor *D;
  Taps T[3];
  bool Normalized, AsFloat, Linear;
  u32x4 Border;

  // Texel (T[0].I[A], T[1].I[B], T[2].I[C]), or the border color outside the texture.
  u32x4 texel(u32 A, u32 B, u32 C) const {
    if (!T[0].In[A] || !T[1].In[B] || !T[2].In[C])
      return Border;
    return element(D, T[0].I[A], T[1].I[B], T[2].I[C], Normalized, AsFloat);
  }
};

// The footprint of a fetch at the first Dims of Coords (slice Layer of a layered texture) on the
// texture object Handle, with linear filtering's two taps per dimension when the texture filters
// linearly or Gather asks for them; false for a null handle or a descriptor that is not a
// texture's.
bool footprint(u64 Handle, u32 Dims, s32 Layer, const float *Coords, bool Gather, Footprint &F,
               bool Cube = false) {
  if (!Handle || Dims == 0 || Dims > 3)
    return false;
  GlobalDescriptor *D = reinterpret_cast<GlobalDescriptor *>(Handle);
  u32 Kind = D->Kind, Format = D->Format, Channels = D->Channels, Flags = D->Flags;
  u32 Bytes = tx::channelBytes(Format);
  if ((Kind != tx::Linear && Kind != tx::Pitch2D && Kind != tx::Array) || Bytes == 0 ||
      Channels == 0 || Channels > 4)
    return false;
  F.D = D;
  F.Normalized = (Flags & tx::ReadNormalizedFloat) && Bytes < 4;
  F.AsFloat = Format == tx::Half || Format == tx::Float || F.Normalized;
  F.Linear = Gather || (F.AsFloat && D->Filter == tx::LinearFilter);
  // A cube map's face is addressed with normalized coordinates, clamped (cubeFace).
  bool NormCoords = Cube || (Flags & tx::NormalizedCoordinates);
  bool Layered = Cube || (Flags & tx::Layered);
  u64 Sizes[3] = {D->Width, Kind == tx::Linear ? 1 : D->Height, Kind == tx::Linear ? 1 : D->Depth};
  for (u32 K = 0; K < 3; ++K) {
    u64 N = Sizes[K] ? Sizes[K] : 1;
    if (N > 0x40000000u)
      return false;
    Taps &T = F.T[K];
    if (K < Dims && !(Layered && K == 2)) {
      T = taps(Coords[K], s32(N), Cube ? u32(tx::Clamp) : D->Address[K], NormCoords, F.Linear);
      continue;
    }
    // A dimension the fetch does not address: the layer's slice of a layered texture (the
    // index clamped to the layers there are), otherwise 0.
    s32 I = Layered && K == 2 ? (Layer < 0 ? 0 : u64(Layer) >= N ? s32(N - 1) : Layer) : 0;
    T.I[0] = T.I[1] = I;
    T.In[0] = T.In[1] = true;
    T.Alpha = 0.0f;
  }
  for (u32 C = 0; C < 4; ++C) {
    float V = D->BorderColor[C];
    F.Border[C] = F.AsFloat ? bits(V) : u32(s32(V));
  }
  return true;
}

// A cube map's face and the coordinates within it of the direction (X, Y, Z), as the CUDA
// Programming Guide's "Cubemap Textures" defines them: the face of the coordinate of largest
// magnitude m (+x, -x, +y, -y, +z, -z: 0 to 5), addressed at ((s / m + 1) / 2, (t / m + 1) / 2)
// with (s, t) = (-z, -y), (z, -y), (x, z), (x, -z), (x, -y), (-x, -y) on the six faces. Where two
// magnitudes are equal (the guide leaves it open) x wins over y and y over z.
u32 cubeFace(float X, float Y, float Z, float &U, float &V) {
  float AX = __builtin_fabsf(X), AY = __builtin_fabsf(Y), AZ = __builtin_fabsf(Z);
  u32 Face;
  float M, S, T;
  if (AX >= AY && AX >= AZ) {
    Face = X >= 0.0f ? 0 : 1;
    M = AX;
    S = X >= 0.0f ? -Z : Z;
    T = -Y;
  } else if (AY >= AZ) {
    Face = Y >= 0.0f ? 2 : 3;
    M = AY;
    S = X;
    T = Y >= 0.0f ? Z : -Z;
  } else {
    Face = Z >= 0.0f ? 4 : 5;
    M = AZ;
    S = Z >= 0.0f ? X : -X;
    T = -Y;
  }
  U = (S / M + 1.0f) * 0.5f;
  V = (T / M + 1.0f) * 0.5f;
  return Face;
}

} // namespace

// tex.{1d,2d,3d,a1d,a2d}.v4.{f32,s32,u32}.f32 d, [t, {...}] on a texture object (CUDA's tex1D,
// tex2D, tex3D, tex1DLayered, tex2DLayered on CUDA arrays and pitched memory): the texture
// sampled at the first Dims coordinates (in layer Layer of a layered texture), one register per
// channel, as element() reads them. Dims 4 is tex.cube/.acube: (X, Y, Z) is a direction, and the
// face it points to is sampled (cubeFace) with normalized, clamped coordinates, filtered within
// the face (not across its edges). Textures that read as floats (float and half formats, 8- and
// 16-bit integers in normalized-float read mode) are filtered linearly when the descriptor says
// so; the others are point-sampled. A texel outside the texture under the Border address mode
// reads the border color. A null handle or a descriptor of no known kind reads zeros.
REPTX_HELPER("reptx.tex.sample", u32x4, reptx_tex_sample,
             (u64 Handle, u32 Dims, s32 Layer, float X, float Y, float Z)) {
  u32x4 Zero = {0, 0, 0, 0};
  float Coords[3] = {X, Y, Z};
  Footprint F;
  bool Cube = Dims == 4;
  if (Cube) {
    // tex.cube/.acube (texCubemap, texCubemapLayered): the face's layer of cube Layer (the
    // nearest cube there is), sampled in two dimensions.
    if (!Handle)
      return Zero;
    u64 Cubes = reinterpret_cast<GlobalDescriptor *>(Handle)->Depth / 6;
    s32 Index = Layer < 0 || Cubes == 0 ? 0 : u64(Layer) >= Cubes ? s32(Cubes - 1) : Layer;
    Layer = Index * 6 + s32(cubeFace(X, Y, Z, Coords[0], Coords[1]));
    Dims = 2;
  }
  if (!footprint(Handle, Dims, Layer, Coords, /*Gather=*/false, F, Cube))
    return Zero;
  if (!F.Linear)
    return F.texel(0, 0, 0);
  // Sum over the 2^Dims texels of w = wx * wy * wz times the texel, x fastest, in this order
  // (the host references compute the same sum).
  float Sum[4];
  bool First = true;
  bool Layered = Cube || (F.D->Flags & tx::Layered);
  u32 Ny = Dims > 1 ? 2 : 1, Nz = Dims > 2 && !Layered ? 2 : 1;
  for (u32 C = 0; C < Nz; ++C)
    for (u32 B = 0; B < Ny; ++B)
      for (u32 A = 0; A < 2; ++A) {
        float W = A ? F.T[0].Alpha : 1.0f - F.T[0].Alpha;
        if (Ny > 1)
          W = W * (B ? F.T[1].Alpha : 1.0f - F.T[1].Alpha);
        if (Nz > 1)
          W = W * (C ? F.T[2].Alpha : 1.0f - F.T[2].Alpha);
        u32x4 E = F.texel(A, B, C);
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

// tld4.{r,g,b,a}.{2d,a2d}.v4.{f32,s32,u32}.f32 d, [t, {...}] (CUDA's tex2Dgather): channel Comp
// of the four texels that linear filtering at (X, Y) would blend, whatever the filter mode, in
// the PTX ISA's order (counter-clockwise from the lower left): (i0, j1), (i1, j1), (i1, j0),
// (i0, j0). Each reads as element() reads it; outside the texture, the border color's channel.
REPTX_HELPER("reptx.tex.gather", u32x4, reptx_tex_gather,
             (u64 Handle, u32 Comp, s32 Layer, float X, float Y)) {
  u32x4 Zero = {0, 0, 0, 0};
  float Coords[3] = {X, Y, 0.0f};
  Footprint F;
  if (Comp > 3 || !footprint(Handle, 2, Layer, Coords, /*Gather=*/true, F))
    return Zero;
  u32x4 E0 = F.texel(0, 1, 0), E1 = F.texel(1, 1, 0), E2 = F.texel(1, 0, 0), E3 = F.texel(0, 0, 0);
  u32x4 R;
  for (u32 C = 0; C < 4; ++C)
    if (C == Comp) {
      R[0] = E0[C];
      R[1] = E1[C];
      R[2] = E2[C];
      R[3] = E3[C];
    }
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
