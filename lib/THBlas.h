#ifndef TH_BLAS_H
#define TH_BLAS_H

/* THBlas: the BLAS operations pyth's matrix products are built from, for every element type but
 * Bool (THFloatBlas_gemm, THLongBlas_gemm, ...).
 *
 * The calls keep the reference BLAS's column-major conventions (trans flags 'n' / 't', leading
 * dimensions), so the tensor layer reasons about one interface whatever the element type:
 *   - Float and Double call OpenBLAS (scipy-openblas32: 32-bit BLAS ints, symbols prefixed with
 *     BLAS_SYMBOL_PREFIX). Their sizes, increments and leading dims must fit in an int, with the
 *     leading dims at least the stored rows and increments nonzero (the tensor layer copies an
 *     operand that breaks this). OpenBLAS runs single-threaded; a large gemm is split into
 *     blocks across OpenMP threads here (lib/THBlas.c), so one thread pool serves all of pyth.
 *   - Half and BFloat16 gemm converts to float, runs sgemm and rounds the result back once.
 *   - The integer types run a cache-blocked C kernel (THTensorBlas.c's strategy comment) that
 *     accumulates with wrap-around modulo 2^bits, as PyTorch's integer matmul does; Half and
 *     BFloat16 gemv / ger / dot use the same kernel accumulating in float.
 * gemm, gemv and ger return 0, or -1 with a MemoryError recorded (only the conversions allocate).
 */

#include "THGeneral.h"
#include "THTypes.h"

#define THBlas_(NAME) TH_CONCAT_4(TH, Real, Blas_, NAME)

#ifndef TH_CDEF
/* Names in the OpenBLAS build: TH_BLAS_SYM(cblas_sgemm) is scipy_cblas_sgemm when built with
 * -DBLAS_SYMBOL_PREFIX=scipy_ (build_ffi.py), plain cblas_sgemm for an unprefixed BLAS. */
#ifndef BLAS_SYMBOL_PREFIX
#define BLAS_SYMBOL_PREFIX
#endif
#define TH_BLAS_SYM(NAME) TH_CONCAT_2(BLAS_SYMBOL_PREFIX, NAME)
#endif

#include "generic/THBlas.h"
#include "THGenerateAllTypes.h"

/* OpenBLAS's own thread count (it runs a pthread pool of its own, separate from OpenMP's). */
void THBlas_setNumThreads(int n);
int THBlas_getNumThreads(void);
/* How a product big enough for threads runs (lib/THBlas.c): on one thread, in one slab of the
 * result per OpenMP thread, or on OpenBLAS's pool. THBlas_forcePlan makes every such product
 * take one way (tests); TH_GEMM_AUTO (the default) chooses. *previous (if not NULL) gets the
 * setting before; -1 with a ValueError outside [TH_GEMM_AUTO, TH_GEMM_POOL]. */
enum { TH_GEMM_AUTO = -1, TH_GEMM_ONE = 0, TH_GEMM_SLABS = 1, TH_GEMM_POOL = 2 };
int THBlas_forcePlan(int plan, int *previous);
/* The way a product of m x k by k x n called now, outside any parallel region, would run. */
int THBlas_gemmPlan(int64_t m, int64_t n, int64_t k);
/* The OpenBLAS build in use: version, kernel and flags, as openblas_get_config() reports. */
const char *THBlas_config(void);

#endif
