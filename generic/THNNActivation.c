#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THNNActivation.c"
#else

/* The activations: one line each, the forward y(x), the gradient of the input given the output's
 * gradient g (which may read x and the parameters p0, p1), computed in `real` with <tgmath.h>'s
 * type-generic math, and the per-element cost that decides threading (THParallel_worth).
 * relu6 is Hardtanh(0, 6); sigmoid and tanh are pointwise tensor ops. Masks are selects
 * (`c ? 0 : g`), not products with 0 or 1: they vectorise without a branch (a product keeps
 * gcc from if-converting), and a NaN g where the mask is 0 gives 0, as PyTorch's
 * threshold_backward / hardtanh_backward. A NaN x passes g through ReLU (x <= 0 is false, as
 * threshold_backward) and not through Hardtanh (as PyTorch's vectorised hardtanh_backward).
 *   ReLU       x, or 0 where x < 0 (-0 stays)         g, or 0 where x <= 0
 *   LeakyReLU  x, or p0 x (p0: negative_slope)        g or p0 g
 *   ELU        x, or p0 (e^x - 1) (p0: alpha)         g or p0 e^x g
 *   GELU       x Phi(x)                               (Phi(x) + x phi(x)) g
 *   GELUTanh   x (1 + tanh(k (x + 0.044715 x^3))) / 2 its derivative times g, k = sqrt(2/pi)
 *   SiLU       x sigmoid(x)                           s (1 + x (1 - s)) g, s = sigmoid(x)
 *   Softplus   log(1 + e^(p0 x)) / p0, or x above     sigmoid(p0 x) g, or g above the threshold
 *              the threshold p1 (p0: beta)
 *   Hardtanh   clamp(x, p0, p1)                       g strictly inside (p0, p1), else 0
 *   SELU       s x, or s a (e^x - 1)                  s g or s a e^x g (a, s: SELU's constants)
 *   CELU       x, or p0 (e^(x/p0) - 1) (p0: alpha)    g or e^(x/p0) g
 *   Mish       x tanh(softplus(x))                    its derivative times g
 *   Hardswish  x clamp(x + 3, 0, 6) / 6               g (x/3 + 1/2) inside (-3, 3), 0 below,
 *                                                     g above (at -3: 0, at 3: g, as PyTorch)
 *   Hardsigmoid (x + 3) / 6 inside, 0 below, 1 above  g / 6 strictly inside (-3, 3), else 0
 *   LogSigmoid min(x, 0) - log(1 + e^-|x|)           g (1 - sigmoid(x)), from e^-|x|
 *   Hardshrink 0 on [-p0, p0], else x (p0: lambda)    0 on [-p0, p0], else g
 *   Softshrink 0 on [-p0, p0], else x -/+ p0           0 on [-p0, p0], else g
 *   Threshold  p1 where x <= p0, else x               0 where x <= p0, else g
 * The forms follow PyTorch's kernels term for term (Hardswish's product with the clamp, so
 * -0 below -3 and NaN at -inf; Hardsigmoid's division by 6 and its gradient's product with
 * 1/6), so the piecewise ones give PyTorch's bits. */
#define THNN_ACTIVATIONS(_)                                                                  \
  _(ReLU, TH_WEIGHT_MEMORY, x < 0 ? 0 : x, x <= 0 ? 0 : g)                                   \
  _(LeakyReLU, TH_WEIGHT_MEMORY, x > 0 ? x : x * p0, g * (x > 0 ? 1 : p0))                   \
  _(ELU, TH_WEIGHT_TRANSCENDENTAL, x > 0 ? x : p0 * expm1(x), g * (x > 0 ? 1 : p0 * exp(x))) \
  _(GELU, TH_WEIGHT_TRANSCENDENTAL, x * (real)0.5 * (1 + erf(x * (real)M_SQRT1_2)),          \
    g * ((real)0.5 * (1 + erf(x * (real)M_SQRT1_2)) +                                        \
         x * exp(-(real)0.5 * x * x) * (real)(M_2_SQRTPI * M_SQRT1_2 * 0.5)))                \
  _(GELUTanh, TH_WEIGHT_TRANSCENDENTAL,                                                      \
    (real)0.5 * x * (1 + tanh(THNN_GELU_K * (x + (real)0.044715 * x * x * x))),              \
    g * THNN_(geluTanhGrad)(x))                                                              \
  _(SiLU, TH_WEIGHT_TRANSCENDENTAL, x / (1 + exp(-x)), g * THNN_(siluGrad)(x))               \
  _(Softplus, TH_WEIGHT_TRANSCENDENTAL, x * p0 > p1 ? x : log1p(exp(x * p0)) / p0,           \
    g * (x * p0 > p1 ? 1 : 1 / (1 + exp(-x * p0))))                                          \
  _(Hardtanh, TH_WEIGHT_MEMORY, x < p0 ? p0 : (x > p1 ? p1 : x),                             \
    (x > p0 && x < p1) ? g : 0)                                                              \
  _(SELU, TH_WEIGHT_TRANSCENDENTAL,                                                          \
    x > 0 ? x * THNN_SELU_SCALE : expm1(x) * (THNN_SELU_ALPHA * THNN_SELU_SCALE),            \
    x > 0 ? g * THNN_SELU_SCALE : g * (THNN_SELU_ALPHA * THNN_SELU_SCALE) * exp(x))          \
  _(CELU, TH_WEIGHT_TRANSCENDENTAL, x > 0 ? x : expm1(x / p0) * p0,                          \
    x > 0 ? g : g * exp(x / p0))                                                             \
  _(Mish, TH_WEIGHT_TRANSCENDENTAL, x * tanh(log1p(exp(x))), g * THNN_(mishGrad)(x))         \
  _(Hardswish, TH_WEIGHT_MEMORY, x * (x + 3 <= 0 ? 0 : (x + 3 >= 6 ? 6 : x + 3)) / 6,      \
    x <= -3 ? 0 : (x < 3 ? g * (x / 3 + (real)0.5) : g))                                     \
  _(Hardsigmoid, TH_WEIGHT_MEMORY, x <= -3 ? 0 : (x >= 3 ? 1 : (x + 3) / 6),                 \
    (x > -3 && x < 3) ? g * ((real)1 / 6) : 0)                                               \
  _(LogSigmoid, TH_WEIGHT_TRANSCENDENTAL, THNN_(logSigmoid)(x),                              \
    g * THNN_(logSigmoidGrad)(x))                                                            \
  _(Hardshrink, TH_WEIGHT_MEMORY, (x >= -p0 && x <= p0) ? 0 : x,                             \
    (x >= -p0 && x <= p0) ? 0 : g)                                                           \
  _(Softshrink, TH_WEIGHT_MEMORY, x > p0 ? x - p0 : (x < -p0 ? x + p0 : x * 0),              \
    (x >= -p0 && x <= p0) ? 0 : g)                                                           \
  _(Threshold, TH_WEIGHT_MEMORY, x <= p0 ? p1 : x, x <= p0 ? 0 : g)

#ifndef THNN_GELU_K
#define THNN_GELU_K ((real)(M_2_SQRTPI * M_SQRT1_2)) /* sqrt(2 / pi) */
#endif

static inline real THNN_(geluTanhGrad)(real x) {
  const real k = THNN_GELU_K, c = (real)0.044715;
  const real t = tanh(k * (x + c * x * x * x));
  return (real)0.5 * (1 + t) + (real)0.5 * x * (1 - t * t) * k * (1 + 3 * c * x * x);
}

#ifndef THNN_SELU_ALPHA
#define THNN_SELU_ALPHA ((real)1.6732632423543772848170429916717)
#define THNN_SELU_SCALE ((real)1.0507009873554804934193349852946)
#endif

static inline real THNN_(mishGrad)(real x) {
  const real t = tanh(log1p(exp(x)));
  const real s = 1 / (1 + exp(-x));
  return t + x * s * (1 - t * t);
}

/* log(sigmoid(x)) as min(x, 0) - log1p(e^-|x|): no overflow either way, and the tail of a
 * large positive x kept (-e^-x, not 0). */
static inline real THNN_(logSigmoid)(real x) {
  return (x < 0 ? x : 0) - log1p(exp(-fabs(x)));
}

/* d/dx log(sigmoid(x)) = 1 - sigmoid(x), written with z = e^-|x| <= 1. */
static inline real THNN_(logSigmoidGrad)(real x) {
  const real z = exp(-fabs(x));
  return x < 0 ? 1 - z / (1 + z) : z / (1 + z);
}

static inline real THNN_(siluGrad)(real x) {
  const real s = 1 / (1 + exp(-x));
  return s * (1 + x * (1 - s));
}

typedef struct {
  real p0, p1;
} THNN_(ActivationParams);

/* Sizes out like in (unless it is in) and checks the walk; an out whose elements share memory
 * (an expanded tensor written in place) is refused, as every in-place op refuses it. */
static int THNN_(sizeLike)(THTensor *out, THTensor *in, const char *op) {
  THTry(THTensor_(checkBounds)(in, op), -1);
  if (out != in) THTry(THTensor_(resizeAs)(out, in), -1);
  THTry(THShape_checkWritable(op, out->nDimension, out->size, out->stride), -1);
  return THTensor_(checkBounds)(out, op);
}

/* The row functions are compiled for AVX-512, AVX2 and baseline x86-64 (TH_VECTOR_CLONES), so
 * their exp, erf, tanh, log1p vectorise with libmvec's clones for the CPU that runs them. */
#define THNN_ACTIVATION_IMPL(NAME, COST, FORWARD, GRAD)                                       \
  TH_VECTOR_CLONES static void THNN_(NAME##_outRow)(void *ctx, int64_t n, char **data,        \
                                                    const int64_t *stride) {                  \
    const THNN_(ActivationParams) *prm = ctx;                                                 \
    const real p0 = prm->p0, p1 = prm->p1;                                                   \
    (void)p0;                                                                                 \
    (void)p1;                                                                                 \
    TH_ROW_LOOP2(n, data, stride, real, yp, real, xp, const real x = *xp; *yp = (FORWARD););  \
  }                                                                                           \
  TH_VECTOR_CLONES static void THNN_(NAME##_gradRow)(void *ctx, int64_t n, char **data,       \
                                                     const int64_t *stride) {                 \
    const THNN_(ActivationParams) *prm = ctx;                                                 \
    const real p0 = prm->p0, p1 = prm->p1;                                                   \
    (void)p0;                                                                                 \
    (void)p1;                                                                                 \
    TH_ROW_LOOP3(n, data, stride, real, gi, real, go, real, xp,                               \
                 const real x = *xp; const real g = *go; *gi = (real)(GRAD););                \
  }                                                                                           \
  int THNN_(NAME##_updateOutput)(THTensor *output, THTensor *input, double p0, double p1) {   \
    THTry(THNN_(sizeLike)(output, input, #NAME), -1);                                         \
    THNN_(ActivationParams) prm = {(real)p0, (real)p1};                                       \
    const int64_t *strides[2] = {output->stride, input->stride};                              \
    const int64_t elsize[2] = {sizeof(real), sizeof(real)};                                   \
    THIter it;                                                                                \
    THIter_init(&it, 2, input->nDimension, input->size, strides, elsize, 0);                  \
    char *base[2] = {(char *)THTensor_(data)(output), (char *)THTensor_(data)(input)};        \
    THIter_run(&it, base, THNN_(NAME##_outRow), &prm, COST);                                   \
    return 0;                                                                                 \
  }                                                                                           \
  int THNN_(NAME##_updateGradInput)(THTensor *gradInput, THTensor *gradOutput,                \
                                    THTensor *input, THTensor *output, double p0, double p1) { \
    (void)output;                                                                             \
    THArgCheck(THTensor_(isSameSizeAs)(gradOutput, input), TH_ERR_RUNTIME, -1,                \
               "%s backward: gradOutput and input must have the same shape", #NAME);          \
    THTry(THTensor_(checkBounds)(gradOutput, #NAME), -1);                                     \
    THTry(THNN_(sizeLike)(gradInput, input, #NAME), -1);                                      \
    THNN_(ActivationParams) prm = {(real)p0, (real)p1};                                       \
    const int64_t *strides[3] = {gradInput->stride, gradOutput->stride, input->stride};       \
    const int64_t elsize[3] = {sizeof(real), sizeof(real), sizeof(real)};                     \
    THIter it;                                                                                \
    THIter_init(&it, 3, input->nDimension, input->size, strides, elsize, 0);                  \
    char *base[3] = {(char *)THTensor_(data)(gradInput), (char *)THTensor_(data)(gradOutput), \
                     (char *)THTensor_(data)(input)};                                         \
    THIter_run(&it, base, THNN_(NAME##_gradRow), &prm, COST);                                  \
    return 0;                                                                                 \
  }
THNN_ACTIVATIONS(THNN_ACTIVATION_IMPL)
#undef THNN_ACTIVATION_IMPL

#endif
