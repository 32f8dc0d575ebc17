#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THNNPooling.c"
#else

#include "THNNPool.h"

/* Every kernel is written once for 3-D (T, H, W) planes and serves 2-D through a depth of 1 (a
 * unit kernel, stride and dilation and no padding along T, so the depth loops run once; the
 * average poolings compile a copy of their plane loop with the depth a constant, see avgPlane).
 * Every kernel walks planes (one (n, c) pair each, contiguous T x H x W) and splits them
 * between threads when there is enough work; the windows of one plane run on one thread, so
 * the backward's scatter into a plane never races. */

static int THNN_(poolInput)(THTensor *input, int nd, const char *op) {
  char a[TH_SIZE_STR_LEN];
  int ok = input->nDimension == nd + 2;
  for (int d = 1; ok && d < nd + 2; d++) ok = input->size[d] > 0;
  THArgCheck(ok, TH_ERR_RUNTIME, -1, "%s: expected a %s input with non-zero %s, got size %s", op,
             nd == 3 ? "5-D (N, C, T, H, W)" : "4-D (N, C, H, W)",
             nd == 3 ? "C, T, H and W" : "C, H and W",
             THSize_str(a, sizeof a, input->nDimension, input->size));
  return THTensor_(checkBounds)(input, op);
}

/* The (T, H, W) sizes of an nd-D pooling's input (T = 1 in 2-D). */
static void THNN_(poolSizes)(THTensor *input, int nd, int64_t in[3]) {
  in[0] = nd == 3 ? input->size[2] : 1;
  in[1] = input->size[nd];
  in[2] = input->size[nd + 1];
}

/* g->n and g->on, the elements of an input and an output plane, from g->in and g->out: checked
 * products (the tensors' element counts bound them only when the batch is not empty). An
 * adaptive pooling also checks in * out + out per dim, the bound of its cells' arithmetic
 * (THNN_adaptiveSpan). RuntimeError naming the sizes when they overflow. */
static int THNN_(poolCounts)(THNNPoolGeometry *g, int nd, int adaptive, const char *op) {
  char a[96], b[96];
  int ok = THSize_mul(&g->n, g->in[0], g->in[1]) == 0 && THSize_mul(&g->n, g->n, g->in[2]) == 0 &&
           THSize_mul(&g->on, g->out[0], g->out[1]) == 0 &&
           THSize_mul(&g->on, g->on, g->out[2]) == 0;
  for (int d = 0; adaptive && d < 3; d++) {
    int64_t bound;
    ok &= THSize_mul(&bound, g->in[d], g->out[d]) == 0 &&
          THSize_add(&bound, bound, g->out[d]) == 0;
  }
  THArgCheck(ok, TH_ERR_RUNTIME, -1,
             "%s: the input size (%s) and output size (%s) overflow int64", op,
             THNN_poolDims(a, sizeof a, NULL, nd, g->in),
             THNN_poolDims(b, sizeof b, NULL, nd, g->out));
  return 0;
}

/* PyTorch's pooling output size along one dim. */
static int64_t THNN_(poolOut)(int64_t in, int64_t k, int64_t s, int64_t pad, int64_t dil,
                              int ceilMode) {
  const int64_t num = in + 2 * pad - dil * (k - 1) - 1 + (ceilMode ? s - 1 : 0);
  int64_t out = (num >= 0 ? num / s : -((-num + s - 1) / s)) + 1;
  if (ceilMode && (out - 1) * s >= in + pad) out--;
  return out;
}

/* Checks g's kernel, stride, padding and dilation and the input, then fills g->in and g->out.
 * Messages are PyTorch's (its 2-D average pooling words the padding check differently). */
static int THNN_(poolShape)(THTensor *input, int nd, THNNPoolGeometry *g, int ceilMode,
                            int isMax, const char *op) {
  char a[96], b[96], c[96];
  int ok = 1, bad = -1;
  for (int d = 0; d < 3; d++) ok &= g->k[d] > 0;
  THArgCheck(ok, TH_ERR_RUNTIME, -1, "%s: kernel size should be greater than zero, but got %s",
             op, THNN_poolDims(a, sizeof a, "k", nd, g->k));
  for (int d = 0; d < 3; d++) ok &= g->s[d] > 0;
  THArgCheck(ok, TH_ERR_RUNTIME, -1, "%s: stride should be greater than zero, but got %s", op,
             THNN_poolDims(a, sizeof a, "d", nd, g->s));
  for (int d = 0; d < 3; d++) ok &= g->dil[d] > 0;
  THArgCheck(ok, TH_ERR_RUNTIME, -1, "%s: dilation should be greater than zero, but got %s", op,
             THNN_poolDims(a, sizeof a, "dilation", nd, g->dil));
  for (int d = 0; d < 3; d++)
    if (bad < 0 && g->pad[d] < 0) bad = d;
  THArgCheck(bad < 0, TH_ERR_RUNTIME, -1, "pad must be non-negative, but got pad: %lld",
             (long long)g->pad[bad < 0 ? 0 : bad]);
  THTry(THNN_(poolInput)(input, nd, op), -1);
  THNN_(poolSizes)(input, nd, g->in);
  /* the effective kernel (k - 1) dil + 1, a bound on every sum the windows' arithmetic makes
   * (I + 2 pad + effective kernel + stride), and the window's cells (k_T k_H k_W, which bounds
   * every divisor of average pooling: a window never spans more than its kernel), checked
   * against overflow once here */
  int64_t eff[3];
  ok &= THSize_mul(&g->win, g->k[0], g->k[1]) == 0 && THSize_mul(&g->win, g->win, g->k[2]) == 0;
  for (int d = 0; d < 3; d++) {
    int64_t bound;
    ok &= THSize_mul(&eff[d], g->k[d] - 1, g->dil[d]) == 0 &&
          THSize_add(&eff[d], eff[d], 1) == 0 && THSize_mul(&bound, g->pad[d], 2) == 0 &&
          THSize_add(&bound, bound, eff[d]) == 0 && THSize_add(&bound, bound, g->s[d]) == 0 &&
          THSize_add(&bound, bound, g->in[d]) == 0;
  }
  THArgCheck(ok, TH_ERR_RUNTIME, -1,
             "%s: the kernel size, stride, padding and dilation overflow int64 (kernel %s, "
             "stride %s, padding %s)", op, THNN_poolDims(a, sizeof a, NULL, nd, g->k),
             THNN_poolDims(b, sizeof b, NULL, nd, g->s),
             THNN_poolDims(c, sizeof c, NULL, nd, g->pad));
  for (int d = 0; d < 3; d++)
    if (bad < 0 && g->pad[d] > eff[d] / 2) bad = d;
  if (isMax || nd == 3) {
    THArgCheck(bad < 0, TH_ERR_RUNTIME, -1,
               "pad should be at most half of effective kernel size, but got pad=%lld, "
               "kernel_size=%lld and dilation=%lld", (long long)g->pad[bad < 0 ? 0 : bad],
               (long long)g->k[bad < 0 ? 0 : bad], (long long)g->dil[bad < 0 ? 0 : bad]);
  } else {
    THArgCheck(bad < 0, TH_ERR_RUNTIME, -1,
               "pad should be smaller than or equal to half of kernel size, but got padW = "
               "%lld, padH = %lld, kW = %lld, kH = %lld", (long long)g->pad[2],
               (long long)g->pad[1], (long long)g->k[2], (long long)g->k[1]);
  }
  for (int d = 0; d < 3; d++) {
    g->out[d] = THNN_(poolOut)(g->in[d], g->k[d], g->s[d], g->pad[d], g->dil[d], ceilMode);
    ok &= g->out[d] >= 1;
  }
  THArgCheck(ok, TH_ERR_RUNTIME, -1,
             "Given input size: (%lldx%s). Calculated output size: (%lldx%s). "
             "Output size is too small", (long long)input->size[1],
             THNN_poolDims(a, sizeof a, NULL, nd, g->in), (long long)input->size[1],
             THNN_poolDims(b, sizeof b, NULL, nd, g->out));
  THTry(THNN_(poolCounts)(g, nd, 0, op), -1);
  /* a window reads at most min(k, I) cells per dim: at most a plane, whose bytes fit */
  g->cost = (int64_t)sizeof(real);
  for (int d = 0; d < 3; d++)
    if (THSize_mul(&g->cost, g->cost, TH_MIN(g->k[d], g->in[d])) != 0) g->cost = INT64_MAX;
  return 0;
}

static int THNN_(poolResult)(THTensor *r, THTensor *input, int nd, const int64_t out[3],
                             const char *op) {
  const int64_t size[5] = {input->size[0], input->size[1], out[3 - nd], out[4 - nd], out[2]};
  THTry(THTensor_(resize)(r, nd + 2, size), -1);
  THArgCheck(THTensor_(isContiguous)(r), TH_ERR_RUNTIME, -1, "%s: the result must be contiguous",
             op);
  return 0;
}

static int THNN_(poolIndices)(THLongTensor *indices, THTensor *output, const char *op) {
  THTry(THLongTensor_resize(indices, output->nDimension, output->size), -1);
  THArgCheck(THLongTensor_isContiguous(indices), TH_ERR_RUNTIME, -1,
             "%s: the indices must be contiguous", op);
  return 0;
}

/* The output size an nd-D gradOutput gives (T = 1 in 2-D), after checking its rank. */
static int THNN_(poolGradSizes)(THTensor *gradOutput, int nd, int64_t out[3], const char *op) {
  THArgCheck(gradOutput->nDimension == nd + 2, TH_ERR_RUNTIME, -1,
             "%s backward: expected a %d-D gradOutput", op, nd + 2);
  THNN_(poolSizes)(gradOutput, nd, out);
  return 0;
}

static int THNN_(poolGradInput)(THTensor *gradInput, THTensor *gradOutput, THTensor *input,
                                int nd, const int64_t out[3], const char *op) {
  char a[TH_SIZE_STR_LEN], b[TH_SIZE_STR_LEN];
  const int64_t want[5] = {input->size[0], input->size[1], out[3 - nd], out[4 - nd], out[2]};
  int ok = gradOutput->nDimension == nd + 2;
  for (int d = 0; ok && d < nd + 2; d++) ok = gradOutput->size[d] == want[d];
  THArgCheck(ok, TH_ERR_RUNTIME, -1, "%s backward: expected gradOutput of size %s, got %s", op,
             THSize_str(a, sizeof a, nd + 2, want),
             THSize_str(b, sizeof b, gradOutput->nDimension, gradOutput->size));
  THTry(THTensor_(checkBounds)(gradOutput, op), -1);
  THTry(THTensor_(resizeAs)(gradInput, input), -1);
  THArgCheck(THTensor_(isContiguous)(gradInput), TH_ERR_RUNTIME, -1,
             "%s: the gradient must be contiguous", op);
  return THTensor_(zero)(gradInput);
}

/* ---- max pooling ---------------------------------------------------------------------------- */

/* Whether candidate v (of index k) replaces the running maximum m (of index *best): when it is
 * larger, or NaN, so the last NaN of a window wins (PyTorch's rule) and otherwise the first
 * maximum (ties keep the earlier). A select, not a branch: on data of random sign the branch
 * mispredicts about every other element, which made this kernel 20x slower than a select. */
#ifndef THNN_MAX_TAKE
#define THNN_MAX_TAKE(m, best, v, k)            \
  do {                                          \
    const int take_ = ((v) > m) | ((v) != (v)); \
    m = take_ ? (v) : m;                        \
    best = take_ ? (k) : best;                  \
  } while (0)
#endif

/* A slice of the common MaxPool2d(2): 2 x 2 windows at stride 2 that lie inside the slice, whose
 * first element is element base of its plane; simd when the plane's indices fit 32 bits. */
static void THNN_(maxPool2x2)(const real *slice, int64_t base, int64_t W, int64_t oH, int64_t oW,
                              real *y, int64_t *ind, int simd) {
  (void)simd;
  for (int64_t i = 0; i < oH; i++) {
    const real *r0 = slice + 2 * i * W, *r1 = r0 + W;
    int64_t j = 0;
#if defined(TH_REAL_IS_FLOAT) && defined(THNN_HAVE_POOL_SIMD)
    if (simd) j = THNN_maxPool2x2RowFloat(r0, W, base + 2 * i * W, oW, y + i * oW, ind + i * oW);
#endif
    for (; j < oW; j++) {
      const int64_t k = base + 2 * i * W + 2 * j;
      real m = r0[2 * j];
      int64_t best = k;
      THNN_MAX_TAKE(m, best, r0[2 * j + 1], k + 1);
      THNN_MAX_TAKE(m, best, r1[2 * j], k + W);
      THNN_MAX_TAKE(m, best, r1[2 * j + 1], k + W + 1);
      y[i * oW + j] = m;
      ind[i * oW + j] = best;
    }
  }
}

/* The first position a dilated window starting at o * s - pad reaches inside [0, in), and the
 * end of its reach. */
static inline void THNN_(maxSpan)(int64_t o, int64_t in, int64_t k, int64_t s, int64_t pad,
                                  int64_t dil, int64_t *lo, int64_t *hi) {
  int64_t a = o * s - pad;
  *hi = TH_MIN(a + (k - 1) * dil + 1, in);
  if (a < 0) a += (-a + dil - 1) / dil * dil; /* the first tap at or past 0, in one step (a loop
                                                 * of pad / dil steps could run for days) */
  *lo = a;
}

static int THNN_(maxPool)(THTensor *output, THLongTensor *indices, THTensor *input, int nd,
                          THNNPoolGeometry *g, int ceilMode, const char *op) {
  THTry(THNN_(poolShape)(input, nd, g, ceilMode, 1, op), -1);
  THTry(THNN_(poolResult)(output, input, nd, g->out, op), -1);
  THTry(THNN_(poolIndices)(indices, output, op), -1);
  THTensor *in = THTensor_(newContiguous)(input);
  if (!in) return -1;
  const int64_t T = g->in[0], H = g->in[1], W = g->in[2];
  const int64_t oT = g->out[0], oH = g->out[1], oW = g->out[2];
  const int64_t kT = g->k[0], kH = g->k[1], kW = g->k[2], sT = g->s[0], sH = g->s[1],
                sW = g->s[2], padT = g->pad[0], padH = g->pad[1], padW = g->pad[2],
                dilT = g->dil[0], dilH = g->dil[1], dilW = g->dil[2];
  const int64_t planes = input->size[0] * input->size[1], n = g->n, on = g->on;
  const real *x = THTensor_(data)(in);
  real *y = THTensor_(data)(output);
  int64_t *ind = THLongTensor_data(indices);
  const int two = kT == 1 && sT == 1 && padT == 0 && dilT == 1 && kH == 2 && kW == 2 &&
                  sH == 2 && sW == 2 && padH == 0 && padW == 0 && dilH == 1 && dilW == 1 &&
                  2 * oH <= H && 2 * oW <= W;
  const int simd = n <= INT32_MAX;
  const int par = THParallel_worth(planes * on, g->cost);
#pragma omp parallel for if (par)
  for (int64_t p = 0; p < planes; p++) {
    const real *plane = x + p * n;
    real *yp = y + p * on;
    int64_t *ip = ind + p * on;
    for (int64_t t = 0; t < oT; t++) {
      if (two) {
        THNN_(maxPool2x2)(plane + t * H * W, t * H * W, W, oH, oW, yp + t * oH * oW,
                          ip + t * oH * oW, simd);
        continue;
      }
      int64_t t0, t1;
      THNN_(maxSpan)(t, T, kT, sT, padT, dilT, &t0, &t1);
      for (int64_t i = 0; i < oH; i++) {
        int64_t h0, h1;
        THNN_(maxSpan)(i, H, kH, sH, padH, dilH, &h0, &h1);
        for (int64_t j = 0; j < oW; j++) {
          int64_t w0, w1;
          THNN_(maxSpan)(j, W, kW, sW, padW, dilW, &w0, &w1);
          int64_t best = (t0 * H + h0) * W + w0;
          real m = -INFINITY;
          for (int64_t d = t0; d < t1; d += dilT)
            for (int64_t h = h0; h < h1; h += dilH)
              for (int64_t w = w0; w < w1; w += dilW)
                THNN_MAX_TAKE(m, best, plane[(d * H + h) * W + w], (d * H + h) * W + w);
          yp[(t * oH + i) * oW + j] = m;
          ip[(t * oH + i) * oW + j] = best;
        }
      }
    }
  }
  THTensor_(free)(in);
  return 0;
}

/* gradInput = gradOutput added at indices, within each plane (max and adaptive max pooling). */
static int THNN_(maxScatter)(THTensor *gradInput, THTensor *gradOutput, THTensor *input,
                             THLongTensor *indices, int nd, const char *op) {
  THNNPoolGeometry geo;
  THTry(THNN_(poolInput)(input, nd, op), -1);
  THTry(THNN_(poolGradSizes)(gradOutput, nd, geo.out, op), -1);
  THNN_(poolSizes)(input, nd, geo.in);
  THTry(THNN_(poolCounts)(&geo, nd, 0, op), -1);
  int same = indices->nDimension == gradOutput->nDimension;
  for (int d = 0; same && d < nd + 2; d++) same = indices->size[d] == gradOutput->size[d];
  THArgCheck(same, TH_ERR_RUNTIME, -1,
             "%s backward: indices and gradOutput have different shapes", op);
  THTry(THLongTensor_checkBounds(indices, op), -1);
  THTry(THNN_(poolGradInput)(gradInput, gradOutput, input, nd, geo.out, op), -1);
  THTensor *go = THTensor_(newContiguous)(gradOutput);
  THLongTensor *ix = go ? THLongTensor_newContiguous(indices) : NULL;
  int rc = -1;
  if (!ix) goto done;
  const int64_t planes = input->size[0] * input->size[1], n = geo.n, on = geo.on;
  const real *g = THTensor_(data)(go);
  const int64_t *ind = THLongTensor_data(ix);
  real *gi = THTensor_(data)(gradInput);
  int bad = 0;
  const int par = THParallel_worth(planes * on, (int64_t)sizeof(real) * 2);
#pragma omp parallel for if (par) reduction(| : bad)
  for (int64_t p = 0; p < planes; p++) {
    for (int64_t e = 0; e < on; e++) {
      const int64_t k = ind[p * on + e];
      if (k < 0 || k >= n) {
        bad = 1;
        continue;
      }
      gi[p * n + k] += g[p * on + e];
    }
  }
  if (bad) {
    THError_set(TH_ERR_INDEX, "%s backward: an index is outside the input's plane of %lld "
                "elements", op, (long long)n);
    goto done;
  }
  rc = 0;
done:
  THTensor_(free)(go);
  THLongTensor_free(ix);
  return rc;
}

int THNN_(SpatialDilatedMaxPooling_updateOutput)(THTensor *output, THLongTensor *indices,
                                                 THTensor *input, int64_t kH, int64_t kW,
                                                 int64_t sH, int64_t sW, int64_t padH,
                                                 int64_t padW, int64_t dilH, int64_t dilW,
                                                 int ceilMode) {
  THNNPoolGeometry g = {.k = {1, kH, kW}, .s = {1, sH, sW}, .pad = {0, padH, padW},
                        .dil = {1, dilH, dilW}};
  return THNN_(maxPool)(output, indices, input, 2, &g, ceilMode, "max_pool2d()");
}

int THNN_(SpatialDilatedMaxPooling_updateGradInput)(THTensor *gradInput, THTensor *gradOutput,
                                                    THTensor *input, THLongTensor *indices) {
  return THNN_(maxScatter)(gradInput, gradOutput, input, indices, 2, "max_pool2d()");
}

int THNN_(VolumetricDilatedMaxPooling_updateOutput)(THTensor *output, THLongTensor *indices,
                                                    THTensor *input, int64_t kT, int64_t kH,
                                                    int64_t kW, int64_t sT, int64_t sH,
                                                    int64_t sW, int64_t padT, int64_t padH,
                                                    int64_t padW, int64_t dilT, int64_t dilH,
                                                    int64_t dilW, int ceilMode) {
  THNNPoolGeometry g = {.k = {kT, kH, kW}, .s = {sT, sH, sW}, .pad = {padT, padH, padW},
                        .dil = {dilT, dilH, dilW}};
  return THNN_(maxPool)(output, indices, input, 3, &g, ceilMode, "max_pool3d()");
}

int THNN_(VolumetricDilatedMaxPooling_updateGradInput)(THTensor *gradInput,
                                                       THTensor *gradOutput, THTensor *input,
                                                       THLongTensor *indices) {
  return THNN_(maxScatter)(gradInput, gradOutput, input, indices, 3, "max_pool3d()");
}

/* ---- average pooling ------------------------------------------------------------------------ */

/* Average pooling, one plane: the forward (src the input, dst the output) divides each window's
 * sum, the backward (src gradOutput, dst gradInput) spreads each cell over its window; the
 * divisor is divisorOverride, or the window's size counting the padding or not. flat, a
 * constant where each copy is called, says the pooling has a depth of 1 (a 2-D one): the
 * compiler then folds the depth loops out of that copy, which is the 2-D kernel as it would be
 * written on its own (one set of depth loops costs 2-D average pooling 10-20%). */
static inline void THNN_(avgPlane)(const real *src, real *dst, const THNNPoolGeometry *g,
                                   int countIncludePad, int64_t divisorOverride,
                                   const int backward, const int flat) {
  const int64_t T = flat ? 1 : g->in[0], H = g->in[1], W = g->in[2];
  const int64_t oT = flat ? 1 : g->out[0], oH = g->out[1], oW = g->out[2];
  const int64_t kT = flat ? 1 : g->k[0], kH = g->k[1], kW = g->k[2];
  const int64_t sT = flat ? 1 : g->s[0], sH = g->s[1], sW = g->s[2];
  const int64_t padT = flat ? 0 : g->pad[0], padH = g->pad[1], padW = g->pad[2];
  for (int64_t t = 0; t < oT; t++) {
    int64_t t0, t1;
    const int64_t lt = THNN_avgSpan(t, T, kT, sT, padT, &t0, &t1);
    for (int64_t i = 0; i < oH; i++) {
      int64_t h0, h1;
      const int64_t lh = THNN_avgSpan(i, H, kH, sH, padH, &h0, &h1);
      for (int64_t j = 0; j < oW; j++) {
        int64_t w0, w1;
        const int64_t lw = THNN_avgSpan(j, W, kW, sW, padW, &w0, &w1);
        /* (each product at most g->win, checked) */
        const accreal div = (accreal)(divisorOverride > 0 ? divisorOverride
                                      : countIncludePad ? lt * lh * lw
                                      : (t1 - t0) * (h1 - h0) * (w1 - w0));
        const int64_t o = (t * oH + i) * oW + j;
        if (backward) {
          const real v = (real)(src[o] / div);
          for (int64_t d = t0; d < t1; d++)
            for (int64_t h = h0; h < h1; h++)
              for (int64_t w = w0; w < w1; w++) dst[(d * H + h) * W + w] += v;
        } else {
          accreal s = 0;
          for (int64_t d = t0; d < t1; d++)
            for (int64_t h = h0; h < h1; h++)
              for (int64_t w = w0; w < w1; w++) s += src[(d * H + h) * W + w];
          dst[o] = (t0 >= t1 || h0 >= h1 || w0 >= w1) ? 0 : (real)(s / div);
        }
      }
    }
  }
}

/* Average pooling's forward (src the input, dst the output) or backward (src gradOutput, dst
 * gradInput, zeroed), the planes split between threads. */
static void THNN_(avgPool_)(const real *src, real *dst, int64_t planes, const THNNPoolGeometry *g,
                            int countIncludePad, int64_t divisorOverride, int backward) {
  const int64_t n = g->n, on = g->on;
  const int64_t sn = backward ? on : n, dn = backward ? n : on;
  const int flat = g->in[0] == 1 && g->out[0] == 1 && g->k[0] == 1 && g->pad[0] == 0;
  const int par = THParallel_worth(planes * on, g->cost);
#pragma omp parallel for if (par)
  for (int64_t p = 0; p < planes; p++) {
    const real *sp = src + p * sn;
    real *dp = dst + p * dn;
    if (backward && flat)
      THNN_(avgPlane)(sp, dp, g, countIncludePad, divisorOverride, 1, 1);
    else if (backward)
      THNN_(avgPlane)(sp, dp, g, countIncludePad, divisorOverride, 1, 0);
    else if (flat)
      THNN_(avgPlane)(sp, dp, g, countIncludePad, divisorOverride, 0, 1);
    else
      THNN_(avgPlane)(sp, dp, g, countIncludePad, divisorOverride, 0, 0);
  }
}

/* PyTorch's avg_pool3d wants an input at least the kernel's size in every dim, padding aside. */
static int THNN_(avgVolumeInput)(THTensor *input, const int64_t k[3], const char *op) {
  char a[96], b[96];
  int64_t in[3];
  THTry(THNN_(poolInput)(input, 3, op), -1);
  THNN_(poolSizes)(input, 3, in);
  THArgCheck(in[0] >= k[0] && in[1] >= k[1] && in[2] >= k[2], TH_ERR_RUNTIME, -1,
             "input image (%s) smaller than kernel size (%s)",
             THNN_poolDims(a, sizeof a, "", 3, in), THNN_poolDims(b, sizeof b, "k", 3, k));
  return 0;
}

static int THNN_(avgPool)(THTensor *output, THTensor *input, int nd, THNNPoolGeometry *g,
                          int ceilMode, int countIncludePad, int64_t divisorOverride,
                          const char *op) {
  THArgCheck(divisorOverride >= 0, TH_ERR_RUNTIME, -1, "divisor must be not zero");
  THTry(THNN_(poolShape)(input, nd, g, ceilMode, 0, op), -1);
  THTry(THNN_(poolResult)(output, input, nd, g->out, op), -1);
  THTensor *in = THTensor_(newContiguous)(input);
  if (!in) return -1;
  THNN_(avgPool_)(THTensor_(data)(in), THTensor_(data)(output), input->size[0] * input->size[1],
                  g, countIncludePad, divisorOverride, 0);
  THTensor_(free)(in);
  return 0;
}

static int THNN_(avgPoolGrad)(THTensor *gradInput, THTensor *gradOutput, THTensor *input,
                              int nd, THNNPoolGeometry *g, int ceilMode, int countIncludePad,
                              int64_t divisorOverride, const char *op) {
  THArgCheck(divisorOverride >= 0, TH_ERR_RUNTIME, -1, "divisor must be not zero");
  THTry(THNN_(poolShape)(input, nd, g, ceilMode, 0, op), -1);
  THTry(THNN_(poolGradInput)(gradInput, gradOutput, input, nd, g->out, op), -1);
  THTensor *go = THTensor_(newContiguous)(gradOutput);
  if (!go) return -1;
  THNN_(avgPool_)(THTensor_(data)(go), THTensor_(data)(gradInput),
                  input->size[0] * input->size[1], g, countIncludePad, divisorOverride, 1);
  THTensor_(free)(go);
  return 0;
}

int THNN_(SpatialAveragePooling_updateOutput)(THTensor *output, THTensor *input, int64_t kH,
                                              int64_t kW, int64_t sH, int64_t sW, int64_t padH,
                                              int64_t padW, int ceilMode, int countIncludePad,
                                              int64_t divisorOverride) {
  THNNPoolGeometry g = {.k = {1, kH, kW}, .s = {1, sH, sW}, .pad = {0, padH, padW},
                        .dil = {1, 1, 1}};
  return THNN_(avgPool)(output, input, 2, &g, ceilMode, countIncludePad, divisorOverride,
                        "avg_pool2d()");
}

int THNN_(SpatialAveragePooling_updateGradInput)(THTensor *gradInput, THTensor *gradOutput,
                                                 THTensor *input, int64_t kH, int64_t kW,
                                                 int64_t sH, int64_t sW, int64_t padH,
                                                 int64_t padW, int ceilMode,
                                                 int countIncludePad, int64_t divisorOverride) {
  THNNPoolGeometry g = {.k = {1, kH, kW}, .s = {1, sH, sW}, .pad = {0, padH, padW},
                        .dil = {1, 1, 1}};
  return THNN_(avgPoolGrad)(gradInput, gradOutput, input, 2, &g, ceilMode, countIncludePad,
                            divisorOverride, "avg_pool2d()");
}

int THNN_(VolumetricAveragePooling_updateOutput)(THTensor *output, THTensor *input, int64_t kT,
                                                 int64_t kH, int64_t kW, int64_t sT, int64_t sH,
                                                 int64_t sW, int64_t padT, int64_t padH,
                                                 int64_t padW, int ceilMode,
                                                 int countIncludePad, int64_t divisorOverride) {
  THNNPoolGeometry g = {.k = {kT, kH, kW}, .s = {sT, sH, sW}, .pad = {padT, padH, padW},
                        .dil = {1, 1, 1}};
  THTry(THNN_(avgVolumeInput)(input, g.k, "avg_pool3d()"), -1);
  return THNN_(avgPool)(output, input, 3, &g, ceilMode, countIncludePad, divisorOverride,
                        "avg_pool3d()");
}

int THNN_(VolumetricAveragePooling_updateGradInput)(THTensor *gradInput, THTensor *gradOutput,
                                                    THTensor *input, int64_t kT, int64_t kH,
                                                    int64_t kW, int64_t sT, int64_t sH,
                                                    int64_t sW, int64_t padT, int64_t padH,
                                                    int64_t padW, int ceilMode,
                                                    int countIncludePad,
                                                    int64_t divisorOverride) {
  THNNPoolGeometry g = {.k = {kT, kH, kW}, .s = {sT, sH, sW}, .pad = {padT, padH, padW},
                        .dil = {1, 1, 1}};
  THTry(THNN_(avgVolumeInput)(input, g.k, "avg_pool3d()"), -1);
  return THNN_(avgPoolGrad)(gradInput, gradOutput, input, 3, &g, ceilMode, countIncludePad,
                            divisorOverride, "avg_pool3d()");
}

/* ---- adaptive pooling ----------------------------------------------------------------------- */

/* Checks the requested output size (the last nd of out; T = 1 in 2-D) and the input, fills g. */
static int THNN_(adaptiveShape)(THTensor *input, int nd, THNNPoolGeometry *g, const char *op) {
  char a[TH_SIZE_STR_LEN];
  THArgCheck(g->out[0] >= 0 && g->out[1] >= 0 && g->out[2] >= 0, TH_ERR_RUNTIME, -1,
             "%s: elements of output_size must be greater than or equal to 0 but received %s",
             op, THSize_str(a, sizeof a, nd, g->out + 3 - nd));
  THTry(THNN_(poolInput)(input, nd, op), -1);
  THNN_(poolSizes)(input, nd, g->in);
  return THNN_(poolCounts)(g, nd, 1, op);
}

/* Adaptive average pooling, one plane: the forward (src the input, dst the output) or the
 * backward (src gradOutput, dst gradInput), flat as in avgPlane (a depth of 1 as a constant). */
static inline void THNN_(adaptiveAvgPlane)(const real *src, real *dst, const THNNPoolGeometry *g,
                                           const int backward, const int flat) {
  const int64_t T = flat ? 1 : g->in[0], H = g->in[1], W = g->in[2];
  const int64_t oT = flat ? 1 : g->out[0], oH = g->out[1], oW = g->out[2];
  for (int64_t t = 0; t < oT; t++) {
    int64_t t0, t1;
    THNN_adaptiveSpan(t, T, oT, &t0, &t1);
    for (int64_t i = 0; i < oH; i++) {
      int64_t h0, h1;
      THNN_adaptiveSpan(i, H, oH, &h0, &h1);
      for (int64_t j = 0; j < oW; j++) {
        int64_t w0, w1;
        THNN_adaptiveSpan(j, W, oW, &w0, &w1);
        const accreal cells = (accreal)((t1 - t0) * (h1 - h0) * (w1 - w0));
        const int64_t o = (t * oH + i) * oW + j;
        if (backward) {
          const real v = (real)(src[o] / cells);
          for (int64_t d = t0; d < t1; d++)
            for (int64_t h = h0; h < h1; h++)
              for (int64_t w = w0; w < w1; w++) dst[(d * H + h) * W + w] += v;
        } else {
          accreal s = 0;
          for (int64_t d = t0; d < t1; d++)
            for (int64_t h = h0; h < h1; h++)
              for (int64_t w = w0; w < w1; w++) s += src[(d * H + h) * W + w];
          dst[o] = (real)(s / cells);
        }
      }
    }
  }
}

static void THNN_(adaptiveAvgPool_)(const real *src, real *dst, int64_t planes,
                                    const THNNPoolGeometry *g, int backward) {
  const int64_t n = g->n, on = g->on;
  const int64_t sn = backward ? on : n, dn = backward ? n : on;
  const int flat = g->in[0] == 1 && g->out[0] == 1;
  const int par = THParallel_worth(planes * n, (int64_t)sizeof(real) * (backward ? 2 : 1));
#pragma omp parallel for if (par)
  for (int64_t p = 0; p < planes; p++) {
    const real *sp = src + p * sn;
    real *dp = dst + p * dn;
    if (backward && flat)
      THNN_(adaptiveAvgPlane)(sp, dp, g, 1, 1);
    else if (backward)
      THNN_(adaptiveAvgPlane)(sp, dp, g, 1, 0);
    else if (flat)
      THNN_(adaptiveAvgPlane)(sp, dp, g, 0, 1);
    else
      THNN_(adaptiveAvgPlane)(sp, dp, g, 0, 0);
  }
}

static int THNN_(adaptiveAvgPool)(THTensor *output, THTensor *input, int nd, int64_t oT,
                                  int64_t oH, int64_t oW, const char *op) {
  THNNPoolGeometry g = {.out = {oT, oH, oW}};
  THTry(THNN_(adaptiveShape)(input, nd, &g, op), -1);
  THTry(THNN_(poolResult)(output, input, nd, g.out, op), -1);
  THTensor *in = THTensor_(newContiguous)(input);
  if (!in) return -1;
  THNN_(adaptiveAvgPool_)(THTensor_(data)(in), THTensor_(data)(output),
                          input->size[0] * input->size[1], &g, 0);
  THTensor_(free)(in);
  return 0;
}

static int THNN_(adaptiveAvgPoolGrad)(THTensor *gradInput, THTensor *gradOutput,
                                      THTensor *input, int nd, const char *op) {
  THNNPoolGeometry g;
  THTry(THNN_(poolInput)(input, nd, op), -1);
  THTry(THNN_(poolGradSizes)(gradOutput, nd, g.out, op), -1);
  THNN_(poolSizes)(input, nd, g.in);
  THTry(THNN_(poolCounts)(&g, nd, 1, op), -1);
  THTry(THNN_(poolGradInput)(gradInput, gradOutput, input, nd, g.out, op), -1);
  THTensor *go = THTensor_(newContiguous)(gradOutput);
  if (!go) return -1;
  THNN_(adaptiveAvgPool_)(THTensor_(data)(go), THTensor_(data)(gradInput),
                          input->size[0] * input->size[1], &g, 1);
  THTensor_(free)(go);
  return 0;
}

static int THNN_(adaptiveMaxPool)(THTensor *output, THLongTensor *indices, THTensor *input,
                                  int nd, int64_t oT, int64_t oH, int64_t oW, const char *op) {
  THNNPoolGeometry g = {.out = {oT, oH, oW}};
  THTry(THNN_(adaptiveShape)(input, nd, &g, op), -1);
  THTry(THNN_(poolResult)(output, input, nd, g.out, op), -1);
  THTry(THNN_(poolIndices)(indices, output, op), -1);
  THTensor *in = THTensor_(newContiguous)(input);
  if (!in) return -1;
  const int64_t T = g.in[0], H = g.in[1], W = g.in[2];
  const int64_t planes = input->size[0] * input->size[1], n = g.n, on = g.on;
  const real *x = THTensor_(data)(in);
  real *y = THTensor_(data)(output);
  int64_t *ind = THLongTensor_data(indices);
  const int par = THParallel_worth(planes * n, (int64_t)sizeof(real));
#pragma omp parallel for if (par)
  for (int64_t p = 0; p < planes; p++) {
    const real *plane = x + p * n;
    for (int64_t t = 0; t < oT; t++) {
      int64_t t0, t1;
      THNN_adaptiveSpan(t, T, oT, &t0, &t1);
      for (int64_t i = 0; i < oH; i++) {
        int64_t h0, h1;
        THNN_adaptiveSpan(i, H, oH, &h0, &h1);
        for (int64_t j = 0; j < oW; j++) {
          int64_t w0, w1;
          THNN_adaptiveSpan(j, W, oW, &w0, &w1);
          int64_t best = (t0 * H + h0) * W + w0;
          real m = -INFINITY;
          for (int64_t d = t0; d < t1; d++)
            for (int64_t h = h0; h < h1; h++)
              for (int64_t w = w0; w < w1; w++)
                THNN_MAX_TAKE(m, best, plane[(d * H + h) * W + w], (d * H + h) * W + w);
          y[p * on + (t * oH + i) * oW + j] = m;
          ind[p * on + (t * oH + i) * oW + j] = best;
        }
      }
    }
  }
  THTensor_(free)(in);
  return 0;
}

int THNN_(SpatialAdaptiveAveragePooling_updateOutput)(THTensor *output, THTensor *input,
                                                      int64_t oH, int64_t oW) {
  return THNN_(adaptiveAvgPool)(output, input, 2, 1, oH, oW, "adaptive_avg_pool2d()");
}

int THNN_(SpatialAdaptiveAveragePooling_updateGradInput)(THTensor *gradInput,
                                                         THTensor *gradOutput,
                                                         THTensor *input) {
  return THNN_(adaptiveAvgPoolGrad)(gradInput, gradOutput, input, 2, "adaptive_avg_pool2d()");
}

int THNN_(VolumetricAdaptiveAveragePooling_updateOutput)(THTensor *output, THTensor *input,
                                                         int64_t oT, int64_t oH, int64_t oW) {
  return THNN_(adaptiveAvgPool)(output, input, 3, oT, oH, oW, "adaptive_avg_pool3d()");
}

int THNN_(VolumetricAdaptiveAveragePooling_updateGradInput)(THTensor *gradInput,
                                                            THTensor *gradOutput,
                                                            THTensor *input) {
  return THNN_(adaptiveAvgPoolGrad)(gradInput, gradOutput, input, 3, "adaptive_avg_pool3d()");
}

int THNN_(SpatialAdaptiveMaxPooling_updateOutput)(THTensor *output, THLongTensor *indices,
                                                  THTensor *input, int64_t oH, int64_t oW) {
  return THNN_(adaptiveMaxPool)(output, indices, input, 2, 1, oH, oW, "adaptive_max_pool2d()");
}

int THNN_(SpatialAdaptiveMaxPooling_updateGradInput)(THTensor *gradInput, THTensor *gradOutput,
                                                     THTensor *input, THLongTensor *indices) {
  return THNN_(maxScatter)(gradInput, gradOutput, input, indices, 2, "adaptive_max_pool2d()");
}

int THNN_(VolumetricAdaptiveMaxPooling_updateOutput)(THTensor *output, THLongTensor *indices,
                                                     THTensor *input, int64_t oT, int64_t oH,
                                                     int64_t oW) {
  return THNN_(adaptiveMaxPool)(output, indices, input, 3, oT, oH, oW,
                                "adaptive_max_pool3d()");
}

int THNN_(VolumetricAdaptiveMaxPooling_updateGradInput)(THTensor *gradInput,
                                                        THTensor *gradOutput, THTensor *input,
                                                        THLongTensor *indices) {
  return THNN_(maxScatter)(gradInput, gradOutput, input, indices, 3, "adaptive_max_pool3d()");
}

#endif
