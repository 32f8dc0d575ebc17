#ifndef TH_MATH_OPS_H
#define TH_MATH_OPS_H

/* The pointwise operations, in one place.
 *
 * Each list entry is _(name, expression). The expression computes on `x` (and `y`, `z`) of the
 * compute type `opreal` (float for Half/BFloat16) and is stamped by generic/THTensorMath.c into
 * a row function and a TH<Real>Tensor_<name> entry point, and by generic/THTensorMath.h into
 * its declaration; cffi's declarations derive from that header. Adding an op is one line here
 * (plus its Python table entry). Integer arithmetic wraps (it is done in the unsigned `ureal`)
 * instead of overflowing, which C leaves undefined. TH_NEG_P and TH_ISNAN are defined per
 * stamped type by the generic file (constant 0 where the type cannot be negative or NaN), and
 * so is TH_M(f): the C math function for the compute type (expf for float, exp for double), and
 * TH_ROUND(v): v rounded to the stored type where that is narrower than the compute type
 * (Half, BFloat16), as PyTorch rounds such intermediates.
 */

#include "THGeneral.h"

#ifndef TH_CDEF
#include <math.h>
#include <stdint.h>
#endif

/* r = f(x), floating types only: the costly ones (a polynomial or a vector-math call per
 * element), then the rounding ones (an instruction each).
 *
 * The costly ones carry their derivative beside them: _(name, forward, derivative). The
 * derivative column is stamped (TH_GRAD_OPS below) into the binary kernel
 * TH<Real>Tensor_<name>_backward(r, g, s): r = the input's gradient from g, the output's
 * gradient, loaded as `x`, and s, the saved value, loaded as `y`: the op's result where the
 * autograd table (pyth/autograd/derivatives/pointwise.py) saves "result", its input where it saves
 * "input". So one gradient step of such an op is one C call. */
#define TH_FLOAT_UNARY_OPS(_) TH_TRANSCENDENTAL_OPS(_) TH_ROUNDING_OPS(_)
#define TH_TRANSCENDENTAL_OPS(_) TH_TRANSCENDENTAL_LIST(TH_FORWARD_OF, _) TH_SPECIAL_OPS(_)
#define TH_GRAD_OPS(_) TH_TRANSCENDENTAL_LIST(TH_GRAD_OF, _) TH_NUMERIC_GRAD_OPS(_)
#define TH_FORWARD_OF(_, NAME, EXPR, GRAD) _(NAME, EXPR)
#define TH_GRAD_OF(_, NAME, EXPR, GRAD) _(NAME##_backward, GRAD)
#define TH_TRANSCENDENTAL_LIST(M, _)                                                 /* saves */ \
  M(_, exp, TH_M(exp)(x), x * y)                                                     /* result */ \
  M(_, expm1, TH_M(expm1)(x), x * (y + 1))                                           /* result */ \
  M(_, log, TH_M(log)(x), x / y)                                                     /* input */  \
  M(_, log1p, TH_M(log1p)(x), x / (y + 1))                                           /* input */  \
  M(_, log2, TH_M(log2)(x), x / (y * (opreal)0.693147180559945309417))               /* input */  \
  M(_, log10, TH_M(log10)(x), x / (y * (opreal)2.30258509299404568402))              /* input */  \
  M(_, sqrt, TH_M(sqrt)(x), x / (2 * y))                                             /* result */ \
  M(_, rsqrt, 1 / TH_M(sqrt)(x), (opreal)-0.5 * x * y * y * y)                       /* result */ \
  M(_, reciprocal, 1 / x, -x * y * y)                                                /* result */ \
  M(_, sin, TH_M(sin)(x), x * TH_M(cos)(y))                                          /* input */  \
  M(_, cos, TH_M(cos)(x), -x * TH_M(sin)(y))                                         /* input */  \
  M(_, tan, TH_M(tan)(x), x * (1 + y * y))                                           /* result */ \
  M(_, asin, TH_M(asin)(x), x / TH_M(sqrt)(1 - y * y))                               /* input */  \
  M(_, acos, TH_M(acos)(x), -x / TH_M(sqrt)(1 - y * y))                              /* input */  \
  M(_, atan, TH_M(atan)(x), x / (1 + y * y))                                         /* input */  \
  M(_, sinh, TH_M(sinh)(x), x * TH_M(cosh)(y))                                       /* input */  \
  M(_, cosh, TH_M(cosh)(x), x * TH_M(sinh)(y))                                       /* input */  \
  M(_, tanh, TH_M(tanh)(x), x * (1 - y * y))                                         /* result */ \
  M(_, sigmoid, 1 / (1 + TH_M(exp)(-x)), x * (y * (1 - y)))                          /* result */ \
  M(_, erf, TH_M(erf)(x), x * (opreal)1.12837916709551257390 * TH_M(exp)(-y * y))    /* input */  \
  M(_, erfinv, TH_erfinv(x), x * (opreal)0.886226925452758013649 * TH_M(exp)(y * y)) /* result */ \
  M(_, lgamma, TH_M(lgamma)(x), x * (opreal)TH_digamma(y))                           /* input */
/* Special functions without a derivative kernel (autograd composes theirs, where it has one). */
#define TH_SPECIAL_OPS(_)                                             \
  _(erfc, TH_M(erfc)(x))                                              \
  _(digamma, TH_digamma(x))                                           \
  _(i0, TH_i0(x))
#define TH_ROUNDING_OPS(_)                                            \
  _(floor, TH_M(floor)(x))                                            \
  _(ceil, TH_M(ceil)(x))                                              \
  _(round, TH_M(nearbyint)(x))                                        \
  _(trunc, TH_M(trunc)(x))                                            \
  _(frac, x - TH_M(trunc)(x))

/* r = f(x), every type but bool. */
#define TH_NUMERIC_UNARY_OPS(_)                                       \
  _(abs, (TH_NEG_P(x) ? (opreal)(-(ureal)x) : x))                     \
  _(neg, (opreal)(-(ureal)x))                                         \
  _(sign, (opreal)((x > 0) - TH_NEG_P(x)))
/* Their derivatives (floating types), stamped into TH_GRAD_OPS' kernels beside the
 * transcendental ones: abs from its saved input (sign(x), 0 at 0 and NaN, as PyTorch), and
 * relu = max(x, 0) from its saved result (the gradient passes where the result is not <= 0,
 * PyTorch's threshold_backward); neg's is -g, one call already. */
#define TH_NUMERIC_GRAD_OPS(_)                                        \
  _(abs_backward, x * (opreal)((y > 0) - (y < 0)))       /* input */  \
  _(relu_backward, (y <= 0 ? (opreal)0 : x))             /* result */

/* r = x op y, every type (bool: add is or, mul is and). */
#define TH_ALL_BINARY_OPS(_)                                          \
  _(add, (opreal)((ureal)x + (ureal)y))                               \
  _(sub, (opreal)((ureal)x - (ureal)y))                               \
  _(mul, (opreal)((ureal)x * (ureal)y))                               \
  _(maximum, (TH_ISNAN(x) ? x : TH_ISNAN(y) ? y : x > y ? x : y))     \
  _(minimum, (TH_ISNAN(x) ? x : TH_ISNAN(y) ? y : x < y ? x : y))

/* r = x op y, floating types, with each operand's derivative beside the forward expression:
 * _(name, forward, d input, d other). The derivative columns are stamped (TH_GRAD2_OPS) into
 * the ternary kernels TH<Real>Tensor_<name>_backward_input(r, grad, x, y) and
 * <name>_backward_other(r, grad, x, y): r = that operand's gradient (before summing over
 * broadcast dims) from g, the output's gradient, and the operands x and y. 0 marks ops that
 * are not differentiable (their gradient is zero almost everywhere). */
#define TH_FLOAT_BINARY_OPS(_) TH_FLOAT_BINARY_LIST(TH_FORWARD2_OF, _) TH_FLOAT_BINARY_PLAIN(_)
#define TH_GRAD2_OPS(_)                                                              \
  TH_FLOAT_BINARY_LIST(TH_GRAD_INPUT_OF, _) TH_FLOAT_BINARY_LIST(TH_GRAD_OTHER_OF, _)
#define TH_FORWARD2_OF(_, NAME, EXPR, DX, DY) _(NAME, EXPR)
#define TH_GRAD_INPUT_OF(_, NAME, EXPR, DX, DY) _(NAME##_backward_input, DX)
#define TH_GRAD_OTHER_OF(_, NAME, EXPR, DX, DY) _(NAME##_backward_other, DY)
#define TH_FLOAT_BINARY_LIST(M, _)                                                           \
  M(_, div, x / y, g / y, -g * x / (y * y))                                                   \
  M(_, atan2, TH_M(atan2)(x, y), g * y / (x * x + y * y), -g * x / (x * x + y * y))           \
  M(_, hypot, TH_M(hypot)(x, y), g * x / TH_M(hypot)(x, y), g * y / TH_M(hypot)(x, y))        \
  M(_, pow, TH_M(pow)(x, y), (y == 0 ? 0 : g * y * TH_M(pow)(x, y - 1)),                      \
    ((x == 0 && y >= 0) ? 0 : g * TH_M(pow)(x, y) * TH_M(log)(x)))                           \
  M(_, fmod, TH_M(fmod)(x, y), g, -g * TH_M(trunc)(x / y))                                    \
  M(_, remainder, TH_fremainder(x, y), g, -g * TH_M(floor)(x / y))                            \
  M(_, floor_divide, TH_ffloordiv(x, y), 0, 0)                                               \
  M(_, trunc_divide, TH_M(trunc)(TH_ROUND(x / y)), 0, 0)
/* More r = x op y, floating types, without derivative kernels. */
#define TH_FLOAT_BINARY_PLAIN(_)                                      \
  _(copysign, TH_M(copysign)(x, y))                                   \
  _(nextafter, TH_M(nextafter)(x, y))                                 \
  _(xlogy, TH_xlogy(x, y))                                            \
  _(logaddexp, TH_logaddexp(x, y))                                    \
  _(logaddexp2, TH_logaddexp2(x, y))                                  \
  _(polygamma, TH_polygamma(y, x))

/* r = x op y, integer types; a zero divisor or a negative power sets `err`. */
#define TH_INT_BINARY_OPS(_)                                          \
  _(pow, (opreal)TH_ipow((int64_t)x, (int64_t)y, &err))               \
  _(fmod, (opreal)TH_ifmod((int64_t)x, (int64_t)y, &err))             \
  _(remainder, (opreal)TH_iremainder((int64_t)x, (int64_t)y, &err))   \
  _(floor_divide, (opreal)TH_ifloordiv((int64_t)x, (int64_t)y, &err)) \
  _(trunc_divide, (opreal)TH_itruncdiv((int64_t)x, (int64_t)y, &err)) \
  _(lshift, (opreal)TH_lshift((uint64_t)(ureal)x, (int64_t)y, (int)sizeof(real) * 8)) \
  _(rshift, (opreal)TH_rshift((int64_t)x, (int64_t)y, (int)sizeof(real) * 8)) \
  _(gcd, (opreal)TH_igcd((int64_t)x, (int64_t)y))                      \
  _(lcm, (opreal)TH_ilcm((int64_t)x, (int64_t)y))

/* r = x op y, integer and bool types. */
#define TH_BITWISE_BINARY_OPS(_)                                      \
  _(bitwise_and, x & y)                                               \
  _(bitwise_or, x | y)                                                \
  _(bitwise_xor, x ^ y)

/* bool r = x op y, every type. */
#define TH_COMPARE_OPS(_)                                             \
  _(eq, x == y)                                                       \
  _(ne, x != y)                                                       \
  _(lt, x < y)                                                        \
  _(le, x <= y)                                                       \
  _(gt, x > y)                                                        \
  _(ge, x >= y)                                                       \
  _(logical_and, (x != 0) && (y != 0))                                \
  _(logical_or, (x != 0) || (y != 0))                                 \
  _(logical_xor, (x != 0) != (y != 0))

/* bool r = f(x): every type, and floating types. */
#define TH_ALL_PREDICATE_OPS(_) _(logical_not, x == 0)
#define TH_FLOAT_PREDICATE_OPS(_)                                     \
  _(isnan, isnan(x))                                                  \
  _(isinf, isinf(x))                                                  \
  _(isfinite, isfinite(x))

/* TH_VECTOR_CLONES and the vector-math declarations: lib/THVectorMath.h (via THGeneral.h). */

/* Error codes row functions report (through THMathCtx.error). */
enum { TH_MATH_OK = 0, TH_MATH_ZERO_DIVISION = 1, TH_MATH_NEGATIVE_POWER = 2 };

double TH_erfinv(double y);
/* Special functions (lib/THMath.c): digamma, polygamma(n, x) for n >= 0, the modified Bessel
 * function I0, x*log(y) (0 where x == 0), log(exp(x) + exp(y)) and its base-2 form. */
double TH_digamma(double x); /* d lgamma / dx */
double TH_polygamma(double n, double x);
double TH_i0(double x);
double TH_xlogy(double x, double y);
double TH_logaddexp(double x, double y);
double TH_logaddexp2(double x, double y);

#ifndef TH_CDEF
/* Python's floor division and modulo on floats (the result of % takes the divisor's sign). */
static inline double TH_fremainder(double a, double b) {
  double m = fmod(a, b);
  if (m != 0 && ((b < 0) != (m < 0))) m += b;
  return m != 0 ? m : copysign(0.0, b);
}

static inline double TH_ffloordiv(double a, double b) {
  if (b == 0) return a / b;
  double m = fmod(a, b), q = (a - m) / b;
  if (m != 0 && ((b < 0) != (m < 0))) q -= 1;
  if (q == 0) return copysign(0.0, a / b);
  double f = floor(q);
  return q - f > 0.5 ? f + 1 : f;
}

/* Integer division family: b == 0 sets *err; INT64_MIN / -1 wraps instead of trapping. */
static inline int64_t TH_ifloordiv(int64_t a, int64_t b, int *err) {
  if (b == 0) { *err = TH_MATH_ZERO_DIVISION; return 0; }
  if (b == -1) return (int64_t)(0 - (uint64_t)a);
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1;
  return q;
}

static inline int64_t TH_itruncdiv(int64_t a, int64_t b, int *err) {
  if (b == 0) { *err = TH_MATH_ZERO_DIVISION; return 0; }
  return b == -1 ? (int64_t)(0 - (uint64_t)a) : a / b;
}

static inline int64_t TH_iremainder(int64_t a, int64_t b, int *err) {
  if (b == 0) { *err = TH_MATH_ZERO_DIVISION; return 0; }
  if (b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

static inline int64_t TH_ifmod(int64_t a, int64_t b, int *err) {
  if (b == 0) { *err = TH_MATH_ZERO_DIVISION; return 0; }
  return b == -1 ? 0 : a % b;
}

/* A negative exponent gives 1 / base^-exp truncated: 0 unless base is 1 or -1 (PyTorch's
 * result for tensor exponents; a negative scalar exponent is refused before this). */
static inline int64_t TH_ipow(int64_t base, int64_t exp, int *err) {
  (void)err;
  if (exp < 0) {
    if (base == 1) return 1;
    if (base == -1) return (exp & 1) ? -1 : 1;
    return 0;
  }
  uint64_t result = 1, b = (uint64_t)base;
  while (exp) {
    if (exp & 1) result *= b;
    b *= b;
    exp >>= 1;
  }
  return (int64_t)result;
}

/* Shifts by a negative amount or by the width or more give 0 (or -1 for a negative value
 * shifted right), as PyTorch does. */
static inline uint64_t TH_lshift(uint64_t a, int64_t s, int bits) {
  return (s < 0 || s >= bits) ? 0 : a << s;
}

static inline int64_t TH_rshift(int64_t a, int64_t s, int bits) {
  if (s < 0 || s >= bits) return a < 0 ? -1 : 0;
  return a >> s;
}

/* Greatest common divisor and least common multiple of the magnitudes (wrapping, as C's
 * unsigned arithmetic, where the result does not fit). */
static inline int64_t TH_igcd(int64_t a, int64_t b) {
  uint64_t x = a < 0 ? 0 - (uint64_t)a : (uint64_t)a, y = b < 0 ? 0 - (uint64_t)b : (uint64_t)b;
  while (y) {
    uint64_t t = x % y;
    x = y;
    y = t;
  }
  return (int64_t)x;
}

static inline int64_t TH_ilcm(int64_t a, int64_t b) {
  int64_t g = TH_igcd(a, b);
  if (g == 0) return 0;
  uint64_t m = (uint64_t)(a / g) * (uint64_t)b;
  return (int64_t)m < 0 ? (int64_t)(0 - m) : (int64_t)m;
}
#endif

#endif
