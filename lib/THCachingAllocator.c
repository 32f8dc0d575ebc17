#include "THCachingAllocator.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "THAtomic.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
/* Cached memory is poisoned, so a sanitized run still catches a use after free. */
#define TH_POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (size_t)(n))
#define TH_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (size_t)(n))
#else
#define TH_POISON(p, n) ((void)(p), (void)(n))
#define TH_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

/* Free blocks up to TH_BIN_MAX bytes sit in exact-size bins (one per multiple of 512), found
 * through a two-level bitmap (a bit per bin, and a bit per word of those); larger ones in a list
 * sorted by (size, address). Every small-pool block and the 1-2 MiB pieces of the large pool
 * are binned, so the common cases cost two bit scans. */
#define TH_BIN_MAX ((int64_t)TH_CACHING_SMALL_SEGMENT)
#define TH_NBINS (TH_BIN_MAX / TH_CACHING_MIN_BLOCK)
#define TH_BITWORDS (TH_NBINS / 64)
_Static_assert(TH_BITWORDS == 64, "the summary word has a bit per bitmap word");

typedef struct Segment Segment;
typedef struct Block Block;

struct Block {
  char *ptr;
  int64_t size;
  int64_t requested; /* 0 while free */
  Segment *seg;
  Block *prev, *next;   /* neighbours in the segment, by address */
  Block *fprev, *fnext; /* the free bin or list */
  int allocated;
};

struct Segment {
  char *base;
  int64_t size;
  int pool;
  Block *head; /* the block at base (it stays the first one: merges keep the lower block) */
  Segment *prev, *next;
};

typedef struct Pool {
  int kind;
  Block *bins[TH_NBINS]; /* bins[i]: free blocks of (i + 1) * 512 bytes */
  uint64_t bitmap[TH_BITWORDS];
  uint64_t summary; /* bit w: bitmap[w] has a bit set */
  Block *sorted; /* free blocks above TH_BIN_MAX, ascending (size, address) */
} Pool;

struct THCachingAllocator {
  pthread_mutex_t mutex;
  Pool pools[TH_CACHING_POOLS]; /* [SMALL] and [LARGE]; [ALL] unused */
  Segment *segments, *last_segment;
  Block **table; /* blocks in use, by address: open addressing, linear probing */
  int64_t table_cap, table_used;
  Block *spare; /* recycled block records */
  THCachingStats stats;
  int64_t fail_next, limit;
  THCachingAllocator *reg_next; /* the registry of instances (fork handling) */
};

/* The process-wide instance (THCachingAllocator_global; the thread cache serves it alone). */
static THCachingAllocator global_instance;

/* A thread's cache of blocks it gave back to that instance (see "the thread cache" below). */
enum { TCACHE_NEW = 0, TCACHE_ON = 1, TCACHE_GONE = 2 };

typedef struct ThreadCache {
  int n;                             /* resting blocks */
  int state;                         /* TCACHE_*: GONE once the thread has begun to exit */
  void *ptr[TH_TCACHE_BLOCKS];
  int64_t requested[TH_TCACHE_BLOCKS];
  int64_t reuses, reused_bytes;      /* not yet in the cumulative counts */
} ThreadCache;

static _Thread_local ThreadCache tcache;

/* ---- counters ----------------------------------------------------------------------------- */

static void stat_add(THCachingStat *st, int pool, int64_t delta) {
  for (int i = 0; i < 2; i++) {
    THCachingStat *s = &st[i ? pool : TH_CACHING_ALL];
    s->current += delta;
    if (s->current > s->peak) s->peak = s->current;
    if (delta > 0) s->allocated += delta;
    else s->freed -= delta;
  }
}

/* A free block that is not a whole segment is fragmentation: it counts as inactive split. */
static void count_inactive(THCachingAllocator *self, Block *b, int sign) {
  if (!b->prev && !b->next) return;
  stat_add(self->stats.inactive_split, b->seg->pool, sign);
  stat_add(self->stats.inactive_split_bytes, b->seg->pool, sign * b->size);
}

/* ---- free blocks: bins and the sorted list ------------------------------------------------ */

static int64_t bin_of(int64_t size) { return size / TH_CACHING_MIN_BLOCK - 1; }

static void free_insert(THCachingAllocator *self, Block *b) {
  Pool *p = &self->pools[b->seg->pool];
  count_inactive(self, b, 1);
  TH_POISON(b->ptr, b->size);
  b->fprev = NULL;
  if (b->size <= TH_BIN_MAX) {
    int64_t i = bin_of(b->size);
    b->fnext = p->bins[i];
    if (b->fnext) b->fnext->fprev = b;
    p->bins[i] = b;
    p->bitmap[i / 64] |= (uint64_t)1 << (i % 64);
    p->summary |= (uint64_t)1 << (i / 64);
    return;
  }
  Block **at = &p->sorted;
  Block *before = NULL;
  while (*at && ((*at)->size < b->size || ((*at)->size == b->size && (*at)->ptr < b->ptr))) {
    before = *at;
    at = &(*at)->fnext;
  }
  b->fnext = *at;
  b->fprev = before;
  if (b->fnext) b->fnext->fprev = b;
  *at = b;
}

static void free_remove(THCachingAllocator *self, Block *b) {
  Pool *p = &self->pools[b->seg->pool];
  count_inactive(self, b, -1);
  TH_UNPOISON(b->ptr, b->size);
  if (b->fnext) b->fnext->fprev = b->fprev;
  if (b->fprev) {
    b->fprev->fnext = b->fnext;
  } else if (b->size <= TH_BIN_MAX) {
    int64_t i = bin_of(b->size);
    p->bins[i] = b->fnext;
    if (!b->fnext) {
      p->bitmap[i / 64] &= ~((uint64_t)1 << (i % 64));
      if (!p->bitmap[i / 64]) p->summary &= ~((uint64_t)1 << (i / 64));
    }
  } else {
    p->sorted = b->fnext;
  }
  b->fprev = b->fnext = NULL;
}

/* a: a power of two. */
static uintptr_t align_up(uintptr_t x, uintptr_t a) { return (x + a - 1) & ~(a - 1); }

/* Whether block b can hold size bytes starting at an address aligned to align. */
static int fits(const Block *b, int64_t size, int64_t align) {
  uintptr_t start = align_up((uintptr_t)b->ptr, (uintptr_t)align);
  return (int64_t)(start - (uintptr_t)b->ptr) + size <= b->size;
}

/* Best fit: the smallest free block that holds the request (lowest address among equals in the
 * sorted list, most recently freed within a bin). */
static Block *best_fit(Pool *p, int64_t size, int64_t align) {
  if (size <= TH_BIN_MAX && align <= TH_CACHING_MIN_BLOCK) {
    const int64_t i = bin_of(size), w = i / 64;
    const uint64_t bits = p->bitmap[w] & (~(uint64_t)0 << (i % 64));
    if (bits) return p->bins[w * 64 + __builtin_ctzll(bits)];
    const uint64_t words = w + 1 < TH_BITWORDS ? p->summary & (~(uint64_t)0 << (w + 1)) : 0;
    if (words) {
      const int64_t v = __builtin_ctzll(words);
      return p->bins[v * 64 + __builtin_ctzll(p->bitmap[v])];
    }
  }
  for (Block *b = p->sorted; b; b = b->fnext)
    if (b->size >= size && fits(b, size, align)) return b;
  return NULL;
}

/* ---- blocks in use, by address ------------------------------------------------------------ */

static size_t slot_of(const THCachingAllocator *self, const void *ptr) {
  uint64_t h = ((uint64_t)(uintptr_t)ptr >> 6) * 0x9e3779b97f4a7c15u;
  return (size_t)(h >> 20) & (size_t)(self->table_cap - 1);
}

static void table_put(THCachingAllocator *self, Block *b) {
  size_t i = slot_of(self, b->ptr);
  while (self->table[i]) i = (i + 1) & (size_t)(self->table_cap - 1);
  self->table[i] = b;
  self->table_used++;
}

/* Room for one more entry at a load of at most one half; -1 (MemoryError) if it cannot grow. */
static int table_reserve(THCachingAllocator *self) {
  if (2 * (self->table_used + 1) <= self->table_cap) return 0;
  int64_t cap = self->table_cap ? 2 * self->table_cap : 256;
  Block **old = self->table;
  int64_t old_cap = self->table_cap;
  self->table = calloc((size_t)cap, sizeof *self->table);
  if (!self->table) {
    self->table = old;
    THError_set(TH_ERR_MEMORY, "out of memory: the caching allocator cannot grow its table");
    return -1;
  }
  self->table_cap = cap;
  self->table_used = 0;
  for (int64_t i = 0; i < old_cap; i++)
    if (old[i]) table_put(self, old[i]);
  free(old);
  return 0;
}

/* Removes and returns the block in use at ptr (NULL if none); backward-shift deletion keeps
 * every probe sequence unbroken. */
static Block *table_take(THCachingAllocator *self, const void *ptr) {
  if (!self->table_cap) return NULL;
  const size_t mask = (size_t)(self->table_cap - 1);
  size_t i = slot_of(self, ptr);
  while (self->table[i] && self->table[i]->ptr != ptr) i = (i + 1) & mask;
  Block *found = self->table[i];
  if (!found) return NULL;
  self->table[i] = NULL;
  self->table_used--;
  for (size_t j = (i + 1) & mask; self->table[j]; j = (j + 1) & mask) {
    size_t home = slot_of(self, self->table[j]->ptr);
    /* The entry at j may move to the hole at i when its home is not in (i, j]. */
    if (((j - home) & mask) >= ((j - i) & mask)) {
      self->table[i] = self->table[j];
      self->table[j] = NULL;
      i = j;
    }
  }
  return found;
}

/* ---- block records ------------------------------------------------------------------------ */

/* At least n spare records, so that a split never fails half-way. The records are the
 * allocator's own bookkeeping (plain malloc, outside THAlloc's leak counter: they live as long
 * as the cache). */
static int spares_reserve(THCachingAllocator *self, int n) {
  int have = 0;
  for (Block *b = self->spare; b && have < n; b = b->next) have++;
  for (; have < n; have++) {
    Block *b = malloc(sizeof *b);
    if (!b) {
      THError_set(TH_ERR_MEMORY, "out of memory: the caching allocator cannot record a block");
      return -1;
    }
    b->next = self->spare;
    self->spare = b;
  }
  return 0;
}

static Block *spare_take(THCachingAllocator *self) {
  Block *b = self->spare;
  self->spare = b->next;
  memset(b, 0, sizeof *b);
  return b;
}

static void spare_give(THCachingAllocator *self, Block *b) {
  b->next = self->spare;
  self->spare = b;
}

/* ---- segments ----------------------------------------------------------------------------- */

static int64_t segment_size_for(int64_t size) {
  if (size <= TH_CACHING_SMALL_SIZE) return TH_CACHING_SMALL_SEGMENT;
  if (size < TH_CACHING_MIN_LARGE_ALLOC) return TH_CACHING_LARGE_SEGMENT;
  return (int64_t)align_up((uintptr_t)size, TH_CACHING_ROUND_LARGE);
}

/* A new segment as one free block of pool (NULL when the system, or a test hook, refuses). */
static Block *segment_new(THCachingAllocator *self, int pool, int64_t size) {
  if (self->fail_next > 0) {
    self->fail_next--;
    return NULL;
  }
  int64_t reserved = self->stats.reserved_bytes[TH_CACHING_ALL].current;
  if (self->limit > 0 && size > self->limit - reserved) return NULL;
  Segment *seg = malloc(sizeof *seg);
  char *base = seg ? THAllocator_alignedBlock(size) : NULL;
  if (!base) {
    free(seg);
    return NULL;
  }
  Block *b = spare_take(self);
  b->ptr = base;
  b->size = size;
  b->seg = seg;
  *seg = (Segment){base, size, pool, b, self->last_segment, NULL};
  if (self->last_segment) self->last_segment->next = seg;
  else self->segments = seg;
  self->last_segment = seg;
  stat_add(self->stats.segment, pool, 1);
  stat_add(self->stats.reserved_bytes, pool, size);
  self->stats.num_system_allocs++;
  return b;
}

static void segment_release(THCachingAllocator *self, Segment *seg) {
  if (seg->prev) seg->prev->next = seg->next;
  else self->segments = seg->next;
  if (seg->next) seg->next->prev = seg->prev;
  else self->last_segment = seg->prev;
  stat_add(self->stats.segment, seg->pool, -1);
  stat_add(self->stats.reserved_bytes, seg->pool, -seg->size);
  self->stats.num_system_frees++;
  TH_UNPOISON(seg->base, seg->size);
  free(seg->base);
  spare_give(self, seg->head);
  free(seg);
}

/* Releases the cached blocks that are whole segments, in both pools. */
static int64_t release_cached(THCachingAllocator *self) {
  int64_t released = 0;
  for (Segment *seg = self->segments, *next; seg; seg = next) {
    next = seg->next;
    Block *b = seg->head;
    if (b->allocated || b->next) continue;
    free_remove(self, b);
    released += seg->size;
    segment_release(self, seg);
  }
  return released;
}

/* ---- allocate and release ----------------------------------------------------------------- */

static int64_t round_size(int64_t bytes) {
  if (bytes < TH_CACHING_MIN_BLOCK) return TH_CACHING_MIN_BLOCK;
  return (int64_t)align_up((uintptr_t)bytes, TH_CACHING_MIN_BLOCK);
}

/* Whether a remainder of a block of pool is worth its own block. */
static int should_split(int pool, int64_t remaining) {
  return pool == TH_CACHING_SMALL ? remaining >= TH_CACHING_MIN_BLOCK
                                  : remaining > TH_CACHING_SMALL_SIZE;
}

/* Cuts a new block off b at offset (b keeps the lower part). */
static Block *split_at(THCachingAllocator *self, Block *b, int64_t offset) {
  Block *r = spare_take(self);
  r->ptr = b->ptr + offset;
  r->size = b->size - offset;
  r->seg = b->seg;
  r->prev = b;
  r->next = b->next;
  if (b->next) b->next->prev = r;
  b->next = r;
  b->size = offset;
  return r;
}

/* Hands out free block b for size bytes aligned to align: the alignment gap before and the
 * remainder after go back to the pool as free blocks. Needs two spare records. */
static Block *take(THCachingAllocator *self, Block *b, int64_t size, int64_t align,
                   int64_t requested) {
  free_remove(self, b);
  int64_t gap = (int64_t)(align_up((uintptr_t)b->ptr, (uintptr_t)align) - (uintptr_t)b->ptr);
  if (gap > 0) {
    Block *m = split_at(self, b, gap);
    free_insert(self, b);
    b = m;
  }
  if (should_split(b->seg->pool, b->size - size)) free_insert(self, split_at(self, b, size));
  const int pool = b->seg->pool;
  b->allocated = 1;
  b->requested = requested;
  stat_add(self->stats.allocation, pool, 1);
  stat_add(self->stats.active, pool, 1);
  stat_add(self->stats.allocated_bytes, pool, b->size);
  stat_add(self->stats.active_bytes, pool, b->size);
  stat_add(self->stats.requested_bytes, pool, requested);
  table_put(self, b);
  return b;
}

static void *alloc_locked(THCachingAllocator *self, int64_t bytes) {
  if (bytes < 0 || bytes > INT64_MAX - 2 * (int64_t)TH_CACHING_ROUND_LARGE) {
    THError_set(TH_ERR_MEMORY, "out of memory: failed to allocate %lld bytes", (long long)bytes);
    return NULL;
  }
  THTry(spares_reserve(self, 3), NULL);
  THTry(table_reserve(self), NULL);
  const int64_t size = round_size(bytes);
  const int pool = size <= TH_CACHING_SMALL_SIZE ? TH_CACHING_SMALL : TH_CACHING_LARGE;
  const int64_t align = size >= TH_CACHING_HUGE_ALIGN_FROM ? TH_CACHING_ROUND_LARGE : 64;
  Block *b = best_fit(&self->pools[pool], size, align);
  if (!b) {
    const int64_t seg_size = segment_size_for(size);
    b = segment_new(self, pool, seg_size);
    if (!b) {
      /* The system refused: give back what the cache holds whole and try once more. */
      self->stats.num_alloc_retries++;
      release_cached(self);
      b = segment_new(self, pool, seg_size);
    }
    if (!b) {
      self->stats.num_ooms++;
      THError_set(TH_ERR_MEMORY,
                  "out of memory: failed to allocate %lld bytes (the caching allocator could "
                  "not reserve a segment of %lld bytes even after releasing its cache; %lld "
                  "bytes reserved, %lld allocated)",
                  (long long)bytes, (long long)seg_size,
                  (long long)self->stats.reserved_bytes[TH_CACHING_ALL].current,
                  (long long)self->stats.allocated_bytes[TH_CACHING_ALL].current);
      return NULL;
    }
    free_insert(self, b);
  }
  return take(self, b, size, align, bytes)->ptr;
}

void *THCachingAllocator_alloc(THCachingAllocator *self, int64_t bytes) {
  if (self == &global_instance && bytes >= 0 && bytes <= TH_CACHING_MIN_BLOCK) {
    ThreadCache *tc = TH_TLS_ADDR(tcache); /* a block resting here made for this size */
    for (int i = tc->n - 1; i >= 0; i--) {
      if (tc->requested[i] != bytes) continue;
      void *p = tc->ptr[i];
      tc->n--;
      tc->ptr[i] = tc->ptr[tc->n];
      tc->requested[i] = tc->requested[tc->n];
      tc->reuses++;
      tc->reused_bytes += bytes;
      TH_UNPOISON(p, TH_CACHING_MIN_BLOCK);
      return p;
    }
  }
  pthread_mutex_lock(&self->mutex);
  void *p = alloc_locked(self, bytes);
  pthread_mutex_unlock(&self->mutex);
  return p;
}

/* b absorbs its next neighbour (which is free). */
static void merge_next(THCachingAllocator *self, Block *b) {
  Block *n = b->next;
  free_remove(self, n);
  b->size += n->size;
  b->next = n->next;
  if (n->next) n->next->prev = b;
  spare_give(self, n);
}

/* Returns block ptr to its pool (-1, ValueError, if it is not a block in use here). */
static int release_locked(THCachingAllocator *self, void *ptr) {
  Block *b = table_take(self, ptr);
  if (!b) {
    THError_set(TH_ERR_VALUE, "caching allocator: %p is not a block in use here", ptr);
    return -1;
  }
  const int pool = b->seg->pool;
  stat_add(self->stats.allocation, pool, -1);
  stat_add(self->stats.active, pool, -1);
  stat_add(self->stats.allocated_bytes, pool, -b->size);
  stat_add(self->stats.active_bytes, pool, -b->size);
  stat_add(self->stats.requested_bytes, pool, -b->requested);
  b->allocated = 0;
  b->requested = 0;
  if (b->next && !b->next->allocated) merge_next(self, b);
  if (b->prev && !b->prev->allocated) {
    Block *p = b->prev;
    free_remove(self, p);
    p->size += b->size;
    p->next = b->next;
    if (b->next) b->next->prev = p;
    spare_give(self, b);
    b = p;
  }
  free_insert(self, b);
  return 0;
}

/* ---- the thread cache (the process-wide instance only) ------------------------------------
 *
 * A training step frees and makes the same small results again and again, and the trip
 * through the lock, the bins and the table was about 45 ns of a 10-element add's 640. So each
 * thread keeps up to TH_TCACHE_BLOCKS of the smallest blocks (512 bytes: requests of at most
 * 512 bytes) that it gave back to the process-wide instance, and hands one out again, with no
 * lock, for a request of exactly the size it was made for.
 *
 * To the allocator a resting block is still in use, with the request it was made for: a reuse
 * changes no current value and no peak, only the cumulative counts (allocated / freed), which
 * the thread keeps and adds when it flushes. A thread flushes (returns its resting blocks under
 * the lock) before it reads the statistics or a snapshot, empties the cache or resets the
 * peaks, and when it exits. Until then blocks resting in *other* threads' caches, at most
 * TH_TCACHE_BLOCKS x 512 bytes per thread, count as allocated. */

static _Atomic int tcache_limit = TH_TCACHE_BLOCKS;
static pthread_key_t tcache_key;
static pthread_once_t tcache_once = PTHREAD_ONCE_INIT;
static int tcache_keyed = 0;

/* One more increase and decrease by n in a statistic's cumulative counts (pool and all). */
static void stat_cycle(THCachingStat *st, int pool, int64_t n) {
  for (int i = 0; i < 2; i++) {
    THCachingStat *s = &st[i ? pool : TH_CACHING_ALL];
    s->allocated += n;
    s->freed += n;
  }
}

/* The thread's resting blocks back to the process-wide instance (its lock held). */
static void tcache_flush_locked(ThreadCache *tc) {
  THCachingAllocator *self = &global_instance;
  if (tc->reuses) {
    THCachingStats *st = &self->stats;
    stat_cycle(st->allocation, TH_CACHING_SMALL, tc->reuses);
    stat_cycle(st->active, TH_CACHING_SMALL, tc->reuses);
    stat_cycle(st->allocated_bytes, TH_CACHING_SMALL, tc->reuses * TH_CACHING_MIN_BLOCK);
    stat_cycle(st->active_bytes, TH_CACHING_SMALL, tc->reuses * TH_CACHING_MIN_BLOCK);
    stat_cycle(st->requested_bytes, TH_CACHING_SMALL, tc->reused_bytes);
    tc->reuses = tc->reused_bytes = 0;
  }
  while (tc->n > 0) {
    void *p = tc->ptr[--tc->n];
    TH_UNPOISON(p, TH_CACHING_MIN_BLOCK);
    (void)release_locked(self, p); /* cannot fail: the block is in use here */
  }
}

/* Flushes the calling thread's cache when self is the process-wide instance (lock held). */
static void tcache_flush_own(THCachingAllocator *self) {
  if (self == &global_instance) tcache_flush_locked(TH_TLS_ADDR(tcache));
}

/* The key's destructor: the thread is exiting. */
static void tcache_exit(void *arg) {
  ThreadCache *tc = arg;
  pthread_mutex_lock(&global_instance.mutex);
  tcache_flush_locked(tc);
  tc->state = TCACHE_GONE; /* blocks released from here on go straight back */
  pthread_mutex_unlock(&global_instance.mutex);
}

static void tcache_make_key(void) {
  tcache_keyed = pthread_key_create(&tcache_key, tcache_exit) == 0;
}

/* First block a thread keeps: arrange for its exit to flush (0 if that cannot be done: then
 * the thread does not cache). */
static int tcache_join(ThreadCache *tc) {
  pthread_once(&tcache_once, tcache_make_key);
  tc->state = tcache_keyed && pthread_setspecific(tcache_key, tc) == 0 ? TCACHE_ON : TCACHE_GONE;
  return tc->state == TCACHE_ON;
}

int THCachingAllocator_setThreadCache(int blocks) {
  THArgCheck(blocks >= 0 && blocks <= TH_TCACHE_BLOCKS, TH_ERR_VALUE, -1,
             "thread cache: %d blocks is outside [0, %d]", blocks, TH_TCACHE_BLOCKS);
  const int old = atomic_exchange(&tcache_limit, blocks);
  THCachingAllocator *self = THCachingAllocator_global();
  pthread_mutex_lock(&self->mutex);
  tcache_flush_own(self);
  pthread_mutex_unlock(&self->mutex);
  return old;
}

int THCachingAllocator_release(THCachingAllocator *self, void *ptr) {
  if (!ptr) return 0;
  pthread_mutex_lock(&self->mutex);
  const int r = release_locked(self, ptr);
  pthread_mutex_unlock(&self->mutex);
  return r;
}

int THCachingAllocator_releaseSized(THCachingAllocator *self, void *ptr, int64_t bytes) {
  if (ptr && self == &global_instance && bytes >= 0 && bytes <= TH_CACHING_MIN_BLOCK) {
    ThreadCache *tc = TH_TLS_ADDR(tcache);
    if (tc->n < atomic_load_explicit(&tcache_limit, memory_order_relaxed) &&
        (tc->state == TCACHE_ON || (tc->state == TCACHE_NEW && tcache_join(tc)))) {
      TH_POISON(ptr, TH_CACHING_MIN_BLOCK);
      tc->ptr[tc->n] = ptr;
      tc->requested[tc->n++] = bytes;
      return 0;
    }
  }
  return THCachingAllocator_release(self, ptr);
}

int64_t THCachingAllocator_emptyCache(THCachingAllocator *self) {
  pthread_mutex_lock(&self->mutex);
  tcache_flush_own(self);
  int64_t released = release_cached(self);
  pthread_mutex_unlock(&self->mutex);
  return released;
}

/* ---- introspection and test hooks --------------------------------------------------------- */

void THCachingAllocator_getStats(THCachingAllocator *self, THCachingStats *out) {
  pthread_mutex_lock(&self->mutex);
  tcache_flush_own(self);
  *out = self->stats;
  pthread_mutex_unlock(&self->mutex);
}

void THCachingAllocator_resetPeaks(THCachingAllocator *self) {
  pthread_mutex_lock(&self->mutex);
  tcache_flush_own(self);
  THCachingStat *all[] = {self->stats.allocation,     self->stats.segment,
                          self->stats.active,         self->stats.inactive_split,
                          self->stats.allocated_bytes, self->stats.reserved_bytes,
                          self->stats.active_bytes,   self->stats.inactive_split_bytes,
                          self->stats.requested_bytes};
  for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
    for (int i = 0; i < TH_CACHING_POOLS; i++) all[k][i].peak = all[k][i].current;
  pthread_mutex_unlock(&self->mutex);
}

int64_t THCachingAllocator_snapshot(THCachingAllocator *self, THCachingBlockInfo *out,
                                    int64_t cap) {
  pthread_mutex_lock(&self->mutex);
  tcache_flush_own(self);
  int64_t n = 0, s = 0;
  for (Segment *seg = self->segments; seg; seg = seg->next, s++) {
    for (Block *b = seg->head; b; b = b->next, n++) {
      if (n >= cap) continue;
      out[n] = (THCachingBlockInfo){s, seg->size, (int64_t)(b->ptr - seg->base), b->size,
                                    b->requested, (uintptr_t)b->ptr, seg->pool, b->allocated};
    }
  }
  pthread_mutex_unlock(&self->mutex);
  return n;
}

void THCachingAllocator_failNext(THCachingAllocator *self, int64_t n) {
  pthread_mutex_lock(&self->mutex);
  self->fail_next = n > 0 ? n : 0;
  pthread_mutex_unlock(&self->mutex);
}

void THCachingAllocator_setLimit(THCachingAllocator *self, int64_t bytes) {
  pthread_mutex_lock(&self->mutex);
  self->limit = bytes > 0 ? bytes : 0;
  pthread_mutex_unlock(&self->mutex);
}

/* ---- instances and fork ------------------------------------------------------------------- */

/* Every instance, so a fork can hold all their locks: the child then starts from a consistent
 * state with each lock free, whatever other threads of the parent were doing. */
static pthread_mutex_t registry_mutex = PTHREAD_MUTEX_INITIALIZER;
static THCachingAllocator *registry = NULL;

static void fork_prepare(void) {
  pthread_mutex_lock(&registry_mutex);
  for (THCachingAllocator *a = registry; a; a = a->reg_next) pthread_mutex_lock(&a->mutex);
}

static void fork_done(void) {
  for (THCachingAllocator *a = registry; a; a = a->reg_next) pthread_mutex_unlock(&a->mutex);
  pthread_mutex_unlock(&registry_mutex);
}

static pthread_once_t fork_once = PTHREAD_ONCE_INIT;
static void fork_install(void) { pthread_atfork(fork_prepare, fork_done, fork_done); }

static void registry_add(THCachingAllocator *self) {
  pthread_once(&fork_once, fork_install);
  pthread_mutex_lock(&registry_mutex);
  self->reg_next = registry;
  registry = self;
  pthread_mutex_unlock(&registry_mutex);
}

static void init(THCachingAllocator *self) {
  memset(self, 0, sizeof *self);
  pthread_mutex_init(&self->mutex, NULL);
  self->pools[TH_CACHING_SMALL].kind = TH_CACHING_SMALL;
  self->pools[TH_CACHING_LARGE].kind = TH_CACHING_LARGE;
  registry_add(self);
}

THCachingAllocator *THCachingAllocator_new(void) {
  THCachingAllocator *self = malloc(sizeof *self);
  if (!self) {
    THError_set(TH_ERR_MEMORY, "out of memory: cannot make a caching allocator");
    return NULL;
  }
  init(self);
  return self;
}

int THCachingAllocator_free(THCachingAllocator *self) {
  if (!self) return 0;
  THArgCheck(self != THCachingAllocator_global(), TH_ERR_RUNTIME, -1,
             "the process-wide caching allocator cannot be freed");
  pthread_mutex_lock(&self->mutex);
  const int64_t in_use = self->stats.allocation[TH_CACHING_ALL].current;
  if (in_use > 0) {
    pthread_mutex_unlock(&self->mutex);
    THError_set(TH_ERR_RUNTIME, "caching allocator: %lld block(s) still in use",
                (long long)in_use);
    return -1;
  }
  release_cached(self);
  pthread_mutex_unlock(&self->mutex);
  pthread_mutex_lock(&registry_mutex);
  for (THCachingAllocator **at = &registry; *at; at = &(*at)->reg_next) {
    if (*at == self) {
      *at = self->reg_next;
      break;
    }
  }
  pthread_mutex_unlock(&registry_mutex);
  while (self->spare) {
    Block *b = self->spare;
    self->spare = b->next;
    free(b);
  }
  free(self->table);
  pthread_mutex_destroy(&self->mutex);
  free(self);
  return 0;
}

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static void global_init(void) { init(&global_instance); }

THCachingAllocator *THCachingAllocator_global(void) {
  pthread_once(&global_once, global_init);
  return &global_instance;
}

/* ---- the cache as an allocator ------------------------------------------------------------
 *
 * A storage's memory from the instance that is its context. The counters are the default
 * allocator's (THDefaultAllocatorStats): memory_stats() counts by the kind of memory, not by
 * where it came from. A release is sized, so the process-wide instance may keep a small block
 * in the releasing thread's cache. */

static void *caching_malloc(void *ctx, int64_t bytes) {
  void *p = THCachingAllocator_alloc(ctx, bytes);
  if (p) THAllocator_countAlloc(&THCachingDefaultAllocator, bytes);
  return p;
}

static void *caching_realloc(void *ctx, void *ptr, int64_t old_bytes, int64_t new_bytes) {
  void *p = THCachingAllocator_alloc(ctx, new_bytes);
  if (!p) return NULL;
  if (ptr) {
    memcpy(p, ptr, (size_t)TH_MIN(old_bytes, new_bytes));
    (void)THCachingAllocator_releaseSized(ctx, ptr, old_bytes);
    THAllocator_countResize(&THCachingDefaultAllocator, old_bytes, new_bytes);
  } else {
    THAllocator_countAlloc(&THCachingDefaultAllocator, new_bytes);
  }
  return p;
}

static void caching_free(void *ctx, void *ptr, int64_t bytes) {
  if (!ptr) return;
  (void)THCachingAllocator_releaseSized(ctx, ptr, bytes);
  THAllocator_countFree(&THCachingDefaultAllocator, bytes);
}

THAllocator THCachingDefaultAllocator = {"default", caching_malloc, caching_realloc, caching_free,
                                         &THDefaultAllocatorStats};
