// The host's view of an asynchronous device's progress (Driver.h, "Progress"). On HIP every
// operation goes to HIP's null stream, in order, and a launch returns before its kernel has run.
// A device event is recorded after each kernel launch and fill, one for the stream the program
// named and one for the whole device: since the device runs its queue in order, the stream's
// event completes once everything submitted on that stream has, and the device's once
// everything has. cuStreamQuery asks the first, the printf drain at the start of a launch the
// second, neither waiting for the device.
#include "Driver.h"
#include "Printf.h"

#include <map>
#include <mutex>
#include <utility>

namespace reptx::loader {

namespace {

/// A device event recorded after the latest operation of one stream (or of the whole device).
/// Lost when recording failed: then what completed is unknown, and only waiting tells.
struct Marker {
  void *Event = nullptr;
  bool Lost = false;
};

struct Progress {
  std::mutex M;
  Marker Device;
  // By context and stream handle; the legacy default stream under 0.
  std::map<std::pair<Context *, uintptr_t>, Marker> Streams;
};

Progress &progress(Device &D) { return perDevice<Progress>(D); }

uintptr_t streamKey(CUstream S) {
  auto V = reinterpret_cast<uintptr_t>(S);
  return V == reinterpret_cast<uintptr_t>(CU_STREAM_LEGACY) ? 0 : V;
}

/// Places M after the work submitted so far (P.M held).
void record(ExecBackend &B, Marker &M) {
  if (M.Lost)
    return;
  if (!M.Event) {
    auto E = B.createEvent(CU_EVENT_DISABLE_TIMING);
    if (!E) {
      log().warn("progress marker: {}", llvm::toString(E.takeError()));
      M.Lost = true;
      return;
    }
    M.Event = *E;
  }
  if (llvm::Error E = B.recordEvent(M.Event)) {
    log().warn("progress marker: {}", llvm::toString(std::move(E)));
    B.destroyEvent(M.Event);
    M.Event = nullptr;
    M.Lost = true;
  }
}

void release(ExecBackend &B, Marker &M) {
  if (M.Event)
    B.destroyEvent(M.Event);
  M = {};
}

} // namespace

void noteSubmitted(Context *C, CUstream S) {
  ExecBackend &B = *C->Dev->Backend;
  if (!B.asynchronous())
    return;
  Progress &P = progress(*C->Dev);
  std::lock_guard<std::mutex> L(P.M);
  record(B, P.Streams[{C, streamKey(S)}]);
  record(B, P.Device);
}

CUresult streamProgress(Context *C, CUstream S) {
  ExecBackend &B = *C->Dev->Backend;
  if (!B.asynchronous())
    return contextSynchronize(C); // everything has finished: drain printf, report the error
  DeviceFault F = DeviceFault::None;
  {
    Progress &P = progress(*C->Dev);
    std::lock_guard<std::mutex> L(P.M);
    auto It = P.Streams.find({C, streamKey(S)});
    if (It == P.Streams.end() || (!It->second.Event && !It->second.Lost))
      return C->Sticky.load(); // nothing submitted on it
    if (It->second.Lost)
      return contextSynchronize(C);
    auto Done = B.eventDone(It->second.Event, F);
    if (!Done) {
      log().error("stream query: {}", llvm::toString(Done.takeError()));
      return CUDA_ERROR_UNKNOWN;
    }
    if (F == DeviceFault::None && !*Done)
      return CUDA_ERROR_NOT_READY;
  }
  if (F != DeviceFault::None)
    return contextSynchronize(C); // the fault becomes the context's error, its printf drained
  return C->Sticky.load();
}

CUresult streamFinish(Context *C, CUstream S) {
  ExecBackend &B = *C->Dev->Backend;
  auto V = reinterpret_cast<uintptr_t>(S);
  // The default streams wait for everything, as their implicit synchronisation with the other
  // streams makes programs expect.
  if (!B.asynchronous() || V == 0 || V == reinterpret_cast<uintptr_t>(CU_STREAM_LEGACY) ||
      V == reinterpret_cast<uintptr_t>(CU_STREAM_PER_THREAD))
    return contextSynchronize(C);
  void *Event = nullptr;
  {
    Progress &P = progress(*C->Dev);
    std::lock_guard<std::mutex> L(P.M);
    auto It = P.Streams.find({C, streamKey(S)});
    if (It != P.Streams.end() && It->second.Lost)
      return contextSynchronize(C);
    if (It != P.Streams.end())
      Event = It->second.Event;
  }
  // Waited for without the lock, so that other threads keep submitting work meanwhile.
  DeviceFault F = DeviceFault::None;
  if (Event) {
    if (llvm::Error E = B.waitEvent(Event, F)) {
      log().error("stream synchronize: {}", llvm::toString(std::move(E)));
      return CUDA_ERROR_UNKNOWN;
    }
  }
  if (F != DeviceFault::None)
    return contextSynchronize(C); // the fault becomes the context's error, its printf drained
  if (deviceIdle(*C->Dev))
    printfDrain(*C->Dev); // else the work still running would be waited for
  return C->Sticky.load();
}

bool deviceIdle(Device &D) {
  ExecBackend &B = *D.Backend;
  if (!B.asynchronous())
    return true;
  Progress &P = progress(D);
  std::lock_guard<std::mutex> L(P.M);
  if (P.Device.Lost)
    return false;
  if (!P.Device.Event)
    return true;
  DeviceFault F = DeviceFault::None;
  auto Done = B.eventDone(P.Device.Event, F);
  if (!Done) {
    llvm::consumeError(Done.takeError());
    return false;
  }
  return *Done && F == DeviceFault::None;
}

void forgetStreamProgress(Context *C, CUstream S) {
  Progress &P = progress(*C->Dev);
  std::lock_guard<std::mutex> L(P.M);
  auto It = P.Streams.find({C, streamKey(S)});
  if (It == P.Streams.end())
    return;
  release(*C->Dev->Backend, It->second);
  P.Streams.erase(It);
}

void forgetContextProgress(Context *C) {
  Progress &P = progress(*C->Dev);
  std::lock_guard<std::mutex> L(P.M);
  for (auto It = P.Streams.begin(); It != P.Streams.end();) {
    if (It->first.first != C) {
      ++It;
      continue;
    }
    release(*C->Dev->Backend, It->second);
    It = P.Streams.erase(It);
  }
}

} // namespace reptx::loader
