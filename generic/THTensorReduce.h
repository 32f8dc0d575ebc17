#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THTensorReduce.h"
#else

/* Reductions of a over the dims dims[0..ndims) (negative dims count from the end; ndims == 0
 * reduces every dim). The result r has a's shape without those dims, or with them as size-1
 * dims when keepdim. r is resized as needed (it may be a itself: it is written only after a is
 * read). Every function returns 0, or -1 with an error recorded: IndexError for a dim out of
 * range, RuntimeError for a dim listed twice or (max, min, ...) a reduction over no elements.
 *
 * Sums and products accumulate in accreal (double for floating types, int64 for integers and
 * bool, wrapping on overflow) and return the type of THSumTensor: the input's own type for
 * floating types, Long for the others, as PyTorch does. */

#if defined(TH_REAL_IS_FLOATING)
#define THSumTensor THTensor
#else
#define THSumTensor THLongTensor
#endif

int THTensor_(sum)(THSumTensor *r, THTensor *a, int ndims, const int64_t *dims, int keepdim);
int THTensor_(prod)(THSumTensor *r, THTensor *a, int ndims, const int64_t *dims, int keepdim);
/* Whether every / some element along the dims is non-zero. */
int THTensor_(all)(THBoolTensor *r, THTensor *a, int ndims, const int64_t *dims, int keepdim);
int THTensor_(any)(THBoolTensor *r, THTensor *a, int ndims, const int64_t *dims, int keepdim);

/* Extremes; NaN wins (it propagates). amax/amin give values; max/min give values and the
 * int64 index of the FIRST extreme (indices may be NULL); argmax/argmin give indices.
 * An index counts positions in the reduced dims flattened in row-major order (the position
 * along the dim when one dim is reduced, the flat index when all are). A reduced dim of size
 * 0 is an IndexError; reducing all dims of an empty tensor is a RuntimeError (IndexError for
 * argmax/argmin), as in PyTorch. */
int THTensor_(amax)(THTensor *r, THTensor *a, int ndims, const int64_t *dims, int keepdim);
int THTensor_(amin)(THTensor *r, THTensor *a, int ndims, const int64_t *dims, int keepdim);
int THTensor_(max)(THTensor *values, THLongTensor *indices, THTensor *a, int ndims,
                   const int64_t *dims, int keepdim);
int THTensor_(min)(THTensor *values, THLongTensor *indices, THTensor *a, int ndims,
                   const int64_t *dims, int keepdim);
int THTensor_(argmax)(THLongTensor *indices, THTensor *a, int ndims, const int64_t *dims,
                      int keepdim);
int THTensor_(argmin)(THLongTensor *indices, THTensor *a, int ndims, const int64_t *dims,
                      int keepdim);

/* Running sum / product along dim, accumulated in accreal; r has a's shape (r may be a). */
int THTensor_(cumsum)(THSumTensor *r, THTensor *a, int64_t dim);
int THTensor_(cumprod)(THSumTensor *r, THTensor *a, int64_t dim);

#if defined(TH_REAL_IS_FLOATING)
/* log(cumsum(exp(a))) along dim, accumulated in double by logaddexp; r has a's shape. */
int THTensor_(logcumsumexp)(THSumTensor *r, THTensor *a, int64_t dim);
int THTensor_(mean)(THTensor *r, THTensor *a, int ndims, const int64_t *dims, int keepdim);
/* Sum of squared deviations from the mean (two passes, in double) divided by
 * max(0, n - correction); std is its square root. */
int THTensor_(var)(THTensor *r, THTensor *a, int ndims, const int64_t *dims, double correction,
                   int keepdim);
int THTensor_(std)(THTensor *r, THTensor *a, int ndims, const int64_t *dims, double correction,
                   int keepdim);
/* Vector p-norm: (sum |x|^p)^(1/p); p = 0 counts non-zeros, p = +-inf is max / min |x|
 * (a RuntimeError over no elements). */
int THTensor_(norm)(THTensor *r, THTensor *a, double p, int ndims, const int64_t *dims,
                    int keepdim);
/* log(sum(exp(x))), computed as m + log(sum(exp(x - m))) with m the max, so it cannot
 * overflow. */
int THTensor_(logsumexp)(THTensor *r, THTensor *a, int ndims, const int64_t *dims, int keepdim);
/* Histogram of a's elements in `bins` equal bins over [min, max] (min == max: the data's
 * range); elements outside it (and NaN) are ignored; r is 1-D of a's type. */
int THTensor_(histc)(THTensor *r, THTensor *a, int64_t bins, double min, double max);
#endif

#undef THSumTensor

#endif
