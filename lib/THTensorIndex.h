#ifndef TH_TENSOR_INDEX_H
#define TH_TENSOR_INDEX_H

/* Indexing ops: index_select / index_copy_ / index_add_ / index_fill_ (an index vector along one
 * dim), gather / scatter_ (an index tensor shaped like the data), masked_fill_ / masked_select /
 * masked_scatter_ (a bool mask), nonzero, take / put_ (flat indices). Kernels are stamped for
 * every type from generic/THTensorIndex.c; index tensors are always THLongTensor and masks
 * THBoolTensor. Every function checks all indices before it writes anything. */

#include "THTensor.h"

/* How scatter_ / index_add_ / put_ combine a value with the element already there. */
enum { TH_REDUCE_NONE = 0, TH_REDUCE_ADD = 1, TH_REDUCE_MULTIPLY = 2, TH_REDUCE_AMAX = 3,
       TH_REDUCE_AMIN = 4 };

#include "generic/THTensorIndex.h"
#include "THGenerateAllTypes.h"

#endif
