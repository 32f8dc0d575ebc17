#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THNNLookupTable.h"
#else

/* Embedding: weight (num_embeddings, D) and int64 indices of any shape. IndexError for an
 * index outside [0, num_embeddings). */

/* output (*indices, D) = the rows of weight the indices name. */
int THNN_(LookupTable_updateOutput)(THTensor *output, THLongTensor *indices, THTensor *weight);

/* gradWeight[indices[i]] += scale * gradOutput[i] for every i, except rows equal to
 * paddingIdx (negative: none), which get no gradient. gradWeight: contiguous, weight's shape. */
int THNN_(LookupTable_accGradParameters)(THTensor *gradWeight, THLongTensor *indices,
                                         THTensor *gradOutput, int64_t paddingIdx,
                                         double scale);

/* In place: each row of weight named by indices (once, however often it is named) whose
 * normType-norm exceeds maxNorm is scaled by maxNorm / (norm + 1e-7). weight: contiguous. */
int THNN_(LookupTable_renorm)(THTensor *weight, THLongTensor *indices, double maxNorm,
                              double normType);

/* EmbeddingBag: indices (n) int64 are cut into bags by offsets (int64, non-decreasing, the
 * first 0): bag b holds positions [offsets[b], offsets[b + 1]), the last bag reaching to n.
 * With includeLastOffset the final offset only closes the list (B = offsets - 1 bags; as in
 * PyTorch the last bag still reaches to n), else B = offsets. mode 0 sums the bag's rows (each
 * times perSampleWeights[i] when given, else NULL), 1 averages them, 2 takes each column's
 * maximum (the first of equal ones). Positions naming paddingIdx (negative: none) count for
 * nothing, not even in the mean's divisor; an empty bag gives zeros. RuntimeError for an index
 * outside [0, num_embeddings) or offsets out of order, IndexError for an offset outside [0, n].
 * The bags are split between threads when there is enough work. */

/* output (B, D); maxIndices (B, D): for mode 2, the row each maximum came from (-1: an empty
 * bag), otherwise untouched (may be NULL). */
int THNN_(LookupTableBag_updateOutput)(THTensor *output, THLongTensor *maxIndices,
                                       THLongTensor *indices, THLongTensor *offsets,
                                       THTensor *weight, THTensor *perSampleWeights, int mode,
                                       int includeLastOffset, int64_t paddingIdx);

/* The gradient for perSampleWeights (mode 0): gradPerSampleWeights (n)[i] = gradOutput[bag of
 * i] . weight[indices[i]], 0 at padding positions. */
int THNN_(LookupTableBag_updateGradInput)(THTensor *gradPerSampleWeights, THTensor *gradOutput,
                                          THLongTensor *indices, THLongTensor *offsets,
                                          THTensor *weight, int includeLastOffset,
                                          int64_t paddingIdx);

/* gradWeight (contiguous, weight's shape) += scale * each position's share of its bag's
 * gradOutput row: times perSampleWeights[i] (mode 0, or NULL), over the bag's count (mode 1),
 * over how often its index occurs in indices (scaleGradByFreq); mode 2 adds gradOutput[b, j]
 * to row maxIndices[b, j] instead. Padding rows get nothing. */
int THNN_(LookupTableBag_accGradParameters)(THTensor *gradWeight, THLongTensor *indices,
                                            THLongTensor *offsets, THTensor *gradOutput,
                                            THTensor *perSampleWeights,
                                            THLongTensor *maxIndices, int mode,
                                            int includeLastOffset, int64_t paddingIdx,
                                            int scaleGradByFreq, double scale);

#endif
