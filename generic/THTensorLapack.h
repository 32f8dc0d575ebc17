#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THTensorLapack.h"
#else

/* Factorisations and solvers over THLapack, for batches: every input is (..., rows, cols) and
 * the function runs LAPACK once per matrix of the batch. Outputs are resized here; matrix
 * outputs come back column-major (strides (..., 1, rows)), the layout LAPACK writes, as
 * PyTorch's do. A per-matrix failure LAPACK reports (singular, not positive-definite, no
 * convergence) is not an error here: it is stored in `info` (int32, the batch's shape; see
 * TH_LINALG_INFO_*) for the caller to raise on, as torch.linalg's *_ex functions return it.
 * Return 0, or -1 with an error recorded for bad arguments or memory. */

/* a x = b for square a; a (..., n, n) and b (..., n, k) have one batch shape. */
int THTensor_(linalgSolve)(THTensor *x, THIntTensor *info, THTensor *a, THTensor *b);
/* The inverse of square a (getrf + getri); info > 0 names a zero pivot. */
int THTensor_(linalgInv)(THTensor *r, THIntTensor *info, THTensor *a);
/* det, sign and log|det| of square a from its LU factors; any output may be NULL. */
int THTensor_(linalgDet)(THTensor *det, THTensor *sign, THTensor *logabsdet, THTensor *a);
/* The Cholesky factor, lower (upper = 0: a = L L^T) or upper (a = U^T U); only that triangle
 * of a is read, the other triangle of the result is zero. */
int THTensor_(linalgCholesky)(THTensor *r, THIntTensor *info, THTensor *a, int upper);
/* a x = b given a's Cholesky factor l (lower, or upper when upper != 0). */
int THTensor_(choleskySolve)(THTensor *x, THTensor *b, THTensor *l, int upper);
/* a = q r with TH_QR_REDUCED (q: m x k, r: k x n, k = min(m, n)), TH_QR_COMPLETE (q: m x m,
 * r: m x n) or TH_QR_R (r only, q emptied). */
int THTensor_(linalgQr)(THTensor *q, THTensor *r, THTensor *a, int mode);
/* a = u diag(s) vh, s descending; u and vh are m x m and n x n when full_matrices, else
 * m x k and k x n; with compute_uv = 0 only s (u and vh may be NULL). */
int THTensor_(linalgSvd)(THTensor *u, THTensor *s, THTensor *vh, THIntTensor *info, THTensor *a,
                         int full_matrices, int compute_uv);
/* Eigenvalues (ascending) w and, when compute_v, eigenvectors v (columns) of symmetric a,
 * reading its lower (upper = 0) or upper triangle. */
int THTensor_(linalgEigh)(THTensor *w, THTensor *v, THIntTensor *info, THTensor *a, int upper,
                          int compute_v);
/* Least squares min ||a x - b|| (minimum norm when underdetermined) with a TH_LSTSQ_* driver;
 * a (..., m, n), b (..., m, k) with one batch shape. residuals (..., k) are the squared
 * residual norms when m > n and every matrix has full rank (not for gelsy), else empty; rank
 * (int64) is filled by gelsy, gelsd and gelss, singular_values (..., min(m, n)) by gelsd and
 * gelss, and each is empty otherwise. rcond < 0 asks for LAPACK's machine-precision default. */
int THTensor_(linalgLstsq)(THTensor *x, THTensor *residuals, THLongTensor *rank,
                           THTensor *singular_values, THIntTensor *info, THTensor *a,
                           THTensor *b, int driver, double rcond);

#endif
