#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THNNCTC.c"
#else

/* The recursions (Graves et al. 2006, eqs. 6-16), all in log space. Sample n's target l of
 * length m is extended with blanks to l' of length 2m + 1 (l'_s = blank for even s, l_(s-1)/2
 * for odd s). alpha_t(s) sums the paths through l'_s at frame t:
 *   alpha_t(s) = (alpha_t-1(s) + alpha_t-1(s-1) + [l'_s != l'_s-2] alpha_t-1(s-2)) y_t(l'_s),
 * beta_t(s) the same from the end, and the likelihood is alpha_L-1(2m) + alpha_L-1(2m-1). Each
 * sample is one serial walk over its frames; samples are split between threads when the whole
 * batch is worth a team. The forward keeps every alpha (the gradient needs them by frame,
 * backwards); the backward keeps only two rows of beta per sample and adds alpha * beta into
 * the gradient's cells (t, n, l'_s) as it goes, so the logsumexps never need a lock. */

typedef struct {
  int64_t T, N, C, S; /* S: the longest target length; alpha rows hold 2S + 1 */
  int64_t work;       /* sum of input length * (2 * target length + 1), saturated */
  const int64_t *il, *tl, *tg;
  int64_t *first;     /* where sample n's labels start in tg */
  THLongTensor *ilc, *tlc, *tgc;
} THNN_(CTCPlan);

static void THNN_(ctcPlanFree)(THNN_(CTCPlan) *p) {
  THLongTensor_free(p->ilc);
  THLongTensor_free(p->tlc);
  THLongTensor_free(p->tgc);
  free(p->first);
}

/* Every check PyTorch makes (in its order and with its wording where it has one), then the
 * labels a sample uses: nothing past them is read, so a padded target's tail may hold
 * anything. On failure nothing is left allocated. */
static int THNN_(ctcCheck)(THNN_(CTCPlan) *p, int64_t blank) {
  const char *op = "ctc_loss()";
  const int64_t N = p->N;
  int64_t pos = 0;
  for (int64_t n = 0; n < N; n++) {
    const int64_t m = p->tl[n];
    THArgCheck(m >= 0, TH_ERR_RUNTIME, -1,
               "%s: expected target_lengths to have value at least 0, but got value %lld", op,
               (long long)m);
    if (m > p->S) p->S = m;
    if (p->tgc->nDimension == 1) {
      p->first[n] = pos;
      THArgCheck(m <= INT64_MAX - pos, TH_ERR_RUNTIME, -1,
                 "%s: the target lengths add up to more than int64 holds", op);
      pos += m;
    } else {
      p->first[n] = n * p->tgc->size[1];
    }
  }
  if (p->tgc->nDimension == 1) {
    THArgCheck(p->tgc->size[0] == pos, TH_ERR_RUNTIME, -1,
               "%s: expected targets to have size %lld at dimension 0 (the sum of "
               "target_lengths), but got size %lld", op, (long long)pos,
               (long long)p->tgc->size[0]);
  } else {
    THArgCheck(p->tgc->size[0] == N, TH_ERR_RUNTIME, -1,
               "%s: expected targets to have size %lld at dimension 0 (the batch), but got "
               "size %lld", op, (long long)N, (long long)p->tgc->size[0]);
    THArgCheck(p->tgc->size[1] >= p->S, TH_ERR_RUNTIME, -1,
               "%s: expected targets to have size at least %lld at dimension 1 (the longest "
               "target length), but got size %lld", op, (long long)p->S,
               (long long)p->tgc->size[1]);
  }
  for (int64_t n = 0; n < N; n++) {
    const int64_t L = p->il[n];
    THArgCheck(L >= 0, TH_ERR_RUNTIME, -1,
               "%s: expected input_lengths to have value at least 0, but got value %lld", op,
               (long long)L);
    THArgCheck(L <= p->T, TH_ERR_RUNTIME, -1,
               "%s: expected input_lengths to have value at most %lld, but got value %lld", op,
               (long long)p->T, (long long)L);
  }
  for (int64_t n = 0; n < N; n++) {
    const int64_t *lab = p->tg + p->first[n];
    for (int64_t k = 0; k < p->tl[n]; k++) {
      THArgCheck(lab[k] >= 0 && lab[k] < p->C, TH_ERR_INDEX, -1,
                 "%s: target %lld (sample %lld, position %lld) is out of bounds for %lld "
                 "classes", op, (long long)lab[k], (long long)n, (long long)k, (long long)p->C);
      THArgCheck(lab[k] != blank, TH_ERR_RUNTIME, -1,
                 "%s: target %lld (sample %lld, position %lld) is the blank label", op,
                 (long long)lab[k], (long long)n, (long long)k);
    }
    /* at most T * (2S + 1) per sample, each below 2^62 after the checks below */
    const int64_t w = p->il[n] * (2 * p->tl[n] + 1);
    p->work = w > INT64_MAX / 2 - p->work ? INT64_MAX / 2 : p->work + w;
  }
  return 0;
}

/* Reads the arguments into p (contiguous int64 copies, each sample's first label). */
static int THNN_(ctcPlan)(THNN_(CTCPlan) *p, THTensor *logProbs, THLongTensor *targets,
                          THLongTensor *inputLengths, THLongTensor *targetLengths,
                          int64_t blank) {
  const char *op = "ctc_loss()";
  char a[TH_SIZE_STR_LEN];
  memset(p, 0, sizeof *p);
  THArgCheck(logProbs->nDimension == 3, TH_ERR_RUNTIME, -1,
             "%s: expected log_probs of 3 dims (T, N, C), got size %s", op,
             THSize_str(a, sizeof a, logProbs->nDimension, logProbs->size));
  THTry(THTensor_(checkBounds)(logProbs, op), -1);
  THTry(THLongTensor_checkBounds(targets, op), -1);
  THTry(THLongTensor_checkBounds(inputLengths, op), -1);
  THTry(THLongTensor_checkBounds(targetLengths, op), -1);
  p->T = logProbs->size[0];
  p->N = logProbs->size[1];
  p->C = logProbs->size[2];
  THArgCheck(THTensor_(nElement)(logProbs) > 0, TH_ERR_RUNTIME, -1,
             "%s: log_probs tensor must not be empty, got size %s", op,
             THSize_str(a, sizeof a, logProbs->nDimension, logProbs->size));
  THArgCheck(blank >= 0 && blank < p->C, TH_ERR_RUNTIME, -1,
             "%s: blank must be in label range [0, %lld), got %lld", op, (long long)p->C,
             (long long)blank);
  THArgCheck(targets->nDimension == 1 || targets->nDimension == 2, TH_ERR_RUNTIME, -1,
             "%s: expected targets of 1 dim (concatenated) or 2 dims (N, S), got size %s", op,
             THSize_str(a, sizeof a, targets->nDimension, targets->size));
  THArgCheck(THLongTensor_nElement(inputLengths) == p->N, TH_ERR_RUNTIME, -1,
             "%s: input_lengths must be of size batch_size (%lld), got %lld elements", op,
             (long long)p->N, (long long)THLongTensor_nElement(inputLengths));
  THArgCheck(THLongTensor_nElement(targetLengths) == p->N, TH_ERR_RUNTIME, -1,
             "%s: target_lengths must be of size batch_size (%lld), got %lld elements", op,
             (long long)p->N, (long long)THLongTensor_nElement(targetLengths));
  p->ilc = THLongTensor_newContiguous(inputLengths);
  p->tlc = p->ilc ? THLongTensor_newContiguous(targetLengths) : NULL;
  p->tgc = p->tlc ? THLongTensor_newContiguous(targets) : NULL;
  p->first = p->tgc ? malloc((size_t)p->N * sizeof(int64_t)) : NULL;
  if (!p->first) {
    if (p->tgc) THError_set(TH_ERR_MEMORY, "%s: out of memory", op);
    THNN_(ctcPlanFree)(p);
    return -1;
  }
  p->il = THLongTensor_data(p->ilc);
  p->tl = THLongTensor_data(p->tlc);
  p->tg = THLongTensor_data(p->tgc);
  if (THNN_(ctcCheck)(p, blank) != 0) {
    THNN_(ctcPlanFree)(p);
    return -1;
  }
  return 0;
}

/* log(e^a + e^b + e^c), exact when all are -inf; a NaN stays NaN. */
static inline accreal THNN_(logSumExp3)(accreal a, accreal b, accreal c) {
  accreal m = a > b ? a : b;
  m = c > m ? c : m;
  if (m == -INFINITY) return -INFINITY;
  return m + log(exp(a - m) + exp(b - m) + exp(c - m));
}

/* l'_s: blank for even s, the target's label (s - 1) / 2 for odd s. */
static inline int64_t THNN_(ctcLabel)(const int64_t *lab, int64_t s, int64_t blank) {
  return (s & 1) ? lab[s >> 1] : blank;
}

/* Fills sample n's alphas (row t at alpha + t * (2S + 1)) and returns its -log likelihood. */
static accreal THNN_(ctcAlpha)(real *alpha, const real *lp, const THNN_(CTCPlan) *p, int64_t n,
                               int64_t blank) {
  const int64_t L = p->il[n], m = p->tl[n], ns = 2 * m + 1, row = 2 * p->S + 1;
  const int64_t *lab = p->tg + p->first[n];
  const int64_t step = p->N * p->C; /* from frame t to t + 1 in logProbs */
  const real *y = lp + n * p->C;
  if (L == 0) return m == 0 ? 0 : INFINITY;
  for (int64_t s = 0; s < ns; s++) alpha[s] = (real)-INFINITY;
  alpha[0] = y[blank];
  if (m > 0) alpha[1] = y[lab[0]];
  for (int64_t t = 1; t < L; t++) {
    const real *prev = alpha + (t - 1) * row;
    real *cur = alpha + t * row;
    y += step;
    for (int64_t s = 0; s < ns; s++) {
      const int64_t c = THNN_(ctcLabel)(lab, s, blank);
      const accreal a1 = prev[s], a2 = s > 0 ? (accreal)prev[s - 1] : -INFINITY,
                    a3 = (s & 1) && s > 1 && lab[(s - 2) >> 1] != c ? (accreal)prev[s - 2]
                                                                   : -INFINITY;
      cur[s] = (real)(THNN_(logSumExp3)(a1, a2, a3) + y[c]);
    }
  }
  const real *last = alpha + (L - 1) * row;
  if (m == 0) return -(accreal)last[0];
  return -THNN_(logSumExp3)(last[ns - 1], last[ns - 2], -INFINITY);
}

int THNN_(CTCLoss_updateOutput)(THTensor *output, THTensor *logAlpha, THTensor *logProbs,
                                THLongTensor *targets, THLongTensor *inputLengths,
                                THLongTensor *targetLengths, int64_t blank) {
  const char *op = "ctc_loss()";
  THNN_(CTCPlan) p;
  THTry(THNN_(ctcPlan)(&p, logProbs, targets, inputLengths, targetLengths, blank), -1);
  int rc = -1;
  THTensor *lp = THTensor_(newContiguous)(logProbs);
  if (!lp) goto done;
  const int64_t row = 2 * p.S + 1, asize[3] = {p.N, p.T, row};
  int64_t cells;
  if (__builtin_mul_overflow(p.N * p.T, row, &cells)) {
    THError_set(TH_ERR_MEMORY, "%s: the forward variables (%lld, %lld, %lld) do not fit in "
                "memory", op, (long long)p.N, (long long)p.T, (long long)row);
    goto done;
  }
  if (THTensor_(resize)(logAlpha, 3, asize) != 0 || THTensor_(resize)(output, 1, &p.N) != 0)
    goto done;
  if (!THTensor_(isContiguous)(logAlpha) || !THTensor_(isContiguous)(output)) {
    THError_set(TH_ERR_RUNTIME, "%s: the outputs must be contiguous", op);
    goto done;
  }
  real *alpha = THTensor_(data)(logAlpha), *nll = THTensor_(data)(output);
  const real *x = THTensor_(data)(lp);
  const int par = p.N > 1 && THParallel_worth(p.work, (int64_t)sizeof(real) * 2 *
                                                         TH_WEIGHT_TRANSCENDENTAL);
#pragma omp parallel for schedule(dynamic) if (par)
  for (int64_t n = 0; n < p.N; n++)
    nll[n] = (real)THNN_(ctcAlpha)(alpha + n * p.T * row, x, &p, n, blank);
  rc = 0;
done:
  THTensor_(free)(lp);
  THNN_(ctcPlanFree)(&p);
  return rc;
}

/* Sample n's gradient into gi (strided by N * C between frames); beta: two rows of 2S + 1. */
static void THNN_(ctcGrad)(real *gi, real *beta, const real *alpha, const real *lp,
                           const THNN_(CTCPlan) *p, int64_t n, int64_t blank, accreal nll,
                           accreal gr) {
  const int64_t L = p->il[n], m = p->tl[n], ns = 2 * m + 1, row = 2 * p->S + 1, C = p->C;
  const int64_t *lab = p->tg + p->first[n];
  const int64_t step = p->N * C;
  real *g = gi + n * C;
  const real *y = lp + n * C;
  for (int64_t t = 0; t < L; t++)
    for (int64_t c = 0; c < C; c++) g[t * step + c] = (real)-INFINITY;
  real *cur = beta, *next = beta + row;
  for (int64_t t = L - 1; t >= 0; t--) {
    const real *yt = y + t * step;
    if (t == L - 1) {
      for (int64_t s = 0; s < ns; s++) cur[s] = (real)-INFINITY;
      cur[ns - 1] = yt[blank];
      if (m > 0) cur[ns - 2] = yt[lab[m - 1]];
    } else {
      real *swap = cur;
      cur = next;
      next = swap;
      for (int64_t s = 0; s < ns; s++) {
        const int64_t c = THNN_(ctcLabel)(lab, s, blank);
        const accreal b1 = next[s], b2 = s + 1 < ns ? (accreal)next[s + 1] : -INFINITY,
                      b3 = (s & 1) && s + 2 < ns && lab[(s + 2) >> 1] != c
                               ? (accreal)next[s + 2] : -INFINITY;
        cur[s] = (real)(THNN_(logSumExp3)(b1, b2, b3) + yt[c]);
      }
    }
    /* the cells alpha_t(s) beta_t(s) of each label, summed (eq. 16's numerator) */
    const real *at = alpha + t * row;
    real *gt = g + t * step;
    for (int64_t s = 0; s < ns; s++) {
      const int64_t c = THNN_(ctcLabel)(lab, s, blank);
      gt[c] = (real)THNN_(logSumExp3)(gt[c], (accreal)at[s] + cur[s], -INFINITY);
    }
  }
  for (int64_t t = 0; t < p->T; t++) {
    real *gt = g + t * step;
    const real *yt = y + t * step;
    for (int64_t c = 0; c < C; c++)
      gt[c] = t < L ? (real)((exp((accreal)yt[c]) - exp((accreal)gt[c] + nll - yt[c])) * gr)
                    : 0;
  }
}

int THNN_(CTCLoss_updateGradInput)(THTensor *gradInput, THTensor *gradOutput,
                                   THTensor *logProbs, THLongTensor *targets,
                                   THLongTensor *inputLengths, THLongTensor *targetLengths,
                                   THTensor *output, THTensor *logAlpha, int64_t blank,
                                   int zeroInfinity) {
  const char *op = "ctc_loss() backward";
  char a[TH_SIZE_STR_LEN];
  THNN_(CTCPlan) p;
  THTry(THNN_(ctcPlan)(&p, logProbs, targets, inputLengths, targetLengths, blank), -1);
  int rc = -1;
  const int64_t row = 2 * p.S + 1;
  THTensor *lp = NULL, *go = NULL, *nl = NULL, *al = NULL;
  int ok = THTensor_(nElement)(gradOutput) == p.N && THTensor_(nElement)(output) == p.N &&
           logAlpha->nDimension == 3 && logAlpha->size[0] == p.N &&
           logAlpha->size[1] == p.T && logAlpha->size[2] == row;
  if (!ok) {
    THError_set(TH_ERR_RUNTIME, "%s: gradOutput, output (%lld elements each) and logAlpha "
                "(%lld, %lld, %lld) do not fit, got logAlpha of size %s", op, (long long)p.N,
                (long long)p.N, (long long)p.T, (long long)row,
                THSize_str(a, sizeof a, logAlpha->nDimension, logAlpha->size));
    goto done;
  }
  if (THTensor_(checkBounds)(gradOutput, op) != 0 || THTensor_(checkBounds)(output, op) != 0 ||
      THTensor_(checkBounds)(logAlpha, op) != 0)
    goto done;
  lp = THTensor_(newContiguous)(logProbs);
  go = lp ? THTensor_(newContiguous)(gradOutput) : NULL;
  nl = go ? THTensor_(newContiguous)(output) : NULL;
  al = nl ? THTensor_(newContiguous)(logAlpha) : NULL;
  if (!al || THTensor_(resizeAs)(gradInput, logProbs) != 0) goto done;
  if (!THTensor_(isContiguous)(gradInput)) {
    THError_set(TH_ERR_RUNTIME, "%s: the gradient must be contiguous", op);
    goto done;
  }
  real *gi = THTensor_(data)(gradInput);
  const real *x = THTensor_(data)(lp), *g = THTensor_(data)(go), *nll = THTensor_(data)(nl),
             *alpha = THTensor_(data)(al);
  const int par = p.N > 1 && THParallel_worth(p.work, (int64_t)sizeof(real) * 4 *
                                                         TH_WEIGHT_TRANSCENDENTAL);
  int failed = 0;
#pragma omp parallel for schedule(dynamic) if (par) reduction(| : failed)
  for (int64_t n = 0; n < p.N; n++) {
    if (zeroInfinity && isinf(nll[n]) && nll[n] > 0) {
      for (int64_t t = 0; t < p.T; t++)
        for (int64_t c = 0; c < p.C; c++) gi[(t * p.N + n) * p.C + c] = 0;
      continue;
    }
    real *beta = malloc((size_t)(2 * row) * sizeof(real));
    if (!beta) {
      failed = 1;
      continue;
    }
    THNN_(ctcGrad)(gi, beta, alpha + n * p.T * row, x, &p, n, blank, nll[n], g[n]);
    free(beta);
  }
  if (failed) {
    THError_set(TH_ERR_MEMORY, "%s: out of memory", op);
    goto done;
  }
  rc = 0;
done:
  THTensor_(free)(lp);
  THTensor_(free)(go);
  THTensor_(free)(nl);
  THTensor_(free)(al);
  THNN_(ctcPlanFree)(&p);
  return rc;
}

#endif
