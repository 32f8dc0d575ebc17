#include "THTensorRandom.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "THTensorApply.h"
#include "THTensorMath.h"

/* What a sampling row function reads: the generator (locked by the caller) and the
 * distribution's parameters. The check passes over probability / std tensors report the first
 * bad value through `bad` and `a`. */
typedef struct THRandomCtx {
  THGenerator *gen;
  double a, b;     /* the distribution's two parameters (p; mean, std; from, to; ...) */
  int64_t from;    /* random_: the smallest value */
  uint64_t range;  /* random_: the number of values (0 means 2^64) */
  int bad;
} THRandomCtx;

/* multinomial without replacement: a category and its arrival time. */
typedef struct THMultinomialKey {
  double key;
  int64_t index;
} THMultinomialKey;

#include "generic/THTensorRandom.c"
#include "THGenerateAllTypes.h"
