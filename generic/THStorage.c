#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THStorage.c"
#else

THStorage *THStorage_(new)(void) { return THStorage_(newWithSize)(0); }

THStorage *THStorage_(newWithSize)(int64_t size) {
  void *ctx;
  THAllocator *allocator = THAllocator_forStorage(&ctx); /* default or caching */
  return THStorage_(newWithAllocator)(size, allocator, ctx);
}

/* Bytes for n elements, or -1 with an error recorded (negative size: ValueError; overflow:
 * MemoryError). */
static int64_t THStorage_(bytesFor)(const char *op, int64_t n) {
  int64_t bytes;
  THArgCheck(n >= 0, TH_ERR_VALUE, -1, "%s: negative storage size %lld", op, (long long)n);
  THTry(THSize_bytes(&bytes, op, n, (int64_t)sizeof(real)), -1);
  return bytes;
}

static THStorage *THStorage_(shell)(int64_t size, THAllocator *allocator, void *ctx) {
  THStorage *self = THStructCache_alloc(sizeof *self); /* recycled per thread (THGeneral.h) */
  if (!self) return NULL;
  self->data = NULL;
  self->size = size;
  atomic_init(&self->refcount, 1);
  atomic_init(&self->exports, 0);
  self->flag = TH_STORAGE_REFCOUNTED | (allocator->realloc ? TH_STORAGE_RESIZABLE : 0);
  self->allocator = allocator;
  self->allocatorContext = ctx;
  self->version = 0;
  return self;
}

THStorage *THStorage_(newWithAllocator)(int64_t size, THAllocator *allocator, void *ctx) {
  int64_t bytes = THStorage_(bytesFor)("storage", size);
  THStorage *self = bytes < 0 ? NULL : THStorage_(shell)(size, allocator, ctx);
  if (self && bytes > 0) {
    self->data = allocator->malloc(ctx, bytes);
    if (!self->data) {
      THStructCache_free(self, sizeof *self);
      self = NULL;
    }
  }
  if (!self) allocator->free(ctx, NULL, 0); /* the context is ours to release on failure */
  return self;
}

THStorage *THStorage_(newWithMapping)(const char *filename, int64_t size, int flags) {
  THMapAllocatorContext *ctx = THMapAllocatorContext_new(filename, flags);
  if (!ctx) return NULL;
  if (size == 0) size = ctx->file_size / (int64_t)sizeof(real);
  THAllocator *allocator =
      (flags & TH_ALLOCATOR_MAPPED_SHAREDMEM) ? &THSharedMemAllocator : &THMapAllocator;
  return THStorage_(newWithAllocator)(size, allocator, ctx);
}

THStorage *THStorage_(newWithDataAndAllocator)(real *data, int64_t size, THAllocator *allocator,
                                               void *ctx) {
  int64_t bytes = THStorage_(bytesFor)("storage", size);
  THStorage *self = bytes < 0 ? NULL : THStorage_(shell)(size, allocator, ctx);
  if (!self) {
    allocator->free(ctx, NULL, 0);
    return NULL;
  }
  self->data = data;
  self->flag &= ~TH_STORAGE_RESIZABLE;
  if (data) THAllocator_adopt(allocator, bytes);
  return self;
}

void THStorage_(retain)(THStorage *self) {
  if (self) THAtomic_incr(&self->refcount);
}

void THStorage_(free)(THStorage *self) {
  if (!self || !THAtomic_decrRelease(&self->refcount)) return;
  self->allocator->free(self->allocatorContext, self->data,
                        self->size * (int64_t)sizeof(real));
  THStructCache_free(self, sizeof *self);
}

real *THStorage_(data)(const THStorage *self) { return self->data; }
int64_t THStorage_(size)(const THStorage *self) { return self->size; }
size_t THStorage_(elementSize)(void) { return sizeof(real); }
int32_t THStorage_(refcount)(const THStorage *self) { return THAtomic_load(&self->refcount); }

int THStorage_(get)(real *out, const THStorage *self, int64_t idx) {
  THArgCheck(idx >= 0 && idx < self->size, TH_ERR_INDEX, -1,
             "storage index %lld is out of range for size %lld", (long long)idx,
             (long long)self->size);
  *out = self->data[idx];
  return 0;
}

int THStorage_(set)(THStorage *self, int64_t idx, real value) {
  THArgCheck(idx >= 0 && idx < self->size, TH_ERR_INDEX, -1,
             "storage index %lld is out of range for size %lld", (long long)idx,
             (long long)self->size);
  self->data[idx] = value;
  return 0;
}

void THStorage_(fill)(THStorage *self, real value) {
  for (int64_t i = 0; i < self->size; i++) self->data[i] = value;
}

/* RuntimeError if consumers outside pyth hold self's data: it must not move. */
static int THStorage_(checkNotExported)(const THStorage *self, const char *op) {
  THArgCheck(THAtomic_load(&self->exports) == 0, TH_ERR_RUNTIME, -1,
             "%s: the storage's memory is exported (held by %d numpy array(s) or DLPack "
             "consumer(s)) and cannot move; copy the tensor, or drop those arrays first", op,
             (int)THAtomic_load(&self->exports));
  return 0;
}

int THStorage_(resize)(THStorage *self, int64_t size) {
  if (size == self->size) return 0;
  THCall_exclusive();
  THTry(THStorage_(checkNotExported)(self, "resize_()"), -1);
  return THStorage_(resizeUnchecked)(self, size);
}

int THStorage_(resizeUnchecked)(THStorage *self, int64_t size) {
  int64_t bytes = THStorage_(bytesFor)("resize_()", size);
  if (bytes < 0) return -1;
  THArgCheck(self->flag & TH_STORAGE_RESIZABLE, TH_ERR_RUNTIME, -1,
             "resize_(): a storage from the '%s' allocator cannot be resized (from %lld to %lld "
             "elements)", self->allocator->name, (long long)self->size, (long long)size);
  int64_t old_bytes = self->size * (int64_t)sizeof(real);
  if (bytes == old_bytes) return 0;
  void *data = NULL;
  if (bytes > 0) {
    data = self->allocator->realloc(self->allocatorContext, self->data, old_bytes, bytes);
    if (!data) return -1;
  } else {
    self->allocator->free(self->allocatorContext, self->data, old_bytes);
  }
  self->data = data;
  self->size = size;
  return 0;
}

/* Exchanges the data (and where it came from) of two storages; the callers hold
 * exclusivity or own both. */
static void THStorage_(swap)(THStorage *self, THStorage *other) {
  THStorage tmp = *self;
  self->data = other->data;
  self->size = other->size;
  self->flag = other->flag;
  self->allocator = other->allocator;
  self->allocatorContext = other->allocatorContext;
  other->data = tmp.data;
  other->size = tmp.size;
  other->flag = tmp.flag;
  other->allocator = tmp.allocator;
  other->allocatorContext = tmp.allocatorContext;
}

int THStorage_(shareMemory)(THStorage *self) {
  if (self->allocator == &THSharedMemAllocator) return 0;
  THCall_exclusive();
  THTry(THStorage_(checkNotExported)(self, "share_memory_()"), -1);
  THMapAllocatorContext *ctx = THMapAllocatorContext_newShared();
  if (!ctx) return -1;
  THStorage *shm = THStorage_(newWithAllocator)(self->size, &THSharedMemAllocator, ctx);
  if (!shm) return -1;
  if (self->size > 0) memcpy(shm->data, self->data, (size_t)self->size * sizeof(real));
  THStorage_(swap)(self, shm);
  THStorage_(free)(shm); /* releases the old memory through its own allocator */
  return 0;
}

void THStorage_(exportRetain)(THStorage *self) {
  THStorage_(retain)(self);
  THAtomic_incr(&self->exports);
}

void THStorage_(exportRelease)(THStorage *self) {
  atomic_fetch_sub_explicit(&self->exports, 1, memory_order_acq_rel);
  THStorage_(free)(self);
}

int32_t THStorage_(exports)(const THStorage *self) { return THAtomic_load(&self->exports); }

void THStorage_(normalize)(THStorage *self) {
#ifdef TH_REAL_IS_BOOL
  unsigned char *bytes = (unsigned char *)self->data;
  for (int64_t i = 0; i < self->size; i++) bytes[i] = bytes[i] != 0;
#else
  (void)self;
#endif
}

#define TH_STORAGE_COPY_IMPL(SrcReal, srcreal)                                                  \
  int THStorage_(copy##SrcReal)(THStorage *self, TH##SrcReal##Storage *src) {                  \
    THArgCheck(self->size == src->size, TH_ERR_RUNTIME, -1,                                     \
               "copy_(): storage sizes do not match (%lld and %lld)", (long long)self->size,    \
               (long long)src->size);                                                           \
    if ((void *)self == (void *)src) return 0;                                                  \
    for (int64_t i = 0; i < self->size; i++)                                                    \
      self->data[i] = TH_STORE(TH_LOAD_##SrcReal(src->data[i]));                                \
    return 0;                                                                                   \
  }
TH_FORALL_TYPES(TH_STORAGE_COPY_IMPL)
#undef TH_STORAGE_COPY_IMPL

#endif
