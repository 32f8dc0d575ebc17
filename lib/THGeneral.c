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
static _Thread_local int th_depth = 0;      /* nesting of call sections on this thread */
static _Thread_local int th_exclusive = 0;  /* this thread holds exclusivity */
static _Thread_local uint64_t th_thread = 0; /* this thread's number, from 1 */
static _Thread_local uint64_t th_serial = 0; /* this thread's outermost calls so far */

/* The interpreter lock, as the binding hands it over: an exclusive call also takes it, so no
 * Python code reads a structure (cffi reads struct fields directly) while it changes. */
typedef int (*THGilTake)(void);
typedef void (*THGilGive)(int);
static _Atomic(THGilTake) th_gil_take = NULL;
static _Atomic(THGilGive) th_gil_give = NULL;
static _Thread_local int th_gil_state = 0;

static void THCall_pause(int *spins) {
  if (++*spins < 64) return;
  sched_yield();
}

void THCall_enter(int (*gil_take)(void), void (*gil_give)(int)) {
  if (th_depth++ > 0) return;
  if (!atomic_load_explicit(&th_gil_take, memory_order_relaxed)) {
    atomic_store(&th_gil_give, gil_give);
    atomic_store(&th_gil_take, gil_take);
  }
  th_serial++;
  int spins = 0;
  for (;;) {
    while (atomic_load(&th_writer)) THCall_pause(&spins);
    atomic_fetch_add(&th_active, 1);
    if (!atomic_load(&th_writer)) return;
    atomic_fetch_sub(&th_active, 1); /* a writer came first: let it finish */
  }
}

void THCall_leave(void) {
  if (--th_depth > 0) return;
  if (th_exclusive) {
    THGilGive give = atomic_load(&th_gil_give);
    if (give && atomic_load(&th_gil_take)) give(th_gil_state);
    th_exclusive = 0;
    atomic_store(&th_writer, 0);
  }
  atomic_fetch_sub(&th_active, 1);
}

void THCall_exclusive(void) {
  if (th_exclusive || th_depth == 0) return; /* held already, or not called from Python */
  int spins = 0, expected = 0;
  while (!atomic_compare_exchange_strong(&th_writer, &expected, 1)) {
    /* Another call is becoming exclusive and waits for this one: step out until it is done. */
    atomic_fetch_sub(&th_active, 1);
    while (atomic_load(&th_writer)) THCall_pause(&spins);
    atomic_fetch_add(&th_active, 1);
    expected = 0;
  }
  th_exclusive = 1;
  while (atomic_load(&th_active) > 1) THCall_pause(&spins);
  /* Only now: a call section waiting for the interpreter lock (a callback into Python) has
   * finished, and Python threads that try to call in wait for us without holding it. */
  THGilTake take = atomic_load(&th_gil_take);
  if (take && atomic_load(&th_gil_give)) th_gil_state = take();
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
int THCall_isExclusive(void) { return th_exclusive; }

uint64_t THCall_token(int next) {
  if (!th_thread) th_thread = atomic_fetch_add(&th_next_thread, 1);
  return (th_thread << 40) | ((th_serial + (uint64_t)(next != 0)) & (((uint64_t)1 << 40) - 1));
}

int THCall_isPrivate(uint64_t token) {
  const uint64_t now = THCall_token(0);
  return token != 0 && (token == now || token == now + 1);
}

static _Atomic int64_t th_live_blocks = 0;

int64_t THAlloc_liveCount(void) {
  return atomic_load_explicit(&th_live_blocks, memory_order_relaxed);
}

void *THAlloc(size_t bytes) {
  void *p = malloc(bytes ? bytes : 1);
  if (!p) THError_set(TH_ERR_MEMORY, "out of memory: failed to allocate %zu bytes", bytes);
  else atomic_fetch_add_explicit(&th_live_blocks, 1, memory_order_relaxed);
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
  else if (!ptr) atomic_fetch_add_explicit(&th_live_blocks, 1, memory_order_relaxed);
  return p;
}

void THFree(void *ptr) {
  if (!ptr) return;
  atomic_fetch_sub_explicit(&th_live_blocks, 1, memory_order_relaxed);
  free(ptr);
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
