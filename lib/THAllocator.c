#include "THAllocator.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- counters ----------------------------------------------------------------------------
 *
 * Live bytes have peaks, which only a running sum gives: an atomic per allocator and one for
 * all of them together. The allocation counts have none: they are per-thread counters
 * (THThreadCounter, no atomic read-modify-write on the way), two slots per allocator. */

static THAllocStats total_stats = {0, 0, -1}; /* every allocator together (bytes alone) */

static void bytes_add(THAllocStats *st, int64_t bytes) {
  int64_t live = THAtomic_add(&st->live_bytes, bytes) + bytes;
  if (bytes <= 0) return;
  int64_t peak = THAtomic_load(&st->peak_bytes);
  while (live > peak &&
         !atomic_compare_exchange_weak_explicit(&st->peak_bytes, &peak, live,
                                                memory_order_relaxed, memory_order_relaxed)) {
  }
}

static void stats_add(THAllocStats *st, int64_t bytes) {
  bytes_add(st, bytes);
  bytes_add(&total_stats, bytes);
  (void)THThreadCounter_add(st->counts, 1);     /* live */
  (void)THThreadCounter_add(st->counts + 1, 1); /* made */
}

static void stats_remove(THAllocStats *st, int64_t bytes) {
  bytes_add(st, -bytes);
  bytes_add(&total_stats, -bytes);
  (void)THThreadCounter_add(st->counts, -1);
}

static void stats_resize(THAllocStats *st, int64_t old_bytes, int64_t new_bytes) {
  bytes_add(st, new_bytes - old_bytes);
  bytes_add(&total_stats, new_bytes - old_bytes);
}

/* ---- default: 64-byte aligned heap memory ------------------------------------------------- */

#define TH_ALIGNMENT 64

/* Blocks of 4 MiB and more are aligned to 2 MiB and offered to the kernel for transparent huge
 * pages, as numpy does: a fresh 64 MiB result then takes 32 page faults instead of 16384, which
 * on the 2-core reference machine makes a 4096x4096 float32 `a + b` about 2.5x faster. The
 * advice is best effort (THP may be off); an error from madvise changes nothing. */
#define TH_HUGE_THRESHOLD ((int64_t)4 << 20)
#define TH_HUGE_ALIGN ((size_t)2 << 20)

void *THAllocator_alignedBlock(int64_t bytes) {
  void *p = NULL;
  const int huge = bytes >= TH_HUGE_THRESHOLD;
  if (bytes < 0 || (uint64_t)bytes > (uint64_t)PTRDIFF_MAX ||
      posix_memalign(&p, huge ? TH_HUGE_ALIGN : TH_ALIGNMENT, (size_t)bytes) != 0)
    return NULL;
#ifdef MADV_HUGEPAGE
  if (huge) (void)madvise(p, (size_t)bytes, MADV_HUGEPAGE);
#endif
  return p;
}

/* A block for a default storage, from the system. */
static void *default_block(int64_t bytes) {
  void *p = THAllocator_alignedBlock(bytes);
  if (!p)
    THError_set(TH_ERR_MEMORY, "out of memory: failed to allocate %lld bytes", (long long)bytes);
  return p;
}

static void *default_malloc(void *ctx, int64_t bytes) {
  (void)ctx;
  void *p = default_block(bytes);
  if (p) stats_add(THDefaultAllocator.stats, bytes);
  return p;
}

static void *default_realloc(void *ctx, void *ptr, int64_t old_bytes, int64_t new_bytes) {
  (void)ctx;
  void *p = default_block(new_bytes);
  if (!p) return NULL;
  if (ptr) {
    memcpy(p, ptr, (size_t)TH_MIN(old_bytes, new_bytes));
    free(ptr);
    stats_resize(THDefaultAllocator.stats, old_bytes, new_bytes);
  } else {
    stats_add(THDefaultAllocator.stats, new_bytes);
  }
  return p;
}

static void default_free(void *ctx, void *ptr, int64_t bytes) {
  (void)ctx;
  if (!ptr) return;
  free(ptr);
  stats_remove(THDefaultAllocator.stats, bytes);
}

/* ---- mapped files and POSIX shared memory ------------------------------------------------- */

static _Atomic uint64_t shm_counter = 0;

static THMapAllocatorContext *map_context(const char *filename, int flags) {
  THMapAllocatorContext *ctx = THAlloc(sizeof *ctx);
  if (!ctx) return NULL;
  ctx->filename = THAlloc(strlen(filename) + 1);
  if (!ctx->filename) {
    THFree(ctx);
    return NULL;
  }
  strcpy(ctx->filename, filename);
  ctx->flags = flags;
  ctx->fd = -1;
  ctx->file_size = 0;
  ctx->size = 0;
  return ctx;
}

THMapAllocatorContext *THMapAllocatorContext_new(const char *filename, int flags) {
  THMapAllocatorContext *ctx = map_context(filename, flags);
  if (!ctx) return NULL;
  int shared = flags & TH_ALLOCATOR_MAPPED_SHARED;
  int oflags = shared ? O_RDWR : O_RDONLY;
  if (shared && !(flags & TH_ALLOCATOR_MAPPED_NOCREATE)) oflags |= O_CREAT;
  if (flags & TH_ALLOCATOR_MAPPED_EXCLUSIVE) oflags |= O_EXCL;
  ctx->fd = (flags & TH_ALLOCATOR_MAPPED_SHAREDMEM) ? shm_open(filename, oflags, 0600)
                                                    : open(filename, oflags | O_CLOEXEC, 0600);
  struct stat st;
  if (ctx->fd < 0 || fstat(ctx->fd, &st) != 0) {
    THError_set(TH_ERR_RUNTIME, "unable to open '%s' %s: %s", filename,
                shared ? "for shared mapping" : "read-only for private mapping", strerror(errno));
    THMapAllocatorContext_free(ctx);
    return NULL;
  }
  ctx->file_size = (int64_t)st.st_size;
  return ctx;
}

static void map_unlink(THMapAllocatorContext *ctx);

THMapAllocatorContext *THMapAllocatorContext_newShared(void) {
  char name[64];
  uint64_t n = atomic_fetch_add(&shm_counter, 1);
  snprintf(name, sizeof name, "/pyth_%ld_%llu", (long)getpid(), (unsigned long long)n);
  THMapAllocatorContext *ctx = THMapAllocatorContext_new(
      name, TH_ALLOCATOR_MAPPED_SHARED | TH_ALLOCATOR_MAPPED_SHAREDMEM |
                TH_ALLOCATOR_MAPPED_EXCLUSIVE | TH_ALLOCATOR_MAPPED_UNLINK |
                TH_ALLOCATOR_MAPPED_KEEPFD);
  /* The descriptor is all we need (other processes receive a copy of it): the name goes at
   * once, so nothing is left in /dev/shm even if the process is killed, or the storage is
   * empty and never mapped. */
  if (ctx) map_unlink(ctx);
  return ctx;
}

THMapAllocatorContext *THMapAllocatorContext_newFromFd(int fd, int flags) {
  char name[32];
  snprintf(name, sizeof name, "<fd %d>", fd);
  THMapAllocatorContext *ctx = map_context(name, (flags | TH_ALLOCATOR_MAPPED_FROMFD) &
                                                     ~TH_ALLOCATOR_MAPPED_UNLINK);
  if (!ctx) return NULL;
  struct stat st;
  ctx->fd = fd < 0 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (ctx->fd < 0 || fstat(ctx->fd, &st) != 0) {
    THError_set(TH_ERR_RUNTIME, "unable to use descriptor %d for a mapping: %s", fd,
                fd < 0 ? "negative descriptor" : strerror(errno));
    THMapAllocatorContext_free(ctx);
    return NULL;
  }
  ctx->file_size = (int64_t)st.st_size;
  return ctx;
}

/* Removes the name (once) when the flags ask for it, mapped or not. */
static void map_unlink(THMapAllocatorContext *ctx) {
  if (!(ctx->flags & TH_ALLOCATOR_MAPPED_UNLINK)) return;
  ctx->flags &= ~TH_ALLOCATOR_MAPPED_UNLINK; /* once */
  if (ctx->flags & TH_ALLOCATOR_MAPPED_SHAREDMEM)
    shm_unlink(ctx->filename);
  else
    unlink(ctx->filename);
}

void THMapAllocatorContext_free(THMapAllocatorContext *ctx) {
  if (!ctx) return;
  if (ctx->fd >= 0) map_unlink(ctx); /* the name exists only if we opened it */
  if (ctx->fd >= 0) close(ctx->fd);
  THFree(ctx->filename);
  THFree(ctx);
}

static void *map_malloc_with(THAllocator *self, void *vctx, int64_t bytes) {
  THMapAllocatorContext *ctx = vctx;
  int shared = ctx->flags & TH_ALLOCATOR_MAPPED_SHARED;
  if (bytes > ctx->file_size) {
    if (!shared) {
      THError_set(TH_ERR_RUNTIME,
                  "file '%s' is too short: it has %lld bytes, the storage needs %lld",
                  ctx->filename, (long long)ctx->file_size, (long long)bytes);
      return NULL;
    }
    if (ftruncate(ctx->fd, (off_t)bytes) != 0) {
      THError_set(TH_ERR_RUNTIME, "unable to extend '%s' to %lld bytes: %s", ctx->filename,
                  (long long)bytes, strerror(errno));
      return NULL;
    }
    ctx->file_size = bytes;
  }
  void *p = mmap(NULL, (size_t)bytes, PROT_READ | PROT_WRITE, shared ? MAP_SHARED : MAP_PRIVATE,
                 ctx->fd, 0);
  if (p == MAP_FAILED) {
    THError_set(TH_ERR_RUNTIME, "unable to map %lld bytes of '%s': %s", (long long)bytes,
                ctx->filename, strerror(errno));
    return NULL;
  }
  ctx->size = bytes;
  map_unlink(ctx);
  if (!(ctx->flags & TH_ALLOCATOR_MAPPED_KEEPFD)) {
    close(ctx->fd);
    ctx->fd = -1;
  }
  stats_add(self->stats, bytes);
  return p;
}

static void map_free_with(THAllocator *self, void *vctx, void *ptr, int64_t bytes) {
  THMapAllocatorContext *ctx = vctx;
  if (ptr) {
    munmap(ptr, (size_t)ctx->size);
    stats_remove(self->stats, bytes);
  }
  THMapAllocatorContext_free(ctx);
}

static void *mapped_malloc(void *ctx, int64_t bytes) {
  return map_malloc_with(&THMapAllocator, ctx, bytes);
}
static void mapped_free(void *ctx, void *ptr, int64_t bytes) {
  map_free_with(&THMapAllocator, ctx, ptr, bytes);
}
static void *shm_malloc(void *ctx, int64_t bytes) {
  return map_malloc_with(&THSharedMemAllocator, ctx, bytes);
}
static void shm_free(void *ctx, void *ptr, int64_t bytes) {
  map_free_with(&THSharedMemAllocator, ctx, ptr, bytes);
}

/* ---- borrowed memory ---------------------------------------------------------------------- */

THBorrowedContext *THBorrowedContext_new(void *owner, void (*release)(void *owner)) {
  THBorrowedContext *ctx = THAlloc(sizeof *ctx);
  if (!ctx) return NULL;
  ctx->owner = owner;
  ctx->release = release;
  return ctx;
}

static void *borrowed_malloc(void *ctx, int64_t bytes) {
  (void)ctx;
  THError_set(TH_ERR_RUNTIME, "a borrowed-memory allocator cannot allocate %lld bytes",
              (long long)bytes);
  return NULL;
}

static void borrowed_release(THAllocator *self, void *vctx, void *ptr, int64_t bytes) {
  THBorrowedContext *ctx = vctx;
  if (ptr) stats_remove(self->stats, bytes);
  if (ctx) {
    if (ctx->release) ctx->release(ctx->owner);
    THFree(ctx);
  }
}

static void borrowed_free(void *ctx, void *ptr, int64_t bytes) {
  borrowed_release(&THBorrowedAllocator, ctx, ptr, bytes);
}
static void numpy_free(void *ctx, void *ptr, int64_t bytes) {
  borrowed_release(&THNumpyAllocator, ctx, ptr, bytes);
}

/* Borrowed memory enters the counters when a storage adopts it. */
void THAllocator_adopt(THAllocator *self, int64_t bytes) {
  stats_add(self->stats, bytes);
}

/* ---- counters for allocators defined elsewhere -------------------------------------------- */

void THAllocator_countAlloc(THAllocator *self, int64_t bytes) { stats_add(self->stats, bytes); }

void THAllocator_countFree(THAllocator *self, int64_t bytes) { stats_remove(self->stats, bytes); }

void THAllocator_countResize(THAllocator *self, int64_t old_bytes, int64_t new_bytes) {
  stats_resize(self->stats, old_bytes, new_bytes);
}

void THAllocator_readCounts(const THAllocator *a, THAllocCounts *out) {
  const THAllocStats *st = a ? a->stats : &total_stats;
  *out = (THAllocCounts){THAtomic_load(&st->live_bytes), THAtomic_load(&st->peak_bytes), 0, 0};
  if (!a) return; /* the total keeps bytes alone */
  (void)THThreadCounter_sum(st->counts, &out->live_allocs);
  (void)THThreadCounter_sum(st->counts + 1, &out->total_allocs);
}

/* ---- the table ---------------------------------------------------------------------------- */

/* each with its two per-thread counter slots */
THAllocStats THDefaultAllocatorStats = {0, 0, 0};
static THAllocStats mapped_stats = {0, 0, 2}, shm_stats = {0, 0, 4}, borrowed_stats = {0, 0, 6},
                    numpy_stats = {0, 0, 8};
_Static_assert(TH_THREAD_COUNTERS >= 10, "two counter slots per allocator");

THAllocator THDefaultAllocator = {"default", default_malloc, default_realloc, default_free,
                                  &THDefaultAllocatorStats};
THAllocator THMapAllocator = {"mapped", mapped_malloc, NULL, mapped_free, &mapped_stats};
THAllocator THSharedMemAllocator = {"shared", shm_malloc, NULL, shm_free, &shm_stats};
THAllocator THBorrowedAllocator = {"borrowed", borrowed_malloc, NULL, borrowed_free,
                                   &borrowed_stats};
THAllocator THNumpyAllocator = {"numpy", borrowed_malloc, NULL, numpy_free, &numpy_stats};
