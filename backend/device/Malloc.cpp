// Device-side malloc and free: `i64 @reptx.malloc(i64 size)` and `void @reptx.free(i64 ptr)`,
// CUDA's `malloc`/`free` system calls (what `new` and `delete` in device code call). Blocks come
// from the heap whose address the loader wrote into `__reptx_malloc_heap`: a lock-free free list
// per power-of-two block size, refilled from a bump pointer. Layout: reptx/backend/MallocHeap.h.
#include "Device.h"

#include "../include/reptx/backend/MallocHeap.h"

// The device address of the heap, 0 when the loader gave none. External (protected visibility,
// so also a dynamic symbol of the code object) so that a loader finds and writes it; it is linked
// only into modules that call malloc or free.
extern "C" {
[[gnu::visibility("protected")]] __attribute__((address_space(1)))
reptx::device::u64 __reptx_malloc_heap = 0;
}

namespace reptx::device {

namespace {

namespace mh = reptx::malloc_heap;

constexpr u64 OffsetMask = (u64(1) << mh::OffsetBits) - 1;
constexpr u64 TagOne = u64(1) << mh::OffsetBits;

GlobalU64 *word(u64 Address) { return reinterpret_cast<GlobalU64 *>(Address); }

u64 loadAcquire(u64 Address) {
  return __scoped_atomic_load_n(word(Address), __ATOMIC_ACQUIRE, __MEMORY_SCOPE_DEVICE);
}

// On failure, Expected receives the current value.
bool compareExchange(u64 Address, u64 &Expected, u64 Desired) {
  return __scoped_atomic_compare_exchange_n(word(Address), &Expected, Desired, false,
                                            __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE,
                                            __MEMORY_SCOPE_DEVICE);
}

// The free list of blocks of class C.
u64 freeList(u64 Heap, u32 C) { return Heap + 16 + 8 * u64(C); }

} // namespace

/// A 16-byte-aligned block of at least Size bytes, 0 when there is no heap or no room left.
REPTX_HELPER("reptx.malloc", u64, reptx_malloc, (u64 Size)) {
  u64 Heap = __reptx_malloc_heap;
  constexpr u64 Largest = u64(1) << (mh::MinShift + mh::Classes - 1);
  if (!Heap || Size > Largest - mh::BlockHeaderBytes)
    return 0;
  u32 C = 0;
  while ((u64(1) << (mh::MinShift + C)) < Size + mh::BlockHeaderBytes)
    ++C;
  u64 Arena = Heap + mh::HeaderBytes;
  // A freed block of this size: pop it (the tag makes a compare-and-swap against a head that was
  // popped and pushed again in between fail).
  u64 List = freeList(Heap, C);
  u64 Old = loadAcquire(List);
  while (Old & OffsetMask) {
    u64 Block = Arena + (Old & OffsetMask) - 1;
    u64 Next = __scoped_atomic_load_n(word(Block), __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE);
    if (compareExchange(List, Old, ((Old & ~OffsetMask) + TagOne) | (Next & OffsetMask)))
      return Block + mh::BlockHeaderBytes;
  }
  // Otherwise a new block from the top of the arena, if it fits.
  u64 Bytes = u64(1) << (mh::MinShift + C);
  u64 Capacity = *word(Heap);
  u64 Top = loadAcquire(Heap + 8);
  do {
    if (Top > Capacity || Bytes > Capacity - Top)
      return 0;
  } while (!compareExchange(Heap + 8, Top, Top + Bytes));
  u64 Block = Arena + Top;
  word(Block)[1] = C;
  return Block + mh::BlockHeaderBytes;
}

/// Returns a block malloc handed out to its free list; 0, and addresses that are not such a
/// block's, are ignored.
REPTX_HELPER("reptx.free", void, reptx_free, (u64 Ptr)) {
  u64 Heap = __reptx_malloc_heap;
  if (!Heap || !Ptr)
    return;
  u64 Arena = Heap + mh::HeaderBytes;
  u64 Capacity = *word(Heap);
  if (Ptr < Arena + mh::BlockHeaderBytes || (Ptr & 15) ||
      Ptr - Arena - mh::BlockHeaderBytes >= Capacity)
    return;
  u64 Block = Ptr - mh::BlockHeaderBytes;
  u64 C = word(Block)[1];
  if (C >= mh::Classes)
    return;
  u64 List = freeList(Heap, u32(C));
  u64 Old = loadAcquire(List);
  do {
    __scoped_atomic_store_n(word(Block), Old & OffsetMask, __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE);
  } while (!compareExchange(List, Old, ((Old & ~OffsetMask) + TagOne) | (Block - Arena + 1)));
}

} // namespace reptx::device
