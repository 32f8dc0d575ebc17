#ifndef TH_TENSOR_APPLY_H
#define TH_TENSOR_APPLY_H

/* Iterating over strided tensors.
 *
 * Every pointwise kernel walks one to four operands of one shape (an operand that is broadcast
 * simply has stride 0 along the broadcast dims). The walk is prepared once by THIter_init:
 *   1. Dims of size 1 are dropped: they move no pointer.
 *   2. Dims are ordered by one operand's strides (the output's, usually), largest outermost,
 *      so that operand is walked in memory order even when it is a transpose of the logical
 *      order.
 *   3. Neighbouring dims that are contiguous with each other in EVERY operand
 *      (stride[outer] == size[inner] * stride[inner]) merge into one. Contiguous operands
 *      collapse to a single dim, and the kernel runs one flat loop.
 * What remains is an innermost dim run by the kernel's row function, and outer dims walked as
 * rows with an odometer. A row function receives the row's length, a pointer per operand and
 * the operands' innermost strides (in elements); it tests for unit strides once per row and
 * then runs a loop the compiler vectorises.
 *
 * THIter_run drives the row function:
 *   - Tiling. When some operand's innermost stride is not its smallest (A + A.T: one operand
 *     walks across rows of the other), the two innermost dims are cut into TH_TILE x TH_TILE
 *     blocks and each block is finished before the next, so both operands stay in cache.
 *   - Threads. When the work (elements x bytes of every operand's element x the kernel's
 *     weight, THParallel_worth) reaches the grain size, chosen by measurement on a 2-core
 *     machine, the elements, or the tiles, are split in equal contiguous ranges between
 *     OpenMP threads; smaller ops never pay for a thread team. Row functions are pure per
 *     element, so any split is correct.
 */

#include "THGeneral.h"

#define TH_ITER_MAXARGS 4
#define TH_TILE 64

typedef struct THIter {
  int narg;
  int ndim;                                  /* collapsed dims, outermost first */
  int64_t size[TH_MAX_DIM];
  int64_t stride[TH_ITER_MAXARGS][TH_MAX_DIM];
  int64_t elsize[TH_ITER_MAXARGS];           /* bytes per element of each operand */
  int64_t numel;
  int64_t inner;                             /* elements in the innermost dim */
  int64_t istride[TH_ITER_MAXARGS];          /* innermost strides */
  int64_t rows;                              /* numel / inner */
} THIter;

/* A kernel's inner loop: n elements; data[k] points at operand k's first element of the row,
 * stride[k] is its step in elements. */
typedef void (*THRowFn)(void *ctx, int64_t n, char **data, const int64_t *stride);

/* strides[k] are operand k's strides over the shared (ndim, size), elsize[k] its element size;
 * dims are ordered by operand order_by's strides. */
void THIter_init(THIter *it, int narg, int ndim, const int64_t *size,
                 const int64_t *const *strides, const int64_t *elsize, int order_by);
/* Positions the odometer at `row`: counter and per-operand element offsets. */
void THIter_seek(const THIter *it, int64_t row, int64_t *counter, int64_t *offset);
/* Runs fn over every element, tiled and threaded as described above. weight is the kernel's
 * cost per byte (TH_WEIGHT_MEMORY, TH_WEIGHT_TRANSCENDENTAL, ...); 0 keeps it on the calling
 * thread (for kernels whose row functions share state). */
void THIter_run(const THIter *it, char **base, THRowFn fn, void *ctx, int weight);
/* The part of `it` with collapsed dim d restricted to [begin, end): *sub and sub_base describe
 * it (how a caller splits work its own way, e.g. reductions that must not share an output
 * element between threads). */
void THIter_narrow(THIter *sub, char **sub_base, const THIter *it, char **base, int d,
                   int64_t begin, int64_t end);

/* Row-function bodies. TH_ROW_LOOPn runs the statements in __VA_ARGS__ for i in [0, N), with Xk
 * a `Tk *` to operand k's current element (DATA and STRIDE as a THRowFn receives them).
 *
 * The shape, TH_ROW_LOOP_, is the same for every arity: each operand's pointer and stride are
 * read once, then the first case that fits the strides runs, each case a loop of its own so
 * that the compiler vectorises the unit-stride ones:
 *   1. every operand at unit stride;
 *   2. (TH_ROW_LOOP3 only) operands 0 and 1 at unit stride, operand 2 broadcast (stride 0);
 *   3. otherwise every operand at its own stride.
 * Cases 1 and 2 are tested; a case macro CASE(k) gives the stride, 1 or 0, that operand k has
 * in the case. OPS = (TH_ROW_EACHn_, T0, X0, T1, X1, ...) lists the n operands, and
 * TH_ROW_MAP_(OPS, F, A) pastes F(A, k, Tk, Xk) for each operand k. */
#define TH_ROW_LOOP_(OPS, CASE2, N, DATA, STRIDE, ...)                                   \
  do {                                                                                   \
    TH_ROW_MAP_(OPS, TH_ROW_PTR_, DATA)                                                  \
    TH_ROW_MAP_(OPS, TH_ROW_STRIDE_, STRIDE)                                             \
    TH_ROW_CASE_(OPS, TH_ROW_UNIT_, N, __VA_ARGS__)                                      \
    CASE2(OPS, N, __VA_ARGS__)                                                           \
    else TH_ROW_FOR_(OPS, TH_ROW_AT_STRIDED_, , N, __VA_ARGS__)                          \
  } while (0)

#define TH_ROW_LOOP1(N, DATA, STRIDE, T0, X0, ...)                                       \
  TH_ROW_LOOP_((TH_ROW_EACH1_, T0, X0), TH_ROW_NO_CASE_, N, DATA, STRIDE, __VA_ARGS__)
#define TH_ROW_LOOP2(N, DATA, STRIDE, T0, X0, T1, X1, ...)                               \
  TH_ROW_LOOP_((TH_ROW_EACH2_, T0, X0, T1, X1), TH_ROW_NO_CASE_, N, DATA, STRIDE, __VA_ARGS__)
#define TH_ROW_LOOP3(N, DATA, STRIDE, T0, X0, T1, X1, T2, X2, ...)                       \
  TH_ROW_LOOP_((TH_ROW_EACH3_, T0, X0, T1, X1, T2, X2), TH_ROW_CASE_SCALAR2_, N, DATA,    \
               STRIDE, __VA_ARGS__)
#define TH_ROW_LOOP4(N, DATA, STRIDE, T0, X0, T1, X1, T2, X2, T3, X3, ...)               \
  TH_ROW_LOOP_((TH_ROW_EACH4_, T0, X0, T1, X1, T2, X2, T3, X3), TH_ROW_NO_CASE_, N, DATA, \
               STRIDE, __VA_ARGS__)

/* A tested case; a loop over the row with AT(A, k, Tk, Xk) declaring operand k's pointer. */
#define TH_ROW_CASE_(OPS, CASE, N, ...)                                                  \
  if (TH_ROW_MAP_(OPS, TH_ROW_TEST_, CASE) 1) TH_ROW_FOR_(OPS, TH_ROW_AT_, CASE, N, __VA_ARGS__)
#define TH_ROW_FOR_(OPS, AT, A, N, ...)                                                  \
  {                                                                                      \
    for (int64_t i = 0; i < (N); i++) {                                                  \
      TH_ROW_MAP_(OPS, AT, A)                                                            \
      __VA_ARGS__                                                                        \
    }                                                                                    \
  }
#define TH_ROW_UNIT_(K) 1
/* Case 2, TH_ROW_LOOP_'s CASE2: none, or operand 2 broadcast. */
#define TH_ROW_NO_CASE_(...)
#define TH_ROW_CASE_SCALAR2_(OPS, N, ...) else TH_ROW_CASE_(OPS, TH_ROW_SCALAR2_, N, __VA_ARGS__)
#define TH_ROW_SCALAR2_(K) TH_ROW_SCALAR2_##K
#define TH_ROW_SCALAR2_0 1
#define TH_ROW_SCALAR2_1 1
#define TH_ROW_SCALAR2_2 0

/* Operand K's pieces: its pointer and stride; its term in a case's test and its element pointer
 * in the case's loop (offset TH_ROW_STEP1 or TH_ROW_STEP0: `+ i` or none, not `+ i * 1`, which
 * GCC compiles to other, if equivalent, code); its element pointer in the strided loop. */
#define TH_ROW_PTR_(DATA, K, T, X) T *th_p##K##_ = (T *)(DATA)[K];
#define TH_ROW_STRIDE_(STRIDE, K, T, X) const int64_t th_s##K##_ = (STRIDE)[K];
#define TH_ROW_TEST_(CASE, K, T, X) th_s##K##_ == CASE(K) &&
#define TH_ROW_AT_(CASE, K, T, X) T *X = th_p##K##_ TH_ROW_CAT_(TH_ROW_STEP, CASE(K));
#define TH_ROW_STEP1 + i
#define TH_ROW_STEP0
#define TH_ROW_AT_STRIDED_(A, K, T, X) T *X = th_p##K##_ + i * th_s##K##_;

/* The operand list: TH_ROW_EACHn_(F, A, T0, X0, ...) is F(A, 0, T0, X0) ... for n operands. */
#define TH_ROW_MAP_(OPS, F, A) TH_ROW_CALL_(TH_ROW_APPLY_, F, A, TH_ROW_UNPACK_ OPS)
#define TH_ROW_APPLY_(F, A, EACH, ...) EACH(F, A, __VA_ARGS__)
#define TH_ROW_CALL_(M, ...) M(__VA_ARGS__)
#define TH_ROW_UNPACK_(...) __VA_ARGS__
#define TH_ROW_CAT_(A, B) TH_ROW_CAT2_(A, B)
#define TH_ROW_CAT2_(A, B) A##B
#define TH_ROW_EACH1_(F, A, T0, X0) F(A, 0, T0, X0)
#define TH_ROW_EACH2_(F, A, T0, X0, T1, X1) TH_ROW_EACH1_(F, A, T0, X0) F(A, 1, T1, X1)
#define TH_ROW_EACH3_(F, A, T0, X0, T1, X1, T2, X2)                                      \
  TH_ROW_EACH2_(F, A, T0, X0, T1, X1) F(A, 2, T2, X2)
#define TH_ROW_EACH4_(F, A, T0, X0, T1, X1, T2, X2, T3, X3)                              \
  TH_ROW_EACH3_(F, A, T0, X0, T1, X1, T2, X2) F(A, 3, T3, X3)

/* Advances the odometer over the outer dims by one row. */
static inline void THIter_next(const THIter *it, int64_t *counter, int64_t *offset) {
  for (int d = it->ndim - 2; d >= 0; d--) {
    if (++counter[d] < it->size[d]) {
      for (int k = 0; k < it->narg; k++) offset[k] += it->stride[k][d];
      return;
    }
    counter[d] = 0;
    for (int k = 0; k < it->narg; k++) offset[k] -= it->stride[k][d] * (it->size[d] - 1);
  }
}

#endif
