/* Stamps TH_GENERIC_FILE for the floating types (Half and BFloat16 compute in float). */
#ifdef THGenerateManyTypes
#define TH_GENERATE_Float_NESTED
#else
#define THGenerateManyTypes
#endif
#include "THGenerateFloatType.h"
#include "THGenerateDoubleType.h"
#include "THGenerateHalfType.h"
#include "THGenerateBFloat16Type.h"
#ifdef TH_GENERATE_Float_NESTED
#undef TH_GENERATE_Float_NESTED
#else
#undef THGenerateManyTypes
#undef TH_GENERIC_FILE
#endif
