/* Stamps TH_GENERIC_FILE for the integer types (Bool excluded). */
#ifdef THGenerateManyTypes
#define TH_GENERATE_Integer_NESTED
#else
#define THGenerateManyTypes
#endif
#include "THGenerateByteType.h"
#include "THGenerateCharType.h"
#include "THGenerateShortType.h"
#include "THGenerateIntType.h"
#include "THGenerateLongType.h"
#ifdef TH_GENERATE_Integer_NESTED
#undef TH_GENERATE_Integer_NESTED
#else
#undef THGenerateManyTypes
#undef TH_GENERIC_FILE
#endif
