#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THNNNormalization.h"
#else

/* Batch, layer and group normalisation: y = (x - mean) * invstd * weight + bias with
 * invstd = 1 / sqrt(var + eps) and the biased variance. weight and bias may be NULL (no affine
 * part). The forward saves the mean and invstd it used (saveMean, saveInvstd) for the
 * backward, which writes gradInput, gradWeight and gradBias in one pass (any of them NULL:
 * not wanted). */

/* input (N, C, *). train: statistics of the batch per channel; runningMean/runningVar
 * (C, contiguous, or NULL) then move towards them by momentum (the variance unbiased, n/(n-1)).
 * Not train: the running statistics are used. saveMean, saveInvstd: (C). */
int THNN_(BatchNormalization_updateOutput)(THTensor *output, THTensor *saveMean,
                                           THTensor *saveInvstd, THTensor *input,
                                           THTensor *weight, THTensor *bias,
                                           THTensor *runningMean, THTensor *runningVar,
                                           int train, double momentum, double eps);
int THNN_(BatchNormalization_backward)(THTensor *gradInput, THTensor *gradWeight,
                                       THTensor *gradBias, THTensor *gradOutput,
                                       THTensor *input, THTensor *weight, THTensor *saveMean,
                                       THTensor *saveInvstd, int train);

/* input seen as rows of its last normalizedNumel elements; weight, bias: normalizedNumel
 * elements. saveMean, saveInvstd: one per row. */
int THNN_(LayerNormalization_updateOutput)(THTensor *output, THTensor *saveMean,
                                           THTensor *saveInvstd, THTensor *input,
                                           THTensor *weight, THTensor *bias,
                                           int64_t normalizedNumel, double eps);
int THNN_(LayerNormalization_backward)(THTensor *gradInput, THTensor *gradWeight,
                                       THTensor *gradBias, THTensor *gradOutput,
                                       THTensor *input, THTensor *weight, THTensor *saveMean,
                                       THTensor *saveInvstd, int64_t normalizedNumel);

/* input (N, C, *) with C divisible by groups: statistics per (sample, group), weight and
 * bias per channel (C). saveMean, saveInvstd: (N * groups). */
int THNN_(GroupNormalization_updateOutput)(THTensor *output, THTensor *saveMean,
                                           THTensor *saveInvstd, THTensor *input,
                                           THTensor *weight, THTensor *bias, int64_t groups,
                                           double eps);
int THNN_(GroupNormalization_backward)(THTensor *gradInput, THTensor *gradWeight,
                                       THTensor *gradBias, THTensor *gradOutput,
                                       THTensor *input, THTensor *weight, THTensor *saveMean,
                                       THTensor *saveInvstd, int64_t groups);

#endif
