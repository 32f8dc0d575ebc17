#include "THTensorApply.h"

#include "THShape.h"

#include <omp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

static int64_t th_grain = TH_GRAIN_DEFAULT;

/* OpenMP thread teams were made in this process (th_teams: set by the first parallel kernel),
 * and this process is a fork of one that had made them (th_forked: set in the child). */
static atomic_int th_teams, th_forked;

static void THThreads_afterFork(void) {
  if (atomic_load_explicit(&th_teams, memory_order_relaxed))
    atomic_store_explicit(&th_forked, 1, memory_order_relaxed);
}

__attribute__((constructor)) static void THThreads_init(void) {
  pthread_atfork(NULL, NULL, THThreads_afterFork);
}

int THThreads_forkedAfterOpenMP(void) {
  return atomic_load_explicit(&th_forked, memory_order_relaxed);
}

int THThreads_max(void) {
  if (atomic_load_explicit(&th_forked, memory_order_relaxed)) return 1;
  const int n = omp_get_max_threads();
  /* a caller asking may start a team: remember that one may exist from here on */
  if (n > 1 && !atomic_load_explicit(&th_teams, memory_order_relaxed))
    atomic_store_explicit(&th_teams, 1, memory_order_relaxed);
  return n;
}

int THSetNumThreads(int n) {
  THArgCheck(n >= 1, TH_ERR_RUNTIME, -1,
             "set_num_threads(): expected a positive number of threads, got %d", n);
  THArgCheck(n <= TH_MAX_THREADS, TH_ERR_VALUE, -1,
             "set_num_threads(): %d threads requested, but at most %d are supported", n,
             TH_MAX_THREADS);
  THArgCheck(n == 1 || !THThreads_forkedAfterOpenMP(), TH_ERR_RUNTIME, -1,
             "set_num_threads(): this process was forked after its parent ran OpenMP threads, "
             "which cannot be restarted in a forked child (libgomp); kernels here run on one "
             "thread. Start workers with the 'spawn' or 'forkserver' method to use threads");
  omp_set_num_threads(n);
  return 0;
}
int THGetNumThreads(void) {
  return THThreads_forkedAfterOpenMP() ? 1 : omp_get_max_threads();
}
void THSetGrainSize(int64_t grain) { th_grain = grain > 0 ? grain : 1; }
int64_t THGetGrainSize(void) { return th_grain; }

/* When a team was last started (CLOCK_MONOTONIC, ns). */
static _Atomic int64_t th_team_ns = INT64_MIN / 2;

static int64_t THParallel_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void THParallel_noteTeam(void) {
  atomic_store_explicit(&th_team_ns, THParallel_now(), memory_order_relaxed);
}

int THParallel_worth(int64_t elements, int64_t bytes) {
  if (elements <= 1 || bytes <= 0 || elements < th_grain / bytes) return 0;
  if (THThreads_max() <= 1 || omp_in_parallel()) return 0;
  THParallel_noteTeam();
  return 1;
}

int THParallel_recent(int64_t ns) {
  return THParallel_now() - atomic_load_explicit(&th_team_ns, memory_order_relaxed) < ns;
}

void THIter_init(THIter *it, int narg, int ndim, const int64_t *size,
                 const int64_t *const *strides, const int64_t *elsize, int order_by) {
  int perm[TH_MAX_DIM], n = 0;
  it->narg = narg;
  it->numel = THShape_count(ndim, size);
  for (int k = 0; k < TH_ITER_MAXARGS; k++) it->elsize[k] = k < narg ? elsize[k] : 0;

  /* 1. drop size-1 dims (and, with no elements, everything: there is nothing to walk) */
  for (int d = 0; d < ndim && it->numel > 0; d++)
    if (size[d] != 1) perm[n++] = d;

  /* 2. order by one operand's stride, largest first (insertion sort: ndim is small); ties
   * keep the logical order */
  const int64_t *key = strides[order_by];
  for (int i = 1; i < n; i++) {
    int d = perm[i], j = i;
    while (j > 0 && key[perm[j - 1]] < key[d]) {
      perm[j] = perm[j - 1];
      j--;
    }
    perm[j] = d;
  }

  /* 3. merge a dim into the previous (outer) collapsed one when every operand allows it */
  int m = 0;
  for (int i = 0; i < n; i++) {
    int d = perm[i];
    if (m > 0) {
      int mergeable = 1;
      for (int k = 0; k < narg; k++)
        mergeable &= it->stride[k][m - 1] == strides[k][d] * size[d];
      if (mergeable) {
        it->size[m - 1] *= size[d];
        for (int k = 0; k < narg; k++) it->stride[k][m - 1] = strides[k][d];
        continue;
      }
    }
    it->size[m] = size[d];
    for (int k = 0; k < narg; k++) it->stride[k][m] = strides[k][d];
    m++;
  }
  it->ndim = m;
  it->inner = m > 0 ? it->size[m - 1] : (it->numel > 0 ? 1 : 0);
  for (int k = 0; k < TH_ITER_MAXARGS; k++)
    it->istride[k] = (m > 0 && k < narg) ? it->stride[k][m - 1] : 0;
  it->rows = it->inner > 0 ? it->numel / it->inner : 0;
}

void THIter_seek(const THIter *it, int64_t row, int64_t *counter, int64_t *offset) {
  for (int k = 0; k < TH_ITER_MAXARGS; k++) offset[k] = 0;
  for (int d = it->ndim - 2; d >= 0; d--) {
    counter[d] = row % it->size[d];
    row /= it->size[d];
    for (int k = 0; k < it->narg; k++) offset[k] += counter[d] * it->stride[k][d];
  }
}

static void pointers(const THIter *it, char **base, const int64_t *offset, int64_t col,
                     char **data) {
  for (int k = 0; k < it->narg; k++)
    data[k] = base[k] + (offset[k] + col * it->istride[k]) * it->elsize[k];
}

/* Elements [begin, end) in row order. */
static void run_range(const THIter *it, char **base, THRowFn fn, void *ctx, int64_t begin,
                      int64_t end) {
  int64_t counter[TH_MAX_DIM], offset[TH_ITER_MAXARGS];
  char *data[TH_ITER_MAXARGS];
  int64_t row = begin / it->inner, col = begin % it->inner, pos = begin;
  THIter_seek(it, row, counter, offset);
  while (pos < end) {
    int64_t n = TH_MIN(it->inner - col, end - pos);
    pointers(it, base, offset, col, data);
    fn(ctx, n, data, it->istride);
    pos += n;
    col = 0;
    THIter_next(it, counter, offset);
  }
}

/* Whether some operand walks across the innermost dim with a larger stride than across the
 * next one: then tiling the two innermost dims keeps both operands' lines in cache. */
static int wants_tiles(const THIter *it) {
  if (it->ndim < 2 || it->inner < TH_TILE || it->size[it->ndim - 2] < TH_TILE) return 0;
  for (int k = 0; k < it->narg; k++) {
    int64_t s_in = it->istride[k], s_out = it->stride[k][it->ndim - 2];
    if (s_in != 1 && s_in != 0 && s_out != 0 && s_out < s_in) return 1;
  }
  return 0;
}

/* Tiles [begin, end), numbered outer-row-major: (outer index, tile row, tile column). */
static void run_tiles(const THIter *it, char **base, THRowFn fn, void *ctx, int64_t begin,
                      int64_t end) {
  const int d1 = it->ndim - 2;
  const int64_t n1 = it->size[d1], n0 = it->inner;
  const int64_t t1 = (n1 + TH_TILE - 1) / TH_TILE, t0 = (n0 + TH_TILE - 1) / TH_TILE;
  int64_t counter[TH_MAX_DIM], offset[TH_ITER_MAXARGS], rowoff[TH_ITER_MAXARGS];
  char *data[TH_ITER_MAXARGS];
  for (int64_t t = begin; t < end; t++) {
    int64_t outer = t / (t1 * t0), ti = (t / t0) % t1, tj = t % t0;
    THIter_seek(it, outer * n1, counter, offset); /* row `outer*n1` starts that outer block */
    int64_t i_end = TH_MIN(n1, (ti + 1) * TH_TILE), j0 = tj * TH_TILE;
    int64_t len = TH_MIN(n0, j0 + TH_TILE) - j0;
    for (int64_t i = ti * TH_TILE; i < i_end; i++) {
      for (int k = 0; k < it->narg; k++) rowoff[k] = offset[k] + i * it->stride[k][d1];
      pointers(it, base, rowoff, j0, data);
      fn(ctx, len, data, it->istride);
    }
  }
}

void THIter_narrow(THIter *sub, char **sub_base, const THIter *it, char **base, int d,
                   int64_t begin, int64_t end) {
  *sub = *it;
  sub->size[d] = end - begin;
  sub->numel = it->size[d] > 0 ? it->numel / it->size[d] * (end - begin) : 0;
  if (d == it->ndim - 1) sub->inner = end - begin;
  sub->rows = sub->inner > 0 ? sub->numel / sub->inner : 0;
  for (int k = 0; k < it->narg; k++)
    sub_base[k] = base[k] + begin * it->stride[k][d] * it->elsize[k];
}

void THIter_run(const THIter *it, char **base, THRowFn fn, void *ctx, int weight) {
  if (it->numel == 0) return;
  int tiled = wants_tiles(it);
  int64_t work = it->numel;
  if (tiled) {
    int64_t t1 = (it->size[it->ndim - 2] + TH_TILE - 1) / TH_TILE;
    int64_t t0 = (it->inner + TH_TILE - 1) / TH_TILE;
    work = (it->numel / (it->inner * it->size[it->ndim - 2])) * t1 * t0;
  }
  int64_t bytes = 0;
  for (int k = 0; k < it->narg; k++) bytes += it->elsize[k];
  if (!THParallel_worth(it->numel, bytes * weight * (tiled ? TH_WEIGHT_TILED : 1))) {
    if (tiled) run_tiles(it, base, fn, ctx, 0, work);
    else run_range(it, base, fn, ctx, 0, work);
    return;
  }
#pragma omp parallel
  {
    int64_t nt = omp_get_num_threads(), t = omp_get_thread_num();
    int64_t chunk = (work + nt - 1) / nt, b = t * chunk, e = TH_MIN(work, b + chunk);
    if (b < e) {
      if (tiled) run_tiles(it, base, fn, ctx, b, e);
      else run_range(it, base, fn, ctx, b, e);
    }
  }
  THParallel_noteTeam(); /* (lib/THBlas.c: its workers are awake now) */
}
