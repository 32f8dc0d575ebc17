#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THTensorCopy.c"
#else

/* Copy with conversion from every source type, src broadcast to self's shape.
 * If src's memory partially overlaps self's (views of one storage, or two storages borrowing
 * one ndarray), it is first cloned so the copy acts as if through a temporary. */
#define TH_TENSOR_COPY_IMPL(SrcReal, srcreal)                                                   \
  static void THTensor_(copyRow##SrcReal)(void *ctx, int64_t n, char **data,                     \
                                          const int64_t *stride) {                              \
    (void)ctx;                                                                                  \
    TH_ROW_LOOP2(n, data, stride, real, x, srcreal, y, *x = TH_STORE(TH_LOAD_##SrcReal(*y)););   \
  }                                                                                             \
  int THTensor_(copy##SrcReal)(THTensor *self, TH##SrcReal##Tensor *src) {                     \
    int64_t sstride[TH_MAX_DIM];                                                                \
    THTry(THTensor_(checkBounds)(self, "copy_()"), -1);                                         \
    THTry(TH##SrcReal##Tensor_checkBounds(src, "copy_()"), -1);                                 \
    THTry(THShape_checkWritable("copy_()", self->nDimension, self->size, self->stride), -1);    \
    THTry(THShape_broadcastStrides(sstride, "copy_()", self->nDimension, self->size,            \
                                   src->nDimension, src->size, src->stride),                    \
          -1);                                                                                  \
    TH##SrcReal##Tensor *tmp = NULL;                                                            \
    int overlap = THShape_overlap(self->nDimension, self->size, (char *)THTensor_(data)(self),   \
                                  sizeof(real), self->stride,                                   \
                                  (char *)TH##SrcReal##Tensor_data(src), sizeof(srcreal),       \
                                  sstride);                                                     \
    /* the same walk: a copy onto itself, or (another type over the same bytes) a conversion \
     * in place, which the row function does element by element */                             \
    if (overlap == TH_OVERLAP_SAME &&                                                           \
        (void *)THTensor_(copy##SrcReal) == (void *)THTensor_(TH_CONCAT_2(copy, Real)))         \
      return 0;                                                                                 \
    if (overlap == TH_OVERLAP_PARTIAL) {                                                        \
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
    const int64_t elsize[2] = {sizeof(real), sizeof(srcreal)};                                  \
    THIter_init(&it, 2, self->nDimension, self->size, strides, elsize, 0);                      \
    char *base[2] = {(char *)THTensor_(data)(self), (char *)TH##SrcReal##Tensor_data(src)};     \
    THIter_run(&it, base, THTensor_(copyRow##SrcReal), NULL, TH_WEIGHT_MEMORY);    \
    TH##SrcReal##Tensor_free(tmp);                                                              \
    return 0;                                                                                   \
  }
TH_FORALL_TYPES(TH_TENSOR_COPY_IMPL)
#undef TH_TENSOR_COPY_IMPL

/* Same-type copy: the contiguous case is one memcpy. */
int THTensor_(copy)(THTensor *self, THTensor *src) {
  THTry(THTensor_(checkBounds)(self, "copy_()"), -1);
  THTry(THTensor_(checkBounds)(src, "copy_()"), -1);
  if (THTensor_(isSameSizeAs)(self, src) && THTensor_(isContiguous)(self) &&
      THTensor_(isContiguous)(src) &&
      THShape_overlap(self->nDimension, self->size, (char *)THTensor_(data)(self), sizeof(real),
                      self->stride, (char *)THTensor_(data)(src), sizeof(real),
                      src->stride) == TH_OVERLAP_NONE) { /* memcpy needs disjoint memory */
    int64_t n = THTensor_(nElement)(self);
    if (n > 0) memcpy(THTensor_(data)(self), THTensor_(data)(src), (size_t)n * sizeof(real));
    return 0;
  }
  return THTensor_(TH_CONCAT_2(copy, Real))(self, src);
}

#endif
