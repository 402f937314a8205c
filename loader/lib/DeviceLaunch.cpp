// Dynamic parallelism: the device's launch queue and the running of device-side launches
// (DeviceLaunch.h). Device code records launches through the device helper library
// (backend/device/DeviceLaunch.cpp); the loader creates the queue, and after each grid of a
// module that launches kernels, reads the records the grid launched, empties the queue and runs
// them through runKernel, which does the same after each of them.
#include "DeviceLaunch.h"
#include "Graph.h"
#include "Log.h"
#include "reptx/backend/LaunchQueue.h"
#include "reptx/ir/Intrinsics.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace reptx::loader {

namespace {

namespace lq = reptx::launch_queue;

/// The launch queue of a device.
struct Queue {
  std::mutex M;
  std::recursive_mutex Running;            // deviceLaunchLock
  uint32_t Capacity = lq::DefaultCapacity; // CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT
  uint64_t Address = 0;                    // 0 until a module that launches kernels is loaded
  std::vector<uint64_t> Limits;            // as last written (LimitsOffset)
};

Queue &queue(Device &D) { return perDevice<Queue>(D); }

/// Allocates the queue (Q.M held) and writes its empty header, the device's attributes and an
/// empty error table: no launches, no handles, the first grid, every entry free.
bool allocateQueue(Device &D, Queue &Q) {
  auto A = D.Backend->allocate(lq::RecordsOffset + uint64_t(Q.Capacity) * lq::RecordBytes);
  if (!A) {
    log().error("device-side launch queue of {} launches: {}", Q.Capacity,
                llvm::toString(A.takeError()));
    return false;
  }
  std::vector<uint32_t> Start(lq::RecordsOffset / 4, 0);
  Start[0] = Q.Capacity;
  Start[4] = 1;
  uint32_t *Attributes = Start.data() + lq::AttributesOffset / 4;
  Attributes[0] = std::min<uint32_t>(CU_DEVICE_ATTRIBUTE_MAX, lq::AttributeSlots);
  for (uint32_t A = 1; A < Attributes[0]; ++A)
    Attributes[A] = uint32_t(deviceAttribute(D, int(A)));
  // No limits until the first grid writes its context's (writeDeviceLimits).
  std::fill_n(Start.data() + lq::LimitsOffset / 4, 2 * lq::LimitSlots, ~0u);
  Q.Limits.assign(lq::LimitSlots, lq::LimitUnsupported);
  if (llvm::Error E = D.Backend->copyToDevice(*A, Start.data(), lq::RecordsOffset)) {
    log().error("device-side launch queue: {}", llvm::toString(std::move(E)));
    llvm::consumeError(D.Backend->release(*A));
    return false;
  }
  Q.Address = *A;
  return true;
}

/// One launch a grid made.
struct Launch {
  uint64_t Kernel = 0, Stream = 0;
  uint32_t Grid[3] = {}, Block[3] = {}, Shared = 0;
  std::vector<uint8_t> Params; // ParamBytes
};

/// Takes the launched records out of the queue in the order they run (as made, tail launches
/// last), empties it and starts the next grid (which forgets the last errors of the threads of
/// this one). False when reading or writing device memory failed.
bool takeLaunches(Device &D, std::vector<Launch> &Out) {
  Queue &Q = queue(D);
  std::lock_guard<std::mutex> L(Q.M);
  if (!Q.Address)
    return true;
  uint32_t Header[5];
  if (llvm::Error E = D.Backend->copyToHost(Header, Q.Address, sizeof(Header))) {
    log().error("device-side launch queue: {}", llvm::toString(std::move(E)));
    return false;
  }
  uint32_t N = std::min(Header[0], Header[1]);
  if (Header[2])
    log().error("device-side launches: more than {} were pending, and those beyond failed "
                "(cudaErrorLaunchPendingCountExceeded on the device; "
                "cudaLimitDevRuntimePendingLaunchCount raises the limit)",
                Header[0]);
  std::vector<uint8_t> Bytes(size_t(N) * lq::RecordBytes);
  if (N)
    if (llvm::Error E =
            D.Backend->copyToHost(Bytes.data(), Q.Address + lq::RecordsOffset, Bytes.size())) {
      log().error("device-side launch queue: {}", llvm::toString(std::move(E)));
      return false;
    }
  uint32_t Next = Header[4] + 1 == lq::Busy ? 1 : Header[4] + 1;
  const uint32_t Empty[5] = {Header[0], 0, 0, Header[3], Next};
  if (llvm::Error E = D.Backend->copyToDevice(Q.Address, Empty, sizeof(Empty))) {
    log().error("device-side launch queue: {}", llvm::toString(std::move(E)));
    return false;
  }
  std::vector<Launch> Tail; // a tail launch runs after everything else its grid launched
  for (uint32_t I = 0; I < N; ++I) {
    const uint8_t *R = Bytes.data() + size_t(I) * lq::RecordBytes;
    uint32_t State;
    std::memcpy(&State, R, 4);
    if (State != lq::Launched)
      continue; // a parameter buffer that was never launched
    Launch X;
    std::memcpy(&X.Kernel, R + 8, 8);
    std::memcpy(X.Grid, R + 16, 12);
    std::memcpy(X.Block, R + 28, 12);
    std::memcpy(&X.Shared, R + 40, 4);
    std::memcpy(&X.Stream, R + 48, 8);
    X.Params.assign(R + lq::RecordHeaderBytes, R + lq::RecordBytes);
    (X.Stream == lq::StreamTailLaunch ? Tail : Out).push_back(std::move(X));
  }
  for (Launch &X : Tail)
    Out.push_back(std::move(X));
  return true;
}

/// The kernel of Lib that a kernel address (the generic address of its handle string,
/// ir::intrinsics::KernelAddressPrefix) names, or null.
Kernel *kernelAt(Library &Lib, uint64_t Address) {
  {
    std::lock_guard<std::mutex> L(Lib.M);
    if (auto It = Lib.KernelAddresses.find(Address); It != Lib.KernelAddresses.end())
      return It->second;
  }
  // The string, read in pieces that may end past its allocation, then a byte at a time.
  std::string Text;
  const size_t Max = ir::intrinsics::KernelAddressPrefix.size() + 4096;
  ExecBackend &B = *Lib.Dev->Backend;
  while (Text.size() < Max && Text.find('\0') == std::string::npos) {
    char Piece[64];
    if (llvm::Error E = B.copyToHost(Piece, Address + Text.size(), sizeof(Piece))) {
      llvm::consumeError(std::move(E));
      if (llvm::Error E1 = B.copyToHost(Piece, Address + Text.size(), 1)) {
        llvm::consumeError(std::move(E1));
        return nullptr;
      }
      Text.push_back(Piece[0]);
      continue;
    }
    Text.append(Piece, sizeof(Piece));
  }
  size_t End = Text.find('\0');
  llvm::StringRef Name(Text.data(), End == std::string::npos ? 0 : End);
  if (!Name.consume_front(ir::intrinsics::KernelAddressPrefix) || Name.empty())
    return nullptr;
  Kernel *K = nullptr;
  if (findKernel(Lib, Name.str(), K) != CUDA_SUCCESS)
    return nullptr;
  std::lock_guard<std::mutex> L(Lib.M);
  Lib.KernelAddresses[Address] = K;
  return K;
}

/// How deep the launch running on this thread is nested: 0 for one from the host.
thread_local unsigned Depth = 0;

} // namespace

bool launchQueueAttach(Device &D, const LoadedCode &Code) {
  uint64_t Symbol = 0, Size = 0;
  if (!Code.symbol(lq::QueueSymbol, Symbol, Size))
    return false;
  Queue &Q = queue(D);
  std::lock_guard<std::mutex> L(Q.M);
  if (!Q.Address && !allocateQueue(D, Q))
    return true; // every device-side launch fails
  if (llvm::Error E = D.Backend->copyToDevice(Symbol, &Q.Address, sizeof(Q.Address)))
    log().error("device-side launches: writing {}: {}", lq::QueueSymbol,
                llvm::toString(std::move(E)));
  log().debug("device-side launch queue at {:#x} ({} launches)", Q.Address, Q.Capacity);
  return true;
}

void kernelTableAttach(Library &L, const std::vector<std::string> &Kernels) {
  uint64_t Symbol = 0, Size = 0;
  if (!L.Dev || !L.Code || !L.Code->symbol(lq::KernelTableSymbol, Symbol, Size))
    return;
  // The entries, then the handle texts; the texts' addresses are known once it is allocated.
  std::vector<uint8_t> Table(8 + Kernels.size() * lq::KernelEntryBytes);
  std::vector<std::pair<size_t, std::string>> Texts; // entry offset, text
  uint32_t Count = 0;
  for (const std::string &Name : Kernels) {
    const KernelMeta *M = L.Code->kernel(Name);
    if (!M)
      continue;
    uint8_t *E = Table.data() + 8 + size_t(Count++) * lq::KernelEntryBytes;
    for (unsigned A = 0; A < lq::KernelAttributes; ++A) {
      int32_t V = codeAttribute(L, *M, int(A));
      std::memcpy(E + 8 + 4 * A, &V, 4);
    }
    Texts.emplace_back(E - Table.data(), (ir::intrinsics::KernelAddressPrefix + Name).str());
  }
  std::memcpy(Table.data(), &Count, 4);
  size_t TextsAt = Table.size();
  for (auto &[At, Text] : Texts)
    Table.insert(Table.end(), Text.c_str(), Text.c_str() + Text.size() + 1);
  ExecBackend &B = *L.Dev->Backend;
  auto A = B.allocate(Table.size());
  if (!A) {
    log().error("{}: kernel table: {}", L.Name, llvm::toString(A.takeError()));
    return; // function attributes and occupancy fail in device code
  }
  uint64_t Text = *A + TextsAt;
  for (auto &[At, T] : Texts) {
    std::memcpy(Table.data() + At, &Text, 8);
    Text += T.size() + 1;
  }
  if (llvm::Error E = B.copyToDevice(*A, Table.data(), Table.size())) {
    log().error("{}: kernel table: {}", L.Name, llvm::toString(std::move(E)));
    llvm::consumeError(B.release(*A));
    return;
  }
  if (llvm::Error E = B.copyToDevice(Symbol, &*A, 8)) {
    log().error("{}: writing {}: {}", L.Name, lq::KernelTableSymbol, llvm::toString(std::move(E)));
    llvm::consumeError(B.release(*A));
    return;
  }
  L.KernelTable = *A;
}

void writeDeviceLimits(Context &C) {
  Queue &Q = queue(*C.Dev);
  std::vector<uint64_t> Limits(lq::LimitSlots, lq::LimitUnsupported);
  for (unsigned I = 0; I < lq::LimitSlots; ++I) {
    size_t V = 0;
    if (I < CU_LIMIT_MAX && contextLimit(C, CUlimit(I), V) == CUDA_SUCCESS)
      Limits[I] = V;
  }
  std::lock_guard<std::mutex> L(Q.M);
  if (!Q.Address || Limits == Q.Limits)
    return;
  if (llvm::Error E = C.Dev->Backend->copyToDevice(Q.Address + lq::LimitsOffset, Limits.data(),
                                                   8 * Limits.size())) {
    log().error("device-side launch queue: {}", llvm::toString(std::move(E)));
    return;
  }
  Q.Limits = std::move(Limits);
}

size_t pendingLaunchCount(Device &D) {
  Queue &Q = queue(D);
  std::lock_guard<std::mutex> L(Q.M);
  return Q.Capacity;
}

CUresult setPendingLaunchCount(Device &D, size_t Count) {
  Queue &Q = queue(D);
  std::lock_guard<std::mutex> L(Q.M);
  if (Q.Address)
    return Count == Q.Capacity ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
  if (!Count || Count > (size_t(1) << 20))
    return CUDA_ERROR_INVALID_VALUE;
  Q.Capacity = uint32_t(Count);
  return CUDA_SUCCESS;
}

std::unique_lock<std::recursive_mutex> deviceLaunchLock(Device &D) {
  return std::unique_lock<std::recursive_mutex>(queue(D).Running);
}

void dropDeviceLaunches(Device &D) {
  std::vector<Launch> Launches;
  if (takeLaunches(D, Launches) && !Launches.empty())
    log().debug("{} device-side launches of a grid that faulted were dropped", Launches.size());
}

void runDeviceLaunches(Context &C, Kernel &Parent, CUstream S) {
  Device &D = *Parent.Lib->Dev;
  std::vector<Launch> Launches;
  if (!takeLaunches(D, Launches)) {
    C.Sticky.store(CUDA_ERROR_LAUNCH_FAILED);
    return;
  }
  if (Launches.empty())
    return;
  if (Depth + 1 > lq::MaxDepth) {
    log().error("kernel {}: its device-side launches nest deeper than {} levels", Parent.Name,
                lq::MaxDepth);
    C.Sticky.store(CUDA_ERROR_LAUNCH_FAILED);
    return;
  }
  for (Launch &X : Launches) {
    Kernel *K = kernelAt(*Parent.Lib, X.Kernel);
    if (!K) {
      log().error("kernel {}: device-side launch of {:#x}, which is not the address of a kernel "
                  "of {}",
                  Parent.Name, X.Kernel, Parent.Lib->Name);
      C.Sticky.store(CUDA_ERROR_LAUNCH_FAILED);
      return;
    }
    if (K->ParamBytes > lq::ParamBytes) {
      log().error("kernel {}: device-side launch of {}, whose {} bytes of parameters exceed the "
                  "{} of a device-side launch",
                  Parent.Name, K->Name, K->ParamBytes, lq::ParamBytes);
      C.Sticky.store(CUDA_ERROR_LAUNCH_FAILED);
      return;
    }
    LaunchDims Dims{X.Grid[0], X.Grid[1], X.Grid[2], X.Block[0], X.Block[1], X.Block[2], X.Shared};
    X.Params.resize(K->ParamBytes);
    ++Depth;
    CUresult R = runKernel(K, Dims, S, X.Params);
    --Depth;
    if (R != CUDA_SUCCESS) {
      log().error("kernel {}: its device-side launch of {} failed ({})", Parent.Name, K->Name,
                  int(R));
      if (C.Sticky.load() == CUDA_SUCCESS)
        C.Sticky.store(CUDA_ERROR_LAUNCH_FAILED);
      return;
    }
  }
}

} // namespace reptx::loader
