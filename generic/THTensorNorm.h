#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THTensorNorm.h"
#else

/* The vector norm of a over the ndims dims (negative dims count from the end; ndims == 0 means
 * all of them), as torch.linalg.vector_norm: ord 2 sqrt(sum x^2), 1 sum |x|, inf max |x|,
 * -inf min |x|, 0 the count of nonzeros, else (sum |x|^ord)^(1/ord). Accumulates in double.
 * keepdim keeps the reduced dims with size 1. */
int THTensor_(linalgVectorNorm)(THTensor *r, THTensor *a, double ord, int ndims, const int *dims,
                                int keepdim);

#endif
