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

#endif
