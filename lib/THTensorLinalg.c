#include "THTensorLinalg.h"

#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "THTensorApply.h"
#include "THTensorMath.h"
#include "THTensorReduce.h"

/* A batch of matrices inside one tensor, as the product kernels see it: the matrix dims (rows,
 * cols, strides s0, s1) and the strides of the shared batch dims (0 where the tensor is
 * broadcast). A 1-D tensor enters as one row (1 x n) or one column (n x 1). */
typedef struct THMatrices {
  char *data;
  int64_t rows, cols, s0, s1;
  int64_t bstride[TH_MAX_DIM];
} THMatrices;

/* A batch of products with this many multiply-adds in all runs its products in parallel
 * (OpenMP), each on one thread. */
#define TH_BATCH_PARALLEL_WORK (1 << 24)

enum { TH_MAT = 0, TH_ROW = 1, TH_COL = 2 };

/* Fills mt from a tensor (ndim, size, stride) whose leading dims broadcast to the nb batch dims
 * bsize; `as` says how its last dim(s) form the matrix. */
static void THMatrices_init(THMatrices *mt, char *data, int ndim, const int64_t *size,
                            const int64_t *stride, int as, int nb, const int64_t *bsize) {
  mt->data = data;
  if (as == TH_MAT) {
    mt->rows = size[ndim - 2], mt->cols = size[ndim - 1];
    mt->s0 = stride[ndim - 2], mt->s1 = stride[ndim - 1];
  } else if (as == TH_ROW) {
    mt->rows = 1, mt->cols = size[ndim - 1], mt->s0 = 0, mt->s1 = stride[ndim - 1];
  } else {
    mt->rows = size[ndim - 1], mt->cols = 1, mt->s0 = stride[ndim - 1], mt->s1 = 0;
  }
  const int tb = ndim - (as == TH_MAT ? 2 : 1); /* the tensor's own batch dims */
  for (int d = 0; d < nb; d++) {
    const int td = d - (nb - tb);
    mt->bstride[d] = (td < 0 || size[td] == 1 || bsize[d] == 1) ? 0 : stride[td];
  }
}

/* How BLAS reads the rows x cols matrix with strides (s0, s1), returned as a trans flag for the
 * column-major matrix of its TRANSPOSE:
 *   'n'  rows are contiguous (s1 == 1): X^T is column-major with leading dim *ld = s0;
 *   't'  columns are contiguous (s0 == 1): X is column-major with *ld = s1, X^T = op 't';
 *   0    neither (a stepped or broadcast layout, or strides past BLAS's int): copy it first.
 * A dim of size 1 takes any stride; leading dims must cover the stored rows, as BLAS checks. */
static char THBlas_layout(int64_t *ld, int64_t rows, int64_t cols, int64_t s0, int64_t s1) {
  if (rows == 1) s0 = TH_MAX(cols, 1);
  if (cols == 1) s1 = 1;
  if (s1 == 1 && s0 >= TH_MAX(cols, 1) && s0 <= INT_MAX) {
    *ld = s0;
    return 'n';
  }
  if (rows == 1) s0 = 1, s1 = cols == 1 ? 1 : s1;
  if (cols == 1) s1 = TH_MAX(rows, 1);
  if (s0 == 1 && s1 >= TH_MAX(rows, 1) && s1 <= INT_MAX) {
    *ld = s1;
    return 't';
  }
  return 0;
}

static char THBlas_flip(char t) { return t == 'n' ? 't' : 'n'; }

/* Folds batch dims into the row dim when the batch is laid out as one long run of rows
 * (stride[d] == size[d+1] * stride[d+1] down to the row dim), as a contiguous (B, n, k) tensor
 * is: a batch of products with one shared right-hand matrix is then a single tall product. */
static int THMatrices_foldRows(int64_t *rows, int64_t *s0, const THMatrices *mt, int nb,
                               const int64_t *bsize) {
  int64_t r = mt->rows, size = mt->rows, stride = mt->s0, row_stride = mt->s0;
  int loose = mt->rows == 1; /* a single row has no stride of its own: the batch gives it one */
  for (int d = nb - 1; d >= 0; d--) {
    if (bsize[d] == 1) continue;
    if (loose) {
      if (mt->bstride[d] == 0) return 0;
      row_stride = mt->bstride[d];
      loose = 0;
    } else if (mt->bstride[d] != size * stride) {
      return 0;
    }
    size = bsize[d];
    stride = mt->bstride[d];
    r *= bsize[d];
  }
  *rows = r;
  *s0 = row_stride;
  return 1;
}

#include "generic/THTensorBlas.c"
#include "THGenerateAllTypes.h"

/* Threads for a batch of nbatch LAPACK calls on rows x cols matrices: up to the OpenMP thread
 * count, one matrix at a time each, when the batch holds about TH_BATCH_PARALLEL_WORK flops. */
static int THLapack_batchThreads(int64_t nbatch, int64_t rows, int64_t cols) {
  const double work = (double)nbatch * (double)rows * (double)cols * (double)TH_MAX(TH_MIN(rows, cols), 1);
  if (nbatch < 2 || work < TH_BATCH_PARALLEL_WORK || omp_in_parallel()) return 1;
  return (int)TH_MIN((int64_t)THThreads_max(), nbatch);
}

#include "generic/THTensorLapack.c"
#include "THGenerateBlasTypes.h"

#include "generic/THTensorNorm.c"
#include "THGenerateFloatTypes.h"
