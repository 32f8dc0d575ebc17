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
 *   - Threads. Above a grain size (THGetGrainSize(), chosen by measurement on a 2-core
 *     machine; small tensors never pay for a thread team) the elements, or the tiles, are
 *     split in equal contiguous ranges between OpenMP threads. Row functions are pure per
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
/* Runs fn over every element, tiled and threaded as described above; parallel=0 keeps it on
 * the calling thread (for kernels whose row functions share state). */
void THIter_run(const THIter *it, char **base, THRowFn fn, void *ctx, int parallel);
/* The part of `it` with collapsed dim d restricted to [begin, end): *sub and sub_base describe
 * it (how a caller splits work its own way, e.g. reductions that must not share an output
 * element between threads). */
void THIter_narrow(THIter *sub, char **sub_base, const THIter *it, char **base, int d,
                   int64_t begin, int64_t end);

/* Row-function bodies. Each runs the statements in __VA_ARGS__ for i in [0, N), with Xk a
 * `Tk *` to operand k's current element (DATA and STRIDE as a THRowFn receives them). The
 * all-unit-stride case is a separate loop so the compiler can vectorise it; TH_ROW_LOOP3 also
 * separates a broadcast third operand (stride 0: a scalar). */
#define TH_ROW_LOOP1(N, DATA, STRIDE, T0, X0, ...)                                  \
  do {                                                                             \
    T0 *th_p0_ = (T0 *)(DATA)[0];                                                  \
    const int64_t th_s0_ = (STRIDE)[0];                                            \
    if (th_s0_ == 1) {                                                             \
      for (int64_t i = 0; i < (N); i++) { T0 *X0 = th_p0_ + i; __VA_ARGS__ }       \
    } else {                                                                       \
      for (int64_t i = 0; i < (N); i++) { T0 *X0 = th_p0_ + i * th_s0_; __VA_ARGS__ } \
    }                                                                              \
  } while (0)

#define TH_ROW_LOOP2(N, DATA, STRIDE, T0, X0, T1, X1, ...)                         \
  do {                                                                             \
    T0 *th_p0_ = (T0 *)(DATA)[0];                                                  \
    T1 *th_p1_ = (T1 *)(DATA)[1];                                                  \
    const int64_t th_s0_ = (STRIDE)[0], th_s1_ = (STRIDE)[1];                      \
    if (th_s0_ == 1 && th_s1_ == 1) {                                              \
      for (int64_t i = 0; i < (N); i++) {                                          \
        T0 *X0 = th_p0_ + i;                                                       \
        T1 *X1 = th_p1_ + i;                                                       \
        __VA_ARGS__                                                                \
      }                                                                            \
    } else {                                                                       \
      for (int64_t i = 0; i < (N); i++) {                                          \
        T0 *X0 = th_p0_ + i * th_s0_;                                              \
        T1 *X1 = th_p1_ + i * th_s1_;                                              \
        __VA_ARGS__                                                                \
      }                                                                            \
    }                                                                              \
  } while (0)

#define TH_ROW_LOOP3(N, DATA, STRIDE, T0, X0, T1, X1, T2, X2, ...)                 \
  do {                                                                             \
    T0 *th_p0_ = (T0 *)(DATA)[0];                                                  \
    T1 *th_p1_ = (T1 *)(DATA)[1];                                                  \
    T2 *th_p2_ = (T2 *)(DATA)[2];                                                  \
    const int64_t th_s0_ = (STRIDE)[0], th_s1_ = (STRIDE)[1], th_s2_ = (STRIDE)[2]; \
    if (th_s0_ == 1 && th_s1_ == 1 && th_s2_ == 1) {                               \
      for (int64_t i = 0; i < (N); i++) {                                          \
        T0 *X0 = th_p0_ + i;                                                       \
        T1 *X1 = th_p1_ + i;                                                       \
        T2 *X2 = th_p2_ + i;                                                       \
        __VA_ARGS__                                                                \
      }                                                                            \
    } else if (th_s0_ == 1 && th_s1_ == 1 && th_s2_ == 0) {                        \
      for (int64_t i = 0; i < (N); i++) {                                          \
        T0 *X0 = th_p0_ + i;                                                       \
        T1 *X1 = th_p1_ + i;                                                       \
        T2 *X2 = th_p2_;                                                           \
        __VA_ARGS__                                                                \
      }                                                                            \
    } else {                                                                       \
      for (int64_t i = 0; i < (N); i++) {                                          \
        T0 *X0 = th_p0_ + i * th_s0_;                                              \
        T1 *X1 = th_p1_ + i * th_s1_;                                              \
        T2 *X2 = th_p2_ + i * th_s2_;                                              \
        __VA_ARGS__                                                                \
      }                                                                            \
    }                                                                              \
  } while (0)

#define TH_ROW_LOOP4(N, DATA, STRIDE, T0, X0, T1, X1, T2, X2, T3, X3, ...)        \
  do {                                                                             \
    T0 *th_p0_ = (T0 *)(DATA)[0];                                                  \
    T1 *th_p1_ = (T1 *)(DATA)[1];                                                  \
    T2 *th_p2_ = (T2 *)(DATA)[2];                                                  \
    T3 *th_p3_ = (T3 *)(DATA)[3];                                                  \
    const int64_t th_s0_ = (STRIDE)[0], th_s1_ = (STRIDE)[1];                      \
    const int64_t th_s2_ = (STRIDE)[2], th_s3_ = (STRIDE)[3];                      \
    if (th_s0_ == 1 && th_s1_ == 1 && th_s2_ == 1 && th_s3_ == 1) {                \
      for (int64_t i = 0; i < (N); i++) {                                          \
        T0 *X0 = th_p0_ + i;                                                       \
        T1 *X1 = th_p1_ + i;                                                       \
        T2 *X2 = th_p2_ + i;                                                       \
        T3 *X3 = th_p3_ + i;                                                       \
        __VA_ARGS__                                                                \
      }                                                                            \
    } else {                                                                       \
      for (int64_t i = 0; i < (N); i++) {                                          \
        T0 *X0 = th_p0_ + i * th_s0_;                                              \
        T1 *X1 = th_p1_ + i * th_s1_;                                              \
        T2 *X2 = th_p2_ + i * th_s2_;                                              \
        T3 *X3 = th_p3_ + i * th_s3_;                                              \
        __VA_ARGS__                                                                \
      }                                                                            \
    }                                                                              \
  } while (0)

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
