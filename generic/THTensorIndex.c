#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THTensorIndex.c"
#else

/* Indexing kernels for one type; lib/THTensorIndex.c explains the three kernel shapes (gathers,
 * line kernels, ordered walks) and the order of the checks. */

/* How a value y meets the element x already there (integers wrap, bool add is or). */
#define TH_IDX_SET(x, y) (x) = (y)
#define TH_IDX_ADD(x, y) (x) = TH_STORE((opreal)((ureal)TH_LOAD(x) + (ureal)TH_LOAD(y)))
#define TH_IDX_MUL(x, y) (x) = TH_STORE((opreal)((ureal)TH_LOAD(x) * (ureal)TH_LOAD(y)))
/* scatter_reduce's amax / amin: the larger (smaller) of the two, a NaN winning (y != y only
 * for NaN), as PyTorch propagates it. */
#define TH_IDX_EXTREME(x, y, CMP)                                                           \
  do {                                                                                      \
    const opreal a_ = TH_LOAD(x), b_ = TH_LOAD(y);                                          \
    if (b_ != b_ || (a_ == a_ && b_ CMP a_)) (x) = (y);                                     \
  } while (0)
#define TH_IDX_AMAX(x, y) TH_IDX_EXTREME(x, y, >)
#define TH_IDX_AMIN(x, y) TH_IDX_EXTREME(x, y, <)

/* t itself (retained) or, when it shares the storage an op writes, a copy to read from. */
static THTensor *THTensor_(newUnaliased)(THTensor *t, const void *written) {
  if ((const void *)t->storage != written) {
    THTensor_(retain)(t);
    return t;
  }
  return THTensor_(newClone)(t);
}

/* ---- gathers: index_select, gather ------------------------------------------------------- */

/* r = src[index * step]: src is restrided (stride 0 along dim), step is its stride there. A
 * row along which the index does not move (index_select of rows: the indexed dim is outside
 * the row) is one slice of src, copied as a block. */
static void THTensor_(gatherRow)(void *ctx, int64_t n, char **data, const int64_t *stride) {
  const int64_t step = *(const int64_t *)ctx;
  if (stride[2] == 0) {
    real *r = (real *)data[0];
    const real *s = (const real *)data[1] + *(const int64_t *)data[2] * step;
    if (stride[0] == 1 && stride[1] == 1) {
      memcpy(r, s, sizeof(real) * (size_t)n);
    } else {
      for (int64_t i = 0; i < n; i++) r[i * stride[0]] = s[i * stride[1]];
    }
    return;
  }
  if (stride[0] == 1 && stride[1] == 0 && stride[2] == 1) { /* along the row: a plain gather */
    real *r = (real *)data[0];
    const real *s = (const real *)data[1];
    const int64_t *ip = (const int64_t *)data[2];
    for (int64_t i = 0; i < n; i++) r[i] = s[ip[i] * step];
    return;
  }
  TH_ROW_LOOP3(n, data, stride, real, rp, real, sp, int64_t, ip, *rp = sp[*ip * step];);
}

/* Sizes r to (rdim, rsize) and runs gatherRow over that shape: r, src with dim d restrided,
 * and index (for index_select, a `vector` along dim d; for gather, shaped like r). Inputs
 * sharing r's storage are copied before r is resized, which could move that storage. */
static int THTensor_(runGather)(const char *op, THTensor *r, int rdim, const int64_t *rsize,
                                THTensor *src, int d, THLongTensor *index, int vector) {
  THTensor *s = THTensor_(newUnaliased)(src, r->storage);
  THLongTensor *idx = s ? THLongTensor_newUnaliased(index, r->storage) : NULL;
  if (!idx || THTensor_(resizeOutput)(r, op, rdim, rsize, 0) != 0) {
    THLongTensor_free(idx);
    THTensor_(free)(s);
    return -1;
  }
  const int nd = TH_IDX_NDIM(s);
  const int64_t step = TH_IDX_STRIDE(s)[d];
  int64_t size[TH_MAX_DIM], restrided[TH_MAX_DIM], istride[TH_MAX_DIM] = {0};
  memcpy(size, rdim > 0 ? rsize : th_index_one, sizeof(int64_t) * nd);
  memcpy(restrided, TH_IDX_STRIDE(s), sizeof(int64_t) * nd);
  restrided[d] = 0;
  if (vector) istride[d] = idx->nDimension ? idx->stride[0] : 0;
  else memcpy(istride, TH_IDX_STRIDE(idx), sizeof(int64_t) * nd);
  const int64_t *strides[3] = {TH_IDX_STRIDE(r), restrided, istride};
  const int64_t elsize[3] = {sizeof(real), sizeof(real), sizeof(int64_t)};
  char *base[3] = {(char *)THTensor_(data)(r), (char *)THTensor_(data)(s),
                   (char *)THLongTensor_data(idx)};
  THIter it;
  THIter_init(&it, 3, nd, size, strides, elsize, 0);
  THIter_run(&it, base, THTensor_(gatherRow), (void *)&step, TH_WEIGHT_MEMORY);
  THLongTensor_free(idx);
  THTensor_(free)(s);
  return 0;
}

int THTensor_(indexSelect)(THTensor *r, THTensor *src, int64_t dim, THLongTensor *index) {
  const char *op = "index_select()";
  int d;
  THTry(THTensor_(checkBounds)(src, op), -1);
  THTry(THLongTensor_checkBounds(index, op), -1);
  THTry(THShape_wrapDim(&d, op, dim, src->nDimension), -1);
  THTry(THIndex_checkVector(op, TH_ERR_INDEX, index), -1);
  const int64_t n = THLongTensor_nElement(index);
  THArgCheck(src->nDimension > 0 || n == 1, TH_ERR_RUNTIME, -1,
             "%s: an index into a 0-dim tensor can have only 1 value, got %lld", op,
             (long long)n);
  THTry(THIndex_checkDim(op, TH_ERR_INDEX, index, d, TH_IDX_SIZE(src)[d], 0), -1);
  int64_t size[TH_MAX_DIM];
  memcpy(size, TH_IDX_SIZE(src), sizeof(int64_t) * TH_IDX_NDIM(src));
  size[d] = n;
  return THTensor_(runGather)(op, r, src->nDimension, size, src, d, index, 1);
}

int THTensor_(gather)(THTensor *r, THTensor *src, int64_t dim, THLongTensor *index) {
  const char *op = "gather()";
  char a[TH_SIZE_STR_LEN], b[TH_SIZE_STR_LEN];
  int d;
  THTry(THTensor_(checkBounds)(src, op), -1);
  THTry(THLongTensor_checkBounds(index, op), -1);
  THTry(THShape_wrapDim(&d, op, dim, src->nDimension), -1);
  const int nd = TH_IDX_NDIM(src);
  THArgCheck(TH_IDX_NDIM(index) == nd, TH_ERR_RUNTIME, -1,
             "%s: index tensor must have the same number of dimensions as input tensor "
             "(got %d and %d)", op, index->nDimension, src->nDimension);
  const int64_t *isize = TH_IDX_SIZE(index), *ssize = TH_IDX_SIZE(src);
  for (int e = 0; e < nd; e++)
    THArgCheck(e == d || isize[e] <= ssize[e], TH_ERR_RUNTIME, -1,
               "%s: size does not match at dimension %d: expected index %s to be no larger "
               "than input %s apart from dimension %d", op, e,
               THSize_str(a, sizeof a, index->nDimension, index->size),
               THSize_str(b, sizeof b, src->nDimension, src->size), d);
  THTry(THIndex_checkDim(op, TH_ERR_RUNTIME, index, d, ssize[d], 0), -1);
  return THTensor_(runGather)(op, r, index->nDimension, index->size, src, d, index, 0);
}

/* ---- line kernels: index_copy_, index_add_, index_fill_ ---------------------------------- */

typedef struct THTensor_(IndexLines) {
  const int64_t *index; /* the index vector: n values, istride apart */
  int64_t istride, n;
  int64_t size;         /* of the indexed dim (negative indices count from it) */
  int64_t self_step;    /* self's stride along dim */
  int64_t src_step;     /* src's stride along dim (0 for a scalar) */
  opreal alpha;
} THTensor_(IndexLines);

/* For each element of the row (a line along dim) and each k: self[index[k]] op= src[k]. When
 * the row walks memory more tightly than the line, each index value makes one pass along the
 * row; otherwise each line is finished before the next. Either way, per element, k ascends. */
#define TH_INDEX_LINES(NAME, COMBINE)                                                       \
  static void THTensor_(NAME)(void *ctx, int64_t n, char **data, const int64_t *stride) {   \
    const THTensor_(IndexLines) *c = ctx;                                                   \
    real *self = (real *)data[0];                                                           \
    const real *src = (const real *)data[1];                                                \
    const int64_t s0 = stride[0], s1 = stride[1];                                          \
    const opreal alpha = c->alpha;                                                          \
    (void)alpha;                                                                            \
    if (s0 <= c->self_step) {                                                               \
      for (int64_t k = 0; k < c->n; k++) {                                                  \
        int64_t pos = c->index[k * c->istride];                                             \
        real *dst = self + (pos < 0 ? pos + c->size : pos) * c->self_step;                  \
        const real *from = src + k * c->src_step;                                           \
        for (int64_t i = 0; i < n; i++) {                                                   \
          COMBINE(dst[i * s0], from[i * s1]);                                               \
        }                                                                                   \
      }                                                                                     \
    } else {                                                                                \
      for (int64_t i = 0; i < n; i++) {                                                     \
        for (int64_t k = 0; k < c->n; k++) {                                                \
          int64_t pos = c->index[k * c->istride];                                           \
          COMBINE(self[i * s0 + (pos < 0 ? pos + c->size : pos) * c->self_step],            \
                  src[i * s1 + k * c->src_step]);                                           \
        }                                                                                   \
      }                                                                                     \
    }                                                                                       \
  }

#define TH_IDX_AXPY(x, y) \
  (x) = TH_STORE((opreal)((ureal)TH_LOAD(x) + (ureal)alpha * (ureal)TH_LOAD(y)))
TH_INDEX_LINES(indexLinesSet, TH_IDX_SET)
TH_INDEX_LINES(indexLinesAdd, TH_IDX_AXPY)
#undef TH_IDX_AXPY

/* Runs a line kernel over self with dim d shrunk to 1; src has strides sstride over the same
 * shape (zeros for a scalar) and step along dim. */
static void THTensor_(runLines)(THRowFn fn, THTensor *self, int d, THLongTensor *index,
                                int64_t size, const real *src, const int64_t *sstride,
                                int64_t src_step, opreal alpha) {
  THTensor_(IndexLines) c = {THLongTensor_data(index), index->nDimension ? index->stride[0] : 0,
                             THLongTensor_nElement(index), size, TH_IDX_STRIDE(self)[d],
                             src_step, alpha};
  if (c.n == 0) return;
  int64_t lines[TH_MAX_DIM];
  const int nd = TH_IDX_NDIM(self);
  memcpy(lines, TH_IDX_SIZE(self), sizeof(int64_t) * nd);
  lines[d] = 1;
  const int64_t *strides[2] = {TH_IDX_STRIDE(self), sstride};
  const int64_t elsize[2] = {sizeof(real), sizeof(real)};
  char *base[2] = {(char *)THTensor_(data)(self), (char *)src};
  THIter it;
  THIter_init(&it, 2, nd, lines, strides, elsize, 0);
  THIter_run(&it, base, fn, &c, TH_WEIGHT_MEMORY);
}

/* The checks index_copy_ and index_add_ share: src has self's shape but index's length along
 * dim. `kind` is PyTorch's error for a bad index count or value. */
static int THTensor_(checkIndexSource)(const char *op, int kind, THTensor *self, int d,
                                       THLongTensor *index, THTensor *src) {
  char a[TH_SIZE_STR_LEN], b[TH_SIZE_STR_LEN];
  THTry(THIndex_checkVector(op, TH_ERR_INDEX, index), -1);
  const int64_t n = THLongTensor_nElement(index);
  const int nd = TH_IDX_NDIM(self);
  const int64_t *size = TH_IDX_SIZE(self), *ssize = TH_IDX_SIZE(src);
  THArgCheck(TH_IDX_NDIM(src) == nd, kind, -1,
             "%s: source %s and self %s must have the same number of dimensions", op,
             THSize_str(a, sizeof a, src->nDimension, src->size),
             THSize_str(b, sizeof b, self->nDimension, self->size));
  THArgCheck(ssize[d] == n, kind, -1,
             "%s: number of indices (%lld) should be equal to source.size(dim) (%lld), for "
             "dim %d", op, (long long)n, (long long)ssize[d], d);
  for (int e = 0; e < nd; e++)
    THArgCheck(e == d || ssize[e] == size[e], TH_ERR_RUNTIME, -1,
               "%s: source %s must match self %s in every dim but dim %d (they differ in dim %d)",
               op, THSize_str(a, sizeof a, src->nDimension, src->size),
               THSize_str(b, sizeof b, self->nDimension, self->size), d, e);
  return THIndex_checkDim(op, kind, index, d, size[d], 0);
}

/* index_copy_ and index_add_: checked, then run on unaliased copies of the inputs. */
static int THTensor_(indexAccumulate)(const char *op, int kind, THRowFn fn, THTensor *self,
                                      int64_t dim, THLongTensor *index, THTensor *src,
                                      opreal alpha) {
  int d;
  THTry(THTensor_(checkBounds)(src, op), -1);
  THTry(THLongTensor_checkBounds(index, op), -1);
  THTry(THShape_wrapDim(&d, op, dim, self->nDimension), -1);
  THTry(THTensor_(checkIndexSource)(op, kind, self, d, index, src), -1);
  THTry(THTensor_(resizeOutput)(self, op, self->nDimension, self->size, 1), -1);
  THTensor *s = THTensor_(newUnaliased)(src, self->storage);
  THLongTensor *idx = s ? THLongTensor_newUnaliased(index, self->storage) : NULL;
  if (idx)
    THTensor_(runLines)(fn, self, d, idx, TH_IDX_SIZE(self)[d], THTensor_(data)(s),
                        TH_IDX_STRIDE(s), TH_IDX_STRIDE(s)[d], alpha);
  THLongTensor_free(idx);
  THTensor_(free)(s);
  return idx ? 0 : -1;
}

int THTensor_(indexCopy)(THTensor *self, int64_t dim, THLongTensor *index, THTensor *src) {
  return THTensor_(indexAccumulate)("index_copy_()", TH_ERR_INDEX, THTensor_(indexLinesSet),
                                    self, dim, index, src, 1);
}

int THTensor_(indexAdd)(THTensor *self, int64_t dim, THLongTensor *index, THTensor *src,
                        real alpha) {
  return THTensor_(indexAccumulate)("index_add_()", TH_ERR_RUNTIME, THTensor_(indexLinesAdd),
                                    self, dim, index, src, TH_LOAD(alpha));
}

int THTensor_(indexFill)(THTensor *self, int64_t dim, THLongTensor *index, real value) {
  const char *op = "index_fill_()";
  const int64_t zeros[TH_MAX_DIM] = {0};
  int d;
  THTry(THLongTensor_checkBounds(index, op), -1);
  THTry(THShape_wrapDim(&d, op, dim, self->nDimension), -1);
  THTry(THIndex_checkVector(op, TH_ERR_RUNTIME, index), -1);
  THTry(THIndex_checkDim(op, TH_ERR_INDEX, index, d, TH_IDX_SIZE(self)[d], 1), -1);
  THTry(THTensor_(resizeOutput)(self, op, self->nDimension, self->size, 1), -1);
  THLongTensor *idx = THLongTensor_newUnaliased(index, self->storage);
  if (!idx) return -1;
  THTensor_(runLines)(THTensor_(indexLinesSet), self, d, idx, TH_IDX_SIZE(self)[d], &value,
                      zeros, 0, 1);
  THLongTensor_free(idx);
  return 0;
}

/* ---- line kernels: scatter_ ------------------------------------------------------------- */

typedef struct THTensor_(ScatterLines) {
  int64_t len;                            /* index.size(dim): the line's length */
  int64_t self_step, index_step, src_step; /* strides along dim */
} THTensor_(ScatterLines);

/* Operands: self, index, src, each at coordinate 0 of dim; the line runs k over len. */
#define TH_SCATTER_LINES(NAME, COMBINE)                                                     \
  static void THTensor_(NAME)(void *ctx, int64_t n, char **data, const int64_t *stride) {   \
    const THTensor_(ScatterLines) *c = ctx;                                                 \
    real *self = (real *)data[0];                                                           \
    const int64_t *index = (const int64_t *)data[1];                                        \
    const real *src = (const real *)data[2];                                                \
    const int64_t s0 = stride[0], s1 = stride[1], s2 = stride[2];                           \
    if (s0 <= c->self_step) {                                                               \
      for (int64_t k = 0; k < c->len; k++)                                                  \
        for (int64_t i = 0; i < n; i++)                                                     \
          COMBINE(self[i * s0 + index[i * s1 + k * c->index_step] * c->self_step],          \
                  src[i * s2 + k * c->src_step]);                                           \
    } else {                                                                                \
      for (int64_t i = 0; i < n; i++)                                                       \
        for (int64_t k = 0; k < c->len; k++)                                                \
          COMBINE(self[i * s0 + index[i * s1 + k * c->index_step] * c->self_step],          \
                  src[i * s2 + k * c->src_step]);                                           \
    }                                                                                       \
  }

TH_SCATTER_LINES(scatterLinesSet, TH_IDX_SET)
TH_SCATTER_LINES(scatterLinesAdd, TH_IDX_ADD)
TH_SCATTER_LINES(scatterLinesMul, TH_IDX_MUL)
TH_SCATTER_LINES(scatterLinesAmax, TH_IDX_AMAX)
TH_SCATTER_LINES(scatterLinesAmin, TH_IDX_AMIN)

/* scatter_ with src given as data + strides over index's shape (zeros: a scalar). */
static int THTensor_(scatterFrom)(const char *op, THTensor *self, int64_t dim,
                                  THLongTensor *index, THTensor *src, const real *value,
                                  int reduce) {
  char a[TH_SIZE_STR_LEN], b[TH_SIZE_STR_LEN], c[TH_SIZE_STR_LEN];
  static const int64_t zeros[TH_MAX_DIM] = {0};
  int d;
  THTry(THLongTensor_checkBounds(index, op), -1);
  if (src) THTry(THTensor_(checkBounds)(src, op), -1);
  THTry(THShape_wrapDim(&d, op, dim, self->nDimension), -1);
  THArgCheck(reduce >= TH_REDUCE_NONE && reduce <= TH_REDUCE_AMIN, TH_ERR_RUNTIME, -1,
             "%s: unknown reduction %d", op, reduce);
  const int nd = TH_IDX_NDIM(self);
  THArgCheck(TH_IDX_NDIM(index) == nd, TH_ERR_RUNTIME, -1,
             "%s: index tensor must have the same number of dimensions as self tensor "
             "(got %d and %d)", op, index->nDimension, self->nDimension);
  THArgCheck(!src || TH_IDX_NDIM(src) == nd, TH_ERR_RUNTIME, -1,
             "%s: index tensor must have the same number of dimensions as src tensor "
             "(got %d and %d)", op, index->nDimension, src ? src->nDimension : 0);
  const int64_t *isize = TH_IDX_SIZE(index), *size = TH_IDX_SIZE(self);
  const int64_t *ssize = src ? TH_IDX_SIZE(src) : NULL;
  const int check_shapes = THLongTensor_nElement(index) > 0; /* as PyTorch: none when empty */
  for (int e = 0; e < nd && check_shapes; e++)
    THArgCheck((e == d || isize[e] <= size[e]) && (!src || isize[e] <= ssize[e]),
               TH_ERR_RUNTIME, -1,
               "%s: expected index %s to be no larger than self %s apart from dimension %d%s%s "
               "(dimension %d differs)", op,
               THSize_str(a, sizeof a, index->nDimension, index->size),
               THSize_str(b, sizeof b, self->nDimension, self->size), d,
               src ? " and to be no larger than src " : "",
               src ? THSize_str(c, sizeof c, src->nDimension, src->size) : "", e);
  THTry(THIndex_checkDim(op, TH_ERR_RUNTIME, index, d, size[d], 0), -1);
  THTry(THTensor_(resizeOutput)(self, op, self->nDimension, self->size, 1), -1);

  THTensor *s = src ? THTensor_(newUnaliased)(src, self->storage) : NULL;
  THLongTensor *idx = (s || !src) ? THLongTensor_newUnaliased(index, self->storage) : NULL;
  if (!idx) {
    THTensor_(free)(s);
    return -1;
  }
  const int64_t *sstride = s ? TH_IDX_STRIDE(s) : zeros;
  THTensor_(ScatterLines) ctx = {isize[d], TH_IDX_STRIDE(self)[d], TH_IDX_STRIDE(idx)[d],
                                 sstride[d]};
  int64_t lines[TH_MAX_DIM];
  memcpy(lines, isize, sizeof(int64_t) * nd);
  lines[d] = 1;
  if (ctx.len > 0) {
    static const THRowFn fns[] = {THTensor_(scatterLinesSet), THTensor_(scatterLinesAdd),
                                  THTensor_(scatterLinesMul), THTensor_(scatterLinesAmax),
                                  THTensor_(scatterLinesAmin)};
    const int64_t *strides[3] = {TH_IDX_STRIDE(self), TH_IDX_STRIDE(idx), sstride};
    const int64_t elsize[3] = {sizeof(real), sizeof(int64_t), sizeof(real)};
    char *base[3] = {(char *)THTensor_(data)(self), (char *)THLongTensor_data(idx),
                     s ? (char *)THTensor_(data)(s) : (char *)value};
    THIter it;
    THIter_init(&it, 3, nd, lines, strides, elsize, 0);
    THIter_run(&it, base, fns[reduce], &ctx, TH_WEIGHT_MEMORY);
  }
  THLongTensor_free(idx);
  THTensor_(free)(s);
  return 0;
}

int THTensor_(scatter)(THTensor *self, int64_t dim, THLongTensor *index, THTensor *src,
                       int reduce) {
  return THTensor_(scatterFrom)(reduce == TH_REDUCE_ADD ? "scatter_add_()" : "scatter_()", self,
                                dim, index, src, NULL, reduce);
}

int THTensor_(scatterFill)(THTensor *self, int64_t dim, THLongTensor *index, real value,
                           int reduce) {
  return THTensor_(scatterFrom)("scatter_()", self, dim, index, NULL, &value, reduce);
}

/* ---- masks ------------------------------------------------------------------------------- */

static void THTensor_(maskedFillRow)(void *ctx, int64_t n, char **data, const int64_t *stride) {
  const real value = *(const real *)ctx;
  TH_ROW_LOOP2(n, data, stride, real, x, bool, m, *x = *m ? value : *x;); /* no branch */
}

int THTensor_(maskedFill)(THTensor *self, THBoolTensor *mask, real value) {
  const char *op = "masked_fill_()";
  int64_t mstride[TH_MAX_DIM];
  THTry(THBoolTensor_checkBounds(mask, op), -1);
  THTry(THShape_broadcastStrides(mstride, op, self->nDimension, self->size, mask->nDimension,
                                 mask->size, mask->stride), -1);
  THTry(THTensor_(resizeOutput)(self, op, self->nDimension, self->size, 1), -1);
  THBoolTensor *m = THBoolTensor_newUnaliased(mask, self->storage);
  if (!m) return -1;
  if (m != mask) /* a copy has its own (contiguous) strides */
    THShape_broadcastStrides(mstride, op, self->nDimension, self->size, m->nDimension, m->size,
                             m->stride);
  const int64_t *strides[2] = {self->stride, mstride};
  const int64_t elsize[2] = {sizeof(real), sizeof(bool)};
  char *base[2] = {(char *)THTensor_(data)(self), (char *)THBoolTensor_data(m)};
  THIter it;
  THIter_init(&it, 2, self->nDimension, self->size, strides, elsize, 0);
  THIter_run(&it, base, THTensor_(maskedFillRow), &value, TH_WEIGHT_MEMORY);
  THBoolTensor_free(m);
  return 0;
}

/* The cursor of an ordered walk: where the next selected element goes (or comes from). */
typedef struct THTensor_(Cursor) {
  real *data;
  int64_t stride;
  int64_t pos;
} THTensor_(Cursor);

static void THTensor_(maskedSelectRow)(void *ctx, int64_t n, char **data,
                                       const int64_t *stride) {
  THTensor_(Cursor) *c = ctx;
  TH_ROW_LOOP2(n, data, stride, real, x, bool, m, if (*m) c->data[c->stride * c->pos++] = *x;);
}

int THTensor_(maskedSelect)(THTensor *r, THTensor *src, THBoolTensor *mask) {
  const char *op = "masked_select()";
  int64_t size[TH_MAX_DIM], sstride[TH_MAX_DIM], mstride[TH_MAX_DIM];
  int nd;
  THTry(THTensor_(checkBounds)(src, op), -1);
  THTry(THBoolTensor_checkBounds(mask, op), -1);
  THTry(THShape_broadcast(size, &nd, op, src->nDimension, src->size, mask->nDimension,
                          mask->size), -1);
  THTensor *s = THTensor_(newUnaliased)(src, r->storage);
  THBoolTensor *m = s ? THBoolTensor_newUnaliased(mask, r->storage) : NULL;
  int status = -1;
  if (m && THShape_broadcastStrides(sstride, op, nd, size, s->nDimension, s->size,
                                    s->stride) == 0 &&
      THShape_broadcastStrides(mstride, op, nd, size, m->nDimension, m->size,
                               m->stride) == 0) {
    int64_t count = THIndex_countTrue(m, nd, size, mstride);
    if (THTensor_(resizeOutput)(r, op, 1, &count, 0) == 0) {
      THTensor_(Cursor) c = {THTensor_(data)(r), r->stride[0], 0};
      const int64_t *strides[2] = {sstride, mstride};
      const int64_t elsize[2] = {sizeof(real), sizeof(bool)};
      char *base[2] = {(char *)THTensor_(data)(s), (char *)THBoolTensor_data(m)};
      THIndex_runOrdered(2, nd, size, strides, elsize, base, THTensor_(maskedSelectRow), &c);
      status = 0;
    }
  }
  THBoolTensor_free(m);
  THTensor_(free)(s);
  return status;
}

static void THTensor_(maskedCopyRow)(void *ctx, int64_t n, char **data, const int64_t *stride) {
  THTensor_(Cursor) *c = ctx;
  TH_ROW_LOOP2(n, data, stride, real, x, bool, m, if (*m) *x = c->data[c->pos++];);
}

int THTensor_(maskedCopy)(THTensor *self, THBoolTensor *mask, THTensor *src) {
  const char *op = "masked_scatter_()";
  int64_t mstride[TH_MAX_DIM];
  THTry(THTensor_(checkBounds)(src, op), -1);
  THTry(THBoolTensor_checkBounds(mask, op), -1);
  THTry(THShape_broadcastStrides(mstride, op, self->nDimension, self->size, mask->nDimension,
                                 mask->size, mask->stride), -1);
  THTry(THTensor_(resizeOutput)(self, op, self->nDimension, self->size, 1), -1);
  const int64_t count = THIndex_countTrue(mask, self->nDimension, self->size, mstride);
  const int64_t have = THTensor_(nElement)(src);
  THArgCheck(have >= count, TH_ERR_RUNTIME, -1,
             "%s: number of elements of source (%lld) < number of ones in mask (%lld)", op,
             (long long)have, (long long)count);
  /* src is read in row-major order: from a contiguous tensor not sharing self's memory */
  THTensor *s = (const void *)src->storage == (const void *)self->storage
                    ? THTensor_(newClone)(src) : THTensor_(newContiguous)(src);
  THBoolTensor *m = s ? THBoolTensor_newUnaliased(mask, self->storage) : NULL;
  if (m && m != mask)
    THShape_broadcastStrides(mstride, op, self->nDimension, self->size, m->nDimension, m->size,
                             m->stride);
  if (m) {
    THTensor_(Cursor) c = {THTensor_(data)(s), 1, 0};
    const int64_t *strides[2] = {self->stride, mstride};
    const int64_t elsize[2] = {sizeof(real), sizeof(bool)};
    char *base[2] = {(char *)THTensor_(data)(self), (char *)THBoolTensor_data(m)};
    THIndex_runOrdered(2, self->nDimension, self->size, strides, elsize, base,
                       THTensor_(maskedCopyRow), &c);
  }
  THBoolTensor_free(m);
  THTensor_(free)(s);
  return m ? 0 : -1;
}

/* ---- nonzero ----------------------------------------------------------------------------- */

static void THTensor_(countNonzeroRow)(void *ctx, int64_t n, char **data,
                                       const int64_t *stride) {
  int64_t count = 0;
  TH_ROW_LOOP1(n, data, stride, real, x, count += TH_LOAD(*x) != 0;);
  atomic_fetch_add((_Atomic int64_t *)ctx, count);
}

typedef struct THTensor_(NonzeroCursor) {
  int64_t *out;          /* r's data; row `pos` gets the next coordinates */
  int64_t ostride[2];
  int64_t pos;
  int64_t linear;        /* row-major position of the row's first element */
  int ndim;
  const int64_t *size;
} THTensor_(NonzeroCursor);

static void THTensor_(nonzeroRow)(void *ctx, int64_t n, char **data, const int64_t *stride) {
  THTensor_(NonzeroCursor) *c = ctx;
  const real *x = (const real *)data[0];
  for (int64_t i = 0; i < n; i++) {
    if (TH_LOAD(x[i * stride[0]]) == 0) continue;
    int64_t lin = c->linear + i, *row = c->out + c->pos++ * c->ostride[0];
    for (int d = c->ndim - 1; d >= 0; d--) {
      row[d * c->ostride[1]] = lin % c->size[d];
      lin /= c->size[d];
    }
  }
  c->linear += n;
}

int THTensor_(nonzero)(THLongTensor *r, THTensor *src) {
  const char *op = "nonzero()";
  THTry(THTensor_(checkBounds)(src, op), -1);
  THTensor *s = THTensor_(newUnaliased)(src, r->storage);
  if (!s) return -1;
  const int64_t *strides[1] = {s->stride};
  const int64_t elsize[1] = {sizeof(real)};
  char *base[1] = {(char *)THTensor_(data)(s)};
  _Atomic int64_t count = 0;
  THIter it;
  THIter_init(&it, 1, s->nDimension, s->size, strides, elsize, 0);
  THIter_run(&it, base, THTensor_(countNonzeroRow), &count, TH_WEIGHT_MEMORY);
  int64_t size[2] = {atomic_load(&count), s->nDimension};
  int status = THLongTensor_resizeOutput(r, op, 2, size, 0);
  if (status == 0 && s->nDimension > 0) {
    THTensor_(NonzeroCursor) c = {THLongTensor_data(r), {r->stride[0], r->stride[1]}, 0, 0,
                                  s->nDimension, s->size};
    THIndex_runOrdered(1, s->nDimension, s->size, strides, elsize, base,
                       THTensor_(nonzeroRow), &c);
  }
  THTensor_(free)(s);
  return status;
}

/* ---- flat indices: take, put_ ------------------------------------------------------------- */

typedef struct THTensor_(Flat) {
  real *data;
  THIndexFlat at;
  int accumulate;
} THTensor_(Flat);

static void THTensor_(takeRow)(void *ctx, int64_t n, char **data, const int64_t *stride) {
  const THTensor_(Flat) *f = ctx;
  TH_ROW_LOOP2(n, data, stride, real, rp, int64_t, ip, *rp = f->data[THIndex_flatAt(&f->at, *ip)];);
}

static THIndexFlat THTensor_(flat)(THTensor *t) {
  THIndexFlat f = {THTensor_(nElement)(t), THTensor_(isContiguous)(t), t->nDimension, t->size,
                   t->stride};
  return f;
}

int THTensor_(take)(THTensor *r, THTensor *src, THLongTensor *index) {
  const char *op = "take()";
  THTry(THTensor_(checkBounds)(src, op), -1);
  THTry(THLongTensor_checkBounds(index, op), -1);
  THTry(THIndex_checkFlat(op, index, THTensor_(nElement)(src)), -1);
  THTensor *s = THTensor_(newUnaliased)(src, r->storage);
  THLongTensor *idx = s ? THLongTensor_newUnaliased(index, r->storage) : NULL;
  int status = -1;
  if (idx && THTensor_(resizeOutput)(r, op, idx->nDimension, idx->size, 0) == 0) {
    THTensor_(Flat) f = {THTensor_(data)(s), THTensor_(flat)(s), 0};
    const int64_t *strides[2] = {r->stride, idx->stride};
    const int64_t elsize[2] = {sizeof(real), sizeof(int64_t)};
    char *base[2] = {(char *)THTensor_(data)(r), (char *)THLongTensor_data(idx)};
    THIter it;
    THIter_init(&it, 2, idx->nDimension, idx->size, strides, elsize, 0);
    THIter_run(&it, base, THTensor_(takeRow), &f, TH_WEIGHT_MEMORY);
    status = 0;
  }
  THLongTensor_free(idx);
  THTensor_(free)(s);
  return status;
}

static void THTensor_(putRow)(void *ctx, int64_t n, char **data, const int64_t *stride) {
  const THTensor_(Flat) *f = ctx;
  if (f->accumulate)
    TH_ROW_LOOP2(n, data, stride, int64_t, ip, real, sp,
                 TH_IDX_ADD(f->data[THIndex_flatAt(&f->at, *ip)], *sp););
  else
    TH_ROW_LOOP2(n, data, stride, int64_t, ip, real, sp,
                 f->data[THIndex_flatAt(&f->at, *ip)] = *sp;);
}

int THTensor_(put)(THTensor *self, THLongTensor *index, THTensor *src, int accumulate) {
  const char *op = "put_()";
  THTry(THTensor_(checkBounds)(src, op), -1);
  THTry(THLongTensor_checkBounds(index, op), -1);
  const int64_t n = THLongTensor_nElement(index);
  THArgCheck(THTensor_(nElement)(src) == n, TH_ERR_INDEX, -1,
             "%s: expected source and index to have the same number of elements, but got "
             "source.numel() = %lld, index.numel() = %lld", op,
             (long long)THTensor_(nElement)(src), (long long)n);
  THTry(THIndex_checkFlat(op, index, THTensor_(nElement)(self)), -1);
  THTry(THTensor_(resizeOutput)(self, op, self->nDimension, self->size, 1), -1);
  /* src pairs with index in row-major order: read it contiguous, seen in index's shape */
  THTensor *s = (const void *)src->storage == (const void *)self->storage
                    ? THTensor_(newClone)(src) : THTensor_(newContiguous)(src);
  THLongTensor *idx = s ? THLongTensor_newUnaliased(index, self->storage) : NULL;
  if (idx) {
    int64_t sstride[TH_MAX_DIM];
    THShape_contiguousStrides(sstride, idx->nDimension, idx->size);
    THTensor_(Flat) f = {THTensor_(data)(self), THTensor_(flat)(self), accumulate};
    const int64_t *strides[2] = {idx->stride, sstride};
    const int64_t elsize[2] = {sizeof(int64_t), sizeof(real)};
    char *base[2] = {(char *)THLongTensor_data(idx), (char *)THTensor_(data)(s)};
    THIndex_runOrdered(2, idx->nDimension, idx->size, strides, elsize, base,
                       THTensor_(putRow), &f);
  }
  THLongTensor_free(idx);
  THTensor_(free)(s);
  return idx ? 0 : -1;
}

#undef TH_IDX_SET
#undef TH_IDX_ADD
#undef TH_IDX_MUL
#undef TH_IDX_EXTREME
#undef TH_IDX_AMAX
#undef TH_IDX_AMIN
#undef TH_INDEX_LINES
#undef TH_SCATTER_LINES

#endif
