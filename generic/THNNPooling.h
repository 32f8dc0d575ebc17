#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THNNPooling.h"
#else

/* 2-D pooling over (N, C, H, W) tensors (1-D pooling runs here with H = 1), each plane
 * independently. Output sizes follow PyTorch: floor (or, with ceilMode, ceil) of
 * (H + 2 pad - dil (k - 1) - 1) / stride + 1, a last window that would start in the right
 * padding dropped. Results are resized; each returns 0, or -1 with an error recorded. */

/* Max pooling with the argmax of each window (its flat index h * W + w within the plane, as
 * PyTorch returns it) in indices (int64, output's shape). NaN wins over any number. */
int THNN_(SpatialDilatedMaxPooling_updateOutput)(THTensor *output, THLongTensor *indices,
                                                 THTensor *input, int64_t kH, int64_t kW,
                                                 int64_t sH, int64_t sW, int64_t padH,
                                                 int64_t padW, int64_t dilH, int64_t dilW,
                                                 int ceilMode);
/* gradInput (input's shape) = gradOutput added at the indices. */
int THNN_(SpatialDilatedMaxPooling_updateGradInput)(THTensor *gradInput, THTensor *gradOutput,
                                                    THTensor *input, THLongTensor *indices);

/* Average pooling: the window's sum divided by divisorOverride when positive, else by the
 * window's size counting the padding (countIncludePad) or only the pixels inside. */
int THNN_(SpatialAveragePooling_updateOutput)(THTensor *output, THTensor *input, int64_t kH,
                                              int64_t kW, int64_t sH, int64_t sW, int64_t padH,
                                              int64_t padW, int ceilMode, int countIncludePad,
                                              int64_t divisorOverride);
int THNN_(SpatialAveragePooling_updateGradInput)(THTensor *gradInput, THTensor *gradOutput,
                                                 THTensor *input, int64_t kH, int64_t kW,
                                                 int64_t sH, int64_t sW, int64_t padH,
                                                 int64_t padW, int ceilMode,
                                                 int countIncludePad, int64_t divisorOverride);

/* Adaptive average pooling to (oH, oW): cell o covers [floor(o I / O), ceil((o + 1) I / O)). */
int THNN_(SpatialAdaptiveAveragePooling_updateOutput)(THTensor *output, THTensor *input,
                                                      int64_t oH, int64_t oW);
int THNN_(SpatialAdaptiveAveragePooling_updateGradInput)(THTensor *gradInput,
                                                         THTensor *gradOutput,
                                                         THTensor *input);

#endif
