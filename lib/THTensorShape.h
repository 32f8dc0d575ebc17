#ifndef TH_TENSOR_SHAPE_H
#define TH_TENSOR_SHAPE_H

/* Construction and shape kernels that cannot be written as a copy between two views: flip
 * (a copy whose source walks some dims backwards) and tril / triu (which elements survive
 * depends on their row and column). cat, stack, split, chunk, roll, repeat, diag and meshgrid
 * are views plus THTensor_(copy) calls, composed in pyth/_prims/shape.py. */

#include "THTensorMath.h" /* resizeOutput */

#include "generic/THTensorShape.h"
#include "THGenerateAllTypes.h"

#endif
