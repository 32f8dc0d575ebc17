#ifndef TH_TENSOR_MATH_H
#define TH_TENSOR_MATH_H

#include "THMathOps.h"
#include "THTensor.h"

#include "generic/THTensorMath.h"
#include "THGenerateAllTypes.h"

#endif
