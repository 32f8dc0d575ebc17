#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THNNCTC.h"
#else

/* Connectionist temporal classification (Graves et al. 2006). logProbs (T, N, C) are taken as
 * given (no normalisation); targets are int64, padded (N, S) or the N sequences concatenated
 * (sum of targetLengths); inputLengths and targetLengths are int64 of N elements. Each sample's
 * labels must lie in [0, C) and differ from blank (IndexError / RuntimeError); lengths must lie
 * in [0, T] and fit the targets (RuntimeError). Positions past a sample's target length are
 * never read. */

/* output (N): each sample's negative log likelihood (inf when no alignment exists, e.g. a
 * target longer than its input); logAlpha (N, T, 2 * max target length + 1): the forward
 * variables in log space, kept for the gradient. */
int THNN_(CTCLoss_updateOutput)(THTensor *output, THTensor *logAlpha, THTensor *logProbs,
                                THLongTensor *targets, THLongTensor *inputLengths,
                                THLongTensor *targetLengths, int64_t blank);

/* gradInput (T, N, C) = gradOutput[n] * (exp(logProbs) - exp(log(sum over s with label c of
 * alpha * beta) + nll - logProbs)) at t < inputLengths[n], 0 beyond: the gradient PyTorch
 * returns, which is the derivative of the loss plus exp(logProbs) * gradOutput per frame (a
 * term that vanishes through a log_softmax in front). With zeroInfinity a sample whose loss is
 * inf gets 0. output and logAlpha: what updateOutput returned for the same arguments. */
int THNN_(CTCLoss_updateGradInput)(THTensor *gradInput, THTensor *gradOutput,
                                   THTensor *logProbs, THLongTensor *targets,
                                   THLongTensor *inputLengths, THLongTensor *targetLengths,
                                   THTensor *output, THTensor *logAlpha, int64_t blank,
                                   int zeroInfinity);

#endif
