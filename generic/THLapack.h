#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THLapack.h"
#else

/* Solves a x = b by LU with partial pivoting; b (n x nrhs) becomes x, a its LU factors. */
void THLapack_(gesv)(int n, int nrhs, real *a, int lda, int *ipiv, real *b, int ldb, int *info);
/* LU factorisation with partial pivoting of the m x n matrix a, in place. */
void THLapack_(getrf)(int m, int n, real *a, int lda, int *ipiv, int *info);
/* The inverse from getrf's factors, in place. */
void THLapack_(getri)(int n, real *a, int lda, const int *ipiv, real *work, int lwork,
                      int *info);
/* Cholesky factor of the triangle uplo ('L' or 'U') of a, in place. */
void THLapack_(potrf)(char uplo, int n, real *a, int lda, int *info);
/* Solves a x = b from potrf's factor; b becomes x. */
void THLapack_(potrs)(char uplo, int n, int nrhs, const real *a, int lda, real *b, int ldb,
                      int *info);
/* QR factorisation: R above the diagonal of a, Householder vectors below it and in tau. */
void THLapack_(geqrf)(int m, int n, real *a, int lda, real *tau, real *work, int lwork,
                      int *info);
/* The m x n matrix Q with orthonormal columns from k of geqrf's reflectors, in a. */
void THLapack_(orgqr)(int m, int n, int k, real *a, int lda, const real *tau, real *work,
                      int lwork, int *info);
/* SVD by divide and conquer; jobz 'A' (full U, V^T), 'S' (reduced) or 'N' (values only). */
void THLapack_(gesdd)(char jobz, int m, int n, real *a, int lda, real *s, real *u, int ldu,
                      real *vt, int ldvt, real *work, int lwork, int *iwork, int *info);
/* Eigenvalues (ascending) and, for jobz 'V', eigenvectors (into a) of a symmetric matrix whose
 * triangle uplo is read; divide and conquer. */
void THLapack_(syevd)(char jobz, char uplo, int n, real *a, int lda, real *w, real *work,
                      int lwork, int *iwork, int liwork, int *info);
/* Least squares / minimum norm solutions of a x = b: QR or LQ (gels, full rank), complete
 * orthogonal factorisation with pivoting (gelsy), SVD (gelss) and divide-and-conquer SVD
 * (gelsd). b is max(m, n) x nrhs; its first n rows become x. */
void THLapack_(gels)(char trans, int m, int n, int nrhs, real *a, int lda, real *b, int ldb,
                     real *work, int lwork, int *info);
void THLapack_(gelsy)(int m, int n, int nrhs, real *a, int lda, real *b, int ldb, int *jpvt,
                      real rcond, int *rank, real *work, int lwork, int *info);
void THLapack_(gelss)(int m, int n, int nrhs, real *a, int lda, real *b, int ldb, real *s,
                      real rcond, int *rank, real *work, int lwork, int *info);
void THLapack_(gelsd)(int m, int n, int nrhs, real *a, int lda, real *b, int ldb, real *s,
                      real rcond, int *rank, real *work, int lwork, int *iwork, int *info);

#endif
