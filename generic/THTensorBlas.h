#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THTensorBlas.h"
#else

#if !defined(TH_REAL_IS_BOOL)
/* Matrix products. Each returns 0, or -1 with an error recorded. The add* forms compute
 * r = beta * t + alpha * (product) with t broadcast to the result's shape (r may be t: in
 * place); beta == 0 ignores t's values (NaN included). r is resized to the result's shape
 * unless it is t; r may overlap the factors (the product then goes through a temporary). */

/* numpy / PyTorch matmul: 1-D x 1-D is a dot product, a 1-D operand is a row (left) or a
 * column (right) that the result drops, dims before the last two are batch dims that
 * broadcast. */
int THTensor_(matmul)(THTensor *r, THTensor *a, THTensor *b);
/* 2-D m1 (n x k) @ m2 (k x m). */
int THTensor_(addmm)(THTensor *r, real beta, THTensor *t, real alpha, THTensor *m1,
                     THTensor *m2);
/* 2-D mat (n x k) @ 1-D vec (k). */
int THTensor_(addmv)(THTensor *r, real beta, THTensor *t, real alpha, THTensor *mat,
                     THTensor *vec);
/* outer product of 1-D vec1 (n) and vec2 (m). */
int THTensor_(addr)(THTensor *r, real beta, THTensor *t, real alpha, THTensor *vec1,
                    THTensor *vec2);
/* 3-D batch1 (b x n x k) @ batch2 (b x k x m), matrix by matrix. */
int THTensor_(baddbmm)(THTensor *r, real beta, THTensor *t, real alpha, THTensor *batch1,
                       THTensor *batch2);
/* The sum over the batch of batch1[i] @ batch2[i]: r is n x m. */
int THTensor_(addbmm)(THTensor *r, real beta, THTensor *t, real alpha, THTensor *batch1,
                      THTensor *batch2);
/* 0-dim r = sum of a * b over two 1-D tensors of one length. */
int THTensor_(dot)(THTensor *r, THTensor *a, THTensor *b);
#endif

#endif
