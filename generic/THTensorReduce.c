#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THTensorReduce.c"
#else

/* Reduction kernels. Each kind of reduction is an accumulator type, an identity, a way to
 * combine two accumulators, a map from an input element (and the per-result value `m` some
 * reductions read, such as var's mean) to an accumulator, and whether combining may chain
 * (see TH_REDUCE_BLOCK_BODY); TH_REDUCE_OP stamps its row function (horizontal / vertical /
 * strided, see lib/THTensorReduce.c), its vertical block function and its init and merge steps.
 * An entry point plans the reduction, runs it into an accumulator buffer and converts the
 * buffer into the result with a finishing row function. */

#if defined(TH_REAL_IS_FLOATING)
#define THSumTensor THTensor
#define THSumTensor_(NAME) THTensor_(NAME)
#define sumreal real
#define TH_SUM_STORE(v) TH_STORE(v)
#define TH_SUM_T double /* what sums and products accumulate in */
#else
#define THSumTensor THLongTensor
#define THSumTensor_(NAME) THLongTensor_##NAME
#define sumreal int64_t
#define TH_SUM_STORE(v) ((int64_t)(v))
#define TH_SUM_T uint64_t /* unsigned: integer sums wrap as PyTorch's do, without UB */
#endif
/* The identities of max and min, in opreal. */
#if defined(TH_REAL_IS_FLOATING)
#define TH_LOWEST (-INFINITY)
#define TH_HIGHEST INFINITY
#elif defined(TH_REAL_IS_BOOL)
#define TH_LOWEST 0u
#define TH_HIGHEST 1u
#elif defined(TH_REAL_IS_BYTE)
#define TH_LOWEST 0
#define TH_HIGHEST UINT8_MAX
#elif defined(TH_REAL_IS_CHAR)
#define TH_LOWEST INT8_MIN
#define TH_HIGHEST INT8_MAX
#elif defined(TH_REAL_IS_SHORT)
#define TH_LOWEST INT16_MIN
#define TH_HIGHEST INT16_MAX
#elif defined(TH_REAL_IS_INT)
#define TH_LOWEST INT32_MIN
#define TH_HIGHEST INT32_MAX
#else
#define TH_LOWEST INT64_MIN
#define TH_HIGHEST INT64_MAX
#endif

/* x != x is the NaN test (constant 0 for integers), and the NaN-propagating max / min combine
 * their tests with `|`, not `||`: branch-free, so the lane loops below vectorise them as a
 * compare and a blend. */
#define TH_ISNAN(x) ((x) != (x))
#define TH_MAXNAN(a, b) ((((a) > (b)) | TH_ISNAN(a)) ? (a) : (b))
#define TH_MINNAN(a, b) ((((a) < (b)) | TH_ISNAN(a)) ? (a) : (b))
#define TH_ADD(a, b) ((a) + (b))
#define TH_MUL(a, b) ((a) * (b))
#define TH_AND(a, b) ((a) & (b))
#define TH_OR(a, b) ((a) | (b))

/* w cells a[0..w) += `rows` rows of x (row r at x + r * rs); M is the per-result operand of
 * cell j. With CHAIN, four rows per pass over the cells (sums: a quarter of the accumulator
 * traffic); without, one (max / min: GCC vectorises one NaN-propagating select per element but
 * not a chain of them). `omp simd` tells the compiler the lanes are independent, which it
 * cannot prove for those selects on its own. */
#define TH_REDUCE_BLOCK_BODY(ACC_T, COMBINE, MAP, M, CHAIN)                                   \
  int64_t r = 0;                                                                              \
  for (; CHAIN && r + 4 <= rows; r += 4, x += 4 * rs) {                                       \
    _Pragma("omp simd")                                                                       \
    for (int64_t j = 0; j < w; j++) {                                                         \
      const accreal m = M;                                                                    \
      (void)m;                                                                                \
      ACC_T v = a[j]; /* a chain, not a tree: nested selects defeat the vectoriser */         \
      v = COMBINE(v, MAP(x[j], m));                                                           \
      v = COMBINE(v, MAP(x[j + rs], m));                                                      \
      v = COMBINE(v, MAP(x[j + 2 * rs], m));                                                  \
      a[j] = COMBINE(v, MAP(x[j + 3 * rs], m));                                               \
    }                                                                                         \
  }                                                                                           \
  for (; r < rows; r++, x += rs) {                                                            \
    _Pragma("omp simd")                                                                       \
    for (int64_t j = 0; j < w; j++) {                                                         \
      const accreal m = M;                                                                    \
      (void)m;                                                                                \
      a[j] = COMBINE(a[j], MAP(x[j], m));                                                     \
    }                                                                                         \
  }

#define TH_REDUCE_OP(NAME, ACC_T, IDENTITY, COMBINE, MAP, CHAIN)                              \
  TH_VECTOR_CLONES static void THTensor_(NAME##Row)(void *ctx, int64_t n, char **data,        \
                                                    const int64_t *stride) {                  \
    const THReduceCtx *c = ctx;                                                               \
    (void)c;                                                                                  \
    ACC_T *acc = (ACC_T *)data[0];                                                            \
    const real *x = (const real *)data[1];                                                    \
    const accreal *aux = (const accreal *)data[2];                                            \
    const int64_t sa = stride[0], sx = stride[1], sm = stride[2];                             \
    (void)sm;                                                                                 \
    if (sa == 0) { /* horizontal: one cell, the row reduced in lanes */                       \
      const accreal m = *aux;                                                                 \
      (void)m;                                                                                \
      ACC_T lane[TH_REDUCE_LANES];                                                            \
      for (int k = 0; k < TH_REDUCE_LANES; k++) lane[k] = IDENTITY;                           \
      int64_t i = 0;                                                                          \
      if (sx == 1) {                                                                          \
        for (; i + TH_REDUCE_LANES <= n; i += TH_REDUCE_LANES) {                              \
          __builtin_prefetch(x + i + 1024); /* measured: a few % on memory-bound rows */      \
          _Pragma("omp simd")                                                                 \
          for (int k = 0; k < TH_REDUCE_LANES; k++) lane[k] = COMBINE(lane[k], MAP(x[i + k], m)); \
        }                                                                                     \
      } else {                                                                                \
        for (; i + TH_REDUCE_LANES <= n; i += TH_REDUCE_LANES) {                              \
          _Pragma("omp simd")                                                                 \
          for (int k = 0; k < TH_REDUCE_LANES; k++)                                           \
            lane[k] = COMBINE(lane[k], MAP(x[(i + k) * sx], m));                              \
        }                                                                                     \
      }                                                                                       \
      for (; i < n; i++) lane[0] = COMBINE(lane[0], MAP(x[i * sx], m));                       \
      ACC_T s = *acc;                                                                         \
      for (int k = 0; k < TH_REDUCE_LANES; k++) s = COMBINE(s, lane[k]);                      \
      *acc = s;                                                                               \
    } else if (sa == 1 && sx == 1) { /* vertical: one input row into a row of cells */        \
      _Pragma("omp simd")                                                                     \
      for (int64_t i = 0; i < n; i++) acc[i] = COMBINE(acc[i], MAP(x[i], aux[i * sm]));       \
    } else {                                                                                  \
      for (int64_t i = 0; i < n; i++)                                                         \
        acc[i * sa] = COMBINE(acc[i * sa], MAP(x[i * sx], aux[i * sm]));                      \
    }                                                                                         \
  }                                                                                           \
  /* vertical blocks: four input rows per pass over a cache-sized run of cells */             \
  TH_VECTOR_CLONES static void THTensor_(NAME##Block)(void *ctx, int64_t n, int64_t rows,     \
                                                      char **data, const int64_t *stride,     \
                                                      const int64_t *rstride) {               \
    const THReduceCtx *c = ctx;                                                               \
    (void)c;                                                                                  \
    const int64_t rs = rstride[1];                                                            \
    for (int64_t j0 = 0; j0 < n; j0 += TH_REDUCE_COLS) {                                      \
      const int64_t w = TH_MIN(TH_REDUCE_COLS, n - j0);                                       \
      ACC_T *a = (ACC_T *)data[0] + j0;                                                       \
      const real *x = (const real *)data[1] + j0;                                             \
      const accreal *aux = (const accreal *)data[2];                                          \
      if (stride[2] == 0) {                                                                   \
        TH_REDUCE_BLOCK_BODY(ACC_T, COMBINE, MAP, *aux, CHAIN)                                \
      } else {                                                                                \
        aux += j0;                                                                            \
        TH_REDUCE_BLOCK_BODY(ACC_T, COMBINE, MAP, aux[j], CHAIN)                              \
      }                                                                                       \
    }                                                                                         \
  }                                                                                           \
  static void THTensor_(NAME##Init)(char *acc, int64_t n) {                                   \
    for (int64_t i = 0; i < n; i++) ((ACC_T *)acc)[i] = IDENTITY;                             \
  }                                                                                           \
  static void THTensor_(NAME##Merge)(char *acc, const char *part, int64_t n) {                \
    ACC_T *a = (ACC_T *)acc;                                                                  \
    const ACC_T *b = (const ACC_T *)part;                                                     \
    for (int64_t i = 0; i < n; i++) a[i] = COMBINE(a[i], b[i]);                               \
  }                                                                                           \
  static const THReduceOp THTensor_(NAME##Op) = {THTensor_(NAME##Row), THTensor_(NAME##Block), \
                                                 THTensor_(NAME##Init), THTensor_(NAME##Merge), \
                                                 sizeof(ACC_T)};

/* The maps: v is an input element, m the per-result operand, c the context. */
#define TH_MAP_SUM(v, m) ((TH_SUM_T)TH_LOAD(v))
#define TH_MAP_NONZERO(v, m) ((uint8_t)(TH_LOAD(v) != 0))
#define TH_MAP_VALUE(v, m) TH_LOAD(v)
#define TH_MAP_ACCVALUE(v, m) ((accreal)TH_LOAD(v))

TH_REDUCE_OP(sum, TH_SUM_T, 0, TH_ADD, TH_MAP_SUM, 1)
TH_REDUCE_OP(prod, TH_SUM_T, 1, TH_MUL, TH_MAP_SUM, 1)
TH_REDUCE_OP(all, uint8_t, 1, TH_AND, TH_MAP_NONZERO, 1)
TH_REDUCE_OP(any, uint8_t, 0, TH_OR, TH_MAP_NONZERO, 1)
TH_REDUCE_OP(amax, opreal, TH_LOWEST, TH_MAXNAN, TH_MAP_VALUE, 0)
TH_REDUCE_OP(amin, opreal, TH_HIGHEST, TH_MINNAN, TH_MAP_VALUE, 0)

#if defined(TH_REAL_IS_FLOATING)
#define TH_MAP_SQDEV(v, m) ((TH_LOAD(v) - (m)) * (TH_LOAD(v) - (m)))
#define TH_MAP_EXPDEV(v, m) exp(TH_LOAD(v) - (m))
#define TH_MAP_SQUARE(v, m) ((double)TH_LOAD(v) * TH_LOAD(v))
#define TH_MAP_ABS(v, m) fabs((double)TH_LOAD(v))
#define TH_MAP_POWABS(v, m) pow(fabs((double)TH_LOAD(v)), c->p)
#define TH_MAP_DEV(v, m) ((double)TH_LOAD(v) - (m))
TH_REDUCE_OP(dev, double, 0, TH_ADD, TH_MAP_DEV, 1)           /* var's first pass */
TH_REDUCE_OP(sqdev, double, 0, TH_ADD, TH_MAP_SQDEV, 1)       /* var's second pass */
TH_REDUCE_OP(expdev, double, 0, TH_ADD, TH_MAP_EXPDEV, 1)     /* logsumexp's second pass */
TH_REDUCE_OP(accmax, double, -INFINITY, TH_MAXNAN, TH_MAP_ACCVALUE, 0)
TH_REDUCE_OP(accmin, double, INFINITY, TH_MINNAN, TH_MAP_ACCVALUE, 0)
TH_REDUCE_OP(norm2, double, 0, TH_ADD, TH_MAP_SQUARE, 1)
TH_REDUCE_OP(norm1, double, 0, TH_ADD, TH_MAP_ABS, 1)
TH_REDUCE_OP(norm0, double, 0, TH_ADD, TH_MAP_NONZERO, 1)
TH_REDUCE_OP(normInf, double, 0, TH_MAXNAN, TH_MAP_ABS, 0)
TH_REDUCE_OP(normNegInf, double, INFINITY, TH_MINNAN, TH_MAP_ABS, 0)
TH_REDUCE_OP(normP, double, 0, TH_ADD, TH_MAP_POWABS, 1)
#endif

/* ---- running the plan ------------------------------------------------------------------- */

/* Reduces a into acc (initialised here) with op; aux, when given, is a result-shaped accreal
 * buffer the row function reads as `m`; with_index adds the phantom position operand. */
static int THTensor_(reduceInto)(const THReduction *p, const THReduceOp *op, THReduceCtx *c,
                                 THTensor *a, char *acc, const accreal *aux, int with_index) {
  static const accreal zero = 0;
  op->init(acc, p->nout);
  const int64_t *strides[4] = {p->accstride, a->stride,
                               aux ? p->accstride : th_zero_strides, p->idxstride};
  const int64_t elsize[4] = {op->accsize, sizeof(real), sizeof(accreal), 1};
  char *base[4] = {acc, (char *)THTensor_(data)(a), (char *)(aux ? aux : &zero),
                   (char *)&th_phantom};
  c->phantom = &th_phantom;
  c->n = p->nred;
  return THReduce_run(p, op, c, with_index ? 4 : 3, base, strides, elsize);
}

/* reduceInto a new accumulator taken from buf (freed again on failure). */
static char *THTensor_(reduceNew)(const THReduction *p, const THReduceOp *op, THReduceCtx *c,
                                  THReduceBuf *buf, THTensor *a, int with_index) {
  char *acc = THReduceBuf_get(buf, p->nout, op->accsize);
  if (acc && THTensor_(reduceInto)(p, op, c, a, acc, NULL, with_index) != 0) {
    THReduceBuf_free(buf);
    return NULL;
  }
  return acc;
}

/* An entry point: check, plan, reduce into a buffer; then (only now that a has been read, so
 * r may be a) size the result and convert the accumulators into it. */
#define TH_REDUCE_BEGIN(OP, A, NDIMS, DIMS, KEEPDIM)                                          \
  THReduction plan;                                                                           \
  THReduceCtx ctx = {0};                                                                      \
  THReduceBuf buf;                                                                            \
  THTry(THTensor_(checkBounds)(A, OP), -1);                                                   \
  THTry(THReduction_init(&plan, OP, (A)->nDimension, (A)->size, NDIMS, DIMS, KEEPDIM), -1);

#define TH_REDUCE_END(OUT_, R, OUT_T, FINISH, ACC, ACCSIZE)                                   \
  if (OUT_(resizeOutput)(R, plan.op, plan.rdim, plan.rsize, 0) != 0) {                        \
    THReduceBuf_free(&buf);                                                                   \
    return -1;                                                                                \
  }                                                                                           \
  THReduce_finish(FINISH, &ctx, &plan, (char *)OUT_(data)(R), (R)->stride, sizeof(OUT_T),     \
                  ACC, ACCSIZE);                                                              \
  THReduceBuf_free(&buf);                                                                     \
  return 0;

/* ---- finishing: accumulators to results --------------------------------------------------- */

#define TH_FINISH_ROW(NAME, OUT_T, ACC_T, EXPR)                                               \
  static void THTensor_(NAME##Finish)(void *ctx, int64_t n, char **data, const int64_t *stride) { \
    const THReduceCtx *c = ctx;                                                               \
    (void)c;                                                                                  \
    TH_ROW_LOOP2(n, data, stride, OUT_T, rp, ACC_T, ap, *rp = (EXPR););                       \
  }

TH_FINISH_ROW(sum, sumreal, TH_SUM_T, TH_SUM_STORE(*ap))
TH_FINISH_ROW(bool, bool, uint8_t, *ap)
TH_FINISH_ROW(value, real, opreal, TH_STORE(*ap))

/* ---- sum, prod, all, any, amax, amin ------------------------------------------------------ */

#define THBoolTensor_(NAME) THBoolTensor_##NAME
#define TH_SIMPLE_REDUCTION(NAME, OUT, OUT_, OUT_T, FINISH, NONEMPTY)                         \
  int THTensor_(NAME)(OUT * r, THTensor * a, int ndims, const int64_t *dims, int keepdim) {   \
    TH_REDUCE_BEGIN(#NAME "()", a, ndims, dims, keepdim)                                      \
    if (NONEMPTY) THTry(THReduction_checkNonEmpty(&plan, ndims, TH_ERR_RUNTIME), -1);         \
    char *acc = THTensor_(reduceNew)(&plan, &THTensor_(NAME##Op), &ctx, &buf, a, 0);          \
    if (!acc) return -1;                                                                      \
    TH_REDUCE_END(OUT_, r, OUT_T, THTensor_(FINISH##Finish), acc, THTensor_(NAME##Op).accsize) \
  }

TH_SIMPLE_REDUCTION(sum, THSumTensor, THSumTensor_, sumreal, sum, 0)
TH_SIMPLE_REDUCTION(prod, THSumTensor, THSumTensor_, sumreal, sum, 0)
TH_SIMPLE_REDUCTION(all, THBoolTensor, THBoolTensor_, bool, bool, 0)
TH_SIMPLE_REDUCTION(any, THBoolTensor, THBoolTensor_, bool, bool, 0)
TH_SIMPLE_REDUCTION(amax, THTensor, THTensor_, real, value, 1)
TH_SIMPLE_REDUCTION(amin, THTensor, THTensor_, real, value, 1)
#undef THBoolTensor_

/* ---- max / min with indices ------------------------------------------------------------------ */

typedef struct THTensor_(ArgAcc) {
  opreal v;
  int64_t i;
} THTensor_(ArgAcc);

/* Whether (x at position ix) beats the best so far (b at ib): NaN beats numbers, then CMP,
 * then the smaller position among equals (the FIRST extreme, whatever the walk's order). */
#define TH_ARG_BETTER(x, ix, b, ib, CMP)                                                      \
  (TH_ISNAN(b) ? (TH_ISNAN(x) && (ix) < (ib))                                                 \
               : (TH_ISNAN(x) || (x)CMP(b) || ((x) == (b) && (ix) < (ib))))

/* The arg-reduction row: operand 3 is the phantom position operand. Horizontal rows with
 * increasing positions go block by block: the block's extreme in vectorised lanes, then a
 * search for its first occurrence only when it can win. */
#define TH_ARG_OP(NAME, IDENTITY, CMP, EXTREME)                                               \
  /* the extreme of x[0..TH_ARG_BLOCK), NaN if there is one */                                \
  static inline opreal THTensor_(NAME##Extreme)(const real *x) {                              \
    opreal lane[TH_REDUCE_LANES];                                                             \
    for (int k = 0; k < TH_REDUCE_LANES; k++) lane[k] = TH_LOAD(x[k]);                        \
    for (int64_t j = TH_REDUCE_LANES; j < TH_ARG_BLOCK; j += TH_REDUCE_LANES) {               \
      _Pragma("omp simd")                                                                     \
      for (int k = 0; k < TH_REDUCE_LANES; k++) lane[k] = EXTREME(lane[k], TH_LOAD(x[j + k])); \
    }                                                                                         \
    opreal m = lane[0];                                                                       \
    for (int k = 1; k < TH_REDUCE_LANES; k++) m = EXTREME(m, lane[k]);                        \
    return m;                                                                                 \
  }                                                                                           \
  TH_VECTOR_CLONES static void THTensor_(NAME##Row)(void *ctx, int64_t n, char **data,        \
                                                    const int64_t *stride) {                  \
    const THReduceCtx *c = ctx;                                                               \
    THTensor_(ArgAcc) *acc = (THTensor_(ArgAcc) *)data[0];                                    \
    const real *x = (const real *)data[1];                                                    \
    const int64_t pos = (int64_t)(data[3] - c->phantom);                                      \
    const int64_t sa = stride[0], sx = stride[1], si = stride[3];                             \
    if (sa != 0) {                                                                            \
      for (int64_t i = 0; i < n; i++) {                                                       \
        THTensor_(ArgAcc) *b = acc + i * sa;                                                  \
        opreal v = TH_LOAD(x[i * sx]);                                                        \
        int64_t ix = pos + i * si;                                                            \
        if (TH_ARG_BETTER(v, ix, b->v, b->i, CMP)) b->v = v, b->i = ix;                       \
      }                                                                                       \
      return;                                                                                 \
    }                                                                                         \
    opreal bv = acc->v;                                                                       \
    int64_t bi = acc->i, i = 0;                                                               \
    if (sx == 1 && si > 0) {                                                                  \
      for (; i + TH_ARG_BLOCK <= n; i += TH_ARG_BLOCK) {                                      \
        const opreal m = THTensor_(NAME##Extreme)(x + i);                                     \
        if (!TH_ARG_BETTER(m, pos + i * si, bv, bi, CMP)) continue;                           \
        for (int64_t j = 0; j < TH_ARG_BLOCK; j++) {                                          \
          opreal v = TH_LOAD(x[i + j]);                                                       \
          const int64_t ix = pos + (i + j) * si;                                              \
          if ((v == m) | (TH_ISNAN(m) & TH_ISNAN(v))) {                                       \
            if (TH_ARG_BETTER(v, ix, bv, bi, CMP)) bv = v, bi = ix;                           \
            break;                                                                            \
          }                                                                                   \
        }                                                                                     \
      }                                                                                       \
    }                                                                                         \
    for (; i < n; i++) {                                                                      \
      opreal v = TH_LOAD(x[i * sx]);                                                          \
      int64_t ix = pos + i * si;                                                              \
      if (TH_ARG_BETTER(v, ix, bv, bi, CMP)) bv = v, bi = ix;                                 \
    }                                                                                         \
    acc->v = bv;                                                                              \
    acc->i = bi;                                                                              \
  }                                                                                           \
  static void THTensor_(NAME##Init)(char *acc, int64_t n) {                                   \
    THTensor_(ArgAcc) *a = (THTensor_(ArgAcc) *)acc;                                          \
    for (int64_t i = 0; i < n; i++) a[i].v = IDENTITY, a[i].i = INT64_MAX;                    \
  }                                                                                           \
  static void THTensor_(NAME##Merge)(char *acc, const char *part, int64_t n) {                \
    THTensor_(ArgAcc) *a = (THTensor_(ArgAcc) *)acc;                                          \
    const THTensor_(ArgAcc) *b = (const THTensor_(ArgAcc) *)part;                             \
    for (int64_t i = 0; i < n; i++)                                                           \
      if (TH_ARG_BETTER(b[i].v, b[i].i, a[i].v, a[i].i, CMP)) a[i] = b[i];                    \
  }                                                                                           \
  static const THReduceOp THTensor_(NAME##Op) = {THTensor_(NAME##Row), NULL,                  \
                                                 THTensor_(NAME##Init), THTensor_(NAME##Merge), \
                                                 sizeof(THTensor_(ArgAcc))};

TH_ARG_OP(argmax, TH_LOWEST, >, TH_MAXNAN)
TH_ARG_OP(argmin, TH_HIGHEST, <, TH_MINNAN)

TH_FINISH_ROW(argValue, real, THTensor_(ArgAcc), TH_STORE(ap->v))
TH_FINISH_ROW(argIndex, int64_t, THTensor_(ArgAcc), ap->i)

/* values and/or indices of the first extreme (see the header); values alone take the faster
 * value-only kernel vop. */
static int THTensor_(extreme)(const char *op, const THReduceOp *rop, const THReduceOp *vop,
                              int whole_kind, THTensor *values, THLongTensor *indices,
                              THTensor *a, int ndims, const int64_t *dims, int keepdim) {
  THArgCheck(values || indices, TH_ERR_VALUE, -1, "%s: neither values nor indices given", op);
  TH_REDUCE_BEGIN(op, a, ndims, dims, keepdim)
  THTry(THReduction_checkNonEmpty(&plan, ndims, whole_kind), -1);
  if (!indices) {
    char *acc = THTensor_(reduceNew)(&plan, vop, &ctx, &buf, a, 0);
    if (!acc) return -1;
    TH_REDUCE_END(THTensor_, values, real, THTensor_(valueFinish), acc, vop->accsize)
  }
  char *acc = THTensor_(reduceNew)(&plan, rop, &ctx, &buf, a, 1);
  if (!acc) return -1;
  if ((values && THTensor_(resizeOutput)(values, op, plan.rdim, plan.rsize, 0) != 0) ||
      THLongTensor_resizeOutput(indices, op, plan.rdim, plan.rsize, 0) != 0) {
    THReduceBuf_free(&buf);
    return -1;
  }
  if (values)
    THReduce_finish(THTensor_(argValueFinish), &ctx, &plan, (char *)THTensor_(data)(values),
                    values->stride, sizeof(real), acc, rop->accsize);
  THReduce_finish(THTensor_(argIndexFinish), &ctx, &plan, (char *)THLongTensor_data(indices),
                  indices->stride, sizeof(int64_t), acc, rop->accsize);
  THReduceBuf_free(&buf);
  return 0;
}

#define TH_EXTREME(NAME, ARG, VALUE, WHOLE_KIND, VALUES, INDICES)                             \
  return THTensor_(extreme)(#NAME "()", &THTensor_(ARG##Op), &THTensor_(VALUE##Op), WHOLE_KIND, \
                            VALUES, INDICES, a, ndims, dims, keepdim);

int THTensor_(max)(THTensor *values, THLongTensor *indices, THTensor *a, int ndims,
                   const int64_t *dims, int keepdim) {
  TH_EXTREME(max, argmax, amax, TH_ERR_RUNTIME, values, indices)
}

int THTensor_(min)(THTensor *values, THLongTensor *indices, THTensor *a, int ndims,
                   const int64_t *dims, int keepdim) {
  TH_EXTREME(min, argmin, amin, TH_ERR_RUNTIME, values, indices)
}

int THTensor_(argmax)(THLongTensor *indices, THTensor *a, int ndims, const int64_t *dims,
                      int keepdim) {
  TH_EXTREME(argmax, argmax, amax, TH_ERR_INDEX, NULL, indices)
}

int THTensor_(argmin)(THLongTensor *indices, THTensor *a, int ndims, const int64_t *dims,
                      int keepdim) {
  TH_EXTREME(argmin, argmin, amin, TH_ERR_INDEX, NULL, indices)
}
#undef TH_EXTREME

/* ---- scans --------------------------------------------------------------------------------- */

/* A scan row: operand 0 is the running value (one cell per line along the dim, stride 0 along
 * it), 1 the input, 2 the result. The walk visits each line in increasing order along the dim
 * whatever the order of the dims, and scans never split a line between threads. */
#define TH_SCAN_OP(NAME, BASE, COMBINE)                                                       \
  TH_VECTOR_CLONES static void THTensor_(NAME##Row)(void *ctx, int64_t n, char **data,        \
                                                    const int64_t *stride) {                  \
    (void)ctx;                                                                                \
    TH_SUM_T *acc = (TH_SUM_T *)data[0];                                                      \
    const real *x = (const real *)data[1];                                                    \
    sumreal *r = (sumreal *)data[2];                                                          \
    const int64_t sa = stride[0], sx = stride[1], sr = stride[2];                             \
    if (sa == 0) {                                                                            \
      TH_SUM_T s = *acc;                                                                      \
      for (int64_t i = 0; i < n; i++) {                                                       \
        s = COMBINE(s, TH_MAP_SUM(x[i * sx], 0));                                             \
        r[i * sr] = TH_SUM_STORE(s);                                                          \
      }                                                                                       \
      *acc = s;                                                                               \
    } else if (sa == 1 && sx == 1 && sr == 1) {                                               \
      _Pragma("omp simd")                                                                     \
      for (int64_t i = 0; i < n; i++) {                                                       \
        acc[i] = COMBINE(acc[i], TH_MAP_SUM(x[i], 0));                                        \
        r[i] = TH_SUM_STORE(acc[i]);                                                          \
      }                                                                                       \
    } else {                                                                                  \
      for (int64_t i = 0; i < n; i++) {                                                       \
        acc[i * sa] = COMBINE(acc[i * sa], TH_MAP_SUM(x[i * sx], 0));                         \
        r[i * sr] = TH_SUM_STORE(acc[i * sa]);                                                \
      }                                                                                       \
    }                                                                                         \
  }                                                                                           \
  static const THReduceOp THTensor_(NAME##Op) = {THTensor_(NAME##Row), NULL,                  \
                                                 THTensor_(BASE##Init), NULL, sizeof(TH_SUM_T)}; \
  int THTensor_(NAME)(THSumTensor * r, THTensor * a, int64_t dim) {                           \
    const char *op = #NAME "()";                                                              \
    THReduction plan;                                                                         \
    THReduceBuf buf;                                                                          \
    THTry(THTensor_(checkBounds)(a, op), -1);                                                 \
    THTry(THReduction_init(&plan, op, a->nDimension, a->size, 1, &dim, 1), -1);               \
    THTry(THSumTensor_(resizeOutput)(r, op, a->nDimension, a->size, (void *)r == (void *)a), -1); \
    char *acc = THReduceBuf_get(&buf, plan.nout, (int64_t)sizeof(TH_SUM_T));                 \
    if (!acc) return -1;                                                                      \
    THTensor_(BASE##Init)(acc, plan.nout);                                                    \
    const int64_t *strides[3] = {plan.accstride, a->stride, r->stride};                       \
    const int64_t elsize[3] = {sizeof(TH_SUM_T), sizeof(real), sizeof(sumreal)};              \
    char *base[3] = {acc, (char *)THTensor_(data)(a), (char *)THSumTensor_(data)(r)};         \
    int status = THReduce_run(&plan, &THTensor_(NAME##Op), NULL, 3, base, strides, elsize);   \
    THReduceBuf_free(&buf);                                                                   \
    return status;                                                                            \
  }

TH_SCAN_OP(cumsum, sum, TH_ADD)
TH_SCAN_OP(cumprod, prod, TH_MUL)

#if defined(TH_REAL_IS_FLOATING)

/* logcumsumexp: the running value starts at -inf and combines by log(exp(s) + exp(x)), which
 * TH_logaddexp (lib/THMath.c) computes without overflow or underflow. */
static void THTensor_(lcseInit)(char *acc, int64_t n) {
  for (int64_t i = 0; i < n; i++) ((TH_SUM_T *)acc)[i] = -INFINITY;
}
TH_SCAN_OP(logcumsumexp, lcse, TH_logaddexp)

/* ---- mean, var, std, norm, logsumexp ----------------------------------------------------- */

/* c->n is the number of elements reduced into each result, c->p the norm's p or var's
 * correction. */
TH_FINISH_ROW(mean, real, double, TH_STORE(*ap / (double)c->n))
TH_FINISH_ROW(var, real, double, TH_STORE(*ap / TH_MAX(0.0, (double)c->n - c->p)))
TH_FINISH_ROW(std, real, double, TH_STORE(sqrt(*ap / TH_MAX(0.0, (double)c->n - c->p))))
TH_FINISH_ROW(sqrt, real, double, TH_STORE(sqrt(*ap)))
TH_FINISH_ROW(root, real, double, TH_STORE(pow(*ap, 1.0 / c->p)))
TH_FINISH_ROW(double, real, double, TH_STORE(*ap))

/* A reduction into a double accumulator, finished into r by `finish` (p: the ctx's p). */
static int THTensor_(reduceDouble)(const char *op, const THReduceOp *rop, THRowFn finish,
                                   double p, THTensor *r, THTensor *a, int ndims,
                                   const int64_t *dims, int keepdim) {
  TH_REDUCE_BEGIN(op, a, ndims, dims, keepdim)
  ctx.p = p;
  char *acc = THTensor_(reduceNew)(&plan, rop, &ctx, &buf, a, 0);
  if (!acc) return -1;
  TH_REDUCE_END(THTensor_, r, real, finish, acc, sizeof(double))
}

int THTensor_(mean)(THTensor *r, THTensor *a, int ndims, const int64_t *dims, int keepdim) {
  return THTensor_(reduceDouble)("mean()", &THTensor_(sumOp), THTensor_(meanFinish), 0, r, a,
                                 ndims, dims, keepdim);
}

int THTensor_(norm)(THTensor *r, THTensor *a, double p, int ndims, const int64_t *dims,
                    int keepdim) {
  const char *op = "norm()";
  if (isinf(p)) { /* max / min |x|: no identity, so no empty reductions */
    THReduction plan;
    THTry(THReduction_init(&plan, op, a->nDimension, a->size, ndims, dims, keepdim), -1);
    THArgCheck(plan.nred > 0 || plan.nout == 0, TH_ERR_RUNTIME, -1,
               "%s: cannot compute the %s norm on an empty tensor because the operation does "
               "not have an identity", op, p > 0 ? "inf" : "-inf");
  }
  const THReduceOp *rop = p == 2 ? &THTensor_(norm2Op)
                          : p == 1 ? &THTensor_(norm1Op)
                          : p == 0 ? &THTensor_(norm0Op)
                          : p == INFINITY ? &THTensor_(normInfOp)
                          : p == -INFINITY ? &THTensor_(normNegInfOp)
                          : &THTensor_(normPOp);
  THRowFn finish = p == 2 ? THTensor_(sqrtFinish)
                   : (p == 1 || p == 0 || isinf(p)) ? THTensor_(doubleFinish)
                   : THTensor_(rootFinish);
  return THTensor_(reduceDouble)(op, rop, finish, p, r, a, ndims, dims, keepdim);
}

/* A two-pass reduction (logsumexp): pass 1 leaves a per-result value in a double buffer (the
 * max), `between` adjusts it, pass 2 reduces with it as operand `m`. Both buffers come from
 * buf: first, then second. */
static int THTensor_(twoPass)(const THReduction *plan, THReduceCtx *ctx, THReduceBuf *buf,
                              THTensor *a, const THReduceOp *op1, const THReduceOp *op2,
                              void (*between)(double *m, int64_t n, int64_t nred)) {
  double *first = (double *)THReduceBuf_get(buf, plan->nout, 2 * (int64_t)sizeof(double));
  if (!first) return -1;
  if (THTensor_(reduceInto)(plan, op1, ctx, a, (char *)first, NULL, 0) != 0) goto fail;
  between(first, plan->nout, plan->nred);
  if (THTensor_(reduceInto)(plan, op2, ctx, a, (char *)(first + plan->nout), first, 0) != 0)
    goto fail;
  return 0;
fail:
  THReduceBuf_free(buf);
  return -1;
}

/* logsumexp subtracts the max, except an infinite one: exp(inf - inf) would be NaN. */
static void THTensor_(toShift)(double *m, int64_t n, int64_t nred) {
  (void)nred;
  for (int64_t i = 0; i < n; i++)
    if (isinf(m[i])) m[i] = 0;
}

/* var and std: a shifted two-pass. Each result's shift k is the first element of its slice;
 * pass 1 sums x - k into the mean m = k + sum(x - k) / n, pass 2 sums (x - m)^2. The sum of
 * deviations from a sample is small and accurate where a plain sum of large values is not (the
 * old plain mean left a 100001-long column of 1e10 + 0.7 a variance of 4e-6, not 0), and a
 * constant slice gives x - k = 0 exactly, so m = x and the variance is exactly 0, as
 * Welford's gives it. */
static void THTensor_(firstOfSlices)(const THReduction *p, THTensor *a, double *k) {
  if (p->nred == 0) { /* an empty slice: no first element (the variance is NaN anyway) */
    for (int64_t i = 0; i < p->nout; i++) k[i] = 0;
    return;
  }
  /* The kept dims in row-major order, as the accumulator's cells: a strided run along the
   * innermost kept dim, an odometer over the others. */
  const real *x = THTensor_(data)(a);
  int inner = -1;
  for (int d = p->ndim - 1; d >= 0 && inner < 0; d--)
    if (!p->reduced[d]) inner = d;
  const int64_t run = inner < 0 ? 1 : p->size[inner];
  const int64_t step = inner < 0 ? 0 : a->stride[inner];
  int64_t idx[TH_MAX_DIM] = {0}, off = 0;
  for (int64_t i = 0; i < p->nout; i += run) {
    for (int64_t j = 0; j < run; j++) k[i + j] = (double)TH_LOAD(x[off + j * step]);
    for (int d = inner - 1; d >= 0; d--) {
      if (p->reduced[d]) continue;
      if (++idx[d] < p->size[d]) {
        off += a->stride[d];
        break;
      }
      off -= (idx[d] - 1) * a->stride[d];
      idx[d] = 0;
    }
  }
}

static int THTensor_(varStd)(const char *op, THRowFn finish, THTensor *r, THTensor *a,
                             int ndims, const int64_t *dims, double correction, int keepdim) {
  TH_REDUCE_BEGIN(op, a, ndims, dims, keepdim)
  double *k = (double *)THReduceBuf_get(&buf, plan.nout, 2 * (int64_t)sizeof(double));
  if (!k) return -1;
  double *m = k + plan.nout;
  THTensor_(firstOfSlices)(&plan, a, k);
  if (THTensor_(reduceInto)(&plan, &THTensor_(devOp), &ctx, a, (char *)m, k, 0) != 0) goto fail;
  for (int64_t i = 0; i < plan.nout; i++) m[i] = k[i] + m[i] / (double)plan.nred;
  if (THTensor_(reduceInto)(&plan, &THTensor_(sqdevOp), &ctx, a, (char *)k, m, 0) != 0)
    goto fail;
  ctx.p = correction;
  TH_REDUCE_END(THTensor_, r, real, finish, (char *)k, sizeof(double))
fail:
  THReduceBuf_free(&buf);
  return -1;
}

int THTensor_(var)(THTensor *r, THTensor *a, int ndims, const int64_t *dims, double correction,
                   int keepdim) {
  return THTensor_(varStd)("var()", THTensor_(varFinish), r, a, ndims, dims, correction,
                           keepdim);
}

int THTensor_(std)(THTensor *r, THTensor *a, int ndims, const int64_t *dims, double correction,
                   int keepdim) {
  return THTensor_(varStd)("std()", THTensor_(stdFinish), r, a, ndims, dims, correction,
                           keepdim);
}

/* r = log(sum) + shift: the sums follow the shifts in the buffer. */
static void THTensor_(lseFinish)(void *ctx, int64_t n, char **data, const int64_t *stride) {
  const int64_t nout = ((const THReduceCtx *)ctx)->n;
  TH_ROW_LOOP2(n, data, stride, real, rp, double, sp, *rp = TH_STORE(log(*sp) + sp[-nout]););
}

int THTensor_(logsumexp)(THTensor *r, THTensor *a, int ndims, const int64_t *dims, int keepdim) {
  TH_REDUCE_BEGIN("logsumexp()", a, ndims, dims, keepdim)
  THTry(THTensor_(twoPass)(&plan, &ctx, &buf, a, &THTensor_(accmaxOp), &THTensor_(expdevOp),
                           THTensor_(toShift)), -1);
  ctx.n = plan.nout; /* lseFinish finds the shifts nout cells before the sums */
  char *sum = buf.data + plan.nout * (int64_t)sizeof(double);
  TH_REDUCE_END(THTensor_, r, real, THTensor_(lseFinish), sum, sizeof(double))
}

/* ---- histc ----------------------------------------------------------------------------------- */

typedef struct THTensor_(Hist) {
  int64_t *counts;
  int64_t bins;
  opreal lo, hi;
} THTensor_(Hist);

/* Rounds to real after each operation, as arithmetic on PyTorch's Half / BFloat16 does. */
#define TH_R(v) TH_LOAD(TH_STORE(v))

/* Bins as PyTorch's histc computes them, in the input's type: a linear position, the top edge
 * in the last bin. */
static void THTensor_(histRow)(void *ctx, int64_t n, char **data, const int64_t *stride) {
  THTensor_(Hist) *h = ctx;
  const real *x = (const real *)data[0];
  const opreal nbins = TH_R(h->bins), range = TH_R(h->hi - h->lo);
  for (int64_t i = 0; i < n; i++) {
    opreal v = TH_LOAD(x[i * stride[0]]);
    if (!(v >= h->lo && v <= h->hi)) continue;
    int64_t pos = (int64_t)TH_R(TH_R(TH_R(v - h->lo) * nbins) / range);
    h->counts[pos < h->bins ? pos : h->bins - 1]++;
  }
}
#undef TH_R

/* The whole-tensor minimum and maximum as doubles (NaN if any element is NaN). */
static int THTensor_(range)(THTensor *a, double *lo, double *hi) {
  THReduction plan;
  THReduceCtx ctx = {0};
  THTry(THReduction_init(&plan, "histc()", a->nDimension, a->size, 0, NULL, 0), -1);
  THTry(THTensor_(reduceInto)(&plan, &THTensor_(accminOp), &ctx, a, (char *)lo, NULL, 0), -1);
  return THTensor_(reduceInto)(&plan, &THTensor_(accmaxOp), &ctx, a, (char *)hi, NULL, 0);
}

int THTensor_(histc)(THTensor *r, THTensor *a, int64_t bins, double min, double max) {
  const char *op = "histc()";
  THArgCheck(bins > 0, TH_ERR_RUNTIME, -1, "%s: bins must be > 0, but got %lld", op,
             (long long)bins);
  THTry(THTensor_(checkBounds)(a, op), -1);
  if (min == max && THTensor_(nElement)(a) > 0) THTry(THTensor_(range)(a, &min, &max), -1);
  if (min == max) {
    min -= 1;
    max += 1;
  }
  THArgCheck(isfinite(min) && isfinite(max), TH_ERR_RUNTIME, -1,
             "%s: range of [%g, %g] is not finite", op, min, max);
  THArgCheck(min < max, TH_ERR_RUNTIME, -1, "%s: max must be larger than min", op);
  THTensor_(Hist) h = {THAllocArray(op, bins, sizeof(int64_t)), bins, TH_LOAD(TH_STORE(min)),
                       TH_LOAD(TH_STORE(max))};
  if (!h.counts) return -1;
  memset(h.counts, 0, (size_t)bins * sizeof(int64_t));
  THIter it;
  const int64_t *strides[1] = {a->stride};
  const int64_t elsize[1] = {sizeof(real)};
  char *base[1] = {(char *)THTensor_(data)(a)};
  THIter_init(&it, 1, a->nDimension, a->size, strides, elsize, 0);
  THIter_run(&it, base, THTensor_(histRow), &h, 0);
  if (THTensor_(resizeOutput)(r, op, 1, &bins, 0) != 0) {
    THFree(h.counts);
    return -1;
  }
  real *rp = THTensor_(data)(r);
  for (int64_t i = 0; i < bins; i++) rp[i * r->stride[0]] = TH_STORE(h.counts[i]);
  THFree(h.counts);
  return 0;
}

#undef TH_MAP_SQDEV
#undef TH_MAP_EXPDEV
#undef TH_MAP_SQUARE
#undef TH_MAP_ABS
#undef TH_MAP_POWABS
#endif

#undef THSumTensor
#undef THSumTensor_
#undef sumreal
#undef TH_SUM_STORE
#undef TH_SUM_T
#undef TH_ISNAN
#undef TH_LOWEST
#undef TH_HIGHEST
#undef TH_MAXNAN
#undef TH_MINNAN
#undef TH_ADD
#undef TH_MUL
#undef TH_AND
#undef TH_OR
#undef TH_REDUCE_OP
#undef TH_REDUCE_BLOCK_BODY
#undef TH_MAP_SUM
#undef TH_MAP_NONZERO
#undef TH_MAP_VALUE
#undef TH_MAP_ACCVALUE
#undef TH_REDUCE_BEGIN
#undef TH_FINISH_ROW
#undef TH_SIMPLE_REDUCTION
#undef TH_ARG_BETTER
#undef TH_ARG_OP
#undef TH_SCAN_OP

#endif
