#ifndef TH_LAPACK_H
#define TH_LAPACK_H

/* THLapack: the LAPACK routines pyth.linalg uses, for Float and Double (THFloatLapack_getrf,
 * ...), calling OpenBLAS's LAPACK (scipy-openblas32) through its Fortran interface.
 *
 * The arguments are LAPACK's own, by value where LAPACK only reads them: column-major
 * matrices with leading dimensions, 32-bit sizes, and `info` (0: success, < 0: argument -info
 * was illegal, > 0: the routine's own failure such as a zero pivot). Routines with a workspace
 * take (work, lwork); lwork = -1 stores the optimal size in work[0], as LAPACK's query does.
 */

#include "THGeneral.h"

#define THLapack_(NAME) TH_CONCAT_4(TH, Real, Lapack_, NAME)

#include "generic/THLapack.h"
#include "THGenerateBlasTypes.h"

#endif
