#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THTensorMath.c"
#else

/* Pointwise kernels. Each op from THMathOps.h becomes a row function (the inner loop, see
 * THTensorApply.h) and an entry point that checks, broadcasts, sizes the output and runs the
 * iterator. The drivers below are shared by every op of a shape (unary, binary, ...). */

#if defined(TH_REAL_IS_DOUBLE)
#define TH_M(fn) fn
#else
#define TH_M(fn) fn##f /* float, and Half/BFloat16 which compute in float */
#endif
#if defined(TH_REAL_IS_REDUCED)
/* PyTorch rounds such an intermediate where both operands are tensors (its op runs in real),
 * not where one is a number (kept in float): each binary row says which it is in y_is_real. */
#define TH_ROUND(v) (y_is_real ? TH_LOAD(TH_STORE(v)) : (v))
#else
#define TH_ROUND(v) (v)
#endif
#if defined(TH_REAL_IS_FLOATING)
#define TH_ISNAN(x) isnan(x)
#else
#define TH_ISNAN(x) 0
#endif
#if defined(TH_REAL_IS_BYTE) || defined(TH_REAL_IS_BOOL)
#define TH_NEG_P(x) 0
#else
#define TH_NEG_P(x) ((x) < 0)
#endif

int THTensor_(resizeOutput)(THTensor *r, const char *op, int ndim, const int64_t *size,
                            int is_input) {
  int same = r->nDimension == ndim;
  for (int d = 0; same && d < ndim; d++) same = r->size[d] == size[d];
  if (!same) {
    char a[TH_SIZE_STR_LEN], b[TH_SIZE_STR_LEN];
    THArgCheck(!is_input, TH_ERR_RUNTIME, -1,
               "%s: output with shape %s doesn't match the broadcast shape %s", op,
               THSize_str(a, sizeof a, r->nDimension, r->size), THSize_str(b, sizeof b, ndim, size));
    THTry(THTensor_(resize)(r, ndim, size), -1);
  }
  THTry(THTensor_(checkBounds)(r, op), -1);
  return THShape_checkWritable(op, r->nDimension, r->size, r->stride);
}

/* Broadcast shape of up to three inputs (NULL ones skipped), after checking their bounds. */
static int THTensor_(broadcastShape)(int64_t *size, int *ndim, const char *op, THTensor *a,
                                     THTensor *b, THTensor *c) {
  THTensor *in[3] = {a, b, c};
  *ndim = 0;
  for (int k = 0; k < 3; k++) {
    if (!in[k]) continue;
    THTry(THTensor_(checkBounds)(in[k], op), -1);
    THTry(THShape_broadcast(size, ndim, op, *ndim, size, in[k]->nDimension, in[k]->size), -1);
  }
  return 0;
}

/* The shape of a, after checking its bounds (the result shape of a unary op). */
static int THTensor_(sizeOf)(int64_t *size, int *ndim, const char *op, THTensor *a) {
  THTry(THTensor_(checkBounds)(a, op), -1);
  *ndim = a->nDimension;
  memcpy(size, a->size, sizeof(int64_t) * (size_t)a->nDimension);
  return 0;
}

/* RuntimeError when input `in` and the output share some memory without being the very same
 * view (in-place is fine; a shifted window would read values the op already wrote). */
static int THTensor_(checkOverlap)(const char *op, THTensor *in, int rn, const int64_t *rsize,
                                   const int64_t *rstride, const char *rdata, int64_t relsize) {
  int64_t rspan, ispan;
  const char *idata = (const char *)THTensor_(data)(in);
  if (!rdata || !idata) return 0;
  THTry(THShape_span(&rspan, op, 0, rn, rsize, rstride), -1);
  THTry(THShape_span(&ispan, op, 0, in->nDimension, in->size, in->stride), -1);
  const char *rend = rdata + rspan * relsize, *iend = idata + ispan * (int64_t)sizeof(real);
  if (rspan == 0 || ispan == 0 || rend <= idata || iend <= rdata) return 0;
  int same = rdata == idata && relsize == (int64_t)sizeof(real) && rn == in->nDimension;
  for (int d = 0; same && d < rn; d++)
    same = rsize[d] == in->size[d] && rstride[d] == in->stride[d];
  THArgCheck(same, TH_ERR_RUNTIME, -1,
             "%s: unsupported operation: some elements of the input tensor and the written-to "
             "tensor refer to a single memory location; clone() the input first", op);
  return 0;
}

/* The short path of run() for operands too small for threads: r contiguous, every input
 * either contiguous in r's very shape or a single value, and no input overlapping r unless it
 * is r itself. Then the whole op is one row (stride 1, or 0 for a single value) on the calling
 * thread. Returns 1 when it applies (pointers and strides filled in), 0 to take the general
 * path. */
static int THTensor_(flatRow)(int nin, THTensor *const *in, int rn, const int64_t *rsize,
                              const int64_t *rstride, char *rdata, int64_t relsize,
                              int64_t numel, char **ptr, int64_t *istride) {
  if (!THShape_isContiguous(rn, rsize, rstride)) return 0;
  const char *rend = rdata + numel * relsize;
  ptr[0] = rdata;
  istride[0] = 1;
  for (int k = 0; k < nin; k++) {
    const THTensor *t = in[k];
    char *d = (char *)THTensor_(data)(t);
    int64_t n = THTensor_(nElement)(t);
    if (n == 1 && t->nDimension <= rn && numel > 0) {
      istride[k + 1] = 0;
    } else {
      if (t->nDimension != rn || n != numel) return 0;
      for (int i = 0; i < rn; i++)
        if (t->size[i] != rsize[i]) return 0;
      if (!THShape_isContiguous(rn, t->size, t->stride)) return 0;
      istride[k + 1] = 1;
    }
    const char *dend = d + (istride[k + 1] ? n : 1) * (int64_t)sizeof(real);
    int same = d == rdata && istride[k + 1] == 1 && relsize == (int64_t)sizeof(real);
    if (!same && numel > 0 && d < rend && rdata < dend) return 0; /* run() reports it */
    ptr[k + 1] = d;
  }
  return 1;
}

/* Runs fn over (r, inputs...) with every input broadcast to r's shape; weight is the kernel's
 * cost per byte (TH_WEIGHT_*), which decides with the size whether threads pay. */
static int THTensor_(run)(const char *op, THRowFn fn, const void *extra, int weight, int nin,
                          THTensor *const *in, int rn, const int64_t *rsize,
                          const int64_t *rstride, char *rdata, int64_t relsize) {
  THMathCtx ctx = {0, extra};
  const int64_t numel = THShape_count(rn, rsize);
  char *ptr[TH_ITER_MAXARGS];
  int64_t istride[TH_ITER_MAXARGS];
  const int64_t bytes = (relsize + nin * (int64_t)sizeof(real)) * weight;
  if (!THParallel_worth(numel, bytes) &&
      THTensor_(flatRow)(nin, in, rn, rsize, rstride, rdata, relsize, numel, ptr, istride)) {
    if (numel > 0) THMath_runRow(fn, &ctx, numel, ptr, istride);
    return THMath_finish(&ctx, op);
  }
  int64_t bstride[TH_ITER_MAXARGS][TH_MAX_DIM];
  const int64_t *strides[TH_ITER_MAXARGS] = {rstride};
  int64_t elsize[TH_ITER_MAXARGS] = {relsize};
  char *base[TH_ITER_MAXARGS] = {rdata};
  for (int k = 0; k < nin; k++) {
    THTry(THTensor_(checkOverlap)(op, in[k], rn, rsize, rstride, rdata, relsize), -1);
    THTry(THShape_broadcastStrides(bstride[k], op, rn, rsize, in[k]->nDimension, in[k]->size,
                                   in[k]->stride), -1);
    strides[k + 1] = bstride[k];
    elsize[k + 1] = sizeof(real);
    base[k + 1] = (char *)THTensor_(data)(in[k]);
  }
  THIter it;
  THIter_init(&it, nin + 1, rn, rsize, strides, elsize, 0);
  THIter_run(&it, base, fn, &ctx, weight);
  return THMath_finish(&ctx, op);
}

/* The fast path of the <name>New forms (unary: b NULL). When every input is contiguous and
 * inside its storage, and of the result's very shape or a single value broadcast to it, none of
 * the general path's steps can fail or change anything: the broadcast shape is the larger
 * input's, a fresh result is contiguous, writable and overlaps no input. Then the result is
 * made at that shape and the op is one row over it, skipping broadcastShape, resizeOutput,
 * checkOverlap, broadcastStrides and THIter. Only below the thread grain (THParallel_worth, as
 * run() decides): larger ops take the general path, which splits them between threads.
 * Returns the input whose shape the result takes, with *numel, ptr[1..] and stride[1..] (the
 * inputs' rows) filled in; NULL for the general path, which also reports every error. */
static THTensor *THTensor_(flatOperands)(THTensor *a, THTensor *b, int64_t relsize, int weight,
                                         int64_t *numel, char **ptr, int64_t *stride) {
  THTensor *shape = a, *in[2] = {a, b};
  int64_t na = THTensor_(nElement)(a), nb = b ? THTensor_(nElement)(b) : 0, n = na;
  stride[1] = stride[2] = 1;
  if (b && !THTensor_(isSameSizeAs)(a, b)) {
    if (nb == 1 && b->nDimension <= a->nDimension) {
      stride[2] = 0;
    } else if (na == 1 && a->nDimension <= b->nDimension) {
      stride[1] = 0;
      shape = b;
      n = nb;
    } else {
      return NULL;
    }
  }
  const int nin = b ? 2 : 1;
  if (THParallel_worth(n, (relsize + nin * (int64_t)sizeof(real)) * weight)) return NULL;
  const int64_t counts[2] = {na, nb};
  for (int k = 0; k < nin; k++) {
    const THTensor *t = in[k];
    /* the contiguous view's extent is offset + elements (checkBounds, without the walk) */
    if (!THShape_isContiguous(t->nDimension, t->size, t->stride) ||
        (counts[k] > 0 && t->storageOffset + counts[k] > t->storage->size))
      return NULL;
    ptr[k + 1] = (char *)THTensor_(data)(t);
  }
  *numel = n;
  return shape;
}

/* The result of the fast path: made at SHAPE's size, FN run once over its NUMEL elements
 * (EXTRA: the row's constant, NULL for none). */
#define TH_NEW_FLAT(OUT, OUT_NEW, OUT_FREE, OUT_DATA, OP, FN, EXTRA, SHAPE, NUMEL, PTR, STRIDE) \
  {                                                                                           \
    OUT *r_ = OUT_NEW((SHAPE)->nDimension, (SHAPE)->size);                                    \
    if (!r_ || (NUMEL) == 0) return r_;                                                       \
    THMathCtx ctx_ = {0, EXTRA};                                                              \
    (PTR)[0] = (char *)OUT_DATA(r_);                                                          \
    (STRIDE)[0] = 1;                                                                          \
    THMath_runRow(FN, &ctx_, NUMEL, PTR, STRIDE);                                             \
    if (THMath_finish(&ctx_, OP) == 0) return r_;                                             \
    OUT_FREE(r_);                                                                             \
    return NULL;                                                                              \
  }

#define TH_NARGS(...) ((int)(sizeof((THTensor *[]){__VA_ARGS__}) / sizeof(THTensor *)))
#define TH_RUN(OP, FN, EXTRA, WEIGHT, R, RDATA, RELSIZE, ...)                                \
  THTensor_(run)(OP, FN, EXTRA, WEIGHT, TH_NARGS(__VA_ARGS__),                               \
                 (THTensor *[]){__VA_ARGS__}, (R)->nDimension, (R)->size, (R)->stride,         \
                 (char *)(RDATA), RELSIZE)

/* ---- unary: r = f(x) ------------------------------------------------------------------ */

/* Transcendental row functions are compute-bound: those of float and double get per-ISA clones
 * (THMathOps.h). Everything else is memory-bound and stays single-version. */
#if defined(TH_REAL_IS_FLOAT) || defined(TH_REAL_IS_DOUBLE)
#define TH_UNARY_ROW_ATTR TH_VECTOR_CLONES
#else
#define TH_UNARY_ROW_ATTR
#endif

/* The <name>New forms: the fast path when it applies (flatOperands), else the result
 * allocated at its final shape and the op run into it. */
#define TH_NEW_RESULT(OUT, OUT_NEW, OUT_FREE, OUT_T, OUT_DATA, NAME, FN, EXTRA, WEIGHT, A, B,  \
                      SIZE_OF, CALL)                                                          \
  {                                                                                           \
    char *ptr_[3];                                                                            \
    int64_t stride_[3], numel_, size_[TH_MAX_DIM];                                            \
    int ndim_;                                                                                \
    THTensor *shape_ =                                                                        \
        THTensor_(flatOperands)(A, B, sizeof(OUT_T), WEIGHT, &numel_, ptr_, stride_);          \
    if (shape_)                                                                               \
      TH_NEW_FLAT(OUT, OUT_NEW, OUT_FREE, OUT_DATA, #NAME "()", FN, EXTRA, shape_, numel_,   \
                  ptr_, stride_)                                                              \
    if (SIZE_OF) return NULL;                                                                 \
    OUT *r_ = OUT_NEW(ndim_, size_);                                                          \
    if (r_ && CALL != 0) {                                                                    \
      OUT_FREE(r_);                                                                           \
      r_ = NULL;                                                                              \
    }                                                                                         \
    return r_;                                                                                \
  }

#define TH_UNARY_IMPL_(NAME, WEIGHT, OUT, OUT_T, OUT_RESIZE, OUT_DATA, OUT_STORE, EXPR)       \
  TH_UNARY_ROW_ATTR static void THTensor_(NAME##Row)(void *ctx, int64_t n, char **data, const int64_t *stride) { \
    (void)ctx;                                                                                \
    TH_ROW_LOOP2(n, data, stride, OUT_T, rp, real, ap, {                                      \
      opreal x = TH_LOAD(*ap);                                                                 \
      *rp = OUT_STORE(EXPR);                                                                  \
    });                                                                                       \
  }                                                                                           \
  int THTensor_(NAME)(OUT * r, THTensor * a) {                                                \
    const char *op = #NAME "()";                                                              \
    THTry(THTensor_(checkBounds)(a, op), -1);                                                 \
    THTry(OUT_RESIZE(r, op, a->nDimension, a->size, (void *)r == (void *)a), -1);             \
    return TH_RUN(op, THTensor_(NAME##Row), NULL, WEIGHT, r, OUT_DATA(r), sizeof(OUT_T), a);  \
  }                                                                                           \
  OUT *THTensor_(NAME##New)(THTensor * a)                                                     \
  TH_NEW_RESULT(OUT, OUT##_NEW, OUT##_FREE, OUT_T, OUT_DATA, NAME, THTensor_(NAME##Row), NULL, \
                WEIGHT, a, NULL, THTensor_(sizeOf)(size_, &ndim_, #NAME "()", a),             \
                THTensor_(NAME)(r_, a))

#define THTensor_NEW THTensor_(newWithSize)
#define THTensor_FREE THTensor_(free)
#define THBoolTensor_NEW THBoolTensor_newWithSize
#define THBoolTensor_FREE THBoolTensor_free
#define TH_UNARY_IMPL(NAME, EXPR)                                                          \
  TH_UNARY_IMPL_(NAME, TH_WEIGHT_MEMORY, THTensor, real, THTensor_(resizeOutput),            \
                 THTensor_(data), TH_STORE, EXPR)
#define TH_TRANSCENDENTAL_IMPL(NAME, EXPR)                                                 \
  TH_UNARY_IMPL_(NAME, TH_WEIGHT_TRANSCENDENTAL, THTensor, real, THTensor_(resizeOutput),    \
                 THTensor_(data), TH_STORE, EXPR)
#define TH_PREDICATE_IMPL(NAME, EXPR)                                                      \
  TH_UNARY_IMPL_(NAME, TH_WEIGHT_MEMORY, THBoolTensor, bool, THBoolTensor_resizeOutput,      \
                 THBoolTensor_data, TH_STORE_Bool, EXPR)

/* ---- binary: r = x op y ------------------------------------------------------------------ */

/* Each binary op has two rows: x op y over two operands, and x op b for a scalar b held in the
 * compute type (the <name>Scalar forms, which run as unary ops with b as the row's constant).
 * Reading b as opreal rather than from a 0-dim tensor of real is what lets a Half or BFloat16
 * op see a Python number unrounded. */
#define TH_BINARY_IMPL_(NAME, OUT, OUT_T, OUT_RESIZE, OUT_DATA, OUT_STORE, EXPR)              \
  static void THTensor_(NAME##Row)(void *ctx, int64_t n, char **data, const int64_t *stride) { \
    int err = 0;                                                                              \
    const int y_is_real = 1;                                                                  \
    (void)y_is_real;                                                                          \
    TH_ROW_LOOP3(n, data, stride, OUT_T, rp, real, ap, real, bp, {                            \
      opreal x = TH_LOAD(*ap), y = TH_LOAD(*bp);                                               \
      *rp = OUT_STORE(EXPR);                                                                  \
    });                                                                                       \
    THMath_report(ctx, err);                                                                  \
  }                                                                                           \
  static void THTensor_(NAME##ScalarRow)(void *ctx, int64_t n, char **data,                   \
                                         const int64_t *stride) {                             \
    int err = 0;                                                                              \
    const int y_is_real = 0;                                                                  \
    (void)y_is_real;                                                                          \
    const opreal y = *(const opreal *)((THMathCtx *)ctx)->extra;                              \
    TH_ROW_LOOP2(n, data, stride, OUT_T, rp, real, ap, {                                      \
      opreal x = TH_LOAD(*ap);                                                                 \
      *rp = OUT_STORE(EXPR);                                                                  \
    });                                                                                       \
    THMath_report(ctx, err);                                                                  \
  }                                                                                           \
  int THTensor_(NAME)(OUT * r, THTensor * a, THTensor * b) {                                  \
    const char *op = #NAME "()";                                                              \
    int64_t size[TH_MAX_DIM];                                                                 \
    int ndim;                                                                                 \
    THTry(THTensor_(broadcastShape)(size, &ndim, op, a, b, NULL), -1);                        \
    THTry(OUT_RESIZE(r, op, ndim, size, (void *)r == (void *)a || (void *)r == (void *)b), -1); \
    return TH_RUN(op, THTensor_(NAME##Row), NULL, TH_WEIGHT_MEMORY, r, OUT_DATA(r),            \
                  sizeof(OUT_T), a, b);                                                       \
  }                                                                                           \
  int THTensor_(NAME##Scalar)(OUT * r, THTensor * a, opreal b) {                              \
    const char *op = #NAME "()";                                                              \
    THTry(THTensor_(checkBounds)(a, op), -1);                                                 \
    THTry(OUT_RESIZE(r, op, a->nDimension, a->size, (void *)r == (void *)a), -1);             \
    return TH_RUN(op, THTensor_(NAME##ScalarRow), &b, TH_WEIGHT_MEMORY, r, OUT_DATA(r),        \
                  sizeof(OUT_T), a);                                                          \
  }                                                                                           \
  OUT *THTensor_(NAME##New)(THTensor * a, THTensor * b)                                       \
  TH_NEW_RESULT(OUT, OUT##_NEW, OUT##_FREE, OUT_T, OUT_DATA, NAME, THTensor_(NAME##Row), NULL, \
                TH_WEIGHT_MEMORY, a, b,                                                       \
                THTensor_(broadcastShape)(size_, &ndim_, #NAME "()", a, b, NULL),             \
                THTensor_(NAME)(r_, a, b))                                                    \
  OUT *THTensor_(NAME##ScalarNew)(THTensor * a, opreal b)                                     \
  TH_NEW_RESULT(OUT, OUT##_NEW, OUT##_FREE, OUT_T, OUT_DATA, NAME, THTensor_(NAME##ScalarRow), \
                &b, TH_WEIGHT_MEMORY, a, NULL,                                                \
                THTensor_(sizeOf)(size_, &ndim_, #NAME "()", a),                              \
                THTensor_(NAME##Scalar)(r_, a, b))

#define TH_BINARY_IMPL(NAME, EXPR) \
  TH_BINARY_IMPL_(NAME, THTensor, real, THTensor_(resizeOutput), THTensor_(data), TH_STORE, EXPR)
#define TH_COMPARE_IMPL(NAME, EXPR)                                                     \
  TH_BINARY_IMPL_(NAME, THBoolTensor, bool, THBoolTensor_resizeOutput, THBoolTensor_data, \
                  TH_STORE_Bool, EXPR)

TH_ALL_BINARY_OPS(TH_BINARY_IMPL)
TH_COMPARE_OPS(TH_COMPARE_IMPL)
TH_ALL_PREDICATE_OPS(TH_PREDICATE_IMPL)

#if defined(TH_REAL_IS_FLOATING)
TH_TRANSCENDENTAL_OPS(TH_TRANSCENDENTAL_IMPL)
TH_ROUNDING_OPS(TH_UNARY_IMPL)
TH_FLOAT_BINARY_OPS(TH_BINARY_IMPL)
TH_GRAD_OPS(TH_BINARY_IMPL)
TH_FLOAT_PREDICATE_OPS(TH_PREDICATE_IMPL)
#endif
#if defined(TH_REAL_IS_INTEGRAL)
TH_INT_BINARY_OPS(TH_BINARY_IMPL)
#endif
#if defined(TH_REAL_IS_INTEGRAL) || defined(TH_REAL_IS_BOOL)
TH_BITWISE_BINARY_OPS(TH_BINARY_IMPL)
#if defined(TH_REAL_IS_BOOL)
TH_UNARY_IMPL(bitwise_not, !x)
#else
TH_UNARY_IMPL(bitwise_not, ~x)
#endif
#endif
#if !defined(TH_REAL_IS_BOOL)
TH_NUMERIC_UNARY_OPS(TH_UNARY_IMPL)
#endif

/* ---- ternary ----------------------------------------------------------------------------- */

#if !defined(TH_REAL_IS_BOOL)
/* The shared prologue of r = f(a, b, c): broadcast shape, output sized (in place allowed). */
static int THTensor_(ternaryOutput)(THTensor *r, const char *op, THTensor *a, THTensor *b,
                                    THTensor *c) {
  int64_t size[TH_MAX_DIM];
  int ndim;
  THTry(THTensor_(broadcastShape)(size, &ndim, op, a, b, c), -1);
  return THTensor_(resizeOutput)(r, op, ndim, size, r == a || r == b || r == c);
}
#endif

#if defined(TH_REAL_IS_FLOATING)
/* The binary ops' derivatives (THMathOps.h): r = f(g, x, y), all three broadcast together. */
#define TH_GRAD2_IMPL(NAME, EXPR)                                                             \
  static void THTensor_(NAME##Row)(void *ctx, int64_t n, char **data, const int64_t *stride) { \
    (void)ctx;                                                                                \
    TH_ROW_LOOP4(n, data, stride, real, rp, real, gp, real, ap, real, bp, {                   \
      opreal g = TH_LOAD(*gp), x = TH_LOAD(*ap), y = TH_LOAD(*bp);                            \
      (void)g;                                                                                \
      (void)x;                                                                                \
      (void)y;                                                                                \
      *rp = TH_STORE(EXPR);                                                                   \
    });                                                                                       \
  }                                                                                           \
  int THTensor_(NAME)(THTensor * r, THTensor * g, THTensor * a, THTensor * b) {               \
    THTry(THTensor_(ternaryOutput)(r, #NAME "()", g, a, b), -1);                              \
    return TH_RUN(#NAME "()", THTensor_(NAME##Row), NULL, TH_WEIGHT_MEMORY, r,                 \
                  THTensor_(data)(r), sizeof(real), g, a, b);                                 \
  }
TH_GRAD2_OPS(TH_GRAD2_IMPL)
#endif

static void THTensor_(whereRow)(void *ctx, int64_t n, char **data, const int64_t *stride) {
  (void)ctx;
  TH_ROW_LOOP4(n, data, stride, real, rp, bool, cp, real, ap, real, bp, *rp = *cp ? *ap : *bp;);
}

int THTensor_(where)(THTensor *r, THBoolTensor *cond, THTensor *a, THTensor *b) {
  const char *op = "where()";
  int64_t size[TH_MAX_DIM], cstride[TH_MAX_DIM], astride[TH_MAX_DIM], bstride[TH_MAX_DIM];
  int ndim;
  THTry(THBoolTensor_checkBounds(cond, op), -1);
  THTry(THTensor_(broadcastShape)(size, &ndim, op, a, b, NULL), -1);
  THTry(THShape_broadcast(size, &ndim, op, ndim, size, cond->nDimension, cond->size), -1);
  THTry(THTensor_(resizeOutput)(r, op, ndim, size, r == a || r == b), -1);
  THTry(THShape_broadcastStrides(cstride, op, ndim, size, cond->nDimension, cond->size,
                                 cond->stride), -1);
  THTry(THShape_broadcastStrides(astride, op, ndim, size, a->nDimension, a->size, a->stride), -1);
  THTry(THShape_broadcastStrides(bstride, op, ndim, size, b->nDimension, b->size, b->stride), -1);
  /* as every pointwise op: an input partially overlapping the output is refused */
  const char *rdata = (const char *)THTensor_(data)(r);
  THTry(THTensor_(checkOverlap)(op, a, ndim, size, r->stride, rdata, sizeof(real)), -1);
  THTry(THTensor_(checkOverlap)(op, b, ndim, size, r->stride, rdata, sizeof(real)), -1);
  THArgCheck(THShape_overlap(ndim, size, rdata, sizeof(real), r->stride,
                             (const char *)THBoolTensor_data(cond), sizeof(bool),
                             cstride) != TH_OVERLAP_PARTIAL,
             TH_ERR_RUNTIME, -1, "%s: unsupported operation: some elements of the input tensor "
             "and the written-to tensor refer to a single memory location; clone() the input "
             "first", op);
  const int64_t *strides[4] = {r->stride, cstride, astride, bstride};
  const int64_t elsize[4] = {sizeof(real), sizeof(bool), sizeof(real), sizeof(real)};
  char *base[4] = {(char *)THTensor_(data)(r), (char *)THBoolTensor_data(cond),
                   (char *)THTensor_(data)(a), (char *)THTensor_(data)(b)};
  THIter it;
  THIter_init(&it, 4, ndim, size, strides, elsize, 0);
  THIter_run(&it, base, THTensor_(whereRow), NULL, TH_WEIGHT_MEMORY);
  return 0;
}

#if !defined(TH_REAL_IS_BOOL)
static void THTensor_(addcmulRow)(void *ctx, int64_t n, char **data, const int64_t *stride) {
  const opreal v = *(const opreal *)((THMathCtx *)ctx)->extra;
  TH_ROW_LOOP4(n, data, stride, real, rp, real, ap, real, xp, real, yp, {
    opreal a = TH_LOAD(*ap), x = TH_LOAD(*xp), y = TH_LOAD(*yp);
    *rp = TH_STORE((opreal)((ureal)a + (ureal)v * (ureal)x * (ureal)y));
  });
}

int THTensor_(addcmul)(THTensor *r, THTensor *a, THTensor *t1, THTensor *t2, opreal value) {
  THTry(THTensor_(ternaryOutput)(r, "addcmul()", a, t1, t2), -1);
  return TH_RUN("addcmul()", THTensor_(addcmulRow), &value, TH_WEIGHT_MEMORY, r,
                THTensor_(data)(r),
                sizeof(real), a, t1, t2);
}

typedef struct {
  int has_lo, has_hi;
  opreal lo, hi;
} THTensor_(ClampBounds);

/* x held to [lo, hi] (a flag off: no bound on that side). A NaN x fails both tests and stays
 * NaN, so with bounds that are numbers the row needs no NaN test: the loop is branch-free and
 * vectorises (the branchy form mispredicted on every other element of random data, ~50x
 * slower). The flags are literals at each loop. */
static inline __attribute__((always_inline)) opreal THTensor_(clampOne)(opreal x, opreal lo,
                                                                       opreal hi,
                                                                       const int has_lo,
                                                                       const int has_hi) {
  if (has_lo) x = x < lo ? lo : x;
  if (has_hi) x = x > hi ? hi : x;
  return x;
}

#define TH_CLAMP_ROW(HAS_LO, HAS_HI)                                                       \
  TH_ROW_LOOP2(n, data, stride, real, rp, real, ap,                                       \
               { *rp = TH_STORE(THTensor_(clampOne)(TH_LOAD(*ap), lo, hi, HAS_LO, HAS_HI)); })

static void THTensor_(clampRow)(void *ctx, int64_t n, char **data, const int64_t *stride) {
  const THTensor_(ClampBounds) *c = ((THMathCtx *)ctx)->extra;
  const opreal lo = c->lo, hi = c->hi;
  if ((c->has_lo && TH_ISNAN(lo)) || (c->has_hi && TH_ISNAN(hi))) {
    /* a NaN bound makes every result NaN, as in PyTorch (a NaN x keeps its own) */
    const opreal nan = c->has_hi && TH_ISNAN(hi) ? hi : lo;
    TH_ROW_LOOP2(n, data, stride, real, rp, real, ap, {
      const opreal x = TH_LOAD(*ap);
      *rp = TH_STORE(TH_ISNAN(x) ? x : nan);
    });
  } else if (c->has_lo && c->has_hi) {
    TH_CLAMP_ROW(1, 1);
  } else if (c->has_lo) {
    TH_CLAMP_ROW(1, 0);
  } else if (c->has_hi) {
    TH_CLAMP_ROW(0, 1);
  } else {
    TH_CLAMP_ROW(0, 0);
  }
}

#undef TH_CLAMP_ROW

int THTensor_(clamp)(THTensor *r, THTensor *a, int has_lo, real lo, int has_hi, real hi) {
  THTensor_(ClampBounds) c = {has_lo, has_hi, TH_LOAD(lo), TH_LOAD(hi)};
  THTry(THTensor_(checkBounds)(a, "clamp()"), -1);
  THTry(THTensor_(resizeOutput)(r, "clamp()", a->nDimension, a->size, r == a), -1);
  return TH_RUN("clamp()", THTensor_(clampRow), &c, TH_WEIGHT_MEMORY, r, THTensor_(data)(r),
                sizeof(real), a);
}
#endif

#if defined(TH_REAL_IS_FLOATING)
/* a + w * (b - a), from whichever end is nearer, so that w = 1 gives b exactly (PyTorch's). */
static inline opreal THTensor_(lerpOne)(opreal a, opreal b, opreal w) {
  return TH_M(fabs)(w) < 0.5 ? a + w * (b - a) : b - (b - a) * (1 - w);
}

static void THTensor_(lerpRow)(void *ctx, int64_t n, char **data, const int64_t *stride) {
  (void)ctx;
  TH_ROW_LOOP4(n, data, stride, real, rp, real, ap, real, bp, real, wp, {
    *rp = TH_STORE(THTensor_(lerpOne)(TH_LOAD(*ap), TH_LOAD(*bp), TH_LOAD(*wp)));
  });
}

static void THTensor_(lerpScalarRow)(void *ctx, int64_t n, char **data, const int64_t *stride) {
  const opreal w = *(const opreal *)((THMathCtx *)ctx)->extra;
  TH_ROW_LOOP3(n, data, stride, real, rp, real, ap, real, bp, {
    *rp = TH_STORE(THTensor_(lerpOne)(TH_LOAD(*ap), TH_LOAD(*bp), w));
  });
}

int THTensor_(lerpScalar)(THTensor *r, THTensor *a, THTensor *b, opreal weight) {
  THTry(THTensor_(ternaryOutput)(r, "lerp()", a, b, NULL), -1);
  return TH_RUN("lerp()", THTensor_(lerpScalarRow), &weight, TH_WEIGHT_MEMORY, r,
                THTensor_(data)(r), sizeof(real), a, b);
}

int THTensor_(lerp)(THTensor *r, THTensor *a, THTensor *b, THTensor *weight) {
  THTry(THTensor_(ternaryOutput)(r, "lerp()", a, b, weight), -1);
  return TH_RUN("lerp()", THTensor_(lerpRow), NULL, TH_WEIGHT_MEMORY, r, THTensor_(data)(r),
                sizeof(real), a, b, weight);
}

static void THTensor_(addcdivRow)(void *ctx, int64_t n, char **data, const int64_t *stride) {
  const opreal v = *(const opreal *)((THMathCtx *)ctx)->extra;
  TH_ROW_LOOP4(n, data, stride, real, rp, real, ap, real, xp, real, yp, {
    *rp = TH_STORE(TH_LOAD(*ap) + v * TH_LOAD(*xp) / TH_LOAD(*yp));
  });
}

int THTensor_(addcdiv)(THTensor *r, THTensor *a, THTensor *t1, THTensor *t2, opreal value) {
  THTry(THTensor_(ternaryOutput)(r, "addcdiv()", a, t1, t2), -1);
  return TH_RUN("addcdiv()", THTensor_(addcdivRow), &value, TH_WEIGHT_MEMORY, r, THTensor_(data)(r),
                sizeof(real), a, t1, t2);
}
#endif

#undef TH_M
#undef TH_ROUND
#undef TH_ISNAN
#undef TH_NEG_P
#undef TH_UNARY_ROW_ATTR
#undef TH_NEW_RESULT
#undef TH_NEW_FLAT
#undef TH_NARGS
#undef THTensor_NEW
#undef THTensor_FREE
#undef THBoolTensor_NEW
#undef THBoolTensor_FREE

#endif
