#ifndef TH_TYPES_H
#define TH_TYPES_H

/* The ten element types, in one list.
 *
 * TH_FORALL_TYPES(_) calls _(Real, real) once per type. Generic code uses it where a function
 * exists per PAIR of types (copy from every source type): the generate headers stamp the
 * destination type, the list stamps the source, and no pair is written by hand.
 *
 * TH_LOAD(x) turns a stored `real` into its compute type (float for Half and BFloat16, the type
 * itself otherwise); TH_STORE(v) turns any arithmetic value back into `real`. The Real-named
 * forms (TH_LOAD_Half, ...) serve code that names the type explicitly.
 */

#include "THHalf.h"

#define TH_FORALL_TYPES(_) \
  _(Byte, uint8_t)         \
  _(Char, int8_t)          \
  _(Short, int16_t)        \
  _(Int, int32_t)          \
  _(Long, int64_t)         \
  _(Float, float)          \
  _(Double, double)        \
  _(Half, THHalf)          \
  _(BFloat16, THBFloat16)  \
  _(Bool, bool)

#ifndef TH_CDEF
#define TH_LOAD_Byte(x) (x)
#define TH_LOAD_Char(x) (x)
#define TH_LOAD_Short(x) (x)
#define TH_LOAD_Int(x) (x)
#define TH_LOAD_Long(x) (x)
#define TH_LOAD_Float(x) (x)
#define TH_LOAD_Double(x) (x)
#define TH_LOAD_Half(x) th_half2float(x)
#define TH_LOAD_BFloat16(x) th_bfloat162float(x)
#define TH_LOAD_Bool(x) (x)

#define TH_STORE_Byte(v) ((uint8_t)(v))
#define TH_STORE_Char(v) ((int8_t)(v))
#define TH_STORE_Short(v) ((int16_t)(v))
#define TH_STORE_Int(v) ((int32_t)(v))
#define TH_STORE_Long(v) ((int64_t)(v))
#define TH_STORE_Float(v) ((float)(v))
#define TH_STORE_Double(v) ((double)(v))
#define TH_STORE_Half(v) th_float2half((float)(v))
#define TH_STORE_BFloat16(v) th_float2bfloat16((float)(v))
#define TH_STORE_Bool(v) ((bool)((v) != 0))

/* Forms that follow the Real being stamped. */
#define TH_LOAD(x) TH_CONCAT_2(TH_LOAD_, Real)(x)
#define TH_STORE(v) TH_CONCAT_2(TH_STORE_, Real)(v)
#endif

#endif
