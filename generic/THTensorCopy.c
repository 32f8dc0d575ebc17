#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THTensorCopy.c"
#else

/* Copy with conversion from every source type, src broadcast to self's shape.
 * If src shares self's storage (same type), it is first cloned so overlapping views copy as if
 * through a temporary. */
#define TH_TENSOR_COPY_IMPL(SrcReal, srcreal)                                                   \
  int THTensor_(copy##SrcReal)(THTensor *self, TH##SrcReal##Tensor *src) {                     \
    int64_t sstride[TH_MAX_DIM];                                                                \
    THTry(THShape_broadcastStrides(sstride, "copy_()", self->nDimension, self->size,            \
                                   src->nDimension, src->size, src->stride),                    \
          -1);                                                                                  \
    TH##SrcReal##Tensor *tmp = NULL;                                                            \
    if ((void *)src->storage == (void *)self->storage) {                                        \
      tmp = TH##SrcReal##Tensor_newWithSize(src->nDimension, src->size);                        \
      if (!tmp || TH##SrcReal##Tensor_copy(tmp, src) != 0) {                                   \
        TH##SrcReal##Tensor_free(tmp);                                                          \
        return -1;                                                                              \
      }                                                                                         \
      THShape_broadcastStrides(sstride, "copy_()", self->nDimension, self->size,                \
                               tmp->nDimension, tmp->size, tmp->stride);                        \
      src = tmp;                                                                                \
    }                                                                                           \
    THIter it;                                                                                  \
    const int64_t *strides[2] = {self->stride, sstride};                                        \
    THIter_init(&it, 2, self->nDimension, self->size, strides);                                 \
    if (it.numel > 0) {                                                                         \
      real *dst = THTensor_(data)(self);                                                        \
      srcreal *from = TH##SrcReal##Tensor_data(src);                                            \
      TH_APPLY2(&it, real, dst, x, srcreal, from, y, *x = TH_STORE(TH_LOAD_##SrcReal(*y)););  \
    }                                                                                           \
    TH##SrcReal##Tensor_free(tmp);                                                              \
    return 0;                                                                                   \
  }
TH_FORALL_TYPES(TH_TENSOR_COPY_IMPL)
#undef TH_TENSOR_COPY_IMPL

/* Same-type copy: the contiguous case is one memcpy. */
int THTensor_(copy)(THTensor *self, THTensor *src) {
  if (self->storage != src->storage && THTensor_(isSameSizeAs)(self, src) &&
      THTensor_(isContiguous)(self) && THTensor_(isContiguous)(src)) {
    int64_t n = THTensor_(nElement)(self);
    if (n > 0) memcpy(THTensor_(data)(self), THTensor_(data)(src), (size_t)n * sizeof(real));
    return 0;
  }
  return THTensor_(TH_CONCAT_2(copy, Real))(self, src);
}

#endif
