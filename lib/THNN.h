#ifndef TH_NN_H
#define TH_NN_H

/* THNN: the arithmetic of layers, stamped for float and double (TH's THNN library). Each layer
 * family has up to three verbs, THNN_(<Layer>_updateOutput) (forward),
 * THNN_(<Layer>_updateGradInput) (the gradient for the input) and
 * THNN_(<Layer>_accGradParameters) (gradients for weights, accumulated with a scale), in one
 * generic file per family so forward and backward are read together. Outputs come first;
 * each returns 0, or -1 with an error recorded. pyth.nn.functional calls them. */

#include "THTensor.h"

#define THNN_(NAME) TH_CONCAT_3(THNN_, Real, NAME)

/* grid sampling's interpolation and padding modes (generic/THNNGridSampler.h), numbered as
 * PyTorch's torch.grid_sampler takes them */
enum { THNN_GRID_BILINEAR = 0, THNN_GRID_NEAREST = 1, THNN_GRID_BICUBIC = 2 };
enum { THNN_GRID_ZEROS = 0, THNN_GRID_BORDER = 1, THNN_GRID_REFLECTION = 2 };

#include "generic/THNNActivation.h"
#include "THGenerateBlasTypes.h"
#include "generic/THNNSoftMax.h"
#include "THGenerateBlasTypes.h"
#include "generic/THNNNormalization.h"
#include "THGenerateBlasTypes.h"
#include "generic/THNNLookupTable.h"
#include "THGenerateBlasTypes.h"
#include "generic/THNNConvolution.h"
#include "THGenerateBlasTypes.h"
#include "generic/THNNPooling.h"
#include "THGenerateBlasTypes.h"
#include "generic/THNNLinear.h"
#include "THGenerateBlasTypes.h"
#include "generic/THNNRecurrent.h"
#include "THGenerateBlasTypes.h"
#include "generic/THNNGridSampler.h"
#include "THGenerateBlasTypes.h"
#include "generic/THNNCTC.h"
#include "THGenerateBlasTypes.h"
#include "generic/THNNAttention.h"
#include "THGenerateBlasTypes.h"

#endif
