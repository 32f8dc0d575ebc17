#ifndef TH_H
#define TH_H

/* The umbrella header: the whole public C API of pyth's core. build_ffi.py preprocesses this
 * file (with TH_CDEF defined) to derive the cffi declarations, so what is declared here is
 * exactly what pyth._th.lib exposes. */

#include "THGeneral.h"
#include "THAtomic.h"
#include "THHalf.h"
#include "THTypes.h"
#include "THAllocator.h"
#include "THCachingAllocator.h"
#include "THAllocatorRegistry.h"
#include "THShape.h"
#include "THStorage.h"
#include "THTensor.h"
#include "THTensorMath.h"
#include "THTensorSort.h"
#include "THTensorIndex.h"
#include "THTensorRandom.h"
#include "THTensorShape.h"
#include "THTensorLinalg.h"
#include "THTensorReduce.h"
#include "THTensorProgram.h"
#include "THNN.h"
#include "THOptim.h"

#endif
