#include "THNN.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <tgmath.h>

#include "THBlas.h"
#include "THNNConv.h"
#include "THTensorApply.h"

#include "generic/THNNRows.c"
#include "THGenerateBlasTypes.h"
#include "generic/THNNActivation.c"
#include "THGenerateBlasTypes.h"
#include "generic/THNNSoftMax.c"
#include "THGenerateBlasTypes.h"
#include "generic/THNNNormalization.c"
#include "THGenerateBlasTypes.h"
#include "generic/THNNLookupTable.c"
#include "THGenerateBlasTypes.h"
#include "generic/THNNConvolution.c"
#include "THGenerateBlasTypes.h"
#include "generic/THNNPooling.c"
#include "THGenerateBlasTypes.h"
#include "generic/THNNLinear.c"
#include "THGenerateBlasTypes.h"
#include "generic/THNNRecurrent.c"
#include "THGenerateBlasTypes.h"
#include "generic/THNNGridSampler.c"
#include "THGenerateBlasTypes.h"
#include "generic/THNNCTC.c"
#include "THGenerateBlasTypes.h"
#include "generic/THNNAttention.c"
#include "THGenerateBlasTypes.h"
