#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THTensorRandom.h"
#else

/* Sampling kernels: each fills self (any strided layout, never an expanded one) in place with
 * draws from gen, holding gen's lock for the whole fill and walking self in memory order on
 * the calling thread, so the numbers drawn do not depend on the thread count. Each returns 0,
 * or -1 with an error recorded (bad parameters are checked before anything is drawn). */

/* Bernoulli(p): 1 with probability p, else 0 (p in [0, 1]). */
int THTensor_(bernoulli)(THTensor *self, THGenerator *gen, double p);
/* Bernoulli with a probability per element: p broadcasts to self's shape; all in [0, 1]. */
int THTensor_(bernoulliTensor)(THTensor *self, THGenerator *gen, THDoubleTensor *p);
/* Integers in [0, 2^digits] for floating types (every one exact), [0, max] for integer types,
 * {0, 1} for bool. */
int THTensor_(random)(THTensor *self, THGenerator *gen);
/* Integers in [from, to): from < to, and from and to - 1 representable in self's type. */
int THTensor_(clampedRandom)(THTensor *self, THGenerator *gen, int64_t from, int64_t to);
/* Integers in [from, the type's maximum] (for floating types, 2^digits). */
int THTensor_(randomFrom)(THTensor *self, THGenerator *gen, int64_t from);

#if !defined(TH_REAL_IS_BOOL)
/* Geometric(p): the number of Bernoulli(p) trials up to the first success (p in (0, 1));
 * integer types saturate at their maximum. */
int THTensor_(geometric)(THTensor *self, THGenerator *gen, double p);
/* self = a random permutation of 0 .. n-1 (resized to n; n-1 must be exact in the type). */
int THTensor_(randperm)(THTensor *self, THGenerator *gen, int64_t n);
#endif

#if defined(TH_REAL_IS_FLOATING)
/* Uniform on [from, to). */
int THTensor_(uniform)(THTensor *self, THGenerator *gen, double from, double to);
/* Normal(mean, std^2), std >= 0. */
int THTensor_(normal)(THTensor *self, THGenerator *gen, double mean, double std);
/* self = mean + std * N(0, 1) elementwise; mean and std broadcast together and self is
 * resized to their shape; every std >= 0. */
int THTensor_(normalTensor)(THTensor *self, THGenerator *gen, THTensor *mean, THTensor *std);
/* Exponential with rate lambd > 0. */
int THTensor_(exponential)(THTensor *self, THGenerator *gen, double lambd);
/* Cauchy(median, sigma), sigma > 0. */
int THTensor_(cauchy)(THTensor *self, THGenerator *gen, double median, double sigma);
/* exp(Normal(mean, std^2)), std > 0. */
int THTensor_(logNormal)(THTensor *self, THGenerator *gen, double mean, double std);
/* r = n_sample category indices per row of prob (1-D: one distribution, 2-D: one per row),
 * drawn with probabilities proportional to prob's entries (finite, >= 0, positive sum);
 * without replacement each category is drawn at most once. */
int THTensor_(multinomial)(THLongTensor *r, THGenerator *gen, THTensor *prob, int64_t n_sample,
                           int replacement);
#endif

#endif
