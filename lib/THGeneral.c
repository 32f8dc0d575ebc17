#include "THGeneral.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
