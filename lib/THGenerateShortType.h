/* Stamps TH_GENERIC_FILE for Short. */
#define Real Short
#define real int16_t
#define accreal int64_t
#define opreal int16_t
#define ureal uint32_t
#define TH_REAL_IS_SHORT
#define TH_REAL_IS_INTEGRAL
#include "THGenerateOne.h"
#undef TH_REAL_IS_SHORT
#undef TH_REAL_IS_INTEGRAL
