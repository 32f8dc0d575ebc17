#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THNNNormalization.c"
#else

/* The walks. Every input is first made contiguous.
 * 1. Batch norm sees it as (N, C, S) (S: the product of the dims after C) and works one
 *    channel at a time: its N * S elements are x[(n * C + c) * S + s]. Channels are split
 *    between threads when there is enough work.
 * 2. Layer and group norm see it as R rows of K contiguous elements (layer: K = the
 *    normalised numel; group: a row is one (sample, group), K = C / groups * S). Element k
 *    of row r takes its weight and bias from ((r % G) * K + k) / S, which is k for layer norm
 *    (G = S = 1) and the element's channel for group norm. Rows are split between threads;
 *    the parameter gradients sum over rows on one thread.
 * Statistics use two passes (mean, then centred squares) in accreal. */

/* Resizes out (ndim, size) and requires it contiguous. */
static int THNN_(freshOutput)(THTensor *out, int ndim, const int64_t *size, const char *op) {
  THTry(THTensor_(resize)(out, ndim, size), -1);
  THArgCheck(THTensor_(isContiguous)(out), TH_ERR_RUNTIME, -1,
             "%s: the output must be contiguous", op);
  return 0;
}

/* A contiguous copy (or a new reference) of an optional tensor: *ok = 0 on failure. */
static THTensor *THNN_(optContiguous)(THTensor *t, int *ok) {
  if (!t) return NULL;
  THTensor *c = THTensor_(newContiguous)(t);
  if (!c) *ok = 0;
  return c;
}

/* An optional per-feature tensor (weight, bias, running stats) must hold n elements. */
static int THNN_(checkFeature)(THTensor *t, int64_t n, const char *what, const char *op) {
  if (!t) return 0;
  THTry(THTensor_(checkBounds)(t, op), -1);
  THArgCheck(THTensor_(nElement)(t) == n, TH_ERR_RUNTIME, -1,
             "%s: %s should contain %lld elements not %lld", op, what, (long long)n,
             (long long)THTensor_(nElement)(t));
  return 0;
}

/* What a backward reads and writes, contiguous: the data of the inputs (x, g, weight or NULL,
 * the saved mean and invstd) and of the outputs that are wanted (else NULL). */
typedef struct {
  THTensor *in, *go, *w, *mean, *invstd;
  const real *x, *g, *wd, *sm, *si;
  real *gi, *gw, *gb;
} THNN_(NormGrad);

static void THNN_(normGradEnd)(THNN_(NormGrad) *b) {
  THTensor_(free)(b->in);
  THTensor_(free)(b->go);
  THTensor_(free)(b->w);
  THTensor_(free)(b->mean);
  THTensor_(free)(b->invstd);
}

/* Checks the shapes (weight: nAffine elements, the saved statistics: nStats), sizes the
 * wanted gradients (gradInput as input, gradWeight and gradBias (nAffine)) and fills b. */
static int THNN_(normGradBegin)(THNN_(NormGrad) *b, THTensor *gradInput, THTensor *gradWeight,
                                THTensor *gradBias, THTensor *gradOutput, THTensor *input,
                                THTensor *weight, THTensor *saveMean, THTensor *saveInvstd,
                                int64_t nAffine, int64_t nStats, const char *op) {
  memset(b, 0, sizeof *b);
  THArgCheck(THTensor_(isSameSizeAs)(gradOutput, input), TH_ERR_RUNTIME, -1,
             "%s: gradOutput and input must have the same shape", op);
  THTry(THTensor_(checkBounds)(gradOutput, op), -1);
  THTry(THNN_(checkFeature)(weight, nAffine, "weight", op), -1);
  THTry(THNN_(checkFeature)(saveMean, nStats, "save_mean", op), -1);
  THTry(THNN_(checkFeature)(saveInvstd, nStats, "save_invstd", op), -1);
  const int64_t asize[1] = {nAffine};
  if (gradInput) {
    THTry(THTensor_(resizeAs)(gradInput, input), -1);
    THArgCheck(THTensor_(isContiguous)(gradInput), TH_ERR_RUNTIME, -1,
               "%s: the gradient must be contiguous", op);
  }
  if (gradWeight) THTry(THNN_(freshOutput)(gradWeight, 1, asize, op), -1);
  if (gradBias) THTry(THNN_(freshOutput)(gradBias, 1, asize, op), -1);
  int ok = 1;
  b->in = THNN_(optContiguous)(input, &ok);
  b->go = THNN_(optContiguous)(gradOutput, &ok);
  b->w = THNN_(optContiguous)(weight, &ok);
  b->mean = THNN_(optContiguous)(saveMean, &ok);
  b->invstd = THNN_(optContiguous)(saveInvstd, &ok);
  if (!ok) {
    THNN_(normGradEnd)(b);
    return -1;
  }
  b->x = THTensor_(data)(b->in);
  b->g = THTensor_(data)(b->go);
  b->wd = b->w ? THTensor_(data)(b->w) : NULL;
  b->sm = THTensor_(data)(b->mean);
  b->si = THTensor_(data)(b->invstd);
  b->gi = gradInput ? THTensor_(data)(gradInput) : NULL;
  b->gw = gradWeight ? THTensor_(data)(gradWeight) : NULL;
  b->gb = gradBias ? THTensor_(data)(gradBias) : NULL;
  return 0;
}

/* ---- BatchNormalization ------------------------------------------------------------------ */

static int THNN_(bnShape)(THTensor *input, int64_t *n, int64_t *c, int64_t *s, const char *op) {
  char a[TH_SIZE_STR_LEN];
  THArgCheck(input->nDimension >= 2, TH_ERR_RUNTIME, -1,
             "%s: expected input with at least 2 dims (N, C, ...), got input of size %s", op,
             THSize_str(a, sizeof a, input->nDimension, input->size));
  THTry(THTensor_(checkBounds)(input, op), -1);
  *n = input->size[0];
  *c = input->size[1];
  *s = 1;
  for (int d = 2; d < input->nDimension; d++) *s *= input->size[d];
  return 0;
}

int THNN_(BatchNormalization_updateOutput)(THTensor *output, THTensor *saveMean,
                                           THTensor *saveInvstd, THTensor *input,
                                           THTensor *weight, THTensor *bias,
                                           THTensor *runningMean, THTensor *runningVar,
                                           int train, double momentum, double eps) {
  const char *op = "batch_norm()";
  int64_t n, c, s;
  THTry(THNN_(bnShape)(input, &n, &c, &s, op), -1);
  THTry(THNN_(checkFeature)(weight, c, "weight", op), -1);
  THTry(THNN_(checkFeature)(bias, c, "bias", op), -1);
  THTry(THNN_(checkFeature)(runningMean, c, "running_mean", op), -1);
  THTry(THNN_(checkFeature)(runningVar, c, "running_var", op), -1);
  THArgCheck((runningMean == NULL) == (runningVar == NULL), TH_ERR_RUNTIME, -1,
             "%s: running_mean and running_var must be given together", op);
  THArgCheck(train || runningMean, TH_ERR_RUNTIME, -1,
             "%s: running_mean and running_var must be defined in evaluation mode", op);
  THArgCheck(!runningMean || (THTensor_(isContiguous)(runningMean) &&
                              THTensor_(isContiguous)(runningVar)),
             TH_ERR_RUNTIME, -1, "%s: running_mean and running_var must be contiguous", op);
  const int64_t csize[1] = {c};
  THTry(THNN_(freshOutput)(saveMean, 1, csize, op), -1);
  THTry(THNN_(freshOutput)(saveInvstd, 1, csize, op), -1);
  THTry(THTensor_(resizeAs)(output, input), -1);
  THArgCheck(THTensor_(isContiguous)(output), TH_ERR_RUNTIME, -1,
             "%s: the output must be contiguous", op);
  int ok = 1;
  THTensor *in = THTensor_(newContiguous)(input);
  if (!in) return -1;
  THTensor *w = THNN_(optContiguous)(weight, &ok), *b = THNN_(optContiguous)(bias, &ok);
  if (ok) {
    const real *x = THTensor_(data)(in), *wd = w ? THTensor_(data)(w) : NULL,
               *bd = b ? THTensor_(data)(b) : NULL;
    real *y = THTensor_(data)(output), *sm = THTensor_(data)(saveMean),
         *si = THTensor_(data)(saveInvstd);
    real *rm = runningMean ? THTensor_(data)(runningMean) : NULL,
         *rv = runningVar ? THTensor_(data)(runningVar) : NULL;
    const int64_t count = n * s;
    const int par = THParallel_worth(count * c, (int64_t)sizeof(real) * 3);
#pragma omp parallel for if (par)
    for (int64_t ch = 0; ch < c; ch++) {
      accreal mean, invstd;
      if (train) {
        accreal sum = 0, sq = 0;
        for (int64_t i = 0; i < n; i++) sum += THNN_(runSum)(x + (i * c + ch) * s, s);
        mean = count ? sum / count : (accreal)NAN;
        for (int64_t i = 0; i < n; i++) sq += THNN_(runSquares)(x + (i * c + ch) * s, s, mean);
        const accreal var = count ? sq / count : (accreal)NAN;
        invstd = 1 / sqrt(var + (accreal)eps);
        if (rm && count > 0) { /* an empty batch leaves the running statistics alone */
          rm[ch] = (real)((1 - momentum) * rm[ch] + momentum * mean);
          rv[ch] = (real)((1 - momentum) * rv[ch] + momentum * sq / (count - 1));
        }
      } else {
        mean = rm[ch];
        invstd = 1 / sqrt((accreal)rv[ch] + (accreal)eps);
      }
      sm[ch] = (real)mean;
      si[ch] = (real)invstd;
      const accreal scale = invstd * (wd ? wd[ch] : 1), shift = bd ? bd[ch] : 0;
      for (int64_t i = 0; i < n; i++)
        for (int64_t k = 0; k < s; k++) {
          const int64_t j = (i * c + ch) * s + k;
          y[j] = (real)((x[j] - mean) * scale + shift);
        }
    }
  }
  THTensor_(free)(in);
  THTensor_(free)(w);
  THTensor_(free)(b);
  return ok ? 0 : -1;
}

int THNN_(BatchNormalization_backward)(THTensor *gradInput, THTensor *gradWeight,
                                       THTensor *gradBias, THTensor *gradOutput,
                                       THTensor *input, THTensor *weight, THTensor *saveMean,
                                       THTensor *saveInvstd, int train) {
  const char *op = "batch_norm() backward";
  int64_t n, c, s;
  THNN_(NormGrad) b;
  THTry(THNN_(bnShape)(input, &n, &c, &s, op), -1);
  THTry(THNN_(normGradBegin)(&b, gradInput, gradWeight, gradBias, gradOutput, input, weight,
                             saveMean, saveInvstd, c, c, op), -1);
  {
    const real *x = b.x, *g = b.g, *wd = b.wd, *sm = b.sm, *si = b.si;
    real *gi = b.gi, *gw = b.gw, *gb = b.gb;
    const int64_t count = n * s;
    const int par = THParallel_worth(count * c, (int64_t)sizeof(real) * 4);
#pragma omp parallel for if (par)
    for (int64_t ch = 0; ch < c; ch++) {
      const accreal mean = sm[ch], invstd = si[ch], wv = wd ? wd[ch] : 1;
      accreal sumg = 0, dot = 0; /* sum of g, sum of g * (x - mean) */
      for (int64_t i = 0; i < n; i++)
        THNN_(runGradSums)(g + (i * c + ch) * s, x + (i * c + ch) * s, s, mean, &sumg, &dot);
      if (gw) gw[ch] = (real)(count ? dot * invstd : 0);
      if (gb) gb[ch] = (real)sumg;
      if (!gi) continue;
      /* train: gi = (g - mean(g) - (x - mean) invstd^2 mean(g (x - mean))) invstd w */
      const accreal gmean = train ? sumg / count : 0,
                    proj = train ? dot / count * invstd * invstd : 0;
      for (int64_t i = 0; i < n; i++)
        for (int64_t k = 0; k < s; k++) {
          const int64_t j = (i * c + ch) * s + k;
          gi[j] = (real)((g[j] - gmean - (x[j] - mean) * proj) * invstd * wv);
        }
    }
  }
  THNN_(normGradEnd)(&b);
  return 0;
}

/* ---- rows: LayerNormalization and GroupNormalization ------------------------------------- */

/* The shared forward over R rows of K (see the walk at the top); weight/bias have
 * nAffine elements. */
/* The rows of layer and group norm: k elements in k / s runs of s sharing one affine entry (s
 * = 1 for layer norm, the spatial size for group norm); w and b point at the row's first entry
 * (or are NULL). The element's entry is found by its run, never by a division per element,
 * and the sums go over 16 lanes (one running sum would not vectorise: gcc may not reorder FP
 * sums). */
static void THNN_(normRowStats)(const real *x, int64_t k, accreal *mean, accreal *invstd,
                                double eps) {
  const accreal m = k ? THNN_(runSum)(x, k) / k : (accreal)NAN;
  *mean = m;
  *invstd = 1 / sqrt((k ? THNN_(runSquares)(x, k, m) / k : (accreal)NAN) + (accreal)eps);
}

TH_VECTOR_CLONES static void THNN_(normRowForward)(real *y, const real *x, int64_t k, int64_t s,
                                                   const real *w, const real *b, accreal mean,
                                                   accreal invstd) {
  if (s == 1) {
    for (int64_t i = 0; i < k; i++)
      y[i] = (real)((x[i] - mean) * invstd * (w ? w[i] : 1) + (b ? b[i] : 0));
    return;
  }
  for (int64_t j = 0; j * s < k; j++) {
    const accreal wa = w ? w[j] : 1, ba = b ? b[j] : 0;
    for (int64_t i = j * s; i < (j + 1) * s; i++)
      y[i] = (real)((x[i] - mean) * invstd * wa + ba);
  }
}

/* gi of one row: invstd (gw - mean(gw) - xhat mean(gw xhat)), gw = g * weight. */
TH_VECTOR_CLONES static void THNN_(normRowGradInput)(real *gi, const real *g, const real *x,
                                                     int64_t k, int64_t s, const real *w,
                                                     accreal mean, accreal invstd) {
  enum { LANES = 16 };
  accreal pa[LANES] = {0}, pb[LANES] = {0}, sa = 0, sb = 0;
  if (s == 1) {
    int64_t i = 0;
    for (; i + LANES <= k; i += LANES) {
      for (int j = 0; j < LANES; j++) {
        const accreal gwi = g[i + j] * (w ? (accreal)w[i + j] : 1);
        pa[j] += gwi;
        pb[j] += gwi * (x[i + j] - mean) * invstd;
      }
    }
    for (int j = 0; i < k; i++, j++) {
      const accreal gwi = g[i] * (w ? (accreal)w[i] : 1);
      pa[j] += gwi;
      pb[j] += gwi * (x[i] - mean) * invstd;
    }
    for (int j = 0; j < LANES; j++) {
      sa += pa[j];
      sb += pb[j];
    }
  } else {
    for (int64_t j = 0; j * s < k; j++) {
      const accreal wa = w ? w[j] : 1;
      for (int64_t i = j * s; i < (j + 1) * s; i++) {
        const accreal gwi = g[i] * wa;
        sa += gwi;
        sb += gwi * (x[i] - mean) * invstd;
      }
    }
  }
  sa /= k;
  sb /= k;
  if (s == 1) {
    for (int64_t i = 0; i < k; i++) {
      const accreal gwi = g[i] * (w ? (accreal)w[i] : 1);
      gi[i] = (real)(invstd * (gwi - sa - (x[i] - mean) * invstd * sb));
    }
    return;
  }
  for (int64_t j = 0; j * s < k; j++) {
    const accreal wa = w ? w[j] : 1;
    for (int64_t i = j * s; i < (j + 1) * s; i++) {
      const accreal gwi = g[i] * wa;
      gi[i] = (real)(invstd * (gwi - sa - (x[i] - mean) * invstd * sb));
    }
  }
}

static int THNN_(rowNormForward)(THTensor *output, THTensor *saveMean, THTensor *saveInvstd,
                                 THTensor *input, THTensor *weight, THTensor *bias, int64_t r,
                                 int64_t k, int64_t g, int64_t s, int64_t nAffine, double eps,
                                 const char *op) {
  THTry(THNN_(checkFeature)(weight, nAffine, "weight", op), -1);
  THTry(THNN_(checkFeature)(bias, nAffine, "bias", op), -1);
  const int64_t rsize[1] = {r};
  THTry(THNN_(freshOutput)(saveMean, 1, rsize, op), -1);
  THTry(THNN_(freshOutput)(saveInvstd, 1, rsize, op), -1);
  THTry(THTensor_(resizeAs)(output, input), -1);
  THArgCheck(THTensor_(isContiguous)(output), TH_ERR_RUNTIME, -1,
             "%s: the output must be contiguous", op);
  int ok = 1;
  THTensor *in = THNN_(optContiguous)(input, &ok), *w = THNN_(optContiguous)(weight, &ok),
           *b = THNN_(optContiguous)(bias, &ok);
  if (ok) {
    const real *x = THTensor_(data)(in), *wd = w ? THTensor_(data)(w) : NULL,
               *bd = b ? THTensor_(data)(b) : NULL;
    real *y = THTensor_(data)(output), *sm = THTensor_(data)(saveMean),
         *si = THTensor_(data)(saveInvstd);
    const int par = THParallel_worth(r * k, (int64_t)sizeof(real) * 3);
#pragma omp parallel for if (par)
    for (int64_t row = 0; row < r; row++) {
      accreal mean, invstd;
      THNN_(normRowStats)(x + row * k, k, &mean, &invstd, eps);
      sm[row] = (real)mean;
      si[row] = (real)invstd;
      const int64_t a = (row % g) * k / s; /* the row's first affine entry */
      THNN_(normRowForward)(y + row * k, x + row * k, k, s, wd ? wd + a : NULL,
                            bd ? bd + a : NULL, mean, invstd);
    }
  }
  THTensor_(free)(in);
  THTensor_(free)(w);
  THTensor_(free)(b);
  return ok ? 0 : -1;
}

static int THNN_(rowNormBackward)(THTensor *gradInput, THTensor *gradWeight,
                                  THTensor *gradBias, THTensor *gradOutput, THTensor *input,
                                  THTensor *weight, THTensor *saveMean, THTensor *saveInvstd,
                                  int64_t r, int64_t k, int64_t g, int64_t s, int64_t nAffine,
                                  const char *op) {
  THNN_(NormGrad) nb;
  THTry(THNN_(normGradBegin)(&nb, gradInput, gradWeight, gradBias, gradOutput, input, weight,
                             saveMean, saveInvstd, nAffine, r, op), -1);
  int ok = 1;
  {
    const real *x = nb.x, *gd = nb.g, *wd = nb.wd, *sm = nb.sm, *si = nb.si;
    real *gi = nb.gi, *gw = nb.gw, *gb = nb.gb;
    if (gi) {
      const int par = THParallel_worth(r * k, (int64_t)sizeof(real) * 4);
#pragma omp parallel for if (par)
      for (int64_t row = 0; row < r; row++) {
        const int64_t a = (row % g) * k / s; /* the row's first affine entry */
        THNN_(normRowGradInput)(gi + row * k, gd + row * k, x + row * k, k, s,
                                wd ? wd + a : NULL, sm[row], si[row]);
      }
    }
    if (gw || gb) {
      accreal *aw = calloc((size_t)(nAffine ? nAffine : 1), sizeof(accreal));
      accreal *ab = calloc((size_t)(nAffine ? nAffine : 1), sizeof(accreal));
      if (!aw || !ab) {
        THError_set(TH_ERR_MEMORY, "%s: out of memory", op);
        ok = 0;
      } else {
        for (int64_t row = 0; row < r; row++) {
          const accreal mean = sm[row], invstd = si[row];
          const real *xr = x + row * k, *gr = gd + row * k;
          accreal *awr = aw + (row % g) * k / s, *abr = ab + (row % g) * k / s;
          if (s == 1) {
            for (int64_t i = 0; i < k; i++) {
              awr[i] += gr[i] * (xr[i] - mean) * invstd;
              abr[i] += gr[i];
            }
            continue;
          }
          for (int64_t j = 0; j * s < k; j++) {
            accreal sw = 0, sb = 0;
            for (int64_t i = j * s; i < (j + 1) * s; i++) {
              sw += gr[i] * (xr[i] - mean) * invstd;
              sb += gr[i];
            }
            awr[j] += sw;
            abr[j] += sb;
          }
        }
        for (int64_t a = 0; a < nAffine; a++) {
          if (gw) gw[a] = (real)aw[a];
          if (gb) gb[a] = (real)ab[a];
        }
      }
      free(aw);
      free(ab);
    }
  }
  THNN_(normGradEnd)(&nb);
  return ok ? 0 : -1;
}

static int THNN_(lnShape)(THTensor *input, int64_t normalizedNumel, int64_t *r,
                          const char *op) {
  THTry(THTensor_(checkBounds)(input, op), -1);
  const int64_t numel = THTensor_(nElement)(input);
  THArgCheck(normalizedNumel >= 0 && (normalizedNumel ? numel % normalizedNumel == 0 : numel == 0),
             TH_ERR_RUNTIME, -1,
             "%s: the input's %lld elements do not split into rows of %lld", op,
             (long long)numel, (long long)normalizedNumel);
  *r = normalizedNumel ? numel / normalizedNumel : 0;
  return 0;
}

int THNN_(LayerNormalization_updateOutput)(THTensor *output, THTensor *saveMean,
                                           THTensor *saveInvstd, THTensor *input,
                                           THTensor *weight, THTensor *bias,
                                           int64_t normalizedNumel, double eps) {
  int64_t r;
  THTry(THNN_(lnShape)(input, normalizedNumel, &r, "layer_norm()"), -1);
  return THNN_(rowNormForward)(output, saveMean, saveInvstd, input, weight, bias, r,
                               normalizedNumel, 1, 1, normalizedNumel, eps, "layer_norm()");
}

int THNN_(LayerNormalization_backward)(THTensor *gradInput, THTensor *gradWeight,
                                       THTensor *gradBias, THTensor *gradOutput,
                                       THTensor *input, THTensor *weight, THTensor *saveMean,
                                       THTensor *saveInvstd, int64_t normalizedNumel) {
  int64_t r;
  THTry(THNN_(lnShape)(input, normalizedNumel, &r, "layer_norm() backward"), -1);
  return THNN_(rowNormBackward)(gradInput, gradWeight, gradBias, gradOutput, input, weight,
                                saveMean, saveInvstd, r, normalizedNumel, 1, 1,
                                normalizedNumel, "layer_norm() backward");
}

/* Group norm's rows: r = N * groups rows of k = C / groups * s. */
static int THNN_(gnShape)(THTensor *input, int64_t groups, int64_t *r, int64_t *k, int64_t *s,
                          int64_t *c, const char *op) {
  int64_t n;
  THTry(THNN_(bnShape)(input, &n, c, s, op), -1);
  THArgCheck(groups > 0, TH_ERR_VALUE, -1, "%s: num_groups must be positive, got %lld", op,
             (long long)groups);
  THArgCheck(*c % groups == 0, TH_ERR_RUNTIME, -1,
             "%s: expected number of channels in input to be divisible by num_groups, but got "
             "input of shape with %lld channels and num_groups=%lld",
             op, (long long)*c, (long long)groups);
  *r = n * groups;
  *k = *c / groups * *s;
  return 0;
}

int THNN_(GroupNormalization_updateOutput)(THTensor *output, THTensor *saveMean,
                                           THTensor *saveInvstd, THTensor *input,
                                           THTensor *weight, THTensor *bias, int64_t groups,
                                           double eps) {
  int64_t r, k, s, c;
  THTry(THNN_(gnShape)(input, groups, &r, &k, &s, &c, "group_norm()"), -1);
  return THNN_(rowNormForward)(output, saveMean, saveInvstd, input, weight, bias, r, k, groups,
                               s, c, eps, "group_norm()");
}

int THNN_(GroupNormalization_backward)(THTensor *gradInput, THTensor *gradWeight,
                                       THTensor *gradBias, THTensor *gradOutput,
                                       THTensor *input, THTensor *weight, THTensor *saveMean,
                                       THTensor *saveInvstd, int64_t groups) {
  int64_t r, k, s, c;
  THTry(THNN_(gnShape)(input, groups, &r, &k, &s, &c, "group_norm() backward"), -1);
  return THNN_(rowNormBackward)(gradInput, gradWeight, gradBias, gradOutput, input, weight,
                                saveMean, saveInvstd, r, k, groups, s, c,
                                "group_norm() backward");
}

#endif
