#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THBlas.c"
#else

#if defined(TH_REAL_IS_FLOAT) || defined(TH_REAL_IS_DOUBLE)
/* ---- Float and Double: OpenBLAS ----------------------------------------------------------- */

#if defined(TH_REAL_IS_FLOAT)
#define TH_CBLAS(NAME) TH_BLAS_SYM(TH_CONCAT_2(cblas_s, NAME))
#else
#define TH_CBLAS(NAME) TH_BLAS_SYM(TH_CONCAT_2(cblas_d, NAME))
#endif

/* One product on the calling thread. */
static void THBlas_(gemmOne)(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int64_t m, int64_t n,
                             int64_t k, real alpha, const real *a, int64_t lda, const real *b,
                             int64_t ldb, real beta, real *c, int64_t ldc) {
  TH_CBLAS(gemm)(CblasColMajor, ta, tb, (blasint)m, (blasint)n, (blasint)k, alpha, a,
                 (blasint)lda, b, (blasint)ldb, beta, c, (blasint)ldc);
}

int THBlas_(gemm)(char transa, char transb, int64_t m, int64_t n, int64_t k, real alpha,
                  const real *a, int64_t lda, const real *b, int64_t ldb, real beta, real *c,
                  int64_t ldc) {
  if (m == 0 || n == 0) return 0;
  const CBLAS_TRANSPOSE ta = THBlas_trans(transa), tb = THBlas_trans(transb);
  THBlasSplit sp;
  const int plan = THBlas_plan(&sp, m, n, k);
  if (plan != TH_GEMM_SLABS) {
    if (plan == TH_GEMM_POOL) THBlas_setNumThreads(sp.nt);
    THBlas_(gemmOne)(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    if (plan == TH_GEMM_POOL) THBlas_setNumThreads(1);
    return 0;
  }
  /* c cut into slabs of rows (sp.rows) or of columns, one product per OpenMP thread: a slab
   * of c's rows takes those rows of op(a) and all of op(b), a slab of columns those columns of
   * op(b) and all of op(a) */
#pragma omp parallel num_threads(sp.nt)
  {
    int64_t lo, hi;
    THBlas_slab(&sp, omp_get_thread_num(), omp_get_num_threads(), &lo, &hi);
    if (lo < hi) {
      if (sp.rows)
        THBlas_(gemmOne)(ta, tb, hi - lo, n, k, alpha,
                         ta == CblasNoTrans ? a + lo : a + lo * lda, lda, b, ldb, beta, c + lo,
                         ldc);
      else
        THBlas_(gemmOne)(ta, tb, m, hi - lo, k, alpha, a, lda,
                         tb == CblasNoTrans ? b + lo * ldb : b + lo, ldb, beta, c + lo * ldc,
                         ldc);
    }
  }
  THParallel_noteTeam();
  return 0;
}

int THBlas_(gemv)(char trans, int64_t m, int64_t n, real alpha, const real *a, int64_t lda,
                  const real *x, int64_t incx, real beta, real *y, int64_t incy) {
  const int64_t len = (trans == 't' || trans == 'T') ? n : m;
  if (len == 0) return 0;
  if (m == 0 || n == 0) { /* an empty product: BLAS would leave y alone, the sum says beta * y */
    THBlas_(scal)(len, beta, y, incy);
    return 0;
  }
  TH_CBLAS(gemv)(CblasColMajor, THBlas_trans(trans), (blasint)m, (blasint)n, alpha, a,
                 (blasint)lda, x, (blasint)incx, beta, y, (blasint)incy);
  return 0;
}

int THBlas_(ger)(int64_t m, int64_t n, real alpha, const real *x, int64_t incx, const real *y,
                 int64_t incy, real *a, int64_t lda) {
  if (m == 0 || n == 0) return 0;
  TH_CBLAS(ger)(CblasColMajor, (blasint)m, (blasint)n, alpha, x, (blasint)incx, y,
                (blasint)incy, a, (blasint)lda);
  return 0;
}

real THBlas_(dot)(int64_t n, const real *x, int64_t incx, const real *y, int64_t incy) {
  return n > 0 ? TH_CBLAS(dot)((blasint)n, x, (blasint)incx, y, (blasint)incy) : 0;
}

void THBlas_(axpy)(int64_t n, real a, const real *x, int64_t incx, real *y, int64_t incy) {
  if (n > 0) TH_CBLAS(axpy)((blasint)n, a, x, (blasint)incx, y, (blasint)incy);
}

void THBlas_(scal)(int64_t n, real a, real *x, int64_t incx) {
  if (n <= 0) return;
  if (a == 0) { /* BLAS scal multiplies (0 * NaN = NaN); scaling by zero means zeroing here */
    for (int64_t i = 0; i < n; i++) x[i * incx] = 0;
    return;
  }
  TH_CBLAS(scal)((blasint)n, a, x, (blasint)incx);
}

#undef TH_CBLAS

#elif !defined(TH_REAL_IS_BOOL)
/* ---- integers, Half, BFloat16: the C kernel --------------------------------------------------
 * Integers accumulate in a wide unsigned type, so sums wrap modulo 2^bits exactly as the
 * element type would (no signed-overflow UB); Half and BFloat16 accumulate in float. */

#if defined(TH_REAL_IS_LONG)
#define TH_ACC uint64_t
#define TH_ACC_LOAD(x) ((uint64_t)(x))
#define TH_ACC_STORE(v) ((real)(v))
#elif defined(TH_REAL_IS_INTEGRAL)
#define TH_ACC uint32_t
#define TH_ACC_LOAD(x) ((uint32_t)(x))
#define TH_ACC_STORE(v) ((real)(v))
#else
#define TH_ACC float
#define TH_ACC_LOAD(x) TH_LOAD(x)
#define TH_ACC_STORE(v) TH_STORE(v)
#endif

/* One MB x NB block of c = alpha * a b + beta * c, over general strides: a(i, l) is
 * a[i*ars + l*acs], and so on. The block accumulates over k in KB-long panels: the panel of a
 * is packed once into a dense accumulator-typed array, then a micro-kernel keeps a 16-row by
 * 4-column tile of sums in registers while it runs down the panel (16 rows of the panel and 4
 * values of b per step). Built for AVX2 and for plain x86-64, picked at run time. */
TH_SIMD_CLONES
static void THBlas_(kernelBlock)(int64_t mb, int64_t nb, int64_t k, TH_ACC alpha, const real *a,
                                 int64_t ars, int64_t acs, const real *b, int64_t brs,
                                 int64_t bcs, TH_ACC beta, real *c, int64_t crs, int64_t ccs) {
  TH_ACC acc[TH_GEMM_NB][TH_GEMM_MB];
  TH_ACC panel[TH_GEMM_KB][TH_GEMM_MB];
  const int keep = beta != 0;
  const int64_t mpad = (mb + 15) / 16 * 16; /* the panel's rows past mb are zero */
  for (int64_t j = 0; j < nb; j++)
    for (int64_t i = 0; i < mpad; i++) acc[j][i] = 0;
  for (int64_t l0 = 0; l0 < k; l0 += TH_GEMM_KB) {
    const int64_t kb = TH_MIN(TH_GEMM_KB, k - l0);
    for (int64_t l = 0; l < kb; l++) {
      const real *al = a + (l0 + l) * acs;
      int64_t i = 0;
      for (; i < mb; i++) panel[l][i] = TH_ACC_LOAD(al[i * ars]);
      for (; i < mpad; i++) panel[l][i] = 0;
    }
    int64_t j = 0;
    for (; j + 4 <= nb; j += 4) {
      const real *b0 = b + l0 * brs + j * bcs;
      for (int64_t i0 = 0; i0 < mpad; i0 += 16) {
        TH_ACC t0[16], t1[16], t2[16], t3[16];
        for (int i = 0; i < 16; i++)
          t0[i] = acc[j][i0 + i], t1[i] = acc[j + 1][i0 + i], t2[i] = acc[j + 2][i0 + i],
          t3[i] = acc[j + 3][i0 + i];
        for (int64_t l = 0; l < kb; l++) {
          const real *bl = b0 + l * brs;
          const TH_ACC v0 = TH_ACC_LOAD(bl[0]), v1 = TH_ACC_LOAD(bl[bcs]);
          const TH_ACC v2 = TH_ACC_LOAD(bl[2 * bcs]), v3 = TH_ACC_LOAD(bl[3 * bcs]);
          const TH_ACC *p = panel[l] + i0;
          for (int i = 0; i < 16; i++) {
            t0[i] += p[i] * v0;
            t1[i] += p[i] * v1;
            t2[i] += p[i] * v2;
            t3[i] += p[i] * v3;
          }
        }
        for (int i = 0; i < 16; i++)
          acc[j][i0 + i] = t0[i], acc[j + 1][i0 + i] = t1[i], acc[j + 2][i0 + i] = t2[i],
          acc[j + 3][i0 + i] = t3[i];
      }
    }
    for (; j < nb; j++) { /* the last columns, one at a time */
      const real *bj = b + l0 * brs + j * bcs;
      for (int64_t l = 0; l < kb; l++) {
        const TH_ACC v = TH_ACC_LOAD(bj[l * brs]);
        for (int64_t i = 0; i < mpad; i++) acc[j][i] += panel[l][i] * v;
      }
    }
  }
  for (int64_t j = 0; j < nb; j++) {
    real *cj = c + j * ccs;
    for (int64_t i = 0; i < mb; i++) {
      TH_ACC v = alpha * acc[j][i];
      if (keep) v += beta * TH_ACC_LOAD(cj[i * crs]);
      cj[i * crs] = TH_ACC_STORE(v);
    }
  }
}

/* c (m x n) = alpha * a b + beta * c: the result cut into MB x NB blocks, one task each
 * (OpenMP above a work threshold). beta == 0 never reads c. */
static void THBlas_(kernel)(int64_t m, int64_t n, int64_t k, TH_ACC alpha, const real *a,
                            int64_t ars, int64_t acs, const real *b, int64_t brs, int64_t bcs,
                            TH_ACC beta, real *c, int64_t crs, int64_t ccs) {
  const int64_t nib = (m + TH_GEMM_MB - 1) / TH_GEMM_MB, njb = (n + TH_GEMM_NB - 1) / TH_GEMM_NB;
  const int parallel = (double)m * (double)n * (double)k >= TH_GEMM_PARALLEL_WORK && nib * njb > 1;
#pragma omp parallel for schedule(dynamic, 1) if (parallel)
  for (int64_t blk = 0; blk < nib * njb; blk++) {
    const int64_t i0 = (blk % nib) * TH_GEMM_MB, j0 = (blk / nib) * TH_GEMM_NB;
    THBlas_(kernelBlock)(TH_MIN(TH_GEMM_MB, m - i0), TH_MIN(TH_GEMM_NB, n - j0), k, alpha,
                         a + i0 * ars, ars, acs, b + j0 * bcs, brs, bcs, beta,
                         c + i0 * crs + j0 * ccs, crs, ccs);
  }
}

#if defined(TH_REAL_IS_REDUCED)
/* Half / BFloat16 gemm: op(a), op(b) and c widen to float, sgemm runs, c rounds back once. */

/* The rows x cols column-major matrix x (leading dim ld) as a dense float copy (ld = rows). */
static float *THBlas_(widen)(const real *x, int64_t rows, int64_t cols, int64_t ld) {
  float *f = THAlloc(sizeof(float) * (size_t)(rows * cols));
  if (!f) return NULL;
  for (int64_t j = 0; j < cols; j++)
    for (int64_t i = 0; i < rows; i++) f[i + j * rows] = TH_LOAD(x[i + j * ld]);
  return f;
}

int THBlas_(gemm)(char transa, char transb, int64_t m, int64_t n, int64_t k, real alpha,
                  const real *a, int64_t lda, const real *b, int64_t ldb, real beta, real *c,
                  int64_t ldc) {
  if (m == 0 || n == 0) return 0;
  const int ta = transa == 't' || transa == 'T', tb = transb == 't' || transb == 'T';
  const int64_t ar = ta ? k : m, ac = ta ? m : k, br = tb ? n : k, bc = tb ? k : n;
  const float fbeta = TH_LOAD(beta);
  float *fa = THBlas_(widen)(a, ar, ac, lda);
  float *fb = fa ? THBlas_(widen)(b, br, bc, ldb) : NULL;
  float *fc = fb ? (fbeta != 0 ? THBlas_(widen)(c, m, n, ldc)
                               : THAlloc(sizeof(float) * (size_t)(m * n)))
                 : NULL;
  if (fc) {
    THFloatBlas_gemm(transa, transb, m, n, k, TH_LOAD(alpha), fa, TH_MAX(ar, 1), fb,
                     TH_MAX(br, 1), fbeta, fc, m);
    for (int64_t j = 0; j < n; j++)
      for (int64_t i = 0; i < m; i++) c[i + j * ldc] = TH_STORE(fc[i + j * m]);
  }
  THFree(fa);
  THFree(fb);
  THFree(fc);
  return fc ? 0 : -1;
}
#else
int THBlas_(gemm)(char transa, char transb, int64_t m, int64_t n, int64_t k, real alpha,
                  const real *a, int64_t lda, const real *b, int64_t ldb, real beta, real *c,
                  int64_t ldc) {
  const int ta = transa == 't' || transa == 'T', tb = transb == 't' || transb == 'T';
  THBlas_(kernel)(m, n, k, TH_ACC_LOAD(alpha), a, ta ? lda : 1, ta ? 1 : lda, b, tb ? ldb : 1,
                  tb ? 1 : ldb, TH_ACC_LOAD(beta), c, 1, ldc);
  return 0;
}
#endif

int THBlas_(gemv)(char trans, int64_t m, int64_t n, real alpha, const real *a, int64_t lda,
                  const real *x, int64_t incx, real beta, real *y, int64_t incy) {
  const int t = trans == 't' || trans == 'T';
  /* y (len) = op(a) (len x inner) x: a gemm with one column */
  const int64_t len = t ? n : m, inner = t ? m : n;
  THBlas_(kernel)(len, 1, inner, TH_ACC_LOAD(alpha), a, t ? lda : 1, t ? 1 : lda, x, incx, 0,
                  TH_ACC_LOAD(beta), y, incy, 0);
  return 0;
}

int THBlas_(ger)(int64_t m, int64_t n, real alpha, const real *x, int64_t incx, const real *y,
                 int64_t incy, real *a, int64_t lda) {
  /* a += alpha * x y^T: a gemm with k = 1 and beta = 1 */
  THBlas_(kernel)(m, n, 1, TH_ACC_LOAD(alpha), x, incx, 0, y, 0, incy, (TH_ACC)1, a, 1, lda);
  return 0;
}

real THBlas_(dot)(int64_t n, const real *x, int64_t incx, const real *y, int64_t incy) {
  TH_ACC sum = 0;
  for (int64_t i = 0; i < n; i++) sum += TH_ACC_LOAD(x[i * incx]) * TH_ACC_LOAD(y[i * incy]);
  return TH_ACC_STORE(sum);
}

void THBlas_(axpy)(int64_t n, real a, const real *x, int64_t incx, real *y, int64_t incy) {
  const TH_ACC av = TH_ACC_LOAD(a);
  for (int64_t i = 0; i < n; i++)
    y[i * incy] = TH_ACC_STORE(TH_ACC_LOAD(y[i * incy]) + av * TH_ACC_LOAD(x[i * incx]));
}

void THBlas_(scal)(int64_t n, real a, real *x, int64_t incx) {
  const TH_ACC av = TH_ACC_LOAD(a);
  for (int64_t i = 0; i < n; i++)
    x[i * incx] = av == 0 ? TH_ACC_STORE(0) : TH_ACC_STORE(av * TH_ACC_LOAD(x[i * incx]));
}

#undef TH_ACC
#undef TH_ACC_LOAD
#undef TH_ACC_STORE
#endif

#endif
