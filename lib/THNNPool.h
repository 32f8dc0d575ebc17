#ifndef TH_NN_POOL_H
#define TH_NN_POOL_H

/* What generic/THNNPooling.c shares between its float and double stampings: the geometry of a
 * pooling, the windows' spans along one dim, the messages' formatting, and max pooling's SIMD
 * row for the common MaxPool2d(2). */

#include <stdint.h>
#include <stdio.h>

/* One pooling's geometry, each array in the order (T, H, W) (depth, height, width): the input's
 * and output's sizes, kernel, stride, padding and dilation. A 2-D pooling is the 3-D one over a
 * depth of 1 with a unit kernel along it, so one kernel of each kind serves both. The counts
 * below are the products the kernels use, each found once with checked arithmetic (so an empty
 * batch of huge planes, or a huge kernel, is a RuntimeError and never a wrapped product): n and
 * on the elements of an input and an output plane, win the cells of a window (which bounds
 * every average pooling divisor), cost the bytes one window reads once clipped to the input
 * (the threading decision's weight). */
typedef struct THNNPoolGeometry {
  int64_t in[3], out[3], k[3], s[3], pad[3], dil[3];
  int64_t n, on, win, cost;
} THNNPoolGeometry;

/* Average pooling's window o along one dim, [*lo, *hi) once clipped to the input; returns its
 * length counting the padding (the window never runs past the padding on the right). */
static inline int64_t THNN_avgSpan(int64_t o, int64_t in, int64_t k, int64_t s, int64_t pad,
                                   int64_t *lo, int64_t *hi) {
  const int64_t a = o * s - pad, b = (a + k < in + pad) ? a + k : in + pad;
  *lo = a > 0 ? a : 0;
  *hi = b < in ? b : in;
  return b - a;
}

/* Adaptive pooling's cell o of out along one dim of size in: [floor(o in / out),
 * ceil((o + 1) in / out)). */
static inline void THNN_adaptiveSpan(int64_t o, int64_t in, int64_t out, int64_t *lo,
                                     int64_t *hi) {
  *lo = o * in / out;
  *hi = ((o + 1) * in + out - 1) / out;
}

/* The last nd of three values for a message, each after its label: "kT: 2 kH: 3 kW: 3" from
 * label "k" (the labels are prefix + T, H, W), or joined by "x" ("4x5x5") with label NULL. */
static inline const char *THNN_poolDims(char *buf, size_t len, const char *label, int nd,
                                        const int64_t v[3]) {
  static const char axis[3] = {'T', 'H', 'W'};
  size_t used = 0;
  buf[0] = 0;
  for (int d = 3 - nd; d < 3 && used < len; d++) {
    const int n = label ? snprintf(buf + used, len - used, "%s%s%c: %lld", d > 3 - nd ? " " : "",
                                   label, axis[d], (long long)v[d])
                        : snprintf(buf + used, len - used, "%s%lld", d > 3 - nd ? "x" : "",
                                   (long long)v[d]);
    if (n < 0) break;
    used += (size_t)n;
  }
  return buf;
}

/* Max pooling's common case, MaxPool2d(2) on float (generic/THNNPooling.c): four outputs of one
 * row of 2 x 2 windows at a time in SSE2 (every x86-64 CPU has it; other targets use the scalar
 * loop). Same answer as the scalar walk: of a window's four values in row-major order the last
 * NaN wins (PyTorch's rule), else the first maximum. Indices are within the plane (< 2^31
 * elements). */
#if defined(__SSE2__)
#include <emmintrin.h>

/* lanes where v replaces u: v > u, or v is NaN */
static inline __m128 THNN_maxTake4(__m128 u, __m128 v) {
  return _mm_or_ps(_mm_cmpgt_ps(v, u), _mm_cmpunord_ps(v, v));
}

static inline __m128 THNN_select4(__m128 m, __m128 a, __m128 b) { /* m ? a : b */
  return _mm_or_ps(_mm_and_ps(m, a), _mm_andnot_ps(m, b));
}

/* Outputs j = 0, 4, 8, ... (while 4 fit in oW) of the windows on rows r0 and r1 = r0 + W, the
 * rows' first index in the plane being k0; returns how many outputs it wrote. The pairs (a, b)
 * and (c, d) are decided first, then top against bottom, which keeps the row-major rule. */
static inline int64_t THNN_maxPool2x2RowFloat(const float *r0, int64_t W, int64_t k0, int64_t oW,
                                              float *y, int64_t *ind) {
  const __m128i one = _mm_set1_epi32(1), wv = _mm_set1_epi32((int)W), zero = _mm_setzero_si128();
  const __m128i step = _mm_set_epi32(6, 4, 2, 0);
  const float *r1 = r0 + W;
  int64_t j = 0;
  for (; j + 4 <= oW; j += 4) {
    const __m128 p0 = _mm_loadu_ps(r0 + 2 * j), p1 = _mm_loadu_ps(r0 + 2 * j + 4);
    const __m128 q0 = _mm_loadu_ps(r1 + 2 * j), q1 = _mm_loadu_ps(r1 + 2 * j + 4);
    const __m128 a = _mm_shuffle_ps(p0, p1, _MM_SHUFFLE(2, 0, 2, 0));
    const __m128 b = _mm_shuffle_ps(p0, p1, _MM_SHUFFLE(3, 1, 3, 1));
    const __m128 c = _mm_shuffle_ps(q0, q1, _MM_SHUFFLE(2, 0, 2, 0));
    const __m128 d = _mm_shuffle_ps(q0, q1, _MM_SHUFFLE(3, 1, 3, 1));
    const __m128 tb = THNN_maxTake4(a, b), td = THNN_maxTake4(c, d);
    const __m128 top = THNN_select4(tb, b, a), bot = THNN_select4(td, d, c);
    const __m128 tr = THNN_maxTake4(top, bot);
    _mm_storeu_ps(y + j, THNN_select4(tr, bot, top));
    /* the winner's offset: its column (1 where b or d won) plus W where the bottom row won */
    const __m128i col = _mm_and_si128(_mm_castps_si128(THNN_select4(tr, td, tb)), one);
    const __m128i row = _mm_and_si128(_mm_castps_si128(tr), wv);
    const __m128i k = _mm_add_epi32(_mm_add_epi32(_mm_set1_epi32((int)(k0 + 2 * j)), step),
                                    _mm_add_epi32(col, row));
    _mm_storeu_si128((__m128i *)(ind + j), _mm_unpacklo_epi32(k, zero));
    _mm_storeu_si128((__m128i *)(ind + j + 2), _mm_unpackhi_epi32(k, zero));
  }
  return j;
}
#define THNN_HAVE_POOL_SIMD 1
#endif

#endif
