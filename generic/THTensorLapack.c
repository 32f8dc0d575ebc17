#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THTensorLapack.c"
#else

/* Every function here follows one pattern:
 *   1. check the batch of matrices (THTensor_(matrixDims)): rows, cols, batch count;
 *   2. copy the input into a column-major working tensor (LAPACK overwrites its input, and reads
 *      only column-major matrices), matrices consecutive so matrix i starts at i * rows * cols;
 *   3. ask LAPACK for its workspace size once (lwork = -1), allocate it once per thread;
 *   4. run the routine on each matrix, recording its info; a batch with enough work is shared
 *      out between OpenMP threads, each running single-threaded LAPACK on its matrices
 *      (THLapack_batchThreads);
 *   5. hand the working tensor over as an output (THTensor_(set)) or copy the part wanted.
 * Every exit frees what the function took. */

/* Rows, cols and batch count of a (..., rows, cols); square asks rows == cols. */
static int THTensor_(matrixDims)(const char *op, THTensor *a, int square, int64_t *rows,
                                 int64_t *cols, int64_t *nbatch) {
  THTry(THTensor_(checkBounds)(a, op), -1);
  const int nd = a->nDimension;
  THArgCheck(nd >= 2, TH_ERR_RUNTIME, -1,
             "%s: The input tensor A must have at least 2 dimensions.", op);
  *rows = a->size[nd - 2], *cols = a->size[nd - 1];
  THArgCheck(!square || *rows == *cols, TH_ERR_RUNTIME, -1,
             "%s: A must be batches of square matrices, but they are %lld by %lld matrices", op,
             (long long)*rows, (long long)*cols);
  THArgCheck(*rows <= INT_MAX / 2 && *cols <= INT_MAX / 2, TH_ERR_RUNTIME, -1,
             "%s: %lld x %lld matrices exceed LAPACK's 32-bit sizes", op, (long long)*rows,
             (long long)*cols);
  *nbatch = 1;
  for (int d = 0; d < nd - 2; d++) *nbatch *= a->size[d];
  return 0;
}

/* r becomes a (bsize..., rows, cols) tensor of consecutive column-major matrices. */
static int THTensor_(resizeColumnMajor)(THTensor *r, int nb, const int64_t *bsize, int64_t rows,
                                        int64_t cols) {
  int64_t size[TH_MAX_DIM], stride[TH_MAX_DIM], run = rows * cols;
  for (int d = nb - 1; d >= 0; d--) {
    size[d] = bsize[d];
    stride[d] = run;
    run *= bsize[d];
  }
  size[nb] = rows, size[nb + 1] = cols;
  stride[nb] = 1, stride[nb + 1] = TH_MAX(rows, 1);
  return THTensor_(setStorage)(r, r->storage, r->storageOffset, nb + 2, size, stride);
}

/* A column-major working copy of a (..., rows, cols). */
static THTensor *THTensor_(newColumnMajor)(THTensor *a) {
  THTensor *c = THTensor_(new)();
  if (!c) return NULL;
  const int nd = a->nDimension;
  if (THTensor_(resizeColumnMajor)(c, nd - 2, a->size, a->size[nd - 2], a->size[nd - 1]) != 0 ||
      THTensor_(copy)(c, a) != 0) {
    THTensor_(free)(c);
    return NULL;
  }
  return c;
}

static int THTensor_(allFinite)(const real *p, int64_t n) {
  for (int64_t i = 0; i < n; i++)
    if (!isfinite(p[i])) return 0;
  return 1;
}

/* LAPACK's workspace answer (a real holding a count) as an allocation size. */
static int THTensor_(lworkOf)(real query) { return TH_MAX((int)query, 1); }

/* The batch shape of a (..., rows, cols) as the shape of a per-matrix output (info, det). */
#define TH_BATCH(A) ((A)->nDimension - 2), (A)->size

int THTensor_(linalgSolve)(THTensor *x, THIntTensor *info, THTensor *a, THTensor *b) {
  const char *op = "linalg.solve";
  int64_t n, cols, nbatch;
  THTry(THTensor_(matrixDims)(op, a, 1, &n, &cols, &nbatch), -1);
  THTry(THTensor_(checkBounds)(b, op), -1);
  const int nd = a->nDimension;
  int same = b->nDimension == nd && b->size[nd - 2] == n;
  for (int d = 0; same && d < nd - 2; d++) same = b->size[d] == a->size[d];
  if (!same) {
    char bs[TH_SIZE_STR_LEN];
    THError_set(TH_ERR_RUNTIME,
                "%s: Incompatible shapes of A and B for the equation AX = B (%lldx%lld and %s)", op,
                (long long)n, (long long)n, THSize_str(bs, sizeof bs, b->nDimension, b->size));
    return -1;
  }
  const int64_t k = b->size[nd - 1];
  THTensor *lu = THTensor_(newColumnMajor)(a);
  const int nt = THLapack_batchThreads(nbatch, n, n), ld = (int)TH_MAX(n, 1);
  int *ipiv = lu ? THAlloc(sizeof(int) * (size_t)ld * (size_t)nt) : NULL;
  int status = ipiv ? 0 : -1;
  if (status == 0) status = THTensor_(resizeColumnMajor)(x, nd - 2, b->size, n, k);
  if (status == 0) status = THTensor_(copy)(x, b);
  if (status == 0) status = THIntTensor_resize(info, TH_BATCH(a));
  if (status == 0) {
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1) if (nt > 1)
    for (int64_t i = 0; i < nbatch; i++)
      THLapack_(gesv)((int)n, (int)k, THTensor_(data)(lu) + i * n * n, ld,
                      ipiv + omp_get_thread_num() * ld, THTensor_(data)(x) + i * n * k, ld,
                      THIntTensor_data(info) + i);
  }
  THFree(ipiv);
  if (lu) THTensor_(free)(lu);
  return status;
}

int THTensor_(linalgInv)(THTensor *r, THIntTensor *info, THTensor *a) {
  const char *op = "linalg.inv";
  int64_t n, cols, nbatch;
  THTry(THTensor_(matrixDims)(op, a, 1, &n, &cols, &nbatch), -1);
  const int lda = (int)TH_MAX(n, 1);
  THTry(THTensor_(resizeColumnMajor)(r, TH_BATCH(a), n, n), -1);
  THTry(THTensor_(copy)(r, a), -1);
  THTry(THIntTensor_resize(info, TH_BATCH(a)), -1);
  real query = 0;
  int qinfo = 0;
  const int nt = THLapack_batchThreads(nbatch, n, n);
  int *ipiv = THAlloc(sizeof(int) * (size_t)lda * (size_t)nt);
  if (!ipiv) return -1;
  THLapack_(getri)((int)n, THTensor_(data)(r), lda, ipiv, &query, -1, &qinfo);
  const int lwork = THTensor_(lworkOf)(query);
  real *work = THAlloc(sizeof(real) * (size_t)lwork * (size_t)nt);
  if (work) {
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1) if (nt > 1)
    for (int64_t i = 0; i < nbatch; i++) {
      const int t = omp_get_thread_num();
      real *m = THTensor_(data)(r) + i * n * n;
      int *inf = THIntTensor_data(info) + i;
      THLapack_(getrf)((int)n, (int)n, m, lda, ipiv + t * lda, inf);
      if (*inf == 0) THLapack_(getri)((int)n, m, lda, ipiv + t * lda, work + t * lwork, lwork, inf);
    }
  }
  THFree(ipiv);
  THFree(work);
  return work ? 0 : -1;
}

int THTensor_(linalgDet)(THTensor *det, THTensor *sign, THTensor *logabsdet, THTensor *a) {
  const char *op = "linalg.det";
  int64_t n, cols, nbatch;
  THTry(THTensor_(matrixDims)(op, a, 1, &n, &cols, &nbatch), -1);
  THTensor *out[3] = {det, sign, logabsdet};
  for (int j = 0; j < 3; j++)
    if (out[j]) THTry(THTensor_(resize)(out[j], TH_BATCH(a)), -1);
  THTensor *lu = THTensor_(newColumnMajor)(a);
  const int nt = THLapack_batchThreads(nbatch, n, n), ld = (int)TH_MAX(n, 1);
  int *ipiv_all = lu ? THAlloc(sizeof(int) * (size_t)ld * (size_t)nt) : NULL;
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1) if (nt > 1)
  for (int64_t i = 0; i < (ipiv_all ? nbatch : 0); i++) {
    real *m = THTensor_(data)(lu) + i * n * n;
    int *ipiv = ipiv_all + omp_get_thread_num() * ld, inf;
    THLapack_(getrf)((int)n, (int)n, m, ld, ipiv, &inf);
    /* det = (-1)^(row swaps) * prod(diag(U)); a zero pivot (inf > 0) makes it 0 */
    double prod = 1, sgn = 1, logabs = 0;
    for (int64_t j = 0; j < n; j++) {
      const double d = m[j + j * n];
      const double sd = d > 0 ? 1 : d < 0 ? -1 : d == 0 ? 0 : d;
      const double flip = ipiv[j] != j + 1 ? -1 : 1;
      prod *= d * flip;
      sgn *= sd * flip;
      logabs += log(fabs(d));
    }
    if (det) THTensor_(data)(det)[i] = (real)prod;
    if (sign) THTensor_(data)(sign)[i] = (real)sgn;
    if (logabsdet) THTensor_(data)(logabsdet)[i] = (real)logabs;
  }
  const int status = ipiv_all ? 0 : -1;
  THFree(ipiv_all);
  if (lu) THTensor_(free)(lu);
  return status;
}

/* Zeroes the triangle of the column-major n x n matrix m that the factor does not use. */
static void THTensor_(zeroTriangle)(real *m, int64_t n, int keep_upper) {
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < n; i++)
      if (keep_upper ? i > j : i < j) m[i + j * n] = 0;
}

int THTensor_(linalgCholesky)(THTensor *r, THIntTensor *info, THTensor *a, int upper) {
  const char *op = "linalg.cholesky";
  int64_t n, cols, nbatch;
  THTry(THTensor_(matrixDims)(op, a, 1, &n, &cols, &nbatch), -1);
  THTry(THTensor_(resizeColumnMajor)(r, TH_BATCH(a), n, n), -1);
  THTry(THTensor_(copy)(r, a), -1);
  THTry(THIntTensor_resize(info, TH_BATCH(a)), -1);
  const int nt = THLapack_batchThreads(nbatch, n, n);
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1) if (nt > 1)
  for (int64_t i = 0; i < nbatch; i++) {
    real *m = THTensor_(data)(r) + i * n * n;
    THLapack_(potrf)(upper ? 'U' : 'L', (int)n, m, (int)TH_MAX(n, 1), THIntTensor_data(info) + i);
    THTensor_(zeroTriangle)(m, n, upper);
  }
  return 0;
}

int THTensor_(choleskySolve)(THTensor *x, THTensor *b, THTensor *l, int upper) {
  const char *op = "cholesky_solve";
  int64_t n, cols, nbatch;
  THTry(THTensor_(matrixDims)(op, l, 1, &n, &cols, &nbatch), -1);
  THTry(THTensor_(checkBounds)(b, op), -1);
  const int nd = l->nDimension;
  int same = b->nDimension == nd && b->size[nd - 2] == n;
  for (int d = 0; same && d < nd - 2; d++) same = b->size[d] == l->size[d];
  THArgCheck(same, TH_ERR_RUNTIME, -1, "%s: b and the factor have incompatible shapes", op);
  const int64_t k = b->size[nd - 1];
  THTensor *f = THTensor_(newColumnMajor)(l);
  int status = f ? 0 : -1;
  if (status == 0) status = THTensor_(resizeColumnMajor)(x, nd - 2, b->size, n, k);
  if (status == 0) status = THTensor_(copy)(x, b);
  for (int64_t i = 0; status == 0 && i < nbatch; i++) {
    int inf;
    THLapack_(potrs)(upper ? 'U' : 'L', (int)n, (int)k, THTensor_(data)(f) + i * n * n,
                     (int)TH_MAX(n, 1), THTensor_(data)(x) + i * n * k, (int)TH_MAX(n, 1), &inf);
  }
  if (f) THTensor_(free)(f);
  return status;
}

int THTensor_(linalgQr)(THTensor *q, THTensor *r, THTensor *a, int mode) {
  const char *op = "linalg.qr";
  int64_t m, n, nbatch;
  THTry(THTensor_(matrixDims)(op, a, 0, &m, &n, &nbatch), -1);
  THArgCheck(mode == TH_QR_REDUCED || mode == TH_QR_COMPLETE || mode == TH_QR_R, TH_ERR_RUNTIME,
             -1, "%s: unknown mode %d", op, mode);
  const int64_t k = TH_MIN(m, n), rrows = mode == TH_QR_COMPLETE ? m : k;
  const int64_t qcols = mode == TH_QR_COMPLETE ? m : k;
  const int lda = (int)TH_MAX(m, 1);
  THTry(THTensor_(resizeColumnMajor)(r, TH_BATCH(a), rrows, n), -1);
  if (mode == TH_QR_R) {
    const int64_t empty[1] = {0};
    THTry(THTensor_(resize)(q, 1, empty), -1);
  } else {
    THTry(THTensor_(resizeColumnMajor)(q, TH_BATCH(a), m, qcols), -1);
  }
  THTensor *w = THTensor_(newColumnMajor)(a);
  if (!w) return -1;
  const int nt = THLapack_batchThreads(nbatch, m, n);
  const int64_t ntau = TH_MAX(k, 1);
  real *tau = THAlloc(sizeof(real) * (size_t)(ntau * nt)), q1 = 0, q2 = 0, *work = NULL;
  int inf = 0, lwork = 1;
  if (tau) {
    THLapack_(geqrf)((int)m, (int)n, THTensor_(data)(w), lda, tau, &q1, -1, &inf);
    if (mode != TH_QR_R)
      THLapack_(orgqr)((int)m, (int)qcols, (int)k, THTensor_(data)(q), lda, tau, &q2, -1, &inf);
    lwork = TH_MAX(THTensor_(lworkOf)(q1), THTensor_(lworkOf)(q2));
    work = THAlloc(sizeof(real) * (size_t)lwork * (size_t)nt);
  }
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1) if (nt > 1)
  for (int64_t i = 0; i < (work ? nbatch : 0); i++) {
    const int t = omp_get_thread_num();
    real *wm = THTensor_(data)(w) + i * m * n, *rm = THTensor_(data)(r) + i * rrows * n;
    real *tt = tau + t * ntau, *wk = work + t * lwork;
    int ti;
    THLapack_(geqrf)((int)m, (int)n, wm, lda, tt, wk, lwork, &ti);
    for (int64_t j = 0; j < n; j++)
      for (int64_t row = 0; row < rrows; row++) rm[row + j * rrows] = row <= j ? wm[row + j * m] : 0;
    if (mode == TH_QR_R) continue;
    real *qm = THTensor_(data)(q) + i * m * qcols;
    if (m * TH_MIN(n, qcols) > 0) /* memcpy from/to NULL is undefined, even for 0 bytes */
      memcpy(qm, wm, sizeof(real) * (size_t)(m * TH_MIN(n, qcols)));
    THLapack_(orgqr)((int)m, (int)qcols, (int)k, qm, lda, tt, wk, lwork, &ti);
  }
  const int status = work ? 0 : -1;
  THFree(tau);
  THFree(work);
  THTensor_(free)(w);
  return status;
}

/* Sets the column-major rows x cols matrix m to the identity (ones on the main diagonal). */
static void THTensor_(eyeMatrix)(real *m, int64_t rows, int64_t cols) {
  for (int64_t j = 0; j < cols; j++)
    for (int64_t i = 0; i < rows; i++) m[i + j * rows] = i == j;
}

static void THTensor_(fillNan)(real *p, int64_t n) {
  for (int64_t i = 0; i < n; i++) p[i] = NAN;
}

int THTensor_(linalgSvd)(THTensor *u, THTensor *s, THTensor *vh, THIntTensor *info, THTensor *a,
                         int full_matrices, int compute_uv) {
  const char *op = "linalg.svd";
  int64_t m, n, nbatch;
  THTry(THTensor_(matrixDims)(op, a, 0, &m, &n, &nbatch), -1);
  const int64_t k = TH_MIN(m, n);
  const int64_t ucols = full_matrices ? m : k, vrows = full_matrices ? n : k;
  const char jobz = !compute_uv ? 'N' : full_matrices ? 'A' : 'S';
  const int nb = a->nDimension - 2;
  int64_t ssize[TH_MAX_DIM];
  memcpy(ssize, a->size, sizeof(int64_t) * (size_t)nb);
  ssize[nb] = k;
  THTry(THTensor_(resize)(s, nb + 1, ssize), -1);
  THTry(THIntTensor_resize(info, TH_BATCH(a)), -1);
  if (compute_uv) {
    THTry(THTensor_(resizeColumnMajor)(u, TH_BATCH(a), m, ucols), -1);
    THTry(THTensor_(resizeColumnMajor)(vh, TH_BATCH(a), vrows, n), -1);
  }
  THTensor *w = THTensor_(newColumnMajor)(a);
  if (!w) return -1;
  real dummy = 0, query = 0;
  const int nt = THLapack_batchThreads(nbatch, m, n);
  const int64_t niwork = 8 * TH_MAX(k, 1);
  int *iwork = THAlloc(sizeof(int) * (size_t)(niwork * nt)), inf = 0, lwork = 1;
  real *work = NULL;
  const int ldu = (int)TH_MAX(m, 1), ldvt = (int)TH_MAX(vrows, 1);
  if (iwork) {
    THLapack_(gesdd)(jobz, (int)m, (int)n, THTensor_(data)(w), ldu, THTensor_(data)(s),
                     compute_uv ? THTensor_(data)(u) : &dummy, ldu,
                     compute_uv ? THTensor_(data)(vh) : &dummy, ldvt, &query, -1, iwork, &inf);
    lwork = THTensor_(lworkOf)(query);
    work = THAlloc(sizeof(real) * (size_t)lwork * (size_t)nt);
  }
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1) if (nt > 1)
  for (int64_t i = 0; i < (work ? nbatch : 0); i++) {
    const int t = omp_get_thread_num();
    real *wm = THTensor_(data)(w) + i * m * n, *sv = THTensor_(data)(s) + i * k;
    real *um = compute_uv ? THTensor_(data)(u) + i * m * ucols : &dummy;
    real *vm = compute_uv ? THTensor_(data)(vh) + i * vrows * n : &dummy;
    int *ip = THIntTensor_data(info) + i;
    *ip = 0;
    if (!THTensor_(allFinite)(wm, m * n)) { /* LAPACK may not return on NaN: report it */
      *ip = TH_LINALG_INFO_NONFINITE;
      THTensor_(fillNan)(sv, k);
      if (compute_uv) THTensor_(fillNan)(um, m * ucols), THTensor_(fillNan)(vm, vrows * n);
      continue;
    }
    if (k == 0) { /* nothing to factor: the singular vectors of an empty matrix are a basis */
      if (compute_uv) THTensor_(eyeMatrix)(um, m, ucols), THTensor_(eyeMatrix)(vm, vrows, n);
      continue;
    }
    THLapack_(gesdd)(jobz, (int)m, (int)n, wm, ldu, sv, um, ldu, vm, ldvt, work + t * lwork, lwork,
                     iwork + t * niwork, ip);
  }
  const int status = work ? 0 : -1;
  THFree(iwork);
  THFree(work);
  THTensor_(free)(w);
  return status;
}

int THTensor_(linalgEigh)(THTensor *w, THTensor *v, THIntTensor *info, THTensor *a, int upper,
                          int compute_v) {
  const char *op = "linalg.eigh";
  int64_t n, cols, nbatch;
  THTry(THTensor_(matrixDims)(op, a, 1, &n, &cols, &nbatch), -1);
  const int nb = a->nDimension - 2;
  int64_t wsize[TH_MAX_DIM];
  memcpy(wsize, a->size, sizeof(int64_t) * (size_t)nb);
  wsize[nb] = n;
  THTry(THTensor_(resize)(w, nb + 1, wsize), -1);
  THTry(THIntTensor_resize(info, TH_BATCH(a)), -1);
  THTensor *vec = THTensor_(newColumnMajor)(a);
  if (!vec) return -1;
  const char jobz = compute_v ? 'V' : 'N', uplo = upper ? 'U' : 'L';
  const int lda = (int)TH_MAX(n, 1);
  real query = 0;
  int iquery = 0, inf = 0;
  THLapack_(syevd)(jobz, uplo, (int)n, THTensor_(data)(vec), lda, THTensor_(data)(w), &query, -1,
                   &iquery, -1, &inf);
  const int lwork = THTensor_(lworkOf)(query), liwork = TH_MAX(iquery, 1);
  const int nt = THLapack_batchThreads(nbatch, n, n);
  real *work = THAlloc(sizeof(real) * (size_t)lwork * (size_t)nt);
  int *iwork = work ? THAlloc(sizeof(int) * (size_t)liwork * (size_t)nt) : NULL;
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1) if (nt > 1)
  for (int64_t i = 0; i < (iwork ? nbatch : 0); i++) {
    const int t = omp_get_thread_num();
    THLapack_(syevd)(jobz, uplo, (int)n, THTensor_(data)(vec) + i * n * n, lda,
                     THTensor_(data)(w) + i * n, work + t * lwork, lwork, iwork + t * liwork,
                     liwork, THIntTensor_data(info) + i);
  }
  int status = iwork ? 0 : -1;
  if (status == 0 && compute_v) status = THTensor_(set)(v, vec);
  THFree(work);
  THFree(iwork);
  THTensor_(free)(vec);
  return status;
}

int THTensor_(linalgLstsq)(THTensor *x, THTensor *residuals, THLongTensor *rank,
                           THTensor *singular_values, THIntTensor *info, THTensor *a,
                           THTensor *b, int driver, double rcond) {
  const char *op = "torch.linalg.lstsq";
  int64_t m, n, nbatch;
  THTry(THTensor_(matrixDims)(op, a, 0, &m, &n, &nbatch), -1);
  THTry(THTensor_(checkBounds)(b, op), -1);
  const int nd = a->nDimension, nb = nd - 2;
  THArgCheck(b->nDimension == nd && b->size[nd - 2] == m, TH_ERR_RUNTIME, -1,
             "%s: input.size(-2) should match other.size(-2)", op);
  for (int d = 0; d < nb; d++)
    THArgCheck(b->size[d] == a->size[d], TH_ERR_RUNTIME, -1,
               "%s: batch dimensions of input and other do not match", op);
  THArgCheck(driver >= TH_LSTSQ_GELS && driver <= TH_LSTSQ_GELSS, TH_ERR_RUNTIME, -1,
             "%s: unknown driver %d", op, driver);
  const int64_t k = b->size[nd - 1], mn = TH_MIN(m, n), ldb = TH_MAX(TH_MAX(m, n), 1);
  const int lda = (int)TH_MAX(m, 1);
  const int has_sv = driver == TH_LSTSQ_GELSD || driver == TH_LSTSQ_GELSS;
  const int64_t empty[1] = {0};
  int64_t bsz[TH_MAX_DIM];
  memcpy(bsz, a->size, sizeof(int64_t) * (size_t)nb);

  /* working copies: a, and b padded to ldb rows (zeros below row m: the solution's rows when
   * the system is underdetermined) */
  THTensor *aw = THTensor_(newColumnMajor)(a), *bw = aw ? THTensor_(new)() : NULL;
  THTensor *top = NULL;
  int status = bw ? 0 : -1;
  if (status == 0) status = THTensor_(resizeColumnMajor)(bw, nb, a->size, ldb, k);
  if (status == 0) status = THTensor_(zero)(bw);
  if (status == 0) status = (top = THTensor_(newNarrow)(bw, nd - 2, 0, m)) ? 0 : -1;
  if (status == 0) status = THTensor_(copy)(top, b);
  if (status == 0) status = THIntTensor_resize(info, nb, bsz);
  if (status == 0 && driver != TH_LSTSQ_GELS) status = THLongTensor_resize(rank, nb, bsz);
  if (status == 0 && driver == TH_LSTSQ_GELS) status = THLongTensor_resize(rank, 1, empty);
  bsz[nb] = mn;
  if (status == 0) status = has_sv ? THTensor_(resize)(singular_values, nb + 1, bsz)
                                   : THTensor_(resize)(singular_values, 1, empty);

  /* workspace, sized by a query on the first matrix */
  real query = 0, *work = NULL, *sv = NULL, rc = (real)rcond;
  int iquery = 0, inf = 0, rk = 0, lwork = 1, *iwork = NULL;
  if (status == 0) {
    real *am = THTensor_(data)(aw), *bm = THTensor_(data)(bw);
    real *svq = has_sv ? THTensor_(data)(singular_values) : &query;
    iwork = THAlloc(sizeof(int) * (size_t)TH_MAX(n, 1));
    switch (driver) {
      case TH_LSTSQ_GELS:
        THLapack_(gels)('N', (int)m, (int)n, (int)k, am, lda, bm, (int)ldb, &query, -1, &inf);
        break;
      case TH_LSTSQ_GELSY:
        THLapack_(gelsy)((int)m, (int)n, (int)k, am, lda, bm, (int)ldb, iwork, rc, &rk, &query,
                         -1, &inf);
        break;
      case TH_LSTSQ_GELSD:
        THLapack_(gelsd)((int)m, (int)n, (int)k, am, lda, bm, (int)ldb, svq, rc, &rk, &query, -1,
                         &iquery, &inf);
        break;
      default:
        THLapack_(gelss)((int)m, (int)n, (int)k, am, lda, bm, (int)ldb, svq, rc, &rk, &query,
                         -1, &inf);
    }
    lwork = THTensor_(lworkOf)(query);
    work = iwork ? THAlloc(sizeof(real) * (size_t)lwork) : NULL;
    if (work && iquery > TH_MAX(n, 1)) {
      THFree(iwork);
      iwork = THAlloc(sizeof(int) * (size_t)iquery);
    }
    sv = has_sv ? NULL : THAlloc(sizeof(real) * (size_t)TH_MAX(mn, 1));
    status = work && iwork && (has_sv || sv) ? 0 : -1;
  }

  int full_rank = 1;
  for (int64_t i = 0; status == 0 && i < nbatch; i++) {
    real *am = THTensor_(data)(aw) + i * m * n, *bm = THTensor_(data)(bw) + i * ldb * k;
    real *s = has_sv ? THTensor_(data)(singular_values) + i * mn : sv;
    int *ip = THIntTensor_data(info) + i;
    switch (driver) {
      case TH_LSTSQ_GELS:
        THLapack_(gels)('N', (int)m, (int)n, (int)k, am, lda, bm, (int)ldb, work, lwork, ip);
        full_rank &= *ip == 0;
        break;
      case TH_LSTSQ_GELSY:
        memset(iwork, 0, sizeof(int) * (size_t)TH_MAX(n, 1));
        THLapack_(gelsy)((int)m, (int)n, (int)k, am, lda, bm, (int)ldb, iwork, rc, &rk, work,
                         lwork, ip);
        break;
      case TH_LSTSQ_GELSD:
        THLapack_(gelsd)((int)m, (int)n, (int)k, am, lda, bm, (int)ldb, s, rc, &rk, work, lwork,
                         iwork, ip);
        break;
      default:
        THLapack_(gelss)((int)m, (int)n, (int)k, am, lda, bm, (int)ldb, s, rc, &rk, work, lwork,
                         ip);
    }
    if (driver != TH_LSTSQ_GELS) {
      THLongTensor_data(rank)[i] = rk;
      full_rank &= rk == n;
    }
  }

  /* the solution: the first n rows of bw; residuals: the squares of the rest, summed */
  if (status == 0) {
    THTensor *sol = THTensor_(newNarrow)(bw, nd - 2, 0, n);
    status = sol ? THTensor_(resizeColumnMajor)(x, nb, a->size, n, k) : -1;
    if (status == 0) status = THTensor_(copy)(x, sol);
    if (sol) THTensor_(free)(sol);
  }
  if (status == 0) {
    if (m > n && driver != TH_LSTSQ_GELSY && full_rank) {
      bsz[nb] = k;
      status = THTensor_(resize)(residuals, nb + 1, bsz);
      for (int64_t i = 0; status == 0 && i < nbatch; i++)
        for (int64_t j = 0; j < k; j++) {
          const real *col = THTensor_(data)(bw) + i * ldb * k + j * ldb;
          double sum = 0;
          for (int64_t row = n; row < m; row++) sum += (double)col[row] * col[row];
          THTensor_(data)(residuals)[i * k + j] = (real)sum;
        }
    } else {
      status = THTensor_(resize)(residuals, 1, empty);
    }
  }
  THFree(work);
  THFree(iwork);
  THFree(sv);
  if (top) THTensor_(free)(top);
  if (bw) THTensor_(free)(bw);
  if (aw) THTensor_(free)(aw);
  return status;
}

#undef TH_BATCH

#endif
