#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THNNSoftMax.h"
#else

/* softmax / log_softmax along dim (numerically stable: the slice's maximum is subtracted
 * first), and their gradients from the forward's output. Outputs are resized as the input. */
int THNN_(SoftMax_updateOutput)(THTensor *output, THTensor *input, int dim);
int THNN_(SoftMax_updateGradInput)(THTensor *gradInput, THTensor *gradOutput, THTensor *output,
                                   int dim);
int THNN_(LogSoftMax_updateOutput)(THTensor *output, THTensor *input, int dim);
int THNN_(LogSoftMax_updateGradInput)(THTensor *gradInput, THTensor *gradOutput,
                                      THTensor *output, int dim);

/* Negative log likelihood of class targets: input (N, C, S...) or (C) log-probabilities,
 * target (N, S...) class indices (int64), weights (C) or NULL, reduction 0 none / 1 mean /
 * 2 sum; targets equal to ignore_index count nothing. output: the per-element losses (none)
 * or a 0-dim total; totalWeight: a 0-dim tensor with the summed weight of the counted
 * targets (mean divides by it). IndexError for a target outside [0, C). */
int THNN_(ClassNLLCriterion_updateOutput)(THTensor *output, THTensor *totalWeight,
                                          THTensor *input, THLongTensor *target,
                                          THTensor *weights, int reduction,
                                          int64_t ignore_index);
int THNN_(ClassNLLCriterion_updateGradInput)(THTensor *gradInput, THTensor *gradOutput,
                                             THTensor *input, THLongTensor *target,
                                             THTensor *weights, THTensor *totalWeight,
                                             int reduction, int64_t ignore_index);

#endif
