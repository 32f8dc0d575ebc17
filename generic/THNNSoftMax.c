#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THNNSoftMax.c"
#else

/* The walk: a contiguous tensor seen as (outer, n, inner) around dim; slice (o, i) is the n
 * elements o*n*inner + k*inner + i. Slices are split between threads when there is enough
 * work. Sums accumulate in accreal. */
static int THNN_(sliceShape)(const THTensor *t, int *dim, int64_t *outer, int64_t *n,
                             int64_t *inner, const char *op) {
  int d;
  THTry(THShape_wrapDim(&d, op, *dim, t->nDimension), -1);
  *dim = d;
  *outer = 1;
  *inner = 1;
  *n = t->nDimension ? t->size[d] : 1;
  if (THTensor_(nElement)(t) == 0) { /* no slice to walk: beside a 0, huge sizes made outer * */
    *outer = 0;                      /* inner overflow, or 2^62 empty slices walked (a hang) */
    return 0;
  }
  for (int k = 0; k < d; k++) *outer *= t->size[k];
  for (int k = d + 1; k < t->nDimension; k++) *inner *= t->size[k];
  return 0;
}

#if defined(TH_REAL_IS_FLOAT)
#define THNN_SM_EXP expf
#else
#define THNN_SM_EXP exp
#endif

/* One slice of n contiguous elements (a softmax over the last dim, the common case): its
 * maximum m over 16 independent lanes (a running max in one variable is a reduction gcc may not
 * vectorise; lanes are elementwise); exp(x - m) once per element, into y, in the element type
 * (libmvec's vector exp in the clones); their sum in accreal in a loop of its own, over 16
 * lanes too (a sum inside the exp loop kept the exp scalar: gcc may not reorder FP sums, so one
 * running sum also waits an add's latency per element); then y * (1 / sum) (a product, as
 * PyTorch's kernel: a vector division costs ten times as much), or x - m - log(sum) for
 * log_softmax. A NaN, which the lanes' max skips, makes the sum NaN and so
 * every result, as the general walk gives. */
TH_VECTOR_CLONES static void THNN_(softmaxRow)(real *restrict y, const real *restrict x,
                                               int64_t n, int mode) {
  enum { LANES = 16 };
  real lane[LANES];
  for (int j = 0; j < LANES; j++) lane[j] = -INFINITY;
  int64_t k = 0;
  for (; k + LANES <= n; k += LANES)
    for (int j = 0; j < LANES; j++) lane[j] = x[k + j] > lane[j] ? x[k + j] : lane[j];
  for (int j = 0; k < n; k++, j++) lane[j] = x[k] > lane[j] ? x[k] : lane[j];
  real m = lane[0];
  for (int j = 1; j < LANES; j++) m = lane[j] > m ? lane[j] : m;
  if (isinf(m) && m < 0) m = 0; /* every element -inf (or NaN): exp(x - 0) */
  for (k = 0; k < n; k++) y[k] = THNN_SM_EXP(x[k] - m);
  const accreal sum = THNN_(runSum)(y, n);
  if (mode == 0) {
    const real s = (real)(1 / sum);
    for (k = 0; k < n; k++) y[k] = y[k] * s;
  } else {
    const real shift = (real)((accreal)m + log(sum));
    for (k = 0; k < n; k++) y[k] = x[k] - shift;
  }
}

/* The sum of g w over n contiguous elements in accreal over 16 lanes (as runSum). */
TH_VECTOR_CLONES static accreal THNN_(rowDot)(const real *restrict g, const real *restrict w,
                                              int64_t n) {
  enum { LANES = 16 };
  accreal part[LANES] = {0}, sum = 0;
  int64_t k = 0;
  for (; k + LANES <= n; k += LANES)
    for (int j = 0; j < LANES; j++) part[j] += (accreal)g[k + j] * w[k + j];
  for (int j = 0; k < n; k++, j++) part[j] += (accreal)g[k] * w[k];
  for (int j = 0; j < LANES; j++) sum += part[j];
  return sum;
}

/* The gradient of one slice of n contiguous elements in the element type, as PyTorch's vector
 * kernel: softmax y (g - sum(g y)), log_softmax g - exp(y) sum(g), the exp libmvec's. */
TH_VECTOR_CLONES static void THNN_(softmaxGradRow)(real *restrict gi, const real *restrict g,
                                                   const real *restrict y, int64_t n,
                                                   int mode) {
  if (mode == 0) {
    const real dot = (real)THNN_(rowDot)(g, y, n);
    for (int64_t k = 0; k < n; k++) gi[k] = y[k] * (g[k] - dot);
  } else {
    const real sum = (real)THNN_(runSum)(g, n);
    for (int64_t k = 0; k < n; k++) gi[k] = g[k] - THNN_SM_EXP(y[k]) * sum;
  }
}
#undef THNN_SM_EXP

/* mode 0: softmax, 1: log_softmax */
static int THNN_(softmaxForward)(THTensor *output, THTensor *input, int dim, int mode,
                                 const char *op) {
  int64_t outer, n, inner;
  THTry(THTensor_(checkBounds)(input, op), -1);
  THTry(THNN_(sliceShape)(input, &dim, &outer, &n, &inner, op), -1);
  THTensor *in = THTensor_(newContiguous)(input);
  if (!in) return -1;
  if (THTensor_(resizeAs)(output, input) != 0 || !THTensor_(isContiguous)(output)) {
    if (THError_kind() == TH_ERR_NONE)
      THError_set(TH_ERR_RUNTIME, "%s: the output must be contiguous", op);
    THTensor_(free)(in);
    return -1;
  }
  const real *x = THTensor_(data)(in);
  real *y = THTensor_(data)(output);
  const int64_t slices = outer * inner;
  /* the row function writes y before it reads x again: not for an output over its input */
  const int rows = inner == 1 && (y + slices * n <= x || x + slices * n <= y);
  const int par = THParallel_worth(slices * n, (int64_t)sizeof(real) * 2 * TH_WEIGHT_TRANSCENDENTAL);
#pragma omp parallel for if (par)
  for (int64_t s = 0; s < slices; s++) {
    const int64_t base = (s / inner) * n * inner + s % inner;
    if (rows) {
      THNN_(softmaxRow)(y + base, x + base, n, mode);
      continue;
    }
    accreal m = -INFINITY, sum = 0;
    for (int64_t k = 0; k < n; k++) {
      const accreal v = x[base + k * inner];
      if (v > m || isnan(v)) m = v;
    }
    if (isinf(m) && m < 0) m = 0; /* every element -inf: exp(-inf - 0) = 0 */
    for (int64_t k = 0; k < n; k++) sum += exp((accreal)x[base + k * inner] - m);
    if (mode == 0) {
      for (int64_t k = 0; k < n; k++)
        y[base + k * inner] = (real)(exp((accreal)x[base + k * inner] - m) / sum);
    } else {
      const accreal shift = m + log(sum);
      for (int64_t k = 0; k < n; k++) y[base + k * inner] = (real)((accreal)x[base + k * inner] - shift);
    }
  }
  THTensor_(free)(in);
  return 0;
}

static int THNN_(softmaxBackward)(THTensor *gradInput, THTensor *gradOutput, THTensor *output,
                                  int dim, int mode, const char *op) {
  int64_t outer, n, inner;
  THArgCheck(THTensor_(isSameSizeAs)(gradOutput, output), TH_ERR_RUNTIME, -1,
             "%s backward: gradOutput and output must have the same shape", op);
  THTry(THTensor_(checkBounds)(gradOutput, op), -1);
  THTry(THTensor_(checkBounds)(output, op), -1);
  THTry(THNN_(sliceShape)(output, &dim, &outer, &n, &inner, op), -1);
  THTensor *go = THTensor_(newContiguous)(gradOutput);
  THTensor *out = go ? THTensor_(newContiguous)(output) : NULL;
  if (!out || THTensor_(resizeAs)(gradInput, output) != 0 ||
      !THTensor_(isContiguous)(gradInput)) {
    if (out && THError_kind() == TH_ERR_NONE)
      THError_set(TH_ERR_RUNTIME, "%s: the gradient must be contiguous", op);
    THTensor_(free)(go);
    THTensor_(free)(out);
    return -1;
  }
  const real *g = THTensor_(data)(go), *y = THTensor_(data)(out);
  real *gi = THTensor_(data)(gradInput);
  const int64_t slices = outer * inner, all = slices * n;
  /* the row function's operands may not overlap (restrict): a gradient written over either */
  const int rows = inner == 1 && (gi + all <= g || g + all <= gi) &&
                   (gi + all <= y || y + all <= gi);
  const int par = THParallel_worth(slices * n, (int64_t)sizeof(real) * 3 * TH_WEIGHT_TRANSCENDENTAL);
#pragma omp parallel for if (par)
  for (int64_t s = 0; s < slices; s++) {
    const int64_t base = (s / inner) * n * inner + s % inner;
    if (rows) {
      THNN_(softmaxGradRow)(gi + base, g + base, y + base, n, mode);
      continue;
    }
    accreal dot = 0;
    if (mode == 0) {
      for (int64_t k = 0; k < n; k++)
        dot += (accreal)g[base + k * inner] * y[base + k * inner];
      for (int64_t k = 0; k < n; k++) {
        const int64_t i = base + k * inner;
        gi[i] = (real)((accreal)y[i] * ((accreal)g[i] - dot));
      }
    } else {
      for (int64_t k = 0; k < n; k++) dot += g[base + k * inner];
      for (int64_t k = 0; k < n; k++) {
        const int64_t i = base + k * inner;
        gi[i] = (real)((accreal)g[i] - exp((accreal)y[i]) * dot);
      }
    }
  }
  THTensor_(free)(go);
  THTensor_(free)(out);
  return 0;
}

int THNN_(SoftMax_updateOutput)(THTensor *output, THTensor *input, int dim) {
  return THNN_(softmaxForward)(output, input, dim, 0, "softmax()");
}
int THNN_(SoftMax_updateGradInput)(THTensor *gradInput, THTensor *gradOutput, THTensor *output,
                                   int dim) {
  return THNN_(softmaxBackward)(gradInput, gradOutput, output, dim, 0, "softmax()");
}
int THNN_(LogSoftMax_updateOutput)(THTensor *output, THTensor *input, int dim) {
  return THNN_(softmaxForward)(output, input, dim, 1, "log_softmax()");
}
int THNN_(LogSoftMax_updateGradInput)(THTensor *gradInput, THTensor *gradOutput,
                                      THTensor *output, int dim) {
  return THNN_(softmaxBackward)(gradInput, gradOutput, output, dim, 1, "log_softmax()");
}

/* ---- ClassNLLCriterion ------------------------------------------------------------------- */

/* Checks the shapes: input (C), or (N, C, S...) with target (N, S...); n = N, c = C, s = S. */
static int THNN_(nllShape)(THTensor *input, THLongTensor *target, THTensor *weights, int64_t *n,
                           int64_t *c, int64_t *s) {
  const char *op = "nll_loss()";
  char a[TH_SIZE_STR_LEN], b[TH_SIZE_STR_LEN];
  THArgCheck(input->nDimension >= 1, TH_ERR_RUNTIME, -1,
             "%s: input must have at least 1 dim (got a 0-dim tensor)", op);
  THTry(THTensor_(checkBounds)(input, op), -1);
  THTry(THLongTensor_checkBounds(target, op), -1);
  int ok = 1;
  if (input->nDimension == 1) {
    *n = 1;
    *c = input->size[0];
    *s = 1;
    ok = target->nDimension == 0;
  } else {
    *n = input->size[0];
    *c = input->size[1];
    *s = 1;
    ok = target->nDimension == input->nDimension - 1 && target->size[0] == *n;
    for (int d = 2; d < input->nDimension; d++) {
      *s *= input->size[d];
      ok = ok && target->size[d - 1] == input->size[d];
    }
  }
  if (!ok) {
    THError_set(TH_ERR_RUNTIME, "%s: expected target of size %s for input of size %s, got %s",
                op, input->nDimension == 1 ? "[]" : "(N, d1, ...)",
                THSize_str(a, sizeof a, input->nDimension, input->size),
                THSize_str(b, sizeof b, target->nDimension, target->size));
    return -1;
  }
  if (weights) {
    THArgCheck(weights->nDimension == 1 && weights->size[0] == *c, TH_ERR_RUNTIME, -1,
               "%s: weight tensor should be defined either for all %lld classes or no classes "
               "but got weight tensor of shape: %s", op, (long long)*c,
               THSize_str(a, sizeof a, weights->nDimension, weights->size));
    THTry(THTensor_(checkBounds)(weights, op), -1);
  }
  return 0;
}

int THNN_(ClassNLLCriterion_updateOutput)(THTensor *output, THTensor *totalWeight,
                                          THTensor *input, THLongTensor *target,
                                          THTensor *weights, int reduction,
                                          int64_t ignore_index) {
  int64_t n, c, s;
  THTry(THNN_(nllShape)(input, target, weights, &n, &c, &s), -1);
  THTensor *in = THTensor_(newContiguous)(input);
  THLongTensor *tg = in ? THLongTensor_newContiguous(target) : NULL;
  THTensor *w = tg && weights ? THTensor_(newContiguous)(weights) : NULL;
  int rc = -1;
  if (!tg || (weights && !w)) goto done;
  const real *x = THTensor_(data)(in), *wd = w ? THTensor_(data)(w) : NULL;
  const int64_t *t = THLongTensor_data(tg);
  for (int64_t i = 0; i < n * s; i++) {
    if (t[i] != ignore_index && (t[i] < 0 || t[i] >= c)) {
      THError_set(TH_ERR_INDEX, "nll_loss(): target %lld is out of bounds for %lld classes",
                  (long long)t[i], (long long)c);
      goto done;
    }
  }
  if (reduction == 0) {
    if (input->nDimension == 1) {
      if (THTensor_(resize)(output, 0, NULL) != 0) goto done;
    } else if (THTensor_(resize)(output, target->nDimension, target->size) != 0) {
      goto done;
    }
    real *y = THTensor_(data)(output);
    for (int64_t i = 0; i < n * s; i++) {
      const int64_t j = i / s, k = i % s, cls = t[i];
      y[i] = cls == ignore_index ? 0 : -(wd ? wd[cls] : 1) * x[(j * c + cls) * s + k];
    }
  } else {
    accreal total = 0, wsum = 0;
    for (int64_t i = 0; i < n * s; i++) {
      const int64_t j = i / s, k = i % s, cls = t[i];
      if (cls == ignore_index) continue;
      const accreal wt = wd ? wd[cls] : 1;
      total -= wt * x[(j * c + cls) * s + k];
      wsum += wt;
    }
    if (THTensor_(resize)(output, 0, NULL) != 0) goto done;
    THTensor_(data)(output)[0] = (real)(reduction == 1 ? total / wsum : total);
    if (THTensor_(resize)(totalWeight, 0, NULL) != 0) goto done;
    THTensor_(data)(totalWeight)[0] = (real)wsum;
  }
  rc = 0;
done:
  THTensor_(free)(in);
  THLongTensor_free(tg);
  THTensor_(free)(w);
  return rc;
}

int THNN_(ClassNLLCriterion_updateGradInput)(THTensor *gradInput, THTensor *gradOutput,
                                             THTensor *input, THLongTensor *target,
                                             THTensor *weights, THTensor *totalWeight,
                                             int reduction, int64_t ignore_index) {
  int64_t n, c, s;
  THTry(THNN_(nllShape)(input, target, weights, &n, &c, &s), -1);
  THTry(THTensor_(checkBounds)(gradOutput, "nll_loss()"), -1);
  THTensor *go = THTensor_(newContiguous)(gradOutput);
  THLongTensor *tg = go ? THLongTensor_newContiguous(target) : NULL;
  THTensor *w = tg && weights ? THTensor_(newContiguous)(weights) : NULL;
  int rc = -1;
  if (!tg || (weights && !w)) goto done;
  if (THTensor_(resizeAs)(gradInput, input) != 0 || THTensor_(zero)(gradInput) != 0) goto done;
  if (!THTensor_(isContiguous)(gradInput)) {
    THError_set(TH_ERR_RUNTIME, "nll_loss(): the gradient must be contiguous");
    goto done;
  }
  real *gi = THTensor_(data)(gradInput);
  const real *g = THTensor_(data)(go), *wd = w ? THTensor_(data)(w) : NULL;
  const int64_t *t = THLongTensor_data(tg);
  accreal scale = reduction == 0 ? 0 : g[0];
  if (reduction == 1) {
    THArgCheck(THTensor_(nElement)(totalWeight) == 1, TH_ERR_RUNTIME, -1,
               "nll_loss(): totalWeight must hold one value");
    scale /= (accreal)THTensor_(data)(totalWeight)[0];
  }
  for (int64_t i = 0; i < n * s; i++) {
    const int64_t j = i / s, k = i % s, cls = t[i];
    if (cls == ignore_index) continue;
    const accreal gv = reduction == 0 ? (accreal)g[i] : scale;
    gi[(j * c + cls) * s + k] = (real)(-(wd ? wd[cls] : 1) * gv);
  }
  rc = 0;
done:
  THTensor_(free)(go);
  THLongTensor_free(tg);
  THTensor_(free)(w);
  return rc;
}

#endif
