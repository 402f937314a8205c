// CUDA arrays (CUDA Driver API, "Memory Management"), texture objects ("Texture Object
// Management") and surface objects ("Surface Object Management"). A CUDA array is a device
// allocation with dense rows (Driver.h's ArrayMemory), which the 2D/3D copies and
// cuMemcpy{HtoA,AtoH,DtoA,AtoD} (ApiMemory.cpp) address; layered arrays keep their layers as
// slices, and cube maps their faces as six layers per cube; sparse and other special arrays are
// not supported. cuTexObjectCreate and
// cuSurfObjectCreate write the object's descriptor (reptx/backend/TextureObject.h) to device
// memory, and the object is its device address, which the compiled kernels' texture and surface
// instructions (backend/device/Texture.cpp, Surface.cpp) read: linear memory (tex1Dfetch),
// pitched 2D memory and CUDA arrays (tex1D/tex2D/tex3D, layered, cube maps, gathers, with the
// sampler state of the texture descriptor), arrays for surfaces. Mipmapped arrays, resource views
// and sRGB textures are not supported (CUDA_ERROR_NOT_SUPPORTED, logged with the reason).
#include "Driver.h"
#include "Trace.h"

#include "reptx/backend/TextureObject.h"

#include <map>
#include <memory>
#include <mutex>

using namespace reptx::loader;
namespace tx = reptx::texture_object;

namespace {

// A texture or surface object: its resource (and sampler) as created.
struct TextureObject {
  Device *Dev = nullptr;
  CUDA_RESOURCE_DESC Res{};
  CUDA_TEXTURE_DESC Tex{};
  bool Surface = false;
};

std::mutex TextureMutex;
std::map<CUtexObject, TextureObject> &textures() {
  static auto *M = new std::map<CUtexObject, TextureObject>;
  return *M;
}

bool knownFormat(int F) { return tx::channelBytes(unsigned(F)) != 0; }

// ------------------------------------------------------------------------------ CUDA arrays

struct ArrayRecord {
  Device *Dev = nullptr;
  ArrayMemory Memory;
};

std::mutex ArrayMutex;
std::map<CUarray, std::unique_ptr<ArrayRecord>> &arrays() {
  static auto *M = new std::map<CUarray, std::unique_ptr<ArrayRecord>>;
  return *M;
}

// CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE{1D,2D,3D}_* (ApiDevice.cpp): the largest array of each
// dimension count.
constexpr size_t MaxArray1D = 131072, MaxArray2D = 65536, MaxArray3D = 16384;
// CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE{1D,2D}_LAYERED_*: a layered array's width and height, and
// its layers.
constexpr size_t MaxLayered = 32768, MaxLayers = 2048;
// CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_*: a cube map's width (= height), and the layers
// (six per cube) of a layered one.
constexpr size_t MaxCubemap = 32768, MaxCubemapLayers = 2046;

CUresult createArray(CUarray *Handle, const CUDA_ARRAY3D_DESCRIPTOR &Desc) {
  Context *C;
  if (CUresult R = currentOrError(C))
    return R;
  if (!Handle)
    return CUDA_ERROR_INVALID_VALUE;
  constexpr unsigned Supported = CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_SURFACE_LDST |
                                 CUDA_ARRAY3D_TEXTURE_GATHER | CUDA_ARRAY3D_CUBEMAP;
  if (Desc.Flags & ~Supported) {
    log().warn("cuArray3DCreate: array flags {:#x} are not supported by reptx (sparse, "
               "depth-texture and other special arrays)",
               Desc.Flags & ~Supported);
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  if (!knownFormat(Desc.Format)) {
    log().warn("cuArray3DCreate: array format {:#x} is not supported by reptx (8-, 16- and 32-bit "
               "integers, half and float are)",
               int(Desc.Format));
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  // A layered array has Depth layers of one or two dimensions; a cube map, six square layers (its
  // faces), and a layered one six per cube.
  size_t W = Desc.Width, H = Desc.Height, D = Desc.Depth;
  bool Layered = Desc.Flags & CUDA_ARRAY3D_LAYERED;
  if ((Desc.NumChannels != 1 && Desc.NumChannels != 2 && Desc.NumChannels != 4) || W == 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (Desc.Flags & CUDA_ARRAY3D_CUBEMAP) {
    if (W != H || W > MaxCubemap || D % 6 != 0 || D == 0 ||
        (Layered ? D > MaxCubemapLayers : D != 6))
      return CUDA_ERROR_INVALID_VALUE;
  } else {
    size_t Max = Layered ? MaxLayered : D ? MaxArray3D : H ? MaxArray2D : MaxArray1D;
    if (W > Max || H > Max || (Layered ? D == 0 || D > MaxLayers : (D && !H) || D > Max))
      return CUDA_ERROR_INVALID_VALUE;
  }
  auto Rec = std::make_unique<ArrayRecord>();
  Rec->Dev = C->Dev;
  ArrayMemory &M = Rec->Memory;
  M.Desc = Desc;
  M.RowBytes = W * Desc.NumChannels * tx::channelBytes(unsigned(Desc.Format));
  M.Height = H ? H : 1;
  M.Depth = D ? D : 1;
  auto A = C->Dev->Backend->allocate(M.RowBytes * M.Height * M.Depth);
  if (!A) {
    log().warn("cuArray3DCreate: {}", llvm::toString(A.takeError()));
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  M.Base = *A;
  CUarray Key = reinterpret_cast<CUarray>(Rec.get());
  std::lock_guard<std::mutex> L(ArrayMutex);
  arrays()[Key] = std::move(Rec);
  *Handle = Key;
  return CUDA_SUCCESS;
}

} // namespace

bool reptx::loader::arrayMemory(CUarray A, ArrayMemory &Out) {
  std::lock_guard<std::mutex> L(ArrayMutex);
  auto It = arrays().find(A);
  if (It == arrays().end())
    return false;
  Out = It->second->Memory;
  return true;
}

CUresult cuArray3DCreate_v2(CUarray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR *pAllocateArray) {
  REPTX_TRACE(cuArray3DCreate_v2, pHandle, pAllocateArray);
  if (!pAllocateArray)
    return CUDA_ERROR_INVALID_VALUE;
  return createArray(pHandle, *pAllocateArray);
}

CUresult cuArrayCreate_v2(CUarray *pHandle, const CUDA_ARRAY_DESCRIPTOR *pAllocateArray) {
  REPTX_TRACE(cuArrayCreate_v2, pHandle, pAllocateArray);
  if (!pAllocateArray)
    return CUDA_ERROR_INVALID_VALUE;
  CUDA_ARRAY3D_DESCRIPTOR D{};
  D.Width = pAllocateArray->Width;
  D.Height = pAllocateArray->Height;
  D.Format = pAllocateArray->Format;
  D.NumChannels = pAllocateArray->NumChannels;
  return createArray(pHandle, D);
}

CUresult cuArrayDestroy(CUarray hArray) {
  REPTX_TRACE(cuArrayDestroy, hArray);
  std::unique_ptr<ArrayRecord> Rec;
  {
    std::lock_guard<std::mutex> L(ArrayMutex);
    auto It = arrays().find(hArray);
    if (It == arrays().end())
      return CUDA_ERROR_INVALID_HANDLE;
    Rec = std::move(It->second);
    arrays().erase(It);
  }
  if (llvm::Error E = Rec->Dev->Backend->release(Rec->Memory.Base))
    log().warn("cuArrayDestroy: {}", llvm::toString(std::move(E)));
  return CUDA_SUCCESS;
}

namespace {
// The description of a live array into *Out, as Convert makes it from the 3D one.
template <class Desc, class Fn> CUresult describeArray(Desc *Out, CUarray A, Fn Convert) {
  ArrayMemory M;
  if (!arrayMemory(A, M))
    return CUDA_ERROR_INVALID_HANDLE;
  if (!Out)
    return CUDA_ERROR_INVALID_VALUE;
  *Out = Convert(M.Desc);
  return CUDA_SUCCESS;
}
} // namespace

CUresult cuArray3DGetDescriptor_v2(CUDA_ARRAY3D_DESCRIPTOR *pArrayDescriptor, CUarray hArray) {
  REPTX_TRACE(cuArray3DGetDescriptor_v2, pArrayDescriptor, hArray);
  return describeArray(pArrayDescriptor, hArray,
                       [](const CUDA_ARRAY3D_DESCRIPTOR &D) { return D; });
}

CUresult cuArrayGetDescriptor_v2(CUDA_ARRAY_DESCRIPTOR *pArrayDescriptor, CUarray hArray) {
  REPTX_TRACE(cuArrayGetDescriptor_v2, pArrayDescriptor, hArray);
  return describeArray(pArrayDescriptor, hArray, [](const CUDA_ARRAY3D_DESCRIPTOR &D) {
    return CUDA_ARRAY_DESCRIPTOR{D.Width, D.Height, D.Format, D.NumChannels};
  });
}

namespace {

// --------------------------------------------------------------------------- texture objects

// The descriptor of a linear resource, or an error (logged for what CUDA supports and reptx not).
CUresult linearDescriptor(const CUDA_RESOURCE_DESC &R, const CUDA_TEXTURE_DESC &T,
                          tx::Descriptor &Out) {
  const auto &L = R.res.linear;
  if (!knownFormat(L.format)) {
    log().warn("cuTexObjectCreate: array format {:#x} is not supported by reptx (8-, 16- and "
               "32-bit integers, half and float are)",
               int(L.format));
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  if (L.devPtr == 0 || L.devPtr % TextureAlignment != 0 ||
      (L.numChannels != 1 && L.numChannels != 2 && L.numChannels != 4))
    return CUDA_ERROR_INVALID_VALUE;
  uint64_t Width = L.sizeInBytes / (tx::channelBytes(unsigned(L.format)) * L.numChannels);
  if (Width == 0 || Width > uint64_t(MaxLinearTextureWidth))
    return CUDA_ERROR_INVALID_VALUE;
  Out = {};
  Out.Base = L.devPtr;
  Out.Width = Width;
  Out.Kind = tx::Linear;
  Out.Format = unsigned(L.format);
  Out.Channels = L.numChannels;
  Out.Flags = (T.flags & CU_TRSF_READ_AS_INTEGER) ? 0u : unsigned(tx::ReadNormalizedFloat);
  return CUDA_SUCCESS;
}

// The descriptor of a sampled texture (a CUDA array or pitched 2D memory): the memory from R,
// the sampler state from T.
CUresult sampledDescriptor(const CUDA_RESOURCE_DESC &R, const CUDA_TEXTURE_DESC &T,
                           tx::Descriptor &Out) {
  Out = {};
  if (R.resType == CU_RESOURCE_TYPE_ARRAY) {
    ArrayMemory M;
    if (!arrayMemory(R.res.array.hArray, M))
      return CUDA_ERROR_INVALID_HANDLE;
    Out.Kind = tx::Array;
    Out.Base = M.Base;
    Out.Format = unsigned(M.Desc.Format);
    Out.Channels = M.Desc.NumChannels;
    Out.Width = M.Desc.Width;
    Out.Height = M.Height;
    Out.Depth = M.Depth;
    Out.RowPitch = M.RowBytes;
    Out.SlicePitch = M.RowBytes * M.Height;
    if (M.Desc.Flags & CUDA_ARRAY3D_LAYERED)
      Out.Flags = tx::Layered;
    if (M.Desc.Flags & CUDA_ARRAY3D_CUBEMAP)
      Out.Flags = tx::Layered | tx::Cubemap;
  } else {
    const auto &P = R.res.pitch2D;
    if (!knownFormat(P.format)) {
      log().warn("cuTexObjectCreate: array format {:#x} is not supported by reptx", int(P.format));
      return CUDA_ERROR_NOT_SUPPORTED;
    }
    if (P.devPtr == 0 || P.devPtr % TextureAlignment != 0 ||
        (P.numChannels != 1 && P.numChannels != 2 && P.numChannels != 4) || P.width == 0 ||
        P.height == 0 || P.pitchInBytes % TexturePitchAlignment != 0 ||
        P.width * P.numChannels * tx::channelBytes(unsigned(P.format)) > P.pitchInBytes ||
        P.width > MaxArray2D || P.height > MaxArray2D)
      return CUDA_ERROR_INVALID_VALUE;
    Out.Kind = tx::Pitch2D;
    Out.Base = P.devPtr;
    Out.Format = unsigned(P.format);
    Out.Channels = P.numChannels;
    Out.Width = P.width;
    Out.Height = P.height;
    Out.Depth = 1;
    Out.RowPitch = P.pitchInBytes;
    Out.SlicePitch = P.pitchInBytes * P.height;
  }
  if (T.flags & CU_TRSF_SRGB) {
    log().warn("cuTexObjectCreate: sRGB textures are not supported by reptx");
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  if (T.flags & CU_TRSF_SEAMLESS_CUBEMAP) {
    log().warn("cuTexObjectCreate: seamless cube-map filtering is not supported by reptx (it "
               "filters within a face)");
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  for (unsigned K = 0; K < 3; ++K) {
    if (T.addressMode[K] < CU_TR_ADDRESS_MODE_WRAP || T.addressMode[K] > CU_TR_ADDRESS_MODE_BORDER)
      return CUDA_ERROR_INVALID_VALUE;
    Out.Address[K] = unsigned(T.addressMode[K]);
  }
  if (T.filterMode != CU_TR_FILTER_MODE_POINT && T.filterMode != CU_TR_FILTER_MODE_LINEAR)
    return CUDA_ERROR_INVALID_VALUE;
  Out.Filter = T.filterMode == CU_TR_FILTER_MODE_LINEAR ? tx::LinearFilter : tx::PointFilter;
  Out.Flags |=
      ((T.flags & CU_TRSF_READ_AS_INTEGER) ? 0u : unsigned(tx::ReadNormalizedFloat)) |
      ((T.flags & CU_TRSF_NORMALIZED_COORDINATES) ? unsigned(tx::NormalizedCoordinates) : 0u);
  for (unsigned K = 0; K < 4; ++K)
    Out.BorderColor[K] = T.borderColor[K];
  return CUDA_SUCCESS;
}

// Writes D to a device allocation of its own, whose address is the new object *Handle.
CUresult publish(Context *C, const tx::Descriptor &D, const TextureObject &Object,
                 unsigned long long *Handle, const char *Api) {
  ExecBackend &B = *C->Dev->Backend;
  auto A = B.allocate(sizeof(D));
  if (!A) {
    log().warn("{}: {}", Api, llvm::toString(A.takeError()));
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  if (llvm::Error E = B.copyToDevice(*A, &D, sizeof(D))) {
    log().warn("{}: {}", Api, llvm::toString(std::move(E)));
    llvm::consumeError(B.release(*A));
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  std::lock_guard<std::mutex> L(TextureMutex);
  textures()[*A] = Object;
  *Handle = *A;
  return CUDA_SUCCESS;
}

// Frees a live texture (or surface) object and its descriptor.
CUresult destroy(unsigned long long Handle, bool Surface, const char *Api) {
  TextureObject T;
  {
    std::lock_guard<std::mutex> L(TextureMutex);
    auto It = textures().find(Handle);
    if (It == textures().end() || It->second.Surface != Surface)
      return CUDA_ERROR_INVALID_VALUE;
    T = It->second;
    textures().erase(It);
  }
  if (llvm::Error E = T.Dev->Backend->release(Handle))
    log().warn("{}({:#x}): {}", Api, Handle, llvm::toString(std::move(E)));
  return CUDA_SUCCESS;
}

// A descriptor of a live texture (or surface) object, as it was given when it was created.
template <typename Desc>
CUresult describe(Desc *Out, unsigned long long Object, Desc TextureObject::*Field,
                  bool Surface = false) {
  std::lock_guard<std::mutex> L(TextureMutex);
  auto It = textures().find(Object);
  if (!Out || It == textures().end() || It->second.Surface != Surface)
    return CUDA_ERROR_INVALID_VALUE;
  *Out = It->second.*Field;
  return CUDA_SUCCESS;
}

} // namespace

CUresult cuTexObjectCreate(CUtexObject *pTexObject, const CUDA_RESOURCE_DESC *pResDesc,
                           const CUDA_TEXTURE_DESC *pTexDesc,
                           const CUDA_RESOURCE_VIEW_DESC *pResViewDesc) {
  REPTX_TRACE(cuTexObjectCreate, pTexObject, pResDesc, pTexDesc, pResViewDesc);
  Context *C;
  if (CUresult R = currentOrError(C))
    return R;
  if (!pTexObject || !pResDesc || !pTexDesc || pResDesc->flags != 0)
    return CUDA_ERROR_INVALID_VALUE;
  CUresourcetype Type = pResDesc->resType;
  if (Type != CU_RESOURCE_TYPE_LINEAR && Type != CU_RESOURCE_TYPE_PITCH2D &&
      Type != CU_RESOURCE_TYPE_ARRAY) {
    log().warn("cuTexObjectCreate: resource type {} is not supported by reptx (linear memory, "
               "pitched 2D memory and CUDA arrays are; mipmapped arrays are not)",
               int(Type));
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  if (pResViewDesc) {
    // A resource view describes arrays only.
    if (Type != CU_RESOURCE_TYPE_ARRAY)
      return CUDA_ERROR_INVALID_VALUE;
    log().warn("cuTexObjectCreate: resource views are not supported by reptx");
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  tx::Descriptor D;
  if (CUresult R = Type == CU_RESOURCE_TYPE_LINEAR ? linearDescriptor(*pResDesc, *pTexDesc, D)
                                                   : sampledDescriptor(*pResDesc, *pTexDesc, D))
    return R;
  return publish(C, D, {C->Dev, *pResDesc, *pTexDesc, /*Surface=*/false}, pTexObject,
                 "cuTexObjectCreate");
}

CUresult cuTexObjectDestroy(CUtexObject texObject) {
  REPTX_TRACE(cuTexObjectDestroy, texObject);
  return destroy(texObject, /*Surface=*/false, "cuTexObjectDestroy");
}

CUresult cuTexObjectGetResourceDesc(CUDA_RESOURCE_DESC *pResDesc, CUtexObject texObject) {
  REPTX_TRACE(cuTexObjectGetResourceDesc, pResDesc, texObject);
  return describe(pResDesc, texObject, &TextureObject::Res);
}

CUresult cuTexObjectGetTextureDesc(CUDA_TEXTURE_DESC *pTexDesc, CUtexObject texObject) {
  REPTX_TRACE(cuTexObjectGetTextureDesc, pTexDesc, texObject);
  return describe(pTexDesc, texObject, &TextureObject::Tex);
}

CUresult cuTexObjectGetResourceViewDesc(CUDA_RESOURCE_VIEW_DESC *pResViewDesc,
                                        CUtexObject texObject) {
  REPTX_TRACE(cuTexObjectGetResourceViewDesc, pResViewDesc, texObject);
  // No texture object has a resource view (cuTexObjectCreate refuses them): CUDA's answer for a
  // texture object made without one.
  (void)pResViewDesc;
  (void)texObject;
  return CUDA_ERROR_INVALID_VALUE;
}

// Surface objects ("Surface Object Management"): a CUDA array made with CUDA_ARRAY3D_SURFACE_LDST,
// described as a texture over it is (suld/sust address its bytes: backend/device/Surface.cpp).
CUresult cuSurfObjectCreate(CUsurfObject *pSurfObject, const CUDA_RESOURCE_DESC *pResDesc) {
  REPTX_TRACE(cuSurfObjectCreate, pSurfObject, pResDesc);
  Context *C;
  if (CUresult R = currentOrError(C))
    return R;
  if (!pSurfObject || !pResDesc || pResDesc->flags != 0 ||
      pResDesc->resType != CU_RESOURCE_TYPE_ARRAY)
    return CUDA_ERROR_INVALID_VALUE;
  ArrayMemory M;
  if (!arrayMemory(pResDesc->res.array.hArray, M))
    return CUDA_ERROR_INVALID_HANDLE;
  if (!(M.Desc.Flags & CUDA_ARRAY3D_SURFACE_LDST))
    return CUDA_ERROR_INVALID_VALUE;
  CUDA_TEXTURE_DESC Plain{};
  Plain.flags = CU_TRSF_READ_AS_INTEGER;
  tx::Descriptor D;
  if (CUresult R = sampledDescriptor(*pResDesc, Plain, D))
    return R;
  return publish(C, D, {C->Dev, *pResDesc, Plain, /*Surface=*/true}, pSurfObject,
                 "cuSurfObjectCreate");
}

CUresult cuSurfObjectDestroy(CUsurfObject surfObject) {
  REPTX_TRACE(cuSurfObjectDestroy, surfObject);
  return destroy(surfObject, /*Surface=*/true, "cuSurfObjectDestroy");
}

CUresult cuSurfObjectGetResourceDesc(CUDA_RESOURCE_DESC *pResDesc, CUsurfObject surfObject) {
  REPTX_TRACE(cuSurfObjectGetResourceDesc, pResDesc, surfObject);
  return describe(pResDesc, surfObject, &TextureObject::Res, /*Surface=*/true);
}

// ------------------------------------------------------------------- texture and surface
// references

namespace {

// A texture (surface) reference: what cuTexRefSet* (cuSurfRefSetArray) bound and set, the
// descriptor made from it in a device allocation of its own, and the module variable (Slot) that
// kernels read the descriptor's address from.
struct Reference {
  Device *Dev = nullptr;
  CUdeviceptr Slot = 0;
  bool Surface = false;
  CUresourcetype Bound = CU_RESOURCE_TYPE_MIPMAPPED_ARRAY; // nothing bound yet
  CUarray Array = nullptr;
  CUdeviceptr Address = 0;
  size_t Bytes = 0, Width = 0, Height = 0, Pitch = 0;
  CUarray_format Format = CU_AD_FORMAT_FLOAT;
  unsigned Channels = 1;
  CUDA_TEXTURE_DESC Tex{};
  CUdeviceptr Descriptor = 0;
};

std::mutex ReferenceMutex;
std::map<std::pair<const void *, std::string>, std::unique_ptr<Reference>> &references() {
  static auto *M = new std::map<std::pair<const void *, std::string>, std::unique_ptr<Reference>>;
  return *M;
}

Reference *asReference(const void *H, bool Surface) {
  for (auto &[Key, R] : references())
    if (R.get() == H)
      return R->Surface == Surface ? R.get() : nullptr;
  return nullptr;
}

// Rebuilds R's descriptor from its settings and stores its address in the module variable (0
// while nothing is bound). A linear texture reference may start anywhere: CUDA's byte offset
// for addresses that are not texture-aligned is 0 here. Called with ReferenceMutex held.
CUresult publishReference(Reference &R, const char *Api) {
  tx::Descriptor D{};
  CUresult Result = CUDA_SUCCESS;
  bool Bound = true;
  switch (R.Bound) {
  case CU_RESOURCE_TYPE_LINEAR: {
    uint64_t Element = uint64_t(tx::channelBytes(unsigned(R.Format))) * R.Channels;
    D.Base = R.Address;
    D.Width = Element ? R.Bytes / Element : 0;
    D.Kind = tx::Linear;
    D.Format = unsigned(R.Format);
    D.Channels = R.Channels;
    D.Flags = (R.Tex.flags & CU_TRSF_READ_AS_INTEGER) ? 0u : unsigned(tx::ReadNormalizedFloat);
    break;
  }
  case CU_RESOURCE_TYPE_ARRAY:
  case CU_RESOURCE_TYPE_PITCH2D: {
    CUDA_RESOURCE_DESC Res{};
    Res.resType = R.Bound;
    if (R.Bound == CU_RESOURCE_TYPE_ARRAY) {
      Res.res.array.hArray = R.Array;
    } else {
      Res.res.pitch2D = {R.Address, R.Format, R.Channels, R.Width, R.Height, R.Pitch};
    }
    Result = sampledDescriptor(Res, R.Tex, D);
    break;
  }
  default:
    Bound = false;
  }
  if (Result != CUDA_SUCCESS)
    return Result;
  ExecBackend &B = *R.Dev->Backend;
  if (Bound && !R.Descriptor) {
    auto A = B.allocate(sizeof(D));
    if (!A) {
      log().warn("{}: {}", Api, llvm::toString(A.takeError()));
      return CUDA_ERROR_OUT_OF_MEMORY;
    }
    R.Descriptor = *A;
  }
  uint64_t Handle = Bound ? R.Descriptor : 0;
  llvm::Error E = Bound ? B.copyToDevice(R.Descriptor, &D, sizeof(D)) : llvm::Error::success();
  if (!E && R.Slot)
    E = B.copyToDevice(R.Slot, &Handle, sizeof(Handle));
  if (E) {
    log().warn("{}: {}", Api, llvm::toString(std::move(E)));
    return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

// Runs Change on the texture (surface) reference H under the lock, then republishes it.
template <class Fn>
CUresult changeReference(const void *H, bool Surface, const char *Api, Fn Change) {
  std::lock_guard<std::mutex> L(ReferenceMutex);
  Reference *R = asReference(H, Surface);
  if (!R)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult Res = Change(*R))
    return Res;
  return publishReference(*R, Api);
}

// Reads a setting of the texture (surface) reference H under the lock.
template <class Fn> CUresult readReference(const void *H, bool Surface, Fn Read) {
  std::lock_guard<std::mutex> L(ReferenceMutex);
  Reference *R = asReference(H, Surface);
  if (!R)
    return CUDA_ERROR_INVALID_VALUE;
  return Read(*R);
}

bool validChannels(int N) { return N == 1 || N == 2 || N == 4; }

} // namespace

void *reptx::loader::moduleReference(const void *Lib, const std::string &Name, Device *Dev,
                                     CUdeviceptr Slot, bool Surface) {
  std::lock_guard<std::mutex> L(ReferenceMutex);
  auto &R = references()[{Lib, Name}];
  if (!R) {
    R = std::make_unique<Reference>();
    R->Dev = Dev;
    R->Slot = Slot;
    R->Surface = Surface;
  }
  return R.get();
}

CUresult cuTexRefSetArray(CUtexref hTexRef, CUarray hArray, unsigned int Flags) {
  REPTX_TRACE(cuTexRefSetArray, hTexRef, hArray, Flags);
  ArrayMemory M;
  if (Flags != CU_TRSA_OVERRIDE_FORMAT || !arrayMemory(hArray, M))
    return CUDA_ERROR_INVALID_VALUE;
  return changeReference(hTexRef, false, "cuTexRefSetArray", [&](Reference &R) {
    R.Bound = CU_RESOURCE_TYPE_ARRAY;
    R.Array = hArray;
    R.Format = M.Desc.Format;
    R.Channels = M.Desc.NumChannels;
    return CUDA_SUCCESS;
  });
}

CUresult cuTexRefSetAddress_v2(size_t *ByteOffset, CUtexref hTexRef, CUdeviceptr dptr,
                               size_t bytes) {
  REPTX_TRACE(cuTexRefSetAddress_v2, ByteOffset, hTexRef, dptr, bytes);
  if (bytes > size_t(MaxLinearTextureWidth) * 16)
    return CUDA_ERROR_INVALID_VALUE;
  CUresult Res = changeReference(hTexRef, false, "cuTexRefSetAddress", [&](Reference &R) {
    // Address 0 unbinds the reference.
    R.Bound = dptr ? CU_RESOURCE_TYPE_LINEAR : CU_RESOURCE_TYPE_MIPMAPPED_ARRAY;
    R.Address = dptr;
    R.Bytes = bytes;
    R.Array = nullptr;
    return CUDA_SUCCESS;
  });
  if (Res == CUDA_SUCCESS && ByteOffset)
    *ByteOffset = 0;
  return Res;
}

CUresult cuTexRefSetAddress2D_v3(CUtexref hTexRef, const CUDA_ARRAY_DESCRIPTOR *desc,
                                 CUdeviceptr dptr, size_t Pitch) {
  REPTX_TRACE(cuTexRefSetAddress2D_v3, hTexRef, desc, dptr, Pitch);
  if (!desc || !knownFormat(desc->Format) || !validChannels(int(desc->NumChannels)))
    return CUDA_ERROR_INVALID_VALUE;
  return changeReference(hTexRef, false, "cuTexRefSetAddress2D", [&](Reference &R) {
    R.Bound = CU_RESOURCE_TYPE_PITCH2D;
    R.Address = dptr;
    R.Width = desc->Width;
    R.Height = desc->Height;
    R.Pitch = Pitch;
    R.Format = desc->Format;
    R.Channels = desc->NumChannels;
    R.Array = nullptr;
    return CUDA_SUCCESS;
  });
}

CUresult cuTexRefSetFormat(CUtexref hTexRef, CUarray_format fmt, int NumPackedComponents) {
  REPTX_TRACE(cuTexRefSetFormat, hTexRef, fmt, NumPackedComponents);
  if (!knownFormat(fmt) || !validChannels(NumPackedComponents))
    return CUDA_ERROR_INVALID_VALUE;
  return changeReference(hTexRef, false, "cuTexRefSetFormat", [&](Reference &R) {
    R.Format = fmt;
    R.Channels = unsigned(NumPackedComponents);
    return CUDA_SUCCESS;
  });
}

CUresult cuTexRefSetAddressMode(CUtexref hTexRef, int dim, CUaddress_mode am) {
  REPTX_TRACE(cuTexRefSetAddressMode, hTexRef, dim, am);
  if (dim < 0 || dim > 2 || am < CU_TR_ADDRESS_MODE_WRAP || am > CU_TR_ADDRESS_MODE_BORDER)
    return CUDA_ERROR_INVALID_VALUE;
  return changeReference(hTexRef, false, "cuTexRefSetAddressMode", [&](Reference &R) {
    R.Tex.addressMode[dim] = am;
    return CUDA_SUCCESS;
  });
}

CUresult cuTexRefSetFilterMode(CUtexref hTexRef, CUfilter_mode fm) {
  REPTX_TRACE(cuTexRefSetFilterMode, hTexRef, fm);
  if (fm != CU_TR_FILTER_MODE_POINT && fm != CU_TR_FILTER_MODE_LINEAR)
    return CUDA_ERROR_INVALID_VALUE;
  return changeReference(hTexRef, false, "cuTexRefSetFilterMode", [&](Reference &R) {
    R.Tex.filterMode = fm;
    return CUDA_SUCCESS;
  });
}

CUresult cuTexRefSetFlags(CUtexref hTexRef, unsigned int Flags) {
  REPTX_TRACE(cuTexRefSetFlags, hTexRef, Flags);
  if (Flags & CU_TRSF_SRGB) {
    log().warn("cuTexRefSetFlags: sRGB textures are not supported by reptx");
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  return changeReference(hTexRef, false, "cuTexRefSetFlags", [&](Reference &R) {
    R.Tex.flags = Flags;
    return CUDA_SUCCESS;
  });
}

CUresult cuTexRefSetBorderColor(CUtexref hTexRef, float *pBorderColor) {
  REPTX_TRACE(cuTexRefSetBorderColor, hTexRef, pBorderColor);
  if (!pBorderColor)
    return CUDA_ERROR_INVALID_VALUE;
  return changeReference(hTexRef, false, "cuTexRefSetBorderColor", [&](Reference &R) {
    for (unsigned K = 0; K < 4; ++K)
      R.Tex.borderColor[K] = pBorderColor[K];
    return CUDA_SUCCESS;
  });
}

// Mipmap and anisotropy settings: textures have one level and no anisotropic filtering, so they
// are kept only to be read back.
CUresult cuTexRefSetMipmapFilterMode(CUtexref hTexRef, CUfilter_mode fm) {
  REPTX_TRACE(cuTexRefSetMipmapFilterMode, hTexRef, fm);
  return changeReference(hTexRef, false, "cuTexRefSetMipmapFilterMode", [&](Reference &R) {
    R.Tex.mipmapFilterMode = fm;
    return CUDA_SUCCESS;
  });
}
CUresult cuTexRefSetMipmapLevelBias(CUtexref hTexRef, float bias) {
  REPTX_TRACE(cuTexRefSetMipmapLevelBias, hTexRef, bias);
  return changeReference(hTexRef, false, "cuTexRefSetMipmapLevelBias", [&](Reference &R) {
    R.Tex.mipmapLevelBias = bias;
    return CUDA_SUCCESS;
  });
}
CUresult cuTexRefSetMipmapLevelClamp(CUtexref hTexRef, float minMipmapLevelClamp,
                                     float maxMipmapLevelClamp) {
  REPTX_TRACE(cuTexRefSetMipmapLevelClamp, hTexRef, minMipmapLevelClamp, maxMipmapLevelClamp);
  return changeReference(hTexRef, false, "cuTexRefSetMipmapLevelClamp", [&](Reference &R) {
    R.Tex.minMipmapLevelClamp = minMipmapLevelClamp;
    R.Tex.maxMipmapLevelClamp = maxMipmapLevelClamp;
    return CUDA_SUCCESS;
  });
}
CUresult cuTexRefSetMaxAnisotropy(CUtexref hTexRef, unsigned int maxAniso) {
  REPTX_TRACE(cuTexRefSetMaxAnisotropy, hTexRef, maxAniso);
  return changeReference(hTexRef, false, "cuTexRefSetMaxAnisotropy", [&](Reference &R) {
    R.Tex.maxAnisotropy = maxAniso;
    return CUDA_SUCCESS;
  });
}

CUresult cuTexRefGetAddress_v2(CUdeviceptr *pdptr, CUtexref hTexRef) {
  REPTX_TRACE(cuTexRefGetAddress_v2, pdptr, hTexRef);
  return readReference(hTexRef, false, [&](Reference &R) {
    if (!pdptr || (R.Bound != CU_RESOURCE_TYPE_LINEAR && R.Bound != CU_RESOURCE_TYPE_PITCH2D))
      return CUDA_ERROR_INVALID_VALUE;
    *pdptr = R.Address;
    return CUDA_SUCCESS;
  });
}
CUresult cuTexRefGetArray(CUarray *phArray, CUtexref hTexRef) {
  REPTX_TRACE(cuTexRefGetArray, phArray, hTexRef);
  return readReference(hTexRef, false, [&](Reference &R) {
    if (!phArray || R.Bound != CU_RESOURCE_TYPE_ARRAY)
      return CUDA_ERROR_INVALID_VALUE;
    *phArray = R.Array;
    return CUDA_SUCCESS;
  });
}
CUresult cuTexRefGetFormat(CUarray_format *pFormat, int *pNumChannels, CUtexref hTexRef) {
  REPTX_TRACE(cuTexRefGetFormat, pFormat, pNumChannels, hTexRef);
  return readReference(hTexRef, false, [&](Reference &R) {
    if (!pFormat)
      return CUDA_ERROR_INVALID_VALUE;
    *pFormat = R.Format;
    if (pNumChannels)
      *pNumChannels = int(R.Channels);
    return CUDA_SUCCESS;
  });
}
CUresult cuTexRefGetAddressMode(CUaddress_mode *pam, CUtexref hTexRef, int dim) {
  REPTX_TRACE(cuTexRefGetAddressMode, pam, hTexRef, dim);
  return readReference(hTexRef, false, [&](Reference &R) {
    if (!pam || dim < 0 || dim > 2)
      return CUDA_ERROR_INVALID_VALUE;
    *pam = R.Tex.addressMode[dim];
    return CUDA_SUCCESS;
  });
}
CUresult cuTexRefGetFilterMode(CUfilter_mode *pfm, CUtexref hTexRef) {
  REPTX_TRACE(cuTexRefGetFilterMode, pfm, hTexRef);
  return readReference(hTexRef, false, [&](Reference &R) {
    if (!pfm)
      return CUDA_ERROR_INVALID_VALUE;
    *pfm = R.Tex.filterMode;
    return CUDA_SUCCESS;
  });
}
CUresult cuTexRefGetFlags(unsigned int *pFlags, CUtexref hTexRef) {
  REPTX_TRACE(cuTexRefGetFlags, pFlags, hTexRef);
  return readReference(hTexRef, false, [&](Reference &R) {
    if (!pFlags)
      return CUDA_ERROR_INVALID_VALUE;
    *pFlags = R.Tex.flags;
    return CUDA_SUCCESS;
  });
}
CUresult cuTexRefGetBorderColor(float *pBorderColor, CUtexref hTexRef) {
  REPTX_TRACE(cuTexRefGetBorderColor, pBorderColor, hTexRef);
  return readReference(hTexRef, false, [&](Reference &R) {
    if (!pBorderColor)
      return CUDA_ERROR_INVALID_VALUE;
    for (unsigned K = 0; K < 4; ++K)
      pBorderColor[K] = R.Tex.borderColor[K];
    return CUDA_SUCCESS;
  });
}

CUresult cuSurfRefSetArray(CUsurfref hSurfRef, CUarray hArray, unsigned int Flags) {
  REPTX_TRACE(cuSurfRefSetArray, hSurfRef, hArray, Flags);
  ArrayMemory M;
  if (Flags != 0 || !arrayMemory(hArray, M) || !(M.Desc.Flags & CUDA_ARRAY3D_SURFACE_LDST))
    return CUDA_ERROR_INVALID_VALUE;
  return changeReference(hSurfRef, true, "cuSurfRefSetArray", [&](Reference &R) {
    R.Bound = CU_RESOURCE_TYPE_ARRAY;
    R.Array = hArray;
    R.Tex = {};
    R.Tex.flags = CU_TRSF_READ_AS_INTEGER;
    return CUDA_SUCCESS;
  });
}
CUresult cuSurfRefGetArray(CUarray *phArray, CUsurfref hSurfRef) {
  REPTX_TRACE(cuSurfRefGetArray, phArray, hSurfRef);
  return readReference(hSurfRef, true, [&](Reference &R) {
    if (!phArray || R.Bound != CU_RESOURCE_TYPE_ARRAY)
      return CUDA_ERROR_INVALID_VALUE;
    *phArray = R.Array;
    return CUDA_SUCCESS;
  });
}

CUresult cuDeviceGetTexture1DLinearMaxWidth(size_t *maxWidthInElements, CUarray_format format,
                                            unsigned numChannels, CUdevice dev) {
  REPTX_TRACE(cuDeviceGetTexture1DLinearMaxWidth, maxWidthInElements, format, numChannels, dev);
  if (!Driver::get().initialized())
    return CUDA_ERROR_NOT_INITIALIZED;
  if (!Driver::get().device(dev))
    return CUDA_ERROR_INVALID_DEVICE;
  if (!maxWidthInElements || !knownFormat(format) ||
      (numChannels != 1 && numChannels != 2 && numChannels != 4))
    return CUDA_ERROR_INVALID_VALUE;
  *maxWidthInElements = size_t(MaxLinearTextureWidth);
  return CUDA_SUCCESS;
}
