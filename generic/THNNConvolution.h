#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THNNConvolution.h"
#else

/* 2-D convolution by im2col + GEMM (TH's SpatialConvolutionMM) and its adjoint, the transposed
 * ("full") convolution (SpatialFullDilatedConvolution). Tensors are (N, C, H, W); weight is
 * (Cout, Cin / groups, kH, kW) for the convolution and (Cin, Cout / groups, kH, kW) for the
 * transposed one; bias (channels of the output) or NULL. Padding is given per side (top, left,
 * bottom, right), so padding='same' with an even kernel needs no padded copy. Outputs are
 * resized; gradWeight and gradBias must have their parameter's shape and are accumulated
 * (+= scale * gradient), either may be NULL. 1-D convolutions run here with H = 1. */
int THNN_(SpatialConvolutionMM_updateOutput)(THTensor *output, THTensor *input, THTensor *weight,
                                             THTensor *bias, int64_t sH, int64_t sW,
                                             int64_t padT, int64_t padL, int64_t padB,
                                             int64_t padR, int64_t dilH, int64_t dilW,
                                             int64_t groups);
/* iH, iW: the input's height and width (several give the same output size when stride > 1). */
int THNN_(SpatialConvolutionMM_updateGradInput)(THTensor *gradInput, THTensor *gradOutput,
                                                THTensor *weight, int64_t iH, int64_t iW,
                                                int64_t sH, int64_t sW, int64_t padT,
                                                int64_t padL, int64_t padB, int64_t padR,
                                                int64_t dilH, int64_t dilW, int64_t groups);
int THNN_(SpatialConvolutionMM_accGradParameters)(THTensor *gradWeight, THTensor *gradBias,
                                                  THTensor *gradOutput, THTensor *input,
                                                  int64_t sH, int64_t sW, int64_t padT,
                                                  int64_t padL, int64_t padB, int64_t padR,
                                                  int64_t dilH, int64_t dilW, int64_t groups,
                                                  double scale);

/* output (N, Cout, (H-1)*sH - padT - padB + dilH*(kH-1) + outPadH + 1, ...) */
int THNN_(SpatialFullDilatedConvolution_updateOutput)(THTensor *output, THTensor *input,
                                                      THTensor *weight, THTensor *bias,
                                                      int64_t sH, int64_t sW, int64_t padT,
                                                      int64_t padL, int64_t padB, int64_t padR,
                                                      int64_t dilH, int64_t dilW,
                                                      int64_t outPadH, int64_t outPadW,
                                                      int64_t groups);
int THNN_(SpatialFullDilatedConvolution_updateGradInput)(THTensor *gradInput,
                                                         THTensor *gradOutput, THTensor *weight,
                                                         int64_t iH, int64_t iW, int64_t sH,
                                                         int64_t sW, int64_t padT, int64_t padL,
                                                         int64_t padB, int64_t padR,
                                                         int64_t dilH, int64_t dilW,
                                                         int64_t groups);
int THNN_(SpatialFullDilatedConvolution_accGradParameters)(THTensor *gradWeight,
                                                           THTensor *gradBias,
                                                           THTensor *gradOutput,
                                                           THTensor *input, int64_t sH,
                                                           int64_t sW, int64_t padT,
                                                           int64_t padL, int64_t padB,
                                                           int64_t padR, int64_t dilH,
                                                           int64_t dilW, int64_t groups,
                                                           double scale);

#endif
