#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THTensorMath.h"
#else

/* Pointwise math, declared from the op lists in THMathOps.h. Every binary op broadcasts a and
 * b; r is resized to the broadcast shape unless it is a or b (then the shapes must agree). The
 * <name>Scalar forms take b as a value of the compute type `opreal`: for Half and BFloat16 that
 * is float, so a Python number reaches the kernel unrounded (PyTorch's mul and div keep it so;
 * the ops where PyTorch rounds it to the tensor's type first get it rounded by the caller).
 * All return 0, or -1 with an error recorded. */

/* Each op also has a <name>New form returning a new result tensor (NULL with an error
 * recorded on failure): one call instead of two for the small ops of a Python expression. */
#define TH_UNARY_DECL(NAME, EXPR)                                  \
  int THTensor_(NAME)(THTensor *r, THTensor *a);                  \
  THTensor *THTensor_(NAME##New)(THTensor *a);
#define TH_BINARY_DECL(NAME, EXPR)                                 \
  int THTensor_(NAME)(THTensor *r, THTensor *a, THTensor *b);     \
  int THTensor_(NAME##Scalar)(THTensor *r, THTensor *a, opreal b); \
  THTensor *THTensor_(NAME##New)(THTensor *a, THTensor *b);       \
  THTensor *THTensor_(NAME##ScalarNew)(THTensor *a, opreal b);
#define TH_COMPARE_DECL(NAME, EXPR)                                \
  int THTensor_(NAME)(THBoolTensor *r, THTensor *a, THTensor *b); \
  int THTensor_(NAME##Scalar)(THBoolTensor *r, THTensor *a, opreal b); \
  THBoolTensor *THTensor_(NAME##New)(THTensor *a, THTensor *b);   \
  THBoolTensor *THTensor_(NAME##ScalarNew)(THTensor *a, opreal b);
#define TH_PREDICATE_DECL(NAME, EXPR)                              \
  int THTensor_(NAME)(THBoolTensor *r, THTensor *a);              \
  THBoolTensor *THTensor_(NAME##New)(THTensor *a);

TH_ALL_BINARY_OPS(TH_BINARY_DECL)
TH_COMPARE_OPS(TH_COMPARE_DECL)
TH_ALL_PREDICATE_OPS(TH_PREDICATE_DECL)

#if defined(TH_REAL_IS_FLOATING)
TH_FLOAT_UNARY_OPS(TH_UNARY_DECL)
TH_FLOAT_BINARY_OPS(TH_BINARY_DECL)
/* the derivatives of the transcendental ops: r = grad of the input (see THMathOps.h) */
TH_GRAD_OPS(TH_BINARY_DECL)
/* the binary ops' derivatives: r = grad of input / other from grad, input, other */
#define TH_GRAD2_DECL(NAME, EXPR) int THTensor_(NAME)(THTensor *r, THTensor *g, THTensor *a, THTensor *b);
TH_GRAD2_OPS(TH_GRAD2_DECL)
TH_FLOAT_PREDICATE_OPS(TH_PREDICATE_DECL)
/* r = a + weight * (b - a) */
int THTensor_(lerp)(THTensor *r, THTensor *a, THTensor *b, THTensor *weight);
/* the same with a number weight, in the compute type (PyTorch keeps it unrounded) */
int THTensor_(lerpScalar)(THTensor *r, THTensor *a, THTensor *b, opreal weight);
/* r = a + value * t1 / t2 (value in the compute type, as PyTorch keeps it) */
int THTensor_(addcdiv)(THTensor *r, THTensor *a, THTensor *t1, THTensor *t2, opreal value);
#endif

#if defined(TH_REAL_IS_INTEGRAL)
TH_INT_BINARY_OPS(TH_BINARY_DECL)
#endif

#if defined(TH_REAL_IS_INTEGRAL) || defined(TH_REAL_IS_BOOL)
TH_BITWISE_BINARY_OPS(TH_BINARY_DECL)
TH_UNARY_DECL(bitwise_not, ~x)
#endif

#if !defined(TH_REAL_IS_BOOL)
TH_NUMERIC_UNARY_OPS(TH_UNARY_DECL)
/* r = a + value * t1 * t2 (value in the compute type, as PyTorch keeps it) */
int THTensor_(addcmul)(THTensor *r, THTensor *a, THTensor *t1, THTensor *t2, opreal value);
/* r = min(max(a, lo), hi); has_lo / has_hi say which bounds apply. */
int THTensor_(clamp)(THTensor *r, THTensor *a, int has_lo, real lo, int has_hi, real hi);
#endif

/* r = cond ? a : b, all three broadcast together. */
int THTensor_(where)(THTensor *r, THBoolTensor *cond, THTensor *a, THTensor *b);

/* Makes r the result tensor of an op with the given shape: resized unless it is one of the
 * op's inputs (is_input), in which case its shape must already match; never an expanded
 * tensor (elements sharing memory). */
int THTensor_(resizeOutput)(THTensor *r, const char *op, int ndim, const int64_t *size,
                            int is_input);

#undef TH_UNARY_DECL
#undef TH_BINARY_DECL
#undef TH_COMPARE_DECL
#undef TH_PREDICATE_DECL

#endif
