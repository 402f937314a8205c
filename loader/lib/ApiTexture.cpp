// CUDA arrays (CUDA Driver API, "Memory Management") and texture objects ("Texture Object
// Management"). A CUDA array is a device allocation with dense rows (Driver.h's ArrayMemory),
// which the 2D/3D copies and cuMemcpy{HtoA,AtoH,DtoA,AtoD} (ApiMemory.cpp) address; layered,
// cube-map, sparse and other special arrays are not supported. cuTexObjectCreate writes the
// texture's descriptor (reptx/backend/TextureObject.h) to device memory, and the texture object
// is its device address, which the compiled kernels' texture fetches (backend/device/Texture.cpp)
// read: linear memory (tex1Dfetch), pitched 2D memory and CUDA arrays (tex1D/tex2D/tex3D, with
// the sampler state of the texture descriptor). Mipmapped arrays, resource views and sRGB
// textures are not supported (CUDA_ERROR_NOT_SUPPORTED, logged with the reason).
#include "Driver.h"
#include "Trace.h"

#include "reptx/backend/TextureObject.h"

#include <map>
#include <memory>
#include <mutex>

using namespace reptx::loader;
namespace tx = reptx::texture_object;

namespace {

struct TextureObject {
  Device *Dev = nullptr;
  CUDA_RESOURCE_DESC Res{};
  CUDA_TEXTURE_DESC Tex{};
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

CUresult createArray(CUarray *Handle, const CUDA_ARRAY3D_DESCRIPTOR &Desc) {
  Context *C;
  if (CUresult R = currentOrError(C))
    return R;
  if (!Handle)
    return CUDA_ERROR_INVALID_VALUE;
  constexpr unsigned Supported = CUDA_ARRAY3D_SURFACE_LDST | CUDA_ARRAY3D_TEXTURE_GATHER;
  if (Desc.Flags & ~Supported) {
    log().warn("cuArray3DCreate: array flags {:#x} are not supported by reptx (layered, cube-map "
               "and other special arrays)",
               Desc.Flags & ~Supported);
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  if (!knownFormat(Desc.Format)) {
    log().warn("cuArray3DCreate: array format {:#x} is not supported by reptx (8-, 16- and 32-bit "
               "integers, half and float are)",
               int(Desc.Format));
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  size_t W = Desc.Width, H = Desc.Height, D = Desc.Depth;
  size_t Max = D ? MaxArray3D : H ? MaxArray2D : MaxArray1D;
  if ((Desc.NumChannels != 1 && Desc.NumChannels != 2 && Desc.NumChannels != 4) || W == 0 ||
      (D && !H) || W > Max || H > Max || D > Max)
    return CUDA_ERROR_INVALID_VALUE;
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
  for (unsigned K = 0; K < 3; ++K) {
    if (T.addressMode[K] < CU_TR_ADDRESS_MODE_WRAP || T.addressMode[K] > CU_TR_ADDRESS_MODE_BORDER)
      return CUDA_ERROR_INVALID_VALUE;
    Out.Address[K] = unsigned(T.addressMode[K]);
  }
  if (T.filterMode != CU_TR_FILTER_MODE_POINT && T.filterMode != CU_TR_FILTER_MODE_LINEAR)
    return CUDA_ERROR_INVALID_VALUE;
  Out.Filter = T.filterMode == CU_TR_FILTER_MODE_LINEAR ? tx::LinearFilter : tx::PointFilter;
  Out.Flags =
      ((T.flags & CU_TRSF_READ_AS_INTEGER) ? 0u : unsigned(tx::ReadNormalizedFloat)) |
      ((T.flags & CU_TRSF_NORMALIZED_COORDINATES) ? unsigned(tx::NormalizedCoordinates) : 0u);
  for (unsigned K = 0; K < 4; ++K)
    Out.BorderColor[K] = T.borderColor[K];
  return CUDA_SUCCESS;
}

// A descriptor of a live texture object, as it was given to cuTexObjectCreate.
template <typename Desc>
CUresult describe(Desc *Out, CUtexObject Object, Desc TextureObject::*Field) {
  std::lock_guard<std::mutex> L(TextureMutex);
  auto It = textures().find(Object);
  if (!Out || It == textures().end())
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
  ExecBackend &B = *C->Dev->Backend;
  auto A = B.allocate(sizeof(D));
  if (!A) {
    log().warn("cuTexObjectCreate: {}", llvm::toString(A.takeError()));
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  if (llvm::Error E = B.copyToDevice(*A, &D, sizeof(D))) {
    log().warn("cuTexObjectCreate: {}", llvm::toString(std::move(E)));
    llvm::consumeError(B.release(*A));
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  std::lock_guard<std::mutex> L(TextureMutex);
  textures()[*A] = {C->Dev, *pResDesc, *pTexDesc};
  *pTexObject = *A;
  return CUDA_SUCCESS;
}

CUresult cuTexObjectDestroy(CUtexObject texObject) {
  REPTX_TRACE(cuTexObjectDestroy, texObject);
  TextureObject T;
  {
    std::lock_guard<std::mutex> L(TextureMutex);
    auto It = textures().find(texObject);
    if (It == textures().end())
      return CUDA_ERROR_INVALID_VALUE;
    T = It->second;
    textures().erase(It);
  }
  if (llvm::Error E = T.Dev->Backend->release(texObject))
    log().warn("cuTexObjectDestroy({:#x}): {}", texObject, llvm::toString(std::move(E)));
  return CUDA_SUCCESS;
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
