#include "THHalf.h"

float TH_half2float(THHalf h) { return th_half2float(h); }
THHalf TH_float2half(float f) { return th_float2half(f); }
float TH_bfloat162float(THBFloat16 h) { return th_bfloat162float(h); }
THBFloat16 TH_float2bfloat16(float f) { return th_float2bfloat16(f); }
