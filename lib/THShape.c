#include "THShape.h"

#include <stdint.h>
#include <stdio.h>

int THShape_wrapDim(int *out, const char *op, int64_t dim, int ndim) {
  int64_t n = ndim > 0 ? ndim : 1; /* a 0-dim tensor accepts dim 0 and -1, as in PyTorch */
  THArgCheck(dim >= -n && dim < n, TH_ERR_INDEX, -1,
             "%s: dim %lld is out of range for a tensor of %d dims (expected in [%lld, %lld])", op,
             (long long)dim, ndim, (long long)-n, (long long)(n - 1));
  *out = (int)(dim < 0 ? dim + n : dim);
  return 0;
}

int THShape_numel(int64_t *numel, const char *op, int ndim, const int64_t *size) {
  char buf[TH_SIZE_STR_LEN];
  THArgCheck(ndim >= 0 && ndim <= TH_MAX_DIM, TH_ERR_RUNTIME, -1,
             "%s: %d dims requested, at most %d are supported", op, ndim, TH_MAX_DIM);
  int64_t n = 1;
  int overflow = 0;
  for (int d = 0; d < ndim; d++) {
    THArgCheck(size[d] >= 0, TH_ERR_VALUE, -1, "%s: negative size %lld in dim %d of %s", op,
               (long long)size[d], d, THSize_str(buf, sizeof buf, ndim, size));
    if (THSize_mul(&n, n, size[d]) != 0) overflow = 1;
  }
  for (int d = 0; d < ndim; d++) if (size[d] == 0) { n = 0; overflow = 0; }
  THArgCheck(!overflow, TH_ERR_MEMORY, -1, "%s: the element count of %s overflows int64", op,
             THSize_str(buf, sizeof buf, ndim, size));
  *numel = n;
  return 0;
}

int THShape_contiguousStrides(int64_t *stride, int ndim, const int64_t *size) {
  int64_t s = 1;
  int overflow = 0;
  for (int d = ndim - 1; d >= 0; d--) {
    stride[d] = s;
    /* only a shape with a 0 elsewhere can get here with a product past int64 */
    if (d > 0 && !overflow && THSize_mul(&s, s, size[d] > 1 ? size[d] : 1) != 0) overflow = 1;
  }
  THArgCheck(!overflow, TH_ERR_RUNTIME, -1,
             "stride calculation overflowed: the contiguous strides of these sizes do not fit "
             "in int64");
  return 0;
}

int THShape_isContiguous(int ndim, const int64_t *size, const int64_t *stride) {
  int64_t expected = 1;
  for (int d = 0; d < ndim; d++)
    if (size[d] == 0) return 1; /* no elements: contiguous, as numpy and PyTorch say */
  for (int d = ndim - 1; d >= 0; d--) {
    if (size[d] == 1) continue;
    if (stride[d] != expected) return 0;
    expected *= size[d];
  }
  return 1;
}

int THShape_span(int64_t *span, const char *op, int64_t offset, int ndim, const int64_t *size,
                 const int64_t *stride) {
  THArgCheck(offset >= 0, TH_ERR_VALUE, -1, "%s: negative storage offset %lld", op,
             (long long)offset);
  int64_t last = offset;
  for (int d = 0; d < ndim; d++) {
    THArgCheck(stride[d] >= 0, TH_ERR_VALUE, -1, "%s: negative stride %lld in dim %d", op,
               (long long)stride[d], d);
  }
  for (int d = 0; d < ndim; d++) {
    if (size[d] == 0) { *span = 0; return 0; }
  }
  for (int d = 0; d < ndim; d++) {
    int64_t reach;
    THArgCheck(THSize_mul(&reach, size[d] - 1, stride[d]) == 0 &&
                   THSize_add(&last, last, reach) == 0,
               TH_ERR_RUNTIME, -1, "%s: the view's extent (offset %lld plus (size - 1) * stride "
               "over every dim) overflows int64", op, (long long)offset);
  }
  THArgCheck(THSize_add(span, last, 1) == 0, TH_ERR_RUNTIME, -1,
             "%s: storage offset %lld is out of range for any storage", op, (long long)offset);
  return 0;
}

int THShape_inferSize(int64_t *out, const char *op, int64_t numel, int ndim, const int64_t *size) {
  char buf[TH_SIZE_STR_LEN];
  int infer = -1;
  int64_t known = 1;
  for (int d = 0; d < ndim; d++) {
    out[d] = size[d];
    if (size[d] == -1) {
      THArgCheck(infer < 0, TH_ERR_RUNTIME, -1, "%s: only one dimension can be inferred", op);
      infer = d;
    } else {
      THArgCheck(size[d] >= 0, TH_ERR_RUNTIME, -1, "%s: invalid shape dimension %lld", op,
                 (long long)size[d]);
      if (THSize_mul(&known, known, size[d]) != 0) known = -1;
    }
  }
  if (infer >= 0) {
    THArgCheck(known > 0 && numel % known == 0, TH_ERR_RUNTIME, -1,
               "%s: shape '%s' is invalid for input of size %lld", op,
               THSize_str(buf, sizeof buf, ndim, size), (long long)numel);
    out[infer] = numel / known;
  } else {
    THArgCheck(known == numel, TH_ERR_RUNTIME, -1,
               "%s: shape '%s' is invalid for input of size %lld", op,
               THSize_str(buf, sizeof buf, ndim, size), (long long)numel);
  }
  return 0;
}

int THShape_viewStrides(int64_t *newstride, int ndim, const int64_t *size, const int64_t *stride,
                        int newdim, const int64_t *newsize) {
  static const int64_t one = 1;
  if (ndim == 0) { /* a scalar views like a single contiguous element */
    ndim = 1;
    size = &one;
    stride = &one;
  }
  if (THShape_count(ndim, size) == 0) {
    THShape_contiguousStrides(newstride, newdim, newsize);
    return 0;
  }
  /* Walk the old dims from the innermost, grouping runs that are contiguous with each other;
   * each run must be covered exactly by a run of new dims, laid over the run's base stride. */
  int vd = newdim - 1;
  int64_t base = stride[ndim - 1], run_numel = 1, view_numel = 1;
  for (int d = ndim - 1; d >= 0; d--) {
    run_numel *= size[d];
    int run_ends = d == 0 || (size[d - 1] != 1 && stride[d - 1] != run_numel * base);
    if (!run_ends) continue;
    while (vd >= 0 && (view_numel < run_numel || newsize[vd] == 1)) {
      newstride[vd] = view_numel * base;
      view_numel *= newsize[vd];
      vd--;
    }
    if (view_numel != run_numel) goto incompatible;
    if (d > 0) {
      base = stride[d - 1];
      run_numel = 1;
      view_numel = 1;
    }
  }
  if (vd == -1) return 0;
incompatible: {
  char a[TH_SIZE_STR_LEN], b[TH_SIZE_STR_LEN], c[TH_SIZE_STR_LEN];
  THError_set(TH_ERR_RUNTIME,
              "view(): size %s is not compatible with input size %s and stride %s (at least one "
              "dimension spans across two contiguous subspaces); use reshape() instead",
              THSize_str(a, sizeof a, newdim, newsize), THSize_str(b, sizeof b, ndim, size),
              THSize_str(c, sizeof c, ndim, stride));
  return -1;
}
}

int THShape_broadcastStrides(int64_t *out, const char *op, int ndim, const int64_t *size,
                             int sdim, const int64_t *ssize, const int64_t *sstride) {
  char a[TH_SIZE_STR_LEN], b[TH_SIZE_STR_LEN];
  int ok = sdim <= ndim;
  for (int d = ndim - 1, s = sdim - 1; ok && d >= 0; d--, s--) {
    if (s < 0) out[d] = 0;
    else if (ssize[s] == size[d]) out[d] = sstride[s];
    else if (ssize[s] == 1) out[d] = 0;
    else ok = 0;
  }
  THArgCheck(ok, TH_ERR_RUNTIME, -1, "%s: shape %s cannot be broadcast to shape %s", op,
             THSize_str(a, sizeof a, sdim, ssize), THSize_str(b, sizeof b, ndim, size));
  return 0;
}

int THShape_checkWritable(const char *op, int ndim, const int64_t *size, const int64_t *stride) {
  for (int d = 0; d < ndim; d++)
    if (size[d] == 0) return 0; /* no elements: nothing is written, as PyTorch allows */
  for (int d = 0; d < ndim; d++)
    THArgCheck(stride[d] != 0 || size[d] <= 1, TH_ERR_RUNTIME, -1,
               "%s: unsupported operation: more than one element of the written-to tensor refers "
               "to a single memory location (dim %d has size %lld and stride 0); clone() it "
               "first", op, d, (long long)size[d]);
  return 0;
}

int THShape_broadcast(int64_t *out, int *ndim, const char *op, int an, const int64_t *asize,
                      int bn, const int64_t *bsize) {
  int n = an > bn ? an : bn;
  for (int d = n - 1, i = an - 1, j = bn - 1; d >= 0; d--, i--, j--) {
    int64_t x = i >= 0 ? asize[i] : 1, y = j >= 0 ? bsize[j] : 1;
    if (x != y && x != 1 && y != 1) {
      char a[TH_SIZE_STR_LEN], b[TH_SIZE_STR_LEN];
      THError_set(TH_ERR_RUNTIME,
                  "%s: the size of tensor a (%lld) must match the size of tensor b (%lld) at "
                  "non-singleton dimension %d (shapes %s and %s)",
                  op, (long long)x, (long long)y, d, THSize_str(a, sizeof a, an, asize),
                  THSize_str(b, sizeof b, bn, bsize));
      return -1;
    }
    out[d] = x == 1 ? y : x;
  }
  *ndim = n;
  return 0;
}

/* Bytes from the first element's start to the last element's end. */
static int64_t THShape_extent(int ndim, const int64_t *size, int64_t elsize,
                              const int64_t *stride) {
  /* the operands are views whose span was checked (non-empty here), so this cannot overflow;
   * saturate all the same: a caller's broken view then counts as overlapping everything */
  int64_t last = 0, reach;
  for (int d = 0; d < ndim; d++)
    if (THSize_mul(&reach, size[d] - 1, stride[d]) != 0 || THSize_add(&last, last, reach) != 0)
      return INT64_MAX;
  if (THSize_add(&last, last, 1) != 0 || THSize_mul(&last, last, elsize) != 0) return INT64_MAX;
  return last;
}

int THShape_overlap(int ndim, const int64_t *size, const char *a, int64_t aelsize,
                    const int64_t *astride, const char *b, int64_t belsize,
                    const int64_t *bstride) {
  for (int d = 0; d < ndim; d++)
    if (size[d] == 0) return TH_OVERLAP_NONE;
  if (!a || !b) return TH_OVERLAP_NONE;
  uintptr_t a0 = (uintptr_t)a, b0 = (uintptr_t)b;
  const int64_t ae = THShape_extent(ndim, size, aelsize, astride);
  const int64_t be = THShape_extent(ndim, size, belsize, bstride);
  uintptr_t a1 = (uintptr_t)ae > UINTPTR_MAX - a0 ? UINTPTR_MAX : a0 + (uintptr_t)ae;
  uintptr_t b1 = (uintptr_t)be > UINTPTR_MAX - b0 ? UINTPTR_MAX : b0 + (uintptr_t)be;
  if (a1 <= b0 || b1 <= a0) return TH_OVERLAP_NONE;
  int same = a0 == b0 && aelsize == belsize;
  for (int d = 0; same && d < ndim; d++) same = size[d] == 1 || astride[d] == bstride[d];
  return same ? TH_OVERLAP_SAME : TH_OVERLAP_PARTIAL;
}
