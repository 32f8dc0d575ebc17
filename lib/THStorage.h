#ifndef TH_STORAGE_H
#define TH_STORAGE_H

#include "THAllocator.h"
#include "THGeneral.h"
#include "THTypes.h"

/* Storage flags (bit masks). */
enum { TH_STORAGE_REFCOUNTED = 1, TH_STORAGE_RESIZABLE = 2 };

#define THStorage TH_CONCAT_3(TH, Real, Storage)
#define THStorage_(NAME) TH_CONCAT_4(TH, Real, Storage_, NAME)

/* Every storage type is declared before any copy between two of them. */
#define TH_STORAGE_FWD(R, r) typedef struct TH##R##Storage TH##R##Storage;
TH_FORALL_TYPES(TH_STORAGE_FWD)
#undef TH_STORAGE_FWD

#include "generic/THStorage.h"
#include "THGenerateAllTypes.h"

#endif
