#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THNNLinear.h"
#else

/* Linear: output (N, out) = input (N, in) @ weight (out, in)^T + bias (out), one GEMM each way
 * (the bias is copied into the rows first and the product added to it). bias may be NULL.
 * input, gradOutput and gradInput may have more leading dims (..., in): N is their product.
 * accGradParameters writes gradWeight = scale * gradOutput^T @ input and gradBias = scale *
 * the column sums of gradOutput; accumulate = 1 adds to their contents instead (THNN's
 * convention), 0 resizes and overwrites them. Non-contiguous arguments are copied first. */
int THNN_(Linear_updateOutput)(THTensor *output, THTensor *input, THTensor *weight,
                               THTensor *bias);
int THNN_(Linear_updateGradInput)(THTensor *gradInput, THTensor *gradOutput, THTensor *weight);
int THNN_(Linear_accGradParameters)(THTensor *gradWeight, THTensor *gradBias, THTensor *input,
                                    THTensor *gradOutput, real scale, int accumulate);

#endif
