#include "THTensorShape.h"

#include <string.h>

#include "THTensorApply.h"

#include "generic/THTensorShape.c"
#include "THGenerateAllTypes.h"
