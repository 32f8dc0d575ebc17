#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THStorage.h"
#else

/* A flat, refcounted buffer of `real` (TH's THStorage). Tensors are views on one. */
struct THStorage {
  real *data;
  int64_t size; /* in elements */
  TH_ATOMIC int32_t refcount;
  int32_t flag; /* TH_STORAGE_* bits */
  TH_ATOMIC int32_t exports; /* consumers outside pyth holding the data (numpy, DLPack) */
  THAllocator *allocator;
  void *allocatorContext;
  int64_t version; /* autograd's version counter: the Python layer bumps it on each write */
};

/* Constructors: one place (newWithAllocator) does the work; the rest name intent. All return
 * NULL with an error recorded on failure and free whatever they took. */
THStorage *THStorage_(new)(void);
THStorage *THStorage_(newWithSize)(int64_t size);
THStorage *THStorage_(newWithAllocator)(int64_t size, THAllocator *allocator, void *ctx);
THStorage *THStorage_(newWithMapping)(const char *filename, int64_t size, int flags);
/* Adopts data (size elements) owned elsewhere; allocator->free(ctx, data, bytes) hands it back. */
THStorage *THStorage_(newWithDataAndAllocator)(real *data, int64_t size, THAllocator *allocator,
                                               void *ctx);

void THStorage_(retain)(THStorage *self);
void THStorage_(free)(THStorage *self);

real *THStorage_(data)(const THStorage *self);
int64_t THStorage_(size)(const THStorage *self);
size_t THStorage_(elementSize)(void);
int32_t THStorage_(refcount)(const THStorage *self);

/* Checked element access: IndexError outside [0, size). Return 0, or -1 on error. */
int THStorage_(get)(real *out, const THStorage *self, int64_t idx);
int THStorage_(set)(THStorage *self, int64_t idx, real value);
void THStorage_(fill)(THStorage *self, real value);
/* Grows or shrinks, keeping the prefix; fails if the allocator cannot reallocate, or if the
 * data is exported (see exportRetain). A structural mutation (THCall_exclusive). */
int THStorage_(resize)(THStorage *self, int64_t size);
/* Moves the data into POSIX shared memory, in place (every view follows); fails if the data is
 * exported. A structural mutation. */
int THStorage_(shareMemory)(THStorage *self);

/* Exports. A consumer outside pyth that holds the data pointer (a numpy array, a DLPack
 * capsule) holds an export: a reference to the storage that also pins its data block, so
 * resize and shareMemory refuse (RuntimeError) while any export lives, instead of freeing
 * memory the consumer still reads. exportRelease drops both. */
void THStorage_(exportRetain)(THStorage *self);
void THStorage_(exportRelease)(THStorage *self);
int32_t THStorage_(exports)(const THStorage *self);
/* Non-zero bytes of a bool storage read as true: rewrites every byte to 0 or 1 (data entering
 * from outside: ndarrays, files, pickles). Other types: nothing to do. */
void THStorage_(normalize)(THStorage *self);

#ifndef TH_CDEF
/* resize without the exclusivity and export checks (the caller has made them). */
int THStorage_(resizeUnchecked)(THStorage *self, int64_t size);
#endif

/* Copy from a storage of the same size and any type: THStorage_(copyFloat), ... */
#define TH_STORAGE_COPY_DECL(SrcReal, srcreal) \
  int THStorage_(copy##SrcReal)(THStorage *self, TH##SrcReal##Storage *src);
TH_FORALL_TYPES(TH_STORAGE_COPY_DECL)
#undef TH_STORAGE_COPY_DECL

#endif
