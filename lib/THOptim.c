#include "THOptim.h"

#include <math.h>
#include <tgmath.h>

/* for (j in [0, len)) BODY, split between threads when par is set. */
#define THOPTIM_FOR(par, len, BODY)                                                  \
  do {                                                                               \
    _Pragma("omp parallel for if (par)") for (int64_t j = 0; j < (len); j++) { BODY; } \
    if (par) THParallel_noteTeam();                                                  \
  } while (0)

#include "generic/THOptim.c"
#include "THGenerateBlasTypes.h"
