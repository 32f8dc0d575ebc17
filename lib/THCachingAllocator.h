#ifndef TH_CACHING_ALLOCATOR_H
#define TH_CACHING_ALLOCATOR_H

/* The caching allocator: the policy of PyTorch's CUDA caching allocator, for CPU memory.
 *
 * Memory comes from the system in *segments* and is handed out in *blocks* cut from them; a
 * freed block goes back to its pool, merged with free neighbours, and is reused without a
 * system call. Policy (the constants below):
 *   - every request is rounded up to a multiple of 512 bytes (the smallest block);
 *   - small requests (<= 1 MiB) are cut from 2 MiB segments of the small pool, large ones from
 *     the large pool; a free block is chosen best-fit (the smallest free block that fits);
 *   - when no cached block fits, a new segment is reserved: 2 MiB for a small request, 20 MiB
 *     for one below 10 MiB, otherwise the request rounded up to 2 MiB (its own segment);
 *   - a block larger than the request is split when what remains is at least 512 bytes (small
 *     pool) or more than 1 MiB (large pool); otherwise the block keeps the slack;
 *   - a freed block is coalesced with free neighbours of its segment;
 *   - when the system refuses a segment, every cached block that is a whole segment (unsplit)
 *     is released and the reservation retried once; if that fails too, MemoryError.
 * Alignment is the default allocator's: 64 bytes, and 2 MiB for requests of 4 MiB and more
 * (segments of 4 MiB and more are 2 MiB aligned and advised for transparent huge pages).
 *
 * One mutex per allocator guards its pools and counters; a fork waits for no call in
 * progress and the child starts with the lock free (pthread_atfork).
 *
 * To storages the cache is one more allocator (THAllocator.h's table): THCachingDefaultAllocator,
 * whose context is the instance the memory comes from. Its memory is of the "default" kind
 * (private heap memory): it has the default allocator's name and counters. The process-wide
 * instance serves new storages when caching is selected (THAllocator_useCaching,
 * THAllocatorRegistry.h): a storage made then keeps this allocator and that instance as its
 * context, so it returns its memory to the cache whatever is selected later. Other instances
 * (THCachingAllocator_new) are private: the tests drive the policy through them.
 */

#include "THAllocator.h"
#include "THGeneral.h"

enum {
  TH_CACHING_MIN_BLOCK = 512,         /* rounding unit, smallest block */
  TH_CACHING_SMALL_SIZE = 1048576,    /* largest small request: 1 MiB */
  TH_CACHING_SMALL_SEGMENT = 2097152, /* small segments: 2 MiB */
  TH_CACHING_LARGE_SEGMENT = 20971520, /* segments for requests below 10 MiB: 20 MiB */
  TH_CACHING_MIN_LARGE_ALLOC = 10485760, /* from here a request gets its own segment */
  TH_CACHING_ROUND_LARGE = 2097152,   /* own segments are rounded up to 2 MiB */
  TH_CACHING_HUGE_ALIGN_FROM = 4194304, /* requests from 4 MiB up start 2 MiB aligned */
  TH_TCACHE_BLOCKS = 8                  /* blocks of 512 bytes a thread may keep */
};

/* Pools, as indices into the per-pool counters. */
enum { TH_CACHING_ALL = 0, TH_CACHING_SMALL = 1, TH_CACHING_LARGE = 2, TH_CACHING_POOLS = 3 };

/* One statistic, as PyTorch keeps it: the current value, its peak, and the sums of increases
 * (allocated) and decreases (freed) since the allocator was made. */
typedef struct THCachingStat {
  int64_t current;
  int64_t peak;
  int64_t allocated;
  int64_t freed;
} THCachingStat;

/* Each array is indexed by pool (all, small, large). On a CPU nothing keeps a freed block busy
 * (no streams), so "active" equals "allocated"; both are kept under PyTorch's names. */
typedef struct THCachingStats {
  THCachingStat allocation[3];           /* blocks handed out */
  THCachingStat segment[3];              /* segments reserved from the system */
  THCachingStat active[3];               /* blocks in use */
  THCachingStat inactive_split[3];       /* free blocks inside partly used segments */
  THCachingStat allocated_bytes[3];      /* bytes of blocks handed out (rounded sizes) */
  THCachingStat reserved_bytes[3];       /* bytes of segments */
  THCachingStat active_bytes[3];         /* bytes of blocks in use */
  THCachingStat inactive_split_bytes[3]; /* bytes of free blocks inside partly used segments */
  THCachingStat requested_bytes[3];      /* bytes asked for (before rounding) */
  int64_t num_alloc_retries;             /* reservations retried after releasing the cache */
  int64_t num_ooms;                      /* requests that failed after the retry */
  int64_t num_system_allocs;             /* segments reserved, in total */
  int64_t num_system_frees;              /* segments released, in total */
} THCachingStats;

/* One block of a snapshot (THCachingAllocator_snapshot), segments in reservation order and
 * blocks by address within each. */
typedef struct THCachingBlockInfo {
  int64_t segment;      /* index of the block's segment in the snapshot */
  int64_t segment_size; /* bytes of that segment */
  int64_t offset;       /* of the block from its segment's start */
  int64_t size;         /* bytes of the block */
  int64_t requested;    /* bytes asked for (0 for a free block) */
  uintptr_t address;
  int32_t pool;         /* TH_CACHING_SMALL or TH_CACHING_LARGE */
  int32_t allocated;    /* 1 in use, 0 cached */
} THCachingBlockInfo;

typedef struct THCachingAllocator THCachingAllocator;

/* A private allocator (NULL with a MemoryError if it cannot be made). free releases its
 * segments; it refuses (-1, RuntimeError) while any block is still in use. */
THCachingAllocator *THCachingAllocator_new(void);
int THCachingAllocator_free(THCachingAllocator *self);
/* The process-wide instance behind the "default" allocator in caching mode. */
THCachingAllocator *THCachingAllocator_global(void);

/* A block of at least bytes bytes (NULL with a MemoryError on failure). */
void *THCachingAllocator_alloc(THCachingAllocator *self, int64_t bytes);
/* Returns a block from alloc to the cache; ValueError if ptr is not one in use here. */
int THCachingAllocator_release(THCachingAllocator *self, void *ptr);
/* The same for ptr = alloc(self, bytes), which the calling thread may keep for its next request
 * of bytes bytes: the thread cache (process-wide instance only; THCachingAllocator.c). */
int THCachingAllocator_releaseSized(THCachingAllocator *self, void *ptr, int64_t bytes);
/* How many blocks each thread may keep (0-TH_TCACHE_BLOCKS; 0 turns the cache off); returns
 * the old value. The calling thread's cache is flushed. */
int THCachingAllocator_setThreadCache(int blocks);
/* Releases every cached segment no block uses (returns the bytes released). */
int64_t THCachingAllocator_emptyCache(THCachingAllocator *self);

void THCachingAllocator_getStats(THCachingAllocator *self, THCachingStats *out);
/* Peaks back to the current values. */
void THCachingAllocator_resetPeaks(THCachingAllocator *self);
/* Writes up to cap blocks into out; returns how many blocks there are. */
int64_t THCachingAllocator_snapshot(THCachingAllocator *self, THCachingBlockInfo *out,
                                    int64_t cap);
/* Test hooks on the reservations from the system: the next n fail; a limit on the reserved
 * bytes above which a reservation fails (0: none). */
void THCachingAllocator_failNext(THCachingAllocator *self, int64_t n);
void THCachingAllocator_setLimit(THCachingAllocator *self, int64_t bytes);

/* The cache as an allocator: malloc / realloc / free on the instance given as context. */
extern THAllocator THCachingDefaultAllocator;

#endif
