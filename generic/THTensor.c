#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THTensor.c"
#else

/* ---- header management ------------------------------------------------------------------- */

/* Bytes of the block holding ndim sizes and strides (room for one of each at ndim 0). */
#define TH_DIMS_BYTES(ndim) (sizeof(int64_t) * 2 * (size_t)((ndim) > 0 ? (ndim) : 1))
/* A header is one block: the struct, then room for the sizes and strides of up to
 * TH_INLINE_DIMS dims, which size/stride point into; only tensors of more dims have a second
 * block. Both come from the struct cache (THStructCache_alloc in lib/THGeneral.h), which
 * recycles them per thread instead of calling malloc and free for every tensor. */
#define TH_INLINE_DIMS 4
#define TH_HEADER_BYTES (sizeof(THTensor) + TH_DIMS_BYTES(TH_INLINE_DIMS))

static int64_t *THTensor_(inlineDims)(THTensor *self) { return (int64_t *)(self + 1); }

static void THTensor_(releaseDims)(THTensor *self) {
  if (self->size && self->size != THTensor_(inlineDims)(self))
    THStructCache_free(self->size, TH_DIMS_BYTES(self->nDimension));
}

/* Makes room for ndim sizes and strides (one array holds both). */
static int THTensor_(reserveDims)(THTensor *self, int ndim) {
  if (self->size && ndim == self->nDimension) return 0;
  int64_t *buf = THTensor_(inlineDims)(self);
  if (ndim > TH_INLINE_DIMS && !(buf = THStructCache_alloc(TH_DIMS_BYTES(ndim)))) return -1;
  THTensor_(releaseDims)(self);
  self->size = buf;
  self->stride = buf + (ndim > 0 ? ndim : 1);
  self->nDimension = ndim;
  return 0;
}

/* Points self at storage with the given geometry; no checks (callers have made them). */
static int THTensor_(rawSet)(THTensor *self, THStorage *storage, int64_t offset, int ndim,
                             const int64_t *size, const int64_t *stride) {
  int64_t sz[TH_MAX_DIM], st[TH_MAX_DIM]; /* size/stride may alias self's own arrays */
  for (int d = 0; d < ndim; d++) {
    sz[d] = size[d];
    st[d] = stride[d];
  }
  THTry(THTensor_(reserveDims)(self, ndim), -1);
  for (int d = 0; d < ndim; d++) {
    self->size[d] = sz[d];
    self->stride[d] = st[d];
  }
  if (self->storage != storage) {
    THStorage_(retain)(storage);
    THStorage_(free)(self->storage);
    self->storage = storage;
  }
  self->storageOffset = offset;
  return 0;
}

static THTensor *THTensor_(header)(void) {
  THTensor *self = THStructCache_alloc(TH_HEADER_BYTES);
  if (!self) return NULL;
  self->size = NULL;
  self->stride = NULL;
  self->nDimension = 0;
  self->storage = NULL;
  self->storageOffset = 0;
  atomic_init(&self->refcount, 1);
  self->token = THCall_token(0);
  return self;
}

/* Before changing self's structure: wait for exclusivity unless self is private to this call
 * (see THCall_exclusive in lib/THGeneral.h). */
static void THTensor_(beginMutation)(const THTensor *self) {
  if (!THCall_isPrivate(self->token)) THCall_exclusive();
}

void THTensor_(retain)(THTensor *self) {
  if (self) THAtomic_incr(&self->refcount);
}

void THTensor_(free)(THTensor *self) {
  if (!self || !THAtomic_decrRelease(&self->refcount)) return;
  THStorage_(free)(self->storage);
  THTensor_(releaseDims)(self);
  THStructCache_free(self, TH_HEADER_BYTES);
}

/* ---- construction ------------------------------------------------------------------------ */

THTensor *THTensor_(new)(void) {
  int64_t zero = 0;
  THTensor *self = THTensor_(newWithSize)(1, &zero);
  /* an empty result for the next call to size (the Python layer's new_result): private to it */
  if (self) self->token = THCall_token(1);
  return self;
}

THTensor *THTensor_(newWithSize)(int ndim, const int64_t *size) {
  int64_t numel, stride[TH_MAX_DIM];
  THTry(THShape_numel(&numel, "empty()", ndim, size), NULL);
  THTry(THShape_contiguousStrides(stride, ndim, size), NULL);
  /* A contiguous view of exactly numel elements at offset 0 fits its fresh storage: none of
   * newWithStorage's checks can fail, so the header is filled in directly and takes over the
   * storage's first reference. */
  THTensor *self = THTensor_(header)();
  if (!self) return NULL;
  if (THTensor_(reserveDims)(self, ndim) != 0 ||
      !(self->storage = THStorage_(newWithSize)(numel))) {
    THTensor_(free)(self);
    return NULL;
  }
  for (int d = 0; d < ndim; d++) {
    self->size[d] = size[d];
    self->stride[d] = stride[d];
  }
  return self;
}

/* Checks a view of storage: sizes, strides and that it stays inside the storage. */
static int THTensor_(checkView)(const char *op, int64_t offset, int ndim, const int64_t *size,
                                const int64_t *stride, int64_t *span) {
  int64_t numel;
  THTry(THShape_numel(&numel, op, ndim, size), -1);
  return THShape_span(span, op, offset, ndim, size, stride);
}

THTensor *THTensor_(newWithStorage)(THStorage *storage, int64_t offset, int ndim,
                                    const int64_t *size, const int64_t *stride) {
  int64_t span, contiguous[TH_MAX_DIM];
  THArgCheck(ndim >= 0 && ndim <= TH_MAX_DIM, TH_ERR_RUNTIME, NULL,
             "as_strided(): %d dims requested, at most %d are supported", ndim, TH_MAX_DIM);
  if (!stride) {
    THTry(THShape_contiguousStrides(contiguous, ndim, size), NULL);
    stride = contiguous;
  }
  THTry(THTensor_(checkView)("as_strided()", offset, ndim, size, stride, &span), NULL);
  if (span > storage->size) {
    char a[TH_SIZE_STR_LEN], b[TH_SIZE_STR_LEN];
    THError_set(TH_ERR_RUNTIME,
                "as_strided(): size %s, stride %s and storage offset %lld need a storage of %lld "
                "elements, but it has %lld",
                THSize_str(a, sizeof a, ndim, size), THSize_str(b, sizeof b, ndim, stride),
                (long long)offset, (long long)span, (long long)storage->size);
    return NULL;
  }
  THTensor *self = THTensor_(header)();
  if (!self) return NULL;
  if (THTensor_(rawSet)(self, storage, offset, ndim, size, stride) != 0) {
    THTensor_(free)(self);
    return NULL;
  }
  return self;
}

THTensor *THTensor_(newAsStrided)(THTensor *src, int64_t offset, int ndim, const int64_t *size,
                                  const int64_t *stride) {
  return THTensor_(newWithStorage)(src->storage, offset, ndim, size, stride);
}

THTensor *THTensor_(newWithTensor)(THTensor *src) {
  THTensor *self = THTensor_(header)();
  if (!self) return NULL;
  if (THTensor_(set)(self, src) != 0) {
    THTensor_(free)(self);
    return NULL;
  }
  return self;
}

THTensor *THTensor_(newClone)(THTensor *src) {
  THTensor *self = THTensor_(newWithSize)(src->nDimension, src->size);
  if (self && THTensor_(copy)(self, src) != 0) {
    THTensor_(free)(self);
    return NULL;
  }
  return self;
}

THTensor *THTensor_(newContiguous)(THTensor *src) {
  if (!THTensor_(isContiguous)(src)) return THTensor_(newClone)(src);
  THTensor_(retain)(src);
  return src;
}

/* Every view constructor: a new header on src, then the in-place op on it. */
#define TH_NEW_VIEW(CALL)                       \
  THTensor *self = THTensor_(newWithTensor)(src); \
  if (self && (CALL) != 0) {                    \
    THTensor_(free)(self);                      \
    return NULL;                                \
  }                                             \
  return self;

THTensor *THTensor_(newNarrow)(THTensor *src, int dim, int64_t start, int64_t length) {
  TH_NEW_VIEW(THTensor_(narrow)(self, src, dim, start, length))
}
THTensor *THTensor_(newSelect)(THTensor *src, int dim, int64_t index) {
  TH_NEW_VIEW(THTensor_(select)(self, src, dim, index))
}
THTensor *THTensor_(newTranspose)(THTensor *src, int dim0, int dim1) {
  TH_NEW_VIEW(THTensor_(transpose)(self, src, dim0, dim1))
}
THTensor *THTensor_(newPermute)(THTensor *src, int ndim, const int *dims) {
  TH_NEW_VIEW(THTensor_(permute)(self, src, ndim, dims))
}
THTensor *THTensor_(newUnfold)(THTensor *src, int dim, int64_t size, int64_t step) {
  TH_NEW_VIEW(THTensor_(unfold)(self, src, dim, size, step))
}
THTensor *THTensor_(newSqueeze)(THTensor *src) { TH_NEW_VIEW(THTensor_(squeeze)(self, src)) }
THTensor *THTensor_(newSqueeze1d)(THTensor *src, int dim) {
  TH_NEW_VIEW(THTensor_(squeeze1d)(self, src, dim))
}
THTensor *THTensor_(newUnsqueeze1d)(THTensor *src, int dim) {
  TH_NEW_VIEW(THTensor_(unsqueeze1d)(self, src, dim))
}
#undef TH_NEW_VIEW

THTensor *THTensor_(newView)(THTensor *src, int ndim, const int64_t *size) {
  int64_t numel = THTensor_(nElement)(src), newsize[TH_MAX_DIM], newstride[TH_MAX_DIM];
  THArgCheck(ndim >= 0 && ndim <= TH_MAX_DIM, TH_ERR_RUNTIME, NULL,
             "view(): %d dims requested, at most %d are supported", ndim, TH_MAX_DIM);
  THTry(THShape_inferSize(newsize, "view()", numel, ndim, size), NULL);
  THTry(THShape_viewStrides(newstride, src->nDimension, src->size, src->stride, ndim, newsize),
        NULL);
  return THTensor_(newWithStorage)(src->storage, src->storageOffset, ndim, newsize, newstride);
}

THTensor *THTensor_(newExpand)(THTensor *src, int ndim, const int64_t *size) {
  char a[TH_SIZE_STR_LEN], b[TH_SIZE_STR_LEN];
  int64_t newsize[TH_MAX_DIM], newstride[TH_MAX_DIM];
  THArgCheck(ndim >= src->nDimension && ndim <= TH_MAX_DIM, TH_ERR_RUNTIME, NULL,
             "expand(): the number of sizes provided (%d) must be greater or equal to the number "
             "of dimensions in the tensor (%d)", ndim, src->nDimension);
  for (int d = ndim - 1, s = src->nDimension - 1; d >= 0; d--, s--) {
    int64_t want = size[d];
    if (s < 0) {
      THArgCheck(want >= 0, TH_ERR_RUNTIME, NULL,
                 "expand(): the expanded size %lld is not allowed in a leading, non-existing "
                 "dimension %d", (long long)want, d);
      newsize[d] = want;
      newstride[d] = 0;
    } else if (want == -1 || want == src->size[s]) {
      newsize[d] = src->size[s];
      newstride[d] = src->stride[s];
    } else {
      THArgCheck(src->size[s] == 1 && want >= 0, TH_ERR_RUNTIME, NULL,
                 "expand(): the expanded size %lld must match the existing size %lld at "
                 "non-singleton dim %d; target sizes %s, tensor sizes %s",
                 (long long)want, (long long)src->size[s], d,
                 THSize_str(a, sizeof a, ndim, size),
                 THSize_str(b, sizeof b, src->nDimension, src->size));
      newsize[d] = want;
      newstride[d] = 0;
    }
  }
  return THTensor_(newWithStorage)(src->storage, src->storageOffset, ndim, newsize, newstride);
}

THTensor *THTensor_(newDiagonal)(THTensor *src, int64_t offset, int dim1, int dim2) {
  int d1, d2;
  THTry(THShape_wrapDim(&d1, "diagonal()", dim1, src->nDimension), NULL);
  THTry(THShape_wrapDim(&d2, "diagonal()", dim2, src->nDimension), NULL);
  THArgCheck(d1 != d2, TH_ERR_RUNTIME, NULL,
             "diagonal(): dim1 and dim2 cannot be the same dim (%d)", d1);
  int64_t start = src->storageOffset, len;
  if (offset >= 0) {
    len = TH_MAX(TH_MIN(src->size[d1], src->size[d2] - offset), 0);
    if (len > 0) start += offset * src->stride[d2];
  } else {
    len = TH_MAX(TH_MIN(src->size[d1] + offset, src->size[d2]), 0);
    if (len > 0) start -= offset * src->stride[d1];
  }
  int64_t size[TH_MAX_DIM], stride[TH_MAX_DIM];
  int n = 0;
  for (int d = 0; d < src->nDimension; d++) {
    if (d == d1 || d == d2) continue;
    size[n] = src->size[d];
    stride[n++] = src->stride[d];
  }
  size[n] = len;
  stride[n++] = src->stride[d1] + src->stride[d2];
  return THTensor_(newWithStorage)(src->storage, start, n, size, stride);
}

/* ---- accessors --------------------------------------------------------------------------- */

int THTensor_(nDimension)(const THTensor *self) { return self->nDimension; }

int64_t THTensor_(size)(const THTensor *self, int dim) {
  int d;
  THTry(THShape_wrapDim(&d, "size()", dim, self->nDimension), -1);
  return self->nDimension ? self->size[d] : 1;
}

int64_t THTensor_(stride)(const THTensor *self, int dim) {
  int d;
  THTry(THShape_wrapDim(&d, "stride()", dim, self->nDimension), -1);
  return self->nDimension ? self->stride[d] : 1;
}

int64_t THTensor_(storageOffset)(const THTensor *self) { return self->storageOffset; }

int64_t THTensor_(nElement)(const THTensor *self) {
  return THShape_count(self->nDimension, self->size);
}

THStorage *THTensor_(storage)(const THTensor *self) { return self->storage; }

THStorage *THTensor_(retainedStorage)(const THTensor *self) {
  THStorage_(retain)(self->storage);
  return self->storage;
}

THStorage *THTensor_(export)(THTensor *self, THView *view) {
  THTry(THTensor_(checkBounds)(self, "numpy()"), NULL);
  THStorage_(exportRetain)(self->storage);
  view->data = (char *)THTensor_(data)(self);
  view->ndim = self->nDimension;
  view->offset = self->storageOffset;
  for (int d = 0; d < self->nDimension; d++) {
    view->size[d] = self->size[d];
    view->stride[d] = self->stride[d];
  }
  return self->storage;
}

real *THTensor_(data)(const THTensor *self) {
  return self->storage->data ? self->storage->data + self->storageOffset : NULL;
}

int THTensor_(isContiguous)(const THTensor *self) {
  return THShape_isContiguous(self->nDimension, self->size, self->stride);
}

int THTensor_(isSameSizeAs)(const THTensor *self, const THTensor *src) {
  if (self->nDimension != src->nDimension) return 0;
  for (int d = 0; d < self->nDimension; d++)
    if (self->size[d] != src->size[d]) return 0;
  return 1;
}

int THTensor_(isSetTo)(const THTensor *self, const THTensor *src) {
  if (self->storage != src->storage || self->storageOffset != src->storageOffset ||
      !THTensor_(isSameSizeAs)(self, src))
    return 0;
  for (int d = 0; d < self->nDimension; d++)
    if (self->stride[d] != src->stride[d]) return 0;
  return 1;
}

int THTensor_(checkBounds)(const THTensor *self, const char *op) {
  int64_t span;
  THTry(THShape_span(&span, op, self->storageOffset, self->nDimension, self->size, self->stride),
        -1);
  THArgCheck(span <= self->storage->size, TH_ERR_RUNTIME, -1,
             "%s: the tensor reaches storage element %lld, but its storage has only %lld "
             "elements (was the storage resized under it?)", op, (long long)span - 1,
             (long long)self->storage->size);
  return 0;
}

/* ---- in-place geometry ------------------------------------------------------------------- */

int THTensor_(setStorage)(THTensor *self, THStorage *storage, int64_t offset, int ndim,
                          const int64_t *size, const int64_t *stride) {
  int64_t span, contiguous[TH_MAX_DIM];
  THArgCheck(ndim >= 0 && ndim <= TH_MAX_DIM, TH_ERR_RUNTIME, -1,
             "set_(): %d dims requested, at most %d are supported", ndim, TH_MAX_DIM);
  THTensor_(beginMutation)(self);
  if (!stride) {
    THTry(THShape_contiguousStrides(contiguous, ndim, size), -1);
    stride = contiguous;
  }
  THTry(THTensor_(checkView)("set_()", offset, ndim, size, stride, &span), -1);
  if (span > storage->size) {
    if (!(storage->flag & TH_STORAGE_RESIZABLE)) {
      char a[TH_SIZE_STR_LEN];
      THError_set(TH_ERR_RUNTIME,
                  "set_(): size %s at offset %lld needs %lld elements, but the storage has %lld "
                  "and its '%s' allocator cannot grow it",
                  THSize_str(a, sizeof a, ndim, size), (long long)offset, (long long)span,
                  (long long)storage->size, storage->allocator->name);
      return -1;
    }
    /* a storage only this private header holds (a result being sized) grows without waiting */
    const int own = storage == self->storage && THStorage_(refcount)(storage) == 1 &&
                    THStorage_(exports)(storage) == 0 && THCall_isPrivate(self->token);
    THTry(own ? THStorage_(resizeUnchecked)(storage, span) : THStorage_(resize)(storage, span),
          -1);
  }
  return THTensor_(rawSet)(self, storage, offset, ndim, size, stride);
}

int THTensor_(set)(THTensor *self, THTensor *src) {
  if (self == src) return 0;
  THTensor_(beginMutation)(self);
  return THTensor_(rawSet)(self, src->storage, src->storageOffset, src->nDimension, src->size,
                           src->stride);
}

int THTensor_(resize)(THTensor *self, int ndim, const int64_t *size) {
  int64_t numel, stride[TH_MAX_DIM];
  THTry(THShape_numel(&numel, "resize_()", ndim, size), -1);
  if (ndim == self->nDimension) { /* same sizes: nothing moves, strides stay as they are */
    int same = 1;
    for (int d = 0; d < ndim; d++) same &= self->size[d] == size[d];
    if (same) return THTensor_(checkBounds)(self, "resize_()");
  }
  THTry(THShape_contiguousStrides(stride, ndim, size), -1);
  return THTensor_(setStorage)(self, self->storage, self->storageOffset, ndim, size, stride);
}

int THTensor_(resizeAs)(THTensor *self, THTensor *src) {
  return THTensor_(resize)(self, src->nDimension, src->size);
}

int THTensor_(narrow)(THTensor *self, THTensor *src, int dim, int64_t start, int64_t length) {
  int d;
  THArgCheck(src->nDimension > 0, TH_ERR_RUNTIME, -1, "narrow(): cannot narrow a 0-dim tensor");
  THTry(THShape_wrapDim(&d, "narrow()", dim, src->nDimension), -1);
  int64_t n = src->size[d];
  THArgCheck(start >= -n && start <= n, TH_ERR_INDEX, -1,
             "narrow(): start %lld is out of range for dim %d of size %lld", (long long)start, d,
             (long long)n);
  if (start < 0) start += n;
  THArgCheck(length >= 0, TH_ERR_RUNTIME, -1, "narrow(): length %lld must be non-negative",
             (long long)length);
  int64_t end;
  THArgCheck(THSize_add(&end, start, length) == 0 && end <= n, TH_ERR_RUNTIME, -1,
             "narrow(): start %lld + length %lld exceeds size %lld of dim %d", (long long)start,
             (long long)length, (long long)n, d);
  THTensor_(beginMutation)(self);
  THTry(THTensor_(set)(self, src), -1);
  if (length > 0) self->storageOffset += start * self->stride[d];
  self->size[d] = length;
  return 0;
}

int THTensor_(select)(THTensor *self, THTensor *src, int dim, int64_t index) {
  int d;
  THArgCheck(src->nDimension > 0, TH_ERR_INDEX, -1,
             "select(): cannot select from a 0-dim tensor");
  THTry(THShape_wrapDim(&d, "select()", dim, src->nDimension), -1);
  int64_t n = src->size[d];
  THArgCheck(index >= -n && index < n, TH_ERR_INDEX, -1,
             "select(): index %lld is out of range for dim %d of size %lld", (long long)index, d,
             (long long)n);
  if (index < 0) index += n;
  THTensor_(beginMutation)(self);
  int64_t size[TH_MAX_DIM], stride[TH_MAX_DIM];
  int m = 0;
  for (int k = 0; k < src->nDimension; k++) {
    if (k == d) continue;
    size[m] = src->size[k];
    stride[m++] = src->stride[k];
  }
  return THTensor_(rawSet)(self, src->storage, src->storageOffset + index * src->stride[d], m,
                           size, stride);
}

int THTensor_(transpose)(THTensor *self, THTensor *src, int dim0, int dim1) {
  int d0, d1;
  THTry(THShape_wrapDim(&d0, "transpose()", dim0, src->nDimension), -1);
  THTry(THShape_wrapDim(&d1, "transpose()", dim1, src->nDimension), -1);
  THTensor_(beginMutation)(self);
  THTry(THTensor_(set)(self, src), -1);
  if (self->nDimension == 0 || d0 == d1) return 0;
  int64_t t = self->size[d0];
  self->size[d0] = self->size[d1];
  self->size[d1] = t;
  t = self->stride[d0];
  self->stride[d0] = self->stride[d1];
  self->stride[d1] = t;
  return 0;
}

int THTensor_(permute)(THTensor *self, THTensor *src, int ndim, const int *dims) {
  int seen[TH_MAX_DIM] = {0}, w[TH_MAX_DIM];
  THArgCheck(ndim == src->nDimension, TH_ERR_RUNTIME, -1,
             "permute(): number of dims in the permutation (%d) does not match the tensor's "
             "(%d)", ndim, src->nDimension);
  for (int i = 0; i < ndim; i++) {
    THTry(THShape_wrapDim(&w[i], "permute()", dims[i], ndim), -1);
    THArgCheck(!seen[w[i]], TH_ERR_RUNTIME, -1, "permute(): dim %d is repeated", w[i]);
    seen[w[i]] = 1;
  }
  THTensor_(beginMutation)(self);
  int64_t size[TH_MAX_DIM], stride[TH_MAX_DIM];
  for (int i = 0; i < ndim; i++) {
    size[i] = src->size[w[i]];
    stride[i] = src->stride[w[i]];
  }
  return THTensor_(rawSet)(self, src->storage, src->storageOffset, ndim, size, stride);
}

int THTensor_(unfold)(THTensor *self, THTensor *src, int dim, int64_t size, int64_t step) {
  int d;
  THTry(THShape_wrapDim(&d, "unfold()", dim, src->nDimension), -1);
  THArgCheck(src->nDimension < TH_MAX_DIM, TH_ERR_RUNTIME, -1,
             "unfold(): the result would have more than %d dims", TH_MAX_DIM);
  int64_t n = src->nDimension ? src->size[d] : 1, st = src->nDimension ? src->stride[d] : 1;
  THArgCheck(step > 0, TH_ERR_RUNTIME, -1, "unfold(): step %lld must be positive",
             (long long)step);
  THArgCheck(size >= 0 && size <= n, TH_ERR_RUNTIME, -1,
             "unfold(): size %lld is out of range for dim %d of size %lld (expected in [0, "
             "%lld])", (long long)size, d, (long long)n, (long long)n);
  int64_t nsize[TH_MAX_DIM], nstride[TH_MAX_DIM];
  int m = src->nDimension;
  for (int k = 0; k < m; k++) {
    nsize[k] = src->size[k];
    nstride[k] = src->stride[k];
  }
  if (m > 0) {
    nsize[d] = (n - size) / step + 1;
    /* a step past the dim leaves one window, whose stride is never used */
    if (THSize_mul(&nstride[d], step, st) != 0) nstride[d] = nsize[d] == 1 ? st : -1;
    THArgCheck(nstride[d] >= 0, TH_ERR_RUNTIME, -1,
               "unfold(): step %lld times stride %lld overflows int64", (long long)step,
               (long long)st);
  }
  THTensor_(beginMutation)(self);
  nsize[m] = size;
  nstride[m] = st;
  return THTensor_(rawSet)(self, src->storage, src->storageOffset, m + 1, nsize, nstride);
}

int THTensor_(squeeze)(THTensor *self, THTensor *src) {
  THTensor_(beginMutation)(self);
  int64_t size[TH_MAX_DIM], stride[TH_MAX_DIM];
  int m = 0;
  for (int k = 0; k < src->nDimension; k++) {
    if (src->size[k] == 1) continue;
    size[m] = src->size[k];
    stride[m++] = src->stride[k];
  }
  return THTensor_(rawSet)(self, src->storage, src->storageOffset, m, size, stride);
}

int THTensor_(squeeze1d)(THTensor *self, THTensor *src, int dim) {
  int d;
  THTry(THShape_wrapDim(&d, "squeeze()", dim, src->nDimension), -1);
  if (src->nDimension == 0 || src->size[d] != 1) return THTensor_(set)(self, src);
  return THTensor_(select)(self, src, d, 0);
}

int THTensor_(unsqueeze1d)(THTensor *self, THTensor *src, int dim) {
  int d;
  THArgCheck(src->nDimension < TH_MAX_DIM, TH_ERR_RUNTIME, -1,
             "unsqueeze(): the result would have more than %d dims", TH_MAX_DIM);
  THTry(THShape_wrapDim(&d, "unsqueeze()", dim, src->nDimension + 1), -1);
  THTensor_(beginMutation)(self);
  int64_t size[TH_MAX_DIM], stride[TH_MAX_DIM];
  int m = src->nDimension;
  for (int k = 0, j = 0; k <= m; k++) {
    if (k == d) {
      size[k] = 1;
      /* the stride of a size-1 dim is never used; past int64 (a size-0 view) it is 1 */
      if (d >= m || THSize_mul(&stride[k], src->size[d], src->stride[d]) != 0) stride[k] = 1;
    } else {
      size[k] = src->size[j];
      stride[k] = src->stride[j++];
    }
  }
  return THTensor_(rawSet)(self, src->storage, src->storageOffset, m + 1, size, stride);
}

/* ---- data -------------------------------------------------------------------------------- */

static void THTensor_(fillRow)(void *ctx, int64_t n, char **data, const int64_t *stride) {
  const real value = *(const real *)ctx;
  TH_ROW_LOOP1(n, data, stride, real, x, *x = value;);
}

int THTensor_(fill)(THTensor *self, real value) {
  THTry(THTensor_(checkBounds)(self, "fill_()"), -1);
  /* A stride-0 dim writes one element over and over: it is filled once (an expanded view of
   * 2^40 elements over one would otherwise take hours; the result is the same). */
  int64_t size[TH_MAX_DIM];
  for (int d = 0; d < self->nDimension; d++) {
    if (self->size[d] == 0) return 0;
    size[d] = self->stride[d] == 0 ? 1 : self->size[d];
  }
  THIter it;
  const int64_t *strides[1] = {self->stride};
  const int64_t elsize[1] = {sizeof(real)};
  THIter_init(&it, 1, self->nDimension, size, strides, elsize, 0);
  char *base[1] = {(char *)THTensor_(data)(self)};
  THIter_run(&it, base, THTensor_(fillRow), &value, TH_WEIGHT_MEMORY);
  return 0;
}

int THTensor_(zero)(THTensor *self) {
  real zero;
  memset(&zero, 0, sizeof zero);
  return THTensor_(fill)(self, zero);
}

int THTensor_(gatherOffsets)(THTensor *out, THTensor *from, const int64_t *offsets, int64_t n) {
  const THStorage *src = from->storage;
  THArgCheck(THTensor_(isContiguous)(out) && THTensor_(nElement)(out) == n, TH_ERR_RUNTIME, -1,
             "gatherOffsets(): the output must be contiguous with %lld elements", (long long)n);
  THTry(THTensor_(checkBounds)(out, "gatherOffsets()"), -1);
  real *dst = THTensor_(data)(out);
  for (int64_t i = 0; i < n; i++) {
    THArgCheck(offsets[i] >= 0 && offsets[i] < src->size, TH_ERR_INDEX, -1,
               "gatherOffsets(): offset %lld is outside a storage of %lld elements",
               (long long)offsets[i], (long long)src->size);
    dst[i] = src->data[offsets[i]];
  }
  return 0;
}

int THTensor_(scatterOffsets)(THTensor *to, const int64_t *offsets, int64_t n,
                              THTensor *values) {
  THStorage *dst = to->storage;
  THArgCheck(THTensor_(isContiguous)(values) && THTensor_(nElement)(values) == n, TH_ERR_RUNTIME,
             -1, "scatterOffsets(): the values must be contiguous with %lld elements",
             (long long)n);
  for (int64_t i = 0; i < n; i++)
    THArgCheck(offsets[i] >= 0 && offsets[i] < dst->size, TH_ERR_INDEX, -1,
               "scatterOffsets(): offset %lld is outside a storage of %lld elements",
               (long long)offsets[i], (long long)dst->size);
  const real *src = THTensor_(data)(values);
  for (int64_t i = 0; i < n; i++) dst->data[offsets[i]] = src[i];
  return 0;
}

#undef TH_DIMS_BYTES
#undef TH_INLINE_DIMS
#undef TH_HEADER_BYTES

#endif
