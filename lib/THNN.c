#include "THNN.h"

#include <math.h>
#include <tgmath.h>

#include "THTensorApply.h"

#include "generic/THNNActivation.c"
#include "THGenerateBlasTypes.h"
#include "generic/THNNSoftMax.c"
#include "THGenerateBlasTypes.h"
