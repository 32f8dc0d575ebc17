/* Stamps TH_GENERIC_FILE for Char. */
#define Real Char
#define real int8_t
#define accreal int64_t
#define opreal int8_t
#define ureal uint8_t
#define TH_REAL_IS_CHAR
#define TH_REAL_IS_INTEGRAL
#include "THGenerateOne.h"
#undef TH_REAL_IS_CHAR
#undef TH_REAL_IS_INTEGRAL
