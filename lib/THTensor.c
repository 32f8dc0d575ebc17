#include "THTensor.h"

#include <string.h>

#include "THTensorApply.h"

#include "generic/THTensor.c"
#include "THGenerateAllTypes.h"

#include "generic/THTensorCopy.c"
#include "THGenerateAllTypes.h"
