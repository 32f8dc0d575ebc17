#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THTensorIndex.h"
#else

/* Indexing kernels (PyTorch semantics; see lib/THTensorIndex.c for the strategy). Dims may be
 * negative; a 0-dim tensor counts as one element along dim 0. Outputs (r) are resized; they may
 * share memory with an input (the input is then read from a copy). In-place targets (self) must
 * not be expanded. All return 0, or -1 with an error recorded and nothing written. */

/* r = src with dim narrowed to the rows index (a vector, values in [0, size)) lists. */
int THTensor_(indexSelect)(THTensor *r, THTensor *src, int64_t dim, THLongTensor *index);
/* self's slice index[k] along dim = src's slice k (later duplicates win). */
int THTensor_(indexCopy)(THTensor *self, int64_t dim, THLongTensor *index, THTensor *src);
/* self's slice index[k] along dim += alpha * src's slice k (duplicates accumulate). */
int THTensor_(indexAdd)(THTensor *self, int64_t dim, THLongTensor *index, THTensor *src,
                        real alpha);
/* self's slices index[k] along dim = value (negative indices count from the end). */
int THTensor_(indexFill)(THTensor *self, int64_t dim, THLongTensor *index, real value);

/* r[i][j][k] = src[index[i][j][k]][j][k] (for dim 0); r has index's shape. */
int THTensor_(gather)(THTensor *r, THTensor *src, int64_t dim, THLongTensor *index);
/* self[index[i][j][k]][j][k] (op)= src[i][j][k] (for dim 0), op chosen by reduce
 * (TH_REDUCE_NONE: assign, later duplicates along dim win; ADD; MULTIPLY; AMAX and AMIN, NaN
 * propagating). */
int THTensor_(scatter)(THTensor *self, int64_t dim, THLongTensor *index, THTensor *src,
                       int reduce);
/* scatter with every src element equal to value. */
int THTensor_(scatterFill)(THTensor *self, int64_t dim, THLongTensor *index, real value,
                           int reduce);

/* self = value where mask (broadcast to self's shape) is true. */
int THTensor_(maskedFill)(THTensor *self, THBoolTensor *mask, real value);
/* r = the elements of src where mask is true, in row-major order (src and mask broadcast). */
int THTensor_(maskedSelect)(THTensor *r, THTensor *src, THBoolTensor *mask);
/* The true positions of mask (broadcast to self) take src's elements in row-major order. */
int THTensor_(maskedCopy)(THTensor *self, THBoolTensor *mask, THTensor *src);
/* r = the (count, ndim) coordinates of src's non-zero elements, in row-major order. */
int THTensor_(nonzero)(THLongTensor *r, THTensor *src);

/* r = src's elements at flat (row-major) positions index, in [-numel, numel); r has index's
 * shape. */
int THTensor_(take)(THTensor *r, THTensor *src, THLongTensor *index);
/* self's element at flat position index[i] = src[i] (+= when accumulate); index and src have
 * the same number of elements, paired in row-major order. */
int THTensor_(put)(THTensor *self, THLongTensor *index, THTensor *src, int accumulate);

#endif
