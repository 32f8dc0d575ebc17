#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THTensorShape.c"
#else

/* ---- flip -------------------------------------------------------------------------------- */

/* The bits of a `real`, as a type the compiler can vectorise moves of (Half and BFloat16 are
 * structs). */
#if defined(TH_REAL_IS_REDUCED)
#define TH_FLIP_BITS uint16_t
#else
#define TH_FLIP_BITS real
#endif

/* Same-type element copy: the row function of flip's walk. A row read backwards with unit
 * steps (the innermost dim flipped) gets its own loop, which the compiler vectorises; one-byte
 * types, which baseline x86-64 cannot shuffle, reverse eight at a time with a byte swap. */
static void THTensor_(flipRow)(void *ctx, int64_t n, char **data, const int64_t *stride) {
  (void)ctx;
  if (stride[0] == 1 && stride[1] == -1) {
    TH_FLIP_BITS *restrict x = (TH_FLIP_BITS *)data[0];
    const TH_FLIP_BITS *restrict y = (const TH_FLIP_BITS *)data[1];
    int64_t i = 0;
    if (sizeof(real) == 1) {
      for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, (const char *)y - i - 7, 8);
        w = __builtin_bswap64(w);
        memcpy((char *)x + i, &w, 8);
      }
    }
    for (; i < n; i++) x[i] = y[-i];
    return;
  }
  TH_ROW_LOOP2(n, data, stride, real, x, real, y, *x = *y;);
}
#undef TH_FLIP_BITS

/* Flip is one strided copy: the source is read through a view of its own storage whose
 * flipped dims start at their last element and step backwards (negative strides, which the
 * iterator handles like any other: dims that are reversed together still merge). */
int THTensor_(flip)(THTensor *r, THTensor *src, int ndims, const int64_t *dims) {
  const char *op = "flip()";
  unsigned char flipped[TH_MAX_DIM] = {0};
  const int nd = src->nDimension;
  for (int k = 0; k < ndims; k++) {
    int d;
    THTry(THShape_wrapDim(&d, op, dims[k], nd), -1);
    THArgCheck(!flipped[d], TH_ERR_RUNTIME, -1, "%s: dim %d appears multiple times in the list "
               "of dims", op, d);
    flipped[d] = 1;
  }
  THTry(THTensor_(checkBounds)(src, op), -1);

  /* a result that shares src's storage (in place, or an overlapping out=) reads a copy */
  THTensor *tmp = NULL;
  if (r->storage == src->storage) {
    tmp = THTensor_(newClone)(src);
    if (!tmp) return -1;
    src = tmp;
  }
  if (THTensor_(resizeOutput)(r, op, nd, src->size, 0) != 0) {
    THTensor_(free)(tmp);
    return -1;
  }
  int64_t sstride[TH_MAX_DIM], numel = THTensor_(nElement)(src);
  char *sdata = (char *)THTensor_(data)(src);
  for (int d = 0; d < nd; d++) {
    sstride[d] = flipped[d] ? -src->stride[d] : src->stride[d];
    if (flipped[d] && numel > 0)
      sdata += (src->size[d] - 1) * src->stride[d] * (int64_t)sizeof(real);
  }
  const int64_t *strides[2] = {r->stride, sstride};
  const int64_t elsize[2] = {sizeof(real), sizeof(real)};
  char *base[2] = {(char *)THTensor_(data)(r), sdata};
  THIter it;
  THIter_init(&it, 2, nd, r->size, strides, elsize, 0);
  THIter_run(&it, base, THTensor_(flipRow), NULL, TH_WEIGHT_MEMORY);
  THTensor_(free)(tmp);
  return 0;
}

/* ---- tril / triu ------------------------------------------------------------------------- */

/* One row of a triangle: columns [lo, hi) keep src's values, the others become zero. When r
 * is src the kept columns are already in place. */
static void THTensor_(triangleRow)(real *rp, int64_t rs, const real *sp, int64_t ss, int64_t cols,
                                   int64_t lo, int64_t hi, int inplace) {
  const real zero = TH_STORE(0);
  for (int64_t j = 0; j < lo; j++) rp[j * rs] = zero;
  if (!inplace) {
    if (rs == 1 && ss == 1) {
      if (hi > lo) memcpy(rp + lo, sp + lo, (size_t)(hi - lo) * sizeof(real));
    } else {
      for (int64_t j = lo; j < hi; j++) rp[j * rs] = sp[j * ss];
    }
  }
  for (int64_t j = hi; j < cols; j++) rp[j * rs] = zero;
}

/* The rows of all matrices are numbered q = batch * rows + i and split between threads; each
 * row finds its batch offset by decomposing q over the leading dims (a few divisions per row,
 * nothing next to the row's own work). */
static int THTensor_(triangle)(THTensor *r, THTensor *src, int64_t k, int upper, const char *op) {
  const int nd = src->nDimension;
  THArgCheck(nd >= 2, TH_ERR_RUNTIME, -1, "%s: input tensor must have at least 2 dimensions "
             "(got %d)", op, nd);
  THTry(THTensor_(checkBounds)(src, op), -1);
  THTensor *tmp = NULL;
  if (r != src && r->storage == src->storage) {
    tmp = THTensor_(newClone)(src);
    if (!tmp) return -1;
    src = tmp;
  }
  if (THTensor_(resizeOutput)(r, op, nd, src->size, r == src) != 0) {
    THTensor_(free)(tmp);
    return -1;
  }
  const int64_t rows = src->size[nd - 2], cols = src->size[nd - 1];
  const int64_t total = rows > 0 && cols > 0 ? THTensor_(nElement)(src) / cols : 0;
  const int inplace = r == src;
  /* beyond these bounds every k gives the same triangle; clamping keeps i + k from overflowing */
  k = TH_MAX(TH_MIN(k, cols + 1), -rows - 1);
  real *rdata = THTensor_(data)(r), *sdata = THTensor_(data)(src);
  const int64_t *rstr = r->stride, *sstr = src->stride, *size = src->size;
  const int parallel = THParallel_worth(THTensor_(nElement)(src), 2 * sizeof(real));
#pragma omp parallel for if (parallel) schedule(static)
  for (int64_t q = 0; q < total; q++) {
    int64_t i = q % rows, b = q / rows;
    int64_t ro = i * rstr[nd - 2], so = i * sstr[nd - 2];
    for (int d = nd - 3; d >= 0; d--) {
      int64_t c = b % size[d];
      b /= size[d];
      ro += c * rstr[d];
      so += c * sstr[d];
    }
    int64_t lo = upper ? TH_MAX(TH_MIN(i + k, cols), 0) : 0;
    int64_t hi = upper ? cols : TH_MAX(TH_MIN(i + k + 1, cols), 0);
    THTensor_(triangleRow)(rdata + ro, rstr[nd - 1], sdata + so, sstr[nd - 1], cols, lo, hi,
                           inplace);
  }
  THTensor_(free)(tmp);
  return 0;
}

int THTensor_(tril)(THTensor *r, THTensor *src, int64_t k) {
  return THTensor_(triangle)(r, src, k, 0, "tril()");
}

int THTensor_(triu)(THTensor *r, THTensor *src, int64_t k) {
  return THTensor_(triangle)(r, src, k, 1, "triu()");
}

/* ---- cat / stack --------------------------------------------------------------------------- */

/* Whether part fits r along dim: r's sizes but dim's (cat), or r's sizes without dim (stack). */
static int THTensor_(catFits)(const THTensor *r, const THTensor *part, int dim, int stack) {
  if (!part || part->nDimension != r->nDimension - (stack ? 1 : 0)) return 0;
  for (int d = 0, k = 0; d < r->nDimension; d++) {
    if (d == dim && stack) continue;
    if (d != dim && part->size[k] != r->size[d]) return 0;
    k++;
  }
  return 1;
}

int THTensor_(catArray)(THTensor *r, THTensor *const *parts, int n, int dim, int stack) {
  const char *op = stack ? "stack()" : "cat()";
  THArgCheck(n >= 0 && dim >= 0 && dim < r->nDimension, TH_ERR_RUNTIME, -1,
             "%s: dim %d is out of range for a result of %d dims", op, dim, r->nDimension);
  int64_t total = 0;
  for (int i = 0; i < n; i++) {
    THArgCheck(THTensor_(catFits)(r, parts[i], dim, stack), TH_ERR_RUNTIME, -1,
               "%s: part %d does not fit a result of %d dims along dim %d", op, i,
               r->nDimension, dim);
    total += stack ? 1 : parts[i]->size[dim];
  }
  THArgCheck(total == r->size[dim], TH_ERR_RUNTIME, -1,
             "%s: the parts fill %lld of the result's %lld slices along dim %d", op,
             (long long)total, (long long)r->size[dim], dim);
  THTensor *piece = THTensor_(newWithTensor)(r);
  if (!piece) return -1;
  int rc = 0;
  int64_t start = 0;
  for (int i = 0; i < n && rc == 0; i++) {
    const int64_t len = stack ? 1 : parts[i]->size[dim];
    if (len == 0) continue;
    rc = stack ? THTensor_(select)(piece, r, dim, i)
               : THTensor_(narrow)(piece, r, dim, start, len);
    if (rc == 0) rc = THTensor_(copy)(piece, parts[i]);
    start += len;
  }
  THTensor_(free)(piece);
  return rc;
}

#endif
