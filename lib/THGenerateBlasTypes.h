/* Stamps TH_GENERIC_FILE for the types BLAS and LAPACK compute in: Float and Double. */
#ifdef THGenerateManyTypes
#define TH_GENERATE_Blas_NESTED
#else
#define THGenerateManyTypes
#endif
#include "THGenerateFloatType.h"
#include "THGenerateDoubleType.h"
#ifdef TH_GENERATE_Blas_NESTED
#undef TH_GENERATE_Blas_NESTED
#else
#undef THGenerateManyTypes
#undef TH_GENERIC_FILE
#endif
