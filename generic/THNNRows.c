#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THNNRows.c"
#else

/* Sums over a contiguous run of n elements in accreal, over 16 lanes (one running sum would not
 * vectorise: gcc may not reorder FP sums), which the layer kernels share: of x, of (x - m)^2,
 * and of g and g (x - m). */
#ifndef THNN_ROW_LANES
#define THNN_ROW_LANES 16
#endif

TH_VECTOR_CLONES static accreal THNN_(runSum)(const real *restrict x, int64_t n) {
  accreal part[THNN_ROW_LANES] = {0}, sum = 0;
  int64_t i = 0;
  for (; i + THNN_ROW_LANES <= n; i += THNN_ROW_LANES)
    for (int j = 0; j < THNN_ROW_LANES; j++) part[j] += x[i + j];
  for (int j = 0; i < n; i++, j++) part[j] += x[i];
  for (int j = 0; j < THNN_ROW_LANES; j++) sum += part[j];
  return sum;
}

TH_VECTOR_CLONES static accreal THNN_(runSquares)(const real *restrict x, int64_t n, accreal m) {
  accreal part[THNN_ROW_LANES] = {0}, sum = 0;
  int64_t i = 0;
  for (; i + THNN_ROW_LANES <= n; i += THNN_ROW_LANES)
    for (int j = 0; j < THNN_ROW_LANES; j++) part[j] += (x[i + j] - m) * (x[i + j] - m);
  for (int j = 0; i < n; i++, j++) part[j] += (x[i] - m) * (x[i] - m);
  for (int j = 0; j < THNN_ROW_LANES; j++) sum += part[j];
  return sum;
}

TH_VECTOR_CLONES static void THNN_(runGradSums)(const real *restrict g, const real *restrict x,
                                                int64_t n, accreal m, accreal *sg,
                                                accreal *dot) {
  accreal pg[THNN_ROW_LANES] = {0}, pd[THNN_ROW_LANES] = {0};
  int64_t i = 0;
  for (; i + THNN_ROW_LANES <= n; i += THNN_ROW_LANES)
    for (int j = 0; j < THNN_ROW_LANES; j++) {
      pg[j] += g[i + j];
      pd[j] += g[i + j] * (x[i + j] - m);
    }
  for (int j = 0; i < n; i++, j++) {
    pg[j] += g[i];
    pd[j] += g[i] * (x[i] - m);
  }
  for (int j = 0; j < THNN_ROW_LANES; j++) {
    *sg += pg[j];
    *dot += pd[j];
  }
}

#endif
