#ifndef TH_VECTOR_MATH_H
#define TH_VECTOR_MATH_H

/* Included by THGeneral.h, so that every translation unit sees the same declarations of the C
 * math functions: under link-time optimisation gcc keeps one declaration per symbol, and a unit
 * that saw plain <math.h> (without the `simd` attribute below) made the whole program call the
 * scalar expf / tanhf, one element at a time, from rows built to be vectorised (a 4096-element
 * float tanh took 43 us where libmvec's AVX-512 version takes a fraction of that). */

#if !defined(TH_CDEF) && defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && \
    defined(__GLIBC__)
/* Vector math. glibc's libmvec has SIMD versions of these functions; declaring them `simd`
 * lets GCC vectorise loops that call them (with -fno-math-errno, which the build sets), and
 * TH_VECTOR_CLONES below compiles hot row functions for AVX-512, AVX2 and baseline x86-64,
 * chosen at load time, so one build runs on any x86-64 and uses the widest units it finds. */
#include <math.h>
#define TH_MVEC(fn) float fn##f(float) __attribute__((simd("notinbranch"))); \
                    double fn(double) __attribute__((simd("notinbranch")));
TH_MVEC(exp) TH_MVEC(expm1) TH_MVEC(log) TH_MVEC(log1p) TH_MVEC(log2) TH_MVEC(log10)
TH_MVEC(sin) TH_MVEC(cos) TH_MVEC(tan) TH_MVEC(asin) TH_MVEC(acos) TH_MVEC(atan)
TH_MVEC(sinh) TH_MVEC(cosh) TH_MVEC(tanh) TH_MVEC(erf)
#undef TH_MVEC
#define TH_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define TH_VECTOR_CLONES
#endif

#endif
