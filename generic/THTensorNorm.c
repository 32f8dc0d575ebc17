#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THTensorNorm.c"
#else

/* linalg.vector_norm: its own checks and messages (the dims, and the orders that have no
 * identity over no elements: negative ones and +-inf), then the p-norm reduction of
 * generic/THTensorReduce.c, which accumulates in double. */

int THTensor_(linalgVectorNorm)(THTensor *r, THTensor *a, double ord, int ndims, const int *dims,
                                int keepdim) {
  const char *op = "linalg.vector_norm";
  THTry(THTensor_(checkBounds)(a, op), -1);
  const int nd = a->nDimension;
  int reduce[TH_MAX_DIM] = {0};
  int64_t wrapped[TH_MAX_DIM];
  for (int i = 0; i < ndims; i++) {
    int d;
    THTry(THShape_wrapDim(&d, op, dims[i], TH_MAX(nd, 1)), -1);
    THArgCheck(!reduce[d], TH_ERR_RUNTIME, -1,
               "%s: dim %d appears multiple times in the list of dims", op, d);
    reduce[d] = 1;
    wrapped[i] = d;
  }
  int64_t inner = 1;
  for (int d = 0; d < nd; d++)
    if (ndims == 0 || reduce[d]) inner *= a->size[d];
  THArgCheck(inner > 0 || (ord >= 0 && !isinf(ord)), TH_ERR_RUNTIME, -1,
             "%s: cannot compute the %g norm on an empty tensor because the operation does not "
             "have an identity", op, ord);
  return THTensor_(norm)(r, a, ord, nd == 0 ? 0 : ndims, wrapped, keepdim);
}

#endif
