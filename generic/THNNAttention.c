#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THNNAttention.c"
#else

/* Row-major tiles read as column-major matrices by BLAS (see THNNLinear.c). For a block of
 * bq query rows Q (bq, E) and a tile of bk keys K (bk, E), V (bk, Ev), scores and
 * probabilities P live in one (bq, THNN_ATT_BK) scratch tile:
 *   S  = Q K^T          gemm('t', 'n', bk, bq, E)
 *   O += P V            gemm('n', 'n', Ev, bq, bk)
 *   dV += P^T dO        gemm('n', 't', Ev, bk, bq)
 *   dP = dO V^T         gemm('t', 'n', bk, bq, Ev)
 *   dQ += dS K          gemm('n', 'n', E, bq, bk)
 *   dK += dS^T Q        gemm('n', 't', E, bk, bq)
 * The forward keeps a running maximum m and sum l per row (online softmax), rescaling the
 * partial output when m grows; logsumexp = m + log l. The backward rebuilds P = exp(S - lse)
 * and uses D = rowsum(dO o O): dS = P o (dP - D) * scale. The forward runs in parallel over
 * (batch·head, query block); the backward over key/value heads, since every query head of a
 * group adds into one dK, dV. A causal block stops at its last row's diagonal tile. Copies
 * of non-contiguous inputs are made by THNNRecurrent.c's recurrentContiguous (stamped before
 * this file in THNN.c). */

#ifndef THNN_ATTENTION_TILES
#define THNN_ATTENTION_TILES
enum { THNN_ATT_BQ = 64, THNN_ATT_BK = 64 };
#endif

typedef struct {
  int64_t B, H, Hk, L, S, E, Ev;
  int64_t ms[4];       /* the mask's strides (B, H, L, S) */
  const real *mask;    /* NULL: none */
  int causal;
  real scale;
} THNN_(AttGeom);

/* Checks the shapes and fills g; -1 with an error when they do not fit. */
static int THNN_(attentionGeom)(THNN_(AttGeom) *g, THTensor *query, THTensor *key,
                                THTensor *value, THTensor *mask, int causal, double scale,
                                const char *op) {
  char a[TH_SIZE_STR_LEN], b[TH_SIZE_STR_LEN], c[TH_SIZE_STR_LEN];
  THTry(THTensor_(checkBounds)(query, op), -1);
  THTry(THTensor_(checkBounds)(key, op), -1);
  THTry(THTensor_(checkBounds)(value, op), -1);
  THArgCheck(query->nDimension == 4 && key->nDimension == 4 && value->nDimension == 4,
             TH_ERR_RUNTIME, -1, "%s: expected 4-D query, key and value, got %s, %s and %s", op,
             THSize_str(a, sizeof a, query->nDimension, query->size),
             THSize_str(b, sizeof b, key->nDimension, key->size),
             THSize_str(c, sizeof c, value->nDimension, value->size));
  g->B = query->size[0];
  g->H = query->size[1];
  g->L = query->size[2];
  g->E = query->size[3];
  g->Hk = key->size[1];
  g->S = key->size[2];
  g->Ev = value->size[3];
  THArgCheck(key->size[0] == g->B && value->size[0] == g->B && value->size[1] == g->Hk &&
             value->size[2] == g->S && key->size[3] == g->E && g->Hk > 0 && g->H % g->Hk == 0,
             TH_ERR_RUNTIME, -1, "%s: query %s, key %s and value %s do not fit", op,
             THSize_str(a, sizeof a, 4, query->size), THSize_str(b, sizeof b, 4, key->size),
             THSize_str(c, sizeof c, 4, value->size));
  g->mask = NULL;
  if (mask) {
    THTry(THTensor_(checkBounds)(mask, op), -1);
    const int64_t want[4] = {g->B, g->H, g->L, g->S};
    int ok = mask->nDimension == 4;
    for (int d = 0; ok && d < 4; d++) ok = mask->size[d] == want[d];
    THArgCheck(ok, TH_ERR_RUNTIME, -1, "%s: expected a mask of size %s, got %s", op,
               THSize_str(a, sizeof a, 4, want),
               THSize_str(b, sizeof b, mask->nDimension, mask->size));
    for (int d = 0; d < 4; d++) g->ms[d] = mask->stride[d];
    g->mask = THTensor_(data)(mask);
  }
  g->causal = causal;
  g->scale = (real)scale;
  return 0;
}

/* The scores of query rows i0 .. i0+bq-1 against keys j0 .. j0+bk-1 of (batch b, head h) into
 * s (ld THNN_ATT_BK): scale Q K^T plus the mask, -inf above the causal diagonal. */
static int THNN_(attentionScores)(const THNN_(AttGeom) *g, real *s, const real *q,
                                  const real *k, int64_t b, int64_t h, int64_t i0, int64_t bq,
                                  int64_t j0, int64_t bk) {
  THTry(THBlas_(gemm)('t', 'n', bk, bq, g->E, g->scale, k, g->E, q, g->E, 0, s, THNN_ATT_BK),
        -1);
  if (g->mask) {
    for (int64_t i = 0; i < bq; i++) {
      const real *mr = g->mask + b * g->ms[0] + h * g->ms[1] + (i0 + i) * g->ms[2] +
                       j0 * g->ms[3];
      real *sr = s + i * THNN_ATT_BK;
      for (int64_t j = 0; j < bk; j++) sr[j] += mr[j * g->ms[3]];
    }
  }
  if (g->causal) {
    for (int64_t i = 0; i < bq; i++) {
      real *sr = s + i * THNN_ATT_BK;
      for (int64_t j = TH_MAX(i0 + i + 1 - j0, 0); j < bk; j++) sr[j] = -INFINITY;
    }
  }
  return 0;
}

/* The number of key tiles query rows i0 .. i0+bq-1 see (all, or up to the causal diagonal). */
static int64_t THNN_(attentionTiles)(const THNN_(AttGeom) *g, int64_t i0, int64_t bq) {
  int64_t keys = g->S;
  if (g->causal) keys = TH_MIN(keys, i0 + bq);
  return (keys + THNN_ATT_BK - 1) / THNN_ATT_BK;
}

/* The threads for `tasks` independent tasks of about `work` multiply-adds each. */
static int THNN_(attentionThreads)(int64_t tasks, int64_t work) {
  if (tasks < 2 || !THParallel_worth(tasks * work, (int64_t)sizeof(real))) return 1;
  return (int)TH_MIN((int64_t)THThreads_max(), tasks);
}

static void THNN_(attentionFree)(THTensor **t, int n) {
  for (int i = 0; i < n; i++) THTensor_(free)(t[i]);
}

#if defined(TH_REAL_IS_FLOAT)
#define THNN_ATT_EXP expf
#else
#define THNN_ATT_EXP exp
#endif

/* x[j] = exp(x[j] - top) over a row of n scores (libmvec's vector exp in the clones), and the
 * row's sum (runSum), in a loop of its own (a sum in the exp loop keeps the exp scalar: gcc may
 * not reorder FP sums). */
TH_VECTOR_CLONES static accreal THNN_(expShifted)(real *restrict x, int64_t n, real top) {
  for (int64_t j = 0; j < n; j++) x[j] = THNN_ATT_EXP(x[j] - top);
  return THNN_(runSum)(x, n);
}

/* dS = P (dP - D) of one row, P = exp(S - lse) rebuilt in place (0 for a fully masked row). */
TH_VECTOR_CLONES static void THNN_(softmaxGradScores)(real *restrict p, real *restrict d,
                                                      int64_t n, real top, real dd) {
  if (top == -INFINITY) {
    for (int64_t j = 0; j < n; j++) p[j] = d[j] = 0;
    return;
  }
  for (int64_t j = 0; j < n; j++) p[j] = THNN_ATT_EXP(p[j] - top);
  for (int64_t j = 0; j < n; j++) d[j] = p[j] * (d[j] - dd);
}
#undef THNN_ATT_EXP

/* One block of the forward: output rows o (bq, Ev) and their logsumexp, s and ml scratch. */
static int THNN_(attentionBlock)(const THNN_(AttGeom) *g, real *o, real *lse, const real *q,
                                 const real *k, const real *v, int64_t b, int64_t h,
                                 int64_t i0, int64_t bq, real *s, real *m, real *l) {
  const int64_t tiles = THNN_(attentionTiles)(g, i0, bq);
  for (int64_t i = 0; i < bq; i++) {
    m[i] = -INFINITY;
    l[i] = 0;
  }
  memset(o, 0, (size_t)(bq * g->Ev) * sizeof(real));
  for (int64_t t = 0; t < tiles; t++) {
    const int64_t j0 = t * THNN_ATT_BK, bk = TH_MIN(THNN_ATT_BK, g->S - j0);
    THTry(THNN_(attentionScores)(g, s, q, k + j0 * g->E, b, h, i0, bq, j0, bk), -1);
    for (int64_t i = 0; i < bq; i++) {
      real *sr = s + i * THNN_ATT_BK;
      real top = m[i];
      for (int64_t j = 0; j < bk; j++)
        if (sr[j] > top) top = sr[j];
      if (top == -INFINITY) { /* every key so far masked */
        for (int64_t j = 0; j < bk; j++) sr[j] = 0;
        continue;
      }
      const accreal sum = THNN_(expShifted)(sr, bk, top);
      if (top != m[i]) {
        const real corr = exp(m[i] - top);
        l[i] *= corr;
        real *orow = o + i * g->Ev;
        if (l[i] != 0 || m[i] != -INFINITY)
          for (int64_t e = 0; e < g->Ev; e++) orow[e] *= corr;
        m[i] = top;
      }
      l[i] += (real)sum;
    }
    THTry(THBlas_(gemm)('n', 'n', g->Ev, bq, bk, 1, v + j0 * g->Ev, g->Ev, s, THNN_ATT_BK, 1,
                        o, g->Ev), -1);
  }
  for (int64_t i = 0; i < bq; i++) {
    real *orow = o + i * g->Ev;
    if (l[i] == 0 || m[i] == -INFINITY) {
      for (int64_t e = 0; e < g->Ev; e++) orow[e] = 0;
      lse[i] = -INFINITY;
      continue;
    }
    const real inv = 1 / l[i];
    for (int64_t e = 0; e < g->Ev; e++) orow[e] *= inv;
    lse[i] = m[i] + log(l[i]);
  }
  return 0;
}

int THNN_(Attention_updateOutput)(THTensor *output, THTensor *logsumexp, THTensor *query,
                                  THTensor *key, THTensor *value, THTensor *mask, int causal,
                                  double scale) {
  const char *op = "scaled_dot_product_attention";
  THNN_(AttGeom) g;
  THTry(THNN_(attentionGeom)(&g, query, key, value, mask, causal, scale, op), -1);
  const int64_t osz[4] = {g.B, g.H, g.L, g.Ev};
  THTry(THTensor_(resize)(output, 4, osz), -1);
  THTry(THTensor_(resize)(logsumexp, 3, osz), -1);
  THArgCheck(THTensor_(isContiguous)(output) && THTensor_(isContiguous)(logsumexp),
             TH_ERR_RUNTIME, -1, "%s: the output must be contiguous", op);
  THTensor *in[3];
  THTensor *const given[3] = {query, key, value};
  THTry(THNN_(recurrentContiguous)(in, given, 3), -1);
  const real *q = THTensor_(data)(in[0]), *k = THTensor_(data)(in[1]),
             *v = THTensor_(data)(in[2]);
  real *o = THTensor_(data)(output), *lse = THTensor_(data)(logsumexp);
  const int64_t blocks = (g.L + THNN_ATT_BQ - 1) / THNN_ATT_BQ, N = g.B * g.H;
  const int64_t tasks = N * blocks, group = g.H / g.Hk;
  const int nt = THNN_(attentionThreads)(tasks, THNN_ATT_BQ * TH_MAX(g.S, 1) *
                                         (g.E + g.Ev + 1));
  const int64_t per = THNN_ATT_BQ * THNN_ATT_BK + 2 * THNN_ATT_BQ;
  real *ws = tasks ? THAllocArray(op, per * nt, sizeof(real)) : NULL;
  int failed = tasks && !ws;
  if (!failed && tasks) {
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
      real *s = ws + omp_get_thread_num() * per, *m = s + THNN_ATT_BQ * THNN_ATT_BK,
           *l = m + THNN_ATT_BQ;
#pragma omp for schedule(dynamic)
      for (int64_t task = 0; task < tasks; task++) {
        const int64_t n = task / blocks, i0 = (task % blocks) * THNN_ATT_BQ;
        const int64_t bq = TH_MIN(THNN_ATT_BQ, g.L - i0), b = n / g.H, h = n % g.H;
        const int64_t kv = b * g.Hk + h / group;
        if (THNN_(attentionBlock)(&g, o + (n * g.L + i0) * g.Ev, lse + n * g.L + i0,
                                  q + (n * g.L + i0) * g.E, k + kv * g.S * g.E,
                                  v + kv * g.S * g.Ev, b, h, i0, bq, s, m, l) != 0) {
#pragma omp atomic write
          failed = 1;
        }
      }
    }
  }
  THFree(ws);
  THNN_(attentionFree)(in, 3);
  return failed ? -1 : 0;
}

int THNN_(Attention_updateGradInput)(THTensor *gradQuery, THTensor *gradKey,
                                     THTensor *gradValue, THTensor *gradMask,
                                     THTensor *gradOutput, THTensor *query, THTensor *key,
                                     THTensor *value, THTensor *mask, THTensor *output,
                                     THTensor *logsumexp, int causal, double scale) {
  const char *op = "scaled_dot_product_attention_backward";
  char a[TH_SIZE_STR_LEN], b2[TH_SIZE_STR_LEN];
  THNN_(AttGeom) g;
  THTry(THNN_(attentionGeom)(&g, query, key, value, mask, causal, scale, op), -1);
  const int64_t osz[4] = {g.B, g.H, g.L, g.Ev};
  THTensor *const shaped[2] = {gradOutput, output};
  for (int i = 0; i < 2; i++) {
    THTry(THTensor_(checkBounds)(shaped[i], op), -1);
    int ok = shaped[i]->nDimension == 4;
    for (int d = 0; ok && d < 4; d++) ok = shaped[i]->size[d] == osz[d];
    THArgCheck(ok, TH_ERR_RUNTIME, -1, "%s: expected %s of size %s, got %s", op,
               i ? "output" : "gradOutput", THSize_str(a, sizeof a, 4, osz),
               THSize_str(b2, sizeof b2, shaped[i]->nDimension, shaped[i]->size));
  }
  THTry(THTensor_(checkBounds)(logsumexp, op), -1);
  THArgCheck(logsumexp->nDimension == 3 && logsumexp->size[0] == g.B &&
             logsumexp->size[1] == g.H && logsumexp->size[2] == g.L, TH_ERR_RUNTIME, -1,
             "%s: expected logsumexp of size %s, got %s", op, THSize_str(a, sizeof a, 3, osz),
             THSize_str(b2, sizeof b2, logsumexp->nDimension, logsumexp->size));
  THTry(THTensor_(resizeAs)(gradQuery, query), -1);
  THTry(THTensor_(resizeAs)(gradKey, key), -1);
  THTry(THTensor_(resizeAs)(gradValue, value), -1);
  const int64_t msz[4] = {g.B, g.H, g.L, g.S};
  if (gradMask) THTry(THTensor_(resize)(gradMask, 4, msz), -1);
  THArgCheck(THTensor_(isContiguous)(gradQuery) && THTensor_(isContiguous)(gradKey) &&
             THTensor_(isContiguous)(gradValue) &&
             (!gradMask || THTensor_(isContiguous)(gradMask)), TH_ERR_RUNTIME, -1,
             "%s: the gradients must be contiguous", op);
  THTensor *in[6];
  THTensor *const given[6] = {query, key, value, gradOutput, output, logsumexp};
  THTry(THNN_(recurrentContiguous)(in, given, 6), -1);
  const real *q = THTensor_(data)(in[0]), *k = THTensor_(data)(in[1]),
             *v = THTensor_(data)(in[2]), *dout = THTensor_(data)(in[3]),
             *out = THTensor_(data)(in[4]), *lse = THTensor_(data)(in[5]);
  real *dq = THTensor_(data)(gradQuery), *dk = THTensor_(data)(gradKey),
       *dv = THTensor_(data)(gradValue), *dm = gradMask ? THTensor_(data)(gradMask) : NULL;
  memset(dq, 0, (size_t)(g.B * g.H * g.L * g.E) * sizeof(real));
  memset(dk, 0, (size_t)(g.B * g.Hk * g.S * g.E) * sizeof(real));
  memset(dv, 0, (size_t)(g.B * g.Hk * g.S * g.Ev) * sizeof(real));
  if (dm) memset(dm, 0, (size_t)(g.B * g.H * g.L * g.S) * sizeof(real));
  const int64_t blocks = (g.L + THNN_ATT_BQ - 1) / THNN_ATT_BQ, tasks = g.B * g.Hk;
  const int64_t group = g.H / g.Hk;
  const int nt = THNN_(attentionThreads)(tasks, group * g.L * TH_MAX(g.S, 1) *
                                         (2 * g.E + 2 * g.Ev + 1));
  const int64_t per = 2 * THNN_ATT_BQ * THNN_ATT_BK + THNN_ATT_BQ;
  real *ws = tasks && g.L ? THAllocArray(op, per * nt, sizeof(real)) : NULL;
  int failed = tasks && g.L && !ws;
  if (!failed && tasks && g.L && g.S) {
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
      real *p = ws + omp_get_thread_num() * per, *ds = p + THNN_ATT_BQ * THNN_ATT_BK,
           *dd = ds + THNN_ATT_BQ * THNN_ATT_BK;
#pragma omp for schedule(dynamic)
      for (int64_t kv = 0; kv < tasks; kv++) {
        const int64_t b = kv / g.Hk;
        const real *kk = k + kv * g.S * g.E, *vv = v + kv * g.S * g.Ev;
        real *dkk = dk + kv * g.S * g.E, *dvv = dv + kv * g.S * g.Ev;
        int bad = 0;
        for (int64_t h = (kv % g.Hk) * group; !bad && h < (kv % g.Hk + 1) * group; h++) {
          const int64_t n = b * g.H + h;
          for (int64_t blk = 0; !bad && blk < blocks; blk++) {
            const int64_t i0 = blk * THNN_ATT_BQ, bq = TH_MIN(THNN_ATT_BQ, g.L - i0);
            const real *qb = q + (n * g.L + i0) * g.E, *dob = dout + (n * g.L + i0) * g.Ev,
                       *ob = out + (n * g.L + i0) * g.Ev, *lb = lse + n * g.L + i0;
            real *dqb = dq + (n * g.L + i0) * g.E;
            for (int64_t i = 0; i < bq; i++) {
              accreal sum = 0;
              for (int64_t e = 0; e < g.Ev; e++)
                sum += (accreal)dob[i * g.Ev + e] * ob[i * g.Ev + e];
              dd[i] = (real)sum;
            }
            const int64_t tiles = THNN_(attentionTiles)(&g, i0, bq);
            for (int64_t t = 0; !bad && t < tiles; t++) {
              const int64_t j0 = t * THNN_ATT_BK, bk = TH_MIN(THNN_ATT_BK, g.S - j0);
              if (THNN_(attentionScores)(&g, p, qb, kk + j0 * g.E, b, h, i0, bq, j0, bk) != 0 ||
                  THBlas_(gemm)('t', 'n', bk, bq, g.Ev, 1, vv + j0 * g.Ev, g.Ev, dob, g.Ev, 0,
                                ds, THNN_ATT_BK) != 0) {
                bad = 1;
                break;
              }
              for (int64_t i = 0; i < bq; i++) {
                real *pr = p + i * THNN_ATT_BK, *dr = ds + i * THNN_ATT_BK;
                THNN_(softmaxGradScores)(pr, dr, bk, lb[i], dd[i]);
                if (dm) {
                  real *mr = dm + (n * g.L + i0 + i) * g.S + j0;
                  for (int64_t j = 0; j < bk; j++) mr[j] = dr[j];
                }
                for (int64_t j = 0; j < bk; j++) dr[j] *= g.scale;
              }
              bad = THBlas_(gemm)('n', 't', g.Ev, bk, bq, 1, dob, g.Ev, p, THNN_ATT_BK, 1,
                                  dvv + j0 * g.Ev, g.Ev) != 0 ||
                    THBlas_(gemm)('n', 'n', g.E, bq, bk, 1, kk + j0 * g.E, g.E, ds,
                                  THNN_ATT_BK, 1, dqb, g.E) != 0 ||
                    THBlas_(gemm)('n', 't', g.E, bk, bq, 1, qb, g.E, ds, THNN_ATT_BK, 1,
                                  dkk + j0 * g.E, g.E) != 0;
            }
          }
        }
        if (bad) {
#pragma omp atomic write
          failed = 1;
        }
      }
    }
  }
  THFree(ws);
  THNN_(attentionFree)(in, 6);
  return failed ? -1 : 0;
}

#endif
