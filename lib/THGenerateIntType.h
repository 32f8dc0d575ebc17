/* Stamps TH_GENERIC_FILE for Int. */
#define Real Int
#define real int32_t
#define accreal int64_t
#define opreal int32_t
#define ureal uint32_t
#define TH_REAL_IS_INT
#define TH_REAL_IS_INTEGRAL
#include "THGenerateOne.h"
#undef TH_REAL_IS_INT
#undef TH_REAL_IS_INTEGRAL
