#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THStorage.h"
#else

/* A flat, refcounted buffer of `real` (TH's THStorage). Tensors are views on one. */
struct THStorage {
  real *data;
  int64_t size; /* in elements */
  TH_ATOMIC int32_t refcount;
  int32_t flag; /* TH_STORAGE_* bits */
  THAllocator *allocator;
  void *allocatorContext;
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
/* Grows or shrinks, keeping the prefix; fails if the allocator cannot reallocate. */
int THStorage_(resize)(THStorage *self, int64_t size);
void THStorage_(swap)(THStorage *self, THStorage *other);
/* Moves the data into POSIX shared memory, in place (every view follows). */
int THStorage_(shareMemory)(THStorage *self);

/* Copy from a storage of the same size and any type: THStorage_(copyFloat), ... */
#define TH_STORAGE_COPY_DECL(SrcReal, srcreal) \
  int THStorage_(copy##SrcReal)(THStorage *self, TH##SrcReal##Storage *src);
TH_FORALL_TYPES(TH_STORAGE_COPY_DECL)
#undef TH_STORAGE_COPY_DECL

#endif
