#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THNNGridSampler.c"
#else

#include "THNNGrid.h"

/* How a point is sampled: each spatial axis on its own yields a few taps, an index into that
 * axis (-1: outside, reads 0 and takes no gradient) with a weight and the weight's derivative
 * in the point's normalised coordinate; the value is the sum over the taps' product. Bilinear
 * (trilinear) has two taps per axis, (1 - t, t) around floor(source); nearest one, the source
 * rounded half to even, weight 1; bicubic four, Keys' cubic convolution weights (A = -0.75)
 * around floor(source), as PyTorch's upsampling computes them. A 2-D sampling is a 3-D one
 * whose depth axis is one tap at index 0 of weight 1, so one kernel serves both.
 *
 * A point's source coordinate on an axis of `size` pixels follows PyTorch's formulas: the
 * normalised coordinate g unnormalised to ((g + 1) / 2) (size - 1) with align_corners, else
 * ((g + 1) size - 1) / 2; then 'border' clips it to [0, size - 1], 'reflection' reflects it
 * about the corner pixels' centres (align_corners) or the image's edges, then clips; 'zeros'
 * keeps it, and taps outside the input read 0. Bicubic unnormalises only; its taps are then
 * each mapped by the padding mode (a tap at -1 reflects to 0, or clips to 0).
 *
 * The forward splits the output rows (n, d, h) between threads; the backward splits the batch
 * (a sample's points scatter into its own input gradient only), both above the grain size. */

typedef struct {
  int64_t at[4];
  real w[4], dw[4];
  int n;
} THNN_(GridAxis);

/* g unnormalised onto an axis of size pixels; *d = its derivative in g. */
static inline real THNN_(gridUnnormalize)(real g, int64_t size, int alignCorners, real *d) {
  if (alignCorners) {
    *d = (real)(size - 1) / 2;
    return (g + 1) / 2 * (real)(size - 1);
  }
  *d = (real)size / 2;
  return ((g + 1) * (real)size - 1) / 2;
}

/* v clipped to [0, size - 1] (NaN to 0); *d = 1 strictly inside, else 0 (the borders count as
 * outside for the gradient, as in PyTorch). */
static inline real THNN_(gridClip)(real v, int64_t size, real *d) {
  const real hi = (real)(size - 1);
  *d = (v > 0 && v < hi) ? 1 : 0;
  return fmin(hi, fmax(v, (real)0));
}

/* v reflected into [twiceLow / 2, twiceHigh / 2] (bounds doubled so half pixels are integers);
 * *d = +-1, the sign the reflections leave. */
static inline real THNN_(gridReflect)(real v, int64_t twiceLow, int64_t twiceHigh, real *d) {
  if (twiceLow == twiceHigh) {
    *d = 0;
    return 0;
  }
  const real lo = (real)twiceLow / 2, span = (real)(twiceHigh - twiceLow) / 2;
  real sign = 1;
  v -= lo;
  if (v < 0) {
    sign = -1;
    v = -v;
  }
  const real extra = fmod(v, span), flips = floor(v / span);
  if (fmod(flips, (real)2) == 0) {
    *d = sign;
    return extra + lo;
  }
  *d = -sign;
  return span - extra + lo;
}

/* v mapped into the axis by the padding mode; *d = the derivative of that map. */
static inline real THNN_(gridPad)(real v, int64_t size, int paddingMode, int alignCorners,
                                  real *d) {
  real dr = 1, dc = 1;
  if (paddingMode == THNN_GRID_BORDER) {
    v = THNN_(gridClip)(v, size, &dc);
  } else if (paddingMode == THNN_GRID_REFLECTION) {
    v = alignCorners ? THNN_(gridReflect)(v, 0, 2 * (size - 1), &dr)
                     : THNN_(gridReflect)(v, -1, 2 * size - 1, &dr);
    v = THNN_(gridClip)(v, size, &dc);
  }
  *d = dr * dc;
  return v;
}

/* An integral-valued v as an index into [0, size), or -1 outside (NaN, infinities included). */
static inline int64_t THNN_(gridIndex)(real v, int64_t size) {
  return (v >= 0 && v < (real)size) ? (int64_t)v : -1;
}

/* Keys' cubic convolution weights of the taps at -1, 0, 1, 2 from a point t in [0, 1) past
 * tap 0, and their derivatives in t. */
static inline void THNN_(gridCubic)(real t, real *w, real *dw) {
  const real A = (real)-0.75;
  const real x0 = t + 1, x1 = t, x2 = 1 - t, x3 = 2 - t;
  w[0] = ((A * x0 - 5 * A) * x0 + 8 * A) * x0 - 4 * A;     /* 1 < |x| < 2 */
  w[1] = ((A + 2) * x1 - (A + 3)) * x1 * x1 + 1;           /* |x| <= 1 */
  w[2] = ((A + 2) * x2 - (A + 3)) * x2 * x2 + 1;
  w[3] = ((A * x3 - 5 * A) * x3 + 8 * A) * x3 - 4 * A;
  dw[0] = (3 * A * x0 - 10 * A) * x0 + 8 * A;
  dw[1] = (3 * (A + 2) * x1 - 2 * (A + 3)) * x1;
  dw[2] = -(3 * (A + 2) * x2 - 2 * (A + 3)) * x2;
  dw[3] = -((3 * A * x3 - 10 * A) * x3 + 8 * A);
}

/* The taps of normalised coordinate g on an axis of size pixels. */
static void THNN_(gridAxis)(THNN_(GridAxis) *a, real g, int64_t size, int mode, int paddingMode,
                            int alignCorners) {
  real du, dp;
  const real u = THNN_(gridUnnormalize)(g, size, alignCorners, &du);
  if (mode == THNN_GRID_NEAREST) {
    a->n = 1;
    a->at[0] = THNN_(gridIndex)(nearbyint(THNN_(gridPad)(u, size, paddingMode, alignCorners,
                                                           &dp)), size);
    a->w[0] = 1;
    a->dw[0] = 0;
  } else if (mode == THNN_GRID_BILINEAR) {
    const real v = THNN_(gridPad)(u, size, paddingMode, alignCorners, &dp);
    const real v0 = floor(v), t = v - v0;
    a->n = 2;
    a->at[0] = THNN_(gridIndex)(v0, size);
    a->at[1] = THNN_(gridIndex)(v0 + 1, size);
    a->w[0] = 1 - t;
    a->w[1] = t;
    a->dw[0] = -du * dp;
    a->dw[1] = du * dp;
  } else {
    const real v0 = floor(u);
    a->n = 4;
    THNN_(gridCubic)(u - v0, a->w, a->dw);
    for (int k = 0; k < 4; k++) {
      a->at[k] = THNN_(gridIndex)(THNN_(gridPad)(v0 - 1 + k, size, paddingMode, alignCorners,
                                                 &dp), size);
      a->dw[k] *= du;
    }
  }
}

/* The depth axis of a 2-D sampling: one tap at 0. */
static void THNN_(gridUnitAxis)(THNN_(GridAxis) *a) {
  a->n = 1;
  a->at[0] = 0;
  a->w[0] = 1;
  a->dw[0] = 0;
}

/* The three axes (depth, height, width) of the point whose coordinates start at gp. */
static void THNN_(gridPoint)(const THNNGridGeom *s, const real *gp, int mode, int paddingMode,
                             int alignCorners, THNN_(GridAxis) ax[3]) {
  THNN_(gridAxis)(&ax[2], gp[0], s->W, mode, paddingMode, alignCorners);
  THNN_(gridAxis)(&ax[1], gp[s->gsK], s->H, mode, paddingMode, alignCorners);
  if (s->nd == 3)
    THNN_(gridAxis)(&ax[0], gp[2 * s->gsK], s->D, mode, paddingMode, alignCorners);
  else
    THNN_(gridUnitAxis)(&ax[0]);
}

/* ---- argument checks ------------------------------------------------------------------------ */

static int THNN_(gridCheck)(THTensor *input, THTensor *grid, int nd, int mode, int paddingMode,
                            const char *op) {
  char a[TH_SIZE_STR_LEN], b[TH_SIZE_STR_LEN];
  THArgCheck(input->nDimension == nd + 2 && grid->nDimension == nd + 2, TH_ERR_RUNTIME, -1,
             "%s: expected %dD input and grid with same number of dimensions, but got input "
             "with sizes %s and grid with sizes %s", op, nd + 2,
             THSize_str(a, sizeof a, input->nDimension, input->size),
             THSize_str(b, sizeof b, grid->nDimension, grid->size));
  THArgCheck(input->size[0] == grid->size[0], TH_ERR_RUNTIME, -1,
             "%s: expected grid and input to have same batch size, but got input with sizes %s "
             "and grid with sizes %s", op, THSize_str(a, sizeof a, input->nDimension, input->size),
             THSize_str(b, sizeof b, grid->nDimension, grid->size));
  THArgCheck(grid->size[nd + 1] == nd, TH_ERR_RUNTIME, -1,
             "%s: expected grid to have size %d in last dimension, but got grid with sizes %s",
             op, nd, THSize_str(b, sizeof b, grid->nDimension, grid->size));
  for (int d = 2; d < nd + 2; d++)
    THArgCheck(input->size[d] > 0, TH_ERR_RUNTIME, -1,
               "%s: expected input to have non-empty spatial dimensions, but input has sizes %s "
               "with dimension %d being empty", op,
               THSize_str(a, sizeof a, input->nDimension, input->size), d);
  THArgCheck(mode == THNN_GRID_BILINEAR || mode == THNN_GRID_NEAREST ||
             (mode == THNN_GRID_BICUBIC && nd == 2), TH_ERR_RUNTIME, -1,
             "%s: interpolation mode %d is not one of bilinear (0), nearest (1)%s", op, mode,
             nd == 2 ? " or bicubic (2)" : " (bicubic interpolation only supports 4D input)");
  THArgCheck(paddingMode == THNN_GRID_ZEROS || paddingMode == THNN_GRID_BORDER ||
             paddingMode == THNN_GRID_REFLECTION, TH_ERR_RUNTIME, -1,
             "%s: padding mode %d is not one of zeros (0), border (1) or reflection (2)", op,
             paddingMode);
  THTry(THTensor_(checkBounds)(input, op), -1);
  return THTensor_(checkBounds)(grid, op);
}

/* The geometry of input and grid (and gradOutput's strides when given). */
static void THNN_(gridGeom)(THNNGridGeom *s, THTensor *input, THTensor *grid,
                            THTensor *gradOutput, int nd) {
  const int64_t *is = input->stride, *gs = grid->stride;
  s->nd = nd;
  s->N = input->size[0];
  s->C = input->size[1];
  s->D = nd == 3 ? input->size[2] : 1;
  s->H = input->size[nd];
  s->W = input->size[nd + 1];
  s->oD = nd == 3 ? grid->size[1] : 1;
  s->oH = grid->size[nd - 1];
  s->oW = grid->size[nd];
  s->isN = is[0];
  s->isC = is[1];
  s->isD = nd == 3 ? is[2] : 0;
  s->isH = is[nd];
  s->isW = is[nd + 1];
  s->gsN = gs[0];
  s->gsD = nd == 3 ? gs[1] : 0;
  s->gsH = gs[nd - 1];
  s->gsW = gs[nd];
  s->gsK = gs[nd + 1];
  if (gradOutput) {
    const int64_t *os = gradOutput->stride;
    s->osN = os[0];
    s->osC = os[1];
    s->osD = nd == 3 ? os[2] : 0;
    s->osH = os[nd];
    s->osW = os[nd + 1];
  }
}

/* ---- forward -------------------------------------------------------------------------------- */

static int THNN_(gridSampleOutput)(THTensor *output, THTensor *input, THTensor *grid, int nd,
                                   int mode, int paddingMode, int alignCorners, const char *op) {
  THTry(THNN_(gridCheck)(input, grid, nd, mode, paddingMode, op), -1);
  THNNGridGeom s;
  THNN_(gridGeom)(&s, input, grid, NULL, nd);
  int64_t size[5] = {s.N, s.C, s.oD, s.oH, s.oW};
  if (nd == 2) {
    size[2] = s.oH;
    size[3] = s.oW;
  }
  THTry(THTensor_(resize)(output, nd + 2, size), -1);
  THArgCheck(THTensor_(isContiguous)(output), TH_ERR_RUNTIME, -1,
             "%s: the result must be contiguous", op);
  if (THTensor_(nElement)(output) == 0) return 0;
  const real *x = THTensor_(data)(input), *g = THTensor_(data)(grid);
  real *y = THTensor_(data)(output);
  const int64_t rows = s.N * s.oD * s.oH, plane = s.oD * s.oH * s.oW;
  const int par = THParallel_worth(rows * s.oW * s.C,
                                   (int64_t)sizeof(real) * THNN_gridTaps(mode, nd));
#pragma omp parallel for if (par)
  for (int64_t r = 0; r < rows; r++) {
    const int64_t n = r / (s.oD * s.oH), d = r / s.oH % s.oD, h = r % s.oH;
    const real *gr = g + n * s.gsN + d * s.gsD + h * s.gsH;
    real *yr = y + n * s.C * plane + (d * s.oH + h) * s.oW;
    for (int64_t w = 0; w < s.oW; w++) {
      THNN_(GridAxis) ax[3];
      THNN_(gridPoint)(&s, gr + w * s.gsW, mode, paddingMode, alignCorners, ax);
      for (int64_t c = 0; c < s.C; c++) {
        const real *xc = x + n * s.isN + c * s.isC;
        accreal sum = 0;
        for (int k = 0; k < ax[0].n; k++) {
          for (int j = 0; j < ax[1].n; j++) {
            const real wkj = ax[0].w[k] * ax[1].w[j];
            const int rowIn = ax[0].at[k] >= 0 && ax[1].at[j] >= 0;
            const int64_t off = ax[0].at[k] * s.isD + ax[1].at[j] * s.isH;
            for (int i = 0; i < ax[2].n; i++) {
              /* a tap outside reads 0 but keeps its weight, so a NaN weight (a NaN or infinite
               * coordinate) gives NaN as in PyTorch */
              const real v = rowIn && ax[2].at[i] >= 0 ? xc[off + ax[2].at[i] * s.isW] : 0;
              sum += (accreal)(wkj * ax[2].w[i]) * v;
            }
          }
        }
        yr[c * plane + w] = (real)sum;
      }
    }
  }
  return 0;
}

/* ---- backward ------------------------------------------------------------------------------- */

static int THNN_(gridSampleGrad)(THTensor *gradInput, THTensor *gradGrid, THTensor *gradOutput,
                                 THTensor *input, THTensor *grid, int nd, int mode,
                                 int paddingMode, int alignCorners, const char *op) {
  char a[TH_SIZE_STR_LEN], b[TH_SIZE_STR_LEN];
  THTry(THNN_(gridCheck)(input, grid, nd, mode, paddingMode, op), -1);
  THNNGridGeom s;
  THNN_(gridGeom)(&s, input, grid, NULL, nd);
  const int64_t want[5] = {s.N, s.C, nd == 3 ? s.oD : s.oH, nd == 3 ? s.oH : s.oW, s.oW};
  int same = gradOutput->nDimension == nd + 2;
  for (int k = 0; same && k < nd + 2; k++) same = gradOutput->size[k] == want[k];
  THArgCheck(same, TH_ERR_RUNTIME, -1, "%s backward: expected gradOutput of size %s, got %s", op,
             THSize_str(a, sizeof a, nd + 2, want),
             THSize_str(b, sizeof b, gradOutput->nDimension, gradOutput->size));
  THTry(THTensor_(checkBounds)(gradOutput, op), -1);
  THNN_(gridGeom)(&s, input, grid, gradOutput, nd);
  if (gradInput) {
    THTry(THTensor_(resize)(gradInput, nd + 2, input->size), -1);
    THArgCheck(THTensor_(isContiguous)(gradInput), TH_ERR_RUNTIME, -1,
               "%s: the input gradient must be contiguous", op);
    THTry(THTensor_(zero)(gradInput), -1);
  }
  if (gradGrid) {
    THTry(THTensor_(resize)(gradGrid, nd + 2, grid->size), -1);
    THArgCheck(THTensor_(isContiguous)(gradGrid), TH_ERR_RUNTIME, -1,
               "%s: the grid gradient must be contiguous", op);
    THTry(THTensor_(zero)(gradGrid), -1);
  }
  /* checked: with an empty batch the grid's element count bounds nothing */
  int64_t points;
  THArgCheck(THSize_mul(&points, s.oD, s.oH) == 0 && THSize_mul(&points, points, s.oW) == 0,
             TH_ERR_RUNTIME, -1, "%s: the grid's size %s overflows int64", op,
             THSize_str(a, sizeof a, grid->nDimension, grid->size));
  if (s.N == 0 || s.C == 0 || points == 0) return 0;
  const real *x = THTensor_(data)(input), *g = THTensor_(data)(grid);
  const real *go = THTensor_(data)(gradOutput);
  real *gi = gradInput ? THTensor_(data)(gradInput) : NULL;
  real *gg = gradGrid ? THTensor_(data)(gradGrid) : NULL;
  const int wantGrid = gg != NULL && mode != THNN_GRID_NEAREST;
  const int64_t inPlane = s.D * s.H * s.W;
  const int par = s.N > 1 && THParallel_worth(s.N * points * s.C,
                                              (int64_t)sizeof(real) * 2 * THNN_gridTaps(mode, nd));
#pragma omp parallel for if (par)
  for (int64_t n = 0; n < s.N; n++) {
    for (int64_t q = 0; q < points; q++) {
      const int64_t d = q / (s.oH * s.oW), h = q / s.oW % s.oH, w = q % s.oW;
      THNN_(GridAxis) ax[3];
      THNN_(gridPoint)(&s, g + n * s.gsN + d * s.gsD + h * s.gsH + w * s.gsW, mode, paddingMode,
                       alignCorners, ax);
      accreal gx = 0, gy = 0, gz = 0;
      for (int64_t c = 0; c < s.C; c++) {
        const real gout = go[n * s.osN + c * s.osC + d * s.osD + h * s.osH + w * s.osW];
        const real *xc = x + n * s.isN + c * s.isC;
        real *gic = gi ? gi + (n * s.C + c) * inPlane : NULL;
        for (int k = 0; k < ax[0].n; k++) {
          if (ax[0].at[k] < 0) continue;
          for (int j = 0; j < ax[1].n; j++) {
            if (ax[1].at[j] < 0) continue;
            for (int i = 0; i < ax[2].n; i++) {
              if (ax[2].at[i] < 0) continue;
              if (gic)
                gic[(ax[0].at[k] * s.H + ax[1].at[j]) * s.W + ax[2].at[i]] +=
                    ax[0].w[k] * ax[1].w[j] * ax[2].w[i] * gout;
              if (wantGrid) {
                const real v =
                    xc[ax[0].at[k] * s.isD + ax[1].at[j] * s.isH + ax[2].at[i] * s.isW] * gout;
                gx += (accreal)(v * ax[0].w[k] * ax[1].w[j] * ax[2].dw[i]);
                gy += (accreal)(v * ax[0].w[k] * ax[1].dw[j] * ax[2].w[i]);
                gz += (accreal)(v * ax[0].dw[k] * ax[1].w[j] * ax[2].w[i]);
              }
            }
          }
        }
      }
      if (wantGrid) {
        real *ggp = gg + (n * points + q) * nd;
        ggp[0] = (real)gx;
        ggp[1] = (real)gy;
        if (nd == 3) ggp[2] = (real)gz;
      }
    }
  }
  return 0;
}

/* ---- the THNN entry points ------------------------------------------------------------------ */

int THNN_(SpatialGridSampler_updateOutput)(THTensor *output, THTensor *input, THTensor *grid,
                                           int mode, int paddingMode, int alignCorners) {
  return THNN_(gridSampleOutput)(output, input, grid, 2, mode, paddingMode, alignCorners,
                                 "grid_sampler()");
}

int THNN_(SpatialGridSampler_updateGradInput)(THTensor *gradInput, THTensor *gradGrid,
                                              THTensor *gradOutput, THTensor *input,
                                              THTensor *grid, int mode, int paddingMode,
                                              int alignCorners) {
  return THNN_(gridSampleGrad)(gradInput, gradGrid, gradOutput, input, grid, 2, mode,
                               paddingMode, alignCorners, "grid_sampler()");
}

int THNN_(VolumetricGridSampler_updateOutput)(THTensor *output, THTensor *input, THTensor *grid,
                                              int mode, int paddingMode, int alignCorners) {
  return THNN_(gridSampleOutput)(output, input, grid, 3, mode, paddingMode, alignCorners,
                                 "grid_sampler()");
}

int THNN_(VolumetricGridSampler_updateGradInput)(THTensor *gradInput, THTensor *gradGrid,
                                                 THTensor *gradOutput, THTensor *input,
                                                 THTensor *grid, int mode, int paddingMode,
                                                 int alignCorners) {
  return THNN_(gridSampleGrad)(gradInput, gradGrid, gradOutput, input, grid, 3, mode,
                               paddingMode, alignCorners, "grid_sampler()");
}

#endif
