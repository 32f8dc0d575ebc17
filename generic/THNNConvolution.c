#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THNNConvolution.c"
#else

/* Strategy (the geometry's words, image / grid / K, are lib/THNNConv.h's).
 *
 * Three products make both layers, forward and backward, in 2-D and 3-D alike (a 2-D
 * convolution is a 3-D one of depth 1):
 *   A. grid  = W . vol2col(image)          convolution forward, transposed grad-input
 *   B. image = col2vol(W^T . grid)         convolution grad-input, transposed forward
 *   C. dW   += scale * grid . vol2col(image)^T       weight gradient of both
 * vol2col (TH's im2col with a depth) lays the K taps of each grid cell out as a column, one
 * depth slice of the grid after another, each slice as im2col lays out a 2-D grid; col2vol adds
 * columns back onto the voxels they came from (the adjoint). Each product is one GEMM per group
 * over a *chunk* of B samples side by side (columns K x B*L, L = grid cells of one sample):
 * small images give GEMMs wide enough for BLAS to run at speed; a chunk of one sample
 * multiplies the tensor in place, wider chunks gather / scatter the grid through a buffer.
 * A sample whose columns alone are large (K x L above TH_NN_BAND_ELEMS, a 2-D grid) is taken
 * in *bands* of grid rows instead: the columns of R rows, then their product, so that the
 * columns stay in the core's cache between being written and being read by BLAS (a band of
 * rows r0.. is the convolution of the same image with gridH = R and padT - r0 * sH). Chunks, and
 * the bands of a sample too (for B, of a batch of one), are split between OpenMP threads (BLAS
 * then runs on each thread alone); C sums each thread's gradient in a buffer of its own and adds
 * the buffers at the end, and so does B for one sample, whose bands add into overlapping image
 * rows.
 * The columns live in the calling thread's cached workspace. */

#define TH_NN_CHUNK_COLS 512          /* aim for chunks at least this many grid cells wide */
#define TH_NN_CHUNK_ELEMS ((int64_t)1 << 21) /* ... with columns of at most this many elements */
#define TH_NN_BAND_ELEMS ((int64_t)1 << 17)  /* a sample's columns above this go in bands */

/* Grid cells, image voxels (per channel) and kernel taps of a geometry. */
static int64_t THNN_(gridCells)(const THNNConvGeom *g) {
  return g->gridD * g->gridH * g->gridW;
}

static int64_t THNN_(imVoxels)(const THNNConvGeom *g) { return g->imD * g->imH * g->imW; }

static int64_t THNN_(taps)(const THNNConvGeom *g) { return g->kD * g->kH * g->kW; }

/* The positions [*a, *b) of a grid m long whose position t reads image pixel t*s + o inside an
 * image n long (one dimension of a tap's reach). Unit strides, the usual case and every depth
 * of a 2-D call, divide by nothing (a division costs more than the rest together). */
static void THNN_(tapSpan)(int64_t o, int64_t s, int64_t n, int64_t m, int64_t *a, int64_t *b) {
  if (s == 1) {
    *a = o >= 0 ? 0 : -o;
    *b = TH_MIN(o > n - 1 ? 0 : n - o, m);
  } else {
    *a = o >= 0 ? 0 : (-o - 1) / s + 1; /* ceil(-o / s), with no sum that could overflow */
    *b = TH_MIN(o > n - 1 ? 0 : (n - 1 - o) / s + 1, m);
  }
  *a = TH_MIN(*a, *b);
}

/* The reach of every tap (a, i, j) of g, in tap order, into taps: which grid cells read inside
 * the image, and where. */
static void THNN_(tapsFill)(const THNNConvGeom *g, THNNConvTap *taps) {
  THNNConvTap *t = taps;
  for (int64_t a = 0; a < g->kD; a++) {
    for (int64_t i = 0; i < g->kH; i++) {
      for (int64_t j = 0; j < g->kW; j++, t++) {
        t->z0 = a * g->dilD - g->padF;
        t->y0 = i * g->dilH - g->padT;
        t->x0 = j * g->dilW - g->padL;
        THNN_(tapSpan)(t->z0, g->sD, g->imD, g->gridD, &t->za, &t->zb);
        THNN_(tapSpan)(t->y0, g->sH, g->imH, g->gridH, &t->ya, &t->yb);
        THNN_(tapSpan)(t->x0, g->sW, g->imW, g->gridW, &t->xa, &t->xb);
      }
    }
  }
}

/* Whether a tap's rows of the grid and of the image line up end to end within a depth slice:
 * unit strides in height and width and a grid as wide as the image (the "same" convolution of
 * small images). Then the grid rows [ya, yb) of the tap are one shifted run of the image slice,
 * read or written in one loop, and only the columns a row shift wraps across (x < xa or
 * x >= xb) need fixing. */
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

/* The columns of one tap over one depth slice of the grid, for C channels: channel c's row is
 * row + c*rstride (gridH x gridW cells), read from the image slice the tap reaches in channel c,
 * plane + c*vol. This is TH's im2col of one tap; a 2-D convolution has one slice. */
static void THNN_(im2colSlice)(const real *plane, int64_t vol, int64_t C, const THNNConvGeom *g,
                               const THNNConvTap *t, int runs, real *row, int64_t rstride) {
  const int64_t W = g->imW, oH = g->gridH, oW = g->gridW, sH = g->sH, sW = g->sW;
  const int64_t ya = t->ya, yb = t->yb, xa = t->xa, xb = t->xb, x0 = t->x0, y0 = t->y0;
  for (int64_t c = 0; c < C; c++, plane += vol, row += rstride) {
    if (runs && ya < yb && xa < xb) {
      /* grid cell e of rows [ya, yb) reads pixel e + (y0 * W + x0); the wrapped columns get 0.
       * A tap with no column inside the image (xa == xb: a kernel wider than the padded
       * image) would run from outside the plane: it takes the loops below, which write 0. */
      const real *src = plane + (y0 * W + x0);
      for (int64_t e = ya * oW + xa; e < (yb - 1) * oW + xb; e++) row[e] = src[e];
      THNN_(zeroCells)(row, oW, 0, ya, 0, oW);
      THNN_(zeroCells)(row, oW, yb, oH, 0, oW);
      THNN_(zeroCells)(row, oW, ya, yb, 0, xa);
      THNN_(zeroCells)(row, oW, ya, yb, xb, oW);
      continue;
    }
    for (int64_t e = 0; e < ya * oW; e++) row[e] = 0;
    for (int64_t e = yb * oW; e < oH * oW; e++) row[e] = 0;
    for (int64_t y = ya; y < yb; y++) {
      real *dst = row + y * oW;
      const real *src = plane + (y * sH + y0) * W;
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

/* The columns (K x ld, a column per grid cell) of C channels of an image: row (c, a, i, j)
 * holds what tap (a, i, j) of channel c reads for every grid cell, 0 outside the image. Taps
 * outermost (their reach, `taps`, found once per product), then the depth slices the tap reads
 * inside the image, each laid out as im2col lays out a 2-D grid, then the channels. */
static void THNN_(vol2col)(const real *im, int64_t C, const THNNConvGeom *g,
                           const THNNConvTap *taps, real *col, int64_t ld) {
  const int64_t HW = g->imH * g->imW, vol = g->imD * HW;
  const int64_t oHW = g->gridH * g->gridW, oL = g->gridD * oHW, nTaps = THNN_(taps)(g);
  const int64_t rstride = nTaps * ld; /* from a channel's row to the next's */
  const int runs = THNN_(tapRuns)(g);
  for (int64_t k = 0; k < nTaps; k++) {
    const THNNConvTap *t = taps + k;
    real *row = col + k * ld;
    if (t->za > 0 || t->zb < g->gridD) { /* slices reading outside the image in depth */
      for (int64_t c = 0; c < C; c++) {
        real *r = row + c * rstride;
        for (int64_t e = 0; e < t->za * oHW; e++) r[e] = 0;
        for (int64_t e = t->zb * oHW; e < oL; e++) r[e] = 0;
      }
    }
    for (int64_t z = t->za; z < t->zb; z++)
      THNN_(im2colSlice)(im + (z * g->sD + t->z0) * HW, vol, C, g, t, runs, row + z * oHW,
                         rstride);
  }
}

/* col2vol over one tap and depth slice for C channels (im2colSlice's adjoint, same
 * arguments): plane += the slice's columns. With tapRuns the columns are modified: the
 * wrapped cells are set to 0 and added as one run. */
static void THNN_(col2imSlice)(real *row, int64_t rstride, int64_t C, const THNNConvGeom *g,
                               const THNNConvTap *t, int runs, real *plane, int64_t vol) {
  const int64_t W = g->imW, oW = g->gridW, sH = g->sH, sW = g->sW;
  const int64_t ya = t->ya, yb = t->yb, xa = t->xa, xb = t->xb, x0 = t->x0, y0 = t->y0;
  for (int64_t c = 0; c < C; c++, plane += vol, row += rstride) {
    if (runs && ya < yb && xa < xb) { /* (as in im2colSlice: a tap with columns inside) */
      real *dst = plane + (y0 * W + x0);
      THNN_(zeroCells)(row, oW, ya, yb, 0, xa);
      THNN_(zeroCells)(row, oW, ya, yb, xb, oW);
      for (int64_t e = ya * oW + xa; e < (yb - 1) * oW + xb; e++) dst[e] += row[e];
      continue;
    }
    for (int64_t y = ya; y < yb; y++) {
      const real *src = row + y * oW;
      real *dst = plane + (y * sH + y0) * W;
      for (int64_t x = xa; x < xb; x++) dst[x * sW + x0] += src[x];
    }
  }
}

/* The adjoint of vol2col: im += the columns, each tap added to the voxel it was read from (a
 * voxel's taps in tap order). */
static void THNN_(col2vol)(real *col, int64_t ld, int64_t C, const THNNConvGeom *g,
                           const THNNConvTap *taps, real *im) {
  const int64_t HW = g->imH * g->imW, vol = g->imD * HW, oHW = g->gridH * g->gridW;
  const int64_t nTaps = THNN_(taps)(g), rstride = nTaps * ld;
  const int runs = THNN_(tapRuns)(g);
  for (int64_t k = 0; k < nTaps; k++) {
    const THNNConvTap *t = taps + k;
    for (int64_t z = t->za; z < t->zb; z++)
      THNN_(col2imSlice)(col + k * ld + z * oHW, rstride, C, g, t, runs,
                         im + (z * g->sD + t->z0) * HW, vol);
  }
}

/* Checks every product of g's sizes that the plan and the products below make (kernel taps,
 * grid cells and image voxels per channel, the columns K and K L of one sample, the grid and
 * image elements of the batch), once, before any of them is formed: a weight or a batch with
 * no elements can carry sizes whose products overflow. RuntimeError when one does. */
static int THNN_(convCounts)(const THNNConvGeom *g) {
  int64_t taps, cells, voxels, k, v;
  int ok = THSize_mul(&taps, g->kD, g->kH) == 0 && THSize_mul(&taps, taps, g->kW) == 0 &&
           THSize_mul(&cells, g->gridD, g->gridH) == 0 &&
           THSize_mul(&cells, cells, g->gridW) == 0 &&
           THSize_mul(&voxels, g->imD, g->imH) == 0 && THSize_mul(&voxels, voxels, g->imW) == 0 &&
           THSize_mul(&k, g->imC / g->groups, taps) == 0 &&
           THSize_mul(&v, TH_MAX(k, 1), TH_MAX(cells, 1)) == 0 &&
           THSize_mul(&v, TH_MAX(k, 1), (int64_t)sizeof(real)) == 0 &&
           THSize_mul(&v, g->batch, g->gridC) == 0 && THSize_mul(&v, v, cells) == 0 &&
           THSize_mul(&v, g->batch, g->imC) == 0 && THSize_mul(&v, v, voxels) == 0;
  THArgCheck(ok, TH_ERR_RUNTIME, -1,
             "convolution: the sizes overflow int64 (batch %lld, %lld image channels of "
             "%lld x %lld x %lld, %lld grid channels of %lld x %lld x %lld, kernel "
             "%lld x %lld x %lld)", (long long)g->batch, (long long)g->imC, (long long)g->imD,
             (long long)g->imH, (long long)g->imW, (long long)g->gridC, (long long)g->gridD,
             (long long)g->gridH, (long long)g->gridW, (long long)g->kD, (long long)g->kH,
             (long long)g->kW);
  return 0;
}

/* The chunk width B for a product over g on nt threads (see the strategy). */
static int64_t THNN_(convChunk)(const THNNConvGeom *g, int nt) {
  const int64_t L = TH_MAX(THNN_(gridCells)(g), 1);
  const int64_t K = TH_MAX(g->imC / g->groups * THNN_(taps)(g), 1);
  int64_t b = (TH_NN_CHUNK_COLS + L - 1) / L;
  b = TH_MIN(b, (g->batch + nt - 1) / nt);
  b = TH_MIN(b, TH_NN_CHUNK_ELEMS / (K * L));
  return TH_MAX(b, 1);
}

/* The threads a product over g is worth, before its work is cut into items. */
static int THNN_(convThreads)(const THNNConvGeom *g) {
  const int64_t K = g->imC / g->groups * THNN_(taps)(g);
  return THParallel_worth(g->batch * g->gridC * THNN_(gridCells)(g),
                          (int64_t)sizeof(real) * TH_MAX(K, 1)) ? THThreads_max() : 1;
}

/* Band `band` of the plan's grid rows as a geometry of its own (gb: gridH the band's rows, the
 * top padding moved up by the rows before it); returns the grid cells before the band. */
static int64_t THNN_(bandGeom)(const THNNConvGeom *g, const THNNConvPlan *pl, int64_t band,
                               THNNConvGeom *gb) {
  const int64_t r0 = band * pl->R;
  *gb = *g;
  gb->gridH = TH_MIN(pl->R, g->gridH - r0);
  gb->padT = g->padT - r0 * g->sH;
  return r0 * g->gridW;
}

/* The plan of a product over g: its sizes, threads, chunks and bands (split between threads
 * when `bandsSplit`), and its workspace (`extra` more elements per thread when threaded); NULL
 * with an error recorded on failure. */
static real *THNN_(convPlan)(THNNConvPlan *pl, const THNNConvGeom *g, int64_t extra,
                             int bandsSplit, int *owned) {
  if (THNN_(convCounts)(g) != 0) return NULL;
  pl->Cg = g->imC / g->groups;
  pl->Og = g->gridC / g->groups;
  pl->K = pl->Cg * THNN_(taps)(g);
  pl->L = THNN_(gridCells)(g);
  pl->plane = THNN_(imVoxels)(g);
  const int most = THNN_(convThreads)(g);
  pl->B = THNN_(convChunk)(g, most);
  pl->chunks = (g->batch + pl->B - 1) / pl->B;
  pl->R = g->gridH;
  if (pl->B == 1 && g->gridD == 1 && g->gridH > 1 && pl->K * pl->L > TH_NN_BAND_ELEMS)
    pl->R = TH_MAX(TH_NN_BAND_ELEMS / (pl->K * g->gridW), 1);
  pl->bands = g->gridH > 0 ? (g->gridH + pl->R - 1) / pl->R : 1;
  const int64_t items = bandsSplit ? pl->chunks * pl->bands : pl->chunks;
  pl->nt = (int)TH_MIN((int64_t)most, TH_MAX(items, 1));
  const int64_t band = pl->bands > 1 ? pl->R * g->gridW : pl->L; /* grid cells of a band */
  pl->cols = pl->K * pl->B * band;
  pl->per = pl->cols + (pl->B > 1 ? pl->Og * pl->B * pl->L : 0) + (pl->nt > 1 ? extra : 0);
  int64_t n, bytes;
  if (THSize_mul(&n, pl->per, pl->nt) != 0 ||
      THSize_bytes(&bytes, "convolution", n, sizeof(real)) != 0) {
    THError_set(TH_ERR_MEMORY, "convolution: the workspace's size overflows");
    return NULL;
  }
  const int64_t nTaps = THNN_(taps)(g);
  pl->taps = THAllocArray("convolution", pl->bands * nTaps, sizeof *pl->taps);
  if (!pl->taps) return NULL;
  for (int64_t b = 0; b < pl->bands; b++) {
    THNNConvGeom gb;
    THNN_(bandGeom)(g, pl, b, &gb);
    THNN_(tapsFill)(&gb, pl->taps + b * nTaps);
  }
  real *ws = THNN_workspaceTake((size_t)bytes, owned);
  if (!ws) THFree(pl->taps);
  return ws;
}

/* Gives back what convPlan took. */
static void THNN_(planGive)(THNNConvPlan *pl, real *ws, int owned) {
  THFree(pl->taps);
  THNN_workspaceGive(ws, owned);
}

/* The grid rows of group grp for samples n0 .. n0+nb-1 from cell `off` on as one matrix of Og
 * rows, its row stride in *ld: in place for one sample, else (whole grids: a chunk of several
 * samples has one band) gathered into tmp. */
static const real *THNN_(gridRows)(const THNNConvGeom *g, const real *grid, int64_t n0,
                                   int64_t nb, int64_t off, int64_t grp, real *tmp,
                                   int64_t *ld) {
  const int64_t L = THNN_(gridCells)(g), Og = g->gridC / g->groups;
  if (nb == 1) {
    *ld = L;
    return grid + (n0 * g->gridC + grp * Og) * L + off;
  }
  *ld = nb * L;
  for (int64_t b = 0; b < nb; b++)
    for (int64_t o = 0; o < Og; o++)
      memcpy(tmp + o * *ld + b * L, grid + ((n0 + b) * g->gridC + grp * Og + o) * L,
             (size_t)L * sizeof(real));
  return tmp;
}

/* The columns of group grp for samples n0 .. n0+nb-1 over band gb (taps its reach), side by
 * side: (K x nb*Lb). */
static void THNN_(chunkCols)(const THNNConvGeom *gb, const THNNConvPlan *pl,
                             const THNNConvTap *taps, const real *im, int64_t n0, int64_t nb,
                             int64_t grp, real *cols) {
  const int64_t Lb = THNN_(gridCells)(gb);
  for (int64_t b = 0; b < nb; b++)
    THNN_(vol2col)(im + ((n0 + b) * gb->imC + grp * pl->Cg) * pl->plane, pl->Cg, gb, taps,
                   cols + b * Lb, nb * Lb);
}

/* A. grid = W . vol2col(image) (+ bias per grid channel) */
static int THNN_(convGridFromImage)(const THNNConvGeom *g, const real *im, const real *w,
                                    const real *bias, real *grid) {
  if (g->batch == 0 || THNN_(gridCells)(g) == 0 || g->gridC == 0) return 0;
  THNNConvPlan pl;
  int owned;
  real *ws = THNN_(convPlan)(&pl, g, 0, 1, &owned);
  if (!ws) return -1;
  const int64_t L = pl.L, Og = pl.Og, K = pl.K, nTaps = THNN_(taps)(g);
#pragma omp parallel num_threads(pl.nt) if (pl.nt > 1)
  {
    const int tid = omp_get_thread_num(), nth = omp_get_num_threads();
    real *cols = ws + tid * pl.per, *tmp = cols + pl.cols;
    for (int64_t it = tid; it < pl.chunks * pl.bands; it += nth) {
      const int64_t ch = it / pl.bands, band = it % pl.bands;
      const int64_t n0 = ch * pl.B, nb = TH_MIN(pl.B, g->batch - n0);
      THNNConvGeom gb;
      const int64_t off = THNN_(bandGeom)(g, &pl, band, &gb), Lb = THNN_(gridCells)(&gb);
      const int64_t ld = nb * Lb, ldo = nb == 1 ? L : ld;
      for (int64_t grp = 0; grp < g->groups; grp++) {
        THNN_(chunkCols)(&gb, &pl, pl.taps + band * nTaps, im, n0, nb, grp, cols);
        real *out = nb == 1 ? grid + (n0 * g->gridC + grp * Og) * L + off : tmp;
        if (K > 0)
          THBlas_(gemm)('n', 'n', ld, Og, K, 1, cols, ld, w + grp * Og * K, K, 0, out, ldo);
        else
          for (int64_t o = 0; o < Og; o++)
            for (int64_t e = 0; e < ld; e++) out[o * ldo + e] = 0;
        /* scatter the chunk's rows to their samples (in place for one), adding the bias */
        for (int64_t b = 0; b < nb; b++) {
          for (int64_t o = 0; o < Og; o++) {
            real *dst = grid + ((n0 + b) * g->gridC + grp * Og + o) * L + off;
            const real *src = out + o * ldo + b * Lb;
            const real add = bias ? bias[grp * Og + o] : 0;
            for (int64_t l = 0; l < Lb; l++) dst[l] = src[l] + add;
          }
        }
      }
    }
  }
  if (pl.nt > 1) THParallel_noteTeam(); /* its workers are awake now (lib/THBlas.c) */
  THNN_(planGive)(&pl, ws, owned);
  return 0;
}

/* B's bands band0, band0 + step, ... of samples n0 .. n0+nb-1 added into dst (their image, or
 * a thread's buffer of the same layout). */
static void THNN_(imageBands)(const THNNConvGeom *g, const THNNConvPlan *pl, const real *grid,
                              const real *w, int64_t n0, int64_t nb, int64_t band0,
                              int64_t step, real *cols, real *tmp, real *dst) {
  const int64_t nTaps = THNN_(taps)(g);
  for (int64_t band = band0; band < pl->bands; band += step) {
    THNNConvGeom gb;
    const int64_t off = THNN_(bandGeom)(g, pl, band, &gb), Lb = THNN_(gridCells)(&gb);
    const int64_t ld = nb * Lb;
    for (int64_t grp = 0; grp < g->groups; grp++) {
      int64_t ldr;
      const real *rows = THNN_(gridRows)(g, grid, n0, nb, off, grp, tmp, &ldr);
      THBlas_(gemm)('n', 't', ld, pl->K, pl->Og, 1, rows, ldr, w + grp * pl->Og * pl->K, pl->K,
                    0, cols, ld);
      for (int64_t b = 0; b < nb; b++)
        THNN_(col2vol)(cols + b * Lb, ld, pl->Cg, &gb, pl->taps + band * nTaps,
                       dst + (b * g->imC + grp * pl->Cg) * pl->plane);
    }
  }
}

/* B. image = col2vol(W^T . grid) (+ bias per image channel). Chunks are split between
 * threads; a batch of one splits its bands, each thread adding into an image buffer of its own
 * (bands add into overlapping image rows), the buffers added at the end. */
static int THNN_(convImageFromGrid)(const THNNConvGeom *g, const real *grid, const real *w,
                                    const real *bias, real *im) {
  if (g->batch == 0 || g->imC == 0 || THNN_(imVoxels)(g) == 0) return 0;
  THNNConvPlan pl;
  int owned;
  const int one = g->batch == 1;
  const int64_t vol = g->imC * THNN_(imVoxels)(g); /* one sample's image */
  real *ws = THNN_(convPlan)(&pl, g, one ? vol : 0, one, &owned);
  if (!ws) return -1;
  int used = 1;
#pragma omp parallel num_threads(pl.nt) if (pl.nt > 1)
  {
    const int tid = omp_get_thread_num(), nth = omp_get_num_threads();
    real *cols = ws + tid * pl.per, *tmp = cols + pl.cols;
    if (one && pl.nt > 1) { /* bands of the one sample between threads */
      real *acc = ws + tid * pl.per + (pl.per - vol);
      if (tid == 0) used = nth;
      for (int64_t e = 0; e < vol; e++) acc[e] = 0;
      if (pl.L > 0 && pl.Og > 0)
        THNN_(imageBands)(g, &pl, grid, w, 0, 1, tid, nth, cols, tmp, acc);
    } else {
      for (int64_t ch = tid; ch < pl.chunks; ch += nth) {
        const int64_t n0 = ch * pl.B, nb = TH_MIN(pl.B, g->batch - n0);
        for (int64_t c = 0; c < nb * g->imC; c++) {
          real *p = im + (n0 * g->imC + c) * pl.plane;
          const real v = bias ? bias[c % g->imC] : 0;
          for (int64_t e = 0; e < pl.plane; e++) p[e] = v;
        }
        if (pl.L > 0 && pl.Og > 0)
          THNN_(imageBands)(g, &pl, grid, w, n0, nb, 0, 1, cols, tmp, im + n0 * vol);
      }
    }
  }
  if (one && pl.nt > 1) {
    for (int64_t c = 0; c < g->imC; c++) {
      real *p = im + c * pl.plane;
      const real v = bias ? bias[c] : 0;
      for (int64_t e = 0; e < pl.plane; e++) p[e] = v;
    }
    for (int t = 0; t < used; t++) {
      const real *acc = ws + t * pl.per + (pl.per - vol);
      for (int64_t e = 0; e < vol; e++) im[e] += acc[e];
    }
  }
  if (pl.nt > 1) THParallel_noteTeam(); /* its workers are awake now (lib/THBlas.c) */
  THNN_(planGive)(&pl, ws, owned);
  return 0;
}

/* C. dW += scale * grid . vol2col(image)^T; threads sum into buffers of their own, added at the
 * end. */
static int THNN_(convWeightGrad)(const THNNConvGeom *g, const real *grid, const real *im,
                                 real *gw, real scale) {
  const int64_t wn = g->gridC * (g->imC / g->groups) * THNN_(taps)(g);
  if (g->batch == 0 || THNN_(gridCells)(g) == 0 || wn == 0) return 0;
  THNNConvPlan pl;
  int owned;
  real *ws = THNN_(convPlan)(&pl, g, wn, 1, &owned);
  if (!ws) return -1;
  const int64_t accAt = pl.per - wn, nTaps = THNN_(taps)(g); /* a thread's buffer */
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
    for (int64_t it = tid; it < pl.chunks * pl.bands; it += nth) {
      const int64_t ch = it / pl.bands, band = it % pl.bands;
      const int64_t n0 = ch * pl.B, nb = TH_MIN(pl.B, g->batch - n0);
      THNNConvGeom gb;
      const int64_t off = THNN_(bandGeom)(g, &pl, band, &gb);
      const int64_t ld = nb * THNN_(gridCells)(&gb);
      for (int64_t grp = 0; grp < g->groups; grp++) {
        int64_t ldr;
        THNN_(chunkCols)(&gb, &pl, pl.taps + band * nTaps, im, n0, nb, grp, cols);
        const real *rows = THNN_(gridRows)(g, grid, n0, nb, off, grp, tmp, &ldr);
        THBlas_(gemm)('t', 'n', pl.K, pl.Og, ld, scale, cols, ld, rows, ldr, 1,
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
  THNN_(planGive)(&pl, ws, owned);
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

/* ---- checks and the verbs, for 2-D and 3-D calls alike ------------------------------------- */

static int THNN_(convParams)(const char *op, const THNNConvArgs *a) {
  const int64_t *s = a->s, *d = a->dil;
  THArgCheck(s[0] > 0 && s[1] > 0 && s[2] > 0, TH_ERR_RUNTIME, -1,
             "%s: non-positive stride is not supported", op);
  for (int k = 0; k < 3; k++)
    THArgCheck(a->padBefore[k] >= 0 && a->padAfter[k] >= 0, TH_ERR_RUNTIME, -1,
               "%s: negative padding is not supported", op);
  if (a->nd == 3)
    THArgCheck(d[0] > 0 && d[1] > 0 && d[2] > 0, TH_ERR_RUNTIME, -1,
               "%s: dilation should be greater than zero, but got [%lld, %lld, %lld]", op,
               (long long)d[0], (long long)d[1], (long long)d[2]);
  else
    THArgCheck(d[0] > 0 && d[1] > 0 && d[2] > 0, TH_ERR_RUNTIME, -1,
               "%s: dilation should be greater than zero, but got [%lld, %lld]", op,
               (long long)d[1], (long long)d[2]);
  THArgCheck(a->groups > 0, TH_ERR_RUNTIME, -1, "%s: non-positive groups is not supported",
             op);
  return 0;
}

/* The spatial sizes (depth, height, width) of an (N, C, H, W) or (N, C, D, H, W) tensor (a
 * depth of 1 for nd = 2); a weight's are its kernel's. */
static void THNN_(convSizes)(THTensor *t, int nd, int64_t v[3]) {
  v[0] = nd == 3 ? t->size[2] : 1;
  v[1] = t->size[nd];
  v[2] = t->size[nd + 1];
}

/* An (nd+2)-D (N, C, spatial...) tensor, and weight (gridC, imC / groups, kernel...), bias
 * (channels). */
static int THNN_(convTensors)(const char *op, int nd, THTensor *input, const char *what,
                              THTensor *weight, THTensor *bias, int64_t groups,
                              int transposed) {
  char a[TH_SIZE_STR_LEN], b[TH_SIZE_STR_LEN];
  THArgCheck(input->nDimension == nd + 2, TH_ERR_RUNTIME, -1,
             "%s: expected a %d-D %s %s, got size %s", op, nd + 2, what,
             nd == 3 ? "(N, C, D, H, W)" : "(N, C, H, W)",
             THSize_str(a, sizeof a, input->nDimension, input->size));
  THArgCheck(weight->nDimension == nd + 2, TH_ERR_RUNTIME, -1,
             "%s: expected a %d-D weight, got size %s", op, nd + 2,
             THSize_str(a, sizeof a, weight->nDimension, weight->size));
  THArgCheck(weight->size[0] > 0, TH_ERR_RUNTIME, -1,
             "Given groups=%lld, expected weight to be at least 1 at dimension 0, but got weight "
             "of size %s instead", (long long)groups,
             THSize_str(a, sizeof a, weight->nDimension, weight->size));
  THArgCheck(!transposed || THTensor_(nElement)(weight) > 0, TH_ERR_RUNTIME, -1,
             "non-empty %dD weight tensor expected, but got: %s", nd + 2,
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

/* The geometry of a convolution of an image (N, imC, im...) and a grid (gridC, grid...) by
 * weight (the grid's size is filled in by the caller). */
static void THNN_(geomFill)(THNNConvGeom *g, const THNNConvArgs *a, int64_t N, int64_t imC,
                            const int64_t im[3], THTensor *weight) {
  int64_t k[3];
  THNN_(convSizes)(weight, a->nd, k);
  *g = (THNNConvGeom){.batch = N, .groups = a->groups, .imC = imC, .imD = im[0],
                      .imH = im[1], .imW = im[2], .gridC = weight->size[0], .kD = k[0],
                      .kH = k[1], .kW = k[2], .sD = a->s[0], .sH = a->s[1], .sW = a->s[2],
                      .padF = a->padBefore[0], .padT = a->padBefore[1],
                      .padL = a->padBefore[2], .dilD = a->dil[0], .dilH = a->dil[1],
                      .dilW = a->dil[2]};
}

/* The padded image size and the dilated kernel's span per dimension of a convolution of an
 * image of spatial size im by a kernel of size k, checked against int64 overflow together with
 * padded + span, a bound on every sum the taps' arithmetic makes (tapSpan divides by the
 * stride without adding it): RuntimeError naming the sizes when they overflow. */
static int THNN_(convReach)(const char *op, const THNNConvArgs *a, const int64_t im[3],
                            const int64_t k[3], int64_t padded[3], int64_t span[3]) {
  char x[TH_SIZE_STR_LEN], y[TH_SIZE_STR_LEN], z[TH_SIZE_STR_LEN], w[TH_SIZE_STR_LEN];
  int ok = 1;
  for (int d = 0; d < 3; d++) {
    int64_t bound;
    ok &= THSize_add(&padded[d], im[d], a->padBefore[d]) == 0 &&
          THSize_add(&padded[d], padded[d], a->padAfter[d]) == 0 &&
          THSize_mul(&span[d], a->dil[d], k[d] - 1) == 0 &&
          THSize_add(&span[d], span[d], 1) == 0 &&
          THSize_add(&bound, padded[d], span[d]) == 0;
  }
  THArgCheck(ok, TH_ERR_RUNTIME, -1,
             "%s: the sizes, stride, padding and dilation overflow int64 (input size per "
             "channel (%s), kernel (%s), stride (%s), dilation (%s))", op,
             THNN_convSizeStr(x, sizeof x, a->nd, im), THNN_convSizeStr(y, sizeof y, a->nd, k),
             THNN_convSizeStr(z, sizeof z, a->nd, a->s),
             THNN_convSizeStr(w, sizeof w, a->nd, a->dil));
  return 0;
}

/* The geometry of a convolution of an image (N, imC, im...) by weight; the grid's size is the
 * convolution's output size (RuntimeError when the dilated kernel exceeds the padded image). */
static int THNN_(convGeom)(THNNConvGeom *g, const char *op, const THNNConvArgs *a, int64_t N,
                           int64_t imC, const int64_t im[3], THTensor *weight) {
  char x[TH_SIZE_STR_LEN], y[TH_SIZE_STR_LEN];
  THNN_(geomFill)(g, a, N, imC, im, weight);
  const int64_t k[3] = {g->kD, g->kH, g->kW};
  int64_t padded[3], span[3], grid[3];
  THTry(THNN_(convReach)(op, a, im, k, padded, span), -1);
  THArgCheck(padded[0] >= span[0] && padded[1] >= span[1] && padded[2] >= span[2],
             TH_ERR_RUNTIME, -1,
             "Calculated padded input size per channel: (%s). Kernel size: (%s). Kernel size "
             "can't be greater than actual input size",
             THNN_convSizeStr(x, sizeof x, a->nd, padded),
             THNN_convSizeStr(y, sizeof y, a->nd, span));
  for (int d = 0; d < 3; d++) grid[d] = (padded[d] - span[d]) / a->s[d] + 1;
  g->gridD = grid[0];
  g->gridH = grid[1];
  g->gridW = grid[2];
  return 0;
}

/* A fresh contiguous (N, C, spatial...) result, spatial = sp without its depth for nd = 2. */
static int THNN_(convResult)(THTensor *r, int nd, int64_t N, int64_t C, const int64_t sp[3],
                             const char *op) {
  const int64_t size[5] = {N, C, sp[3 - nd], sp[4 - nd], sp[2]};
  THTry(THTensor_(resize)(r, nd + 2, size), -1);
  THArgCheck(THTensor_(isContiguous)(r), TH_ERR_RUNTIME, -1,
             "%s: the result must be contiguous", op);
  return 0;
}

/* gradWeight / gradBias to accumulate into: contiguous, of the parameter's shape. */
static int THNN_(convGradParams)(int nd, THTensor *gradWeight, THTensor *gradBias,
                                 int64_t nbias, const char *op) {
  if (gradWeight) {
    THArgCheck(gradWeight->nDimension == nd + 2 && THTensor_(isContiguous)(gradWeight),
               TH_ERR_RUNTIME, -1, "%s: gradWeight must be a contiguous %d-D tensor", op,
               nd + 2);
  }
  if (gradBias) {
    THArgCheck(gradBias->nDimension == 1 && gradBias->size[0] == nbias &&
               THTensor_(isContiguous)(gradBias), TH_ERR_RUNTIME, -1,
               "%s: gradBias must be a contiguous 1-D tensor of %lld elements", op,
               (long long)nbias);
  }
  return 0;
}

/* gradBias += scale * the sum of t (N, C, spatial...) over all but C */
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

/* The convolution's forward: output = conv(input, weight) + bias (product A). */
static int THNN_(convOutput)(THTensor *output, THTensor *input, THTensor *weight,
                             THTensor *bias, const THNNConvArgs *a, const char *op) {
  THNNConvGeom g;
  int64_t im[3];
  THTry(THNN_(convParams)(op, a), -1);
  THTry(THNN_(convTensors)(op, a->nd, input, "input", weight, bias, a->groups, 0), -1);
  THTry(THNN_(convChannels)(input, weight->size[1] * a->groups, weight, a->groups, 0), -1);
  THNN_(convSizes)(input, a->nd, im);
  THTry(THNN_(convGeom)(&g, op, a, input->size[0], input->size[1], im, weight), -1);
  const int64_t grid[3] = {g.gridD, g.gridH, g.gridW};
  THTry(THNN_(convResult)(output, a->nd, g.batch, g.gridC, grid, op), -1);
  return THNN_(convRun)(THNN_(convGridFromImage), &g, input, weight, bias, output);
}

/* The convolution's input gradient (product B) for an input of spatial size im. */
static int THNN_(convGradInput)(THTensor *gradInput, THTensor *gradOutput, THTensor *weight,
                                const int64_t im[3], const THNNConvArgs *a, const char *op) {
  char x[TH_SIZE_STR_LEN], y[TH_SIZE_STR_LEN];
  THNNConvGeom g;
  THTry(THNN_(convParams)(op, a), -1);
  THTry(THNN_(convTensors)(op, a->nd, gradOutput, "gradOutput", weight, NULL, a->groups, 0),
        -1);
  THArgCheck(im[0] >= 0 && im[1] >= 0 && im[2] >= 0, TH_ERR_RUNTIME, -1,
             "%s: negative input size", op);
  THTry(THNN_(convGeom)(&g, op, a, gradOutput->size[0], weight->size[1] * a->groups, im,
                        weight), -1);
  const int64_t grid[3] = {g.gridD, g.gridH, g.gridW};
  const int64_t want[5] = {g.batch, g.gridC, grid[3 - a->nd], grid[4 - a->nd], grid[2]};
  int same = 1;
  for (int d = 1; d < a->nd + 2; d++) same &= gradOutput->size[d] == want[d];
  THArgCheck(same, TH_ERR_RUNTIME, -1, "%s: expected gradOutput of size %s, got %s", op,
             THSize_str(x, sizeof x, a->nd + 2, want),
             THSize_str(y, sizeof y, gradOutput->nDimension, gradOutput->size));
  THTry(THNN_(convResult)(gradInput, a->nd, g.batch, g.imC, im, op), -1);
  return THNN_(convRun)(THNN_(convImageFromGrid), &g, gradOutput, weight, NULL, gradInput);
}

/* The shared half of both accGradParameters: grid (N, gridC, ...) and image tensors given. */
static int THNN_(convAccGrad)(THTensor *gradWeight, THTensor *gradBias, THTensor *grid,
                              THTensor *image, THTensor *biasOf, const THNNConvArgs *a,
                              double scale, const char *op) {
  char x[TH_SIZE_STR_LEN], y[TH_SIZE_STR_LEN];
  const int nd = a->nd;
  THTry(THNN_(convParams)(op, a), -1);
  THArgCheck(grid->nDimension == nd + 2 && image->nDimension == nd + 2, TH_ERR_RUNTIME, -1,
             "%s: expected %d-D gradOutput and input, got sizes %s and %s", op, nd + 2,
             THSize_str(x, sizeof x, grid->nDimension, grid->size),
             THSize_str(y, sizeof y, image->nDimension, image->size));
  THArgCheck(grid->size[0] == image->size[0], TH_ERR_RUNTIME, -1,
             "%s: gradOutput and input have different batch sizes (%lld and %lld)", op,
             (long long)grid->size[0], (long long)image->size[0]);
  THTry(THTensor_(checkBounds)(grid, op), -1);
  THTry(THTensor_(checkBounds)(image, op), -1);
  THTry(THNN_(convGradParams)(nd, gradWeight, gradBias, biasOf->size[1], op), -1);
  THNNConvGeom g;
  if (gradWeight) {
    THArgCheck(gradWeight->size[0] == grid->size[1] && gradWeight->size[0] % a->groups == 0 &&
               gradWeight->size[1] * a->groups == image->size[1], TH_ERR_RUNTIME, -1,
               "%s: gradWeight of size %s does not fit %lld grid and %lld image channels in "
               "%lld groups", op, THSize_str(x, sizeof x, nd + 2, gradWeight->size),
               (long long)grid->size[1], (long long)image->size[1], (long long)a->groups);
    int64_t im[3], gs[3];
    THNN_(convSizes)(image, nd, im);
    THNN_(convSizes)(grid, nd, gs);
    THTry(THNN_(convGeom)(&g, op, a, image->size[0], image->size[1], im, gradWeight), -1);
    THArgCheck(gs[0] <= g.gridD && gs[1] <= g.gridH && gs[2] <= g.gridW, TH_ERR_RUNTIME, -1,
               "%s: gradOutput of size %s does not fit input of size %s", op,
               THSize_str(x, sizeof x, nd + 2, grid->size),
               THSize_str(y, sizeof y, nd + 2, image->size));
    g.gridD = gs[0];
    g.gridH = gs[1];
    g.gridW = gs[2];
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
  if (gradBias) {
    int64_t sp[3], plane;
    THNN_(convSizes)(bt, nd, sp);
    if (THSize_mul(&plane, sp[0], sp[1]) != 0 || THSize_mul(&plane, plane, sp[2]) != 0) {
      THError_set(TH_ERR_RUNTIME, "%s: the gradOutput's size %s overflows int64", op,
                  THSize_str(x, sizeof x, bt->nDimension, bt->size));
      goto done;
    }
    THNN_(convBiasGrad)(THTensor_(data)(gradBias), THTensor_(data)(bt), bt->size[0],
                        bt->size[1], plane, (real)scale);
  }
  rc = 0;
done:
  THTensor_(free)(gt);
  THTensor_(free)(it);
  THTensor_(free)(bt);
  return rc;
}

/* The transposed convolution's forward: output = conv_transpose(input, weight) + bias
 * (product B), its size grown by outPad (depth, height, width). */
static int THNN_(fullOutput)(THTensor *output, THTensor *input, THTensor *weight,
                             THTensor *bias, const THNNConvArgs *a, const int64_t outPad[3],
                             const char *op) {
  char x[TH_SIZE_STR_LEN], y[TH_SIZE_STR_LEN], x2[TH_SIZE_STR_LEN], y2[TH_SIZE_STR_LEN];
  THNNConvGeom g;
  const int nd = a->nd;
  THTry(THNN_(convParams)(op, a), -1);
  THTry(THNN_(convTensors)(op, nd, input, "input", weight, bias, a->groups, 1), -1);
  THTry(THNN_(convChannels)(input, weight->size[0], weight, a->groups, 1), -1);
  int ok = 1;
  for (int d = 0; d < 3; d++)
    ok &= outPad[d] >= 0 && (outPad[d] < a->s[d] || outPad[d] < a->dil[d]);
  if (!ok) {
    THNN_convOutPadError(nd, outPad, a->s, a->dil);
    return -1;
  }
  int64_t in[3], k[3], im[3];
  THNN_(convSizes)(input, nd, in);
  THNN_(convSizes)(weight, nd, k);
  for (int d = 0; d < 3; d++) { /* (in - 1) s - padBefore - padAfter + dil (k - 1) + outPad + 1 */
    int64_t grow, span;
    ok &= THSize_mul(&grow, in[d] - 1, a->s[d]) == 0 &&
          THSize_mul(&span, a->dil[d], k[d] - 1) == 0 && THSize_add(&grow, grow, span) == 0 &&
          THSize_add(&grow, grow, outPad[d] + 1) == 0;
    ok = ok && THSize_add(&im[d], grow, -a->padBefore[d]) == 0 &&
         THSize_add(&im[d], im[d], -a->padAfter[d]) == 0;
  }
  THArgCheck(ok, TH_ERR_RUNTIME, -1,
             "%s: the output size overflows int64 (input size per channel (%s), kernel (%s), "
             "stride (%s), dilation (%s))", op, THNN_convSizeStr(x, sizeof x, nd, in),
             THNN_convSizeStr(y, sizeof y, nd, k),
             THNN_convSizeStr(x2, sizeof x2, nd, a->s),
             THNN_convSizeStr(y2, sizeof y2, nd, a->dil));
  THArgCheck(im[0] > 0 && im[1] > 0 && im[2] > 0, TH_ERR_RUNTIME, -1,
             "Given input size per channel: (%s). Calculated output size per channel: (%s). "
             "Output size is too small", THNN_convSizeStr(x, sizeof x, nd, in),
             THNN_convSizeStr(y, sizeof y, nd, im));
  int64_t padded[3], span[3];
  THTry(THNN_(convReach)(op, a, im, k, padded, span), -1);
  THNN_(geomFill)(&g, a, input->size[0], weight->size[1] * a->groups, im, weight);
  g.gridD = in[0];
  g.gridH = in[1];
  g.gridW = in[2];
  THTry(THNN_(convResult)(output, nd, g.batch, g.imC, im, op), -1);
  return THNN_(convRun)(THNN_(convImageFromGrid), &g, input, weight, bias, output);
}

/* The transposed convolution's input gradient (product A, cropped to an input of size in). */
static int THNN_(fullGradInput)(THTensor *gradInput, THTensor *gradOutput, THTensor *weight,
                                const int64_t in[3], const THNNConvArgs *a, const char *op) {
  char x[TH_SIZE_STR_LEN], y[TH_SIZE_STR_LEN];
  THNNConvGeom g;
  const int nd = a->nd;
  int64_t out[3];
  THTry(THNN_(convParams)(op, a), -1);
  THTry(THNN_(convTensors)(op, nd, gradOutput, "gradOutput", weight, NULL, a->groups, 1), -1);
  THTry(THNN_(convChannels)(gradOutput, weight->size[1] * a->groups, weight, a->groups, 0),
        -1);
  THNN_(convSizes)(gradOutput, nd, out);
  THTry(THNN_(convGeom)(&g, op, a, gradOutput->size[0], gradOutput->size[1], out, weight), -1);
  THArgCheck(in[0] >= 0 && in[1] >= 0 && in[2] >= 0 && in[0] <= g.gridD && in[1] <= g.gridH &&
             in[2] <= g.gridW, TH_ERR_RUNTIME, -1,
             "%s: an input of size (%s) does not fit an output of size (%s)", op,
             THNN_convSizeStr(x, sizeof x, nd, in), THNN_convSizeStr(y, sizeof y, nd, out));
  g.gridD = in[0];
  g.gridH = in[1];
  g.gridW = in[2];
  THTry(THNN_(convResult)(gradInput, nd, g.batch, g.gridC, in, op), -1);
  return THNN_(convRun)(THNN_(convGridFromImage), &g, gradOutput, weight, NULL, gradInput);
}

/* ---- the public verbs: 2-D (Spatial*) and 3-D (Volumetric*) calls of the verbs above ------ */

#define TH_NN_ARGS2D \
  ((THNNConvArgs){2, {1, sH, sW}, {0, padT, padL}, {0, padB, padR}, {1, dilH, dilW}, groups})
#define TH_NN_ARGS3D \
  ((THNNConvArgs){3, {sD, sH, sW}, {padF, padT, padL}, {padBk, padB, padR}, {dilD, dilH, dilW}, \
                  groups})

int THNN_(SpatialConvolutionMM_updateOutput)(THTensor *output, THTensor *input, THTensor *weight,
                                             THTensor *bias, int64_t sH, int64_t sW,
                                             int64_t padT, int64_t padL, int64_t padB,
                                             int64_t padR, int64_t dilH, int64_t dilW,
                                             int64_t groups) {
  return THNN_(convOutput)(output, input, weight, bias, &TH_NN_ARGS2D, "conv2d()");
}

int THNN_(SpatialConvolutionMM_updateGradInput)(THTensor *gradInput, THTensor *gradOutput,
                                                THTensor *weight, int64_t iH, int64_t iW,
                                                int64_t sH, int64_t sW, int64_t padT,
                                                int64_t padL, int64_t padB, int64_t padR,
                                                int64_t dilH, int64_t dilW, int64_t groups) {
  const int64_t im[3] = {1, iH, iW};
  return THNN_(convGradInput)(gradInput, gradOutput, weight, im, &TH_NN_ARGS2D,
                              "conv2d() backward");
}

int THNN_(SpatialConvolutionMM_accGradParameters)(THTensor *gradWeight, THTensor *gradBias,
                                                  THTensor *gradOutput, THTensor *input,
                                                  int64_t sH, int64_t sW, int64_t padT,
                                                  int64_t padL, int64_t padB, int64_t padR,
                                                  int64_t dilH, int64_t dilW, int64_t groups,
                                                  double scale) {
  return THNN_(convAccGrad)(gradWeight, gradBias, gradOutput, input, gradOutput, &TH_NN_ARGS2D,
                            scale, "conv2d() backward");
}

int THNN_(SpatialFullDilatedConvolution_updateOutput)(THTensor *output, THTensor *input,
                                                      THTensor *weight, THTensor *bias,
                                                      int64_t sH, int64_t sW, int64_t padT,
                                                      int64_t padL, int64_t padB, int64_t padR,
                                                      int64_t dilH, int64_t dilW,
                                                      int64_t outPadH, int64_t outPadW,
                                                      int64_t groups) {
  const int64_t outPad[3] = {0, outPadH, outPadW};
  return THNN_(fullOutput)(output, input, weight, bias, &TH_NN_ARGS2D, outPad,
                           "conv_transpose2d()");
}

int THNN_(SpatialFullDilatedConvolution_updateGradInput)(THTensor *gradInput,
                                                         THTensor *gradOutput, THTensor *weight,
                                                         int64_t iH, int64_t iW, int64_t sH,
                                                         int64_t sW, int64_t padT, int64_t padL,
                                                         int64_t padB, int64_t padR,
                                                         int64_t dilH, int64_t dilW,
                                                         int64_t groups) {
  const int64_t in[3] = {1, iH, iW};
  return THNN_(fullGradInput)(gradInput, gradOutput, weight, in, &TH_NN_ARGS2D,
                              "conv_transpose2d() backward");
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
  return THNN_(convAccGrad)(gradWeight, gradBias, input, gradOutput, gradOutput, &TH_NN_ARGS2D,
                            scale, "conv_transpose2d() backward");
}

int THNN_(VolumetricConvolutionMM_updateOutput)(THTensor *output, THTensor *input,
                                                THTensor *weight, THTensor *bias, int64_t sD,
                                                int64_t sH, int64_t sW, int64_t padF,
                                                int64_t padT, int64_t padL, int64_t padBk,
                                                int64_t padB, int64_t padR, int64_t dilD,
                                                int64_t dilH, int64_t dilW, int64_t groups) {
  return THNN_(convOutput)(output, input, weight, bias, &TH_NN_ARGS3D, "conv3d()");
}

int THNN_(VolumetricConvolutionMM_updateGradInput)(THTensor *gradInput, THTensor *gradOutput,
                                                   THTensor *weight, int64_t iD, int64_t iH,
                                                   int64_t iW, int64_t sD, int64_t sH,
                                                   int64_t sW, int64_t padF, int64_t padT,
                                                   int64_t padL, int64_t padBk, int64_t padB,
                                                   int64_t padR, int64_t dilD, int64_t dilH,
                                                   int64_t dilW, int64_t groups) {
  const int64_t im[3] = {iD, iH, iW};
  return THNN_(convGradInput)(gradInput, gradOutput, weight, im, &TH_NN_ARGS3D,
                              "conv3d() backward");
}

int THNN_(VolumetricConvolutionMM_accGradParameters)(THTensor *gradWeight, THTensor *gradBias,
                                                     THTensor *gradOutput, THTensor *input,
                                                     int64_t sD, int64_t sH, int64_t sW,
                                                     int64_t padF, int64_t padT, int64_t padL,
                                                     int64_t padBk, int64_t padB, int64_t padR,
                                                     int64_t dilD, int64_t dilH, int64_t dilW,
                                                     int64_t groups, double scale) {
  return THNN_(convAccGrad)(gradWeight, gradBias, gradOutput, input, gradOutput, &TH_NN_ARGS3D,
                            scale, "conv3d() backward");
}

int THNN_(VolumetricFullDilatedConvolution_updateOutput)(
    THTensor *output, THTensor *input, THTensor *weight, THTensor *bias, int64_t sD, int64_t sH,
    int64_t sW, int64_t padF, int64_t padT, int64_t padL, int64_t padBk, int64_t padB,
    int64_t padR, int64_t dilD, int64_t dilH, int64_t dilW, int64_t outPadD, int64_t outPadH,
    int64_t outPadW, int64_t groups) {
  const int64_t outPad[3] = {outPadD, outPadH, outPadW};
  return THNN_(fullOutput)(output, input, weight, bias, &TH_NN_ARGS3D, outPad,
                           "conv_transpose3d()");
}

int THNN_(VolumetricFullDilatedConvolution_updateGradInput)(
    THTensor *gradInput, THTensor *gradOutput, THTensor *weight, int64_t iD, int64_t iH,
    int64_t iW, int64_t sD, int64_t sH, int64_t sW, int64_t padF, int64_t padT, int64_t padL,
    int64_t padBk, int64_t padB, int64_t padR, int64_t dilD, int64_t dilH, int64_t dilW,
    int64_t groups) {
  const int64_t in[3] = {iD, iH, iW};
  return THNN_(fullGradInput)(gradInput, gradOutput, weight, in, &TH_NN_ARGS3D,
                              "conv_transpose3d() backward");
}

int THNN_(VolumetricFullDilatedConvolution_accGradParameters)(
    THTensor *gradWeight, THTensor *gradBias, THTensor *gradOutput, THTensor *input, int64_t sD,
    int64_t sH, int64_t sW, int64_t padF, int64_t padT, int64_t padL, int64_t padBk,
    int64_t padB, int64_t padR, int64_t dilD, int64_t dilH, int64_t dilW, int64_t groups,
    double scale) {
  return THNN_(convAccGrad)(gradWeight, gradBias, input, gradOutput, gradOutput, &TH_NN_ARGS3D,
                            scale, "conv_transpose3d() backward");
}

#undef TH_NN_ARGS2D
#undef TH_NN_ARGS3D

#endif
