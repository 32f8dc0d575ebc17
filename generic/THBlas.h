#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THBlas.h"
#else

#if !defined(TH_REAL_IS_BOOL)
/* c (m x n) = alpha * op(a) op(b) + beta * c; op(x) is x for 'n', x^T for 't'. beta == 0 ignores
 * c's old values (NaN included), as BLAS does. */
int THBlas_(gemm)(char transa, char transb, int64_t m, int64_t n, int64_t k, real alpha,
                  const real *a, int64_t lda, const real *b, int64_t ldb, real beta, real *c,
                  int64_t ldc);
/* y = alpha * op(a) x + beta * y, a being m x n. */
int THBlas_(gemv)(char trans, int64_t m, int64_t n, real alpha, const real *a, int64_t lda,
                  const real *x, int64_t incx, real beta, real *y, int64_t incy);
/* a (m x n) += alpha * x y^T. */
int THBlas_(ger)(int64_t m, int64_t n, real alpha, const real *x, int64_t incx, const real *y,
                 int64_t incy, real *a, int64_t lda);
real THBlas_(dot)(int64_t n, const real *x, int64_t incx, const real *y, int64_t incy);
/* y += a * x */
void THBlas_(axpy)(int64_t n, real a, const real *x, int64_t incx, real *y, int64_t incy);
/* x *= a */
void THBlas_(scal)(int64_t n, real a, real *x, int64_t incx);
#endif

#endif
