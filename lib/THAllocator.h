#ifndef TH_ALLOCATOR_H
#define TH_ALLOCATOR_H

/* Pluggable allocators (TH's THAllocator, plus counters).
 *
 * A storage gets its memory from an allocator: a table of three functions and a per-storage
 * context. The contract:
 *   malloc(ctx, bytes)             returns memory, or NULL after recording an error;
 *   realloc(ctx, ptr, old, new)    may be NULL: the allocator cannot grow memory (mapped files,
 *                                  borrowed buffers), and resizing such a storage is an error;
 *   free(ctx, ptr, bytes)          releases ptr (which may be NULL) AND the context. A storage
 *                                  calls it exactly once, also when its own construction fails,
 *                                  so a context never leaks.
 * Every allocator keeps counters (live bytes, peak bytes, live and total allocations) that
 * pyth.memory_stats() reads.
 *
 * This file knows only its own allocators. The caching allocator is one more, built on this one
 * (THCachingAllocator.h); THAllocatorRegistry.h lists the allocators and picks the one new
 * storages get.
 */

#include "THAtomic.h"
#include "THGeneral.h"

/* An allocator's counters as it keeps them: bytes here, allocation counts in the per-thread
 * counters from slot `counts` (live) and `counts + 1` (made in total). Read them through
 * THAllocator_counts. */
typedef struct THAllocStats {
  TH_ATOMIC int64_t live_bytes;
  TH_ATOMIC int64_t peak_bytes;
  int counts;
} THAllocStats;

/* One reading of an allocator's counters. */
typedef struct THAllocCounts {
  int64_t live_bytes;
  int64_t peak_bytes;
  int64_t live_allocs;
  int64_t total_allocs;
} THAllocCounts;

typedef struct THAllocator {
  const char *name;
  void *(*malloc)(void *ctx, int64_t bytes);
  void *(*realloc)(void *ctx, void *ptr, int64_t old_bytes, int64_t new_bytes);
  void (*free)(void *ctx, void *ptr, int64_t bytes);
  THAllocStats *stats;
} THAllocator;

/* Mapping flags, as TH had them; combine with |. */
enum {
  TH_ALLOCATOR_MAPPED_SHARED = 1,    /* writes reach the file (MAP_SHARED); else private copy */
  TH_ALLOCATOR_MAPPED_SHAREDMEM = 2, /* the name is a POSIX shared-memory object (shm_open) */
  TH_ALLOCATOR_MAPPED_EXCLUSIVE = 4, /* fail if the object already exists */
  TH_ALLOCATOR_MAPPED_NOCREATE = 8,  /* fail if it does not exist */
  TH_ALLOCATOR_MAPPED_KEEPFD = 16,   /* keep the descriptor open while mapped */
  TH_ALLOCATOR_MAPPED_FROMFD = 32,   /* the context maps a descriptor it was given (dup'ed) */
  TH_ALLOCATOR_MAPPED_UNLINK = 64    /* remove the name once mapped */
};

extern THAllocator THDefaultAllocator;   /* "default": 64-byte aligned malloc */
extern THAllocator THMapAllocator;       /* "mapped": a file mapped with mmap */
extern THAllocator THSharedMemAllocator; /* "shared": POSIX shared memory */
extern THAllocator THBorrowedAllocator;  /* "borrowed": external memory, handed back on free */
extern THAllocator THNumpyAllocator;     /* "numpy": borrowed from an ndarray */

#ifndef TH_CDEF
/* For allocators defined in other files (THCachingAllocator.c) and the registry
 * (THAllocatorRegistry.c); hidden from Python. */

/* The counters of the "default" kind of memory (private heap memory): THDefaultAllocator's, and
 * those of any other allocator of that kind, which reports its memory as "default"
 * (THCachingDefaultAllocator). */
extern THAllocStats THDefaultAllocatorStats;

/* Counter updates as this file's allocators make them: an allocation of bytes made, one freed,
 * one resized from old_bytes to new_bytes. */
void THAllocator_countAlloc(THAllocator *self, int64_t bytes);
void THAllocator_countFree(THAllocator *self, int64_t bytes);
void THAllocator_countResize(THAllocator *self, int64_t old_bytes, int64_t new_bytes);
/* The counters of allocator a; for NULL the byte totals of every allocator together, with no
 * allocation counts (THAllocator_counts adds those up over the registry). */
void THAllocator_readCounts(const THAllocator *a, THAllocCounts *out);

/* A system block aligned as the default allocator aligns (64 bytes; 2 MiB and huge-page
 * advice from 4 MiB up), or NULL without recording an error. */
void *THAllocator_alignedBlock(int64_t bytes);
#endif

/* Context of a mapping: opened file or shm object, flags, and (once mapped) its byte size. */
typedef struct THMapAllocatorContext {
  char *filename;
  int flags;
  int fd;
  int64_t file_size; /* the file's size when opened */
  int64_t size;      /* bytes mapped */
} THMapAllocatorContext;

/* Opens filename (or a shm object) per flags; NULL with an error recorded on failure. */
THMapAllocatorContext *THMapAllocatorContext_new(const char *filename, int flags);
/* A fresh, unnamed shared-memory context (the name is unlinked as soon as it is mapped; the
 * descriptor stays open, so another process can receive it and map the same memory). */
THMapAllocatorContext *THMapAllocatorContext_newShared(void);
/* A context over a copy (dup) of fd, an open shared-memory or file descriptor received from
 * another process; the caller keeps its own fd. flags as above (FROMFD is added). */
THMapAllocatorContext *THMapAllocatorContext_newFromFd(int fd, int flags);
void THMapAllocatorContext_free(THMapAllocatorContext *ctx);

/* Context of borrowed memory: release(owner) is called once, when the storage lets go. */
typedef struct THBorrowedContext {
  void *owner;
  void (*release)(void *owner);
} THBorrowedContext;

THBorrowedContext *THBorrowedContext_new(void *owner, void (*release)(void *owner));
/* Counts borrowed memory that a storage adopts (its free() uncounts it). */
void THAllocator_adopt(THAllocator *self, int64_t bytes);

#endif
