#ifndef TH_NN_CONV_H
#define TH_NN_CONV_H

/* Shared by the convolution kernels (generic/THNNConvolution.c): the geometry of one
 * convolution and the per-thread workspace that holds its im2col columns.
 *
 * Geometry. A convolution relates an *image* (the input of Conv2d, the output of
 * ConvTranspose2d) and a *grid* (the output of Conv2d, the input of ConvTranspose2d): grid
 * cell (y, x) of a kernel tap (i, j) reads image pixel (y*sH - padT + i*dilH,
 * x*sW - padL + j*dilW), zero outside the image. The weight is (gridC, imC / groups, kH, kW)
 * for both layers, so per group it is a (gridC / groups) x K matrix, K = imC / groups * kH * kW.
 *
 * Workspace. The columns of a call live in one buffer per calling thread, kept between calls
 * (issue 14: a small CNN step must not allocate and fault in megabytes every time), released
 * when the thread ends. Requests above TH_NN_WORKSPACE_CAP are allocated for the call only. */

#ifndef TH_CDEF
#include <stddef.h>
#include <stdint.h>

typedef struct THNNConvGeom {
  int64_t batch, groups;
  int64_t imC, imH, imW;
  int64_t gridC, gridH, gridW;
  int64_t kH, kW, sH, sW, padT, padL, dilH, dilW;
} THNNConvGeom;

/* How a product over a geometry runs (generic/THNNConvolution.c's strategy): per group Cg image
 * and Og grid channels, K taps per column, L grid cells and `plane` image pixels per sample;
 * nt threads, chunks of B samples, `cols` column elements of a chunk and `per` workspace
 * elements per thread. */
typedef struct THNNConvPlan {
  int64_t Cg, Og, K, L, plane;
  int64_t B, chunks, cols, per;
  int nt;
} THNNConvPlan;

#define TH_NN_WORKSPACE_CAP ((size_t)64 << 20)

/* A buffer of at least `bytes` (NULL with a MemoryError recorded on failure); *owned says
 * whether THNN_workspaceGive must free it. */
void *THNN_workspaceTake(size_t bytes, int *owned);
void THNN_workspaceGive(void *p, int owned);
#endif

#endif
