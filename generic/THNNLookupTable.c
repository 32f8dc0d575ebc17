#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THNNLookupTable.c"
#else

/* weight is (num_embeddings, D); the indices are checked against num_embeddings before any
 * row is touched, so an out-of-range index leaves every output unchanged. */
static int THNN_(lookupCheck)(THLongTensor *indices, THTensor *weight, const char *op) {
  char a[TH_SIZE_STR_LEN];
  THArgCheck(weight->nDimension == 2, TH_ERR_RUNTIME, -1,
             "%s: weight must be 2-D (num_embeddings, embedding_dim), got size %s", op,
             THSize_str(a, sizeof a, weight->nDimension, weight->size));
  THTry(THTensor_(checkBounds)(weight, op), -1);
  THTry(THLongTensor_checkBounds(indices, op), -1);
  THLongTensor *idx = THLongTensor_newContiguous(indices);
  if (!idx) return -1;
  const int64_t *ix = THLongTensor_data(idx), m = THLongTensor_nElement(idx),
                rows = weight->size[0];
  int rc = 0;
  for (int64_t i = 0; i < m; i++) {
    if (ix[i] < 0 || ix[i] >= rows) {
      THError_set(TH_ERR_INDEX, "%s: index %lld is out of range for %lld embeddings", op,
                  (long long)ix[i], (long long)rows);
      rc = -1;
      break;
    }
  }
  THLongTensor_free(idx);
  return rc;
}

int THNN_(LookupTable_updateOutput)(THTensor *output, THLongTensor *indices, THTensor *weight) {
  const char *op = "embedding()";
  THTry(THNN_(lookupCheck)(indices, weight, op), -1);
  THArgCheck(indices->nDimension < TH_MAX_DIM, TH_ERR_RUNTIME, -1,
             "%s: indices have too many dims (%d)", op, indices->nDimension);
  int64_t size[TH_MAX_DIM];
  for (int d = 0; d < indices->nDimension; d++) size[d] = indices->size[d];
  const int64_t dim = weight->size[1];
  size[indices->nDimension] = dim;
  THTry(THTensor_(resize)(output, indices->nDimension + 1, size), -1);
  THArgCheck(THTensor_(isContiguous)(output), TH_ERR_RUNTIME, -1,
             "%s: the output must be contiguous", op);
  THLongTensor *idx = THLongTensor_newContiguous(indices);
  THTensor *w = idx ? THTensor_(newContiguous)(weight) : NULL;
  if (w) {
    const int64_t *ix = THLongTensor_data(idx), m = THLongTensor_nElement(idx);
    const real *wd = THTensor_(data)(w);
    real *y = THTensor_(data)(output);
    for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < dim; j++) y[i * dim + j] = wd[ix[i] * dim + j];
  }
  THLongTensor_free(idx);
  THTensor_(free)(w);
  return w ? 0 : -1;
}

int THNN_(LookupTable_accGradParameters)(THTensor *gradWeight, THLongTensor *indices,
                                         THTensor *gradOutput, int64_t paddingIdx,
                                         double scale) {
  const char *op = "embedding() backward";
  char a[TH_SIZE_STR_LEN], b[TH_SIZE_STR_LEN];
  THTry(THNN_(lookupCheck)(indices, gradWeight, op), -1);
  THArgCheck(THTensor_(isContiguous)(gradWeight), TH_ERR_RUNTIME, -1,
             "%s: gradWeight must be contiguous", op);
  THTry(THTensor_(checkBounds)(gradOutput, op), -1);
  const int64_t m = THLongTensor_nElement(indices), dim = gradWeight->size[1];
  THArgCheck(THTensor_(nElement)(gradOutput) == m * dim, TH_ERR_RUNTIME, -1,
             "%s: gradOutput of size %s does not fit indices of size %s and embedding_dim %lld",
             op, THSize_str(a, sizeof a, gradOutput->nDimension, gradOutput->size),
             THSize_str(b, sizeof b, indices->nDimension, indices->size), (long long)dim);
  THLongTensor *idx = THLongTensor_newContiguous(indices);
  THTensor *go = idx ? THTensor_(newContiguous)(gradOutput) : NULL;
  if (go) {
    const int64_t *ix = THLongTensor_data(idx);
    const real *g = THTensor_(data)(go);
    real *gw = THTensor_(data)(gradWeight);
    /* Serial on purpose: repeated indices add into the same row. */
    for (int64_t i = 0; i < m; i++) {
      if (ix[i] == paddingIdx) continue;
      real *row = gw + ix[i] * dim;
      for (int64_t j = 0; j < dim; j++) row[j] += (real)(scale * g[i * dim + j]);
    }
  }
  THLongTensor_free(idx);
  THTensor_(free)(go);
  return go ? 0 : -1;
}

static int THNN_(compareIndex)(const void *a, const void *b) {
  const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

int THNN_(LookupTable_renorm)(THTensor *weight, THLongTensor *indices, double maxNorm,
                              double normType) {
  const char *op = "embedding_renorm_()";
  THTry(THNN_(lookupCheck)(indices, weight, op), -1);
  THArgCheck(THTensor_(isContiguous)(weight), TH_ERR_RUNTIME, -1,
             "%s: weight must be contiguous", op);
  const int64_t m = THLongTensor_nElement(indices), dim = weight->size[1];
  int64_t *uniq = malloc((size_t)(m ? m : 1) * sizeof(int64_t));
  THLongTensor *idx = uniq ? THLongTensor_newContiguous(indices) : NULL;
  if (!idx) {
    if (!uniq) THError_set(TH_ERR_MEMORY, "%s: out of memory", op);
    free(uniq);
    return -1;
  }
  memcpy(uniq, THLongTensor_data(idx), (size_t)m * sizeof(int64_t));
  qsort(uniq, (size_t)m, sizeof(int64_t), THNN_(compareIndex));
  real *wd = THTensor_(data)(weight);
  for (int64_t i = 0; i < m; i++) {
    if (i > 0 && uniq[i] == uniq[i - 1]) continue;
    real *row = wd + uniq[i] * dim;
    accreal norm = 0;
    for (int64_t j = 0; j < dim; j++) {
      const accreal v = fabs((accreal)row[j]);
      if (normType == 1) norm += v;
      else if (normType == 2) norm += v * v;
      else if (isinf(normType)) norm = v > norm ? v : norm;
      else norm += pow(v, (accreal)normType);
    }
    if (normType == 2) norm = sqrt(norm);
    else if (normType != 1 && !isinf(normType)) norm = pow(norm, 1 / (accreal)normType);
    if (norm > maxNorm) {
      const accreal scale = maxNorm / (norm + 1e-7);
      for (int64_t j = 0; j < dim; j++) row[j] = (real)(row[j] * scale);
    }
  }
  THLongTensor_free(idx);
  free(uniq);
  return 0;
}

/* ---- LookupTableBag ---------------------------------------------------------------------- */

/* The bags: contiguous copies of indices and offsets, checked once. Bag b is [start(b),
 * end(b)) of ix; every index named in a bag lies in [0, rows). */
typedef struct {
  int64_t n, bags, rows, dim;
  const int64_t *ix, *off;
  THLongTensor *idx, *offc;
} THNN_(BagPlan);

static void THNN_(bagPlanFree)(THNN_(BagPlan) *p) {
  THLongTensor_free(p->idx);
  THLongTensor_free(p->offc);
}

static inline int64_t THNN_(bagEnd)(const THNN_(BagPlan) *p, int64_t b) {
  return b + 1 < p->bags ? p->off[b + 1] : p->n;
}

static int THNN_(bagCheck)(THNN_(BagPlan) *p, const char *op) {
  const int64_t m = THLongTensor_nElement(p->offc);
  if (m > 0) {
    THArgCheck(p->off[0] == 0, TH_ERR_RUNTIME, -1,
               "%s: offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to "
               "start from position 0. However, got %lld", op, (long long)p->off[0]);
    THArgCheck(p->off[m - 1] <= p->n, TH_ERR_RUNTIME, -1,
               "%s: offsets[-1] can not be greater than input's length %lld but got "
               "offsets[-1] of %lld", op, (long long)p->n, (long long)p->off[m - 1]);
  }
  for (int64_t b = 1; b < m; b++) {
    THArgCheck(p->off[b] >= 0 && p->off[b] <= p->n, TH_ERR_INDEX, -1,
               "%s: offsets[%lld] = %lld is out of range for an input of length %lld", op,
               (long long)b, (long long)p->off[b], (long long)p->n);
    THArgCheck(p->off[b] >= p->off[b - 1], TH_ERR_RUNTIME, -1,
               "%s: offsets must be non-decreasing, got offsets[%lld] = %lld after %lld", op,
               (long long)b, (long long)p->off[b], (long long)p->off[b - 1]);
  }
  for (int64_t i = 0; i < p->n; i++)
    THArgCheck(p->ix[i] >= 0 && p->ix[i] < p->rows, TH_ERR_RUNTIME, -1,
               "%s: expected idx >= 0 && idx < num_embeddings (%lld) but found idx to be %lld",
               op, (long long)p->rows, (long long)p->ix[i]);
  return 0;
}

static int THNN_(bagPlan)(THNN_(BagPlan) *p, THLongTensor *indices, THLongTensor *offsets,
                          THTensor *weight, THTensor *perSampleWeights, int includeLastOffset,
                          const char *op) {
  char a[TH_SIZE_STR_LEN];
  memset(p, 0, sizeof *p);
  THArgCheck(weight->nDimension == 2, TH_ERR_RUNTIME, -1,
             "%s: weight must be 2-D (num_embeddings, embedding_dim), got size %s", op,
             THSize_str(a, sizeof a, weight->nDimension, weight->size));
  THArgCheck(indices->nDimension == 1 && offsets->nDimension == 1, TH_ERR_RUNTIME, -1,
             "%s: indices and offsets must be 1-D, got %d and %d dims", op,
             indices->nDimension, offsets->nDimension);
  THTry(THTensor_(checkBounds)(weight, op), -1);
  THTry(THLongTensor_checkBounds(indices, op), -1);
  THTry(THLongTensor_checkBounds(offsets, op), -1);
  p->n = indices->size[0];
  p->rows = weight->size[0];
  p->dim = weight->size[1];
  p->bags = offsets->size[0] - (includeLastOffset ? 1 : 0);
  THArgCheck(p->bags >= 0, TH_ERR_RUNTIME, -1,
             "%s: include_last_offset: number of offset should be at least 1", op);
  if (perSampleWeights) {
    THArgCheck(perSampleWeights->nDimension == 1 && perSampleWeights->size[0] == p->n,
               TH_ERR_RUNTIME, -1, "%s: per_sample_weights must be 1-D of the indices' %lld "
               "elements, got size %s", op, (long long)p->n,
               THSize_str(a, sizeof a, perSampleWeights->nDimension, perSampleWeights->size));
    THTry(THTensor_(checkBounds)(perSampleWeights, op), -1);
  }
  p->idx = THLongTensor_newContiguous(indices);
  p->offc = p->idx ? THLongTensor_newContiguous(offsets) : NULL;
  if (!p->offc) {
    THNN_(bagPlanFree)(p);
    return -1;
  }
  p->ix = THLongTensor_data(p->idx);
  p->off = THLongTensor_data(p->offc);
  if (THNN_(bagCheck)(p, op) != 0) {
    THNN_(bagPlanFree)(p);
    return -1;
  }
  return 0;
}

/* The positions of bag b that count (not padding). */
static int64_t THNN_(bagCount)(const THNN_(BagPlan) *p, int64_t b, int64_t paddingIdx) {
  int64_t k = 0;
  for (int64_t i = p->off[b]; i < THNN_(bagEnd)(p, b); i++) k += p->ix[i] != paddingIdx;
  return k;
}

int THNN_(LookupTableBag_updateOutput)(THTensor *output, THLongTensor *maxIndices,
                                       THLongTensor *indices, THLongTensor *offsets,
                                       THTensor *weight, THTensor *perSampleWeights, int mode,
                                       int includeLastOffset, int64_t paddingIdx) {
  const char *op = "embedding_bag()";
  THArgCheck(mode >= 0 && mode <= 2, TH_ERR_VALUE, -1,
             "%s: mode must be 0 (sum), 1 (mean) or 2 (max), got %d", op, mode);
  THArgCheck(mode != 2 || maxIndices, TH_ERR_RUNTIME, -1, "%s: mode max needs maxIndices", op);
  THArgCheck(!perSampleWeights || mode == 0, TH_ERR_RUNTIME, -1,
             "%s: per_sample_weights only supported with mode='sum'", op);
  THNN_(BagPlan) p;
  THTry(THNN_(bagPlan)(&p, indices, offsets, weight, perSampleWeights, includeLastOffset, op),
        -1);
  int rc = -1;
  const int64_t size[2] = {p.bags, p.dim}, dim = p.dim;
  THTensor *w = THTensor_(newContiguous)(weight);
  THTensor *psw = w && perSampleWeights ? THTensor_(newContiguous)(perSampleWeights) : NULL;
  if (!w || (perSampleWeights && !psw)) goto done;
  if (THTensor_(resize)(output, 2, size) != 0) goto done;
  if (mode == 2 && THLongTensor_resize(maxIndices, 2, size) != 0) goto done;
  if (!THTensor_(isContiguous)(output) || (mode == 2 && !THLongTensor_isContiguous(maxIndices))) {
    THError_set(TH_ERR_RUNTIME, "%s: the outputs must be contiguous", op);
    goto done;
  }
  const real *wd = THTensor_(data)(w), *pw = psw ? THTensor_(data)(psw) : NULL;
  real *y = THTensor_(data)(output);
  int64_t *mi = mode == 2 ? THLongTensor_data(maxIndices) : NULL;
  const int par = THParallel_worth(p.n * dim + p.bags * dim, (int64_t)sizeof(real) * 2);
#pragma omp parallel for if (par)
  for (int64_t b = 0; b < p.bags; b++) {
    real *yb = y + b * dim;
    int64_t *mb = mi ? mi + b * dim : NULL;
    int64_t count = 0;
    for (int64_t j = 0; j < dim; j++) yb[j] = 0;
    if (mb)
      for (int64_t j = 0; j < dim; j++) mb[j] = -1;
    for (int64_t i = p.off[b]; i < THNN_(bagEnd)(&p, b); i++) {
      const int64_t r = p.ix[i];
      if (r == paddingIdx) continue;
      const real *row = wd + r * dim;
      if (mode == 2) {
        for (int64_t j = 0; j < dim; j++)
          if (count == 0 || row[j] > yb[j]) {
            yb[j] = row[j];
            mb[j] = r;
          }
      } else {
        const real s = pw ? pw[i] : 1;
        for (int64_t j = 0; j < dim; j++) yb[j] += s * row[j];
      }
      count++;
    }
    if (mode == 1 && count > 1)
      for (int64_t j = 0; j < dim; j++) yb[j] /= (real)count;
  }
  rc = 0;
done:
  THTensor_(free)(w);
  THTensor_(free)(psw);
  THNN_(bagPlanFree)(&p);
  return rc;
}

/* gradOutput must be (bags, D) */
static int THNN_(bagGradCheck)(const THNN_(BagPlan) *p, THTensor *gradOutput, const char *op) {
  char a[TH_SIZE_STR_LEN];
  THArgCheck(gradOutput->nDimension == 2 && gradOutput->size[0] == p->bags &&
                 gradOutput->size[1] == p->dim, TH_ERR_RUNTIME, -1,
             "%s: gradOutput must be (%lld, %lld), got size %s", op, (long long)p->bags,
             (long long)p->dim, THSize_str(a, sizeof a, gradOutput->nDimension,
                                           gradOutput->size));
  return THTensor_(checkBounds)(gradOutput, op);
}

int THNN_(LookupTableBag_updateGradInput)(THTensor *gradPerSampleWeights, THTensor *gradOutput,
                                          THLongTensor *indices, THLongTensor *offsets,
                                          THTensor *weight, int includeLastOffset,
                                          int64_t paddingIdx) {
  const char *op = "embedding_bag() backward";
  THNN_(BagPlan) p;
  THTry(THNN_(bagPlan)(&p, indices, offsets, weight, NULL, includeLastOffset, op), -1);
  int rc = -1;
  THTensor *w = NULL, *go = NULL;
  if (THNN_(bagGradCheck)(&p, gradOutput, op) != 0) goto done;
  w = THTensor_(newContiguous)(weight);
  go = w ? THTensor_(newContiguous)(gradOutput) : NULL;
  if (!go || THTensor_(resize)(gradPerSampleWeights, 1, &p.n) != 0) goto done;
  if (!THTensor_(isContiguous)(gradPerSampleWeights)) {
    THError_set(TH_ERR_RUNTIME, "%s: the gradient must be contiguous", op);
    goto done;
  }
  const real *wd = THTensor_(data)(w), *g = THTensor_(data)(go);
  real *gp = THTensor_(data)(gradPerSampleWeights);
  const int64_t dim = p.dim;
  for (int64_t i = 0; i < p.n; i++) gp[i] = 0; /* positions in no bag (no offsets) stay 0 */
  for (int64_t b = 0; b < p.bags; b++) {
    for (int64_t i = p.off[b]; i < THNN_(bagEnd)(&p, b); i++) {
      accreal dot = 0;
      if (p.ix[i] != paddingIdx)
        for (int64_t j = 0; j < dim; j++) dot += (accreal)g[b * dim + j] * wd[p.ix[i] * dim + j];
      gp[i] = (real)dot;
    }
  }
  rc = 0;
done:
  THTensor_(free)(w);
  THTensor_(free)(go);
  THNN_(bagPlanFree)(&p);
  return rc;
}

int THNN_(LookupTableBag_accGradParameters)(THTensor *gradWeight, THLongTensor *indices,
                                            THLongTensor *offsets, THTensor *gradOutput,
                                            THTensor *perSampleWeights,
                                            THLongTensor *maxIndices, int mode,
                                            int includeLastOffset, int64_t paddingIdx,
                                            int scaleGradByFreq, double scale) {
  const char *op = "embedding_bag() backward";
  char a[TH_SIZE_STR_LEN];
  THArgCheck(mode >= 0 && mode <= 2, TH_ERR_VALUE, -1,
             "%s: mode must be 0 (sum), 1 (mean) or 2 (max), got %d", op, mode);
  THNN_(BagPlan) p;
  THTry(THNN_(bagPlan)(&p, indices, offsets, gradWeight, perSampleWeights, includeLastOffset,
                       op), -1);
  int rc = -1;
  THTensor *go = NULL, *psw = NULL;
  THLongTensor *mic = NULL;
  int64_t *freq = NULL;
  if (THNN_(bagGradCheck)(&p, gradOutput, op) != 0) goto done;
  if (!THTensor_(isContiguous)(gradWeight)) {
    THError_set(TH_ERR_RUNTIME, "%s: gradWeight must be contiguous", op);
    goto done;
  }
  if (mode == 2) {
    if (!maxIndices || maxIndices->nDimension != 2 || maxIndices->size[0] != p.bags ||
        maxIndices->size[1] != p.dim) {
      THError_set(TH_ERR_RUNTIME, "%s: maxIndices must be (%lld, %lld), got size %s", op,
                  (long long)p.bags, (long long)p.dim,
                  maxIndices ? THSize_str(a, sizeof a, maxIndices->nDimension, maxIndices->size)
                             : "NULL");
      goto done;
    }
    if (THLongTensor_checkBounds(maxIndices, op) != 0) goto done;
    mic = THLongTensor_newContiguous(maxIndices);
    if (!mic) goto done;
    const int64_t *m = THLongTensor_data(mic);
    for (int64_t k = 0; k < p.bags * p.dim; k++) {
      if (m[k] < -1 || m[k] >= p.rows) {
        THError_set(TH_ERR_RUNTIME, "%s: maxIndices holds %lld, outside [-1, %lld)", op,
                    (long long)m[k], (long long)p.rows);
        goto done;
      }
    }
  }
  go = THTensor_(newContiguous)(gradOutput);
  psw = go && perSampleWeights ? THTensor_(newContiguous)(perSampleWeights) : NULL;
  if (!go || (perSampleWeights && !psw)) goto done;
  if (scaleGradByFreq && mode != 2) {
    freq = calloc((size_t)(p.rows ? p.rows : 1), sizeof(int64_t));
    if (!freq) {
      THError_set(TH_ERR_MEMORY, "%s: out of memory", op);
      goto done;
    }
    for (int64_t i = 0; i < p.n; i++) freq[p.ix[i]]++;
  }
  const real *g = THTensor_(data)(go), *pw = psw ? THTensor_(data)(psw) : NULL;
  real *gw = THTensor_(data)(gradWeight);
  const int64_t dim = p.dim;
  /* Serial on purpose: bags share rows. */
  if (mode == 2) {
    const int64_t *m = THLongTensor_data(mic);
    for (int64_t b = 0; b < p.bags; b++)
      for (int64_t j = 0; j < dim; j++) {
        const int64_t r = m[b * dim + j];
        if (r >= 0 && r != paddingIdx) gw[r * dim + j] += (real)(scale * g[b * dim + j]);
      }
  } else {
    for (int64_t b = 0; b < p.bags; b++) {
      const int64_t count = mode == 1 ? THNN_(bagCount)(&p, b, paddingIdx) : 1;
      for (int64_t i = p.off[b]; i < THNN_(bagEnd)(&p, b); i++) {
        const int64_t r = p.ix[i];
        if (r == paddingIdx) continue;
        accreal s = scale / (accreal)count;
        if (pw) s *= pw[i];
        if (freq) s /= (accreal)freq[r];
        real *row = gw + r * dim;
        for (int64_t j = 0; j < dim; j++) row[j] += (real)(s * g[b * dim + j]);
      }
    }
  }
  rc = 0;
done:
  free(freq);
  THLongTensor_free(mic);
  THTensor_(free)(go);
  THTensor_(free)(psw);
  THNN_(bagPlanFree)(&p);
  return rc;
}

#endif
