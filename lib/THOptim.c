#include "THOptim.h"

#include <math.h>
#include <tgmath.h>

#include "generic/THOptim.c"
#include "THGenerateBlasTypes.h"
