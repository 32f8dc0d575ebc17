#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THLapack.c"
#else

/* TH_LAPACK(getrf) is the Fortran symbol: scipy_sgetrf_ for Float, scipy_dgetrf_ for Double. */
#if defined(TH_REAL_IS_FLOAT)
#define TH_LAPACK(NAME) TH_BLAS_SYM(TH_CONCAT_3(s, NAME, _))
#else
#define TH_LAPACK(NAME) TH_BLAS_SYM(TH_CONCAT_3(d, NAME, _))
#endif

extern void TH_LAPACK(gesv)(const int *n, const int *nrhs, real *a, const int *lda, int *ipiv,
                            real *b, const int *ldb, int *info);
extern void TH_LAPACK(getrf)(const int *m, const int *n, real *a, const int *lda, int *ipiv,
                             int *info);
extern void TH_LAPACK(getri)(const int *n, real *a, const int *lda, const int *ipiv, real *work,
                             const int *lwork, int *info);
extern void TH_LAPACK(potrf)(const char *uplo, const int *n, real *a, const int *lda, int *info,
                             THFortranStrlen);
extern void TH_LAPACK(potrs)(const char *uplo, const int *n, const int *nrhs, const real *a,
                             const int *lda, real *b, const int *ldb, int *info,
                             THFortranStrlen);
extern void TH_LAPACK(geqrf)(const int *m, const int *n, real *a, const int *lda, real *tau,
                             real *work, const int *lwork, int *info);
extern void TH_LAPACK(orgqr)(const int *m, const int *n, const int *k, real *a, const int *lda,
                             const real *tau, real *work, const int *lwork, int *info);
extern void TH_LAPACK(gesdd)(const char *jobz, const int *m, const int *n, real *a,
                             const int *lda, real *s, real *u, const int *ldu, real *vt,
                             const int *ldvt, real *work, const int *lwork, int *iwork,
                             int *info, THFortranStrlen);
extern void TH_LAPACK(syevd)(const char *jobz, const char *uplo, const int *n, real *a,
                             const int *lda, real *w, real *work, const int *lwork, int *iwork,
                             const int *liwork, int *info, THFortranStrlen, THFortranStrlen);
extern void TH_LAPACK(gels)(const char *trans, const int *m, const int *n, const int *nrhs,
                            real *a, const int *lda, real *b, const int *ldb, real *work,
                            const int *lwork, int *info, THFortranStrlen);
extern void TH_LAPACK(gelsy)(const int *m, const int *n, const int *nrhs, real *a,
                             const int *lda, real *b, const int *ldb, int *jpvt,
                             const real *rcond, int *rank, real *work, const int *lwork,
                             int *info);
extern void TH_LAPACK(gelss)(const int *m, const int *n, const int *nrhs, real *a,
                             const int *lda, real *b, const int *ldb, real *s, const real *rcond,
                             int *rank, real *work, const int *lwork, int *info);
extern void TH_LAPACK(gelsd)(const int *m, const int *n, const int *nrhs, real *a,
                             const int *lda, real *b, const int *ldb, real *s, const real *rcond,
                             int *rank, real *work, const int *lwork, int *iwork, int *info);

void THLapack_(gesv)(int n, int nrhs, real *a, int lda, int *ipiv, real *b, int ldb, int *info) {
  TH_LAPACK(gesv)(&n, &nrhs, a, &lda, ipiv, b, &ldb, info);
}

void THLapack_(getrf)(int m, int n, real *a, int lda, int *ipiv, int *info) {
  TH_LAPACK(getrf)(&m, &n, a, &lda, ipiv, info);
}

void THLapack_(getri)(int n, real *a, int lda, const int *ipiv, real *work, int lwork,
                      int *info) {
  TH_LAPACK(getri)(&n, a, &lda, ipiv, work, &lwork, info);
}

void THLapack_(potrf)(char uplo, int n, real *a, int lda, int *info) {
  TH_LAPACK(potrf)(&uplo, &n, a, &lda, info, 1);
}

void THLapack_(potrs)(char uplo, int n, int nrhs, const real *a, int lda, real *b, int ldb,
                      int *info) {
  TH_LAPACK(potrs)(&uplo, &n, &nrhs, a, &lda, b, &ldb, info, 1);
}

void THLapack_(geqrf)(int m, int n, real *a, int lda, real *tau, real *work, int lwork,
                      int *info) {
  TH_LAPACK(geqrf)(&m, &n, a, &lda, tau, work, &lwork, info);
}

void THLapack_(orgqr)(int m, int n, int k, real *a, int lda, const real *tau, real *work,
                      int lwork, int *info) {
  TH_LAPACK(orgqr)(&m, &n, &k, a, &lda, tau, work, &lwork, info);
}

void THLapack_(gesdd)(char jobz, int m, int n, real *a, int lda, real *s, real *u, int ldu,
                      real *vt, int ldvt, real *work, int lwork, int *iwork, int *info) {
  TH_LAPACK(gesdd)(&jobz, &m, &n, a, &lda, s, u, &ldu, vt, &ldvt, work, &lwork, iwork, info, 1);
}

void THLapack_(syevd)(char jobz, char uplo, int n, real *a, int lda, real *w, real *work,
                      int lwork, int *iwork, int liwork, int *info) {
  TH_LAPACK(syevd)(&jobz, &uplo, &n, a, &lda, w, work, &lwork, iwork, &liwork, info, 1, 1);
}

void THLapack_(gels)(char trans, int m, int n, int nrhs, real *a, int lda, real *b, int ldb,
                     real *work, int lwork, int *info) {
  TH_LAPACK(gels)(&trans, &m, &n, &nrhs, a, &lda, b, &ldb, work, &lwork, info, 1);
}

void THLapack_(gelsy)(int m, int n, int nrhs, real *a, int lda, real *b, int ldb, int *jpvt,
                      real rcond, int *rank, real *work, int lwork, int *info) {
  TH_LAPACK(gelsy)(&m, &n, &nrhs, a, &lda, b, &ldb, jpvt, &rcond, rank, work, &lwork, info);
}

void THLapack_(gelss)(int m, int n, int nrhs, real *a, int lda, real *b, int ldb, real *s,
                      real rcond, int *rank, real *work, int lwork, int *info) {
  TH_LAPACK(gelss)(&m, &n, &nrhs, a, &lda, b, &ldb, s, &rcond, rank, work, &lwork, info);
}

void THLapack_(gelsd)(int m, int n, int nrhs, real *a, int lda, real *b, int ldb, real *s,
                      real rcond, int *rank, real *work, int lwork, int *iwork, int *info) {
  TH_LAPACK(gelsd)(&m, &n, &nrhs, a, &lda, b, &ldb, s, &rcond, rank, work, &lwork, iwork, info);
}

#undef TH_LAPACK

#endif
