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

/* Threads. OpenBLAS always runs single-threaded (pyth/_openblas.py sets it at load): pyth's
 * OpenMP threads are the process's one pool. A product called from inside one of pyth's
 * parallel regions (a batch split between threads) stays on its thread. A single product of at
 * least TH_GEMM_SPLIT_WORK multiply-adds, called outside any region, is cut into one slab of c
 * per thread, each a product of its own (THBlas_split). Running OpenBLAS's own pool instead
 * left two pools of spinning threads taking turns on two cores (OpenMP's after each pointwise
 * kernel, OpenBLAS's after each product), and was slower even alone on this machine. */
#define TH_GEMM_SPLIT_WORK (1 << 19)
#define TH_GEMM_SLAB_MIN 32   /* no slab thinner than this many rows or columns */

typedef struct {
  int nt;        /* threads */
  int rows;      /* 1: slabs of c's rows (m), 0: of its columns (n) */
  int64_t len;   /* m or n */
} THBlasSplit;

/* Whether (m x n x k) is split, and how: along the longer side of c, so each thread reads a
 * slice of one operand and all of the other, into slabs at least TH_GEMM_SLAB_MIN long. */
static int THBlas_split(THBlasSplit *sp, int64_t m, int64_t n, int64_t k) {
  if ((double)m * (double)n * (double)k < TH_GEMM_SPLIT_WORK || omp_in_parallel()) return 0;
  sp->rows = m >= n;
  sp->len = sp->rows ? m : n;
  sp->nt = (int)TH_MIN((int64_t)THThreads_max(), sp->len / TH_GEMM_SLAB_MIN);
  return sp->nt > 1;
}

/* Thread t's slab [*lo, *hi) of nt: equal parts rounded to the nearest multiple of 16 (whole
 * vector blocks for the kernel), the last taking the rest. */
static void THBlas_slab(const THBlasSplit *sp, int t, int nt, int64_t *lo, int64_t *hi) {
  const int64_t part = TH_MAX((sp->len / nt + 8) / 16 * 16, 16);
  *lo = TH_MIN(part * t, sp->len);
  *hi = t == nt - 1 ? sp->len : TH_MIN(part * (t + 1), sp->len);
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
