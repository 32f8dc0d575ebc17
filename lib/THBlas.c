#include "THBlas.h"

#include <omp.h>
#include <stdatomic.h>

#include <cblas.h> /* from scipy-openblas32: its declarations carry the symbol prefix */

/* Below this many multiply-adds the C kernel stays on the calling thread. */
#define TH_GEMM_PARALLEL_WORK (1 << 18)

/* Block sizes of the C kernel: a MB x KB panel of op(a) (at most 64 KiB of 8-byte accumulators)
 * and a MB x NB block of results stay in L1/L2 while a column block of b streams past. */
#define TH_GEMM_MB 64
#define TH_GEMM_NB 64
#define TH_GEMM_KB 128

/* Threads. OpenBLAS runs single-threaded (pyth/_openblas.py sets it at load) except for one
 * case below: pyth's OpenMP threads are the process's one pool. A product called from inside
 * one of pyth's parallel regions (a batch split between threads) stays on its thread. A
 * single product of at least TH_GEMM_SPLIT_WORK multiply-adds, called outside any region, runs
 * one of three ways (THBlas_plan):
 *   - slabs: while libgomp's workers are likely awake (a team started or ended within the
 *     last TH_GEMM_AWAKE_NS, as in a training step's stream of kernels), c is cut into one slab
 *     per OpenMP thread, each a product of its own. Running OpenBLAS's pool there left two
 *     pools of spinning threads taking turns on two cores (OpenMP's after each pointwise
 *     kernel, OpenBLAS's after each product): a 784-512-10 MLP step took 1.57 ms, not 1.29;
 *   - OpenBLAS's pool: otherwise (a product on its own, or a run of products), from
 *     TH_GEMM_POOL_WORK multiply-adds. Waking libgomp's sleeping workers and waiting at its
 *     barrier cost more than OpenBLAS's threads, which share packed panels: 256x256 float32
 *     0.13-0.14 ms against 0.18-0.20 in slabs, and 0.24-0.27 against 0.73 in a process whose
 *     numpy and PyTorch pools spin too;
 *   - one thread: a product alone below TH_GEMM_POOL_WORK. */
#define TH_GEMM_SPLIT_WORK (1 << 19)
#define TH_GEMM_SLAB_MIN 32         /* no slab thinner than this many rows or columns */
#define TH_GEMM_AWAKE_NS 1000000    /* how long after a team its workers count as awake */
/* OpenBLAS's pool wakes a sleeping worker for a product alone: 50-110 us on this 2-vCPU VM, so
 * below this many multiply-adds one thread is faster (160^3 float32: 73 us alone against 119 on
 * a sleeping pool, 64 against 50 on a warm one; 128^3: 43 against 157, 34 against 28) */
#define TH_GEMM_POOL_WORK (1 << 22)

static _Atomic int th_gemm_forced = TH_GEMM_AUTO;

int THBlas_forcePlan(int plan, int *previous) {
  THArgCheck(plan >= TH_GEMM_AUTO && plan <= TH_GEMM_POOL, TH_ERR_VALUE, -1,
             "THBlas_forcePlan: %d is not a plan (-1 auto, 0 one thread, 1 slabs, 2 pool)", plan);
  const int old = atomic_exchange(&th_gemm_forced, plan);
  if (previous) *previous = old;
  return 0;
}

typedef struct {
  int nt;        /* threads */
  int rows;      /* 1: slabs of c's rows (m), 0: of its columns (n) */
  int64_t len;   /* m or n */
} THBlasSplit;

/* How (m x n x k) runs (TH_GEMM_*); for slabs, along the longer side of c, so each thread
 * reads a slice of one operand and all of the other, into slabs at least TH_GEMM_SLAB_MIN
 * long. */
static int THBlas_plan(THBlasSplit *sp, int64_t m, int64_t n, int64_t k) {
  if ((double)m * (double)n * (double)k < TH_GEMM_SPLIT_WORK || omp_in_parallel())
    return TH_GEMM_ONE;
  sp->rows = m >= n;
  sp->len = sp->rows ? m : n;
  sp->nt = (int)TH_MIN((int64_t)THThreads_max(), sp->len / TH_GEMM_SLAB_MIN);
  if (sp->nt <= 1) return TH_GEMM_ONE;
  const int forced = atomic_load_explicit(&th_gemm_forced, memory_order_relaxed);
  if (forced != TH_GEMM_AUTO) return forced;
  if (THParallel_recent(TH_GEMM_AWAKE_NS)) return TH_GEMM_SLABS;
  return (double)m * (double)n * (double)k >= TH_GEMM_POOL_WORK ? TH_GEMM_POOL : TH_GEMM_ONE;
}

int THBlas_gemmPlan(int64_t m, int64_t n, int64_t k) {
  THBlasSplit sp;
  return THBlas_plan(&sp, m, n, k);
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
