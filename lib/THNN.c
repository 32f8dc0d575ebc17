#include "THNN.h"

#include <math.h>
#include <tgmath.h>

#include "THTensorApply.h"
#include "THBlas.h"
#include "THNNConv.h"

#include <omp.h>
#include <string.h>

#include "generic/THNNActivation.c"
#include "THGenerateBlasTypes.h"
#include "generic/THNNSoftMax.c"
#include "THGenerateBlasTypes.h"
#include "generic/THNNConvolution.c"
#include "THGenerateBlasTypes.h"
#include "generic/THNNPooling.c"
#include "THGenerateBlasTypes.h"
