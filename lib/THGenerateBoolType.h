/* Stamps TH_GENERIC_FILE for Bool. */
#define Real Bool
#define real bool
#define accreal int64_t
#define opreal unsigned
#define ureal unsigned
#define TH_REAL_IS_BOOL
#include "THGenerateOne.h"
#undef TH_REAL_IS_BOOL
