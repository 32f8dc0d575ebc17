#ifndef TH_TENSOR_LINALG_H
#define TH_TENSOR_LINALG_H

/* Linear algebra on tensors: the matrix products (generic/THTensorBlas.h, every type but Bool)
 * over THBlas, the factorisations and solvers (generic/THTensorLapack.h, Float and Double) over
 * THLapack, and vector norms (generic/THTensorNorm.h, floating types). */

#include "THBlas.h"
#include "THLapack.h"
#include "THTensor.h"

/* What the per-matrix `info` outputs of the LAPACK-backed functions hold: LAPACK's own info
 * (> 0: the routine's failure, e.g. the index of a zero pivot), or this code for a matrix that
 * holds NaN or infinity where the routine would not converge on one (SVD). */
enum { TH_LINALG_INFO_NONFINITE = -1000000 };

/* Modes of THTensor_(linalgQr) and drivers of THTensor_(linalgLstsq). */
enum { TH_QR_REDUCED = 0, TH_QR_COMPLETE = 1, TH_QR_R = 2 };
enum { TH_LSTSQ_GELS = 0, TH_LSTSQ_GELSY = 1, TH_LSTSQ_GELSD = 2, TH_LSTSQ_GELSS = 3 };

#include "generic/THTensorBlas.h"
#include "THGenerateAllTypes.h"

#include "generic/THTensorLapack.h"
#include "THGenerateBlasTypes.h"

#include "generic/THTensorNorm.h"
#include "THGenerateFloatTypes.h"

#endif
