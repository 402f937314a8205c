// Surface loads and stores (PTX ISA 9.7.11.1-2, suld.b and sust.b): the helpers behind
// @reptx.suld and @reptx.sust (ir/include/reptx/ir/Intrinsics.h). A surface object's descriptor is
// a texture object's (reptx/backend/TextureObject.h, kind Array), written by a loader's
// cuSurfObjectCreate; the x coordinate counts bytes, y rows and z slices (layers of a layered
// array). Data travels as the access's bytes in order, packed into four 32-bit words.
#include "Device.h"

#include "../include/reptx/backend/TextureObject.h"

namespace reptx::device {

namespace {

namespace tx = reptx::texture_object;

using GlobalDescriptor = __attribute__((address_space(1))) const tx::Descriptor;

// The out-of-range handling of suld.b/sust.b: .trap, .clamp, .zero.
enum Mode : u32 { Trap = 0, Clamp = 1, Zero = 2 };

u32 clampTo(s32 V, u64 Max) { return V < 0 ? 0 : u64(V) > Max ? u32(Max) : u32(V); }

// The address of an access of Bytes bytes at byte X of row Y of slice Z, or 0 when that is
// outside the surface (or the handle is no surface) and Mode is Zero. Under Clamp, the nearest
// access inside; under Trap, the kernel traps.
u64 address(u64 Handle, s32 X, s32 Y, s32 Z, u32 Bytes, u32 Mode) {
  GlobalDescriptor *D = reinterpret_cast<GlobalDescriptor *>(Handle);
  bool Valid = Handle && D->Kind == tx::Array;
  u64 RowBytes = Valid ? D->Width * D->Channels * tx::channelBytes(D->Format) : 0;
  u64 Height = Valid && D->Height ? D->Height : 1, Depth = Valid && D->Depth ? D->Depth : 1;
  bool Inside = Valid && RowBytes >= Bytes && X >= 0 && u64(X) + Bytes <= RowBytes && Y >= 0 &&
                u64(Y) < Height && Z >= 0 && u64(Z) < Depth;
  if (!Inside) {
    if (Mode == Trap || (Mode == Clamp && (!Valid || RowBytes < Bytes)))
      __builtin_trap();
    if (Mode == Zero)
      return 0;
    X = s32(clampTo(X, RowBytes - Bytes) / Bytes * Bytes);
    Y = s32(clampTo(Y, Height - 1));
    Z = s32(clampTo(Z, Depth - 1));
  }
  return D->Base + u64(Z) * D->SlicePitch + u64(Y) * D->RowPitch + u64(X);
}

} // namespace

// suld.b.{1d,2d,3d,a1d,a2d}[.v2,.v4].{b8,b16,b32,b64}.{trap,clamp,zero}: Count elements of
// ElemBytes bytes from the surface, their bytes in order in the result (zeros after them, and
// all zeros outside the surface under .zero).
REPTX_HELPER("reptx.suld", u32x4, reptx_suld,
             (u64 Handle, s32 X, s32 Y, s32 Z, u32 ElemBytes, u32 Count, u32 Mode)) {
  u32 W[4] = {0, 0, 0, 0};
  u64 P = address(Handle, X, Y, Z, ElemBytes * Count, Mode);
  if (P) {
    for (u32 E = 0; E < Count; ++E) {
      switch (ElemBytes) {
      case 1:
        W[E / 4] |= u32(reinterpret_cast<GlobalU8 *>(P)[E]) << (8 * (E % 4));
        break;
      case 2:
        W[E / 2] |= u32(reinterpret_cast<GlobalU16 *>(P)[E]) << (16 * (E % 2));
        break;
      case 4:
        W[E] = reinterpret_cast<GlobalU32 *>(P)[E];
        break;
      default: {
        u64 V = reinterpret_cast<GlobalU64 *>(P)[E];
        W[2 * E] = u32(V);
        W[2 * E + 1] = u32(V >> 32);
      }
      }
    }
  }
  u32x4 R = {W[0], W[1], W[2], W[3]};
  return R;
}

// sust.b.{1d,2d,3d,a1d,a2d}[.v2,.v4].{b8,b16,b32,b64}.{trap,clamp,zero}: stores Count elements of
// ElemBytes bytes, the first bytes of Data in order; nothing outside the surface under .zero.
REPTX_HELPER("reptx.sust", void, reptx_sust,
             (u64 Handle, s32 X, s32 Y, s32 Z, u32 ElemBytes, u32 Count, u32 Mode, u32x4 Data)) {
  u64 P = address(Handle, X, Y, Z, ElemBytes * Count, Mode);
  if (!P)
    return;
  u32 W[4] = {Data.x, Data.y, Data.z, Data.w};
  for (u32 E = 0; E < Count; ++E) {
    switch (ElemBytes) {
    case 1:
      reinterpret_cast<GlobalU8 *>(P)[E] = (unsigned char)(W[E / 4] >> (8 * (E % 4)));
      break;
    case 2:
      reinterpret_cast<GlobalU16 *>(P)[E] = (unsigned short)(W[E / 2] >> (16 * (E % 2)));
      break;
    case 4:
      reinterpret_cast<GlobalU32 *>(P)[E] = W[E];
      break;
    default:
      reinterpret_cast<GlobalU64 *>(P)[E] = u64(W[2 * E]) | u64(W[2 * E + 1]) << 32;
    }
  }
}

} // namespace reptx::device
