#ifndef TH_TENSOR_SORT_H
#define TH_TENSOR_SORT_H

/* Sorting and selection along a dim: sort, topk, kthvalue, median, mode, unique. */

#include "THTensor.h"

#include "generic/THTensorSort.h"
#include "THGenerateAllTypes.h"

#endif
