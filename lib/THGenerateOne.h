/* The common tail of every THGenerate<Type>Type.h: include the generic file once with the type
 * macros set (real: the stored element; accreal: the accumulator; opreal: the compute type; ureal:
 * the unsigned type integer arithmetic wraps in;
 * Real: the name part), then clear them. A set header (All, Float, Integer) defines
 * THGenerateManyTypes so TH_GENERIC_FILE survives until the whole set is stamped. */
#ifndef TH_GENERIC_FILE
#error "define TH_GENERIC_FILE before including a THGenerate header"
#endif
#include TH_GENERIC_FILE
#undef Real
#undef real
#undef accreal
#undef opreal
#undef ureal
#ifndef THGenerateManyTypes
#undef TH_GENERIC_FILE
#endif
