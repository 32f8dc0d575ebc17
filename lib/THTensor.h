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

#include "generic/THTensor.h"
#include "THGenerateAllTypes.h"

#endif
