#ifndef TH_TENSOR_REDUCE_H
#define TH_TENSOR_REDUCE_H

/* Reductions (sum, prod, mean, var, std, norm, max, min, all, any, logsumexp, ...) and scans
 * (cumsum, cumprod), declared per type by generic/THTensorReduce.h; how they run is explained
 * at the top of lib/THTensorReduce.c. */

#include "THTensor.h"

#include "generic/THTensorReduce.h"
#include "THGenerateAllTypes.h"

#endif
