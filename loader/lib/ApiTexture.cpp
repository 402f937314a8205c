// Texture objects (CUDA Driver API, "Texture Object Management") over linear memory, the
// resources that tex1Dfetch reads: cuTexObjectCreate writes the texture's descriptor
// (reptx/backend/TextureObject.h) to device memory, and the texture object is its device address,
// which the compiled kernels' texture fetches (backend/device/Texture.cpp) read. CUDA arrays,
// mipmapped arrays and pitched 2D memory, which the filtered fetches (tex.2d, tex.3d, ...) read,
// are not supported (CUDA_ERROR_NOT_SUPPORTED, logged with the reason).
#include "Driver.h"
#include "Trace.h"

#include "reptx/backend/TextureObject.h"

#include <map>
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
  if (pResDesc->resType != CU_RESOURCE_TYPE_LINEAR) {
    // A resource view describes arrays only; the other resources are reptx's gap.
    log().warn("cuTexObjectCreate: resource type {} is not supported by reptx (texture objects "
               "over linear memory are; CUDA arrays and pitched 2D memory are not)",
               int(pResDesc->resType));
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  if (pResViewDesc) // only for CUDA arrays
    return CUDA_ERROR_INVALID_VALUE;
  tx::Descriptor D;
  if (CUresult R = linearDescriptor(*pResDesc, *pTexDesc, D))
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
  // Linear textures have no resource view: CUDA's answer for a texture object made without one.
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
