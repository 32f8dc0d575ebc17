#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THTensorBlas.c"
#else

#if !defined(TH_REAL_IS_BOOL)
/* Matrix products over THBlas.
 *
 * Every product is one driver, gemmBatched: a batch of r (n x m) = alpha * x (n x k) @ y (k x m)
 * + beta * r, the three operands described as THMatrices (matrix dims and strides, plus strides
 * over shared batch dims, 0 where broadcast). matmul, mm, bmm, mv, addmm, baddbmm, addbmm, addmv
 * and addr only build those descriptions from their tensors: no operand is reshaped or
 * expanded into memory.
 *   1. Layouts. BLAS reads a matrix whose rows or columns are contiguous directly, choosing the
 *      trans flag and leading dim (THBlas_layout); a transposed operand costs nothing. An
 *      operand with neither (stepped, broadcast) is copied matrix by matrix into a scratch
 *      buffer, and a result BLAS cannot write goes through one.
 *   2. Folding. When the right operand is shared by the whole batch and the left operand and
 *      the result lay their batch out as consecutive rows, the batch is one tall product (what
 *      (B, n, k) @ (k, m) becomes), so BLAS sees one large call.
 *   3. Batches. Otherwise each matrix is one BLAS call, the batch split between OpenMP threads
 *      when there is enough work in all (a single product is split by THBlas_(gemm) itself).
 *   4. A product with one row or column is handed to gemv.
 */

static void THTensor_(copyMatrix)(real *dst, int64_t ds0, int64_t ds1, const real *src,
                                  int64_t ss0, int64_t ss1, int64_t rows, int64_t cols) {
  for (int64_t i = 0; i < rows; i++)
    for (int64_t j = 0; j < cols; j++) dst[i * ds0 + j * ds1] = src[i * ss0 + j * ss1];
}

/* r = beta * r over one matrix (beta == 0 writes zeros, whatever r held). */
static void THTensor_(scaleMatrix)(real *r, int64_t s0, int64_t s1, int64_t rows, int64_t cols,
                                   real beta) {
  const opreal b = TH_LOAD(beta);
  for (int64_t i = 0; i < rows; i++)
    for (int64_t j = 0; j < cols; j++) {
      real *p = r + i * s0 + j * s1;
      *p = b == 0 ? TH_STORE(0) : TH_STORE((opreal)((ureal)b * (ureal)TH_LOAD(*p)));
    }
}

/* One product r (n x m) = alpha * x (n x k) @ y (k x m) + beta * r, each operand given by its
 * THBlas_layout flag and leading dim. BLAS computes the column-major C = op(A) op(B): with r's
 * rows contiguous, C is r^T = y^T x^T; with its columns contiguous, C is r = x y. */
static int THTensor_(gemm1)(real *r, char rt, int64_t rld, const real *x, char xt, int64_t xld,
                            const real *y, char yt, int64_t yld, int64_t n, int64_t k, int64_t m,
                            real alpha, real beta) {
  const real *A, *B;
  char ta, tb;
  int64_t lda, ldb, M, N;
  if (rt == 'n') {
    A = y, ta = yt, lda = yld, B = x, tb = xt, ldb = xld, M = m, N = n;
  } else {
    A = x, ta = THBlas_flip(xt), lda = xld, B = y, tb = THBlas_flip(yt), ldb = yld, M = n, N = m;
  }
  if (N == 1) /* C's single column = op(A) times op(B)'s single column */
    return THBlas_(gemv)(ta, ta == 'n' ? M : k, ta == 'n' ? k : M, alpha, A, lda, B,
                         tb == 'n' ? 1 : ldb, beta, r, 1);
  if (M == 1) /* C's single row = op(B)^T times op(A)'s single row */
    return THBlas_(gemv)(THBlas_flip(tb), tb == 'n' ? k : N, tb == 'n' ? N : k, alpha, B, ldb, A,
                         ta == 'n' ? lda : 1, beta, r, rld);
  return THBlas_(gemm)(ta, tb, M, N, k, alpha, A, lda, B, ldb, beta, r, rld);
}

/* The element offsets of batch entry b in r, x and y (b unravelled over bsize). */
static void THTensor_(batchOffsets)(int64_t *off, int64_t b, int nb, const int64_t *bsize,
                                    const THMatrices *r, const THMatrices *x,
                                    const THMatrices *y) {
  off[0] = off[1] = off[2] = 0;
  for (int d = nb - 1; d >= 0; d--) {
    const int64_t i = b % bsize[d];
    b /= bsize[d];
    off[0] += i * r->bstride[d];
    off[1] += i * x->bstride[d];
    off[2] += i * y->bstride[d];
  }
}

/* The driver (see the strategy comment above). accumulate: r has no batch dims of its own
 * (bstride 0) and sums the products (addbmm), so the batch runs in order with beta = 1 after the
 * first product. */
static int THTensor_(gemmBatched)(const char *op, int nb, const int64_t *bsize, THMatrices *r,
                                  THMatrices *x, THMatrices *y, int64_t n, int64_t k, int64_t m,
                                  real alpha, real beta, int accumulate) {
  int64_t nbatch = 1, off[3];
  for (int d = 0; d < nb; d++) nbatch *= bsize[d];
  if (n == 0 || m == 0) return 0;
  if (k == 0 || nbatch == 0) { /* empty sums: r = beta * r */
    if (accumulate) /* r has no batch dims: one matrix */
      THTensor_(scaleMatrix)((real *)r->data, r->s0, r->s1, n, m, beta);
    for (int64_t b = 0; !accumulate && b < nbatch; b++) {
      THTensor_(batchOffsets)(off, b, nb, bsize, r, x, y);
      THTensor_(scaleMatrix)((real *)r->data + off[0], r->s0, r->s1, n, m, beta);
    }
    return 0;
  }
  THArgCheck(n <= INT_MAX && k <= INT_MAX && m <= INT_MAX, TH_ERR_RUNTIME, -1,
             "%s: a %lld x %lld by %lld x %lld product exceeds BLAS's 32-bit sizes", op,
             (long long)n, (long long)k, (long long)k, (long long)m);

  int64_t rows, xs0, rs0;
  int shared_y = !accumulate && nb > 0;
  for (int d = 0; d < nb && shared_y; d++) shared_y = y->bstride[d] == 0 || bsize[d] == 1;
  if (shared_y && THMatrices_foldRows(&rows, &xs0, x, nb, bsize) &&
      THMatrices_foldRows(&rows, &rs0, r, nb, bsize) && rows <= INT_MAX) {
    x->rows = r->rows = n = rows;
    x->s0 = xs0, r->s0 = rs0;
    nb = 0, nbatch = 1;
  }

  int64_t xld = 0, yld = 0, rld = 0;
  const char xt = THBlas_layout(&xld, n, k, x->s0, x->s1);
  const char yt = THBlas_layout(&yld, k, m, y->s0, y->s1);
  const char rt = THBlas_layout(&rld, n, m, r->s0, r->s1);
  const real one = TH_STORE(1);

  if (xt && yt && rt) {
    const int parallel = !accumulate && nbatch > 1 &&
                         (double)n * (double)k * (double)m * (double)nbatch >= TH_BATCH_PARALLEL_WORK;
    int err = 0;
#pragma omp parallel for schedule(dynamic, 4) if (parallel) private(off)
    for (int64_t b = 0; b < nbatch; b++) {
      THTensor_(batchOffsets)(off, b, nb, bsize, r, x, y);
      int st = THTensor_(gemm1)((real *)r->data + off[0], rt, rld, (real *)x->data + off[1], xt,
                                xld, (real *)y->data + off[2], yt, yld, n, k, m, alpha,
                                accumulate && b > 0 ? one : beta);
      if (st) {
#pragma omp atomic write
        err = st;
      }
    }
    return err ? -1 : 0;
  }

  /* some operand goes through a dense row-major scratch matrix */
  real *xbuf = xt ? NULL : THAlloc(sizeof(real) * (size_t)(n * k));
  real *ybuf = yt ? NULL : THAlloc(sizeof(real) * (size_t)(k * m));
  real *rbuf = rt ? NULL : THAlloc(sizeof(real) * (size_t)(n * m));
  int status = ((!xt && !xbuf) || (!yt && !ybuf) || (!rt && !rbuf)) ? -1 : 0;
  for (int64_t b = 0; b < nbatch && status == 0; b++) {
    THTensor_(batchOffsets)(off, b, nb, bsize, r, x, y);
    real *rp = (real *)r->data + off[0];
    const real *xp = (real *)x->data + off[1], *yp = (real *)y->data + off[2];
    const real bet = accumulate && b > 0 ? one : beta;
    if (!xt) THTensor_(copyMatrix)(xbuf, k, 1, xp, x->s0, x->s1, n, k);
    if (!yt) THTensor_(copyMatrix)(ybuf, m, 1, yp, y->s0, y->s1, k, m);
    if (rt) {
      status = THTensor_(gemm1)(rp, rt, rld, xt ? xp : xbuf, xt ? xt : 'n', xt ? xld : k,
                                yt ? yp : ybuf, yt ? yt : 'n', yt ? yld : m, n, k, m, alpha, bet);
    } else {
      if (TH_LOAD(bet) != 0) THTensor_(copyMatrix)(rbuf, m, 1, rp, r->s0, r->s1, n, m);
      status = THTensor_(gemm1)(rbuf, 'n', m, xt ? xp : xbuf, xt ? xt : 'n', xt ? xld : k,
                                yt ? yp : ybuf, yt ? yt : 'n', yt ? yld : m, n, k, m, alpha, bet);
      THTensor_(copyMatrix)(rp, r->s0, r->s1, rbuf, m, 1, n, m);
    }
  }
  THFree(xbuf);
  THFree(ybuf);
  THFree(rbuf);
  return status;
}

/* ---- entry points ------------------------------------------------------------------------ */

/* r aliasing a factor: BLAS must not write what it reads, so the product goes to a fresh
 * tensor first. */
static int THTensor_(aliases)(const THTensor *r, const THTensor *a, const THTensor *b) {
  return r->storage == a->storage || r->storage == b->storage;
}

typedef int (*THTensor_(AddFn))(THTensor *, real, THTensor *, real, THTensor *, THTensor *);

static int THTensor_(viaTemp)(THTensor_(AddFn) fn, const char *op, THTensor *r, real beta,
                              THTensor *t, real alpha, THTensor *a, THTensor *b) {
  THTensor *tmp = THTensor_(new)();
  if (!tmp) return -1;
  int status = fn(tmp, beta, t, alpha, a, b);
  if (status == 0) status = THTensor_(resizeOutput)(r, op, tmp->nDimension, tmp->size, r == t);
  if (status == 0) status = THTensor_(copy)(r, tmp);
  THTensor_(free)(tmp);
  return status;
}

/* r takes the add* result's shape, holding t's values (broadcast) unless beta is 0. */
static int THTensor_(prepareAdd)(THTensor *r, const char *op, real beta, THTensor *t, int ndim,
                                 const int64_t *size) {
  int64_t unused[TH_MAX_DIM];
  THTry(THTensor_(checkBounds)(t, op), -1);
  THTry(THShape_broadcastStrides(unused, op, ndim, size, t->nDimension, t->size, t->stride), -1);
  THTry(THTensor_(resizeOutput)(r, op, ndim, size, r == t), -1);
  if (r != t && TH_LOAD(beta) != 0) THTry(THTensor_(copy)(r, t), -1);
  return 0;
}

#define TH_MATRICES(MT, T, AS, NB, BSIZE) \
  THMatrices_init(&(MT), (char *)THTensor_(data)(T), (T)->nDimension, (T)->size, (T)->stride, \
                  AS, NB, BSIZE)

/* "2x3", as PyTorch prints shapes in product errors. */
static const char *THTensor_(shapeX)(char *buf, size_t len, const THTensor *t) {
  size_t used = 0;
  buf[0] = '\0';
  for (int d = 0; d < t->nDimension && used < len; d++)
    used += (size_t)snprintf(buf + used, len - used, d ? "x%lld" : "%lld", (long long)t->size[d]);
  return buf;
}

static int THTensor_(mismatch)(const char *op, const THTensor *a, const THTensor *b) {
  char x[TH_SIZE_STR_LEN], y[TH_SIZE_STR_LEN];
  THError_set(TH_ERR_RUNTIME, "%s: mat1 and mat2 shapes cannot be multiplied (%s and %s)", op,
              THTensor_(shapeX)(x, sizeof x, a), THTensor_(shapeX)(y, sizeof y, b));
  return -1;
}

static int THTensor_(matmulAdd)(THTensor *r, real beta, THTensor *t, real alpha, THTensor *a,
                                THTensor *b) {
  (void)beta, (void)t, (void)alpha;
  return THTensor_(matmul)(r, a, b);
}

int THTensor_(matmul)(THTensor *r, THTensor *a, THTensor *b) {
  const char *op = "matmul()";
  THTry(THTensor_(checkBounds)(a, op), -1);
  THTry(THTensor_(checkBounds)(b, op), -1);
  const int da = a->nDimension, db = b->nDimension;
  THArgCheck(da > 0 && db > 0, TH_ERR_RUNTIME, -1,
             "matmul(): both arguments to matmul need to be at least 1D, but they are %dD and %dD",
             da, db);
  if (da == 1 && db == 1) return THTensor_(dot)(r, a, b);
  if (THTensor_(aliases)(r, a, b))
    return THTensor_(viaTemp)(THTensor_(matmulAdd), op, r, TH_STORE(0), NULL,
                              TH_STORE(0), a, b);
  const int64_t n = da == 1 ? 1 : a->size[da - 2], k = a->size[da - 1];
  const int64_t k2 = db == 1 ? b->size[0] : b->size[db - 2], m = db == 1 ? 1 : b->size[db - 1];
  if (k != k2) return THTensor_(mismatch)(op, a, b);

  int64_t bsize[TH_MAX_DIM], rsize[TH_MAX_DIM];
  int nb;
  THTry(THShape_broadcast(bsize, &nb, op, TH_MAX(da - 2, 0), a->size, TH_MAX(db - 2, 0), b->size),
        -1);
  int rn = nb;
  memcpy(rsize, bsize, sizeof(int64_t) * (size_t)nb);
  if (da > 1) rsize[rn++] = n;
  if (db > 1) rsize[rn++] = m;
  THArgCheck(rn <= TH_MAX_DIM, TH_ERR_RUNTIME, -1, "%s: result has more than %d dims", op,
             TH_MAX_DIM);
  THTry(THTensor_(resizeOutput)(r, op, rn, rsize, 0), -1);
  THMatrices R, X, Y;
  TH_MATRICES(R, r, da == 1 ? TH_ROW : db == 1 ? TH_COL : TH_MAT, nb, bsize);
  TH_MATRICES(X, a, da == 1 ? TH_ROW : TH_MAT, nb, bsize);
  TH_MATRICES(Y, b, db == 1 ? TH_COL : TH_MAT, nb, bsize);
  return THTensor_(gemmBatched)(op, nb, bsize, &R, &X, &Y, n, k, m, TH_STORE(1),
                                TH_STORE(0), 0);
}

int THTensor_(addmm)(THTensor *r, real beta, THTensor *t, real alpha, THTensor *m1,
                     THTensor *m2) {
  const char *op = "addmm()";
  THTry(THTensor_(checkBounds)(m1, op), -1);
  THTry(THTensor_(checkBounds)(m2, op), -1);
  THArgCheck(m1->nDimension == 2, TH_ERR_RUNTIME, -1, "%s: mat1 must be a matrix, got %d-D tensor",
             op, m1->nDimension);
  THArgCheck(m2->nDimension == 2, TH_ERR_RUNTIME, -1, "%s: mat2 must be a matrix, got %d-D tensor",
             op, m2->nDimension);
  if (m1->size[1] != m2->size[0]) return THTensor_(mismatch)(op, m1, m2);
  if (THTensor_(aliases)(r, m1, m2))
    return THTensor_(viaTemp)(THTensor_(addmm), op, r, beta, t, alpha, m1, m2);
  const int64_t size[2] = {m1->size[0], m2->size[1]};
  THTry(THTensor_(prepareAdd)(r, op, beta, t, 2, size), -1);
  THMatrices R, X, Y;
  TH_MATRICES(R, r, TH_MAT, 0, NULL);
  TH_MATRICES(X, m1, TH_MAT, 0, NULL);
  TH_MATRICES(Y, m2, TH_MAT, 0, NULL);
  return THTensor_(gemmBatched)(op, 0, NULL, &R, &X, &Y, size[0], m1->size[1], size[1], alpha,
                                beta, 0);
}

int THTensor_(addmv)(THTensor *r, real beta, THTensor *t, real alpha, THTensor *mat,
                     THTensor *vec) {
  const char *op = "addmv()";
  THTry(THTensor_(checkBounds)(mat, op), -1);
  THTry(THTensor_(checkBounds)(vec, op), -1);
  THArgCheck(mat->nDimension == 2 && vec->nDimension == 1, TH_ERR_RUNTIME, -1,
             "%s: vector + matrix @ vector expected, got %d, %d, %d", op, t->nDimension,
             mat->nDimension, vec->nDimension);
  if (mat->size[1] != vec->size[0]) {
    THError_set(TH_ERR_RUNTIME, "%s: size mismatch, got input (%lld), mat (%lldx%lld), vec (%lld)",
                op, (long long)(t->nDimension ? t->size[0] : 1), (long long)mat->size[0],
                (long long)mat->size[1], (long long)vec->size[0]);
    return -1;
  }
  if (THTensor_(aliases)(r, mat, vec))
    return THTensor_(viaTemp)(THTensor_(addmv), op, r, beta, t, alpha, mat, vec);
  const int64_t size[1] = {mat->size[0]};
  THTry(THTensor_(prepareAdd)(r, op, beta, t, 1, size), -1);
  THMatrices R, X, Y;
  TH_MATRICES(R, r, TH_COL, 0, NULL);
  TH_MATRICES(X, mat, TH_MAT, 0, NULL);
  TH_MATRICES(Y, vec, TH_COL, 0, NULL);
  return THTensor_(gemmBatched)(op, 0, NULL, &R, &X, &Y, size[0], mat->size[1], 1, alpha, beta,
                                0);
}

int THTensor_(addr)(THTensor *r, real beta, THTensor *t, real alpha, THTensor *vec1,
                    THTensor *vec2) {
  const char *op = "addr()";
  THTry(THTensor_(checkBounds)(vec1, op), -1);
  THTry(THTensor_(checkBounds)(vec2, op), -1);
  THArgCheck(vec1->nDimension == 1, TH_ERR_RUNTIME, -1,
             "%s: Expected 1-D argument vec1, but got %d-D", op, vec1->nDimension);
  THArgCheck(vec2->nDimension == 1, TH_ERR_RUNTIME, -1,
             "%s: Expected 1-D argument vec2, but got %d-D", op, vec2->nDimension);
  if (THTensor_(aliases)(r, vec1, vec2))
    return THTensor_(viaTemp)(THTensor_(addr), op, r, beta, t, alpha, vec1, vec2);
  const int64_t size[2] = {vec1->size[0], vec2->size[0]};
  THTry(THTensor_(prepareAdd)(r, op, beta, t, 2, size), -1);
  THMatrices R, X, Y;
  TH_MATRICES(R, r, TH_MAT, 0, NULL);
  TH_MATRICES(X, vec1, TH_COL, 0, NULL);
  TH_MATRICES(Y, vec2, TH_ROW, 0, NULL);
  return THTensor_(gemmBatched)(op, 0, NULL, &R, &X, &Y, size[0], 1, size[1], alpha, beta, 0);
}

/* The checks bmm, baddbmm and addbmm share. */
static int THTensor_(checkBatches)(const char *op, THTensor *b1, THTensor *b2) {
  THTry(THTensor_(checkBounds)(b1, op), -1);
  THTry(THTensor_(checkBounds)(b2, op), -1);
  THArgCheck(b1->nDimension == 3, TH_ERR_RUNTIME, -1, "%s: batch1 must be a 3D tensor", op);
  THArgCheck(b2->nDimension == 3, TH_ERR_RUNTIME, -1, "%s: batch2 must be a 3D tensor", op);
  THArgCheck(b2->size[0] == b1->size[0] && b2->size[1] == b1->size[2], TH_ERR_RUNTIME, -1,
             "%s: Expected size for first two dimensions of batch2 tensor to be: [%lld, %lld] but "
             "got: [%lld, %lld].", op, (long long)b1->size[0], (long long)b1->size[2],
             (long long)b2->size[0], (long long)b2->size[1]);
  return 0;
}

int THTensor_(baddbmm)(THTensor *r, real beta, THTensor *t, real alpha, THTensor *batch1,
                       THTensor *batch2) {
  const char *op = "baddbmm()";
  THTry(THTensor_(checkBatches)(op, batch1, batch2), -1);
  if (THTensor_(aliases)(r, batch1, batch2))
    return THTensor_(viaTemp)(THTensor_(baddbmm), op, r, beta, t, alpha, batch1, batch2);
  const int64_t size[3] = {batch1->size[0], batch1->size[1], batch2->size[2]};
  THTry(THTensor_(prepareAdd)(r, op, beta, t, 3, size), -1);
  THMatrices R, X, Y;
  TH_MATRICES(R, r, TH_MAT, 1, size);
  TH_MATRICES(X, batch1, TH_MAT, 1, size);
  TH_MATRICES(Y, batch2, TH_MAT, 1, size);
  return THTensor_(gemmBatched)(op, 1, size, &R, &X, &Y, size[1], batch1->size[2], size[2], alpha,
                                beta, 0);
}

int THTensor_(addbmm)(THTensor *r, real beta, THTensor *t, real alpha, THTensor *batch1,
                      THTensor *batch2) {
  const char *op = "addbmm()";
  THTry(THTensor_(checkBatches)(op, batch1, batch2), -1);
  if (THTensor_(aliases)(r, batch1, batch2))
    return THTensor_(viaTemp)(THTensor_(addbmm), op, r, beta, t, alpha, batch1, batch2);
  const int64_t size[2] = {batch1->size[1], batch2->size[2]};
  THTry(THTensor_(prepareAdd)(r, op, beta, t, 2, size), -1);
  THMatrices R, X, Y;
  TH_MATRICES(R, r, TH_MAT, 1, batch1->size);
  TH_MATRICES(X, batch1, TH_MAT, 1, batch1->size);
  TH_MATRICES(Y, batch2, TH_MAT, 1, batch1->size);
  return THTensor_(gemmBatched)(op, 1, batch1->size, &R, &X, &Y, size[0], batch1->size[2],
                                size[1], alpha, beta, 1);
}

int THTensor_(dot)(THTensor *r, THTensor *a, THTensor *b) {
  const char *op = "dot()";
  THTry(THTensor_(checkBounds)(a, op), -1);
  THTry(THTensor_(checkBounds)(b, op), -1);
  THArgCheck(a->nDimension == 1 && b->nDimension == 1, TH_ERR_RUNTIME, -1,
             "%s: 1D tensors expected, but got %dD and %dD tensors", op, a->nDimension,
             b->nDimension);
  const int64_t n = a->size[0];
  THArgCheck(b->size[0] == n, TH_ERR_RUNTIME, -1,
             "%s: inconsistent tensor size, expected tensor [%lld] and src [%lld] to have the "
             "same number of elements, but got %lld and %lld elements respectively", op,
             (long long)n, (long long)b->size[0], (long long)n, (long long)b->size[0]);
  /* BLAS wants increments in [1, INT_MAX]: a broadcast (stride 0) vector is copied first */
  const int ok_a = n <= 1 || (a->stride[0] >= 1 && a->stride[0] <= INT_MAX);
  const int ok_b = n <= 1 || (b->stride[0] >= 1 && b->stride[0] <= INT_MAX);
  THArgCheck(n <= INT_MAX, TH_ERR_RUNTIME, -1, "%s: %lld elements exceed BLAS's 32-bit sizes", op,
             (long long)n);
  THTensor *ca = ok_a ? a : THTensor_(newContiguous)(a);
  THTensor *cb = ok_b || !ca ? b : THTensor_(newContiguous)(b);
  int status = -1;
  if (ca && cb) {
    real v = THBlas_(dot)(n, THTensor_(data)(ca), n <= 1 ? 1 : ca->stride[0],
                          THTensor_(data)(cb), n <= 1 ? 1 : cb->stride[0]);
    status = THTensor_(resizeOutput)(r, op, 0, NULL, 0);
    if (status == 0) *THTensor_(data)(r) = v;
  }
  if (ca && ca != a) THTensor_(free)(ca);
  if (cb && cb != b) THTensor_(free)(cb);
  return status;
}

#undef TH_MATRICES
#endif

#endif
