#ifndef TH_TENSOR_RANDOM_H
#define TH_TENSOR_RANDOM_H

/* Random sampling into tensors: the kernels of generic/THTensorRandom.h stamped for every type
 * they apply to (uniform/normal/... for the floating types, geometric and randperm for all but
 * bool, bernoulli and random for all ten). The generator is THRandom.h's. */

#include "THRandom.h"
#include "THTensor.h"

#include "generic/THTensorRandom.h"
#include "THGenerateAllTypes.h"

#endif
