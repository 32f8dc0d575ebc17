#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THNNPooling.c"
#else

#include "THNNPool.h"

/* Every kernel walks planes (one (n, c) pair each, contiguous H x W) and splits them between
 * threads when there is enough work; the windows of one plane run on one thread, so the
 * backward's scatter into a plane never races. */

static int THNN_(poolInput)(THTensor *input, const char *op) {
  char a[TH_SIZE_STR_LEN];
  THArgCheck(input->nDimension == 4 && input->size[1] > 0 && input->size[2] > 0 &&
             input->size[3] > 0, TH_ERR_RUNTIME, -1,
             "%s: expected a 4-D (N, C, H, W) input with non-zero C, H and W, got size %s", op,
             THSize_str(a, sizeof a, input->nDimension, input->size));
  return THTensor_(checkBounds)(input, op);
}

/* PyTorch's pooling output size along one dim. */
static int64_t THNN_(poolOut)(int64_t in, int64_t k, int64_t s, int64_t pad, int64_t dil,
                              int ceilMode) {
  const int64_t num = in + 2 * pad - dil * (k - 1) - 1 + (ceilMode ? s - 1 : 0);
  int64_t out = (num >= 0 ? num / s : -((-num + s - 1) / s)) + 1;
  if (ceilMode && (out - 1) * s >= in + pad) out--;
  return out;
}

static int THNN_(poolShape)(THTensor *input, int64_t kH, int64_t kW, int64_t sH, int64_t sW,
                            int64_t padH, int64_t padW, int64_t dilH, int64_t dilW,
                            int ceilMode, int isMax, int64_t *oH, int64_t *oW,
                            const char *op) {
  THArgCheck(kH > 0 && kW > 0, TH_ERR_RUNTIME, -1,
             "%s: kernel size should be greater than zero, but got kH: %lld kW: %lld", op,
             (long long)kH, (long long)kW);
  THArgCheck(sH > 0 && sW > 0, TH_ERR_RUNTIME, -1,
             "%s: stride should be greater than zero, but got dH: %lld dW: %lld", op,
             (long long)sH, (long long)sW);
  THArgCheck(dilH > 0 && dilW > 0, TH_ERR_RUNTIME, -1,
             "%s: dilation should be greater than zero, but got dilationH: %lld dilationW: %lld",
             op, (long long)dilH, (long long)dilW);
  if (isMax) {
    THArgCheck(padH >= 0 && padW >= 0 && padH <= ((kH - 1) * dilH + 1) / 2 &&
               padW <= ((kW - 1) * dilW + 1) / 2, TH_ERR_RUNTIME, -1,
               "pad should be at most half of effective kernel size, but got pad=%lld, "
               "kernel_size=%lld and dilation=%lld",
               (long long)(padH * 2 > (kH - 1) * dilH + 1 ? padH : padW),
               (long long)(padH * 2 > (kH - 1) * dilH + 1 ? kH : kW),
               (long long)(padH * 2 > (kH - 1) * dilH + 1 ? dilH : dilW));
  } else {
    THArgCheck(padH >= 0 && padW >= 0 && padH <= kH / 2 && padW <= kW / 2, TH_ERR_RUNTIME, -1,
               "pad should be smaller than or equal to half of kernel size, but got padW = "
               "%lld, padH = %lld, kW = %lld, kH = %lld", (long long)padW, (long long)padH,
               (long long)kW, (long long)kH);
  }
  THTry(THNN_(poolInput)(input, op), -1);
  const int64_t C = input->size[1], H = input->size[2], W = input->size[3];
  *oH = THNN_(poolOut)(H, kH, sH, padH, dilH, ceilMode);
  *oW = THNN_(poolOut)(W, kW, sW, padW, dilW, ceilMode);
  THArgCheck(*oH >= 1 && *oW >= 1, TH_ERR_RUNTIME, -1,
             "Given input size: (%lldx%lldx%lld). Calculated output size: (%lldx%lldx%lld). "
             "Output size is too small", (long long)C, (long long)H, (long long)W,
             (long long)C, (long long)*oH, (long long)*oW);
  return 0;
}

static int THNN_(poolResult)(THTensor *r, THTensor *input, int64_t oH, int64_t oW,
                             const char *op) {
  const int64_t size[4] = {input->size[0], input->size[1], oH, oW};
  THTry(THTensor_(resize)(r, 4, size), -1);
  THArgCheck(THTensor_(isContiguous)(r), TH_ERR_RUNTIME, -1, "%s: the result must be contiguous",
             op);
  return 0;
}

static int THNN_(poolGradInput)(THTensor *gradInput, THTensor *gradOutput, THTensor *input,
                                int64_t oH, int64_t oW, const char *op) {
  char a[TH_SIZE_STR_LEN];
  THArgCheck(gradOutput->nDimension == 4 && gradOutput->size[0] == input->size[0] &&
             gradOutput->size[1] == input->size[1] && gradOutput->size[2] == oH &&
             gradOutput->size[3] == oW, TH_ERR_RUNTIME, -1,
             "%s backward: expected gradOutput of size [%lld, %lld, %lld, %lld], got %s", op,
             (long long)input->size[0], (long long)input->size[1], (long long)oH, (long long)oW,
             THSize_str(a, sizeof a, gradOutput->nDimension, gradOutput->size));
  THTry(THTensor_(checkBounds)(gradOutput, op), -1);
  THTry(THTensor_(resizeAs)(gradInput, input), -1);
  THArgCheck(THTensor_(isContiguous)(gradInput), TH_ERR_RUNTIME, -1,
             "%s: the gradient must be contiguous", op);
  return THTensor_(zero)(gradInput);
}

/* ---- max pooling ---------------------------------------------------------------------------- */

/* Whether candidate v (of index k) replaces the running maximum m (of index *best): when it is
 * larger, or NaN while m is not, so the first NaN of a window wins and otherwise the first
 * maximum (ties keep the earlier). A select, not a branch: on data of random sign the branch
 * mispredicts about every other element, which made this kernel 20x slower than a select. */
#ifndef THNN_MAX_TAKE
#define THNN_MAX_TAKE(m, best, v, k)                      \
  do {                                                    \
    const int take_ = ((v) > m) | (((v) != (v)) & (m == m)); \
    m = take_ ? (v) : m;                                  \
    best = take_ ? (k) : best;                            \
  } while (0)
#endif

/* A plane of the common MaxPool2d(2): 2 x 2 windows at stride 2 that lie inside the plane. */
static void THNN_(maxPool2x2)(const real *plane, int64_t H, int64_t W, int64_t oH, int64_t oW,
                              real *y, int64_t *ind) {
  (void)H;
  for (int64_t i = 0; i < oH; i++) {
    const real *r0 = plane + 2 * i * W, *r1 = r0 + W;
    int64_t j = 0;
#if defined(TH_REAL_IS_FLOAT) && defined(THNN_HAVE_POOL_SIMD)
    if (H * W <= INT32_MAX) j = THNN_maxPool2x2RowFloat(r0, W, 2 * i * W, oW, y + i * oW,
                                                        ind + i * oW);
#endif
    for (; j < oW; j++) {
      const int64_t k = 2 * i * W + 2 * j;
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

int THNN_(SpatialDilatedMaxPooling_updateOutput)(THTensor *output, THLongTensor *indices,
                                                 THTensor *input, int64_t kH, int64_t kW,
                                                 int64_t sH, int64_t sW, int64_t padH,
                                                 int64_t padW, int64_t dilH, int64_t dilW,
                                                 int ceilMode) {
  const char *op = "max_pool2d()";
  int64_t oH, oW;
  THTry(THNN_(poolShape)(input, kH, kW, sH, sW, padH, padW, dilH, dilW, ceilMode, 1, &oH, &oW,
                         op), -1);
  THTry(THNN_(poolResult)(output, input, oH, oW, op), -1);
  const int64_t isize[4] = {input->size[0], input->size[1], oH, oW};
  THTry(THLongTensor_resize(indices, 4, isize), -1);
  THArgCheck(THLongTensor_isContiguous(indices), TH_ERR_RUNTIME, -1,
             "%s: the indices must be contiguous", op);
  THTensor *in = THTensor_(newContiguous)(input);
  if (!in) return -1;
  const int64_t planes = input->size[0] * input->size[1], H = input->size[2], W = input->size[3];
  const real *x = THTensor_(data)(in);
  real *y = THTensor_(data)(output);
  int64_t *ind = THLongTensor_data(indices);
  const int two = kH == 2 && kW == 2 && sH == 2 && sW == 2 && padH == 0 && padW == 0 &&
                  dilH == 1 && dilW == 1 && 2 * oH <= H && 2 * oW <= W;
  const int par = THParallel_worth(planes * oH * oW, (int64_t)sizeof(real) * kH * kW);
#pragma omp parallel for if (par)
  for (int64_t p = 0; p < planes; p++) {
    const real *plane = x + p * H * W;
    if (two) {
      THNN_(maxPool2x2)(plane, H, W, oH, oW, y + p * oH * oW, ind + p * oH * oW);
      continue;
    }
    for (int64_t i = 0; i < oH; i++) {
      int64_t h0 = i * sH - padH;
      const int64_t h1 = TH_MIN(h0 + (kH - 1) * dilH + 1, H);
      while (h0 < 0) h0 += dilH;
      for (int64_t j = 0; j < oW; j++) {
        int64_t w0 = j * sW - padW;
        const int64_t w1 = TH_MIN(w0 + (kW - 1) * dilW + 1, W);
        while (w0 < 0) w0 += dilW;
        int64_t best = h0 * W + w0;
        real m = -INFINITY;
        for (int64_t h = h0; h < h1; h += dilH)
          for (int64_t w = w0; w < w1; w += dilW)
            THNN_MAX_TAKE(m, best, plane[h * W + w], h * W + w);
        y[(p * oH + i) * oW + j] = m;
        ind[(p * oH + i) * oW + j] = best;
      }
    }
  }
  THTensor_(free)(in);
  return 0;
}

int THNN_(SpatialDilatedMaxPooling_updateGradInput)(THTensor *gradInput, THTensor *gradOutput,
                                                    THTensor *input, THLongTensor *indices) {
  const char *op = "max_pool2d()";
  THTry(THNN_(poolInput)(input, op), -1);
  THArgCheck(gradOutput->nDimension == 4, TH_ERR_RUNTIME, -1,
             "%s backward: expected a 4-D gradOutput", op);
  THArgCheck(indices->nDimension == 4 && indices->size[0] == gradOutput->size[0] &&
             indices->size[1] == gradOutput->size[1] && indices->size[2] == gradOutput->size[2] &&
             indices->size[3] == gradOutput->size[3], TH_ERR_RUNTIME, -1,
             "%s backward: indices and gradOutput have different shapes", op);
  THTry(THLongTensor_checkBounds(indices, op), -1);
  const int64_t oH = gradOutput->size[2], oW = gradOutput->size[3];
  THTry(THNN_(poolGradInput)(gradInput, gradOutput, input, oH, oW, op), -1);
  THTensor *go = THTensor_(newContiguous)(gradOutput);
  THLongTensor *ix = go ? THLongTensor_newContiguous(indices) : NULL;
  int rc = -1;
  if (!ix) goto done;
  const int64_t planes = input->size[0] * input->size[1], n = input->size[2] * input->size[3];
  const real *g = THTensor_(data)(go);
  const int64_t *ind = THLongTensor_data(ix);
  real *gi = THTensor_(data)(gradInput);
  int bad = 0;
  const int par = THParallel_worth(planes * oH * oW, (int64_t)sizeof(real) * 2);
#pragma omp parallel for if (par) reduction(| : bad)
  for (int64_t p = 0; p < planes; p++) {
    for (int64_t e = 0; e < oH * oW; e++) {
      const int64_t k = ind[p * oH * oW + e];
      if (k < 0 || k >= n) {
        bad = 1;
        continue;
      }
      gi[p * n + k] += g[p * oH * oW + e];
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

/* ---- average pooling ------------------------------------------------------------------------ */

/* The window of output cell (i, j), clipped to the plane, and its divisor. */
static void THNN_(avgWindow)(int64_t i, int64_t j, int64_t H, int64_t W, int64_t kH, int64_t kW,
                             int64_t sH, int64_t sW, int64_t padH, int64_t padW,
                             int countIncludePad, int64_t divisorOverride, int64_t *h0,
                             int64_t *h1, int64_t *w0, int64_t *w1, accreal *div) {
  *h0 = i * sH - padH;
  *w0 = j * sW - padW;
  *h1 = TH_MIN(*h0 + kH, H + padH);
  *w1 = TH_MIN(*w0 + kW, W + padW);
  const int64_t padded = (*h1 - *h0) * (*w1 - *w0);
  *h0 = TH_MAX(*h0, 0);
  *w0 = TH_MAX(*w0, 0);
  *h1 = TH_MIN(*h1, H);
  *w1 = TH_MIN(*w1, W);
  if (divisorOverride > 0)
    *div = (accreal)divisorOverride;
  else
    *div = (accreal)(countIncludePad ? padded : (*h1 - *h0) * (*w1 - *w0));
}

int THNN_(SpatialAveragePooling_updateOutput)(THTensor *output, THTensor *input, int64_t kH,
                                              int64_t kW, int64_t sH, int64_t sW, int64_t padH,
                                              int64_t padW, int ceilMode, int countIncludePad,
                                              int64_t divisorOverride) {
  const char *op = "avg_pool2d()";
  int64_t oH, oW;
  THArgCheck(divisorOverride >= 0, TH_ERR_RUNTIME, -1, "divisor must be not zero");
  THTry(THNN_(poolShape)(input, kH, kW, sH, sW, padH, padW, 1, 1, ceilMode, 0, &oH, &oW, op),
        -1);
  THTry(THNN_(poolResult)(output, input, oH, oW, op), -1);
  THTensor *in = THTensor_(newContiguous)(input);
  if (!in) return -1;
  const int64_t planes = input->size[0] * input->size[1], H = input->size[2], W = input->size[3];
  const real *x = THTensor_(data)(in);
  real *y = THTensor_(data)(output);
  const int par = THParallel_worth(planes * oH * oW, (int64_t)sizeof(real) * kH * kW);
#pragma omp parallel for if (par)
  for (int64_t p = 0; p < planes; p++) {
    const real *plane = x + p * H * W;
    for (int64_t i = 0; i < oH; i++) {
      for (int64_t j = 0; j < oW; j++) {
        int64_t h0, h1, w0, w1;
        accreal div, s = 0;
        THNN_(avgWindow)(i, j, H, W, kH, kW, sH, sW, padH, padW, countIncludePad,
                         divisorOverride, &h0, &h1, &w0, &w1, &div);
        for (int64_t h = h0; h < h1; h++)
          for (int64_t w = w0; w < w1; w++) s += plane[h * W + w];
        y[(p * oH + i) * oW + j] = (h0 >= h1 || w0 >= w1) ? 0 : (real)(s / div);
      }
    }
  }
  THTensor_(free)(in);
  return 0;
}

int THNN_(SpatialAveragePooling_updateGradInput)(THTensor *gradInput, THTensor *gradOutput,
                                                 THTensor *input, int64_t kH, int64_t kW,
                                                 int64_t sH, int64_t sW, int64_t padH,
                                                 int64_t padW, int ceilMode,
                                                 int countIncludePad, int64_t divisorOverride) {
  const char *op = "avg_pool2d()";
  int64_t oH, oW;
  THArgCheck(divisorOverride >= 0, TH_ERR_RUNTIME, -1, "divisor must be not zero");
  THTry(THNN_(poolShape)(input, kH, kW, sH, sW, padH, padW, 1, 1, ceilMode, 0, &oH, &oW, op),
        -1);
  THTry(THNN_(poolGradInput)(gradInput, gradOutput, input, oH, oW, op), -1);
  THTensor *go = THTensor_(newContiguous)(gradOutput);
  if (!go) return -1;
  const int64_t planes = input->size[0] * input->size[1], H = input->size[2], W = input->size[3];
  const real *g = THTensor_(data)(go);
  real *gi = THTensor_(data)(gradInput);
  const int par = THParallel_worth(planes * oH * oW, (int64_t)sizeof(real) * kH * kW);
#pragma omp parallel for if (par)
  for (int64_t p = 0; p < planes; p++) {
    real *plane = gi + p * H * W;
    for (int64_t i = 0; i < oH; i++) {
      for (int64_t j = 0; j < oW; j++) {
        int64_t h0, h1, w0, w1;
        accreal div;
        THNN_(avgWindow)(i, j, H, W, kH, kW, sH, sW, padH, padW, countIncludePad,
                         divisorOverride, &h0, &h1, &w0, &w1, &div);
        const real v = (real)(g[(p * oH + i) * oW + j] / div);
        for (int64_t h = h0; h < h1; h++)
          for (int64_t w = w0; w < w1; w++) plane[h * W + w] += v;
      }
    }
  }
  THTensor_(free)(go);
  return 0;
}

/* ---- adaptive average pooling --------------------------------------------------------------- */

int THNN_(SpatialAdaptiveAveragePooling_updateOutput)(THTensor *output, THTensor *input,
                                                      int64_t oH, int64_t oW) {
  const char *op = "adaptive_avg_pool2d()";
  THArgCheck(oH >= 0 && oW >= 0, TH_ERR_RUNTIME, -1,
             "%s: output size must be non-negative, got (%lld, %lld)", op, (long long)oH,
             (long long)oW);
  THTry(THNN_(poolInput)(input, op), -1);
  THTry(THNN_(poolResult)(output, input, oH, oW, op), -1);
  THTensor *in = THTensor_(newContiguous)(input);
  if (!in) return -1;
  const int64_t planes = input->size[0] * input->size[1], H = input->size[2], W = input->size[3];
  const real *x = THTensor_(data)(in);
  real *y = THTensor_(data)(output);
  const int par = THParallel_worth(planes * H * W, (int64_t)sizeof(real));
#pragma omp parallel for if (par)
  for (int64_t p = 0; p < planes; p++) {
    const real *plane = x + p * H * W;
    for (int64_t i = 0; i < oH; i++) {
      const int64_t h0 = i * H / oH, h1 = ((i + 1) * H + oH - 1) / oH;
      for (int64_t j = 0; j < oW; j++) {
        const int64_t w0 = j * W / oW, w1 = ((j + 1) * W + oW - 1) / oW;
        accreal s = 0;
        for (int64_t h = h0; h < h1; h++)
          for (int64_t w = w0; w < w1; w++) s += plane[h * W + w];
        y[(p * oH + i) * oW + j] = (real)(s / (accreal)((h1 - h0) * (w1 - w0)));
      }
    }
  }
  THTensor_(free)(in);
  return 0;
}

int THNN_(SpatialAdaptiveAveragePooling_updateGradInput)(THTensor *gradInput,
                                                         THTensor *gradOutput,
                                                         THTensor *input) {
  const char *op = "adaptive_avg_pool2d()";
  THTry(THNN_(poolInput)(input, op), -1);
  THArgCheck(gradOutput->nDimension == 4, TH_ERR_RUNTIME, -1,
             "%s backward: expected a 4-D gradOutput", op);
  const int64_t oH = gradOutput->size[2], oW = gradOutput->size[3];
  THTry(THNN_(poolGradInput)(gradInput, gradOutput, input, oH, oW, op), -1);
  THTensor *go = THTensor_(newContiguous)(gradOutput);
  if (!go) return -1;
  const int64_t planes = input->size[0] * input->size[1], H = input->size[2], W = input->size[3];
  const real *g = THTensor_(data)(go);
  real *gi = THTensor_(data)(gradInput);
  const int par = THParallel_worth(planes * H * W, (int64_t)sizeof(real) * 2);
#pragma omp parallel for if (par)
  for (int64_t p = 0; p < planes; p++) {
    real *plane = gi + p * H * W;
    for (int64_t i = 0; i < oH; i++) {
      const int64_t h0 = i * H / oH, h1 = ((i + 1) * H + oH - 1) / oH;
      for (int64_t j = 0; j < oW; j++) {
        const int64_t w0 = j * W / oW, w1 = ((j + 1) * W + oW - 1) / oW;
        const real v = (real)(g[(p * oH + i) * oW + j] / (accreal)((h1 - h0) * (w1 - w0)));
        for (int64_t h = h0; h < h1; h++)
          for (int64_t w = w0; w < w1; w++) plane[h * W + w] += v;
      }
    }
  }
  THTensor_(free)(go);
  return 0;
}

#endif
