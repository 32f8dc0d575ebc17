#include "THAllocatorRegistry.h"

/* ---- the table ---------------------------------------------------------------------------- */

static THAllocator *const all_allocators[] = {&THDefaultAllocator, &THMapAllocator,
                                              &THSharedMemAllocator, &THBorrowedAllocator,
                                              &THNumpyAllocator};

void THAllocator_counts(const THAllocator *a, THAllocCounts *out) {
  THAllocator_readCounts(a, out);
  if (a) return;
  for (size_t i = 0; i < sizeof all_allocators / sizeof all_allocators[0]; i++) {
    THAllocCounts c;
    THAllocator_readCounts(all_allocators[i], &c);
    out->live_allocs += c.live_allocs;
    out->total_allocs += c.total_allocs;
  }
}

int THAllocator_count(void) { return (int)(sizeof all_allocators / sizeof all_allocators[0]); }

THAllocator *THAllocator_at(int i) {
  THArgCheck(i >= 0 && i < THAllocator_count(), TH_ERR_INDEX, NULL,
             "allocator index %d out of range", i);
  return all_allocators[i];
}

/* ---- selection ---------------------------------------------------------------------------- */

/* The cache new storages get, or NULL for aligned malloc. Taken with acquire order, so the
 * thread that takes it sees the instance made (THCachingAllocator_global) before it was set. */
static THCachingAllocator *_Atomic storage_cache = NULL;

int THAllocator_useCaching(int on) {
  return atomic_exchange(&storage_cache, on ? THCachingAllocator_global() : NULL) != NULL;
}

int THAllocator_usesCaching(void) {
  return atomic_load_explicit(&storage_cache, memory_order_relaxed) != NULL;
}

THAllocator *THAllocator_forStorage(void **ctx) {
  THCachingAllocator *cache = atomic_load_explicit(&storage_cache, memory_order_acquire);
  *ctx = cache;
  return cache ? &THCachingDefaultAllocator : &THDefaultAllocator;
}
