#ifndef TH_SHAPE_H
#define TH_SHAPE_H

/* Shape and stride arithmetic shared by every element type: it works on plain int64 arrays, so
 * it is written once here rather than stamped. Functions that can fail take the name of the
 * user-facing operation for their messages and return 0, or -1 with an error recorded. */

#include "THGeneral.h"

/* Wraps a possibly negative dim into [0, ndim); IndexError naming op otherwise. */
int THShape_wrapDim(int *out, const char *op, int64_t dim, int ndim);
/* Checks ndim <= TH_MAX_DIM, sizes >= 0 and that the element count fits in int64. */
int THShape_numel(int64_t *numel, const char *op, int ndim, const int64_t *size);
/* The element count of sizes already checked (a tensor's, a result's): their product fits in
 * int64 unless one of them is 0, which is therefore looked for before multiplying (huge sizes
 * beside a 0 are a valid empty tensor, and multiplying them first overflows). */
#ifndef TH_CDEF
static inline int64_t THShape_count(int ndim, const int64_t *size) {
  for (int d = 0; d < ndim; d++)
    if (size[d] == 0) return 0;
  int64_t n = 1;
  for (int d = 0; d < ndim; d++) n *= size[d];
  return n;
}
#endif
/* Row-major strides for size (size-0 and size-1 dims step like size 1); RuntimeError when they
 * overflow int64 (possible only for shapes with a 0 among huge sizes). */
int THShape_contiguousStrides(int64_t *stride, int ndim, const int64_t *size);
int THShape_isContiguous(int ndim, const int64_t *size, const int64_t *stride);
/* One past the furthest element a view reaches (0 when it has no elements). */
int THShape_span(int64_t *span, const char *op, int64_t offset, int ndim, const int64_t *size,
                 const int64_t *stride);
/* Replaces one -1 in size by what numel implies; RuntimeError if the sizes cannot hold numel. */
int THShape_inferSize(int64_t *out, const char *op, int64_t numel, int ndim, const int64_t *size);
/* Strides that give a view of newsize over (size, stride) without a copy; RuntimeError if the
 * layout makes that impossible (PyTorch's rule: each run of merged dims must be contiguous). */
int THShape_viewStrides(int64_t *newstride, int ndim, const int64_t *size, const int64_t *stride,
                        int newdim, const int64_t *newsize);
/* Strides of src broadcast to (ndim, size): 0 along broadcast dims; RuntimeError if src's shape
 * does not broadcast to size. */
int THShape_broadcastStrides(int64_t *out, const char *op, int ndim, const int64_t *size,
                             int sdim, const int64_t *ssize, const int64_t *sstride);

/* The broadcast of two shapes into out (ndim = the larger rank); RuntimeError naming both
 * shapes when they do not broadcast. out may alias asize. */
int THShape_broadcast(int64_t *out, int *ndim, const char *op, int an, const int64_t *asize,
                      int bn, const int64_t *bsize);
/* RuntimeError when a tensor about to be written has elements sharing one cell (stride 0 over a
 * dim of size > 1, as expand() makes): the result would depend on the write order. */
int THShape_checkWritable(const char *op, int ndim, const int64_t *size, const int64_t *stride);

/* How two operands walked over one shape (ndim, size) share memory, given their first bytes,
 * element sizes and strides (in elements, non-negative): TH_OVERLAP_NONE when their byte ranges
 * are disjoint (or the shape is empty); TH_OVERLAP_SAME when they are the same walk (same start,
 * element size and strides: each element is read just before it is written, which is safe);
 * TH_OVERLAP_PARTIAL otherwise: writing one while reading the other would depend on the order,
 * so the reader must be copied first. Distinct storages can share memory (two tensors
 * borrowing one ndarray), so this compares addresses, not storages. */
enum { TH_OVERLAP_NONE = 0, TH_OVERLAP_SAME = 1, TH_OVERLAP_PARTIAL = 2 };
int THShape_overlap(int ndim, const int64_t *size, const char *a, int64_t aelsize,
                    const int64_t *astride, const char *b, int64_t belsize,
                    const int64_t *bstride);

#endif
