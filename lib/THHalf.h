#ifndef TH_HALF_H
#define TH_HALF_H

/* The two 16-bit float types. Each is a struct around its bit pattern, so generic code cannot
 * do arithmetic on one by accident: it converts with TH_LOAD / TH_STORE (THTypes.h), computing
 * in float and rounding to nearest-even on store. */

#include "THGeneral.h"
#ifndef TH_CDEF
#include <string.h>
#endif

typedef struct THHalf { uint16_t x; } THHalf;         /* IEEE 754 binary16 */
typedef struct THBFloat16 { uint16_t x; } THBFloat16; /* top half of a binary32 */

/* Out-of-line versions, for the C API and cffi. */
float TH_half2float(THHalf h);
THHalf TH_float2half(float f);
float TH_bfloat162float(THBFloat16 h);
THBFloat16 TH_float2bfloat16(float f);

#ifndef TH_CDEF
static inline uint32_t th_float_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static inline float th_bits_float(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

static inline float th_half2float(THHalf h) {
  uint32_t sign = (uint32_t)(h.x & 0x8000u) << 16;
  uint32_t e = (h.x >> 10) & 0x1fu, m = h.x & 0x3ffu;
  if (e == 0x1f) return th_bits_float(sign | 0x7f800000u | (m << 13)); /* inf, NaN */
  if (e == 0) {                                                        /* zero, subnormal */
    float v = (float)m * 5.9604644775390625e-8f;                       /* m * 2^-24 */
    return sign ? -v : v;
  }
  return th_bits_float(sign | ((e + 112u) << 23) | (m << 13));
}

/* Drops the low `shift` bits of v, rounding to nearest with ties to even. */
static inline uint32_t th_round_shift(uint32_t v, int shift) {
  uint32_t kept = v >> shift, rem = v & ((1u << shift) - 1u), half = 1u << (shift - 1);
  return kept + (rem > half || (rem == half && (kept & 1u)));
}

static inline THHalf th_float2half(float f) {
  uint32_t x = th_float_bits(f), a = x & 0x7fffffffu;
  uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
  THHalf h;
  if (a > 0x7f800000u) { h.x = sign | 0x7e00u; return h; }  /* NaN stays a (quiet) NaN */
  if (a >= 0x47800000u) { h.x = sign | 0x7c00u; return h; } /* >= 65536: infinity */
  int e = (int)(a >> 23) - 112;                             /* the half's biased exponent */
  if (e > 0) {
    /* normal: keep exponent and 10 mantissa bits; a carry may round up into infinity */
    uint32_t v = ((uint32_t)e << 23) | (a & 0x7fffffu);
    h.x = sign | (uint16_t)th_round_shift(v, 13);
    return h;
  }
  int shift = 14 - e; /* subnormal: value = significand >> shift units of 2^-24 */
  if (shift > 24) { h.x = sign; return h; }
  h.x = sign | (uint16_t)th_round_shift((a & 0x7fffffu) | 0x800000u, shift);
  return h;
}

static inline float th_bfloat162float(THBFloat16 b) { return th_bits_float((uint32_t)b.x << 16); }

static inline THBFloat16 th_float2bfloat16(float f) {
  uint32_t x = th_float_bits(f);
  THBFloat16 b;
  if ((x & 0x7fffffffu) > 0x7f800000u) b.x = (uint16_t)((x >> 16) | 0x40u);
  else b.x = (uint16_t)th_round_shift(x, 16);
  return b;
}
#endif

#endif
