#ifndef TH_NN_GRID_H
#define TH_NN_GRID_H

/* The type-independent part of grid sampling (generic/THNNGridSampler.c): the geometry of one
 * call. A 2-D sampling has a depth of one (D = oD = 1, its depth strides 0). */

#include <stdint.h>

typedef struct THNNGridGeom {
  int nd;                               /* spatial dims: 2 or 3 */
  int64_t N, C, D, H, W;                /* input */
  int64_t oD, oH, oW;                   /* output points */
  int64_t isN, isC, isD, isH, isW;      /* input strides */
  int64_t gsN, gsD, gsH, gsW, gsK;      /* grid strides; gsK between a point's coordinates */
  int64_t osN, osC, osD, osH, osW;      /* gradOutput strides (backward) */
} THNNGridGeom;

/* Input elements one output element reads: 1 (nearest), 2^nd (bi/trilinear), 16 (bicubic). */
static inline int64_t THNN_gridTaps(int mode, int nd) {
  if (mode == THNN_GRID_NEAREST) return 1;
  return mode == THNN_GRID_BILINEAR ? (int64_t)1 << nd : 16;
}

#endif
