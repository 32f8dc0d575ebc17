#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THNNAttention.h"
#else

/* Scaled dot-product attention, blocked (flash-attention style). query (B, H, L, E), key
 * (B, Hk, S, E), value (B, Hk, S, Ev), Hk dividing H: query head h reads key/value head
 * h / (H / Hk) (grouped-query attention). mask (NULL: none) is a (B, H, L, S) float bias added
 * to the scores, of any strides (stride 0 for a broadcast dim); causal keeps key j for query i
 * when j <= i (the top-left triangle). A row whose every key is masked gives 0.
 * updateOutput writes output (B, H, L, Ev) and logsumexp (B, H, L), the log of each row's
 * softmax denominator (-inf for a fully masked row), never holding more than a tile of the
 * score matrix. updateGradInput recomputes the scores tile by tile from the saved logsumexp
 * and writes gradQuery, gradKey, gradValue (and gradMask (B, H, L, S), the gradient of the
 * bias, when not NULL). Results are resized and overwritten; non-contiguous query, key, value
 * and gradOutput are copied first. */
int THNN_(Attention_updateOutput)(THTensor *output, THTensor *logsumexp, THTensor *query,
                                  THTensor *key, THTensor *value, THTensor *mask, int causal,
                                  double scale);
int THNN_(Attention_updateGradInput)(THTensor *gradQuery, THTensor *gradKey,
                                     THTensor *gradValue, THTensor *gradMask,
                                     THTensor *gradOutput, THTensor *query, THTensor *key,
                                     THTensor *value, THTensor *mask, THTensor *output,
                                     THTensor *logsumexp, int causal, double scale);

#endif
