#ifndef TH_NN_CONV_H
#define TH_NN_CONV_H

/* Shared by the convolution kernels (generic/THNNConvolution.c): the geometry of one
 * convolution and the per-thread workspace that holds its vol2col columns.
 *
 * Geometry. A convolution relates an *image* (the input of Conv3d, the output of
 * ConvTranspose3d) and a *grid* (the output of Conv3d, the input of ConvTranspose3d): grid
 * cell (z, y, x) of a kernel tap (a, i, j) reads image voxel (z*sD - padF + a*dilD,
 * y*sH - padT + i*dilH, x*sW - padL + j*dilW), zero outside the image. The weight is
 * (gridC, imC / groups, kD, kH, kW) for both layers, so per group it is a (gridC / groups) x K
 * matrix, K = imC / groups * kD * kH * kW. A 2-D convolution is the same with a depth of 1
 * (kD = sD = dilD = 1, padF = 0) over 4-D tensors: one kernel serves both.
 *
 * Workspace. The columns of a call live in one buffer per calling thread, kept between calls
 * (a small CNN step must not allocate and fault in megabytes every time), released
 * when the thread ends. Requests above TH_NN_WORKSPACE_CAP are allocated for the call only. */

#ifndef TH_CDEF
#include <stddef.h>
#include <stdint.h>

typedef struct THNNConvGeom {
  int64_t batch, groups;
  int64_t imC, imD, imH, imW;
  int64_t gridC, gridD, gridH, gridW;
  int64_t kD, kH, kW, sD, sH, sW, padF, padT, padL, dilD, dilH, dilW;
} THNNConvGeom;

/* A call's arguments as the verbs take them, depth first: strides, padding before (front, top,
 * left) and after (back, bottom, right), dilations, groups. nd is 2 or 3, the spatial dims of
 * the call's tensors; a 2-D call has depth stride and dilation 1 and no depth padding. */
typedef struct THNNConvArgs {
  int nd;
  int64_t s[3], padBefore[3], padAfter[3], dil[3], groups;
} THNNConvArgs;

/* One kernel tap's reach: grid cell (z, y, x) reads image voxel (z*sD + z0, y*sH + y0,
 * x*sW + x0), inside the image for the cells [za, zb) x [ya, yb) x [xa, xb). */
typedef struct THNNConvTap {
  int64_t za, zb, ya, yb, xa, xb, z0, y0, x0;
} THNNConvTap;

/* How a product over a geometry runs (generic/THNNConvolution.c's strategy): per group Cg image
 * and Og grid channels, K taps per column, L grid cells and `plane` image voxels per channel;
 * nt threads, chunks of B samples, bands of R grid rows, `cols` column elements of a chunk's
 * band and `per` workspace elements per thread; the reach of each tap in each band (band b's
 * taps from taps + b * taps per column), found once per product (not per sample). */
typedef struct THNNConvPlan {
  int64_t Cg, Og, K, L, plane;
  int64_t B, chunks, R, bands, cols, per;
  int nt;
  THNNConvTap *taps;
} THNNConvPlan;

#define TH_NN_WORKSPACE_CAP ((size_t)64 << 20)

/* A buffer of at least `bytes` (NULL with a MemoryError recorded on failure); *owned says
 * whether THNN_workspaceGive must free it. */
void *THNN_workspaceTake(size_t bytes, int *owned);
void THNN_workspaceGive(void *p, int owned);

/* The per-channel size v (depth, height, width) as PyTorch's messages print it: "H x W" for
 * nd = 2, "D x H x W" for nd = 3; returns buf. */
const char *THNN_convSizeStr(char *buf, size_t len, int nd, const int64_t v[3]);

/* Records PyTorch's RuntimeError for an output padding that is not below stride or dilation
 * (each given depth first; nd = 2 names height and width only). */
void THNN_convOutPadError(int nd, const int64_t outPad[3], const int64_t stride[3],
                          const int64_t dilation[3]);
#endif

#endif
