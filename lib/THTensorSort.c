#include "THTensorSort.h"

#include <math.h>
#include <omp.h>
#include <string.h>

#include "THTensorApply.h"
#include "THTensorMath.h"

/* Sorting and selection, slice by slice (TH's DimApply, on the iteration engine).
 *
 *   1. The slices. The dims other than `dim` form the "outer" shape; each position in it is one
 *      slice. THIter (THTensorApply.h) is initialised over the outer shape with the input's and
 *      the outputs' outer strides, and a cursor (below) steps from slice to slice through it, so
 *      collapsed and reordered dims cost nothing. Each operand also keeps its stride along dim
 *      (0 for an output whose dim is reduced away).
 *   2. The work per slice. The slice is copied into a contiguous scratch buffer of (key, index)
 *      pairs, with keys in the compute type (`opreal`: float for Half/BFloat16, so they compare
 *      as numbers). sort and mode merge-sort the pairs (stable: ties keep their index order);
 *      kthvalue, median and topk find the k-th key with a quickselect, O(n), then take the
 *      matching elements in index order, which is what a stable sort would give; a small topk
 *      keeps a heap of the best k in one pass instead.
 *   3. Threads. With many slices, OpenMP threads take equal contiguous ranges of slices, each
 *      with its own scratch, all allocated up front by the calling thread (an allocation failure
 *      is reported there, and nothing in the parallel region can fail). A single long slice
 *      (sort, unique) instead runs the merge sort's passes in parallel.
 */

/* Merge-sort runs shorter than this are insertion-sorted first. */
#define TH_SORT_RUN 32
/* topk keeps a heap of the best k (rather than quickselecting) up to this k. */
#define TH_TOPK_HEAP 128

/* TH_DEFINE_MERGESORT(NAME, T, BEFORE) defines
 *   static void NAME(T *a, T *tmp, int64_t n, const void *ctx, int parallel)
 * a stable bottom-up merge sort of a[0, n) using tmp[0, n); BEFORE(ctx, x, y) is true when x
 * must come strictly before y. Runs of TH_SORT_RUN are insertion-sorted, then merged in passes
 * of doubling width; `parallel` spreads the runs and the merges of a pass over OpenMP threads
 * (a serial sort never enters an OpenMP construct: short slices must not pay for one).
 * Merging takes from the left run unless the right element comes strictly first: stability. */
#define TH_DEFINE_MERGESORT(NAME, T, BEFORE)                                                      \
  static void TH_CONCAT_2(NAME, Run)(T *a, int64_t lo, int64_t n, const void *ctx) {              \
    (void)ctx;                                                                                    \
    const int64_t hi = TH_MIN(n, lo + TH_SORT_RUN);                                               \
    for (int64_t i = lo + 1; i < hi; i++) {                                                       \
      T x = a[i];                                                                                 \
      int64_t j = i;                                                                              \
      for (; j > lo && BEFORE(ctx, x, a[j - 1]); j--) a[j] = a[j - 1];                            \
      a[j] = x;                                                                                   \
    }                                                                                             \
  }                                                                                               \
  static void TH_CONCAT_2(NAME, Merge)(const T *src, T *dst, int64_t lo, int64_t w,               \
                                       int64_t n, const void *ctx) {                              \
    (void)ctx;                                                                                    \
    const int64_t mid = TH_MIN(n, lo + w), hi = TH_MIN(n, lo + 2 * w);                            \
    int64_t i = lo, j = mid, o = lo;                                                              \
    if (mid == hi || !BEFORE(ctx, src[mid], src[mid - 1])) { /* already in order */               \
      memcpy(dst + lo, src + lo, (size_t)(hi - lo) * sizeof(T));                                  \
      return;                                                                                     \
    }                                                                                             \
    while (i < mid && j < hi) dst[o++] = BEFORE(ctx, src[j], src[i]) ? src[j++] : src[i++];       \
    while (i < mid) dst[o++] = src[i++];                                                          \
    while (j < hi) dst[o++] = src[j++];                                                           \
  }                                                                                               \
  static void NAME(T *a, T *tmp, int64_t n, const void *ctx, int parallel) {                      \
    if (parallel) {                                                                               \
      _Pragma("omp parallel for schedule(static)")                                                \
      for (int64_t lo = 0; lo < n; lo += TH_SORT_RUN) TH_CONCAT_2(NAME, Run)(a, lo, n, ctx);      \
    } else {                                                                                      \
      for (int64_t lo = 0; lo < n; lo += TH_SORT_RUN) TH_CONCAT_2(NAME, Run)(a, lo, n, ctx);      \
    }                                                                                             \
    T *src = a, *dst = tmp;                                                                       \
    for (int64_t w = TH_SORT_RUN; w < n; w *= 2) {                                                \
      if (parallel && n / w > 2) {                                                                \
        _Pragma("omp parallel for schedule(static)")                                              \
        for (int64_t lo = 0; lo < n; lo += 2 * w)                                                 \
          TH_CONCAT_2(NAME, Merge)(src, dst, lo, w, n, ctx);                                      \
      } else {                                                                                    \
        for (int64_t lo = 0; lo < n; lo += 2 * w)                                                 \
          TH_CONCAT_2(NAME, Merge)(src, dst, lo, w, n, ctx);                                      \
      }                                                                                           \
      T *t = src;                                                                                 \
      src = dst;                                                                                  \
      dst = t;                                                                                    \
    }                                                                                             \
    if (src != a) memcpy(a, src, (size_t)n * sizeof(T));                                          \
  }

/* A position in the walk over slices: the THIter odometer over rows, and the column within
 * the current row (THIter's innermost collapsed dim). */
typedef struct THSliceCursor {
  int64_t counter[TH_MAX_DIM];
  int64_t row[TH_ITER_MAXARGS]; /* each operand's element offset of the row's start */
  int64_t col;
} THSliceCursor;

static void THSliceCursor_seek(const THIter *it, THSliceCursor *c, int64_t slice) {
  THIter_seek(it, slice / it->inner, c->counter, c->row);
  c->col = slice % it->inner;
}

static void THSliceCursor_next(const THIter *it, THSliceCursor *c) {
  if (++c->col == it->inner) {
    c->col = 0;
    THIter_next(it, c->counter, c->row);
  }
}

/* Operand k's element offset at the cursor. */
static int64_t THSliceCursor_offset(const THIter *it, const THSliceCursor *c, int k) {
  return c->row[k] + c->col * it->istride[k];
}

/* The strides of t over the outer dims of a tensor of `ndim` dims sorted along dim: t's strides
 * without dim when t keeps it (ndim dims), else t's own (dim reduced away). Returns t's stride
 * along dim (0 when reduced). */
static int64_t THSort_outerStrides(int64_t *out, int tdim, const int64_t *tstride, int ndim,
                                   int dim) {
  if (tdim != ndim) {
    for (int d = 0; d < tdim; d++) out[d] = tstride[d];
    return 0;
  }
  for (int d = 0, o = 0; d < tdim; d++)
    if (d != dim) out[o++] = tstride[d];
  return ndim > 0 ? tstride[dim] : 0;
}

/* Output shape: self's with dim's size replaced by `keep` (keepdim) or removed. */
static int THSort_outputShape(int64_t *size, int ndim, const int64_t *ssize, int dim,
                              int64_t keep, int keepdim) {
  int n = 0;
  for (int d = 0; d < ndim; d++) {
    if (d != dim) size[n++] = ssize[d];
    else if (keepdim) size[n++] = keep;
  }
  return n;
}

/* How many threads walk nslices slices of n elements: one below the grain size, inside a
 * parallel region, or for a single slice. */
static int THSort_threads(int64_t nslices, int64_t n) {
  int64_t work;
  if (nslices < 2 || omp_in_parallel()) return 1;
  if (THSize_mul(&work, nslices, n < 1 ? 1 : n) == 0 &&
      !THParallel_worth(work, 4 * TH_WEIGHT_SORT)) /* counted as 4-byte elements */
    return 1;
  return (int)TH_MIN((int64_t)THThreads_max(), nslices); /* 1 below two threads */
}

/* Scratch of threads * factor * n items of `item` bytes (n >= 1 counted); NULL with a
 * MemoryError when that overflows or cannot be had. */
static void *THSort_scratch(int threads, int64_t n, size_t item, int64_t factor) {
  int64_t bytes;
  if (THSize_mul(&bytes, n < 1 ? 1 : n, (int64_t)item) != 0 ||
      THSize_mul(&bytes, bytes, factor * threads) != 0) {
    THError_set(TH_ERR_MEMORY, "sort: scratch for %lld elements overflows", (long long)n);
    return NULL;
  }
  return THAlloc((size_t)bytes);
}

#include "generic/THTensorSort.c"
#include "THGenerateAllTypes.h"
