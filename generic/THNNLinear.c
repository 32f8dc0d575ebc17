#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THNNLinear.c"
#else

/* Row-major (r, c) matrices are column-major (c, r) ones to BLAS, so with X (N, in),
 * W (out, in), G (N, out) (X and G may have more leading dims: N is their product, the rows of
 * their contiguous data):
 *   Y  = X W^T  is  Y'  (out x N)  = W'^T X'   gemm('t', 'n', out, N, in)
 *   GI = G W    is  GI' (in x N)   = W' G'     gemm('n', 'n', in, N, out)
 *   GW = G^T X  is  GW' (in x out) = X' G'^T   gemm('n', 't', in, out, N)
 * where A' is the column-major reading of row-major A. */

#ifndef THNN_LD
#define THNN_LD(rows) ((rows) > 0 ? (rows) : 1) /* BLAS wants leading dims >= 1 */
#endif

/* Checks that p and q are at least 2-D with the same leading sizes (the rows); their names are
 * the first words of expect. *rows: the product of those sizes. */
static int THNN_(linearRows)(const char *op, THTensor *p, THTensor *q, const char *pname,
                             const char *qname, const char *expect, int64_t *rows) {
  char a[TH_SIZE_STR_LEN], b[TH_SIZE_STR_LEN];
  THTry(THTensor_(checkBounds)(p, op), -1);
  THTry(THTensor_(checkBounds)(q, op), -1);
  int ok = p->nDimension >= 2 && q->nDimension == p->nDimension;
  *rows = 1;
  for (int d = 0; ok && d < p->nDimension - 1; d++) {
    ok = p->size[d] == q->size[d];
    *rows *= p->size[d];
  }
  if (!ok) {
    THError_set(TH_ERR_RUNTIME, "%s: expected %s, got %s %s and %s %s", op, expect, pname,
                THSize_str(a, sizeof a, p->nDimension, p->size), qname,
                THSize_str(b, sizeof b, q->nDimension, q->size));
    return -1;
  }
  return 0;
}

/* p's sizes with the last one replaced by last (p at least 1-D). */
static void THNN_(linearSizes)(int64_t *size, const THTensor *p, int64_t last) {
  for (int d = 0; d < p->nDimension - 1; d++) size[d] = p->size[d];
  size[p->nDimension - 1] = last;
}

/* Checks input (..., in) against weight (out, in) and bias (out). */
static int THNN_(linearShape)(const char *op, THTensor *input, THTensor *weight,
                              THTensor *bias) {
  char a[TH_SIZE_STR_LEN], b[TH_SIZE_STR_LEN];
  THTry(THTensor_(checkBounds)(input, op), -1);
  THTry(THTensor_(checkBounds)(weight, op), -1);
  if (input->nDimension < 2 || weight->nDimension != 2 ||
      input->size[input->nDimension - 1] != weight->size[1]) {
    THError_set(TH_ERR_RUNTIME, "%s: expected input (..., in) and weight (out, in), got input "
                "%s and weight %s", op, THSize_str(a, sizeof a, input->nDimension, input->size),
                THSize_str(b, sizeof b, weight->nDimension, weight->size));
    return -1;
  }
  if (bias) {
    THTry(THTensor_(checkBounds)(bias, op), -1);
    THArgCheck(bias->nDimension == 1 && bias->size[0] == weight->size[0], TH_ERR_RUNTIME, -1,
               "%s: expected a bias of size (%lld), got %s", op, (long long)weight->size[0],
               THSize_str(a, sizeof a, bias->nDimension, bias->size));
  }
  return 0;
}

/* A result the kernel writes as a contiguous block: resized to size first unless it is being
 * accumulated into (resize 0). */
static int THNN_(linearResult)(THTensor *t, int resize, int ndim, const int64_t *size,
                               const char *op, const char *name) {
  if (resize && THTensor_(resize)(t, ndim, size) != 0) return -1;
  THArgCheck(THTensor_(isContiguous)(t), TH_ERR_RUNTIME, -1, "%s: %s must be contiguous", op,
             name);
  return 0;
}

/* t itself when contiguous (retained), else a contiguous copy; NULL on failure. */
static THTensor *THNN_(linearContiguous)(THTensor *t) {
  return t ? THTensor_(newContiguous)(t) : NULL;
}

int THNN_(Linear_updateOutput)(THTensor *output, THTensor *input, THTensor *weight,
                               THTensor *bias) {
  const char *op = "linear()";
  THTry(THNN_(linearShape)(op, input, weight, bias), -1);
  const int nd = input->nDimension;
  const int64_t in = input->size[nd - 1], out = weight->size[0];
  int64_t n = 1, size[TH_MAX_DIM];
  for (int d = 0; d < nd - 1; d++) n *= input->size[d];
  THNN_(linearSizes)(size, input, out);
  THTensor *x = THNN_(linearContiguous)(input);
  THTensor *w = x ? THNN_(linearContiguous)(weight) : NULL;
  THTensor *bc = w && bias ? THNN_(linearContiguous)(bias) : NULL;
  int rc = -1;
  if (!w || (bias && !bc) || THNN_(linearResult)(output, 1, nd, size, op, "output") != 0)
    goto done;
  real *y = THTensor_(data)(output);
  if (bc && out > 0) { /* (empty tensors have no data pointer to hand to memcpy) */
    const real *bd = THTensor_(data)(bc);
    for (int64_t i = 0; i < n; i++) memcpy(y + i * out, bd, (size_t)out * sizeof(real));
  }
  if (in == 0) { /* an empty product: BLAS is not called with zero leading dims */
    if (!bc && n * out > 0) memset(y, 0, (size_t)(n * out) * sizeof(real));
    rc = 0;
  } else {
    rc = THBlas_(gemm)('t', 'n', out, n, in, 1, THTensor_(data)(w), in, THTensor_(data)(x), in,
                       bc ? 1 : 0, y, THNN_LD(out));
  }
done:
  THTensor_(free)(x);
  THTensor_(free)(w);
  THTensor_(free)(bc);
  return rc;
}

int THNN_(Linear_updateGradInput)(THTensor *gradInput, THTensor *gradOutput, THTensor *weight) {
  const char *op = "linear() backward";
  char a[TH_SIZE_STR_LEN], b[TH_SIZE_STR_LEN];
  THTry(THTensor_(checkBounds)(gradOutput, op), -1);
  THTry(THTensor_(checkBounds)(weight, op), -1);
  const int nd = gradOutput->nDimension;
  if (nd < 2 || weight->nDimension != 2 || gradOutput->size[nd - 1] != weight->size[0]) {
    THError_set(TH_ERR_RUNTIME, "%s: expected gradOutput (..., out) and weight (out, in), got "
                "gradOutput %s and weight %s", op, THSize_str(a, sizeof a, nd, gradOutput->size),
                THSize_str(b, sizeof b, weight->nDimension, weight->size));
    return -1;
  }
  const int64_t out = weight->size[0], in = weight->size[1];
  int64_t n = 1, size[TH_MAX_DIM];
  for (int d = 0; d < nd - 1; d++) n *= gradOutput->size[d];
  THNN_(linearSizes)(size, gradOutput, in);
  THTensor *g = THNN_(linearContiguous)(gradOutput);
  THTensor *w = g ? THNN_(linearContiguous)(weight) : NULL;
  int rc = -1;
  if (!w || THNN_(linearResult)(gradInput, 1, nd, size, op, "gradInput") != 0) goto done;
  real *gi = THTensor_(data)(gradInput);
  if (out == 0) {
    if (n * in > 0) memset(gi, 0, (size_t)(n * in) * sizeof(real));
    rc = 0;
  } else {
    rc = THBlas_(gemm)('n', 'n', in, n, out, 1, THTensor_(data)(w), THNN_LD(in),
                       THTensor_(data)(g), out, 0, gi, THNN_LD(in));
  }
done:
  THTensor_(free)(g);
  THTensor_(free)(w);
  return rc;
}

int THNN_(Linear_accGradParameters)(THTensor *gradWeight, THTensor *gradBias, THTensor *input,
                                    THTensor *gradOutput, real scale, int accumulate) {
  const char *op = "linear() backward";
  int64_t n;
  THTry(THNN_(linearRows)(op, input, gradOutput, "input", "gradOutput",
                          "input (..., in) and gradOutput (..., out)", &n), -1);
  const int64_t in = input->size[input->nDimension - 1];
  const int64_t out = gradOutput->size[gradOutput->nDimension - 1];
  const int64_t wsize[2] = {out, in};
  if (accumulate) {
    THArgCheck(gradWeight == NULL || (gradWeight->nDimension == 2 && gradWeight->size[0] == out &&
               gradWeight->size[1] == in && THTensor_(isContiguous)(gradWeight)),
               TH_ERR_RUNTIME, -1, "%s: gradWeight must be a contiguous (%lld, %lld) tensor", op,
               (long long)out, (long long)in);
    THArgCheck(gradBias == NULL || (gradBias->nDimension == 1 && gradBias->size[0] == out &&
               THTensor_(isContiguous)(gradBias)),
               TH_ERR_RUNTIME, -1, "%s: gradBias must be a contiguous (%lld) tensor", op,
               (long long)out);
  }
  THTensor *x = THNN_(linearContiguous)(input);
  THTensor *g = x ? THNN_(linearContiguous)(gradOutput) : NULL;
  int rc = -1;
  if (!g) goto done;
  if (gradWeight) {
    if (THNN_(linearResult)(gradWeight, !accumulate, 2, wsize, op, "gradWeight") != 0)
      goto done;
    real *gw = THTensor_(data)(gradWeight);
    if (n == 0) {
      if (!accumulate && out * in > 0) memset(gw, 0, (size_t)(out * in) * sizeof(real));
    } else if (THBlas_(gemm)('n', 't', in, out, n, scale, THTensor_(data)(x), THNN_LD(in),
                             THTensor_(data)(g), THNN_LD(out), accumulate ? 1 : 0, gw,
                             THNN_LD(in)) != 0) {
      goto done;
    }
  }
  if (gradBias) {
    if (THNN_(linearResult)(gradBias, !accumulate, 1, wsize, op, "gradBias") != 0) goto done;
    real *gb = THTensor_(data)(gradBias);
    const real *gd = THTensor_(data)(g);
    if (!accumulate && out > 0) memset(gb, 0, (size_t)out * sizeof(real));
    for (int64_t i = 0; i < n && out > 0; i++) {
      const real *row = gd + i * out;
      for (int64_t j = 0; j < out; j++) gb[j] += scale * row[j];
    }
  }
  rc = 0;
done:
  THTensor_(free)(x);
  THTensor_(free)(g);
  return rc;
}

#endif
