#include "THTensorIndex.h"

#include <stdatomic.h>
#include <string.h>

#include "THTensorApply.h"
#include "THTensorMath.h"

/* How the indexing kernels work.
 *
 * 1. Checks come first, in this order: geometry (dims, shapes, broadcasting), then every index
 *    value (one read-only pass over the index tensor, threaded when large, see THIndex_check),
 *    then the output is sized and an in-place target is checked writable. Only then is
 *    anything written, so a failing call leaves every tensor as it was. An input that shares a
 *    storage with the tensor being written is read from a copy (THTensor_(newUnaliased)).
 *
 * 2. Three kinds of kernel, all driven by the THIter engine (THTensorApply.h):
 *    a. Gathers (index_select, gather, take) iterate over the OUTPUT. The source operand is
 *       "restrided": it gets the output's shape with stride 0 along dim, so the iterator hands
 *       the row function the source element at coordinate 0 of dim, and the row function adds
 *       index * stride[dim]. Every output element is written once: they run threaded.
 *    b. Line kernels (index_copy_, index_add_, index_fill_, scatter_) iterate over the target
 *       with dim shrunk to size 1, so each iterated element stands for a whole line along dim,
 *       and the row function walks the line through the index. Two lines never write the same
 *       cell, so lines are split among threads freely, while within a line the writes happen
 *       in index order: duplicate indices accumulate exactly and the last assignment wins,
 *       deterministically.
 *    c. Ordered walks (masked_select, masked_scatter_, nonzero, put_) depend on row-major
 *       order. THIter gets an extra operand with contiguous strides and element size 0 (its
 *       pointer never moves) and orders the dims by it, so rows arrive in logical order; they
 *       run on the calling thread, after a threaded count where the output size depends on it.
 */

/* A 0-dim tensor is seen as one element along one dim: these give its (ndim, size, stride). */
static const int64_t th_index_one[1] = {1};
#define TH_IDX_NDIM(t) ((t)->nDimension > 0 ? (t)->nDimension : 1)
#define TH_IDX_SIZE(t) ((t)->nDimension > 0 ? (t)->size : th_index_one)
#define TH_IDX_STRIDE(t) ((t)->nDimension > 0 ? (t)->stride : th_index_one)

/* ---- index validation ------------------------------------------------------------------- */

typedef struct THIndexRange {
  int64_t lo, hi;    /* valid values: [lo, hi) */
  _Atomic int bad;   /* set by the first row that finds a value outside */
  int64_t value;     /* that value */
} THIndexRange;

static void THIndex_rangeRow(void *ctx, int64_t n, char **data, const int64_t *stride) {
  THIndexRange *c = ctx;
  const int64_t lo = c->lo, hi = c->hi;
  TH_ROW_LOOP1(n, data, stride, int64_t, ip, {
    if (*ip < lo || *ip >= hi) {
      int expected = 0;
      if (atomic_compare_exchange_strong(&c->bad, &expected, 1)) c->value = *ip;
      return;
    }
  });
}

/* 0 when every value of index lies in [lo, hi); otherwise -1 and *bad is one that does not. */
static int THIndex_findBad(THLongTensor *index, int64_t lo, int64_t hi, int64_t *bad) {
  THIter it;
  const int64_t *strides[1] = {index->stride};
  const int64_t elsize[1] = {sizeof(int64_t)};
  THIter_init(&it, 1, index->nDimension, index->size, strides, elsize, 0);
  THIndexRange c = {lo, hi, 0, 0};
  char *base[1] = {(char *)THLongTensor_data(index)};
  THIter_run(&it, base, THIndex_rangeRow, &c, TH_WEIGHT_MEMORY);
  if (!atomic_load(&c.bad)) return 0;
  *bad = c.value;
  return -1;
}

/* Every index must address dim `dim` of size `size`; negative ones count from the end when
 * `negative` allows them. `kind` is the error PyTorch raises for this op. */
static int THIndex_checkDim(const char *op, int kind, THLongTensor *index, int dim, int64_t size,
                            int negative) {
  int64_t bad;
  if (THIndex_findBad(index, negative ? -size : 0, size, &bad) == 0) return 0;
  THError_set(kind, "%s: index %lld is out of bounds for dimension %d with size %lld", op,
              (long long)bad, dim, (long long)size);
  return -1;
}

/* Flat indices into a tensor of numel elements, in [-numel, numel). */
static int THIndex_checkFlat(const char *op, THLongTensor *index, int64_t numel) {
  int64_t bad;
  if (THIndex_findBad(index, -numel, numel, &bad) == 0) return 0;
  THError_set(TH_ERR_INDEX, "%s: index %lld is out of range for a tensor of %lld elements", op,
              (long long)bad, (long long)numel);
  return -1;
}

/* index_* take a vector (or a 0-dim index): `kind` is PyTorch's error for anything else. */
static int THIndex_checkVector(const char *op, int kind, THLongTensor *index) {
  char buf[TH_SIZE_STR_LEN];
  THArgCheck(index->nDimension <= 1, kind, -1,
             "%s: index is supposed to be a vector or a scalar, but got a %d-dim index of "
             "shape %s", op, index->nDimension,
             THSize_str(buf, sizeof buf, index->nDimension, index->size));
  return 0;
}

/* ---- counting and ordered walks ---------------------------------------------------------- */

static void THIndex_countRow(void *ctx, int64_t n, char **data, const int64_t *stride) {
  int64_t count = 0;
  TH_ROW_LOOP1(n, data, stride, bool, m, count += *m;);
  atomic_fetch_add((_Atomic int64_t *)ctx, count);
}

/* The number of true elements of a mask seen with strides over (ndim, size). */
static int64_t THIndex_countTrue(THBoolTensor *mask, int ndim, const int64_t *size,
                                 const int64_t *stride) {
  THIter it;
  const int64_t *strides[1] = {stride};
  const int64_t elsize[1] = {sizeof(bool)};
  THIter_init(&it, 1, ndim, size, strides, elsize, 0);
  _Atomic int64_t count = 0;
  char *base[1] = {(char *)THBoolTensor_data(mask)};
  THIter_run(&it, base, THIndex_countRow, &count, TH_WEIGHT_MEMORY);
  return atomic_load(&count);
}

/* Runs fn over narg (<= 3) operands on the calling thread, rows in row-major order: an extra
 * last operand with contiguous strides and element size 0 decides the order of the dims. */
static void THIndex_runOrdered(int narg, int ndim, const int64_t *size,
                               const int64_t *const *strides, const int64_t *elsize,
                               char *const *base, THRowFn fn, void *ctx) {
  int64_t order[TH_MAX_DIM], counter[TH_MAX_DIM], offset[TH_ITER_MAXARGS];
  const int64_t *st[TH_ITER_MAXARGS];
  int64_t el[TH_ITER_MAXARGS];
  char *data[TH_ITER_MAXARGS], anchor = 0;
  THShape_contiguousStrides(order, ndim, size);
  for (int k = 0; k < narg; k++) {
    st[k] = strides[k];
    el[k] = elsize[k];
  }
  st[narg] = order;
  el[narg] = 0;
  THIter it;
  THIter_init(&it, narg + 1, ndim, size, st, el, narg);
  if (it.numel == 0) return;
  THIter_seek(&it, 0, counter, offset);
  for (int64_t row = 0; row < it.rows; row++) {
    for (int k = 0; k < narg; k++) data[k] = base[k] + offset[k] * el[k];
    data[narg] = &anchor;
    fn(ctx, it.inner, data, it.istride);
    THIter_next(&it, counter, offset);
  }
}

/* The storage offset (from the tensor's first element) of flat row-major position i. */
static inline int64_t THIndex_flatOffset(int64_t i, int ndim, const int64_t *size,
                                         const int64_t *stride) {
  int64_t offset = 0;
  for (int d = ndim - 1; d >= 0; d--) {
    offset += (i % size[d]) * stride[d];
    i /= size[d];
  }
  return offset;
}

/* A flat view of a tensor for take / put_: its elements by row-major position. */
typedef struct THIndexFlat {
  int64_t numel;
  int contiguous;
  int ndim;
  const int64_t *size, *stride;
} THIndexFlat;

static inline int64_t THIndex_flatAt(const THIndexFlat *f, int64_t i) {
  if (i < 0) i += f->numel;
  return f->contiguous ? i : THIndex_flatOffset(i, f->ndim, f->size, f->stride);
}

/* The copies below are defined by the Long and Bool stamps; earlier stamps call them. */
static THLongTensor *THLongTensor_newUnaliased(THLongTensor *t, const void *written);
static THBoolTensor *THBoolTensor_newUnaliased(THBoolTensor *t, const void *written);

#include "generic/THTensorIndex.c"
#include "THGenerateAllTypes.h"
