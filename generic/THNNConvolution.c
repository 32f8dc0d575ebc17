#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THNNConvolution.c"
#else

/* Strategy (the geometry's words, image / grid / K, are lib/THNNConv.h's).
 *
 * Three products make both layers, forward and backward:
 *   A. grid  = W . im2col(image)          convolution forward, transposed grad-input
 *   B. image = col2im(W^T . grid)         convolution grad-input, transposed forward
 *   C. dW   += scale * grid . im2col(image)^T       weight gradient of both
 * im2col lays the K taps of each grid cell out as a column; col2im adds columns back onto the
 * pixels they came from (the adjoint). Each product is one GEMM per group over a *chunk* of
 * B samples side by side (columns K x B*L, L = grid cells of one sample): small images give
 * GEMMs wide enough for BLAS to run at speed; a chunk of one sample multiplies the tensor in
 * place, wider chunks gather / scatter the grid through a buffer. Chunks are split between
 * OpenMP threads (BLAS then runs on each thread alone); C sums each thread's gradient in a
 * buffer of its own and adds the buffers at the end. The columns live in the calling thread's
 * cached workspace. */

#define TH_NN_CHUNK_COLS 512          /* aim for chunks at least this many grid cells wide */
#define TH_NN_CHUNK_ELEMS ((int64_t)1 << 21) /* ... with columns of at most this many elements */

/* The grid cells of tap (i, j) that read inside the image: rows [*ya, *yb), columns
 * [*xa, *xb); x0 is the pixel column of grid column 0 (pixel column of x: x*sW + x0). */
static void THNN_(tapRange)(const THNNConvGeom *g, int64_t i, int64_t j, int64_t *ya,
                            int64_t *yb, int64_t *xa, int64_t *xb, int64_t *x0) {
  const int64_t H = g->imH, W = g->imW, sH = g->sH, sW = g->sW;
  const int64_t y0 = i * g->dilH - g->padT;
  *x0 = j * g->dilW - g->padL;
  *xa = *x0 >= 0 ? 0 : (-*x0 + sW - 1) / sW;
  *xb = TH_MIN(*x0 > W - 1 ? 0 : (W - 1 - *x0) / sW + 1, g->gridW);
  *xa = TH_MIN(*xa, *xb);
  *ya = y0 >= 0 ? 0 : (-y0 + sH - 1) / sH;
  *yb = TH_MIN(y0 > H - 1 ? 0 : (H - 1 - y0) / sH + 1, g->gridH);
  *ya = TH_MIN(*ya, *yb);
}

/* Whether a tap's rows of the grid and of the image line up end to end: unit strides and a grid
 * as wide as the image (the "same" convolution of small images). Then the grid rows
 * [ya, yb) of the tap are one shifted run of the image, read or written in one loop, and only
 * the columns a row shift wraps across (x < xa or x >= xb) need fixing. */
static int THNN_(tapRuns)(const THNNConvGeom *g) {
  return g->sH == 1 && g->sW == 1 && g->gridW == g->imW;
}

/* Zeroes the cells of rows [y0, y1) and columns [x0, x1) of a grid oW wide, down the columns:
 * the runs' fix-ups are a few cells each, and row-wise loops would become a memset call per
 * row (the compiler's loop idiom), which cost more than the copying itself. */
static void THNN_(zeroCells)(real *row, int64_t oW, int64_t y0, int64_t y1, int64_t x0,
                             int64_t x1) {
  for (int64_t x = x0; x < x1; x++)
    for (int64_t y = y0; y < y1; y++) row[y * oW + x] = 0;
}

/* Taps outermost, so each tap's range is found once per sample, not once per channel. */
static void THNN_(im2col)(const real *im, int64_t C, const THNNConvGeom *g, real *col,
                          int64_t ld) {
  const int64_t H = g->imH, W = g->imW, oH = g->gridH, oW = g->gridW, sW = g->sW;
  const int runs = THNN_(tapRuns)(g);
  for (int64_t i = 0; i < g->kH; i++) {
    for (int64_t j = 0; j < g->kW; j++) {
      int64_t ya, yb, xa, xb, x0;
      THNN_(tapRange)(g, i, j, &ya, &yb, &xa, &xb, &x0);
      const int64_t off = (i * g->dilH - g->padT) * W + x0; /* the run's shift (runs only) */
      for (int64_t c = 0; c < C; c++) {
        const real *plane = im + c * H * W;
        real *row = col + ((c * g->kH + i) * g->kW + j) * ld;
        if (runs && ya < yb) {
          /* grid cell t of rows [ya, yb) reads pixel t + off; the wrapped columns get 0 */
          const real *src = plane + off;
          for (int64_t t = ya * oW + xa; t < (yb - 1) * oW + xb; t++) row[t] = src[t];
          THNN_(zeroCells)(row, oW, 0, ya, 0, oW);
          THNN_(zeroCells)(row, oW, yb, oH, 0, oW);
          THNN_(zeroCells)(row, oW, ya, yb, 0, xa);
          THNN_(zeroCells)(row, oW, ya, yb, xb, oW);
          continue;
        }
        for (int64_t e = 0; e < ya * oW; e++) row[e] = 0;
        for (int64_t e = yb * oW; e < oH * oW; e++) row[e] = 0;
        for (int64_t y = ya; y < yb; y++) {
          const int64_t iy = y * g->sH - g->padT + i * g->dilH;
          real *dst = row + y * oW;
          const real *src = plane + iy * W;
          for (int64_t x = 0; x < xa; x++) dst[x] = 0;
          if (sW == 1) {
            for (int64_t x = xa; x < xb; x++) dst[x] = src[x + x0];
          } else {
            for (int64_t x = xa; x < xb; x++) dst[x] = src[x * sW + x0];
          }
          for (int64_t x = xb; x < oW; x++) dst[x] = 0;
        }
      }
    }
  }
}

/* The adjoint of im2col: im += the columns, each tap added to the pixel it was read from (a
 * pixel's taps in tap order, as before the taps went outermost). With tapRuns the columns are
 * modified: the wrapped cells are set to 0 and added as one run. */
static void THNN_(col2im)(real *col, int64_t ld, int64_t C, const THNNConvGeom *g, real *im) {
  const int64_t H = g->imH, W = g->imW, oW = g->gridW, sW = g->sW;
  const int runs = THNN_(tapRuns)(g);
  for (int64_t i = 0; i < g->kH; i++) {
    for (int64_t j = 0; j < g->kW; j++) {
      int64_t ya, yb, xa, xb, x0;
      THNN_(tapRange)(g, i, j, &ya, &yb, &xa, &xb, &x0);
      const int64_t off = (i * g->dilH - g->padT) * W + x0;
      for (int64_t c = 0; c < C; c++) {
        real *plane = im + c * H * W;
        real *row = col + ((c * g->kH + i) * g->kW + j) * ld;
        if (runs && ya < yb) {
          real *dst = plane + off;
          THNN_(zeroCells)(row, oW, ya, yb, 0, xa);
          THNN_(zeroCells)(row, oW, ya, yb, xb, oW);
          for (int64_t t = ya * oW + xa; t < (yb - 1) * oW + xb; t++) dst[t] += row[t];
          continue;
        }
        for (int64_t y = ya; y < yb; y++) {
          const int64_t iy = y * g->sH - g->padT + i * g->dilH;
          const real *src = row + y * oW;
          real *dst = plane + iy * W;
          for (int64_t x = xa; x < xb; x++) dst[x * sW + x0] += src[x];
        }
      }
    }
  }
}

/* The chunk width B and the thread count for a product over g (see the strategy). */
static int64_t THNN_(convChunk)(const THNNConvGeom *g, int nt) {
  const int64_t L = TH_MAX(g->gridH * g->gridW, 1);
  const int64_t K = TH_MAX(g->imC / g->groups * g->kH * g->kW, 1);
  int64_t b = (TH_NN_CHUNK_COLS + L - 1) / L;
  b = TH_MIN(b, (g->batch + nt - 1) / nt);
  b = TH_MIN(b, TH_NN_CHUNK_ELEMS / (K * L));
  return TH_MAX(b, 1);
}

static int THNN_(convThreads)(const THNNConvGeom *g) {
  const int64_t K = g->imC / g->groups * g->kH * g->kW;
  const int par = g->batch > 1 &&
      THParallel_worth(g->batch * g->gridC * g->gridH * g->gridW,
                       (int64_t)sizeof(real) * TH_MAX(K, 1));
  return par ? TH_MIN(THThreads_max(), (int)TH_MIN(g->batch, 1 << 20)) : 1;
}

/* The plan of a product over g: its sizes, threads and chunks, and its workspace (`extra` more
 * elements per thread when threaded); NULL with an error recorded on failure. */
static real *THNN_(convPlan)(THNNConvPlan *pl, const THNNConvGeom *g, int64_t extra,
                             int *owned) {
  pl->Cg = g->imC / g->groups;
  pl->Og = g->gridC / g->groups;
  pl->K = pl->Cg * g->kH * g->kW;
  pl->L = g->gridH * g->gridW;
  pl->plane = g->imH * g->imW;
  pl->nt = THNN_(convThreads)(g);
  pl->B = THNN_(convChunk)(g, pl->nt);
  pl->chunks = (g->batch + pl->B - 1) / pl->B;
  pl->cols = pl->K * pl->B * pl->L;
  pl->per = pl->cols + (pl->B > 1 ? pl->Og * pl->B * pl->L : 0) + (pl->nt > 1 ? extra : 0);
  int64_t n, bytes;
  if (THSize_mul(&n, pl->per, pl->nt) != 0 ||
      THSize_bytes(&bytes, "conv2d()", n, sizeof(real)) != 0) {
    THError_set(TH_ERR_MEMORY, "conv2d(): the workspace's size overflows");
    return NULL;
  }
  return THNN_workspaceTake((size_t)bytes, owned);
}

/* The grid rows of group grp for samples n0 .. n0+nb-1 as one (Og x nb*L) matrix: in place for
 * one sample, else gathered into tmp. */
static const real *THNN_(gridRows)(const THNNConvGeom *g, const real *grid, int64_t n0,
                                   int64_t nb, int64_t grp, real *tmp) {
  const int64_t L = g->gridH * g->gridW, Og = g->gridC / g->groups, ld = nb * L;
  if (nb == 1) return grid + (n0 * g->gridC + grp * Og) * L;
  for (int64_t b = 0; b < nb; b++)
    for (int64_t o = 0; o < Og; o++)
      memcpy(tmp + o * ld + b * L, grid + ((n0 + b) * g->gridC + grp * Og + o) * L,
             (size_t)L * sizeof(real));
  return tmp;
}

/* The columns of group grp for samples n0 .. n0+nb-1, side by side: (K x nb*L). */
static void THNN_(chunkCols)(const THNNConvGeom *g, const THNNConvPlan *pl, const real *im,
                             int64_t n0, int64_t nb, int64_t grp, real *cols) {
  for (int64_t b = 0; b < nb; b++)
    THNN_(im2col)(im + ((n0 + b) * g->imC + grp * pl->Cg) * pl->plane, pl->Cg, g,
                  cols + b * pl->L, nb * pl->L);
}

/* A. grid = W . im2col(image) (+ bias per grid channel) */
static int THNN_(convGridFromImage)(const THNNConvGeom *g, const real *im, const real *w,
                                    const real *bias, real *grid) {
  if (g->batch == 0 || g->gridH * g->gridW == 0 || g->gridC == 0) return 0;
  THNNConvPlan pl;
  int owned;
  real *ws = THNN_(convPlan)(&pl, g, 0, &owned);
  if (!ws) return -1;
  const int64_t L = pl.L, Og = pl.Og, K = pl.K;
#pragma omp parallel num_threads(pl.nt) if (pl.nt > 1)
  {
    const int tid = omp_get_thread_num(), nth = omp_get_num_threads();
    real *cols = ws + tid * pl.per, *tmp = cols + pl.cols;
    for (int64_t ch = tid; ch < pl.chunks; ch += nth) {
      const int64_t n0 = ch * pl.B, nb = TH_MIN(pl.B, g->batch - n0), ld = nb * L;
      for (int64_t grp = 0; grp < g->groups; grp++) {
        THNN_(chunkCols)(g, &pl, im, n0, nb, grp, cols);
        real *out = nb == 1 ? grid + (n0 * g->gridC + grp * Og) * L : tmp;
        if (K > 0)
          THBlas_(gemm)('n', 'n', ld, Og, K, 1, cols, ld, w + grp * Og * K, K, 0, out, ld);
        else
          for (int64_t e = 0; e < Og * ld; e++) out[e] = 0;
        /* scatter the chunk's rows to their samples (in place for one), adding the bias */
        for (int64_t b = 0; b < nb; b++) {
          for (int64_t o = 0; o < Og; o++) {
            real *dst = grid + ((n0 + b) * g->gridC + grp * Og + o) * L;
            const real *src = out + o * ld + b * L;
            const real add = bias ? bias[grp * Og + o] : 0;
            for (int64_t l = 0; l < L; l++) dst[l] = src[l] + add;
          }
        }
      }
    }
  }
  if (pl.nt > 1) THParallel_noteTeam(); /* its workers are awake now (lib/THBlas.c) */
  THNN_workspaceGive(ws, owned);
  return 0;
}

/* B. image = col2im(W^T . grid) (+ bias per image channel) */
static int THNN_(convImageFromGrid)(const THNNConvGeom *g, const real *grid, const real *w,
                                    const real *bias, real *im) {
  if (g->batch == 0 || g->imC == 0 || g->imH * g->imW == 0) return 0;
  THNNConvPlan pl;
  int owned;
  real *ws = THNN_(convPlan)(&pl, g, 0, &owned);
  if (!ws) return -1;
#pragma omp parallel num_threads(pl.nt) if (pl.nt > 1)
  {
    const int tid = omp_get_thread_num(), nth = omp_get_num_threads();
    real *cols = ws + tid * pl.per, *tmp = cols + pl.cols;
    for (int64_t ch = tid; ch < pl.chunks; ch += nth) {
      const int64_t n0 = ch * pl.B, nb = TH_MIN(pl.B, g->batch - n0), ld = nb * pl.L;
      for (int64_t c = 0; c < nb * g->imC; c++) {
        real *p = im + (n0 * g->imC + c) * pl.plane;
        const real v = bias ? bias[c % g->imC] : 0;
        for (int64_t e = 0; e < pl.plane; e++) p[e] = v;
      }
      if (pl.L == 0 || pl.Og == 0) continue;
      for (int64_t grp = 0; grp < g->groups; grp++) {
        const real *rows = THNN_(gridRows)(g, grid, n0, nb, grp, tmp);
        THBlas_(gemm)('n', 't', ld, pl.K, pl.Og, 1, rows, ld, w + grp * pl.Og * pl.K, pl.K, 0,
                      cols, ld);
        for (int64_t b = 0; b < nb; b++)
          THNN_(col2im)(cols + b * pl.L, ld, pl.Cg, g,
                        im + ((n0 + b) * g->imC + grp * pl.Cg) * pl.plane);
      }
    }
  }
  if (pl.nt > 1) THParallel_noteTeam(); /* its workers are awake now (lib/THBlas.c) */
  THNN_workspaceGive(ws, owned);
  return 0;
}

/* C. dW += scale * grid . im2col(image)^T; threads sum into buffers of their own, added at the
 * end. */
static int THNN_(convWeightGrad)(const THNNConvGeom *g, const real *grid, const real *im,
                                 real *gw, real scale) {
  const int64_t wn = g->gridC * (g->imC / g->groups) * g->kH * g->kW;
  if (g->batch == 0 || g->gridH * g->gridW == 0 || wn == 0) return 0;
  THNNConvPlan pl;
  int owned;
  real *ws = THNN_(convPlan)(&pl, g, wn, &owned);
  if (!ws) return -1;
  const int64_t accAt = pl.per - wn; /* a thread's buffer, within its slice */
  int used = 1;
#pragma omp parallel num_threads(pl.nt) if (pl.nt > 1)
  {
    const int tid = omp_get_thread_num(), nth = omp_get_num_threads();
    real *cols = ws + tid * pl.per, *tmp = cols + pl.cols;
    real *acc = gw;
    if (pl.nt > 1) {
      acc = ws + tid * pl.per + accAt;
      for (int64_t e = 0; e < wn; e++) acc[e] = 0;
    }
    if (tid == 0) used = nth;
    for (int64_t ch = tid; ch < pl.chunks; ch += nth) {
      const int64_t n0 = ch * pl.B, nb = TH_MIN(pl.B, g->batch - n0), ld = nb * pl.L;
      for (int64_t grp = 0; grp < g->groups; grp++) {
        THNN_(chunkCols)(g, &pl, im, n0, nb, grp, cols);
        const real *rows = THNN_(gridRows)(g, grid, n0, nb, grp, tmp);
        THBlas_(gemm)('t', 'n', pl.K, pl.Og, ld, scale, cols, ld, rows, ld, 1,
                      acc + grp * pl.Og * pl.K, pl.K);
      }
    }
  }
  if (pl.nt > 1) {
    for (int t = 0; t < used; t++) {
      const real *acc = ws + t * pl.per + accAt;
      for (int64_t e = 0; e < wn; e++) gw[e] += acc[e];
    }
  }
  if (pl.nt > 1) THParallel_noteTeam(); /* its workers are awake now (lib/THBlas.c) */
  THNN_workspaceGive(ws, owned);
  return 0;
}

/* Runs product (A or B) of src by weight (+ bias) into dst, on contiguous copies. */
static int THNN_(convRun)(int (*product)(const THNNConvGeom *, const real *, const real *,
                                         const real *, real *),
                          const THNNConvGeom *g, THTensor *src, THTensor *weight,
                          THTensor *bias, THTensor *dst) {
  THTensor *in = THTensor_(newContiguous)(src);
  THTensor *w = in ? THTensor_(newContiguous)(weight) : NULL;
  THTensor *b = w && bias ? THTensor_(newContiguous)(bias) : NULL;
  int rc = -1;
  if (w && (!bias || b))
    rc = product(g, THTensor_(data)(in), THTensor_(data)(w), b ? THTensor_(data)(b) : NULL,
                 THTensor_(data)(dst));
  THTensor_(free)(in);
  THTensor_(free)(w);
  THTensor_(free)(b);
  return rc;
}

/* ---- checks and the public verbs ------------------------------------------------------------ */

static int THNN_(convParams)(const char *op, int64_t sH, int64_t sW, int64_t padT, int64_t padL,
                             int64_t padB, int64_t padR, int64_t dilH, int64_t dilW,
                             int64_t groups) {
  THArgCheck(sH > 0 && sW > 0, TH_ERR_RUNTIME, -1, "%s: non-positive stride is not supported",
             op);
  THArgCheck(padT >= 0 && padL >= 0 && padB >= 0 && padR >= 0, TH_ERR_RUNTIME, -1,
             "%s: negative padding is not supported", op);
  THArgCheck(dilH > 0 && dilW > 0, TH_ERR_RUNTIME, -1,
             "%s: dilation should be greater than zero, but got [%lld, %lld]", op,
             (long long)dilH, (long long)dilW);
  THArgCheck(groups > 0, TH_ERR_RUNTIME, -1, "%s: non-positive groups is not supported", op);
  return 0;
}

/* A 4-D (N, C, H, W) tensor, and weight (gridC, imC / groups, kH, kW), bias (channels). */
static int THNN_(convTensors)(const char *op, THTensor *input, const char *what,
                              THTensor *weight, THTensor *bias, int64_t groups,
                              int transposed) {
  char a[TH_SIZE_STR_LEN], b[TH_SIZE_STR_LEN];
  THArgCheck(input->nDimension == 4, TH_ERR_RUNTIME, -1,
             "%s: expected a 4-D %s (N, C, H, W), got size %s", op, what,
             THSize_str(a, sizeof a, input->nDimension, input->size));
  THArgCheck(weight->nDimension == 4, TH_ERR_RUNTIME, -1,
             "%s: expected a 4-D weight, got size %s", op,
             THSize_str(a, sizeof a, weight->nDimension, weight->size));
  THArgCheck(weight->size[0] % groups == 0, TH_ERR_RUNTIME, -1,
             "Given groups=%lld, expected weight to be divisible by %lld at dimension 0, but "
             "got weight of size %s instead", (long long)groups, (long long)groups,
             THSize_str(a, sizeof a, weight->nDimension, weight->size));
  if (bias) {
    const int64_t nb = transposed ? weight->size[1] * groups : weight->size[0];
    THArgCheck(bias->nDimension == 1 && bias->size[0] == nb, TH_ERR_RUNTIME, -1,
               "Given weight of size %s, expected bias to be 1-dimensional with %lld elements, "
               "but got bias of size %s instead",
               THSize_str(a, sizeof a, weight->nDimension, weight->size), (long long)nb,
               THSize_str(b, sizeof b, bias->nDimension, bias->size));
    THTry(THTensor_(checkBounds)(bias, op), -1);
  }
  THTry(THTensor_(checkBounds)(input, op), -1);
  THTry(THTensor_(checkBounds)(weight, op), -1);
  return 0;
}

static int THNN_(convChannels)(THTensor *t, int64_t expect, THTensor *weight, int64_t groups,
                               int transposed) {
  char a[TH_SIZE_STR_LEN], b[TH_SIZE_STR_LEN];
  if (t->size[1] == expect) return 0;
  if (transposed)
    THError_set(TH_ERR_RUNTIME, "Given transposed=1, weight of size %s, expected input%s to "
                "have %lld channels, but got %lld channels instead",
                THSize_str(a, sizeof a, weight->nDimension, weight->size),
                THSize_str(b, sizeof b, t->nDimension, t->size), (long long)expect,
                (long long)t->size[1]);
  else
    THError_set(TH_ERR_RUNTIME, "Given groups=%lld, weight of size %s, expected input%s to have "
                "%lld channels, but got %lld channels instead", (long long)groups,
                THSize_str(a, sizeof a, weight->nDimension, weight->size),
                THSize_str(b, sizeof b, t->nDimension, t->size), (long long)expect,
                (long long)t->size[1]);
  return -1;
}

/* The geometry of a convolution of an image (N, imC, imH, imW) by weight; the grid's size is
 * the convolution's output size (RuntimeError when the dilated kernel exceeds the padded image). */
static int THNN_(convGeom)(THNNConvGeom *g, int64_t N, int64_t imC, int64_t imH, int64_t imW,
                           THTensor *weight, int64_t sH, int64_t sW, int64_t padT, int64_t padL,
                           int64_t padB, int64_t padR, int64_t dilH, int64_t dilW,
                           int64_t groups) {
  g->batch = N;
  g->groups = groups;
  g->imC = imC;
  g->imH = imH;
  g->imW = imW;
  g->gridC = weight->size[0];
  g->kH = weight->size[2];
  g->kW = weight->size[3];
  g->sH = sH;
  g->sW = sW;
  g->padT = padT;
  g->padL = padL;
  g->dilH = dilH;
  g->dilW = dilW;
  const int64_t pH = imH + padT + padB, pW = imW + padL + padR;
  const int64_t eH = dilH * (g->kH - 1) + 1, eW = dilW * (g->kW - 1) + 1;
  THArgCheck(pH >= eH && pW >= eW, TH_ERR_RUNTIME, -1,
             "Calculated padded input size per channel: (%lld x %lld). Kernel size: (%lld x "
             "%lld). Kernel size can't be greater than actual input size", (long long)pH,
             (long long)pW, (long long)eH, (long long)eW);
  g->gridH = (pH - eH) / sH + 1;
  g->gridW = (pW - eW) / sW + 1;
  return 0;
}

/* A fresh contiguous (N, C, H, W) result. */
static int THNN_(convResult)(THTensor *r, int64_t N, int64_t C, int64_t H, int64_t W,
                             const char *op) {
  const int64_t size[4] = {N, C, H, W};
  THTry(THTensor_(resize)(r, 4, size), -1);
  THArgCheck(THTensor_(isContiguous)(r), TH_ERR_RUNTIME, -1,
             "%s: the result must be contiguous", op);
  return 0;
}

/* gradWeight / gradBias to accumulate into: contiguous, of the parameter's shape. */
static int THNN_(convGradParams)(THTensor *gradWeight, THTensor *gradBias, int64_t nbias,
                                 const char *op) {
  if (gradWeight) {
    THArgCheck(gradWeight->nDimension == 4 && THTensor_(isContiguous)(gradWeight),
               TH_ERR_RUNTIME, -1, "%s: gradWeight must be a contiguous 4-D tensor", op);
  }
  if (gradBias) {
    THArgCheck(gradBias->nDimension == 1 && gradBias->size[0] == nbias &&
               THTensor_(isContiguous)(gradBias), TH_ERR_RUNTIME, -1,
               "%s: gradBias must be a contiguous 1-D tensor of %lld elements", op,
               (long long)nbias);
  }
  return 0;
}

/* gradBias += scale * the sum of t (N, C, H, W) over N, H and W */
static void THNN_(convBiasGrad)(real *gb, const real *t, int64_t N, int64_t C, int64_t plane,
                                real scale) {
  enum { LANES = 8 }; /* independent partial sums: the adds overlap instead of queueing */
  for (int64_t c = 0; c < C; c++) {
    accreal part[LANES] = {0};
    accreal s = 0;
    for (int64_t n = 0; n < N; n++) {
      const real *p = t + (n * C + c) * plane;
      int64_t e = 0;
      for (; e + LANES <= plane; e += LANES)
        for (int k = 0; k < LANES; k++) part[k] += p[e + k];
      for (; e < plane; e++) s += p[e];
    }
    for (int k = 0; k < LANES; k++) s += part[k];
    gb[c] += (real)(scale * s);
  }
}

int THNN_(SpatialConvolutionMM_updateOutput)(THTensor *output, THTensor *input, THTensor *weight,
                                             THTensor *bias, int64_t sH, int64_t sW,
                                             int64_t padT, int64_t padL, int64_t padB,
                                             int64_t padR, int64_t dilH, int64_t dilW,
                                             int64_t groups) {
  const char *op = "conv2d()";
  THNNConvGeom g;
  THTry(THNN_(convParams)(op, sH, sW, padT, padL, padB, padR, dilH, dilW, groups), -1);
  THTry(THNN_(convTensors)(op, input, "input", weight, bias, groups, 0), -1);
  THTry(THNN_(convChannels)(input, weight->size[1] * groups, weight, groups, 0), -1);
  THTry(THNN_(convGeom)(&g, input->size[0], input->size[1], input->size[2], input->size[3],
                        weight, sH, sW, padT, padL, padB, padR, dilH, dilW, groups), -1);
  THTry(THNN_(convResult)(output, g.batch, g.gridC, g.gridH, g.gridW, op), -1);
  return THNN_(convRun)(THNN_(convGridFromImage), &g, input, weight, bias, output);
}

int THNN_(SpatialConvolutionMM_updateGradInput)(THTensor *gradInput, THTensor *gradOutput,
                                                THTensor *weight, int64_t iH, int64_t iW,
                                                int64_t sH, int64_t sW, int64_t padT,
                                                int64_t padL, int64_t padB, int64_t padR,
                                                int64_t dilH, int64_t dilW, int64_t groups) {
  const char *op = "conv2d() backward";
  char a[TH_SIZE_STR_LEN];
  THNNConvGeom g;
  THTry(THNN_(convParams)(op, sH, sW, padT, padL, padB, padR, dilH, dilW, groups), -1);
  THTry(THNN_(convTensors)(op, gradOutput, "gradOutput", weight, NULL, groups, 0), -1);
  THArgCheck(iH >= 0 && iW >= 0, TH_ERR_RUNTIME, -1, "%s: negative input size", op);
  THTry(THNN_(convGeom)(&g, gradOutput->size[0], weight->size[1] * groups, iH, iW, weight, sH,
                        sW, padT, padL, padB, padR, dilH, dilW, groups), -1);
  THArgCheck(gradOutput->size[1] == g.gridC && gradOutput->size[2] == g.gridH &&
             gradOutput->size[3] == g.gridW, TH_ERR_RUNTIME, -1,
             "%s: expected gradOutput of size [%lld, %lld, %lld, %lld], got %s", op,
             (long long)g.batch, (long long)g.gridC, (long long)g.gridH, (long long)g.gridW,
             THSize_str(a, sizeof a, gradOutput->nDimension, gradOutput->size));
  THTry(THNN_(convResult)(gradInput, g.batch, g.imC, iH, iW, op), -1);
  return THNN_(convRun)(THNN_(convImageFromGrid), &g, gradOutput, weight, NULL, gradInput);
}

/* The shared half of both accGradParameters: grid (N, gridC, ...) and image tensors given. */
static int THNN_(convAccGrad)(THTensor *gradWeight, THTensor *gradBias, THTensor *grid,
                              THTensor *image, THTensor *biasOf, int64_t sH, int64_t sW,
                              int64_t padT, int64_t padL, int64_t padB, int64_t padR,
                              int64_t dilH, int64_t dilW, int64_t groups, double scale,
                              const char *op) {
  char a[TH_SIZE_STR_LEN], b[TH_SIZE_STR_LEN];
  THTry(THNN_(convParams)(op, sH, sW, padT, padL, padB, padR, dilH, dilW, groups), -1);
  THArgCheck(grid->nDimension == 4 && image->nDimension == 4, TH_ERR_RUNTIME, -1,
             "%s: expected 4-D gradOutput and input, got sizes %s and %s", op,
             THSize_str(a, sizeof a, grid->nDimension, grid->size),
             THSize_str(b, sizeof b, image->nDimension, image->size));
  THArgCheck(grid->size[0] == image->size[0], TH_ERR_RUNTIME, -1,
             "%s: gradOutput and input have different batch sizes (%lld and %lld)", op,
             (long long)grid->size[0], (long long)image->size[0]);
  THTry(THTensor_(checkBounds)(grid, op), -1);
  THTry(THTensor_(checkBounds)(image, op), -1);
  THTry(THNN_(convGradParams)(gradWeight, gradBias, biasOf->size[1], op), -1);
  THNNConvGeom g;
  if (gradWeight) {
    THArgCheck(gradWeight->size[0] == grid->size[1] && gradWeight->size[0] % groups == 0 &&
               gradWeight->size[1] * groups == image->size[1], TH_ERR_RUNTIME, -1,
               "%s: gradWeight of size %s does not fit %lld grid and %lld image channels in "
               "%lld groups", op, THSize_str(a, sizeof a, 4, gradWeight->size),
               (long long)grid->size[1], (long long)image->size[1], (long long)groups);
    THTry(THNN_(convGeom)(&g, image->size[0], image->size[1], image->size[2], image->size[3],
                          gradWeight, sH, sW, padT, padL, padB, padR, dilH, dilW, groups), -1);
    THArgCheck(grid->size[2] <= g.gridH && grid->size[3] <= g.gridW, TH_ERR_RUNTIME, -1,
               "%s: gradOutput of size %s does not fit input of size %s", op,
               THSize_str(a, sizeof a, 4, grid->size), THSize_str(b, sizeof b, 4, image->size));
    g.gridH = grid->size[2];
    g.gridW = grid->size[3];
  }
  THTensor *gt = THTensor_(newContiguous)(grid);
  THTensor *it = gt ? THTensor_(newContiguous)(image) : NULL;
  THTensor *bt = it ? THTensor_(newContiguous)(biasOf) : NULL;
  int rc = -1;
  if (!bt) goto done;
  if (gradWeight) {
    if (THNN_(convWeightGrad)(&g, THTensor_(data)(gt), THTensor_(data)(it),
                              THTensor_(data)(gradWeight), (real)scale) != 0)
      goto done;
  }
  if (gradBias)
    THNN_(convBiasGrad)(THTensor_(data)(gradBias), THTensor_(data)(bt), bt->size[0],
                        bt->size[1], bt->size[2] * bt->size[3], (real)scale);
  rc = 0;
done:
  THTensor_(free)(gt);
  THTensor_(free)(it);
  THTensor_(free)(bt);
  return rc;
}

int THNN_(SpatialConvolutionMM_accGradParameters)(THTensor *gradWeight, THTensor *gradBias,
                                                  THTensor *gradOutput, THTensor *input,
                                                  int64_t sH, int64_t sW, int64_t padT,
                                                  int64_t padL, int64_t padB, int64_t padR,
                                                  int64_t dilH, int64_t dilW, int64_t groups,
                                                  double scale) {
  return THNN_(convAccGrad)(gradWeight, gradBias, gradOutput, input, gradOutput, sH, sW, padT,
                            padL, padB, padR, dilH, dilW, groups, scale, "conv2d() backward");
}

int THNN_(SpatialFullDilatedConvolution_updateOutput)(THTensor *output, THTensor *input,
                                                      THTensor *weight, THTensor *bias,
                                                      int64_t sH, int64_t sW, int64_t padT,
                                                      int64_t padL, int64_t padB, int64_t padR,
                                                      int64_t dilH, int64_t dilW,
                                                      int64_t outPadH, int64_t outPadW,
                                                      int64_t groups) {
  const char *op = "conv_transpose2d()";
  THNNConvGeom g;
  THTry(THNN_(convParams)(op, sH, sW, padT, padL, padB, padR, dilH, dilW, groups), -1);
  THTry(THNN_(convTensors)(op, input, "input", weight, bias, groups, 1), -1);
  THTry(THNN_(convChannels)(input, weight->size[0], weight, groups, 1), -1);
  THArgCheck(outPadH >= 0 && outPadW >= 0 && (outPadH < sH || outPadH < dilH) &&
             (outPadW < sW || outPadW < dilW), TH_ERR_RUNTIME, -1,
             "output padding must be smaller than either stride or dilation, but got "
             "output_padding_height: %lld output_padding_width: %lld stride_height: %lld "
             "stride_width: %lld dilation_height: %lld dilation_width: %lld",
             (long long)outPadH, (long long)outPadW, (long long)sH, (long long)sW,
             (long long)dilH, (long long)dilW);
  const int64_t H = input->size[2], W = input->size[3];
  const int64_t oH = (H - 1) * sH - padT - padB + dilH * (weight->size[2] - 1) + outPadH + 1;
  const int64_t oW = (W - 1) * sW - padL - padR + dilW * (weight->size[3] - 1) + outPadW + 1;
  THArgCheck(oH > 0 && oW > 0, TH_ERR_RUNTIME, -1,
             "Given input size per channel: (%lld x %lld). Calculated output size per channel: "
             "(%lld x %lld). Output size is too small", (long long)H, (long long)W,
             (long long)oH, (long long)oW);
  g = (THNNConvGeom){input->size[0], groups, weight->size[1] * groups, oH, oW, weight->size[0],
                     H, W, weight->size[2], weight->size[3], sH, sW, padT, padL, dilH, dilW};
  THTry(THNN_(convResult)(output, g.batch, g.imC, oH, oW, op), -1);
  return THNN_(convRun)(THNN_(convImageFromGrid), &g, input, weight, bias, output);
}

int THNN_(SpatialFullDilatedConvolution_updateGradInput)(THTensor *gradInput,
                                                         THTensor *gradOutput, THTensor *weight,
                                                         int64_t iH, int64_t iW, int64_t sH,
                                                         int64_t sW, int64_t padT, int64_t padL,
                                                         int64_t padB, int64_t padR,
                                                         int64_t dilH, int64_t dilW,
                                                         int64_t groups) {
  const char *op = "conv_transpose2d() backward";
  THNNConvGeom g;
  THTry(THNN_(convParams)(op, sH, sW, padT, padL, padB, padR, dilH, dilW, groups), -1);
  THTry(THNN_(convTensors)(op, gradOutput, "gradOutput", weight, NULL, groups, 1), -1);
  THTry(THNN_(convChannels)(gradOutput, weight->size[1] * groups, weight, groups, 0), -1);
  THTry(THNN_(convGeom)(&g, gradOutput->size[0], gradOutput->size[1], gradOutput->size[2],
                        gradOutput->size[3], weight, sH, sW, padT, padL, padB, padR, dilH, dilW,
                        groups), -1);
  THArgCheck(iH >= 0 && iW >= 0 && iH <= g.gridH && iW <= g.gridW, TH_ERR_RUNTIME, -1,
             "%s: an input of size (%lld x %lld) does not fit an output of size (%lld x %lld)",
             op, (long long)iH, (long long)iW, (long long)gradOutput->size[2],
             (long long)gradOutput->size[3]);
  g.gridH = iH;
  g.gridW = iW;
  THTry(THNN_(convResult)(gradInput, g.batch, g.gridC, iH, iW, op), -1);
  return THNN_(convRun)(THNN_(convGridFromImage), &g, gradOutput, weight, NULL, gradInput);
}

int THNN_(SpatialFullDilatedConvolution_accGradParameters)(THTensor *gradWeight,
                                                           THTensor *gradBias,
                                                           THTensor *gradOutput,
                                                           THTensor *input, int64_t sH,
                                                           int64_t sW, int64_t padT,
                                                           int64_t padL, int64_t padB,
                                                           int64_t padR, int64_t dilH,
                                                           int64_t dilW, int64_t groups,
                                                           double scale) {
  return THNN_(convAccGrad)(gradWeight, gradBias, input, gradOutput, gradOutput, sH, sW, padT,
                            padL, padB, padR, dilH, dilW, groups, scale,
                            "conv_transpose2d() backward");
}

#endif
