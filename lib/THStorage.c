#include "THStorage.h"

#include <string.h>

#include "generic/THStorage.c"
#include "THGenerateAllTypes.h"
