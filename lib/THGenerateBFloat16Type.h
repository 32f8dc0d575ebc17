/* Stamps TH_GENERIC_FILE for BFloat16. */
#define Real BFloat16
#define real THBFloat16
#define accreal double
#define opreal float
#define ureal float
#define TH_REAL_IS_BFLOAT16
#define TH_REAL_IS_FLOATING
#define TH_REAL_IS_REDUCED
#include "THGenerateOne.h"
#undef TH_REAL_IS_BFLOAT16
#undef TH_REAL_IS_FLOATING
#undef TH_REAL_IS_REDUCED
