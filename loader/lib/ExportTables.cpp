// cuGetExportTable: the private tables cudart 13 requires, with the slot behaviour recorded in
// shared/reference/cuda-driver-interface.md §4 (slot 0 is the table size in bytes, except in the
// context-local-storage table).
#include "Driver.h"
#include "Trace.h"

#include <pthread.h>
#include <unistd.h>

#include <cstring>
#include <fmt/format.h>
#include <initializer_list>
#include <string>
#include <utility>

using namespace reptx::loader;

namespace {

using Slot = const void *;

// The tables, in the order of `Tables` below.
enum TableIndex : size_t {
  CudartInterfaceIndex,
  CallbackHooksIndex,
  ToolsTlsIndex,
  ContextLocalStorageIndex,
  ContextChecksIndex,
  IntegrityIndex,
  ToolsContextIndex,
  ToolsModuleIndex,
  TableCount
};
constexpr const char *TableNames[TableCount] = {"CUDART_INTERFACE", "TOOLS_RUNTIME_CALLBACK_HOOKS",
                                                "TOOLS_TLS",        "CONTEXT_LOCAL_STORAGE",
                                                "CONTEXT_CHECKS",   "INTEGRITY_CHECK",
                                                "TOOLS_CONTEXT",    "TOOLS_MODULE"};

// What an unimplemented slot does: fail, and say which slot it was.
template <size_t T, size_t S> CUresult unknownSlot() {
  log().debug("call of the unimplemented export-table slot {}[{}]", TableNames[T], S);
  if (trace::active())
    trace::emit(fmt::format("{}[{}]() -> CUDA_ERROR_NOT_SUPPORTED", TableNames[T], S));
  return CUDA_ERROR_NOT_SUPPORTED;
}

// CUDART_INTERFACE slot 2 (§4.2): the device's primary context, not retained.
CUresult getPrimaryContext(CUcontext *Out, CUdevice Dev) {
  REPTX_TRACE(getPrimaryContext, Out, Dev);
  Device *D = Driver::get().device(Dev);
  if (!Out)
    return CUDA_ERROR_INVALID_VALUE;
  if (!D)
    return CUDA_ERROR_INVALID_DEVICE;
  *Out = reinterpret_cast<CUcontext>(&D->PrimaryCtx);
  return CUDA_SUCCESS;
}

// TOOLS_RUNTIME_CALLBACK_HOOKS slots 2 and 6 (§4.3): zeroed buffers and their sizes.
uint32_t HookBuffer2[1024];
uint32_t HookBuffer6[14];
void hookBuffer2(void **Ptr, size_t *Size) {
  REPTX_TRACE_VOID(hookBuffer2, Ptr, Size);
  if (Ptr)
    *Ptr = HookBuffer2;
  if (Size)
    *Size = std::size(HookBuffer2);
}
void hookBuffer6(void **Ptr, size_t *Size) {
  REPTX_TRACE_VOID(hookBuffer6, Ptr, Size);
  if (Ptr)
    *Ptr = HookBuffer6;
  if (Size)
    *Size = std::size(HookBuffer6);
}

// TOOLS_TLS slot 2 (§4.4).
CUresult toolsThreadContext(void **Out, int Arg1) {
  REPTX_TRACE(toolsThreadContext, Out, Arg1);
  if (Out)
    *Out = nullptr;
  return CUDA_SUCCESS;
}

// CONTEXT_LOCAL_STORAGE slots 0-2 (§4.5): a per-context map; ctx NULL = the current context.
CUresult clsContext(CUcontext Ctx, Context *&C) {
  if (!Ctx)
    return currentOrError(C);
  if (!Driver::get().validContext(Ctx))
    return CUDA_ERROR_INVALID_CONTEXT;
  C = reinterpret_cast<Context *>(Ctx);
  return CUDA_SUCCESS;
}
CUresult clsPut(CUcontext Ctx, void *Key, void *Value, void (*Dtor)(CUcontext, void *, void *)) {
  REPTX_TRACE(clsPut, Ctx, Key, Value, Dtor);
  Context *C;
  if (CUresult R = clsContext(Ctx, C))
    return R;
  std::unique_lock<std::shared_mutex> L(C->ClsMutex);
  C->Cls[Key] = {Value, Dtor};
  return CUDA_SUCCESS;
}
CUresult clsDelete(CUcontext Ctx, void *Key) {
  REPTX_TRACE(clsDelete, Ctx, Key);
  Context *C;
  if (CUresult R = clsContext(Ctx, C))
    return R;
  std::unique_lock<std::shared_mutex> L(C->ClsMutex);
  return C->Cls.erase(Key) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}
CUresult clsGet(void **Value, CUcontext Ctx, void *Key) {
  REPTX_TRACE(clsGet, Value, Ctx, Key);
  Context *C;
  if (CUresult R = clsContext(Ctx, C))
    return R;
  std::shared_lock<std::shared_mutex> L(C->ClsMutex);
  auto It = C->Cls.find(Key);
  if (It == C->Cls.end())
    return CUDA_ERROR_INVALID_HANDLE;
  if (Value)
    *Value = It->second.Value;
  return CUDA_SUCCESS;
}

// CONTEXT_CHECKS slots 2 and 3 (§4.6).
CUresult contextCheck(CUcontext Ctx, uint32_t *Out1, void **Out2) {
  REPTX_TRACE(contextCheck, Ctx, Out1, Out2);
  if (Out1)
    *Out1 = 0;
  return CUDA_SUCCESS;
}
uint32_t contextCheckInit() {
  REPTX_TRACE(contextCheckInit);
  return 0;
}

// ToolsContext slot 4 (§4.8, cublasLt): a context number.
CUresult toolsContextNumber(CUcontext Ctx, uint64_t *Out) {
  REPTX_TRACE(toolsContextNumber, Ctx, Out);
  Context *C = nullptr;
  if (Out)
    *Out = clsContext(Ctx, C) == CUDA_SUCCESS && C ? C->Id : 0;
  return CUDA_SUCCESS;
}

// ToolsContext slots 51 and 39 (libcublas, before each level-1 call: the key of its per-context
// workspace): slot 51 (tools thread context, scope, out, per-thread flag) names the scope's
// object, slot 39 (tools thread context, object, out) its number; cuBLAS looks its workspace up
// by that number (and by thread when the scope is 2). Inferred from the calls: the current
// context and its id serve both scopes. Failing either makes every cuBLAS call return
// CUBLAS_STATUS_INTERNAL_ERROR.
CUresult toolsCurrentObject(void *ThreadContext, uint64_t Scope, void **Out, int PerThread) {
  REPTX_TRACE(toolsCurrentObject, ThreadContext, Scope, Out, PerThread);
  Context *C;
  if (!Out)
    return CUDA_ERROR_INVALID_VALUE;
  if (CUresult R = currentOrError(C))
    return R;
  *Out = C;
  return CUDA_SUCCESS;
}
CUresult toolsObjectNumber(void *ThreadContext, void *Object, uint64_t *Out) {
  REPTX_TRACE(toolsObjectNumber, ThreadContext, Object, Out);
  if (!Out || !Object)
    return CUDA_ERROR_INVALID_VALUE;
  if (!Driver::get().validContext(reinterpret_cast<CUcontext>(Object)))
    return CUDA_ERROR_INVALID_CONTEXT;
  *Out = reinterpret_cast<Context *>(Object)->Id;
  return CUDA_SUCCESS;
}

CUresult integrityCheck(uint32_t Challenge, uint64_t UnixSeconds, uint64_t Out[2]);

#define SIZE_WORD(N) reinterpret_cast<Slot>(uintptr_t(8 * (N)))
#define FN(F) reinterpret_cast<Slot>(&F)

// A table's slots, each an `unknownSlot` unless set, and as many again past the size word:
// callers do not all read that word (libcublas calls ToolsContext slots 39 and 51), so a slot
// read past the known ones must find a function that fails, not whatever the linker put next.
constexpr size_t TableSlots = 128;
struct Table {
  Slot Slots[TableSlots];
};
template <size_t T, size_t... S> Table unknownSlots(std::index_sequence<S...>) {
  return Table{{FN((unknownSlot<T, S>))...}};
}
template <size_t T> Table table(std::initializer_list<std::pair<size_t, Slot>> Set) {
  Table Result = unknownSlots<T>(std::make_index_sequence<TableSlots>());
  for (auto [I, S] : Set)
    Result.Slots[I] = S;
  return Result;
}

Table CudartInterface =
    table<CudartInterfaceIndex>({{0, SIZE_WORD(13)}, {2, FN(getPrimaryContext)}});
Table CallbackHooks =
    table<CallbackHooksIndex>({{0, SIZE_WORD(7)}, {2, FN(hookBuffer2)}, {6, FN(hookBuffer6)}});
Table ToolsTls = table<ToolsTlsIndex>({{0, SIZE_WORD(4)}, {2, FN(toolsThreadContext)}});
Table ContextLocalStorage =
    table<ContextLocalStorageIndex>({{0, FN(clsPut)}, {1, FN(clsDelete)}, {2, FN(clsGet)}});
Table ContextChecks = table<ContextChecksIndex>(
    {{0, SIZE_WORD(4)}, {2, FN(contextCheck)}, {3, FN(contextCheckInit)}});
Table Integrity = table<IntegrityIndex>({{0, SIZE_WORD(3)}, {1, FN(integrityCheck)}});
Table ToolsContext = table<ToolsContextIndex>({{0, SIZE_WORD(52)},
                                               {4, FN(toolsContextNumber)},
                                               {39, FN(toolsObjectNumber)},
                                               {51, FN(toolsCurrentObject)}});
Table ToolsModule = table<ToolsModuleIndex>({{0, SIZE_WORD(TableSlots)}});

// INTEGRITY_CHECK slot 1 (§4.7).
CUresult integrityCheck(uint32_t Challenge, uint64_t UnixSeconds, uint64_t Out[2]) {
  REPTX_TRACE(integrityCheck, Challenge, UnixSeconds, Out);
  if (!Out)
    return CUDA_ERROR_INVALID_VALUE;
  switch (Challenge % 10) {
  case 0:
    Out[0] = 0x3341181C03CB675CULL;
    Out[1] = 0x8ED383AA1F4CD1E8ULL;
    return CUDA_SUCCESS;
  case 1:
    Out[0] = 0x1841181C03CB675CULL;
    Out[1] = 0x8ED383AA1F4CD1E8ULL;
    return CUDA_SUCCESS;
  default:
    break;
  }
  IntegrityInputs In;
  In.DriverVersion = DriverVersion;
  In.Challenge = Challenge;
  In.ProcessId = uint32_t(getpid());
  In.ThreadId = uint32_t(pthread_self());
  In.CudartInterfaceTable = reinterpret_cast<uint64_t>(CudartInterface.Slots);
  In.IntegrityTable = reinterpret_cast<uint64_t>(Integrity.Slots);
  In.IntegrityFunction = reinterpret_cast<uint64_t>(Integrity.Slots[1]);
  In.UnixSeconds = UnixSeconds;
  Driver &D = Driver::get();
  for (int I = 0; I < D.deviceCount(); ++I)
    In.Devices.push_back(D.device(I)->Identity);
  std::array<uint64_t, 2> A = integrityAnswer(In);
  Out[0] = A[0];
  Out[1] = A[1];
  return CUDA_SUCCESS;
}

struct TableId {
  const char *Uuid; // the 16 bytes in memory order, written as GUID text
  const Table *Slots;
  TableIndex Index;
};

const TableId Tables[] = {
    {"6bd5fb6c-5bf4-e74a-8987-d93912fd9df9", &CudartInterface, CudartInterfaceIndex},
    {"a094798c-2e74-2e74-93f2-0800200c0a66", &CallbackHooks, CallbackHooksIndex},
    {"42d85a81-23f6-cb47-8298-f6e78a3aecdc", &ToolsTls, ToolsTlsIndex},
    {"c693336e-1121-df11-a8c3-68f355d89593", &ContextLocalStorage, ContextLocalStorageIndex},
    {"263e8860-7cd2-6143-92f6-bbd5006dfa7e", &ContextChecks, ContextChecksIndex},
    {"d4082055-bde6-704b-8d34-ba123c66e1f2", &Integrity, IntegrityIndex},
    {"21318c60-9714-3248-8ca6-41ff7324c8f2", &ToolsContext, ToolsContextIndex},
    {"6e163fbe-b958-444d-835c-e182aff1991e", &ToolsModule, ToolsModuleIndex},
};

std::string uuidText(const char *Bytes) {
  static const char Hex[] = "0123456789abcdef";
  std::string S;
  for (int I = 0; I < 16; ++I) {
    if (I == 4 || I == 6 || I == 8 || I == 10)
      S += '-';
    S += Hex[uint8_t(Bytes[I]) >> 4];
    S += Hex[uint8_t(Bytes[I]) & 15];
  }
  return S;
}

} // namespace

namespace reptx::loader {
const void *cudartInterfaceTable() { return CudartInterface.Slots; }
const void *integrityTable() { return Integrity.Slots; }
} // namespace reptx::loader

CUresult cuGetExportTable(const void **Table, const CUuuid *Id) {
  REPTX_TRACE(cuGetExportTable, Table, Id);
  if (!Table || !Id)
    return CUDA_ERROR_INVALID_VALUE;
  std::string Text = uuidText(Id->bytes);
  for (const TableId &T : Tables)
    if (Text == T.Uuid) {
      *Table = T.Slots->Slots;
      log().debug("cuGetExportTable: {}", TableNames[T.Index]);
      return CUDA_SUCCESS;
    }
  log().debug("cuGetExportTable: no table {{{}}}", Text);
  *Table = nullptr;
  return CUDA_ERROR_NOT_FOUND;
}
