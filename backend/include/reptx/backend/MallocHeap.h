// Device-side malloc and free (CUDA's `malloc`/`free` system calls, which `new` and `delete` in
// device code call): the layout of the heap that the device helper library
// (backend/device/Malloc.cpp) allocates from and a loader provides. Header-only and freestanding
// (no library includes), so that the device helpers and host code share it.
//
// Heap layout (little-endian, in device memory, at the address the code object's global
// `__reptx_malloc_heap` holds; 0 there means no heap and malloc returns NULL):
//   0   u64 arena bytes   the size of the arena that follows the header
//   8   u64 top           bytes of the arena handed out so far (bumped atomically; may exceed
//                         the arena when a block did not fit, which was then not handed out)
//   16  u64 free[Classes] one free list per block size: a tag (the top 24 bits, incremented by
//                         every change, so that a stale compare-and-swap fails) and the arena
//                         offset + 1 of the first free block (the low 40 bits; 0: empty)
//   HeaderBytes  the arena: blocks of 2^(MinShift + class) bytes, each a 16-byte block header
//                {u64 next free block (as in free[]) while free, u64 class} and the
//                16-byte-aligned memory malloc returns.
// A freed block goes to the free list of its size and is handed out again by a later malloc of
// that size; blocks are never split or merged.
#pragma once

namespace reptx::malloc_heap {

/// The smallest block: 32 bytes (16 of header, 16 for the caller).
inline constexpr unsigned MinShift = 5;
/// Block sizes 2^5 .. 2^44 bytes.
inline constexpr unsigned Classes = 40;
inline constexpr unsigned BlockHeaderBytes = 16;
inline constexpr unsigned HeaderBytes = 16 + 8 * Classes;
inline constexpr unsigned OffsetBits = 40;
/// The symbol of the code object's 64-bit global holding the heap's device address.
inline constexpr const char HeapSymbol[] = "__reptx_malloc_heap";
/// CU_LIMIT_MALLOC_HEAP_SIZE's default (8 MiB, as CUDA's).
inline constexpr unsigned long long DefaultHeapBytes = 8ull << 20;

} // namespace reptx::malloc_heap
