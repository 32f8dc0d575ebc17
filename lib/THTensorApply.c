#include "THTensorApply.h"

void THIter_init(THIter *it, int narg, int ndim, const int64_t *size,
                 const int64_t *const *strides) {
  int perm[TH_MAX_DIM], n = 0;
  it->narg = narg;
  it->numel = 1;
  for (int d = 0; d < ndim; d++) it->numel *= size[d];

  /* 1. drop size-1 dims (and, with no elements, everything: there is nothing to walk) */
  for (int d = 0; d < ndim && it->numel > 0; d++)
    if (size[d] != 1) perm[n++] = d;

  /* 2. order by the first operand's stride, largest first (insertion sort: ndim is small);
   * ties keep the logical order. */
  for (int i = 1; i < n; i++) {
    int d = perm[i], j = i;
    while (j > 0 && strides[0][perm[j - 1]] < strides[0][d]) {
      perm[j] = perm[j - 1];
      j--;
    }
    perm[j] = d;
  }

  /* 3. merge an outer dim into the following one when every operand allows it */
  int m = 0;
  for (int i = 0; i < n; i++) {
    int d = perm[i];
    if (m > 0) {
      int mergeable = 1;
      for (int k = 0; k < narg; k++)
        mergeable &= it->stride[k][m - 1] == strides[k][d] * size[d];
      if (mergeable) {
        it->size[m - 1] *= size[d];
        for (int k = 0; k < narg; k++) it->stride[k][m - 1] = strides[k][d];
        continue;
      }
    }
    it->size[m] = size[d];
    for (int k = 0; k < narg; k++) it->stride[k][m] = strides[k][d];
    m++;
  }
  it->ndim = m;
  it->inner = m > 0 ? it->size[m - 1] : (it->numel > 0 ? 1 : 0);
  for (int k = 0; k < TH_ITER_MAXARGS; k++) it->istride[k] = (m > 0 && k < narg) ? it->stride[k][m - 1] : 0;
  it->rows = it->inner > 0 ? it->numel / it->inner : 0;
}

void THIter_seek(const THIter *it, int64_t row, int64_t *counter, int64_t *offset) {
  for (int k = 0; k < TH_ITER_MAXARGS; k++) offset[k] = 0;
  for (int d = it->ndim - 2; d >= 0; d--) {
    counter[d] = row % it->size[d];
    row /= it->size[d];
    for (int k = 0; k < it->narg; k++) offset[k] += counter[d] * it->stride[k][d];
  }
}
