/* Stamps TH_GENERIC_FILE for Double. */
#define Real Double
#define real double
#define accreal double
#define opreal double
#define ureal double
#define TH_REAL_IS_DOUBLE
#define TH_REAL_IS_FLOATING
#include "THGenerateOne.h"
#undef TH_REAL_IS_DOUBLE
#undef TH_REAL_IS_FLOATING
