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

/* Checks a per-parameter float32 counter (what: "step", "mu_product", ...). */
static int THOptim_(checkCounter)(THFloatTensor *counter, const char *what, int i,
                                  const char *op) {
  THArgCheck(counter != NULL && THFloatTensor_nElement(counter) == 1, TH_ERR_RUNTIME, -1,
             "%s: the %s of parameter %d must be a one-element float32 tensor", op, what, i);
  return THFloatTensor_checkBounds(counter, op);
}

static int THOptim_(checkStep)(THFloatTensor *step, int i, const char *op) {
  return THOptim_(checkCounter)(step, "step", i, op);
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

/* ---- Adadelta ----------------------------------------------------------------------------- */

static void THOptim_(adadeltaLoop)(real *restrict p, const real *restrict g, real *restrict s,
                                   real *restrict a, int64_t len, real lr, real rho, real w,
                                   real eps, real wd, real sign) {
  const int par = THOptim_(worth)(len, 4);
#pragma omp parallel for if (par)
  for (int64_t j = 0; j < len; j++) {
    real d = sign * g[j];
    d = wd != 0 ? d + wd * p[j] : d;
    const real sj = s[j] * rho + w * d * d;
    s[j] = sj;
    const real u = sqrt(a[j] + eps) / sqrt(sj + eps) * d;
    a[j] = a[j] * rho + w * u * u;
    p[j] = p[j] + (-lr) * u;
  }
  if (par) THParallel_noteTeam();
}

int THOptim_(Adadelta_step)(THTensor **params, THTensor **grads, THTensor **square_avgs,
                            THTensor **acc_deltas, THFloatTensor **steps, int n, double lr,
                            double rho, double eps, double weight_decay, int maximize) {
  const char *op = "Adadelta.step()";
  static const char *const names[] = {"parameter", "gradient", "square_avg", "acc_delta"};
  THTensor *t[THOPTIM_MAX_OPERANDS], *w[THOPTIM_MAX_OPERANDS];
  for (int pass = 0; pass < 2; pass++) {
    for (int i = 0; i < n; i++) {
      t[0] = params[i];
      t[1] = grads[i];
      t[2] = square_avgs[i];
      t[3] = acc_deltas[i];
      if (pass == 0) {
        THTry(THOptim_(checkOperands)(t, names, 4, i, op), -1);
        THTry(THOptim_(checkStep)(steps[i], i, op), -1);
        continue;
      }
      THOptim_(advance)(steps[i]);
      THTry(THOptim_(open)(w, t, 4), -1);
      THOptim_(adadeltaLoop)(THTensor_(data)(w[0]), THTensor_(data)(w[1]), THTensor_(data)(w[2]),
                             THTensor_(data)(w[3]), THTensor_(nElement)(w[0]), (real)lr,
                             (real)rho, (real)(1 - rho), (real)eps, (real)weight_decay,
                             maximize ? (real)-1 : (real)1);
      THTry(THOptim_(close)(w, t, 4), -1);
    }
  }
  return 0;
}

/* ---- Adamax ------------------------------------------------------------------------------- */

static void THOptim_(adamaxLoop)(real *restrict p, const real *restrict g, real *restrict m,
                                 real *restrict u, int64_t len, real clr, real w1, real beta2,
                                 real eps, real wd, real sign) {
  const int par = THOptim_(worth)(len, 4);
#pragma omp parallel for if (par)
  for (int64_t j = 0; j < len; j++) {
    real d = sign * g[j];
    d = wd != 0 ? d + wd * p[j] : d;
    const real mj = THOptim_(lerp)(m[j], d, w1);
    m[j] = mj;
    const real decayed = u[j] * beta2, fresh = fabs(d) + eps;
    /* torch.maximum: a NaN on either side wins */
    const real uj = isnan(decayed) || decayed > fresh ? decayed : fresh;
    u[j] = uj;
    p[j] = p[j] + (-clr) * (mj / uj);
  }
  if (par) THParallel_noteTeam();
}

int THOptim_(Adamax_step)(THTensor **params, THTensor **grads, THTensor **exp_avgs,
                          THTensor **exp_infs, THFloatTensor **steps, int n, double lr,
                          double beta1, double beta2, double eps, double weight_decay,
                          int maximize) {
  const char *op = "Adamax.step()";
  static const char *const names[] = {"parameter", "gradient", "exp_avg", "exp_inf"};
  THTensor *t[THOPTIM_MAX_OPERANDS], *w[THOPTIM_MAX_OPERANDS];
  for (int pass = 0; pass < 2; pass++) {
    for (int i = 0; i < n; i++) {
      t[0] = params[i];
      t[1] = grads[i];
      t[2] = exp_avgs[i];
      t[3] = exp_infs[i];
      if (pass == 0) {
        THTry(THOptim_(checkOperands)(t, names, 4, i, op), -1);
        THTry(THOptim_(checkStep)(steps[i], i, op), -1);
        continue;
      }
      const double step = THOptim_(advance)(steps[i]);
      const double clr = lr / (1 - pow(beta1, step));
      THTry(THOptim_(open)(w, t, 4), -1);
      THOptim_(adamaxLoop)(THTensor_(data)(w[0]), THTensor_(data)(w[1]), THTensor_(data)(w[2]),
                           THTensor_(data)(w[3]), THTensor_(nElement)(w[0]), (real)clr,
                           (real)(1 - beta1), (real)beta2, (real)eps, (real)weight_decay,
                           maximize ? (real)-1 : (real)1);
      THTry(THOptim_(close)(w, t, 4), -1);
    }
  }
  return 0;
}

/* ---- NAdam and RAdam: Adam's moments with other corrections ------------------------------- */

/* The moments both share: decoupled decay of p (decay is exactly 1 otherwise), d = ±g plus
 * coupled decay, m = lerp(m, d, w1), v = beta2 v + w2 d d; returns d. */
static inline __attribute__((always_inline)) real THOptim_(moments)(
    int64_t j, real *p, const real *g, real *m, real *v, real decay, real wd, real w1,
    real beta2, real w2, real sign) {
  const real pj = p[j] * decay;
  p[j] = pj;
  real d = sign * g[j];
  d = wd != 0 ? d + wd * pj : d;
  m[j] = THOptim_(lerp)(m[j], d, w1);
  v[j] = v[j] * beta2 + w2 * d * d;
  return d;
}

static void THOptim_(nadamLoop)(real *restrict p, const real *restrict g, real *restrict m,
                                real *restrict v, int64_t len, real decay, real wd, real w1,
                                real beta2, real w2, real bc2, real eps, real cg, real cm,
                                real sign) {
  const int par = THOptim_(worth)(len, 4);
#pragma omp parallel for if (par)
  for (int64_t j = 0; j < len; j++) {
    const real d = THOptim_(moments)(j, p, g, m, v, decay, wd, w1, beta2, w2, sign);
    const real r = sqrt(v[j] / bc2) + eps;
    const real pj = p[j] + cg * (d / r);
    p[j] = pj + cm * (m[j] / r);
  }
  if (par) THParallel_noteTeam();
}

/* A group's weight decay: the factor p is scaled by (decoupled) and the one added to d. */
static void THOptim_(decays)(double lr, double weight_decay, int decoupled, real *decay,
                             real *wd) {
  *decay = decoupled && weight_decay != 0 ? (real)(1 - lr * weight_decay) : (real)1;
  *wd = decoupled ? (real)0 : (real)weight_decay;
}

int THOptim_(NAdam_step)(THTensor **params, THTensor **grads, THTensor **exp_avgs,
                         THTensor **exp_avg_sqs, THFloatTensor **mu_products,
                         THFloatTensor **steps, int n, double lr, double beta1, double beta2,
                         double eps, double weight_decay, double momentum_decay,
                         int decoupled_weight_decay, int maximize) {
  const char *op = "NAdam.step()";
  static const char *const names[] = {"parameter", "gradient", "exp_avg", "exp_avg_sq"};
  THTensor *t[THOPTIM_MAX_OPERANDS], *w[THOPTIM_MAX_OPERANDS];
  real decay, wd;
  THOptim_(decays)(lr, weight_decay, decoupled_weight_decay, &decay, &wd);
  for (int pass = 0; pass < 2; pass++) {
    for (int i = 0; i < n; i++) {
      t[0] = params[i];
      t[1] = grads[i];
      t[2] = exp_avgs[i];
      t[3] = exp_avg_sqs[i];
      if (pass == 0) {
        THTry(THOptim_(checkOperands)(t, names, 4, i, op), -1);
        THTry(THOptim_(checkStep)(steps[i], i, op), -1);
        THTry(THOptim_(checkCounter)(mu_products[i], "mu_product", i, op), -1);
        continue;
      }
      const double step = THOptim_(advance)(steps[i]);
      const double mu = beta1 * (1 - 0.5 * pow(0.96, step * momentum_decay));
      const double mu_next = beta1 * (1 - 0.5 * pow(0.96, (step + 1) * momentum_decay));
      float *prod = THFloatTensor_data(mu_products[i]);
      *prod = *prod * (float)mu; /* a float32 product, as PyTorch keeps it */
      const double cg = -lr * (1 - mu) / (1 - (double)*prod);
      const double cm = -lr * mu_next / (1 - (double)*prod * mu_next);
      THTry(THOptim_(open)(w, t, 4), -1);
      THOptim_(nadamLoop)(THTensor_(data)(w[0]), THTensor_(data)(w[1]), THTensor_(data)(w[2]),
                          THTensor_(data)(w[3]), THTensor_(nElement)(w[0]), decay, wd,
                          (real)(1 - beta1), (real)beta2, (real)(1 - beta2),
                          (real)(1 - pow(beta2, step)), (real)eps, (real)cg, (real)cm,
                          maximize ? (real)-1 : (real)1);
      THTry(THOptim_(close)(w, t, 4), -1);
    }
  }
  return 0;
}

static inline __attribute__((always_inline)) void THOptim_(radamAt)(
    int64_t j, real *p, const real *g, real *m, real *v, real decay, real wd, real w1,
    real beta2, real w2, real bc1, real lr, real bc2_sqrt, real eps, real rect, real sign,
    const int rectified) {
  THOptim_(moments)(j, p, g, m, v, decay, wd, w1, beta2, w2, sign);
  real u = m[j] / bc1 * lr;
  if (rectified) u = u * (bc2_sqrt / (sqrt(v[j]) + eps)) * rect;
  p[j] = p[j] - u;
}

static void THOptim_(radamLoop)(real *restrict p, const real *restrict g, real *restrict m,
                                real *restrict v, int64_t len, real decay, real wd, real w1,
                                real beta2, real w2, real bc1, real lr, real bc2_sqrt, real eps,
                                real rect, real sign, int rectified) {
  const int par = THOptim_(worth)(len, 4);
  if (rectified) {
    THOPTIM_FOR(par, len, THOptim_(radamAt)(j, p, g, m, v, decay, wd, w1, beta2, w2, bc1, lr,
                                            bc2_sqrt, eps, rect, sign, 1));
  } else {
    THOPTIM_FOR(par, len, THOptim_(radamAt)(j, p, g, m, v, decay, wd, w1, beta2, w2, bc1, lr,
                                            bc2_sqrt, eps, rect, sign, 0));
  }
}

int THOptim_(RAdam_step)(THTensor **params, THTensor **grads, THTensor **exp_avgs,
                         THTensor **exp_avg_sqs, THFloatTensor **steps, int n, double lr,
                         double beta1, double beta2, double eps, double weight_decay,
                         int decoupled_weight_decay, int maximize) {
  const char *op = "RAdam.step()";
  static const char *const names[] = {"parameter", "gradient", "exp_avg", "exp_avg_sq"};
  THTensor *t[THOPTIM_MAX_OPERANDS], *w[THOPTIM_MAX_OPERANDS];
  real decay, wd;
  THOptim_(decays)(lr, weight_decay, decoupled_weight_decay, &decay, &wd);
  const double rho_inf = 2 / (1 - beta2) - 1;
  for (int pass = 0; pass < 2; pass++) {
    for (int i = 0; i < n; i++) {
      t[0] = params[i];
      t[1] = grads[i];
      t[2] = exp_avgs[i];
      t[3] = exp_avg_sqs[i];
      if (pass == 0) {
        THTry(THOptim_(checkOperands)(t, names, 4, i, op), -1);
        THTry(THOptim_(checkStep)(steps[i], i, op), -1);
        continue;
      }
      const double step = THOptim_(advance)(steps[i]);
      const double bc1 = 1 - pow(beta1, step);
      const double bc2 = 1 - pow(beta2, step);
      const double rho_t = rho_inf - 2 * step * pow(beta2, step) / bc2;
      const int rectified = rho_t > 5;
      const double rect = rectified ? sqrt((rho_t - 4) * (rho_t - 2) * rho_inf /
                                           ((rho_inf - 4) * (rho_inf - 2) * rho_t))
                                    : 1;
      THTry(THOptim_(open)(w, t, 4), -1);
      THOptim_(radamLoop)(THTensor_(data)(w[0]), THTensor_(data)(w[1]), THTensor_(data)(w[2]),
                          THTensor_(data)(w[3]), THTensor_(nElement)(w[0]), decay, wd,
                          (real)(1 - beta1), (real)beta2, (real)(1 - beta2), (real)bc1,
                          (real)lr, (real)sqrt(bc2), (real)eps, (real)rect,
                          maximize ? (real)-1 : (real)1, rectified);
      THTry(THOptim_(close)(w, t, 4), -1);
    }
  }
  return 0;
}

/* ---- Rprop -------------------------------------------------------------------------------- */

static void THOptim_(rpropLoop)(real *restrict p, const real *restrict g, real *restrict prev,
                                real *restrict s, int64_t len, real etaminus, real etaplus,
                                real lo, real hi, real sign) {
  const int par = THOptim_(worth)(len, 4);
#pragma omp parallel for if (par)
  for (int64_t j = 0; j < len; j++) {
    real d = sign * g[j];
    const real c = d * prev[j];
    /* a NaN product keeps its NaN, as PyTorch's sign() does */
    const real f = c > 0 ? etaplus : c < 0 ? etaminus : c == 0 ? (real)1 : c;
    real sj = s[j] * f;
    sj = isnan(sj) ? sj : sj < lo ? lo : sj > hi ? hi : sj;
    s[j] = sj;
    d = f == etaminus ? (real)0 : d;
    const real sgn = d > 0 ? (real)1 : d < 0 ? (real)-1 : d == 0 ? (real)0 : d;
    p[j] = p[j] + (-sgn) * sj;
    prev[j] = d;
  }
  if (par) THParallel_noteTeam();
}

int THOptim_(Rprop_step)(THTensor **params, THTensor **grads, THTensor **prevs,
                         THTensor **step_sizes, THFloatTensor **steps, int n, double etaminus,
                         double etaplus, double step_size_min, double step_size_max,
                         int maximize) {
  const char *op = "Rprop.step()";
  static const char *const names[] = {"parameter", "gradient", "prev", "step_size"};
  THTensor *t[THOPTIM_MAX_OPERANDS], *w[THOPTIM_MAX_OPERANDS];
  for (int pass = 0; pass < 2; pass++) {
    for (int i = 0; i < n; i++) {
      t[0] = params[i];
      t[1] = grads[i];
      t[2] = prevs[i];
      t[3] = step_sizes[i];
      if (pass == 0) {
        THTry(THOptim_(checkOperands)(t, names, 4, i, op), -1);
        THTry(THOptim_(checkStep)(steps[i], i, op), -1);
        continue;
      }
      THOptim_(advance)(steps[i]);
      THTry(THOptim_(open)(w, t, 4), -1);
      THOptim_(rpropLoop)(THTensor_(data)(w[0]), THTensor_(data)(w[1]), THTensor_(data)(w[2]),
                          THTensor_(data)(w[3]), THTensor_(nElement)(w[0]), (real)etaminus,
                          (real)etaplus, (real)step_size_min, (real)step_size_max,
                          maximize ? (real)-1 : (real)1);
      THTry(THOptim_(close)(w, t, 4), -1);
    }
  }
  return 0;
}

/* ---- ASGD --------------------------------------------------------------------------------- */

static void THOptim_(asgdLoop)(real *restrict p, const real *restrict g, real *restrict ax,
                               int64_t len, real decay, real eta, real mu, int averaging,
                               real wd, real sign) {
  const int par = THOptim_(worth)(len, 3);
#pragma omp parallel for if (par)
  for (int64_t j = 0; j < len; j++) {
    real d = sign * g[j];
    d = wd != 0 ? d + wd * p[j] : d;
    const real pj = p[j] * decay + (-eta) * d;
    p[j] = pj;
    ax[j] = averaging ? ax[j] + (pj - ax[j]) * mu : pj;
  }
  if (par) THParallel_noteTeam();
}

int THOptim_(ASGD_step)(THTensor **params, THTensor **grads, THTensor **axs,
                        THFloatTensor **etas, THFloatTensor **mus, THFloatTensor **steps,
                        int n, double lr, double lambd, double alpha, double t0,
                        double weight_decay, int maximize) {
  const char *op = "ASGD.step()";
  static const char *const names[] = {"parameter", "gradient", "ax"};
  THTensor *t[THOPTIM_MAX_OPERANDS], *w[THOPTIM_MAX_OPERANDS];
  for (int pass = 0; pass < 2; pass++) {
    for (int i = 0; i < n; i++) {
      t[0] = params[i];
      t[1] = grads[i];
      t[2] = axs[i];
      if (pass == 0) {
        THTry(THOptim_(checkOperands)(t, names, 3, i, op), -1);
        THTry(THOptim_(checkStep)(steps[i], i, op), -1);
        THTry(THOptim_(checkCounter)(etas[i], "eta", i, op), -1);
        THTry(THOptim_(checkCounter)(mus[i], "mu", i, op), -1);
        continue;
      }
      const double step = THOptim_(advance)(steps[i]);
      float *eta = THFloatTensor_data(etas[i]), *mu = THFloatTensor_data(mus[i]);
      THTry(THOptim_(open)(w, t, 3), -1);
      THOptim_(asgdLoop)(THTensor_(data)(w[0]), THTensor_(data)(w[1]), THTensor_(data)(w[2]),
                         THTensor_(nElement)(w[0]), (real)(1 - lambd * (double)*eta),
                         (real)*eta, (real)*mu, *mu != 1.0f, (real)weight_decay,
                         maximize ? (real)-1 : (real)1);
      THTry(THOptim_(close)(w, t, 3), -1);
      *eta = (float)(lr / pow(1 + lambd * lr * step, alpha));
      *mu = (float)(1 / fmax(1, step - t0));
    }
  }
  return 0;
}

#endif
