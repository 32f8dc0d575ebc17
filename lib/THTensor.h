#ifndef TH_TENSOR_H
#define TH_TENSOR_H

#include "THShape.h"
#include "THStorage.h"

#define THTensor TH_CONCAT_3(TH, Real, Tensor)
#define THTensor_(NAME) TH_CONCAT_4(TH, Real, Tensor_, NAME)

/* Every tensor type is declared before the copies between them. */
#define TH_TENSOR_FWD(R, r) typedef struct TH##R##Tensor TH##R##Tensor;
TH_FORALL_TYPES(TH_TENSOR_FWD)
#undef TH_TENSOR_FWD

/* One consistent snapshot of a view's geometry, for exports (THTensor_(export)). */
typedef struct THView {
  char *data; /* the first element (NULL when the storage has no memory) */
  int ndim;
  int64_t offset;
  int64_t size[TH_MAX_DIM];
  int64_t stride[TH_MAX_DIM];
} THView;

#include "generic/THTensor.h"
#include "THGenerateAllTypes.h"

#endif
