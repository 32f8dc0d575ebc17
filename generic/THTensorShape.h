#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THTensorShape.h"
#else

/* r = src with the order of the elements along each of dims[0..ndims) reversed. r is resized
 * to src's shape; r may be src (flipped in place through a temporary). Negative dims count
 * from the end; a dim given twice is a RuntimeError. Returns 0, or -1 with an error recorded. */
int THTensor_(flip)(THTensor *r, THTensor *src, int ndims, const int64_t *dims);

/* r = src with the elements above (tril) or below (triu) the k-th diagonal of every matrix
 * in the last two dims set to zero. k = 0 is the main diagonal, k > 0 above it, k < 0 below.
 * r is resized to src's shape unless it is src (in place). src needs at least 2 dims. */
int THTensor_(tril)(THTensor *r, THTensor *src, int64_t k);
int THTensor_(triu)(THTensor *r, THTensor *src, int64_t k);

/* Copies parts[0..n) of r's type into r one after another along dim: each fills the next
 * parts[i]->size[dim] slices of r (cat), or, with stack set, the one slice i of r along dim
 * (stack). r already has the joined shape; the caller has checked the parts' shapes. One call
 * for the whole join instead of a narrow and a copy per part. Returns 0, or -1 with an error
 * recorded (r partly written). */
int THTensor_(catArray)(THTensor *r, THTensor *const *parts, int n, int dim, int stack);

#endif
