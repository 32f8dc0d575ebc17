#include "THGeneral.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sched.h>

#define TH_ERROR_BUF 1024

static _Thread_local int th_error_kind = TH_ERR_NONE;
static _Thread_local char th_error_msg[TH_ERROR_BUF];

int THError_kind(void) { return th_error_kind; }

const char *THError_message(void) { return th_error_kind ? th_error_msg : ""; }

void THError_clear(void) {
  th_error_kind = TH_ERR_NONE;
  th_error_msg[0] = '\0';
}

void THError_set(int kind, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(th_error_msg, sizeof th_error_msg, fmt, ap);
  va_end(ap);
  th_error_kind = kind;
}

int THSize_mul(int64_t *out, int64_t a, int64_t b) {
  return __builtin_mul_overflow(a, b, out) ? -1 : 0;
}

int THSize_add(int64_t *out, int64_t a, int64_t b) {
  return __builtin_add_overflow(a, b, out) ? -1 : 0;
}

int THSize_bytes(int64_t *out, const char *op, int64_t n, int64_t elsize) {
  THArgCheck(n >= 0 && THSize_mul(out, n, elsize) == 0, TH_ERR_MEMORY, -1,
             "%s: %lld elements of %lld bytes overflow the address space", op, (long long)n,
             (long long)elsize);
  return 0;
}

/* ---- call sections (see THGeneral.h) ---- */

static _Atomic int64_t th_active = 0;  /* outermost call sections in progress */
static _Atomic int th_writer = 0;      /* a call section holds exclusivity */
static _Atomic uint64_t th_next_thread = 1;

/* This thread's part in the call sections: one record, so that a call reaches it once. */
typedef struct THCallState {
  int depth;       /* nesting of call sections on this thread */
  int exclusive;   /* this thread holds exclusivity */
  int gil_state;   /* what gil_take returned, for gil_give */
  uint64_t thread; /* this thread's number, from 1 */
  uint64_t serial; /* this thread's outermost calls so far */
} THCallState;
static _Thread_local THCallState th_call;

/* The interpreter lock, as the binding hands it over: an exclusive call also takes it, so no
 * Python code reads a structure (cffi reads struct fields directly) while it changes. */
typedef int (*THGilTake)(void);
typedef void (*THGilGive)(int);
static _Atomic(THGilTake) th_gil_take = NULL;
static _Atomic(THGilGive) th_gil_give = NULL;

static void THCall_pause(int *spins) {
  if (++*spins < 64) return;
  sched_yield();
}

void THCall_enter(int (*gil_take)(void), void (*gil_give)(int)) {
  THCallState *me = TH_TLS_ADDR(th_call);
  if (me->depth++ > 0) return;
  if (!atomic_load_explicit(&th_gil_take, memory_order_relaxed)) {
    atomic_store(&th_gil_give, gil_give);
    atomic_store(&th_gil_take, gil_take);
  }
  me->serial++;
  int spins = 0;
  for (;;) {
    while (atomic_load(&th_writer)) THCall_pause(&spins);
    atomic_fetch_add(&th_active, 1);
    if (!atomic_load(&th_writer)) return;
    atomic_fetch_sub(&th_active, 1); /* a writer came first: let it finish */
  }
}

void THCall_leave(void) {
  THCallState *me = TH_TLS_ADDR(th_call);
  if (--me->depth > 0) return;
  if (me->exclusive) {
    THGilGive give = atomic_load(&th_gil_give);
    if (give && atomic_load(&th_gil_take)) give(me->gil_state);
    me->exclusive = 0;
    atomic_store(&th_writer, 0);
  }
  atomic_fetch_sub(&th_active, 1);
}

void THCall_exclusive(void) {
  THCallState *me = TH_TLS_ADDR(th_call);
  if (me->exclusive || me->depth == 0) return; /* held already, or not called from Python */
  int spins = 0, expected = 0;
  while (!atomic_compare_exchange_strong(&th_writer, &expected, 1)) {
    /* Another call is becoming exclusive and waits for this one: step out until it is done. */
    atomic_fetch_sub(&th_active, 1);
    while (atomic_load(&th_writer)) THCall_pause(&spins);
    atomic_fetch_add(&th_active, 1);
    expected = 0;
  }
  me->exclusive = 1;
  while (atomic_load(&th_active) > 1) THCall_pause(&spins);
  /* Only now: a call section waiting for the interpreter lock (a callback into Python) has
   * finished, and Python threads that try to call in wait for us without holding it. */
  THGilTake take = atomic_load(&th_gil_take);
  if (take && atomic_load(&th_gil_give)) me->gil_state = take();
}

int64_t THCall_active(void) { return atomic_load(&th_active); }

/* A child made by fork() has only the forking thread, which forked from Python (outside any
 * call section): sections that other threads of the parent had open do not exist there, and
 * would make the child's first exclusive call wait for ever. */
static void THCall_afterFork(void) {
  atomic_store(&th_active, 0);
  atomic_store(&th_writer, 0);
}

__attribute__((constructor)) static void THCall_init(void) {
  pthread_atfork(NULL, NULL, THCall_afterFork);
}
int THCall_isExclusive(void) { return th_call.exclusive; }

uint64_t THCall_token(int next) {
  THCallState *me = TH_TLS_ADDR(th_call);
  if (!me->thread) me->thread = atomic_fetch_add(&th_next_thread, 1);
  return (me->thread << 40) | ((me->serial + (uint64_t)(next != 0)) & (((uint64_t)1 << 40) - 1));
}

int THCall_isPrivate(uint64_t token) {
  const uint64_t now = THCall_token(0);
  return token != 0 && (token == now || token == now + 1);
}

/* ---- metadata blocks and the struct cache (see THGeneral.h) ----
 *
 * Every thread has one record (thread-local): its parts of the per-thread counts (metadata
 * blocks handed out minus those taken back, in slot TH_SLOT_BLOCKS, and THThreadCounter's
 * slots) and its struct-cache lists. Only the owner writes a record, with relaxed atomic
 * stores (plain moves on x86), so THAlloc and THFree take no lock and do no atomic
 * read-modify-write; a sum (THAlloc_liveCount, THThreadCounter_sum) adds up the records of the
 * registry below (a list under a mutex, which threads join on their first block and leave when
 * they exit). An exiting thread's counts move into th_retired and its cached blocks go back to
 * malloc (a pthread key destructor), so the cache neither grows with the number of threads
 * nor leaks. */

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
/* Under ASan the cache is off by default: a recycled header would turn a use after free into a
 * use of another live header, which ASan cannot tell from a correct one, while blocks that go
 * back to malloc pass through ASan's quarantine and any late access is reported. Tests that
 * turn it on (THStructCache_setLimit) still get blocks poisoned while they rest in a list, and
 * the bytes between a request and its size class poisoned while in use. */
#define TH_STRUCT_CACHE_DEFAULT 0
#define TH_POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define TH_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#if defined(TH_NO_STRUCT_CACHE)
#define TH_STRUCT_CACHE_DEFAULT 0
#else
#define TH_STRUCT_CACHE_DEFAULT TH_STRUCT_CACHE_LIMIT
#endif
#define TH_POISON(p, n) ((void)(p), (void)(n))
#define TH_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define TH_SC_GRAIN 16
#define TH_SC_CLASSES (TH_STRUCT_CACHE_MAX_BYTES / TH_SC_GRAIN)

enum { TH_TB_NEW = 0, TH_TB_ON = 1, TH_TB_GONE = 2 };
/* The count of metadata blocks, after THThreadCounter's public slots. */
enum { TH_SLOT_BLOCKS = TH_THREAD_COUNTERS, TH_SLOTS = TH_THREAD_COUNTERS + 1 };

typedef struct THThreadBlocks {
  _Atomic int64_t counts[TH_SLOTS];   /* this thread's parts of the per-thread counts */
  int state;                          /* TH_TB_*: GONE once the thread has begun to exit */
  int count[TH_SC_CLASSES];           /* blocks in each list */
  void *head[TH_SC_CLASSES];          /* lists by size class, linked through the first word */
  struct THThreadBlocks *prev, *next; /* the registry */
} THThreadBlocks;

static _Thread_local THThreadBlocks th_blocks;
static pthread_mutex_t th_blocks_lock = PTHREAD_MUTEX_INITIALIZER;
static THThreadBlocks *th_blocks_all = NULL;  /* the registry, under th_blocks_lock */
static _Atomic int64_t th_retired[TH_SLOTS]; /* counts of exited (or unregistered) threads */
static _Atomic int th_cache_limit = TH_STRUCT_CACHE_DEFAULT;
static pthread_key_t th_blocks_key;
static pthread_once_t th_blocks_once = PTHREAD_ONCE_INIT;
static int th_blocks_keyed = 0;

static size_t THStructCache_classBytes(int c) { return (size_t)(c + 1) * TH_SC_GRAIN; }

/* Returns the blocks of every list above `keep` to malloc (they are no longer counted). */
static void THStructCache_trim(THThreadBlocks *tb, int keep) {
  for (int c = 0; c < TH_SC_CLASSES; c++) {
    while (tb->count[c] > keep) {
      void *p = tb->head[c];
      TH_UNPOISON(p, THStructCache_classBytes(c));
      tb->head[c] = *(void **)p;
      tb->count[c]--;
      free(p);
    }
  }
}

/* The key's destructor: the thread is exiting. */
static void THThreadBlocks_exit(void *arg) {
  THThreadBlocks *tb = arg;
  pthread_mutex_lock(&th_blocks_lock);
  if (tb->prev) tb->prev->next = tb->next;
  else th_blocks_all = tb->next;
  if (tb->next) tb->next->prev = tb->prev;
  for (int i = 0; i < TH_SLOTS; i++) {
    atomic_fetch_add_explicit(&th_retired[i],
                              atomic_load_explicit(&tb->counts[i], memory_order_relaxed),
                              memory_order_relaxed);
    atomic_store_explicit(&tb->counts[i], 0, memory_order_relaxed);
  }
  tb->state = TH_TB_GONE; /* blocks freed from here on are counted in th_retired, uncached */
  pthread_mutex_unlock(&th_blocks_lock);
  THStructCache_trim(tb, 0);
}

static void THThreadBlocks_makeKey(void) {
  th_blocks_keyed = pthread_key_create(&th_blocks_key, THThreadBlocks_exit) == 0;
}

/* First block of a thread: join the registry (NULL once the thread is exiting, or when no
 * key could be made: then the thread counts in th_retired and does not cache). */
static THThreadBlocks *THThreadBlocks_join(THThreadBlocks *tb) {
  if (tb->state == TH_TB_GONE) return NULL;
  pthread_once(&th_blocks_once, THThreadBlocks_makeKey);
  if (!th_blocks_keyed || pthread_setspecific(th_blocks_key, tb) != 0) {
    tb->state = TH_TB_GONE;
    return NULL;
  }
  pthread_mutex_lock(&th_blocks_lock);
  tb->prev = NULL;
  tb->next = th_blocks_all;
  if (th_blocks_all) th_blocks_all->prev = tb;
  th_blocks_all = tb;
  tb->state = TH_TB_ON;
  pthread_mutex_unlock(&th_blocks_lock);
  return tb;
}

static inline THThreadBlocks *THThreadBlocks_get(void) {
  THThreadBlocks *tb = TH_TLS_ADDR(th_blocks);
  return __builtin_expect(tb->state == TH_TB_ON, 1) ? tb : THThreadBlocks_join(tb);
}

/* Adds n to this thread's part of count slot (tb NULL: the thread is gone, or never joined). */
static inline void THThreadBlocks_add(THThreadBlocks *tb, int slot, int64_t n) {
  if (tb)
    atomic_store_explicit(&tb->counts[slot],
                          atomic_load_explicit(&tb->counts[slot], memory_order_relaxed) + n,
                          memory_order_relaxed);
  else
    atomic_fetch_add_explicit(&th_retired[slot], n, memory_order_relaxed);
}

/* Every thread's part of count slot, and what exited threads left. */
static int64_t THThreadBlocks_sum(int slot) {
  pthread_mutex_lock(&th_blocks_lock);
  int64_t n = atomic_load_explicit(&th_retired[slot], memory_order_relaxed);
  for (THThreadBlocks *tb = th_blocks_all; tb; tb = tb->next)
    n += atomic_load_explicit(&tb->counts[slot], memory_order_relaxed);
  pthread_mutex_unlock(&th_blocks_lock);
  return n;
}

/* A fork copies only the forking thread: the registry lock must not be held by another. */
static void THThreadBlocks_forkPrepare(void) { pthread_mutex_lock(&th_blocks_lock); }
static void THThreadBlocks_forkDone(void) { pthread_mutex_unlock(&th_blocks_lock); }

__attribute__((constructor)) static void THThreadBlocks_init(void) {
  pthread_atfork(THThreadBlocks_forkPrepare, THThreadBlocks_forkDone, THThreadBlocks_forkDone);
}

int64_t THAlloc_liveCount(void) { return THThreadBlocks_sum(TH_SLOT_BLOCKS); }

int THThreadCounter_add(int slot, int64_t n) {
  THArgCheck(slot >= 0 && slot < TH_THREAD_COUNTERS, TH_ERR_INDEX, -1,
             "thread counter %d out of range [0, %d)", slot, (int)TH_THREAD_COUNTERS);
  THThreadBlocks_add(THThreadBlocks_get(), slot, n);
  return 0;
}

int THThreadCounter_sum(int slot, int64_t *out) {
  THArgCheck(slot >= 0 && slot < TH_THREAD_COUNTERS, TH_ERR_INDEX, -1,
             "thread counter %d out of range [0, %d)", slot, (int)TH_THREAD_COUNTERS);
  *out = THThreadBlocks_sum(slot);
  return 0;
}

void *THAlloc(size_t bytes) {
  void *p = malloc(bytes ? bytes : 1);
  if (!p) THError_set(TH_ERR_MEMORY, "out of memory: failed to allocate %zu bytes", bytes);
  else THThreadBlocks_add(THThreadBlocks_get(), TH_SLOT_BLOCKS, 1);
  return p;
}

void *THAllocArray(const char *op, int64_t n, int64_t elsize) {
  int64_t bytes;
  THTry(THSize_bytes(&bytes, op, n, elsize), NULL);
  return THAlloc((size_t)bytes);
}

void *THRealloc(void *ptr, size_t bytes) {
  void *p = realloc(ptr, bytes ? bytes : 1);
  if (!p) THError_set(TH_ERR_MEMORY, "out of memory: failed to reallocate %zu bytes", bytes);
  else if (!ptr) THThreadBlocks_add(THThreadBlocks_get(), TH_SLOT_BLOCKS, 1);
  return p;
}

void THFree(void *ptr) {
  if (!ptr) return;
  THThreadBlocks_add(THThreadBlocks_get(), TH_SLOT_BLOCKS, -1);
  free(ptr);
}

void *THStructCache_alloc(size_t bytes) {
  if (bytes > TH_STRUCT_CACHE_MAX_BYTES) return THAlloc(bytes);
  const int c = bytes ? (int)((bytes - 1) / TH_SC_GRAIN) : 0;
  const size_t full = THStructCache_classBytes(c);
  THThreadBlocks *tb = THThreadBlocks_get();
  void *p = tb ? tb->head[c] : NULL;
  if (p) {
    TH_UNPOISON(p, sizeof(void *));
    tb->head[c] = *(void **)p;
    tb->count[c]--;
    TH_UNPOISON(p, bytes);
  } else {
    /* always the whole class: the block may rest in a list and serve any request of it */
    p = malloc(full);
    if (!p) {
      THError_set(TH_ERR_MEMORY, "out of memory: failed to allocate %zu bytes", bytes);
      return NULL;
    }
  }
  TH_POISON((char *)p + bytes, full - bytes);
  THThreadBlocks_add(tb, TH_SLOT_BLOCKS, 1);
  return p;
}

void THStructCache_free(void *ptr, size_t bytes) {
  if (!ptr) return;
  if (bytes > TH_STRUCT_CACHE_MAX_BYTES) {
    THFree(ptr);
    return;
  }
  const int c = bytes ? (int)((bytes - 1) / TH_SC_GRAIN) : 0;
  const size_t full = THStructCache_classBytes(c);
  THThreadBlocks *tb = THThreadBlocks_get();
  THThreadBlocks_add(tb, TH_SLOT_BLOCKS, -1);
  TH_UNPOISON(ptr, full);
  if (tb && tb->count[c] < atomic_load_explicit(&th_cache_limit, memory_order_relaxed)) {
    *(void **)ptr = tb->head[c];
    tb->head[c] = ptr;
    tb->count[c]++;
    TH_POISON(ptr, full);
    return;
  }
  free(ptr);
}

int THStructCache_setLimit(int limit) {
  THArgCheck(limit >= 0, TH_ERR_VALUE, -1,
             "struct cache: the limit must be non-negative, got %d", limit);
  int old = atomic_exchange(&th_cache_limit, limit);
  THThreadBlocks *tb = THThreadBlocks_get();
  if (tb) THStructCache_trim(tb, limit);
  return old;
}

int THStructCache_limit(void) { return atomic_load(&th_cache_limit); }

int64_t THStructCache_cached(void) {
  const THThreadBlocks *tb = &th_blocks;
  int64_t n = 0;
  for (int c = 0; c < TH_SC_CLASSES; c++) n += tb->count[c];
  return n;
}

int64_t THStructCache_threads(void) {
  int64_t n = 0;
  pthread_mutex_lock(&th_blocks_lock);
  for (const THThreadBlocks *tb = th_blocks_all; tb; tb = tb->next) n++;
  pthread_mutex_unlock(&th_blocks_lock);
  return n;
}

void THStructCache_flush(void) {
  THThreadBlocks *tb = THThreadBlocks_get();
  if (tb) THStructCache_trim(tb, 0);
}

const char *THSize_str(char *buf, size_t len, int ndim, const int64_t *size) {
  size_t used = (size_t)snprintf(buf, len, "[");
  for (int d = 0; d < ndim && used < len; d++) {
    int n = snprintf(buf + used, len - used, d ? ", %lld" : "%lld", (long long)size[d]);
    if (n < 0) break;
    used += (size_t)n;
  }
  if (used < len) snprintf(buf + used, len - used, "]");
  return buf;
}

#ifndef TH_BUILD_FLAGS
#define TH_BUILD_FLAGS "unknown"
#endif

const char *THGeneral_buildInfo(void) {
  return "gcc " __VERSION__ ", flags: " TH_BUILD_FLAGS;
}

const char *THGeneral_simdLevel(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return "avx512f";
  if (__builtin_cpu_supports("avx2")) return "avx2";
  if (__builtin_cpu_supports("sse4.2")) return "sse4.2";
#endif
  return "baseline";
}

int THGeneral_isSanitized(void) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  return 1;
#else
  return 0;
#endif
}
