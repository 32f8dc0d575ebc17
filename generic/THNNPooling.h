#ifndef TH_GENERIC_FILE
#define TH_GENERIC_FILE "generic/THNNPooling.h"
#else

/* Pooling over (N, C, H, W) tensors (Spatial, 2-D; 1-D pooling runs there with H = 1) and
 * (N, C, T, H, W) tensors (Volumetric, 3-D), each plane independently; a Spatial layer is its
 * Volumetric kernel over a depth of 1. Output sizes follow PyTorch: floor (or, with ceilMode,
 * ceil) of (I + 2 pad - dil (k - 1) - 1) / stride + 1, a last window that would start in the
 * right padding dropped. Results are resized; each returns 0, or -1 with an error recorded. */

/* Max pooling with the argmax of each window (its flat index within the plane, h * W + w or
 * (t * H + h) * W + w, as PyTorch returns it) in indices (int64, output's shape). NaN wins over
 * any number (the window's last NaN, as in PyTorch). */
int THNN_(SpatialDilatedMaxPooling_updateOutput)(THTensor *output, THLongTensor *indices,
                                                 THTensor *input, int64_t kH, int64_t kW,
                                                 int64_t sH, int64_t sW, int64_t padH,
                                                 int64_t padW, int64_t dilH, int64_t dilW,
                                                 int ceilMode);
/* gradInput (input's shape) = gradOutput added at the indices. */
int THNN_(SpatialDilatedMaxPooling_updateGradInput)(THTensor *gradInput, THTensor *gradOutput,
                                                    THTensor *input, THLongTensor *indices);
int THNN_(VolumetricDilatedMaxPooling_updateOutput)(THTensor *output, THLongTensor *indices,
                                                    THTensor *input, int64_t kT, int64_t kH,
                                                    int64_t kW, int64_t sT, int64_t sH,
                                                    int64_t sW, int64_t padT, int64_t padH,
                                                    int64_t padW, int64_t dilT, int64_t dilH,
                                                    int64_t dilW, int ceilMode);
int THNN_(VolumetricDilatedMaxPooling_updateGradInput)(THTensor *gradInput,
                                                       THTensor *gradOutput, THTensor *input,
                                                       THLongTensor *indices);

/* Average pooling: the window's sum divided by divisorOverride when positive, else by the
 * window's size counting the padding (countIncludePad) or only the elements inside. */
int THNN_(SpatialAveragePooling_updateOutput)(THTensor *output, THTensor *input, int64_t kH,
                                              int64_t kW, int64_t sH, int64_t sW, int64_t padH,
                                              int64_t padW, int ceilMode, int countIncludePad,
                                              int64_t divisorOverride);
int THNN_(SpatialAveragePooling_updateGradInput)(THTensor *gradInput, THTensor *gradOutput,
                                                 THTensor *input, int64_t kH, int64_t kW,
                                                 int64_t sH, int64_t sW, int64_t padH,
                                                 int64_t padW, int ceilMode,
                                                 int countIncludePad, int64_t divisorOverride);
/* As PyTorch's avg_pool3d, the input must be at least the kernel's size in every dim. */
int THNN_(VolumetricAveragePooling_updateOutput)(THTensor *output, THTensor *input, int64_t kT,
                                                 int64_t kH, int64_t kW, int64_t sT, int64_t sH,
                                                 int64_t sW, int64_t padT, int64_t padH,
                                                 int64_t padW, int ceilMode,
                                                 int countIncludePad, int64_t divisorOverride);
int THNN_(VolumetricAveragePooling_updateGradInput)(THTensor *gradInput, THTensor *gradOutput,
                                                    THTensor *input, int64_t kT, int64_t kH,
                                                    int64_t kW, int64_t sT, int64_t sH,
                                                    int64_t sW, int64_t padT, int64_t padH,
                                                    int64_t padW, int ceilMode,
                                                    int countIncludePad,
                                                    int64_t divisorOverride);

/* Adaptive pooling to (oT,) oH, oW cells: cell o of O along a dim of size I covers
 * [floor(o I / O), ceil((o + 1) I / O)). Average: the cell's mean. */
int THNN_(SpatialAdaptiveAveragePooling_updateOutput)(THTensor *output, THTensor *input,
                                                      int64_t oH, int64_t oW);
int THNN_(SpatialAdaptiveAveragePooling_updateGradInput)(THTensor *gradInput,
                                                         THTensor *gradOutput,
                                                         THTensor *input);
int THNN_(VolumetricAdaptiveAveragePooling_updateOutput)(THTensor *output, THTensor *input,
                                                         int64_t oT, int64_t oH, int64_t oW);
int THNN_(VolumetricAdaptiveAveragePooling_updateGradInput)(THTensor *gradInput,
                                                            THTensor *gradOutput,
                                                            THTensor *input);

/* Adaptive max pooling: the cell's maximum and its flat index within the plane, as max
 * pooling's; the gradient goes to the indices. */
int THNN_(SpatialAdaptiveMaxPooling_updateOutput)(THTensor *output, THLongTensor *indices,
                                                  THTensor *input, int64_t oH, int64_t oW);
int THNN_(SpatialAdaptiveMaxPooling_updateGradInput)(THTensor *gradInput, THTensor *gradOutput,
                                                     THTensor *input, THLongTensor *indices);
int THNN_(VolumetricAdaptiveMaxPooling_updateOutput)(THTensor *output, THLongTensor *indices,
                                                     THTensor *input, int64_t oT, int64_t oH,
                                                     int64_t oW);
int THNN_(VolumetricAdaptiveMaxPooling_updateGradInput)(THTensor *gradInput,
                                                        THTensor *gradOutput, THTensor *input,
                                                        THLongTensor *indices);

#endif
