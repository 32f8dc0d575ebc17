/* Stamps TH_GENERIC_FILE for Float. */
#define Real Float
#define real float
#define accreal double
#define opreal float
#define ureal float
#define TH_REAL_IS_FLOAT
#define TH_REAL_IS_FLOATING
#include "THGenerateOne.h"
#undef TH_REAL_IS_FLOAT
#undef TH_REAL_IS_FLOATING
