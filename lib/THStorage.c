#include "THStorage.h"

#include "THAllocatorRegistry.h"

#include <string.h>

#include "generic/THStorage.c"
#include "THGenerateAllTypes.h"
