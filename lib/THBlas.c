#include "THBlas.h"

#include <omp.h>

#include <cblas.h> /* from scipy-openblas32: its declarations carry the symbol prefix */

/* Below this many multiply-adds the C kernel stays on the calling thread. */
#define TH_GEMM_PARALLEL_WORK (1 << 18)

/* Block sizes of the C kernel: a MB x KB panel of op(a) (at most 64 KiB of 8-byte accumulators)
 * and a MB x NB block of results stay in L1/L2 while a column block of b streams past. */
#define TH_GEMM_MB 64
#define TH_GEMM_NB 64
#define TH_GEMM_KB 128

static CBLAS_TRANSPOSE THBlas_trans(char t) {
  return (t == 't' || t == 'T') ? CblasTrans : CblasNoTrans;
}

#include "generic/THBlas.c"
#include "THGenerateAllTypes.h"

void THBlas_setNumThreads(int n) {
  if (n > 0) TH_BLAS_SYM(openblas_set_num_threads)(n);
}

int THBlas_getNumThreads(void) { return TH_BLAS_SYM(openblas_get_num_threads)(); }

const char *THBlas_config(void) { return TH_BLAS_SYM(openblas_get_config)(); }
