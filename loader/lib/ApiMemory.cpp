// Memory (device, pinned host), copies and fills, streams, events and host functions. Every
// backend operation completes before the call returns, so a stream is in order by construction
// and an event records the host time at which all earlier work had finished.
#include "Driver.h"
#include "Graph.h"
#include "MemPool.h"
#include "Printf.h"
#include "Trace.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <set>
#include <thread>

using namespace reptx::loader;

namespace {

std::mutex HostMutex;
std::map<uintptr_t, size_t> HostAllocs; // cuMemHostAlloc / cuMemHostRegister ranges
// cuMemHostAlloc memory mapped into the device at its own address (the backend's host-mapped
// memory, released through it) and registered memory mapped there (ExecBackend::mapHost):
// base -> its device (which outlives any context).
std::map<uintptr_t, Device *> HostMapped;
std::set<uintptr_t> Registered; // the cuMemHostRegister bases among HostAllocs
// cuMemHostAlloc memory mapped by registering it (ExecBackend::mapHost: the HIP backend), among
// HostMapped: unregistered before it is freed.
std::set<uintptr_t> PinnedByRegistration;

CUresult withContext(Context *&C) {
  if (CUresult R = currentOrError(C))
    return R;
  return CUDA_SUCCESS;
}

CUresult fromError(llvm::Error E, const char *What) {
  if (!E)
    return CUDA_SUCCESS;
  log().error("{}: {}", What, llvm::toString(std::move(E)));
  return CUDA_ERROR_INVALID_VALUE;
}

bool isDevice(ExecBackend &B, uint64_t P) {
  uint64_t Base, Size;
  return B.findAllocation(P, Base, Size);
}

CUresult copy(Context *C, uint64_t Dst, uint64_t Src, size_t N, bool DstDev, bool SrcDev) {
  if (N == 0)
    return CUDA_SUCCESS;
  printfDrain(*C->Dev); // a blocking copy is a synchronisation point for device printf
  if (CUresult R = C->Sticky.load())
    return R;
  ExecBackend &B = *C->Dev->Backend;
  llvm::Error E = llvm::Error::success();
  if (DstDev && SrcDev)
    E = B.copyOnDevice(Dst, Src, N);
  else if (DstDev)
    E = B.copyToDevice(Dst, reinterpret_cast<const void *>(Src), N);
  else if (SrcDev)
    E = B.copyToHost(reinterpret_cast<void *>(Dst), Src, N);
  else {
    // Host memory on both sides, which kernels may access too (pinned or registered memory):
    // on an asynchronous device the kernels before the copy finish first.
    if (B.asynchronous())
      if (CUresult R = contextSynchronize(C))
        return R;
    std::memmove(reinterpret_cast<void *>(Dst), reinterpret_cast<const void *>(Src), N);
  }
  return fromError(std::move(E), "memory copy");
}

// A copy on a capturing stream: a memcpy node of the 3D copy that does the same.
CUresult captureCopy(CUstream S, Context *C, const CUDA_MEMCPY3D &P) {
  auto N = std::make_unique<GraphNode>();
  N->Type = CU_GRAPH_NODE_TYPE_MEMCPY;
  N->Ctx = C;
  N->Copy = P;
  return capture(S, std::move(N));
}

// A one-dimensional copy of N bytes between sides of the given memory types.
CUresult copy1D(CUstream S, uint64_t Dst, CUmemorytype DstType, uint64_t Src, CUmemorytype SrcType,
                size_t N) {
  Context *C;
  if (CUresult R = streamContext(S, C))
    return R;
  if (captureOf(S)) {
    CUDA_MEMCPY3D P{};
    P.srcMemoryType = SrcType;
    P.dstMemoryType = DstType;
    if (SrcType == CU_MEMORYTYPE_HOST)
      P.srcHost = reinterpret_cast<const void *>(Src);
    else
      P.srcDevice = Src;
    if (DstType == CU_MEMORYTYPE_HOST)
      P.dstHost = reinterpret_cast<void *>(Dst);
    else
      P.dstDevice = Dst;
    P.WidthInBytes = N;
    P.Height = P.Depth = 1;
    return captureCopy(S, C, P);
  }
  ExecBackend &B = *C->Dev->Backend;
  // Unified addressing (cuMemcpy): the direction from where the pointers are.
  bool DstDev =
      DstType == CU_MEMORYTYPE_UNIFIED ? isDevice(B, Dst) : DstType == CU_MEMORYTYPE_DEVICE;
  bool SrcDev =
      SrcType == CU_MEMORYTYPE_UNIFIED ? isDevice(B, Src) : SrcType == CU_MEMORYTYPE_DEVICE;
  return copy(C, Dst, Src, N, DstDev, SrcDev);
}
CUresult copyIn(CUdeviceptr Dst, const void *Src, size_t N, CUstream S = nullptr) {
  return copy1D(S, Dst, CU_MEMORYTYPE_DEVICE, reinterpret_cast<uint64_t>(Src), CU_MEMORYTYPE_HOST,
                N);
}
CUresult copyOut(void *Dst, CUdeviceptr Src, size_t N, CUstream S = nullptr) {
  return copy1D(S, reinterpret_cast<uint64_t>(Dst), CU_MEMORYTYPE_HOST, Src, CU_MEMORYTYPE_DEVICE,
                N);
}
CUresult copyDD(CUdeviceptr Dst, CUdeviceptr Src, size_t N, CUstream S = nullptr) {
  return copy1D(S, Dst, CU_MEMORYTYPE_DEVICE, Src, CU_MEMORYTYPE_DEVICE, N);
}
CUresult copyAny(CUdeviceptr Dst, CUdeviceptr Src, size_t N, CUstream S = nullptr) {
  return copy1D(S, Dst, CU_MEMORYTYPE_UNIFIED, Src, CU_MEMORYTYPE_UNIFIED, N);
}

CUresult fillOn(Context *C, CUdeviceptr Dst, uint32_t Value, unsigned Elem, size_t N) {
  if (N == 0)
    return CUDA_SUCCESS;
  if (CUresult R = C->Sticky.load())
    return R;
  return fromError(C->Dev->Backend->fill(Dst, Value, Elem, N), "memset");
}

// cuMemsetD2D8/16/32 (CUDA Driver API, "Memory Management"): Width elements in each of Height
// rows of Pitch bytes; the bytes after a row's Width elements are left alone. A row must fit in
// the pitch (when there is more than one), and the address and pitch must be aligned to the
// element size.
bool fillFits(CUdeviceptr Dst, size_t Pitch, unsigned Elem, size_t Width, size_t Height) {
  return !Width || !Height ||
         (Dst && Dst % Elem == 0 && (Height == 1 || (Pitch % Elem == 0 && Width <= Pitch / Elem)));
}

CUresult fill2DOn(Context *C, CUdeviceptr Dst, size_t Pitch, uint32_t Value, unsigned Elem,
                  size_t Width, size_t Height) {
  if (!fillFits(Dst, Pitch, Elem, Width, Height))
    return CUDA_ERROR_INVALID_VALUE;
  if (Width == 0 || Height == 0)
    return CUDA_SUCCESS;
  if (Height == 1 || Pitch == Width * Elem)
    return fillOn(C, Dst, Value, Elem, Width * Height);
  for (size_t Y = 0; Y < Height; ++Y)
    if (CUresult R = fillOn(C, Dst + Y * Pitch, Value, Elem, Width))
      return R;
  return CUDA_SUCCESS;
}

// A fill on a stream, or a memset node of a capturing stream.
CUresult fill2D(CUdeviceptr Dst, size_t Pitch, uint32_t Value, unsigned Elem, size_t Width,
                size_t Height, CUstream S = nullptr) {
  Context *C;
  if (CUresult R = streamContext(S, C))
    return R;
  if (!fillFits(Dst, Pitch, Elem, Width, Height))
    return CUDA_ERROR_INVALID_VALUE;
  if (captureOf(S)) {
    auto N = std::make_unique<GraphNode>();
    N->Type = CU_GRAPH_NODE_TYPE_MEMSET;
    N->Ctx = C;
    N->Fill = {Dst, Height > 1 ? Pitch : Width * Elem, Value, Elem, Width, Height};
    return capture(S, std::move(N));
  }
  CUresult R = fill2DOn(C, Dst, Pitch, Value, Elem, Width, Height);
  if (R == CUDA_SUCCESS)
    noteSubmitted(C, S); // HIP may finish a fill after the call returns
  return R;
}
CUresult fill(CUdeviceptr Dst, uint32_t Value, unsigned Elem, size_t N, CUstream S = nullptr) {
  return fill2D(Dst, N * Elem, Value, Elem, N, 1, S);
}

// One side of a 2D/3D copy (CUDA_MEMCPY2D, CUDA_MEMCPY3D, CUDA_MEMCPY3D_PEER): where the box
// starts (XInBytes, Y, Z) in slices of Height rows of Pitch bytes.
struct CopySide {
  CUmemorytype Type;
  const void *Host;
  CUdeviceptr Dev;
  CUarray Array;
  size_t X, Y, Z, Lod, Pitch, Height;
};

// A CUDA array side as the device memory it is (its rows are dense), when the box fits in it.
CUresult fromArray(CopySide &Side, size_t Width, size_t Height, size_t Depth) {
  if (Side.Type != CU_MEMORYTYPE_ARRAY)
    return CUDA_SUCCESS;
  ArrayMemory M;
  auto Fits = [](size_t At, size_t Count, size_t Size) { return At <= Size && Count <= Size - At; };
  if (!arrayMemory(Side.Array, M) || Side.Lod != 0 || !Fits(Side.X, Width, M.RowBytes) ||
      !Fits(Side.Y, Height, M.Height) || !Fits(Side.Z, Depth, M.Depth))
    return CUDA_ERROR_INVALID_VALUE;
  Side.Type = CU_MEMORYTYPE_DEVICE;
  Side.Dev = M.Base;
  Side.Pitch = M.RowBytes;
  Side.Height = M.Height;
  return CUDA_SUCCESS;
}

// The copies of the CUDA Driver API, "Memory Management" (cuMemcpy2D, cuMemcpy3D): the box of
// Width bytes x Height rows x Depth slices, row by row. Each row must fit in its pitch and, when
// there is more than one slice, the rows in a slice's height; a host (device) side needs a
// non-null host (device) pointer; LOD is for mipmapped arrays only and must be 0. A CUDA array
// side is the array's memory, and the box must fit in the array.
CUresult copyBox(Context *C, CopySide Src, CopySide Dst, size_t Width, size_t Height, size_t Depth,
                 const char *Api) {
  ExecBackend &B = *C->Dev->Backend;
  if (fromArray(Src, Width, Height, Depth) || fromArray(Dst, Width, Height, Depth)) {
    log().warn("{}: not a CUDA array, or the box does not fit in it", Api);
    return CUDA_ERROR_INVALID_VALUE;
  }
  auto Check = [&](const CopySide &Side) {
    switch (Side.Type) {
    case CU_MEMORYTYPE_HOST:
      if (!Side.Host)
        return false;
      break;
    case CU_MEMORYTYPE_DEVICE:
    case CU_MEMORYTYPE_UNIFIED:
      if (!Side.Dev)
        return false;
      break;
    default:
      return false;
    }
    if (Side.Lod != 0)
      return false;
    if ((Height > 1 || Depth > 1) && Side.X + Width > Side.Pitch)
      return false;
    return Depth <= 1 || Side.Y + Height <= Side.Height;
  };
  if (!Check(Src) || !Check(Dst))
    return CUDA_ERROR_INVALID_VALUE;
  if (Width == 0 || Height == 0 || Depth == 0)
    return CUDA_SUCCESS;
  auto Base = [&](const CopySide &Side, bool &IsDev) -> uint64_t {
    if (Side.Type == CU_MEMORYTYPE_UNIFIED) {
      IsDev = isDevice(B, Side.Dev);
      return Side.Dev;
    }
    IsDev = Side.Type == CU_MEMORYTYPE_DEVICE;
    return IsDev ? Side.Dev : reinterpret_cast<uint64_t>(Side.Host);
  };
  bool SrcDev, DstDev;
  uint64_t S = Base(Src, SrcDev), D = Base(Dst, DstDev);
  for (size_t Z = 0; Z < Depth; ++Z)
    for (size_t Y = 0; Y < Height; ++Y) {
      uint64_t SrcRow = (Src.Z + Z) * Src.Height + Src.Y + Y;
      uint64_t DstRow = (Dst.Z + Z) * Dst.Height + Dst.Y + Y;
      if (CUresult R = copy(C, D + DstRow * Dst.Pitch + Dst.X, S + SrcRow * Src.Pitch + Src.X,
                            Width, DstDev, SrcDev))
        return R;
    }
  return CUDA_SUCCESS;
}

CUresult copy3DOn(Context *C, const CUDA_MEMCPY3D &P, const char *Api) {
  CopySide Src{P.srcMemoryType, P.srcHost, P.srcDevice, P.srcArray, P.srcXInBytes,
               P.srcY,          P.srcZ,    P.srcLOD,    P.srcPitch, P.srcHeight};
  CopySide Dst{P.dstMemoryType, P.dstHost, P.dstDevice, P.dstArray, P.dstXInBytes,
               P.dstY,          P.dstZ,    P.dstLOD,    P.dstPitch, P.dstHeight};
  return copyBox(C, Src, Dst, P.WidthInBytes, P.Height, P.Depth, Api);
}

// A 2D/3D copy in context C, or its memcpy node when S captures.
CUresult copyOrCapture(CUstream S, Context *C, const CUDA_MEMCPY3D &P, const char *Api) {
  if (captureOf(S))
    return captureCopy(S, C, P);
  return copy3DOn(C, P, Api);
}

CUresult copy2D(const CUDA_MEMCPY2D *P, CUstream S) {
  if (!P)
    return CUDA_ERROR_INVALID_VALUE;
  Context *C;
  if (CUresult R = streamContext(S, C))
    return R;
  CUDA_MEMCPY3D Q{};
  Q.srcXInBytes = P->srcXInBytes;
  Q.srcY = P->srcY;
  Q.srcMemoryType = P->srcMemoryType;
  Q.srcHost = P->srcHost;
  Q.srcDevice = P->srcDevice;
  Q.srcArray = P->srcArray;
  Q.srcPitch = P->srcPitch;
  Q.dstXInBytes = P->dstXInBytes;
  Q.dstY = P->dstY;
  Q.dstMemoryType = P->dstMemoryType;
  Q.dstHost = P->dstHost;
  Q.dstDevice = P->dstDevice;
  Q.dstArray = P->dstArray;
  Q.dstPitch = P->dstPitch;
  Q.WidthInBytes = P->WidthInBytes;
  Q.Height = P->Height;
  Q.Depth = 1;
  return copyOrCapture(S, C, Q, "cuMemcpy2D");
}

CUresult copy3D(const CUDA_MEMCPY3D *P, CUstream S) {
  if (!P || P->reserved0 || P->reserved1)
    return CUDA_ERROR_INVALID_VALUE;
  Context *C;
  if (CUresult R = streamContext(S, C))
    return R;
  return copyOrCapture(S, C, *P, "cuMemcpy3D");
}

// Peer copies: reptx has one device, so both contexts are on it and the copy is an ordinary one
// (in the destination's context, or the stream's for the asynchronous forms).
CUresult peerContexts(CUcontext Dst, CUcontext Src, Context *&C) {
  if (!Driver::get().validContext(Dst) || !Driver::get().validContext(Src))
    return CUDA_ERROR_INVALID_CONTEXT;
  C = reinterpret_cast<Context *>(Dst);
  return CUDA_SUCCESS;
}

CUresult copy3DPeer(const CUDA_MEMCPY3D_PEER *P, CUstream S) {
  if (!P)
    return CUDA_ERROR_INVALID_VALUE;
  Context *C;
  if (CUresult R = peerContexts(P->dstContext, P->srcContext, C))
    return R;
  if (S)
    if (CUresult R = streamContext(S, C))
      return R;
  CUDA_MEMCPY3D Q{};
  Q.srcXInBytes = P->srcXInBytes;
  Q.srcY = P->srcY;
  Q.srcZ = P->srcZ;
  Q.srcLOD = P->srcLOD;
  Q.srcMemoryType = P->srcMemoryType;
  Q.srcHost = P->srcHost;
  Q.srcDevice = P->srcDevice;
  Q.srcArray = P->srcArray;
  Q.srcPitch = P->srcPitch;
  Q.srcHeight = P->srcHeight;
  Q.dstXInBytes = P->dstXInBytes;
  Q.dstY = P->dstY;
  Q.dstZ = P->dstZ;
  Q.dstLOD = P->dstLOD;
  Q.dstMemoryType = P->dstMemoryType;
  Q.dstHost = P->dstHost;
  Q.dstDevice = P->dstDevice;
  Q.dstArray = P->dstArray;
  Q.dstPitch = P->dstPitch;
  Q.dstHeight = P->dstHeight;
  Q.WidthInBytes = P->WidthInBytes;
  Q.Height = P->Height;
  Q.Depth = P->Depth;
  return copyOrCapture(S, C, Q, "cuMemcpy3DPeer");
}

CUresult copyPeer(CUdeviceptr Dst, CUcontext DstCtx, CUdeviceptr Src, CUcontext SrcCtx, size_t N,
                  CUstream S) {
  Context *C;
  if (CUresult R = peerContexts(DstCtx, SrcCtx, C))
    return R;
  if (N && (!Dst || !Src))
    return CUDA_ERROR_INVALID_VALUE;
  if (S)
    return copyDD(Dst, Src, N, S);
  return copy(C, Dst, Src, N, true, true);
}

} // namespace

// ------------------------------------------------------------------ allocation

CUresult reptx::loader::streamContext(CUstream S, Context *&C) {
  auto V = reinterpret_cast<uintptr_t>(S);
  if (V == 0 || V == uintptr_t(CU_STREAM_LEGACY) || V == uintptr_t(CU_STREAM_PER_THREAD))
    return currentOrError(C);
  auto *St = reinterpret_cast<Stream *>(S);
  if (St->T != Tag::Stream)
    return CUDA_ERROR_INVALID_HANDLE;
  C = St->Ctx;
  return CUDA_SUCCESS;
}

static CUresult allocate(Context *C, CUdeviceptr *Ptr, size_t Bytes) {
  if (!Ptr || Bytes == 0)
    return CUDA_ERROR_INVALID_VALUE;
  auto A = C->Dev->Backend->allocate(Bytes);
  if (!A) {
    log().warn("cuMemAlloc({}): {}", Bytes, llvm::toString(A.takeError()));
    return CUDA_ERROR_OUT_OF_MEMORY;
  }
  *Ptr = *A;
  noteAllocation(C, *A);
  log().debug("cuMemAlloc({}) -> {:#x}", Bytes, *A);
  return CUDA_SUCCESS;
}

namespace {
std::mutex OwnerMutex;
std::map<CUdeviceptr, Context *> &owners() { // device memory -> the context it was allocated in
  static auto *M = new std::map<CUdeviceptr, Context *>;
  return *M;
}
} // namespace

void reptx::loader::noteAllocation(Context *C, CUdeviceptr Ptr) {
  std::lock_guard<std::mutex> L(OwnerMutex);
  owners()[Ptr] = C;
}

void reptx::loader::releaseContextMemory(Context *C) {
  std::vector<CUdeviceptr> Mine;
  {
    std::lock_guard<std::mutex> L(OwnerMutex);
    for (auto It = owners().begin(); It != owners().end();)
      if (It->second == C) {
        Mine.push_back(It->first);
        It = owners().erase(It);
      } else {
        ++It;
      }
  }
  for (CUdeviceptr Ptr : Mine) {
    poolForget(Ptr);
    if (llvm::Error E = C->Dev->Backend->release(Ptr))
      log().warn("context memory {:#x}: {}", Ptr, llvm::toString(std::move(E)));
  }
  if (!Mine.empty())
    log().debug("released {} allocations of a destroyed or reset context", Mine.size());
}

static CUresult release(Context *C, CUdeviceptr Ptr) {
  if (Ptr == 0 || graphOwnsMemory(Ptr)) // a graph's memory stays until the graph goes
    return CUDA_SUCCESS;
  poolForget(Ptr);
  {
    std::lock_guard<std::mutex> L(OwnerMutex);
    owners().erase(Ptr);
  }
  if (llvm::Error E = C->Dev->Backend->release(Ptr)) {
    log().warn("cuMemFree({:#x}): {}", Ptr, llvm::toString(std::move(E)));
    return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}

CUresult cuMemAlloc_v2(CUdeviceptr *Ptr, size_t Bytes) {
  REPTX_TRACE(cuMemAlloc_v2, Ptr, Bytes);
  Context *C;
  if (CUresult R = withContext(C))
    return R;
  if (CUresult R = captureForbidsUnsafeCall())
    return R;
  return allocate(C, Ptr, Bytes);
}

CUresult cuMemFree_v2(CUdeviceptr Ptr) {
  REPTX_TRACE(cuMemFree_v2, Ptr);
  Context *C;
  if (CUresult R = withContext(C))
    return R;
  if (CUresult R = captureForbidsUnsafeCall())
    return R;
  return release(C, Ptr);
}

CUresult cuMemAllocPitch_v2(CUdeviceptr *Ptr, size_t *Pitch, size_t Width, size_t Height,
                            unsigned int ElementSize) {
  REPTX_TRACE(cuMemAllocPitch_v2, Ptr, Pitch, Width, Height, ElementSize);
  if (!Pitch || Width == 0 || Height == 0)
    return CUDA_ERROR_INVALID_VALUE;
  size_t P = (Width + 255) / 256 * 256;
  if (CUresult R = cuMemAlloc_v2(Ptr, P * Height))
    return R;
  *Pitch = P;
  return CUDA_SUCCESS;
}

// Stream-ordered allocations: allocated and freed at the call, which is stream order here, from
// the device's current memory pool (MemPool.h); on a capturing stream, memory of the graph
// (Graph.h).
CUresult cuMemAllocAsync(CUdeviceptr *Ptr, size_t Bytes, CUstream Stream) {
  REPTX_TRACE(cuMemAllocAsync, Ptr, Bytes, Stream);
  Context *C;
  if (CUresult R = streamContext(Stream, C))
    return R;
  if (!Ptr || Bytes == 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (captureOf(Stream))
    return captureAlloc(Stream, C, Bytes, *Ptr);
  return poolAllocate(nullptr, C, Bytes, *Ptr); // the current pool of the device
}
CUresult cuMemAllocAsync_ptsz(CUdeviceptr *Ptr, size_t Bytes, CUstream S) {
  REPTX_TRACE(cuMemAllocAsync_ptsz, Ptr, Bytes, S);
  S = perThreadDefault(S);
  return cuMemAllocAsync(Ptr, Bytes, S);
}
CUresult cuMemFreeAsync(CUdeviceptr Ptr, CUstream Stream) {
  REPTX_TRACE(cuMemFreeAsync, Ptr, Stream);
  Context *C;
  if (CUresult R = streamContext(Stream, C))
    return R;
  if (captureOf(Stream))
    return captureFree(Stream, Ptr);
  return release(C, Ptr);
}
CUresult cuMemFreeAsync_ptsz(CUdeviceptr Ptr, CUstream S) {
  REPTX_TRACE(cuMemFreeAsync_ptsz, Ptr, S);
  S = perThreadDefault(S);
  return cuMemFreeAsync(Ptr, S);
}

// Managed memory (CUDA C++ Programming Guide, "Unified Memory"): on the emulator, host memory
// mapped into the device's address space at its own address, so the host dereferences the
// pointer cudaMallocManaged returns and kernels use it as device memory. Released by cuMemFree.
// Prefetches and advice have nothing to move: they only check their arguments.
CUresult cuMemAllocManaged(CUdeviceptr *Ptr, size_t Bytes, unsigned int Flags) {
  REPTX_TRACE(cuMemAllocManaged, Ptr, Bytes, Flags);
  Context *C;
  if (CUresult R = withContext(C))
    return R;
  if (!Ptr || Bytes == 0 || (Flags != CU_MEM_ATTACH_GLOBAL && Flags != CU_MEM_ATTACH_HOST))
    return CUDA_ERROR_INVALID_VALUE;
  auto A = C->Dev->Backend->allocateManaged(Bytes);
  if (!A) {
    log().warn("cuMemAllocManaged({}): {}", Bytes, llvm::toString(A.takeError()));
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  *Ptr = *A;
  noteAllocation(C, *A);
  log().debug("cuMemAllocManaged({}) -> {:#x}", Bytes, *A);
  return CUDA_SUCCESS;
}

namespace {
CUresult checkManagedRange(CUdeviceptr Ptr, size_t Count) {
  Context *C;
  if (CUresult R = withContext(C))
    return R;
  uint64_t Base, Size;
  if (!C->Dev->Backend->findAllocation(Ptr, Base, Size) || Ptr - Base + Count > Size)
    return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}
} // namespace

CUresult cuMemPrefetchAsync(CUdeviceptr Ptr, size_t Count, CUdevice DstDevice, CUstream Stream) {
  REPTX_TRACE(cuMemPrefetchAsync, Ptr, Count, DstDevice, Stream);
  return checkManagedRange(Ptr, Count);
}
CUresult cuMemPrefetchAsync_ptsz(CUdeviceptr Ptr, size_t Count, CUdevice D, CUstream S) {
  REPTX_TRACE(cuMemPrefetchAsync_ptsz, Ptr, Count, D, S);
  S = perThreadDefault(S);
  return cuMemPrefetchAsync(Ptr, Count, D, S);
}
CUresult cuMemPrefetchAsync_v2(CUdeviceptr Ptr, size_t Count, CUmemLocation Location,
                               unsigned int Flags, CUstream Stream) {
  REPTX_TRACE(cuMemPrefetchAsync_v2, Ptr, Count, Location, Flags, Stream);
  return checkManagedRange(Ptr, Count);
}
CUresult cuMemPrefetchAsync_v2_ptsz(CUdeviceptr Ptr, size_t Count, CUmemLocation L,
                                    unsigned int Flags, CUstream S) {
  REPTX_TRACE(cuMemPrefetchAsync_v2_ptsz, Ptr, Count, L, Flags, S);
  S = perThreadDefault(S);
  return cuMemPrefetchAsync_v2(Ptr, Count, L, Flags, S);
}
CUresult cuMemAdvise(CUdeviceptr Ptr, size_t Count, CUmem_advise Advice, CUdevice Dev) {
  REPTX_TRACE(cuMemAdvise, Ptr, Count, Advice, Dev);
  return checkManagedRange(Ptr, Count);
}
CUresult cuMemAdvise_v2(CUdeviceptr Ptr, size_t Count, CUmem_advise Advice,
                        CUmemLocation Location) {
  REPTX_TRACE(cuMemAdvise_v2, Ptr, Count, Advice, Location);
  return checkManagedRange(Ptr, Count);
}
CUresult cuStreamAttachMemAsync(CUstream Stream, CUdeviceptr Ptr, size_t Length,
                                unsigned int Flags) {
  REPTX_TRACE(cuStreamAttachMemAsync, Stream, Ptr, Length, Flags);
  return checkManagedRange(Ptr, Length);
}
CUresult cuStreamAttachMemAsync_ptsz(CUstream S, CUdeviceptr Ptr, size_t Length,
                                     unsigned int Flags) {
  REPTX_TRACE(cuStreamAttachMemAsync_ptsz, S, Ptr, Length, Flags);
  S = perThreadDefault(S);
  return cuStreamAttachMemAsync(S, Ptr, Length, Flags);
}

CUresult cuMemGetInfo_v2(size_t *Free, size_t *Total) {
  REPTX_TRACE(cuMemGetInfo_v2, Free, Total);
  Context *C;
  if (CUresult R = withContext(C))
    return R;
  ExecBackend &B = *C->Dev->Backend;
  uint64_t T = B.totalMemory(), Used = B.allocatedBytes();
  if (Total)
    *Total = T;
  if (Free)
    *Free = Used < T ? T - Used : 0;
  return CUDA_SUCCESS;
}

CUresult cuMemGetAddressRange_v2(CUdeviceptr *Base, size_t *Size, CUdeviceptr Ptr) {
  REPTX_TRACE(cuMemGetAddressRange_v2, Base, Size, Ptr);
  Context *C;
  if (CUresult R = withContext(C))
    return R;
  uint64_t B, S;
  if (!C->Dev->Backend->findAllocation(Ptr, B, S))
    return CUDA_ERROR_NOT_FOUND;
  if (Base)
    *Base = B;
  if (Size)
    *Size = S;
  return CUDA_SUCCESS;
}

// Pinned host memory. With unified addressing, all memory of cuMemHostAlloc is accessible from
// the device at the same address (CUDA Driver API, cuMemHostAlloc and cuMemHostGetDevicePointer):
// where a context is current, the emulator allocates it as its managed memory (host memory
// mapped at its own address) and the HIP backend pins and maps page-aligned host memory with
// hipHostRegister (ExecBackend::mapHost); otherwise, or when that fails, it is plain host memory
// that cuMemHostGetDevicePointer refuses (copies from it still work).
CUresult cuMemHostAlloc(void **P, size_t Bytes, unsigned int Flags) {
  REPTX_TRACE(cuMemHostAlloc, P, Bytes, Flags);
  if (!P)
    return CUDA_ERROR_INVALID_VALUE;
  *P = nullptr;
  Context *C = currentContext();
  if (C && C->Dev->Backend->hostAccessibleVariables()) {
    auto A = C->Dev->Backend->allocateManaged(Bytes ? Bytes : 1);
    if (A) {
      *P = reinterpret_cast<void *>(*A);
      std::lock_guard<std::mutex> L(HostMutex);
      HostMapped[uintptr_t(*A)] = C->Dev;
    } else {
      log().debug("cuMemHostAlloc({}): not mapped: {}", Bytes, llvm::toString(A.takeError()));
    }
  }
  if (!*P) {
    size_t Rounded = (std::max<size_t>(Bytes, 1) + 4095) / 4096 * 4096;
    *P = std::aligned_alloc(4096, Rounded);
    if (!*P)
      return CUDA_ERROR_OUT_OF_MEMORY;
    std::memset(*P, 0, Rounded);
    if (C && !C->Dev->Backend->hostAccessibleVariables()) {
      if (llvm::Error E = C->Dev->Backend->mapHost(*P, Rounded, /*ReadOnly=*/false)) {
        log().debug("cuMemHostAlloc({}): not mapped: {}", Bytes, llvm::toString(std::move(E)));
      } else {
        std::lock_guard<std::mutex> L(HostMutex);
        HostMapped[uintptr_t(*P)] = C->Dev;
        PinnedByRegistration.insert(uintptr_t(*P));
      }
    }
  }
  std::lock_guard<std::mutex> L(HostMutex);
  HostAllocs[reinterpret_cast<uintptr_t>(*P)] = Bytes;
  return CUDA_SUCCESS;
}
CUresult cuMemAllocHost_v2(void **P, size_t Bytes) {
  REPTX_TRACE(cuMemAllocHost_v2, P, Bytes);
  return cuMemHostAlloc(P, Bytes, 0);
}

CUresult cuMemFreeHost(void *P) {
  REPTX_TRACE(cuMemFreeHost, P);
  std::lock_guard<std::mutex> L(HostMutex);
  if (Registered.count(reinterpret_cast<uintptr_t>(P)) ||
      !HostAllocs.erase(reinterpret_cast<uintptr_t>(P)))
    return CUDA_ERROR_INVALID_VALUE;
  auto It = HostMapped.find(reinterpret_cast<uintptr_t>(P));
  if (It == HostMapped.end()) {
    std::free(P);
    return CUDA_SUCCESS;
  }
  Device *D = It->second;
  HostMapped.erase(It);
  if (PinnedByRegistration.erase(reinterpret_cast<uintptr_t>(P))) {
    CUresult R = fromError(D->Backend->unmapHost(P), "cuMemFreeHost");
    std::free(P);
    return R;
  }
  return fromError(D->Backend->release(reinterpret_cast<uint64_t>(P)), "cuMemFreeHost");
}

// The device address of cuMemHostAlloc or registered memory: the host address (unified
// addressing), where the backend maps it (the emulator does). Flags must be 0.
CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *Dev, void *P, unsigned int Flags) {
  REPTX_TRACE(cuMemHostGetDevicePointer_v2, Dev, P, Flags);
  Context *C;
  if (CUresult R = withContext(C))
    return R;
  if (!Dev || !P || Flags != 0)
    return CUDA_ERROR_INVALID_VALUE;
  std::lock_guard<std::mutex> L(HostMutex);
  auto It = HostAllocs.upper_bound(reinterpret_cast<uintptr_t>(P));
  if (It == HostAllocs.begin())
    return CUDA_ERROR_INVALID_VALUE;
  --It;
  if (reinterpret_cast<uintptr_t>(P) - It->first >= std::max<size_t>(It->second, 1))
    return CUDA_ERROR_INVALID_VALUE;
  if (!HostMapped.count(It->first)) {
    log().warn("cuMemHostGetDevicePointer: {} is host memory that the {} device cannot access "
               "(it could not be mapped at its own address when it was allocated or registered)",
               P, C->Dev->Backend->kind());
    return CUDA_ERROR_NOT_SUPPORTED;
  }
  *Dev = reinterpret_cast<CUdeviceptr>(P);
  return CUDA_SUCCESS;
}

// Registered memory is mapped into the current context's device at its own address when the
// backend can (the emulator: kernels then dereference the host pointer, as on a device with
// CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM); otherwise only recorded.
CUresult cuMemHostRegister_v2(void *P, size_t Bytes, unsigned int Flags) {
  REPTX_TRACE(cuMemHostRegister_v2, P, Bytes, Flags);
  if (!P || !Bytes ||
      (Flags & ~unsigned(CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP |
                         CU_MEMHOSTREGISTER_IOMEMORY | CU_MEMHOSTREGISTER_READ_ONLY)))
    return CUDA_ERROR_INVALID_VALUE;
  Context *C;
  if (CUresult R = withContext(C))
    return R;
  uintptr_t Base = reinterpret_cast<uintptr_t>(P);
  std::lock_guard<std::mutex> L(HostMutex);
  auto It = HostAllocs.upper_bound(Base + Bytes - 1);
  if (It != HostAllocs.begin() && std::prev(It)->first + std::prev(It)->second > Base)
    return CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
  ExecBackend &B = *C->Dev->Backend;
  if (llvm::Error E = B.mapHost(P, Bytes, Flags & CU_MEMHOSTREGISTER_READ_ONLY))
    log().debug("cuMemHostRegister({}, {}): not mapped: {}", P, Bytes,
                llvm::toString(std::move(E)));
  else
    HostMapped[Base] = C->Dev;
  HostAllocs[Base] = Bytes;
  Registered.insert(Base);
  return CUDA_SUCCESS;
}
CUresult cuMemHostRegister(void *P, size_t Bytes, unsigned int Flags) {
  REPTX_TRACE(cuMemHostRegister, P, Bytes, Flags);
  return cuMemHostRegister_v2(P, Bytes, Flags);
}
CUresult cuMemHostUnregister(void *P) {
  REPTX_TRACE(cuMemHostUnregister, P);
  uintptr_t Base = reinterpret_cast<uintptr_t>(P);
  std::lock_guard<std::mutex> L(HostMutex);
  if (!Registered.erase(Base))
    return CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
  HostAllocs.erase(Base);
  auto It = HostMapped.find(Base);
  if (It == HostMapped.end())
    return CUDA_SUCCESS;
  Device *D = It->second;
  HostMapped.erase(It);
  return fromError(D->Backend->unmapHost(P), "cuMemHostUnregister");
}
CUresult cuMemHostGetFlags(unsigned int *Flags, void *P) {
  REPTX_TRACE(cuMemHostGetFlags, Flags, P);
  if (Flags)
    *Flags = 0;
  return CUDA_SUCCESS;
}

CUresult cuPointerGetAttribute(void *Data, CUpointer_attribute Attr, CUdeviceptr Ptr) {
  REPTX_TRACE(cuPointerGetAttribute, Data, Attr, Ptr);
  Context *C;
  if (CUresult R = withContext(C))
    return R;
  uint64_t Base, Size;
  bool Dev = C->Dev->Backend->findAllocation(Ptr, Base, Size);
  bool Host = false;
  {
    std::lock_guard<std::mutex> L(HostMutex);
    auto It = HostAllocs.upper_bound(uintptr_t(Ptr));
    if (It != HostAllocs.begin()) {
      --It;
      Host = uintptr_t(Ptr) - It->first < It->second;
    }
  }
  // Mapped pinned memory (cuMemHostAlloc) is also a backend allocation: it is host memory whose
  // device pointer is the same address.
  bool Mapped = Host && Dev;
  if (Host)
    Dev = false;
  if (!Dev && !Host)
    return CUDA_ERROR_INVALID_VALUE;
  switch (Attr) {
  case CU_POINTER_ATTRIBUTE_CONTEXT:
    *static_cast<CUcontext *>(Data) = reinterpret_cast<CUcontext>(C);
    return CUDA_SUCCESS;
  case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
    *static_cast<unsigned *>(Data) = Dev ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST;
    return CUDA_SUCCESS;
  case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
    if (!Dev && !Mapped)
      return CUDA_ERROR_INVALID_VALUE;
    *static_cast<CUdeviceptr *>(Data) = Ptr;
    return CUDA_SUCCESS;
  case CU_POINTER_ATTRIBUTE_HOST_POINTER:
    if (Dev && !C->Dev->Backend->isManaged(Ptr))
      return CUDA_ERROR_INVALID_VALUE;
    *static_cast<void **>(Data) = reinterpret_cast<void *>(Ptr);
    return CUDA_SUCCESS;
  case CU_POINTER_ATTRIBUTE_IS_MANAGED:
    *static_cast<unsigned *>(Data) = Dev && C->Dev->Backend->isManaged(Ptr);
    return CUDA_SUCCESS;
  case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
    *static_cast<int *>(Data) = C->Dev->Ordinal;
    return CUDA_SUCCESS;
  case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
    *static_cast<CUdeviceptr *>(Data) = Dev ? Base : Ptr;
    return CUDA_SUCCESS;
  case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
    *static_cast<size_t *>(Data) = Dev ? Size : 0;
    return CUDA_SUCCESS;
  case CU_POINTER_ATTRIBUTE_MAPPED:
    *static_cast<unsigned *>(Data) = 1;
    return CUDA_SUCCESS;
  case CU_POINTER_ATTRIBUTE_BUFFER_ID:
    *static_cast<unsigned long long *>(Data) = Dev ? Base : Ptr;
    return CUDA_SUCCESS;
  default:
    return CUDA_ERROR_NOT_SUPPORTED;
  }
}

CUresult cuPointerGetAttributes(unsigned int N, CUpointer_attribute *Attrs, void **Data,
                                CUdeviceptr Ptr) {
  REPTX_TRACE(cuPointerGetAttributes, N, Attrs, Data, Ptr);
  if (!Attrs || !Data)
    return CUDA_ERROR_INVALID_VALUE;
  Context *C;
  if (CUresult R = withContext(C))
    return R;
  uint64_t Base, Size;
  bool Dev = C->Dev->Backend->findAllocation(Ptr, Base, Size);
  for (unsigned I = 0; I < N; ++I) {
    if (!Data[I])
      continue;
    // Unknown pointers are reported as unregistered host memory, as the driver does.
    if (!Dev && Attrs[I] == CU_POINTER_ATTRIBUTE_MEMORY_TYPE) {
      *static_cast<unsigned *>(Data[I]) = 0;
      continue;
    }
    if (cuPointerGetAttribute(Data[I], Attrs[I], Ptr) != CUDA_SUCCESS) {
      if (Attrs[I] == CU_POINTER_ATTRIBUTE_CONTEXT)
        *static_cast<CUcontext *>(Data[I]) = nullptr;
      else if (Attrs[I] == CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL)
        *static_cast<int *>(Data[I]) = -2;
      else if (Attrs[I] == CU_POINTER_ATTRIBUTE_DEVICE_POINTER ||
               Attrs[I] == CU_POINTER_ATTRIBUTE_HOST_POINTER)
        *static_cast<void **>(Data[I]) = nullptr;
      else
        *static_cast<unsigned *>(Data[I]) = 0;
    }
  }
  return CUDA_SUCCESS;
}

// ------------------------------------------------------------------ copies and fills

namespace {

// cuMemcpy{HtoA,AtoH,DtoA,AtoD}: N bytes at byte Offset of a CUDA array, whose rows are dense.
CUresult arrayAt(CUarray A, size_t Offset, size_t N, CUdeviceptr &Out) {
  ArrayMemory M;
  if (!arrayMemory(A, M))
    return CUDA_ERROR_INVALID_VALUE;
  size_t Bytes = M.RowBytes * M.Height * M.Depth;
  if (Offset > Bytes || N > Bytes - Offset)
    return CUDA_ERROR_INVALID_VALUE;
  Out = M.Base + Offset;
  return CUDA_SUCCESS;
}
CUresult copyToArray(CUarray A, size_t Offset, uint64_t Src, CUmemorytype SrcType, size_t N,
                     CUstream S = nullptr) {
  CUdeviceptr D;
  if (CUresult R = arrayAt(A, Offset, N, D))
    return R;
  return copy1D(S, D, CU_MEMORYTYPE_DEVICE, Src, SrcType, N);
}
CUresult copyFromArray(uint64_t Dst, CUmemorytype DstType, CUarray A, size_t Offset, size_t N,
                       CUstream S = nullptr) {
  CUdeviceptr From;
  if (CUresult R = arrayAt(A, Offset, N, From))
    return R;
  return copy1D(S, Dst, DstType, From, CU_MEMORYTYPE_DEVICE, N);
}
CUresult copyArrays(CUarray Dst, size_t DstOffset, CUarray Src, size_t SrcOffset, size_t N) {
  CUdeviceptr From;
  if (CUresult R = arrayAt(Src, SrcOffset, N, From))
    return R;
  return copyToArray(Dst, DstOffset, From, CU_MEMORYTYPE_DEVICE, N);
}

} // namespace

CUresult cuMemcpyHtoA_v2(CUarray D, size_t Off, const void *S, size_t N) {
  REPTX_TRACE(cuMemcpyHtoA_v2, D, Off, S, N);
  return copyToArray(D, Off, reinterpret_cast<uint64_t>(S), CU_MEMORYTYPE_HOST, N);
}
CUresult cuMemcpyHtoA_v2_ptds(CUarray D, size_t Off, const void *S, size_t N) {
  REPTX_TRACE(cuMemcpyHtoA_v2_ptds, D, Off, S, N);
  return copyToArray(D, Off, reinterpret_cast<uint64_t>(S), CU_MEMORYTYPE_HOST, N);
}
CUresult cuMemcpyDtoA_v2(CUarray D, size_t Off, CUdeviceptr S, size_t N) {
  REPTX_TRACE(cuMemcpyDtoA_v2, D, Off, S, N);
  return copyToArray(D, Off, S, CU_MEMORYTYPE_DEVICE, N);
}
CUresult cuMemcpyDtoA_v2_ptds(CUarray D, size_t Off, CUdeviceptr S, size_t N) {
  REPTX_TRACE(cuMemcpyDtoA_v2_ptds, D, Off, S, N);
  return copyToArray(D, Off, S, CU_MEMORYTYPE_DEVICE, N);
}
CUresult cuMemcpyAtoH_v2(void *D, CUarray S, size_t Off, size_t N) {
  REPTX_TRACE(cuMemcpyAtoH_v2, D, S, Off, N);
  return copyFromArray(reinterpret_cast<uint64_t>(D), CU_MEMORYTYPE_HOST, S, Off, N);
}
CUresult cuMemcpyAtoH_v2_ptds(void *D, CUarray S, size_t Off, size_t N) {
  REPTX_TRACE(cuMemcpyAtoH_v2_ptds, D, S, Off, N);
  return copyFromArray(reinterpret_cast<uint64_t>(D), CU_MEMORYTYPE_HOST, S, Off, N);
}
CUresult cuMemcpyAtoD_v2(CUdeviceptr D, CUarray S, size_t Off, size_t N) {
  REPTX_TRACE(cuMemcpyAtoD_v2, D, S, Off, N);
  return copyFromArray(D, CU_MEMORYTYPE_DEVICE, S, Off, N);
}
CUresult cuMemcpyAtoD_v2_ptds(CUdeviceptr D, CUarray S, size_t Off, size_t N) {
  REPTX_TRACE(cuMemcpyAtoD_v2_ptds, D, S, Off, N);
  return copyFromArray(D, CU_MEMORYTYPE_DEVICE, S, Off, N);
}

CUresult cuMemcpyAtoA_v2(CUarray D, size_t DOff, CUarray S, size_t SOff, size_t N) {
  REPTX_TRACE(cuMemcpyAtoA_v2, D, DOff, S, SOff, N);
  return copyArrays(D, DOff, S, SOff, N);
}
CUresult cuMemcpyAtoA_v2_ptds(CUarray D, size_t DOff, CUarray S, size_t SOff, size_t N) {
  REPTX_TRACE(cuMemcpyAtoA_v2_ptds, D, DOff, S, SOff, N);
  return copyArrays(D, DOff, S, SOff, N);
}
CUresult cuMemcpyHtoAAsync_v2(CUarray D, size_t Off, const void *S, size_t N, CUstream St) {
  REPTX_TRACE(cuMemcpyHtoAAsync_v2, D, Off, S, N, St);
  return copyToArray(D, Off, reinterpret_cast<uint64_t>(S), CU_MEMORYTYPE_HOST, N, St);
}
CUresult cuMemcpyHtoAAsync_v2_ptsz(CUarray D, size_t Off, const void *S, size_t N, CUstream St) {
  REPTX_TRACE(cuMemcpyHtoAAsync_v2_ptsz, D, Off, S, N, St);
  return copyToArray(D, Off, reinterpret_cast<uint64_t>(S), CU_MEMORYTYPE_HOST, N, St);
}
CUresult cuMemcpyAtoHAsync_v2(void *D, CUarray S, size_t Off, size_t N, CUstream St) {
  REPTX_TRACE(cuMemcpyAtoHAsync_v2, D, S, Off, N, St);
  return copyFromArray(reinterpret_cast<uint64_t>(D), CU_MEMORYTYPE_HOST, S, Off, N, St);
}
CUresult cuMemcpyAtoHAsync_v2_ptsz(void *D, CUarray S, size_t Off, size_t N, CUstream St) {
  REPTX_TRACE(cuMemcpyAtoHAsync_v2_ptsz, D, S, Off, N, St);
  return copyFromArray(reinterpret_cast<uint64_t>(D), CU_MEMORYTYPE_HOST, S, Off, N, St);
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr D, const void *S, size_t N) {
  REPTX_TRACE(cuMemcpyHtoD_v2, D, S, N);
  return copyIn(D, S, N);
}
CUresult cuMemcpyHtoD_v2_ptds(CUdeviceptr D, const void *S, size_t N) {
  REPTX_TRACE(cuMemcpyHtoD_v2_ptds, D, S, N);
  return copyIn(D, S, N);
}
CUresult cuMemcpyDtoH_v2(void *D, CUdeviceptr S, size_t N) {
  REPTX_TRACE(cuMemcpyDtoH_v2, D, S, N);
  return copyOut(D, S, N);
}
CUresult cuMemcpyDtoH_v2_ptds(void *D, CUdeviceptr S, size_t N) {
  REPTX_TRACE(cuMemcpyDtoH_v2_ptds, D, S, N);
  return copyOut(D, S, N);
}
CUresult cuMemcpyDtoD_v2(CUdeviceptr D, CUdeviceptr S, size_t N) {
  REPTX_TRACE(cuMemcpyDtoD_v2, D, S, N);
  return copyDD(D, S, N);
}
CUresult cuMemcpyDtoD_v2_ptds(CUdeviceptr D, CUdeviceptr S, size_t N) {
  REPTX_TRACE(cuMemcpyDtoD_v2_ptds, D, S, N);
  return copyDD(D, S, N);
}
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr D, const void *S, size_t N, CUstream St) {
  REPTX_TRACE(cuMemcpyHtoDAsync_v2, D, S, N, St);
  return copyIn(D, S, N, St);
}
CUresult cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr D, const void *S, size_t N, CUstream St) {
  REPTX_TRACE(cuMemcpyHtoDAsync_v2_ptsz, D, S, N, St);
  St = perThreadDefault(St);
  return copyIn(D, S, N, St);
}
CUresult cuMemcpyDtoHAsync_v2(void *D, CUdeviceptr S, size_t N, CUstream St) {
  REPTX_TRACE(cuMemcpyDtoHAsync_v2, D, S, N, St);
  return copyOut(D, S, N, St);
}
CUresult cuMemcpyDtoHAsync_v2_ptsz(void *D, CUdeviceptr S, size_t N, CUstream St) {
  REPTX_TRACE(cuMemcpyDtoHAsync_v2_ptsz, D, S, N, St);
  St = perThreadDefault(St);
  return copyOut(D, S, N, St);
}
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr D, CUdeviceptr S, size_t N, CUstream St) {
  REPTX_TRACE(cuMemcpyDtoDAsync_v2, D, S, N, St);
  return copyDD(D, S, N, St);
}
CUresult cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr D, CUdeviceptr S, size_t N, CUstream St) {
  REPTX_TRACE(cuMemcpyDtoDAsync_v2_ptsz, D, S, N, St);
  St = perThreadDefault(St);
  return copyDD(D, S, N, St);
}
CUresult cuMemcpy(CUdeviceptr D, CUdeviceptr S, size_t N) {
  REPTX_TRACE(cuMemcpy, D, S, N);
  return copyAny(D, S, N);
}
CUresult cuMemcpy_ptds(CUdeviceptr D, CUdeviceptr S, size_t N) {
  REPTX_TRACE(cuMemcpy_ptds, D, S, N);
  return copyAny(D, S, N);
}
CUresult cuMemcpyAsync(CUdeviceptr D, CUdeviceptr S, size_t N, CUstream St) {
  REPTX_TRACE(cuMemcpyAsync, D, S, N, St);
  return copyAny(D, S, N, St);
}
CUresult cuMemcpyAsync_ptsz(CUdeviceptr D, CUdeviceptr S, size_t N, CUstream St) {
  REPTX_TRACE(cuMemcpyAsync_ptsz, D, S, N, St);
  St = perThreadDefault(St);
  return copyAny(D, S, N, St);
}
namespace {

// cuMemcpyBatchAsync: the copies in order (CUDA leaves their order within the batch open), each
// with an attribute entry: attrsIdxs starts at 0, rises, and stays below count; a source access
// order must be given. The order and location hints change no result.
CUresult copyBatch(CUdeviceptr *Dsts, CUdeviceptr *Srcs, size_t *Sizes, size_t Count,
                   CUmemcpyAttributes *Attrs, size_t *AttrsIdxs, size_t NumAttrs, CUstream S,
                   bool PerThread) {
  if (!Count || !Dsts || !Srcs || !Sizes || !Attrs || !AttrsIdxs || !NumAttrs || NumAttrs > Count ||
      AttrsIdxs[0] != 0)
    return CUDA_ERROR_INVALID_VALUE;
  // Not the legacy default stream (the per-thread one, through the _ptsz ABI, is allowed).
  if (S == CU_STREAM_LEGACY || (!S && !PerThread))
    return CUDA_ERROR_INVALID_VALUE;
  for (size_t I = 0; I < NumAttrs; ++I) {
    if ((I && AttrsIdxs[I] <= AttrsIdxs[I - 1]) || AttrsIdxs[I] >= Count)
      return CUDA_ERROR_INVALID_VALUE;
    CUmemcpySrcAccessOrder O = Attrs[I].srcAccessOrder;
    if (O != CU_MEMCPY_SRC_ACCESS_ORDER_STREAM && O != CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL &&
        O != CU_MEMCPY_SRC_ACCESS_ORDER_ANY)
      return CUDA_ERROR_INVALID_VALUE;
  }
  CUstream On = S ? S : CU_STREAM_PER_THREAD;
  for (size_t I = 0; I < Count; ++I)
    if (CUresult R = copyAny(Dsts[I], Srcs[I], Sizes[I], On))
      return R;
  return CUDA_SUCCESS;
}

} // namespace

CUresult cuMemcpyBatchAsync_v2(CUdeviceptr *Dsts, CUdeviceptr *Srcs, size_t *Sizes, size_t Count,
                               CUmemcpyAttributes *Attrs, size_t *AttrsIdxs, size_t NumAttrs,
                               CUstream S) {
  REPTX_TRACE(cuMemcpyBatchAsync_v2, Dsts, Srcs, Sizes, Count, Attrs, AttrsIdxs, NumAttrs, S);
  return copyBatch(Dsts, Srcs, Sizes, Count, Attrs, AttrsIdxs, NumAttrs, S, false);
}
CUresult cuMemcpyBatchAsync_v2_ptsz(CUdeviceptr *Dsts, CUdeviceptr *Srcs, size_t *Sizes,
                                    size_t Count, CUmemcpyAttributes *Attrs, size_t *AttrsIdxs,
                                    size_t NumAttrs, CUstream S) {
  REPTX_TRACE(cuMemcpyBatchAsync_v2_ptsz, Dsts, Srcs, Sizes, Count, Attrs, AttrsIdxs, NumAttrs, S);
  S = perThreadDefault(S);
  return copyBatch(Dsts, Srcs, Sizes, Count, Attrs, AttrsIdxs, NumAttrs, S, true);
}

CUresult cuMemcpy2D_v2(const CUDA_MEMCPY2D *P) {
  REPTX_TRACE(cuMemcpy2D_v2, P);
  return copy2D(P, nullptr);
}
CUresult cuMemcpy2D_v2_ptds(const CUDA_MEMCPY2D *P) {
  REPTX_TRACE(cuMemcpy2D_v2_ptds, P);
  return copy2D(P, nullptr);
}
CUresult cuMemcpy2DUnaligned_v2(const CUDA_MEMCPY2D *P) {
  REPTX_TRACE(cuMemcpy2DUnaligned_v2, P);
  return copy2D(P, nullptr);
}
CUresult cuMemcpy2DUnaligned_v2_ptds(const CUDA_MEMCPY2D *P) {
  REPTX_TRACE(cuMemcpy2DUnaligned_v2_ptds, P);
  return copy2D(P, nullptr);
}
CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *P, CUstream S) {
  REPTX_TRACE(cuMemcpy2DAsync_v2, P, S);
  return copy2D(P, S);
}
CUresult cuMemcpy2DAsync_v2_ptsz(const CUDA_MEMCPY2D *P, CUstream S) {
  REPTX_TRACE(cuMemcpy2DAsync_v2_ptsz, P, S);
  S = perThreadDefault(S);
  return copy2D(P, S);
}

CUresult cuMemsetD8_v2(CUdeviceptr D, unsigned char V, size_t N) {
  REPTX_TRACE(cuMemsetD8_v2, D, V, N);
  return fill(D, V, 1, N);
}
CUresult cuMemsetD8_v2_ptds(CUdeviceptr D, unsigned char V, size_t N) {
  REPTX_TRACE(cuMemsetD8_v2_ptds, D, V, N);
  return fill(D, V, 1, N);
}
CUresult cuMemsetD16_v2(CUdeviceptr D, unsigned short V, size_t N) {
  REPTX_TRACE(cuMemsetD16_v2, D, V, N);
  return fill(D, V, 2, N);
}
CUresult cuMemsetD16_v2_ptds(CUdeviceptr D, unsigned short V, size_t N) {
  REPTX_TRACE(cuMemsetD16_v2_ptds, D, V, N);
  return fill(D, V, 2, N);
}
CUresult cuMemsetD32_v2(CUdeviceptr D, unsigned int V, size_t N) {
  REPTX_TRACE(cuMemsetD32_v2, D, V, N);
  return fill(D, V, 4, N);
}
CUresult cuMemsetD32_v2_ptds(CUdeviceptr D, unsigned int V, size_t N) {
  REPTX_TRACE(cuMemsetD32_v2_ptds, D, V, N);
  return fill(D, V, 4, N);
}
CUresult cuMemsetD8Async(CUdeviceptr D, unsigned char V, size_t N, CUstream S) {
  REPTX_TRACE(cuMemsetD8Async, D, V, N, S);
  return fill(D, V, 1, N, S);
}
CUresult cuMemsetD8Async_ptsz(CUdeviceptr D, unsigned char V, size_t N, CUstream S) {
  REPTX_TRACE(cuMemsetD8Async_ptsz, D, V, N, S);
  S = perThreadDefault(S);
  return fill(D, V, 1, N, S);
}
CUresult cuMemsetD16Async(CUdeviceptr D, unsigned short V, size_t N, CUstream S) {
  REPTX_TRACE(cuMemsetD16Async, D, V, N, S);
  return fill(D, V, 2, N, S);
}
CUresult cuMemsetD16Async_ptsz(CUdeviceptr D, unsigned short V, size_t N, CUstream S) {
  REPTX_TRACE(cuMemsetD16Async_ptsz, D, V, N, S);
  S = perThreadDefault(S);
  return fill(D, V, 2, N, S);
}
CUresult cuMemsetD32Async(CUdeviceptr D, unsigned int V, size_t N, CUstream S) {
  REPTX_TRACE(cuMemsetD32Async, D, V, N, S);
  return fill(D, V, 4, N, S);
}
CUresult cuMemsetD32Async_ptsz(CUdeviceptr D, unsigned int V, size_t N, CUstream S) {
  REPTX_TRACE(cuMemsetD32Async_ptsz, D, V, N, S);
  S = perThreadDefault(S);
  return fill(D, V, 4, N, S);
}
CUresult cuMemsetD2D8_v2(CUdeviceptr D, size_t P, unsigned char V, size_t W, size_t H) {
  REPTX_TRACE(cuMemsetD2D8_v2, D, P, V, W, H);
  return fill2D(D, P, V, 1, W, H);
}
CUresult cuMemsetD2D8_v2_ptds(CUdeviceptr D, size_t P, unsigned char V, size_t W, size_t H) {
  REPTX_TRACE(cuMemsetD2D8_v2_ptds, D, P, V, W, H);
  return fill2D(D, P, V, 1, W, H);
}
CUresult cuMemsetD2D8Async(CUdeviceptr D, size_t P, unsigned char V, size_t W, size_t H,
                           CUstream S) {
  REPTX_TRACE(cuMemsetD2D8Async, D, P, V, W, H, S);
  return fill2D(D, P, V, 1, W, H, S);
}
CUresult cuMemsetD2D8Async_ptsz(CUdeviceptr D, size_t P, unsigned char V, size_t W, size_t H,
                                CUstream S) {
  REPTX_TRACE(cuMemsetD2D8Async_ptsz, D, P, V, W, H, S);
  S = perThreadDefault(S);
  return fill2D(D, P, V, 1, W, H, S);
}

CUresult cuMemcpy3D_v2(const CUDA_MEMCPY3D *P) {
  REPTX_TRACE(cuMemcpy3D_v2, P);
  return copy3D(P, nullptr);
}
CUresult cuMemcpy3D_v2_ptds(const CUDA_MEMCPY3D *P) {
  REPTX_TRACE(cuMemcpy3D_v2_ptds, P);
  return copy3D(P, nullptr);
}
CUresult cuMemcpy3DAsync_v2(const CUDA_MEMCPY3D *P, CUstream S) {
  REPTX_TRACE(cuMemcpy3DAsync_v2, P, S);
  return copy3D(P, S);
}
CUresult cuMemcpy3DAsync_v2_ptsz(const CUDA_MEMCPY3D *P, CUstream S) {
  REPTX_TRACE(cuMemcpy3DAsync_v2_ptsz, P, S);
  S = perThreadDefault(S);
  return copy3D(P, S);
}
CUresult cuMemcpy3DPeer(const CUDA_MEMCPY3D_PEER *P) {
  REPTX_TRACE(cuMemcpy3DPeer, P);
  return copy3DPeer(P, nullptr);
}
CUresult cuMemcpy3DPeer_ptds(const CUDA_MEMCPY3D_PEER *P) {
  REPTX_TRACE(cuMemcpy3DPeer_ptds, P);
  return copy3DPeer(P, nullptr);
}
CUresult cuMemcpy3DPeerAsync(const CUDA_MEMCPY3D_PEER *P, CUstream S) {
  REPTX_TRACE(cuMemcpy3DPeerAsync, P, S);
  return copy3DPeer(P, S);
}
CUresult cuMemcpy3DPeerAsync_ptsz(const CUDA_MEMCPY3D_PEER *P, CUstream S) {
  REPTX_TRACE(cuMemcpy3DPeerAsync_ptsz, P, S);
  S = perThreadDefault(S);
  return copy3DPeer(P, S);
}
CUresult cuMemcpyPeer(CUdeviceptr D, CUcontext DC, CUdeviceptr Sr, CUcontext SC, size_t N) {
  REPTX_TRACE(cuMemcpyPeer, D, DC, Sr, SC, N);
  return copyPeer(D, DC, Sr, SC, N, nullptr);
}
CUresult cuMemcpyPeer_ptds(CUdeviceptr D, CUcontext DC, CUdeviceptr Sr, CUcontext SC, size_t N) {
  REPTX_TRACE(cuMemcpyPeer_ptds, D, DC, Sr, SC, N);
  return copyPeer(D, DC, Sr, SC, N, nullptr);
}
CUresult cuMemcpyPeerAsync(CUdeviceptr D, CUcontext DC, CUdeviceptr Sr, CUcontext SC, size_t N,
                           CUstream S) {
  REPTX_TRACE(cuMemcpyPeerAsync, D, DC, Sr, SC, N, S);
  return copyPeer(D, DC, Sr, SC, N, S);
}
CUresult cuMemcpyPeerAsync_ptsz(CUdeviceptr D, CUcontext DC, CUdeviceptr Sr, CUcontext SC, size_t N,
                                CUstream S) {
  REPTX_TRACE(cuMemcpyPeerAsync_ptsz, D, DC, Sr, SC, N, S);
  S = perThreadDefault(S);
  return copyPeer(D, DC, Sr, SC, N, S);
}
CUresult cuMemsetD2D16_v2(CUdeviceptr D, size_t P, unsigned short V, size_t W, size_t H) {
  REPTX_TRACE(cuMemsetD2D16_v2, D, P, V, W, H);
  return fill2D(D, P, V, 2, W, H);
}
CUresult cuMemsetD2D16_v2_ptds(CUdeviceptr D, size_t P, unsigned short V, size_t W, size_t H) {
  REPTX_TRACE(cuMemsetD2D16_v2_ptds, D, P, V, W, H);
  return fill2D(D, P, V, 2, W, H);
}
CUresult cuMemsetD2D16Async(CUdeviceptr D, size_t P, unsigned short V, size_t W, size_t H,
                            CUstream S) {
  REPTX_TRACE(cuMemsetD2D16Async, D, P, V, W, H, S);
  return fill2D(D, P, V, 2, W, H, S);
}
CUresult cuMemsetD2D16Async_ptsz(CUdeviceptr D, size_t P, unsigned short V, size_t W, size_t H,
                                 CUstream S) {
  REPTX_TRACE(cuMemsetD2D16Async_ptsz, D, P, V, W, H, S);
  S = perThreadDefault(S);
  return fill2D(D, P, V, 2, W, H, S);
}
CUresult cuMemsetD2D32_v2(CUdeviceptr D, size_t P, unsigned int V, size_t W, size_t H) {
  REPTX_TRACE(cuMemsetD2D32_v2, D, P, V, W, H);
  return fill2D(D, P, V, 4, W, H);
}
CUresult cuMemsetD2D32_v2_ptds(CUdeviceptr D, size_t P, unsigned int V, size_t W, size_t H) {
  REPTX_TRACE(cuMemsetD2D32_v2_ptds, D, P, V, W, H);
  return fill2D(D, P, V, 4, W, H);
}
CUresult cuMemsetD2D32Async(CUdeviceptr D, size_t P, unsigned int V, size_t W, size_t H,
                            CUstream S) {
  REPTX_TRACE(cuMemsetD2D32Async, D, P, V, W, H, S);
  return fill2D(D, P, V, 4, W, H, S);
}
CUresult cuMemsetD2D32Async_ptsz(CUdeviceptr D, size_t P, unsigned int V, size_t W, size_t H,
                                 CUstream S) {
  REPTX_TRACE(cuMemsetD2D32Async_ptsz, D, P, V, W, H, S);
  S = perThreadDefault(S);
  return fill2D(D, P, V, 4, W, H, S);
}

// ------------------------------------------------------------------ streams

static CUresult createStream(CUstream *Out, unsigned Flags, int Priority) {
  Context *C;
  if (CUresult R = withContext(C))
    return R;
  if (!Out)
    return CUDA_ERROR_INVALID_VALUE;
  auto *S = new Stream;
  S->Id = newStreamId();
  S->Ctx = C;
  S->Flags = Flags;
  S->Priority = Priority;
  *Out = reinterpret_cast<CUstream>(S);
  return CUDA_SUCCESS;
}

CUresult cuStreamCreate(CUstream *Out, unsigned int Flags) {
  REPTX_TRACE(cuStreamCreate, Out, Flags);
  return createStream(Out, Flags, 0);
}
CUresult cuStreamCreateWithPriority(CUstream *Out, unsigned int Flags, int Priority) {
  REPTX_TRACE(cuStreamCreateWithPriority, Out, Flags, Priority);
  return createStream(Out, Flags, Priority);
}

CUresult cuStreamDestroy_v2(CUstream S) {
  REPTX_TRACE(cuStreamDestroy_v2, S);
  auto *St = reinterpret_cast<Stream *>(S);
  if (!St || St->T != Tag::Stream)
    return CUDA_ERROR_INVALID_HANDLE;
  forgetStream(St);
  forgetStreamAttributes(S);
  forgetStreamProgress(St->Ctx, S);
  St->T = Tag{};
  delete St;
  return CUDA_SUCCESS;
}
CUresult cuStreamDestroy(CUstream S) {
  REPTX_TRACE(cuStreamDestroy, S);
  return cuStreamDestroy_v2(S);
}

// Waiting for a stream (streamFinish) or asking about it without waiting (streamProgress: on
// HIP, whether the device has run what was submitted on it; on the emulator that finished before
// the calls returned). Neither is allowed in a capture.
static CUresult streamWaitOrAsk(CUstream S, CUresult (*How)(Context *, CUstream)) {
  Context *C;
  if (CUresult R = streamContext(S, C))
    return R;
  if (CUresult R = captureRefuses(S))
    return R;
  return How(C, S);
}
CUresult cuStreamSynchronize(CUstream S) {
  REPTX_TRACE(cuStreamSynchronize, S);
  return streamWaitOrAsk(S, streamFinish);
}
CUresult cuStreamSynchronize_ptsz(CUstream S) {
  REPTX_TRACE(cuStreamSynchronize_ptsz, S);
  S = perThreadDefault(S);
  return streamWaitOrAsk(S, streamFinish);
}
CUresult cuStreamQuery(CUstream S) {
  REPTX_TRACE(cuStreamQuery, S);
  return streamWaitOrAsk(S, streamProgress);
}
CUresult cuStreamQuery_ptsz(CUstream S) {
  REPTX_TRACE(cuStreamQuery_ptsz, S);
  S = perThreadDefault(S);
  return streamWaitOrAsk(S, streamProgress);
}

static CUresult streamWait(CUstream S, CUevent E) {
  Context *C;
  if (CUresult R = streamContext(S, C))
    return R;
  auto *Ev = reinterpret_cast<Event *>(E);
  if (!Ev || Ev->T != Tag::Event)
    return CUDA_ERROR_INVALID_HANDLE;
  // Outside a capture the event's work has completed already; in one, the wait is an edge.
  return captureStreamWait(S, Ev);
}
CUresult cuStreamWaitEvent(CUstream S, CUevent E, unsigned int Flags) {
  REPTX_TRACE(cuStreamWaitEvent, S, E, Flags);
  return streamWait(S, E);
}
CUresult cuStreamWaitEvent_ptsz(CUstream S, CUevent E, unsigned int Flags) {
  REPTX_TRACE(cuStreamWaitEvent_ptsz, S, E, Flags);
  S = perThreadDefault(S);
  return streamWait(S, E);
}

static CUresult streamFlags(CUstream S, unsigned int *Flags) {
  Context *C;
  if (CUresult R = streamContext(S, C))
    return R;
  if (!Flags)
    return CUDA_ERROR_INVALID_VALUE;
  auto V = reinterpret_cast<uintptr_t>(S);
  *Flags = V <= 2 ? 0 : reinterpret_cast<Stream *>(S)->Flags;
  return CUDA_SUCCESS;
}
CUresult cuStreamGetFlags(CUstream S, unsigned int *F) {
  REPTX_TRACE(cuStreamGetFlags, S, F);
  return streamFlags(S, F);
}
CUresult cuStreamGetFlags_ptsz(CUstream S, unsigned int *F) {
  REPTX_TRACE(cuStreamGetFlags_ptsz, S, F);
  S = perThreadDefault(S);
  return streamFlags(S, F);
}

static CUresult streamPriority(CUstream S, int *P) {
  Context *C;
  if (CUresult R = streamContext(S, C))
    return R;
  if (!P)
    return CUDA_ERROR_INVALID_VALUE;
  *P = reinterpret_cast<uintptr_t>(S) <= 2 ? 0 : reinterpret_cast<Stream *>(S)->Priority;
  return CUDA_SUCCESS;
}
CUresult cuStreamGetPriority(CUstream S, int *P) {
  REPTX_TRACE(cuStreamGetPriority, S, P);
  return streamPriority(S, P);
}
CUresult cuStreamGetPriority_ptsz(CUstream S, int *P) {
  REPTX_TRACE(cuStreamGetPriority_ptsz, S, P);
  S = perThreadDefault(S);
  return streamPriority(S, P);
}

static CUresult streamCtx(CUstream S, CUcontext *Out) {
  Context *C;
  if (CUresult R = streamContext(S, C))
    return R;
  if (!Out)
    return CUDA_ERROR_INVALID_VALUE;
  *Out = reinterpret_cast<CUcontext>(C);
  return CUDA_SUCCESS;
}
CUresult cuStreamGetCtx(CUstream S, CUcontext *C) {
  REPTX_TRACE(cuStreamGetCtx, S, C);
  return streamCtx(S, C);
}
CUresult cuStreamGetCtx_ptsz(CUstream S, CUcontext *C) {
  REPTX_TRACE(cuStreamGetCtx_ptsz, S, C);
  S = perThreadDefault(S);
  return streamCtx(S, C);
}

// A stream of a context, never of a green context (reptx has none).
CUresult cuStreamGetCtx_v2(CUstream S, CUcontext *C, CUgreenCtx *Green) {
  REPTX_TRACE(cuStreamGetCtx_v2, S, C, Green);
  if (!C || !Green)
    return CUDA_ERROR_INVALID_VALUE;
  *Green = nullptr;
  return streamCtx(S, C);
}
CUresult cuStreamGetCtx_v2_ptsz(CUstream S, CUcontext *C, CUgreenCtx *Green) {
  REPTX_TRACE(cuStreamGetCtx_v2_ptsz, S, C, Green);
  S = perThreadDefault(S);
  return cuStreamGetCtx_v2(S, C, Green);
}

static CUresult hostFunc(CUstream S, CUhostFn Fn, void *Data) {
  Context *C;
  if (CUresult R = streamContext(S, C))
    return R;
  if (!Fn)
    return CUDA_ERROR_INVALID_VALUE;
  if (captureOf(S)) {
    auto N = std::make_unique<GraphNode>();
    N->Type = CU_GRAPH_NODE_TYPE_HOST;
    N->Ctx = C;
    N->Host = {Fn, Data};
    return capture(S, std::move(N));
  }
  contextSynchronize(C); // all earlier work of the stream has completed (and printed)
  Fn(Data);
  return CUDA_SUCCESS;
}
CUresult cuLaunchHostFunc(CUstream S, CUhostFn Fn, void *Data) {
  REPTX_TRACE(cuLaunchHostFunc, S, Fn, Data);
  return hostFunc(S, Fn, Data);
}
CUresult cuLaunchHostFunc_ptsz(CUstream S, CUhostFn Fn, void *Data) {
  REPTX_TRACE(cuLaunchHostFunc_ptsz, S, Fn, Data);
  S = perThreadDefault(S);
  return hostFunc(S, Fn, Data);
}

// cuStreamAddCallback: as cuLaunchHostFunc, with the stream and the status of its earlier work
// (the context's sticky error) passed to the callback; not part of a stream capture.
static CUresult addCallback(CUstream S, CUstreamCallback Fn, void *Data, unsigned Flags) {
  Context *C;
  if (CUresult R = streamContext(S, C))
    return R;
  if (!Fn || Flags != 0)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult R = captureRefuses(S))
    return R;
  CUresult Status = contextSynchronize(C); // the earlier work has completed (and printed)
  Fn(S, Status, Data);
  return CUDA_SUCCESS;
}
CUresult cuStreamAddCallback(CUstream hStream, CUstreamCallback callback, void *userData,
                             unsigned int flags) {
  REPTX_TRACE(cuStreamAddCallback, hStream, callback, userData, flags);
  return addCallback(hStream, callback, userData, flags);
}
CUresult cuStreamAddCallback_ptsz(CUstream hStream, CUstreamCallback callback, void *userData,
                                  unsigned int flags) {
  REPTX_TRACE(cuStreamAddCallback_ptsz, hStream, callback, userData, flags);
  hStream = perThreadDefault(hStream);
  return addCallback(hStream, callback, userData, flags);
}

// Stream identities: the legacy default stream is 0, each thread's per-thread default stream and
// each created stream a number of its own, never reused.
namespace {
std::atomic<unsigned long long> NextStreamId{1};
}
unsigned long long reptx::loader::newStreamId() { return NextStreamId++; }

static CUresult streamId(CUstream S, bool PerThreadDefault, unsigned long long *Id) {
  Context *C;
  if (CUresult R = streamContext(S, C))
    return R;
  if (!Id)
    return CUDA_ERROR_INVALID_VALUE;
  auto V = reinterpret_cast<uintptr_t>(S);
  if (V == uintptr_t(CU_STREAM_PER_THREAD) || (V == 0 && PerThreadDefault)) {
    thread_local unsigned long long PerThread = newStreamId();
    *Id = PerThread;
  } else {
    *Id = V <= 2 ? 0 : reinterpret_cast<Stream *>(S)->Id;
  }
  return CUDA_SUCCESS;
}
CUresult cuStreamGetId(CUstream hStream, unsigned long long *streamId) {
  REPTX_TRACE(cuStreamGetId, hStream, streamId);
  return ::streamId(hStream, false, streamId);
}
CUresult cuStreamGetId_ptsz(CUstream hStream, unsigned long long *streamId) {
  REPTX_TRACE(cuStreamGetId_ptsz, hStream, streamId);
  hStream = perThreadDefault(hStream);
  return ::streamId(hStream, true, streamId);
}

static CUresult streamDevice(CUstream S, CUdevice *Dev) {
  Context *C;
  if (CUresult R = streamContext(S, C))
    return R;
  if (!Dev)
    return CUDA_ERROR_INVALID_VALUE;
  *Dev = C->Dev->Ordinal;
  return CUDA_SUCCESS;
}
CUresult cuStreamGetDevice(CUstream hStream, CUdevice *device) {
  REPTX_TRACE(cuStreamGetDevice, hStream, device);
  return streamDevice(hStream, device);
}
CUresult cuStreamGetDevice_ptsz(CUstream hStream, CUdevice *device) {
  REPTX_TRACE(cuStreamGetDevice_ptsz, hStream, device);
  hStream = perThreadDefault(hStream);
  return streamDevice(hStream, device);
}

// Stream attributes: the access policy window (an L2 persistence hint), the synchronization
// policy and the memory synchronization domain and its map are kept and reported, not acted on
// (hints with no effect on results); the priority is the stream's. Others are not stream
// attributes.
namespace {
std::mutex AttrMutex;
std::map<uintptr_t, std::map<int, CUstreamAttrValue>> &streamAttrs() {
  static auto *M = new std::map<uintptr_t, std::map<int, CUstreamAttrValue>>;
  return *M;
}
bool streamAttribute(CUstreamAttrID A) {
  return A == CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW ||
         A == CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY || A == CU_LAUNCH_ATTRIBUTE_PRIORITY ||
         A == CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP || A == CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN;
}
} // namespace

void reptx::loader::forgetStreamAttributes(CUstream S) {
  std::lock_guard<std::mutex> L(AttrMutex);
  streamAttrs().erase(reinterpret_cast<uintptr_t>(S));
}

static CUresult getStreamAttribute(CUstream S, CUstreamAttrID A, CUstreamAttrValue *Out) {
  Context *C;
  if (CUresult R = streamContext(S, C))
    return R;
  if (!Out || !streamAttribute(A))
    return CUDA_ERROR_INVALID_VALUE;
  *Out = CUstreamAttrValue{};
  if (A == CU_LAUNCH_ATTRIBUTE_PRIORITY)
    return streamPriority(S, &Out->priority);
  std::lock_guard<std::mutex> L(AttrMutex);
  auto &Attrs = streamAttrs()[reinterpret_cast<uintptr_t>(S)];
  if (auto It = Attrs.find(A); It != Attrs.end())
    *Out = It->second;
  return CUDA_SUCCESS;
}
static CUresult setStreamAttribute(CUstream S, CUstreamAttrID A, const CUstreamAttrValue *V) {
  Context *C;
  if (CUresult R = streamContext(S, C))
    return R;
  if (!V || !streamAttribute(A))
    return CUDA_ERROR_INVALID_VALUE;
  if (A == CU_LAUNCH_ATTRIBUTE_PRIORITY) {
    if (reinterpret_cast<uintptr_t>(S) > 2)
      reinterpret_cast<Stream *>(S)->Priority = V->priority;
    return CUDA_SUCCESS;
  }
  std::lock_guard<std::mutex> L(AttrMutex);
  streamAttrs()[reinterpret_cast<uintptr_t>(S)][A] = *V;
  return CUDA_SUCCESS;
}
static CUresult copyStreamAttributes(CUstream Dst, CUstream Src) {
  Context *C;
  if (CUresult R = streamContext(Dst, C))
    return R;
  if (CUresult R = streamContext(Src, C))
    return R;
  for (auto A : {CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW,
                 CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY, CU_LAUNCH_ATTRIBUTE_PRIORITY,
                 CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP, CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN}) {
    CUstreamAttrValue V;
    if (CUresult R = getStreamAttribute(Src, A, &V))
      return R;
    if (CUresult R = setStreamAttribute(Dst, A, &V))
      return R;
  }
  return CUDA_SUCCESS;
}
CUresult cuStreamGetAttribute(CUstream hStream, CUstreamAttrID attr, CUstreamAttrValue *value_out) {
  REPTX_TRACE(cuStreamGetAttribute, hStream, attr, value_out);
  return getStreamAttribute(hStream, attr, value_out);
}
CUresult cuStreamGetAttribute_ptsz(CUstream hStream, CUstreamAttrID attr,
                                   CUstreamAttrValue *value_out) {
  REPTX_TRACE(cuStreamGetAttribute_ptsz, hStream, attr, value_out);
  hStream = perThreadDefault(hStream);
  return getStreamAttribute(hStream, attr, value_out);
}
CUresult cuStreamSetAttribute(CUstream hStream, CUstreamAttrID attr,
                              const CUstreamAttrValue *value) {
  REPTX_TRACE(cuStreamSetAttribute, hStream, attr, value);
  return setStreamAttribute(hStream, attr, value);
}
CUresult cuStreamSetAttribute_ptsz(CUstream hStream, CUstreamAttrID attr,
                                   const CUstreamAttrValue *value) {
  REPTX_TRACE(cuStreamSetAttribute_ptsz, hStream, attr, value);
  hStream = perThreadDefault(hStream);
  return setStreamAttribute(hStream, attr, value);
}
CUresult cuStreamCopyAttributes(CUstream dst, CUstream src) {
  REPTX_TRACE(cuStreamCopyAttributes, dst, src);
  return copyStreamAttributes(dst, src);
}
CUresult cuStreamCopyAttributes_ptsz(CUstream dst, CUstream src) {
  REPTX_TRACE(cuStreamCopyAttributes_ptsz, dst, src);
  dst = perThreadDefault(dst);
  src = perThreadDefault(src);
  return copyStreamAttributes(dst, src);
}

// Stream memory operations ("Stream Memory Operations"): a write of a 32- or 64-bit value, and
// a wait until the value at an address meets a condition. Every earlier operation of the stream
// has completed at the call (on HIP once it has been waited for), so a write is immediate; a wait
// that another thread's write must release polls the value (for at most 10 seconds: on a device
// that runs one operation at a time a condition that only later work of another stream could meet
// would never be met).
template <typename T>
static CUresult memoryWord(Context *C, CUdeviceptr Addr, T *Value, bool Write) {
  if (!Addr || Addr % sizeof(T))
    return CUDA_ERROR_INVALID_VALUE;
  ExecBackend &B = *C->Dev->Backend;
  if (isDevice(B, Addr))
    return fromError(Write ? B.copyToDevice(Addr, Value, sizeof(T))
                           : B.copyToHost(Value, Addr, sizeof(T)),
                     "stream memory operation");
  auto *P = reinterpret_cast<volatile T *>(Addr); // registered host memory
  // A write follows the stream's earlier work: on an asynchronous device, once it has finished.
  // (A wait polls the value, which running kernels may be about to write.)
  if (Write && B.asynchronous())
    if (CUresult R = contextSynchronize(C))
      return R;
  if (Write)
    *P = *Value;
  else
    *Value = *P;
  return CUDA_SUCCESS;
}

template <typename T>
static CUresult writeValue(CUstream S, CUdeviceptr Addr, T Value, unsigned Flags) {
  Context *C;
  if (CUresult R = streamContext(S, C))
    return R;
  if (Flags & ~unsigned(CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER))
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult R = captureRefuses(S))
    return R;
  return memoryWord(C, Addr, &Value, true);
}

template <typename T>
static CUresult waitValue(CUstream S, CUdeviceptr Addr, T Value, unsigned Flags) {
  Context *C;
  if (CUresult R = streamContext(S, C))
    return R;
  unsigned Cond = Flags & 3;
  if (Flags & ~unsigned(3 | CU_STREAM_WAIT_VALUE_FLUSH))
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult R = captureRefuses(S))
    return R;
  using S_ = std::make_signed_t<T>;
  auto Deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (;;) {
    T Now;
    if (CUresult R = memoryWord(C, Addr, &Now, false))
      return R;
    bool Met = Cond == CU_STREAM_WAIT_VALUE_GEQ   ? S_(T(Now - Value)) >= 0
               : Cond == CU_STREAM_WAIT_VALUE_EQ  ? Now == Value
               : Cond == CU_STREAM_WAIT_VALUE_AND ? (Now & Value) != 0
                                                  : T(~(Now | Value)) != 0;
    if (Met)
      return CUDA_SUCCESS;
    if (std::chrono::steady_clock::now() > Deadline) {
      log().error("cuStreamWaitValue{}: the value at {:#x} ({:#x}) did not meet the condition "
                  "(flags {:#x}, value {:#x}) within 10 seconds",
                  8 * sizeof(T), Addr, uint64_t(Now), Flags, uint64_t(Value));
      return CUDA_ERROR_LAUNCH_TIMEOUT;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

CUresult reptx::loader::checkBatchMemOps(unsigned Count, const CUstreamBatchMemOpParams *Ops,
                                         unsigned Flags) {
  if (Flags || (Count && !Ops) || Count >= 256) // "must be less than 256" (cuda.h)
    return CUDA_ERROR_INVALID_VALUE;
  for (unsigned I = 0; I < Count; ++I) {
    const CUstreamBatchMemOpParams &Op = Ops[I];
    switch (Op.operation) {
    case CU_STREAM_MEM_OP_WAIT_VALUE_32:
    case CU_STREAM_MEM_OP_WAIT_VALUE_64:
    case CU_STREAM_MEM_OP_WRITE_VALUE_32:
    case CU_STREAM_MEM_OP_WRITE_VALUE_64:
      break;
    case CU_STREAM_MEM_OP_FLUSH_REMOTE_WRITES:
      if (Op.flushRemoteWrites.flags)
        return CUDA_ERROR_INVALID_VALUE;
      break;
    case CU_STREAM_MEM_OP_BARRIER:
      if (Op.memoryBarrier.flags != CU_STREAM_MEMORY_BARRIER_TYPE_SYS &&
          Op.memoryBarrier.flags != CU_STREAM_MEMORY_BARRIER_TYPE_GPU)
        return CUDA_ERROR_INVALID_VALUE;
      break;
    default:
      return CUDA_ERROR_INVALID_VALUE;
    }
  }
  return CUDA_SUCCESS;
}

// cuStreamBatchMemOp: the operations in order, each as its own entry point does it; a barrier
// and a flush have nothing to wait for (every operation completes before the call returns).
// An operation that is not valid refuses the whole batch before any of it runs.
CUresult reptx::loader::runBatchMemOps(CUstream S, unsigned Count,
                                       const CUstreamBatchMemOpParams *Ops, unsigned Flags) {
  if (CUresult R = checkBatchMemOps(Count, Ops, Flags))
    return R;
  for (unsigned I = 0; I < Count; ++I) {
    const CUstreamBatchMemOpParams &Op = Ops[I];
    CUresult R = CUDA_SUCCESS;
    switch (Op.operation) {
    case CU_STREAM_MEM_OP_WAIT_VALUE_32:
      R = waitValue(S, Op.waitValue.address, Op.waitValue.value, Op.waitValue.flags);
      break;
    case CU_STREAM_MEM_OP_WAIT_VALUE_64:
      R = waitValue(S, Op.waitValue.address, Op.waitValue.value64, Op.waitValue.flags);
      break;
    case CU_STREAM_MEM_OP_WRITE_VALUE_32:
      R = writeValue(S, Op.writeValue.address, Op.writeValue.value, Op.writeValue.flags);
      break;
    case CU_STREAM_MEM_OP_WRITE_VALUE_64:
      R = writeValue(S, Op.writeValue.address, Op.writeValue.value64, Op.writeValue.flags);
      break;
    default:
      R = captureRefuses(S);
      break;
    }
    if (R)
      return R;
  }
  return CUDA_SUCCESS;
}

CUresult cuStreamBatchMemOp(CUstream stream, unsigned int count,
                            CUstreamBatchMemOpParams *paramArray, unsigned int flags) {
  REPTX_TRACE(cuStreamBatchMemOp, stream, count, paramArray, flags);
  return runBatchMemOps(stream, count, paramArray, flags);
}
CUresult cuStreamBatchMemOp_ptsz(CUstream stream, unsigned int count,
                                 CUstreamBatchMemOpParams *paramArray, unsigned int flags) {
  REPTX_TRACE(cuStreamBatchMemOp_ptsz, stream, count, paramArray, flags);
  stream = perThreadDefault(stream);
  return runBatchMemOps(stream, count, paramArray, flags);
}
CUresult cuStreamBatchMemOp_v2(CUstream stream, unsigned int count,
                               CUstreamBatchMemOpParams *paramArray, unsigned int flags) {
  REPTX_TRACE(cuStreamBatchMemOp_v2, stream, count, paramArray, flags);
  return runBatchMemOps(stream, count, paramArray, flags);
}
CUresult cuStreamBatchMemOp_v2_ptsz(CUstream stream, unsigned int count,
                                    CUstreamBatchMemOpParams *paramArray, unsigned int flags) {
  REPTX_TRACE(cuStreamBatchMemOp_v2_ptsz, stream, count, paramArray, flags);
  stream = perThreadDefault(stream);
  return runBatchMemOps(stream, count, paramArray, flags);
}

// The _v2 ABIs (CUDA 11.7) have the same parameters.
CUresult cuStreamWaitValue32_v2(CUstream stream, CUdeviceptr addr, uint32_t value,
                                unsigned int flags) {
  REPTX_TRACE(cuStreamWaitValue32_v2, stream, addr, value, flags);
  return waitValue(stream, addr, value, flags);
}
CUresult cuStreamWaitValue32_v2_ptsz(CUstream stream, CUdeviceptr addr, uint32_t value,
                                     unsigned int flags) {
  REPTX_TRACE(cuStreamWaitValue32_v2_ptsz, stream, addr, value, flags);
  stream = perThreadDefault(stream);
  return waitValue(stream, addr, value, flags);
}
CUresult cuStreamWriteValue32_v2(CUstream stream, CUdeviceptr addr, uint32_t value,
                                 unsigned int flags) {
  REPTX_TRACE(cuStreamWriteValue32_v2, stream, addr, value, flags);
  return writeValue(stream, addr, value, flags);
}
CUresult cuStreamWriteValue32_v2_ptsz(CUstream stream, CUdeviceptr addr, uint32_t value,
                                      unsigned int flags) {
  REPTX_TRACE(cuStreamWriteValue32_v2_ptsz, stream, addr, value, flags);
  stream = perThreadDefault(stream);
  return writeValue(stream, addr, value, flags);
}
CUresult cuStreamWaitValue64_v2(CUstream stream, CUdeviceptr addr, cuuint64_t value,
                                unsigned int flags) {
  REPTX_TRACE(cuStreamWaitValue64_v2, stream, addr, value, flags);
  return waitValue(stream, addr, value, flags);
}
CUresult cuStreamWaitValue64_v2_ptsz(CUstream stream, CUdeviceptr addr, cuuint64_t value,
                                     unsigned int flags) {
  REPTX_TRACE(cuStreamWaitValue64_v2_ptsz, stream, addr, value, flags);
  stream = perThreadDefault(stream);
  return waitValue(stream, addr, value, flags);
}
CUresult cuStreamWriteValue64_v2(CUstream stream, CUdeviceptr addr, cuuint64_t value,
                                 unsigned int flags) {
  REPTX_TRACE(cuStreamWriteValue64_v2, stream, addr, value, flags);
  return writeValue(stream, addr, value, flags);
}
CUresult cuStreamWriteValue64_v2_ptsz(CUstream stream, CUdeviceptr addr, cuuint64_t value,
                                      unsigned int flags) {
  REPTX_TRACE(cuStreamWriteValue64_v2_ptsz, stream, addr, value, flags);
  stream = perThreadDefault(stream);
  return writeValue(stream, addr, value, flags);
}
CUresult cuStreamWaitValue32(CUstream stream, CUdeviceptr addr, uint32_t value,
                             unsigned int flags) {
  REPTX_TRACE(cuStreamWaitValue32, stream, addr, value, flags);
  return waitValue(stream, addr, value, flags);
}
CUresult cuStreamWaitValue32_ptsz(CUstream stream, CUdeviceptr addr, uint32_t value,
                                  unsigned int flags) {
  REPTX_TRACE(cuStreamWaitValue32_ptsz, stream, addr, value, flags);
  stream = perThreadDefault(stream);
  return waitValue(stream, addr, value, flags);
}
CUresult cuStreamWriteValue32(CUstream stream, CUdeviceptr addr, uint32_t value,
                              unsigned int flags) {
  REPTX_TRACE(cuStreamWriteValue32, stream, addr, value, flags);
  return writeValue(stream, addr, value, flags);
}
CUresult cuStreamWriteValue32_ptsz(CUstream stream, CUdeviceptr addr, uint32_t value,
                                   unsigned int flags) {
  REPTX_TRACE(cuStreamWriteValue32_ptsz, stream, addr, value, flags);
  stream = perThreadDefault(stream);
  return writeValue(stream, addr, value, flags);
}
CUresult cuStreamWaitValue64(CUstream stream, CUdeviceptr addr, cuuint64_t value,
                             unsigned int flags) {
  REPTX_TRACE(cuStreamWaitValue64, stream, addr, value, flags);
  return waitValue(stream, addr, value, flags);
}
CUresult cuStreamWaitValue64_ptsz(CUstream stream, CUdeviceptr addr, cuuint64_t value,
                                  unsigned int flags) {
  REPTX_TRACE(cuStreamWaitValue64_ptsz, stream, addr, value, flags);
  stream = perThreadDefault(stream);
  return waitValue(stream, addr, value, flags);
}
CUresult cuStreamWriteValue64(CUstream stream, CUdeviceptr addr, cuuint64_t value,
                              unsigned int flags) {
  REPTX_TRACE(cuStreamWriteValue64, stream, addr, value, flags);
  return writeValue(stream, addr, value, flags);
}
CUresult cuStreamWriteValue64_ptsz(CUstream stream, CUdeviceptr addr, cuuint64_t value,
                                   unsigned int flags) {
  REPTX_TRACE(cuStreamWriteValue64_ptsz, stream, addr, value, flags);
  stream = perThreadDefault(stream);
  return writeValue(stream, addr, value, flags);
}

static CUresult isCapturing(CUstream S, CUstreamCaptureStatus *Status) {
  Context *C;
  if (CUresult R = streamContext(S, C))
    return R;
  if (!Status)
    return CUDA_ERROR_INVALID_VALUE;
  Capture *Cap = captureOf(S);
  *Status = !Cap               ? CU_STREAM_CAPTURE_STATUS_NONE
            : Cap->Invalidated ? CU_STREAM_CAPTURE_STATUS_INVALIDATED
                               : CU_STREAM_CAPTURE_STATUS_ACTIVE;
  return CUDA_SUCCESS;
}
CUresult cuStreamIsCapturing(CUstream S, CUstreamCaptureStatus *St) {
  REPTX_TRACE(cuStreamIsCapturing, S, St);
  return isCapturing(S, St);
}
CUresult cuStreamIsCapturing_ptsz(CUstream S, CUstreamCaptureStatus *St) {
  REPTX_TRACE(cuStreamIsCapturing_ptsz, S, St);
  S = perThreadDefault(S);
  return isCapturing(S, St);
}

// ------------------------------------------------------------------ events

CUresult cuEventCreate(CUevent *Out, unsigned int Flags) {
  REPTX_TRACE(cuEventCreate, Out, Flags);
  Context *C;
  if (CUresult R = withContext(C))
    return R;
  if (!Out)
    return CUDA_ERROR_INVALID_VALUE;
  auto *E = new Event;
  E->Flags = Flags;
  *Out = reinterpret_cast<CUevent>(E);
  return CUDA_SUCCESS;
}

CUresult cuEventDestroy_v2(CUevent E) {
  REPTX_TRACE(cuEventDestroy_v2, E);
  auto *Ev = reinterpret_cast<Event *>(E);
  if (!Ev || Ev->T != Tag::Event)
    return CUDA_ERROR_INVALID_HANDLE;
  if (Ev->Device)
    Ev->Backend->destroyEvent(Ev->Device);
  Ev->T = Tag{};
  delete Ev;
  return CUDA_SUCCESS;
}
CUresult cuEventDestroy(CUevent E) {
  REPTX_TRACE(cuEventDestroy, E);
  return cuEventDestroy_v2(E);
}

static CUresult eventRecord(CUevent E, CUstream S) {
  Context *C;
  if (CUresult R = streamContext(S, C))
    return R;
  auto *Ev = reinterpret_cast<Event *>(E);
  if (!Ev || Ev->T != Tag::Event)
    return CUDA_ERROR_INVALID_HANDLE;
  bool Handled = false; // recorded in a capture
  if (CUresult R = captureEventRecord(S, Ev, Handled); R || Handled)
    return R;
  return recordEvent(Ev, C);
}
CUresult cuEventRecord(CUevent E, CUstream S) {
  REPTX_TRACE(cuEventRecord, E, S);
  return eventRecord(E, S);
}
CUresult cuEventRecord_ptsz(CUevent E, CUstream S) {
  REPTX_TRACE(cuEventRecord_ptsz, E, S);
  S = perThreadDefault(S);
  return eventRecord(E, S);
}
CUresult cuEventRecordWithFlags(CUevent E, CUstream S, unsigned int Flags) {
  REPTX_TRACE(cuEventRecordWithFlags, E, S, Flags);
  return eventRecord(E, S);
}
CUresult cuEventRecordWithFlags_ptsz(CUevent E, CUstream S, unsigned int Flags) {
  REPTX_TRACE(cuEventRecordWithFlags_ptsz, E, S, Flags);
  S = perThreadDefault(S);
  return eventRecord(E, S);
}

// cuCtxRecordEvent / cuCtxWaitEvent (CUDA 12.5): an event of all the context's work so far, and
// a wait for one. The device runs one queue in order, so recording is a plain record and a wait
// of later work is already ordered after it; a capture the call would have to take part in
// refuses it, as CUDA does.
static CUresult contextEvent(CUcontext H, CUevent E, bool Record) {
  if (!Driver::get().initialized())
    return CUDA_ERROR_NOT_INITIALIZED;
  if (!H || !Driver::get().validContext(H))
    return CUDA_ERROR_INVALID_CONTEXT;
  auto *Ev = reinterpret_cast<Event *>(E);
  if (!Ev || Ev->T != Tag::Event)
    return CUDA_ERROR_INVALID_HANDLE;
  if (CUresult R = captureForbidsUnsafeCall())
    return R;
  if (!Record && Ev->CaptureId)
    return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED; // an event of an ongoing capture
  if (Record)
    return recordEvent(Ev, reinterpret_cast<Context *>(H));
  return CUDA_SUCCESS;
}
CUresult cuCtxRecordEvent(CUcontext hCtx, CUevent hEvent) {
  REPTX_TRACE(cuCtxRecordEvent, hCtx, hEvent);
  return contextEvent(hCtx, hEvent, true);
}
CUresult cuCtxWaitEvent(CUcontext hCtx, CUevent hEvent) {
  REPTX_TRACE(cuCtxWaitEvent, hCtx, hEvent);
  return contextEvent(hCtx, hEvent, false);
}

// A fault of the work before an event, found by waiting for it or asking: the current context's
// sticky error, as a synchronisation makes it.
static CUresult eventFault(DeviceFault F) {
  CUresult R = faultResult(F);
  Context *C;
  if (currentOrError(C) != CUDA_SUCCESS)
    return R;
  if (printfDrain(*C->Dev) && F == DeviceFault::LaunchFailed)
    R = CUDA_ERROR_ASSERT; // a trap after a failed assert's message
  C->Sticky.store(R);
  return R;
}

// An event recorded on an asynchronous backend completes with the work before it (the device's
// event says when); elsewhere that work completed before cuEventRecord returned.
CUresult cuEventQuery(CUevent E) {
  REPTX_TRACE(cuEventQuery, E);
  auto *Ev = reinterpret_cast<Event *>(E);
  if (!Ev || Ev->T != Tag::Event)
    return CUDA_ERROR_INVALID_HANDLE;
  if (Ev->Recorded && Ev->Device) {
    DeviceFault F = DeviceFault::None;
    auto Done = Ev->Backend->eventDone(Ev->Device, F);
    if (!Done) {
      log().error("cuEventQuery: {}", llvm::toString(Done.takeError()));
      return CUDA_ERROR_UNKNOWN;
    }
    if (F != DeviceFault::None)
      return eventFault(F);
    if (!*Done)
      return CUDA_ERROR_NOT_READY;
  }
  return CUDA_SUCCESS;
}

CUresult cuEventSynchronize(CUevent E) {
  REPTX_TRACE(cuEventSynchronize, E);
  auto *Ev = reinterpret_cast<Event *>(E);
  if (!Ev || Ev->T != Tag::Event)
    return CUDA_ERROR_INVALID_HANDLE;
  if (Ev->Recorded && Ev->Device) {
    DeviceFault F = DeviceFault::None;
    if (llvm::Error Err = Ev->Backend->waitEvent(Ev->Device, F)) {
      log().error("cuEventSynchronize: {}", llvm::toString(std::move(Err)));
      return CUDA_ERROR_UNKNOWN;
    }
    if (F != DeviceFault::None)
      return eventFault(F);
  }
  Context *C;
  if (currentOrError(C) == CUDA_SUCCESS) {
    // What finished kernels printed; on HIP only once the device is idle, as reading the FIFO
    // would wait for the work after the event too (a later synchronisation prints the rest).
    if (deviceIdle(*C->Dev))
      printfDrain(*C->Dev);
    return C->Sticky.load();
  }
  return CUDA_SUCCESS;
}

CUresult cuEventElapsedTime_v2(float *Ms, CUevent Start, CUevent End) {
  REPTX_TRACE(cuEventElapsedTime_v2, Ms, Start, End);
  auto *A = reinterpret_cast<Event *>(Start);
  auto *B = reinterpret_cast<Event *>(End);
  if (!Ms || !A || !B || A->T != Tag::Event || B->T != Tag::Event)
    return CUDA_ERROR_INVALID_HANDLE;
  if ((A->Flags | B->Flags) & CU_EVENT_DISABLE_TIMING)
    return CUDA_ERROR_INVALID_HANDLE;
  if (!A->Recorded || !B->Recorded)
    return CUDA_ERROR_INVALID_HANDLE;
  if (A->Device && B->Device && A->Backend == B->Backend) {
    // The device's time between them, once both have completed.
    bool Ready = false;
    if (llvm::Error E = A->Backend->eventElapsed(A->Device, B->Device, *Ms, Ready)) {
      log().error("cuEventElapsedTime: {}", llvm::toString(std::move(E)));
      return CUDA_ERROR_UNKNOWN;
    }
    return Ready ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
  }
  *Ms = std::chrono::duration<float, std::milli>(B->When - A->When).count();
  return CUDA_SUCCESS;
}
CUresult cuEventElapsedTime(float *Ms, CUevent Start, CUevent End) {
  REPTX_TRACE(cuEventElapsedTime, Ms, Start, End);
  return cuEventElapsedTime_v2(Ms, Start, End);
}

// ------------------------------------------------------------------ graph nodes (Graph.h)

CUresult reptx::loader::recordEvent(Event *Ev, Context *C) {
  Ev->When = std::chrono::steady_clock::now();
  Ev->Recorded = true;
  Ev->CaptureId = 0;
  Ev->CaptureNodes.clear();
  ExecBackend &B = *C->Dev->Backend;
  if (!B.asynchronous())
    return CUDA_SUCCESS;
  if (Ev->Backend != &B) { // first recorded here: the device's event is made now
    if (Ev->Device)
      Ev->Backend->destroyEvent(Ev->Device);
    Ev->Backend = nullptr;
    Ev->Device = nullptr;
    auto Made = B.createEvent(Ev->Flags);
    if (!Made) {
      Ev->Recorded = false;
      log().error("cuEventRecord: {}", llvm::toString(Made.takeError()));
      return CUDA_ERROR_OUT_OF_MEMORY;
    }
    Ev->Backend = &B;
    Ev->Device = *Made;
  }
  if (llvm::Error E = B.recordEvent(Ev->Device)) {
    Ev->Recorded = false;
    log().error("cuEventRecord: {}", llvm::toString(std::move(E)));
    return CUDA_ERROR_UNKNOWN;
  }
  return CUDA_SUCCESS;
}

CUresult reptx::loader::runCopy(const CUDA_MEMCPY3D &P, Context *C) {
  return copy3DOn(C, P, "memcpy node");
}

CUresult reptx::loader::runFill(const CUDA_MEMSET_NODE_PARAMS &P, Context *C) {
  if (P.elementSize != 1 && P.elementSize != 2 && P.elementSize != 4)
    return CUDA_ERROR_INVALID_VALUE;
  return fill2DOn(C, P.dst, P.pitch, P.value, P.elementSize, P.width, P.height);
}
