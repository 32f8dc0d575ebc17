#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THOptim.c"
#else

/* How a group is walked.
 * 1. Parameter i is seen as k operands of one size: the parameter (operand 0), its gradient
 *    (operand 1) and its state buffers (2..k-1). Every parameter's operands and step counter
 *    are checked before any is updated, so a bad buffer leaves the whole group untouched.
 * 2. Each operand is then worked on as a contiguous array: a contiguous tensor directly, any
 *    other through a contiguous copy that is written back afterwards (the gradient is only
 *    read, so its copy is dropped).
 * 3. The formula runs as one indexed loop, split between threads when the parameter is large
 *    enough (THParallel_worth). The per-element formula is an always-inline function whose
 *    options (amsgrad, centered, a momentum buffer) are literals at each loop, so every
 *    variant compiles to a branch-free loop the compiler vectorises. Scalars are prepared in
 *    double, once per parameter; the loop computes in real, as PyTorch's single-tensor ops
 *    do. */

#define THOPTIM_MAX_OPERANDS 6

/* Checks parameter i's operands t[0..k) (names[j] names operand j in messages). */
static int THOptim_(checkOperands)(THTensor *const *t, const char *const *names, int k, int i,
                                   const char *op) {
  char a[TH_SIZE_STR_LEN], b[TH_SIZE_STR_LEN];
  for (int j = 0; j < k; j++) {
    THArgCheck(t[j] != NULL, TH_ERR_RUNTIME, -1, "%s: the %s of parameter %d is missing", op,
               names[j], i);
    THTry(THTensor_(checkBounds)(t[j], op), -1);
    THArgCheck(THTensor_(isSameSizeAs)(t[j], t[0]), TH_ERR_RUNTIME, -1,
               "%s: the %s of parameter %d has size %s, but the parameter has size %s", op,
               names[j], i, THSize_str(a, sizeof a, t[j]->nDimension, t[j]->size),
               THSize_str(b, sizeof b, t[0]->nDimension, t[0]->size));
  }
  return 0;
}

static int THOptim_(checkStep)(THFloatTensor *step, int i, const char *op) {
  THArgCheck(step != NULL && THFloatTensor_nElement(step) == 1, TH_ERR_RUNTIME, -1,
             "%s: the step of parameter %d must be a one-element float32 tensor", op, i);
  return THFloatTensor_checkBounds(step, op);
}

/* Advances a step counter (float32, as PyTorch keeps it) and returns the new count. */
static double THOptim_(advance)(THFloatTensor *step) {
  float *s = THFloatTensor_data(step);
  *s += 1.0f;
  return *s;
}

/* Makes work[j] a contiguous tensor for each operand t[j] (step 2 above). */
static int THOptim_(open)(THTensor **work, THTensor *const *t, int k) {
  for (int j = 0; j < k; j++) work[j] = NULL;
  for (int j = 0; j < k; j++) {
    work[j] = THTensor_(isContiguous)(t[j]) ? t[j] : THTensor_(newContiguous)(t[j]);
    if (!work[j]) {
      for (int q = 0; q < j; q++)
        if (work[q] != t[q]) THTensor_(free)(work[q]);
      return -1;
    }
  }
  return 0;
}

/* Writes the copies back (all but the gradient) and frees them. */
static int THOptim_(close)(THTensor **work, THTensor *const *t, int k) {
  int status = 0;
  for (int j = 0; j < k; j++) {
    if (work[j] == t[j]) continue;
    if (j != 1 && status == 0) status = THTensor_(copy)(t[j], work[j]);
    THTensor_(free)(work[j]);
  }
  return status;
}

/* PyTorch's lerp: a + w (b - a) for small weights, b - (b - a)(1 - w) for large ones. */
static inline real THOptim_(lerp)(real a, real b, real w) {
  return w < (real)0.5 ? a + w * (b - a) : b - (b - a) * ((real)1 - w);
}

static int THOptim_(worth)(int64_t len, int operands) {
  return THParallel_worth(len, (int64_t)sizeof(real) * operands * TH_WEIGHT_TRANSCENDENTAL);
}

/* ---- SGD ---------------------------------------------------------------------------------- */

/* One element; has_buf is a literal at each call, so the loop compiles without branches. */
static inline __attribute__((always_inline)) void THOptim_(sgdAt)(
    int64_t j, real *p, const real *g, real *buf, int fresh, real lr, real mom, real damp1,
    real wd, int nesterov, real sign, const int has_buf) {
  real d = sign * g[j];
  d = wd != 0 ? d + wd * p[j] : d;
  if (has_buf) {
    const real old = buf[j];
    const real b = fresh ? d : old * mom + damp1 * d;
    buf[j] = b;
    d = nesterov ? d + mom * b : b;
  }
  p[j] = p[j] + (-lr) * d;
}

static void THOptim_(sgdLoop)(real *restrict p, const real *restrict g, real *restrict buf,
                              int64_t len, int fresh, real lr, real mom, real damp1, real wd,
                              int nesterov, real sign) {
  const int par = THOptim_(worth)(len, buf ? 3 : 2);
  if (buf) {
    THOPTIM_FOR(par, len, THOptim_(sgdAt)(j, p, g, buf, fresh, lr, mom, damp1, wd, nesterov,
                                          sign, 1));
  } else {
    THOPTIM_FOR(par, len, THOptim_(sgdAt)(j, p, g, buf, fresh, lr, mom, damp1, wd, nesterov,
                                          sign, 0));
  }
}

int THOptim_(SGD_step)(THTensor **params, THTensor **grads, THTensor **momentum_buffers,
                       const uint8_t *fresh, int n, double lr, double momentum,
                       double dampening, double weight_decay, int nesterov, int maximize) {
  const char *op = "SGD.step()";
  static const char *const names[] = {"parameter", "gradient", "momentum_buffer"};
  const int k = momentum_buffers ? 3 : 2;
  THTensor *t[THOPTIM_MAX_OPERANDS], *w[THOPTIM_MAX_OPERANDS];
  for (int pass = 0; pass < 2; pass++) {
    for (int i = 0; i < n; i++) {
      t[0] = params[i];
      t[1] = grads[i];
      if (momentum_buffers) t[2] = momentum_buffers[i];
      if (pass == 0) {
        THTry(THOptim_(checkOperands)(t, names, k, i, op), -1);
        continue;
      }
      THTry(THOptim_(open)(w, t, k), -1);
      THOptim_(sgdLoop)(THTensor_(data)(w[0]), THTensor_(data)(w[1]),
                        k == 3 ? THTensor_(data)(w[2]) : NULL, THTensor_(nElement)(w[0]),
                        fresh ? fresh[i] : 0, (real)lr, (real)momentum,
                        (real)(1 - dampening), (real)weight_decay, nesterov,
                        maximize ? (real)-1 : (real)1);
      THTry(THOptim_(close)(w, t, k), -1);
    }
  }
  return 0;
}

/* ---- Adam / AdamW ------------------------------------------------------------------------- */

static inline __attribute__((always_inline)) void THOptim_(adamAt)(
    int64_t j, real *p, const real *g, real *m, real *v, real *vmax, real decay, real wd,
    real w1, real beta2, real w2, real step_size, real bc2_sqrt, real eps, real sign,
    const int amsgrad) {
  const real pj = p[j] * decay; /* decay is exactly 1 unless AdamW decays */
  real d = sign * g[j];
  d = wd != 0 ? d + wd * pj : d;
  const real mj = THOptim_(lerp)(m[j], d, w1);
  real vj = v[j] * beta2 + w2 * d * d;
  m[j] = mj;
  v[j] = vj;
  if (amsgrad) {
    const real old = vmax[j];
    vj = old > vj || isnan(old) ? old : vj;
    vmax[j] = vj;
  }
  const real denom = sqrt(vj) / bc2_sqrt + eps;
  p[j] = pj + (-step_size) * (mj / denom);
}

static void THOptim_(adamLoop)(real *restrict p, const real *restrict g, real *restrict m,
                               real *restrict v, real *restrict vmax, int64_t len,
                               real decay, real wd, real w1, real beta2, real w2,
                               real step_size, real bc2_sqrt, real eps, real sign) {
  const int par = THOptim_(worth)(len, vmax ? 5 : 4);
  if (vmax) {
    THOPTIM_FOR(par, len, THOptim_(adamAt)(j, p, g, m, v, vmax, decay, wd, w1, beta2, w2,
                                           step_size, bc2_sqrt, eps, sign, 1));
  } else {
    THOPTIM_FOR(par, len, THOptim_(adamAt)(j, p, g, m, v, vmax, decay, wd, w1, beta2, w2,
                                           step_size, bc2_sqrt, eps, sign, 0));
  }
}

int THOptim_(Adam_step)(THTensor **params, THTensor **grads, THTensor **exp_avgs,
                        THTensor **exp_avg_sqs, THTensor **max_exp_avg_sqs,
                        THFloatTensor **steps, int n, double lr, double beta1, double beta2,
                        double eps, double weight_decay, int decoupled_weight_decay,
                        int maximize) {
  const char *op = decoupled_weight_decay ? "AdamW.step()" : "Adam.step()";
  static const char *const names[] = {"parameter", "gradient", "exp_avg", "exp_avg_sq",
                                      "max_exp_avg_sq"};
  const int k = max_exp_avg_sqs ? 5 : 4;
  THTensor *t[THOPTIM_MAX_OPERANDS], *w[THOPTIM_MAX_OPERANDS];
  for (int pass = 0; pass < 2; pass++) {
    for (int i = 0; i < n; i++) {
      t[0] = params[i];
      t[1] = grads[i];
      t[2] = exp_avgs[i];
      t[3] = exp_avg_sqs[i];
      if (max_exp_avg_sqs) t[4] = max_exp_avg_sqs[i];
      if (pass == 0) {
        THTry(THOptim_(checkOperands)(t, names, k, i, op), -1);
        THTry(THOptim_(checkStep)(steps[i], i, op), -1);
        continue;
      }
      const double step = THOptim_(advance)(steps[i]);
      const double bc1 = 1 - pow(beta1, step);
      const double bc2 = 1 - pow(beta2, step);
      const int decoupled = decoupled_weight_decay && weight_decay != 0;
      THTry(THOptim_(open)(w, t, k), -1);
      THOptim_(adamLoop)(THTensor_(data)(w[0]), THTensor_(data)(w[1]), THTensor_(data)(w[2]),
                         THTensor_(data)(w[3]), k == 5 ? THTensor_(data)(w[4]) : NULL,
                         THTensor_(nElement)(w[0]),
                         decoupled ? (real)(1 - lr * weight_decay) : (real)1,
                         decoupled_weight_decay ? (real)0 : (real)weight_decay,
                         (real)(1 - beta1), (real)beta2, (real)(1 - beta2), (real)(lr / bc1),
                         (real)sqrt(bc2), (real)eps, maximize ? (real)-1 : (real)1);
      THTry(THOptim_(close)(w, t, k), -1);
    }
  }
  return 0;
}

/* ---- RMSprop ------------------------------------------------------------------------------ */

static inline __attribute__((always_inline)) void THOptim_(rmspropAt)(
    int64_t j, real *p, const real *g, real *s, real *a, real *buf, real lr, real alpha,
    real w, real eps, real wd, real mom, real sign, const int centered, const int has_buf) {
  real d = sign * g[j];
  d = wd != 0 ? d + wd * p[j] : d;
  const real sj = s[j] * alpha + w * d * d;
  s[j] = sj;
  real r;
  if (centered) {
    const real aj = THOptim_(lerp)(a[j], d, w);
    a[j] = aj;
    r = sqrt(sj + (-aj) * aj);
  } else {
    r = sqrt(sj);
  }
  r = r + eps;
  if (has_buf) {
    const real b = buf[j] * mom + d / r;
    buf[j] = b;
    p[j] = p[j] + (-lr) * b;
  } else {
    p[j] = p[j] + (-lr) * (d / r);
  }
}

static void THOptim_(rmspropLoop)(real *restrict p, const real *restrict g, real *restrict s,
                                  real *restrict a, real *restrict buf, int64_t len, real lr,
                                  real alpha, real w, real eps, real wd, real mom, real sign) {
  const int par = THOptim_(worth)(len, 3 + (a != NULL) + (buf != NULL));
#define THOPTIM_RMSPROP(CENTERED, HAS_BUF)                                                   \
  THOPTIM_FOR(par, len, THOptim_(rmspropAt)(j, p, g, s, a, buf, lr, alpha, w, eps, wd, mom, \
                                            sign, CENTERED, HAS_BUF))
  if (a && buf) {
    THOPTIM_RMSPROP(1, 1);
  } else if (a) {
    THOPTIM_RMSPROP(1, 0);
  } else if (buf) {
    THOPTIM_RMSPROP(0, 1);
  } else {
    THOPTIM_RMSPROP(0, 0);
  }
#undef THOPTIM_RMSPROP
}

int THOptim_(RMSprop_step)(THTensor **params, THTensor **grads, THTensor **square_avgs,
                           THTensor **grad_avgs, THTensor **momentum_buffers,
                           THFloatTensor **steps, int n, double lr, double alpha, double eps,
                           double weight_decay, double momentum, int maximize) {
  const char *op = "RMSprop.step()";
  const char *names[THOPTIM_MAX_OPERANDS] = {"parameter", "gradient", "square_avg"};
  THTensor *t[THOPTIM_MAX_OPERANDS], *w[THOPTIM_MAX_OPERANDS];
  for (int pass = 0; pass < 2; pass++) {
    for (int i = 0; i < n; i++) {
      int k = 3, ka = 0, kb = 0;
      t[0] = params[i];
      t[1] = grads[i];
      t[2] = square_avgs[i];
      if (grad_avgs) {
        ka = k;
        names[k] = "grad_avg";
        t[k++] = grad_avgs[i];
      }
      if (momentum_buffers) {
        kb = k;
        names[k] = "momentum_buffer";
        t[k++] = momentum_buffers[i];
      }
      if (pass == 0) {
        THTry(THOptim_(checkOperands)(t, names, k, i, op), -1);
        THTry(THOptim_(checkStep)(steps[i], i, op), -1);
        continue;
      }
      THOptim_(advance)(steps[i]);
      THTry(THOptim_(open)(w, t, k), -1);
      THOptim_(rmspropLoop)(THTensor_(data)(w[0]), THTensor_(data)(w[1]), THTensor_(data)(w[2]),
                            ka ? THTensor_(data)(w[ka]) : NULL, kb ? THTensor_(data)(w[kb]) : NULL,
                            THTensor_(nElement)(w[0]), (real)lr, (real)alpha,
                            (real)(1 - alpha), (real)eps, (real)weight_decay, (real)momentum,
                            maximize ? (real)-1 : (real)1);
      THTry(THOptim_(close)(w, t, k), -1);
    }
  }
  return 0;
}

/* ---- Adagrad ------------------------------------------------------------------------------ */

static void THOptim_(adagradLoop)(real *restrict p, const real *restrict g, real *restrict s,
                                  int64_t len, real clr, real wd, real eps, real sign) {
  const int par = THOptim_(worth)(len, 3);
#pragma omp parallel for if (par)
  for (int64_t j = 0; j < len; j++) {
    real d = sign * g[j];
    d = wd != 0 ? d + wd * p[j] : d;
    const real sj = s[j] + d * d;
    s[j] = sj;
    p[j] = p[j] + (-clr) * (d / (sqrt(sj) + eps));
  }
  if (par) THParallel_noteTeam();
}

int THOptim_(Adagrad_step)(THTensor **params, THTensor **grads, THTensor **sums,
                           THFloatTensor **steps, int n, double lr, double lr_decay,
                           double weight_decay, double eps, int maximize) {
  const char *op = "Adagrad.step()";
  static const char *const names[] = {"parameter", "gradient", "sum"};
  THTensor *t[THOPTIM_MAX_OPERANDS], *w[THOPTIM_MAX_OPERANDS];
  for (int pass = 0; pass < 2; pass++) {
    for (int i = 0; i < n; i++) {
      t[0] = params[i];
      t[1] = grads[i];
      t[2] = sums[i];
      if (pass == 0) {
        THTry(THOptim_(checkOperands)(t, names, 3, i, op), -1);
        THTry(THOptim_(checkStep)(steps[i], i, op), -1);
        continue;
      }
      const double step = THOptim_(advance)(steps[i]);
      const double clr = lr / (1 + (step - 1) * lr_decay);
      THTry(THOptim_(open)(w, t, 3), -1);
      THOptim_(adagradLoop)(THTensor_(data)(w[0]), THTensor_(data)(w[1]), THTensor_(data)(w[2]),
                            THTensor_(nElement)(w[0]), (real)clr, (real)weight_decay,
                            (real)eps, maximize ? (real)-1 : (real)1);
      THTry(THOptim_(close)(w, t, 3), -1);
    }
  }
  return 0;
}

#endif
