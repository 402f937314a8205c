// Texture objects (CUDA's CUtexObject, PTX's texture handles in unified texture mode): the layout
// of the descriptor that a loader's cuTexObjectCreate writes to device memory and that the device
// helper library's texture fetches (backend/device/Texture.cpp) read. A texture object is the
// descriptor's device address. Header-only and freestanding (no library includes), so that the
// device helpers and host code share it.
//
// Descriptor layout (little-endian, 64 bytes, 8-byte aligned, in device memory):
//   0   u64 base      device address of element 0
//   8   u64 width     elements (sizeInBytes / (format bytes * channels), rounded down)
//   16  u32 kind      Kind below
//   20  u32 format    CUarray_format: 0x01 u8, 0x02 u16, 0x03 u32, 0x08 s8, 0x09 s16, 0x0a s32,
//                     0x10 half, 0x20 float
//   24  u32 channels  1, 2 or 4
//   28  u32 flags     Flags below
//   32  reserved (zero)
// Only linear resources (CU_RESOURCE_TYPE_LINEAR, what tex1Dfetch reads) are described so far.
#pragma once

namespace reptx::texture_object {

inline constexpr unsigned DescriptorBytes = 64;

enum Kind : unsigned {
  Linear = 1, // one-dimensional, element x at base + x * element bytes
};

enum Flags : unsigned {
  // 8- and 16-bit integer channels read as floats in [0, 1] (unsigned) or [-1, 1] (signed):
  // CUDA's cudaReadModeNormalizedFloat, i.e. a texture descriptor without
  // CU_TRSF_READ_AS_INTEGER. 32-bit integer channels are never converted.
  ReadNormalizedFloat = 1,
};

enum Format : unsigned {
  UInt8 = 0x01,
  UInt16 = 0x02,
  UInt32 = 0x03,
  SInt8 = 0x08,
  SInt16 = 0x09,
  SInt32 = 0x0a,
  Half = 0x10,
  Float = 0x20,
};

/// The descriptor as both sides see it (little-endian hosts and AMDGPU alike).
struct Descriptor {
  unsigned long long Base, Width;
  unsigned Kind, Format, Channels, Flags;
  unsigned Reserved[8];
};
static_assert(sizeof(Descriptor) == DescriptorBytes, "the descriptor is 64 bytes");

/// Bytes of one channel of a format, 0 for a format the descriptor does not describe.
constexpr unsigned channelBytes(unsigned F) {
  switch (F) {
  case UInt8:
  case SInt8:
    return 1;
  case UInt16:
  case SInt16:
  case Half:
    return 2;
  case UInt32:
  case SInt32:
  case Float:
    return 4;
  default:
    return 0;
  }
}

} // namespace reptx::texture_object
