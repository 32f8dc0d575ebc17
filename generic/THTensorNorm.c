#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THTensorNorm.c"
#else

/* Vector norms. The dims are split into kept ones (the result's) and reduced ones; each result
 * element walks its reduced elements with an odometer over the reduced dims, innermost the
 * reduced dim with the smallest stride, and accumulates in double. Result elements are
 * independent, so they are split between OpenMP threads when there is enough work. */

int THTensor_(linalgVectorNorm)(THTensor *r, THTensor *a, double ord, int ndims, const int *dims,
                                int keepdim) {
  const char *op = "linalg.vector_norm";
  THTry(THTensor_(checkBounds)(a, op), -1);
  const int nd = a->nDimension;
  int reduce[TH_MAX_DIM] = {0};
  for (int i = 0; i < ndims; i++) {
    int d;
    THTry(THShape_wrapDim(&d, op, dims[i], TH_MAX(nd, 1)), -1);
    THArgCheck(!reduce[d], TH_ERR_RUNTIME, -1,
               "%s: dim %d appears multiple times in the list of dims", op, d);
    reduce[d] = 1;
  }
  if (ndims == 0)
    for (int d = 0; d < nd; d++) reduce[d] = 1;

  /* kept dims -> result shape; reduced dims -> the inner walk, sorted by decreasing stride */
  int64_t rsize[TH_MAX_DIM], ksize[TH_MAX_DIM], kstride[TH_MAX_DIM];
  int64_t isize[TH_MAX_DIM], istride[TH_MAX_DIM], inner = 1;
  int rn = 0, kn = 0, in = 0;
  for (int d = 0; d < nd; d++) {
    if (reduce[d]) {
      inner *= a->size[d];
      if (keepdim) rsize[rn++] = 1;
      int j = in++;
      while (j > 0 && istride[j - 1] < a->stride[d]) {
        isize[j] = isize[j - 1], istride[j] = istride[j - 1];
        j--;
      }
      isize[j] = a->size[d], istride[j] = a->stride[d];
    } else {
      rsize[rn++] = a->size[d];
      ksize[kn] = a->size[d], kstride[kn++] = a->stride[d];
    }
  }
  THArgCheck(inner > 0 || (ord >= 0 && !isinf(ord)), TH_ERR_RUNTIME, -1,
             "%s: cannot compute the %g norm on an empty tensor because the operation does not "
             "have an identity", op, ord);
  THTry(THTensor_(resize)(r, rn, rsize), -1);
  int64_t nout = 1;
  for (int d = 0; d < kn; d++) nout *= ksize[d];
  const real *src = THTensor_(data)(a);
  real *dst = THTensor_(data)(r);
  const int parallel = (double)nout * (double)inner >= (double)THGetGrainSize() && nout > 1;

#pragma omp parallel for schedule(static) if (parallel)
  for (int64_t o = 0; o < nout; o++) {
    int64_t base = 0, rem = o, counter[TH_MAX_DIM] = {0};
    for (int d = kn - 1; d >= 0; d--) {
      base += (rem % ksize[d]) * kstride[d];
      rem /= ksize[d];
    }
    double acc = ord == INFINITY ? 0 : ord == -INFINITY ? INFINITY : 0;
    int64_t off = base;
    for (int64_t e = 0; e < inner; e++) {
      const double v = fabs((double)TH_LOAD(src[off]));
      if (ord == 2) acc += v * v;
      else if (ord == 1) acc += v;
      else if (ord == INFINITY) acc = (isnan(v) || isnan(acc)) ? NAN : (v > acc ? v : acc);
      else if (ord == -INFINITY) acc = (isnan(v) || isnan(acc)) ? NAN : (v < acc ? v : acc);
      else if (ord == 0) acc += v != 0;
      else acc += pow(v, ord);
      for (int d = in - 1; d >= 0; d--) { /* odometer over the reduced dims */
        if (++counter[d] < isize[d]) {
          off += istride[d];
          break;
        }
        counter[d] = 0;
        off -= istride[d] * (isize[d] - 1);
      }
    }
    if (ord == 2) acc = sqrt(acc);
    else if (ord != 1 && ord != 0 && !isinf(ord)) acc = pow(acc, 1.0 / ord);
    dst[o] = TH_STORE(acc);
  }
  return 0;
}

#endif
