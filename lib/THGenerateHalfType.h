/* Stamps TH_GENERIC_FILE for Half. */
#define Real Half
#define real THHalf
#define accreal double
#define opreal float
#define ureal float
#define TH_REAL_IS_HALF
#define TH_REAL_IS_FLOATING
#define TH_REAL_IS_REDUCED
#include "THGenerateOne.h"
#undef TH_REAL_IS_HALF
#undef TH_REAL_IS_FLOATING
#undef TH_REAL_IS_REDUCED
