#ifndef TH_TENSOR_APPLY_H
#define TH_TENSOR_APPLY_H

/* Iterating over strided tensors.
 *
 * Every pointwise kernel walks one to three operands of one shape (an operand that is broadcast
 * simply has stride 0 along the broadcast dims). The walk is prepared once by THIter_init:
 *   1. Dims of size 1 are dropped: they move no pointer.
 *   2. Dims are ordered by the first operand's strides, largest outermost, so the output is
 *      written in memory order even when it is a transpose of the logical order.
 *   3. Neighbouring dims that are contiguous with each other in EVERY operand
 *      (stride[outer] == size[inner] * stride[inner]) merge into one. Contiguous operands thus
 *      collapse to a single dim, and the kernel becomes one flat loop.
 * What remains is an innermost dim (`inner` elements, stride `istride[k]` per operand) run by a
 * tight loop, and outer dims walked as "rows" with an odometer counter. TH_APPLY* take the
 * fast branch when every innermost stride is 1, which the compiler vectorises.
 * Rows can be walked from any starting row (THIter_seek), which is what lets a kernel split
 * the rows between threads.
 */

#include "THGeneral.h"

#define TH_ITER_MAXARGS 3

typedef struct THIter {
  int narg;
  int ndim;                                  /* collapsed dims, outermost first */
  int64_t size[TH_MAX_DIM];
  int64_t stride[TH_ITER_MAXARGS][TH_MAX_DIM];
  int64_t numel;
  int64_t inner;                             /* elements in the innermost dim */
  int64_t istride[TH_ITER_MAXARGS];          /* innermost strides */
  int64_t rows;                              /* numel / inner */
} THIter;

/* strides[k] are operand k's strides over the shared (ndim, size). */
void THIter_init(THIter *it, int narg, int ndim, const int64_t *size,
                 const int64_t *const *strides);
/* Positions the odometer at `row`: counter and per-operand offsets. */
void THIter_seek(const THIter *it, int64_t row, int64_t *counter, int64_t *offset);

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

/* Runs the statements in __VA_ARGS__ once per row in [BEGIN, END), with OFF[k] the offset of
 * operand k's row start. */
#define TH_ITER_ROWS(IT, BEGIN, END, OFF, ...)                                 \
  do {                                                                         \
    int64_t th_ctr_[TH_MAX_DIM], OFF[TH_ITER_MAXARGS];                         \
    THIter_seek((IT), (BEGIN), th_ctr_, OFF);                                  \
    for (int64_t th_row_ = (BEGIN); th_row_ < (END); th_row_++) {              \
      __VA_ARGS__                                                              \
      THIter_next((IT), th_ctr_, OFF);                                         \
    }                                                                          \
  } while (0)

/* Applies the statements in __VA_ARGS__ to every element, with X0 (a T0*) and X1 (a T1*)
 * pointing at the current elements of operands 0 and 1. */
#define TH_APPLY2(IT, T0, BASE0, X0, T1, BASE1, X1, ...)                        \
  do {                                                                          \
    const THIter *th_it_ = (IT);                                                \
    const int64_t th_n_ = th_it_->inner;                                        \
    const int64_t th_s0_ = th_it_->istride[0], th_s1_ = th_it_->istride[1];     \
    TH_ITER_ROWS(th_it_, 0, th_it_->rows, th_off_, {                            \
      T0 *th_r0_ = (BASE0) + th_off_[0];                                        \
      T1 *th_r1_ = (BASE1) + th_off_[1];                                        \
      if (th_s0_ == 1 && th_s1_ == 1) {                                         \
        for (int64_t th_i_ = 0; th_i_ < th_n_; th_i_++) {                       \
          T0 *X0 = th_r0_ + th_i_;                                              \
          T1 *X1 = th_r1_ + th_i_;                                              \
          __VA_ARGS__                                                           \
        }                                                                       \
      } else {                                                                  \
        for (int64_t th_i_ = 0; th_i_ < th_n_; th_i_++) {                       \
          T0 *X0 = th_r0_ + th_i_ * th_s0_;                                     \
          T1 *X1 = th_r1_ + th_i_ * th_s1_;                                     \
          __VA_ARGS__                                                           \
        }                                                                       \
      }                                                                         \
    });                                                                         \
  } while (0)

/* One operand. */
#define TH_APPLY1(IT, T0, BASE0, X0, ...)                                       \
  do {                                                                          \
    const THIter *th_it_ = (IT);                                                \
    const int64_t th_n_ = th_it_->inner, th_s0_ = th_it_->istride[0];           \
    TH_ITER_ROWS(th_it_, 0, th_it_->rows, th_off_, {                            \
      T0 *th_r0_ = (BASE0) + th_off_[0];                                        \
      if (th_s0_ == 1) {                                                        \
        for (int64_t th_i_ = 0; th_i_ < th_n_; th_i_++) {                       \
          T0 *X0 = th_r0_ + th_i_;                                              \
          __VA_ARGS__                                                           \
        }                                                                       \
      } else {                                                                  \
        for (int64_t th_i_ = 0; th_i_ < th_n_; th_i_++) {                       \
          T0 *X0 = th_r0_ + th_i_ * th_s0_;                                     \
          __VA_ARGS__                                                           \
        }                                                                       \
      }                                                                         \
    });                                                                         \
  } while (0)

#endif
