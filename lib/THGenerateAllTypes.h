/* Stamps TH_GENERIC_FILE for all ten element types. */
#ifdef THGenerateManyTypes
#define TH_GENERATE_All_NESTED
#else
#define THGenerateManyTypes
#endif
#include "THGenerateByteType.h"
#include "THGenerateCharType.h"
#include "THGenerateShortType.h"
#include "THGenerateIntType.h"
#include "THGenerateLongType.h"
#include "THGenerateFloatType.h"
#include "THGenerateDoubleType.h"
#include "THGenerateHalfType.h"
#include "THGenerateBFloat16Type.h"
#include "THGenerateBoolType.h"
#ifdef TH_GENERATE_All_NESTED
#undef TH_GENERATE_All_NESTED
#else
#undef THGenerateManyTypes
#undef TH_GENERIC_FILE
#endif
