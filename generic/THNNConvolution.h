#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THNNConvolution.h"
#else

/* 2-D convolution by im2col + GEMM (TH's SpatialConvolutionMM) and its adjoint, the transposed
 * ("full") convolution (SpatialFullDilatedConvolution). Tensors are (N, C, H, W); weight is
 * (Cout, Cin / groups, kH, kW) for the convolution and (Cin, Cout / groups, kH, kW) for the
 * transposed one; bias (channels of the output) or NULL. Padding is given per side (top, left,
 * bottom, right), so padding='same' with an even kernel needs no padded copy. Outputs are
 * resized; gradWeight and gradBias must have their parameter's shape and are accumulated
 * (+= scale * gradient), either may be NULL. 1-D convolutions run here with H = 1.
 * The 3-D verbs (Volumetric*, below) are the same with a depth in front of every size; both
 * run one kernel (vol2col / col2vol + GEMM), a 2-D call being a 3-D one of depth 1. */
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

/* 3-D: tensors (N, C, D, H, W), weight (Cout, Cin / groups, kD, kH, kW) or, transposed,
 * (Cin, Cout / groups, kD, kH, kW); padding per side: front, top, left, back, bottom, right. */
int THNN_(VolumetricConvolutionMM_updateOutput)(THTensor *output, THTensor *input,
                                                THTensor *weight, THTensor *bias, int64_t sD,
                                                int64_t sH, int64_t sW, int64_t padF,
                                                int64_t padT, int64_t padL, int64_t padBk,
                                                int64_t padB, int64_t padR, int64_t dilD,
                                                int64_t dilH, int64_t dilW, int64_t groups);
/* iD, iH, iW: the input's depth, height and width. */
int THNN_(VolumetricConvolutionMM_updateGradInput)(THTensor *gradInput, THTensor *gradOutput,
                                                   THTensor *weight, int64_t iD, int64_t iH,
                                                   int64_t iW, int64_t sD, int64_t sH,
                                                   int64_t sW, int64_t padF, int64_t padT,
                                                   int64_t padL, int64_t padBk, int64_t padB,
                                                   int64_t padR, int64_t dilD, int64_t dilH,
                                                   int64_t dilW, int64_t groups);
int THNN_(VolumetricConvolutionMM_accGradParameters)(THTensor *gradWeight, THTensor *gradBias,
                                                     THTensor *gradOutput, THTensor *input,
                                                     int64_t sD, int64_t sH, int64_t sW,
                                                     int64_t padF, int64_t padT, int64_t padL,
                                                     int64_t padBk, int64_t padB, int64_t padR,
                                                     int64_t dilD, int64_t dilH, int64_t dilW,
                                                     int64_t groups, double scale);

/* output (N, Cout, (D-1)*sD - padF - padBk + dilD*(kD-1) + outPadD + 1, ...) */
int THNN_(VolumetricFullDilatedConvolution_updateOutput)(
    THTensor *output, THTensor *input, THTensor *weight, THTensor *bias, int64_t sD, int64_t sH,
    int64_t sW, int64_t padF, int64_t padT, int64_t padL, int64_t padBk, int64_t padB,
    int64_t padR, int64_t dilD, int64_t dilH, int64_t dilW, int64_t outPadD, int64_t outPadH,
    int64_t outPadW, int64_t groups);
int THNN_(VolumetricFullDilatedConvolution_updateGradInput)(
    THTensor *gradInput, THTensor *gradOutput, THTensor *weight, int64_t iD, int64_t iH,
    int64_t iW, int64_t sD, int64_t sH, int64_t sW, int64_t padF, int64_t padT, int64_t padL,
    int64_t padBk, int64_t padB, int64_t padR, int64_t dilD, int64_t dilH, int64_t dilW,
    int64_t groups);
int THNN_(VolumetricFullDilatedConvolution_accGradParameters)(
    THTensor *gradWeight, THTensor *gradBias, THTensor *gradOutput, THTensor *input, int64_t sD,
    int64_t sH, int64_t sW, int64_t padF, int64_t padT, int64_t padL, int64_t padBk,
    int64_t padB, int64_t padR, int64_t dilD, int64_t dilH, int64_t dilW, int64_t groups,
    double scale);

#endif
