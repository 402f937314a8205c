// Device printf for the loader: the printf FIFO of a device (CU_LIMIT_PRINTF_FIFO_SIZE) that the
// device helper library fills (backend/device/Printf.cpp, layout in reptx/backend/PrintfFormat.h)
// and its draining to stdout at synchronisation points (loader/README.md, "Device printf").
#pragma once

#include "Driver.h"

#include <cstddef>
#include <functional>
#include <string>

namespace reptx::loader {

/// Default CU_LIMIT_PRINTF_FIFO_SIZE (1 MiB, as CUDA's).
inline constexpr size_t DefaultPrintfFifoSize = size_t(1) << 20;

/// After a library's code object is loaded: when it has the `__reptx_printf_buffer` symbol (some
/// kernel calls printf), allocates the device's FIFO on first need and writes its address there.
void printfAttach(Device &D, const LoadedCode &Code);
/// Before a library's code object goes away: drains, then forgets its symbol.
void printfDetach(Device &D, const LoadedCode &Code);
/// Formats every record in the device's FIFO, writes the text to stdout (flushed) and empties
/// the FIFO. Cheap when no module with printf was loaded. Returns whether a failed device assert's
/// message was among the records (ir/include/reptx/ir/Intrinsics.h, AssertFormat).
bool printfDrain(Device &D);
/// Whether the device has a FIFO (a module with printf was loaded), without reading it.
bool printfAttached(Device &D);
/// CU_LIMIT_PRINTF_FIFO_SIZE of the device (shared by its contexts, as its code objects are).
size_t printfFifoSize(Device &D);
/// Sets it: drains, and when a FIFO exists, replaces it with one of the new size and points
/// every attached module at it.
CUresult setPrintfFifoSize(Device &D, size_t Bytes);

/// Formats one record's format string with its argument bytes as C's printf would (%s reads the
/// string through ReadString, %n is ignored). Exposed for tests.
std::string formatRecord(const std::string &Format, const uint8_t *Args, size_t ArgBytes,
                         const std::function<std::string(uint64_t, bool Wide)> &ReadString);

} // namespace reptx::loader
