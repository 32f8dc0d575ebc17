#include "THTensorReduce.h"

#include <math.h>
#include <omp.h>
#include <string.h>

#include "THTensorApply.h"
#include "THTensorMath.h"

/* How a reduction runs.
 *
 * 1. The plan. THReduction_init wraps and checks the dims and describes the result: its shape,
 *    and for every input dim two strides over that same dim: `accstride`, the stride of a
 *    contiguous result-shaped accumulator (0 along reduced dims, so every element reduced into
 *    one result element reaches the same accumulator cell), and `idxstride`, the row-major
 *    position within the reduced dims (0 along kept dims), which arg-reductions read.
 * 2. The walk. The input and the accumulator (plus an optional per-result operand such as the
 *    mean var subtracts, and for arg-reductions a phantom operand whose address minus its base
 *    is that position) go through THIter_init ORDERED BY THE INPUT's strides, so the input is
 *    read in memory order whatever the dims. Reducing dim 0 of a row-major matrix then walks
 *    rows: acc[j] op= x[i][j], a vectorised loop (the "vertical" case); reducing the last dim
 *    puts the reduced dim innermost with accumulator stride 0, and the row function reduces
 *    the row in registers, in TH_REDUCE_LANES independent lanes that the compiler vectorises
 *    without reassociating anything (the "horizontal" case), then folds it into the cell.
 *    Accumulators are accreal (double, int64) and are converted to the result type at the end,
 *    through the result's own strides (out= may be any layout).
 * 3. Threads. Above the grain size the walk is split along one collapsed dim, never so that
 *    two threads update one accumulator cell: along a kept dim (each chunk owns a slice of the
 *    result), or along a reduced dim with a private accumulator per chunk, merged in chunk
 *    order at the end (a whole-tensor sum, or the rows of a column sum). Chunks are handed out
 *    dynamically, a few per thread, so one thread the OS delays holds the others up less, and
 *    results do not depend on which thread ran which chunk. Scans (cumsum) carry a running
 *    value along their dim, so they only split kept dims.
 * Hot loops are cloned for AVX2 / AVX-512 with GCC target_clones and picked at load time, so
 * the default build still runs on any x86-64.
 */

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(TH_NO_CLONES)
#define TH_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define TH_VECTOR_CLONES
#endif

#define TH_REDUCE_LANES 32   /* independent accumulators of a horizontal row */
#define TH_REDUCE_COLS 32768 /* cells a vertical block keeps in L2 while rows stream by */
#define TH_ARG_BLOCK 1024    /* elements an arg-reduction scans for their extreme at once */

typedef struct THReduction {
  const char *op;
  int ndim;                        /* input dims */
  int64_t size[TH_MAX_DIM];        /* input sizes */
  bool reduced[TH_MAX_DIM];
  int rdim;                        /* result dims */
  int64_t rsize[TH_MAX_DIM];       /* result sizes */
  int64_t nout, nred;              /* result elements; input elements per result element */
  int64_t accstride[TH_MAX_DIM];   /* see the top of the file; both over the input's dims */
  int64_t idxstride[TH_MAX_DIM];
} THReduction;

/* A vertical block: `rows` input rows of n elements reduced into one row of n cells, row r of
 * operand k starting at data[k] + r * rstride[k] elements; unit strides along the rows
 * (operand 0: the cells, 1: the input, 2: the per-result operand, stride 0 or 1). */
typedef void (*THBlockFn)(void *ctx, int64_t n, int64_t rows, char **data,
                          const int64_t *stride, const int64_t *rstride);

/* What one kind of reduction supplies to the driver: its row function, optionally a block
 * function for the vertical case, how to fill an accumulator with the identity, and how to
 * merge a thread's private accumulator into the shared one (NULL for scans, which must not be
 * split along their dim). */
typedef struct THReduceOp {
  THRowFn row;
  THBlockFn block;
  void (*init)(char *acc, int64_t n);
  void (*merge)(char *acc, const char *part, int64_t n);
  int64_t accsize;
} THReduceOp;

/* What row functions may read: the norm's p (var's correction), the number of elements
 * reduced into each result, the phantom operand's base. */
typedef struct THReduceCtx {
  double p;
  int64_t n;
  const char *phantom;
} THReduceCtx;

static const int64_t th_zero_strides[TH_MAX_DIM] = {0};
/* The phantom operand's base: its "elements" are positions, never read. */
static const char th_phantom = 0;

static int THReduction_init(THReduction *p, const char *op, int ndim, const int64_t *size,
                            int ndims, const int64_t *dims, int keepdim) {
  p->op = op;
  p->ndim = ndim;
  for (int d = 0; d < ndim; d++) {
    p->size[d] = size[d];
    p->reduced[d] = ndims == 0;
  }
  for (int i = 0; i < ndims; i++) {
    int d;
    THTry(THShape_wrapDim(&d, op, dims[i], ndim), -1);
    if (ndim == 0) continue; /* dim 0 of a scalar: nothing to reduce */
    THArgCheck(!p->reduced[d], TH_ERR_RUNTIME, -1,
               "%s: dim %d appears multiple times in the list of dims", op, d);
    p->reduced[d] = true;
  }
  p->rdim = 0;
  p->nout = p->nred = 1;
  int64_t acc = 1, idx = 1;
  /* Checked: a tensor's element count fits int64 unless a size is 0, and then the other
   * sizes' product may not. Only a product of kept sizes without a 0 among them is real (the
   * result is allocated); the rest belong to walks over no elements and are never used. */
  int overflow = 0, kept_zero = 0, red_zero = 0;
  for (int d = ndim - 1; d >= 0; d--) {
    if (p->reduced[d]) {
      p->accstride[d] = 0;
      p->idxstride[d] = idx;
      red_zero |= size[d] == 0;
      (void)(THSize_mul(&idx, idx, size[d]) | THSize_mul(&p->nred, p->nred, size[d]));
    } else {
      p->accstride[d] = acc;
      p->idxstride[d] = 0;
      kept_zero |= size[d] == 0;
      overflow |= THSize_mul(&acc, acc, size[d]) | THSize_mul(&p->nout, p->nout, size[d]);
    }
  }
  if (kept_zero) p->nout = 0;
  if (red_zero) p->nred = 0;
  if (overflow && !kept_zero) {
    char buf[TH_SIZE_STR_LEN];
    THError_set(TH_ERR_MEMORY, "%s: the reduction of a tensor of size %s needs more than "
                "int64 elements of results or positions", op, THSize_str(buf, sizeof buf, ndim,
                                                                        size));
    return -1;
  }
  for (int d = 0; d < ndim; d++)
    if (!p->reduced[d] || keepdim) p->rsize[p->rdim++] = p->reduced[d] ? 1 : size[d];
  return 0;
}

/* max, min and their kin have no identity: they refuse to reduce over no elements. */
static int THReduction_checkNonEmpty(const THReduction *p, int ndims, int whole_kind) {
  const int64_t numel = THShape_count(p->ndim, p->size);
  THArgCheck(!(ndims == 0 && numel == 0), whole_kind, -1,
             "%s: Expected reduction dim to be specified for input.numel() == 0. Specify the "
             "reduction dim with the 'dim' argument.", p->op);
  for (int d = 0; d < p->ndim; d++)
    THArgCheck(!(p->reduced[d] && p->size[d] == 0), TH_ERR_INDEX, -1,
               "%s: Expected reduction dim %d to have non-zero size.", p->op, d);
  return 0;
}

/* ---- the threaded driver ------------------------------------------------------------------ */

/* The fraction of nt threads kept busy when a dim of size n is cut in nt equal slices. */
static double THReduce_balance(int64_t n, int nt) {
  int64_t chunk = (n + nt - 1) / nt;
  return (double)n / (double)(chunk * nt);
}

/* Picks the collapsed dim to split between nt threads: the best balanced, preferring outer
 * dims (whole rows) to the innermost (column slices). A reduced dim needs a private
 * accumulator per chunk (*private_acc), allowed when the op can merge them and they are
 * small next to the input. -1: no useful split. */
static int THReduce_splitDim(const THIter *it, int nt, int can_merge, int64_t nout,
                             int64_t accsize, int *private_acc) {
  int best = -1;
  double best_score = 0;
  *private_acc = 0;
  for (int d = 0; d < it->ndim; d++) {
    const int64_t n = it->size[d];
    const int kept = it->stride[0][d] != 0, inner = d > 0 && d == it->ndim - 1;
    if (n < 2) continue;
    if (!kept && !(can_merge && nout * 4 * nt <= it->numel / 16 &&
                   nout * accsize * 4 * nt <= ((int64_t)1 << 26)))
      continue;
    double score = THReduce_balance(n, nt);
    if (inner) score *= n / nt < 64 ? 0.45 : 0.9;
    if (score > best_score + 0.05) {
      best = d;
      best_score = score;
      *private_acc = !kept;
    }
  }
  return best;
}

typedef struct THReduceBlock {
  THBlockFn fn;
  void *ctx;
  int64_t rows;
  int64_t rstride[TH_ITER_MAXARGS];
} THReduceBlock;

static void THReduce_blockRow(void *ctx, int64_t n, char **data, const int64_t *stride) {
  const THReduceBlock *b = ctx;
  b->fn(b->ctx, n, b->rows, data, stride, b->rstride);
}

/* Walks (one thread's part of) a reduction. In the vertical case (the innermost dim kept, with
 * unit strides, the next one reduced) the op's block function takes the rows of that next dim
 * together: the walk is narrowed to its first row, and the block reads the others. */
static void THReduce_walk(const THIter *it, char **base, const THReduceOp *op, void *ctx) {
  const int d = it->ndim - 2;
  if (op->block && d >= 0 && it->stride[0][d] == 0 && it->size[d] > 1 && it->istride[0] == 1 &&
      it->istride[1] == 1) {
    THReduceBlock b = {op->block, ctx, it->size[d], {0}};
    for (int k = 0; k < it->narg; k++) b.rstride[k] = it->stride[k][d];
    THIter first;
    char *first_base[TH_ITER_MAXARGS];
    THIter_narrow(&first, first_base, it, base, d, 0, 1);
    THIter_run(&first, first_base, THReduce_blockRow, &b, 0);
    return;
  }
  THIter_run(it, base, op->row, ctx, 0);
}

/* Runs op's row function over every element: operand 0 is the accumulator (nout cells of
 * op->accsize bytes at base[0], initialised), operand 1 the input (the walk follows its
 * strides), others read-only. Split work goes in chunks handed out dynamically, a few per
 * thread, so a thread the OS delays holds the others up less; private accumulators belong to
 * chunks and merge in chunk order, so results do not depend on which thread ran what. */
static int THReduce_run(const THReduction *p, const THReduceOp *op, void *ctx, int narg,
                        char **base, const int64_t *const *strides, const int64_t *elsize) {
  THIter it;
  THIter_init(&it, narg, p->ndim, p->size, strides, elsize, 1);
  if (it.numel == 0) return 0;
  int nt = 1, priv = 0, d = -1;
  if (THParallel_worth(it.numel, elsize[1])) { /* asked only then: see THThreads_max */
    nt = THThreads_max();
    d = THReduce_splitDim(&it, nt, op->merge != NULL, p->nout, op->accsize, &priv);
  }
  if (d < 0) {
    THReduce_walk(&it, base, op, ctx);
    return 0;
  }
  /* column slices stay one per thread (long rows stream best); rows go four chunks a thread */
  const int inner = d > 0 && d == it.ndim - 1;
  int64_t chunk = (it.size[d] + 4 * nt - 1) / (4 * nt);
  if (inner) chunk = (it.size[d] + nt - 1) / nt;
  if (inner && chunk > 64) chunk = (chunk + 15) / 16 * 16; /* slices start on a cache line */
  const int64_t nchunks = (it.size[d] + chunk - 1) / chunk;
  const int64_t bytes = p->nout * op->accsize;
  char *parts = NULL;
  if (priv) {
    parts = THAllocArray(p->op, nchunks - 1, bytes);
    if (!parts) return -1;
  }
#pragma omp parallel for schedule(dynamic, 1) num_threads((int)TH_MIN((int64_t)nt, nchunks))
  for (int64_t t = 0; t < nchunks; t++) {
    THIter sub;
    char *sub_base[TH_ITER_MAXARGS];
    THIter_narrow(&sub, sub_base, &it, base, d, t * chunk, TH_MIN(it.size[d], (t + 1) * chunk));
    if (priv && t > 0) {
      sub_base[0] = parts + (t - 1) * bytes;
      op->init(sub_base[0], p->nout);
    }
    THReduce_walk(&sub, sub_base, op, ctx);
  }
  THParallel_noteTeam();
  if (priv) {
    for (int64_t t = 1; t < nchunks; t++) op->merge(base[0], parts + (t - 1) * bytes, p->nout);
    THFree(parts);
  }
  return 0;
}

/* Accumulator memory: small results live on the stack (per-call cost matters for small
 * tensors), larger ones on the heap. */
typedef struct THReduceBuf {
  char *data;
  _Alignas(64) char local[256];
} THReduceBuf;

static char *THReduceBuf_get(THReduceBuf *b, int64_t n, int64_t accsize) {
  int64_t bytes;
  b->data = NULL;
  if (THSize_bytes(&bytes, "reduction", n, accsize) != 0) return NULL;
  b->data = bytes <= (int64_t)sizeof b->local ? b->local : THAlloc((size_t)bytes);
  return b->data;
}

static void THReduceBuf_free(THReduceBuf *b) {
  if (b->data != b->local) THFree(b->data);
}

/* Converts the accumulators (a contiguous result-shaped buffer of accsize-byte cells) into the
 * result (rdata, any strides) with the pointwise row function fn(result, acc). */
static void THReduce_finish(THRowFn fn, void *ctx, const THReduction *p, char *rdata,
                            const int64_t *rstride, int64_t relsize, char *acc, int64_t accsize) {
  int64_t cstride[TH_MAX_DIM];
  THShape_contiguousStrides(cstride, p->rdim, p->rsize);
  const int64_t *strides[2] = {rstride, cstride};
  const int64_t elsize[2] = {relsize, accsize};
  char *base[2] = {rdata, acc};
  THIter it;
  THIter_init(&it, 2, p->rdim, p->rsize, strides, elsize, 0);
  THIter_run(&it, base, fn, ctx, TH_WEIGHT_MEMORY);
}

#include "generic/THTensorReduce.c"
#include "THGenerateAllTypes.h"
