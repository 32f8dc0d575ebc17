#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THOptim.c"
#else

/* How a group is walked.
 * 1. Parameter i is seen as k operands of one size: the parameter (operand 0), its gradient
 *    (operand 1) and its state buffers (2..k-1). Every parameter's operands, step counter and
 *    other float32 counters (NAdam's mu_product, ASGD's eta and mu) are checked before any is
 *    updated, so a bad buffer leaves the whole group untouched. One walk (THOptim_(walk))
 *    does this for every kernel, calling the kernel's per-parameter update.
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

/* Parameter i's update once its operands are contiguous: data[j] is operand j's array of len
 * elements, step the count just advanced (0 without step counters), args the kernel's
 * THOptim<Name>Args. */
typedef void (*THOptim_(Update))(real *const *data, int64_t len, int i, double step,
                                 const void *args);

/* A group's walk (steps 1 and 2 above): operand j of parameter i is lists[j][i], named
 * names[j]; counters[c][i] (c < nc, named counter_names[c]) are further float32 counters the
 * update reads and writes; steps may be NULL. */
static int THOptim_(walk)(THTensor **const *lists, const char *const *names, int k,
                          THFloatTensor **steps, THFloatTensor **const *counters,
                          const char *const *counter_names, int nc, int n, const char *op,
                          THOptim_(Update) update, const void *args) {
  THTensor *t[THOPTIM_MAX_OPERANDS], *w[THOPTIM_MAX_OPERANDS];
  real *data[THOPTIM_MAX_OPERANDS];
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < k; j++) t[j] = lists[j][i];
    THTry(THOptim_(checkOperands)(t, names, k, i, op), -1);
    if (steps) THTry(THOptim_(checkStep)(steps[i], i, op), -1);
    for (int c = 0; c < nc; c++)
      THTry(THOptim_(checkCounter)(counters[c][i], counter_names[c], i, op), -1);
  }
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < k; j++) t[j] = lists[j][i];
    const double step = steps ? THOptim_(advance)(steps[i]) : 0;
    THTry(THOptim_(open)(w, t, k), -1);
    for (int j = 0; j < k; j++) data[j] = THTensor_(data)(w[j]);
    update(data, THTensor_(nElement)(w[0]), i, step, args);
    THTry(THOptim_(close)(w, t, k), -1);
  }
  return 0;
}

/* d = ±g, plus weight_decay * p when it is set (weight decay coupled to the gradient). */
static inline real THOptim_(direction)(real g, real p, real sign, real wd) {
  const real d = sign * g;
  return wd != 0 ? d + wd * p : d;
}

/* The sign d = ±g takes. */
static inline real THOptim_(sign)(int maximize) { return maximize ? (real)-1 : (real)1; }

/* A group's weight decay: the factor p is scaled by (decoupled) and the one added to d. */
static void THOptim_(decays)(double lr, double weight_decay, int decoupled, real *decay,
                             real *wd) {
  *decay = decoupled && weight_decay != 0 ? (real)(1 - lr * weight_decay) : (real)1;
  *wd = decoupled ? (real)0 : (real)weight_decay;
}

/* ---- SGD ---------------------------------------------------------------------------------- */

/* One element; has_buf is a literal at each call, so the loop compiles without branches. */
static inline __attribute__((always_inline)) void THOptim_(sgdAt)(
    int64_t j, real *p, const real *g, real *buf, int fresh, real lr, real mom, real damp1,
    real wd, int nesterov, real sign, const int has_buf) {
  real d = THOptim_(direction)(g[j], p[j], sign, wd);
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

static void THOptim_(sgdUpdate)(real *const *data, int64_t len, int i, double step,
                                const void *args) {
  const THOptimSGDArgs *a = args;
  (void)step;
  THOptim_(sgdLoop)(data[0], data[1], a->has_buf ? data[2] : NULL, len,
                    a->fresh ? a->fresh[i] : 0, (real)a->lr, (real)a->momentum,
                    (real)(1 - a->dampening), (real)a->weight_decay, a->nesterov,
                    THOptim_(sign)(a->maximize));
}

int THOptim_(SGD_step)(THTensor **params, THTensor **grads, THTensor **momentum_buffers,
                       const uint8_t *fresh, int n, double lr, double momentum,
                       double dampening, double weight_decay, int nesterov, int maximize) {
  static const char *const names[] = {"parameter", "gradient", "momentum_buffer"};
  THTensor **const lists[] = {params, grads, momentum_buffers};
  const THOptimSGDArgs a = {.fresh = fresh, .lr = lr, .momentum = momentum,
                            .dampening = dampening, .weight_decay = weight_decay,
                            .nesterov = nesterov, .maximize = maximize,
                            .has_buf = momentum_buffers != NULL};
  return THOptim_(walk)(lists, names, a.has_buf ? 3 : 2, NULL, NULL, NULL, 0, n, "SGD.step()",
                        THOptim_(sgdUpdate), &a);
}

/* ---- Adam / AdamW ------------------------------------------------------------------------- */

static inline __attribute__((always_inline)) void THOptim_(adamAt)(
    int64_t j, real *p, const real *g, real *m, real *v, real *vmax, real decay, real wd,
    real w1, real beta2, real w2, real step_size, real bc2_sqrt, real eps, real sign,
    const int amsgrad) {
  const real pj = p[j] * decay; /* decay is exactly 1 unless AdamW decays */
  real d = THOptim_(direction)(g[j], pj, sign, wd);
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

static void THOptim_(adamUpdate)(real *const *data, int64_t len, int i, double step,
                                 const void *args) {
  const THOptimAdamArgs *a = args;
  (void)i;
  const double bc1 = 1 - pow(a->beta1, step);
  const double bc2 = 1 - pow(a->beta2, step);
  real decay, wd;
  THOptim_(decays)(a->lr, a->weight_decay, a->decoupled, &decay, &wd);
  THOptim_(adamLoop)(data[0], data[1], data[2], data[3], a->amsgrad ? data[4] : NULL, len,
                     decay, wd, (real)(1 - a->beta1),
                     (real)a->beta2, (real)(1 - a->beta2), (real)(a->lr / bc1), (real)sqrt(bc2),
                     (real)a->eps, THOptim_(sign)(a->maximize));
}

int THOptim_(Adam_step)(THTensor **params, THTensor **grads, THTensor **exp_avgs,
                        THTensor **exp_avg_sqs, THTensor **max_exp_avg_sqs,
                        THFloatTensor **steps, int n, double lr, double beta1, double beta2,
                        double eps, double weight_decay, int decoupled_weight_decay,
                        int maximize) {
  static const char *const names[] = {"parameter", "gradient", "exp_avg", "exp_avg_sq",
                                      "max_exp_avg_sq"};
  THTensor **const lists[] = {params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs};
  const THOptimAdamArgs a = {.lr = lr, .beta1 = beta1, .beta2 = beta2, .eps = eps,
                             .weight_decay = weight_decay,
                             .decoupled = decoupled_weight_decay, .maximize = maximize,
                             .amsgrad = max_exp_avg_sqs != NULL};
  return THOptim_(walk)(lists, names, a.amsgrad ? 5 : 4, steps, NULL, NULL, 0, n,
                        decoupled_weight_decay ? "AdamW.step()" : "Adam.step()",
                        THOptim_(adamUpdate), &a);
}

/* ---- RMSprop ------------------------------------------------------------------------------ */

static inline __attribute__((always_inline)) void THOptim_(rmspropAt)(
    int64_t j, real *p, const real *g, real *s, real *a, real *buf, real lr, real alpha,
    real w, real eps, real wd, real mom, real sign, const int centered, const int has_buf) {
  real d = THOptim_(direction)(g[j], p[j], sign, wd);
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

static void THOptim_(rmspropUpdate)(real *const *data, int64_t len, int i, double step,
                                    const void *args) {
  const THOptimRMSpropArgs *a = args;
  (void)i;
  (void)step;
  THOptim_(rmspropLoop)(data[0], data[1], data[2], a->centered ? data[3] : NULL,
                        a->has_buf ? data[3 + a->centered] : NULL, len, (real)a->lr,
                        (real)a->alpha, (real)(1 - a->alpha), (real)a->eps,
                        (real)a->weight_decay, (real)a->momentum, THOptim_(sign)(a->maximize));
}

int THOptim_(RMSprop_step)(THTensor **params, THTensor **grads, THTensor **square_avgs,
                           THTensor **grad_avgs, THTensor **momentum_buffers,
                           THFloatTensor **steps, int n, double lr, double alpha, double eps,
                           double weight_decay, double momentum, int maximize) {
  const char *names[THOPTIM_MAX_OPERANDS] = {"parameter", "gradient", "square_avg"};
  THTensor **lists[THOPTIM_MAX_OPERANDS] = {params, grads, square_avgs};
  int k = 3;
  if (grad_avgs) {
    names[k] = "grad_avg";
    lists[k++] = grad_avgs;
  }
  if (momentum_buffers) {
    names[k] = "momentum_buffer";
    lists[k++] = momentum_buffers;
  }
  const THOptimRMSpropArgs a = {.lr = lr, .alpha = alpha, .eps = eps,
                                .weight_decay = weight_decay, .momentum = momentum,
                                .maximize = maximize, .centered = grad_avgs != NULL,
                                .has_buf = momentum_buffers != NULL};
  return THOptim_(walk)(lists, names, k, steps, NULL, NULL, 0, n, "RMSprop.step()",
                        THOptim_(rmspropUpdate), &a);
}

/* ---- Adagrad ------------------------------------------------------------------------------ */

static void THOptim_(adagradLoop)(real *restrict p, const real *restrict g, real *restrict s,
                                  int64_t len, real clr, real wd, real eps, real sign) {
  const int par = THOptim_(worth)(len, 3);
#pragma omp parallel for if (par)
  for (int64_t j = 0; j < len; j++) {
    real d = THOptim_(direction)(g[j], p[j], sign, wd);
    const real sj = s[j] + d * d;
    s[j] = sj;
    p[j] = p[j] + (-clr) * (d / (sqrt(sj) + eps));
  }
  if (par) THParallel_noteTeam();
}

static void THOptim_(adagradUpdate)(real *const *data, int64_t len, int i, double step,
                                    const void *args) {
  const THOptimAdagradArgs *a = args;
  (void)i;
  const double clr = a->lr / (1 + (step - 1) * a->lr_decay);
  THOptim_(adagradLoop)(data[0], data[1], data[2], len, (real)clr, (real)a->weight_decay,
                        (real)a->eps, THOptim_(sign)(a->maximize));
}

int THOptim_(Adagrad_step)(THTensor **params, THTensor **grads, THTensor **sums,
                           THFloatTensor **steps, int n, double lr, double lr_decay,
                           double weight_decay, double eps, int maximize) {
  static const char *const names[] = {"parameter", "gradient", "sum"};
  THTensor **const lists[] = {params, grads, sums};
  const THOptimAdagradArgs a = {.lr = lr, .lr_decay = lr_decay, .weight_decay = weight_decay,
                                .eps = eps, .maximize = maximize};
  return THOptim_(walk)(lists, names, 3, steps, NULL, NULL, 0, n, "Adagrad.step()",
                        THOptim_(adagradUpdate), &a);
}

/* ---- Adadelta ----------------------------------------------------------------------------- */

static void THOptim_(adadeltaLoop)(real *restrict p, const real *restrict g, real *restrict s,
                                   real *restrict a, int64_t len, real lr, real rho, real w,
                                   real eps, real wd, real sign) {
  const int par = THOptim_(worth)(len, 4);
#pragma omp parallel for if (par)
  for (int64_t j = 0; j < len; j++) {
    real d = THOptim_(direction)(g[j], p[j], sign, wd);
    const real sj = s[j] * rho + w * d * d;
    s[j] = sj;
    const real u = sqrt(a[j] + eps) / sqrt(sj + eps) * d;
    a[j] = a[j] * rho + w * u * u;
    p[j] = p[j] + (-lr) * u;
  }
  if (par) THParallel_noteTeam();
}

static void THOptim_(adadeltaUpdate)(real *const *data, int64_t len, int i, double step,
                                     const void *args) {
  const THOptimAdadeltaArgs *a = args;
  (void)i;
  (void)step;
  THOptim_(adadeltaLoop)(data[0], data[1], data[2], data[3], len, (real)a->lr, (real)a->rho,
                         (real)(1 - a->rho), (real)a->eps, (real)a->weight_decay,
                         THOptim_(sign)(a->maximize));
}

int THOptim_(Adadelta_step)(THTensor **params, THTensor **grads, THTensor **square_avgs,
                            THTensor **acc_deltas, THFloatTensor **steps, int n, double lr,
                            double rho, double eps, double weight_decay, int maximize) {
  static const char *const names[] = {"parameter", "gradient", "square_avg", "acc_delta"};
  THTensor **const lists[] = {params, grads, square_avgs, acc_deltas};
  const THOptimAdadeltaArgs a = {.lr = lr, .rho = rho, .eps = eps,
                                 .weight_decay = weight_decay, .maximize = maximize};
  return THOptim_(walk)(lists, names, 4, steps, NULL, NULL, 0, n, "Adadelta.step()",
                        THOptim_(adadeltaUpdate), &a);
}

/* ---- Adamax ------------------------------------------------------------------------------- */

static void THOptim_(adamaxLoop)(real *restrict p, const real *restrict g, real *restrict m,
                                 real *restrict u, int64_t len, real clr, real w1, real beta2,
                                 real eps, real wd, real sign) {
  const int par = THOptim_(worth)(len, 4);
#pragma omp parallel for if (par)
  for (int64_t j = 0; j < len; j++) {
    real d = THOptim_(direction)(g[j], p[j], sign, wd);
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

static void THOptim_(adamaxUpdate)(real *const *data, int64_t len, int i, double step,
                                   const void *args) {
  const THOptimAdamaxArgs *a = args;
  (void)i;
  const double clr = a->lr / (1 - pow(a->beta1, step));
  THOptim_(adamaxLoop)(data[0], data[1], data[2], data[3], len, (real)clr,
                       (real)(1 - a->beta1), (real)a->beta2, (real)a->eps,
                       (real)a->weight_decay, THOptim_(sign)(a->maximize));
}

int THOptim_(Adamax_step)(THTensor **params, THTensor **grads, THTensor **exp_avgs,
                          THTensor **exp_infs, THFloatTensor **steps, int n, double lr,
                          double beta1, double beta2, double eps, double weight_decay,
                          int maximize) {
  static const char *const names[] = {"parameter", "gradient", "exp_avg", "exp_inf"};
  THTensor **const lists[] = {params, grads, exp_avgs, exp_infs};
  const THOptimAdamaxArgs a = {.lr = lr, .beta1 = beta1, .beta2 = beta2, .eps = eps,
                               .weight_decay = weight_decay, .maximize = maximize};
  return THOptim_(walk)(lists, names, 4, steps, NULL, NULL, 0, n, "Adamax.step()",
                        THOptim_(adamaxUpdate), &a);
}

/* ---- NAdam and RAdam: Adam's moments with other corrections ------------------------------- */

/* The moments both share: decoupled decay of p (decay is exactly 1 otherwise), d = ±g plus
 * coupled decay, m = lerp(m, d, w1), v = beta2 v + w2 d d; returns d. */
static inline __attribute__((always_inline)) real THOptim_(moments)(
    int64_t j, real *p, const real *g, real *m, real *v, real decay, real wd, real w1,
    real beta2, real w2, real sign) {
  const real pj = p[j] * decay;
  p[j] = pj;
  real d = THOptim_(direction)(g[j], pj, sign, wd);
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


static void THOptim_(nadamUpdate)(real *const *data, int64_t len, int i, double step,
                                  const void *args) {
  const THOptimNAdamArgs *a = args;
  const double mu = a->beta1 * (1 - 0.5 * pow(0.96, step * a->momentum_decay));
  const double mu_next = a->beta1 * (1 - 0.5 * pow(0.96, (step + 1) * a->momentum_decay));
  float *prod = THFloatTensor_data(a->mu_products[i]);
  *prod = *prod * (float)mu; /* a float32 product, as PyTorch keeps it */
  const double cg = -a->lr * (1 - mu) / (1 - (double)*prod);
  const double cm = -a->lr * mu_next / (1 - (double)*prod * mu_next);
  real decay, wd;
  THOptim_(decays)(a->lr, a->weight_decay, a->decoupled, &decay, &wd);
  THOptim_(nadamLoop)(data[0], data[1], data[2], data[3], len, decay, wd, (real)(1 - a->beta1),
                      (real)a->beta2, (real)(1 - a->beta2), (real)(1 - pow(a->beta2, step)),
                      (real)a->eps, (real)cg, (real)cm, THOptim_(sign)(a->maximize));
}

int THOptim_(NAdam_step)(THTensor **params, THTensor **grads, THTensor **exp_avgs,
                         THTensor **exp_avg_sqs, THFloatTensor **mu_products,
                         THFloatTensor **steps, int n, double lr, double beta1, double beta2,
                         double eps, double weight_decay, double momentum_decay,
                         int decoupled_weight_decay, int maximize) {
  static const char *const names[] = {"parameter", "gradient", "exp_avg", "exp_avg_sq"};
  static const char *const counter_names[] = {"mu_product"};
  THTensor **const lists[] = {params, grads, exp_avgs, exp_avg_sqs};
  THFloatTensor **const counters[] = {mu_products};
  const THOptimNAdamArgs a = {.lr = lr, .beta1 = beta1, .beta2 = beta2, .eps = eps,
                              .weight_decay = weight_decay, .momentum_decay = momentum_decay,
                              .decoupled = decoupled_weight_decay, .maximize = maximize,
                              .mu_products = mu_products};
  return THOptim_(walk)(lists, names, 4, steps, counters, counter_names, 1, n, "NAdam.step()",
                        THOptim_(nadamUpdate), &a);
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

static void THOptim_(radamUpdate)(real *const *data, int64_t len, int i, double step,
                                  const void *args) {
  const THOptimRAdamArgs *a = args;
  (void)i;
  const double rho_inf = 2 / (1 - a->beta2) - 1;
  const double bc1 = 1 - pow(a->beta1, step);
  const double bc2 = 1 - pow(a->beta2, step);
  const double rho_t = rho_inf - 2 * step * pow(a->beta2, step) / bc2;
  const int rectified = rho_t > 5;
  const double rect = rectified ? sqrt((rho_t - 4) * (rho_t - 2) * rho_inf /
                                       ((rho_inf - 4) * (rho_inf - 2) * rho_t))
                                : 1;
  real decay, wd;
  THOptim_(decays)(a->lr, a->weight_decay, a->decoupled, &decay, &wd);
  THOptim_(radamLoop)(data[0], data[1], data[2], data[3], len, decay, wd, (real)(1 - a->beta1),
                      (real)a->beta2, (real)(1 - a->beta2), (real)bc1, (real)a->lr,
                      (real)sqrt(bc2), (real)a->eps, (real)rect, THOptim_(sign)(a->maximize),
                      rectified);
}

int THOptim_(RAdam_step)(THTensor **params, THTensor **grads, THTensor **exp_avgs,
                         THTensor **exp_avg_sqs, THFloatTensor **steps, int n, double lr,
                         double beta1, double beta2, double eps, double weight_decay,
                         int decoupled_weight_decay, int maximize) {
  static const char *const names[] = {"parameter", "gradient", "exp_avg", "exp_avg_sq"};
  THTensor **const lists[] = {params, grads, exp_avgs, exp_avg_sqs};
  const THOptimRAdamArgs a = {.lr = lr, .beta1 = beta1, .beta2 = beta2, .eps = eps,
                              .weight_decay = weight_decay, .decoupled = decoupled_weight_decay,
                              .maximize = maximize};
  return THOptim_(walk)(lists, names, 4, steps, NULL, NULL, 0, n, "RAdam.step()",
                        THOptim_(radamUpdate), &a);
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
    /* PyTorch's sign() is 0 for NaN: a NaN product keeps the step size, a NaN gradient
     * moves nothing (and becomes prev) */
    const real f = c > 0 ? etaplus : c < 0 ? etaminus : (real)1;
    real sj = s[j] * f;
    sj = isnan(sj) ? sj : sj < lo ? lo : sj > hi ? hi : sj;
    s[j] = sj;
    d = f == etaminus ? (real)0 : d;
    const real sgn = d > 0 ? (real)1 : d < 0 ? (real)-1 : (real)0;
    p[j] = p[j] + (-sgn) * sj;
    prev[j] = d;
  }
  if (par) THParallel_noteTeam();
}

static void THOptim_(rpropUpdate)(real *const *data, int64_t len, int i, double step,
                                  const void *args) {
  const THOptimRpropArgs *a = args;
  (void)i;
  (void)step;
  THOptim_(rpropLoop)(data[0], data[1], data[2], data[3], len, (real)a->etaminus,
                      (real)a->etaplus, (real)a->step_size_min, (real)a->step_size_max,
                      THOptim_(sign)(a->maximize));
}

int THOptim_(Rprop_step)(THTensor **params, THTensor **grads, THTensor **prevs,
                         THTensor **step_sizes, THFloatTensor **steps, int n, double etaminus,
                         double etaplus, double step_size_min, double step_size_max,
                         int maximize) {
  static const char *const names[] = {"parameter", "gradient", "prev", "step_size"};
  THTensor **const lists[] = {params, grads, prevs, step_sizes};
  const THOptimRpropArgs a = {.etaminus = etaminus, .etaplus = etaplus,
                              .step_size_min = step_size_min, .step_size_max = step_size_max,
                              .maximize = maximize};
  return THOptim_(walk)(lists, names, 4, steps, NULL, NULL, 0, n, "Rprop.step()",
                        THOptim_(rpropUpdate), &a);
}

/* ---- ASGD --------------------------------------------------------------------------------- */

static void THOptim_(asgdLoop)(real *restrict p, const real *restrict g, real *restrict ax,
                               int64_t len, real decay, real eta, real mu, int averaging,
                               real wd, real sign) {
  const int par = THOptim_(worth)(len, 3);
#pragma omp parallel for if (par)
  for (int64_t j = 0; j < len; j++) {
    real d = THOptim_(direction)(g[j], p[j], sign, wd);
    const real pj = p[j] * decay + (-eta) * d;
    p[j] = pj;
    ax[j] = averaging ? ax[j] + (pj - ax[j]) * mu : pj;
  }
  if (par) THParallel_noteTeam();
}

static void THOptim_(asgdUpdate)(real *const *data, int64_t len, int i, double step,
                                 const void *args) {
  const THOptimASGDArgs *a = args;
  float *eta = THFloatTensor_data(a->etas[i]), *mu = THFloatTensor_data(a->mus[i]);
  THOptim_(asgdLoop)(data[0], data[1], data[2], len, (real)(1 - a->lambd * (double)*eta),
                     (real)*eta, (real)*mu, *mu != 1.0f, (real)a->weight_decay,
                     THOptim_(sign)(a->maximize));
  *eta = (float)(a->lr / pow(1 + a->lambd * a->lr * step, a->alpha));
  *mu = (float)(1 / fmax(1, step - a->t0));
}

int THOptim_(ASGD_step)(THTensor **params, THTensor **grads, THTensor **axs,
                        THFloatTensor **etas, THFloatTensor **mus, THFloatTensor **steps,
                        int n, double lr, double lambd, double alpha, double t0,
                        double weight_decay, int maximize) {
  static const char *const names[] = {"parameter", "gradient", "ax"};
  static const char *const counter_names[] = {"eta", "mu"};
  THTensor **const lists[] = {params, grads, axs};
  THFloatTensor **const counters[] = {etas, mus};
  const THOptimASGDArgs a = {.lr = lr, .lambd = lambd, .alpha = alpha, .t0 = t0,
                             .weight_decay = weight_decay, .maximize = maximize, .etas = etas,
                             .mus = mus};
  return THOptim_(walk)(lists, names, 3, steps, counters, counter_names, 2, n, "ASGD.step()",
                        THOptim_(asgdUpdate), &a);
}

#endif
