#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THTensorSort.h"
#else

/* Sorting and selection along one dim.
 *
 * Every op works slice by slice: a slice is the 1-D run of elements along `dim` at one position
 * of the other dims (a 0-dim tensor is one slice of one element). Order is PyTorch's: NaN is
 * greater than every number (last ascending, first descending) and equal to itself; ties keep
 * their original order (a stable sort), so an op that picks "the k-th element" picks the one a
 * stable sort puts there. `dim` may be negative. Outputs are resized (kept when already of the
 * right shape) and come first; `indices` are int64 positions along `dim`. All return 0, or -1
 * with an error recorded (IndexError for a bad dim or an empty reduction dim, RuntimeError for k
 * out of range).
 */

/* values, indices = self sorted along dim; values may be NULL (argsort). */
int THTensor_(sort)(THTensor *values, THLongTensor *indices, THTensor *self, int64_t dim,
                    int descending);
/* The k largest (smallest when !largest) elements along dim, best first. The result is always
 * in sorted order, whatever `sorted` asks (PyTorch leaves the order unspecified then). */
int THTensor_(topk)(THTensor *values, THLongTensor *indices, THTensor *self, int64_t k,
                    int64_t dim, int largest, int sorted);
/* The k-th smallest element (k counts from 1) along dim; keepdim keeps dim with size 1. */
int THTensor_(kthvalue)(THTensor *values, THLongTensor *indices, THTensor *self, int64_t k,
                        int64_t dim, int keepdim);
/* The lower median along dim; a slice holding NaN gives its first NaN. nanmedian ignores NaNs
 * (an all-NaN slice gives its first NaN). */
int THTensor_(median)(THTensor *values, THLongTensor *indices, THTensor *self, int64_t dim,
                      int keepdim);
int THTensor_(nanmedian)(THTensor *values, THLongTensor *indices, THTensor *self, int64_t dim,
                         int keepdim);
/* The lower median of all elements, into the 0-dim `value`; NaN if any element is NaN (or, for
 * nanmedianAll, if all are) and for an empty tensor. */
int THTensor_(medianAll)(THTensor *value, THTensor *self);
int THTensor_(nanmedianAll)(THTensor *value, THTensor *self);
/* The most frequent value along dim (the smallest on a tie) and the index of its last
 * occurrence. NaNs are never equal to each other here, as in PyTorch. */
int THTensor_(mode)(THTensor *values, THLongTensor *indices, THTensor *self, int64_t dim,
                    int keepdim);
/* The distinct elements of self, ascending (1-D); inverse (self's shape) gives each element's
 * position in values, counts how often each occurs. inverse and counts may be NULL. Values
 * equal under == are one (0.0 and -0.0); NaNs are all distinct, as in PyTorch. */
int THTensor_(unique)(THTensor *values, THLongTensor *inverse, THLongTensor *counts,
                      THTensor *self);
/* unique over the slices self.select(dim, i), ordered lexicographically: values keeps
 * self's shape but size(dim) distinct slices; inverse and counts are 1-D (may be NULL). */
int THTensor_(uniqueDim)(THTensor *values, THLongTensor *inverse, THLongTensor *counts,
                         THTensor *self, int64_t dim);
/* Running maximum (minimum when `minimum`) along dim and the index where it was reached (the
 * later one on ties; NaN propagates): values and indices get self's shape (values may be self). */
int THTensor_(cumextreme)(THTensor *values, THLongTensor *indices, THTensor *self, int64_t dim,
                          int minimum);
/* r[i] = the insertion point of values[i] in its row of the sorted sequence (left: before equal
 * elements; right: after them). Both contiguous; the last dim of `sorted` is the searched one,
 * and its other dims are one row for every value or one row per row of values. */
int THTensor_(searchsorted)(THLongTensor *r, THTensor *sorted, THTensor *values, int right);

#endif
