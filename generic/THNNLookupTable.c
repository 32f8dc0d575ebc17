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

#endif
