// Dynamic parallelism for the loader: the launch queue of a device (CU_LIMIT_DEV_RUNTIME_PENDING_
// LAUNCH_COUNT records) in which the device helper library records the kernels that device code
// launches (backend/device/DeviceLaunch.cpp, layout in reptx/backend/LaunchQueue.h), and the
// running of those launches once their grid has finished (loader/README.md, "Dynamic
// parallelism").
#pragma once

#include "Driver.h"

#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

namespace reptx::loader {

/// After a library's code object is loaded: when it has the `__reptx_launch_queue` symbol (some
/// kernel launches kernels or calls the device runtime), allocates the device's queue on first
/// need and writes its address there. Returns whether it has the symbol.
bool launchQueueAttach(Device &D, const LoadedCode &Code);
/// After a library's code object is loaded: when it has the `__reptx_kernel_table` symbol (some
/// kernel asks for function attributes or occupancy in device code), writes the table of its
/// Kernels' attributes there (LaunchQueue.h), which unloadLibrary releases.
void kernelTableAttach(Library &L, const std::vector<std::string> &Kernels);
/// Before a grid of a library with device-side launches: the context's limits, for
/// cudaDeviceGetLimit in device code (written when they changed).
void writeDeviceLimits(Context &C);
/// CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT of the device.
size_t pendingLaunchCount(Device &D);
/// Sets it; CUDA_ERROR_INVALID_VALUE once the queue exists (a module that launches kernels was
/// loaded), or for 0.
CUresult setPendingLaunchCount(Device &D, size_t Count);
/// Held from the start of a grid of such a module to the end of the launches it made: one
/// device-wide queue serves one such grid at a time (recursive: the launches run inside).
std::unique_lock<std::recursive_mutex> deviceLaunchLock(Device &D);
/// After a grid of Parent has finished without a fault: runs the kernels it launched, in the
/// order their launches were made (tail launches last), each followed by the kernels it
/// launched itself, on the grid's stream. A launch that cannot run (an unknown kernel address,
/// nesting deeper than CUDA's 24 levels, a launch the device refuses) is logged and leaves the
/// context's sticky error, as a device fault does.
void runDeviceLaunches(Context &C, Kernel &Parent, CUstream S);
/// After a grid of such a code object faulted: its launches are dropped, and the queue emptied.
void dropDeviceLaunches(Device &D);

} // namespace reptx::loader
