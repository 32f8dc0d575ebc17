#ifndef TH_ALLOCATOR_REGISTRY_H
#define TH_ALLOCATOR_REGISTRY_H

/* The allocators pyth reports, and the one new storages get.
 *
 * The one place that knows every allocator: THAllocator.h's own and the caching allocator built
 * on them (THCachingAllocator.h). The dependency goes one way: this file on both, the cache on
 * THAllocator, THAllocator on neither.
 */

#include "THAllocator.h"
#include "THCachingAllocator.h"

/* The allocators of THAllocator.h, one per kind of memory, for iteration (memory_stats). The
 * caching allocator is not listed apart: its memory is of the "default" kind and counted there. */
int THAllocator_count(void);
THAllocator *THAllocator_at(int i);
/* The counters of allocator a, or of every allocator together when a is NULL. */
void THAllocator_counts(const THAllocator *a, THAllocCounts *out);

/* Which allocator new storages get: the caching one over the process-wide cache (1) or the
 * default, aligned malloc (0). Returns the previous choice. Storages keep the memory they have. */
int THAllocator_useCaching(int on);
int THAllocator_usesCaching(void);

#ifndef TH_CDEF
/* The allocator a new storage gets, with its context in *ctx: THCachingDefaultAllocator over
 * the process-wide cache, or THDefaultAllocator (context NULL). */
THAllocator *THAllocator_forStorage(void **ctx);
#endif

#endif
