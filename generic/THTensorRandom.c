#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THTensorRandom.c"
#else

/* Sampling kernels. Every distribution is a row function that turns the generator's draws
 * (THRandom.h) into values of self's type; THTensor_(fillRandom) checks self, takes the
 * generator's lock and runs the row function over self with the iteration engine on the calling
 * thread (parallel = 0: the order of draws, hence the numbers, must not depend on the number of
 * threads). A contiguous self is one flat row, filled in index order, so the same seed gives the
 * same tensor; other layouts are filled in memory order.
 *
 * Per-type constants: TH_RAND_NAME (for messages), TH_RAND_LO / TH_RAND_HI (the integers random_
 * may produce), TH_RAND_DIGITS (significand bits of a floating type: uniform values sit on the
 * 2^-digits grid so they are exact, and random_() defaults to [0, 2^digits]). */

#if defined(TH_REAL_IS_BYTE)
#define TH_RAND_NAME "uint8"
#define TH_RAND_LO 0
#define TH_RAND_HI UINT8_MAX
#elif defined(TH_REAL_IS_CHAR)
#define TH_RAND_NAME "int8"
#define TH_RAND_LO INT8_MIN
#define TH_RAND_HI INT8_MAX
#elif defined(TH_REAL_IS_SHORT)
#define TH_RAND_NAME "int16"
#define TH_RAND_LO INT16_MIN
#define TH_RAND_HI INT16_MAX
#elif defined(TH_REAL_IS_INT)
#define TH_RAND_NAME "int32"
#define TH_RAND_LO INT32_MIN
#define TH_RAND_HI INT32_MAX
#elif defined(TH_REAL_IS_LONG)
#define TH_RAND_NAME "int64"
#define TH_RAND_LO INT64_MIN
#define TH_RAND_HI INT64_MAX
#elif defined(TH_REAL_IS_BOOL)
#define TH_RAND_NAME "bool"
#define TH_RAND_LO 0
#define TH_RAND_HI 1
#elif defined(TH_REAL_IS_FLOAT)
#define TH_RAND_NAME "float32"
#define TH_RAND_DIGITS 24
#define TH_RAND_FMAX FLT_MAX
#elif defined(TH_REAL_IS_DOUBLE)
#define TH_RAND_NAME "float64"
#define TH_RAND_DIGITS 53
#define TH_RAND_FMAX DBL_MAX
#elif defined(TH_REAL_IS_HALF)
#define TH_RAND_NAME "float16"
#define TH_RAND_DIGITS 11
#define TH_RAND_FMAX 65504.0
#elif defined(TH_REAL_IS_BFLOAT16)
#define TH_RAND_NAME "bfloat16"
#define TH_RAND_DIGITS 8
#define TH_RAND_FMAX 3.38953138925153547590e38
#endif

#if defined(TH_REAL_IS_FLOATING)
/* Integers a floating type holds: up to its largest finite value (all of int64 but for half). */
static int THTensor_(randomFits)(int64_t v) { return fabs((double)v) <= TH_RAND_FMAX; }
static const int64_t THTensor_(randomMax) = (int64_t)1 << TH_RAND_DIGITS;
/* Uniform [0, 1) values from generator words: TH_RAND_WORDS outputs per value (53 bits for
 * double, the significand width otherwise); normals from the double or the float stream. */
#if defined(TH_REAL_IS_DOUBLE)
#define TH_RAND_WORDS 2
#define TH_RAND_UNIFORM_AT(w, k)                                                         \
  (((double)((w)[2 * (k)] >> 5) * 67108864.0 + (double)((w)[2 * (k) + 1] >> 6)) *      \
   (1.0 / 9007199254740992.0))
#define TH_RAND_NORMAL(g) th_normal(g)
#else
#define TH_RAND_WORDS 1
#define TH_RAND_UNIFORM_AT(w, k) \
  ((double)((w)[k] >> (32 - TH_RAND_DIGITS)) * (1.0 / (double)(1 << TH_RAND_DIGITS)))
#define TH_RAND_NORMAL(g) th_normal_float(g)
#endif
#else
static int THTensor_(randomFits)(int64_t v) { return v >= TH_RAND_LO && v <= TH_RAND_HI; }
static const int64_t THTensor_(randomMax) = TH_RAND_HI;
#endif

/* Runs fn over self's elements in memory order, holding gen's lock. */
static int THTensor_(fillRandom)(THTensor *self, THGenerator *gen, const char *op, THRowFn fn,
                                 THRandomCtx *ctx) {
  THTry(THTensor_(checkBounds)(self, op), -1);
  THTry(THShape_checkWritable(op, self->nDimension, self->size, self->stride), -1);
  THIter it;
  const int64_t *strides[1] = {self->stride};
  const int64_t elsize[1] = {sizeof(real)};
  char *base[1] = {(char *)THTensor_(data)(self)};
  THIter_init(&it, 1, self->nDimension, self->size, strides, elsize, 0);
  ctx->gen = gen;
  THGenerator_lock(gen);
  THIter_run(&it, base, fn, ctx, 0);
  THGenerator_unlock(gen);
  return 0;
}

/* A row function storing EXPR, a double computed from u (a uniform double in [0, 1), 53 bits)
 * and the parameters a, b, into each element. The uniforms are made a chunk at a time
 * (THRandom_fillUniform): the same numbers as one th_uniform_double() per element, faster. */
#define TH_UNIFORM_ROW(NAME, EXPR)                                                             \
  static void THTensor_(NAME##Row)(void *vctx, int64_t n, char **data, const int64_t *stride) { \
    THRandomCtx *c = vctx;                                                                      \
    const double a = c->a, b = c->b;                                                            \
    (void)a;                                                                                    \
    (void)b;                                                                                    \
    real *x = (real *)data[0];                                                                  \
    const int64_t s = stride[0];                                                                \
    double ubuf[TH_RANDOM_CHUNK / 2];                                                           \
    for (int64_t i = 0; i < n;) {                                                               \
      const int64_t m = TH_MIN(n - i, TH_RANDOM_CHUNK / 2);                                     \
      THRandom_fillUniform(c->gen, ubuf, m);                                                    \
      real *xi = x + i * s;                                                                     \
      for (int64_t k = 0; k < m; k++) {                                                         \
        const double u = ubuf[k];                                                               \
        xi[k * s] = TH_STORE(EXPR);                                                             \
      }                                                                                         \
      i += m;                                                                                   \
    }                                                                                           \
  }

/* A row function storing EXPR (a double computed from the draws of g and the parameters a, b)
 * into each element, one element at a time. */
#define TH_RANDOM_ROW(NAME, EXPR)                                                              \
  static void THTensor_(NAME##Row)(void *vctx, int64_t n, char **data, const int64_t *stride) { \
    THRandomCtx *c = vctx;                                                                      \
    THGenerator *g = c->gen;                                                                    \
    const double a = c->a, b = c->b;                                                            \
    (void)a;                                                                                    \
    (void)b;                                                                                    \
    TH_ROW_LOOP1(n, data, stride, real, rp, *rp = TH_STORE(EXPR););                             \
  }

/* ---- every type ------------------------------------------------------------------------------ */

TH_UNIFORM_ROW(bernoulli, u < a)

int THTensor_(bernoulli)(THTensor *self, THGenerator *gen, double p) {
  THArgCheck(p >= 0 && p <= 1, TH_ERR_RUNTIME, -1,
             "bernoulli_(): expects p to be in [0, 1], but got p=%g", p);
  THRandomCtx ctx = {.a = p};
  return THTensor_(fillRandom)(self, gen, "bernoulli_()", THTensor_(bernoulliRow), &ctx);
}

static void THTensor_(bernoulliTensorRow)(void *vctx, int64_t n, char **data,
                                          const int64_t *stride) {
  THGenerator *g = ((THRandomCtx *)vctx)->gen;
  TH_ROW_LOOP2(n, data, stride, real, rp, double, pp, *rp = TH_STORE(th_uniform_double(g) < *pp););
}

/* Records the first element of a row outside [0, 1] (NaN included) in ctx->a. */
static void THTensor_(probabilityCheckRow)(void *vctx, int64_t n, char **data,
                                           const int64_t *stride) {
  THRandomCtx *c = vctx;
  const double *p = (const double *)data[0];
  for (int64_t i = 0; i < n && !c->bad; i++) {
    double v = p[i * stride[0]];
    if (!(v >= 0 && v <= 1)) {
      c->bad = 1;
      c->a = v;
    }
  }
}

int THTensor_(bernoulliTensor)(THTensor *self, THGenerator *gen, THDoubleTensor *p) {
  const char *op = "bernoulli_()";
  int64_t pstride[TH_MAX_DIM];
  THTry(THTensor_(checkBounds)(self, op), -1);
  THTry(THShape_checkWritable(op, self->nDimension, self->size, self->stride), -1);
  THTry(THDoubleTensor_checkBounds(p, op), -1);
  THTry(THShape_broadcastStrides(pstride, op, self->nDimension, self->size, p->nDimension, p->size,
                                 p->stride), -1);
  THRandomCtx ctx = {.gen = gen};
  THIter it;
  {
    const int64_t *strides[1] = {p->stride};
    const int64_t elsize[1] = {sizeof(double)};
    char *base[1] = {(char *)THDoubleTensor_data(p)};
    THIter_init(&it, 1, p->nDimension, p->size, strides, elsize, 0);
    THIter_run(&it, base, THTensor_(probabilityCheckRow), &ctx, 0);
  }
  THArgCheck(!ctx.bad, TH_ERR_RUNTIME, -1,
             "%s: expects all elements of p to be in [0, 1], but got p=%g", op, ctx.a);
  const int64_t *strides[2] = {self->stride, pstride};
  const int64_t elsize[2] = {sizeof(real), sizeof(double)};
  char *base[2] = {(char *)THTensor_(data)(self), (char *)THDoubleTensor_data(p)};
  THIter_init(&it, 2, self->nDimension, self->size, strides, elsize, 0);
  THGenerator_lock(gen);
  THIter_run(&it, base, THTensor_(bernoulliTensorRow), &ctx, 0);
  THGenerator_unlock(gen);
  return 0;
}

/* Bounded draws as th_bounded64 makes them. Ranges up to 2^32 - 1 (one word per try) take the
 * words a chunk at a time: each word either gives the next element or is rejected, so a chunk of
 * k words never makes more than the k elements still wanted and no word is drawn in vain. */
static void THTensor_(randomRow)(void *vctx, int64_t n, char **data, const int64_t *stride) {
  THRandomCtx *c = vctx;
  THGenerator *g = c->gen;
  const uint64_t from = (uint64_t)c->from, range = c->range;
  real *x = (real *)data[0];
  const int64_t s = stride[0];
  if (range == 0 || range > 0xffffffffu) {
    for (int64_t i = 0; i < n; i++) x[i * s] = TH_STORE((int64_t)(from + th_bounded64(g, range)));
    return;
  }
  const uint32_t r32 = (uint32_t)range, threshold = (uint32_t)(-r32) % r32;
  uint32_t w[TH_RANDOM_CHUNK];
  for (int64_t i = 0; i < n;) {
    const int64_t k = TH_MIN(n - i, TH_RANDOM_CHUNK);
    THRandom_fill32(g, w, k);
    for (int64_t j = 0; j < k; j++) {
      const uint64_t m = (uint64_t)w[j] * r32;
      if ((uint32_t)m < threshold) continue; /* Lemire's rejection */
      x[i * s] = TH_STORE((int64_t)(from + (m >> 32))); /* wraps back into [from, to] */
      i++;
    }
  }
}

/* Integers in [from, last], both already checked to fit the type. */
static int THTensor_(randomRange)(THTensor *self, THGenerator *gen, int64_t from, int64_t last) {
  THRandomCtx ctx = {.from = from, .range = (uint64_t)last - (uint64_t)from + 1u};
  return THTensor_(fillRandom)(self, gen, "random_()", THTensor_(randomRow), &ctx);
}

int THTensor_(random)(THTensor *self, THGenerator *gen) {
  return THTensor_(randomRange)(self, gen, 0, THTensor_(randomMax));
}

int THTensor_(clampedRandom)(THTensor *self, THGenerator *gen, int64_t from, int64_t to) {
  THArgCheck(from < to, TH_ERR_RUNTIME, -1,
             "random_(): expects 'from' to be less than 'to', but got from=%lld >= to=%lld",
             (long long)from, (long long)to);
  THArgCheck(THTensor_(randomFits)(from), TH_ERR_RUNTIME, -1,
             "random_(): from=%lld is out of bounds for %s", (long long)from, TH_RAND_NAME);
  THArgCheck(THTensor_(randomFits)(to - 1), TH_ERR_RUNTIME, -1,
             "random_(): to - 1 = %lld is out of bounds for %s", (long long)(to - 1), TH_RAND_NAME);
  return THTensor_(randomRange)(self, gen, from, to - 1);
}

int THTensor_(randomFrom)(THTensor *self, THGenerator *gen, int64_t from) {
  THArgCheck(from <= THTensor_(randomMax), TH_ERR_RUNTIME, -1,
             "random_(): expects 'from' to be at most %lld for %s, but got from=%lld",
             (long long)THTensor_(randomMax), TH_RAND_NAME, (long long)from);
  THArgCheck(THTensor_(randomFits)(from), TH_ERR_RUNTIME, -1,
             "random_(): from=%lld is out of bounds for %s", (long long)from, TH_RAND_NAME);
  return THTensor_(randomRange)(self, gen, from, THTensor_(randomMax));
}

/* ---- every type but bool ------------------------------------------------------------------ */

#if !defined(TH_REAL_IS_BOOL)

#if defined(TH_REAL_IS_FLOATING)
#define TH_RAND_SATURATE(v) (v)
#else
/* v converted to the type, the largest value for those beyond it (the cast would be undefined). */
static inline real THTensor_(saturate)(double v) {
  return v >= (double)TH_RAND_HI ? (real)TH_RAND_HI : (real)v;
}
#define TH_RAND_SATURATE(v) THTensor_(saturate)(v)
#endif

/* ceil(log(V) / log(1 - p)) with V = 1 - u uniform on (0, 1]; at least 1 (V = 1 would give 0);
 * b holds log1p(-p). Integer types saturate at their maximum. */
TH_UNIFORM_ROW(geometric, TH_RAND_SATURATE(fmax(1.0, ceil(log1p(-u) / b))))

int THTensor_(geometric)(THTensor *self, THGenerator *gen, double p) {
  THArgCheck(p > 0 && p < 1, TH_ERR_RUNTIME, -1,
             "geometric_(): expects p to be in (0, 1), but got p=%g", p);
  THRandomCtx ctx = {.a = p, .b = log1p(-p)};
  return THTensor_(fillRandom)(self, gen, "geometric_()", THTensor_(geometricRow), &ctx);
}

int THTensor_(randperm)(THTensor *self, THGenerator *gen, int64_t n) {
  const char *op = "randperm()";
  THArgCheck(n >= 0, TH_ERR_VALUE, -1, "%s: n must be non-negative, got %lld", op, (long long)n);
  THArgCheck(n == 0 || n - 1 <= THTensor_(randomMax), TH_ERR_RUNTIME, -1,
             "%s: n cannot be greater than %llu for %s", op,
             (unsigned long long)THTensor_(randomMax) + 1u, TH_RAND_NAME);
  THTry(THTensor_(resize)(self, 1, &n), -1);
  THTry(THTensor_(checkBounds)(self, op), -1);
  THTry(THShape_checkWritable(op, self->nDimension, self->size, self->stride), -1);
  real *x = THTensor_(data)(self);
  const int64_t s = self->stride[0];
  for (int64_t i = 0; i < n; i++) x[i * s] = TH_STORE(i);
  /* Fisher-Yates: position i takes one of the i + 1 values still unplaced, uniformly. */
  THGenerator_lock(gen);
  for (int64_t i = n - 1; i > 0; i--) {
    int64_t j = (int64_t)th_bounded64(gen, (uint64_t)i + 1);
    real t = x[i * s];
    x[i * s] = x[j * s];
    x[j * s] = t;
  }
  THGenerator_unlock(gen);
  return 0;
}

#undef TH_RAND_SATURATE
#endif

/* ---- floating types -------------------------------------------------------------------------- */

#if defined(TH_REAL_IS_FLOATING)

/* Both parameters finite and within the type's range; RuntimeError naming op and the field. */
static int THTensor_(checkFinite)(const char *op, const char *name, double v) {
  THArgCheck(isfinite(v) && fabs(v) <= TH_RAND_FMAX, TH_ERR_RUNTIME, -1,
             "%s: %s=%g is out of bounds for %s", op, name, v, TH_RAND_NAME);
  return 0;
}

/* Draws a chunk of words at a time (THRandom_fill32) and converts them in a loop the compiler
 * vectorises; the values are those of one draw per element in order. */
static void THTensor_(uniformRow)(void *vctx, int64_t n, char **data, const int64_t *stride) {
  THRandomCtx *c = vctx;
  const double from = c->a, width = c->b - c->a;
  real *x = (real *)data[0];
  const int64_t s = stride[0];
  uint32_t w[TH_RANDOM_CHUNK];
  for (int64_t i = 0; i < n;) {
    const int64_t m = TH_MIN(n - i, TH_RANDOM_CHUNK / TH_RAND_WORDS);
    THRandom_fill32(c->gen, w, m * TH_RAND_WORDS);
    real *xi = x + i * s;
    if (s == 1) {
      for (int64_t k = 0; k < m; k++) xi[k] = TH_STORE(from + TH_RAND_UNIFORM_AT(w, k) * width);
    } else {
      for (int64_t k = 0; k < m; k++)
        xi[k * s] = TH_STORE(from + TH_RAND_UNIFORM_AT(w, k) * width);
    }
    i += m;
  }
}

int THTensor_(uniform)(THTensor *self, THGenerator *gen, double from, double to) {
  const char *op = "uniform_()";
  THTry(THTensor_(checkFinite)(op, "from", from), -1);
  THTry(THTensor_(checkFinite)(op, "to", to), -1);
  THArgCheck(from <= to, TH_ERR_RUNTIME, -1,
             "%s: expects to return a [from, to) range, but found from=%g > to=%g", op, from, to);
  THArgCheck(isfinite(to - from), TH_ERR_RUNTIME, -1,
             "%s: expects to - from to be finite, but found to - from = %g", op, to - from);
  THRandomCtx ctx = {.a = from, .b = to};
  return THTensor_(fillRandom)(self, gen, op, THTensor_(uniformRow), &ctx);
}

/* Consecutive elements take consecutive normals: the cached value first, then whole Box-Muller
 * pairs, and a last odd element leaves its partner in the cache. This is exactly the sequence
 * of one TH_RAND_NORMAL() per element, without the cache round trip for every other element;
 * the float stream makes its pairs a chunk at a time with THRandom_normalFloatPairs. */
#if defined(TH_REAL_IS_DOUBLE)
static void THTensor_(normalRow)(void *vctx, int64_t n, char **data, const int64_t *stride) {
  THRandomCtx *c = vctx;
  THGenerator *g = c->gen;
  const double mean = c->a, std = c->b;
  real *x = (real *)data[0];
  const int64_t s = stride[0];
  int64_t i = 0;
  if (n > 0 && g->normal_valid) {
    x[0] = TH_STORE(mean + std * th_normal(g));
    i = 1;
  }
  for (; i + 1 < n; i += 2) {
    double z0, z1;
    th_box_muller(g, &z0, &z1);
    x[i * s] = TH_STORE(mean + std * z0);
    x[(i + 1) * s] = TH_STORE(mean + std * z1);
  }
  if (i < n) x[i * s] = TH_STORE(mean + std * th_normal(g));
}
#else
static void THTensor_(normalRow)(void *vctx, int64_t n, char **data, const int64_t *stride) {
  THRandomCtx *c = vctx;
  THGenerator *g = c->gen;
  const float mean = (float)c->a, std = (float)c->b;
  real *x = (real *)data[0];
  const int64_t s = stride[0];
  uint32_t w[TH_RANDOM_CHUNK];
  float z[TH_RANDOM_CHUNK];
  int64_t i = 0;
  if (n > 0 && g->normal_float_valid) {
    x[0] = TH_STORE(mean + std * th_normal_float(g));
    i = 1;
  }
  while (n - i >= 2) {
    const int64_t pairs = TH_MIN((n - i) / 2, TH_RANDOM_CHUNK / 2);
    THRandom_fill32(g, w, 2 * pairs);
    THRandom_normalFloatPairs(w, z, pairs);
    real *xi = x + i * s;
    if (s == 1) {
      for (int64_t k = 0; k < 2 * pairs; k++) xi[k] = TH_STORE(mean + std * z[k]);
    } else {
      for (int64_t k = 0; k < 2 * pairs; k++) xi[k * s] = TH_STORE(mean + std * z[k]);
    }
    i += 2 * pairs;
  }
  if (i < n) x[i * s] = TH_STORE(mean + std * th_normal_float(g));
}
#endif

int THTensor_(normal)(THTensor *self, THGenerator *gen, double mean, double std) {
  THArgCheck(std >= 0, TH_ERR_RUNTIME, -1,
             "normal_(): expects std >= 0.0, but found std %g", std);
  THRandomCtx ctx = {.a = mean, .b = std};
  return THTensor_(fillRandom)(self, gen, "normal_()", THTensor_(normalRow), &ctx);
}

static void THTensor_(normalTensorRow)(void *vctx, int64_t n, char **data, const int64_t *stride) {
  THGenerator *g = ((THRandomCtx *)vctx)->gen;
  TH_ROW_LOOP3(n, data, stride, real, rp, real, mp, real, sp,
               *rp = TH_STORE(TH_LOAD(*mp) + TH_LOAD(*sp) * TH_RAND_NORMAL(g)););
}

/* Flags a row holding a negative (or NaN) std. */
static void THTensor_(stdCheckRow)(void *vctx, int64_t n, char **data, const int64_t *stride) {
  THRandomCtx *c = vctx;
  const real *x = (const real *)data[0];
  for (int64_t i = 0; i < n && !c->bad; i++) {
    double v = TH_LOAD(x[i * stride[0]]);
    if (!(v >= 0)) {
      c->bad = 1;
      c->a = v;
    }
  }
}

int THTensor_(normalTensor)(THTensor *self, THGenerator *gen, THTensor *mean, THTensor *std) {
  const char *op = "normal()";
  int64_t size[TH_MAX_DIM], mstride[TH_MAX_DIM], sstride[TH_MAX_DIM];
  int ndim = 0;
  THTry(THTensor_(checkBounds)(mean, op), -1);
  THTry(THTensor_(checkBounds)(std, op), -1);
  THTry(THShape_broadcast(size, &ndim, op, mean->nDimension, mean->size, std->nDimension,
                          std->size), -1);
  THRandomCtx ctx = {.gen = gen};
  THIter it;
  {
    const int64_t *strides[1] = {std->stride};
    const int64_t elsize[1] = {sizeof(real)};
    char *base[1] = {(char *)THTensor_(data)(std)};
    THIter_init(&it, 1, std->nDimension, std->size, strides, elsize, 0);
    THIter_run(&it, base, THTensor_(stdCheckRow), &ctx, 0);
  }
  THArgCheck(!ctx.bad, TH_ERR_RUNTIME, -1,
             "%s: expects all elements of std >= 0.0, but found std %g", op, ctx.a);
  THTry(THTensor_(resizeOutput)(self, op, ndim, size, self == mean || self == std), -1);
  THTry(THShape_broadcastStrides(mstride, op, ndim, size, mean->nDimension, mean->size,
                                 mean->stride), -1);
  THTry(THShape_broadcastStrides(sstride, op, ndim, size, std->nDimension, std->size,
                                 std->stride), -1);
  const int64_t *strides[3] = {self->stride, mstride, sstride};
  const int64_t elsize[3] = {sizeof(real), sizeof(real), sizeof(real)};
  char *base[3] = {(char *)THTensor_(data)(self), (char *)THTensor_(data)(mean),
                   (char *)THTensor_(data)(std)};
  THIter_init(&it, 3, ndim, size, strides, elsize, 0);
  THGenerator_lock(gen);
  THIter_run(&it, base, THTensor_(normalTensorRow), &ctx, 0);
  THGenerator_unlock(gen);
  return 0;
}

TH_UNIFORM_ROW(exponential, -log1p(-u) / a)

int THTensor_(exponential)(THTensor *self, THGenerator *gen, double lambd) {
  THArgCheck(lambd > 0, TH_ERR_RUNTIME, -1,
             "exponential_(): expects lambda > 0.0, but found lambda=%g", lambd);
  THRandomCtx ctx = {.a = lambd};
  return THTensor_(fillRandom)(self, gen, "exponential_()", THTensor_(exponentialRow), &ctx);
}

/* The inverse CDF: median + sigma * tan(pi * (u - 1/2)). */
TH_UNIFORM_ROW(cauchy, a + b * tan(3.14159265358979323846 * (u - 0.5)))

int THTensor_(cauchy)(THTensor *self, THGenerator *gen, double median, double sigma) {
  THArgCheck(sigma > 0, TH_ERR_RUNTIME, -1,
             "cauchy_(): expects sigma > 0.0, but found sigma=%g", sigma);
  THRandomCtx ctx = {.a = median, .b = sigma};
  return THTensor_(fillRandom)(self, gen, "cauchy_()", THTensor_(cauchyRow), &ctx);
}

TH_RANDOM_ROW(logNormal, exp(a + b * TH_RAND_NORMAL(g)))

int THTensor_(logNormal)(THTensor *self, THGenerator *gen, double mean, double std) {
  THArgCheck(std > 0, TH_ERR_RUNTIME, -1,
             "log_normal_(): expects std > 0.0, but found std=%g", std);
  THRandomCtx ctx = {.a = mean, .b = std};
  return THTensor_(fillRandom)(self, gen, "log_normal_()", THTensor_(logNormalRow), &ctx);
}

/* ---- multinomial ----
 * prob is copied row by row into doubles and checked whole before the first draw. With
 * replacement each sample inverts the row's cumulative sum by binary search. Without
 * replacement every category with weight w > 0 gets the key E / w, E ~ Exp(1): the keys are
 * independent exponentials with rates w, and the order in which they "arrive" (ascending keys)
 * is distributed exactly as drawing categories one after another without replacement, each
 * with probability proportional to its weight among those left. The n_sample smallest keys,
 * in order, are the sample. */

static int THTensor_(multinomialKeyCmp)(const void *x, const void *y) {
  const THMultinomialKey *a = x, *b = y;
  if (a->key != b->key) return a->key < b->key ? -1 : 1;
  return a->index < b->index ? -1 : a->index > b->index;
}

/* Copies prob into w (rows x ncat doubles) and checks every row; 0 if all can be sampled. */
static int THTensor_(multinomialWeights)(double *w, THTensor *prob, int64_t rows, int64_t ncat,
                                         int64_t n_sample, int replacement) {
  const real *p = THTensor_(data)(prob);
  const int64_t rs = prob->nDimension == 2 ? prob->stride[0] : 0;
  const int64_t cs = prob->stride[prob->nDimension - 1];
  for (int64_t r = 0; r < rows; r++) {
    double total = 0;
    int64_t positive = 0;
    for (int64_t k = 0; k < ncat; k++) {
      double v = TH_LOAD(p[r * rs + k * cs]);
      THArgCheck(isfinite(v) && v >= 0, TH_ERR_RUNTIME, -1,
                 "multinomial(): probability tensor contains either `inf`, `nan` or element < 0 "
                 "(found %g)", v);
      w[r * ncat + k] = v;
      total += v;
      positive += v > 0;
    }
    THArgCheck(total > 0, TH_ERR_RUNTIME, -1,
               "multinomial(): invalid multinomial distribution (sum of probabilities <= 0)");
    THArgCheck(replacement || positive >= n_sample, TH_ERR_RUNTIME, -1,
               "multinomial(): invalid multinomial distribution (with replacement=False, not "
               "enough non-zero categories to sample: %lld < %lld samples)", (long long)positive,
               (long long)n_sample);
  }
  return 0;
}

/* With replacement: cum (ncat) is the running sum of w; out receives n_sample indices. */
static void THTensor_(multinomialWith)(int64_t *out, int64_t os, THGenerator *g, const double *w,
                                       double *cum, int64_t ncat, int64_t n_sample) {
  double total = 0;
  int64_t last = 0;
  for (int64_t k = 0; k < ncat; k++) {
    total += w[k];
    cum[k] = total;
    if (w[k] > 0) last = k;
  }
  for (int64_t s = 0; s < n_sample; s++) {
    double u = th_uniform_double(g) * total;
    int64_t lo = 0, hi = ncat; /* the first k with cum[k] > u: never a zero-weight category */
    while (lo < hi) {
      int64_t mid = lo + (hi - lo) / 2;
      if (cum[mid] > u) hi = mid;
      else lo = mid + 1;
    }
    out[s * os] = lo < ncat ? lo : last; /* rounding could leave u >= total */
  }
}

static void THTensor_(multinomialWithout)(int64_t *out, int64_t os, THGenerator *g,
                                          const double *w, THMultinomialKey *keys, int64_t ncat,
                                          int64_t n_sample) {
  int64_t m = 0;
  for (int64_t k = 0; k < ncat; k++) {
    double e = th_standard_exponential(g);
    if (w[k] > 0) keys[m++] = (THMultinomialKey){e / w[k], k};
  }
  if (n_sample == 1) { /* the smallest key alone: a linear scan */
    int64_t best = 0;
    for (int64_t i = 1; i < m; i++)
      if (keys[i].key < keys[best].key) best = i;
    out[0] = keys[best].index;
    return;
  }
  qsort(keys, (size_t)m, sizeof *keys, THTensor_(multinomialKeyCmp));
  for (int64_t s = 0; s < n_sample; s++) out[s * os] = keys[s].index;
}

int THTensor_(multinomial)(THLongTensor *r, THGenerator *gen, THTensor *prob, int64_t n_sample,
                           int replacement) {
  const char *op = "multinomial()";
  THTry(THTensor_(checkBounds)(prob, op), -1);
  THArgCheck(prob->nDimension == 1 || prob->nDimension == 2, TH_ERR_RUNTIME, -1,
             "%s: prob_dist must be 1 or 2 dim, got %d dims", op, prob->nDimension);
  THArgCheck(n_sample > 0, TH_ERR_RUNTIME, -1, "%s: cannot sample n_sample <= 0 samples", op);
  const int two = prob->nDimension == 2;
  const int64_t rows = two ? prob->size[0] : 1, ncat = prob->size[prob->nDimension - 1];
  THArgCheck(replacement || n_sample <= ncat, TH_ERR_RUNTIME, -1,
             "%s: cannot sample n_sample > prob_dist.size(-1) samples without replacement "
             "(%lld > %lld)", op, (long long)n_sample, (long long)ncat);
  int64_t bytes;
  if (THSize_mul(&bytes, rows, ncat) != 0 || THSize_mul(&bytes, bytes, sizeof(double)) != 0) {
    THError_set(TH_ERR_MEMORY, "%s: a probability table of %lld x %lld is too large", op,
                (long long)rows, (long long)ncat);
    return -1;
  }
  double *w = THAlloc((size_t)bytes + 1);
  size_t scratch = (size_t)ncat * (replacement ? sizeof(double) : sizeof(THMultinomialKey)) + 1;
  void *tmp = w ? THAlloc(scratch) : NULL;
  int status = -1;
  if (!tmp) goto done;
  if (THTensor_(multinomialWeights)(w, prob, rows, ncat, n_sample, replacement) != 0) goto done;
  int64_t size[2] = {rows, n_sample};
  if (THLongTensor_resizeOutput(r, op, two ? 2 : 1, two ? size : size + 1, 0) != 0) goto done;
  int64_t *out = THLongTensor_data(r);
  const int64_t rs = two ? r->stride[0] : 0, os = r->stride[r->nDimension - 1];
  THGenerator_lock(gen);
  for (int64_t i = 0; i < rows; i++) {
    if (replacement)
      THTensor_(multinomialWith)(out + i * rs, os, gen, w + i * ncat, tmp, ncat, n_sample);
    else
      THTensor_(multinomialWithout)(out + i * rs, os, gen, w + i * ncat, tmp, ncat, n_sample);
  }
  THGenerator_unlock(gen);
  status = 0;
done:
  THFree(tmp);
  THFree(w);
  return status;
}

#undef TH_RAND_WORDS
#undef TH_RAND_UNIFORM_AT
#undef TH_RAND_NORMAL
#undef TH_RAND_FMAX
#undef TH_RAND_DIGITS
#endif

#undef TH_RANDOM_ROW
#undef TH_UNIFORM_ROW
#undef TH_RAND_NAME
#undef TH_RAND_LO
#undef TH_RAND_HI

#endif
