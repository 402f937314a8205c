// Texture fetches (PTX ISA 9.7.10.3, tex): the helper behind @reptx.tex.1d.fetch
// (ir/include/reptx/ir/Intrinsics.h), which reads a texture object's descriptor
// (reptx/backend/TextureObject.h) and then the element, converted as the texture unit does.
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

} // namespace

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
  u64 P = D->Base + u64(X) * Channels * Bytes;
  R[3] = AsFloat ? bits(1.0f) : 1;
  R[0] = channel(P, Format, 0, Normalized);
  if (Channels > 1)
    R[1] = channel(P, Format, 1, Normalized);
  if (Channels > 2) {
    R[2] = channel(P, Format, 2, Normalized);
    R[3] = channel(P, Format, 3, Normalized);
  }
  return R;
}

} // namespace reptx::device
