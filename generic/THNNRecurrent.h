#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THNNRecurrent.h"
#else

/* Recurrent layers, one layer and one direction over a whole sequence. gx (L, N, G H) is the
 * input projection x W_ih^T + b_ih of every step, made beforehand by one GEMM; weight (G H, H)
 * is W_hh and bias (G H) b_hh (NULL: none), G = 1 (RNN), 4 (LSTM: i, f, g, o), 3 (GRU: r, z,
 * n). Each step is one GEMM h W_hh^T + b_hh and one fused pointwise pass; reverse = 1 walks
 * t = L-1 .. 0. updateOutput writes output (L, N, H), the final state hn (N, H) (and cn) and
 * state (L, N, S H), what the backward reads: RNN h (S = 1); LSTM i, f, g, o, c, h (S = 6);
 * GRU r, z, n, h W_hn + b_hn, h (S = 5). An LSTM may have a projection weightHr (P, H) (NULL:
 * none): then h = (o tanh c) W_hr^T is P wide (h0, hn, output, W_hh (4 H, P)), and a state row
 * holds o tanh c and h after c (6 H + P). updateGradInput walks back in time: gradGx
 * (L, N, G H), gradH0 (and gradC0), gradWeight as one GEMM over all steps, gradBias (and
 * gradWeightHr); any of the gradients but gradGx may be NULL (not wanted), and gradHn, gradCn
 * NULL (zero). Results are resized and overwritten; non-contiguous arguments are copied
 * first. */
int THNN_(RNN_updateOutput)(THTensor *output, THTensor *hn, THTensor *state, THTensor *gx,
                            THTensor *h0, THTensor *weight, THTensor *bias, int relu,
                            int reverse);
int THNN_(RNN_updateGradInput)(THTensor *gradGx, THTensor *gradH0, THTensor *gradWeight,
                               THTensor *gradBias, THTensor *gradOutput, THTensor *gradHn,
                               THTensor *state, THTensor *h0, THTensor *weight, int relu,
                               int reverse);
int THNN_(LSTM_updateOutput)(THTensor *output, THTensor *hn, THTensor *cn, THTensor *state,
                             THTensor *gx, THTensor *h0, THTensor *c0, THTensor *weight,
                             THTensor *bias, THTensor *weightHr, int reverse);
int THNN_(LSTM_updateGradInput)(THTensor *gradGx, THTensor *gradH0, THTensor *gradC0,
                                THTensor *gradWeight, THTensor *gradBias,
                                THTensor *gradWeightHr, THTensor *gradOutput, THTensor *gradHn,
                                THTensor *gradCn, THTensor *state, THTensor *h0, THTensor *c0,
                                THTensor *weight, THTensor *weightHr, int reverse);
int THNN_(GRU_updateOutput)(THTensor *output, THTensor *hn, THTensor *state, THTensor *gx,
                            THTensor *h0, THTensor *weight, THTensor *bias, int reverse);
int THNN_(GRU_updateGradInput)(THTensor *gradGx, THTensor *gradH0, THTensor *gradWeight,
                               THTensor *gradBias, THTensor *gradOutput, THTensor *gradHn,
                               THTensor *state, THTensor *h0, THTensor *weight, int reverse);

#endif
