#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THNNRecurrent.c"
#else

/* The products, with row-major matrices read as column-major ones by BLAS (see THNNLinear.c):
 *   hh (N, GH) = hprev (N, P) W^T (+ b)    gemm('t', 'n', GH, N, P)
 *   dh (N, P)  = dhh (N, GH) W             gemm('n', 'n', P, N, GH)
 *   dW (GH, P) = dhh (M, GH)^T hprev (M, P) gemm('n', 't', P, GH, M)
 * where P is the width of h: H, or proj_size for an LSTM with a projection W_hr (P, H) (h =
 * (o tanh c) W_hr^T, one more GEMM each way per step). hprev is either h0 (leading dimension
 * P) or the h column block of the state rows (leading dimension S), so the weight gradient of
 * every step but the first one is one GEMM. */

#ifndef THNN_RECURRENT_MODES
#define THNN_RECURRENT_MODES
enum { THNN_RNN_TANH = 0, THNN_RNN_RELU = 1, THNN_LSTM = 2, THNN_GRU = 3 };
static const int THNN_recurrentGates[4] = {1, 1, 4, 3};  /* G: gate blocks of H */
static const int THNN_recurrentState[4] = {1, 1, 6, 5};  /* S: saved blocks of H per row */
static const int THNN_recurrentH[4] = {0, 0, 5, 4};      /* the block of h in a state row */
static const char *const THNN_recurrentName[4] = {"rnn_tanh", "rnn_relu", "lstm", "gru"};
#endif

#define THNN_SIGMOID(x) (1 / (1 + exp(-(x))))

/* Checks that t (named name) is ndim-D of the given sizes. */
static int THNN_(recurrentSize)(const char *op, const char *name, THTensor *t, int ndim,
                                const int64_t *size) {
  char a[TH_SIZE_STR_LEN], b[TH_SIZE_STR_LEN];
  THTry(THTensor_(checkBounds)(t, op), -1);
  int ok = t->nDimension == ndim;
  for (int d = 0; ok && d < ndim; d++) ok = t->size[d] == size[d];
  THArgCheck(ok, TH_ERR_RUNTIME, -1, "%s: expected %s of size %s, got %s", op, name,
             THSize_str(a, sizeof a, ndim, size), THSize_str(b, sizeof b, t->nDimension,
                                                             t->size));
  return 0;
}

/* Reads the sizes from weight (G H, P), weightHr (P, H; NULL: none, P = H) and seq (L, N, .):
 * -1 with an error if they do not fit a recurrent layer of mode. */
static int THNN_(recurrentDims)(const char *op, int mode, THTensor *seq, THTensor *weight,
                                THTensor *weightHr, int64_t *L, int64_t *N, int64_t *H,
                                int64_t *P) {
  char a[TH_SIZE_STR_LEN];
  const int64_t G = THNN_recurrentGates[mode];
  THTry(THTensor_(checkBounds)(weight, op), -1);
  THTry(THTensor_(checkBounds)(seq, op), -1);
  if (weightHr) {
    THTry(THTensor_(checkBounds)(weightHr, op), -1);
    THArgCheck(weightHr->nDimension == 2 && weightHr->size[0] > 0 && weightHr->size[1] > 0,
               TH_ERR_RUNTIME, -1, "%s: expected a 2-D projection weight, got %s", op,
               THSize_str(a, sizeof a, weightHr->nDimension, weightHr->size));
    *H = weightHr->size[1];
    *P = weightHr->size[0];
    THArgCheck(weight->nDimension == 2 && weight->size[0] == G * *H && weight->size[1] == *P,
               TH_ERR_RUNTIME, -1,
               "%s: expected a weight of size (%lld * hidden_size, proj_size), got %s", op,
               (long long)G, THSize_str(a, sizeof a, weight->nDimension, weight->size));
  } else {
    THArgCheck(weight->nDimension == 2 && weight->size[1] > 0 &&
               weight->size[0] == G * weight->size[1], TH_ERR_RUNTIME, -1,
               "%s: expected a weight of size (%lld * hidden_size, hidden_size), got %s", op,
               (long long)G, THSize_str(a, sizeof a, weight->nDimension, weight->size));
    *H = *P = weight->size[1];
  }
  THArgCheck(seq->nDimension == 3, TH_ERR_RUNTIME, -1,
             "%s: expected a 3-D (L, N, .) sequence, got %s", op,
             THSize_str(a, sizeof a, seq->nDimension, seq->size));
  *L = seq->size[0];
  *N = seq->size[1];
  return 0;
}

/* Contiguous forms of the n tensors of in (NULL stays NULL) into out: -1 (after freeing what
 * was made) on failure. */
static int THNN_(recurrentContiguous)(THTensor **out, THTensor *const *in, int n) {
  for (int i = 0; i < n; i++) {
    out[i] = in[i] ? THTensor_(newContiguous)(in[i]) : NULL;
    if (in[i] && !out[i]) {
      for (int j = 0; j < i; j++) THTensor_(free)(out[j]);
      return -1;
    }
  }
  return 0;
}

static void THNN_(recurrentFree)(THTensor **t, int n) {
  for (int i = 0; i < n; i++) THTensor_(free)(t[i]);
}

static int THNN_(recurrentResize)(THTensor *t, int ndim, const int64_t *size, const char *op,
                                  const char *name) {
  if (THTensor_(resize)(t, ndim, size) != 0) return -1;
  THArgCheck(THTensor_(isContiguous)(t), TH_ERR_RUNTIME, -1, "%s: %s must be contiguous", op,
             name);
  return 0;
}

/* One step's gates for row n of the batch, one function a mode (simple loops over the H
 * units, vectorised with libmvec's exp and tanh in per-ISA clones): gx (G H) is x W_ih^T +
 * b_ih, hh (G H) h W_hh^T + b_hh, hp and cp the previous h and c; they write the state row st
 * (and c). */
TH_VECTOR_CLONES static void THNN_(rnnRow)(int64_t H, int relu, const real *restrict gx,
                                           const real *restrict hh, real *restrict st) {
  if (relu) {
#pragma omp simd
    for (int64_t j = 0; j < H; j++) {
      const real v = gx[j] + hh[j];
      st[j] = v > 0 ? v : 0;
    }
  } else {
#pragma omp simd
    for (int64_t j = 0; j < H; j++) st[j] = tanh(gx[j] + hh[j]);
  }
}

TH_VECTOR_CLONES static void THNN_(lstmRow)(int64_t H, const real *restrict gx,
                                            const real *restrict hh, const real *restrict cp,
                                            real *restrict st, real *restrict c) {
#pragma omp simd
  for (int64_t j = 0; j < H; j++) {
    const real i = THNN_SIGMOID(gx[j] + hh[j]);
    const real f = THNN_SIGMOID(gx[H + j] + hh[H + j]);
    const real g = tanh(gx[2 * H + j] + hh[2 * H + j]);
    const real o = THNN_SIGMOID(gx[3 * H + j] + hh[3 * H + j]);
    const real cv = f * cp[j] + i * g;
    st[j] = i;
    st[H + j] = f;
    st[2 * H + j] = g;
    st[3 * H + j] = o;
    st[4 * H + j] = cv;
    st[5 * H + j] = o * tanh(cv);
    c[j] = cv;
  }
}

TH_VECTOR_CLONES static void THNN_(gruRow)(int64_t H, const real *restrict gx,
                                           const real *restrict hh, const real *restrict hp,
                                           real *restrict st) {
#pragma omp simd
  for (int64_t j = 0; j < H; j++) {
    const real r = THNN_SIGMOID(gx[j] + hh[j]);
    const real z = THNN_SIGMOID(gx[H + j] + hh[H + j]);
    const real hn = hh[2 * H + j];
    const real n = tanh(gx[2 * H + j] + r * hn);
    st[j] = r;
    st[H + j] = z;
    st[2 * H + j] = n;
    st[3 * H + j] = hn;
    st[4 * H + j] = n + z * (hp[j] - n);
  }
}

static int THNN_(recurrentForward)(int mode, THTensor *output, THTensor *hn, THTensor *cn,
                                   THTensor *state, THTensor *gx_, THTensor *h0_,
                                   THTensor *c0_, THTensor *weight_, THTensor *bias_,
                                   THTensor *weightHr_, int reverse) {
  const char *op = THNN_recurrentName[mode];
  const int lstm = mode == THNN_LSTM, proj = weightHr_ != NULL;
  int64_t L, N, H, P;
  THTry(THNN_(recurrentDims)(op, mode, gx_, weight_, weightHr_, &L, &N, &H, &P), -1);
  const int64_t G = THNN_recurrentGates[mode], GH = G * H;
  const int64_t SH = THNN_recurrentState[mode] * H + (proj ? P : 0);
  const int64_t hoff = proj ? 6 * H : THNN_recurrentH[mode] * H;
  {
    const int64_t sgx[3] = {L, N, GH}, sh[2] = {N, P}, sc[2] = {N, H}, sb[1] = {GH};
    THTry(THNN_(recurrentSize)(op, "input gates", gx_, 3, sgx), -1);
    THTry(THNN_(recurrentSize)(op, "hx", h0_, 2, sh), -1);
    if (lstm) THTry(THNN_(recurrentSize)(op, "cx", c0_, 2, sc), -1);
    if (bias_) THTry(THNN_(recurrentSize)(op, "bias", bias_, 1, sb), -1);
  }
  THTensor *in[6] = {gx_, h0_, lstm ? c0_ : NULL, weight_, bias_, weightHr_}, *t[7] = {NULL};
  THTry(THNN_(recurrentContiguous)(t, in, 6), -1);
  const int64_t so[3] = {L, N, P}, ss[3] = {L, N, SH}, sh[2] = {N, P}, sc[2] = {N, H};
  const int64_t shh[2] = {N, GH};
  int rc = -1;
  if (THNN_(recurrentResize)(output, 3, so, op, "output") != 0 ||
      THNN_(recurrentResize)(hn, 2, sh, op, "hn") != 0 ||
      (lstm && THNN_(recurrentResize)(cn, 2, sc, op, "cn") != 0) ||
      THNN_(recurrentResize)(state, 3, ss, op, "state") != 0)
    goto done;
  if (L == 0 || N == 0) { /* nothing to walk: the final state is the initial one */
    rc = THTensor_(copy)(hn, t[1]) != 0 || (lstm && THTensor_(copy)(cn, t[2]) != 0) ? -1 : 0;
    goto done;
  }
  if (!(t[6] = THTensor_(newWithSize)(2, shh))) goto done;
  const real *gx = THTensor_(data)(t[0]), *h0 = THTensor_(data)(t[1]);
  const real *c0 = lstm ? THTensor_(data)(t[2]) : NULL, *w = THTensor_(data)(t[3]);
  const real *b = t[4] ? THTensor_(data)(t[4]) : NULL;
  const real *whr = proj ? THTensor_(data)(t[5]) : NULL;
  real *out = THTensor_(data)(output), *st = THTensor_(data)(state);
  real *hh = THTensor_(data)(t[6]), *hnd = THTensor_(data)(hn);
  real *cnd = lstm ? THTensor_(data)(cn) : NULL;
  for (int64_t s = 0; s < L; s++) {
    const int64_t tt = reverse ? L - 1 - s : s, tp = reverse ? tt + 1 : tt - 1;
    const real *hp = s == 0 ? h0 : st + tp * N * SH + hoff;
    const int64_t ldh = s == 0 ? P : SH;
    if (b)
      for (int64_t n = 0; n < N; n++) memcpy(hh + n * GH, b, (size_t)GH * sizeof(real));
    if (THBlas_(gemm)('t', 'n', GH, N, P, 1, w, P, hp, ldh, b ? 1 : 0, hh, GH) != 0) goto done;
    real *srow = st + tt * N * SH;
    for (int64_t n = 0; n < N; n++) {
      const real *cp = !lstm ? NULL : s == 0 ? c0 + n * H : st + tp * N * SH + n * SH + 4 * H;
      const real *g = gx + (tt * N + n) * GH, *hr = hh + n * GH;
      if (lstm) THNN_(lstmRow)(H, g, hr, cp, srow + n * SH, cnd + n * H);
      else if (mode == THNN_GRU) THNN_(gruRow)(H, g, hr, hp + n * ldh, srow + n * SH);
      else THNN_(rnnRow)(H, mode == THNN_RNN_RELU, g, hr, srow + n * SH);
    }
    /* the projection h = (o tanh c) W_hr^T, from and into the state rows */
    if (proj && THBlas_(gemm)('t', 'n', P, N, H, 1, whr, H, srow + 5 * H, SH, 0, srow + hoff,
                              SH) != 0)
      goto done;
    for (int64_t n = 0; n < N; n++)
      memcpy(out + (tt * N + n) * P, srow + n * SH + hoff, (size_t)P * sizeof(real));
  }
  memcpy(hnd, out + (reverse ? 0 : L - 1) * N * P, (size_t)(N * P) * sizeof(real));
  rc = 0;
done:
  THNN_(recurrentFree)(t, 7);
  return rc;
}

/* One step back for row n, one function a mode: dh (H) the gradient of this step's h, dc
 * (LSTM) of its c, both replaced by the gradients of the previous h (its part not through
 * W_hh) and c; they write the gradients of the gates dg (G H) and, for GRU, of hh (dhh). */
TH_VECTOR_CLONES static void THNN_(rnnRowBack)(int64_t H, int relu, const real *restrict st,
                                               real *restrict dh, real *restrict dg) {
  if (relu) {
#pragma omp simd
    for (int64_t j = 0; j < H; j++) dg[j] = st[j] > 0 ? dh[j] : 0;
  } else {
#pragma omp simd
    for (int64_t j = 0; j < H; j++) dg[j] = dh[j] * (1 - st[j] * st[j]);
  }
}

TH_VECTOR_CLONES static void THNN_(lstmRowBack)(int64_t H, const real *restrict st,
                                                const real *restrict cp, real *restrict dh,
                                                real *restrict dc, real *restrict dg) {
#pragma omp simd
  for (int64_t j = 0; j < H; j++) {
    const real i = st[j], f = st[H + j], g = st[2 * H + j], o = st[3 * H + j];
    const real tc = tanh(st[4 * H + j]);
    const real dct = dc[j] + dh[j] * o * (1 - tc * tc);
    dg[j] = dct * g * i * (1 - i);
    dg[H + j] = dct * cp[j] * f * (1 - f);
    dg[2 * H + j] = dct * i * (1 - g * g);
    dg[3 * H + j] = dh[j] * tc * o * (1 - o);
    dc[j] = dct * f;
  }
}

TH_VECTOR_CLONES static void THNN_(gruRowBack)(int64_t H, const real *restrict st,
                                               const real *restrict hp, real *restrict dh,
                                               real *restrict dg, real *restrict dhh) {
#pragma omp simd
  for (int64_t j = 0; j < H; j++) {
    const real r = st[j], z = st[H + j], n = st[2 * H + j], hn = st[3 * H + j];
    const real dnp = dh[j] * (1 - z) * (1 - n * n);
    const real dr = dnp * hn * r * (1 - r), dz = dh[j] * (hp[j] - n) * z * (1 - z);
    dg[j] = dhh[j] = dr;
    dg[H + j] = dhh[H + j] = dz;
    dg[2 * H + j] = dnp;
    dhh[2 * H + j] = dnp * r;
    dh[j] *= z;
  }
}

static int THNN_(recurrentBackward)(int mode, THTensor *gradGx, THTensor *gradH0,
                                    THTensor *gradC0, THTensor *gradWeight, THTensor *gradBias,
                                    THTensor *gradWeightHr, THTensor *gradOutput_,
                                    THTensor *gradHn_, THTensor *gradCn_, THTensor *state_,
                                    THTensor *h0_, THTensor *c0_, THTensor *weight_,
                                    THTensor *weightHr_, int reverse) {
  const char *op = THNN_recurrentName[mode];
  const int lstm = mode == THNN_LSTM, gru = mode == THNN_GRU, proj = weightHr_ != NULL;
  int64_t L, N, H, P;
  THTry(THNN_(recurrentDims)(op, mode, state_, weight_, weightHr_, &L, &N, &H, &P), -1);
  const int64_t G = THNN_recurrentGates[mode], GH = G * H;
  const int64_t SH = THNN_recurrentState[mode] * H + (proj ? P : 0);
  const int64_t hoff = proj ? 6 * H : THNN_recurrentH[mode] * H;
  {
    const int64_t ss[3] = {L, N, SH}, so[3] = {L, N, P}, sh[2] = {N, P}, sc[2] = {N, H};
    THTry(THNN_(recurrentSize)(op, "state", state_, 3, ss), -1);
    THTry(THNN_(recurrentSize)(op, "gradOutput", gradOutput_, 3, so), -1);
    THTry(THNN_(recurrentSize)(op, "hx", h0_, 2, sh), -1);
    if (gradHn_) THTry(THNN_(recurrentSize)(op, "gradHn", gradHn_, 2, sh), -1);
    if (lstm) {
      THTry(THNN_(recurrentSize)(op, "cx", c0_, 2, sc), -1);
      if (gradCn_) THTry(THNN_(recurrentSize)(op, "gradCn", gradCn_, 2, sc), -1);
    }
  }
  THTensor *in[8] = {state_, gradOutput_, h0_, lstm ? c0_ : NULL, weight_, gradHn_,
                     lstm ? gradCn_ : NULL, weightHr_};
  THTensor *t[12] = {NULL}; /* the 8 inputs, dh, dc, dhh (GRU), the gradient of o tanh c */
  THTry(THNN_(recurrentContiguous)(t, in, 8), -1);
  const int64_t sg[3] = {L, N, GH}, sh[2] = {N, P}, sc[2] = {N, H}, sw[2] = {GH, P};
  const int64_t sb[1] = {GH}, sr[2] = {P, H};
  int rc = -1;
  if (THNN_(recurrentResize)(gradGx, 3, sg, op, "gradGx") != 0 ||
      (gradH0 && THNN_(recurrentResize)(gradH0, 2, sh, op, "gradH0") != 0) ||
      (lstm && gradC0 && THNN_(recurrentResize)(gradC0, 2, sc, op, "gradC0") != 0) ||
      (gradWeight && THNN_(recurrentResize)(gradWeight, 2, sw, op, "gradWeight") != 0) ||
      (gradBias && THNN_(recurrentResize)(gradBias, 1, sb, op, "gradBias") != 0) ||
      (proj && gradWeightHr &&
       THNN_(recurrentResize)(gradWeightHr, 2, sr, op, "gradWeightHr") != 0))
    goto done;
  if (!(t[8] = THTensor_(newWithSize)(2, sh)) || (lstm && !(t[9] = THTensor_(newWithSize)(2, sc)))
      || (gru && !(t[10] = THTensor_(newWithSize)(3, sg)))
      || (proj && !(t[11] = THTensor_(newWithSize)(2, sc))))
    goto done;
  const int64_t NP = N * P, NH = N * H;
  real *dh = THTensor_(data)(t[8]), *dc = lstm ? THTensor_(data)(t[9]) : NULL;
  real *dhf = proj ? THTensor_(data)(t[11]) : dh; /* the gradient the gate pass reads */
  if (NP > 0) {
    if (t[5]) memcpy(dh, THTensor_(data)(t[5]), (size_t)NP * sizeof(real));
    else memset(dh, 0, (size_t)NP * sizeof(real));
    if (lstm && t[6]) memcpy(dc, THTensor_(data)(t[6]), (size_t)NH * sizeof(real));
    else if (lstm) memset(dc, 0, (size_t)NH * sizeof(real));
  }
  const real *st = THTensor_(data)(t[0]), *go = THTensor_(data)(t[1]);
  const real *h0 = THTensor_(data)(t[2]), *c0 = lstm ? THTensor_(data)(t[3]) : NULL;
  const real *w = THTensor_(data)(t[4]), *whr = proj ? THTensor_(data)(t[7]) : NULL;
  real *dg = THTensor_(data)(gradGx), *dhh = gru ? THTensor_(data)(t[10]) : dg;
  real *gwr = proj && gradWeightHr ? THTensor_(data)(gradWeightHr) : NULL;
  if (gwr && (L == 0 || N == 0)) memset(gwr, 0, (size_t)(P * H) * sizeof(real));
  for (int64_t s = L - 1; s >= 0 && N > 0; s--) {
    const int64_t tt = reverse ? L - 1 - s : s, tp = reverse ? tt + 1 : tt - 1;
    const real *hp = s == 0 ? h0 : st + tp * N * SH + hoff;
    const int64_t ldh = s == 0 ? P : SH;
    const real *g = go + tt * NP;
    for (int64_t k = 0; k < NP; k++) dh[k] += g[k];
    if (proj) { /* back through h = (o tanh c) W_hr^T */
      if (THBlas_(gemm)('n', 'n', H, N, P, 1, whr, H, dh, P, 0, dhf, H) != 0 ||
          (gwr && THBlas_(gemm)('n', 't', H, P, N, 1, st + tt * N * SH + 5 * H, SH, dh, P,
                                s == L - 1 ? 0 : 1, gwr, H) != 0))
        goto done;
    }
    for (int64_t n = 0; n < N; n++) {
      const real *cp = !lstm ? NULL : s == 0 ? c0 + n * H : st + tp * N * SH + n * SH + 4 * H;
      const real *sr_ = st + (tt * N + n) * SH;
      real *gr = dg + (tt * N + n) * GH;
      if (lstm) THNN_(lstmRowBack)(H, sr_, cp, dhf + n * H, dc + n * H, gr);
      else if (gru)
        THNN_(gruRowBack)(H, sr_, hp + n * ldh, dh + n * H, gr, dhh + (tt * N + n) * GH);
      else THNN_(rnnRowBack)(H, mode == THNN_RNN_RELU, sr_, dh + n * H, gr);
    }
    if (THBlas_(gemm)('n', 'n', P, N, GH, 1, w, P, dhh + tt * N * GH, GH, gru ? 1 : 0, dh,
                      P) != 0)
      goto done;
  }
  if (gradH0 && NP > 0) memcpy(THTensor_(data)(gradH0), dh, (size_t)NP * sizeof(real));
  if (lstm && gradC0 && NH > 0) memcpy(THTensor_(data)(gradC0), dc, (size_t)NH * sizeof(real));
  if (gradWeight) {
    real *gw = THTensor_(data)(gradWeight);
    if (L == 0 || N == 0) {
      memset(gw, 0, (size_t)(GH * P) * sizeof(real));
    } else {
      const int64_t first = reverse ? L - 1 : 0; /* the step whose previous h is h0 */
      if (THBlas_(gemm)('n', 't', P, GH, N, 1, h0, P, dhh + first * N * GH, GH, 0, gw, P) != 0)
        goto done;
      if (L > 1) { /* the others: step tt reads the h of step tt -+ 1 */
        const real *hs = st + (reverse ? N * SH : 0) + hoff;
        const real *ds = dhh + (reverse ? 0 : N * GH);
        if (THBlas_(gemm)('n', 't', P, GH, (L - 1) * N, 1, hs, SH, ds, GH, 1, gw, P) != 0)
          goto done;
      }
    }
  }
  if (gradBias) {
    real *gb = THTensor_(data)(gradBias);
    memset(gb, 0, (size_t)GH * sizeof(real));
    for (int64_t r = 0; r < L * N; r++) {
      const real *row = dhh + r * GH;
      for (int64_t j = 0; j < GH; j++) gb[j] += row[j];
    }
  }
  rc = 0;
done:
  THNN_(recurrentFree)(t, 12);
  return rc;
}

int THNN_(RNN_updateOutput)(THTensor *output, THTensor *hn, THTensor *state, THTensor *gx,
                            THTensor *h0, THTensor *weight, THTensor *bias, int relu,
                            int reverse) {
  return THNN_(recurrentForward)(relu ? THNN_RNN_RELU : THNN_RNN_TANH, output, hn, NULL, state,
                                 gx, h0, NULL, weight, bias, NULL, reverse);
}

int THNN_(RNN_updateGradInput)(THTensor *gradGx, THTensor *gradH0, THTensor *gradWeight,
                               THTensor *gradBias, THTensor *gradOutput, THTensor *gradHn,
                               THTensor *state, THTensor *h0, THTensor *weight, int relu,
                               int reverse) {
  return THNN_(recurrentBackward)(relu ? THNN_RNN_RELU : THNN_RNN_TANH, gradGx, gradH0, NULL,
                                  gradWeight, gradBias, NULL, gradOutput, gradHn, NULL, state,
                                  h0, NULL, weight, NULL, reverse);
}

int THNN_(LSTM_updateOutput)(THTensor *output, THTensor *hn, THTensor *cn, THTensor *state,
                             THTensor *gx, THTensor *h0, THTensor *c0, THTensor *weight,
                             THTensor *bias, THTensor *weightHr, int reverse) {
  return THNN_(recurrentForward)(THNN_LSTM, output, hn, cn, state, gx, h0, c0, weight, bias,
                                 weightHr, reverse);
}

int THNN_(LSTM_updateGradInput)(THTensor *gradGx, THTensor *gradH0, THTensor *gradC0,
                                THTensor *gradWeight, THTensor *gradBias,
                                THTensor *gradWeightHr, THTensor *gradOutput, THTensor *gradHn,
                                THTensor *gradCn, THTensor *state, THTensor *h0, THTensor *c0,
                                THTensor *weight, THTensor *weightHr, int reverse) {
  return THNN_(recurrentBackward)(THNN_LSTM, gradGx, gradH0, gradC0, gradWeight, gradBias,
                                  gradWeightHr, gradOutput, gradHn, gradCn, state, h0, c0,
                                  weight, weightHr, reverse);
}

int THNN_(GRU_updateOutput)(THTensor *output, THTensor *hn, THTensor *state, THTensor *gx,
                            THTensor *h0, THTensor *weight, THTensor *bias, int reverse) {
  return THNN_(recurrentForward)(THNN_GRU, output, hn, NULL, state, gx, h0, NULL, weight, bias,
                                 NULL, reverse);
}

int THNN_(GRU_updateGradInput)(THTensor *gradGx, THTensor *gradH0, THTensor *gradWeight,
                               THTensor *gradBias, THTensor *gradOutput, THTensor *gradHn,
                               THTensor *state, THTensor *h0, THTensor *weight, int reverse) {
  return THNN_(recurrentBackward)(THNN_GRU, gradGx, gradH0, NULL, gradWeight, gradBias, NULL,
                                  gradOutput, gradHn, NULL, state, h0, NULL, weight, NULL,
                                  reverse);
}

#endif
