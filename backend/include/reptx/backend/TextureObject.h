// Texture objects (CUDA's CUtexObject, PTX's texture handles in unified texture mode): the layout
// of the descriptor that a loader's cuTexObjectCreate writes to device memory and that the device
// helper library's texture fetches (backend/device/Texture.cpp) read. A texture object is the
// descriptor's device address. Header-only and freestanding (no library includes), so that the
// device helpers and host code share it.
//
// Descriptor layout (little-endian, 128 bytes, 8-byte aligned, in device memory):
//   0   u64 base          device address of element (0, 0, 0)
//   8   u64 width         elements in a row (for a linear texture: sizeInBytes / element bytes)
//   16  u32 kind          Kind below
//   20  u32 format        CUarray_format: 0x01 u8, 0x02 u16, 0x03 u32, 0x08 s8, 0x09 s16,
//                         0x0a s32, 0x10 half, 0x20 float
//   24  u32 channels      1, 2 or 4
//   28  u32 flags         Flags below
//   32  u64 height        rows (1 for a one-dimensional texture)
//   40  u64 depth         slices (1 below three dimensions)
//   48  u64 row pitch     bytes from one row to the next
//   56  u64 slice pitch   bytes from one slice to the next
//   64  u32 address[3]    AddressMode of each dimension (CUaddress_mode)
//   76  u32 filter        FilterMode (CUfilter_mode)
//   80  f32 border[4]     the border color (CUDA_TEXTURE_DESC::borderColor)
//   96  reserved (zero)
// Linear textures (what tex1Dfetch reads) use the first 32 bytes only.
#pragma once

namespace reptx::texture_object {

inline constexpr unsigned DescriptorBytes = 128;

enum Kind : unsigned {
  Linear = 1, // one-dimensional, element x at base + x * element bytes (tex1Dfetch only)
  // Sampled textures (tex.1d/2d/3d with float coordinates): element (x, y, z) at base + z * slice
  // pitch + y * row pitch + x * element bytes.
  Pitch2D = 2, // pitched linear memory (CU_RESOURCE_TYPE_PITCH2D)
  Array = 3,   // a CUDA array of one, two or three dimensions (CU_RESOURCE_TYPE_ARRAY)
};

enum Flags : unsigned {
  // 8- and 16-bit integer channels read as floats in [0, 1] (unsigned) or [-1, 1] (signed):
  // CUDA's cudaReadModeNormalizedFloat, i.e. a texture descriptor without
  // CU_TRSF_READ_AS_INTEGER. 32-bit integer channels are never converted.
  ReadNormalizedFloat = 1,
  // Float coordinates in [0, 1) span the texture (CU_TRSF_NORMALIZED_COORDINATES).
  NormalizedCoordinates = 2,
  // A layered CUDA array (CUDA_ARRAY3D_LAYERED): depth counts layers, and a layered fetch reads
  // one of them, filtering within it.
  Layered = 4,
  // A cube map (CUDA_ARRAY3D_CUBEMAP), layered too: six layers per cube, one per face in
  // CUarray_cubemap_face order (+x, -x, +y, -y, +z, -z).
  Cubemap = 8,
};

/// CUaddress_mode: what a coordinate outside the texture reads. Wrap and Mirror apply to
/// normalized coordinates only; with unnormalized ones they read as Clamp.
enum AddressMode : unsigned { Wrap = 0, Clamp = 1, Mirror = 2, Border = 3 };

/// CUfilter_mode. Linear filtering applies to textures that read as floats; the others are
/// point-sampled whatever the mode.
enum FilterMode : unsigned { PointFilter = 0, LinearFilter = 1 };

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
  unsigned long long Height, Depth, RowPitch, SlicePitch;
  unsigned Address[3], Filter;
  float BorderColor[4];
  unsigned Reserved[8];
};
static_assert(sizeof(Descriptor) == DescriptorBytes, "the descriptor is 128 bytes");

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
