/* Stamps TH_GENERIC_FILE for Byte. */
#define Real Byte
#define real uint8_t
#define accreal int64_t
#define opreal uint8_t
#define ureal uint8_t
#define TH_REAL_IS_BYTE
#define TH_REAL_IS_INTEGRAL
#include "THGenerateOne.h"
#undef TH_REAL_IS_BYTE
#undef TH_REAL_IS_INTEGRAL
