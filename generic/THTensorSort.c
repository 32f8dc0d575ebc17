#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THTensorSort.c"
#else

/* Sort and select kernels (strategy: lib/THTensorSort.c). Keys are compared in the compute
 * type opreal; TH_SORT_LT is PyTorch's order, where NaN is above every number and equal to
 * itself. Equality for mode and unique is plain ==, under which NaNs all differ. */

#if defined(TH_REAL_IS_FLOATING)
#define TH_SORT_ISNAN(x) isnan(x)
#else
#define TH_SORT_ISNAN(x) 0
#endif
#define TH_SORT_LT(a, b) ((a) < (b) || (TH_SORT_ISNAN(b) && !TH_SORT_ISNAN(a)))

/* What median() of no elements gives: NaN, or what a NaN converts to as PyTorch returns it
 * (the x86 "integer indefinite" for 32- and 64-bit integers, 0 for the narrower ones). */
#if defined(TH_REAL_IS_FLOATING)
#define TH_EMPTY_MEDIAN TH_STORE(NAN)
#elif defined(TH_REAL_IS_LONG)
#define TH_EMPTY_MEDIAN INT64_MIN
#elif defined(TH_REAL_IS_INT)
#define TH_EMPTY_MEDIAN INT32_MIN
#else
#define TH_EMPTY_MEDIAN TH_STORE(0)
#endif

/* A slice element in scratch: its key and its index along dim. */
typedef struct {
  opreal v;
  int64_t i;
} THTensor_(SortPair);

/* x comes strictly before y in ascending (desc = 0) or descending order. */
static inline int THTensor_(before)(opreal x, opreal y, int desc) {
  return desc ? TH_SORT_LT(y, x) : TH_SORT_LT(x, y);
}

#define TH_PAIR_ASC(ctx, x, y) TH_SORT_LT((x).v, (y).v)
#define TH_PAIR_DESC(ctx, x, y) TH_SORT_LT((y).v, (x).v)
#define TH_KEY_BEFORE(ctx, x, y) THTensor_(before)(x, y, *(const int *)(ctx))
TH_DEFINE_MERGESORT(THTensor_(sortAsc), THTensor_(SortPair), TH_PAIR_ASC)
TH_DEFINE_MERGESORT(THTensor_(sortDesc), THTensor_(SortPair), TH_PAIR_DESC)
TH_DEFINE_MERGESORT(THTensor_(sortKeys), opreal, TH_KEY_BEFORE)
#undef TH_PAIR_ASC
#undef TH_PAIR_DESC
#undef TH_KEY_BEFORE

#if defined(TH_REAL_IS_BYTE) || defined(TH_REAL_IS_CHAR) || defined(TH_REAL_IS_BOOL)
/* One-byte keys take at most 256 values: a stable counting sort (a histogram, then each pair
 * scattered to its bucket in index order) is two passes instead of log n. */
#if defined(TH_REAL_IS_CHAR)
#define TH_SORT_BUCKET(v) ((int)(v) + 128)
#else
#define TH_SORT_BUCKET(v) ((int)(v))
#endif
static void THTensor_(countingSort)(THTensor_(SortPair) *a, THTensor_(SortPair) *tmp,
                                    int64_t n, int desc) {
  int64_t start[257] = {0};
  for (int64_t i = 0; i < n; i++) {
    int b = TH_SORT_BUCKET(a[i].v);
    start[(desc ? 255 - b : b) + 1]++;
  }
  for (int b = 0; b < 256; b++) start[b + 1] += start[b];
  for (int64_t i = 0; i < n; i++) {
    int b = TH_SORT_BUCKET(a[i].v);
    tmp[start[desc ? 255 - b : b]++] = a[i];
  }
  memcpy(a, tmp, (size_t)n * sizeof *a);
}
#undef TH_SORT_BUCKET
#define TH_SORT_COUNTING 1
#else
#define TH_SORT_COUNTING 0
#endif

/* Stable sort of n pairs (tmp: n more), ascending or descending. */
static void THTensor_(sortPairs)(THTensor_(SortPair) *a, THTensor_(SortPair) *tmp, int64_t n,
                                 int desc, int parallel) {
#if TH_SORT_COUNTING
  if (n > 256) {
    THTensor_(countingSort)(a, tmp, n, desc);
    return;
  }
#endif
  if (desc) THTensor_(sortDesc)(a, tmp, n, NULL, parallel);
  else THTensor_(sortAsc)(a, tmp, n, NULL, parallel);
}
#undef TH_SORT_COUNTING

/* Moves the key a stable sort (descending if desc) would put at position kk of keys[0, n)
 * there and returns it: Hoare quickselect with a median-of-three pivot, O(n) expected. A
 * range that refuses to shrink (an adversarial input) is merge-sorted instead, using tmp
 * (n keys). */
static opreal THTensor_(quickselect)(opreal *keys, int64_t n, int64_t kk, int desc,
                                     opreal *tmp) {
#define TH_SWAP(a, b) do { opreal t_ = keys[a]; keys[a] = keys[b]; keys[b] = t_; } while (0)
#define TH_B(x, y) THTensor_(before)(x, y, desc)
  int64_t lo = 0, hi = n - 1;
  int budget = 8;
  for (int64_t m = n; m > 1; m >>= 1) budget += 2;
  while (hi > lo) {
    if (budget-- == 0) {
      THTensor_(sortKeys)(keys + lo, tmp, hi - lo + 1, &desc, 0);
      break;
    }
    int64_t mid = lo + (hi - lo) / 2;
    if (TH_B(keys[mid], keys[lo])) TH_SWAP(mid, lo);
    if (TH_B(keys[hi], keys[mid])) {
      TH_SWAP(hi, mid);
      if (TH_B(keys[mid], keys[lo])) TH_SWAP(mid, lo);
    }
    const opreal p = keys[mid];
    int64_t i = lo, j = hi;
    while (i <= j) {
      while (TH_B(keys[i], p)) i++;
      while (TH_B(p, keys[j])) j--;
      if (i <= j) {
        TH_SWAP(i, j);
        i++;
        j--;
      }
    }
    /* now [lo, j] does not come after p, [i, hi] does not come before it, (j, i) equals it */
    if (kk <= j) hi = j;
    else if (kk >= i) lo = i;
    else break;
  }
  return keys[kk];
#undef TH_SWAP
#undef TH_B
}

/* ---- the kernels: one slice each ------------------------------------------------------- */

/* What a slice kernel needs besides its pointers. */
typedef struct {
  int64_t n;    /* slice length */
  int64_t k;    /* topk: how many; kthvalue: which, from 1 */
  int flag;     /* sort: descending; topk: largest; median: ignore NaNs */
  int parallel; /* one long slice: the merge sort may use threads */
} THTensor_(SliceArgs);

/* A kernel reads src[i * ss] for i < n and writes v[j * vs] (v may be NULL) and ix[j * is];
 * buf is scratch for 2n pairs. */
typedef void (*THTensor_(SliceFn))(const THTensor_(SliceArgs) *a, THTensor_(SortPair) *buf,
                                   const real *src, int64_t ss, real *v, int64_t vs,
                                   int64_t *ix, int64_t is);

static void THTensor_(sortSlice)(const THTensor_(SliceArgs) *a, THTensor_(SortPair) *buf,
                                 const real *src, int64_t ss, real *v, int64_t vs, int64_t *ix,
                                 int64_t is) {
  const int64_t n = a->n;
  for (int64_t i = 0; i < n; i++) {
    buf[i].v = TH_LOAD(src[i * ss]);
    buf[i].i = i;
  }
  THTensor_(sortPairs)(buf, buf + n, n, a->flag, a->parallel);
  for (int64_t j = 0; j < n; j++) { /* from the keys: self may be the output (in place) */
    if (v) v[j * vs] = TH_STORE(buf[j].v);
    ix[j * is] = buf[j].i;
  }
}

/* With keys[0, n) a copy of the slice, the k-th (from 1) element in stable ascending order:
 * its value is found by quickselect; its index is that of the (k - #smaller)-th element equal to
 * it, counting in index order. */
static void THTensor_(kthOfKeys)(opreal *keys, int64_t n, int64_t k, opreal *tmp,
                                 const real *src, int64_t ss, real *v, int64_t *ix) {
  const opreal t = THTensor_(quickselect)(keys, n, k - 1, 0, tmp);
  int64_t smaller = 0, i = 0;
  for (int64_t j = 0; j < n; j++) smaller += TH_SORT_LT(TH_LOAD(src[j * ss]), t);
  for (int64_t seen = smaller; i < n; i++) {
    opreal x = TH_LOAD(src[i * ss]);
    if (!TH_SORT_LT(x, t) && !TH_SORT_LT(t, x) && ++seen == k) break;
  }
  const real x = src[i * ss];
  *v = x;
  *ix = i;
}

static void THTensor_(kthSlice)(const THTensor_(SliceArgs) *a, THTensor_(SortPair) *buf,
                                const real *src, int64_t ss, real *v, int64_t vs, int64_t *ix,
                                int64_t is) {
  (void)vs;
  (void)is;
  opreal *keys = (opreal *)(buf + a->n), *tmp = (opreal *)buf;
  for (int64_t i = 0; i < a->n; i++) keys[i] = TH_LOAD(src[i * ss]);
  THTensor_(kthOfKeys)(keys, a->n, a->k, tmp, src, ss, v, ix);
}

/* The lower median; a->flag ignores NaNs. A slice with a NaN (all NaN, ignoring them) gives
 * its first NaN, which is where a stable sort puts the NaNs' start. */
static void THTensor_(medianSlice)(const THTensor_(SliceArgs) *a, THTensor_(SortPair) *buf,
                                   const real *src, int64_t ss, real *v, int64_t vs,
                                   int64_t *ix, int64_t is) {
  (void)vs;
  (void)is;
  const int64_t n = a->n;
  opreal *keys = (opreal *)(buf + n), *tmp = (opreal *)buf;
  int64_t nans = 0, first = -1;
  for (int64_t i = 0; i < n; i++) {
    keys[i] = TH_LOAD(src[i * ss]);
    if (TH_SORT_ISNAN(keys[i]) && nans++ == 0) first = i;
  }
  if (nans > 0 && (!a->flag || nans == n)) {
    const real x = src[first * ss];
    *v = x;
    *ix = first;
    return;
  }
  const int64_t m = n - nans; /* nans is 0 unless NaNs are ignored */
  THTensor_(kthOfKeys)(keys, n, (m - 1) / 2 + 1, tmp, src, ss, v, ix);
}

/* topk with k small next to n: one pass keeping a heap of the k best so far, the worst on top
 * (of equal values the later index is worse, so ties resolve as a stable sort would), then the
 * heap emptied worst-first from the back of the output. O(n log k), nearly one comparison per
 * element. */
static inline int THTensor_(pairWorse)(THTensor_(SortPair) x, THTensor_(SortPair) y, int desc) {
  return THTensor_(before)(y.v, x.v, desc) || (!THTensor_(before)(x.v, y.v, desc) && x.i > y.i);
}

static void THTensor_(siftDown)(THTensor_(SortPair) *h, int64_t m, int desc) {
  THTensor_(SortPair) x = h[0];
  int64_t p = 0;
  for (int64_t c = 1; c < m; p = c, c = 2 * c + 1) {
    if (c + 1 < m && THTensor_(pairWorse)(h[c + 1], h[c], desc)) c++;
    if (!THTensor_(pairWorse)(h[c], x, desc)) break;
    h[p] = h[c];
  }
  h[p] = x;
}

static void THTensor_(topkHeap)(const THTensor_(SliceArgs) *a, THTensor_(SortPair) *h,
                                const real *src, int64_t ss, real *v, int64_t vs, int64_t *ix,
                                int64_t is) {
  const int64_t k = a->k;
  const int desc = a->flag;
  for (int64_t i = 0; i < a->n; i++) {
    THTensor_(SortPair) x = {TH_LOAD(src[i * ss]), i};
    if (i < k) { /* sift up */
      int64_t p = i;
      for (; p > 0 && THTensor_(pairWorse)(x, h[(p - 1) / 2], desc); p = (p - 1) / 2)
        h[p] = h[(p - 1) / 2];
      h[p] = x;
    } else if (THTensor_(before)(x.v, h[0].v, desc)) {
      h[0] = x;
      THTensor_(siftDown)(h, k, desc);
    }
  }
  for (int64_t j = k - 1; j >= 0; j--) {
    v[j * vs] = TH_STORE(h[0].v);
    ix[j * is] = h[0].i;
    h[0] = h[j];
    THTensor_(siftDown)(h, j, desc);
  }
}

/* topk otherwise: the k-th best key t by quickselect, then every element better than t and the
 * first ones equal to t, in index order, merge-sorted (stable) into place. */
static void THTensor_(topkSlice)(const THTensor_(SliceArgs) *a, THTensor_(SortPair) *buf,
                                 const real *src, int64_t ss, real *v, int64_t vs, int64_t *ix,
                                 int64_t is) {
  const int64_t n = a->n, k = a->k;
  const int desc = a->flag;
  if (k == 0) return;
  if (k <= TH_TOPK_HEAP && 4 * k <= n) {
    THTensor_(topkHeap)(a, buf, src, ss, v, vs, ix, is);
    return;
  }
  opreal *keys = (opreal *)(buf + n);
  for (int64_t i = 0; i < n; i++) keys[i] = TH_LOAD(src[i * ss]);
  const opreal t = THTensor_(quickselect)(keys, n, k - 1, desc, (opreal *)buf);
  int64_t better = 0, m = 0;
  for (int64_t i = 0; i < n; i++) better += THTensor_(before)(TH_LOAD(src[i * ss]), t, desc);
  for (int64_t i = 0, ties = k - better; i < n && m < k; i++) {
    opreal x = TH_LOAD(src[i * ss]);
    int take = THTensor_(before)(x, t, desc);
    if (!take && ties > 0 && !THTensor_(before)(t, x, desc)) {
      take = 1;
      ties--;
    }
    if (take) {
      buf[m].v = x;
      buf[m++].i = i;
    }
  }
  const int parallel = a->parallel && THParallel_worth(k, sizeof(real) * TH_WEIGHT_SORT);
  THTensor_(sortPairs)(buf, buf + k, k, desc, parallel);
  for (int64_t j = 0; j < k; j++) {
    v[j * vs] = TH_STORE(buf[j].v);
    ix[j * is] = buf[j].i;
  }
}

/* The most frequent value: sort, then the longest run of == keys (the first, i.e. smallest,
 * on a tie); its last element is the value's last occurrence. */
static void THTensor_(modeSlice)(const THTensor_(SliceArgs) *a, THTensor_(SortPair) *buf,
                                 const real *src, int64_t ss, real *v, int64_t vs, int64_t *ix,
                                 int64_t is) {
  (void)vs;
  (void)is;
  const int64_t n = a->n;
  for (int64_t i = 0; i < n; i++) {
    buf[i].v = TH_LOAD(src[i * ss]);
    buf[i].i = i;
  }
  THTensor_(sortPairs)(buf, buf + n, n, 0, a->parallel);
  int64_t best = 0, last = 0, start = 0;
  for (int64_t j = 1; j <= n; j++) {
    if (j < n && buf[j].v == buf[j - 1].v) continue;
    if (j - start > best) {
      best = j - start;
      last = j - 1;
    }
    start = j;
  }
  *v = TH_STORE(buf[last].v);
  *ix = buf[last].i;
}

/* ---- the walk over slices ------------------------------------------------------------------ */

typedef struct {
  THIter it; /* over the outer dims: operand 0 self, 1 values, 2 indices */
  THTensor_(SliceFn) fn;
  THTensor_(SliceArgs) args;
  const real *src;
  real *vals;
  int64_t *idx;
  int64_t ss, vs, is; /* strides along dim */
} THTensor_(SliceWalk);

static void THTensor_(walkRange)(const THTensor_(SliceWalk) *w, THTensor_(SortPair) *buf,
                                 int64_t begin, int64_t end) {
  THSliceCursor c;
  THSliceCursor_seek(&w->it, &c, begin);
  for (int64_t s = begin; s < end; s++) {
    real *v = w->vals ? w->vals + THSliceCursor_offset(&w->it, &c, 1) : NULL;
    w->fn(&w->args, buf, w->src + THSliceCursor_offset(&w->it, &c, 0), w->ss, v, w->vs,
          w->idx + THSliceCursor_offset(&w->it, &c, 2), w->is);
    THSliceCursor_next(&w->it, &c);
  }
}

/* Runs fn on every slice of self along dim (values may be NULL), threads as described in
 * lib/THTensorSort.c. The outputs are already sized. */
static int THTensor_(forSlices)(THTensor_(SliceFn) fn, THTensor_(SliceArgs) args,
                                THTensor *self, int dim, THTensor *values,
                                THLongTensor *indices) {
  const int nd = self->nDimension;
  /* no element to write (an empty dim, or k = 0): return at once rather than visit every
   * empty slice (an empty dim beside a huge one has 2^62 of them) */
  if (THLongTensor_nElement(indices) == 0) return 0;
  int64_t osize[TH_MAX_DIM], ostride[3][TH_MAX_DIM];
  int on = 0;
  for (int d = 0; d < nd; d++)
    if (d != dim) osize[on++] = self->size[d];
  THTensor_(SliceWalk) w;
  w.fn = fn;
  w.ss = THSort_outerStrides(ostride[0], nd, self->stride, nd, dim);
  w.vs = 0;
  memset(ostride[1], 0, sizeof ostride[1]);
  if (values) w.vs = THSort_outerStrides(ostride[1], values->nDimension, values->stride, nd, dim);
  w.is = THSort_outerStrides(ostride[2], indices->nDimension, indices->stride, nd, dim);
  const int64_t *strides[3] = {ostride[0], ostride[1], ostride[2]};
  const int64_t elsize[3] = {1, 1, 1};
  THIter_init(&w.it, 3, on, osize, strides, elsize, 0);
  const int64_t nslices = w.it.numel;
  if (nslices == 0) return 0;

  const int threads = THSort_threads(nslices, args.n);
  args.parallel = threads == 1 && THParallel_worth(args.n, sizeof(real) * TH_WEIGHT_SORT);
  w.args = args;
  w.src = THTensor_(data)(self);
  w.vals = values ? THTensor_(data)(values) : NULL;
  w.idx = THLongTensor_data(indices);
  const int64_t per = 2 * (args.n < 1 ? 1 : args.n); /* pairs of scratch per thread */
  THTensor_(SortPair) *scratch = THSort_scratch(threads, args.n, sizeof *scratch, 2);
  if (!scratch) return -1;
  if (threads == 1) {
    THTensor_(walkRange)(&w, scratch, 0, nslices);
  } else {
#pragma omp parallel num_threads(threads)
    {
      const int64_t nt = omp_get_num_threads(), t = omp_get_thread_num();
      const int64_t chunk = (nslices + nt - 1) / nt, b = t * chunk;
      const int64_t e = TH_MIN(nslices, b + chunk);
      if (b < e) THTensor_(walkRange)(&w, scratch + t * per, b, e);
    }
  }
  THFree(scratch);
  return 0;
}

/* Running maximum (flag 0) or minimum (flag 1) along the slice and the index where it was
 * last reached (ties take the later index); a NaN, once met, stays, its index moving to each
 * later NaN, as PyTorch's cummax / cummin. Each element is read before v[i] is written, so v
 * may be src. */
static void THTensor_(cumExtremeSlice)(const THTensor_(SliceArgs) *a, THTensor_(SortPair) *buf,
                                       const real *src, int64_t ss, real *v, int64_t vs,
                                       int64_t *ix, int64_t is) {
  (void)buf;
  opreal best = 0;
  int64_t at = 0;
  for (int64_t i = 0; i < a->n; i++) {
    const opreal x = TH_LOAD(src[i * ss]);
    if (i == 0 || TH_SORT_ISNAN(x) ||
        (!TH_SORT_ISNAN(best) && (a->flag ? x <= best : x >= best))) {
      best = x;
      at = i;
    }
    v[i * vs] = TH_STORE(best);
    ix[i * is] = at;
  }
}

/* ---- entry points -------------------------------------------------------------------------- */

/* Checks self and wraps dim (a 0-dim tensor takes dim 0 or -1); *n is the slice length. */
static int THTensor_(sliceDim)(int *d, int64_t *n, THTensor *self, int64_t dim, const char *op) {
  THTry(THTensor_(checkBounds)(self, op), -1);
  THTry(THShape_wrapDim(d, op, dim, self->nDimension), -1);
  *n = self->nDimension > 0 ? self->size[*d] : 1;
  return 0;
}

/* Sizes values (if any) and indices as self with dim's size `keep` (keepdim) or removed. */
static int THTensor_(sliceOutputs)(THTensor *values, THLongTensor *indices, THTensor *self,
                                   int dim, int64_t keep, int keepdim, const char *op) {
  int64_t size[TH_MAX_DIM];
  int n = THSort_outputShape(size, self->nDimension, self->size, dim, keep, keepdim);
  if (values) THTry(THTensor_(resizeOutput)(values, op, n, size, values == self), -1);
  return THLongTensor_resizeOutput(indices, op, n, size, (void *)indices == (void *)self);
}

/* The prologue of a reduction along dim (kthvalue, median, mode): dim must not be empty. */
static int THTensor_(reduceDim)(int *d, int64_t *n, THTensor *values, THLongTensor *indices,
                                THTensor *self, int64_t dim, int keepdim, const char *op) {
  THTry(THTensor_(sliceDim)(d, n, self, dim, op), -1);
  THArgCheck(*n > 0, TH_ERR_INDEX, -1, "%s: Expected reduction dim %d to have non-zero size.",
             op, *d);
  return THTensor_(sliceOutputs)(values, indices, self, *d, 1, keepdim, op);
}

int THTensor_(sort)(THTensor *values, THLongTensor *indices, THTensor *self, int64_t dim,
                    int descending) {
  int d;
  int64_t n;
  THTry(THTensor_(sliceDim)(&d, &n, self, dim, "sort()"), -1);
  THTry(THTensor_(sliceOutputs)(values, indices, self, d, n, 1, "sort()"), -1);
  THTensor_(SliceArgs) a = {n, 0, descending, 0};
  return THTensor_(forSlices)(THTensor_(sortSlice), a, self, d, values, indices);
}

int THTensor_(topk)(THTensor *values, THLongTensor *indices, THTensor *self, int64_t k,
                    int64_t dim, int largest, int sorted) {
  (void)sorted; /* the result is always sorted */
  int d;
  int64_t n;
  THTry(THTensor_(sliceDim)(&d, &n, self, dim, "topk()"), -1);
  THArgCheck(k >= 0 && k <= n, TH_ERR_RUNTIME, -1,
             "topk(): selected index k out of range: k = %lld, but dim %d has size %lld",
             (long long)k, d, (long long)(self->nDimension ? n : 1));
  if (self->nDimension == 0) k = 1; /* a 0-dim result always holds the element, as in PyTorch */
  THTry(THTensor_(sliceOutputs)(values, indices, self, d, k, 1, "topk()"), -1);
  THTensor_(SliceArgs) a = {n, k, largest, 0};
  return THTensor_(forSlices)(THTensor_(topkSlice), a, self, d, values, indices);
}

int THTensor_(kthvalue)(THTensor *values, THLongTensor *indices, THTensor *self, int64_t k,
                        int64_t dim, int keepdim) {
  int d;
  int64_t n;
  THTry(THTensor_(reduceDim)(&d, &n, values, indices, self, dim, keepdim, "kthvalue()"), -1);
  THArgCheck(k >= 1 && k <= n, TH_ERR_RUNTIME, -1,
             "kthvalue(): selected number k out of range for dimension %d: k = %lld, size %lld",
             d, (long long)k, (long long)n);
  THTensor_(SliceArgs) a = {n, k, 0, 0};
  return THTensor_(forSlices)(THTensor_(kthSlice), a, self, d, values, indices);
}

static int THTensor_(medianDim)(THTensor *values, THLongTensor *indices, THTensor *self,
                                int64_t dim, int keepdim, int ignore_nan, const char *op) {
  int d;
  int64_t n;
  THTry(THTensor_(reduceDim)(&d, &n, values, indices, self, dim, keepdim, op), -1);
  THTensor_(SliceArgs) a = {n, 0, ignore_nan, 0};
  return THTensor_(forSlices)(THTensor_(medianSlice), a, self, d, values, indices);
}

int THTensor_(median)(THTensor *values, THLongTensor *indices, THTensor *self, int64_t dim,
                      int keepdim) {
  return THTensor_(medianDim)(values, indices, self, dim, keepdim, 0, "median()");
}

int THTensor_(nanmedian)(THTensor *values, THLongTensor *indices, THTensor *self, int64_t dim,
                         int keepdim) {
  return THTensor_(medianDim)(values, indices, self, dim, keepdim, 1, "nanmedian()");
}

static int THTensor_(medianAll_)(THTensor *value, THTensor *self, int ignore_nan,
                                 const char *op) {
  int64_t none[1] = {0};
  THTry(THTensor_(checkBounds)(self, op), -1);
  THTry(THTensor_(resizeOutput)(value, op, 0, none, value == self), -1);
  const int64_t n = THTensor_(nElement)(self);
  if (n == 0) {
    *THTensor_(data)(value) = TH_EMPTY_MEDIAN;
    return 0;
  }
  THTensor *c = THTensor_(newContiguous)(self);
  if (!c) return -1;
  THTensor_(SortPair) *buf = THSort_scratch(1, n, sizeof *buf, 2);
  if (!buf) {
    THTensor_(free)(c);
    return -1;
  }
  THTensor_(SliceArgs) a = {n, 0, ignore_nan, 0};
  int64_t index;
  THTensor_(medianSlice)(&a, buf, THTensor_(data)(c), 1, THTensor_(data)(value), 0, &index, 0);
  THFree(buf);
  THTensor_(free)(c);
  return 0;
}

int THTensor_(medianAll)(THTensor *value, THTensor *self) {
  return THTensor_(medianAll_)(value, self, 0, "median()");
}

int THTensor_(nanmedianAll)(THTensor *value, THTensor *self) {
  return THTensor_(medianAll_)(value, self, 1, "nanmedian()");
}

int THTensor_(mode)(THTensor *values, THLongTensor *indices, THTensor *self, int64_t dim,
                    int keepdim) {
  int d;
  int64_t n;
  THTry(THTensor_(reduceDim)(&d, &n, values, indices, self, dim, keepdim, "mode()"), -1);
  THTensor_(SliceArgs) a = {n, 0, 0, 0};
  return THTensor_(forSlices)(THTensor_(modeSlice), a, self, d, values, indices);
}

/* ---- unique ------------------------------------------------------------------------------- */

/* Sizes unique's outputs: values and counts 1-D of nruns, inverse of (ndim, isize); all must be
 * contiguous, since they are written in flat order. */
static int THTensor_(uniqueOutputs)(THTensor *values, THLongTensor *inverse,
                                    THLongTensor *counts, int64_t nruns, int ndim,
                                    const int64_t *isize) {
  const char *op = "unique()";
  THTry(THTensor_(resizeOutput)(values, op, 1, &nruns, 0), -1);
  THArgCheck(THTensor_(isContiguous)(values), TH_ERR_RUNTIME, -1,
             "unique(): the values output must be contiguous");
  THLongTensor *out[2] = {inverse, counts};
  for (int k = 0; k < 2; k++) {
    if (!out[k]) continue;
    THTry(k ? THLongTensor_resizeOutput(counts, op, 1, &nruns, 0)
            : THLongTensor_resizeOutput(inverse, op, ndim, isize, 0), -1);
    THArgCheck(THLongTensor_isContiguous(out[k]), TH_ERR_RUNTIME, -1,
               "unique(): the %s output must be contiguous", k ? "counts" : "inverse");
  }
  return 0;
}

int THTensor_(unique)(THTensor *values, THLongTensor *inverse, THLongTensor *counts,
                      THTensor *self) {
  THTry(THTensor_(checkBounds)(self, "unique()"), -1);
  THArgCheck(values != self, TH_ERR_RUNTIME, -1, "unique(): the values output is the input");
  const int64_t n = THTensor_(nElement)(self);
  THTensor *c = THTensor_(newContiguous)(self);
  if (!c) return -1;
  THTensor_(SortPair) *buf = THSort_scratch(1, n, sizeof *buf, 2);
  if (!buf) {
    THTensor_(free)(c);
    return -1;
  }
  const real *src = THTensor_(data)(c);
  for (int64_t i = 0; i < n; i++) {
    buf[i].v = TH_LOAD(src[i]);
    buf[i].i = i;
  }
  THTensor_(sortPairs)(buf, buf + n, n, 0, THParallel_worth(n, sizeof(real) * TH_WEIGHT_SORT));
  int64_t nruns = n > 0;
  for (int64_t j = 1; j < n; j++) nruns += !(buf[j].v == buf[j - 1].v);
  int status = THTensor_(uniqueOutputs)(values, inverse, counts, nruns, self->nDimension,
                                        self->size);
  if (status == 0) {
    real *v = THTensor_(data)(values);
    int64_t *inv = inverse ? THLongTensor_data(inverse) : NULL;
    int64_t *cnt = counts ? THLongTensor_data(counts) : NULL;
    for (int64_t j = 0, r = -1; j < n; j++) {
      if (j == 0 || !(buf[j].v == buf[j - 1].v)) {
        v[++r] = src[buf[j].i];
        if (cnt) cnt[r] = 0;
      }
      if (cnt) cnt[r]++;
      if (inv) inv[buf[j].i] = r;
    }
  }
  THFree(buf);
  THTensor_(free)(c);
  return status;
}

/* uniqueDim compares rows: the slices along dim, each flattened (C order) to `len` elements. */
typedef struct {
  const real *data;
  int64_t len;
} THTensor_(Rows);

/* Row x comes strictly before row y: lexicographic in PyTorch's order. */
static int THTensor_(rowBefore)(const void *ctx, int64_t x, int64_t y) {
  const THTensor_(Rows) *r = ctx;
  const real *a = r->data + x * r->len, *b = r->data + y * r->len;
  for (int64_t e = 0; e < r->len; e++) {
    opreal p = TH_LOAD(a[e]), q = TH_LOAD(b[e]);
    if (TH_SORT_LT(p, q)) return 1;
    if (TH_SORT_LT(q, p)) return 0;
  }
  return 0;
}

/* Rows x and y hold == elements throughout (NaN differs from everything). */
static int THTensor_(rowEqual)(const THTensor_(Rows) *r, int64_t x, int64_t y) {
  const real *a = r->data + x * r->len, *b = r->data + y * r->len;
  for (int64_t e = 0; e < r->len; e++)
    if (!(TH_LOAD(a[e]) == TH_LOAD(b[e]))) return 0;
  return 1;
}

#define TH_ROW_BEFORE(ctx, x, y) THTensor_(rowBefore)(ctx, x, y)
TH_DEFINE_MERGESORT(THTensor_(sortRows), int64_t, TH_ROW_BEFORE)
#undef TH_ROW_BEFORE

/* Writes the distinct rows (order[] sorted, first of each run) into values, self's shape with
 * size(dim) = nruns, through a contiguous [nruns, ...] tensor permuted back into place. */
static int THTensor_(uniqueDimValues)(THTensor *values, THTensor *self, int dim,
                                      const THTensor_(Rows) *rows, const int64_t *order,
                                      int64_t m, int64_t nruns, const int *perm) {
  const int nd = self->nDimension;
  int64_t psize[TH_MAX_DIM], vsize[TH_MAX_DIM];
  int inv[TH_MAX_DIM];
  for (int d = 0; d < nd; d++) {
    psize[d] = d == 0 ? nruns : self->size[perm[d]];
    vsize[d] = d == dim ? nruns : self->size[d];
    inv[perm[d]] = d;
  }
  THTry(THTensor_(resizeOutput)(values, "unique()", nd, vsize, 0), -1);
  THTensor *rowsOut = THTensor_(newWithSize)(nd, psize);
  if (!rowsOut) return -1;
  real *out = THTensor_(data)(rowsOut);
  for (int64_t j = 0, r = -1; j < m; j++) {
    if (j > 0 && THTensor_(rowEqual)(rows, order[j], order[j - 1])) continue;
    memcpy(out + ++r * rows->len, rows->data + order[j] * rows->len,
           (size_t)rows->len * sizeof(real));
  }
  THTensor *back = THTensor_(newPermute)(rowsOut, nd, inv);
  int status = back ? THTensor_(copy)(values, back) : -1;
  if (back) THTensor_(free)(back);
  THTensor_(free)(rowsOut);
  return status;
}

int THTensor_(uniqueDim)(THTensor *values, THLongTensor *inverse, THLongTensor *counts,
                         THTensor *self, int64_t dim) {
  const char *op = "unique()";
  int d;
  THTry(THTensor_(checkBounds)(self, op), -1);
  THArgCheck(values != self, TH_ERR_RUNTIME, -1, "unique(): the values output is the input");
  THArgCheck(self->nDimension > 0, TH_ERR_INDEX, -1,
             "unique(): dim %lld specified but the tensor has no dimensions", (long long)dim);
  THTry(THShape_wrapDim(&d, op, dim, self->nDimension), -1);
  const int nd = self->nDimension;
  const int64_t m = self->size[d];
  int64_t len = 1;
  int perm[TH_MAX_DIM];
  perm[0] = d;
  for (int k = 0, p = 1; k < nd; k++) {
    if (k == d) continue;
    perm[p++] = k;
    len *= self->size[k];
  }
  THArgCheck(len > 0 || m == 0, TH_ERR_RUNTIME, -1,
             "unique(): there are 0 sized dimensions, and they aren't selected by dim %d, so "
             "unique cannot be applied", d);

  THTensor *permuted = THTensor_(newPermute)(self, nd, perm);
  if (!permuted) return -1;
  THTensor *c = THTensor_(newContiguous)(permuted);
  THTensor_(free)(permuted);
  if (!c) return -1;
  int64_t *order = THSort_scratch(1, m, sizeof *order, 2);
  if (!order) {
    THTensor_(free)(c);
    return -1;
  }
  THTensor_(Rows) rows = {THTensor_(data)(c), len};
  for (int64_t i = 0; i < m; i++) order[i] = i;
  THTensor_(sortRows)(order, order + m, m, &rows, 0);
  int64_t nruns = m > 0;
  for (int64_t j = 1; j < m; j++) nruns += !THTensor_(rowEqual)(&rows, order[j], order[j - 1]);

  int status = THTensor_(uniqueDimValues)(values, self, d, &rows, order, m, nruns, perm);
  if (status == 0) {
    THLongTensor *out[2] = {inverse, counts};
    const int64_t osize[2] = {m, nruns};
    for (int k = 0; k < 2 && status == 0; k++) {
      if (!out[k]) continue;
      status = THLongTensor_resizeOutput(out[k], op, 1, &osize[k], 0);
      if (status == 0 && !THLongTensor_isContiguous(out[k])) {
        THError_set(TH_ERR_RUNTIME, "unique(): the %s output must be contiguous",
                    k ? "counts" : "inverse");
        status = -1;
      }
    }
  }
  if (status == 0) {
    int64_t *inv = inverse ? THLongTensor_data(inverse) : NULL;
    int64_t *cnt = counts ? THLongTensor_data(counts) : NULL;
    for (int64_t j = 0, r = -1; j < m; j++) {
      if (j == 0 || !THTensor_(rowEqual)(&rows, order[j], order[j - 1])) {
        if (cnt) cnt[++r] = 0;
        else ++r;
      }
      if (cnt) cnt[r]++;
      if (inv) inv[order[j]] = r;
    }
  }
  THFree(order);
  THTensor_(free)(c);
  return status;
}


int THTensor_(cumextreme)(THTensor *values, THLongTensor *indices, THTensor *self, int64_t dim,
                          int minimum) {
  const char *op = minimum ? "cummin()" : "cummax()";
  int d;
  int64_t n;
  THTry(THTensor_(sliceDim)(&d, &n, self, dim, op), -1);
  THTry(THTensor_(sliceOutputs)(values, indices, self, d, n, 1, op), -1);
  THTensor_(SliceArgs) a = {n, 0, minimum, 0};
  return THTensor_(forSlices)(THTensor_(cumExtremeSlice), a, self, d, values, indices);
}

/* Binary search of one row: how many of seq[0, m) come before x (left: are < x; right: are not
 * > x), in TH_SORT_LT's order (NaN above every number). */
static int64_t THTensor_(bisect)(const real *seq, int64_t m, opreal x, int right) {
  int64_t lo = 0, hi = m;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    const opreal y = TH_LOAD(seq[mid]);
    if (right ? !TH_SORT_LT(x, y) : TH_SORT_LT(y, x))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

int THTensor_(searchsorted)(THLongTensor *r, THTensor *sorted, THTensor *values, int right) {
  const char *op = "searchsorted()";
  THTry(THTensor_(checkBounds)(sorted, op), -1);
  THTry(THTensor_(checkBounds)(values, op), -1);
  THArgCheck(THTensor_(isContiguous)(sorted) && THTensor_(isContiguous)(values), TH_ERR_RUNTIME,
             -1, "%s: sorted sequence and values must be contiguous", op);
  const int64_t m = sorted->nDimension ? sorted->size[sorted->nDimension - 1] : 1;
  const int64_t nv = THTensor_(nElement)(values);
  const int64_t n = values->nDimension ? values->size[values->nDimension - 1] : 1;
  const int64_t rows = m ? THTensor_(nElement)(sorted) / m : 0;
  THArgCheck(rows <= 1 || nv == 0 || rows == nv / n, TH_ERR_RUNTIME, -1,
             "%s: the sorted sequence has %lld rows but the values %lld", op, (long long)rows,
             (long long)(n ? nv / n : 0));
  THTry(THLongTensor_resizeOutput(r, op, values->nDimension, values->size, 0), -1);
  int64_t *out = THLongTensor_data(r);
  const real *seq = THTensor_(data)(sorted), *val = THTensor_(data)(values);
  const int one_row = rows <= 1;
#pragma omp parallel for if (THParallel_worth(nv, sizeof(real) * TH_WEIGHT_SORT))
  for (int64_t i = 0; i < nv; i++) {
    const real *row = one_row ? seq : seq + (i / n) * m;
    out[i] = THTensor_(bisect)(row, m, TH_LOAD(val[i]), right);
  }
  return 0;
}

#undef TH_SORT_ISNAN
#undef TH_SORT_LT
#undef TH_EMPTY_MEDIAN

#endif
