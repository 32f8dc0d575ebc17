#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THTensor.h"
#else

/* A strided view on a storage: element (i0, i1, ...) lives at
 *   storage->data[storageOffset + i0*stride[0] + i1*stride[1] + ...].
 * nDimension may be 0 (a scalar with one element); any size may be 0 (no elements).
 * Sizes and strides are int64. `size` and `stride` share one allocation. */
struct THTensor {
  int64_t *size;
  int64_t *stride;
  int nDimension;
  THStorage *storage;
  int64_t storageOffset;
  TH_ATOMIC int32_t refcount;
  uint64_t token; /* the call that made it (THCall_token): it may reshape it without waiting */
};

/* ---- construction (NULL with an error recorded on failure) ---- */
/* 1-D, zero elements, on a fresh empty storage. */
THTensor *THTensor_(new)(void);
/* Contiguous, uninitialised. Negative sizes: ValueError; overflowing ones: MemoryError. */
THTensor *THTensor_(newWithSize)(int ndim, const int64_t *size);
/* A view of storage; stride NULL means contiguous. Never grows the storage: a view that would
 * reach past its end is a RuntimeError. */
THTensor *THTensor_(newWithStorage)(THStorage *storage, int64_t offset, int ndim,
                                    const int64_t *size, const int64_t *stride);
/* A view of src's storage with the given geometry (as_strided): one call reads src's storage
 * and retains it, so a concurrent set_ on src cannot free it in between. */
THTensor *THTensor_(newAsStrided)(THTensor *src, int64_t offset, int ndim, const int64_t *size,
                                  const int64_t *stride);
/* Another tensor header on the same storage with the same geometry. */
THTensor *THTensor_(newWithTensor)(THTensor *src);
THTensor *THTensor_(newClone)(THTensor *src);
/* src itself (retained) when contiguous, else a contiguous copy. */
THTensor *THTensor_(newContiguous)(THTensor *src);

/* View constructors: each returns a new header on src's storage. */
THTensor *THTensor_(newNarrow)(THTensor *src, int dim, int64_t start, int64_t length);
THTensor *THTensor_(newSelect)(THTensor *src, int dim, int64_t index);
THTensor *THTensor_(newTranspose)(THTensor *src, int dim0, int dim1);
THTensor *THTensor_(newPermute)(THTensor *src, int ndim, const int *dims);
THTensor *THTensor_(newUnfold)(THTensor *src, int dim, int64_t size, int64_t step);
THTensor *THTensor_(newSqueeze)(THTensor *src);
THTensor *THTensor_(newSqueeze1d)(THTensor *src, int dim);
THTensor *THTensor_(newUnsqueeze1d)(THTensor *src, int dim);
THTensor *THTensor_(newView)(THTensor *src, int ndim, const int64_t *size);
THTensor *THTensor_(newExpand)(THTensor *src, int ndim, const int64_t *size);
THTensor *THTensor_(newDiagonal)(THTensor *src, int64_t offset, int dim1, int dim2);

void THTensor_(retain)(THTensor *self);
void THTensor_(free)(THTensor *self);

/* ---- accessors ---- */
int THTensor_(nDimension)(const THTensor *self);
int64_t THTensor_(size)(const THTensor *self, int dim);
int64_t THTensor_(stride)(const THTensor *self, int dim);
int64_t THTensor_(storageOffset)(const THTensor *self);
int64_t THTensor_(nElement)(const THTensor *self);
THStorage *THTensor_(storage)(const THTensor *self);
/* self's storage with a reference for the caller (read and retained in one call). */
THStorage *THTensor_(retainedStorage)(const THTensor *self);
/* Exports self's elements to a consumer outside pyth (numpy, DLPack): checks bounds, takes an
 * export of the storage (THStorage_(exportRetain): its data cannot move until
 * THStorage_(exportRelease)) and fills *view with one consistent snapshot of the geometry and
 * the address of the first element. NULL with an error recorded on failure. */
THStorage *THTensor_(export)(THTensor *self, THView *view);
real *THTensor_(data)(const THTensor *self);
int THTensor_(isContiguous)(const THTensor *self);
int THTensor_(isSetTo)(const THTensor *self, const THTensor *src);
int THTensor_(isSameSizeAs)(const THTensor *self, const THTensor *src);

/* ---- in-place geometry (TH's outputs-first forms; self may be src) ---- */
/* Contiguous with the given sizes, growing the storage if it is too small. */
int THTensor_(resize)(THTensor *self, int ndim, const int64_t *size);
int THTensor_(resizeAs)(THTensor *self, THTensor *src);
/* self becomes a view with src's storage and geometry. */
int THTensor_(set)(THTensor *self, THTensor *src);
/* self views storage at offset with size/stride (NULL: contiguous); grows a resizable storage
 * that is too small, as TH did; a storage that cannot grow is a RuntimeError. */
int THTensor_(setStorage)(THTensor *self, THStorage *storage, int64_t offset, int ndim,
                          const int64_t *size, const int64_t *stride);
int THTensor_(narrow)(THTensor *self, THTensor *src, int dim, int64_t start, int64_t length);
int THTensor_(select)(THTensor *self, THTensor *src, int dim, int64_t index);
int THTensor_(transpose)(THTensor *self, THTensor *src, int dim0, int dim1);
int THTensor_(permute)(THTensor *self, THTensor *src, int ndim, const int *dims);
int THTensor_(unfold)(THTensor *self, THTensor *src, int dim, int64_t size, int64_t step);
int THTensor_(squeeze)(THTensor *self, THTensor *src);
int THTensor_(squeeze1d)(THTensor *self, THTensor *src, int dim);
int THTensor_(unsqueeze1d)(THTensor *self, THTensor *src, int dim);

/* ---- data ---- */
/* RuntimeError when the view reaches past its storage's end (a storage shrunk under it):
 * every function that touches elements checks this first. */
int THTensor_(checkBounds)(const THTensor *self, const char *op);
int THTensor_(fill)(THTensor *self, real value);
int THTensor_(zero)(THTensor *self);
/* out (contiguous, n elements) gets src's storage's data[offsets[i]]; offsets are
 * range-checked against that storage. */
int THTensor_(gatherOffsets)(THTensor *out, THTensor *src, const int64_t *offsets, int64_t n);
/* dst's storage's data[offsets[i]] = values[i] for values contiguous with n elements. */
int THTensor_(scatterOffsets)(THTensor *dst, const int64_t *offsets, int64_t n,
                              THTensor *values);

/* Copy from any type, broadcasting src to self's shape: THTensor_(copyFloat), ...
 * THTensor_(copy) is the same-type copy. */
#define TH_TENSOR_COPY_DECL(SrcReal, srcreal) \
  int THTensor_(copy##SrcReal)(THTensor *self, TH##SrcReal##Tensor *src);
TH_FORALL_TYPES(TH_TENSOR_COPY_DECL)
#undef TH_TENSOR_COPY_DECL
int THTensor_(copy)(THTensor *self, THTensor *src);

#endif
