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

/* Threads. OpenBLAS runs single-threaded (pyth/_openblas.py sets it at load), so a product
 * called from inside one of pyth's OpenMP regions (a batch split across threads) stays on its
 * thread. A single product above TH_GEMM_SPLIT_WORK multiply-adds, called outside any parallel
 * region, raises OpenBLAS to pyth's thread count for its duration (generic/THBlas.c). The
 * threshold (about a 256^3 product, a fraction of a millisecond on one core) keeps small
 * products on the calling thread: waking a second thread costs more than it saves. */
#define TH_GEMM_SPLIT_WORK (1 << 24)

static int THBlas_splitThreads(int64_t m, int64_t n, int64_t k) {
  if ((double)m * (double)n * (double)k < TH_GEMM_SPLIT_WORK || omp_in_parallel()) return 1;
  return (int)TH_MIN((int64_t)THThreads_max(), TH_MAX(TH_MAX(m, n) / 64, 1));
}

/* The C kernel's hot function is compiled twice, for AVX2 and for baseline x86-64, and the
 * loader picks one for the CPU it runs on (the build never assumes more than x86-64). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define TH_SIMD_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define TH_SIMD_CLONES
#endif

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
