#include "THLapack.h"

#include "THBlas.h" /* TH_BLAS_SYM: the library's symbol prefix */

/* LAPACK's Fortran calling convention (gfortran's, which OpenBLAS is built with): every
 * argument by reference, and one hidden string length per character argument, appended. */
typedef size_t THFortranStrlen;

#include "generic/THLapack.c"
#include "THGenerateBlasTypes.h"
