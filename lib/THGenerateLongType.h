/* Stamps TH_GENERIC_FILE for Long. */
#define Real Long
#define real int64_t
#define accreal int64_t
#define opreal int64_t
#define ureal uint64_t
#define TH_REAL_IS_LONG
#define TH_REAL_IS_INTEGRAL
#include "THGenerateOne.h"
#undef TH_REAL_IS_LONG
#undef TH_REAL_IS_INTEGRAL
